/* SPDX-License-Identifier: MIT */
/*
 * NVTX, replayed: the ranges, marks, domains and names a program gave with NVTX (GR_K_NVTX
 * records, format 1.3), and per range name what happened inside its ranges. The one place that
 * pairs pushes with pops and starts with ends: report, diff, export and HTML read these.
 *
 * Pairing: a POP closes the innermost open PUSH of its (thread, domain); an END closes the START
 * with its id in the END's process, whatever the thread. A pop with nothing open and an end
 * with no start are counted, never paired. A range still open when the recording ends ends
 * there, closed 0. Rules: docs/REPORTS.md ("NVTX ranges").
 *
 * Ownership: gr_nvtx_build() fills a set that indexes the model (marks point into it, names are
 * the model's strings); valid until gr_nvtx_free(), never past the model's life.
 */
#ifndef GR_ANALYZE_NVTX_H
#define GR_ANALYZE_NVTX_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/figures/graphs.h"
#include "analyze/figures/probe_cost.h"
#include "analyze/model/model.h"

enum gr_nvtx_range_kind { GR_NVTX_RANGE_PUSHPOP, GR_NVTX_RANGE_STARTEND };

struct gr_nvtx_range {
	uint64_t start, end; /* end: the pop/end; an unclosed range ends at the
			      * recording's end with closed = 0 */
	uint32_t thread;     /* gr_model_threads() index of the opening thread */
	uint32_t end_thread; /* of the closing thread (== thread for push/pop) */
	uint32_t name;	     /* gr_model_nvtx_text() index */
	uint32_t domain;     /* gr_nvtx_set.domains index; 0 = the default domain */
	uint32_t category;   /* the category id */
	uint32_t color;
	uint32_t parent; /* enclosing push/pop range on the same thread and domain,
			  * UINT32_MAX none */
	uint16_t depth;	 /* 0 outermost */
	uint8_t kind;	 /* enum gr_nvtx_range_kind */
	uint8_t closed;
	uint8_t payload_type;
	uint64_t payload;
};

struct gr_nvtx_domain {
	uint32_t pid;
	uint64_t handle;
	const char *name; /* model; "" for the default domain and a domain never named */
};

struct gr_nvtx_name; /* private */

struct gr_nvtx_set {
	struct gr_nvtx_range *ranges; /* by start, then depth */
	size_t nranges;
	const struct gr_nvtx **marks; /* into the model, by ts */
	size_t nmarks;
	struct gr_nvtx_domain *domains; /* [0] = default "" */
	size_t ndomains;
	uint64_t unmatched_pops; /* pops with no open push on their (thread, domain) */
	uint64_t unmatched_ends; /* ends with no start of their id in their process */
	/* private lookup state for the name functions below */
	struct gr_nvtx_name *names; /* sorted by (what, pid, a, b) */
	size_t nnames;
	const char *(*text)(const void *ctx, uint32_t idx);
	const void *text_ctx;
};

/*
 * Pair the NVTX calls of @m into @out (zeroed first; an empty set for a trace without NVTX).
 * Returns 0 or -ENOMEM (then @out is empty and needs no free).
 */
int gr_nvtx_build(const struct gr_model *m, struct gr_nvtx_set *out);
/*
 * The same over @n NVTX calls @ev (by ts) whose .thread index @th (@nth threads), their texts
 * given by @text(@ctx, index) (strings that outlive the set), ranges still open ending at @last:
 * what gr_nvtx_build() runs on the model's arrays, for callers with arrays of their own.
 */
int gr_nvtx_build_events(const struct gr_nvtx *ev, size_t n, const struct gr_thread *th, size_t nth,
			 const char *(*text)(const void *ctx, uint32_t idx), const void *ctx,
			 uint64_t last, struct gr_nvtx_set *out);
/* Free what gr_nvtx_build() filled and zero it (NULL and a zeroed set are accepted). */
void gr_nvtx_free(struct gr_nvtx_set *s);

/* The name the program gave with NVTX (the last one given), or NULL. Strings are the model's. */
const char *gr_nvtx_thread_name(const struct gr_nvtx_set *s, uint32_t pid, uint32_t tid);
const char *gr_nvtx_stream_name(const struct gr_nvtx_set *s, uint32_t pid, uint64_t handle);
const char *gr_nvtx_device_name(const struct gr_nvtx_set *s, uint32_t pid, uint32_t device);
const char *gr_nvtx_category_name(const struct gr_nvtx_set *s, uint32_t pid, uint64_t domain,
				  uint32_t category);

/* ---- per range name statistics ---- */

/*
 * The step to measure ranges against: the report's iteration (report_types.h): the thread the
 * steps run on and each step's start and time. n 0: no step.
 */
