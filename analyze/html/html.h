/* SPDX-License-Identifier: MIT */
/*
 * `gpurec report --html` and `gpurec diff --html`: one self-contained page (docs/HTML.md). The
 * data the page draws is a JSON document (schema "gpurec-html-1"): the report's or diff's own
 * --json output, and each trace's views (html_views.h). The page is the compiled-in template
 * (html_assets.h) with its four markers replaced: the title, every style, every script, the data.
 */
#ifndef GR_ANALYZE_HTML_H
#define GR_ANALYZE_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/diff/diff.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"

/* Rows of each ranked table of the report the page carries (`report --json --top N`); the
 * tables' *_total fields say how many there are. */
#define GR_HTML_REPORT_ROWS 500

/*
 * The data of a report on @m (its report @r, loaded from the @nfiles traces @files) to @f, as
 * one JSON line. Returns 0, -ENOMEM, -EIO, or GR_ERR_STATE (writer misuse).
 */
int gr_html_report_data(FILE *f, const struct gr_model *m, const struct gr_report *r,
			const char *const *files, size_t nfiles, const char *title);

/* The data of diff @d of @m[0] (BASE) and @m[1] (NEW), named @path[0] and @path[1] (a side may
 * be a comma-separated set). Returns as gr_html_report_data(). */
int gr_html_diff_data(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		      const char *const path[2], const char *title);

/*
 * @n bytes of JSON @s as they may sit inside <script type="application/json">: every '<', '>'
 * and '&' as \u003c, \u003e, \u0026, and U+2028 and U+2029 as \u2028 and \u2029. In JSON these
 * characters occur only inside strings, where the escapes mean the same characters. Writes to
 * @f; returns 0 or -EIO.
 */
int gr_html_write_json_escaped(FILE *f, const char *s, size_t n);

/* @s with '&', '<', '>', '"' and '\'' as character references. Returns 0 or -EIO. */
int gr_html_write_text(FILE *f, const char *s);

/*
 * The page: the template with @title (text), the styles, the scripts and @data (@len bytes of
 * JSON, escaped as above). Returns 0, -EIO, or -EINVAL when the template lacks a marker (the
 * build checks that it has all four).
 */
int gr_html_write_page(FILE *f, const char *title, const char *data, size_t len);

/*
 * Write the page to @path: into a new file beside it, renamed over @path once complete, so that
 * a failed run leaves no half page. Created with the caller's rights and umask, like any file
 * a command writes (under sudo, gpurec has already taken the invoking user's: gpurec.c).
 * Returns 0 or -errno (-EIO for a failed write); on failure nothing is left at @path's side.
 */
int gr_html_save(const char *path, const char *title, const char *data, size_t len);

/*
 * The page of a report on @m (report @r, of the @npaths traces @paths) to @path, titled
 * "gpurec report: A + B"; *@bytes (may be NULL) gets its size. Returns 0 or -errno, as
 * gr_html_save() and the data writers do.
 */
int gr_html_report_save(const char *path, const struct gr_model *m, const struct gr_report *r,
			const char *const *paths, size_t npaths, long long *bytes);

/* The page of diff @d (of @m[0] and @m[1], named @names) to @path, titled "gpurec diff: A vs B".
 * Returns as gr_html_report_save(). */
int gr_html_diff_save(const char *path, const struct gr_diff *d, const struct gr_model *const m[2],
		      const char *const names[2], long long *bytes);

#endif
