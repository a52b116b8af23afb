/* SPDX-License-Identifier: MIT */
/*
 * The iteration (training step) of the loop: the period of one thread's API calls (the main
 * thread's for the report; each launching process's busiest thread's for the ranks). Each
 * call of every kind is a token (report_calls.c: a launch is its kernel name, config and stream;
 * an allocation its kind and size class; ...). A candidate period comes from an anchor token
 * that occurs at least 3 times (the 8 rarest, one per loop: an anchor as frequent as an earlier
 * one whose span overlaps it is in the same loop): the median distance between its occurrences
 * r apart (r = 1..8, for anchors that occur r times per iteration), the smallest r under which
 * at least 90% of the calls over the anchor's span equal the call one period earlier. Its loops
 * are the stretches of that span where every call equals the one a period earlier, extended
 * backwards and forwards while they still do, each holding floor(length / period) complete
 * iterations: each one the program made. Every anchor's loops are measured; the loop holding
 * the most calls is the iteration, and the loops that do not overlap a larger one are listed
 * beside it (a warm-up, a setup, an eval loop). REPORTS.md has the details.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "report_sections.h"

#define MAX_ANCHORS 8 /* bounds the cost: MAX_ANCHORS x MAX_MULT passes over the tokens */
#define MAX_MULT    8

struct anchor {
	uint32_t tok, count;
	size_t first, last;
};

/* A loop a candidate period found: iterations of @p calls from token @lo, @cover calls in all
 * (a whole number of iterations); @order: its candidate's rank (the rarer anchor first). */
struct cand {
	size_t lo, p, cover;
	double match;
	size_t order;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

/* A period an anchor verified over the tokens [lo, hi]: a later anchor with the same period
 * and a span inside it finds the same loops. */
struct tried {
	size_t p, lo, hi;
};

static int cmp_anchor(const void *a, const void *b)
{
	const struct anchor *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Fraction of i in [lo + p, hi] with tok[i] == tok[i - p]; gives up (returns 0) once more than
 * 1 - RP_ITER_MATCH of them differ. */
static double verify(const uint32_t *tok, size_t lo, size_t hi, size_t p)
{
	size_t total, bad = 0, limit;

	if (lo + p > hi)
		return 0;
	total = hi - lo - p + 1;
	limit = (size_t)((1.0 - RP_ITER_MATCH) * (double)total);
	for (size_t i = lo + p; i <= hi; i++)
		if (tok[i] != tok[i - p] && ++bad > limit)
			return 0;
	return (double)(total - bad) / (double)total;
}

static int push(struct cands *c, const struct cand *v)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct cand *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n++] = *v;
	return 0;
}

/*
 * Every stretch of [from, to] in which every call equals the call @p before it (the first @p
 * calls of the stretch excepted: they are its first iteration), extended backwards and forwards
 * over the whole thread while that still holds, and holding two iterations or more: each one a
 * loop, pushed with @match and @order. The period was found over calls that repeat at least
 * RP_ITER_MATCH of the time; a loop is where they all do, so that a warm-up call before it, or a
 * different call inside it, is never counted as an iteration, and a warm-up loop and the
 * training loop after it are two loops. Returns how many it pushed, or -ENOMEM.
 */
static int exact_stretches(const uint32_t *tok, size_t n, size_t from, size_t to, size_t p,
			   double match, size_t order, struct cands *out)
{
	size_t s = from;
	int found = 0;

	for (size_t i = from + p; i <= to + 1; i++) {
		size_t lo = s, hi = i - 1;
		struct cand c;

		if (i <= to && tok[i] == tok[i - p])
			continue;
		/* i breaks the stretch [s, i - 1]; the next one starts at the call i repeats */
		s = i - p + 1;
		if (hi + 1 - lo < 2 * p)
			continue;
		while (lo > 0 && tok[lo - 1] == tok[lo - 1 + p])
			lo--;
		while (hi + 1 < n && tok[hi + 1] == tok[hi + 1 - p])
			hi++;
		c = (struct cand){lo, p, (hi + 1 - lo) / p * p, match, order};
		if (push(out, &c))
			return -ENOMEM;
		found++;
	}
	return found;
}

