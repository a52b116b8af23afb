/* SPDX-License-Identifier: MIT */
/*
 * Model load speed: writes a launch-heavy trace (a training-loop pattern: 40 kernels in a fixed
 * order per step, 2 threads, a few configs, stacks, a sync per step) through the format writer,
 * then times a bare reader pass over its chunks, and gr_model_load_opts() with 1 and 2 workers,
 * each load in a fresh child process.
 *
 *   build/tests/bench_model [-n LAUNCHES] [-r RUNS] [-j JOBS,...] [-k] [FILE]
 *
 * Prints "model load events/s" and "load peak RSS B/event" per number of workers (-j, default
 * 1,2): the best time of RUNS children, and the largest ru_maxrss wait4() gives for them (the
 * writer is a child too, so it does not count). Default 10M launches, best of 3 runs, FILE
 * default /tmp/gr_bench_model.trc, removed at the end unless -k.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/model/model.h"
#include "format/events.h"
#include "format/trace.h"

#define NKERNELS 40

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_trace(const char *path, uint64_t nlaunch)
{
	static const struct gr_trace_header hdr = {
	    .host = "bench",
	    .kernel = "bench",
	    .tool_version = "bench",
	    .cmdline = "bench_model",
	    .env = "",
	    .clock_monotonic_ns = 1000000000000ull,
	    .clock_realtime_ns = 1700000000000000000ull,
	};
	struct gr_trace_writer *w = NULL;
	uint64_t ts = hdr.clock_monotonic_ns, seed = 42;
	int fd, err;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	err = gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL);
	for (uint64_t i = 0; i < nlaunch && !err; i++) {
		uint64_t k = i % NKERNELS, step = i / NKERNELS;
		uint64_t v[GR_LAUNCH_NCOLS] = {0};

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		ts += 3000 + (seed >> 54); /* ~3-4 us apart, jittered */
		v[GR_LAUNCH_TS] = ts;
		v[GR_LAUNCH_DUR] = 2500 + (seed >> 56);
		v[GR_LAUNCH_PID] = 4242;
		v[GR_LAUNCH_TID] = 4242 + (step % 8 == 7); /* a second thread now and then */
		v[GR_LAUNCH_CPU] = (seed >> 40) % 4;
		v[GR_LAUNCH_API] = GR_API_cudaLaunchKernel;
		v[GR_LAUNCH_FUNC] = 0x55550000 + k * 0x40;
		v[GR_LAUNCH_GX] = k < 20 ? 131072 : 80 + k;
		v[GR_LAUNCH_GY] = 1;
		v[GR_LAUNCH_GZ] = 1;
		v[GR_LAUNCH_BX] = k < 10 ? 256 : 128;
		v[GR_LAUNCH_BY] = 1;
		v[GR_LAUNCH_BZ] = 1;
		v[GR_LAUNCH_SHMEM] = k % 3 ? 0 : 4096;
		v[GR_LAUNCH_STREAM] = 0x7f0000001000ull;
		v[GR_LAUNCH_STACK] = 1 + k;
		err = gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
		if (!err && k == NKERNELS - 1) {
			uint64_t s[GR_SYNC_NCOLS] = {ts + 100,
						     50000,
						     4242,
						     4242,
						     0,
						     GR_API_cudaStreamSynchronize,
						     GR_SYNC_STREAM,
						     0x7f0000001000ull,
						     0,
						     99};

			err = gr_trace_writer_append(w, GR_K_SYNC, s, NULL);
		}
	}
	for (uint64_t k = 0; k < NKERNELS && !err; k++) {
		char name[64];
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_KERNEL, 4242, 0x55550000 + k * 0x40, 0};
		struct gr_bytes b[1];

		snprintf(name, sizeof(name), "kernel_%02" PRIu64 "(float*, float const*, int)", k);
		b[0].data = (const uint8_t *)name;
		b[0].len = (uint32_t)strlen(name);
		err = gr_trace_writer_append(w, GR_K_NAME, v, b);
	}
	if (gr_trace_writer_close(w) && !err)
		err = -1;
	return err;
}

