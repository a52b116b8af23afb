/* SPDX-License-Identifier: MIT */
/*
 * What every section reads about the API calls, from two walks over them. The per-thread pass:
 * launches per thread and stream with the first and last, each thread's first call and last
 * return, the thread that launches most, and a dense id per (kernel name, launch config) pair.
 * The call-sequence pass walks every call of every thread in time order once: inter-launch gaps
 * (and, given the threads' runnable waits, the waiting inside them), launch entry to the thread's
 * next call (the launch cost estimate), what followed each copy, and whether anything but a launch
 * came between two launches (fusion runs). The gaps and costs it stores are reduced to their
 * distributions before it returns, so that the token pass, which turns one thread's calls
 * (every kind) into tokens (iteration detection), never has them alive beside its own array.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_sections.h"

const uint64_t gr_report_gap_edges[GR_REPORT_GAP_BUCKETS - 1] = {
    1000, 2000, 5000, 10000, 20000, 50000, 100000, 500000, 1000000, 10000000,
};

/* ---- per-thread pass ---- */

int rp_calls_per_thread(struct rp_ctx *x)
{
	uint64_t best = 0;
	size_t n[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr};
	int err;

	/* launch aggregation by (kernel name, config): the shared one (launch_stats.c) */
	err = gr_launch_stats_compute(x->m, &x->ls);
	if (err)
		return err;
	x->kc_of = x->ls.pair_of_key;
	x->nkc = (uint32_t)x->ls.npairs;
	x->nmeasured = x->ls.measured;
	x->thr = calloc(x->nth + 1, sizeof(*x->thr));
	x->strm = calloc(x->nstreams + 1, sizeof(*x->strm));
	x->kc_key = malloc((x->nkc + 1) * sizeof(*x->kc_key));
	x->kc_count = malloc((x->nkc + 1) * sizeof(*x->kc_count));
	if (!x->thr || !x->strm || !x->kc_key || !x->kc_count)
		return -ENOMEM;
	for (uint32_t p = 0; p < x->nkc; p++) {
		x->kc_key[p] = (uint64_t)x->ls.pairs[p].name_id << 32 | x->ls.pairs[p].config;
		x->kc_count[p] = x->ls.pairs[p].count;
	}
	for (size_t t = 0; t <= x->nth; t++)
		x->thr[t].first = UINT64_MAX;
	for (size_t i = 0; i < x->nl; i++) {
		const struct gr_launch *l = &x->l[i];
		const struct gr_launch_key *k = rp_lkey(x, i);
		struct rp_thread *t = &x->thr[k->thread];
		struct rp_stream *s = &x->strm[k->stream];
		uint64_t end = l->ts + gr_launch_dur(k, l);

		if (!t->launches++)
			t->first_launch = l->ts;
		t->last_launch = l->ts;
		if (end > t->last)
			t->last = end;
		if (!s->launches++)
			s->first_launch = l->ts;
		s->last_launch = l->ts;
	}
	for (size_t t = 0; t < x->nth; t++)
		if (x->thr[t].launches) {
			x->thr[t].first = x->thr[t].first_launch;
			x->thr[t].cuda = 1;
		}
	for (unsigned k = RP_COPY; k < RP_NCALLS; k++)
		for (size_t i = 0; i < n[k]; i++) {
			struct rp_thread *t = &x->thr[rp_call_thread(x, k, i)];
			uint64_t ts = rp_call_ts(x, k, (uint32_t)i),
				 end = rp_call_end(x, k, (uint32_t)i);

			t->cuda = 1;
			if (ts < t->first)
				t->first = ts;
			if (end > t->last)
				t->last = end;
		}
	x->main_thread = UINT32_MAX;
	for (size_t t = 0; t < x->nth; t++)
		if (x->thr[t].launches > best) {
			best = x->thr[t].launches;
			x->main_thread = (uint32_t)t;
		}
	return 0;
}

/* ---- call-sequence pass ---- */

static unsigned log2_bucket(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0; /* 0..64 */
}

