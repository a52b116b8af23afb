/* SPDX-License-Identifier: MIT */
/*
 * The report's account of calls that did not do what they were asked (outcome.h): failed calls
 * by API and error with a call site, calls still in flight at the end. When most calls whose
 * status is known failed, no section's verdict stands: a launch-bound or transfer verdict made
 * of the few calls that worked, in a run where the rest did nothing, would be a guess at best.
 */
#include <errno.h>
#include <inttypes.h>

#include "report_sections.h"

int rp_outcome(struct rp_ctx *x)
{
	struct gr_report_outcome *ro = &x->r->outcome;
	struct gr_outcome *o = &ro->o;
	int err = gr_outcome_compute(x->m, o);

	if (err)
		return err;
	if (o->nerrors) {
		ro->error_sites = rp_alloc(x, o->nerrors, sizeof(*ro->error_sites));
		if (!ro->error_sites)
			return -ENOMEM;
	}
	for (size_t i = 0; i < o->nerrors && !err; i++)
		err = rp_site(x, &ro->error_sites[i], o->errors[i].stack, 0);
	if (!err && o->nin_flight) {
		ro->in_flight_sites = rp_alloc(x, o->nin_flight, sizeof(*ro->in_flight_sites));
		if (!ro->in_flight_sites)
			return -ENOMEM;
	}
	for (size_t i = 0; i < o->nin_flight && !err; i++)
		err = rp_site(x, &ro->in_flight_sites[i], gr_aside_stack(x->m, o->in_flight[i]), 0);
	return err;
}

int rp_outcome_judge(struct rp_ctx *x)
{
	struct gr_report *r = x->r;
	const struct gr_outcome *o = &r->outcome.o;
	struct gr_verdict *v[] = {&r->diagnosis.verdict, &r->launches.verdict, &r->fusion.verdict,
				  &r->transfer.verdict, &r->cpu.verdict};
	int err = 0;

	if (!o->most_failed)
		return 0;
	r->diagnosis.bound = GR_BOUND_NONE;
	r->diagnosis.refute = "";
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]) && !err; i++)
		err = rp_verdict(x, v[i], GR_VERDICT_NONE,
				 "not judged: %" PRIu64 " of %" PRIu64 " calls failed (see above)",
				 o->failed, o->failed + o->ok);
	return err;
}
