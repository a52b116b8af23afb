/* SPDX-License-Identifier: MIT */
/*
 * Two traces compared (see diff.h), the computation: kernel rows matched by key, the
 * side-by-side figures, each under its id, and the fusion rows. The summary sentences are
 * diff_summary.c's, the renderers diff_text.c and diff_json.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/figures/launch_stats.h"
#include "analyze/report/report.h"
#include "analyze/util/keymap.h"
#include "diff.h"
#include "diff_common.h"
#include "diff_parts.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct ctx {
	struct gr_diff *d;
	const struct gr_model *m[2];
	size_t metrics_cap, fusion_cap;
	int err;
};

/* ---- small helpers ---- */

static char *xstrdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xstrdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static double per(uint64_t v, uint64_t n)
{
	return n ? (double)v / (double)n : NAN;
}

/* ---- kernel rows: the shared launch aggregation (launch_stats.h), keyed as asked ---- */

/* One kernel key's totals in one trace. */
struct krow {
	const char *name;
	uint32_t grid[3], block[3];
	uint64_t count, api_ns;
};

static int cmp_krow(const void *pa, const void *pb)
{
	const struct krow *x = pa, *y = pb;

	return df_cmp_key(x->name, x->grid, x->block, y->name, y->grid, y->block);
}

/* Totals per key (name [+ grid] [+ block]) of one trace, sorted by key: the (name, config)
 * pairs of the shared launch aggregation, merged by the key. */
static int kernel_rows(const struct gr_model *m, unsigned key, struct krow **out, size_t *nout)
{
	const struct gr_config *cfg = gr_model_configs(m, NULL);
	const char *const *names = gr_model_kernel_names(m, NULL);
	struct gr_launch_stats ls;
	struct gr_keymap map;
	struct krow *rows = NULL;
	int err;

	err = gr_launch_stats_compute(m, &ls);
	if (err)
		return err;
	rows = malloc((ls.npairs + 1) * sizeof(*rows));
	if (!rows) {
		gr_launch_stats_free(&ls);
		return -ENOMEM;
	}
	gr_keymap_init(&map, 4);
	for (size_t p = 0; p < ls.npairs; p++) {
		const struct gr_launch_pair *pr = &ls.pairs[p];
		const struct gr_config *c = &cfg[pr->config];
		uint32_t g[3] = {0, 0, 0}, b[3] = {0, 0, 0}, idx;
		uint64_t w[4];

		if (key & GR_DIFF_KEY_GRID)
			memcpy(g, c->grid, sizeof(g));
		if (key & GR_DIFF_KEY_BLOCK)
			memcpy(b, c->block, sizeof(b));
		w[0] = pr->name_id;
		w[1] = g[0] | (uint64_t)g[1] << 32;
		w[2] = g[2] | (uint64_t)b[0] << 32;
		w[3] = b[1] | (uint64_t)b[2] << 32;
		err = gr_keymap_intern(&map, w, &idx);
		if (err < 0)
			goto out;
		if (err == 1) {
			rows[idx] = (struct krow){.name = names[pr->name_id]};
			memcpy(rows[idx].grid, g, sizeof(g));
			memcpy(rows[idx].block, b, sizeof(b));
		}
		/* kernels executed: a kernel replayed in a graph compares with its direct launches
		 */
		rows[idx].count += pr->executed;
		rows[idx].api_ns += pr->dur;
	}
	err = 0;
	*nout = map.len;
	gr_qsort(rows, map.len, sizeof(*rows), cmp_krow);
out:
	gr_keymap_free(&map);
	gr_launch_stats_free(&ls);
	if (err)
		free(rows);
	else
		*out = rows;
	return err;
}

/* ---- kernels ---- */

/* Common rows by absolute impact (count change, then API time change), then added, removed. */
static int cmp_impact(const void *pa, const void *pb)
{
	const struct gr_diff_kernel *x = pa, *y = pb;
	uint64_t dx, dy;

	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	if (x->status == GR_DIFF_COMMON) {
		dx = df_absdiff(x->count[0], x->count[1]);
		dy = df_absdiff(y->count[0], y->count[1]);
		if (dx != dy)
			return dx > dy ? -1 : 1;
		dx = df_absdiff(x->api_ns[0], x->api_ns[1]);
		dy = df_absdiff(y->api_ns[0], y->api_ns[1]);
		if (dx != dy)
			return dx > dy ? -1 : 1;
	}
	dx = x->count[0] + x->count[1];
	dy = y->count[0] + y->count[1];
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return df_cmp_key(x->name, x->grid, x->block, y->name, y->grid, y->block);
}

