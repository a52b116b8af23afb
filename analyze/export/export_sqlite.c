/* SPDX-License-Identifier: MIT */
/*
 * The export tables (export_tables.h) in a SQLite database. Speed comes from three choices: one
 * transaction for the whole file, one prepared INSERT per table (bound and reset per row), and
 * no journal: the database is written under a temporary name beside the output and renamed over
 * it when complete, so a failed export leaves the old file (if any) as it was, and a database
 * is never appended to.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/util/outfile.h"
#include "export_tables.h"

struct sq {
	sqlite3 *db;
	sqlite3_stmt *insert; /* the current table's */
	char sql[4096];
};

static int exec(struct sq *q, const char *sql)
{
	return sqlite3_exec(q->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

/* "CREATE TABLE name (col TYPE, ...)" and "INSERT INTO name VALUES (?, ...)" into q->sql. */
static int sql_create(struct sq *q, const struct gr_xtable *t)
{
	size_t len = sizeof(q->sql);
	int n = snprintf(q->sql, len, "CREATE TABLE %s (", t->name);

	for (unsigned i = 0; i < t->ncols && n > 0 && (size_t)n < len; i++) {
		/* a first column named id is the rowid: free to store, an index for joins */
		const char *type = t->cols[i].type == GR_XCOL_TEXT ? "TEXT"
				   : i == 0 && !strcmp(t->cols[i].name, "id")
				       ? "INTEGER PRIMARY KEY"
				       : "INTEGER";

		n += snprintf(q->sql + n, len - (size_t)n, "%s\"%s\" %s", i ? ", " : "",
			      t->cols[i].name, type);
	}
	if (n > 0 && (size_t)n < len)
		n += snprintf(q->sql + n, len - (size_t)n, ")");
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int sql_insert(struct sq *q, const struct gr_xtable *t)
{
	size_t len = sizeof(q->sql);
	int n = snprintf(q->sql, len, "INSERT INTO %s VALUES (", t->name);

	for (unsigned i = 0; i < t->ncols && n > 0 && (size_t)n < len; i++)
		n += snprintf(q->sql + n, len - (size_t)n, "%s?", i ? ", " : "");
	if (n > 0 && (size_t)n < len)
		n += snprintf(q->sql + n, len - (size_t)n, ")");
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int on_table(void *ctx, const struct gr_xtable *t)
{
	struct sq *q = ctx;
	int err;

	sqlite3_finalize(q->insert);
	q->insert = NULL;
	err = sql_create(q, t);
	if (!err)
		err = exec(q, q->sql);
	if (!err)
		err = sql_insert(q, t);
	if (!err && sqlite3_prepare_v2(q->db, q->sql, -1, &q->insert, NULL) != SQLITE_OK)
		err = -EIO;
	return err;
}

static int on_row(void *ctx, const struct gr_xtable *t, const struct gr_xval *v)
{
	struct sq *q = ctx;
	int rc = SQLITE_OK;

	for (unsigned i = 0; i < t->ncols && rc == SQLITE_OK; i++) {
		if (v[i].null)
			rc = sqlite3_bind_null(q->insert, (int)i + 1);
		else if (t->cols[i].type == GR_XCOL_TEXT)
			rc = sqlite3_bind_text(q->insert, (int)i + 1, v[i].s, -1, SQLITE_STATIC);
		else
			rc = sqlite3_bind_int64(q->insert, (int)i + 1, v[i].i);
	}
	if (rc == SQLITE_OK && sqlite3_step(q->insert) != SQLITE_DONE)
		rc = SQLITE_ERROR;
	sqlite3_reset(q->insert);
	return rc == SQLITE_OK ? 0 : -EIO;
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
	struct sq q = {0};
	struct gr_table_sink sink = {.ctx = &q, .table = on_table, .row = on_row};
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	int fd, err;

	if (err_text)
		*err_text = NULL;
	if (!tmp)
		return -ENOMEM;
	fd = gr_outfile_begin(path, tmp, len);
	if (fd < 0) {
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
	if (sqlite3_open_v2(tmp, &q.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		goto out;
	/* the file is private until the rename: no journal, no syncs, one transaction */
	err = exec(&q, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN");
	if (!err)
		err = gr_export_tables(m, version, &sink, st);
	sqlite3_finalize(q.insert);
	q.insert = NULL;
	if (!err)
		err = exec(&q, calls_view);
	if (!err)
		err = exec(&q, "COMMIT");
out:
	err = gr_outfile_end(tmp, path, err);
	if (err == -EIO && err_text) {
		/* sqlite3_errmsg()'s text dies with the connection: copied for the caller */
		static char msg[256];

		snprintf(msg, sizeof(msg), "%s", q.db ? sqlite3_errmsg(q.db) : "out of memory");
		*err_text = msg;
	}
	sqlite3_close(q.db);
	free(tmp);
	return err;
}