/*
 * What makes two calls the same call for the iteration finder: the kind, what was called (a
 * launch's kernel and config; a copy's direction, sync or async and size class; a memset's size
 * class; a sync's kind; an allocation's kind and size class; a free's kind) and where it went:
 * the stream of a launch, copy, memset or stream-ordered allocation, the stream a stream sync,
 * stream wait or event record names. A call on another stream is another call, so that a loop
 * over streams is one iteration of all of them, and one stream's loop after another's are two
 * loops. An event sync's event and a free's address are left out: programs often create an
 * event per step, and a step's temporary gets a new address each time.
 */
static void token_key(const struct rp_ctx *x, unsigned kind, uint32_t idx, uint64_t key[3])
{
	switch (kind) {
	case RP_LAUNCH:
		key[0] = RP_LAUNCH;
		key[1] = rp_pair(x, idx);
		key[2] = rp_lkey(x, idx)->stream;
		break;
	case RP_COPY: {
		const struct gr_copy *c = &x->c[idx];

		key[0] = (uint64_t)RP_COPY << 32 | (c->kind * 2u + !!(c->flags & GR_COPY_F_ASYNC));
		key[1] = log2_bucket(c->bytes);
		key[2] = c->stream;
		break;
	}
	case RP_MEMSET:
		key[0] = RP_MEMSET;
		key[1] = log2_bucket(x->ms[idx].bytes);
		key[2] = x->ms[idx].stream;
		break;
	case RP_SYNC: {
		const struct gr_sync *s = &x->sy[idx];

		key[0] = (uint64_t)RP_SYNC << 32 | s->kind;
		key[1] = 0;
		key[2] = s->kind == GR_SYNC_EVENT || s->kind == GR_SYNC_DEVICE ? 0 : s->handle;
		break;
	}
	case RP_ALLOC:
		key[0] = (uint64_t)RP_ALLOC << 32 | x->al[idx].kind;
		key[1] = log2_bucket(x->al[idx].bytes);
		key[2] = x->al[idx].stream;
		break;
	case RP_FREE:
		key[0] = (uint64_t)RP_FREE << 32 | x->fr[idx].kind;
		key[1] = 0;
		key[2] = 0;
		break;
	default: /* a graph launch: one call, whatever it executes; another graph is another call */
		key[0] = (uint64_t)RP_GRAPH << 32;
		key[1] = x->g[idx].exec;
		key[2] = x->g[idx].stream;
	}
}

static unsigned gap_bucket(uint64_t gap)
{
	unsigned b = 0;

	while (b < GR_REPORT_GAP_BUCKETS - 1 && gap >= gr_report_gap_edges[b])
		b++;
	return b;
}

/* The runnable wait inside the launch gap [from, to) of a thread: waits and gaps both come in
 * time order, so the thread's cursor @at only moves forward. */
static void gap_wait(struct rp_gap_wait *g, const struct rp_waits *w, size_t *at, uint64_t from,
		     uint64_t to)
{
	uint64_t over = 0;

	g->gaps++;
	while (*at < w->n && w->v[*at].end <= from)
		(*at)++;
	for (size_t j = *at; j < w->n && w->v[j].start < to; j++) {
		uint64_t lo = w->v[j].start > from ? w->v[j].start : from;
		uint64_t hi = w->v[j].end < to ? w->v[j].end : to;

		if (hi > lo)
			over += hi - lo;
	}
	if (over) {
		g->starved_gaps++;
		g->starved_gap_ns += over;
	}
}

/*
 * Value @v of a split distribution: below GR_DIST_SPLIT into @lo at *@nlo, 2 bytes where most
 * gaps (a few us) took 4, else onto @hi. Returns 0 or -ENOMEM.
 */
static inline int split_put(uint16_t *lo, size_t *nlo, struct gr_dist_hi *hi, uint32_t v)
{
	if (v < GR_DIST_SPLIT) {
		lo[(*nlo)++] = (uint16_t)v;
		return 0;
	}
	return gr_dist_hi_put(hi, v);
}