struct gr_nvtx_step {
	uint32_t thread; /* gr_model_threads() index */
	const uint64_t *starts, *durs;
	size_t n;
};

/*
 * The ranges of one name in one domain (domains of equal names, in any process, are one).
 * Host times are ranges' end - start. Inside a range: the calls made by its thread in [start,
 * end) for a push/pop range, by any thread of its process for a start/end range.
 */
struct gr_nvtx_stat {
	uint32_t name;	 /* gr_model_nvtx_text() index */
	uint32_t domain; /* gr_nvtx_set.domains index: the first domain of that name */
	uint8_t kind;	 /* enum gr_nvtx_range_kind of its first range */
	uint16_t depth;	 /* the smallest depth of its ranges */
	uint32_t parent; /* the stat its ranges are most often nested in (gr_nvtx_stats.v
			  * index), UINT32_MAX none */
	uint64_t count;	 /* ranges */
	uint64_t unclosed;
	uint64_t total_ns, median_ns, p90_ns, max_ns;
	uint64_t launches; /* launch calls inside (a graph launch is one) */
	uint64_t kernels;  /* kernels executed inside: launches that were not graph nodes, plus
			    * graph launches' kernel nodes */
	uint64_t api_calls, api_ns; /* CUDA API calls inside, and their call time */
	uint64_t gpu_ops, gpu_ns;   /* GPU rows whose API call was made inside (--cupti: nsys's
				     * projection), their GPU time */
	/* the step: ranges starting in a step; for the step thread's ranges, their time inside
	 * the steps and its share of the steps' time (0 without a step). A range inside another
	 * of the same name counts once, with the outer one */
	uint64_t step_count;
	uint64_t step_ns;
	double step_share;
};

struct gr_nvtx_stats {
	/* depth first: a stat is followed by the stats nested in it, siblings by total_ns
	 * descending, then name */
	struct gr_nvtx_stat *v;
	size_t n;
	int has_gpu;	  /* the trace has GPU rows (--cupti): gpu_* mean something */
	uint64_t steps;	  /* steps measured against (gr_nvtx_step.n) */
	uint64_t step_ns; /* their time together */
	uint32_t step_thread;
};

/*
 * Statistics of @s's ranges over @m into @out. @graphs (may be NULL: every launch one kernel)
 * says what graph launches executed; @pc (may be NULL: as recorded) takes the probes' cost out
 * of API times; @step (may be NULL) the steps. Returns 0 or -ENOMEM (@out then empty).
 */
int gr_nvtx_stats_compute(const struct gr_model *m, const struct gr_nvtx_set *s,
			  const struct gr_graphs *graphs, struct gr_probe_cost *pc,
			  const struct gr_nvtx_step *step, struct gr_nvtx_stats *out);
/* Free and zero (NULL and a zeroed one are accepted). */
void gr_nvtx_stats_free(struct gr_nvtx_stats *st);

/*
 * 1 when range @r is named by @spec: "NAME" (its name, any domain) or "DOMAIN:NAME" (its domain's
 * name and its name; "" names the default domain), else 0. A whole @spec that is a name wins over
 * a split at its first ':'.
 */
int gr_nvtx_range_named(const struct gr_nvtx_set *s, const struct gr_nvtx_range *r,
			const char *spec);

/* The text @idx (gr_model_nvtx_text()) of the calls @s was built from: "" when none. */
const char *gr_nvtx_text(const struct gr_nvtx_set *s, uint32_t idx);

/* ---- ranges as steps (report's --step nvtx:NAME and the iteration finder) ---- */

/*
 * The steps the push/pop ranges @spec names (gr_nvtx_range_named()) make on thread @thread: range
 * j starts step j, the last one ends where it ends; a range inside another of the name is the
 * outer one's. Writes each step's start into @bounds[j] and the last range's end into
 * @bounds[n] (@bounds: room for nranges + 1). Returns n, the steps.
 */
size_t gr_nvtx_step_bounds(const struct gr_nvtx_set *s, uint32_t thread, const char *spec,
			   uint64_t *bounds);

/*
 * The push/pop range name of @thread that starts once an iteration of a loop whose @count
 * iterations start at @iter[0..count) (their first calls' entries), the last ending at @end_ts:
 * one range (the outer one of the name's nested ones) for each iteration, opening before its
 * first call and holding it, or after it and before the next iteration starts; three iterations
 * at least; the outermost name when several are. Returns 1 and *@range (a range of that name and
 * domain, index in @s->ranges), 0 when none, -ENOMEM.
 */
int gr_nvtx_step_choice(const struct gr_nvtx_set *s, uint32_t thread, const uint64_t *iter,
			uint64_t count, uint64_t end_ts, uint32_t *range);

#endif
