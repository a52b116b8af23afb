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

#endif
