/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a job summary (analyze/report/job.h), a text file anyone can hand `gpurec report`,
 * through gr_job_parse(), gr_job_finish() and both writers.
 *
 * Invariants: a summary is read, or refused with -EINVAL and a reason naming it; what is read
 * has every process in a trace read before it and every range in a process, finishes into a
 * ranks section of every process, whose straggler is one of them; the text and JSON reports
 * write, and the JSON is valid.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/job.h"
#include "json_check.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_job job = {0};
	char why[256] = "", *out = NULL;
	size_t len = 0;
	FILE *f;
	int err = gr_job_parse(&job, "in.sum", (const char *)data, size, why);

	if (err) {
		FUZZ_ASSERT(err == -EINVAL || err == -ENOMEM);
		if (err == -EINVAL)
			FUZZ_ASSERT(!strncmp(why, "in.sum: ", 8));
		gr_job_free(&job);
		return 0;
	}
	for (size_t i = 0; i < job.nprocs; i++)
		FUZZ_ASSERT(job.procs[i].rank.trace < job.ntraces);
	if (gr_job_finish(&job)) {
		gr_job_free(&job);
		return 0;
	}
	FUZZ_ASSERT(job.ranks.n == job.nprocs);
	if (job.ranks.straggler.found)
		FUZZ_ASSERT(job.ranks.straggler.index < job.ranks.n);
	for (size_t i = 0; i < job.ranks.nranges; i++)
		FUZZ_ASSERT(job.ranks.ranges[i].slowest < job.ranks.n);
	for (size_t i = 0; i < job.nlast; i++)
		FUZZ_ASSERT(job.last[i].trace < job.ntraces &&
			    job.last[i].rank < job.last[i].nranks && job.last[i].last >= 1);
	f = fopen("/dev/null", "w");
	FUZZ_ASSERT(f && gr_job_write_text(f, &job, 0) == 0);
	fclose(f);
	f = open_memstream(&out, &len);
	FUZZ_ASSERT(f && gr_job_write_json(f, &job, 0) == 0);
	fclose(f);
	FUZZ_ASSERT(json_check(out, len, NULL, NULL) == 0);
	free(out);
	gr_job_free(&job);
	return 0;
}
