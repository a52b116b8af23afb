/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes that load as a model, through the writers that turn it into files other
 * programs open: Perfetto's protobuf trace (gr_export_perfetto()), the CSV files and the SQLite
 * database of the tables (gr_export_csv(), gr_export_sqlite()) and the HTML page of the report
 * (gr_html_report_data(), gr_html_write_page()).
 *
 * Invariants: the Perfetto output is a sequence of length-delimited TracePackets (field 1), each
 * a well-formed sequence of fields, ending exactly at the end; each CSV file has the header of
 * its table, then as many rows as the export says, each with the header's column count; the
 * SQLite file opens, its tables hold as many rows as the CSV files, and its call tables as many
 * 'ok' rows as the model has calls, its losses, processes and GPU rows as many as the model; the
 * HTML page holds exactly one data script element, whose data is one JSON document with no raw
 * '<' (so no "</script" inside it), and the title (which here tries to close the element) only
 * escaped.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analyze/export/export.h"
#include "analyze/export/export_tables.h"
#include "analyze/html/html.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "json_check.h"
#include "tests/fuzz/fuzz.h"

#define MAX_RECORDS (1u << 18)
#define TITLE	    "gpurec report: </script><script>alert(1)</script>&"
#define DATA_OPEN   "<script id=\"gpurec-data\" type=\"application/json\">"

static char dir[64];

/* every input removes the files it wrote: the directory is empty at the end */
static void remove_dir(void)
{
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof(dir), "/tmp/gpurec-fuzz-writers.XXXXXX");
	FUZZ_ASSERT(mkdtemp(dir));
	atexit(remove_dir);
	return 0;
}

