/* SPDX-License-Identifier: MIT */
/*
 * Test helper: a hostile trace, small on disk and huge in memory. N identical kernel launches
 * 1 us apart, written through the format writer with valid checksums and footer: zstd packs
 * each 8 MiB chunk into a few hundred bytes, so 28 million launches fit in about 50 KB
 * (tests/e2e/max_events.sh).
 *
 *   trace_flood FILE N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/events.h"
#include "format/trace.h"

static int append_name(struct gr_trace_writer *w, uint64_t ts)
{
	static const char name[] = "flood_kernel";
	uint64_t v[GR_MAX_COLUMNS] = {0};
	struct gr_bytes b = {.data = (const uint8_t *)name, .len = sizeof(name) - 1};

	v[GR_NAME_TS] = ts;
	v[GR_NAME_CLASS] = GR_NAME_KERNEL;
	v[GR_NAME_PID] = 100;
	v[GR_NAME_KEY] = 0x401000;
	return gr_trace_writer_append(w, GR_K_NAME, v, &b);
}

static int flood(const char *path, unsigned long long n)
{
	static const struct gr_trace_header hdr = {
	    .host = "flood",
	    .tool_version = "gpurec 0.1.0",
	    .cmdline = "./flood",
	    .clock_monotonic_ns = 1000000000,
	    .clock_realtime_ns = 1700000000000000000ull,
	};
	/* the largest chunks the reader takes, and time never the reason to cut one */
	struct gr_writer_opts o = {
	    .chunk_raw_bytes = GR_MAX_CHUNK_RAW / 2, .chunk_ns = 1ull << 62, .zstd_level = 19};
	struct gr_trace_writer *w = NULL;
	uint64_t v[GR_MAX_COLUMNS] = {0};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err;

	if (fd < 0)
		return -1;
	err = gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), &o);
	if (err) {
		close(fd);
		return err;
	}
	err = append_name(w, 1000000000);
	v[GR_LAUNCH_DUR] = 3000;
	v[GR_LAUNCH_PID] = 100;
	v[GR_LAUNCH_TID] = 100;
	v[GR_LAUNCH_API] = GR_API_cudaLaunchKernel;
	v[GR_LAUNCH_FUNC] = 0x401000;
	v[GR_LAUNCH_GX] = v[GR_LAUNCH_GY] = v[GR_LAUNCH_GZ] = 1;
	v[GR_LAUNCH_BX] = 256;
	v[GR_LAUNCH_BY] = v[GR_LAUNCH_BZ] = 1;
	v[GR_LAUNCH_STREAM] = 0x7f00dead0000ull;
	for (unsigned long long i = 0; i < n && !err; i++) {
		v[GR_LAUNCH_TS] = 1000001000 + i * 1000;
		err = gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
	}
	if (gr_trace_writer_close(w) && !err)
		err = -1;
	return err;
}

int main(int argc, char **argv)
{
	unsigned long long n;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: trace_flood FILE N\n");
		return 2;
	}
	n = strtoull(argv[2], &end, 10);
	if (!*argv[2] || *end) {
		fprintf(stderr, "trace_flood: N '%s': a number is needed\n", argv[2]);
		return 2;
	}
	if (flood(argv[1], n)) {
		fprintf(stderr, "trace_flood: %s: cannot write it\n", argv[1]);
		return 1;
	}
	return 0;
}
