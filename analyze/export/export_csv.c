/* SPDX-License-Identifier: MIT */
/*
 * The export tables (export_tables.h) as CSV files, one per table, by RFC 4180: a header row,
 * CRLF line ends, a field quoted when it holds a comma, a double quote, CR or LF (its quotes
 * doubled). NULL is an empty field; an empty text is "" so that readers that tell them apart
 * (DuckDB, pandas) read the same values as the SQLite export holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_tables.h"

struct csv {
	const char *dir;
	FILE *f;
	char path[4096];
};

static int csv_close(struct csv *c)
{
	int err = 0;

	if (c->f && (ferror(c->f) | fclose(c->f)))
		err = -EIO;
	c->f = NULL;
	return err;
}

static void put_field(FILE *f, const char *s)
{
	if (!*s) {
		fputs("\"\"", f);
		return;
	}
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

static int on_table(void *ctx, const struct gr_xtable *t)
{
	struct csv *c = ctx;
	int n, err = csv_close(c);

	if (err)
		return err;
	n = snprintf(c->path, sizeof(c->path), "%s/%s.csv", c->dir, t->name);
	if (n < 0 || (size_t)n >= sizeof(c->path))
		return -ENAMETOOLONG;
	c->f = fopen(c->path, "w");
	if (!c->f)
		return -errno;
	for (unsigned i = 0; i < t->ncols; i++) {
		if (i)
			putc(',', c->f);
		put_field(c->f, t->cols[i].name);
	}
	fputs("\r\n", c->f);
	return 0;
}

static int on_row(void *ctx, const struct gr_xtable *t, const struct gr_xval *v)
{
	struct csv *c = ctx;

	for (unsigned i = 0; i < t->ncols; i++) {
		if (i)
			putc(',', c->f);
		if (v[i].null)
			continue;
		if (t->cols[i].type == GR_XCOL_TEXT)
			put_field(c->f, v[i].s);
		else
			fprintf(c->f, "%" PRId64, v[i].i);
	}
	fputs("\r\n", c->f);
	return ferror(c->f) ? -EIO : 0;
}

int gr_export_csv(const struct gr_model *m, const char *dir, const char *version,
		  struct gr_export_table_stats *st, const char **failed_file)
{
	static struct csv c;
	struct gr_table_sink sink = {.ctx = &c, .table = on_table, .row = on_row};
	int err, cerr;

	memset(&c, 0, sizeof(c));
	c.dir = dir;
	err = gr_export_tables(m, version, &sink, st);
	cerr = csv_close(&c);
	if (!err)
		err = cerr;
	if (failed_file)
		*failed_file = err ? c.path : NULL;
	return err;
}
