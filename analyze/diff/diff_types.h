/* SPDX-License-Identifier: MIT */
/*
 * Two traces compared, perf diff's model: BASE (index 0) and NEW (index 1). Kernels are matched
 * by demangled name, optionally with grid and block, never by address, so runs from different
 * machines or program builds compare. Whole-run and per-iteration figures come from each
 * trace's report (report_types.h) and from the model; definitions in docs/REPORTS.md ("gpurec
 * diff").
 *
 * The module: diff.c computes (kernel matching, the side-by-side figures, fusion rows), then
 * runs its parts (diff_parts.h): diff_gpu.c matches the GPU kernel rows (--cupti), diff_sites.c
 * the launch sites, diff_summary.c writes the summary sentences from the computed figures;
 * diff_common.c holds what they share; diff_text.c and diff_json.c render; the command is
 * analyze/cmd_diff.c. Figures are named by their id, never by the
 * words a person reads.
 *
 * Ownership: gr_diff_compute() allocates the diff and its strings; kernel names point into the
 * models, so the diff is valid while both models live. gr_diff_free() releases it.
 */
#ifndef GR_ANALYZE_DIFF_TYPES_H
#define GR_ANALYZE_DIFF_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/figures/frames.h"
#include "analyze/model/model.h"
#include "analyze/report/report_types.h"
#include "analyze/util/dist.h"

#define GR_DIFF_KEY_GRID  1u /* kernels also keyed by grid */
#define GR_DIFF_KEY_BLOCK 2u /* kernels also keyed by block */

/* Summary lines are about changes of at least this many percent (or the tolerance, if more);
 * counts (launches, kernels, copies) are reported on any change. */
#define GR_DIFF_SUMMARY_PCT 10.0
#define GR_DIFF_SUMMARY_MAX 10 /* summary lines at most */
/* A step budget part is in the summary when its median moved as above and by at least this
 * share (percent) of the longer of the two median steps: a 50% change of a part that takes 1% of
 * the step changes nothing a person would act on. The GR_DIFF_SUMMARY_PARTS largest moves are. */
#define GR_DIFF_SUMMARY_STEP_PCT 5.0
#define GR_DIFF_SUMMARY_PARTS	 3

enum gr_diff_status {
	GR_DIFF_COMMON = 0, /* in both */
	GR_DIFF_ADDED,	    /* only in NEW */
	GR_DIFF_REMOVED,    /* only in BASE */
};

struct gr_diff_opts {
	unsigned key;	  /* GR_DIFF_KEY_* bits; the name is always part of the key */
	double tolerance; /* percent: rows whose relative change is below it are marked hidden */
	const struct gr_report_opts *report; /* NULL: report defaults */
};

struct gr_diff_kernel {
	const char *name;	    /* demangled (model) */
	uint32_t grid[3], block[3]; /* part of the key when opts.key says so, else 0 */
	uint64_t count[2];
	uint64_t api_ns[2]; /* launch call time, summed; 0 when the trace did not time launches */
	int64_t delta;	    /* count[1] - count[0] */
	double ratio;	    /* count[1] / count[0]; NAN when count[0] is 0 */
	double per_iter[2]; /* count / iterations of that trace; NAN without an iteration */
	enum gr_diff_status status;
	int hidden; /* a common kernel whose count changed by less than the tolerance */
};

