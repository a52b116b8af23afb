/* SPDX-License-Identifier: MIT */
/*
 * The step budget of the report's iteration (analyze/figures/budget.h computes it, so that diff
 * and the HTML page read the same one): the iteration's thread's scheduler states over the loop,
 * then every iteration cut into its parts, with the probe cost the report compensates.
 */
#include <errno.h>

#include "report_sections.h"

int rp_budget(struct rp_ctx *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_budget_states st;
	struct gr_budget_loop loop;
	int err;

	if (!it->found || !it->count || !it->starts)
		return 0;
	err = gr_budget_states(x->m, it->thread, it->start_ts, it->end_ts, &st);
	if (err)
		return err;
	loop = (struct gr_budget_loop){it->thread, it->starts, it->count, it->end_ts,
				       NULL,	   0,	       x->jobs};
	err = gr_budget_compute(x->m, x->pc, &loop, &st, &x->r->budget);
	gr_budget_states_free(&st);
	/* a loop the budget cannot take (no such thread) has no budget, not a failed report */
	return err == -EINVAL ? 0 : err;
}
