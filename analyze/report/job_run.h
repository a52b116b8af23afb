/* SPDX-License-Identifier: MIT */
/* The per-trace route of a job (job.h): the traces' summaries, made a worker per CPU. */
#ifndef GR_ANALYZE_JOB_RUN_H
#define GR_ANALYZE_JOB_RUN_H

#include <stddef.h>

#include "analyze/model/model.h"
#include "job.h"
#include "report_types.h"

/* Whether @path is what only the per-trace route reads: a directory of traces or a summary. */
int gr_job_takes(const char *path);

/*
 * @nargs command-line names into *@out (@n of them, each malloc'd): a directory becomes its
 * *.trc files, sorted by name; anything else stays as it is. Returns 0, or -1 after saying why
 * ("gpurec CMD: DIR: no *.trc file in this directory").
 */
int gr_job_paths(const char *cmd, const char *const *args, size_t nargs, char ***out, size_t *n);

/*
 * The summary of each of the @n @paths, handed to @take in order (@take owns the text, @len
 * bytes, and frees it), so that only the summaries of the traces being worked on are in memory:
 * a trace loaded with @lopts (on one thread: the traces are the parallel work) and reported with
 * @ropts, @jobs at a time (0: one per CPU); a summary file read as it is. Progress counts traces.
 * Returns 0, or the first error: a failed trace said why on stderr (the rest are then skipped),
 * @take's error is returned as it is.
 */
int gr_job_summaries(const char *cmd, char *const *paths, size_t n,
		     const struct gr_model_load_opts *lopts, const struct gr_report_opts *ropts,
		     unsigned jobs,
		     int (*take)(void *ctx, const char *path, char *text, size_t len), void *ctx);

/* A @take for gr_job_summaries(): parse the summary into the struct gr_job @ctx, saying why on
 * stderr when it cannot be ("gpurec report: PATH: line N: reason"). */
int gr_job_take(void *ctx, const char *path, char *text, size_t len);

#endif
