/* SPDX-License-Identifier: MIT */
/*
 * The ranks of a job: when two or more processes launch, each gets its own iteration (the
 * detector of report_iter.c run on its busiest launching thread) and the split of that
 * iteration's time on that thread (host work between calls, launch calls, copies, syncs,
 * runnable wait). The straggler is the slowest by median iteration time, named when it is at
 * least GR_REPORT_STRAGGLER_RATIO times the others' median, with the part of its iteration that
 * exceeds the others' the most as the cause. docs/REPORTS.md has the definitions.
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
	    [GR_RANK_HOST] = "host",	     [GR_RANK_LAUNCH] = "launch",
	    [GR_RANK_COPY] = "copy",	     [GR_RANK_SYNC] = "sync",
	    [GR_RANK_RUNNABLE] = "runnable", [GR_RANK_NPARTS] = "unexplained",
	};

	return names[part < GR_RANK_NPARTS ? part : GR_RANK_NPARTS];
}

/* What each part means in a sentence. */
static const char *part_words(unsigned part)
{
	switch (part) {
	case GR_RANK_HOST:
		return "host work between API calls";
	case GR_RANK_LAUNCH:
		return "launch calls";
	case GR_RANK_COPY:
		return "copies";
	case GR_RANK_SYNC:
		return "synchronisation";
	case GR_RANK_RUNNABLE:
		return "waiting to run (CPU starvation)";
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
	/* the part whose per-iteration time passes the others' median of it by the most; a tie
	 * goes to the earlier part (host work before the calls, the calls before runnable wait,
	 * which overlaps them) */
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

/* Whether call @idx of @kind is a host-blocking sync (event records and stream waits are not). */
static int blocking_sync(const struct rp_ctx *x, unsigned kind, size_t idx)
{
	return kind == RP_SYNC && x->sy[idx].kind != GR_SYNC_EVENT_RECORD &&
	       x->sy[idx].kind != GR_SYNC_STREAM_WAIT_EVENT;
}

/* The iteration of the loop's whole periods that @ts falls in (period j: starts[j] to
 * starts[j + 1]), or -1 outside them. */
static long period_of(const struct gr_report_iteration *it, uint64_t ts)
{
	size_t lo = 0, hi = it->count - 1; /* periods 0 .. count - 2 */

	if (ts < it->start_ts || ts >= it->last_start_ts)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (it->starts[mid] <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

/*
 * Where each iteration's time went on the iteration's thread, over the loop's whole periods
 * (start to next start, so that each holds all of its host work), and per part the median over
 * those periods: a rank preempted in a few iterations, or one slow iteration, moves a mean but
 * not the median, so two recordings of the same job name the same excess. Returns 0 or
 * -ENOMEM.
 */
static int split_parts(struct rp_ctx *x, struct gr_report_rank *rk, const struct rp_waits *waits)
{
	const struct gr_report_iteration *it = &rk->iter;
	size_t n[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr};
	size_t periods = it->count - 1;
	uint64_t *part = calloc((GR_RANK_NPARTS + 2) * periods, sizeof(*part));
	uint64_t *in_calls = part + GR_RANK_NPARTS * periods, *other = in_calls + periods;

	if (!part)
		return -ENOMEM;
	for (unsigned k = 0; k < RP_NCALLS; k++)
		for (size_t i = 0; i < n[k]; i++) {
			long j = period_of(it, rp_call_ts(x, k, (uint32_t)i));
			uint64_t raw, d;

			if (j < 0 || rp_call_thread(x, k, i) != it->thread)
				continue;
			/* graph nodes made no call of their own: their graph launch did */
			if ((k == RP_LAUNCH &&
			     gr_graphs_bit(gr_graphs_launch_bits(x->ls.graphs), i)) ||
			    (k == RP_COPY && gr_graphs_copy_is_node(x->ls.graphs, i)) ||
			    (k == RP_MEMSET && gr_graphs_memset_is_node(x->ls.graphs, i)))
				continue;
			raw = rp_call_raw(x, k, (uint32_t)i);
			d = rp_dur(x, raw);
			in_calls[j] += raw;
			if (k == RP_LAUNCH || (k == RP_GRAPH && x->g[i].kind == GR_GRAPH_LAUNCH))
				part[GR_RANK_LAUNCH * periods + j] += d;
			else if (k == RP_COPY || k == RP_MEMSET)
				part[GR_RANK_COPY * periods + j] += d;
			else if (blocking_sync(x, k, i))
				part[GR_RANK_SYNC * periods + j] += d;
			else
				other[j] += d;
		}
	/* the time outside the thread's calls, as recorded (our probes' share of it included) */
	for (size_t j = 0; j < periods; j++) {
		uint64_t span = it->starts[j + 1] - it->starts[j];

		part[GR_RANK_HOST * periods + j] = span > in_calls[j] ? span - in_calls[j] : 0;
	}
	/* runnable waits and periods are both in time order: one walk, a wait cut at each start */
	if (waits && it->thread < x->nth) {
		const struct rp_waits *w = &waits[it->thread];
		size_t j = 0;

		for (size_t i = 0; i < w->n; i++) {
			uint64_t a = w->v[i].start, b = w->v[i].end;

			while (j < periods && it->starts[j + 1] <= a)
				j++;
			for (size_t q = j; q < periods && it->starts[q] < b; q++) {
				uint64_t lo = a > it->starts[q] ? a : it->starts[q];
				uint64_t hi = b < it->starts[q + 1] ? b : it->starts[q + 1];

				if (hi > lo)
					part[GR_RANK_RUNNABLE * periods + q] += hi - lo;
			}
		}
	}
	for (unsigned p = 0; p < GR_RANK_NPARTS; p++)
		rk->part_ns[p] = median_u64(part + p * periods, periods);
	rk->other_ns = median_u64(other, periods);
	if (it->period_ns)
		rk->blocked_share =
		    (double)(rk->part_ns[GR_RANK_COPY] + rk->part_ns[GR_RANK_SYNC]) /
		    (double)it->period_ns;
	free(part);
	return 0;
}

/*
 * A rank is a process whose loop runs while another's does: only then can one wait for the
 * other. A launcher that made a few calls before it started the ranks, then waits for them,
 * has a "loop" of its own, over before theirs began: it is listed, but not compared.
 */
static void mark_concurrent(struct gr_report_ranks *R)
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

	/* ranked processes first, by rank; then by pid */
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return 0;
}

/* The straggler's verdict, the numbers behind it in one sentence. */
static int verdict(struct rp_ctx *x)
{
	struct gr_report_ranks *R = &x->r->ranks;
	const struct gr_report_straggler *s = &R->straggler;
	char b1[32], b2[32], b3[32], who[160], where[96] = "";
	size_t nfound = 0;

	for (size_t i = 0; i < R->n; i++)
		nfound += R->v[i].concurrent;
	if (nfound < 2)
		return rp_verdict(x, &R->verdict, GR_VERDICT_NONE,
				  "%zu processes launch; %zu of them have a loop running while "
				  "another's does, to compare",
				  R->n, nfound);
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
	if (!s->found && s->ratio < GR_REPORT_STRAGGLER_RATIO)
		return rp_verdict(x, &R->verdict, GR_VERDICT_OK,
				  "no straggler among %zu processes: the slowest, %s, takes %s per "
				  "iteration, %.2fx the others' median %s (under %.2fx)",
				  nfound, who, b1, s->ratio, b2, GR_REPORT_STRAGGLER_RATIO);
	if (!s->found) {
		gr_units_ns(b3, sizeof(b3), (double)GR_REPORT_STRAGGLER_FLOOR_NS);
		return rp_verdict(x, &R->verdict, GR_VERDICT_OK,
				  "no straggler among %zu processes: the slowest, %s, takes %s per "
				  "iteration, %.2fx the others' median %s but less than %s more, "
				  "within what our probes and the clock add",
				  nfound, who, b1, s->ratio, b2, b3);
	}
	gr_units_ns(b3, sizeof(b3), (double)s->excess_ns);
	return rp_verdict(x, &R->verdict, GR_VERDICT_PROBLEM,
			  "%s is the straggler: %s per iteration, %.2fx the others' median %s; "
			  "its extra time is %s (+%s per iteration over the others' median)",
			  who, b1, s->ratio, b2, part_words(s->cause), b3);
}

int rp_ranks(struct rp_ctx *x, const struct rp_waits *waits)
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
	if (R->n < 2) {
		R->n = 0;
		goto out;
	}
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
			err = split_parts(x, rk, waits);
	}
	if (err)
		goto out;
	mark_concurrent(R);
	if (R->n)
		gr_qsort(R->v, R->n, sizeof(*R->v), cmp_rank);
	gr_report_straggler_find(R->v, R->n, &R->straggler);
	err = verdict(x);
out:
	free(busiest);
	return err;
}
