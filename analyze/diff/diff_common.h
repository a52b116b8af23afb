/* SPDX-License-Identifier: MIT */
/*
 * What every part of the diff shares (diff_common.c): the kernel key order, change in percent,
 * metric ids and short names. diff.c, its parts (diff_parts.h) and the renderers use it; it calls
 * none of them. Not for other modules: they use diff.h.
 */
#ifndef GR_ANALYZE_DIFF_COMMON_H
#define GR_ANALYZE_DIFF_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diff_types.h"

/* Order of two kernel keys (name, grid, block): every table of kernel rows is merged and tied
 * in it, whatever holds the key. */
static inline int df_cmp_key(const char *na, const uint32_t ga[3], const uint32_t ba[3],
			     const char *nb, const uint32_t gb[3], const uint32_t bb[3])
{
	int c = strcmp(na, nb);

	if (c)
		return c;
	c = memcmp(ga, gb, 3 * sizeof(*ga));
	return c ? c : memcmp(ba, bb, 3 * sizeof(*ba));
}

static inline uint64_t df_absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Relative change in percent: 0 for equal values, INFINITY from 0 to non-zero or with a NAN. */
double df_change_pct(double a, double b);

/* "bias_add(float*, int)" -> "bias_add" into @buf; templates and namespaces are kept. */
const char *df_short_name(const char *name, char *buf, size_t len);

/* Copy direction @k (enum gr_copy_kind) as ids spell it: "h2h", "h2d", "d2h", "d2d", "default". */
const char *df_dir_id(unsigned k);

/* Budget part @part (enum gr_budget_part) as the diff says it per step: "host work", "launch
 * calls", "stream syncs"; the metric names and the summary lines share it. */
const char *df_budget_words(unsigned part);

/* A step bound (enum gr_step_bound) for a sentence: "GPU-bound", "host-bound", "mixed". */
const char *df_bound_words(unsigned bound);

/* The id of template @tmpl ("transfer.<dir>.bytes") with its one <...> part replaced by @part,
 * into @buf; a template without one is copied as it is. Returns @buf. */
const char *df_id(char *buf, size_t len, const char *tmpl, const char *part);

/* A fusion row's status as both renderers write it. */
static inline const char *df_fusion_status(enum gr_diff_status s)
{
	return s == GR_DIFF_ADDED ? "new" : s == GR_DIFF_REMOVED ? "gone" : "both";
}

#endif