/* The most calls first; ties: the shorter period, then the rarer anchor. */
static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cover != y->cover)
		return x->cover > y->cover ? -1 : 1;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_phase(const void *a, const void *b)
{
	const struct gr_report_phase *x = a, *y = b;

	return x->start_ts < y->start_ts ? -1 : x->start_ts > y->start_ts;
}

/* Whether model thread @t belongs to model process @process (UINT32_MAX: every process). */
static int in_process(const struct rp_ctx *x, uint32_t t, uint32_t process)
{
	return process == UINT32_MAX || (t < x->nth && x->th[t].process == process);
}

/* What the loop [start_ts, end_ts] held, over the calls that start in it of every thread of
 * @process (UINT32_MAX: of every process). */
static void loop_sums(struct rp_ctx *x, struct gr_report_iteration *it, uint32_t process)
{
	struct gr_report_loop *lp = &it->loop;
	uint64_t lo = it->start_ts, hi = it->end_ts;

	for (size_t i = 0; i < x->nc; i++) {
		const struct gr_copy *c = &x->c[i];
		unsigned k = c->kind < GR_REPORT_NDIRS ? c->kind : GR_COPY_DEFAULT;

		if (c->ts < lo || c->ts > hi || !in_process(x, c->thread, process))
			continue;
		lp->copies[k]++;
		lp->bytes[k] += c->bytes;
		lp->copy_ns[k] += rp_dur(x, c->dur);
	}
	for (size_t i = 0; i < x->nsy; i++) {
		const struct gr_sync *s = &x->sy[i];

		/* event records and stream waits do not block the host */
		if (s->ts < lo || s->ts > hi || s->kind == GR_SYNC_EVENT_RECORD ||
		    s->kind == GR_SYNC_STREAM_WAIT_EVENT || !in_process(x, s->thread, process))
			continue;
		lp->syncs++;
		lp->sync_ns += rp_dur(x, s->dur);
	}
	for (size_t i = 0; i < x->nl; i++) {
		if (x->l[i].ts < lo || x->l[i].ts > hi ||
		    !in_process(x, rp_lkey(x, i)->thread, process))
			continue;
		lp->launches++;
		lp->launch_ns += rp_launch_dur(x, i);
		lp->launches_untimed += !rp_launch_raw(x, i);
	}
}

/* The loop of @K iterations, iteration j the tokens [@at[j], @at[j + 1]): its span, the calls of
 * the first iteration, the median period; for the report's own iteration (@main), a fusion run
 * break at the first launch of each iteration, and the loop's sums over every process (else over
 * the thread's own). */
