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

/* Rows are formatted by hand into a buffer written this large: no stdio call per field. */
#define CSV_BUF (1u << 16)

struct csv {
	const char *dir;
	FILE *f;
	char path[4096];
	size_t len;
	int err; /* 0, or -EIO since a write failed */
	char buf[CSV_BUF];
};

static void flush(struct csv *c)
{
	if (c->len && !c->err && fwrite(c->buf, 1, c->len, c->f) != c->len)
		c->err = -EIO;
	c->len = 0;
}

static void put(struct csv *c, const char *s, size_t n)
{
	while (n) {
		size_t k;

		if (c->len == CSV_BUF)
			flush(c);
		k = CSV_BUF - c->len < n ? CSV_BUF - c->len : n;
		memcpy(c->buf + c->len, s, k);
		c->len += k;
		s += k;
		n -= k;
	}
}

static void put_char(struct csv *c, char ch)
{
	if (c->len == CSV_BUF)
		flush(c);
	c->buf[c->len++] = ch;
}

/* @v in decimal, as "%" PRId64 prints it. */
static void put_i64(struct csv *c, int64_t v)
{
	char d[24], *p = d + sizeof(d);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	put(c, p, (size_t)(d + sizeof(d) - p));
}

static int csv_close(struct csv *c)
{
	int err;

	if (!c->f)
		return 0;
	flush(c);
	err = c->err;
	if (ferror(c->f) | fclose(c->f))
		err = -EIO;
	c->f = NULL;
	c->err = 0;
	return err;
}

static void put_field(struct csv *c, const char *s)
{
	if (!*s) {
		put(c, "\"\"", 2);
		return;
	}
	if (!strpbrk(s, ",\"\r\n")) {
		put(c, s, strlen(s));
		return;
	}
	put_char(c, '"');
	for (; *s; s++) {
		if (*s == '"')
			put_char(c, '"');
		put_char(c, *s);
	}
	put_char(c, '"');
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
			put_char(c, ',');
		put_field(c, t->cols[i].name);
	}
	put(c, "\r\n", 2);
	return c->err;
}

static int on_row(void *ctx, const struct gr_xtable *t, const struct gr_xval *v)
{
	struct csv *c = ctx;

	for (unsigned i = 0; i < t->ncols; i++) {
		if (i)
			put_char(c, ',');
		if (v[i].null)
			continue;
		if (t->cols[i].type == GR_XCOL_TEXT)
			put_field(c, v[i].s);
		else
			put_i64(c, v[i].i);
	}
	put(c, "\r\n", 2);
	return c->err;
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
