/* SPDX-License-Identifier: MIT */
/*
 * Test helper: every kernel NAME record of a trace as the file holds it, one line each, in file
 * order:
 *
 *   pid class key text
 *
 * class "kernel" (demangled) or "raw" (mangled), key in hex. So tests check which names the
 * recorder wrote, not only the ones the reports look up.
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/error.h"
#include "format/events.h"
#include "format/trace.h"

static void print_chunk(const struct gr_chunk *c, const int *col)
{
	uint32_t n = gr_chunk_count(c, GR_K_NAME);
	const uint64_t *cls, *pid, *key;
	const struct gr_bytes *text;

	if (!n)
		return;
	cls = gr_chunk_column(c, GR_K_NAME, col[GR_NAME_CLASS]);
	pid = gr_chunk_column(c, GR_K_NAME, col[GR_NAME_PID]);
	key = gr_chunk_column(c, GR_K_NAME, col[GR_NAME_KEY]);
	text = gr_chunk_bytes(c, GR_K_NAME, col[GR_NAME_TEXT]);
	for (uint32_t i = 0; i < n; i++) {
		if (cls[i] != GR_NAME_KERNEL && cls[i] != GR_NAME_KERNEL_RAW)
			continue;
		printf("%" PRIu64 " %s 0x%" PRIx64 " %.*s\n", pid[i],
		       cls[i] == GR_NAME_KERNEL ? "kernel" : "raw", key[i], (int)text[i].len,
		       (const char *)text[i].data);
	}
}

int main(int argc, char **argv)
{
	static const char *const names[GR_NAME_NCOLS] = {"ts", "class", "pid", "key", "text"};
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	const struct gr_chunk *c;
	int col[GR_NAME_NCOLS], err;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_names FILE\n");
		return 2;
	}
	err = gr_trace_reader_open(&r, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_names: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	for (int k = 0; k < GR_NAME_NCOLS; k++) {
		col[k] = gr_schema_column(gr_trace_reader_schema(r), GR_K_NAME, names[k]);
		if (col[k] < 0) {
			fprintf(stderr, "trace_names: %s: no NAME column %s\n", argv[1], names[k]);
			gr_trace_reader_close(r);
			return 1;
		}
	}
	while ((err = gr_trace_reader_next_chunk(r, &c)) > 0)
		print_chunk(c, col);
	gr_trace_reader_close(r);
	if (err < 0) {
		fprintf(stderr, "trace_names: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	return 0;
}
