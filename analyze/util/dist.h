/* SPDX-License-Identifier: MIT */
/*
 * Distributions of ns values (launch call times, inter-launch gaps, iteration periods): count,
 * total, min, max and exact quantiles, computed once here for every figure that shows one.
 */
#ifndef GR_ANALYZE_DIST_H
#define GR_ANALYZE_DIST_H

#include <stddef.h>
#include <stdint.h>

/* Distribution of a set of ns values; all 0 when count is 0. Quantiles are exact (order stats,
 * the lower median for an even count). */
struct gr_dist {
	uint64_t count, total;
	uint64_t min, median, p99, max;
};

/* The distribution of @n values (reordered in place; values saturated to u32 ns by the caller). */
void gr_dist_u32(struct gr_dist *d, uint32_t *v, size_t n);

/*
 * The same for values held in two parts, the @nlo below GR_DIST_SPLIT in 16 bits and the @nhi
 * others (reordered in place): half the memory where most values are small (launch gaps and
 * costs of a few us). Returns 0 or -ENOMEM (*@d zeroed).
 */
#define GR_DIST_SPLIT 0xffffu
int gr_dist_split(struct gr_dist *d, const uint16_t *lo, size_t nlo, uint32_t *hi, size_t nhi);

/* Values from GR_DIST_SPLIT up, kept as they come: gr_dist_split()'s @hi, grown by
 * gr_dist_hi_put() (0 or -ENOMEM); zero-initialise, free(v). */
struct gr_dist_hi {
	uint32_t *v;
	size_t n, cap;
};

int gr_dist_hi_put(struct gr_dist_hi *h, uint32_t v);

/*
 * The same for values put one at a time, where there are too many to keep (a thread's launch
 * gaps, 2 bytes a launch as above): a count per value below GR_DIST_SPLIT (512 KiB, allocated
 * at the first such value), the others kept. Zero-initialise; gr_dist_counts_put() returns 0 or
 * -ENOMEM; gr_dist_counts_get() gives the same distribution gr_dist_split() would of the same
 * values (the kept ones reordered); gr_dist_counts_free() frees.
 */
struct gr_dist_counts {
	uint64_t *count;      /* per value below GR_DIST_SPLIT */
	uint64_t nlo;	      /* values counted there */
	struct gr_dist_hi hi; /* the values from GR_DIST_SPLIT up */
};

int gr_dist_counts_put(struct gr_dist_counts *c, uint32_t v);
void gr_dist_counts_get(struct gr_dist *d, struct gr_dist_counts *c);
void gr_dist_counts_free(struct gr_dist_counts *c);

#endif
