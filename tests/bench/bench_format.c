/* SPDX-License-Identifier: MIT */
/*
 * Trace format benchmark: writes a trace of N launch events shaped like a training loop (a
 * repeating sequence of 8 kernels with fixed launch configs, one pid/tid/stream, launches 5-10 us
 * apart with jitter, the launch API probed at entry only so dur = 0, a rare CPU migration), then
 * decodes every chunk on one core. Prints the size per event and the decode rate:
 *
 *   bytes per launch event: X
 *   decode events/s: Y
 *
 * usage: bench_format [-n EVENTS] [-j JITTER_NS] [-l ZSTD_LEVEL] [-k] [FILE]
 * FILE defaults to a temporary file, removed at the end unless -k.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/events.h"
#include "format/trace.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct kernel {
	uint64_t func, gx, gy, gz, bx, by, bz, shmem, gap;
};

/* A transformer-ish step: embedding, 3 GEMMs, softmax, layernorm, elementwise, reduction. */
static const struct kernel loop[8] = {
    {0x55d0c0a01230, 1024, 1, 1, 256, 1, 1, 0, 5200},
    {0x55d0c0a01a40, 128, 96, 1, 128, 1, 1, 49152, 7400},
    {0x55d0c0a02150, 64, 32, 8, 256, 1, 1, 16384, 6100},
    {0x55d0c0a02980, 4096, 1, 1, 1024, 1, 1, 0, 5600},
    {0x55d0c0a03010, 128, 96, 1, 128, 1, 1, 49152, 9300},
    {0x55d0c0a03770, 2048, 1, 1, 512, 1, 1, 4096, 5900},
    {0x55d0c0a04120, 216, 1, 1, 32, 8, 1, 0, 8100},
    {0x55d0c0a048d0, 1, 1, 1, 1024, 1, 1, 8192, 6700},
};

static int write_trace(const char *path, uint64_t n, uint64_t jitter, int level)
{
	struct gr_trace_header hdr = {
	    .host = "bench",
	    .kernel = "6.18",
	    .tool_version = "bench_format",
	    .cmdline = "python train.py",
	    .clock_monotonic_ns = 1000000000ull,
	    .clock_realtime_ns = 1700000000000000000ull,
	};
	struct gr_writer_opts opts = {.zstd_level = level};
	struct gr_trace_writer *w;
	uint64_t v[GR_LAUNCH_NCOLS] = {0}, ts = 1000000000ull;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		fprintf(stderr, "bench_format: %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), &opts);
	if (err) {
		fprintf(stderr, "bench_format: writer: %s\n", gr_strerror(err));
		close(fd);
		return 1;
	}
	v[GR_LAUNCH_PID] = 31337;
	v[GR_LAUNCH_TID] = 31337;
	v[GR_LAUNCH_CPU] = 5;
	v[GR_LAUNCH_API] = GR_API_cudaLaunchKernel;
	v[GR_LAUNCH_STREAM] = 0x55d0c1f3e7a0;
	for (uint64_t i = 0; i < n && !err; i++) {
		const struct kernel *k = &loop[i % 8];

		ts += k->gap + (jitter ? next_rand() % jitter : 0);
		if (next_rand() % 100000 == 0)
			v[GR_LAUNCH_CPU] = next_rand() % 16; /* the scheduler moves the thread */
		v[GR_LAUNCH_TS] = ts;
		v[GR_LAUNCH_FUNC] = k->func;
		v[GR_LAUNCH_GX] = k->gx;
		v[GR_LAUNCH_GY] = k->gy;
		v[GR_LAUNCH_GZ] = k->gz;
		v[GR_LAUNCH_BX] = k->bx;
		v[GR_LAUNCH_BY] = k->by;
		v[GR_LAUNCH_BZ] = k->bz;
		v[GR_LAUNCH_SHMEM] = k->shmem;
		v[GR_LAUNCH_STACK] = 1 + i % 8;
		err = gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
	}
	if (err) {
		fprintf(stderr, "bench_format: append: %s\n", gr_strerror(err));
		gr_trace_writer_close(w);
		return 1;
	}
	err = gr_trace_writer_close(w);
	if (err) {
		fprintf(stderr, "bench_format: close: %s\n", gr_strerror(err));
		return 1;
	}
	return 0;
}

static int decode(const char *path, uint64_t *events, uint64_t *sum)
{
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	struct gr_diag d = {0};
	int err;

	err = gr_trace_reader_open(&r, path, &d);
	if (err) {
		fprintf(stderr, "bench_format: %s: %s\n", path, d.reason);
		return 1;
	}
	while ((err = gr_trace_reader_next_chunk(r, &c)) == 1) {
		uint32_t n = gr_chunk_count(c, GR_K_LAUNCH);

		*events += gr_chunk_total(c);
		/* touch every column so the decode cannot be skipped */
		for (uint16_t col = 0; col < GR_LAUNCH_NCOLS; col++) {
			const uint64_t *v = gr_chunk_column(c, GR_K_LAUNCH, col);

			*sum += v[0] + v[n - 1];
		}
	}
	if (err < 0 || !gr_trace_reader_integrity(r)->complete) {
		fprintf(stderr, "bench_format: decode failed: %s\n",
			gr_trace_reader_integrity(r)->first_problem.reason);
		gr_trace_reader_close(r);
		return 1;
	}
	gr_trace_reader_close(r);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 10000000, jitter = 1000, events = 0, sum = 0, size;
	char tmp[] = "/tmp/bench_format.XXXXXX";
	const char *path = NULL;
	int level = 3, keep = 0, opt, rc = 1;
	double t0, t1, wall, cpu;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:j:l:k")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			jitter = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			level = atoi(optarg);
			break;
		case 'k':
			keep = 1;
			break;
		default:
			fprintf(stderr, "usage: bench_format [-n EVENTS] [-j JITTER_NS] [-l LEVEL] "
					"[-k] [FILE]\n");
			return 2;
		}
	}
	if (optind < argc) {
		path = argv[optind];
	} else {
		int fd = mkstemp(tmp);

		if (fd < 0) {
			perror("bench_format: mkstemp");
			return 1;
		}
		close(fd);
		path = tmp;
	}
	if (!n)
		n = 1;

	t0 = now(CLOCK_MONOTONIC);
	if (write_trace(path, n, jitter, level))
		goto out;
	t1 = now(CLOCK_MONOTONIC);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END)) {
		perror("bench_format: size");
		goto out;
	}
	size = (uint64_t)ftell(f);
	fclose(f);
	printf("# %" PRIu64 " launch events, 8-kernel loop, gaps 5-10 us + 0..%" PRIu64
	       " ns jitter, zstd level %d\n",
	       n, jitter, level);
	printf("# file %" PRIu64 " bytes, written in %.2f s (%.1fM events/s)\n", size, t1 - t0,
	       n / (t1 - t0) / 1e6);
	printf("bytes per launch event: %.3f\n", (double)size / (double)n);

	cpu = now(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now(CLOCK_MONOTONIC);
	if (decode(path, &events, &sum))
		goto out;
	wall = now(CLOCK_MONOTONIC) - t0;
	cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	if (events != n) {
		fprintf(stderr, "bench_format: decoded %" PRIu64 " events, wrote %" PRIu64 "\n",
			events, n);
		goto out;
	}
	printf("# decoded in %.3f s wall, %.3f s CPU (checksum %" PRIx64 ")\n", wall, cpu, sum);
	printf("decode events/s: %.0f\n", (double)events / wall);
	rc = 0;
out:
	if (!keep && path == tmp)
		unlink(path);
	return rc;
}
