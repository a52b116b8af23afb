/* SPDX-License-Identifier: MIT */
/*
 * The four reports of `gpurec report`, computed from a loaded model into plain structs: launch
 * frequency, fusion opportunities, transfers, CPU starvation. Computation never prints; the
 * renderers (gr_report_write_text/json) and `gpurec diff` read these structs. Definitions,
 * formulas and thresholds: docs/REPORTS.md.
 *
 * Every time is in ns of the recording host's CLOCK_MONOTONIC and is a host-side measurement
 * (an API call's entry to return, a scheduler state) unless its comment says "estimate".
 *
 * Ownership: gr_report_compute() allocates the report and everything it points to, except the
 * strings marked "model": kernel names and comms point into the model, so the report is valid
 * while the model lives. gr_report_free() releases it all. Arrays are sorted as their comment
 * says; an empty array has n == 0 (the pointer may be NULL).
 */
#ifndef GR_ANALYZE_REPORT_TYPES_H
#define GR_ANALYZE_REPORT_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/figures/budget.h"
#include "analyze/figures/frames.h"
#include "analyze/figures/gpu.h"
#include "analyze/figures/launch_sites.h"
#include "analyze/figures/memory.h"
#include "analyze/figures/nvtx.h"
#include "analyze/figures/outcome.h"
#include "analyze/figures/probe_cost.h"
#include "analyze/model/damage.h"
#include "analyze/model/model.h"
#include "analyze/util/dist.h"

/* Sections, for gr_report_opts.sections and gr_report.sections. */
#define GR_REPORT_LAUNCHES (1u << 0)
#define GR_REPORT_FUSION   (1u << 1)
#define GR_REPORT_TRANSFER (1u << 2)
#define GR_REPORT_CPU	   (1u << 3)
#define GR_REPORT_COMM	   (1u << 4)
#define GR_REPORT_RANKS	   (1u << 5)
#define GR_REPORT_MEMORY   (1u << 6)
#define GR_REPORT_NVTX	   (1u << 7)
#define GR_REPORT_ALL	   0xffu

#define GR_REPORT_SLOW_LAUNCH_NS 50000 /* launch calls slower than this are listed */
#define GR_REPORT_GAP_BUCKETS	 11    /* inter-launch gap histogram, see gr_report_gap_edges */
#define GR_REPORT_SIZE_BUCKETS	 6     /* copy size histogram, see gr_report_size_edges */
#define GR_REPORT_MAX_PHASES	 8     /* loops listed beside the iteration */
#define GR_REPORT_NDIRS		 5     /* H2H H2D D2H D2D default (enum gr_copy_kind order) */

struct gr_report_opts {
	unsigned sections;	 /* GR_REPORT_* bits; 0 = all */
	uint32_t sms;		 /* streaming multiprocessors of the GPU; 0 = the count the
				  * program got from the runtime, when recorded */
	uint64_t slow_launch_ns; /* 0 = GR_REPORT_SLOW_LAUNCH_NS */
	int no_compensate;	 /* leave our probes' cost in every time (probe_cost.h) */
	/* --step SPEC: the step the user names (report_step.c); NULL: the finder's. A SPEC that
	 * matches no call makes gr_report_compute() fail with -ENOENT, one that cannot name
	 * anything (an unknown api:NAME, an empty name) with -EINVAL */
	const char *step;
	/* the ranks section keeps its rows for one launching process too (a job's per-trace
	 * summary, job.h: one rank per trace is the usual case); else it has rows from two on */
	int all_ranks;
	/* threads the longest sections may run on at once (0 or 1: the calling thread alone); the
	 * report is the same for any number */
	unsigned jobs;
};

/* How a report comes out: nothing to say (no data for it), healthy, or a problem to act on. */
enum gr_verdict_level {
	GR_VERDICT_NONE = 0, /* no data: no launches / no copies / no scheduler events */
	GR_VERDICT_OK,
	GR_VERDICT_PROBLEM,
};

struct gr_verdict {
	enum gr_verdict_level level;
	char *text; /* one sentence with the numbers behind it; never NULL after compute */
};

/*
 * A call site: the frames of a stack, innermost first, described (frames.h; strings in the
 * model) and as text (gr_frame_format(), owned by the report). nframes 0: no stack was recorded.
 * python: the innermost Python frame, -1 when none; launcher: the native frame that made the call
 * (inside the Python frame when there is one), -1 when none. A site with a Python frame is shown
 * as "python frame <- launcher".
 */
struct gr_report_site {
	uint32_t stack; /* gr_model_stacks() index, 0 = none */
	uint32_t nframes;
	const char **frames;	     /* text, innermost first */
	const struct gr_frame *desc; /* the same frames described */
	int python, launcher;
};

