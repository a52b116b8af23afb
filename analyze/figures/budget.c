/* SPDX-License-Identifier: MIT */
/* The step budget (budget.h): each iteration's time cut into parts that add up exactly. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/syscalls.h"
#include "budget.h"
#include "frames.h"
#include "nvtx.h"

/* The model's call arrays, merged by the walk in this order: at equal entry times the earlier
 * source wins, so a graph-building call owns its time over the launch, copy or memset row that
 * holds its node's work (same thread, same ts: one call, two rows). */
enum src {
	S_GRAPH = 0,
	S_SYNC,
	S_COPY,
	S_MEMSET,
	S_ALLOC,
	S_FREE,
	S_COMM,
	S_LAUNCH,
	S_ASIDE,
	S_COMM_ASIDE,
	NSRC,
};

/* A call of the walked thread: entry, recorded duration (0: entry only), part. */
struct call {
	uint64_t ts, dur;
	unsigned part;
};

struct walk {
	const struct gr_model *m;
	uint32_t thread;
	const struct gr_launch *l;
	const struct gr_launch_key *lk;
	const struct gr_copy *c;
	const struct gr_memset *ms;
	const struct gr_sync *sy;
	const struct gr_graph *g;
	const struct gr_alloc *al;
	const struct gr_free *fr;
	const struct gr_comm_call *cm, *cma;
	const struct gr_aside *as;
	size_t n[NSRC], at[NSRC];
	struct call head[NSRC];
	int has[NSRC]; /* head holds the next call of the source */
	/* the sources with calls left, in source order: most traces fill three or four */
	unsigned live[NSRC], nlive;
	/*
	 * The recording timed a sample of the launches (1 in 64 per thread): every launch is
	 * walked as entry only, so that each iteration is counted the same way whichever of them
	 * holds a sampled one (the median iteration is picked by total) and the untimed launches
	 * are estimated at the sample's cost (docs/REPORTS.md, "Untimed launches").
	 */
	int launches_sampled;
};

static unsigned sync_part(unsigned kind)
{
	switch (kind) {
	case GR_SYNC_DEVICE:
		return GR_BUDGET_SYNC_DEVICE;
	case GR_SYNC_STREAM:
		return GR_BUDGET_SYNC_STREAM;
	case GR_SYNC_EVENT:
		return GR_BUDGET_SYNC_EVENT;
	}
	/* event records and stream waits do not wait for the GPU */
	return GR_BUDGET_OTHER;
}

static unsigned graph_part(unsigned kind)
{
	return kind == GR_GRAPH_LAUNCH ? GR_BUDGET_GRAPH_LAUNCH : GR_BUDGET_OTHER;
}

static unsigned aside_part(const struct gr_aside *a)
{
	switch (a->kind) {
	case GR_K_LAUNCH:
		return GR_BUDGET_LAUNCH;
	case GR_K_COPY:
	case GR_K_MEMSET:
		return GR_BUDGET_COPY;
	case GR_K_ALLOC:
	case GR_K_FREE:
		return GR_BUDGET_ALLOC;
	case GR_K_SYNC:
		return sync_part(a->u.sync.kind);
	case GR_K_GRAPH:
		return graph_part(a->u.graph.kind);
	}
	return GR_BUDGET_OTHER;
}

static uint64_t ts_at(const struct walk *w, unsigned s, size_t i)
{
	switch (s) {
	case S_GRAPH:
		return w->g[i].ts;
	case S_SYNC:
		return w->sy[i].ts;
	case S_COPY:
		return w->c[i].ts;
	case S_MEMSET:
		return w->ms[i].ts;
	case S_ALLOC:
		return w->al[i].ts;
	case S_FREE:
		return w->fr[i].ts;
	case S_COMM:
		return w->cm[i].ts;
	case S_LAUNCH:
		return w->l[i].ts;
	case S_ASIDE:
		return w->as[i].ts;
	default:
		return w->cma[i].ts;
	}
}

/* Entry @i of source @s as a call of the walked thread into *@c; 0 when it is another thread's
 * or a nested call (its outer call owns its time). */
static int call_at(const struct walk *w, unsigned s, size_t i, struct call *c)
{
	uint32_t thread;

	c->ts = ts_at(w, s, i);
	switch (s) {
	case S_GRAPH:
		thread = w->g[i].thread;
		c->dur = w->g[i].dur;
		c->part = graph_part(w->g[i].kind);
		break;
	case S_SYNC:
		thread = w->sy[i].thread;
		c->dur = w->sy[i].dur;
		c->part = sync_part(w->sy[i].kind);
		break;
	case S_COPY:
		thread = w->c[i].thread;
		c->dur = w->c[i].dur;
		c->part = GR_BUDGET_COPY;
		break;
	case S_MEMSET:
		thread = w->ms[i].thread;
		c->dur = w->ms[i].dur;
		c->part = GR_BUDGET_COPY;
		break;
	case S_ALLOC:
		thread = w->al[i].thread;
		c->dur = w->al[i].dur;
		c->part = GR_BUDGET_ALLOC;
		break;
	case S_FREE:
		thread = w->fr[i].thread;
		c->dur = w->fr[i].dur;
		c->part = GR_BUDGET_ALLOC;
		break;
	case S_COMM:
	case S_COMM_ASIDE: {
		const struct gr_comm_call *cc = s == S_COMM ? &w->cm[i] : &w->cma[i];

		if (GR_CALL_DEPTH(cc->call))
			return 0;
		thread = cc->thread;
		c->dur = cc->dur;
		c->part = GR_BUDGET_OTHER;
		break;
	}
	case S_LAUNCH: {
		const struct gr_launch_key *k = &w->lk[w->l[i].key];

		thread = k->thread;
		c->dur = w->launches_sampled ? 0 : gr_launch_dur(k, &w->l[i]);
		c->part = GR_BUDGET_LAUNCH; /* graph launches are GRAPH rows */
		break;
	}
	default: {
		const struct gr_aside *a = &w->as[i];

		if (GR_CALL_DEPTH(a->call))
			return 0;
		thread = gr_aside_thread(w->m, a);
		c->dur = a->dur;
		c->part = aside_part(a);
		break;
	}
	}
	return thread == w->thread;
}

