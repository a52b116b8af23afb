/* SPDX-License-Identifier: MIT */
/*
 * gr_report_compute(): prepares what every section needs from the model, then runs the sections.
 * Two passes are shared: the launch pre-pass (launches per thread, the thread that launches most,
 * a dense id per (kernel name, launch config) pair) and the call-sequence pass, which walks every
 * API call of every thread in time order once and derives per-thread facts: inter-launch gaps,
 * launch entry to the thread's next call (the launch cost estimate), what followed each copy,
 * whether anything but a launch came between two launches (fusion runs), and the main thread's
 * calls as tokens (iteration detection). Also the helpers the sections share.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

const uint64_t gr_report_gap_edges[GR_REPORT_GAP_BUCKETS - 1] = {
    1000, 2000, 5000, 10000, 20000, 50000, 100000, 500000, 1000000, 10000000,
};

const uint64_t gr_report_size_edges[GR_REPORT_SIZE_BUCKETS - 1] = {
    1024, 65536, 1u << 20, 16u << 20, 256u << 20,
};

struct report_priv {
	struct gr_arena arena;
};

/* ---- helpers ---- */

void *rp_alloc(struct rp_ctx *x, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		return NULL;
	return gr_arena_alloc(x->arena, n ? n * size : 1);
}

char *rp_printf(struct rp_ctx *x, const char *fmt, ...)
{
	va_list ap;
	char small[256], *p;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	p = gr_arena_alloc(x->arena, (size_t)len + 1);
	if (!p)
		return NULL;
	if ((size_t)len < sizeof(small)) {
		memcpy(p, small, (size_t)len + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)len + 1, fmt, ap);
		va_end(ap);
	}
	return p;
}

int rp_verdict(struct rp_ctx *x, struct gr_verdict *v, enum gr_verdict_level level, const char *fmt,
	       ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v->level = level;
	v->text = gr_arena_strndup(x->arena, buf, strlen(buf));
	return v->text ? 0 : -ENOMEM;
}

double rp_waves(const struct rp_ctx *x, const struct gr_config *c, uint64_t *blocks)
{
	uint64_t b = (uint64_t)c->grid[0] * c->grid[1] * c->grid[2];
	uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
	uint64_t resident = RP_RESIDENT_BLOCKS;

	if (threads && RP_RESIDENT_THREADS / threads < resident)
		resident = RP_RESIDENT_THREADS / threads;
	if (c->shmem && RP_SHMEM_PER_SM / c->shmem < resident)
		resident = RP_SHMEM_PER_SM / c->shmem;
	if (!resident)
		resident = 1;
	if (blocks)
		*blocks = b;
	return (double)b / ((double)x->sms * (double)resident);
}

int rp_small(const struct rp_ctx *x, const struct gr_config *c)
{
	uint64_t blocks;
	double waves = rp_waves(x, c, &blocks);

	return blocks < x->sms || waves < RP_SMALL_WAVES;
}

uint64_t rp_call_ts(const struct rp_ctx *x, unsigned kind, uint32_t idx)
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

