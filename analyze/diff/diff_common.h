/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the diff's files: diff.c (the computation), diff_summary.c (the
 * sentences), diff_text.c and diff_json.c (the renderers). Not for other modules: they use
 * diff.h.
 */
#ifndef GR_ANALYZE_DIFF_IMPL_H
#define GR_ANALYZE_DIFF_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diff.h"

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

/* The id of template @tmpl ("transfer.<dir>.bytes") with its one <...> part replaced by @part,
 * into @buf; a template without one is copied as it is. Returns @buf. */
const char *df_id(char *buf, size_t len, const char *tmpl, const char *part);

/*
 * Write d->summary from the diff's rows and figures (diff_summary.c), @m only for what the
 * figures do not carry (lost event counts, damage, host names). Returns 0 or -ENOMEM.
 */
int df_summarize(struct gr_diff *d, const struct gr_model *const m[2]);

/* Every metric id or id template the summary reads, NULL-terminated: test_diff checks that
 * each names a figure of a real diff, so that a renamed id cannot drop a summary line unseen. */
extern const char *const df_summary_ids[];

/* A fusion row's status as both renderers write it. */
static inline const char *df_fusion_status(enum gr_diff_status s)
{
	return s == GR_DIFF_ADDED ? "new" : s == GR_DIFF_REMOVED ? "gone" : "both";
}

/* Match the launch sites of @m[0] and @m[1] into d->sites (when either has Python frames).
 * Returns 0 or -ENOMEM. */
int df_match_sites(struct gr_diff *d, const struct gr_model *const m[2]);

/* A matched site for people: "train.py:42 step", "train.py:42->44 step" when the line moved. */
const char *df_site_label(const struct gr_diff_site *s, char *buf, size_t len);

/* Match the GPU kernel rows of @m[0] and @m[1] by d->key into d->gpu_kernels (diff_gpu.c), when
 * both have GPU rows. Returns 0 or -ENOMEM. */
int df_match_gpu_kernels(struct gr_diff *d, const struct gr_model *const m[2]);

#endif