/* The first entry of source @s at or after @ts. */
static size_t lower_bound(const struct walk *w, unsigned s, uint64_t ts)
{
	size_t lo = 0, hi = w->n[s];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ts_at(w, s, mid) < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void walk_init(struct walk *w, const struct gr_model *m, uint32_t thread, uint64_t from)
{
	uint64_t period;

	memset(w, 0, sizeof(*w));
	w->m = m;
	w->thread = thread;
	w->g = gr_model_graphs(m, &w->n[S_GRAPH]);
	w->sy = gr_model_syncs(m, &w->n[S_SYNC]);
	w->c = gr_model_copies(m, &w->n[S_COPY]);
	w->ms = gr_model_memsets(m, &w->n[S_MEMSET]);
	w->al = gr_model_allocs(m, &w->n[S_ALLOC]);
	w->fr = gr_model_frees(m, &w->n[S_FREE]);
	w->cm = gr_model_comm_calls(m, &w->n[S_COMM]);
	w->l = gr_model_launches(m, &w->n[S_LAUNCH]);
	w->lk = gr_model_launch_keys(m, NULL);
	w->as = gr_model_asides(m, &w->n[S_ASIDE]);
	w->cma = gr_model_comm_asides(m, &w->n[S_COMM_ASIDE]);
	w->launches_sampled =
	    gr_model_session(m, GR_SESS_LAUNCH_SAMPLE, &period, NULL) && period > 1;
	for (unsigned s = 0; s < NSRC; s++) {
		w->at[s] = lower_bound(w, s, from);
		if (w->at[s] < w->n[s])
			w->live[w->nlive++] = s;
	}
}

/* The walked thread's next call entering before @before into *@c (consumed), in entry order;
 * 0 when none is left before it. */
static int walk_next(struct walk *w, uint64_t before, struct call *c)
{
	unsigned best = NSRC, keep = 0;

	for (unsigned i = 0; i < w->nlive; i++) {
		unsigned s = w->live[i];

		while (!w->has[s] && w->at[s] < w->n[s])
			w->has[s] = call_at(w, s, w->at[s]++, &w->head[s]);
		if (!w->has[s])
			continue; /* spent: out of the list */
		w->live[keep++] = s;
		if (best == NSRC || w->head[s].ts < w->head[best].ts)
			best = s;
	}
	w->nlive = keep;
	if (best == NSRC || w->head[best].ts >= before)
		return 0;
	*c = w->head[best];
	w->has[best] = 0;
	return 1;
}

/*
 * A waker's share of one reason's wait: the wait its wakeups ended, and the longest such span's
 * why (where the thread waited, the waker's stack), which the culprit shows.
 */
struct tally {
	uint8_t reason;
	uint32_t pid, tid;
	uint64_t ns, longest;
	struct gr_block_why why;
};

/*
 * The tallies of one scope (an iteration, the loop): one per (reason, waker), grown as they come.
 * A loop has a few, not one per blocked span: sized by the spans, they cost 112 bytes a span
 * (the report's peak memory on a trace with many switches).
 */
struct tallies {
	struct tally *v;
	size_t n, cap;
	int err; /* -ENOMEM: a tally could not be added */
};

/* The tally of @why's (reason, waker) in @t, added empty when it has none; NULL: no memory. */
static struct tally *tally_of(struct tallies *t, const struct gr_block_why *why)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].reason == why->reason && t->v[i].tid == why->waker_tid &&
		    t->v[i].pid == why->waker_pid && t->v[i].why.woken == why->woken)
			return &t->v[i];
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		struct tally *v = realloc(t->v, ncap * sizeof(*v));

		if (!v) {
			t->err = -ENOMEM;
			return NULL;
		}
		t->v = v;
		t->cap = ncap;
	}
	t->v[t->n] = (struct tally){
	    .reason = why->reason, .pid = why->waker_pid, .tid = why->waker_tid, .why = *why};
	return &t->v[t->n++];
}

static void tally_add(struct tallies *t, const struct gr_block_why *why, uint64_t ns)
{
	struct tally *e = tally_of(t, why);

	if (!e)
		return;
	e->ns += ns;
	if (ns > e->longest) {
		e->longest = ns;
		e->why = *why;
	}
}

/* The tallies @from of later spans after *@to, as if each span had been added to it in order:
 * a waker's longest span stays the first seen of that length. */
static void tallies_append(struct tallies *to, const struct tallies *from)
{
	if (from->err)
		to->err = from->err;
	for (size_t i = 0; i < from->n; i++) {
		const struct tally *e = &from->v[i];
		struct tally *t = tally_of(to, &e->why);

		if (!t)
			return;
		t->ns += e->ns;
		if (e->longest > t->longest) {
			t->longest = e->longest;
			t->why = e->why;
		}
	}
}

