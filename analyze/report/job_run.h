/* SPDX-License-Identifier: MIT */
/* The per-trace route of a job (job.h): the traces' summaries, made a worker per CPU. */
#ifndef GR_ANALYZE_JOB_RUN_H
#define GR_ANALYZE_JOB_RUN_H

#include <stddef.h>

#include "analyze/model/model.h"
#include "job.h"
#include "report_types.h"

/*
 * @nargs command-line names into *@out (@n of them, each malloc'd): a directory becomes its
 * *.trc files, sorted by name; anything else stays as it is. Returns 0, or -1 after saying why
 * ("gpurec CMD: DIR: no *.trc file in this directory").
 */
int gr_job_paths(const char *cmd, const char *const *args, size_t nargs, char ***out, size_t *n);

/*
 * The summary of each of the @n @paths into (*@texts)[i] and (*@lens)[i], in order: a trace
 * loaded with @lopts (on one thread: the traces are the parallel work) and reported with @ropts,
 * @jobs at a time (0: one per CPU); a summary file read as it is. Progress counts traces.
 * Returns 0, or the first error after each failed trace said why on stderr (the rest are then
 * skipped). The caller frees each text and both arrays, on an error too.
 */
int gr_job_summaries(const char *cmd, char *const *paths, size_t n,
		     const struct gr_model_load_opts *lopts, const struct gr_report_opts *ropts,
		     unsigned jobs, char ***texts, size_t **lens);

/* Parse the @n summaries (@names for errors) into @job and finish it. Returns 0 or an error
 * after saying why. */
int gr_job_from_summaries(const char *cmd, char *const *names, char *const *texts,
			  const size_t *lens, size_t n, struct gr_job *job);

#endif