/* ---- 1. launch frequency ---- */

struct gr_report_kconfig {
	uint32_t config; /* gr_model_configs() index */
	struct gr_config cfg;
	uint64_t count;
	uint64_t blocks; /* grid x * y * z */
	double waves;	 /* estimate: blocks / (SMs x resident blocks per SM), see REPORTS.md */
	int small;	 /* blocks < SMs or waves < 2: latency-bound */
};

struct gr_report_kernel {
	uint32_t name_id;
	const char *name;   /* model: demangled */
	uint64_t count;	    /* launch calls */
	uint64_t executed;  /* kernels executed (graphs.h): not graph nodes, plus graph launches'
			       kernel nodes */
	double share;	    /* of all launches */
	struct gr_dist api; /* launch call durations; api.count 0 when not measured */
	struct gr_report_kconfig *configs; /* by count, descending */
	size_t nconfigs;
};

/* Per thread, process or stream: launches and their rate over the entity's own active window
 * (first to last launch). */
struct gr_report_rate {
	uint32_t index;	       /* gr_model_threads() / gr_model_processes() / gr_model_streams() */
	uint32_t pid, tid;     /* tid 0 for processes and streams but per-thread default ones */
	uint64_t handle;       /* streams: the stream handle (0 for default streams); 0 otherwise */
	int per_thread;	       /* streams: the per-thread default stream of thread tid */
	const char *comm;      /* model; "" when unknown */
	const char *nvtx_name; /* threads and streams: the name the program gave it with NVTX
				* (model), NULL none; reports show it in place of comm */
	uint64_t count;
	double share;
	double per_second; /* count / (last - first launch) s; 0 for a single launch */
	uint64_t first_ts, last_ts;
};

/* Inter-launch gaps of one thread: ts of a launch to ts of the thread's next launch. */
struct gr_report_gaps {
	uint32_t thread; /* gr_model_threads() index */
	uint32_t pid, tid;
	const char *comm;      /* model */
	const char *nvtx_name; /* its NVTX name (model), NULL none: shown in place of comm */
	struct gr_dist gap;
	uint64_t hist[GR_REPORT_GAP_BUCKETS];
};

/* Upper edges (ns, exclusive) of the gap histogram's buckets; the last bucket is open. */
extern const uint64_t gr_report_gap_edges[GR_REPORT_GAP_BUCKETS - 1];

/* What the loop ([start_ts, end_ts] of the iteration) held, calls of every thread that start in
 * it counted: the per-iteration figures of `gpurec diff`. All 0 without an iteration. */
struct gr_report_loop {
	/* launch_ns: launch call time, 0 when not measured; with a sample timed, the untimed
	 * launches (launches_untimed of them) counted at the sampled launch cost */
	uint64_t launches, launch_ns, launches_untimed;
	uint64_t copies[GR_REPORT_NDIRS], bytes[GR_REPORT_NDIRS], copy_ns[GR_REPORT_NDIRS];
	uint64_t syncs, sync_ns; /* host-blocking syncs (not event records, not stream waits) */
	/* runnable wait of the iteration's thread inside the loop (the CPU report's timeline);
	 * 0 when the CPU section was not computed */
	uint64_t runnable_ns;
};

/* One loop the iteration finder found on the thread: a stretch of calls in which every call
 * equals the call one period earlier (docs/REPORTS.md, "Iteration"). */
struct gr_report_phase {
	uint64_t start_ts, end_ts; /* first iteration's first call; return of the last complete
				    * iteration's last call */
	uint64_t count;		   /* complete iterations */
	uint32_t calls;		   /* calls per iteration (the period) */
	uint32_t launches;	   /* of which launch calls (a graph launch one call) */
	int chosen;		   /* the loop the iteration is (the rest of the struct's) */
};

/* Why the iteration is the loop it is, among the loops found. */
enum gr_report_phase_why {
	GR_PHASE_ONLY = 0,	 /* the only loop found */
	GR_PHASE_MOST_CALLS,	 /* it holds the most calls */
	GR_PHASE_SHORTER_PERIOD, /* tied on calls with another, and its period is shorter */
	GR_PHASE_RARER_ANCHOR,	 /* tied on calls and period: found from the rarer call */
	GR_PHASE_STEP,		 /* named with --step (step: the SPEC) */
	GR_PHASE_NVTX,		 /* an NVTX range starts once an iteration of the finder's loop: the
				  * steps are that range's (step: "nvtx:NAME") */
};

/* The repeating pattern of API calls (every kind: launches, copies, memsets, syncs, event
 * records, stream waits, allocations and frees) of the thread that launches most: the
 * training step. */