/* Each reason's culprit from @t into @out: the waker that ended the most of its wait (ties: the
 * first seen), with the number of distinct waker processes. */
static void tally_culprits(const struct tallies *t, struct gr_block_culprit *out)
{
	memset(out, 0, GR_BUDGET_NREASONS * sizeof(*out));
	for (size_t i = 0; i < t->n; i++) {
		const struct tally *e = &t->v[i];
		struct gr_block_culprit *c = &out[e->reason];
		int seen = 0;

		/* tid 0 woke it from an interrupt (a timer, a device): no process */
		for (size_t k = 0; k < i && e->why.woken; k++)
			seen |= t->v[k].reason == e->reason && t->v[k].why.woken &&
				t->v[k].pid == e->pid;
		if (e->why.woken && e->tid && !seen)
			c->wakers++;
		c->of_ns += e->ns;
		if (e->ns <= c->ns)
			continue;
		c->ns = e->ns;
		c->pid = e->pid;
		c->tid = e->tid;
		c->woken = e->why.woken;
		c->syscall = e->why.syscall;
		c->stack = e->why.stack;
		c->waker_stack = e->why.waker_stack;
	}
}

struct worker_cpu {
	uint64_t lo, hi, ns;
};

static int on_worker_span(void *ctx, const struct gr_state_span *sp)
{
	struct worker_cpu *w = ctx;
	uint64_t s = sp->start > w->lo ? sp->start : w->lo, e = sp->end < w->hi ? sp->end : w->hi;

	if (sp->state == GR_STATE_RUN && e > s)
		w->ns += e - s;
	return 0;
}

/*
 * The input wait's waker processes in @t (the loop's tallies): their threads' time on CPU over
 * [@lo, @hi) into *@ns, and their number into *@procs. The threads make no CUDA call: each
 * one's state follows from its first scheduler record (timeline.h), so a slice running before
 * it is not counted. Returns 0 or -ENOMEM.
 */
static int worker_cpu(const struct gr_model *m, const struct tallies *t, uint64_t lo, uint64_t hi,
		      uint64_t *ns, uint32_t *procs)
{
	size_t nth, nsc, n = 0;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	const struct gr_sched *sc = gr_model_scheds(m, &nsc);
	const struct gr_sched_key *keys = gr_model_sched_keys(m, NULL);
	uint32_t *tids = calloc(nth + 1, sizeof(*tids));
	uint64_t *first = calloc(nth + 1, sizeof(*first)), *last = calloc(nth + 1, sizeof(*last));
	struct worker_cpu w = {.lo = lo, .hi = hi};
	struct gr_timeline tl = {0};
	int err = -ENOMEM;

	*ns = 0;
	*procs = 0;
	if (!tids || !first || !last)
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		const struct tally *e = &t->v[i];
		int seen = 0;

		if (e->reason != GR_BLOCK_INPUT || !e->why.woken || !e->tid)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = t->v[k].reason == GR_BLOCK_INPUT && t->v[k].why.woken &&
			       t->v[k].tid && t->v[k].pid == e->pid;
		if (seen)
			continue;
		(*procs)++;
		for (size_t k = 0; k < nth; k++)
			if (th[k].pid == e->pid) {
				tids[n] = th[k].tid;
				first[n] = UINT64_MAX;
				last[n++] = hi;
			}
	}
	err = 0;
	if (!n)
		goto out;
	err = gr_timeline_init(&tl, tids, first, n, on_worker_span, &w);
	for (size_t i = 0; i < nsc && sc[i].ts < hi && !err; i++)
		err = gr_timeline_feed(&tl, sc[i].ts, &keys[sc[i].key]);
	if (!err)
		err = gr_timeline_finish(&tl, last);
	*ns = w.ns;
out:
	gr_timeline_free(&tl);
	free(tids);
	free(first);
	free(last);
	return err;
}

/* One budget being filled: raw parts on the recorded timeline, then the probe cost. */
struct acc {
	const struct gr_budget_states *st;
	size_t span; /* first state span that may still overlap what comes */
	struct gr_budget b;
	uint64_t outside_probe;	 /* probe cost outside the calls' durations */
	struct tallies it, loop; /* the blocked wait's wakers: this iteration's, the loop's */
	int again;		 /* an iteration walked a second time: the loop has it already */
};

/* Time outside calls, [lo, hi), by the thread's state then. */
static void outside(struct acc *a, uint64_t lo, uint64_t hi)
{
	const struct gr_budget_states *st = a->st;

	if (hi <= lo)
		return;
	if (!st || !st->known) {
		a->b.part_ns[GR_BUDGET_OUTSIDE_UNKNOWN] += hi - lo;
		return;
	}
	while (a->span < st->n && st->v[a->span].end <= lo)
		a->span++;
	for (size_t i = a->span; i < st->n && st->v[i].start < hi; i++) {
		const struct gr_budget_span *sp = &st->v[i];
		uint64_t s = sp->start > lo ? sp->start : lo, e = sp->end < hi ? sp->end : hi;
		unsigned part;

		if (e <= s)
			continue;
		/* time no span covers before this one */
		a->b.part_ns[GR_BUDGET_OUTSIDE_UNKNOWN] += s - lo;
		switch (sp->state) {
		case GR_STATE_RUN:
			part = GR_BUDGET_HOST;
			break;
		case GR_STATE_RUNNABLE:
			part = GR_BUDGET_RUNNABLE;
			break;
		case GR_STATE_BLOCKED: {
			static const struct gr_block_why none = {.reason = GR_BLOCK_UNKNOWN,
								 .syscall = -1};
			const struct gr_block_why *why =
			    st->why && sp->why != UINT32_MAX ? &st->why[sp->why] : &none;

			part = GR_BUDGET_BLOCKED;
			a->b.blocked_ns[why->reason] += e - s;
			tally_add(&a->it, why, e - s);
			if (!a->again)
				tally_add(&a->loop, why, e - s);
			break;
		}
		default:
			part = GR_BUDGET_OUTSIDE_UNKNOWN;
		}
		a->b.part_ns[part] += e - s;
		lo = e;
	}
	if (hi > lo)
		a->b.part_ns[GR_BUDGET_OUTSIDE_UNKNOWN] += hi - lo;
}