/*
 * From this many launches on, a thread's gaps are counted per value (dist.h: struct
 * gr_dist_counts, 512 KiB) rather than kept (2 bytes each): the main thread of a long run,
 * whose kept gaps took 17 MB at 8.5M launches, more than the token pass's peak beside them.
 */
#define GAPS_COUNTED_FROM (1u << 18)

int rp_calls_sequence(struct rp_ctx *x, const struct rp_waits *waits)
{
	size_t n[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr};
	size_t pos[RP_NCALLS] = {0}, *cursor = NULL, *wait_at = NULL, *gap_off = NULL, ngaps = 0;
	uint64_t *last_launch = NULL, *pending = NULL;
	/* per thread, for the probe cost (probe_cost.h): the recorded duration of the pending and
	 * of the last launch, and the probe cost of the calls since the last launch */
	uint64_t *pending_dur = NULL, *last_dur = NULL, *between = NULL;
	uint32_t *pending_copy = NULL;
	uint16_t *gaps = NULL;
	/* per thread with fewer than GAPS_COUNTED_FROM launches, its gaps from GR_DIST_SPLIT up;
	 * per thread with more, all its gaps counted */
	struct gr_dist_hi *gaps_big = NULL;
	struct gr_dist_counts *gaps_counted = NULL, cost = {0};
	/* the cost estimate stands in for the launch call time only when that was not measured */
	int want_cost = !x->nmeasured;
	uint8_t *broke = NULL;
	int err = -ENOMEM, put = 0;

	for (size_t t = 0; t < x->nth; t++)
		if (x->thr[t].launches < GAPS_COUNTED_FROM)
			ngaps += x->thr[t].launches;
	x->run_break = calloc(rp_run_break_words(x), sizeof(*x->run_break));
	gap_off = calloc(x->nth + 1, sizeof(*gap_off));
	gaps = malloc((ngaps + 1) * sizeof(*gaps));
	gaps_big = calloc(x->nth + 1, sizeof(*gaps_big));
	gaps_counted = calloc(x->nth + 1, sizeof(*gaps_counted));
	x->copy_next = malloc((x->nc + 1) * sizeof(*x->copy_next));
	cursor = calloc(x->nth + 1, sizeof(*cursor));
	last_launch = malloc((x->nth + 1) * sizeof(*last_launch));
	pending = malloc((x->nth + 1) * sizeof(*pending));
	pending_dur = calloc(x->nth + 1, sizeof(*pending_dur));
	last_dur = calloc(x->nth + 1, sizeof(*last_dur));
	between = calloc(x->nth + 1, sizeof(*between));
	pending_copy = calloc(x->nth + 1, sizeof(*pending_copy));
	broke = calloc(x->nth + 1, 1);
	if (!x->run_break || !gap_off || !gaps || !gaps_big || !gaps_counted || !x->copy_next ||
	    !cursor || !last_launch || !pending || !pending_copy || !broke || !pending_dur ||
	    !last_dur || !between)
		goto out;
	if (waits) {
		x->gap_wait = calloc(x->nth + 1, sizeof(*x->gap_wait));
		wait_at = calloc(x->nth + 1, sizeof(*wait_at));
		if (!x->gap_wait || !wait_at)
			goto out;
	}

	/* kept gaps grouped by thread: a thread with c launches has c - 1 gaps */
	for (size_t t = 0, at = 0; t <= x->nth; t++) {
		gap_off[t] = at;
		cursor[t] = at;
		if (t < x->nth && x->thr[t].launches && x->thr[t].launches < GAPS_COUNTED_FROM)
			at += x->thr[t].launches - 1;
	}
	for (size_t t = 0; t <= x->nth; t++) {
		last_launch[t] = UINT64_MAX;
		pending[t] = UINT64_MAX;
	}
	for (size_t i = 0; i < x->nc; i++)
		x->copy_next[i].kind = RP_NCALLS;

	for (;;) {
		/* the earliest head of the non-launch kinds, then launches up to it */
		uint64_t other = UINT64_MAX;
		unsigned okind = RP_NCALLS;

		for (unsigned k = 1; k < RP_NCALLS; k++) {
			uint64_t ts;

			if (pos[k] >= n[k])
				continue;
			ts = rp_call_ts(x, k, (uint32_t)pos[k]);
			if (ts < other) {
				other = ts;
				okind = k;
			}
		}
		while (pos[0] < x->nl && x->l[pos[0]].ts <= other) {
			size_t i = pos[0]++;
			const struct gr_launch *l = &x->l[i];
			uint32_t t = rp_lkey(x, i)->thread;
			uint64_t dur = rp_launch_raw(x, i);
			/* a graph node (captured, or a node-building call) launched nothing: a
			 * call between launches, never a gap's end nor a launch cost sample */
			int node = gr_graphs_launch_is_node(x->ls.graphs, i);

			if (pending[t] != UINT64_MAX && want_cost)
				put |= gr_dist_counts_put(
				    &cost, rp_sat32(gr_probe_cost_gap(x->pc, l->ts - pending[t],
								      pending_dur[t], dur, 0)));
			pending[t] = node ? UINT64_MAX : l->ts;
			pending_dur[t] = dur;
			if (pending_copy[t]) {
				x->copy_next[pending_copy[t] - 1] =
				    (struct rp_next){RP_LAUNCH, (uint32_t)i};
				pending_copy[t] = 0;
			}
			if (broke[t])
				rp_set_run_break(x, i);
			broke[t] = 0;
			if (node) {
				between[t] += gr_probe_cost_call(x->pc, dur);
				continue;
			}
			if (last_launch[t] != UINT64_MAX) {
				uint64_t gap = gr_probe_cost_gap(x->pc, l->ts - last_launch[t],
								 last_dur[t], dur, between[t]);

				if (x->thr[t].launches < GAPS_COUNTED_FROM)
					put |= split_put(gaps, &cursor[t], &gaps_big[t],
							 rp_sat32(gap));
				else
					put |= gr_dist_counts_put(&gaps_counted[t], rp_sat32(gap));
				x->thr[t].gap_hist[gap_bucket(gap)]++;
				if (waits && waits[t].n)
					gap_wait(&x->gap_wait[t], &waits[t], &wait_at[t],
						 last_launch[t], l->ts);
			}
			last_launch[t] = l->ts;
			last_dur[t] = dur;
			between[t] = 0;
		}
		if (okind == RP_NCALLS)
			break;
		{
			uint32_t i = (uint32_t)pos[okind]++;
			uint32_t t = rp_call_thread(x, okind, i);
			uint64_t dur;

			if (t >= x->nth)
				continue;
			dur = rp_call_raw(x, okind, i);
			between[t] += gr_probe_cost_call(x->pc, dur);
			if (pending[t] != UINT64_MAX) {
				if (want_cost)
					put |= gr_dist_counts_put(
					    &cost,
					    rp_sat32(gr_probe_cost_gap(x->pc, other - pending[t],
								       pending_dur[t], dur, 0)));
				pending[t] = UINT64_MAX;
			}
			if (pending_copy[t]) {
				x->copy_next[pending_copy[t] - 1] =
				    (struct rp_next){(uint8_t)okind, i};
				pending_copy[t] = 0;
			}
			if (okind == RP_COPY)
				pending_copy[t] = i + 1;
			if (okind != RP_ALLOC)
				broke[t] = 1;
		}
	}
	if (put)
		goto out;
	err = 0;
	for (size_t t = 0; t < x->nth && !err; t++) {
		if (x->thr[t].launches >= GAPS_COUNTED_FROM) {
			gr_dist_counts_get(&x->thr[t].gap, &gaps_counted[t]);
			continue;
		}
		/* cursor: graph nodes end no gap, so a thread may have fewer than its room */
		err = gr_dist_split(&x->thr[t].gap, gaps + gap_off[t], cursor[t] - gap_off[t],
				    gaps_big[t].v, gaps_big[t].n);
	}
	if (!err)
		gr_dist_counts_get(&x->cost, &cost);
out:
	for (size_t t = 0; gaps_big && t < x->nth; t++)
		free(gaps_big[t].v);
	for (size_t t = 0; gaps_counted && t < x->nth; t++)
		gr_dist_counts_free(&gaps_counted[t]);
	free(gaps_big);
	free(gaps_counted);
	gr_dist_counts_free(&cost);
	free(gaps);
	free(gap_off);
	free(cursor);
	free(wait_at);
	free(last_launch);
	free(pending);
	free(pending_dur);
	free(last_dur);
	free(between);
	free(pending_copy);
	free(broke);
	return err;
}