struct gr_report_iteration {
	int found;
	uint32_t thread;	   /* gr_model_threads() index of the thread it was found on */
	uint32_t calls;		   /* API calls per iteration */
	uint32_t launches;	   /* of which launches: launch calls, a graph launch one call */
	uint32_t graph_launches;   /* of those, graph launches */
	uint64_t kernels;	   /* kernels executed per iteration (graph launches' nodes too) */
	uint32_t copies, syncs;	   /* copies (+ memsets) and synchronising calls */
	uint32_t allocs;	   /* allocations and frees (device, async, managed, host) */
	uint32_t other;		   /* the rest (event records, stream waits): the five add up
				    * to calls */
	uint64_t count;		   /* complete iterations in the loop */
	uint64_t period_ns;	   /* median iteration time (start to next start) */
	uint64_t start_ts, end_ts; /* the loop: first iteration's first call to the end of the
				    * last complete iteration's last call */
	uint64_t last_start_ts;	   /* the last iteration's first call: [start_ts, last_start_ts)
				    * holds count - 1 whole periods */
	double match; /* fraction of the loop's calls equal to the call one period earlier */
	struct gr_report_loop loop;
	/* every iteration j < count: its first call's entry, and its time (start to the next
	 * start; the last: to its last call's return), without the probes' cost as period_ns;
	 * report-owned, NULL when not found */
	uint64_t *starts, *durs;
	/* the loops found on the thread that do not overlap a larger one, in time order, the
	 * largest GR_REPORT_MAX_PHASES of them (nphases_found: how many there were), the chosen
	 * one among them; report-owned */
	struct gr_report_phase *phases;
	size_t nphases, nphases_found;
	enum gr_report_phase_why why;
	/* --step: the SPEC (opts-owned) and how many steps started (matching calls, or entries
	 * into a Python line or function) on the thread; NULL and 0 otherwise. match is then the
	 * share of the steps after the first whose calls are the step before's, and the calls per
	 * kind are the middle step's */
	const char *step;
	uint64_t step_starts;
};

/* Launch calls slower than opts.slow_launch_ns, grouped by (kernel name, call site). */
struct gr_report_slow {
	uint32_t name_id;
	const char *name; /* model */
	uint64_t count, total_ns, max_ns;
	struct gr_report_site site;
};

/* Which launch calls a recording timed (the SESSION fact GR_SESS_LAUNCH_SAMPLE). */
enum {
	GR_REPORT_TIMED_NONE,	/* none: the cost is estimated from gaps */
	GR_REPORT_TIMED_SAMPLE, /* a sample, 1 in sample_period per thread (the default) */
	GR_REPORT_TIMED_ALL,	/* every one (--launch-time) */
};

struct gr_report_launches {
	uint64_t total;		 /* launch calls (graph nodes included), as recorded */
	uint64_t executed;	 /* kernels executed: launches that were not graph nodes, plus the
				    kernel nodes of every graph launch */
	uint64_t graph_launches; /* graph launch calls (not in total) */
	uint64_t node_launches;	 /* launch calls that were graph nodes (captured or added) */
	uint64_t first_ts, last_ts;	  /* first and last launch */
	double per_second;		  /* total / (last_ts - first_ts) s */
	struct gr_report_kernel *kernels; /* by count desc, then name */
	size_t nkernels;
	struct gr_report_rate *processes, *threads, *streams; /* by count desc */
	size_t nprocesses, nthreads, nstreams;
	struct gr_report_gaps *gaps; /* one per launching thread, same order as threads */
	size_t ngaps;
	struct gr_report_iteration iter;
	/* Launch cost: measured = median launch call duration (every launch timed with
	 * --launch-time, or a sample of them by default: timing); else an estimate: median of
	 * launch entry to the thread's next API call entry. */
	int api_measured;	/* launches with dur > 0 exist */
	int timing;		/* which launches the recording timed: GR_REPORT_TIMED_* */
	int timing_known;	/* the trace says so (older ones do not: timing is inferred) */
	uint64_t sample_period; /* GR_REPORT_TIMED_SAMPLE: 1 launch in this many per thread */
	const char *timing_why; /* GR_REPORT_TIMED_NONE: why, in the trace's words */
	uint64_t launch_cost_ns;
	uint64_t launch_cost_samples;
	uint64_t graph_launch_cost_samples; /* of them, graph launch calls (cudaGraphLaunch) */
	double
	    launch_share; /* launches per iteration x launch cost / period; 0 without iteration */
	uint64_t slow_threshold_ns;
	uint64_t slow_count; /* launch calls slower than the threshold (measured only) */
	/* of them: a kernel's first launch (module loading, a JIT: paid once), and the others
	 * inside the loop's window (all others without a loop), which judge the loop */
	uint64_t slow_first, slow_loop_count, slow_loop_ns;
	struct gr_report_slow *slow; /* by total_ns desc */
	size_t nslow;
	/* launches by call site (launch_sites.h); computed only for a trace with Python frames
	 * (gr_report.python), where the frames name the program's own lines */
	struct gr_launch_sites sites;
	struct gr_verdict verdict;
};