/* Take @v off *@p, as much as it holds; returns what it could not take. */
static uint64_t take(uint64_t *p, uint64_t v)
{
	uint64_t t = v < *p ? v : *p;

	*p -= t;
	return v - t;
}

/*
 * The probes' cost outside the calls ran on the CPU: off host work; without states, off the
 * unknown part, which holds that host work. What neither holds is clamped away.
 */
static void outside_probe(struct acc *a, uint64_t *clamped)
{
	uint64_t left = take(&a->b.part_ns[GR_BUDGET_HOST], a->outside_probe);

	left = take(&a->b.part_ns[GR_BUDGET_OUTSIDE_UNKNOWN], left);
	if (left)
		(*clamped)++;
}

/* The probes' share inside call @c's duration (probe_cost.h), 0 when not compensating. */
static uint64_t probe_in(const struct gr_probe_cost *pc, const struct call *c)
{
	return c->dur && pc->applied ? pc->call_in : 0;
}

/* Call @c's time [s, e), already clipped, less @in (its probes' share, taken once: where the
 * call enters), to its part. */
static void in_call(struct acc *a, const struct call *c, uint64_t s, uint64_t e, uint64_t in,
		    uint64_t *clamped)
{
	uint64_t d = e - s;

	if (in > d) {
		(*clamped)++;
		in = d;
	}
	a->b.part_ns[c->part] += d - in;
}

/* Sums over budgets, for their mean (gr_budget_mean()) without keeping them. */
struct sums {
	uint64_t part[GR_BUDGET_NPARTS], reason[GR_BUDGET_NREASONS], total, calls, unmeasured;
	uint64_t first_ts;
	size_t n;
};

static void sums_add(struct sums *s, const struct gr_budget *b)
{
	if (!s->n)
		s->first_ts = b->start_ts;
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		s->part[p] += b->part_ns[p];
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++)
		s->reason[r] += b->blocked_ns[r];
	s->total += b->total_ns;
	s->calls += b->calls;
	s->unmeasured += b->unmeasured;
	s->n++;
}

/* The mean of @s (n >= 1), exact: parts rounded down, then the ns their sum lacks of the
 * rounded-down mean total go one each to the parts with the largest remainders. */
static void sums_mean(const struct sums *s, struct gr_budget *out)
{
	const uint64_t *sum = s->part, *rsum = s->reason;
	uint64_t have = 0, n = s->n;
	int given[GR_BUDGET_NPARTS] = {0}, rgiven[GR_BUDGET_NREASONS] = {0};

	memset(out, 0, sizeof(*out));
	out->calls = s->calls;
	out->unmeasured = s->unmeasured;
	out->index = n;
	out->start_ts = s->first_ts;
	out->total_ns = s->total / n;
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++) {
		out->part_ns[p] = sum[p] / n;
		have += out->part_ns[p];
	}
	/* the parts' sum is total, so fewer than GR_BUDGET_NPARTS ns are missing */
	while (have < out->total_ns) {
		unsigned best = GR_BUDGET_NPARTS;

		for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
			if (!given[p] && (best == GR_BUDGET_NPARTS || sum[p] % n > sum[best] % n))
				best = p;
		given[best] = 1;
		out->part_ns[best]++;
		have++;
	}
	/* the reasons the same way, to the blocked part: their floors' sum is at most the
	 * blocked sum's floor, at most one ns short per reason of the part */
	have = 0;
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
		out->blocked_ns[r] = rsum[r] / n;
		have += out->blocked_ns[r];
	}
	while (have < out->part_ns[GR_BUDGET_BLOCKED]) {
		unsigned best = GR_BUDGET_NREASONS;

		for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++)
			if (!rgiven[r] &&
			    (best == GR_BUDGET_NREASONS || rsum[r] % n > rsum[best] % n))
				best = r;
		if (best == GR_BUDGET_NREASONS)
			break;
		rgiven[best] = 1;
		out->blocked_ns[best]++;
		have++;
	}
}

void gr_budget_mean(const struct gr_budget *v, size_t n, struct gr_budget *out)
{
	struct sums s = {0};

	for (size_t i = 0; i < n; i++)
		sums_add(&s, &v[i]);
	sums_mean(&s, out);
}

/*
 * What the loop keeps of an iteration once walked: its parts (the parts' medians), its total
 * (the median, p90 and slowest are picked by it) and the call still running when it begins,
 * from which the picked ones are walked again: a whole budget per iteration is 700 bytes, and a
 * long run has hundreds of thousands of iterations.
 */
struct kept {
	uint64_t open_end;
	/* 64 bytes, not 120: a part of 4.3 s or more is KEPT_BIG here, its ns in a struct kept_big
	 */
	uint32_t part_ns[GR_BUDGET_NPARTS];
	unsigned open_part;
};

#define KEPT_BIG UINT32_MAX

