/* SPDX-License-Identifier: MIT */
/*
 * The ranks of a job: when two or more processes launch, each gets its own iteration (the
 * detector of report_iter.c run on its busiest launching thread) and the split of that
 * iteration's time on that thread, from the step budget (host work on CPU, launch calls, copies,
 * syncs, runnable and blocked waits, other calls, time of unknown state). The straggler is the
 * slowest by median iteration time, named when it is at least GR_REPORT_STRAGGLER_RATIO times the
 * others' median, with the part of its iteration that exceeds the others' the most as the cause.
 * docs/REPORTS.md has the definitions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "report_sections.h"

const char *gr_rank_part_name(unsigned part)
{
	static const char *const names[GR_RANK_NPARTS + 1] = {
	    [GR_RANK_HOST] = "host",	      [GR_RANK_LAUNCH] = "launch",
	    [GR_RANK_COPY] = "copy",	      [GR_RANK_SYNC] = "sync",
	    [GR_RANK_RUNNABLE] = "runnable",  [GR_RANK_BLOCKED] = "blocked",
	    [GR_RANK_OTHER] = "other",	      [GR_RANK_UNKNOWN] = "unknown",
	    [GR_RANK_NPARTS] = "unexplained",
	};

	return names[part < GR_RANK_NPARTS ? part : GR_RANK_NPARTS];
}

/* What each part means in a sentence. */
static const char *part_words(unsigned part)
{
	switch (part) {
	case GR_RANK_HOST:
		return "host work between API calls (on CPU)";
	case GR_RANK_LAUNCH:
		return "launch calls";
	case GR_RANK_COPY:
		return "copies";
	case GR_RANK_SYNC:
		return "synchronisation";
	case GR_RANK_RUNNABLE:
		return "waiting to run (CPU starvation)";
	case GR_RANK_BLOCKED:
		return "time off CPU between API calls (blocked)";
	case GR_RANK_OTHER:
		return "other API calls (allocations, frees, event records, waits)";
	case GR_RANK_UNKNOWN:
		return "time between API calls, on or off CPU unknown (no scheduler records: "
		       "record without --no-sched to tell)";
	}
	return "no single part (the others' time splits the same way)";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The lower median of @n values (reordered); 0 for none. */
static uint64_t median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	gr_qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

void gr_report_straggler_find(const struct gr_report_rank *v, size_t n,
			      struct gr_report_straggler *out)
{
	uint64_t *others = malloc((n + 1) * sizeof(*others));
	size_t slow = n, nfound = 0, no;
	int64_t best_excess = 0;

	memset(out, 0, sizeof(*out));
	out->cause = GR_RANK_NPARTS;
	if (!others)
		return; /* no straggler named rather than a wrong one */
	for (size_t i = 0; i < n; i++) {
		if (!v[i].concurrent)
			continue;
		nfound++;
		if (slow == n || v[i].iter.period_ns > v[slow].iter.period_ns)
			slow = i;
	}
	if (nfound < 2)
		goto out;
	no = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].concurrent && i != slow)
			others[no++] = v[i].iter.period_ns;
	out->others_ns = median_u64(others, no);
	if (!out->others_ns)
		goto out;
	out->ratio = (double)v[slow].iter.period_ns / (double)out->others_ns;
	out->index = slow;
	if (out->ratio < GR_REPORT_STRAGGLER_RATIO ||
	    v[slow].iter.period_ns - out->others_ns < GR_REPORT_STRAGGLER_FLOOR_NS)
		goto out;
	out->found = 1;
	/* the part whose per-iteration time passes the others' median of it by the most: the
	 * parts are disjoint, so the excess is that part's alone; a tie goes to the earlier part
	 * (host work, then the calls, then the waits) */
	for (unsigned p = 0; p < GR_RANK_NPARTS; p++) {
		int64_t excess;

		no = 0;
		for (size_t i = 0; i < n; i++)
			if (v[i].concurrent && i != slow)
				others[no++] = v[i].part_ns[p];
		excess = (int64_t)v[slow].part_ns[p] - (int64_t)median_u64(others, no);
		if (excess > best_excess) {
			best_excess = excess;
			out->cause = p;
		}
	}
	out->excess_ns = (uint64_t)best_excess;
