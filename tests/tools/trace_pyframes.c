/* SPDX-License-Identifier: MIT */
/*
 * Test helper: the Python frames of a trace's stacks, as the recorder stored them.
 *
 *   trace_pyframes FILE   for each STACK record that holds Python frames, in file order, one
 *                         line of them, innermost first: "FILE:LINE:FUNCTION;..." from the
 *                         PYFRAME record of each (its key); "?" for a key no PYFRAME named.
 *                         The stacks of scheduler records (a blocked thread's, a waker's) are
 *                         left out: those of API calls are the ones a script can print.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/events.h"
#include "format/trace.h"

#define MAX_PYFRAMES 65536

struct pyframe {
	uint64_t key;
	char *text;
};

static struct pyframe frames[MAX_PYFRAMES];
static unsigned nframes;

static const char *lookup(uint64_t key)
{
	for (unsigned i = 0; i < nframes; i++)
		if (frames[i].key == key)
			return frames[i].text;
	return "?";
}

static void add_pyframes(const struct gr_chunk *c, int file_col, int func_col)
{
	uint32_t n = gr_chunk_count(c, GR_K_PYFRAME);
	const uint64_t *key = gr_chunk_column(c, GR_K_PYFRAME, GR_PYF_KEY);
	const uint64_t *line = gr_chunk_column(c, GR_K_PYFRAME, GR_PYF_LINE);
	const struct gr_bytes *file = gr_chunk_bytes(c, GR_K_PYFRAME, file_col);
	const struct gr_bytes *func = gr_chunk_bytes(c, GR_K_PYFRAME, func_col);

	for (uint32_t i = 0; i < n && nframes < MAX_PYFRAMES; i++) {
		char *t = NULL;

		if (asprintf(&t, "%.*s:%" PRIu64 ":%.*s", (int)file[i].len, file[i].data, line[i],
			     (int)func[i].len, func[i].data) < 0)
			exit(1);
		frames[nframes++] = (struct pyframe){key[i], t};
	}
}

/* The stack ids SCHED rows use (sorted once collected), to leave their stacks out. */
static uint64_t *sched_ids;
static size_t nsched, capsched;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void add_sched_ids(const struct gr_chunk *c, int col)
{
	uint32_t n = gr_chunk_count(c, GR_K_SCHED);
	const uint64_t *id = n ? gr_chunk_column(c, GR_K_SCHED, col) : NULL;

	for (uint32_t i = 0; id && i < n; i++) {
		if (!id[i])
			continue;
		if (nsched == capsched) {
			capsched = capsched ? 2 * capsched : 1024;
			sched_ids = realloc(sched_ids, capsched * sizeof(*sched_ids));
			if (!sched_ids)
				exit(1);
		}
		sched_ids[nsched++] = id[i];
	}
}

static void print_stacks(const struct gr_chunk *c, int frames_col, int id_col)
{
	uint32_t n = gr_chunk_count(c, GR_K_STACK);
	const struct gr_bytes *fb = gr_chunk_bytes(c, GR_K_STACK, frames_col);
	const uint64_t *id = n ? gr_chunk_column(c, GR_K_STACK, id_col) : NULL;

	for (uint32_t i = 0; i < n; i++) {
		int printed = 0;

		if (id && nsched && bsearch(&id[i], sched_ids, nsched, sizeof(*sched_ids), cmp_u64))
			continue;

		for (uint32_t f = 0; f < fb[i].len / 8; f++) {
			uint64_t v;

			memcpy(&v, fb[i].data + f * 8, 8);
			if (GR_FRAME_IS_PYTHON(v))
				printf("%s%s", printed++ ? ";" : "", lookup(v));
		}
		if (printed)
			printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	const struct gr_chunk *c;
	int frames_col, id_col, sched_col, file_col, func_col, err;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_pyframes FILE\n");
		return 2;
	}
	err = gr_trace_reader_open(&r, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_pyframes: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	sched_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_SCHED, "stack");
	/* a first pass for the scheduler records' stacks, which may come after their STACK */
	while (sched_col >= 0 && (err = gr_trace_reader_next_chunk(r, &c)) > 0)
		add_sched_ids(c, sched_col);
	gr_trace_reader_close(r);
	r = NULL;
	if (sched_col >= 0 && err < 0) {
		fprintf(stderr, "trace_pyframes: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	qsort(sched_ids, nsched, sizeof(*sched_ids), cmp_u64);
	err = gr_trace_reader_open(&r, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_pyframes: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	frames_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_STACK, "frames");
	id_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_STACK, "id");
	file_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_PYFRAME, "file");
	func_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_PYFRAME, "function");
	while (frames_col >= 0 && id_col >= 0 && (err = gr_trace_reader_next_chunk(r, &c)) > 0) {
		/* a PYFRAME comes before the first STACK that uses it: this chunk's first */
		if (file_col >= 0 && func_col >= 0)
			add_pyframes(c, file_col, func_col);
		print_stacks(c, frames_col, id_col);
	}
	gr_trace_reader_close(r);
	free(sched_ids);
	if (err < 0) {
		fprintf(stderr, "trace_pyframes: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	return 0;
}