/* ---- 2. fusion opportunities ---- */

struct gr_report_fkernel {
	uint32_t name_id;
	const char *name; /* model */
	uint32_t config;  /* gr_model_configs() index */
	struct gr_config cfg;
	double waves;
	int small;
};

struct gr_report_candidate {
	struct gr_report_fkernel *kernels; /* the run, in launch order */
	uint32_t len;
	uint32_t nsmall;	/* kernels of the run with small grids */
	uint64_t occurrences;	/* runs with exactly this (kernel, grid, block) sequence */
	uint64_t est_saving_ns; /* estimate: occurrences x (len - 1) x launch cost */
	uint32_t pid;
	uint64_t stream;	     /* stream handle (0 for default streams) */
	uint32_t stream_tid;	     /* the thread of a per-thread default stream, else 0 */
	int per_thread;		     /* on stream_tid's per-thread default stream */
	struct gr_report_site stack; /* frames every launch of every occurrence shares, innermost
				      * first: the caller to change */
	uint64_t first_ts;
};

struct gr_report_fusion {
	uint64_t runs;		 /* runs of >= 3 launches seen (before grouping) */
	uint64_t launch_cost_ns; /* the one gr_report_launches uses */
	int cost_measured;
	struct gr_report_candidate *candidates; /* by est_saving_ns desc */
	size_t ncandidates;
	uint64_t total_saving_ns;
	double saving_share; /* total_saving_ns over the loop (or the launch window) */
	struct gr_verdict verdict;
};

/* ---- 3. transfers ---- */

struct gr_report_direction {
	unsigned kind;			/* enum gr_copy_kind */
	const char *name;		/* "H2D", ... (static) */
	uint64_t count, bytes, time_ns; /* every copy; time = call durations */
	uint64_t async_count;
	/* Copies whose call blocked until the copy was done (synchronous API, or async through
	 * pageable host memory): their bytes over their call time is the effective bandwidth. */
	uint64_t blocking_count, blocking_bytes, blocking_ns;
	double bandwidth; /* bytes/s; 0 when no blocking copy */
	uint64_t hist_count[GR_REPORT_SIZE_BUCKETS];
	uint64_t hist_bytes[GR_REPORT_SIZE_BUCKETS];
	uint64_t graph_count, graph_bytes; /* executed by graph launches: in no figure above */
};

/* Upper edges (bytes, inclusive) of the size histogram's buckets; the last bucket is open. */
extern const uint64_t gr_report_size_edges[GR_REPORT_SIZE_BUCKETS - 1];

/* A finding: rule "pageable_async", "sync_copy_in_loop" or "item_pattern". */
struct gr_report_finding {
	const char *rule;		/* static */
	uint64_t count, bytes, time_ns; /* time the host was blocked (copy + following sync) */
	double per_iteration;		/* count / iterations; 0 without iteration */
	char *detail;			/* one sentence */
	struct gr_report_site *sites;	/* by count desc */
	uint64_t *site_counts;
	size_t nsites;
};

struct gr_report_transfer {
	uint64_t copies, bytes, copy_ns; /* all copies */
	uint64_t memsets, memset_bytes, memset_ns;
	uint64_t syncs, sync_ns; /* synchronising calls (device/stream/event sync) */
	/* Copies and memsets graph launches executed (graph-executed: no call of their own, so
	 * no call time), by direction in dirs[].graph_*; graph_launches: the launches that
	 * executed any, what the per-launch figures divide by. */
	uint64_t graph_launches, graph_copies, graph_bytes, graph_memsets, graph_memset_bytes;
	struct gr_report_direction dirs[GR_REPORT_NDIRS];
	/* Share of wall time (the recording) the busiest copying thread spent in copy calls. */
	uint32_t busiest_thread;
	uint64_t busiest_copy_ns;
	double wall_share;
	/* In the loop (gr_report_launches.iter), on its thread: copy call time per iteration. */
	uint64_t iter_copy_ns; /* total in the loop */
	double iter_share;     /* iter_copy_ns / loop time */
	/* Copies that blocked their caller in the loop (the whole recording without one), any
	 * thread: below 1 GB/s the blocked time is waiting for the GPU, not moving data. */
	uint64_t loop_blocking_bytes, loop_blocking_ns;
	struct gr_report_finding *findings;
	size_t nfindings;
	struct gr_verdict verdict;
};

/* ---- 4. CPU starvation ---- */

