/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's data (docs/HTML.md, schema "gpurec-html-1"): the report's and the diff's
 * own JSON, written by their --json writers into this document, and each trace's views.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/util/json.h"
#include "cmd.h"
#include "html.h"
#include "html_memory.h"
#include "html_views.h"

#define SCHEMA "gpurec-html-1"

static void head(struct gr_json *j, const char *kind, const char *title)
{
	gr_json_object(j);
	gr_json_kv_str(j, "schema", SCHEMA);
	gr_json_kv_str(j, "kind", kind);
	gr_json_kv_str(j, "version", GPUREC_VERSION);
	gr_json_kv_str(j, "title", title);
}

/* The traces of a side: a set's own list, else the one path given. */
static void files(struct gr_json *j, const struct gr_model *m, const char *const *paths,
		  size_t npaths)
{
	size_t n;
	const struct gr_model_trace *t = gr_model_traces(m, &n);

	gr_json_key(j, "files");
	gr_json_array_flat(j);
	if (n)
		for (size_t i = 0; i < n; i++)
			gr_json_str(j, t[i].path);
	else
		for (size_t i = 0; i < npaths; i++)
			gr_json_str(j, paths[i]);
	gr_json_array_end(j);
}

/* "report" and "views" of one trace (or set). */
static int side(struct gr_json *j, const struct gr_model *m, const struct gr_report *r)
{
	struct gr_html_views *v = NULL;
	int err = gr_html_views_compute(m, r, &v);

	if (err)
		return err;
	gr_json_key(j, "report");
	/* as `report --json --top GR_HTML_REPORT_ROWS` prints it: every figure and total, the
	 * first rows of each ranked table (20000 kernels' rows were 10 MB) */
	gr_report_json(j, r, m, GR_HTML_REPORT_ROWS);
	gr_json_key(j, "views");
	gr_html_views_json(j, v, m);
	gr_html_views_free(v);
	return gr_html_memory_json(j, m, &r->memory.m, r->first_ts);
}

int gr_html_report_data(FILE *f, const struct gr_model *m, const struct gr_report *r,
			const char *const *paths, size_t npaths, const char *title)
{
	struct gr_json j;
	int err;

	gr_json_begin(&j, f, 0);
	head(&j, "report", title);
	files(&j, m, paths, npaths);
	err = side(&j, m, r);
	if (err)
		return err;
	gr_json_object_end(&j);
	return gr_json_end(&j);
}

int gr_html_diff_data(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		      const char *const path[2], const char *title)
{
	static const char *const names[2] = {"base", "new"};
	struct gr_json j;
	int err;

	gr_json_begin(&j, f, 0);
	head(&j, "diff", title);
	for (int s = 0; s < 2; s++) {
		gr_json_key(&j, names[s]);
		gr_json_object(&j);
		files(&j, m[s], &path[s], 1);
		err = side(&j, m[s], d->rep[s]);
		if (err)
			return err;
		gr_json_object_end(&j);
	}
	gr_json_key(&j, "diff");
	gr_diff_json(&j, d, m, path);
	gr_json_object_end(&j);
	return gr_json_end(&j);
}

/* The data in memory (it is escaped on its way into the page), then the page to @path. */
static int save(const char *path, const char *title, const struct gr_model *m,
		const struct gr_report *r, const char *const *paths, size_t npaths,
		const struct gr_diff *d, const struct gr_model *const dm[2], long long *bytes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct stat sb;
	int err;

	if (!f)
		return -ENOMEM;
	err = d ? gr_html_diff_data(f, d, dm, paths, title)
		: gr_html_report_data(f, m, r, paths, npaths, title);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		err = gr_html_save(path, title, buf, len);
	free(buf);
	if (!err && bytes)
		*bytes = stat(path, &sb) ? -1 : (long long)sb.st_size;
	return err;
}

int gr_html_report_save(const char *path, const struct gr_model *m, const struct gr_report *r,
			const char *const *paths, size_t npaths, long long *bytes)
{
	char title[1024];
	int n = snprintf(title, sizeof(title), "gpurec report: %s", paths[0]);

	for (size_t i = 1; i < npaths && n > 0 && (size_t)n < sizeof(title); i++)
		n += snprintf(title + n, sizeof(title) - (size_t)n, " + %s", paths[i]);
	return save(path, title, m, r, paths, npaths, NULL, NULL, bytes);
}

int gr_html_diff_save(const char *path, const struct gr_diff *d, const struct gr_model *const m[2],
		      const char *const names[2], long long *bytes)
{
	char title[1024];

	snprintf(title, sizeof(title), "gpurec diff: %s vs %s", names[0], names[1]);
	return save(path, title, NULL, NULL, names, 2, d, m, bytes);
}