int rp_iteration_loop(struct rp_ctx *x, struct gr_report_iteration *it, const size_t *at,
		      uint64_t K, uint64_t ref_iter, double match, int main, const uint64_t *bounds)
{
	struct gr_dist dist;
	uint64_t prev_start = 0, probe = 0; /* probe: the probes' cost of the previous iteration */
	uint32_t ref = 0, *d = malloc((K - 1) * sizeof(*d));

	it->starts = rp_alloc(x, K, sizeof(*it->starts));
	it->durs = rp_alloc(x, K, sizeof(*it->durs));
	if (!d || !it->starts || !it->durs) {
		free(d);
		return -ENOMEM;
	}
	it->found = 1;
	it->calls = (uint32_t)(at[ref_iter + 1] - at[ref_iter]);
	it->count = K;
	it->match = match;
	for (uint64_t j = 0; j < K; j++) {
		int launch_seen = 0;

		/* a step of an NVTX range may hold no call: it starts where the range does */
		if (bounds) {
			if (j) {
				it->durs[j - 1] =
				    gr_probe_cost_sub(x->pc, bounds[j] - prev_start, probe);
				d[j - 1] = rp_sat32(it->durs[j - 1]);
			} else
				it->start_ts = bounds[0];
			it->starts[j] = prev_start = bounds[j];
			probe = 0;
		}
		for (size_t i = at[j]; i < at[j + 1]; i++) {
			unsigned kind;
			uint32_t idx;

			ref = rp_tok_ref(x, i);
			kind = rp_ref_kind(ref);
			idx = rp_ref_idx(ref);
			if (i == at[j] && !bounds) {
				uint64_t ts = rp_call_ts(x, kind, idx);

				/* start to start holds the whole probe cost of every call of
				 * the iteration (probe_cost.h) */
				if (j) {
					it->durs[j - 1] =
					    gr_probe_cost_sub(x->pc, ts - prev_start, probe);
					d[j - 1] = rp_sat32(it->durs[j - 1]);
				} else
					it->start_ts = ts;
				it->starts[j] = ts;
				prev_start = ts;
				probe = 0;
			}
			probe += gr_probe_cost_call(x->pc, rp_call_raw(x, kind, idx));
			/* the first launch of each iteration starts a new fusion run */
			if (main && kind == RP_LAUNCH && !launch_seen) {
				rp_set_run_break(x, idx);
				launch_seen = 1;
			}
			if (j != ref_iter)
				continue;
			if (kind == RP_LAUNCH) {
				it->launches++;
				it->kernels++;
			} else if (kind == RP_GRAPH) {
				struct gr_graph_work w;

				/* one launch call; it executes its graph's kernels */
				it->launches++;
				it->graph_launches++;
				if (gr_graphs_launch_work(x->ls.graphs, idx, &w))
					it->kernels += w.nkernels;
			} else if (kind == RP_COPY || kind == RP_MEMSET)
				it->copies++;
			else if (kind == RP_ALLOC || kind == RP_FREE)
				it->allocs++;
			else if (kind == RP_SYNC && x->sy[idx].kind <= GR_SYNC_EVENT)
				it->syncs++;
			else
				it->other++;
		}
	}
	it->end_ts = bounds ? bounds[K] : rp_call_end(x, rp_ref_kind(ref), rp_ref_idx(ref));
	it->last_start_ts = prev_start;
	/* not gr_probe_cost_sub(): its clamp count is the report's, over the periods alone */
	it->durs[K - 1] = it->end_ts > prev_start + probe ? it->end_ts - prev_start - probe : 0;
	gr_dist_u32(&dist, d, K - 1);
	it->period_ns = dist.median;
	free(d);
	loop_sums(x, it, main ? UINT32_MAX : x->th[it->thread].process);
	return 0;
}

/* The anchors: the tokens that occur at least 3 times, rarest first (ties: first seen first),
 * one per loop (an anchor as frequent as an earlier one and overlapping its span is in the
 * same loop, and would find it again), at most MAX_ANCHORS. Returns how many, or -ENOMEM. */
static int anchors(const uint32_t *tok, size_t n, uint32_t ntokids, struct anchor *out)
{
	uint32_t *count = calloc(ntokids, sizeof(*count));
	size_t *first = malloc(ntokids * sizeof(*first)), *last = malloc(ntokids * sizeof(*last));
	struct anchor *all = NULL;
	size_t nall = 0, nout = 0;
	int ret = -ENOMEM;

	if (!count || !first || !last)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!count[tok[i]]++)
			first[tok[i]] = i;
		last[tok[i]] = i;
	}
	for (uint32_t t = 0; t < ntokids; t++)
		nall += count[t] >= 3;
	all = malloc((nall + 1) * sizeof(*all));
	if (!all)
		goto out;
	nall = 0;
	for (uint32_t t = 0; t < ntokids; t++)
		if (count[t] >= 3)
			all[nall++] = (struct anchor){t, count[t], first[t], last[t]};
	gr_qsort(all, nall, sizeof(*all), cmp_anchor);
	for (size_t a = 0; a < nall && nout < MAX_ANCHORS; a++) {
		int same = 0;

		for (size_t b = 0; b < nout && !same; b++)
			same = out[b].count == all[a].count && out[b].first <= all[a].last &&
			       all[a].first <= out[b].last;
		if (!same)
			out[nout++] = all[a];
	}
	ret = (int)nout;
