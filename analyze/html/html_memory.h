/* SPDX-License-Identifier: MIT */
/*
 * The HTML page's device memory view (docs/HTML.md, "MEMORY"), from a report's memory figures.
 */
#ifndef GR_ANALYZE_HTML_MEMORY_H
#define GR_ANALYZE_HTML_MEMORY_H

#include <stdint.h>

#include "analyze/figures/memory.h"
#include "analyze/model/model.h"

#define GR_HTML_MEMORY_POINTS 1000 /* points per process at most; more changes are binned */
#define GR_HTML_MEMORY_PROCS  8	   /* processes drawn at most (by pid) */

struct gr_json;
/*
 * "memory" into @j: null when nothing was allocated, else {processes: [{pid, peak_bytes,
 * peak_ns, peak_iteration, outstanding_bytes, binned, points: [[ns, bytes]...]}], flame: {pid,
 * weights: ["bytes"], merged, root}} with times relative to @t0. Returns 0 or -ENOMEM.
 */
int gr_html_memory_json(struct gr_json *j, const struct gr_model *m, const struct gr_memory *mem,
			uint64_t t0);

#endif