static int match_kernels(struct ctx *c, unsigned key)
{
	struct gr_diff *d = c->d;
	struct krow *r[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, i = 0, j = 0;
	int err;

	for (int s = 0; s < 2; s++) {
		err = kernel_rows(c->m[s], key, &r[s], &n[s]);
		if (err)
			goto out;
	}
	d->kernels = calloc(n[0] + n[1] + 1, sizeof(*d->kernels));
	if (!d->kernels) {
		err = -ENOMEM;
		goto out;
	}
	while (i < n[0] || j < n[1]) {
		struct gr_diff_kernel *k = &d->kernels[d->nkernels++];
		int cmp = i == n[0] ? 1 : j == n[1] ? -1 : cmp_krow(&r[0][i], &r[1][j]);
		const struct krow *src = cmp <= 0 ? &r[0][i] : &r[1][j];

		k->name = src->name;
		memcpy(k->grid, src->grid, sizeof(k->grid));
		memcpy(k->block, src->block, sizeof(k->block));
		if (cmp <= 0) {
			k->count[0] = r[0][i].count;
			k->api_ns[0] = r[0][i++].api_ns;
		}
		if (cmp >= 0) {
			k->count[1] = r[1][j].count;
			k->api_ns[1] = r[1][j++].api_ns;
		}
		k->status = !cmp ? GR_DIFF_COMMON : cmp < 0 ? GR_DIFF_REMOVED : GR_DIFF_ADDED;
		k->delta = (int64_t)k->count[1] - (int64_t)k->count[0];
		k->ratio = k->count[0] ? (double)k->count[1] / (double)k->count[0] : NAN;
		for (int s = 0; s < 2; s++)
			k->per_iter[s] =
			    d->iter_found[s] ? (double)k->count[s] / (double)d->iterations[s] : NAN;
		k->hidden = k->status == GR_DIFF_COMMON &&
			    df_change_pct((double)k->count[0], (double)k->count[1]) < d->tolerance;
		d->ncommon += k->status == GR_DIFF_COMMON;
		d->nadded += k->status == GR_DIFF_ADDED;
		d->nremoved += k->status == GR_DIFF_REMOVED;
	}
	gr_qsort(d->kernels, d->nkernels, sizeof(*d->kernels), cmp_impact);
	/* two traces without launches have nothing to compare kernel by kernel, and no conflict */
	d->comparable = d->ncommon > 0 || d->nkernels == 0;
	err = 0;
out:
	free(r[0]);
	free(r[1]);
	return err;
}

/* ---- metrics ---- */

/* The group an id starts with ("iteration" of "iteration.h2d.bytes"), static, or NULL. */
static const char *group_of(const char *id)
{
	static const char *const groups[] = {"run",    "iteration", "budget", "transfer", "cpu",
					     "losses", "calls",	    "gpu",    "memory"};
	size_t n = strcspn(id, ".");

	for (size_t i = 0; i < N(groups); i++)
		if (id[n] == '.' && strlen(groups[i]) == n && !strncmp(id, groups[i], n))
			return groups[i];
	return NULL;
}

/* Add figure @id (diff.h's list), its display name from @fmt. */
static void metric(struct ctx *c, const char *id, const char *unit, double a, double b,
		   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void metric(struct ctx *c, const char *id, const char *unit, double a, double b,
		   const char *fmt, ...)
{
	struct gr_diff *d = c->d;
	const char *group = group_of(id);
	struct gr_diff_metric *mt;
	va_list ap;
	char *name = NULL;

	if (c->err)
		return;
	/* an id outside diff.h's list is a bug here: fail the diff rather than hide it (that ids
	 * are unique is test_diff's and fuzz_diff's to check: a search here would be quadratic) */
	if (!group || strlen(id) >= GR_DIFF_ID_LEN) {
		c->err = -EINVAL;
		return;
	}
	if (d->nmetrics == c->metrics_cap) {
		size_t ncap = c->metrics_cap ? 2 * c->metrics_cap : 64;
		struct gr_diff_metric *p = realloc(d->metrics, ncap * sizeof(*p));

		if (!p) {
			c->err = -ENOMEM;
			return;
		}
		d->metrics = p;
		c->metrics_cap = ncap;
	}
	va_start(ap, fmt);
	if (vasprintf(&name, fmt, ap) < 0)
		name = NULL;
	va_end(ap);
	if (!name) {
		c->err = -ENOMEM;
		return;
	}
	mt = &d->metrics[d->nmetrics++];
	snprintf(mt->id, sizeof(mt->id), "%s", id);
	mt->group = group;
	mt->name = name;
	mt->unit = unit;
	mt->v[0] = a;
	mt->v[1] = b;
	mt->delta = isnan(a) || isnan(b) ? NAN : b - a;
	mt->ratio = isnan(a) || isnan(b) || a == 0 ? NAN : b / a;
	mt->hidden = df_change_pct(a, b) < d->tolerance;
}

static void run_metrics(struct ctx *c)
{
	const struct gr_report *a = c->d->rep[0], *b = c->d->rep[1];
	double na = NAN;

	metric(c, "run.duration", "ns", (double)a->wall_ns, (double)b->wall_ns, "duration");
	metric(c, "run.launches", "", (double)a->launches.total, (double)b->launches.total,
	       "launches");
	metric(c, "run.launch_rate", "/s", a->launches.per_second, b->launches.per_second,
	       "launches/s");
	metric(c, "run.kernels", "", (double)a->launches.nkernels, (double)b->launches.nkernels,
	       "distinct kernels");
	{
		uint64_t api[2] = {0, 0};

		for (size_t i = 0; i < c->d->nkernels; i++)
			for (int s = 0; s < 2; s++)
				api[s] += c->d->kernels[i].api_ns[s];
		if (a->launches.api_measured || b->launches.api_measured)
			metric(c, "run.launch_api_time", "ns",
			       a->launches.api_measured ? (double)api[0] : na,
			       b->launches.api_measured ? (double)api[1] : na, "launch API time");
	}
	metric(c, "run.launch_cost", "ns", (double)a->launches.launch_cost_ns,
	       (double)b->launches.launch_cost_ns, "launch cost (median%s)",
	       a->launches.api_measured && b->launches.api_measured ? "" : ", estimate");
	metric(c, "run.fusion_candidates", "", (double)a->fusion.ncandidates,
	       (double)b->fusion.ncandidates, "fusion candidates");
	metric(c, "run.fusion_saving", "ns", (double)a->fusion.total_saving_ns,
	       (double)b->fusion.total_saving_ns, "fusion saving (estimate)");
}

static void iteration_metrics(struct ctx *c)
{
	const struct gr_report_iteration *it[2] = {&c->d->rep[0]->launches.iter,
						   &c->d->rep[1]->launches.iter};
	/* the loop's own figures, from each report: what its iteration's time range held */
	const struct gr_report_loop *lp[2] = {&it[0]->loop, &it[1]->loop};
	const int *found = c->d->iter_found;
	const uint64_t *iters = c->d->iterations;
	double v[2][8];
	char id[GR_DIFF_ID_LEN];

	if (!found[0] && !found[1])
		return;
	for (int s = 0; s < 2; s++) {
		int f = found[s];
		uint64_t n = iters[s];

		v[s][0] = f ? (double)n : NAN;
		v[s][1] = f ? (double)it[s]->period_ns : NAN;
		v[s][2] = f ? (double)it[s]->launches : NAN;
		v[s][3] = f ? (double)it[s]->calls : NAN;
		v[s][4] = f ? per(lp[s]->syncs, n) : NAN;
		v[s][5] = f ? per(lp[s]->sync_ns, n) : NAN;
		v[s][6] = f ? per(lp[s]->launch_ns, n) : NAN;
		v[s][7] = f ? per(lp[s]->runnable_ns, n) : NAN;
	}
	metric(c, "iteration.count", "", v[0][0], v[1][0], "iterations");
	metric(c, "iteration.period", "ns", v[0][1], v[1][1], "iteration time (median)");
	metric(c, "iteration.launches", "", v[0][2], v[1][2], "launches per iteration");
	metric(c, "iteration.calls", "", v[0][3], v[1][3], "API calls per iteration");
	metric(c, "iteration.syncs", "", v[0][4], v[1][4], "syncs per iteration");
	metric(c, "iteration.sync_time", "ns", v[0][5], v[1][5], "sync time per iteration");
	if (c->d->rep[0]->launches.api_measured || c->d->rep[1]->launches.api_measured)
		metric(c, "iteration.launch_api_time", "ns", v[0][6], v[1][6],
		       "launch API time per iteration");
	for (unsigned k = 0; k < GR_REPORT_NDIRS; k++) {
		const char *dir = gr_copy_kind_name(k), *did = df_dir_id(k);

		if (!lp[0]->copies[k] && !lp[1]->copies[k])
			continue;
		metric(c, df_id(id, sizeof(id), "iteration.<dir>.copies", did), "",
		       found[0] ? per(lp[0]->copies[k], iters[0]) : NAN,
		       found[1] ? per(lp[1]->copies[k], iters[1]) : NAN, "%s copies per iteration",
		       dir);
		metric(c, df_id(id, sizeof(id), "iteration.<dir>.bytes", did), "B",
		       found[0] ? per(lp[0]->bytes[k], iters[0]) : NAN,
		       found[1] ? per(lp[1]->bytes[k], iters[1]) : NAN, "%s bytes per iteration",
		       dir);
		metric(c, df_id(id, sizeof(id), "iteration.<dir>.copy_time", did), "ns",
		       found[0] ? per(lp[0]->copy_ns[k], iters[0]) : NAN,
		       found[1] ? per(lp[1]->copy_ns[k], iters[1]) : NAN,
		       "%s copy time per iteration", dir);
	}
	metric(c, "iteration.runnable_wait", "ns", v[0][7], v[1][7], "runnable wait per iteration");
}

/*
 * The step budget of each side (budget.h), on its loop's thread: each part's own median over the
 * iterations, the figure that compares one part across recordings (a median iteration's parts
 * would swing with whichever iteration happens to be the median), and the median iteration's
 * total. Parts that are 0 on both sides, in the median and the mean, are left out as copy
 * directions without copies are. A side without a budget (no loop found) reads NAN.
 */
static void budget_metrics(struct ctx *c)
{
	const struct gr_budgets *b[2] = {&c->d->rep[0]->budget, &c->d->rep[1]->budget};
	char id[GR_DIFF_ID_LEN];

	if (!b[0]->found && !b[1]->found)
		return;
	metric(c, "budget.total", "ns", b[0]->found ? (double)b[0]->median.total_ns : NAN,
	       b[1]->found ? (double)b[1]->median.total_ns : NAN, "step time (median iteration)");
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++) {
		int any = 0;

		for (int s = 0; s < 2; s++)
			any |= b[s]->found && (b[s]->part_median_ns[p] || b[s]->mean.part_ns[p]);
		if (!any)
			continue;
		metric(c, df_id(id, sizeof(id), "budget.<part>", gr_budget_part_name(p)), "ns",
		       b[0]->found ? (double)b[0]->part_median_ns[p] : NAN,
		       b[1]->found ? (double)b[1]->part_median_ns[p] : NAN, "%s per step (median)",
		       df_budget_words(p));
	}
	/* the blocked part's reasons (blocked.h), per iteration over the loop (in a trace
	 * without them all of it is unknown) */
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
		int any = 0;

		for (int s = 0; s < 2; s++)
			any |= b[s]->found && b[s]->mean.blocked_ns[r];
		if (!any)
			continue;
		metric(c, df_id(id, sizeof(id), "budget.blocked.<reason>", gr_block_reason_name(r)),
		       "ns", b[0]->found ? (double)b[0]->mean.blocked_ns[r] : NAN,
		       b[1]->found ? (double)b[1]->mean.blocked_ns[r] : NAN, "%s per step (mean)",
		       gr_block_reason_words(r));
	}
}

