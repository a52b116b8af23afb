/* SPDX-License-Identifier: MIT */
/*
 * GPU time per kernel of two traces side by side (diff.h, struct gr_diff_gpu_kernel): each
 * trace's kernel rows grouped by the shared computation (gpu.h, gr_gpu_kernels()) under the key
 * the kernel rows of the diff use, so a row here and a kernel row there name the same kernels.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "diff_common.h"
#include "diff_parts.h"

/* The diff's key as the GPU grouping spells it: shared memory is never part of it. */
static unsigned gpu_by(unsigned key)
{
	return (key & GR_DIFF_KEY_GRID ? GR_GPU_BY_GRID : 0) |
	       (key & GR_DIFF_KEY_BLOCK ? GR_GPU_BY_BLOCK : 0);
}

/* By name, grid, block: the order both traces' groups are merged in. */
static int cmp_key(const void *pa, const void *pb)
{
	const struct gr_gpu_kernel *x = pa, *y = pb;

	return df_cmp_key(x->name, x->grid, x->block, y->name, y->grid, y->block);
}

/* Common rows by the change of total GPU time, largest first, then added, removed (each by the
 * two traces' GPU time together), then by key. */
static int cmp_impact(const void *pa, const void *pb)
{
	const struct gr_diff_gpu_kernel *x = pa, *y = pb;
	uint64_t dx, dy;

	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	if (x->status == GR_DIFF_COMMON) {
		dx = df_absdiff(x->dur[0].total, x->dur[1].total);
		dy = df_absdiff(y->dur[0].total, y->dur[1].total);
		if (dx != dy)
			return dx > dy ? -1 : 1;
	}
	dx = x->dur[0].total + x->dur[1].total;
	dy = y->dur[0].total + y->dur[1].total;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return df_cmp_key(x->name, x->grid, x->block, y->name, y->grid, y->block);
}

int df_match_gpu_kernels(struct gr_diff *d, const struct gr_model *const m[2])
{
	struct gr_gpu_kernel *g[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, i = 0, j = 0;
	int err = 0;

	if (!d->gpu[0] || !d->gpu[1])
		return 0;
	for (int s = 0; s < 2 && !err; s++)
		err = gr_gpu_kernels(m[s], gpu_by(d->key), &g[s], &n[s]);
	if (err)
		goto out;
	d->gpu_kernels = calloc(n[0] + n[1] + 1, sizeof(*d->gpu_kernels));
	if (!d->gpu_kernels) {
		err = -ENOMEM;
		goto out;
	}
	for (int s = 0; s < 2; s++)
		gr_qsort(g[s], n[s], sizeof(*g[s]), cmp_key);
	while (i < n[0] || j < n[1]) {
		struct gr_diff_gpu_kernel *k = &d->gpu_kernels[d->ngpu_kernels++];
		int cmp = i == n[0] ? 1 : j == n[1] ? -1 : cmp_key(&g[0][i], &g[1][j]);
		const struct gr_gpu_kernel *src = cmp <= 0 ? &g[0][i] : &g[1][j];

		k->name = src->name;
		memcpy(k->grid, src->grid, sizeof(k->grid));
		memcpy(k->block, src->block, sizeof(k->block));
		if (cmp <= 0)
			k->dur[0] = g[0][i++].dur;
		if (cmp >= 0)
			k->dur[1] = g[1][j++].dur;
		k->status = !cmp ? GR_DIFF_COMMON : cmp < 0 ? GR_DIFF_REMOVED : GR_DIFF_ADDED;
		k->total_delta = (int64_t)k->dur[1].total - (int64_t)k->dur[0].total;
		k->total_ratio =
		    k->dur[0].total ? (double)k->dur[1].total / (double)k->dur[0].total : NAN;
		k->median_delta = (int64_t)k->dur[1].median - (int64_t)k->dur[0].median;
		k->hidden =
		    k->status == GR_DIFF_COMMON &&
		    df_change_pct((double)k->dur[0].count, (double)k->dur[1].count) <
			d->tolerance &&
		    df_change_pct((double)k->dur[0].total, (double)k->dur[1].total) < d->tolerance;
	}
	if (d->ngpu_kernels > 1)
		gr_qsort(d->gpu_kernels, d->ngpu_kernels, sizeof(*d->gpu_kernels), cmp_impact);
out:
	free(g[0]);
	free(g[1]);
	return err;
}
