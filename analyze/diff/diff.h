/* SPDX-License-Identifier: MIT */
/*
 * `gpurec diff`'s entry points: the computation (diff.c, which runs the parts in order) and the
 * renderers (diff_text.c, diff_json.c). What a diff holds, and what the parts fill:
 * diff_types.h.
 */
#ifndef GR_ANALYZE_DIFF_H
#define GR_ANALYZE_DIFF_H

#include <stdio.h>

#include "diff_types.h"

/*
 * Compare @a (BASE) with @b (NEW). Returns 0 and sets *@out, or -ENOMEM / -EINVAL with *@out
 * NULL. Prints nothing.
 */
int gr_diff_compute(const struct gr_model *a, const struct gr_model *b,
		    const struct gr_diff_opts *o, struct gr_diff **out);

/* Free a diff and its reports (NULL is accepted). */
void gr_diff_free(struct gr_diff *d);

/* @v in @unit ("ns", "B", "/s", "%", "" for a count) for people: "1.250 ms", "16.0 MiB";
 * "-" for NAN. */
void gr_diff_format(char *buf, size_t len, const char *unit, double v);

/*
 * The diff as aligned text, `gpurec diff`'s output: each trace (@path, its model), the summary,
 * the kernel rows, the fusion rows, the figures by group. Returns 0 or -EIO.
 */
int gr_diff_write_text(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		       const char *const path[2]);

struct gr_json;
/* The same JSON as gr_diff_write_json(), as one value into @j, a document the caller began and
 * ends (the HTML report's data, html.h). */
void gr_diff_json(struct gr_json *j, const struct gr_diff *d, const struct gr_model *const m[2],
		  const char *const path[2]);

/* The diff as JSON, the schema of docs/REPORTS.md ("gpurec diff --json"). Returns 0, -EIO or
 * GR_ERR_STATE (writer misuse). */
int gr_diff_write_json(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		       const char *const path[2]);

#endif
