/* SPDX-License-Identifier: MIT */
/* GPU rows (--cupti): ties to the probed calls, busy time, kernel, copy and count figures. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "gpu.h"

const char *gr_gpu_copy_kind_name(unsigned copy_kind)
{
	static const char *const names[GR_GPU_COPY_KINDS] = {"unknown", "HtoD", "DtoH", "HtoA",
							     "AtoH",	"AtoA", "AtoD", "DtoA",
							     "DtoD",	"HtoH", "PtoP"};

	if (copy_kind == GR_GPU_COPY_KINDS)
		return "memset";
	return copy_kind < GR_GPU_COPY_KINDS ? names[copy_kind] : "unknown";
}

/* ---- ties ---- */

/* Which probed calls can make a row of each class. */
enum { CLS_KERNEL, CLS_COPY, CLS_MEMSET, CLS_GRAPH };

struct host_call {
	uint64_t ts, dur; /* dur 0: not measured */
	uint32_t pid, tid;
	uint32_t index;
	uint16_t cls, kind;
};

static int cmp_host_call(const void *a, const void *b)
{
	const struct host_call *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Compare a call with the key (cls, pid, tid, ts): <0, 0, >0. */
static int cmp_key(const struct host_call *c, uint16_t cls, uint32_t pid, uint32_t tid, uint64_t ts)
{
	if (c->cls != cls)
		return c->cls < cls ? -1 : 1;
	if (c->pid != pid)
		return c->pid < pid ? -1 : 1;
	if (c->tid != tid)
		return c->tid < tid ? -1 : 1;
	return c->ts < ts ? -1 : c->ts > ts;
}

/* The calls that executed work (graph nodes did not: they make no GPU row when called). */
static struct host_call *host_calls(const struct gr_model *m, const struct gr_graphs *g, size_t *n)
{
	size_t nl, nc, ns, ng, nk, nth, k = 0;
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const struct gr_launch_key *keys = gr_model_launch_keys(m, &nk);
	const struct gr_copy *c = gr_model_copies(m, &nc);
	const struct gr_memset *s = gr_model_memsets(m, &ns);
	const struct gr_graph *gr = gr_model_graphs(m, &ng);
	const struct gr_thread *th = gr_model_threads(m, &nth);
	struct host_call *v = malloc((nl + nc + ns + ng + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < nl; i++) {
		const struct gr_thread *t = &th[keys[l[i].key].thread];

		if (!gr_graphs_launch_is_node(g, i))
			v[k++] =
			    (struct host_call){l[i].ts,	    gr_launch_dur(&keys[l[i].key], &l[i]),
					       t->pid,	    t->tid,
					       (uint32_t)i, CLS_KERNEL,
					       GR_K_LAUNCH};
	}
	for (size_t i = 0; i < nc; i++)
		if (!gr_graphs_copy_is_node(g, i))
			v[k++] = (struct host_call){c[i].ts,
						    c[i].dur,
						    th[c[i].thread].pid,
						    th[c[i].thread].tid,
						    (uint32_t)i,
						    CLS_COPY,
						    GR_K_COPY};
	for (size_t i = 0; i < ns; i++)
		if (!gr_graphs_memset_is_node(g, i))
			v[k++] = (struct host_call){
			    s[i].ts,	 s[i].dur,   th[s[i].thread].pid, th[s[i].thread].tid,
			    (uint32_t)i, CLS_MEMSET, GR_K_MEMSET};
	for (size_t i = 0; i < ng; i++)
		if (gr[i].kind == GR_GRAPH_LAUNCH)
			v[k++] = (struct host_call){gr[i].ts,
						    gr[i].dur,
						    th[gr[i].thread].pid,
						    th[gr[i].thread].tid,
						    (uint32_t)i,
						    CLS_GRAPH,
						    GR_K_GRAPH};
	if (k > 1)
		gr_qsort(v, k, sizeof(*v), cmp_host_call);
	*n = k;
	return v;
}

/*
 * Tie @row to the call of its class and thread whose entry is nearest its host_ts. CUPTI takes
 * host_ts inside the call, on the probes' clock: a call that returned (dur measured) before
 * host_ts is not the one, however near (the probes missed the call: the row stays untied).
 */
static struct gr_gpu_tie tie_row(const struct host_call *v, size_t n, const struct gr_gpu *row)
{
	struct gr_gpu_tie t = {0};
	uint16_t cls = row->graph		    ? CLS_GRAPH
		       : row->kind == GR_GPU_MEMCPY ? CLS_COPY
		       : row->kind == GR_GPU_MEMSET ? CLS_MEMSET
						    : CLS_KERNEL;
	size_t lo = 0, hi = n, best;

	if (!row->host_tid || !row->host_ts || row->kind > GR_GPU_MEMSET)
		return t;
	while (lo < hi) { /* first call not below (cls, pid, tid, host_ts) */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_key(&v[mid], cls, row->pid, row->host_tid, row->host_ts) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	best = SIZE_MAX;
	if (lo < n && v[lo].cls == cls && v[lo].pid == row->pid && v[lo].tid == row->host_tid)
		best = lo;
	if (lo > 0 && v[lo - 1].cls == cls && v[lo - 1].pid == row->pid &&
	    v[lo - 1].tid == row->host_tid &&
	    (best == SIZE_MAX || row->host_ts - v[lo - 1].ts < v[lo].ts - row->host_ts))
		best = lo - 1;
	if (best == SIZE_MAX || (v[best].dur && v[best].ts + v[best].dur < row->host_ts))
		return t;
	t.kind = v[best].kind;
	t.index = v[best].index;
	t.exact = v[best].ts == row->host_ts;
	return t;
}

int gr_gpu_tie_call(const struct gr_model *m, const struct gr_gpu_tie *t, uint32_t *pid,
		    uint32_t *tid, uint64_t *ts, unsigned *api)
{
	const struct gr_thread *th = gr_model_threads(m, NULL);
	uint32_t thread;

	switch (t->kind) {
	case GR_K_LAUNCH: {
		const struct gr_launch *l = &gr_model_launches(m, NULL)[t->index];
		const struct gr_launch_key *k = &gr_model_launch_keys(m, NULL)[l->key];

		thread = k->thread, *ts = l->ts, *api = k->api;
		break;
	}
	case GR_K_COPY: {
		const struct gr_copy *c = &gr_model_copies(m, NULL)[t->index];

		thread = c->thread, *ts = c->ts, *api = c->api;
		break;
	}
	case GR_K_MEMSET: {
		const struct gr_memset *s = &gr_model_memsets(m, NULL)[t->index];

		thread = s->thread, *ts = s->ts, *api = s->api;
		break;
	}
	case GR_K_GRAPH: {
		const struct gr_graph *g = &gr_model_graphs(m, NULL)[t->index];

		thread = g->thread, *ts = g->ts, *api = g->api;
		break;
	}
	default:
		return 0;
	}
	*pid = th[thread].pid;
	*tid = th[thread].tid;
	return 1;
}

/* ---- busy time ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One device's busy time and gaps in [from, to] over the rows (sorted by ts). */
static void busy_of(const struct gr_gpu *rows, size_t n, uint64_t from, uint64_t to,
		    struct gr_gpu_busy *b)
{
	uint64_t cur_start = 0, cur_end = 0;
	uint32_t cur_row = 0;
	int open = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gr_gpu *r = &rows[i];
		uint64_t s = r->ts, e = r->ts + r->dur;

		if (r->device != b->device)
			continue;
		if (s < from)
			s = from;
		if (e > to)
			e = to;
		if (e <= s)
			continue;
		if (open && s <= cur_end) {
			if (e > cur_end) {
				cur_end = e;
				cur_row = (uint32_t)i;
			}
			continue;
		}
		if (open) {
			uint64_t gap = s - cur_end;

			b->busy_ns += cur_end - cur_start;
			b->gaps++;
			b->gap_ns += gap;
			if (gap > b->largest_ns) {
				b->largest_ns = gap;
				b->largest_ts = cur_end;
				b->before = cur_row;
				b->after = (uint32_t)i;
			}
		}
		open = 1;
		cur_start = s;
		cur_end = e;
		cur_row = (uint32_t)i;
	}
	if (open)
		b->busy_ns += cur_end - cur_start;
	b->share = to > from ? (double)b->busy_ns / (double)(to - from) : 0;
}

static int window_of(const struct gr_gpu *rows, size_t n, const uint32_t *devs, size_t ndevs,
		     uint64_t from, uint64_t to, struct gr_gpu_window *w)
{
	w->from_ts = from;
	w->to_ts = to;
	w->devices = calloc(ndevs ? ndevs : 1, sizeof(*w->devices));
	if (!w->devices)
		return -ENOMEM;
	w->ndevices = ndevs;
	for (size_t d = 0; d < ndevs; d++) {
		w->devices[d].device = devs[d];
		busy_of(rows, n, from, to, &w->devices[d]);
	}
	return 0;
}

/* ---- kernels and copies ---- */

/* What kernel rows are grouped by (qsort_r's context): the rows, and GR_GPU_BY_* besides the
 * name. */
struct grouping {
	const struct gr_gpu *rows;
	unsigned by;
};

static int cmp_u32_field(uint32_t x, uint32_t y)
{
	return x < y ? -1 : x > y;
}

/* Row indexes compared by name, then the parts the grouping asks for. */
static int cmp_group(const void *a, const void *b, void *ctx)
{
	const struct grouping *g = ctx;
	const struct gr_gpu *x = &g->rows[*(const uint32_t *)a],
			    *y = &g->rows[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	for (int d = 0; d < 3 && !c; d++) {
		if (g->by & GR_GPU_BY_GRID)
			c = cmp_u32_field(x->grid[d], y->grid[d]);
		if (!c && (g->by & GR_GPU_BY_BLOCK))
			c = cmp_u32_field(x->block[d], y->block[d]);
	}
	if (!c && (g->by & GR_GPU_BY_SHARED))
		c = cmp_u32_field(x->shared, y->shared);
	return c;
}

static int cmp_kernel_total(const void *a, const void *b)
{
	const struct gr_gpu_kernel *x = a, *y = b;

	if (x->dur.total != y->dur.total)
		return x->dur.total > y->dur.total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static uint32_t sat_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Kernel rows @idx grouped by name and @by (GR_GPU_BY_*) into *@out, by dur.total desc. */
static int kernel_groups(const struct gr_gpu *rows, uint32_t *idx, size_t n, unsigned by,
			 struct gr_gpu_kernel **out, size_t *nout)
{
	struct grouping grp = {rows, by};
	struct gr_gpu_kernel *v = calloc(n ? n : 1, sizeof(*v));
	uint32_t *durs = malloc((n ? n : 1) * sizeof(*durs));
	size_t k = 0;

	if (!v || !durs) {
		free(v);
		free(durs);
		return -ENOMEM;
	}
	if (n > 1)
		gr_qsort_r(idx, n, sizeof(*idx), cmp_group, &grp);
	for (size_t i = 0; i < n;) {
		const struct gr_gpu *first = &rows[idx[i]];
		size_t j = i;

		while (j < n && !cmp_group(&idx[j], &idx[i], &grp)) {
			durs[j - i] = sat_u32(rows[idx[j]].dur);
			j++;
		}
		v[k].name = first->name;
		if (by & GR_GPU_BY_GRID)
			memcpy(v[k].grid, first->grid, sizeof(v[k].grid));
		if (by & GR_GPU_BY_BLOCK)
			memcpy(v[k].block, first->block, sizeof(v[k].block));
		if (by & GR_GPU_BY_SHARED)
			v[k].shared = first->shared;
		gr_dist_u32(&v[k].dur, durs, j - i);
		k++;
		i = j;
	}
	free(durs);
	if (k > 1)
		gr_qsort(v, k, sizeof(*v), cmp_kernel_total);
	*out = v;
	*nout = k;
	return 0;
}

/* The indexes of @m's kernel rows into a new array (*@n of them), or NULL. */
static uint32_t *kernel_rows(const struct gr_gpu *rows, size_t nrows, size_t *n)
{
	uint32_t *idx = malloc((nrows ? nrows : 1) * sizeof(*idx));

	*n = 0;
	if (!idx)
		return NULL;
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].kind == GR_GPU_KERNEL)
			idx[(*n)++] = (uint32_t)i;
	return idx;
}

int gr_gpu_kernels(const struct gr_model *m, unsigned by, struct gr_gpu_kernel **out, size_t *n)
{
	size_t nrows, nkern;
	const struct gr_gpu *rows = gr_model_gpus(m, &nrows);
	uint32_t *idx = kernel_rows(rows, nrows, &nkern);
	int err;

	*out = NULL;
	*n = 0;
	if (!idx)
		return -ENOMEM;
	err = kernel_groups(rows, idx, nkern, by, out, n);
	free(idx);
	return err;
}

static int copy_dirs(const struct gr_gpu *rows, size_t n, struct gr_gpu_summary *s)
{
	uint32_t *durs = malloc((n ? n : 1) * sizeof(*durs));
	int err = 0;

	s->copy_dirs = calloc(GR_GPU_COPY_KINDS + 1, sizeof(*s->copy_dirs));
	if (!durs || !s->copy_dirs) {
		free(durs);
		return -ENOMEM;
	}
	for (unsigned kind = 0; kind <= GR_GPU_COPY_KINDS; kind++) {
		struct gr_gpu_copies *c = &s->copy_dirs[s->ncopy_dirs];
		size_t k = 0;

		c->copy_kind = kind;
		for (size_t i = 0; i < n; i++) {
			const struct gr_gpu *r = &rows[i];
			int mine = kind == GR_GPU_COPY_KINDS
				       ? r->kind == GR_GPU_MEMSET
				       : r->kind == GR_GPU_MEMCPY &&
					     (r->copy_kind == kind ||
					      (kind == 0 && r->copy_kind >= GR_GPU_COPY_KINDS));

			if (!mine)
				continue;
			durs[k++] = sat_u32(r->dur);
			c->bytes += r->bytes;
		}
		if (!k)
			continue;
		gr_dist_u32(&c->dur, durs, k);
		c->bytes_per_s = c->dur.total ? (double)c->bytes * 1e9 / (double)c->dur.total : 0;
		s->ncopy_dirs++;
	}
	free(durs);
	return err;
}

/* ---- counts ---- */

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct gr_gpu_count *)a)->name,
		      ((const struct gr_gpu_count *)b)->name);
}

