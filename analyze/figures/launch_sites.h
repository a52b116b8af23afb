/* SPDX-License-Identifier: MIT */
/*
 * Launches by call site, for every command that shows where launches come from (report's launch
 * sites table, diff): a site is one frame (frames.h), the innermost Python frame of a launch's
 * stack when it has one, else the native frame that launched (the innermost outside the CUDA
 * libraries). One pass over gr_model_launches() counting per launch key, then per stack.
 *
 * Ownership: gr_launch_sites_compute() fills a caller's struct with arrays it allocates;
 * gr_launch_sites_free() releases them. Frames' strings point into the model.
 */
#ifndef GR_ANALYZE_LAUNCH_SITES_H
#define GR_ANALYZE_LAUNCH_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"
#include "frames.h"

/* A kernel launched from a site. */
struct gr_launch_site_kernel {
	uint32_t name_id; /* gr_model_kernel_names() index */
	uint64_t count;
};

struct gr_launch_site {
	struct gr_frame frame;	  /* the site */
	struct gr_frame launcher; /* Python sites: the native frame that launched, when known
				     (launcher.value 0: none); native sites: the same frame */
	uint32_t pid;		  /* of the stack first seen at the site */
	uint32_t first;		  /* order of first use among the stacks: sorts equal counts */
	uint64_t launches;
	struct gr_launch_site_kernel *kernels; /* by count desc, then name */
	size_t nkernels;
};

struct gr_launch_sites {
	struct gr_launch_site *v; /* by launches desc, then order of first launch */
	size_t n;
	uint64_t launches;     /* all launches */
	uint64_t without_site; /* launches without a stack (or no frame in it) */
};

/* Compute @out from @m. Returns 0 or -ENOMEM (@out then empty). */
int gr_launch_sites_compute(const struct gr_model *m, struct gr_launch_sites *out);

/* Release what compute allocated (a zeroed struct is accepted). */
void gr_launch_sites_free(struct gr_launch_sites *s);

#endif
