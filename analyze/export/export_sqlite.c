/* SPDX-License-Identifier: MIT */
/*
 * The export tables (export_tables.h) in a SQLite database. Speed comes from five choices: one
 * transaction for the whole file; rows held and inserted BATCH at a time by one prepared
 * multi-row INSERT per table (SQLite's per-statement cost, not the rows, dominated a
 * one-row INSERT); dense ids left to SQLite as the rowids it would give anyway (bound NULL,
 * measured 10% faster than the value); a parameter bound again only when its value changed (a
 * bind was a quarter of the time, and most columns repeat); and no journal: the database is
 * written under a temporary name beside the output and renamed over it when complete, so a failed
 * export leaves the old file (if any) as it was, and a database is never appended to.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/util/outfile.h"
#include "export_tables.h"

/*
 * Rows per INSERT statement: a statement's start (program reset, cursor open, seek to the table's
 * end) is paid once for this many rows. 32 measured best; 64 and 128 no better.
 */
#define BATCH 32
/* The widest row held for a batched INSERT (export_tables.c's widest table has fewer). */
#define HELD_COLS 32
/* Texts of the rows held for the next statement are copied here (the sink's die with its row). */
#define TEXT_ROOM (64 * 1024)

/* A parameter's value: unknown (nothing bound yet, or a long text), NULL, i, or text s. */
enum { BOUND_NONE = 0, BOUND_NULL, BOUND_INT, BOUND_TEXT };

struct bound {
	int64_t i;
	uint8_t what;
	char s[23]; /* a short text, bound from here: it lives as long as the statement */
};

struct sq {
	sqlite3 *db;
	const struct gr_xtable *t; /* the current table */
	sqlite3_stmt *one;	   /* its INSERT of one row */
	sqlite3_stmt *many;	   /* its INSERT of batch rows (NULL: table too wide) */
	unsigned batch;
	unsigned held;	 /* rows in vals, not yet inserted */
	int64_t last_id; /* dense ids so far: the id column's last value; -1 once not dense */
	unsigned ntext;	 /* the current table's text columns: their indexes in text_col */
	uint16_t text_col[BATCH * HELD_COLS];
	uint8_t is_text[BATCH * HELD_COLS]; /* (a table too wide to batch holds one row) */
	struct gr_xval vals[BATCH * HELD_COLS];
	/*
	 * What each parameter of many holds: bindings outlive sqlite3_reset(), so a value equal to
	 * the one bound there is not bound again (most columns repeat row after row: the thread,
	 * the stream, the API, outcome 'ok', a NULL error). Long texts, bound in the reused
	 * text[], always are.
	 */
	struct bound bound[BATCH * HELD_COLS];
	size_t text_used;
	char text[TEXT_ROOM];
	char *sql;
	size_t sql_len;
};

