/* SPDX-License-Identifier: MIT */
/*
 * Test helper: a trace's NVTX rows as the model holds them, one line per row, by ts:
 *   OP TS TID DOMAIN ID CATEGORY COLOR PTYPE PAYLOAD TEXT
 * OP gr_nvtx_op_name(); DOMAIN, COLOR and PAYLOAD in hex (0x...), the others decimal; TEXT the
 * rest of the line as recorded ("-" for none).
 */
#include <inttypes.h>
#include <stdio.h>

#include "analyze/model/model.h"
#include "format/events.h"

int main(int argc, char **argv)
{
	const struct gr_thread *threads;
	const struct gr_nvtx *ev;
	struct gr_model *m;
	struct gr_diag diag = {0};
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: tool_trace_nvtx TRACE\n");
		return 2;
	}
	if (gr_model_load(&m, argv[1], &diag)) {
		fprintf(stderr, "tool_trace_nvtx: %s: %s\n", argv[1], diag.reason);
		return 1;
	}
	threads = gr_model_threads(m, NULL);
	ev = gr_model_nvtx(m, &n);
	for (size_t i = 0; i < n; i++) {
		const char *text = gr_model_nvtx_text(m, ev[i].text);

		printf("%s %" PRIu64 " %u 0x%" PRIx64 " %" PRIu64 " %u 0x%x %u 0x%" PRIx64 " %s\n",
		       gr_nvtx_op_name(ev[i].op), ev[i].ts, threads[ev[i].thread].tid, ev[i].domain,
		       ev[i].id, ev[i].category, ev[i].color, ev[i].payload_type, ev[i].payload,
		       *text ? text : "-");
	}
	gr_model_free(m);
	return 0;
}