struct gr_report_culprit {
	const char *comm;     /* model, or "tid N" (report) when the trace has no comm; the
				 recorder's own processes are GR_RECORDER_NAME, tasks no record
				 names "unknown" */
	uint64_t ns;	      /* runnable-wait time it held the CPU (exact_culprits) or an
				 estimate (older traces, see REPORTS.md) */
	uint64_t preemptions; /* times it took the CPU from the thread */
	int recorder;	      /* the recorder itself (gpurec) */
};

struct gr_report_cpu_thread {
	uint32_t thread; /* gr_model_threads() index */
	uint32_t pid, tid;
	const char *comm;      /* model */
	const char *nvtx_name; /* its NVTX name (model), NULL none: shown in place of comm */
	uint64_t lifetime_ns;  /* first to last event of the thread */
	uint64_t oncpu_ns, runnable_wait_ns, blocked_ns, unknown_ns;
	uint64_t involuntary, voluntary;    /* switches out while runnable / while blocking */
	double starved_share;		    /* runnable_wait_ns / lifetime_ns */
	uint64_t active_ns;		    /* first API call entry to last API call return */
	uint64_t active_wait_ns;	    /* runnable wait inside that window */
	double active_share;		    /* active_wait_ns / active_ns: what the verdict uses */
	uint64_t gaps;			    /* inter-launch gaps */
	uint64_t starved_gaps;		    /* gaps overlapping a runnable-wait interval */
	uint64_t starved_gap_ns;	    /* runnable-wait time inside launch gaps */
	struct gr_report_culprit *culprits; /* by ns desc */
	size_t nculprits;
};

struct gr_report_cpu {
	int has_sched; /* the trace holds scheduler events */
	/* culprits measured from every switch on the CPU a thread waited on (wait windows); 0:
	 * older trace, estimated from the switches of traced threads only */
	int exact_culprits;
	uint64_t sched_events;
	/* switches of these threads the recording lost, which no loss counter saw: inferred from
	 * each thread's sequence (timeline.h); its state before each is unknown */
	uint64_t switches_missing;
	struct gr_report_cpu_thread *threads; /* CUDA-calling threads, by runnable_wait_ns desc */
	size_t nthreads;
	uint64_t starved_gap_ns; /* all threads */
	uint64_t active_ns;	 /* all threads' active windows, summed */
	double gap_share; /* starved_gap_ns / active_ns: GPU feed lost to the scheduler, over the
			   * threads' own time (each gap lies in its thread's window: <= 1) */
	struct gr_verdict verdict;
};

/* ---- per process: the ranks of a job and its straggler ---- */

/* Below this ratio of the slowest process's iteration time to the others' median, no process is
 * a straggler (docs/REPORTS.md). */
#define GR_REPORT_STRAGGLER_RATIO 1.10
/* Nor when it takes less than this much longer: a few probes (0.5-20 us each) and the clock
 * make that much difference between ranks doing the same work. */
#define GR_REPORT_STRAGGLER_FLOOR_NS 20000

/* Where an iteration's time goes, on the thread the iteration was found on: the step budget's
 * parts (analyze/figures/budget.h) grouped, disjoint, each the median over the iterations. */
enum gr_rank_part {
	GR_RANK_HOST = 0, /* outside calls, on CPU: host work between calls */
	GR_RANK_LAUNCH,	  /* launch and graph launch calls; untimed ones at the measured cost */
	GR_RANK_COPY,	  /* copy and memset calls */
	GR_RANK_SYNC,	  /* device, stream and event synchronize calls */
	GR_RANK_RUNNABLE, /* outside calls, runnable: waiting for a CPU */
	GR_RANK_BLOCKED,  /* outside calls, off CPU */
	GR_RANK_OTHER,	  /* allocations, frees and every other call (event records, waits) */
	GR_RANK_UNKNOWN,  /* outside calls, no scheduler record says in which state */
	GR_RANK_NPARTS,
};

/* "host", "launch", "copy", "sync", "runnable", "blocked", "other", "unknown" (the JSON key
 * stems); index GR_RANK_NPARTS: "unexplained". */
const char *gr_rank_part_name(unsigned part);

/* One process that launches: its own iteration, found on its busiest launching thread. */
struct gr_report_rank {
	uint32_t process; /* gr_model_processes() index */
	uint32_t pid;	  /* in its own trace (gr_process.trace_pid) */
	uint32_t trace;	  /* of a set (gr_model_traces()); 0 for one trace */
	const char *host; /* model: its trace's host; NULL for one trace */
	int32_t rank;	  /* from the launcher's environment; -1 when none */
	const char *comm; /* model */
	struct gr_report_iteration iter;
	int concurrent; /* its loop runs while another rank's does: it is compared */
	int has_states; /* scheduler records split its time outside calls; 0: all of it unknown */
	uint64_t part_ns[GR_RANK_NPARTS]; /* each the median over the iterations; 0 without an
					   * iteration */
	double blocked_share;		  /* (copy + sync) / iteration time */
};