out:
	free(others);
}

/* Iteration @b's budget parts as the rank parts, with @est ns of its untimed launches' time moved
 * out of the outside part it fell in (host, then unknown) into launch, as report_diagnosis.c's
 * group() does for the step. */
static void rank_parts(const struct gr_budget *b, uint64_t est, uint64_t *out)
{
	uint64_t take;

	out[GR_RANK_HOST] = b->part_ns[GR_BUDGET_HOST];
	out[GR_RANK_LAUNCH] = b->part_ns[GR_BUDGET_LAUNCH] + b->part_ns[GR_BUDGET_GRAPH_LAUNCH];
	out[GR_RANK_COPY] = b->part_ns[GR_BUDGET_COPY];
	out[GR_RANK_SYNC] = b->part_ns[GR_BUDGET_SYNC_DEVICE] + b->part_ns[GR_BUDGET_SYNC_STREAM] +
			    b->part_ns[GR_BUDGET_SYNC_EVENT];
	out[GR_RANK_RUNNABLE] = b->part_ns[GR_BUDGET_RUNNABLE];
	out[GR_RANK_BLOCKED] = b->part_ns[GR_BUDGET_BLOCKED];
	out[GR_RANK_OTHER] = b->part_ns[GR_BUDGET_ALLOC] + b->part_ns[GR_BUDGET_OTHER];
	out[GR_RANK_UNKNOWN] = b->part_ns[GR_BUDGET_OUTSIDE_UNKNOWN];
	take = est < out[GR_RANK_HOST] ? est : out[GR_RANK_HOST];
	out[GR_RANK_HOST] -= take;
	out[GR_RANK_LAUNCH] += take;
	est -= take;
	take = est < out[GR_RANK_UNKNOWN] ? est : out[GR_RANK_UNKNOWN];
	out[GR_RANK_UNKNOWN] -= take;
	out[GR_RANK_LAUNCH] += take;
}

/*
 * Where each iteration's time went on the iteration's thread: the step budget of every
 * iteration (budget.h, the same parts the report's step budget and diagnosis read), grouped into
 * the rank parts, and per part the median over the iterations. A part that is one budget part
 * is budget.c's part_median_ns; a group is summed per iteration first, and the untimed launches
 * need each iteration's count of them, so the medians are taken here. A rank preempted in a few
 * iterations, or one slow iteration, moves a mean but not the median, so two recordings of the
 * same job name the same excess; and since the parts are disjoint (host is on-CPU time only), a
 * straggler's extra host work is not also counted as its runnable wait. Returns 0 or -ENOMEM.
 */
static int split_parts(struct rp_ctx *x, struct gr_report_rank *rk)
{
	const struct gr_report_iteration *it = &rk->iter;
	const struct gr_report_launches *L = &x->r->launches;
	/* an untimed launch took what the timed ones did; without any timed, its time stays
	 * where it fell (host or unknown): a cost from the gaps is an upper bound, no estimate */
	uint64_t cost = L->api_measured ? L->launch_cost_ns : 0;
	size_t n = it->count;
	struct gr_budget *each = calloc(n, sizeof(*each));
	uint64_t *col = calloc((size_t)GR_RANK_NPARTS * n, sizeof(*col));
	struct gr_budget_states st;
	struct gr_budget_loop loop;
	struct gr_budgets B;
	int err = -ENOMEM;

	if (!each || !col)
		goto out;
	err = gr_budget_states(x->m, it->thread, it->start_ts, it->end_ts, &st);
	if (err)
		goto out;
	loop = (struct gr_budget_loop){it->thread, it->starts, n, it->end_ts, each, 0, 0};
	err = gr_budget_compute(x->m, x->pc, &loop, &st, &B);
	gr_budget_states_free(&st);
	if (err) {
		/* a loop the budget cannot take (no such thread) has no parts, not a failed report
		 */
		if (err == -EINVAL)
			err = 0;
		goto out;
	}
	rk->has_states = B.has_states;
	for (size_t j = 0; j < n; j++) {
		uint64_t v[GR_RANK_NPARTS];

		rank_parts(&each[j], each[j].unmeasured * cost, v);
		for (unsigned p = 0; p < GR_RANK_NPARTS; p++)
			col[p * n + j] = v[p];
	}
	for (unsigned p = 0; p < GR_RANK_NPARTS; p++)
		rk->part_ns[p] = median_u64(col + p * n, n);
	if (it->period_ns)
		rk->blocked_share =
		    (double)(rk->part_ns[GR_RANK_COPY] + rk->part_ns[GR_RANK_SYNC]) /
		    (double)it->period_ns;
out:
	free(each);
	free(col);
	return err;
}