out:
	free(count);
	free(first);
	free(last);
	free(all);
	return ret;
}

/*
 * The loops anchor @a proposes: for the smallest r whose period repeats over its span, every
 * exact stretch of it (exact_stretches()). @q and @d: room for a->count positions. Returns 0
 * or -ENOMEM.
 */
static int anchor_loops(const uint32_t *tok, size_t n, const struct anchor *a, size_t order,
			uint32_t *q, uint32_t *d, struct tried *tried, size_t *ntried,
			struct cands *out)
{
	size_t nq = 0;

	for (size_t i = a->first; i <= a->last; i++)
		if (tok[i] == a->tok)
			q[nq++] = (uint32_t)i;
	for (uint32_t r = 1; r <= MAX_MULT && r < nq; r++) {
		struct gr_dist dist;
		size_t nd = nq - r, cp, seen = 0;
		double mt;
		int found;

		for (size_t j = 0; j < nd; j++)
			d[j] = q[j + r] - q[j];
		gr_dist_u32(&dist, d, nd);
		cp = dist.median;
		if (!cp || q[nq - 1] - q[0] < cp)
			continue;
		/* the same period over a span holding this one found these loops already; a
		 * period over another span (an earlier, rarer anchor's loop elsewhere) did not */
		for (size_t t = 0; t < *ntried && !seen; t++)
			seen = tried[t].p == cp && tried[t].lo <= q[0] && q[nq - 1] <= tried[t].hi;
		if (seen)
			break;
		mt = verify(tok, q[0], q[nq - 1], cp);
		if (mt < RP_ITER_MATCH)
			continue;
		if (*ntried < MAX_ANCHORS * MAX_MULT)
			tried[(*ntried)++] = (struct tried){cp, q[0], q[nq - 1]};
		found = exact_stretches(tok, n, q[0], q[nq - 1], cp, mt, order, out);
		if (found < 0)
			return found;
		break; /* the smallest multiple that repeats */
	}
	return 0;
}

/* Whether an iteration of loop @v launches. */
static int launches(const struct rp_ctx *x, const struct cand *v)
{
	for (size_t i = v->lo; i < v->lo + v->p; i++) {
		unsigned kind = rp_ref_kind(rp_tok_ref(x, i));

		if (kind == RP_LAUNCH || kind == RP_GRAPH)
			return 1;
	}
	return 0;
}

/* The loops that do not overlap a larger one (@c sorted by cmp_cand) and launch, or hold
 * RP_PHASE_MIN_ITERS iterations, the largest GR_REPORT_MAX_PHASES of them in time order, and
 * why the first, the iteration, won. */