static int counts_of(const struct gr_model *m, const struct gr_graphs *g, const struct gr_gpu *rows,
		     size_t n, struct gr_gpu_summary *s)
{
	size_t nk, nkeys, nl, k = 0;
	const struct gr_kernel *kernels = gr_model_kernels(m, &nk);
	const struct gr_launch_key *keys = gr_model_launch_keys(m, &nkeys);
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const uint64_t *executed = gr_graphs_executed_by_key(g);
	uint64_t *direct = calloc(nkeys ? nkeys : 1, sizeof(*direct));
	struct gr_gpu_count *v = calloc(nkeys + n + 1, sizeof(*v));
	size_t out = 0;

	if (!direct || !v) {
		free(direct);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nl; i++)
		if (!gr_graphs_launch_is_node(g, i))
			direct[l[i].key]++;
	for (size_t i = 0; i < nkeys; i++) {
		uint64_t all = executed ? executed[i] : direct[i];

		v[k++] = (struct gr_gpu_count){.name = kernels[keys[i].kernel].name,
					       .probe_direct = direct[i],
					       .probe_graph = all - direct[i]};
	}
	for (size_t i = 0; i < n; i++) {
		if (rows[i].kind != GR_GPU_KERNEL)
			continue;
		v[k] = (struct gr_gpu_count){.name = rows[i].name};
		if (rows[i].graph)
			v[k].gpu_graph = 1;
		else
			v[k].gpu_direct = 1;
		k++;
	}
	free(direct);
	if (k > 1)
		gr_qsort(v, k, sizeof(*v), cmp_count);
	for (size_t i = 0; i < k; i++) {
		if (out && !strcmp(v[out - 1].name, v[i].name)) {
			struct gr_gpu_count *o = &v[out - 1];

			o->probe_direct += v[i].probe_direct;
			o->probe_graph += v[i].probe_graph;
			o->gpu_direct += v[i].gpu_direct;
			o->gpu_graph += v[i].gpu_graph;
			continue;
		}
		v[out++] = v[i];
	}
	for (size_t i = 0; i < out; i++)
		if (v[i].probe_direct != v[i].gpu_direct || v[i].probe_graph != v[i].gpu_graph)
			s->count_mismatches++;
	s->counts = v;
	s->ncounts = out;
	return 0;
}