/*
 * A rank is a process whose loop runs while another's does: only then can one wait for the
 * other. A launcher that made a few calls before it started the ranks, then waits for them,
 * has a "loop" of its own, over before theirs began: it is listed, but not compared.
 */
void gr_report_ranks_mark_concurrent(struct gr_report_ranks *R)
{
	for (size_t i = 0; i < R->n; i++) {
		const struct gr_report_iteration *a = &R->v[i].iter;

		if (!a->found || a->count < 2)
			continue;
		for (size_t k = 0; k < R->n && !R->v[i].concurrent; k++) {
			const struct gr_report_iteration *b = &R->v[k].iter;

			R->v[i].concurrent = k != i && b->found && b->count >= 2 &&
					     a->start_ts < b->end_ts && b->start_ts < a->end_ts;
		}
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct gr_report_rank *x = a, *y = b;

	/* ranked processes first, by rank; then by trace and pid (a model's process order) */
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return 0;
}

void gr_report_ranks_sort(struct gr_report_ranks *R)
{
	if (R->n)
		gr_qsort(R->v, R->n, sizeof(*R->v), cmp_rank);
}

enum gr_verdict_level gr_report_ranks_verdict(const struct gr_report_ranks *R, char *buf,
					      size_t size)
{
	const struct gr_report_straggler *s = &R->straggler;
	char b1[32], b2[32], b3[32], who[160], where[96] = "";
	size_t nfound = 0;

	for (size_t i = 0; i < R->n; i++)
		nfound += R->v[i].concurrent;
	if (nfound < 2) {
		snprintf(buf, size,
			 "%zu processes launch; %zu of them have a loop running while another's "
			 "does, to compare",
			 R->n, nfound);
		return GR_VERDICT_NONE;
	}
	if (R->v[s->index].host)
		snprintf(where, sizeof(where), ", trace %" PRIu32 " on %s", R->v[s->index].trace,
			 R->v[s->index].host);
	if (R->v[s->index].rank >= 0)
		snprintf(who, sizeof(who), "rank %d (pid %" PRIu32 "%s)", R->v[s->index].rank,
			 R->v[s->index].pid, where);
	else
		snprintf(who, sizeof(who), "pid %" PRIu32 "%s", R->v[s->index].pid, where);
	gr_units_ns(b1, sizeof(b1), (double)R->v[s->index].iter.period_ns);
	gr_units_ns(b2, sizeof(b2), (double)s->others_ns);
	if (!s->found && s->ratio < GR_REPORT_STRAGGLER_RATIO) {
		snprintf(buf, size,
			 "no straggler among %zu processes: the slowest, %s, takes %s per "
			 "iteration, %.2fx the others' median %s (under %.2fx)",
			 nfound, who, b1, s->ratio, b2, GR_REPORT_STRAGGLER_RATIO);
		return GR_VERDICT_OK;
	}
	if (!s->found) {
		gr_units_ns(b3, sizeof(b3), (double)GR_REPORT_STRAGGLER_FLOOR_NS);
		snprintf(
		    buf, size,
		    "no straggler among %zu processes: the slowest, %s, takes %s per "
		    "iteration, %.2fx the others' median %s but less than %s more, within what "
		    "our probes and the clock add",
		    nfound, who, b1, s->ratio, b2, b3);
		return GR_VERDICT_OK;
	}
	gr_units_ns(b3, sizeof(b3), (double)s->excess_ns);
	snprintf(buf, size,
		 "%s is the straggler: %s per iteration, %.2fx the others' median %s; its extra "
		 "time is %s (+%s per iteration over the others' median)",
		 who, b1, s->ratio, b2, part_words(s->cause), b3);
	return GR_VERDICT_PROBLEM;
}

/* The straggler's verdict, the numbers behind it in one sentence. */
static int verdict(struct rp_ctx *x)
{
	struct gr_report_ranks *R = &x->r->ranks;
	char buf[1024];
	enum gr_verdict_level level = gr_report_ranks_verdict(R, buf, sizeof(buf));

	return rp_verdict(x, &R->verdict, level, "%s", buf);
}

/* By (name, domain, row), then time. */
static int cmp_rank_range(const void *a, const void *b)
{
	const struct gr_rank_range *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (!c)
		c = strcmp(x->domain, y->domain);
	if (c)
		return c;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int same_name(const struct gr_rank_range *x, const struct gr_rank_range *y)
{
	return !strcmp(x->name, y->name) && !strcmp(x->domain, y->domain);
}

size_t gr_rank_range_medians(struct gr_rank_range *v, size_t n)
{
	size_t out = 0;

	gr_qsort(v, n, sizeof(*v), cmp_rank_range);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && v[b].row == v[a].row && same_name(&v[a], &v[b]); b++)
			;
		/* sorted by time within a row: the lower median of an even count */
		v[out] = v[a + (b - a - 1) / 2];
		v[out++].count = b - a;
	}
	return out;
}