/* A bare pass over the chunks, touching each launch timestamp: the reader's share of the cost. */
static int read_only(const char *path, uint64_t *records)
{
	struct gr_trace_reader *r = NULL;
	const struct gr_chunk *c;
	uint64_t sum = 0, n = 0;
	int err;

	err = gr_trace_reader_open(&r, path, NULL);
	if (err)
		return err;
	while ((err = gr_trace_reader_next_chunk(r, &c)) == 1) {
		uint32_t cnt = gr_chunk_count(c, GR_K_LAUNCH);
		const uint64_t *ts = gr_chunk_column(c, GR_K_LAUNCH, GR_LAUNCH_TS);

		for (uint32_t i = 0; ts && i < cnt; i++)
			sum += ts[i];
		n += gr_chunk_total(c);
	}
	gr_trace_reader_close(r);
	*records = n + (sum == 1); /* keep the loop */
	return err;
}

/* Load @path with @jobs workers in a child: its load time and peak RSS. */
static int measure(const char *path, unsigned jobs, double *secs, uint64_t *records, long *kib)
{
	struct {
		double t;
		uint64_t n;
	} res = {0};
	struct rusage ru;
	int fds[2], status;
	ssize_t got;
	pid_t child;

	if (pipe(fds))
		return -1;
	child = fork();
	if (child == 0) {
		struct gr_model_load_opts o = {.jobs = jobs};
		struct gr_model *m = NULL;
		double t = now();

		close(fds[0]);
		if (gr_model_load_opts(&m, path, &o, NULL))
			_exit(1);
		res.t = now() - t;
		for (unsigned k = 0; k < GR_K_COUNT; k++)
			res.n += gr_model_record_count(m, k);
		_exit(write(fds[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(fds[1]);
	if (child < 0) {
		close(fds[0]);
		return -1;
	}
	got = read(fds[0], &res, sizeof(res));
	close(fds[0]);
	if (wait4(child, &status, 0, &ru) != child || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    got != sizeof(res))
		return -1;
	*secs = res.t;
	*records = res.n;
	*kib = ru.ru_maxrss;
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = "/tmp/gr_bench_model.trc", *jobs_list = "1,2";
	uint64_t nlaunch = 10000000, records = 0;
	int runs = 3, keep = 0, opt, status;
	double best_read = 1e30, t;
	struct stat sb;
	pid_t child;

	while ((opt = getopt(argc, argv, "n:r:j:k")) != -1) {
		switch (opt) {
		case 'n':
			nlaunch = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			runs = atoi(optarg) > 0 ? atoi(optarg) : 1;
			break;
		case 'j':
			jobs_list = optarg;
			break;
		case 'k':
			keep = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n LAUNCHES] [-r RUNS] [-j JOBS,...] [-k] [FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		path = argv[optind];

	t = now();
	child = fork();
	if (child == 0)
		_exit(write_trace(path, nlaunch) ? 1 : 0);
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench_model: writing %s failed\n", path);
		return 1;
	}
	t = now() - t;
	if (stat(path, &sb))
		return 1;
	printf("trace: %" PRIu64 " launches, %.1f MiB, %.2f B/launch, written in %.2f s "
	       "(%.1fM events/s)\n",
	       nlaunch, (double)sb.st_size / (1 << 20), (double)sb.st_size / (double)nlaunch, t,
	       (double)nlaunch / t / 1e6);

	/* fresh processes first, while this one is small (a child starts with its RSS) */
	for (const char *j = jobs_list; *j;) {
		unsigned jobs = (unsigned)strtoul(j, NULL, 10);
		double best = 1e30, secs;
		long kib = 0, k;

		for (int i = 0; i < runs; i++) {
			if (measure(path, jobs, &secs, &records, &k)) {
				fprintf(stderr, "bench_model: loading %s failed\n", path);
				return 1;
			}
			best = secs < best ? secs : best;
			kib = k > kib ? k : kib;
		}
		printf("model load events/s, %u worker%s: %.1fM (%.3f s, %" PRIu64
		       " records, best of %d processes)\n",
		       jobs, jobs == 1 ? "" : "s", (double)records / best / 1e6, best, records,
		       runs);
		printf("load peak RSS B/event, %u worker%s: %.1f (%.1f MiB)\n", jobs,
		       jobs == 1 ? "" : "s", (double)kib * 1024 / (double)records,
		       (double)kib / 1024);
		j += strcspn(j, ",");
		j += *j == ',';
	}
	for (int i = 0; i < runs; i++) {
		t = now();
		if (read_only(path, &records) < 0) {
			fprintf(stderr, "bench_model: reading %s failed\n", path);
			return 1;
		}
		t = now() - t;
		if (t < best_read)
			best_read = t;
	}
	printf("reader pass events/s: %.1fM (%.3f s, one core)\n",
	       (double)records / best_read / 1e6, best_read);
	if (!keep)
		unlink(path);
	return 0;
}