/* The straggler: the slowest concurrent process by median iteration time, when its ratio to the
 * others' median reaches GR_REPORT_STRAGGLER_RATIO and its excess GR_REPORT_STRAGGLER_FLOOR_NS. */
struct gr_report_straggler {
	int found;
	size_t index;	    /* into gr_report_ranks.v */
	double ratio;	    /* its iteration time over the median of the others' */
	uint64_t others_ns; /* that median */
	unsigned cause;	    /* enum gr_rank_part; GR_RANK_NPARTS when no part exceeds the others' */
	uint64_t excess_ns; /* the cause's per-iteration time over the others' median of it */
};

/*
 * Straggler by NVTX range (nsys's nvtx_pace): an NVTX range name (and domain) that two or more
 * ranks' processes have, each rank's median range time, and the slowest rank's against the
 * median of those medians.
 */
struct gr_report_rank_range {
	const char *name, *domain; /* model strings; domain "" the default one */
	uint64_t *median_ns;	   /* per gr_report_ranks.v entry: its median; 0 none */
	uint64_t *count;	   /* per entry: its ranges of the name */
	size_t slowest;		   /* gr_report_ranks.v index */
	uint64_t median_rank_ns;   /* the median of the ranks' medians (the lower one of two) */
	double ratio;		   /* slowest's median / median_rank_ns */
};

struct gr_report_ranks {
	struct gr_report_rank *v; /* by rank (ranked first), then pid; n 0 when fewer than two
				   * processes launch */
	size_t n;
	struct gr_report_rank_range *ranges; /* by ratio, largest first */
	size_t nranges;
	struct gr_report_straggler straggler;
	struct gr_verdict verdict; /* text NULL when n is 0 */
};

/* The straggler decision over @n ranks (those not concurrent take no part): fills *@out (found 0
 * when fewer than two are, or the ratio or the excess is under its threshold). */
void gr_report_straggler_find(const struct gr_report_rank *v, size_t n,
			      struct gr_report_straggler *out);

/* Mark each of @R's processes whose loop runs while another's does (concurrent): only those are
 * compared. Times must be on one clock. */
void gr_report_ranks_mark_concurrent(struct gr_report_ranks *R);

/* Order @R's processes as the report lists them: ranked ones first by rank, then by trace and
 * pid. (The straggler's index is into this order: sort first.) */
void gr_report_ranks_sort(struct gr_report_ranks *R);

/*
 * The pace by NVTX range, in two steps that one model of a job and a job merged from per-trace
 * summaries (job.h) share: each rank's ranges of a name folded into their lower median, then the
 * names two or more ranks have compared across ranks.
 */
struct gr_rank_range {
	const char *name, *domain; /* domain "" the default one */
	size_t row;		   /* the rank: a gr_report_ranks.v index */
	uint64_t ns;		   /* one range's time; after gr_rank_range_medians(): the median */
	uint64_t count;		   /* after gr_rank_range_medians(): the ranges folded into it */
};

/* Sort @v (@n ranges) and fold each (name, domain, row) into one entry at the front: ns its
 * ranges' lower median, count how many. Returns the entries left, by (name, domain, row). */
size_t gr_rank_range_medians(struct gr_rank_range *v, size_t n);

/*
 * @R's pace by range from @m (@n medians, one per (name, domain, row); reordered): per name two
 * or more rows have, each row's median and count, the slowest row (the first of equals), the
 * median of the rows' medians (the lower one of two) and the ratio, sorted by ratio, largest
 * first. @R's ranges and their arrays come zeroed from @alloc(@ctx, count, size); a caller that
 * frees them frees ranges[0..nranges) (a failed allocation leaves its NULL there). Returns 0 or
 * -ENOMEM.
 */
int gr_report_ranks_pace(struct gr_report_ranks *R, struct gr_rank_range *m, size_t n,
			 void *(*alloc)(void *ctx, size_t count, size_t size), void *ctx);

/* The ranks verdict over @R (its straggler decided) into @buf (@size bytes): the sentence with
 * the numbers behind it; returns its level. */
enum gr_verdict_level gr_report_ranks_verdict(const struct gr_report_ranks *R, char *buf,
					      size_t size);

/* ---- the whole report ---- */

/*
 * What became of the calls (outcome.h): the failed ones by API and error with the call site of
 * the first, and the calls still in flight at the end, each with its call site.
 */