/* A part too long for struct kept: iteration j's part p. */
struct kept_big {
	size_t j;
	unsigned p;
	uint64_t ns;
};

struct kept_bigs {
	struct kept_big *v;
	size_t n, cap;
};

/* Keep iteration @j's parts @part_ns into @k, the long ones onto @b; returns 0 or -ENOMEM. */
static int keep_parts(struct kept *k, struct kept_bigs *b, size_t j, const uint64_t *part_ns)
{
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++) {
		if (part_ns[p] < KEPT_BIG) {
			k->part_ns[p] = (uint32_t)part_ns[p];
			continue;
		}
		if (b->n == b->cap) {
			size_t ncap = b->cap ? b->cap * 2 : 16;
			struct kept_big *v = realloc(b->v, ncap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			b->v = v;
			b->cap = ncap;
		}
		b->v[b->n++] = (struct kept_big){j, p, part_ns[p]};
		k->part_ns[p] = KEPT_BIG;
	}
	return 0;
}

/* An iteration and a figure of it (its total, a part), selected by the figure: ties go to the
 * earlier iteration, so the picks are distinct and the k-th figure is a sort's. */
struct pick {
	uint64_t ns;
	size_t index;
};

static int pick_less(const struct pick *a, const struct pick *b)
{
	return a->ns != b->ns ? a->ns < b->ns : a->index < b->index;
}

/* The pick a sort of @v (@n picks, reordered) would put at @k: a few of them are wanted, not the
 * order of a few hundred thousand. Hoare's partition: [lo, j] <= p <= [i, hi], p between. */
static struct pick select_pick(struct pick *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		struct pick p = v[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (pick_less(&v[i], &p))
				i++;
			while (pick_less(&p, &v[j]))
				j--;
			if (i > j)
				break;
			t = v[i];
			v[i++] = v[j];
			v[j] = t;
			if (j == lo)
				break;
			j--;
		}
		if (k <= j && j < hi)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Iteration @j, [@lo, @hi), of the walk @w into @a->b; *@open and *@open_end: the call still
 * running when it begins, then when it ends. */
static void walk_iteration(struct walk *w, struct acc *a, const struct gr_probe_cost *pc, size_t j,
			   uint64_t lo, uint64_t hi, struct call *open, uint64_t *open_end,
			   uint64_t *clamped)
{
	uint64_t pos = lo;
	struct call c;

	memset(&a->b, 0, sizeof(a->b));
	a->outside_probe = 0;
	a->it.n = 0;
	a->b.index = j;
	a->b.start_ts = lo;
	if (hi < lo)
		hi = lo;
	if (*open_end > pos) {
		uint64_t e = *open_end < hi ? *open_end : hi;

		in_call(a, open, pos, e, 0, clamped);
		pos = e;
	}
	while (walk_next(w, hi, &c)) {
		uint64_t s = c.ts > pos ? c.ts : pos, end = c.ts + c.dur;
		uint64_t e = end < hi ? end : hi, cost = gr_probe_cost_call(pc, c.dur);

		a->b.calls++;
		if (!c.dur)
			a->b.unmeasured++;
		a->outside_probe += cost - probe_in(pc, &c);
		if (c.ts > pos) {
			outside(a, pos, c.ts);
			pos = c.ts;
		}
		if (e > s) {
			in_call(a, &c, s, e, probe_in(pc, &c), clamped);
			pos = e;
		}
		if (end > hi && end > *open_end) {
			*open = c;
			*open_end = end;
		}
	}
	outside(a, pos, hi);
	outside_probe(a, clamped);
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		a->b.total_ns += a->b.part_ns[p];
	tally_culprits(&a->it, a->b.culprit);
}

/* Iteration @j's whole budget again, from what the loop kept of it, into *@out. */
static void walk_again(const struct gr_model *m, const struct gr_probe_cost *pc,
		       const struct gr_budget_loop *loop, const struct gr_budget_states *states,
		       struct tallies *scratch, const struct kept *k, size_t j,
		       struct gr_budget *out)
{
	uint64_t hi = j + 1 < loop->n ? loop->starts[j + 1] : loop->end_ts;
	uint64_t open_end = k->open_end, clamped = 0;
	struct call open = {.part = k->open_part};
	struct acc a = {.st = states, .it = *scratch, .again = 1};
	struct walk w;

	/* the walk's sources are in time order: it stands where the loop's stood at @j */
	walk_init(&w, m, loop->thread, loop->starts[j]);
	walk_iteration(&w, &a, pc, j, loop->starts[j], hi, &open, &open_end, &clamped);
	*scratch = a.it; /* what it grew to */
	*out = a.b;
}

/*
 * Iterations [lo, hi) of a loop, walked on their own: a long loop is cut into slices walked on
 * several threads at once. A slice begins as if no call were still running at its first
 * iteration; the loop's own walk is the judge (slices_join()). What a slice fills of the loop's
 * per-iteration arrays is its own range of them.
 */
struct slice {
	const struct gr_model *m;
	const struct gr_probe_cost *pc;
	const struct gr_budget_loop *loop;
	const struct gr_budget_states *states;
	struct kept *kept;
	struct pick *order;
	size_t lo, hi;
	/* the call still running at lo on entry, at hi on return */
	struct call open;
	uint64_t open_end;
	struct acc a; /* its tallies: the loop's, over the slice; the scratch of an iteration's */
	struct kept_bigs bigs;
	struct sums sums;
	uint64_t clamped;
	int err;
};

static void *walk_slice(void *arg)
{
	struct slice *s = arg;
	const struct gr_budget_loop *loop = s->loop;
	size_t per = loop->per > 1 ? loop->per : 1;
	struct sums group = {0};
	struct walk w;

	walk_init(&w, s->m, loop->thread, loop->starts[s->lo]);
	for (size_t j = s->lo; j < s->hi && !s->err; j++) {
		uint64_t hi = j + 1 < loop->n ? loop->starts[j + 1] : loop->end_ts;

		s->kept[j].open_end = s->open_end;
		s->kept[j].open_part = s->open.part;
		walk_iteration(&w, &s->a, s->pc, j, loop->starts[j], hi, &s->open, &s->open_end,
			       &s->clamped);
		s->err = keep_parts(&s->kept[j], &s->bigs, j, s->a.b.part_ns);
		s->order[j] = (struct pick){s->a.b.total_ns, j};
		sums_add(&s->sums, &s->a.b);
		if (loop->each && per == 1)
			loop->each[j] = s->a.b;
		if (loop->each && per > 1) {
			/* slices begin at a multiple of per: a group is one slice's */
			sums_add(&group, &s->a.b);
			if (group.n == per || j + 1 == loop->n) {
				sums_mean(&group, &loop->each[j / per]);
				memset(&group, 0, sizeof(group));
			}
		}
	}
	return NULL;
}

/* Forget what slice @s found: it is walked again. */
static void slice_reset(struct slice *s)
{
	s->a.b = (struct gr_budget){0};
	s->a.span = 0;
	s->a.it.n = 0;
	s->a.it.err = 0;
	s->a.loop.n = 0;
	s->a.loop.err = 0;
	s->bigs.n = 0;
	s->sums = (struct sums){0};
	s->clamped = 0;
}

static void slice_free(struct slice *s)
{
	free(s->a.it.v);
	free(s->a.loop.v);
	free(s->bigs.v);
}

static void sums_append(struct sums *to, const struct sums *from)
{
	if (!from->n)
		return;
	if (!to->n)
		to->first_ts = from->first_ts;
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		to->part[p] += from->part[p];
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++)
		to->reason[r] += from->reason[r];
	to->total += from->total;
	to->calls += from->calls;
	to->unmeasured += from->unmeasured;
	to->n += from->n;
}