static void transfer_metrics(struct ctx *c)
{
	const struct gr_report_transfer *t[2] = {&c->d->rep[0]->transfer, &c->d->rep[1]->transfer};
	char id[GR_DIFF_ID_LEN];

	for (unsigned k = 0; k < GR_REPORT_NDIRS; k++) {
		const struct gr_report_direction *x = &t[0]->dirs[k], *y = &t[1]->dirs[k];
		const char *did = df_dir_id(k);

		if (!x->count && !y->count)
			continue;
		metric(c, df_id(id, sizeof(id), "transfer.<dir>.copies", did), "", (double)x->count,
		       (double)y->count, "%s copies", x->name);
		metric(c, df_id(id, sizeof(id), "transfer.<dir>.bytes", did), "B", (double)x->bytes,
		       (double)y->bytes, "%s bytes", x->name);
		metric(c, df_id(id, sizeof(id), "transfer.<dir>.copy_time", did), "ns",
		       (double)x->time_ns, (double)y->time_ns, "%s copy time", x->name);
	}
	if (t[0]->memsets || t[1]->memsets) {
		metric(c, "transfer.memsets", "", (double)t[0]->memsets, (double)t[1]->memsets,
		       "memsets");
		metric(c, "transfer.memset_bytes", "B", (double)t[0]->memset_bytes,
		       (double)t[1]->memset_bytes, "memset bytes");
	}
	metric(c, "transfer.syncs", "", (double)t[0]->syncs, (double)t[1]->syncs, "syncs");
	metric(c, "transfer.sync_time", "ns", (double)t[0]->sync_ns, (double)t[1]->sync_ns,
	       "sync time");
}