/*
 * Metric ids: stable, for programs (gr_diff_metric(), the "id" key of --json); the name beside
 * each is the display text, which may be reworded at any time. <dir> is one of h2h, h2d, d2h,
 * d2d, default (enum gr_copy_kind order); <n> numbers the thread rows from 1 (BASE threads in
 * order of first CUDA call, each with its NEW pair, then NEW threads without a pair).
 *
 *   run.duration                 duration
 *   run.launches                 launches
 *   run.launch_rate              launches/s
 *   run.kernels                  distinct kernels
 *   run.launch_api_time          launch API time (when either trace timed launches)
 *   run.launch_cost              launch cost (median) / launch cost (median, estimate)
 *   run.fusion_candidates        fusion candidates
 *   run.fusion_saving            fusion saving (estimate)
 *   iteration.count              iterations      (the iteration group: when either trace has one)
 *   iteration.period             iteration time (median)
 *   iteration.launches           launches per iteration
 *   iteration.calls              API calls per iteration
 *   iteration.syncs              syncs per iteration
 *   iteration.sync_time          sync time per iteration
 *   iteration.launch_api_time    launch API time per iteration (when timed)
 *   iteration.<dir>.copies       <DIR> copies per iteration (directions with copies in a loop)
 *   iteration.<dir>.bytes        <DIR> bytes per iteration
 *   iteration.<dir>.copy_time    <DIR> copy time per iteration
 *   iteration.runnable_wait      runnable wait per iteration
 *   budget.total                 step time (median iteration) (the budget group: when either
 *                                trace has a step budget, budget.h)
 *   budget.<part>                <part words> per step (median): that part's own median over
 *                                the iterations; <part> as gr_budget_part_name() ("host",
 *                                "launch", "sync_stream" ...), parts 0 on both sides left out
 *   budget.blocked.<reason>      <reason words> per step (mean): the blocked part's time for
 *                                that reason per iteration over the loop (blocked.h: "gil",
 *                                "lock", "input", ...), when a side records blocked reasons;
 *                                reasons 0 on both sides left out
 *   transfer.<dir>.copies        <DIR> copies (directions with copies in either trace)
 *   transfer.<dir>.bytes         <DIR> bytes
 *   transfer.<dir>.copy_time     <DIR> copy time
 *   transfer.memsets             memsets (when any)
 *   transfer.memset_bytes        memset bytes
 *   transfer.syncs               syncs
 *   transfer.sync_time           sync time
 *   cpu.gap_wait                 runnable wait in launch gaps (the cpu group: scheduler events)
 *   cpu.gap_share                share of wall time
 *   cpu.thread.<n>.runnable_wait runnable wait: <comm> #<rank>
 *   cpu.thread.<n>.on_cpu        on CPU: <comm> #<rank>
 *   cpu.thread.<n>.preemptions   preemptions: <comm> #<rank>
 *   losses.lost_events           lost events
 *   losses.damaged               damaged file (1 = yes)
 *   calls.failed                 failed calls (outermost calls that returned an error)
 *   calls.in_flight              calls in flight at the end
 *   calls.inner                  calls made inside another recorded call
 *   gpu.kernels                  kernels run on the GPU (the gpu group: both traces have GPU
 *                                rows, --cupti; measured on the GPU)
 *   gpu.kernel_time              GPU kernel time
 *   gpu.busy_time                GPU busy time (every device's, added)
 *   gpu.busy_share               GPU busy share (of the busiest device)
 *   gpu.iteration.busy_time      GPU busy time per iteration (when either trace has one)
 *   gpu.iteration.busy_share     GPU busy share in the iteration
 *   gpu.dropped                  GPU records dropped (the GPU figures are lower bounds)
 *   memory.peak                  device memory peak (largest process) (the memory group: when
 *                                either trace made an allocation call; NAN: every one failed)
 *   memory.outstanding           outstanding at the end (all processes)
 *   memory.failed                failed allocations
 *   memory.growth                growth per iteration (0: no growth finding; NAN: no loop)
 *   memory.churn_allocations     allocations per iteration (median; NAN: no loop)
 *   memory.churn_frees           frees per iteration (median)
 *   memory.churn_time            alloc/free call time per iteration (median)
 */
#define GR_DIFF_ID_LEN 48 /* the longest id, "cpu.thread.<n>.runnable_wait", fits */

/* One compared figure. v[i] is NAN when trace i lacks it (no iteration, no such thread). */
struct gr_diff_metric {
	char id[GR_DIFF_ID_LEN]; /* "transfer.h2d.bytes" (the list above), unique in a diff */
	const char *group; /* static: "run", "iteration", "budget", "transfer", "cpu", "losses",
			    * "calls", "gpu", "memory" */
	char *name;	   /* for people: "H2D bytes", "runnable wait: chain #1" */
	const char *unit;  /* static: "" (count), "ns", "B", "/s", "%" */
	double v[2];
	double delta; /* v[1] - v[0]; NAN when either is NAN */
	double ratio; /* v[1] / v[0]; NAN when v[0] is 0 or NAN */
	int hidden;   /* relative change below the tolerance */
};

/*
 * One kernel key's GPU time in each trace (--cupti, gpu.h), matched by the key of the kernel rows
 * (name, and grid and block when opts.key says so). dur[s].count 0: it did not run on the GPU in
 * trace s.
 */
