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

/* Add @n values to *@total, *@mn and *@mx. */
static void sum_min_max(const uint32_t *v, size_t n, uint64_t *total, uint32_t *mn, uint32_t *mx)
{
	for (size_t i = 0; i < n; i++) {
		*total += v[i];
		*mn = v[i] < *mn ? v[i] : *mn;
		*mx = v[i] > *mx ? v[i] : *mx;
	}
}

/* The ranks (0-based) of the median and p99 of @n > 0 values. Nearest rank: the q-quantile is
 * the ceil(q n)-th smallest (the lower median for an even count). */
static void quantile_ranks(uint64_t n, uint64_t *km, uint64_t *kp)
{
	*km = (n + 1) / 2 - 1;
	*kp = (99 * n + 99) / 100 - 1;
}

void gr_dist_u32(struct gr_dist *d, uint32_t *v, size_t n)
{
	uint64_t km, kp, total = 0;
	uint32_t vm = 0, vp = 0, mn = UINT32_MAX, mx = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	sum_min_max(v, n, &total, &mn, &mx);
	d->count = n;
	d->total = total;
	d->min = mn;
	d->max = mx;
	quantile_ranks(n, &km, &kp);
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

/* The @ka-th and @kb-th smallest (ka <= kb < n) of @v (reordered) into *@va and *@vb. */
static void kth2_u32(uint32_t *v, size_t n, size_t ka, size_t kb, uint32_t *va, uint32_t *vb)
{
	if (n >= (1u << 16) && !radix_select(v, n, ka, kb, va, vb))
		return;
	select_u32(v, 0, (ptrdiff_t)n - 1, (ptrdiff_t)ka);
	*va = v[ka];
	if (kb > ka)
		select_u32(v, (ptrdiff_t)ka + 1, (ptrdiff_t)n - 1, (ptrdiff_t)kb);
	*vb = v[kb];
}

/* The @ka-th and @kb-th smallest (ka <= kb < the values counted) of values counted per value
 * below GR_DIST_SPLIT in @count, into *@va and *@vb. */
static void kth2_counted(const uint64_t *count, uint64_t ka, uint64_t kb, uint32_t *va,
			 uint32_t *vb)
{
	uint64_t acc = 0;
	int got_a = 0;

	for (uint32_t b = 0; b < GR_DIST_SPLIT; b++) {
		acc += count[b];
		if (!got_a && acc > ka) {
			*va = b;
			got_a = 1;
		}
		if (acc > kb) {
			*vb = b;
			break;
		}
	}
}

/* The @ka-th and @kb-th smallest (ka <= kb < n) of the 16-bit @v into *@va and *@vb: a count
 * per value for many, a copy to select in for a few. Returns 0 or -ENOMEM. */
static int kth2_u16(const uint16_t *v, size_t n, size_t ka, size_t kb, uint32_t *va, uint32_t *vb)
{
	const size_t B = 1u << 16;
	uint32_t *c;
	uint64_t *count;

	if (n < B) {
		c = malloc((n + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			c[i] = v[i];
		kth2_u32(c, n, ka, kb, va, vb);
		free(c);
		return 0;
	}
	/* every value of @v is below GR_DIST_SPLIT */
	count = calloc(GR_DIST_SPLIT, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		count[v[i]]++;
	kth2_counted(count, ka, kb, va, vb);
	free(count);
	return 0;
}

int gr_dist_split(struct gr_dist *d, const uint16_t *lo, size_t nlo, uint32_t *hi, size_t nhi)
{
	size_t n = nlo + nhi;
	uint64_t total = 0, km, kp;
	uint32_t mn = UINT32_MAX, mx = 0, v1 = 0, v2 = 0;
	int err = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return 0;
	for (size_t i = 0; i < nlo; i++) {
		total += lo[i];
		mn = lo[i] < mn ? lo[i] : mn;
		mx = lo[i] > mx ? lo[i] : mx;
	}
	sum_min_max(hi, nhi, &total, &mn, &mx);
	d->count = n;
	d->total = total;
	d->min = mn;
	d->max = mx;
	quantile_ranks(n, &km, &kp);
	/* every value of @lo is below every value of @hi: the k-th is @lo's or @hi's k - nlo-th */
	if (kp < nlo) {
		err = kth2_u16(lo, nlo, km, kp, &v1, &v2);
	} else if (km >= nlo) {
		kth2_u32(hi, nhi, km - nlo, kp - nlo, &v1, &v2);
	} else {
		err = kth2_u16(lo, nlo, km, km, &v1, &v1);
		kth2_u32(hi, nhi, kp - nlo, kp - nlo, &v2, &v2);
	}
	if (err) {
		memset(d, 0, sizeof(*d));
		return err;
	}
	d->median = v1;
	d->p99 = v2;
	return 0;
}

int gr_dist_hi_put(struct gr_dist_hi *h, uint32_t v)
{
	if (h->n == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 64;
		uint32_t *nv = realloc(h->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		h->v = nv;
		h->cap = ncap;
	}
	h->v[h->n++] = v;
	return 0;
}

int gr_dist_counts_put(struct gr_dist_counts *c, uint32_t v)
{
	if (v >= GR_DIST_SPLIT)
		return gr_dist_hi_put(&c->hi, v);
	if (!c->count) {
		c->count = calloc(GR_DIST_SPLIT, sizeof(*c->count));
		if (!c->count)
			return -ENOMEM;
	}
	c->count[v]++;
	c->nlo++;
	return 0;
}

void gr_dist_counts_get(struct gr_dist *d, struct gr_dist_counts *c)
{
	uint64_t n = c->nlo + c->hi.n, km, kp, total = 0;
	uint32_t mn = UINT32_MAX, mx = 0, v1 = 0, v2 = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	for (uint32_t b = 0; c->nlo && b < GR_DIST_SPLIT; b++) {
		if (!c->count[b])
			continue;
		total += (uint64_t)b * c->count[b];
		mn = b < mn ? b : mn;
		mx = b;
	}
	sum_min_max(c->hi.v, c->hi.n, &total, &mn, &mx);
	d->count = n;
	d->total = total;
	d->min = mn;
	d->max = mx;
	quantile_ranks(n, &km, &kp);
	/* every counted value is below every kept one, as in gr_dist_split() */
	if (kp < c->nlo) {
		kth2_counted(c->count, km, kp, &v1, &v2);
	} else if (km >= c->nlo) {
		kth2_u32(c->hi.v, c->hi.n, km - c->nlo, kp - c->nlo, &v1, &v2);
	} else {
		kth2_counted(c->count, km, km, &v1, &v1);
		kth2_u32(c->hi.v, c->hi.n, kp - c->nlo, kp - c->nlo, &v2, &v2);
	}
	d->median = v1;
	d->p99 = v2;
}

void gr_dist_counts_free(struct gr_dist_counts *c)
{
	free(c->count);
	free(c->hi.v);
	memset(c, 0, sizeof(*c));
}
