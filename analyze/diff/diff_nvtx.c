/* SPDX-License-Identifier: MIT */
/*
 * The NVTX ranges of two traces matched by (domain name, range name): each name's count, total,
 * median and time per step on both sides (nvtx.h's statistics, from each trace's report), and
 * the names only one trace has. Rules: docs/REPORTS.md ("gpurec diff", "NVTX ranges").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_parts.h"

/* One side's statistic @v under its key: "DOMAIN:NAME", or NAME in the default domain. */
static char *stat_key(const struct gr_report_nvtx *N, const struct gr_nvtx_stat *v)
{
	const char *dom = v->domain < N->set.ndomains ? N->set.domains[v->domain].name : "";
	const char *name = gr_nvtx_text(&N->set, v->name);
	char *k = NULL;

	if (asprintf(&k, "%s%s%s", dom, dom[0] ? ":" : "", name) < 0)
		return NULL;
	return k;
}

static size_t find(const struct gr_diff *d, const char *key)
{
	for (size_t i = 0; i < d->nnvtx; i++)
		if (!strcmp(d->nvtx[i].name, key))
			return i;
	return SIZE_MAX;
}

/* Common names by the largest change of time per step (else of total) first, then added,
 * then removed; then by name. */
static int cmp_row(const void *pa, const void *pb)
{
	const struct gr_diff_nvtx *a = pa, *b = pb;
	double x, y;

	if (a->status != b->status)
		return a->status < b->status ? -1 : 1;
	x = !isnan(a->per_step_delta) ? fabs(a->per_step_delta) : fabs(a->total_delta);
	y = !isnan(b->per_step_delta) ? fabs(b->per_step_delta) : fabs(b->total_delta);
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

static double larger(double a, double b)
{
	return a > b ? a : b;
}

int df_match_nvtx(struct gr_diff *d)
{
	size_t most = 0;

	for (int s = 0; s < 2; s++)
		most += d->rep[s]->nvtx.stats.n;
	if (!most)
		return 0;
	d->nvtx = calloc(most, sizeof(*d->nvtx));
	if (!d->nvtx)
		return -ENOMEM;
	for (int s = 0; s < 2; s++) {
		const struct gr_report_nvtx *N = &d->rep[s]->nvtx;
		const struct gr_nvtx_stats *S = &N->stats;

		for (size_t i = 0; i < S->n; i++) {
			const struct gr_nvtx_stat *v = &S->v[i];
			char *key = stat_key(N, v);
			size_t r;

			if (!key)
				return -ENOMEM;
			r = find(d, key);
			if (r == SIZE_MAX) {
				r = d->nnvtx++;
				d->nvtx[r].name = key;
				d->nvtx[r].per_step[0] = d->nvtx[r].per_step[1] = NAN;
			} else {
				free(key);
			}
			/* a name twice in one trace (two depths) adds up */
			d->nvtx[r].count[s] += v->count;
			d->nvtx[r].total_ns[s] += v->total_ns;
			if (v->median_ns > d->nvtx[r].median_ns[s])
				d->nvtx[r].median_ns[s] = v->median_ns;
			if (S->steps && v->step_ns)
				d->nvtx[r].per_step[s] =
				    (isnan(d->nvtx[r].per_step[s]) ? 0 : d->nvtx[r].per_step[s]) +
				    (double)v->step_ns / (double)S->steps;
		}
	}
	for (size_t i = 0; i < d->nnvtx; i++) {
		struct gr_diff_nvtx *r = &d->nvtx[i];
		double big;

		r->status = !r->count[0]   ? GR_DIFF_ADDED
			    : !r->count[1] ? GR_DIFF_REMOVED
					   : GR_DIFF_COMMON;
		r->total_delta = (double)r->total_ns[1] - (double)r->total_ns[0];
		r->per_step_delta = r->per_step[1] - r->per_step[0];
		big = !isnan(r->per_step_delta)
			  ? fabs(r->per_step_delta) / larger(r->per_step[0], r->per_step[1])
			  : fabs(r->total_delta) / larger((double)r->total_ns[0], 1.0);
		r->hidden = r->status == GR_DIFF_COMMON && r->count[0] == r->count[1] &&
			    !(100 * big >= d->tolerance);
	}
	qsort(d->nvtx, d->nnvtx, sizeof(*d->nvtx), cmp_row);
	return 0;
}

void df_free_nvtx(struct gr_diff *d)
{
	for (size_t i = 0; i < d->nnvtx; i++)
		free(d->nvtx[i].name);
	free(d->nvtx);
}