static int cmp_range_ratio(const void *a, const void *b)
{
	const struct gr_report_rank_range *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio > y->ratio ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gr_report_ranks_pace(struct gr_report_ranks *R, struct gr_rank_range *m, size_t n,
			 void *(*alloc)(void *ctx, size_t count, size_t size), void *ctx)
{
	uint64_t *med = malloc((R->n + 1) * sizeof(*med));
	size_t keys = 0;

	R->nranges = 0;
	if (!med)
		return -ENOMEM;
	gr_qsort(m, n, sizeof(*m), cmp_rank_range);
	for (size_t i = 0; i < n; i++)
		keys += !i || !same_name(&m[i], &m[i - 1]);
	R->ranges = alloc(ctx, keys, sizeof(*R->ranges));
	if (!R->ranges)
		goto nomem;
	for (size_t a = 0, b; a < n; a = b) {
		struct gr_report_rank_range *g = &R->ranges[R->nranges];
		size_t ranks = 0;

		for (b = a + 1; b < n && same_name(&m[a], &m[b]); b++)
			;
		/* one entry per row: a second of the same row (a hand-made summary) is left out */
		for (size_t e = a; e < b; e++)
			ranks += m[e].row < R->n && (e == a || m[e].row != m[e - 1].row);
		if (ranks < 2)
			continue;
		g->name = m[a].name;
		g->domain = m[a].domain;
		g->median_ns = alloc(ctx, R->n, sizeof(*g->median_ns));
		g->count = alloc(ctx, R->n, sizeof(*g->count));
		R->nranges++;
		if (!g->median_ns || !g->count)
			goto nomem;
		ranks = 0;
		for (size_t e = a; e < b; e++) {
			if (m[e].row >= R->n || (e > a && m[e].row == m[e - 1].row))
				continue;
			g->median_ns[m[e].row] = m[e].ns;
			g->count[m[e].row] = m[e].count;
			med[ranks++] = m[e].ns;
			if (ranks == 1 || m[e].ns > g->median_ns[g->slowest])
				g->slowest = m[e].row;
		}
		g->median_rank_ns = median_u64(med, ranks);
		g->ratio = g->median_rank_ns
			       ? (double)g->median_ns[g->slowest] / (double)g->median_rank_ns
			       : 0;
	}
	gr_qsort(R->ranges, R->nranges, sizeof(*R->ranges), cmp_range_ratio);
	free(med);
	return 0;
nomem:
	free(med);
	return -ENOMEM;
}

static void *arena_alloc(void *ctx, size_t count, size_t size)
{
	return rp_alloc(ctx, count, size);
}

/* Ranges match across processes by their texts: each process has its own domain handles, and text
 * indexes may differ between the traces of a set. */
int rp_nvtx_pace(struct rp_ctx *x, size_t np)
{
	struct gr_report_ranks *R = &x->r->ranks;
	const struct gr_nvtx_set *s = &x->r->nvtx.set;
	uint32_t *rank_of = malloc((np + 1) * sizeof(*rank_of));
	struct gr_rank_range *v = malloc((s->nranges + 1) * sizeof(*v));
	size_t n = 0;
	int err = -ENOMEM;

	if (!rank_of || !v)
		goto out;
	for (size_t i = 0; i < np; i++)
		rank_of[i] = UINT32_MAX;
	for (size_t k = 0; k < R->n; k++)
		if (R->v[k].process < np)
			rank_of[R->v[k].process] = (uint32_t)k;
	for (size_t i = 0; i < s->nranges; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];
		uint32_t proc = r->thread < x->nth ? x->th[r->thread].process : UINT32_MAX;

		if (!r->closed || proc >= np || rank_of[proc] == UINT32_MAX)
			continue;
		v[n++] = (struct gr_rank_range){gr_nvtx_text(s, r->name),
						r->domain < s->ndomains ? s->domains[r->domain].name
									: "",
						rank_of[proc], r->end - r->start, 0};
	}
	n = gr_rank_range_medians(v, n);
	err = gr_report_ranks_pace(R, v, n, arena_alloc, x);
out:
	free(rank_of);
	free(v);
	return err;
}

