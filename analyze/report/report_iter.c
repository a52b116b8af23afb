/* SPDX-License-Identifier: MIT */
/*
 * The iteration (training step) of the loop: the period of one thread's API calls (the main
 * thread's for the report; each launching process's busiest thread's for the ranks). Each
 * call is a token (a launch: its kernel name, config and stream; a copy: direction, sync/async,
 * size class and stream; a memset: size class and stream; a sync: its kind and the stream it
 * names). A candidate period comes from an anchor token that occurs at least 3 times (the 8
 * rarest): the median distance between its occurrences r apart (r = 1..8, for anchors that occur
 * r times per iteration), the smallest r under which at least 90% of the calls over the anchor's
 * span equal the call one period earlier. Its loop is the longest stretch of that span where
 * every call equals the one a period earlier, extended backwards and forwards while they still
 * do, and holds floor(length / period) complete iterations: each one the program made. The
 * candidate whose loop holds the most calls wins. REPORTS.md has the details.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "report_sections.h"

#define MAX_ANCHORS 8
#define MAX_MULT    8

struct anchor {
	uint32_t tok, count;
	size_t first;
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

/*
 * The longest stretch [*lo, *hi] of [from, to] in which every call equals the call @p before it
 * (the first @p calls of the stretch excepted: they are its first iteration). The period was
 * found over calls that repeat at least RP_ITER_MATCH of the time; the loop is where they all
 * do, so that a warm-up call before it, or a different call inside it, is never counted as an
 * iteration. Returns 0 when no stretch holds two iterations.
 */
static int exact_stretch(const uint32_t *tok, size_t from, size_t to, size_t p, size_t *lo,
			 size_t *hi)
{
	size_t s = from, best = 0;

	for (size_t i = from + p; i <= to + 1; i++) {
		if (i <= to && tok[i] == tok[i - p])
			continue;
		/* i breaks the stretch [s, i - 1]; the next one starts at the call i repeats */
		if (i - s > best) {
			best = i - s;
			*lo = s;
			*hi = i - 1;
		}
		s = i - p + 1;
	}
	return best >= 2 * p;
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
	}
}

/* The loop of @K iterations of @p calls from token @i0: its span, the calls of one iteration, the
 * median period; for the report's own iteration (@main), a fusion run break at the first launch
 * of each iteration, and the loop's sums over every process (else over the thread's own). */
static int loop_calls(struct rp_ctx *x, struct gr_report_iteration *it, size_t i0, size_t p,
		      uint64_t K, double match, int main)
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
	it->calls = (uint32_t)p;
	it->count = K;
	it->match = match;
	for (uint64_t j = 0; j < K; j++) {
		int launch_seen = 0;

		for (size_t i = 0; i < p; i++) {
			unsigned kind;
			uint32_t idx;

			ref = x->tok_ref[i0 + j * p + i];
			kind = rp_ref_kind(ref);
			idx = rp_ref_idx(ref);
			if (!i) {
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
			if (j)
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
			else if (kind == RP_SYNC && x->sy[idx].kind <= GR_SYNC_EVENT)
				it->syncs++;
			else
				it->other++;
		}
	}
	it->end_ts = rp_call_end(x, rp_ref_kind(ref), rp_ref_idx(ref));
	it->last_start_ts = prev_start;
	/* not gr_probe_cost_sub(): its clamp count is the report's, over the periods alone */
	it->durs[K - 1] = it->end_ts > prev_start + probe ? it->end_ts - prev_start - probe : 0;
	gr_dist_u32(&dist, d, K - 1);
	it->period_ns = dist.median;
	free(d);
	loop_sums(x, it, main ? UINT32_MAX : x->th[it->thread].process);
	return 0;
}

