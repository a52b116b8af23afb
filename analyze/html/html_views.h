/* SPDX-License-Identifier: MIT */
/*
 * What the HTML report draws beyond the report itself (docs/HTML.md, "VIEWS"): every iteration of
 * the loop, every iteration's step budget, a timeline of a few representative iterations, and a
 * flame graph of the CUDA calls' stacks. Computed from the model and its report into the struct
 * below, then written as JSON; the caps that keep a page under 2 MB aggregate or count what they
 * leave out.
 *
 * Times in the struct are absolute ns (the model's clock); the JSON writes them relative to t0.
 * Ownership: gr_html_views_compute() allocates everything; names point into the model or into
 * the views' own string table; gr_html_views_free() releases it.
 */
#ifndef GR_ANALYZE_HTML_VIEWS_H
#define GR_ANALYZE_HTML_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/figures/budget.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"

#define GR_HTML_ITER_BINS      2000   /* iteration points at most; more iterations are binned */
#define GR_HTML_WINDOW_SPANS   10000  /* spans per timeline window at most (the longest kept) */
#define GR_HTML_WINDOW_BYTES   400000 /* and at most this much data: rows and the names they use */
#define GR_HTML_SPAN_ROW_BYTES 48     /* a span's row in the JSON, its names aside (about) */
#define GR_HTML_WHOLE_NS       50000000ull /* no iteration: the busiest 50 ms */
#define GR_HTML_FLAME_MIN      0.001 /* a flame node under this share of both weights: "(other)" */
#define GR_HTML_NWINDOWS       3
#define GR_HTML_NVTX_SPANS     2000 /* NVTX ranges per timeline window at most (first ones) */
#define GR_HTML_BUDGET_BARS    600  /* step budget bars at most; more iterations share a bar */

/* One point of the iteration chart: an iteration, or a bin of consecutive ones. */
struct gr_html_iter_point {
	uint64_t start;		   /* the (first) iteration's start */
	uint64_t min, median, max; /* its time; one iteration: all three equal */
	uint64_t n;		   /* iterations in the point */
};

/* One bar of the step budget chart: an iteration's budget, or the mean of consecutive ones' (each
 * part rounded so that the parts add up exactly to total_ns: gr_budget_mean()). */
struct gr_html_budget_bar {
	uint64_t first, last; /* the iterations in it, from 0, inclusive */
	uint64_t total_ns;
	uint64_t part_ns[GR_BUDGET_NPARTS];
};

/* The report's median, p90 and slowest iterations, marked on the budget chart. */
enum gr_html_budget_mark { GR_HTML_MARK_MEDIAN = 0, GR_HTML_MARK_P90, GR_HTML_MARK_SLOWEST };
#define GR_HTML_NMARKS 3

enum gr_html_window_label { GR_HTML_FIRST = 0, GR_HTML_MEDIAN, GR_HTML_SLOWEST, GR_HTML_WHOLE };

struct gr_html_window {
	enum gr_html_window_label label;
	int64_t index; /* iteration number from 0; -1 for the whole-run window */
	uint64_t start, end;
};

enum gr_html_track_kind { GR_HTML_TRACK_THREAD = 0, GR_HTML_TRACK_GPU, GR_HTML_TRACK_STREAM };

struct gr_html_track {
	enum gr_html_track_kind kind;
	uint32_t pid;
	uint32_t tid;	   /* threads, and streams that are a thread's per-thread default */
	const char *comm;  /* threads: model ("" unknown); NULL otherwise */
	int32_t rank;	   /* the process's rank, -1 unknown */
	uint32_t device;   /* gpu tracks */
	uint64_t stream;   /* gpu: CUPTI's stream id; stream tracks: the handle */
	int has_stream;	   /* gpu and stream tracks */
	const char *label; /* views' string table */
};