/* ---- token pass ---- */

/*
 * A walk over one thread's (tok_thread's) calls of every kind (launches, copies, memsets, syncs,
 * graph launches, allocations and frees) in call order. Launches that were graph nodes
 * (captured) executed nothing and are left out; a graph launch is one call (graphs.h).
 */
struct walk {
	size_t pos[RP_NCALLS]; /* per kind: the next main-thread call */
	uint64_t other;	       /* the earliest next call of the other kinds: ts and kind */
	unsigned okind;	       /* (RP_NCALLS: none left) */
};

/*
 * The call-sequence pass sees calls in the order of the model's ts-sorted arrays merged so that a
 * launch goes before any other call with the same or a later ts, and the other kinds go by ts,
 * then by kind. That order of any two calls depends on those two alone, so the thread's
 * calls, taken by themselves, come in it here too: the tokens are in the order the sequence pass
 * made them in when it made them too.
 */
static int walk_skips(const struct rp_ctx *x, unsigned k, size_t i)
{
	if (rp_call_thread(x, k, i) != x->tok_thread)
		return 1;
	if (k == RP_COPY)
		return gr_graphs_copy_is_node(x->ls.graphs, i);
	if (k == RP_MEMSET)
		return gr_graphs_memset_is_node(x->ls.graphs, i);
	return k == RP_GRAPH && x->g[i].kind != GR_GRAPH_LAUNCH;
}

