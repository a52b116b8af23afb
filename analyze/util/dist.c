/* SPDX-License-Identifier: MIT */
/* Distributions of ns values (dist.h): exact order statistics, in linear time. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

/* Move the k-th smallest of v[lo..hi] to v[k], smaller ones before it, larger after (Wirth's
 * selection). */
static void select_u32(uint32_t *v, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t k)
{
	while (lo < hi) {
		uint32_t pivot = v[k], t;
		ptrdiff_t i = lo, j = hi;

		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			lo = i;
		if (k < i)
			hi = j;
	}
}

/* The km-th and kp-th smallest (km <= kp) of @v by two counting passes over 16-bit digits:
 * linear and cache-friendly for the millions of gaps a big trace has. Gaps cluster in a few
 * buckets, so the first pass counts into 4 interleaved tables to keep increments of one bucket
 * from waiting on each other. */
static int radix_select(const uint32_t *v, size_t n, size_t km, size_t kp, uint32_t *vm,
			uint32_t *vp)
{
	const size_t B = 1u << 16;
	uint32_t *hi = calloc(6 * B, sizeof(*hi)), *lo_m, *lo_p, bm = 0, bp = 0;
	size_t acc = 0, rm = km, rp = kp, i = 0;
	int found_m = 0;

	*vm = *vp = 0;
	if (!hi)
		return -ENOMEM;
	lo_m = hi + 4 * B;
	lo_p = lo_m + B;
	for (; i + 4 <= n; i += 4) {
		hi[v[i] >> 16]++;
		hi[B + (v[i + 1] >> 16)]++;
		hi[2 * B + (v[i + 2] >> 16)]++;
		hi[3 * B + (v[i + 3] >> 16)]++;
	}
	for (; i < n; i++)
		hi[v[i] >> 16]++;
	for (uint32_t b = 0; b < B; b++) {
		size_t c = (size_t)hi[b] + hi[B + b] + hi[2 * B + b] + hi[3 * B + b];

		if (!found_m && acc + c > km) {
			bm = b;
			rm = km - acc;
			found_m = 1;
		}
		if (acc + c > kp) {
			bp = b;
			rp = kp - acc;
			break;
		}
		acc += c;
	}
	for (i = 0; i < n; i++) {
		uint32_t h = v[i] >> 16;

		if (h == bm)
			lo_m[v[i] & 0xffff]++;
		if (h == bp)
			lo_p[v[i] & 0xffff]++;
	}
	acc = 0;
	for (uint32_t b = 0; b < B; b++) {
		if (acc + lo_m[b] > rm) {
			*vm = bm << 16 | b;
			break;
		}
		acc += lo_m[b];
	}
	acc = 0;
	for (uint32_t b = 0; b < B; b++) {
		if (acc + lo_p[b] > rp) {
			*vp = bp << 16 | b;
			break;
		}
		acc += lo_p[b];
	}
	free(hi);
	return 0;
}

void gr_dist_u32(struct gr_dist *d, uint32_t *v, size_t n)
{
	size_t km, kp;
	uint32_t vm = 0, vp = 0;

	uint64_t total = 0;
	uint32_t mn = UINT32_MAX, mx = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		total += v[i];
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	d->count = n;
	d->total = total;
	d->min = mn;
	d->max = mx;
	/* nearest rank: the q-quantile is the ceil(q n)-th smallest */
	km = (n + 1) / 2 - 1;
	kp = (99 * n + 99) / 100 - 1;
	if (n >= (1u << 16) && !radix_select(v, n, km, kp, &vm, &vp)) {
		d->median = vm;
		d->p99 = vp;
		return;
	}
	select_u32(v, 0, (ptrdiff_t)n - 1, (ptrdiff_t)km);
	d->median = v[km];
	if (kp > km)
		select_u32(v, (ptrdiff_t)km + 1, (ptrdiff_t)n - 1, (ptrdiff_t)kp);
	d->p99 = v[kp];
}