struct gr_diff_gpu_kernel {
	const char *name;	    /* demangled (model) */
	uint32_t grid[3], block[3]; /* part of the key when opts.key says so, else 0 */
	struct gr_dist dur[2];	    /* GPU durations (count, total, median ...) */
	int64_t total_delta;	    /* dur[1].total - dur[0].total */
	double total_ratio;	    /* dur[1].total / dur[0].total; NAN when dur[0].total is 0 */
	int64_t median_delta;	    /* dur[1].median - dur[0].median */
	enum gr_diff_status status;
	int hidden; /* common, and its count and total changed by less than the tolerance */
};

/* A fusion candidate of either trace, by its sequence of kernel names. */
struct gr_diff_fusion {
	char *label;	/* "bias_add..dropout_mask (5 kernels)" */
	char *sequence; /* every kernel name of the run, " -> " between them */
	uint32_t len;	/* kernels in the run */
	uint64_t occurrences[2];
	uint64_t saving_ns[2];	    /* estimate, from each report */
	enum gr_diff_status status; /* ADDED: found only in NEW; REMOVED: gone in NEW */
};

/*
 * A launch site of either trace (launch_sites.h), matched across the two by (file, function) of
 * its Python frame, so an edit that moves the line keeps the match; a native site by (function,
 * module), else (module, offset), else the address. Sites of one trace that match one key (a
 * function launching from several lines) add up, frame[s] the one with most launches.
 */
struct gr_diff_site {
	struct gr_frame frame[2]; /* model strings; frame[s].value 0: no such site in trace s */
	uint64_t launches[2];
	int64_t delta; /* launches[1] - launches[0] */
	enum gr_diff_status status;
};

/*
 * An NVTX range name of either trace (nvtx.h statistics, from each report), matched by domain
 * name and range name. per_step[s]: its time inside the steps over trace s's steps (NAN: that
 * trace has no step, or the range is not on the step's thread).
 */
struct gr_diff_nvtx {
	char *name; /* "DOMAIN:NAME", or NAME in the default domain (owned) */
	uint64_t count[2];
	uint64_t total_ns[2], median_ns[2];
	double per_step[2];
	double per_step_delta; /* per_step[1] - per_step[0]: NAN when either is */
	double total_delta;
	enum gr_diff_status status;
	int hidden; /* common, same count, and its time changed by less than the tolerance */
};

struct gr_diff {
	unsigned key; /* opts.key */
	double tolerance;
	int comparable;			  /* a kernel in common, or no launch in either trace */
	size_t ncommon, nadded, nremoved; /* kernel rows of each status */
	struct gr_diff_kernel *kernels;	  /* common (by impact), then added, then removed */
	size_t nkernels;
	int iter_found[2];
	uint64_t iterations[2];		/* complete iterations, 0 when not found */
	struct gr_diff_metric *metrics; /* in display order, grouped */
	size_t nmetrics;
	struct gr_diff_fusion *fusion; /* gone, then found, then in both; by saving */
	size_t nfusion;
	/* launch sites, when either trace has Python frames (else none: the output reads as
	 * before): by launches of both traces together, descending */
	int python;
	struct gr_diff_site *sites;
	size_t nsites;
	/* measured on the GPU (--cupti): gpu[s] when trace s has GPU rows (rep[s]->gpu); the GPU
	 * kernel rows and the gpu group of figures only when both have (one side alone: nothing
	 * is compared GPU-side; neither: the output reads as before) */
	int gpu[2];
	struct gr_diff_gpu_kernel *gpu_kernels; /* common (by |total_delta|), added, removed */
	size_t ngpu_kernels;
	struct gr_diff_nvtx *nvtx; /* common (by largest change), added, removed; none when neither
				    * trace has NVTX ranges */
	size_t nnvtx;
	char **summary; /* sentences, most important first (at most GR_DIFF_SUMMARY_MAX) */
	size_t nsummary;
	int same_host;		  /* both headers name the same host */
	struct gr_report *rep[2]; /* each trace's report */
};

/* The metric with id @id (the ids above; diff_common.c), or NULL when this diff does not have it.
 */
const struct gr_diff_metric *gr_diff_metric(const struct gr_diff *d, const char *id);

#endif
