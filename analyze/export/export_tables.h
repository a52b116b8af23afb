/* SPDX-License-Identifier: MIT */
/*
 * A trace as relational tables, in the manner of Nsight Systems' SQLite export: one table per
 * event kind (launches, copies, memsets, allocs, frees, syncs, graph calls) plus the tables their
 * integer ids join (strings, kernels, stacks and frames, processes, threads, streams), the
 * kernels each graph launch executed, each thread's scheduler states, the losses, the GPU rows
 * (--cupti: gpu_activity, only in a trace that has them) and the trace's facts (meta).
 * docs/EXPORT.md is the schema: every table, column, type, unit and join.
 *
 * The rows are made once, here, and handed to a sink that stores them: SQLite (export_sqlite.c)
 * or CSV files (export_csv.c), so both hold the same tables, column for column.
 *
 * Conventions the sinks and docs rely on: timestamps are signed ns from the recording start
 * (the header's clock anchor, gr_model_time_span()); durations are ns and NULL when the
 * recording did not time the call; ids are dense from 1 (SQLite's rowid style), and a NULL id
 * means "none" (no stack); a 64-bit value of 2^63 or more is stored as SQLite's signed INTEGER
 * (reads negative). Calls set aside (model.h struct gr_aside: failed, nested, in flight) are rows
 * of their kind's table with an outcome column other than 'ok', never counted silently with the
 * others.
 */
#ifndef GR_ANALYZE_EXPORT_TABLES_H
#define GR_ANALYZE_EXPORT_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"

/* Bumped whenever a table or column changes meaning, is renamed or removed (meta table). */
#define GR_EXPORT_SCHEMA_VERSION 1

enum gr_xcol_type { GR_XCOL_INT = 0, GR_XCOL_TEXT };

struct gr_xcol {
	const char *name;
	enum gr_xcol_type type;
};

struct gr_xtable {
	const char *name;
	const struct gr_xcol *cols;
	unsigned ncols;
};

/* One value of a row: NULL, an integer, or a text (valid during the row call only). */
struct gr_xval {
	int64_t i;
	const char *s; /* GR_XCOL_TEXT: NULL is SQL NULL */
	uint8_t null;  /* GR_XCOL_INT: 1 is SQL NULL */
};

/*
 * Where the rows go. Each callback returns 0 or a negative error, which stops the export and is
 * returned. table() is called once per table, before its rows, even for a table without rows;
 * row() gets the table's ncols values in column order.
 */
struct gr_table_sink {
	void *ctx;
	int (*table)(void *ctx, const struct gr_xtable *t);
	int (*row)(void *ctx, const struct gr_xtable *t, const struct gr_xval *v);
};

/* The tables, in the order they are written: *@n of them. Static. */
const struct gr_xtable *gr_export_tables_list(size_t *n);

#define GR_EXPORT_MAX_TABLES 24

/* Rows written per table (gr_export_tables_list() order) and in all. */
struct gr_export_table_stats {
	uint64_t rows[GR_EXPORT_MAX_TABLES];
	uint64_t total;
	uint64_t events; /* rows of the event tables: API calls, states, losses, GPU rows */
	size_t tables;	 /* tables written: gpu_activity only when the trace has GPU rows */
};

/*
 * Make every row of @m and hand it to @sink. @version is the exporting gpurec's version (meta
 * table). @st (may be NULL) gets the counts. Returns 0, -ENOMEM, or the sink's first error.
 */
int gr_export_tables(const struct gr_model *m, const char *version,
		     const struct gr_table_sink *sink, struct gr_export_table_stats *st);

/*
 * The tables of @m in a new SQLite database at @path, in one transaction: a file already there
 * is replaced (deleted, then created with the user's rights), never appended to. @err_text
 * (may be NULL) gets SQLite's message on failure (static or valid until the next call).
 * Returns 0, -ENOMEM, -EIO (SQLite failed) or -errno.
 */
int gr_export_sqlite(const struct gr_model *m, const char *path, const char *version,
		     struct gr_export_table_stats *st, const char **err_text);

/*
 * The tables of @m as CSV files in directory @dir (which must exist): one file TABLE.csv per
 * table, a header row of the column names, RFC 4180 quoting, CRLF line ends; NULL is an empty
 * field. Files already there are replaced. Returns 0, -ENOMEM or -errno (errno's file in
 * *@failed_file when not NULL: valid until the next call).
 */
int gr_export_csv(const struct gr_model *m, const char *dir, const char *version,
		  struct gr_export_table_stats *st, const char **failed_file);

#endif