static void walk_other(const struct rp_ctx *x, struct walk *w)
{
	size_t n[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr};

	w->other = UINT64_MAX;
	w->okind = RP_NCALLS;
	for (unsigned k = RP_COPY; k < RP_NCALLS; k++) {
		uint64_t ts;

		while (w->pos[k] < n[k] && walk_skips(x, k, w->pos[k]))
			w->pos[k]++;
		if (w->pos[k] >= n[k])
			continue;
		ts = rp_call_ts(x, k, (uint32_t)w->pos[k]);
		if (ts < w->other) {
			w->other = ts;
			w->okind = k;
		}
	}
}

/* The thread's next call as a reference (kind and index); returns 1, or 0 after the last. */
static inline int walk_next(const struct rp_ctx *x, struct walk *w, uint32_t *ref)
{
	const uint64_t *nodes = gr_graphs_launch_bits(x->ls.graphs);
	size_t i = w->pos[RP_LAUNCH];

	while (i < x->nl && (rp_lkey(x, i)->thread != x->tok_thread || gr_graphs_bit(nodes, i)))
		i++;
	w->pos[RP_LAUNCH] = i;
	if (i < x->nl && x->l[i].ts <= w->other) {
		*ref = (uint32_t)i; /* RP_LAUNCH is 0 */
		w->pos[RP_LAUNCH]++;
		return 1;
	}
	if (w->okind == RP_NCALLS)
		return 0;
	*ref = (uint32_t)w->okind << RP_REF_BITS | (uint32_t)w->pos[w->okind]++;
	walk_other(x, w);
	return 1;
}

/* Every RP_TOK_EVERY tokens, the walk as it stood before the token: 72 bytes a mark, where a
 * reference per call was 4 bytes a call (the report's peak memory, with the tokens). */
#define RP_TOK_EVERY 512

