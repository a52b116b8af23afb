/* SPDX-License-Identifier: MIT */
/*
 * The parts diff.c runs after matching the kernels and the figures: the launch sites
 * (diff_sites.c), the GPU kernel rows (diff_gpu.c), the summary sentences (diff_summary.c).
 * Each fills its part of the diff; none calls back into diff.c.
 */
#ifndef GR_ANALYZE_DIFF_PARTS_H
#define GR_ANALYZE_DIFF_PARTS_H

#include <stddef.h>

#include "diff_types.h"

/*
 * Write d->summary from the diff's rows and figures (diff_summary.c), @m only for what the
 * figures do not carry (lost event counts, damage, host names). Returns 0 or -ENOMEM.
 */
int df_summarize(struct gr_diff *d, const struct gr_model *const m[2]);

/* Every metric id or id template the summary reads, NULL-terminated: test_diff checks that
 * each names a figure of a real diff, so that a renamed id cannot drop a summary line unseen. */
extern const char *const df_summary_ids[];

/* Match the launch sites of @m[0] and @m[1] into d->sites (when either has Python frames).
 * Returns 0 or -ENOMEM. */
int df_match_sites(struct gr_diff *d, const struct gr_model *const m[2]);

/* A matched site for people: "train.py:42 step", "train.py:42->44 step" when the line moved. */
const char *df_site_label(const struct gr_diff_site *s, char *buf, size_t len);

/* Match the GPU kernel rows of @m[0] and @m[1] by d->key into d->gpu_kernels (diff_gpu.c), when
 * both have GPU rows. Returns 0 or -ENOMEM. */
int df_match_gpu_kernels(struct gr_diff *d, const struct gr_model *const m[2]);

/* Match the NVTX range names of both reports into d->nvtx (diff_nvtx.c). Returns 0 or -ENOMEM
 * (what was matched is freed by df_free_nvtx()). */
int df_match_nvtx(struct gr_diff *d);
void df_free_nvtx(struct gr_diff *d);

#endif
