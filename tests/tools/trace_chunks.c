/* SPDX-License-Identifier: MIT */
/*
 * Test helper: the chunk index of a trace, the ground truth of what a cut keeps.
 *
 *   trace_chunks FILE   one line per index entry, in file order: "OFFSET END LAUNCHES", END the
 *                       offset just past the chunk, LAUNCHES its launch records (from the footer's
 *                       per-kind counts; -1 when the file has no footer and the count is unknown)
 *
 * A copy of FILE cut at byte C keeps exactly the chunks whose END <= C.
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/events.h"
#include "format/trace.h"

int main(int argc, char **argv)
{
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	struct gr_chunk_info ci;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_chunks FILE\n");
		return 2;
	}
	err = gr_trace_reader_open(&r, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_chunks: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	for (uint64_t i = 0; i < gr_trace_reader_index_len(r); i++) {
		if (gr_trace_reader_chunk_info(r, i, &ci))
			break;
		if (ci.kinds_known)
			printf("%" PRIu64 " %" PRIu64 " %" PRIu32 "\n", ci.offset,
			       ci.offset + ci.size, ci.count[GR_K_LAUNCH]);
		else
			printf("%" PRIu64 " %" PRIu64 " -1\n", ci.offset, ci.offset + ci.size);
	}
	gr_trace_reader_close(r);
	return 0;
}