static int cmp_cpu_thread(const void *pa, const void *pb)
{
	const struct gr_report_cpu_thread *x = *(const struct gr_report_cpu_thread *const *)pa;
	const struct gr_report_cpu_thread *y = *(const struct gr_report_cpu_thread *const *)pb;

	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Rank of thread @i among the threads before it with the same comm. */
static unsigned rank_of(const struct gr_report_cpu_thread *const *t, size_t i)
{
	unsigned r = 0;

	for (size_t k = 0; k < i; k++)
		r += !strcmp(t[k]->comm, t[i]->comm);
	return r;
}

/* Threads of the two runs are matched by comm and rank among the threads of that comm in
 * order of first API call: tids differ from run to run. */
static void cpu_metrics(struct ctx *c)
{
	const struct gr_report_cpu *cpu[2] = {&c->d->rep[0]->cpu, &c->d->rep[1]->cpu};
	const struct gr_report_cpu_thread **t[2] = {NULL, NULL};
	uint8_t *used = NULL;
	long *pair = NULL;
	size_t row = 0; /* thread rows so far: <n> of the ids */
	char id[GR_DIFF_ID_LEN], nr[24];

	if (!cpu[0]->has_sched && !cpu[1]->has_sched)
		return;
	for (int s = 0; s < 2; s++) {
		t[s] = calloc(cpu[s]->nthreads + 1, sizeof(*t[s]));
		if (!t[s])
			goto oom;
		for (size_t i = 0; i < cpu[s]->nthreads; i++)
			t[s][i] = &cpu[s]->threads[i];
		gr_qsort(t[s], cpu[s]->nthreads, sizeof(*t[s]), cmp_cpu_thread);
	}
	used = calloc(cpu[1]->nthreads + 1, 1);
	pair = calloc(cpu[0]->nthreads + 1, sizeof(*pair));
	if (!used || !pair)
		goto oom;
	metric(c, "cpu.gap_wait", "ns", cpu[0]->has_sched ? (double)cpu[0]->starved_gap_ns : NAN,
	       cpu[1]->has_sched ? (double)cpu[1]->starved_gap_ns : NAN,
	       "runnable wait in launch gaps");
	metric(c, "cpu.gap_share", "%", cpu[0]->has_sched ? 100 * cpu[0]->gap_share : NAN,
	       cpu[1]->has_sched ? 100 * cpu[1]->gap_share : NAN,
	       "share of the threads' CUDA time");
	/* pair[i]: the NEW thread of BASE thread i, by comm and rank; then the threads left on
	 * both sides in order (a renamed program); then NEW threads without a pair */
	for (size_t i = 0; i < cpu[0]->nthreads; i++) {
		unsigned r = rank_of(t[0], i), seen = 0;

		pair[i] = -1;
		for (size_t k = 0; k < cpu[1]->nthreads && pair[i] < 0; k++) {
			/* the rank counts every NEW thread of that comm, paired already or not */
			if (strcmp(t[1][k]->comm, t[0][i]->comm) || seen++ != r || used[k])
				continue;
			pair[i] = (long)k;
			used[k] = 1;
		}
	}
	for (size_t i = 0, k = 0; i < cpu[0]->nthreads; i++) {
		while (pair[i] < 0 && k < cpu[1]->nthreads) {
			if (!used[k]) {
				pair[i] = (long)k;
				used[k] = 1;
			}
			k++;
		}
	}
	for (size_t i = 0; i < cpu[0]->nthreads + cpu[1]->nthreads; i++) {
		const struct gr_report_cpu_thread *x = NULL, *y = NULL;
		char label[160];

		if (i < cpu[0]->nthreads) {
			x = t[0][i];
			y = pair[i] >= 0 ? t[1][pair[i]] : NULL;
		} else if (!used[i - cpu[0]->nthreads]) {
			y = t[1][i - cpu[0]->nthreads];
		} else {
			continue;
		}
		if (x && y && strcmp(x->comm, y->comm))
			snprintf(label, sizeof(label), "%s #%u / %s #%u", x->comm,
				 rank_of(t[0], i) + 1, y->comm, rank_of(t[1], (size_t)pair[i]) + 1);
		else if (x)
			snprintf(label, sizeof(label), "%s #%u", x->comm, rank_of(t[0], i) + 1);
		else
			snprintf(label, sizeof(label), "%s #%u", y->comm,
				 rank_of(t[1], i - cpu[0]->nthreads) + 1);
		snprintf(nr, sizeof(nr), "%zu", ++row);
		metric(c, df_id(id, sizeof(id), "cpu.thread.<n>.runnable_wait", nr), "ns",
		       x ? (double)x->runnable_wait_ns : NAN, y ? (double)y->runnable_wait_ns : NAN,
		       "runnable wait: %s", label);
		metric(c, df_id(id, sizeof(id), "cpu.thread.<n>.on_cpu", nr), "ns",
		       x ? (double)x->oncpu_ns : NAN, y ? (double)y->oncpu_ns : NAN, "on CPU: %s",
		       label);
		metric(c, df_id(id, sizeof(id), "cpu.thread.<n>.preemptions", nr), "",
		       x ? (double)x->involuntary : NAN, y ? (double)y->involuntary : NAN,
		       "preemptions: %s", label);
	}
	goto out;
oom:
	c->err = -ENOMEM;
out:
	free(t[0]);
	free(t[1]);
	free(used);
	free(pair);
}

static void loss_metrics(struct ctx *c)
{
	metric(c, "losses.lost_events", "", (double)gr_model_lost_events(c->m[0]),
	       (double)gr_model_lost_events(c->m[1]), "lost events");
	metric(c, "losses.damaged", "", (double)!gr_model_integrity(c->m[0])->complete,
	       (double)!gr_model_integrity(c->m[1])->complete, "damaged file (1 = yes)");
}

/* Device memory (memory.h), when either trace made an allocation call: the largest peak of a
 * process, what was outstanding at the end, failed allocations, the growth finding (0 when none),
 * and the loop's churn (NAN without a loop). A trace whose every allocation failed has no figure
 * (NAN): nothing was allocated to compare. */
static void memory_metrics(struct ctx *c)
{
	const struct gr_memory *mem[2] = {&c->d->rep[0]->memory.m, &c->d->rep[1]->memory.m};
	double v[2][7];

	if (!mem[0]->any && !mem[1]->any)
		return;
	for (int s = 0; s < 2; s++) {
		const struct gr_memory_proc *top = gr_memory_top_proc(mem[s]);
		const struct gr_memory_churn *C = &mem[s]->churn;
		uint64_t out = 0;
		int judged = mem[s]->any && mem[s]->judged;

		for (size_t k = 0; k < mem[s]->nprocs; k++)
			out += mem[s]->procs[k].end_bytes;
		v[s][0] = judged && top ? (double)top->peak_bytes : NAN;
		v[s][1] = judged ? (double)out : NAN;
		v[s][2] = (double)mem[s]->failures_total;
		v[s][3] = judged && C->found ? (double)mem[s]->growth.per_iteration : NAN;
		v[s][4] = judged && C->found ? (double)C->median_allocs : NAN;
		v[s][5] = judged && C->found ? (double)C->median_frees : NAN;
		v[s][6] = judged && C->found ? (double)C->median_ns : NAN;
	}
	metric(c, "memory.peak", "B", v[0][0], v[1][0], "device memory peak (largest process)");
	metric(c, "memory.outstanding", "B", v[0][1], v[1][1], "outstanding at the end");
	metric(c, "memory.failed", "", v[0][2], v[1][2], "failed allocations");
	metric(c, "memory.growth", "B", v[0][3], v[1][3], "growth per iteration (0: none)");
	metric(c, "memory.churn_allocations", "", v[0][4], v[1][4],
	       "allocations per iteration (median)");
	metric(c, "memory.churn_frees", "", v[0][5], v[1][5], "frees per iteration (median)");
	metric(c, "memory.churn_time", "ns", v[0][6], v[1][6],
	       "alloc/free time per iteration (median)");
}

/* What became of the calls (outcome.h): the per-error counts are the summary's to compare. */
static void call_metrics(struct ctx *c)
{
	const struct gr_outcome *o[2] = {&c->d->rep[0]->outcome.o, &c->d->rep[1]->outcome.o};
	uint64_t inner[2] = {0, 0};

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < o[s]->ninner; i++)
			inner[s] += o[s]->inner[i].count;
	metric(c, "calls.failed", "", (double)o[0]->failed, (double)o[1]->failed, "failed calls");
	metric(c, "calls.in_flight", "", (double)o[0]->nin_flight, (double)o[1]->nin_flight,
	       "calls in flight at the end");
	metric(c, "calls.inner", "", (double)inner[0], (double)inner[1],
	       "calls inside other calls");
}

