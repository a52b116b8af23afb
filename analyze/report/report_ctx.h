/* SPDX-License-Identifier: MIT */
/*
 * The context every part of the report's computation reads: the model's arrays, the report
 * being filled, the facts the passes over the calls derive (report_calls.c), and the helpers over
 * them (report_ctx.c). report.c fills it and runs the passes and sections in order
 * (report_sections.h); a section never calls report.c. Not for other modules: they use report.h.
 */
#ifndef GR_ANALYZE_REPORT_CTX_H
#define GR_ANALYZE_REPORT_CTX_H

#include <stdarg.h>
#include <stdint.h>

#include "analyze/figures/launch_stats.h"
#include "analyze/util/keymap.h"
#include "analyze/util/strtab.h"
#include "analyze/util/units.h"
#include "report_types.h"

/* Thresholds (docs/REPORTS.md). */
#define RP_MIN_RUN	    3	  /* launches in a fusion run */
#define RP_MIN_OCCURRENCES  2	  /* a run must repeat to be a candidate */
#define RP_TINY_D2H	    1024  /* bytes: a read-back as .item() does */
#define RP_SMALL_H2D	    65536 /* bytes: synchronous H2D up to this is exempt (nsys) */
#define RP_SLOW_SHARE	    0.01  /* slow launch calls' time over the loop */
#define RP_FUSION_SHARE	    0.05  /* estimated saving over loop time */
#define RP_TRANSFER_BOUND   0.2	  /* copy call time over loop time */
#define RP_TRANSFER_RATE    1e9	  /* bytes/s: blocked copies slower than this wait, not move */
#define RP_FINDING_SHARE    0.01  /* a transfer finding's blocked time over loop (or wall) time */
#define RP_STARVED_SHARE    0.1	  /* runnable wait over a thread's lifetime */
#define RP_ITER_MATCH	    0.9	  /* calls repeating with the period */
#define RP_BOUND_SHARE	    0.5	  /* a part of the step's budget that bounds it */
#define RP_PHASE_MIN_ITERS  10	  /* a loop without launches listed beside the iteration */
#define RP_RESIDENT_THREADS 2048  /* per SM, for the waves estimate */
#define RP_RESIDENT_BLOCKS  32
#define RP_SHMEM_PER_SM	    (228u * 1024)
#define RP_SMALL_WAVES	    2.0

/* Kinds of API calls in the merged call sequence. */
enum rp_call { RP_LAUNCH = 0, RP_COPY, RP_MEMSET, RP_SYNC, RP_GRAPH, RP_ALLOC, RP_FREE, RP_NCALLS };

/* The call that followed a copy on its thread (RP_NCALLS: none). */
struct rp_next {
	uint8_t kind;
	uint32_t idx;
};

/* A main-thread call in the token arrays: the kind in the top 3 bits, the index below. */
#define RP_REF_BITS 29
#define RP_REF_MAX  (1u << RP_REF_BITS)
static inline unsigned rp_ref_kind(uint32_t ref)
{
	return ref >> RP_REF_BITS;
}
static inline uint32_t rp_ref_idx(uint32_t ref)
{
	return ref & (RP_REF_MAX - 1);
}

/* Per model thread (the per-thread pass; gap_hist: the call-sequence pass). */
struct rp_thread {
	uint64_t launches;
	uint64_t first_launch, last_launch; /* ts */
	uint64_t first, last;		    /* first API call entry, last API call return */
	int cuda;			    /* made any API call */
	uint64_t gap_hist[GR_REPORT_GAP_BUCKETS];
	struct gr_dist gap; /* inter-launch gaps (saturated u32 ns) */
};

/* Per model stream (the per-thread pass). */
struct rp_stream {
	uint64_t launches, first_launch, last_launch;
};

/* A runnable wait of a thread, [start, end) ns (the CPU section's scheduler replay). */
struct rp_wait {
	uint64_t start, end;
};

/* A thread's runnable waits, in time order. */
struct rp_waits {
	const struct rp_wait *v;
	size_t n;
};

/* A thread's launch gaps measured against its runnable waits (the call-sequence pass). */
struct rp_gap_wait {
	uint64_t gaps;		 /* inter-launch gaps; counted for threads with waits only */
	uint64_t starved_gaps;	 /* gaps overlapping a wait */
	uint64_t starved_gap_ns; /* wait time inside the gaps */
};