int rp_ranks(struct rp_ctx *x)
{
	struct gr_report_ranks *R = &x->r->ranks;
	size_t np, ntraces;
	const struct gr_model_trace *traces = gr_model_traces(x->m, &ntraces);
	uint32_t *busiest;
	int err = 0;

	gr_model_processes(x->m, &np);
	busiest = malloc((np + 1) * sizeof(*busiest));
	if (!busiest)
		return -ENOMEM;
	for (size_t p = 0; p < np; p++)
		busiest[p] = UINT32_MAX;
	for (uint32_t t = 0; t < x->nth; t++) {
		uint32_t p = x->th[t].process;

		if (!x->thr[t].launches || p >= np)
			continue;
		if (busiest[p] == UINT32_MAX)
			R->n++;
		if (busiest[p] == UINT32_MAX || x->thr[t].launches > x->thr[busiest[p]].launches)
			busiest[p] = t;
	}
	if (R->n < 2 && !x->all_ranks) {
		R->n = 0;
		goto out;
	}
	if (!R->n)
		goto out;
	R->v = rp_alloc(x, R->n, sizeof(*R->v));
	if (!R->v) {
		err = -ENOMEM;
		goto out;
	}
	R->n = 0;
	for (uint32_t p = 0; p < np && !err; p++) {
		const struct gr_process *proc = &gr_model_processes(x->m, NULL)[p];
		struct gr_report_rank *rk;

		if (busiest[p] == UINT32_MAX)
			continue;
		rk = &R->v[R->n++];
		rk->process = p;
		rk->pid = proc->trace_pid;
		rk->trace = proc->trace;
		if (proc->trace < ntraces)
			rk->host = traces[proc->trace].host;
		rk->rank = proc->rank;
		rk->comm = proc->comm;
		/* --step: the thread of the process making the calls it names */
		if (x->step) {
			uint32_t t = rp_step_thread(x, x->step, p);

			if (t != UINT32_MAX)
				busiest[p] = t;
		}
		err = rp_calls_tokens(x, busiest[p]);
		if (!err)
			err = x->step ? rp_step_find(x, &rk->iter, 0)
				      : rp_iteration_find(x, &rk->iter, 0);
		rp_calls_free_tokens(x);
		/* a process without a loop still shows, with the thread it was looked for on */
		rk->iter.thread = busiest[p];
		if (!err && rk->iter.found && rk->iter.count >= 2)
			err = split_parts(x, rk);
	}
	if (err)
		goto out;
	gr_report_ranks_mark_concurrent(R);
	gr_report_ranks_sort(R);
	gr_report_straggler_find(R->v, R->n, &R->straggler);
	err = rp_nvtx_pace(x, np);
	if (!err)
		err = verdict(x);
out:
	free(busiest);
	return err;
}