struct rp_tok_walk {
	struct walk *mark;
	size_t nmark, cap;
	struct walk cur; /* stands before token at */
	size_t at;
	uint32_t last; /* token at - 1's reference */
};

/* Mark the walk @w standing before token x->ntok when it is a multiple of RP_TOK_EVERY. */
static int tok_mark(struct rp_ctx *x, const struct walk *w)
{
	struct rp_tok_walk *t = x->tok_walk;

	if (x->ntok % RP_TOK_EVERY)
		return 0;
	if (t->nmark == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		struct walk *v = realloc(t->mark, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->mark = v;
		t->cap = ncap;
	}
	t->mark[t->nmark++] = *w;
	return 0;
}

uint32_t rp_tok_ref(const struct rp_ctx *x, size_t i)
{
	struct rp_tok_walk *t = x->tok_walk;
	size_t m = i / RP_TOK_EVERY * RP_TOK_EVERY;

	if (t->at && i == t->at - 1)
		return t->last;
	if (!t->at || i < t->at || m > t->at) {
		t->cur = t->mark[i / RP_TOK_EVERY];
		t->at = m;
	}
	/* the pass saw each of these calls: the walk finds them again */
	while (t->at <= i && walk_next(x, &t->cur, &t->last))
		t->at++;
	return t->last;
}

int rp_calls_tokens(struct rp_ctx *x, uint32_t thread)
{
	struct walk w = {0};
	struct gr_keymap ids;
	size_t cap, nlk;
	uint32_t ref, *lk_tok;
	int err = 0;

	x->ntokids = 0;
	x->tok_thread = thread;
	if (thread >= x->nth)
		return 0;
	cap = x->thr[thread].launches + x->nc + x->nms + x->nsy + x->ng + x->nal + x->nfr + 1;
	x->tok = malloc(cap * sizeof(*x->tok));
	x->tok_walk = calloc(1, sizeof(*x->tok_walk));
	/* a launch's token follows from its launch key: interned once per key, not per launch */
	gr_model_launch_keys(x->m, &nlk);
	lk_tok = malloc((nlk + 1) * sizeof(*lk_tok));
	if (!x->tok || !x->tok_walk || !lk_tok) {
		free(lk_tok);
		return -ENOMEM;
	}
	memset(lk_tok, 0xff, (nlk + 1) * sizeof(*lk_tok));
	/* the tokens are dense ids of the calls' keys, numbered in order of first appearance */
	gr_keymap_init(&ids, 3);
	walk_other(x, &w);
	for (;;) {
		uint32_t *memo = NULL;
		uint64_t key[3];

		err = tok_mark(x, &w);
		if (err || !walk_next(x, &w, &ref))
			break;
		if (rp_ref_kind(ref) == RP_LAUNCH) {
			memo = &lk_tok[x->l[rp_ref_idx(ref)].key];
			if (*memo != UINT32_MAX) {
				x->tok[x->ntok++] = *memo;
				continue;
			}
		}
		token_key(x, rp_ref_kind(ref), rp_ref_idx(ref), key);
		err = gr_keymap_intern(&ids, key, &x->tok[x->ntok]);
		if (err < 0)
			break;
		err = 0;
		if (memo)
			*memo = x->tok[x->ntok];
		x->ntok++;
	}
	x->ntokids = ids.len;
	gr_keymap_free(&ids);
	free(lk_tok);
	return err;
}

void rp_calls_free_tokens(struct rp_ctx *x)
{
	free(x->tok);
	if (x->tok_walk)
		free(x->tok_walk->mark);
	free(x->tok_walk);
	x->tok = NULL;
	x->tok_walk = NULL;
	x->ntok = 0;
}

void rp_calls_free(struct rp_ctx *x)
{
	free(x->thr);
	free(x->strm);
	gr_launch_stats_free(&x->ls); /* kc_of is its pair_of_key */
	free(x->kc_key);
	free(x->kc_count);
	free(x->run_break);
	free(x->copy_next);
	free(x->gap_wait);
	rp_calls_free_tokens(x);
}