static int phases(struct rp_ctx *x, struct gr_report_iteration *it, struct cands *c)
{
	struct cand keep[GR_REPORT_MAX_PHASES];
	size_t nkeep = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct cand *v = &c->v[i];
		int over = 0;

		if (v->cover / v->p < 2)
			continue;
		/* overlap is over the whole iterations: a partial last one belongs to no loop */
		for (size_t k = 0; k < nkeep && !over; k++)
			over = v->lo < keep[k].lo + keep[k].cover && keep[k].lo < v->lo + v->cover;
		/* a few buffers allocated one after another are a loop too, not a phase */
		if (over || (nkeep && v->cover / v->p < RP_PHASE_MIN_ITERS && !launches(x, v)))
			continue;
		it->nphases_found++;
		if (nkeep < GR_REPORT_MAX_PHASES)
			keep[nkeep++] = *v;
	}
	if (nkeep > 1)
		it->why = keep[0].cover > keep[1].cover ? GR_PHASE_MOST_CALLS
			  : keep[0].p < keep[1].p	? GR_PHASE_SHORTER_PERIOD
							: GR_PHASE_RARER_ANCHOR;
	it->phases = rp_alloc(x, nkeep, sizeof(*it->phases));
	if (!it->phases)
		return -ENOMEM;
	for (size_t k = 0; k < nkeep; k++) {
		struct gr_report_phase *ph = &it->phases[k];
		size_t last = keep[k].lo + keep[k].cover - 1;
		uint32_t first_ref = rp_tok_ref(x, keep[k].lo), last_ref = rp_tok_ref(x, last);

		ph->start_ts = rp_call_ts(x, rp_ref_kind(first_ref), rp_ref_idx(first_ref));
		ph->end_ts = rp_call_end(x, rp_ref_kind(last_ref), rp_ref_idx(last_ref));
		ph->count = keep[k].cover / keep[k].p;
		ph->calls = (uint32_t)keep[k].p;
		ph->chosen = !k;
		for (size_t i = keep[k].lo; i < keep[k].lo + keep[k].p; i++) {
			unsigned kind = rp_ref_kind(rp_tok_ref(x, i));

			ph->launches += kind == RP_LAUNCH || kind == RP_GRAPH;
		}
	}
	it->nphases = nkeep;
	gr_qsort(it->phases, nkeep, sizeof(*it->phases), cmp_phase);
	return 0;
}

int rp_iteration_find(struct rp_ctx *x, struct gr_report_iteration *it, int main)
{
	const uint32_t *tok = x->tok;
	size_t n = x->ntok, ntried = 0;
	struct anchor anch[MAX_ANCHORS];
	struct tried tried[MAX_ANCHORS * MAX_MULT];
	struct cands c = {0};
	uint32_t *q = NULL, *d = NULL;
	int nanch, err = -ENOMEM;

	memset(it, 0, sizeof(*it));
	if (x->tok_thread >= x->nth || n < 6)
		return 0;
	it->thread = x->tok_thread;
	nanch = anchors(tok, n, x->ntokids, anch);
	if (nanch < 0)
		goto out;
	/* every anchor proposes its period and its loops, even one an earlier anchor proposed too
	 * (a setup loop and the training loop may share a period); the loop holding the most calls
	 * wins (ties: the shorter period, then the rarer anchor) */
	for (int a = 0; a < nanch; a++) {
		free(q);
		free(d);
		q = malloc(anch[a].count * sizeof(*q));
		d = malloc(anch[a].count * sizeof(*d));
		if (!q || !d)
			goto out;
		err = anchor_loops(tok, n, &anch[a], (size_t)a, q, d, tried, &ntried, &c);
		if (err)
			goto out;
		err = -ENOMEM;
	}
	gr_qsort(c.v, c.n, sizeof(*c.v), cmp_cand);
	if (c.n && c.v[0].cover / c.v[0].p >= 2) {
		uint64_t K = c.v[0].cover / c.v[0].p;
		size_t *at = malloc((K + 1) * sizeof(*at));

		if (!at)
			goto out;
		for (uint64_t j = 0; j <= K; j++)
			at[j] = c.v[0].lo + j * c.v[0].p;
		err = rp_iteration_loop(x, it, at, K, 0, c.v[0].match, main, NULL);
		free(at);
		if (!err)
			err = phases(x, it, &c);
		if (err)
			goto out;
	}
	err = 0;
out:
	free(c.v);
	free(q);
	free(d);
	return err;
}

int rp_iteration(struct rp_ctx *x)
{
	return rp_iteration_find(x, &x->r->launches.iter, 1);
}
