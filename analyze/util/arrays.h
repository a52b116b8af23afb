/* SPDX-License-Identifier: MIT */
/*
 * qsort, qsort_r and bsearch for arrays that may be empty. An empty table is often a NULL
 * pointer with a count of 0 (a damaged trace that recovered no chunk has nothing but those), and
 * C leaves these calls undefined for NULL whatever the count: glibc declares the pointers
 * nonnull, so the compiler may drop a later NULL check, and the sanitizer build aborts. Every
 * sort and search in analyze/ goes through these. (Its memcpy and memset calls with a count that
 * can be 0 are guarded where they are, or copy to and from buffers allocated one entry larger.)
 */
#ifndef GR_ANALYZE_ARRAYS_H
#define GR_ANALYZE_ARRAYS_H

#include <stdlib.h>

/* qsort(): nothing to do for fewer than two entries, @base NULL among them. */
static inline void gr_qsort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* qsort_r(), the same. */
static inline void gr_qsort_r(void *base, size_t n, size_t size,
			      int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, arg);
}

/* bsearch(): NULL (not found) in an empty array, @base NULL among them. */
static inline void *gr_bsearch(const void *key, const void *base, size_t n, size_t size,
			       int (*cmp)(const void *, const void *))
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}

#endif