/* A window's busy time over its devices, added, and the busiest device's share. */
static void busy_of(const struct gr_gpu_window *w, uint64_t *busy_ns, double *share)
{
	*busy_ns = 0;
	*share = 0;
	for (size_t i = 0; i < w->ndevices; i++) {
		*busy_ns += w->devices[i].busy_ns;
		if (w->devices[i].share > *share)
			*share = w->devices[i].share;
	}
}

/*
 * Measured on the GPU (--cupti): each report's GPU summary (gpu.h), compared only when both
 * traces have one. The iteration's busy time is the GPU's inside the loop's time range (the
 * window the report gave gpu.h), per complete iteration of that loop.
 */
static void gpu_metrics(struct ctx *c)
{
	const struct gr_gpu_summary *g[2] = {c->d->rep[0]->gpu, c->d->rep[1]->gpu};
	const int *found = c->d->iter_found;
	double kt[2] = {0, 0}, busy[2], share[2], it_busy[2], it_share[2];

	if (!c->d->gpu[0] || !c->d->gpu[1])
		return;
	for (int s = 0; s < 2; s++) {
		uint64_t b;

		for (size_t i = 0; i < g[s]->nby_name; i++)
			kt[s] += (double)g[s]->by_name[i].dur.total;
		busy_of(&g[s]->recording, &b, &share[s]);
		busy[s] = (double)b;
		busy_of(&g[s]->iteration, &b, &it_share[s]);
		it_busy[s] =
		    found[s] && g[s]->iteration.ndevices ? per(b, c->d->iterations[s]) : NAN;
		if (!(found[s] && g[s]->iteration.ndevices))
			it_share[s] = NAN;
	}
	metric(c, "gpu.kernels", "", (double)g[0]->kernels, (double)g[1]->kernels,
	       "kernels run on the GPU");
	metric(c, "gpu.kernel_time", "ns", kt[0], kt[1], "GPU kernel time");
	metric(c, "gpu.busy_time", "ns", busy[0], busy[1], "GPU busy time");
	metric(c, "gpu.busy_share", "%", 100 * share[0], 100 * share[1], "GPU busy share");
	if (found[0] || found[1]) {
		metric(c, "gpu.iteration.busy_time", "ns", it_busy[0], it_busy[1],
		       "GPU busy time per iteration");
		metric(c, "gpu.iteration.busy_share", "%", 100 * it_share[0], 100 * it_share[1],
		       "GPU busy share in the iteration");
	}
	metric(c, "gpu.dropped", "", (double)gr_model_session_sum(c->m[0], GR_SESS_CUPTI_DROPPED),
	       (double)gr_model_session_sum(c->m[1], GR_SESS_CUPTI_DROPPED), "GPU records dropped");
}

