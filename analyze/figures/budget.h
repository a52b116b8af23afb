/* SPDX-License-Identifier: MIT */
/*
 * The step budget: each iteration of a loop, on the thread it runs on, cut into parts that add
 * up exactly (integer ns) to the iteration's time: the thread's time inside each kind of API
 * call, and its time outside them by scheduler state (on CPU, runnable, blocked, unknown).
 * report, diff and the HTML page read the same budget, so a verdict over it means the same
 * everywhere. Definitions, the nesting rule and the unknown parts: docs/REPORTS.md ("Step
 * budget").
 *
 * The window of iteration j is [starts[j], starts[j + 1]) on the recorded timeline (the last:
 * to end_ts). A call of the thread owns the time from its entry to its return, clipped to the
 * window; calls never overlap on the budget: the first to start owns the time until it returns
 * (nested calls are not in the model's event arrays: their outer call owns their time). A call
 * recorded at entry only (dur 0: launches without --launch-time) owns nothing: its time falls
 * in the part outside calls that follows it, and the budget counts it as unmeasured. Failed
 * calls and calls in flight took the thread's time too: they count in their kind.
 *
 * Probe cost (probe_cost.h): when compensation is applied, each measured call gives up its
 * call_in share, and the host part gives up every call's share outside its duration (the
 * probes run on the CPU, outside the calls); total_ns is what is left: the window less the
 * whole probe cost of the thread's calls in it. A subtraction that would go below 0 stops at 0
 * and is counted (clamped), so the parts still add up to total_ns.
 */
#ifndef GR_ANALYZE_BUDGET_H
#define GR_ANALYZE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/figures/blocked.h"
#include "analyze/figures/probe_cost.h"
#include "analyze/figures/timeline.h"
#include "analyze/model/model.h"
#include "analyze/util/json.h"

/* The parts, in the order every output lists them. */
enum gr_budget_part {
	GR_BUDGET_LAUNCH = 0,	   /* kernel launch calls (runtime and driver) */
	GR_BUDGET_GRAPH_LAUNCH,	   /* graph launch calls */
	GR_BUDGET_COPY,		   /* copies and memsets, a blocking copy's wait included */
	GR_BUDGET_SYNC_DEVICE,	   /* cudaDeviceSynchronize, cuCtxSynchronize */
	GR_BUDGET_SYNC_STREAM,	   /* stream synchronize */
	GR_BUDGET_SYNC_EVENT,	   /* event synchronize */
	GR_BUDGET_ALLOC,	   /* allocations and frees, a free's implicit sync included */
	GR_BUDGET_OTHER,	   /* every other call: event records, stream waits, graph
				    * building, NCCL */
	GR_BUDGET_HOST,		   /* outside calls, on CPU: host work */
	GR_BUDGET_RUNNABLE,	   /* outside calls, runnable but not running */
	GR_BUDGET_BLOCKED,	   /* outside calls, blocked (blocked_ns says why) */
	GR_BUDGET_OUTSIDE_UNKNOWN, /* outside calls, state unknown: no scheduler record says */
	GR_BUDGET_NPARTS,
};

/* First part outside the calls. */
#define GR_BUDGET_FIRST_OUTSIDE GR_BUDGET_HOST

/* Why the thread was blocked outside calls: enum gr_block_reason (blocked.h). */
#define GR_BUDGET_NREASONS GR_BLOCK_NREASONS

/*
 * The culprit of a reason's wait: the task whose wakeups ended the most of it (for the GIL and
 * locks the holder that released it, for input the producer). ns is 0 when the reason took no
 * time.
 */
struct gr_block_culprit {
	uint64_t ns;	   /* the reason's wait its wakeups ended */
	uint64_t of_ns;	   /* the reason's whole wait in the scope (iteration, loop) */
	uint32_t pid, tid; /* the waker; both 0 with woken 0: no wakeup ended the wait */
	uint8_t woken;
	int32_t syscall;      /* the call the loop thread waited in (its longest such wait) */
	uint32_t stack;	      /* the loop thread's stack there, 0 = none */
	uint32_t waker_stack; /* the waker's stack at that wakeup, 0 = none */
	uint32_t wakers;      /* distinct waker processes of the reason's wait */
	/* input over the loop (the mean) only: the waker processes' own time on CPU (all their
	 * threads, from the scheduler records) over the loop, per iteration and per process: what
	 * each producer spends making a step's data; 0 otherwise */
	uint64_t worker_cpu_ns;
};

struct gr_budget {
	uint64_t index;	   /* the iteration (from 0); the mean: the number of iterations */
	uint64_t start_ts; /* its first call's entry; the mean: the first iteration's */
	uint64_t total_ns; /* the sum of part_ns */
	uint64_t part_ns[GR_BUDGET_NPARTS];
	uint64_t blocked_ns[GR_BUDGET_NREASONS]; /* sum: part_ns[GR_BUDGET_BLOCKED] */
	/* per reason, the culprit in this iteration (the mean: over the loop) */
	struct gr_block_culprit culprit[GR_BUDGET_NREASONS];
	uint64_t calls;	     /* the thread's calls that start in it */
	uint64_t unmeasured; /* of those, recorded at entry only: their time is outside calls */
};

