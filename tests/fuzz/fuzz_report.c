/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes that load as a model through gr_report_compute() and both renderers.
 * Besides not crashing, the report must hold together: kernel counts add up to the launches,
 * quantiles are ordered, shares are fractions, fusion candidates are repeated runs of 3 or more,
 * a thread's states add up to its lifetime, every verdict has a sentence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "tests/fuzz/fuzz.h"

static void check_dist(const struct gr_dist *d)
{
	if (!d->count)
		return;
	FUZZ_ASSERT(d->min <= d->median && d->median <= d->p99 && d->p99 <= d->max);
	FUZZ_ASSERT(d->total >= d->max);
}

static void check_report(const struct gr_report *r, size_t nlaunches)
{
	const struct gr_report_launches *L = &r->launches;
	uint64_t sum = 0;

	FUZZ_ASSERT(L->total == nlaunches);
	for (size_t i = 0; i < L->nkernels; i++) {
		uint64_t csum = 0;

		sum += L->kernels[i].count;
		FUZZ_ASSERT(L->kernels[i].name && L->kernels[i].nconfigs >= 1);
		for (size_t c = 0; c < L->kernels[i].nconfigs; c++)
			csum += L->kernels[i].configs[c].count;
		FUZZ_ASSERT(csum == L->kernels[i].count);
		check_dist(&L->kernels[i].api);
	}
	FUZZ_ASSERT(sum == L->total);
	for (size_t i = 0; i < L->ngaps; i++)
		check_dist(&L->gaps[i].gap);
	if (L->iter.found) {
		FUZZ_ASSERT(L->iter.count >= 2 && L->iter.calls >= 1);
		FUZZ_ASSERT(L->iter.launches <= L->iter.calls &&
			    L->iter.end_ts >= L->iter.start_ts);
		FUZZ_ASSERT(L->iter.match >= 0.9 && L->iter.match <= 1.0);
	}
	/* the step budget: one per iteration, each adding up exactly (docs/REPORTS.md) */
	FUZZ_ASSERT(r->budget.found == L->iter.found);
	if (r->budget.found) {
		const struct gr_budget *b[] = {&r->budget.median, &r->budget.p90,
					       &r->budget.slowest, &r->budget.mean};

		FUZZ_ASSERT(r->budget.iterations == L->iter.count);
		for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
			uint64_t parts = 0, reasons = 0;

			for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
				parts += b[k]->part_ns[p];
			for (unsigned q = 0; q < GR_BUDGET_NREASONS; q++)
				reasons += b[k]->blocked_ns[q];
			FUZZ_ASSERT(parts == b[k]->total_ns &&
				    reasons == b[k]->part_ns[GR_BUDGET_BLOCKED]);
			FUZZ_ASSERT(b[k]->unmeasured <= b[k]->calls);
		}
		FUZZ_ASSERT(r->budget.median.total_ns <= r->budget.p90.total_ns &&
			    r->budget.p90.total_ns <= r->budget.slowest.total_ns);
	}
	for (size_t i = 0; i < r->fusion.ncandidates; i++) {
		const struct gr_report_candidate *c = &r->fusion.candidates[i];

		FUZZ_ASSERT(c->len >= 3 && c->occurrences >= 2 && c->nsmall <= c->len);
		FUZZ_ASSERT(i == 0 ||
			    r->fusion.candidates[i - 1].est_saving_ns >= c->est_saving_ns);
	}
	for (size_t i = 0; i < r->transfer.nfindings; i++)
		FUZZ_ASSERT(r->transfer.findings[i].count > 0 && r->transfer.findings[i].detail);
	for (size_t i = 0; i < r->cpu.nthreads; i++) {
		const struct gr_report_cpu_thread *t = &r->cpu.threads[i];

		FUZZ_ASSERT(t->oncpu_ns + t->runnable_wait_ns + t->blocked_ns + t->unknown_ns ==
			    t->lifetime_ns);
		FUZZ_ASSERT(t->starved_gaps <= t->gaps && t->active_wait_ns <= t->active_ns);
		FUZZ_ASSERT(t->starved_share >= 0 && t->starved_share <= 1);
	}
	FUZZ_ASSERT(L->verdict.text && r->fusion.verdict.text && r->transfer.verdict.text &&
		    r->cpu.verdict.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_diag diag = {0};
	FILE *devnull;
	size_t nl;

	if (gr_model_load_mem(&m, data, size, 1u << 20, &diag))
		return 0;
	gr_model_launches(m, &nl);
	FUZZ_ASSERT(gr_report_compute(m, NULL, &r) == 0);
	check_report(r, nl);
	devnull = fopen("/dev/null", "w");
	if (devnull) {
		FUZZ_ASSERT(gr_report_write_text(devnull, r, m, 5) == 0);
		FUZZ_ASSERT(gr_report_write_json(devnull, r, m, 0) == 0);
		fclose(devnull);
	}
	gr_report_free(r);
	gr_model_free(m);
	return 0;
}