/* The kinds of span, in the order of gr_html_span_type_name(). */
enum gr_html_span_type {
	GR_HTML_LAUNCH = 0,
	GR_HTML_COPY,
	GR_HTML_MEMSET,
	GR_HTML_SYNC,
	GR_HTML_ALLOC,
	GR_HTML_FREE,
	GR_HTML_GRAPH,
	GR_HTML_NCCL,
	GR_HTML_OTHER,
	GR_HTML_FAILED,
	GR_HTML_RUNNABLE,
	GR_HTML_BLOCKED,
	GR_HTML_GPU_KERNEL,
	GR_HTML_GPU_MEMCPY,
	GR_HTML_GPU_MEMSET,
	GR_HTML_KERNEL,
	/* a blocked wait whose reason is known (blocked.h), GR_BLOCK_GIL .. GR_BLOCK_STOPPED in
	 * order; GR_HTML_BLOCKED when it is not */
	GR_HTML_BLOCKED_GIL,
	GR_HTML_BLOCKED_LOCK,
	GR_HTML_BLOCKED_INPUT,
	GR_HTML_BLOCKED_DISK,
	GR_HTML_BLOCKED_SLEEP,
	GR_HTML_BLOCKED_CHILD,
	GR_HTML_BLOCKED_OTHER,
	GR_HTML_BLOCKED_STOPPED,
	GR_HTML_NTYPES,
};

/* "launch", "copy", ... as the JSON spells them. */
const char *gr_html_span_type_name(unsigned type);

struct gr_html_span {
	uint32_t track;
	uint8_t type;	/* enum gr_html_span_type */
	uint32_t name;	/* index into names */
	int32_t detail; /* index into names, -1 none */
	uint64_t start, dur;
};

/* A flame graph node; children are a list through first_child / next. The root is node 0. */
struct gr_html_flame_node {
	const char *name;
	uint64_t launches, host_ns;
	int32_t first_child, next; /* -1: none */
};

/* An NVTX range on the timeline: a lane of its thread's row per depth. */
struct gr_html_nvtx_span {
	uint32_t window, track;
	uint32_t depth;
	uint32_t color;	  /* ARGB, 0 none */
	const char *name; /* model */
	uint64_t start, dur;
};

struct gr_html_views {
	uint64_t t0; /* the report's first_ts */

	/* iterations */
	int iter_found;
	uint32_t iter_thread; /* model thread index, when found */
	uint64_t iter_count;
	int binned;
	struct gr_html_iter_point *points;
	size_t npoints;

	/* step budget: every iteration's, GR_HTML_BUDGET_BARS bars at most */
	int budget_found;
	uint64_t budget_per; /* iterations a bar at most (the last bar may hold fewer) */
	struct gr_html_budget_bar *bars;
	size_t nbars;
	struct gr_budget marks[GR_HTML_NMARKS]; /* the report's median, p90, slowest */

	/* timeline */
	struct gr_html_window windows[GR_HTML_NWINDOWS];
	size_t nwindows;
	struct gr_html_track *tracks;
	size_t ntracks;
	const char **names; /* interned: equal strings, one index */
	size_t nnames;
	struct gr_html_span *spans; /* window by window, each by start */
	size_t nspans;
	uint64_t window_spans[GR_HTML_NWINDOWS]; /* kept per window */
	uint64_t truncated;			 /* spans over GR_HTML_WINDOW_SPANS, left out */

	/* flame */
	struct gr_html_flame_node *flame;
	size_t nflame;
	uint64_t flame_merged; /* nodes folded into "(other)" */

	/* NVTX ranges (report's nvtx set): on the timeline, and as a tree nested by parent
	 * (launches: the ranges' count, host_ns: their time); none without ranges */
	struct gr_html_nvtx_span *nvtx;
	size_t nnvtx;
	uint64_t nvtx_window[GR_HTML_NWINDOWS];
	uint64_t nvtx_truncated;
	struct gr_html_flame_node *nvtx_flame;
	size_t nnvtx_flame;

	void *priv;
};

/*
 * Compute the views of @m, whose report is @r (all sections or at least launches). Returns 0 and
 * sets *@out, or -ENOMEM with *@out NULL.
 */
int gr_html_views_compute(const struct gr_model *m, const struct gr_report *r,
			  struct gr_html_views **out);

/* Free the views (NULL is accepted). */
void gr_html_views_free(struct gr_html_views *v);

struct gr_json;
/* @v as the VIEWS object of docs/HTML.md into @j; @m names the iteration's thread. */
void gr_html_views_json(struct gr_json *j, const struct gr_html_views *v, const struct gr_model *m);

#endif