static int exec(struct sq *q, const char *sql)
{
	return sqlite3_exec(q->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

/* Appends @str to q->sql (@n bytes long), growing it. */
static int sql_cat(struct sq *q, size_t *n, const char *str)
{
	size_t len = strlen(str);

	if (*n + len + 1 > q->sql_len) {
		size_t want = (*n + len + 1) * 2;
		char *p = realloc(q->sql, want);

		if (!p)
			return -ENOMEM;
		q->sql = p;
		q->sql_len = want;
	}
	memcpy(q->sql + *n, str, len + 1);
	*n += len;
	return 0;
}

/* "CREATE TABLE name (col TYPE, ...)" into q->sql. */
static int sql_create(struct sq *q, const struct gr_xtable *t)
{
	size_t n = 0;
	int err = sql_cat(q, &n, "CREATE TABLE ");

	if (!err)
		err = sql_cat(q, &n, t->name);
	for (unsigned i = 0; i < t->ncols && !err; i++) {
		/* a first column named id is the rowid: free to store, an index for joins */
		const char *type = t->cols[i].type == GR_XCOL_TEXT ? "\" TEXT"
				   : i == 0 && !strcmp(t->cols[i].name, "id")
				       ? "\" INTEGER PRIMARY KEY"
				       : "\" INTEGER";

		err = sql_cat(q, &n, i ? ", \"" : " (\"");
		if (!err)
			err = sql_cat(q, &n, t->cols[i].name);
		if (!err)
			err = sql_cat(q, &n, type);
	}
	return err ? err : sql_cat(q, &n, ")");
}

/* "INSERT INTO name VALUES (?, ...), ..." with @rows rows into q->sql. */
static int sql_insert(struct sq *q, const struct gr_xtable *t, unsigned rows)
{
	size_t n = 0;
	int err = sql_cat(q, &n, "INSERT INTO ");

	if (!err)
		err = sql_cat(q, &n, t->name);
	if (!err)
		err = sql_cat(q, &n, " VALUES ");
	for (unsigned r = 0; r < rows && !err; r++) {
		for (unsigned i = 0; i < t->ncols && !err; i++)
			err = sql_cat(q, &n, !i ? (r ? ", (?" : "(?") : ", ?");
		if (!err)
			err = sql_cat(q, &n, ")");
	}
	return err;
}

static int prepare(struct sq *q, const struct gr_xtable *t, unsigned rows, sqlite3_stmt **st)
{
	int err = sql_insert(q, t, rows);

	if (!err &&
	    sqlite3_prepare_v3(q->db, q->sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		err = -EIO;
	return err;
}

static uint8_t value_kind(const struct sq *q, unsigned i, const struct gr_xval *v)
{
	if (!q->is_text[i])
		return v->null ? BOUND_NULL : BOUND_INT;
	return v->s ? BOUND_TEXT : BOUND_NULL;
}

/*
 * Binds row @v as the @r-th row of @st's. @was (NULL: none) is what @st's parameters of that row
 * hold, updated.
 */
static int bind_row(struct sq *q, sqlite3_stmt *st, unsigned r, const struct gr_xval *v,
		    struct bound *was)
{
	const struct gr_xtable *t = q->t;
	int rc = SQLITE_OK;
	int base = (int)(r * t->ncols) + 1;

	for (unsigned i = 0; i < t->ncols && rc == SQLITE_OK; i++) {
		uint8_t what = value_kind(q, i, v + i);
		const char *s = v[i].s;
		size_t len = what == BOUND_TEXT ? strlen(s) : 0;

		if (was) {
			struct bound *b = was + i;
			int fits = len < sizeof(b->s);

			if (b->what == what &&
			    (what == BOUND_NULL || (what == BOUND_INT && b->i == v[i].i) ||
			     (what == BOUND_TEXT && fits && !memcmp(b->s, s, len + 1))))
				continue;
			b->what = what == BOUND_TEXT && !fits ? BOUND_NONE : what;
			b->i = v[i].i;
			if (b->what == BOUND_TEXT)
				s = memcpy(b->s, s, len + 1);
		}
		if (what == BOUND_NULL)
			rc = sqlite3_bind_null(st, base + (int)i);
		else if (what == BOUND_TEXT)
			rc = sqlite3_bind_text(st, base + (int)i, s, (int)len, SQLITE_STATIC);
		else
			rc = sqlite3_bind_int64(st, base + (int)i, v[i].i);
	}
	return rc == SQLITE_OK ? 0 : -EIO;
}

static int step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* Inserts the held rows: by the batch when they are one, else one by one. */
static int flush(struct sq *q)
{
	const struct gr_xtable *t = q->t;
	int err = 0;

	if (q->held == q->batch && q->many) {
		for (unsigned r = 0; r < q->held && !err; r++)
			err = bind_row(q, q->many, r, q->vals + r * t->ncols,
				       q->bound + r * t->ncols);
		if (!err)
			err = step(q->many);
	} else {
		for (unsigned r = 0; r < q->held && !err; r++) {
			err = bind_row(q, q->one, 0, q->vals + r * t->ncols, NULL);
			if (!err)
				err = step(q->one);
		}
	}
	q->held = 0;
	q->text_used = 0;
	return err;
}

static void finish_table(struct sq *q)
{
	sqlite3_finalize(q->one);
	sqlite3_finalize(q->many);
	q->one = q->many = NULL;
}

static int on_table(void *ctx, const struct gr_xtable *t)
{
	struct sq *q = ctx;
	int err = q->t ? flush(q) : 0;
	int vars = sqlite3_limit(q->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);

	finish_table(q);
	memset(q->bound, 0, sizeof(q->bound));
	q->t = t;
	q->last_id = t->ncols && !strcmp(t->cols[0].name, "id") ? 0 : -1;
	q->batch = t->ncols <= HELD_COLS && t->ncols * BATCH <= (unsigned)vars ? BATCH : 1;
	q->ntext = 0;
	for (unsigned i = 0; i < t->ncols && i < BATCH * HELD_COLS; i++) {
		q->is_text[i] = t->cols[i].type == GR_XCOL_TEXT;
		if (q->is_text[i])
			q->text_col[q->ntext++] = (uint16_t)i;
	}
	if (!err)
		err = sql_create(q, t);
	if (!err)
		err = exec(q, q->sql);
	if (!err)
		err = prepare(q, t, 1, &q->one);
	if (!err && q->batch > 1)
		err = prepare(q, t, q->batch, &q->many);
	return err;
}

static int on_row(void *ctx, const struct gr_xtable *t, const struct gr_xval *v)
{
	struct sq *q = ctx;
	struct gr_xval *h;
	size_t text = 0;
	int err = 0;

	for (unsigned k = 0; k < q->ntext; k++)
		if (v[q->text_col[k]].s)
			text += strlen(v[q->text_col[k]].s) + 1;
	if (q->text_used + text > sizeof(q->text))
		err = flush(q);
	if (err)
		return err;
	if (text > sizeof(q->text)) {
		/* too long to hold: inserted now, while its texts live */
		if (q->last_id >= 0)
			q->last_id = !v[0].null && v[0].i == q->last_id + 1 ? q->last_id + 1 : -1;
		err = bind_row(q, q->one, 0, v, NULL);
		return err ? err : step(q->one);
	}
	h = q->vals + q->held * t->ncols;
	memcpy(h, v, t->ncols * sizeof(*v));
	for (unsigned k = 0; k < q->ntext; k++) {
		unsigned i = q->text_col[k];

		if (v[i].s) {
			size_t len = strlen(v[i].s) + 1;

			h[i].s = memcpy(q->text + q->text_used, v[i].s, len);
			q->text_used += len;
		}
	}
	if (q->last_id >= 0) {
		/* the rowid SQLite gives a NULL id: the table's last plus one */
		if (!h[0].null && h[0].i == q->last_id + 1) {
			q->last_id++;
			h[0].null = 1;
		} else {
			q->last_id = -1;
		}
	}
	if (++q->held == q->batch)
		err = flush(q);
	return err;
}

/*
 * Every API call in one view, for counts over all kinds ("how many calls failed"): kind, the
 * row's id in its kind's table, and the columns every call table has.
 */
#define CALL_COLS " id, start, dur, thread_id, api_id, outcome, status, error, depth"
static const char calls_view[] =
    "CREATE VIEW api_calls AS SELECT 'launch' AS kind," CALL_COLS " FROM launches"
    " UNION ALL SELECT 'copy'," CALL_COLS " FROM copies"
    " UNION ALL SELECT 'memset'," CALL_COLS " FROM memsets"
    " UNION ALL SELECT 'alloc'," CALL_COLS " FROM allocs"
    " UNION ALL SELECT 'free'," CALL_COLS " FROM frees"
    " UNION ALL SELECT 'sync'," CALL_COLS " FROM syncs"
    " UNION ALL SELECT 'graph'," CALL_COLS " FROM graph_calls"
    " UNION ALL SELECT 'nccl'," CALL_COLS " FROM nccl_calls";

int gr_export_sqlite(const struct gr_model *m, const char *path, const char *version,
		     struct gr_export_table_stats *st, const char **err_text)
{
	/* on the heap: the held rows and what the parameters hold are about 128 KiB */
	struct sq *q = calloc(1, sizeof(*q));
	struct gr_table_sink sink = {.ctx = q, .table = on_table, .row = on_row};
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	int fd, err;

	if (err_text)
		*err_text = NULL;
	if (!tmp || !q) {
		free(q);
		free(tmp);
		return -ENOMEM;
	}
	fd = gr_outfile_begin(path, tmp, len);
	if (fd < 0) {
		free(q);
		free(tmp);
		return fd;
	}
	close(fd);
	err = -EIO;
	/*
	 * One thread writes the file: no connection mutex, and no allocation counting (its global
	 * mutex was a third of the export's time). The latter only takes before SQLite's first use
	 * in the process; later it is refused, harmlessly.
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(tmp, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		goto out;
	/*
	 * The file is private until the rename: no journal, no syncs, one transaction. Pages of 16
	 * KiB: a quarter of the page handling and write() calls of 4 KiB ones (8% faster), for 3%
	 * more file; a small trace's is 23 pages whatever their size (368 KiB). 64 KiB pages were
	 * 2% faster still, but 15% more file and 1.5 MB for a small trace.
	 */
	err = exec(q, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		      "BEGIN");
	if (!err)
		err = gr_export_tables(m, version, &sink, st);
	if (!err && q->t)
		err = flush(q);
	finish_table(q);
	if (!err)
		err = exec(q, calls_view);
	if (!err)
		err = exec(q, "COMMIT");
out:
	err = gr_outfile_end(tmp, path, err);
	if (err == -EIO && err_text) {
		/* sqlite3_errmsg()'s text dies with the connection: copied for the caller */
		static char msg[256];

		snprintf(msg, sizeof(msg), "%s", q->db ? sqlite3_errmsg(q->db) : "out of memory");
		*err_text = msg;
	}
	sqlite3_close(q->db);
	free(q->sql);
	free(q);
	free(tmp);
	return err;
}