struct gr_budgets {
	int found;	     /* 0: no loop was given (every field 0) */
	uint32_t thread;     /* gr_model_threads() index */
	int has_states;	     /* scheduler records split the time outside calls */
	int has_reasons;     /* the trace records why its threads blocked (blocked.h) */
	uint64_t iterations; /* budgets made */
	/* real iterations: the lower median, the 90th percentile (nearest rank) and the largest
	 * by total_ns (ties: the earlier); mean: over every iteration, each part rounded so that
	 * the parts still add up to its total_ns (largest remainders get the leftover ns); its
	 * calls and unmeasured are totals over the iterations */
	struct gr_budget median, p90, slowest, mean;
	/* each part's own median over the iterations (lower median): not one iteration's, so
	 * they need not add up; what a part typically costs, for comparing the same part
	 * across ranks or recordings */
	uint64_t part_median_ns[GR_BUDGET_NPARTS];
	uint64_t clamped; /* probe cost subtractions that stopped at 0 */
};

/* A loop: the thread it runs on, each iteration's first call's entry (@n >= 1, ascending), and
 * the return of the last iteration's last call. */
struct gr_budget_loop {
	uint32_t thread;
	const uint64_t *starts;
	size_t n;
	uint64_t end_ts;
	/* NULL, or @n budgets the caller owns: every iteration's, in order (a chart per
	 * iteration) */
	struct gr_budget *each;
	/* 0 or 1, or with @each: the mean (gr_budget_mean()) of every @per iterations in order
	 * instead, the last of fewer, into ceil(@n / @per) budgets (a chart of a long loop) */
	size_t per;
	/* threads that may walk the iterations at once (0 or 1: the calling thread alone); the
	 * figures are the same for any number */
	unsigned jobs;
};

/*
 * One state span of a thread, what the budget reads of it: 24 bytes, not a gr_state_span and a
 * gr_block_why (84), as a loop thread switches a million times in a long trace.
 */
struct gr_budget_span {
	uint64_t start, end;
	uint32_t why;  /* BLOCKED: its gr_budget_states.why index; UINT32_MAX: none known */
	uint8_t state; /* enum gr_thread_state */
};

/* A thread's scheduler states over a window, in time order, clipped to it. */
struct gr_budget_states {
	int known;   /* the model holds scheduler records; 0: every state is unknown */
	int reasons; /* its switches record why threads blocked (gr_block_ctx's recorded) */
	struct gr_budget_span *v;
	struct gr_block_why *why; /* NULL, or why the BLOCKED spans were blocked (their .why) */
	size_t n, nwhy;
};

/*
 * Replay the scheduler records of @m (timeline.h) for model thread @thread and keep its states
 * over [@lo, @hi) into *@out, each blocked one explained (blocked.h; a blocked span cut by the
 * window keeps its why). gr_budget_states_free() releases them. Returns 0 or -ENOMEM.
 */
int gr_budget_states(const struct gr_model *m, uint32_t thread, uint64_t lo, uint64_t hi,
		     struct gr_budget_states *out);
void gr_budget_states_free(struct gr_budget_states *s);

/*
 * The budget of every iteration of @loop over @m's calls, compensated as @pc says, outside calls
 * split by @states (NULL, or known 0: all of it is GR_BUDGET_OUTSIDE_UNKNOWN); the median, p90,
 * slowest and mean into *@out. Returns 0, -EINVAL (@loop->n is 0 or its thread unknown) or
 * -ENOMEM; *@out is zeroed on error.
 */
int gr_budget_compute(const struct gr_model *m, const struct gr_probe_cost *pc,
		      const struct gr_budget_loop *loop, const struct gr_budget_states *states,
		      struct gr_budgets *out);

/*
 * The mean of the @n (>= 1) budgets @v into *@out, as gr_budgets' mean: each part rounded so that
 * the parts add up exactly to the rounded-down mean total_ns (the largest remainders get the
 * leftover ns); index is @n, start_ts the first's, calls and unmeasured are totals.
 */
void gr_budget_mean(const struct gr_budget *v, size_t n, struct gr_budget *out);

/* "launch", "graph_launch", "copy", "sync_device", "sync_stream", "sync_event", "alloc",
 * "other", "host", "runnable", "blocked", "outside_unknown": the JSON key stems. */
const char *gr_budget_part_name(unsigned part);
/* Words for text: "launch", "graph launch", "copy", "sync(device)", ..., "outside CUDA (state
 * unknown)". */
const char *gr_budget_part_words(unsigned part);
/* gr_block_reason_name() */
const char *gr_budget_reason_name(unsigned reason);

/*
 * @b as the object under @key: {index, start_ts (not for @mean), total_ns, <part>_ns for every
 * part, blocked_reasons {<reason>_ns}, calls, unmeasured_calls}; @mean writes "iterations"
 * instead of "index".
 */
void gr_budget_json(struct gr_json *j, const char *key, const struct gr_budget *b, int mean);

/* The name of culprit @c's waker: its thread's comm, else its process's; "" when not known. */
const char *gr_budget_culprit_comm(const struct gr_model *m, const struct gr_block_culprit *c);
struct gr_nvtx_set;
/* The waker's name as the text reports give it: the name the program gave its thread with NVTX
 * (@nv may be NULL), else gr_budget_culprit_comm(). */
const char *gr_budget_culprit_name(const struct gr_model *m, const struct gr_nvtx_set *nv,
				   const struct gr_block_culprit *c);

/*
 * @b's culprits as the object under @key, one member per reason with a wait (JSON key stems of
 * gr_block_reason_name()): {wait_ns, share (of the reason's wait), waker {pid, tid, comm} or
 * null, waker_processes, syscall (name or null), syscall_nr, site (where the thread waited),
 * waker_site, waker_stack [frames, innermost first]}, and for input with worker_cpu_ns (the
 * loop's) worker_cpu_ns_per_step.
 */
void gr_budget_culprits_json(struct gr_json *j, const struct gr_model *m, const char *key,
			     const struct gr_budget *b);

#endif