struct rp_ctx {
	const struct gr_model *m;
	struct gr_report *r;
	struct gr_arena *arena;	  /* the report's */
	struct gr_probe_cost *pc; /* the report's: what every host time is compensated by */
	uint32_t sms;
	uint64_t slow_ns;
	int all_ranks; /* gr_report_opts.all_ranks */
	unsigned jobs; /* gr_report_opts.jobs */

	/* model arrays */
	const struct gr_launch *l;
	size_t nl;
	const struct gr_launch_key *lk; /* gr_model_launch_keys(): rp_lkey() */
	const struct gr_copy *c;
	size_t nc;
	const struct gr_memset *ms;
	size_t nms;
	const struct gr_sync *sy;
	size_t nsy;
	const struct gr_graph *g;
	size_t ng;
	const struct gr_alloc *al;
	size_t nal;
	const struct gr_free *fr;
	size_t nfr;
	const struct gr_kernel *k;
	size_t nk;
	const struct gr_config *cfg;
	size_t ncfg;
	const struct gr_thread *th;
	size_t nth;
	const struct gr_stack *st;
	size_t nst;
	size_t nstreams;

	/* from the per-thread pass (report_calls.c) */
	struct rp_thread *thr;	   /* per model thread */
	struct rp_stream *strm;	   /* per model stream */
	uint32_t main_thread;	   /* most launches; UINT32_MAX when none */
	struct gr_launch_stats ls; /* launch aggregation (launch_stats.h) */
	uint32_t *kc_of; /* per launch key: dense (kernel name, config) pair (ls.pair_of_key) */
	uint32_t nkc;
	uint64_t *kc_key;   /* per pair: name_id << 32 | config */
	uint64_t *kc_count; /* per pair: launches */
	uint64_t nmeasured; /* launches with dur > 0 */

	/* from the call-sequence pass (report_calls.c) */
	uint64_t *run_break; /* per launch, a bit (rp_run_break()): a fusion run ends before it, for
			      * a copy, memset, sync, graph call or free came since the thread's
			      * previous launch, or (set by rp_iteration()) an iteration begins */
	struct gr_dist cost; /* launch entry to the thread's next call; count 0 when the launch
			      * calls were measured (nmeasured), for then it is not needed */
	struct rp_next *copy_next;    /* per copy */
	struct rp_gap_wait *gap_wait; /* per model thread; NULL when given no waits */
	/* from the token pass: one thread's (tok_thread's: the main thread's for the report, each
	 * launching process's busiest for the ranks) calls as tokens (dense id of what was called)
	 * and references */
	const struct gr_nvtx_set *nvtx; /* the program's NVTX ranges (r->nvtx.set) */
	struct rp_step *step; /* --step, parsed (report_step.c); NULL: the finder's iteration */
	uint32_t tok_thread;
	uint32_t *tok;
	/* the references, walked again from marks the pass left: rp_tok_ref() */
	struct rp_tok_walk *tok_walk;
	size_t ntok;
	uint32_t ntokids;
};

/* The 64-bit words of a run-break bitmap: one bit per launch. */
static inline size_t rp_run_break_words(const struct rp_ctx *x)
{
	return x->nl / 64 + 1;
}

/* Whether a fusion run ends before launch @i, and mark that it does. */
static inline int rp_run_break(const struct rp_ctx *x, size_t i)
{
	return (int)(x->run_break[i / 64] >> (i % 64) & 1);
}
static inline void rp_set_run_break(struct rp_ctx *x, size_t i)
{
	x->run_break[i / 64] |= 1ull << (i % 64);
}

/* ---- helpers (report_ctx.c) ---- */

/* Saturate a ns value to u32 for quantile arrays. */
/* The key of launch @i (its kernel, config, thread, stream, stack, CPU, API). */
static inline const struct gr_launch_key *rp_lkey(const struct rp_ctx *x, size_t i)
{
	return &x->lk[x->l[i].key];
}

/* The call time of launch @i as recorded (0: not measured): where it ends on the timeline. */
static inline uint64_t rp_launch_raw(const struct rp_ctx *x, size_t i)
{
	return gr_launch_dur(rp_lkey(x, i), &x->l[i]);
}

/*
 * The same as a launch call's time, for the launch cost and per-kernel launch API time: 0 for
 * a node-building call (cudaGraphAddKernelNode), timed but no launch. Counted as launch_stats
 * counts measured launches.
 */