uint64_t rp_call_end(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	switch (kind) {
	case RP_LAUNCH:
		return x->l[idx].ts + rp_launch_dur(x, idx);
	case RP_COPY:
		return x->c[idx].ts + x->c[idx].dur;
	case RP_MEMSET:
		return x->ms[idx].ts + x->ms[idx].dur;
	case RP_SYNC:
		return x->sy[idx].ts + x->sy[idx].dur;
	case RP_GRAPH:
		return x->g[idx].ts + x->g[idx].dur;
	case RP_ALLOC:
		return x->al[idx].ts + x->al[idx].dur;
	case RP_FREE:
		return x->fr[idx].ts + x->fr[idx].dur;
	}
	return 0;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static const char *frame_name(struct rp_ctx *x, uint32_t pid, uint64_t addr)
{
	const struct gr_symbol *sym = gr_model_symbol(x->m, pid, addr);
	const struct gr_mapping *map = gr_model_mapping(x->m, pid, addr);

	if (sym && map)
		return rp_printf(x, "%s (%s)", sym->name, basename_of(map->path));
	if (sym)
		return sym->name;
	if (map)
		return rp_printf(x, "%s+0x%" PRIx64, basename_of(map->path),
				 addr - map->start + map->pgoff);
	return rp_printf(x, "0x%" PRIx64, addr);
}

int rp_site(struct rp_ctx *x, struct gr_report_site *s, uint32_t stack, uint32_t keep_outer)
{
	const struct gr_stack *st = stack < x->nst ? &x->st[stack] : NULL;
	uint32_t n = st ? st->nframes : 0, skip;

	memset(s, 0, sizeof(*s));
	s->stack = stack;
	if (keep_outer && keep_outer < n)
		n = keep_outer;
	if (!n)
		return 0;
	skip = st->nframes - n;
	s->frames = rp_alloc(x, n, sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		s->frames[i] = frame_name(x, st->pid, st->frames[skip + i]);
		if (!s->frames[i])
			return -ENOMEM;
	}
	s->nframes = n;
	return 0;
}

/* ---- launch pre-pass ---- */

static uint32_t thread_of(const struct rp_ctx *x, unsigned kind, size_t i);

/* Launch counts and first/last launch per thread and stream, the (kernel name, config) pairs,
 * and each thread's first API call and last return over every kind of call. */
static int prepass(struct rp_ctx *x)
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
			struct rp_thread *t = &x->thr[thread_of(x, k, i)];
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

static uint32_t token_of(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	switch (kind) {
	case RP_LAUNCH:
		return rp_pair(x, idx);
	case RP_COPY: {
		const struct gr_copy *c = &x->c[idx];
		unsigned b = log2_bucket(c->bytes);

		return x->nkc + (((c->kind & 7u) * 2 + !!(c->flags & GR_COPY_F_ASYNC)) * 64) +
		       (b > 63 ? 63 : b);
	}
	case RP_MEMSET: {
		unsigned b = log2_bucket(x->ms[idx].bytes);

		return x->nkc + 1024 + (b > 63 ? 63 : b);
	}
	default:
		return x->nkc + 1088 + (x->sy[idx].kind > 7 ? 7 : x->sy[idx].kind);
	}
}

static uint32_t thread_of(const struct rp_ctx *x, unsigned kind, size_t i)
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

static unsigned gap_bucket(uint64_t gap)
{
	unsigned b = 0;

	while (b < GR_REPORT_GAP_BUCKETS - 1 && gap >= gr_report_gap_edges[b])
		b++;
	return b;
}

static int sequence_pass(struct rp_ctx *x)
{
	size_t n[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr};
	size_t pos[RP_NCALLS] = {0}, *cursor = NULL, ntok_cap;
	uint64_t *last_launch = NULL, *pending = NULL;
	uint32_t *pending_copy = NULL;
	uint8_t *broke = NULL;
	int err = -ENOMEM;

	x->lflags = calloc(x->nl + 1, 1);
	x->gap_off = calloc(x->nth + 1, sizeof(*x->gap_off));
	x->gaps = malloc((x->nl + 1) * sizeof(*x->gaps));
	x->cost = malloc((x->nl + 1) * sizeof(*x->cost));
	x->copy_next = malloc((x->nc + 1) * sizeof(*x->copy_next));
	cursor = calloc(x->nth + 1, sizeof(*cursor));
	last_launch = malloc((x->nth + 1) * sizeof(*last_launch));
	pending = malloc((x->nth + 1) * sizeof(*pending));
	pending_copy = calloc(x->nth + 1, sizeof(*pending_copy));
	broke = calloc(x->nth + 1, 1);
	if (!x->lflags || !x->gap_off || !x->gaps || !x->cost || !x->copy_next || !cursor ||
	    !last_launch || !pending || !pending_copy || !broke)
		goto out;
	ntok_cap = x->main_thread < x->nth ? x->thr[x->main_thread].launches : 0;
	ntok_cap += x->nc + x->nms + x->nsy + 1;
	x->tok = malloc(ntok_cap * sizeof(*x->tok));
	x->tok_ref = malloc(ntok_cap * sizeof(*x->tok_ref));
	if (!x->tok || !x->tok_ref)
		goto out;
	x->ntokids = x->nkc + 1096;

	/* gaps grouped by thread: a thread with c launches has c - 1 gaps */
	for (size_t t = 0, at = 0; t <= x->nth; t++) {
		x->gap_off[t] = at;
		cursor[t] = at;
		if (t < x->nth && x->thr[t].launches)
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

			if (pending[t] != UINT64_MAX)
				x->cost[x->ncost++] = rp_sat32(l->ts - pending[t]);
			pending[t] = l->ts;
			if (pending_copy[t]) {
				x->copy_next[pending_copy[t] - 1] =
				    (struct rp_next){RP_LAUNCH, (uint32_t)i};
				pending_copy[t] = 0;
			}
			x->lflags[i] = broke[t] ? RP_L_BREAK : 0;
			broke[t] = 0;
			if (last_launch[t] != UINT64_MAX) {
				uint64_t gap = l->ts - last_launch[t];

				x->gaps[cursor[t]++] = rp_sat32(gap);
				x->thr[t].gap_hist[gap_bucket(gap)]++;
				if (x->cpu_has_waits && x->cpu_has_waits[t])
					rp_cpu_gap(x, t, last_launch[t], l->ts);
			}
			last_launch[t] = l->ts;
			if (t == x->main_thread) {
				x->tok[x->ntok] = rp_pair(x, i);
				x->tok_ref[x->ntok++] = (uint32_t)i; /* RP_LAUNCH is 0 */
			}
		}
		if (okind == RP_NCALLS)
			break;
		{
			uint32_t i = (uint32_t)pos[okind]++;
			uint32_t t = thread_of(x, okind, i);

			if (t >= x->nth)
				continue;
			if (pending[t] != UINT64_MAX) {
				x->cost[x->ncost++] = rp_sat32(other - pending[t]);
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
			if (t == x->main_thread && okind <= RP_SYNC) {
				x->tok[x->ntok] = token_of(x, okind, i);
				x->tok_ref[x->ntok++] = (uint32_t)okind << RP_REF_BITS | i;
			}
		}
	}
	err = 0;
out:
	free(cursor);
	free(last_launch);
	free(pending);
	free(pending_copy);
	free(broke);
	return err;
}

/* ---- the whole ---- */

static void ctx_free(struct rp_ctx *x)
{
	rp_cpu_free(x);
	free(x->thr);
	free(x->strm);
	gr_launch_stats_free(&x->ls); /* kc_of is its pair_of_key */
	free(x->kc_key);
	free(x->kc_count);
	free(x->lflags);
	free(x->gaps);
	free(x->gap_off);
	free(x->cost);
	free(x->copy_next);
	free(x->tok);
	free(x->tok_ref);
	if (x->stack_fn) {
		for (size_t i = 0; i < x->nst; i++)
			free(x->stack_fn[i]);
		free(x->stack_fn);
	}
}

int gr_report_compute(const struct gr_model *m, const struct gr_report_opts *o,
		      struct gr_report **out)
{
	struct gr_report_opts def = {0};
	struct report_priv *priv = NULL;
	struct gr_report *r = NULL;
	struct rp_ctx x = {0};
	size_t nlibs;
	uint64_t v;
	int err = -ENOMEM;

	*out = NULL;
	if (!m)
		return -EINVAL;
	if (!o)
		o = &def;
	r = calloc(1, sizeof(*r));
	priv = calloc(1, sizeof(*priv));
	if (!r || !priv) {
		free(r);
		free(priv);
		return -ENOMEM;
	}
	r->priv = priv;
	r->sections = o->sections ? o->sections & GR_REPORT_ALL : GR_REPORT_ALL;
	r->sms = o->sms ? o->sms : GR_REPORT_DEFAULT_SMS;
	gr_model_time_span(m, &r->first_ts, &r->last_ts);
	r->wall_ns = r->last_ts > r->first_ts ? r->last_ts - r->first_ts : 0;
	gr_model_libraries(m, &nlibs);
	r->cuda_libraries = nlibs;
	if (!r->cuda_libraries && gr_model_session(m, GR_SESS_CUDA_SEEN, &v, NULL))
		r->cuda_libraries = v;
	r->lost_events = gr_model_lost_events(m);
	r->ended_abruptly = gr_model_ended_abruptly(m, NULL);

	x.m = m;
	x.r = r;
	x.arena = &priv->arena;
	x.sms = r->sms;
	x.slow_ns = o->slow_launch_ns ? o->slow_launch_ns : GR_REPORT_SLOW_LAUNCH_NS;
	x.l = gr_model_launches(m, &x.nl);
	x.lk = gr_model_launch_keys(m, NULL);
	x.c = gr_model_copies(m, &x.nc);
	x.ms = gr_model_memsets(m, &x.nms);
	x.sy = gr_model_syncs(m, &x.nsy);
	x.g = gr_model_graphs(m, &x.ng);
	x.al = gr_model_allocs(m, &x.nal);
	x.fr = gr_model_frees(m, &x.nfr);
	x.k = gr_model_kernels(m, &x.nk);
	x.cfg = gr_model_configs(m, &x.ncfg);
	x.th = gr_model_threads(m, &x.nth);
	x.st = gr_model_stacks(m, &x.nst);
	gr_model_streams(m, &x.nstreams);

	/* token references keep the index in 29 bits */
	if (x.nl >= RP_REF_MAX || x.nc >= RP_REF_MAX || x.nms >= RP_REF_MAX ||
	    x.nsy >= RP_REF_MAX) {
		gr_report_free(r);
		return -E2BIG;
	}
	err = prepass(&x);
	if (!err && (r->sections & GR_REPORT_CPU))
		err = rp_cpu_timeline(&x);
	if (!err)
		err = sequence_pass(&x);
	/* the launch report and the iteration feed every other section */
	if (!err)
		err = rp_iteration(&x);
	if (!err)
		err = rp_launches(&x);
	if (!err && (r->sections & GR_REPORT_FUSION))
		err = rp_fusion(&x);
	if (!err && (r->sections & GR_REPORT_TRANSFER))
		err = rp_transfer(&x);
	if (!err && (r->sections & GR_REPORT_CPU))
		err = rp_cpu(&x);
	ctx_free(&x);
	if (err) {
		gr_report_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void gr_report_free(struct gr_report *r)
{
	struct report_priv *priv;

	if (!r)
		return;
	priv = r->priv;
	if (priv) {
		gr_arena_free(&priv->arena);
		free(priv);
	}
	free(r);
}