/* ---- the summary ---- */

int gr_gpu_compute(const struct gr_model *m, const struct gr_graphs *graphs, uint64_t iter_from,
		   uint64_t iter_to, struct gr_gpu_summary **out)
{
	size_t n, ncalls = 0, ndevs = 0, nkern = 0;
	const struct gr_gpu *rows = gr_model_gpus(m, &n);
	struct gr_gpu_summary *s = calloc(1, sizeof(*s));
	struct host_call *calls = NULL;
	uint32_t *devs = NULL, *idx = NULL;
	uint64_t first, last;
	int err = -ENOMEM;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->nrows = n;
	if (!n) {
		*out = s;
		return 0;
	}
	s->ties = calloc(n, sizeof(*s->ties));
	calls = host_calls(m, graphs, &ncalls);
	devs = malloc(n * sizeof(*devs));
	idx = kernel_rows(rows, n, &nkern);
	if (!s->ties || !calls || !devs || !idx)
		goto out;
	for (size_t i = 0; i < n; i++) {
		s->ties[i] = tie_row(calls, ncalls, &rows[i]);
		s->tied += s->ties[i].kind != 0;
		s->exact += s->ties[i].exact;
		s->kernels += rows[i].kind == GR_GPU_KERNEL;
		s->copies += rows[i].kind == GR_GPU_MEMCPY;
		s->memsets += rows[i].kind == GR_GPU_MEMSET;
		devs[i] = rows[i].device;
	}
	s->untied = n - s->tied;

	gr_qsort(devs, n, sizeof(*devs), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!ndevs || devs[ndevs - 1] != devs[i])
			devs[ndevs++] = devs[i];
	gr_model_time_span(m, &first, &last);
	err = window_of(rows, n, devs, ndevs, first, last, &s->recording);
	if (!err && iter_to > iter_from)
		err = window_of(rows, n, devs, ndevs, iter_from, iter_to, &s->iteration);

	if (!err)
		err = kernel_groups(rows, idx, nkern, 0, &s->by_name, &s->nby_name);
	if (!err)
		err = kernel_groups(rows, idx, nkern,
				    GR_GPU_BY_GRID | GR_GPU_BY_BLOCK | GR_GPU_BY_SHARED,
				    &s->by_config, &s->nby_config);
	if (!err)
		err = copy_dirs(rows, n, s);
	if (!err)
		err = counts_of(m, graphs, rows, n, s);
out:
	free(calls);
	free(devs);
	free(idx);
	if (err) {
		gr_gpu_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void gr_gpu_free(struct gr_gpu_summary *s)
{
	if (!s)
		return;
	free(s->ties);
	free(s->recording.devices);
	free(s->iteration.devices);
	free(s->by_name);
	free(s->by_config);
	free(s->copy_dirs);
	free(s->counts);
	free(s);
}