static int bigs_append(struct kept_bigs *to, const struct kept_bigs *from)
{
	if (!from->n)
		return 0;
	if (to->n + from->n > to->cap) {
		struct kept_big *v = realloc(to->v, (to->n + from->n) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		to->v = v;
		to->cap = to->n + from->n;
	}
	memcpy(to->v + to->n, from->v, from->n * sizeof(*from->v));
	to->n += from->n;
	return 0;
}

/* Loops shorter than this many iterations a slice are walked on the calling thread alone. */
#define SLICE_MIN  4096
#define SLICES_MAX 16

/*
 * Walk @s[0..@ns) (slices in loop order), on threads but the first, then make them the loop's
 * walk: a slice whose predecessor left a call running past its first iteration's start began
 * from the wrong state, and is walked again from the right one (rare: calls of one thread do
 * not overlap, and an iteration begins at a call's entry).
 */
static void slices_walk(struct slice *s, size_t ns)
{
	pthread_t tid[SLICES_MAX];
	int started[SLICES_MAX] = {0};

	for (size_t i = 1; i < ns; i++)
		started[i] = !pthread_create(&tid[i], NULL, walk_slice, &s[i]);
	walk_slice(&s[0]);
	for (size_t i = 1; i < ns; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			walk_slice(&s[i]);
	}
	for (size_t i = 1; i < ns; i++) {
		if (s[i - 1].open_end <= s->loop->starts[s[i].lo])
			continue;
		slice_reset(&s[i]);
		s[i].open = s[i - 1].open;
		s[i].open_end = s[i - 1].open_end;
		s[i].err = 0;
		walk_slice(&s[i]);
	}
}

int gr_budget_compute(const struct gr_model *m, const struct gr_probe_cost *pc,
		      const struct gr_budget_loop *loop, const struct gr_budget_states *states,
		      struct gr_budgets *out)
{
	struct kept *kept = NULL;
	struct kept_bigs bigs = {0};
	struct pick *order = NULL;
	size_t nth, n = loop->n, nslices = 1;
	struct gr_budget *dst[3] = {&out->median, &out->p90, &out->slowest};
	size_t at[3] = {(n - 1) / 2, (n * 9 + 9) / 10 - 1, n - 1}, picked[3];
	struct acc a = {.st = states};
	struct sums sums = {0};
	size_t per = loop->per > 1 ? loop->per : 1;
	struct slice sl[SLICES_MAX];
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(sl, 0, sizeof(sl));
	gr_model_threads(m, &nth);
	if (!n || loop->thread >= nth)
		return -EINVAL;
	kept = malloc(n * sizeof(*kept));
	order = malloc(n * sizeof(*order));
	if (!kept || !order)
		goto out;
	if (loop->jobs > 1)
		nslices = n / SLICE_MIN < loop->jobs ? n / SLICE_MIN : loop->jobs;
	if (nslices > SLICES_MAX)
		nslices = SLICES_MAX;
	if (!nslices)
		nslices = 1;
	for (size_t i = 0; i < nslices; i++) {
		/* slices begin at a multiple of per (a mean of per iterations is one slice's) */
		size_t groups = (n + per - 1) / per;

		sl[i] = (struct slice){
		    .m = m, .pc = pc, .loop = loop, .states = states, .kept = kept, .order = order};
		sl[i].a.st = states;
		sl[i].lo = groups * i / nslices * per;
		sl[i].hi = i + 1 < nslices ? groups * (i + 1) / nslices * per : n;
	}
	slices_walk(sl, nslices);
	for (size_t i = 0; i < nslices; i++) {
		if (sl[i].err || sl[i].a.it.err)
			goto out;
		if (bigs_append(&bigs, &sl[i].bigs))
			goto out;
		tallies_append(&a.loop, &sl[i].a.loop);
		sums_append(&sums, &sl[i].sums);
		out->clamped += sl[i].clamped;
	}
	/* the first slice's scratch serves the walks again below */
	a.it = sl[0].a.it;
	sl[0].a.it = (struct tallies){0};
	/* the median, p90 and slowest iterations by total; then order serves each part's median */
	for (int i = 0; i < 3; i++)
		picked[i] = select_pick(order, n, at[i]).index;
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++) {
		for (size_t j = 0; j < n; j++)
			order[j] = (struct pick){kept[j].part_ns[p], j};
		for (size_t i = 0; i < bigs.n; i++)
			if (bigs.v[i].p == p)
				order[bigs.v[i].j].ns = bigs.v[i].ns;
		out->part_median_ns[p] = select_pick(order, n, (n - 1) / 2).ns;
	}
	out->found = 1;
	out->thread = loop->thread;
	out->has_states = states && states->known;
	out->has_reasons = out->has_states && states->reasons;
	out->iterations = n;
	for (int i = 0; i < 3; i++)
		walk_again(m, pc, loop, states, &a.it, &kept[picked[i]], picked[i], dst[i]);
	/* err is still -ENOMEM */
	if (a.it.err || a.loop.err)
		goto out;
	sums_mean(&sums, &out->mean);
	tally_culprits(&a.loop, out->mean.culprit);
	if (out->mean.culprit[GR_BLOCK_INPUT].ns) {
		uint64_t ns;
		uint32_t procs;

		err = worker_cpu(m, &a.loop, loop->starts[0], loop->end_ts, &ns, &procs);
		if (err)
			goto out;
		if (procs)
			out->mean.culprit[GR_BLOCK_INPUT].worker_cpu_ns = ns / n / procs;
	}
	err = 0;
out:
	if (err)
		memset(out, 0, sizeof(*out));
	free(kept);
	free(bigs.v);
	free(order);
	free(a.it.v);
	free(a.loop.v);
	for (size_t i = 0; i < nslices; i++)
		slice_free(&sl[i]);
	return err;
}

