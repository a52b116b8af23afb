/* SPDX-License-Identifier: MIT */
/*
 * NVTX ranges and their statistics (nvtx.h). One pass over the NVTX calls pairs them; the
 * statistics then ask, per range, what its thread (or process) did in [start, end), through
 * per-thread call tables with prefix sums: two binary searches a range, whatever its length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/keymap.h"
#include "nvtx.h"

/* What a name entry names: the NAME_* op's thread, stream, device or category. */
struct gr_nvtx_name {
	uint8_t what; /* enum gr_nvtx_op: GR_NVTX_NAME_THREAD .. */
	uint32_t pid;
	uint64_t a, b; /* tid / stream handle / device / (domain handle, category) */
	size_t seq;    /* call order: the last name given wins */
	const char *text;
};

static int cmp_name(const void *pa, const void *pb)
{
	const struct gr_nvtx_name *a = pa, *b = pb;

	if (a->what != b->what)
		return a->what < b->what ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sort the names and keep the last of each key. */
static void settle_names(struct gr_nvtx_set *s)
{
	size_t k = 0;

	gr_qsort(s->names, s->nnames, sizeof(*s->names), cmp_name);
	for (size_t i = 0; i < s->nnames; i++) {
		const struct gr_nvtx_name *n = &s->names[i];

		if (k && s->names[k - 1].what == n->what && s->names[k - 1].pid == n->pid &&
		    s->names[k - 1].a == n->a && s->names[k - 1].b == n->b)
			k--;
		s->names[k++] = *n;
	}
	s->nnames = k;
}

static const char *find_name(const struct gr_nvtx_set *s, uint8_t what, uint32_t pid, uint64_t a,
			     uint64_t b)
{
	struct gr_nvtx_name key = {.what = what, .pid = pid, .a = a, .b = b};
	size_t lo = 0, hi = s ? s->nnames : 0;

	/* by key alone: one entry a key after settle_names() */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		key.seq = s->names[mid].seq;
		if (cmp_name(&s->names[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < (s ? s->nnames : 0)) {
		const struct gr_nvtx_name *n = &s->names[lo];

		if (n->what == what && n->pid == pid && n->a == a && n->b == b)
			return n->text;
	}
	return NULL;
}

const char *gr_nvtx_thread_name(const struct gr_nvtx_set *s, uint32_t pid, uint32_t tid)
{
	return find_name(s, GR_NVTX_NAME_THREAD, pid, tid, 0);
}

const char *gr_nvtx_stream_name(const struct gr_nvtx_set *s, uint32_t pid, uint64_t handle)
{
	return find_name(s, GR_NVTX_NAME_STREAM, pid, handle, 0);
}

const char *gr_nvtx_device_name(const struct gr_nvtx_set *s, uint32_t pid, uint32_t device)
{
	return find_name(s, GR_NVTX_NAME_DEVICE, pid, device, 0);
}

const char *gr_nvtx_category_name(const struct gr_nvtx_set *s, uint32_t pid, uint64_t domain,
				  uint32_t category)
{
	return find_name(s, GR_NVTX_NAME_CATEGORY, pid, domain, category);
}

void gr_nvtx_free(struct gr_nvtx_set *s)
{
	if (!s)
		return;
	free(s->ranges);
	free(s->marks);
	free(s->domains);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* Grow *@v (of @size-byte items, *@cap of them) to hold @n + 1. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

/* An open push/pop stack of one (thread, domain): range indexes, innermost last. */
struct stack {
	uint32_t *v;
	size_t n, cap;
};

struct build {
	const char *(*text)(const void *ctx, uint32_t idx);
	const void *ctx;
	const struct gr_thread *th;
	size_t nth;
	struct gr_nvtx_set *s;
	size_t ranges_cap, marks_cap, domains_cap, names_cap;
	struct gr_keymap domain_of; /* (pid, handle) -> domains index - 1 */
	struct gr_keymap stack_of;  /* (thread, domain) -> stacks index */
	struct stack *stacks;
	size_t stacks_cap;
	struct gr_keymap open_of; /* (pid, id) -> open_range index */
	uint32_t *open_range;	  /* range of a started id, UINT32_MAX when ended */
	size_t open_cap;
};

static uint32_t pid_of(const struct build *b, uint32_t thread)
{
	return thread < b->nth ? b->th[thread].pid : 0;
}

/* The domains index of (@pid, @handle), added when new; 0 for the default domain. */
static int domain_index(struct build *b, uint32_t pid, uint64_t handle, uint32_t *out)
{
	uint64_t key[2] = {pid, handle};
	uint32_t idx;
	int added;

	*out = 0;
	if (!handle)
		return 0;
	added = gr_keymap_intern(&b->domain_of, key, &idx);
	if (added < 0)
		return added;
	if (added) {
		if (grow((void **)&b->s->domains, &b->domains_cap, b->s->ndomains,
			 sizeof(*b->s->domains)))
			return -ENOMEM;
		b->s->domains[b->s->ndomains++] =
		    (struct gr_nvtx_domain){.pid = pid, .handle = handle, .name = ""};
	}
	*out = idx + 1;
	return 0;
}

static int add_name(struct build *b, const struct gr_nvtx *e, size_t seq)
{
	struct gr_nvtx_set *s = b->s;
	struct gr_nvtx_name *n;

	if (grow((void **)&s->names, &b->names_cap, s->nnames, sizeof(*s->names)))
		return -ENOMEM;
	n = &s->names[s->nnames++];
	*n = (struct gr_nvtx_name){.what = e->op,
				   .pid = pid_of(b, e->thread),
				   .a = e->id,
				   .seq = seq,
				   .text = b->text(b->ctx, e->text)};
	if (e->op == GR_NVTX_NAME_CATEGORY) {
		n->a = e->domain;
		n->b = e->id;
	}
	return 0;
}

static int new_range(struct build *b, const struct gr_nvtx *e, uint32_t domain, uint32_t *idx)
{
	struct gr_nvtx_set *s = b->s;

	if (s->nranges >= UINT32_MAX - 1 ||
	    grow((void **)&s->ranges, &b->ranges_cap, s->nranges, sizeof(*s->ranges)))
		return -ENOMEM;
	*idx = (uint32_t)s->nranges;
	s->ranges[s->nranges++] = (struct gr_nvtx_range){
	    .start = e->ts,
	    .thread = e->thread,
	    .end_thread = e->thread,
	    .name = e->text,
	    .domain = domain,
	    .category = e->category,
	    .color = e->color,
	    .parent = UINT32_MAX,
	    .kind = e->op == GR_NVTX_PUSH ? GR_NVTX_RANGE_PUSHPOP : GR_NVTX_RANGE_STARTEND,
	    .payload_type = e->payload_type,
	    .payload = e->payload,
	};
	return 0;
}

static int push_pop(struct build *b, const struct gr_nvtx *e, uint32_t domain)
{
	uint64_t key[2] = {e->thread, domain};
	struct stack *st;
	uint32_t si, r;
	int added = gr_keymap_intern(&b->stack_of, key, &si);

	if (added < 0)
		return added;
	if (added) {
		if (grow((void **)&b->stacks, &b->stacks_cap, si, sizeof(*b->stacks)))
			return -ENOMEM;
		memset(&b->stacks[si], 0, sizeof(*b->stacks));
	}
	st = &b->stacks[si];
	if (e->op == GR_NVTX_POP) {
		if (!st->n) {
			b->s->unmatched_pops++;
			return 0;
		}
		r = st->v[--st->n];
		b->s->ranges[r].end = e->ts;
		b->s->ranges[r].closed = 1;
		return 0;
	}
	if (new_range(b, e, domain, &r) || grow((void **)&st->v, &st->cap, st->n, sizeof(*st->v)))
		return -ENOMEM;
	if (st->n) {
		b->s->ranges[r].parent = st->v[st->n - 1];
		b->s->ranges[r].depth = (uint16_t)(st->n > UINT16_MAX ? UINT16_MAX : st->n);
	}
	st->v[st->n++] = r;
	return 0;
}

static int start_end(struct build *b, const struct gr_nvtx *e, uint32_t domain)
{
	uint64_t key[2] = {pid_of(b, e->thread), e->id};
	uint32_t oi, r;
	int added;

	if (e->op == GR_NVTX_END) {
		int64_t f = gr_keymap_find(&b->open_of, key);

		if (f < 0 || b->open_range[f] == UINT32_MAX) {
			b->s->unmatched_ends++;
			return 0;
		}
		r = b->open_range[f];
		b->open_range[f] = UINT32_MAX;
		b->s->ranges[r].end = e->ts;
		b->s->ranges[r].end_thread = e->thread;
		b->s->ranges[r].closed = 1;
		return 0;
	}
	added = gr_keymap_intern(&b->open_of, key, &oi);
	if (added < 0)
		return added;
	if (added && grow((void **)&b->open_range, &b->open_cap, oi, sizeof(*b->open_range)))
		return -ENOMEM;
	if (new_range(b, e, domain, &r))
		return -ENOMEM;
	/* an id started again before its end: the earlier range stays unclosed */
	b->open_range[oi] = r;
	return 0;
}

static int cmp_range_order(const void *pa, const void *pb, void *arg)
{
	const struct gr_nvtx_range *v = arg;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct gr_nvtx_range *a = &v[ia], *b = &v[ib];

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* Order the ranges by (start, depth), parents renumbered; unclosed ones end at @last. */
static int settle_ranges(struct gr_nvtx_set *s, uint64_t last)
{
	uint32_t *order = malloc((s->nranges + 1) * sizeof(*order));
	uint32_t *pos = malloc((s->nranges + 1) * sizeof(*pos));
	struct gr_nvtx_range *v = malloc((s->nranges + 1) * sizeof(*v));

	if (!order || !pos || !v) {
		free(order);
		free(pos);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nranges; i++) {
		order[i] = (uint32_t)i;
		if (!s->ranges[i].closed)
			s->ranges[i].end = last > s->ranges[i].start ? last : s->ranges[i].start;
	}
	gr_qsort_r(order, s->nranges, sizeof(*order), cmp_range_order, s->ranges);
	for (size_t i = 0; i < s->nranges; i++)
		pos[order[i]] = (uint32_t)i;
	for (size_t i = 0; i < s->nranges; i++) {
		v[i] = s->ranges[order[i]];
		if (v[i].parent != UINT32_MAX)
			v[i].parent = pos[v[i].parent];
	}
	free(s->ranges);
	s->ranges = v;
	free(order);
	free(pos);
	return 0;
}

int gr_nvtx_build_events(const struct gr_nvtx *ev, size_t n, const struct gr_thread *th, size_t nth,
			 const char *(*text)(const void *ctx, uint32_t idx), const void *ctx,
			 uint64_t last, struct gr_nvtx_set *out)
{
	struct build b = {.text = text, .ctx = ctx, .th = th, .nth = nth, .s = out};
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->text = text;
	out->text_ctx = ctx;
	gr_keymap_init(&b.domain_of, 2);
	gr_keymap_init(&b.stack_of, 2);
	gr_keymap_init(&b.open_of, 2);
	if (grow((void **)&out->domains, &b.domains_cap, 0, sizeof(*out->domains)))
		goto out;
	out->domains[out->ndomains++] = (struct gr_nvtx_domain){.name = ""};
	for (size_t i = 0; i < n; i++) {
		const struct gr_nvtx *e = &ev[i];
		uint32_t pid = pid_of(&b, e->thread), domain;

		err = domain_index(&b, pid, e->domain, &domain);
		if (err)
			goto out;
		switch (e->op) {
		case GR_NVTX_PUSH:
		case GR_NVTX_POP:
			err = push_pop(&b, e, domain);
			break;
		case GR_NVTX_START:
		case GR_NVTX_END:
			err = start_end(&b, e, domain);
			break;
		case GR_NVTX_MARK:
			err = grow((void **)&out->marks, &b.marks_cap, out->nmarks,
				   sizeof(*out->marks));
			if (!err)
				out->marks[out->nmarks++] = e;
			break;
		case GR_NVTX_NAME_DOMAIN:
			if (domain)
				out->domains[domain].name = text(ctx, e->text);
			break;
		case GR_NVTX_NAME_CATEGORY:
		case GR_NVTX_NAME_THREAD:
		case GR_NVTX_NAME_STREAM:
		case GR_NVTX_NAME_DEVICE:
			err = add_name(&b, e, i);
			break;
		default: /* an op of a later format: not ours to pair */
			break;
		}
		if (err)
			goto out;
	}
	err = settle_ranges(out, last);
	if (err)
		goto out;
	settle_names(out);
out:
	for (size_t i = 0; i < b.stack_of.len && i < b.stacks_cap; i++)
		free(b.stacks[i].v);
	free(b.stacks);
	free(b.open_range);
	gr_keymap_free(&b.domain_of);
	gr_keymap_free(&b.stack_of);
	gr_keymap_free(&b.open_of);
	if (err)
		gr_nvtx_free(out);
	return err;
}

static const char *model_text(const void *ctx, uint32_t idx)
{
	return gr_model_nvtx_text(ctx, idx);
}

int gr_nvtx_build(const struct gr_model *m, struct gr_nvtx_set *out)
{
	size_t n, nth;
	const struct gr_nvtx *ev = gr_model_nvtx(m, &n);
	const struct gr_thread *th = gr_model_threads(m, &nth);
	uint64_t first, last;

	gr_model_time_span(m, &first, &last);
	return gr_nvtx_build_events(ev, n, th, nth, model_text, m, last, out);
}

const char *gr_nvtx_text(const struct gr_nvtx_set *s, uint32_t idx)
{
	const char *t = s && s->text ? s->text(s->text_ctx, idx) : NULL;

	return t ? t : "";
}

int gr_nvtx_range_named(const struct gr_nvtx_set *s, const struct gr_nvtx_range *r,
			const char *spec)
{
	const char *name = gr_nvtx_text(s, r->name), *colon, *domain;

	if (!strcmp(spec, name))
		return 1;
	colon = strchr(spec, ':');
	if (!colon || r->domain >= s->ndomains)
		return 0;
	domain = s->domains[r->domain].name;
	return strlen(domain) == (size_t)(colon - spec) && !memcmp(spec, domain, strlen(domain)) &&
	       !strcmp(colon + 1, name);
}

/* ---- statistics ---- */

/* A CUDA API call of one thread, for the per-thread tables. */
struct call {
	uint64_t ts, dur;
	uint32_t kernels;
	uint8_t launch;
};

/* A GPU row by the thread whose call asked for it. */
struct gpu_op {
	uint64_t host_ts, dur;
};

/* Per model thread, its calls by ts with prefix sums (entry i: the calls before i). */
struct tables {
	size_t *call_at; /* nth + 1 offsets into calls */
	struct call *calls;
	uint64_t *pre_launches, *pre_kernels, *pre_ns; /* ncalls + 1 each */
	size_t *gpu_at;				       /* nth + 1 offsets into gpu */
	struct gpu_op *gpu;
	uint64_t *pre_gpu_ns; /* ngpu + 1 */
	size_t ncalls, ngpu;
};

static int cmp_call(const void *pa, const void *pb)
{
	const struct call *a = pa, *b = pb;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int cmp_gpu_op(const void *pa, const void *pb)
{
	const struct gpu_op *a = pa, *b = pb;

	return a->host_ts < b->host_ts ? -1 : a->host_ts > b->host_ts;
}

static void tables_free(struct tables *t)
{
	free(t->call_at);
	free(t->calls);
	free(t->pre_launches);
	free(t->pre_kernels);
	free(t->pre_ns);
	free(t->gpu_at);
	free(t->gpu);
	free(t->pre_gpu_ns);
}

/* A call's time without the probes' share; as recorded without @pc. */
static uint64_t call_dur(struct gr_probe_cost *pc, uint64_t dur)
{
	return pc ? gr_probe_cost_dur(pc, dur) : dur;
}

/* Every call of the event arrays, in two passes: count per thread, then place. */
static void place_calls(const struct gr_model *m, const struct gr_graphs *g,
			struct gr_probe_cost *pc, size_t nth, size_t *at, struct call *out)
{
	size_t nl, nlk, nc, nms, nsy, ng, nal, nfr;
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const struct gr_launch_key *lk = gr_model_launch_keys(m, &nlk);
	const struct gr_copy *c = gr_model_copies(m, &nc);
	const struct gr_memset *ms = gr_model_memsets(m, &nms);
	const struct gr_sync *sy = gr_model_syncs(m, &nsy);
	const struct gr_graph *gr = gr_model_graphs(m, &ng);
	const struct gr_alloc *al = gr_model_allocs(m, &nal);
	const struct gr_free *fr = gr_model_frees(m, &nfr);

#define PLACE(thread, ...)                                                                         \
	do {                                                                                       \
		uint32_t t_ = (thread);                                                            \
		if (t_ < nth) {                                                                    \
			if (out)                                                                   \
				out[at[t_]] = (struct call){__VA_ARGS__};                          \
			at[t_]++;                                                                  \
		}                                                                                  \
	} while (0)

	for (size_t i = 0; i < nl; i++) {
		const struct gr_launch_key *k = &lk[l[i].key];
		int node = gr_graphs_api_is_node(k->api);

		PLACE(k->thread, .ts = l[i].ts, .dur = call_dur(pc, gr_launch_dur(k, &l[i])),
		      .kernels = !node && !gr_graphs_launch_is_node(g, i), .launch = !node);
	}
	for (size_t i = 0; i < nc; i++)
		PLACE(c[i].thread, .ts = c[i].ts, .dur = call_dur(pc, c[i].dur));
	for (size_t i = 0; i < nms; i++)
		PLACE(ms[i].thread, .ts = ms[i].ts, .dur = call_dur(pc, ms[i].dur));
	for (size_t i = 0; i < nsy; i++)
		PLACE(sy[i].thread, .ts = sy[i].ts, .dur = call_dur(pc, sy[i].dur));
	for (size_t i = 0; i < ng; i++) {
		struct gr_graph_work w = {0};
		int launch = gr[i].kind == GR_GRAPH_LAUNCH;

		if (launch && g)
			gr_graphs_launch_work(g, i, &w);
		PLACE(gr[i].thread, .ts = gr[i].ts, .dur = call_dur(pc, gr[i].dur),
		      .kernels = w.nkernels, .launch = (uint8_t)launch);
	}
	for (size_t i = 0; i < nal; i++)
		PLACE(al[i].thread, .ts = al[i].ts, .dur = call_dur(pc, al[i].dur));
	for (size_t i = 0; i < nfr; i++)
		PLACE(fr[i].thread, .ts = fr[i].ts, .dur = call_dur(pc, fr[i].dur));
#undef PLACE
}

static int tables_build(const struct gr_model *m, const struct gr_graphs *g,
			struct gr_probe_cost *pc, struct tables *t)
{
	size_t nth, ngr;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	const struct gr_gpu *gpu = gr_model_gpus(m, &ngr);
	struct gr_keymap thread_of;
	size_t *at = calloc(nth + 1, sizeof(*at)), sum = 0;
	uint32_t *gpu_thread = malloc((ngr + 1) * sizeof(*gpu_thread));
	int err = -ENOMEM;

	memset(t, 0, sizeof(*t));
	gr_keymap_init(&thread_of, 1);
	t->call_at = calloc(nth + 1, sizeof(*t->call_at));
	t->gpu_at = calloc(nth + 1, sizeof(*t->gpu_at));
	if (!at || !gpu_thread || !t->call_at || !t->gpu_at)
		goto out;
	place_calls(m, g, pc, nth, at, NULL);
	for (size_t i = 0; i < nth; i++) {
		t->call_at[i] = sum;
		sum += at[i];
		at[i] = t->call_at[i];
	}
	t->call_at[nth] = t->ncalls = sum;
	t->calls = malloc((sum + 1) * sizeof(*t->calls));
	t->pre_launches = malloc((sum + 1) * sizeof(uint64_t));
	t->pre_kernels = malloc((sum + 1) * sizeof(uint64_t));
	t->pre_ns = malloc((sum + 1) * sizeof(uint64_t));
	if (!t->calls || !t->pre_launches || !t->pre_kernels || !t->pre_ns)
		goto out;
	place_calls(m, g, pc, nth, at, t->calls);
	for (size_t i = 0; i < nth; i++)
		gr_qsort(t->calls + t->call_at[i], t->call_at[i + 1] - t->call_at[i],
			 sizeof(*t->calls), cmp_call);
	t->pre_launches[0] = t->pre_kernels[0] = t->pre_ns[0] = 0;
	for (size_t i = 0; i < sum; i++) {
		t->pre_launches[i + 1] = t->pre_launches[i] + t->calls[i].launch;
		t->pre_kernels[i + 1] = t->pre_kernels[i] + t->calls[i].kernels;
		t->pre_ns[i + 1] = t->pre_ns[i] + t->calls[i].dur;
	}

	/* GPU rows by the model thread of (pid, host_tid) */
	for (size_t i = 0; i < nth; i++) {
		uint64_t key = (uint64_t)th[i].pid << 32 | th[i].tid;
		uint32_t idx;

		if (gr_keymap_intern(&thread_of, &key, &idx) < 0)
			goto out;
	}
	memset(at, 0, (nth + 1) * sizeof(*at));
	for (size_t i = 0; i < ngr; i++) {
		uint64_t key = (uint64_t)gpu[i].pid << 32 | gpu[i].host_tid;
		int64_t f = gpu[i].host_tid && gpu[i].host_ts && gpu[i].kind <= GR_GPU_MEMSET
				? gr_keymap_find(&thread_of, &key)
				: -1;

		gpu_thread[i] = f < 0 ? UINT32_MAX : (uint32_t)f;
		if (f >= 0)
			at[f]++;
	}
	sum = 0;
	for (size_t i = 0; i < nth; i++) {
		t->gpu_at[i] = sum;
		sum += at[i];
		at[i] = t->gpu_at[i];
	}
	t->gpu_at[nth] = t->ngpu = sum;
	t->gpu = malloc((sum + 1) * sizeof(*t->gpu));
	t->pre_gpu_ns = malloc((sum + 1) * sizeof(uint64_t));
	if (!t->gpu || !t->pre_gpu_ns)
		goto out;
	for (size_t i = 0; i < ngr; i++)
		if (gpu_thread[i] != UINT32_MAX)
			t->gpu[at[gpu_thread[i]]++] =
			    (struct gpu_op){.host_ts = gpu[i].host_ts, .dur = gpu[i].dur};
	for (size_t i = 0; i < nth; i++)
		gr_qsort(t->gpu + t->gpu_at[i], t->gpu_at[i + 1] - t->gpu_at[i], sizeof(*t->gpu),
			 cmp_gpu_op);
	t->pre_gpu_ns[0] = 0;
	for (size_t i = 0; i < sum; i++)
		t->pre_gpu_ns[i + 1] = t->pre_gpu_ns[i] + t->gpu[i].dur;
	err = 0;
out:
	free(at);
	free(gpu_thread);
	gr_keymap_free(&thread_of);
	if (err)
		tables_free(t);
	return err;
}

/* The first call in [lo, hi) of the tables with ts >= @ts. */
static size_t call_lb(const struct tables *t, size_t lo, size_t hi, uint64_t ts)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->calls[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t gpu_lb(const struct tables *t, size_t lo, size_t hi, uint64_t ts)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->gpu[mid].host_ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Add what thread @th did in [@a, @b) to @st. */
static void add_inside(const struct tables *t, uint32_t th, uint64_t a, uint64_t b,
		       struct gr_nvtx_stat *st)
{
	size_t i = call_lb(t, t->call_at[th], t->call_at[th + 1], a);
	size_t j = call_lb(t, i, t->call_at[th + 1], b);

	st->launches += t->pre_launches[j] - t->pre_launches[i];
	st->kernels += t->pre_kernels[j] - t->pre_kernels[i];
	st->api_ns += t->pre_ns[j] - t->pre_ns[i];
	st->api_calls += j - i;
	i = gpu_lb(t, t->gpu_at[th], t->gpu_at[th + 1], a);
	j = gpu_lb(t, i, t->gpu_at[th + 1], b);
	st->gpu_ops += j - i;
	st->gpu_ns += t->pre_gpu_ns[j] - t->pre_gpu_ns[i];
}

/* The time of [@a, @b) inside the steps of @step. */
static uint64_t in_steps(const struct gr_nvtx_step *step, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = step->n;
	uint64_t sum = 0;

	/* the first step that ends after a (steps are in time order and apart) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (step->starts[mid] + step->durs[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j < step->n && step->starts[j] < b; j++) {
		uint64_t s = step->starts[j] > a ? step->starts[j] : a;
		uint64_t e =
		    step->starts[j] + step->durs[j] < b ? step->starts[j] + step->durs[j] : b;

		if (e > s)
			sum += e - s;
	}
	return sum;
}

static int in_a_step(const struct gr_nvtx_step *step, uint64_t ts)
{
	return step && step->n && in_steps(step, ts, ts + 1);
}

/* A range's duration, for the quantiles: (stat, dur). */
struct stat_dur {
	uint32_t stat;
	uint64_t dur;
};

static int cmp_stat_dur(const void *pa, const void *pb)
{
	const struct stat_dur *a = pa, *b = pb;

	if (a->stat != b->stat)
		return a->stat < b->stat ? -1 : 1;
	return a->dur < b->dur ? -1 : a->dur > b->dur;
}

struct order_ctx {
	const struct gr_nvtx_set *s;
	const struct gr_nvtx_stat *v;
};

static int cmp_stat_order(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *o = arg;
	const struct gr_nvtx_stat *a = &o->v[*(const uint32_t *)pa],
				  *b = &o->v[*(const uint32_t *)pb];
	int c;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	c = strcmp(gr_nvtx_text(o->s, a->name), gr_nvtx_text(o->s, b->name));
	if (c)
		return c;
	return a->domain < b->domain ? -1 : a->domain > b->domain;
}

/*
 * Per range, 1 when a range of its name encloses it on its (thread, domain) stack: the ranges of
 * one stack nest properly, so in start order a range is inside an earlier one of its name iff it
 * starts before the latest end among them. One pass. NULL when out of memory.
 */
static uint8_t *nested_in_same(const struct gr_nvtx_set *s)
{
	uint8_t *inner = calloc(s->nranges + 1, 1);
	uint64_t *end = NULL;
	size_t cap = 0;
	struct gr_keymap group;

	gr_keymap_init(&group, 3);
	for (size_t i = 0; inner && i < s->nranges; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];
		uint64_t key[3] = {r->thread, r->domain, r->name};
		uint32_t g;
		int added;

		if (r->kind != GR_NVTX_RANGE_PUSHPOP)
			continue;
		added = gr_keymap_intern(&group, key, &g);
		if (added < 0 || (added && grow((void **)&end, &cap, g, sizeof(*end)))) {
			free(inner);
			inner = NULL;
			break;
		}
		if (added)
			end[g] = 0;
		inner[i] = r->start < end[g];
		if (r->end > end[g])
			end[g] = r->end;
	}
	free(end);
	gr_keymap_free(&group);
	return inner;
}

/* Most frequent enclosing stat of each stat, into v[].parent (cycles broken). */
static int pick_parents(const struct gr_nvtx_set *s, const uint32_t *stat_of,
			struct gr_nvtx_stat *v, size_t n)
{
	struct stat_dur *pairs = malloc((s->nranges + 1) * sizeof(*pairs));
	uint8_t *state;
	uint32_t *path;
	size_t np = 0;

	if (!pairs)
		return -ENOMEM;
	for (size_t i = 0; i < s->nranges; i++) {
		uint32_t p = s->ranges[i].parent;

		if (p != UINT32_MAX && stat_of[p] != stat_of[i])
			pairs[np++] = (struct stat_dur){.stat = stat_of[i], .dur = stat_of[p]};
	}
	gr_qsort(pairs, np, sizeof(*pairs), cmp_stat_dur);
	for (size_t i = 0; i < n; i++)
		v[i].parent = UINT32_MAX;
	for (size_t i = 0, best = 0; i < np;) {
		size_t j = i;

		while (j < np && pairs[j].stat == pairs[i].stat && pairs[j].dur == pairs[i].dur)
			j++;
		if (!i || pairs[i - 1].stat != pairs[i].stat)
			best = 0;
		if (j - i > best) {
			best = j - i;
			v[pairs[i].stat].parent = (uint32_t)pairs[i].dur;
		}
		i = j;
	}
	free(pairs);
	/* a stat nested in another here and the other way round there: the link that closes a
	 * loop goes, each chain walked once */
	state = calloc(n + 1, 1);
	path = malloc((n + 1) * sizeof(*path));
	if (!state || !path) {
		free(state);
		free(path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t cur = (uint32_t)i;
		size_t len = 0;

		while (cur != UINT32_MAX && !state[cur]) {
			state[cur] = 1;
			path[len++] = cur;
			cur = v[cur].parent;
		}
		if (cur != UINT32_MAX && state[cur] == 1)
			v[path[len - 1]].parent = UINT32_MAX;
		while (len)
			state[path[--len]] = 2;
	}
	free(state);
	free(path);
	return 0;
}

/* Order @v depth first (siblings by cmp_stat_order) and renumber parents: O(n log n). */
static int order_stats(const struct gr_nvtx_set *s, struct gr_nvtx_stats *out)
{
	size_t n = out->n, nout = 0, nstack = 0;
	uint32_t *sorted = malloc((n + 1) * sizeof(*sorted));
	uint32_t *kids = malloc((n + 1) * sizeof(*kids));
	size_t *at = calloc(n + 2, sizeof(*at));
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	uint32_t *pos = malloc((n + 1) * sizeof(*pos));
	struct gr_nvtx_stat *v = malloc((n + 1) * sizeof(*v));
	struct order_ctx o = {s, out->v};
	int err = -ENOMEM;

	if (!sorted || !kids || !at || !stack || !pos || !v)
		goto out;
	for (size_t i = 0; i < n; i++)
		sorted[i] = (uint32_t)i;
	gr_qsort_r(sorted, n, sizeof(*sorted), cmp_stat_order, &o);
	/* the children of each stat (bucket n: the roots), in sibling order */
#define BUCKET(p) ((p) == UINT32_MAX ? n : (size_t)(p))
	for (size_t i = 0; i < n; i++)
		at[BUCKET(out->v[i].parent) + 1]++;
	for (size_t b = 0; b <= n; b++)
		at[b + 1] += at[b];
	for (size_t i = 0; i < n; i++)
		kids[at[BUCKET(out->v[sorted[i]].parent)]++] = sorted[i];
	/* at[b] is now the end of bucket b, and at[b - 1] its start */
	for (size_t k = at[n]; k-- > (n ? at[n - 1] : 0);)
		stack[nstack++] = kids[k];
	while (nstack) {
		uint32_t cur = stack[--nstack];

		pos[cur] = (uint32_t)nout;
		v[nout++] = out->v[cur];
		for (size_t k = at[cur]; k-- > (cur ? at[cur - 1] : 0);)
			stack[nstack++] = kids[k];
	}
#undef BUCKET
	for (size_t i = 0; i < nout; i++)
		if (v[i].parent != UINT32_MAX)
			v[i].parent = pos[v[i].parent];
	free(out->v);
	out->v = v;
	out->n = nout;
	v = NULL;
	err = 0;
out:
	free(sorted);
	free(kids);
	free(at);
	free(stack);
	free(pos);
	free(v);
	return err;
}

void gr_nvtx_stats_free(struct gr_nvtx_stats *st)
{
	if (!st)
		return;
	free(st->v);
	memset(st, 0, sizeof(*st));
}

int gr_nvtx_stats_compute(const struct gr_model *m, const struct gr_nvtx_set *s,
			  const struct gr_graphs *graphs, struct gr_probe_cost *pc,
			  const struct gr_nvtx_step *step, struct gr_nvtx_stats *out)
{
	size_t nth, ngpu, cap = 0;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	struct tables t = {0};
	struct gr_keymap stat_of_key;
	uint32_t *group = malloc((s->ndomains + 1) * sizeof(*group));
	uint32_t *stat_of = malloc((s->nranges + 1) * sizeof(*stat_of));
	struct stat_dur *durs = malloc((s->nranges + 1) * sizeof(*durs));
	uint8_t *inner = NULL;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	gr_keymap_init(&stat_of_key, 2);
	gr_model_gpus(m, &ngpu);
	out->has_gpu = ngpu > 0;
	out->step_thread = UINT32_MAX;
	if (step && step->n) {
		out->steps = step->n;
		out->step_thread = step->thread;
		for (size_t j = 0; j < step->n; j++)
			out->step_ns += step->durs[j];
	}
	if (!group || !stat_of || !durs)
		goto out;
	if (!s->nranges) {
		err = 0;
		goto out;
	}
	/* domains of one name are one, in whichever process */
	for (size_t d = 0; d < s->ndomains; d++) {
		group[d] = (uint32_t)d;
		for (size_t e = 0; e < d; e++)
			if (!strcmp(s->domains[e].name, s->domains[d].name)) {
				group[d] = (uint32_t)e;
				break;
			}
	}
	err = tables_build(m, graphs, pc, &t);
	if (err)
		goto out;
	err = -ENOMEM;
	inner = nested_in_same(s);
	if (!inner)
		goto out;
	for (size_t i = 0; i < s->nranges; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];
		uint64_t key[2] = {r->name, r->domain < s->ndomains ? group[r->domain] : 0};
		struct gr_nvtx_stat *st;
		uint32_t idx;
		int added = gr_keymap_intern(&stat_of_key, key, &idx);

		if (added < 0)
			goto out;
		if (added) {
			if (grow((void **)&out->v, &cap, idx, sizeof(*out->v)))
				goto out;
			out->n = idx + 1;
			out->v[idx] = (struct gr_nvtx_stat){
			    .name = r->name,
			    .domain = (uint32_t)key[1],
			    .kind = r->kind,
			    .depth = r->depth,
			};
		}
		stat_of[i] = idx;
		st = &out->v[idx];
		st->count++;
		st->unclosed += !r->closed;
		st->total_ns += r->end - r->start;
		if (r->depth < st->depth)
			st->depth = r->depth;
		durs[i] = (struct stat_dur){.stat = idx, .dur = r->end - r->start};
		if (in_a_step(step, r->start) && r->thread < nth &&
		    th[r->thread].pid == th[step->thread < nth ? step->thread : 0].pid)
			st->step_count++;
		if (inner[i])
			continue;
		if (step && step->n && r->thread == step->thread)
			st->step_ns += in_steps(step, r->start, r->end);
		if (r->thread >= nth)
			continue;
		if (r->kind == GR_NVTX_RANGE_PUSHPOP) {
			add_inside(&t, r->thread, r->start, r->end, st);
			continue;
		}
		for (uint32_t u = 0; u < nth; u++)
			if (th[u].pid == th[r->thread].pid)
				add_inside(&t, u, r->start, r->end, st);
	}
	gr_qsort(durs, s->nranges, sizeof(*durs), cmp_stat_dur);
	for (size_t i = 0; i < s->nranges;) {
		struct gr_nvtx_stat *st = &out->v[durs[i].stat];
		size_t k = (size_t)st->count;

		/* the lower median, as gr_dist's; p90 by nearest rank */
		st->median_ns = durs[i + (k - 1) / 2].dur;
		st->p90_ns = durs[i + (k * 9 + 9) / 10 - 1].dur;
		st->max_ns = durs[i + k - 1].dur;
		if (out->step_ns)
			st->step_share = (double)st->step_ns / (double)out->step_ns;
		i += k;
	}
	err = pick_parents(s, stat_of, out->v, out->n);
	if (!err)
		err = order_stats(s, out);
out:
	tables_free(&t);
	gr_keymap_free(&stat_of_key);
	free(group);
	free(stat_of);
	free(durs);
	free(inner);
	if (err)
		gr_nvtx_stats_free(out);
	return err;
}

/* ---- ranges as steps ---- */

size_t gr_nvtx_step_bounds(const struct gr_nvtx_set *s, uint32_t thread, const char *spec,
			   uint64_t *bounds)
{
	uint64_t end = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->nranges; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];

		if (r->thread != thread || r->kind != GR_NVTX_RANGE_PUSHPOP || r->start < end ||
		    !gr_nvtx_range_named(s, r, spec))
			continue;
		bounds[n++] = r->start;
		end = r->end;
	}
	if (n)
		bounds[n] = end;
	return n;
}

/*
 * Whether the @n ranges (@starts sorted, @ends theirs) come once an iteration of a loop whose
 * @count iterations start at @iter, the last ending at @end_ts: each span from an iteration's
 * start to the next holds exactly one start, and the last iteration has one too, in either
 * phase: the range opens before its iteration's first call (the last one before the loop holds
 * the first call) or after it (one opens in the last iteration). Three iterations at least. The
 * iterations' bounds decide, not their times: a warm-up iteration or a busy machine stretches a
 * span but moves no range into another. A range twice an iteration, or in some only, fails.
 */
static int once_an_iteration(const uint64_t *starts, const uint64_t *ends, size_t n,
			     const uint64_t *iter, uint64_t count, uint64_t end_ts)
{
	size_t k = 0;
	int before;

	if (count < 3)
		return 0;
	while (k < n && starts[k] < iter[0])
		k++;
	before = k && ends[k - 1] > iter[0];
	for (uint64_t j = 0; j + 1 < count; j++) {
		size_t in = 0;

		for (; k < n && starts[k] < iter[j + 1]; k++)
			in++;
		if (in != 1)
			return 0;
	}
	return before || (k < n && starts[k] <= end_ts);
}

int gr_nvtx_step_choice(const struct gr_nvtx_set *s, uint32_t thread, const uint64_t *iter,
			uint64_t count, uint64_t end_ts, uint32_t *range)
{
	uint32_t *group = malloc((s->nranges + 1) * sizeof(*group));
	uint32_t *by_group = malloc((s->nranges + 1) * sizeof(*by_group));
	uint64_t *starts = malloc((s->nranges + 1) * sizeof(*starts));
	uint64_t *ends = malloc((s->nranges + 1) * sizeof(*ends));
	size_t *at = NULL, best = SIZE_MAX, ng;
	struct gr_keymap names;
	int err = -ENOMEM;

	gr_keymap_init(&names, 2);
	if (!group || !by_group || !starts || !ends)
		goto out;
	/* the thread's push/pop ranges by name, each name's in start order */
	for (size_t i = 0; i < s->nranges; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];
		uint64_t key[2] = {r->name, r->domain};

		group[i] = UINT32_MAX;
		if (r->thread == thread && r->kind == GR_NVTX_RANGE_PUSHPOP &&
		    gr_keymap_intern(&names, key, &group[i]) < 0)
			goto out;
	}
	ng = names.len;
	at = calloc(ng + 1, sizeof(*at));
	if (!at)
		goto out;
	for (size_t i = 0; i < s->nranges; i++)
		if (group[i] != UINT32_MAX)
			at[group[i] + 1]++;
	for (size_t g = 0; g < ng; g++)
		at[g + 1] += at[g];
	for (size_t i = 0; i < s->nranges; i++)
		if (group[i] != UINT32_MAX)
			by_group[at[group[i]]++] = (uint32_t)i;
	/* at[g] is now the end of name g's ranges, at[g - 1] their start */
	for (size_t g = 0; g < ng; g++) {
		uint64_t end = 0;
		size_t n = 0, first = g ? at[g - 1] : 0;

		for (size_t k = first; k < at[g]; k++) {
			const struct gr_nvtx_range *q = &s->ranges[by_group[k]];

			/* the outer one of the name's ranges nested in one another */
			if (q->start < end)
				continue;
			end = q->end;
			starts[n] = q->start;
			ends[n++] = q->end;
		}
		if (once_an_iteration(starts, ends, n, iter, count, end_ts) &&
		    (best == SIZE_MAX || s->ranges[by_group[first]].depth < s->ranges[best].depth))
			best = by_group[first];
	}
	err = 0;
out:
	free(group);
	free(by_group);
	free(starts);
	free(ends);
	free(at);
	gr_keymap_free(&names);
	if (err)
		return err;
	if (best == SIZE_MAX)
		return 0;
	*range = (uint32_t)best;
	return 1;
}
