/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a set of two damaged traces read as one job (gr_model_load_set(), what `report`,
 * `export` and `info` do with several files), then exported through a window (`export --from
 * --to`). The input is the first trace, the separator below, then the second; without the
 * separator the trace is read twice. The input's length picks the window.
 *
 * Invariants: when each trace loads alone, the set loads, holds two traces, and holds exactly the
 * launches, copies, memsets, allocations, syncs and GPU rows of both, the first trace's at its
 * own times and pids; when either does not load alone, the set does not, and names that one.
 * Exported with --from/--to, the export is one valid JSON document, every slice and loss written
 * overlaps the window, every launch instant before it has its call's slice (which overlaps), and
 * every other instant lies in it (the export's own times, microseconds from the recording start).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/export/export.h"
#include "analyze/model/model.h"
#include "json_check.h"
#include "tests/fuzz/fuzz.h"

#define SEPARATOR   "#gpurec-set-next#"
#define MAX_RECORDS (1u << 20)

static int in_fd[2] = {-1, -1};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	in_fd[0] = memfd_create("fuzz-set-0", MFD_CLOEXEC);
	in_fd[1] = memfd_create("fuzz-set-1", MFD_CLOEXEC);
	FUZZ_ASSERT(in_fd[0] >= 0 && in_fd[1] >= 0);
	return 0;
}

static void put(int fd, const void *p, size_t len)
{
	FUZZ_ASSERT(ftruncate(fd, 0) == 0);
	FUZZ_ASSERT(pwrite(fd, p, len, 0) == (ssize_t)len);
}

/* Events of each kind the set must add up. */
struct counts {
	size_t launches, copies, memsets, allocs, syncs, gpus;
};

static void count(const struct gr_model *m, struct counts *c)
{
	gr_model_launches(m, &c->launches);
	gr_model_copies(m, &c->copies);
	gr_model_memsets(m, &c->memsets);
	gr_model_allocs(m, &c->allocs);
	gr_model_syncs(m, &c->syncs);
	gr_model_gpus(m, &c->gpus);
}

/* The number after @key in @line (up to @end); 0 when absent. */
static int number(const char *line, const char *end, const char *key, double *v)
{
	char tmp[64];
	const char *p = memmem(line, (size_t)(end - line), key, strlen(key));
	size_t n;

	if (!p)
		return 0;
	p += strlen(key);
	n = (size_t)(end - p) < sizeof(tmp) - 1 ? (size_t)(end - p) : sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	*v = strtod(tmp, NULL);
	return 1;
}

static int has(const char *line, const char *end, const char *s)
{
	return memmem(line, (size_t)(end - line), s, strlen(s)) != NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every slice of the export overlaps [@from, @to] (ns), and so does every loss instant's span
 * (ts to until_us); a launch instant is at its call's entry, so one before @from has its call's
 * slice (which overlaps) at the same time; every other instant lies in the window.
 */
static void check_window(const char *out, size_t len, double from, double to)
{
	const char *p, *end = out + len;
	double *starts = NULL;
	size_t nstarts = 0, cap = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (p = out; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *ph;
			double ts, dur = 0, slack;

			if (!nl)
				nl = end;
			ph = memmem(p, (size_t)(nl - p), "{\"ph\": \"", 8);
			if (!ph || (ph[8] != 'X' && ph[8] != 'i') || (pass == 0 && ph[8] != 'X')) {
				p = nl + 1;
				continue;
			}
			FUZZ_ASSERT(number(p, nl, "\"ts\": ", &ts));
			if (pass == 0) {
				if (nstarts == cap) {
					cap = cap ? 2 * cap : 256;
					starts = realloc(starts, cap * sizeof(*starts));
					FUZZ_ASSERT(starts);
				}
				starts[nstarts++] = ts;
				p = nl + 1;
				continue;
			}
			if (ph[8] == 'X') {
				FUZZ_ASSERT(number(p, nl, "\"dur\": ", &dur) && dur >= 0);
			} else if (has(p, nl, "\"cat\": \"loss\"")) {
				FUZZ_ASSERT(number(p, nl, "\"until_us\": ", &dur) && dur >= ts);
				dur -= ts;
			} else if (has(p, nl, "\"cat\": \"kernel\"") && ts * 1000 < from) {
				FUZZ_ASSERT(
				    bsearch(&ts, starts, nstarts, sizeof(*starts), cmp_double));
				dur = from / 1000 - ts;
			}
			ts *= 1000;
			dur *= 1000;
			/* times print as microseconds with nanosecond decimals, through a double */
			slack = 1 + 1e-12 * (ts < 0 ? -ts : ts) + 1e-12 * dur + 1e-12 * to;
			FUZZ_ASSERT(ts <= to + slack);
			FUZZ_ASSERT(ts + dur >= from - slack);
			p = nl + 1;
		}
		if (pass == 0 && nstarts)
			qsort(starts, nstarts, sizeof(*starts), cmp_double);
	}
	free(starts);
}