struct collect {
	struct gr_budget_states *out;
	size_t cap, why_cap;
	uint64_t lo, hi;
	int err;
	struct gr_block_tracker bt;
	uint32_t pid; /* the thread's process */
};

/* Room for one more entry of @esz bytes in *@v of capacity *@cap holding @n. */
static int grow(void **v, size_t *cap, size_t n, size_t esz)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*v, ncap * esz);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

static int on_span(void *ctx, const struct gr_state_span *sp)
{
	struct collect *c = ctx;
	struct gr_budget_states *out = c->out;
	struct gr_budget_span s = {.start = sp->start, .end = sp->end, .state = sp->state};
	struct gr_block_why why;

	gr_block_tracker_span(&c->bt, sp, &why);
	if (s.start < c->lo)
		s.start = c->lo;
	if (s.end > c->hi)
		s.end = c->hi;
	if (s.end <= s.start)
		return 0;
	if (grow((void **)&out->v, &c->cap, out->n, sizeof(*out->v)))
		return -ENOMEM;
	/* only a blocked span has a why to keep */
	s.why = UINT32_MAX;
	if (s.state == GR_STATE_BLOCKED) {
		if (out->nwhy >= UINT32_MAX ||
		    grow((void **)&out->why, &c->why_cap, out->nwhy, sizeof(*out->why)))
			return -ENOMEM;
		s.why = (uint32_t)out->nwhy;
		out->why[out->nwhy++] = why;
	}
	out->v[out->n++] = s;
	return 0;
}

int gr_budget_states(const struct gr_model *m, uint32_t thread, uint64_t lo, uint64_t hi,
		     struct gr_budget_states *out)
{
	const struct gr_thread *th;
	const struct gr_sched *sc;
	const struct gr_sched_key *keys;
	struct gr_timeline tl;
	struct collect c = {.out = out, .lo = lo, .hi = hi};
	size_t nth, nsc;
	uint32_t tid;
	int err;

	memset(out, 0, sizeof(*out));
	th = gr_model_threads(m, &nth);
	sc = gr_model_scheds(m, &nsc);
	keys = gr_model_sched_keys(m, NULL);
	if (!nsc || thread >= nth)
		return 0;
	out->known = 1;
	tid = th[thread].tid;
	c.pid = th[thread].pid;
	err = gr_block_tracker_init(&c.bt, m, &c.pid, 1);
	if (err)
		return err;
	out->reasons = c.bt.ctx.recorded;
	/* the thread makes a call at lo: it is known to run then */
	err = gr_timeline_init(&tl, &tid, &lo, 1, on_span, &c);
	for (size_t i = 0; i < nsc && sc[i].ts < hi && !err; i++) {
		gr_block_tracker_feed(&c.bt, &keys[sc[i].key]);
		err = gr_timeline_feed(&tl, sc[i].ts, &keys[sc[i].key]);
	}
	gr_block_tracker_feed(&c.bt, NULL);
	if (!err)
		err = gr_timeline_finish(&tl, &hi);
	gr_timeline_free(&tl);
	gr_block_tracker_free(&c.bt);
	if (err) {
		gr_budget_states_free(out);
		return err;
	}
	return 0;
}