/* ---- fusion candidates ---- */

static int fusion_add(struct ctx *c, const struct gr_report_candidate *cand, int side)
{
	struct gr_diff *d = c->d;
	char *seq = NULL, *label, a[128], b[128];
	size_t len = 0;
	FILE *f = open_memstream(&seq, &len);

	if (!f)
		return -ENOMEM;
	for (uint32_t i = 0; i < cand->len; i++)
		fprintf(f, "%s%s", i ? " -> " : "", cand->kernels[i].name);
	if (fclose(f) || !seq) {
		free(seq);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->nfusion; i++) {
		if (strcmp(d->fusion[i].sequence, seq))
			continue;
		d->fusion[i].occurrences[side] += cand->occurrences;
		d->fusion[i].saving_ns[side] += cand->est_saving_ns;
		free(seq);
		return 0;
	}
	if (d->nfusion == c->fusion_cap) {
		size_t ncap = c->fusion_cap ? 2 * c->fusion_cap : 16;
		struct gr_diff_fusion *p = realloc(d->fusion, ncap * sizeof(*p));

		if (!p) {
			free(seq);
			return -ENOMEM;
		}
		d->fusion = p;
		c->fusion_cap = ncap;
	}
	label = cand->len
		    ? xstrdup_printf(
			  "%s..%s (%u kernels)", df_short_name(cand->kernels[0].name, a, sizeof(a)),
			  df_short_name(cand->kernels[cand->len - 1].name, b, sizeof(b)), cand->len)
		    : xstrdup_printf("(empty)");
	if (!label) {
		free(seq);
		return -ENOMEM;
	}
	d->fusion[d->nfusion++] = (struct gr_diff_fusion){
	    .label = label,
	    .sequence = seq,
	    .len = cand->len,
	    .occurrences = {side ? 0 : cand->occurrences, side ? cand->occurrences : 0},
	    .saving_ns = {side ? 0 : cand->est_saving_ns, side ? cand->est_saving_ns : 0},
	};
	return 0;
}