struct gr_report_outcome {
	struct gr_outcome o;
	struct gr_report_site *error_sites;	/* o.errors[i]'s first call */
	struct gr_report_site *in_flight_sites; /* o.in_flight[i] */
};

/*
 * 5. Communication (NCCL): the done collectives and point-to-point calls (failed ones are only
 * counted in aside), bytes and host time per kind, and, for communicators with 2 or more ranks in
 * the model, which rank entered each collective last (docs/REPORTS.md, "communication").
 */
#define GR_REPORT_COMM_KINDS (GR_COMM_RECV + 1) /* the collectives, send and recv */
struct gr_report_comm_kind {
	uint64_t calls, bytes, host_ns;
};
struct gr_report_comm_rank {
	uint64_t id; /* the communicator's ncclUniqueId hash */
	uint32_t nranks, rank;
	uint32_t pid;  /* the process that was this rank */
	uint64_t last; /* matched collectives it entered last */
	uint64_t
	    wait_ns; /* over those, the mean of (its entry - each other rank's entry), summed */
};
struct gr_report_comm {
	uint64_t collectives, p2p; /* done calls */
	uint64_t aside;		   /* NCCL calls set aside: failed, nested, in flight */
	uint64_t host_ns;	   /* in the done collectives and p2p calls */
	double wall_share;	   /* host_ns / the recording's wall time */
	double per_iteration;	   /* collectives per iteration, 0 without iteration */
	double per_second;	   /* collectives per second of the recording */
	struct gr_report_comm_kind kinds[GR_REPORT_COMM_KINDS];
	uint64_t matched; /* collectives seen in every rank of their communicator */
	struct gr_report_comm_rank *ranks; /* by (id, rank); NULL when nranks is 0 */
	size_t nranks;
};

/* Order collectives by (communicator id, sequence number, rank): one collective's ranks together.
 */
void gr_comm_sort_collectives(const struct gr_comm_call **g, size_t n);

/*
 * One collective seen in @n ranks @g[0..n) (sorted by rank): the index of the rank that entered
 * it last, with the mean of (its entry - each other rank's entry) in *@wait_ns; -1 when not every
 * rank of the communicator is there, or a rank is there twice (a reused id: not one operation).
 */
long gr_comm_last_to_enter(const struct gr_comm_call *const *g, size_t n, uint64_t *wait_ns);

/* ---- the diagnosis of the step: what bounds it, from its budget (docs/REPORTS.md) ---- */

/* What bounds the step: the part of the median iteration's budget that takes more than half of
 * it (RP_BOUND_SHARE), read as the verdicts read it. */
enum gr_step_bound {
	GR_BOUND_NONE = 0, /* not judged: no step, or no call known to have succeeded */
	GR_BOUND_UNKNOWN,  /* the evidence is missing: the verdict says what would settle it */
	GR_BOUND_GPU,	   /* the host waits for the GPU: syncs, and copies that wait */
	GR_BOUND_LAUNCH,   /* launch calls, their time measured */
	GR_BOUND_HOST,	   /* host work outside CUDA calls, on a CPU */
	GR_BOUND_STARVED,  /* runnable outside CUDA calls, not running */
	GR_BOUND_BLOCKED,  /* blocked outside CUDA calls */
	GR_BOUND_TRANSFER, /* copies that move data (at RP_TRANSFER_RATE or more) */
	GR_BOUND_ALLOC,	   /* allocation and free calls */
	GR_BOUND_MIXED,	   /* no part takes half of the step */
};

/* The budget's parts as the verdicts group them. */
enum gr_step_group {
	GR_GROUP_WAIT = 0, /* syncs of every kind, and copies that wait (below RP_TRANSFER_RATE) */
	GR_GROUP_LAUNCH,   /* launch and graph launch calls; with launch_est_ns */
	GR_GROUP_COPY,	   /* copies that move data */
	GR_GROUP_ALLOC,	   /* allocations and frees */
	GR_GROUP_OTHER,	   /* every other CUDA call */
	GR_GROUP_HOST,	   /* host work, less launch_est_ns (taken from here first) */
	GR_GROUP_RUNNABLE,
	GR_GROUP_BLOCKED,
	GR_GROUP_UNKNOWN, /* outside calls, state unknown (no scheduler records) */
	GR_NGROUPS,
};

#define GR_DIAG_SITES 3