void gr_budget_states_free(struct gr_budget_states *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->why);
	memset(s, 0, sizeof(*s));
}

const char *gr_budget_part_name(unsigned part)
{
	static const char *const names[GR_BUDGET_NPARTS] = {
	    "launch", "graph_launch", "copy", "sync_device", "sync_stream", "sync_event",
	    "alloc",  "other",	      "host", "runnable",    "blocked",	    "outside_unknown",
	};

	return part < GR_BUDGET_NPARTS ? names[part] : "unknown";
}

const char *gr_budget_part_words(unsigned part)
{
	static const char *const words[GR_BUDGET_NPARTS] = {
	    "launch",	    "graph launch", "copy",	  "sync(device)",
	    "sync(stream)", "sync(event)",  "alloc/free", "other calls",
	    "host",	    "runnable",	    "blocked",	  "outside CUDA (state unknown)",
	};

	return part < GR_BUDGET_NPARTS ? words[part] : "unknown";
}

const char *gr_budget_reason_name(unsigned reason)
{
	return gr_block_reason_name(reason);
}

void gr_budget_json(struct gr_json *j, const char *key, const struct gr_budget *b, int mean)
{
	char k[40];

	gr_json_key(j, key);
	gr_json_object(j);
	if (mean) {
		gr_json_kv_u64(j, "iterations", b->index);
	} else {
		gr_json_kv_u64(j, "index", b->index);
		gr_json_kv_u64(j, "start_ts", b->start_ts);
	}
	gr_json_kv_u64(j, "total_ns", b->total_ns);
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++) {
		snprintf(k, sizeof(k), "%s_ns", gr_budget_part_name(p));
		gr_json_kv_u64(j, k, b->part_ns[p]);
	}
	gr_json_key(j, "blocked_reasons");
	gr_json_object_flat(j);
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
		snprintf(k, sizeof(k), "%s_ns", gr_budget_reason_name(r));
		gr_json_kv_u64(j, k, b->blocked_ns[r]);
	}
	gr_json_object_end(j);
	gr_json_kv_u64(j, "calls", b->calls);
	gr_json_kv_u64(j, "unmeasured_calls", b->unmeasured);
	gr_json_object_end(j);
}

/* The waker's name: its thread's comm, else its process's, else "" (both from NAME records). */
const char *gr_budget_culprit_comm(const struct gr_model *m, const struct gr_block_culprit *c)
{
	const char *s;

	if (!c->woken)
		return "";
	/* the recorder holds a thread while it reads a library or Python code the thread just
	 * reached: a cost of recording, which the name must not hide behind a plain "gpurec" */
	if (gr_model_is_recorder(m, c->pid))
		return GR_RECORDER_NAME;
	s = gr_model_comm(m, c->tid);
	if (!s)
		s = gr_model_comm(m, c->pid);
	return s ? s : "";
}

const char *gr_budget_culprit_name(const struct gr_model *m, const struct gr_nvtx_set *nv,
				   const struct gr_block_culprit *c)
{
	const char *s = c->woken && nv ? gr_nvtx_thread_name(nv, c->pid, c->tid) : NULL;

	return s ? s : gr_budget_culprit_comm(m, c);
}

static void stack_frames_json(struct gr_json *j, const struct gr_model *m, uint32_t stack)
{
	size_t n;
	const struct gr_stack *st = gr_model_stacks(m, &n);

	gr_json_array(j);
	for (uint32_t i = 0; stack < n && i < st[stack].nframes; i++) {
		struct gr_frame f;

		gr_frame_describe(m, st[stack].pid, st[stack].frames[i], &f);
		gr_frame_json(j, &f);
	}
	gr_json_array_end(j);
}

void gr_budget_culprits_json(struct gr_json *j, const struct gr_model *m, const char *key,
			     const struct gr_budget *b)
{
	char site[GR_FRAME_TEXT];

	gr_json_key(j, key);
	gr_json_object(j);
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
		const struct gr_block_culprit *c = &b->culprit[r];

		if (!c->ns)
			continue;
		gr_json_key(j, gr_block_reason_name(r));
		gr_json_object(j);
		gr_json_kv_u64(j, "wait_ns", c->ns);
		gr_json_kv_double(j, "share", (double)c->ns / (double)c->of_ns);
		gr_json_key(j, "waker");
		if (c->woken) {
			gr_json_object_flat(j);
			gr_json_kv_u64(j, "pid", c->pid);
			gr_json_kv_u64(j, "tid", c->tid);
			gr_json_kv_str(j, "comm", gr_budget_culprit_comm(m, c));
			gr_json_object_end(j);
		} else {
			gr_json_null(j);
		}
		gr_json_kv_u64(j, "waker_processes", c->wakers);
		gr_json_kv_str(j, "syscall", gr_syscall_name(c->syscall));
		gr_json_kv_i64(j, "syscall_nr", c->syscall);
		gr_json_kv_str(j, "site", gr_block_site(m, c->stack, site, sizeof(site)));
		gr_json_kv_str(j, "waker_site",
			       gr_block_site(m, c->waker_stack, site, sizeof(site)));
		gr_json_key(j, "waker_stack");
		stack_frames_json(j, m, c->waker_stack);
		if (r == GR_BLOCK_INPUT && c->worker_cpu_ns)
			gr_json_kv_u64(j, "worker_cpu_ns_per_step", c->worker_cpu_ns);
		gr_json_object_end(j);
	}
	gr_json_object_end(j);
}
