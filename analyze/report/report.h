/* SPDX-License-Identifier: MIT */
/*
 * `gpurec report`'s entry points: the computation (report.c, which runs the passes and the
 * sections in order) and the renderers (report_text.c, report_json.c). What a report holds, and
 * what the sections fill: report_types.h.
 */
#ifndef GR_ANALYZE_REPORT_H
#define GR_ANALYZE_REPORT_H

#include <stdio.h>

#include "report_types.h"

/*
 * Compute the sections @o asks for (NULL: defaults, all sections) from @m. Returns 0 and sets
 * *@out, or -ENOMEM / -EINVAL with *@out NULL. The report points into @m (report_types.h).
 */
int gr_report_compute(const struct gr_model *m, const struct gr_report_opts *o,
		      struct gr_report **out);

/* Free a report (NULL is accepted). */
/* Why gr_report_compute() failed with opts.step set, in words, for -ENOENT (the SPEC matches no
 * call) and -EINVAL (it names nothing); NULL for any other error. */
const char *gr_report_step_error(int err);

void gr_report_free(struct gr_report *r);

/* Text rendering: a summary with the verdicts, then each section's tables, at most @top rows
 * per ranked table (0 = 20). Returns 0 or -EIO. */
int gr_report_write_text(FILE *f, const struct gr_report *r, const struct gr_model *m,
			 unsigned top);

struct gr_json;
/* The same JSON as gr_report_write_json(), as one value into @j, a document the caller began and
 * ends (the HTML report's data, html.h). */
void gr_report_json(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		    unsigned top);

/* JSON rendering, the schema of docs/REPORTS.md; at most @top entries per ranked list (0 =
 * all). Returns 0, -EIO or GR_ERR_STATE (writer misuse). */
int gr_report_write_json(FILE *f, const struct gr_report *r, const struct gr_model *m,
			 unsigned top);

/* The ranks section alone, for a job reported per trace (job.h): its text (heading, the traces
 * @t of the job, one row per process, the pace by range, the verdict; at most @top rows, 0 = 20),
 * and its JSON keys ("ranks_verdict", "ranks", "nvtx_pace", "straggler") and "traces" into an
 * object the caller began. */
void gr_report_ranks_text(FILE *f, const struct gr_report_ranks *R, const struct gr_model_trace *t,
			  size_t nt, unsigned top);
void gr_report_ranks_json(struct gr_json *j, const struct gr_report_ranks *R, unsigned top);
void gr_report_traces_json(struct gr_json *j, const struct gr_model_trace *t, size_t n);

#endif
