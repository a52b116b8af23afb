/* SPDX-License-Identifier: MIT */
/*
 * The channel between the CUPTI injection library (cupti/inject.c, loaded into the traced
 * processes by the CUDA driver) and the recorder (record/cupti.c): a pipe whose write end the
 * traced command inherits, named by GR_CUPTI_FD_ENV. Every write is whole records of one fixed
 * size and at most PIPE_BUF bytes, so the processes of a tree that share the pipe never
 * interleave inside a record. The write end is non-blocking: a full pipe costs records, counted
 * by the library and sent in its totals, never the program's time.
 *
 * Everything here is plain fixed-width data: the recorder validates each record (it comes from
 * the user's processes) before using any field.
 */
#ifndef GR_CUPTI_WIRE_H
#define GR_CUPTI_WIRE_H

#include <stdint.h>

/* the traced command's environment: the pipe's write end, a decimal descriptor number */
#define GR_CUPTI_FD_ENV "GPUREC_CUPTI_FD"

/* "GRCU": a stray write on the descriptor is never taken for a record */
#define GR_CUPTI_MAGIC 0x55435247u

enum gr_cupti_rec_type {
	/* the library is in: status 0 (CUPTI activity enabled) or the CUptiResult that refused
	 * it, with CUPTI's text in name */
	GR_CUPTI_HELLO = 1,
	/* one kernel, memcpy or memset: the fields of a GR_K_GPU row */
	GR_CUPTI_GPU = 2,
	/* at the process's exit: cupti_dropped, unwritten (records the full pipe refused) */
	GR_CUPTI_TOTALS = 3,
};

/* flags */
#define GR_CUPTI_NAME_CUT 1u /* the kernel's name was longer than GR_CUPTI_NAME_MAX: cut */

#define GR_CUPTI_REC_SIZE 1024
#define GR_CUPTI_NAME_MAX 888

/*
 * One record. GPU: start, end (GPU times, CLOCK_MONOTONIC ns: the library gives CUPTI that
 * clock), host_tid, host_ts (the API call that asked for it, from CUPTI's RUNTIME or DRIVER
 * record of the same correlation id, joined in the library; 0 when that record was not seen
 * before this one), then the GR_K_GPU columns of the same names (format/events.h). name: not
 * NUL-terminated, name_len bytes.
 */
struct gr_cupti_rec {
	uint32_t magic;
	uint16_t type; /* enum gr_cupti_rec_type */
	uint16_t kind; /* GPU: enum gr_gpu_kind */
	uint32_t pid;
	uint32_t host_tid;
	uint64_t start, end;
	uint64_t host_ts;
	uint32_t device, context, stream, correlation;
	uint32_t grid[3], block[3];
	uint32_t shared; /* static + dynamic shared memory bytes */
	uint32_t copy_kind;
	uint64_t bytes;
	uint64_t graph_node;
	uint32_t graph;
	uint32_t status;		   /* HELLO */
	uint64_t cupti_dropped, unwritten; /* TOTALS */
	uint32_t flags;
	uint32_t name_len;
	char name[GR_CUPTI_NAME_MAX];
};

_Static_assert(sizeof(struct gr_cupti_rec) == GR_CUPTI_REC_SIZE, "the pipe's record size");
_Static_assert(GR_CUPTI_REC_SIZE * 4 <= 4096, "four records fit one atomic pipe write");

#endif