/* A varint at *@p before @end; 0 when it runs past @end or beyond ten bytes. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 70 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 0);
		if (!(b & 0x80))
			return 1;
	}
	return 0;
}

/* @p .. @end holds whole fields of known wire types: a message's bytes. */
static int fields_ok(const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		uint64_t key, v;

		if (!varint(&p, end, &key) || key >> 3 == 0)
			return 0;
		switch (key & 7) {
		case 0:
			if (!varint(&p, end, &v))
				return 0;
			break;
		case 1:
			if (end - p < 8)
				return 0;
			p += 8;
			break;
		case 2:
			if (!varint(&p, end, &v) || v > (uint64_t)(end - p))
				return 0;
			p += v;
			break;
		case 5:
			if (end - p < 4)
				return 0;
			p += 4;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

static void check_perfetto(const struct gr_model *m)
{
	struct gr_export_stats st;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const uint8_t *p, *end;
	uint64_t packets = 0;

	FUZZ_ASSERT(f);
	FUZZ_ASSERT(gr_export_perfetto(m, f, NULL, &st) == 0);
	FUZZ_ASSERT(fclose(f) == 0);
	p = (const uint8_t *)out;
	end = p + len;
	while (p < end) {
		uint64_t plen;

		/* Trace.packet: field 1, length-delimited */
		FUZZ_ASSERT(*p++ == 0x0a);
		FUZZ_ASSERT(varint(&p, end, &plen) && plen <= (uint64_t)(end - p));
		FUZZ_ASSERT(fields_ok(p, p + plen));
		p += plen;
		packets++;
	}
	/* a packet per event at least, but for the flows' own events and the metadata */
	FUZZ_ASSERT(packets >= st.api_total + st.launch_instants);
	free(out);
}

/* Fields of one CSV row at *@p (RFC 4180, CRLF); *@p moves past it. -1 when malformed. */
static long csv_row(const char **p, const char *end)
{
	long n = 1;
	const char *q = *p;

	while (q < end) {
		if (*q == '"') {
			for (q++;; q++) {
				if (q >= end)
					return -1;
				if (*q == '"' && q + 1 < end && q[1] == '"')
					q++;
				else if (*q == '"')
					break;
			}
			q++;
			if (q < end && *q != ',' && *q != '\r')
				return -1;
			continue;
		}
		if (*q == ',') {
			n++;
		} else if (*q == '\r') {
			if (q + 1 >= end || q[1] != '\n')
				return -1;
			*p = q + 2;
			return n;
		} else if (*q == '\n') {
			return -1;
		}
		q++;
	}
	return -1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	FUZZ_ASSERT(f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0);
	rewind(f);
	buf = malloc((size_t)size + 1);
	FUZZ_ASSERT(buf && fread(buf, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

static void check_csv(const struct gr_model *m, struct gr_export_table_stats *st)
{
	size_t ntables, len;
	const struct gr_xtable *t = gr_export_tables_list(&ntables);

	FUZZ_ASSERT(gr_export_csv(m, dir, "fuzz", st, NULL) == 0);
	for (size_t i = 0; i < ntables; i++) {
		char path[128], *buf;
		const char *p, *end;
		uint64_t rows = 0;

		snprintf(path, sizeof(path), "%s/%s.csv", dir, t[i].name);
		if (access(path, F_OK)) {
			/* gpu_activity is written only for a trace that has GPU rows */
			FUZZ_ASSERT(st->rows[i] == 0);
			continue;
		}
		buf = slurp(path, &len);
		p = buf;
		end = buf + len;
		for (unsigned c = 0; c < t[i].ncols; c++) {
			size_t n = strlen(t[i].cols[c].name);

			FUZZ_ASSERT((size_t)(end - p) > n && !memcmp(p, t[i].cols[c].name, n));
			p += n;
			FUZZ_ASSERT(*p++ == (c + 1 < t[i].ncols ? ',' : '\r'));
		}
		FUZZ_ASSERT(p < end && *p++ == '\n');
		while (p < end) {
			FUZZ_ASSERT(csv_row(&p, end) == (long)t[i].ncols);
			rows++;
		}
		FUZZ_ASSERT(rows == st->rows[i]);
		free(buf);
		unlink(path);
	}
}

static int64_t sql_count(sqlite3 *db, const char *table, const char *where)
{
	char q[160];
	sqlite3_stmt *s;
	int64_t n;

	snprintf(q, sizeof(q), "SELECT COUNT(*) FROM %s%s", table, where);
	FUZZ_ASSERT(sqlite3_prepare_v2(db, q, -1, &s, NULL) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_step(s) == SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void check_sqlite(const struct gr_model *m, const struct gr_export_table_stats *csv)
{
	static const char ok[] = " WHERE outcome = 'ok'";
	struct gr_export_table_stats st;
	size_t ntables, n;
	const struct gr_xtable *t = gr_export_tables_list(&ntables);
	char path[128];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/trace.sqlite", dir);
	FUZZ_ASSERT(gr_export_sqlite(m, path, "fuzz", &st, NULL) == 0);
	FUZZ_ASSERT(st.total == csv->total && st.tables == csv->tables);
	FUZZ_ASSERT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	for (size_t i = 0; i < ntables; i++)
		if (strcmp(t[i].name, "gpu_activity") || st.rows[i])
			FUZZ_ASSERT(sql_count(db, t[i].name, "") == (int64_t)csv->rows[i]);
	gr_model_launches(m, &n);
	FUZZ_ASSERT(sql_count(db, "launches", ok) == (int64_t)n);
	gr_model_copies(m, &n);
	FUZZ_ASSERT(sql_count(db, "copies", ok) == (int64_t)n);
	gr_model_memsets(m, &n);
	FUZZ_ASSERT(sql_count(db, "memsets", ok) == (int64_t)n);
	gr_model_allocs(m, &n);
	FUZZ_ASSERT(sql_count(db, "allocs", ok) == (int64_t)n);
	gr_model_frees(m, &n);
	FUZZ_ASSERT(sql_count(db, "frees", ok) == (int64_t)n);
	gr_model_syncs(m, &n);
	FUZZ_ASSERT(sql_count(db, "syncs", ok) == (int64_t)n);
	gr_model_losses(m, &n);
	FUZZ_ASSERT(sql_count(db, "losses", "") == (int64_t)n);
	gr_model_processes(m, &n);
	FUZZ_ASSERT(sql_count(db, "processes", "") == (int64_t)n);
	gr_model_gpus(m, &n);
	if (n)
		FUZZ_ASSERT(sql_count(db, "gpu_activity", "") == (int64_t)n);
	sqlite3_close(db);
	unlink(path);
}

static void check_html(const struct gr_model *m)
{
	static const char *const files[] = {"</script>.trc"};
	struct gr_report *r = NULL;
	char *data = NULL, *page = NULL, *at, *close;
	size_t dlen = 0, plen = 0;
	long nrows;
	FILE *f;

	FUZZ_ASSERT(gr_report_compute(m, NULL, &r) == 0);
	f = open_memstream(&data, &dlen);
	FUZZ_ASSERT(f && gr_html_report_data(f, m, r, files, 1, TITLE) == 0 && !fclose(f));
	f = open_memstream(&page, &plen);
	FUZZ_ASSERT(f && gr_html_write_page(f, TITLE, data, dlen) == 0 && !fclose(f));
	FUZZ_ASSERT(strlen(page) == plen);
	at = strstr(page, DATA_OPEN);
	FUZZ_ASSERT(at && !strstr(at + 1, DATA_OPEN));
	at += strlen(DATA_OPEN);
	close = strcasestr(at, "</script");
	FUZZ_ASSERT(close);
	/* the data ends at the element's end tag, and nothing in it could end it sooner */
	FUZZ_ASSERT(!memchr(at, '<', (size_t)(close - at)));
	FUZZ_ASSERT(json_check(at, (size_t)(close - at), "none", &nrows) == 0);
	FUZZ_ASSERT(!strstr(page, TITLE) && !strstr(page, files[0]));
	free(data);
	free(page);
	gr_report_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct gr_export_table_stats csv;

	if (gr_model_load_mem(&m, data, size, MAX_RECORDS, &diag))
		return 0;
	check_perfetto(m);
	check_csv(m, &csv);
	check_sqlite(m, &csv);
	check_html(m);
	gr_model_free(m);
	return 0;
}
