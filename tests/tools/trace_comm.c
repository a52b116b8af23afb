/* SPDX-License-Identifier: MIT */
/*
 * Test helper: every COMM record of a trace as the file holds it, one line each, in file order:
 *
 *   pid api kind comm stream count dtype redop peer id nranks rank status call
 *
 * api, kind, dtype and redop by name (redop "-" unless the kind reduces), peer as a signed
 * number (-1 for none), comm, stream and id in hex, status by name ("-" when not returned), call
 * the GR_CALL_* flags as a number. So tests check the capture itself, not what the reports make
 * of it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "format/error.h"
#include "format/events.h"
#include "format/trace.h"

static int reduces(unsigned kind)
{
	return kind == GR_COMM_ALL_REDUCE || kind == GR_COMM_REDUCE_SCATTER ||
	       kind == GR_COMM_REDUCE;
}

static void print_chunk(const struct gr_chunk *c, const int *col)
{
	const uint64_t *v[GR_COMM_NCOLS];
	uint32_t n = gr_chunk_count(c, GR_K_COMM);

	if (!n)
		return;
	for (int k = 0; k < GR_COMM_NCOLS; k++)
		v[k] = gr_chunk_column(c, GR_K_COMM, col[k]);
	for (uint32_t i = 0; i < n; i++) {
		unsigned api = v[GR_COMM_API][i], kind = v[GR_COMM_KIND][i];
		const char *status = gr_status_name(api, v[GR_COMM_STATUS][i]);

		printf("%" PRIu64 " %s %s 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64
		       " %s %s %d 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %s %" PRIu64 "\n",
		       v[GR_COMM_PID][i], gr_api_name(api), gr_comm_kind_name(kind),
		       v[GR_COMM_COMM][i], v[GR_COMM_STREAM][i], v[GR_COMM_COUNT][i],
		       gr_comm_dtype_name(v[GR_COMM_DTYPE][i]),
		       reduces(kind) ? gr_comm_redop_name(v[GR_COMM_REDOP][i]) : "-",
		       (int32_t)v[GR_COMM_PEER][i], v[GR_COMM_ID][i], v[GR_COMM_NRANKS][i],
		       v[GR_COMM_RANK][i],
		       !(v[GR_COMM_CALL][i] & GR_CALL_RETURNED) ? "-"
		       : status					? status
								: "?",
		       v[GR_COMM_CALL][i]);
	}
}

int main(int argc, char **argv)
{
	static const char *const names[GR_COMM_NCOLS] = {
	    "ts",    "dur",   "pid",  "tid", "cpu",    "api",  "kind",	"comm",	  "stream", "count",
	    "dtype", "redop", "peer", "id",  "nranks", "rank", "stack", "status", "call",
	};
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	const struct gr_chunk *c;
	int col[GR_COMM_NCOLS], err;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_comm FILE\n");
		return 2;
	}
	err = gr_trace_reader_open(&r, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_comm: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	for (int k = 0; k < GR_COMM_NCOLS; k++) {
		col[k] = gr_schema_column(gr_trace_reader_schema(r), GR_K_COMM, names[k]);
		if (col[k] < 0) {
			fprintf(stderr, "trace_comm: %s: no COMM column %s\n", argv[1], names[k]);
			gr_trace_reader_close(r);
			return 1;
		}
	}
	while ((err = gr_trace_reader_next_chunk(r, &c)) > 0)
		print_chunk(c, col);
	gr_trace_reader_close(r);
	if (err < 0) {
		fprintf(stderr, "trace_comm: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	return 0;
}
