/* SPDX-License-Identifier: MIT */
/*
 * `record --cupti`: the recorder's end of the channel to the CUPTI injection library
 * (cupti/wire.h). The recorder makes the pipe (its own), finds the library next to its own
 * binary (never a path the user names), gives the traced command CUDA_INJECTION64_PATH and
 * GPUREC_CUPTI_FD in its environment only, reads the records in its drain loop without ever
 * blocking, and writes each GPU record as a GR_K_GPU row.
 *
 * Without a CUDA driver nothing is injected (the driver is what loads the library): the
 * recording goes on as without --cupti, and the trace says why (GR_SESS_CUPTI 0).
 * Test hook: GPUREC_TEST_CUPTI_DRIVER=1 takes the driver as present, so tests can feed the pipe
 * from a stand-in program that calls the library's writer itself.
 */
#ifndef GR_RECORD_CUPTI_H
#define GR_RECORD_CUPTI_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "cupti/wire.h"
#include "format/events.h"

struct gr_trace_writer;
struct gr_bytes;
struct gr_identity;

#define GR_CUPTI_LIBRARY "libgpurec_cupti.so"

struct gr_cupti {
	int active;   /* the pipe is set up and the command gets the library */
	int rd, wr;   /* the pipe's ends; wr is closed once the command has it */
	char why[96]; /* why not active */
	char *env[3]; /* for the command: the two variables, NULL-terminated */

	uint64_t rows;		/* GR_K_GPU rows written */
	uint64_t processes;	/* HELLO records: processes that loaded the library */
	uint64_t refused;	/* of those, where CUPTI refused the activity API */
	char refused_text[96];	/* CUPTI's reason, the first time */
	uint64_t cupti_dropped; /* TOTALS: what CUPTI dropped */
	uint64_t unwritten;	/* TOTALS: what the full pipe refused */
	uint64_t bad;		/* records not valid (a stray write on the descriptor) */
	size_t have;		/* bytes of a record read in part */
	uint8_t buf[64 * GR_CUPTI_REC_SIZE];
};

/*
 * Find the library: next to the gpurec binary, else in ../lib/gpurec/ beside its directory.
 * Returns 0 with the path in @out, or -ENOENT with the places looked in, in @out.
 */
int gr_cupti_find_library(char *out, size_t size);

/*
 * Set up --cupti for a command run as @id: no driver (driver_probe says why): not active, 0.
 * Else the library is found and the pipe made: active, 0. Returns -ENOENT when the library
 * is missing, or -errno from the pipe, with @out_msg saying it.
 */
int gr_cupti_open(struct gr_cupti *c, const struct gr_identity *id, char *msg, size_t size);

/* The command has the write end: ours is closed, so the pipe is the command tree's alone. */
void gr_cupti_started(struct gr_cupti *c);

/* Read every record waiting, writing GPU rows. Never blocks. Returns 0 or the writer's error. */
int gr_cupti_drain(struct gr_cupti *c, struct gr_trace_writer *w);

/*
 * A GPU record as a GR_K_GPU row: the values and the name. 0, or -EINVAL for a record not
 * valid (wrong magic or type, kind or name length out of range): nothing may be trusted in it.
 */
int gr_cupti_row(const struct gr_cupti_rec *r, uint64_t v[GR_GPU_NCOLS], struct gr_bytes *name);

/*
 * The session facts: GR_SESS_CUPTI's value and text, GR_SESS_CUPTI_DROPPED's value and text,
 * as the trace and the closing line say them.
 */
void gr_cupti_facts(const struct gr_cupti *c, uint64_t *recorded, char *why, size_t why_size,
		    uint64_t *dropped, char *dropped_text, size_t dropped_size);

void gr_cupti_close(struct gr_cupti *c);

#endif