int rp_iteration_find(struct rp_ctx *x, struct gr_report_iteration *it, int main)
{
	const uint32_t *tok = x->tok;
	size_t n = x->ntok, nanch = 0, p = 0, nq = 0, best_cover = 0, best_i0 = 0, ntried = 0;
	size_t tried[MAX_ANCHORS * MAX_MULT];
	uint32_t *count = NULL, *q = NULL, *d = NULL;
	size_t *first = NULL;
	struct anchor *anch = NULL;
	double match = 0;
	int err = -ENOMEM;

	memset(it, 0, sizeof(*it));
	if (x->tok_thread >= x->nth || n < 6)
		return 0;
	it->thread = x->tok_thread;
	count = calloc(x->ntokids, sizeof(*count));
	first = malloc(x->ntokids * sizeof(*first));
	if (!count || !first)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!count[tok[i]]++)
			first[tok[i]] = i;
	for (uint32_t t = 0; t < x->ntokids; t++)
		if (count[t] >= 3)
			nanch++;
	anch = malloc((nanch + 1) * sizeof(*anch));
	if (!anch)
		goto out;
	nanch = 0;
	for (uint32_t t = 0; t < x->ntokids; t++)
		if (count[t] >= 3)
			anch[nanch++] = (struct anchor){t, count[t], first[t]};
	gr_qsort(anch, nanch, sizeof(*anch), cmp_anchor);

	/* every anchor proposes its period; the one whose loop holds the most calls wins (ties: the
	 * shorter period, then the rarer anchor) */
	for (size_t a = 0; a < nanch && a < MAX_ANCHORS; a++) {
		uint32_t c = anch[a].count;

		free(q);
		free(d);
		q = malloc(c * sizeof(*q));
		d = malloc(c * sizeof(*d));
		if (!q || !d)
			goto out;
		nq = 0;
		for (size_t i = anch[a].first; i < n && nq < c; i++)
			if (tok[i] == anch[a].tok)
				q[nq++] = (uint32_t)i;
		for (uint32_t r = 1; r <= MAX_MULT && r < nq; r++) {
			struct gr_dist dist;
			size_t nd = nq - r, cp, i0 = 0, iend = 0, seen = 0;
			double mt;

			for (size_t j = 0; j < nd; j++)
				d[j] = q[j + r] - q[j];
			gr_dist_u32(&dist, d, nd);
			cp = dist.median;
			if (!cp || q[nq - 1] - q[0] < cp)
				continue;
			/* a period another anchor found repeating already gives the same loop;
			 * one that did not repeat may still repeat over this anchor's span */
			for (size_t t = 0; t < ntried && !seen; t++)
				seen = tried[t] == cp;
			if (seen)
				break;
			mt = verify(tok, q[0], q[nq - 1], cp);
			if (mt < RP_ITER_MATCH)
				continue;
			if (ntried < MAX_ANCHORS * MAX_MULT)
				tried[ntried++] = cp;
			if (!exact_stretch(tok, q[0], q[nq - 1], cp, &i0, &iend))
				break;
			while (i0 > 0 && tok[i0 - 1] == tok[i0 - 1 + cp])
				i0--;
			while (iend + 1 < n && tok[iend + 1] == tok[iend + 1 - cp])
				iend++;
			if ((iend + 1 - i0) / cp * cp > best_cover ||
			    ((iend + 1 - i0) / cp * cp == best_cover && cp < p)) {
				best_cover = (iend + 1 - i0) / cp * cp;
				p = cp;
				best_i0 = i0;
				match = mt;
			}
			break; /* the smallest multiple that repeats */
		}
	}
	if (p) {
		uint64_t K = best_cover / p;

		if (K >= 2) {
			err = loop_calls(x, it, best_i0, p, K, match, main);
			if (err)
				goto out;
		}
	}
	err = 0;
out:
	free(count);
	free(first);
	free(anch);
	free(q);
	free(d);
	return err;
}

int rp_iteration(struct rp_ctx *x)
{
	return rp_iteration_find(x, &x->r->launches.iter, 1);
}