struct gr_report_diagnosis {
	enum gr_step_bound bound;
	struct gr_verdict verdict;     /* the bound, in a sentence with its evidence */
	const char *refute;	       /* static: what would show it wrong, or settle an unknown */
	uint64_t iteration;	       /* the budget it reads: the median iteration's index */
	uint64_t total_ns;	       /* its time */
	uint64_t group_ns[GR_NGROUPS]; /* add up to total_ns */
	/* launches recorded at entry only: their time is in the parts outside calls; with a
	 * measured launch cost (every launch timed, or a sample of them), their count x that cost
	 * is moved from host (then unknown, runnable, blocked) into launch. launch_timed: launch
	 * time is known, by measure or that estimate; 0: unknown, and no verdict rests on it */
	uint64_t launch_est_ns;
	int launch_timed;
	double copy_rate; /* bytes/s of the loop thread's copies while they blocked it; 0: none */
	/* host-bound: where the host work ends, the call sites of the calls made right after the
	 * loop thread's time outside calls, by that time per iteration, largest first (at most
	 * GR_DIAG_SITES); none without stacks */
	const char *host_sites[GR_DIAG_SITES]; /* report-owned text (site_name()) */
	uint64_t host_site_ns[GR_DIAG_SITES];
	size_t nhost_sites;
	/* blocked-bound: the reason (enum gr_block_reason) that took most of the blocked part,
	 * -1 otherwise; its time in the median iteration */
	int blocked_reason;
	uint64_t blocked_reason_ns;
	/* a lock wait through a condition variable (gr_block_condvar()): the loop thread waited
	 * for another thread's signal, a hand-off of work, not for a lock's release */
	int blocked_condvar;
};

/* "none", "unknown", "gpu", "launch", "host", "starved", "blocked", "transfer", "alloc",
 * "mixed" (the JSON names); gr_step_group_name(): "wait", "launch", "copy", "alloc", "other",
 * "host", "runnable", "blocked", "unknown". */
const char *gr_step_bound_name(unsigned bound);
const char *gr_step_group_name(unsigned group);

/* Where the report's SM count came from. */
enum gr_report_sms_source {
	GR_REPORT_SMS_UNKNOWN = 0, /* neither: no waves, no grid marked small */
	GR_REPORT_SMS_RECORDED,	   /* the program asked the runtime (GR_SESS_DEVICE_SMS) */
	GR_REPORT_SMS_OPTION,	   /* --sms */
};

/* The device memory section (report_memory.c): the figures over the report's loop, its verdict,
 * and the transfer section's pageable async copies, which pinned memory would make async. */
struct gr_report_memory {
	struct gr_memory m;
	struct gr_verdict verdict;
	uint64_t pageable_copies, pageable_bytes;
};

/* ---- NVTX ranges (nvtx.h) ---- */

struct gr_report_nvtx {
	struct gr_nvtx_set set;	    /* the program's ranges and names: report-owned */
	struct gr_nvtx_stats stats; /* per range name, against the iteration when found */
	/* the iteration's steps are those of the push/pop range with this spec ("NAME" or
	 * "DOMAIN:NAME", owned by the report or the opts), by --step nvtx: or the finder's choice
	 * (launches.iter.why GR_PHASE_NVTX); NULL otherwise */
	const char *step_range;
};

struct gr_report {
	unsigned sections; /* computed sections */
	int python;	   /* the trace holds Python frames: sites show them, JSON gives "frames" */
	uint32_t sms;	   /* 0: unknown */
	enum gr_report_sms_source sms_source;
	uint64_t first_ts, last_ts, wall_ns; /* the recording (gr_model_time_span) */
	uint64_t cuda_libraries;	     /* CUDA libraries the recorder probed */
	uint64_t lost_events;
	int ended_abruptly; /* no footer: nothing after last_ts is in the file (recorder killed) */
	/* what a damaged file lost (damage.h): figures are lower bounds, an absence proves nothing
	 */
	struct gr_damage damage;
	/* the step budget of the iteration's thread (budget.h): found 0 without an iteration */
	struct gr_budgets budget;
	/* what bounds the step, from the budget: every verdict that names a bound reads it */
	struct gr_report_diagnosis diagnosis;
	struct gr_report_launches launches;
	struct gr_report_fusion fusion;
	struct gr_report_transfer transfer;
	struct gr_report_cpu cpu;
	struct gr_report_comm comm;
	struct gr_report_outcome outcome; /* o.most_failed: no section's verdict is judged */
	struct gr_report_ranks ranks;	  /* with the launches section */
	struct gr_report_memory memory;
	/* what our probes cost per call and whether it was subtracted (probe_cost.h): from launch
	 * costs, call durations, inter-launch gaps and the iteration period; probe.clamped counts
	 * the subtractions that stopped at 0 */
	struct gr_probe_cost probe;
	/* measured on the GPU (--cupti, gpu.h): NULL when the trace has no GPU rows, and then no
	 * output says anything about the GPU */
	struct gr_gpu_summary *gpu;
	struct gr_report_nvtx nvtx;
	void *priv; /* the report's allocations */
};

#endif