static int cmp_fusion(const void *pa, const void *pb)
{
	static const int order[] = {
	    [GR_DIFF_REMOVED] = 0, [GR_DIFF_ADDED] = 1, [GR_DIFF_COMMON] = 2};
	const struct gr_diff_fusion *x = pa, *y = pb;
	uint64_t sx = x->saving_ns[0] + x->saving_ns[1], sy = y->saving_ns[0] + y->saving_ns[1];

	if (x->status != y->status)
		return order[x->status] - order[y->status];
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(x->sequence, y->sequence);
}

static int match_fusion(struct ctx *c)
{
	struct gr_diff *d = c->d;
	int err;

	for (int s = 0; s < 2; s++) {
		const struct gr_report_fusion *f = &d->rep[s]->fusion;

		for (size_t i = 0; i < f->ncandidates; i++) {
			err = fusion_add(c, &f->candidates[i], s);
			if (err)
				return err;
		}
	}
	for (size_t i = 0; i < d->nfusion; i++) {
		struct gr_diff_fusion *f = &d->fusion[i];

		f->status = !f->occurrences[1]	 ? GR_DIFF_REMOVED
			    : !f->occurrences[0] ? GR_DIFF_ADDED
						 : GR_DIFF_COMMON;
	}
	if (d->nfusion)
		gr_qsort(d->fusion, d->nfusion, sizeof(*d->fusion), cmp_fusion);
	return 0;
}

