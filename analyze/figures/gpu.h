/* SPDX-License-Identifier: MIT */
/*
 * GPU rows (--cupti), replayed: each row tied to the probed call that made it, and the figures
 * every command shows from them (report, diff, export read the same computation): busy share and
 * idle gaps, kernel durations per kernel and per launch configuration, copy times and bandwidth
 * per direction, and the probes' executed kernel counts against the GPU's, per kernel name.
 * Definitions: docs/REPORTS.md, "GPU (measured on the GPU, CUPTI)".
 *
 * Every time here is the GPU's, as CUPTI measured it (struct gr_gpu), except the host calls a
 * row is tied to. A trace without GPU rows gives a summary with nrows 0 and nothing else.
 *
 * Ownership: gr_gpu_compute() allocates the summary and its arrays; names point into the model
 * (valid while it lives). gr_gpu_free() releases it.
 */
#ifndef GR_ANALYZE_GPU_H
#define GR_ANALYZE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"
#include "analyze/util/dist.h"
#include "graphs.h"

/* The probed call a GPU row came from. */
struct gr_gpu_tie {
	uint16_t kind;	/* GR_K_LAUNCH, GR_K_COPY, GR_K_MEMSET or GR_K_GRAPH (a graph launch);
			 * 0: untied */
	uint16_t exact; /* the call's entry is the row's host_ts itself */
	uint32_t index; /* in gr_model_launches() / copies() / memsets() / graphs() */
};

/* Busy time of one device in a window: the union of its rows' [ts, ts + dur] clipped to it. */
struct gr_gpu_busy {
	uint32_t device;
	uint64_t busy_ns;
	double share;	     /* busy_ns / the window */
	uint64_t gaps;	     /* idle intervals between two busy intervals inside the window */
	uint64_t gap_ns;     /* their total */
	uint64_t largest_ns; /* the largest, from largest_ts */
	uint64_t largest_ts;
	uint32_t before; /* gr_model_gpus() row whose end opened the largest gap */
	uint32_t after;	 /* ... the row that closed it (its tie says which host call) */
};

/* A window's busy time, per device (by device id). */
struct gr_gpu_window {
	uint64_t from_ts, to_ts; /* 0, 0: no window (no iteration) */
	struct gr_gpu_busy *devices;
	size_t ndevices;
};

/* Kernel rows of one name, or of one (name, grid, block, shared memory). */
struct gr_gpu_kernel {
	const char *name; /* model: demangled */
	uint32_t grid[3], block[3], shared;
	struct gr_dist dur;
};

/* Copies of one CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, ... 8 DtoD), or memsets. */
#define GR_GPU_COPY_KINDS 11 /* CUPTI's kinds 0 (unknown) .. 10 (PtoP) */
struct gr_gpu_copies {
	unsigned copy_kind; /* GR_GPU_COPY_KINDS: memsets */
	struct gr_dist dur;
	uint64_t bytes;
	double bytes_per_s; /* bytes / dur.total: effective bandwidth; 0 when dur.total is 0 */
};

/*
 * Executed kernels per kernel name: the probes' (launches that were not graph nodes; kernel
 * nodes of graph launches, graphs.h) and the GPU's (rows with graph 0; rows with graph != 0).
 */
struct gr_gpu_count {
	const char *name; /* model */
	uint64_t probe_direct, probe_graph;
	uint64_t gpu_direct, gpu_graph;
};

struct gr_gpu_summary {
	size_t nrows;		 /* gr_model_gpus() rows; 0: nothing below is set */
	struct gr_gpu_tie *ties; /* one per row */
	uint64_t tied, exact;	 /* rows tied to a probed call; of those, at its very entry */
	uint64_t untied;	 /* rows whose call the probes did not record (or no host_tid) */
	uint64_t kernels, copies, memsets; /* rows of each kind (others: unknown kinds) */
	struct gr_gpu_window recording;	   /* the recording's span */
	struct gr_gpu_window iteration;	   /* the detected iteration's loop, when given */
	struct gr_gpu_kernel *by_name;	   /* by dur.total desc, then name */
	size_t nby_name;
	struct gr_gpu_kernel *by_config; /* by dur.total desc, then name, grid, block */
	size_t nby_config;
	struct gr_gpu_copies *copy_dirs; /* kinds with rows, in kind order, memsets last */
	size_t ncopy_dirs;
	struct gr_gpu_count *counts; /* every name either side counts, by name */
	size_t ncounts;
	uint64_t count_mismatches; /* names where either count differs */
};

/*
 * Compute @m's GPU figures: the recording's window is gr_model_time_span(); the iteration's is
 * [@iter_from, @iter_to] when @iter_to > @iter_from, else none. @graphs (may be NULL: no graph
 * launches) is the graphs replay of @m. Returns 0 and *@out, or -ENOMEM with *@out NULL.
 */
int gr_gpu_compute(const struct gr_model *m, const struct gr_graphs *graphs, uint64_t iter_from,
		   uint64_t iter_to, struct gr_gpu_summary **out);

/* What kernel rows are grouped by besides their name (gr_gpu_kernels()). */
#define GR_GPU_BY_GRID	 1u
#define GR_GPU_BY_BLOCK	 2u
#define GR_GPU_BY_SHARED 4u

/*
 * @m's kernel rows grouped by name and the parts @by (GR_GPU_BY_* bits) names, by dur.total
 * desc, then name; the parts not asked for are 0. The grouping of the summary's by_name (@by 0)
 * and by_config (all three): `gpurec diff` asks for its --key. Returns 0 and *@out (the caller
 * frees it; names point into @m) with *@n entries, or -ENOMEM with *@out NULL.
 */
int gr_gpu_kernels(const struct gr_model *m, unsigned by, struct gr_gpu_kernel **out, size_t *n);

/* Free what gr_gpu_compute() returned (NULL is accepted). */
void gr_gpu_free(struct gr_gpu_summary *s);

/* "HtoD", "DtoH", ... for a CUpti_ActivityMemcpyKind, "memset" for GR_GPU_COPY_KINDS. */
const char *gr_gpu_copy_kind_name(unsigned copy_kind);

/* The (pid, tid, entry ts, api) of the call @t names; 0 when untied. */
int gr_gpu_tie_call(const struct gr_model *m, const struct gr_gpu_tie *t, uint32_t *pid,
		    uint32_t *tid, uint64_t *ts, unsigned *api);

#endif