static void export_window(const struct gr_model *m, size_t size)
{
	struct gr_export_opts o = {.has_to = 1};
	uint64_t first, last, span;
	char *out = NULL;
	size_t len = 0;
	long nevents;
	FILE *f;

	gr_model_time_span(m, &first, &last);
	span = last > first ? last - first : 0;
	/* a window somewhere inside the recording, or at its very start */
	o.from_ns = span / 8 * (size % 5);
	o.to_ns = o.from_ns + span / 4 + (size & 1);
	f = open_memstream(&out, &len);
	FUZZ_ASSERT(f);
	FUZZ_ASSERT(gr_export_chrome(m, f, &o, NULL) == 0);
	FUZZ_ASSERT(fclose(f) == 0);
	FUZZ_ASSERT(json_check(out, len, "traceEvents", &nevents) == 0);
	check_window(out, len, (double)o.from_ns, (double)o.to_ns);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
	const uint8_t *buf[2] = {data, sep ? sep + strlen(SEPARATOR) : data};
	size_t len[2] = {sep ? (size_t)(sep - data) : size,
			 sep ? size - (size_t)(buf[1] - data) : size};
	struct gr_model_load_opts lo = {.jobs = 1, .max_records = 2 * MAX_RECORDS};
	struct gr_model *part[2] = {NULL, NULL}, *set = NULL;
	struct counts c[2] = {{0}}, s;
	struct gr_diag diag = {0};
	char p0[64], p1[64];
	const char *paths[2] = {p0, p1};
	size_t failed = 99, ntraces;
	int ok[2], err;

	for (int i = 0; i < 2; i++) {
		ok[i] = gr_model_load_mem(&part[i], buf[i], len[i], MAX_RECORDS, &diag) == 0;
		if (ok[i])
			count(part[i], &c[i]);
		put(in_fd[i], buf[i], len[i]);
	}
	snprintf(p0, sizeof(p0), "/proc/self/fd/%d", in_fd[0]);
	snprintf(p1, sizeof(p1), "/proc/self/fd/%d", in_fd[1]);
	err = gr_model_load_set(&set, paths, 2, &lo, &diag, &failed);
	if (!ok[0] || !ok[1]) {
		FUZZ_ASSERT(err < 0 && !set);
		FUZZ_ASSERT(failed < 2 && !ok[failed]);
		goto out;
	}
	FUZZ_ASSERT(err == 0 && set);
	FUZZ_ASSERT(gr_model_traces(set, &ntraces) && ntraces == 2);
	count(set, &s);
	FUZZ_ASSERT(s.launches == c[0].launches + c[1].launches);
	FUZZ_ASSERT(s.copies == c[0].copies + c[1].copies);
	FUZZ_ASSERT(s.memsets == c[0].memsets + c[1].memsets);
	FUZZ_ASSERT(s.allocs == c[0].allocs + c[1].allocs);
	FUZZ_ASSERT(s.syncs == c[0].syncs + c[1].syncs);
	FUZZ_ASSERT(s.gpus == c[0].gpus + c[1].gpus);
	export_window(set, size);
out:
	gr_model_free(set);
	gr_model_free(part[0]);
	gr_model_free(part[1]);
	return 0;
}