/* ---- lookup ---- */

/* ---- the whole diff ---- */

int gr_diff_compute(const struct gr_model *a, const struct gr_model *b,
		    const struct gr_diff_opts *o, struct gr_diff **out)
{
	static const struct gr_diff_opts defaults;
	struct ctx c = {.m = {a, b}};
	int err;

	*out = NULL;
	if (!a || !b)
		return -EINVAL;
	if (!o)
		o = &defaults;
	if (!(o->tolerance >= 0))
		return -EINVAL;
	c.d = calloc(1, sizeof(*c.d));
	if (!c.d)
		return -ENOMEM;
	c.d->key = o->key;
	c.d->tolerance = o->tolerance;
	c.d->same_host = !strcmp(gr_model_header(a)->host, gr_model_header(b)->host);
	for (int s = 0; s < 2; s++) {
		err = gr_report_compute(c.m[s], o->report, &c.d->rep[s]);
		if (err)
			goto fail;
		{
			const struct gr_report_iteration *it = &c.d->rep[s]->launches.iter;

			c.d->iter_found[s] = it->found && it->count;
			c.d->iterations[s] = c.d->iter_found[s] ? it->count : 0;
		}
		c.d->gpu[s] = c.d->rep[s]->gpu && c.d->rep[s]->gpu->nrows;
	}
	err = match_kernels(&c, o->key);
	if (err)
		goto fail;
	err = match_fusion(&c);
	if (err)
		goto fail;
	err = df_match_sites(c.d, c.m);
	if (err)
		goto fail;
	err = df_match_gpu_kernels(c.d, c.m);
	if (err)
		goto fail;
	err = df_match_nvtx(c.d);
	if (err)
		goto fail;
	run_metrics(&c);
	iteration_metrics(&c);
	budget_metrics(&c);
	transfer_metrics(&c);
	cpu_metrics(&c);
	loss_metrics(&c);
	call_metrics(&c);
	gpu_metrics(&c);
	memory_metrics(&c);
	err = c.err;
	if (err)
		goto fail;
	err = df_summarize(c.d, c.m);
	if (err)
		goto fail;
	*out = c.d;
	return 0;
fail:
	gr_diff_free(c.d);
	return err;
}

void gr_diff_free(struct gr_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nmetrics; i++)
		free(d->metrics[i].name);
	for (size_t i = 0; i < d->nfusion; i++) {
		free(d->fusion[i].label);
		free(d->fusion[i].sequence);
	}
	for (size_t i = 0; i < d->nsummary; i++)
		free(d->summary[i]);
	free(d->summary);
	free(d->metrics);
	free(d->fusion);
	free(d->sites);
	free(d->kernels);
	free(d->gpu_kernels);
	df_free_nvtx(d);
	gr_report_free(d->rep[0]);
	gr_report_free(d->rep[1]);
	free(d);
}