static inline uint64_t rp_launch_call_raw(const struct rp_ctx *x, size_t i)
{
	return gr_graphs_api_is_node(rp_lkey(x, i)->api) ? 0 : rp_launch_raw(x, i);
}

/* A measured call duration without our probes' share (0 stays 0: not measured). */
static inline uint64_t rp_dur(const struct rp_ctx *x, uint64_t dur)
{
	return gr_probe_cost_dur(x->pc, dur);
}

/* The call time of launch @i without our probes' share (0: not measured). */
static inline uint64_t rp_launch_dur(const struct rp_ctx *x, size_t i)
{
	return rp_dur(x, rp_launch_raw(x, i));
}

/* The recorded duration of a call of @kind, index @idx (0: entry-only). */
static inline uint64_t rp_call_raw(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	switch (kind) {
	case RP_LAUNCH:
		return rp_launch_raw(x, idx);
	case RP_COPY:
		return x->c[idx].dur;
	case RP_MEMSET:
		return x->ms[idx].dur;
	case RP_SYNC:
		return x->sy[idx].dur;
	case RP_GRAPH:
		return x->g[idx].dur;
	case RP_ALLOC:
		return x->al[idx].dur;
	case RP_FREE:
		return x->fr[idx].dur;
	}
	return 0;
}

/* The (kernel name, config) pair of launch @i. */
static inline uint32_t rp_pair(const struct rp_ctx *x, size_t i)
{
	return x->kc_of[x->l[i].key];
}

static inline uint32_t rp_sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The model thread that made call @i of @kind. */
static inline uint32_t rp_call_thread(const struct rp_ctx *x, unsigned kind, size_t i)
{
	switch (kind) {
	case RP_LAUNCH:
		return rp_lkey(x, i)->thread;
	case RP_COPY:
		return x->c[i].thread;
	case RP_MEMSET:
		return x->ms[i].thread;
	case RP_SYNC:
		return x->sy[i].thread;
	case RP_GRAPH:
		return x->g[i].thread;
	case RP_ALLOC:
		return x->al[i].thread;
	default:
		return x->fr[i].thread;
	}
}

/* The stack of call @idx of @kind (0: none; allocations and frees carry none). */
uint32_t rp_call_stack(const struct rp_ctx *x, unsigned kind, uint32_t idx);

/* Entry and return time of a call of @kind, index @idx: per call of every pass, so inline. */
static inline uint64_t rp_call_ts(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	switch (kind) {
	case RP_LAUNCH:
		return x->l[idx].ts;
	case RP_COPY:
		return x->c[idx].ts;
	case RP_MEMSET:
		return x->ms[idx].ts;
	case RP_SYNC:
		return x->sy[idx].ts;
	case RP_GRAPH:
		return x->g[idx].ts;
	case RP_ALLOC:
		return x->al[idx].ts;
	case RP_FREE:
		return x->fr[idx].ts;
	}
	return 0;
}

static inline uint64_t rp_call_end(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	return rp_call_ts(x, kind, idx) + rp_call_raw(x, kind, idx);
}

/* Fill @s with the frames of stack @stack (all of them when @keep_outer is 0, else the
 * outermost @keep_outer). Returns 0 or -ENOMEM. */
int rp_site(struct rp_ctx *x, struct gr_report_site *s, uint32_t stack, uint32_t keep_outer);
/* The frame a one-line mention of @s names: its Python frame, else its innermost; "" when none. */
const char *rp_site_lead(const struct gr_report_site *s);

/* printf into the report's arena; NULL when out of memory. */
char *rp_printf(struct rp_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Set a verdict; returns 0 or -ENOMEM. */
int rp_verdict(struct rp_ctx *x, struct gr_verdict *v, enum gr_verdict_level level, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
/* Zeroed arena memory for @n items of @size; NULL when out of memory (or n == 0: a valid
 * pointer). */
void *rp_alloc(struct rp_ctx *x, size_t n, size_t size);

/* Waves (NAN when the SM count is unknown) and small-grid test (never small then) of a launch
 * config. */
double rp_waves(const struct rp_ctx *x, const struct gr_config *c, uint64_t *blocks);
int rp_small(const struct rp_ctx *x, const struct gr_config *c);

#endif
