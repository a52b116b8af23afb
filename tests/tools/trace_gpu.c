/* SPDX-License-Identifier: MIT */
/*
 * Test helper: every GPU row of a trace (record --cupti) as the file holds it, one line each, in
 * file order, its columns in schema order (format/events.h) with the name last:
 *
 *   ts dur pid host_tid host_ts kind device context stream correlation grid_x grid_y grid_z
 *   block_x block_y block_z shared bytes copy_kind graph graph_node name
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/error.h"
#include "format/events.h"
#include "format/trace.h"

int main(int argc, char **argv)
{
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	const struct gr_chunk *c;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_gpu FILE\n");
		return 2;
	}
	err = gr_trace_reader_open(&r, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_gpu: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	while ((err = gr_trace_reader_next_chunk(r, &c)) > 0) {
		uint32_t n = gr_chunk_count(c, GR_K_GPU);
		const struct gr_bytes *name = gr_chunk_bytes(c, GR_K_GPU, GR_GPU_NAME);

		for (uint32_t i = 0; i < n; i++) {
			for (int k = 0; k < GR_GPU_NAME; k++)
				printf("%" PRIu64 " ", gr_chunk_column(c, GR_K_GPU, k)[i]);
			printf("%.*s\n", (int)name[i].len, (const char *)name[i].data);
		}
	}
	gr_trace_reader_close(r);
	if (err < 0) {
		fprintf(stderr, "trace_gpu: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	return 0;
}
