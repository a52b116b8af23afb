/* SPDX-License-Identifier: MIT */
/*
 * Report speed: writes a training-loop trace through the format writer (per step: 40 kernels in
 * a fixed order, an async H2D copy from pinned memory, a 4-byte D2H read, a stream sync, and
 * scheduler events: the launching thread preempted by a "hog" and given the CPU back), then
 * measures what `gpurec report` does, load and report, each configuration in fresh processes:
 *
 *   build/tests/bench_report [-n EVENTS] [-r RUNS] [-j JOBS,...] [-k] [-e] [FILE]
 *
 * For each number of load workers (-j, default 1,2): "load + report events/s" (events = launch,
 * copy, sync and sched records, over the best load + compute time of RUNS child processes),
 * "report peak RSS B/event" (the child's ru_maxrss from wait4(): the loaded model plus the
 * report's memory), beside the targets, and "load peak RSS B/event" (a child that only
 * loads), and "load + report CPU time" (the child's user + system time, the figure to compare
 * between builds on a shared machine). Then, in this process, "report events/s": the
 * best of RUNS gr_report_compute() (all four sections) on one core. Default 10M events, 3 runs,
 * FILE /tmp/gr_bench_report.trc, removed at the end unless -k; -e reports on an existing FILE
 * (kept) instead of writing one.
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
#include "analyze/report/report.h"
#include "format/events.h"
#include "format/trace.h"

#define NKERNELS	40
#define EVENTS_PER_STEP (NKERNELS + 2 + 1 + 4)
#define PID		4242
#define HOG		5000
#define STREAM		0x7f0000001000ull
#define PINNED		0x7f5000000000ull

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int put(struct gr_trace_writer *w, uint16_t kind, const uint64_t *v, int err)
{
	return err ? err : gr_trace_writer_append(w, kind, v, NULL);
}

static int sched(struct gr_trace_writer *w, uint64_t ts, uint32_t prev, uint64_t state,
		 uint32_t next, int err)
{
	uint64_t v[GR_SCHED_NCOLS] = {[GR_SCHED_TS] = ts,
				      [GR_SCHED_CPU] = 0,
				      [GR_SCHED_TYPE] = GR_SCHED_SWITCH,
				      [GR_SCHED_PREV_PID] = prev,
				      [GR_SCHED_PREV_TID] = prev,
				      [GR_SCHED_PREV_STATE] = state,
				      [GR_SCHED_NEXT_PID] = next,
				      [GR_SCHED_NEXT_TID] = next};

	return put(w, GR_K_SCHED, v, err);
}

static int write_trace(const char *path, uint64_t nevents)
{
	static const struct gr_trace_header hdr = {
	    .host = "bench",
	    .kernel = "bench",
	    .tool_version = "bench",
	    .cmdline = "bench_report",
	    .env = "",
	    .clock_monotonic_ns = 1000000000000ull,
	    .clock_realtime_ns = 1700000000000000000ull,
	};
	struct gr_trace_writer *w = NULL;
	uint64_t ts = hdr.clock_monotonic_ns + 1000, seed = 42, steps = nevents / EVENTS_PER_STEP;
	int fd, err;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	err = gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL);
	{
		uint64_t a[GR_ALLOC_NCOLS] = {
		    [GR_ALLOC_TS] = ts,		[GR_ALLOC_PID] = PID,
		    [GR_ALLOC_TID] = PID,	[GR_ALLOC_ADDR] = PINNED,
		    [GR_ALLOC_BYTES] = 1 << 24, [GR_ALLOC_AKIND] = GR_ALLOC_HOST_PINNED};

		err = put(w, GR_K_ALLOC, a, err);
	}
	for (uint64_t s = 0; s < steps && !err; s++) {
		uint64_t c[GR_COPY_NCOLS] = {[GR_COPY_PID] = PID,
					     [GR_COPY_TID] = PID,
					     [GR_COPY_API] = GR_API_cudaMemcpyAsync,
					     [GR_COPY_STREAM] = STREAM,
					     [GR_COPY_FLAGS] = GR_COPY_F_ASYNC,
					     [GR_COPY_STACK] = 60};
		uint64_t y[GR_SYNC_NCOLS] = {[GR_SYNC_PID] = PID,
					     [GR_SYNC_TID] = PID,
					     [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
					     [GR_SYNC_SKIND] = GR_SYNC_STREAM,
					     [GR_SYNC_HANDLE] = STREAM,
					     [GR_SYNC_STACK] = 61};

		ts += 2000;
		c[GR_COPY_TS] = ts;
		c[GR_COPY_DUR] = 2500;
		c[GR_COPY_SRC] = PINNED;
		c[GR_COPY_DST] = 0x7e0000000000ull;
		c[GR_COPY_BYTES] = 1 << 20;
		c[GR_COPY_CKIND] = GR_COPY_H2D;
		err = put(w, GR_K_COPY, c, err);
		for (uint64_t k = 0; k < NKERNELS && !err; k++) {
			uint64_t v[GR_LAUNCH_NCOLS] = {0};

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ts += 3000 + (seed >> 54); /* ~3-4 us apart, jittered */
			v[GR_LAUNCH_TS] = ts;
			v[GR_LAUNCH_PID] = PID;
			v[GR_LAUNCH_TID] = PID;
			v[GR_LAUNCH_CPU] = 0;
			v[GR_LAUNCH_API] = GR_API_cudaLaunchKernel;
			v[GR_LAUNCH_FUNC] = 0x55550000 + k * 0x40;
			v[GR_LAUNCH_GX] = k < 20 ? 131072 : 80 + k;
			v[GR_LAUNCH_GY] = 1;
			v[GR_LAUNCH_GZ] = 1;
			v[GR_LAUNCH_BX] = k < 10 ? 256 : 128;
			v[GR_LAUNCH_BY] = 1;
			v[GR_LAUNCH_BZ] = 1;
			v[GR_LAUNCH_SHMEM] = k % 3 ? 0 : 4096;
			v[GR_LAUNCH_STREAM] = STREAM;
			v[GR_LAUNCH_STACK] = 1 + k;
			err = put(w, GR_K_LAUNCH, v, err);
			if (k == 10) { /* preempted for 20 us now and then */
				err = sched(w, ts + 500, PID, 0, HOG, err);
				err = sched(w, ts + 20500, HOG, 0, PID, err);
				ts += 21000;
			}
		}
		ts += 1000;
		c[GR_COPY_TS] = ts;
		c[GR_COPY_DUR] = 40000;
		c[GR_COPY_SRC] = 0x7e0000000000ull;
		c[GR_COPY_DST] = 0x7ffd00000000ull;
		c[GR_COPY_BYTES] = 4;
		c[GR_COPY_CKIND] = GR_COPY_D2H;
		err = put(w, GR_K_COPY, c, err);
		ts += 41000;
		y[GR_SYNC_TS] = ts;
		y[GR_SYNC_DUR] = 30000;
		err = put(w, GR_K_SYNC, y, err);
		/* blocked in the sync: off the CPU and woken */
		err = sched(w, ts + 1000, PID, 1, 0, err);
		err = sched(w, ts + 29000, 0, 0, PID, err);
		ts += 30000;
	}
	for (uint64_t k = 0; k < NKERNELS && !err; k++) {
		char name[64];
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_KERNEL, PID, 0x55550000 + k * 0x40, 0};
		struct gr_bytes b[1];

		snprintf(name, sizeof(name), "kernel_%02" PRIu64 "(float*, float const*, int)", k);
		b[0].data = (const uint8_t *)name;
		b[0].len = (uint32_t)strlen(name);
		err = gr_trace_writer_append(w, GR_K_NAME, v, b);
	}
	for (uint64_t k = 1; k <= 61 && !err; k++) {
		/* the launch site, the training step, main */
		uint8_t fr[24];
		uint64_t f[3] = {0x401000 + k * 0x10, 0x402000 + k * 4, 0x403010};
		uint64_t v[GR_STACK_NCOLS] = {ts, k, PID, 0};
		struct gr_bytes b[1] = {{fr, sizeof(fr)}};

		for (int i = 0; i < 24; i++)
			fr[i] = (uint8_t)(f[i / 8] >> (8 * (i % 8)));
		err = gr_trace_writer_append(w, GR_K_STACK, v, b);
	}
	{
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_LIBRARY, PID, 0, 0};
		struct gr_bytes b[1] = {{(const uint8_t *)"libcudart.so.13", 15}};

		if (!err)
			err = gr_trace_writer_append(w, GR_K_NAME, v, b);
	}
	if (gr_trace_writer_close(w) && !err)
		err = -1;
	return err;
}

static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static uint64_t events_of(const struct gr_model *m)
{
	return gr_model_record_count(m, GR_K_LAUNCH) + gr_model_record_count(m, GR_K_COPY) +
	       gr_model_record_count(m, GR_K_SYNC) + gr_model_record_count(m, GR_K_SCHED);
}

/* What one fresh process measured. */
struct run {
	double load, report; /* seconds */
	uint64_t events;
	long maxrss_kib; /* the child's, from wait4() */
	double cpu;	 /* the child's user + system seconds, from wait4(): on a shared machine
			  * the rate to compare between builds */
};

/* Load @path with @jobs workers (and report on it with @report) in a child process. */
static int measure(const char *path, unsigned jobs, int report, struct run *out)
{
	struct rusage ru;
	int fds[2], status;
	ssize_t got;
	pid_t child;

	memset(out, 0, sizeof(*out));
	if (pipe(fds))
		return -1;
	child = fork();
	if (child == 0) {
		struct gr_model_load_opts o = {.jobs = jobs};
		/* the report's longest sections on as many threads as the load */
		struct gr_report_opts ro = {.jobs = jobs};
		struct gr_model *m = NULL;
		struct gr_report *r = NULL;
		struct run res = {0};
		double t = now();

		close(fds[0]);
		if (gr_model_load_opts(&m, path, &o, NULL))
			_exit(1);
		res.load = now() - t;
		res.events = events_of(m);
		t = now();
		if (report && gr_report_compute(m, &ro, &r))
			_exit(1);
		res.report = now() - t;
		_exit(write(fds[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(fds[1]);
	if (child < 0) {
		close(fds[0]);
		return -1;
	}
	got = read(fds[0], out, sizeof(*out));
	close(fds[0]);
	if (wait4(child, &status, 0, &ru) != child || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    got != sizeof(*out))
		return -1;
	out->maxrss_kib = ru.ru_maxrss;
	out->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = "/tmp/gr_bench_report.trc", *jobs_list = "1,2";
	uint64_t nevents = 10000000, events;
	int runs = 3, keep = 0, existing = 0, opt, status = 0;
	double best = 1e30, t;
	struct gr_diag diag = {0};
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct stat sb;
	pid_t child;

	while ((opt = getopt(argc, argv, "n:r:j:ke")) != -1) {
		switch (opt) {
		case 'n':
			nevents = strtoull(optarg, NULL, 0);
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
		case 'e':
			existing = keep = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n EVENTS] [-r RUNS] [-j JOBS,...] [-k] [-e] [FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		path = argv[optind];

	t = now();
	child = existing ? 0 : fork();
	if (!existing && child == 0)
		_exit(write_trace(path, nevents) ? 1 : 0);
	if (!existing && (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
			  WEXITSTATUS(status))) {
		fprintf(stderr, "bench_report: writing %s failed\n", path);
		return 1;
	}
	t = now() - t;
	if (stat(path, &sb))
		return 1;
	printf("trace: %" PRIu64 " events asked, %.1f MiB, written in %.2f s\n", nevents,
	       (double)sb.st_size / (1 << 20), t);

	/* fresh processes first, while this one is small (a child starts with its RSS) */
	for (const char *j = jobs_list; *j;) {
		unsigned jobs = (unsigned)strtoul(j, NULL, 10);
		struct run best_run = {.load = 1e30}, x;
		double cpu = 1e30;
		long rss = 0;

		for (int i = 0; i < runs; i++) {
			if (measure(path, jobs, 1, &x)) {
				fprintf(stderr, "bench_report: %s: load or report failed\n", path);
				return 1;
			}
			if (x.load + x.report < best_run.load + best_run.report)
				best_run = x;
			rss = x.maxrss_kib > rss ? x.maxrss_kib : rss;
			cpu = x.cpu < cpu ? x.cpu : cpu;
		}
		printf("%u worker%s: load %.3f s (%.1fM events/s), report %.3f s; "
		       "load + report events/s: %.1fM (target >= %s)\n",
		       jobs, jobs == 1 ? " " : "s", best_run.load,
		       (double)best_run.events / best_run.load / 1e6, best_run.report,
		       (double)best_run.events / (best_run.load + best_run.report) / 1e6,
		       jobs == 1   ? "20M on one core"
		       : jobs == 2 ? "35M on two"
				   : "-");
		printf("%u worker%s: load + report CPU time: %.3f s (%.1fM events per CPU second, "
		       "best of %d)\n",
		       jobs, jobs == 1 ? " " : "s", cpu, (double)best_run.events / cpu / 1e6, runs);
		printf("%u worker%s: report peak RSS B/event: %.1f (%.1f MiB; target <= 16)\n",
		       jobs, jobs == 1 ? " " : "s", (double)rss * 1024 / (double)best_run.events,
		       (double)rss / 1024);
		if (measure(path, jobs, 0, &x)) {
			fprintf(stderr, "bench_report: %s: load failed\n", path);
			return 1;
		}
		printf("%u worker%s: load peak RSS B/event: %.1f (%.1f MiB, the model alone)\n",
		       jobs, jobs == 1 ? " " : "s", (double)x.maxrss_kib * 1024 / (double)x.events,
		       (double)x.maxrss_kib / 1024);
		j += strcspn(j, ",");
		j += *j == ',';
	}

	if (gr_model_load(&m, path, &diag)) {
		fprintf(stderr, "bench_report: %s: %s (offset %" PRIu64 ")\n", path, diag.reason,
			diag.offset);
		return 1;
	}
	events = events_of(m);
	printf("trace: %" PRIu64 " events (%" PRIu64 " launches)\n", events,
	       gr_model_record_count(m, GR_K_LAUNCH));
	for (int i = 0; i < runs; i++) {
		t = now();
		if (gr_report_compute(m, NULL, &r)) {
			fprintf(stderr, "bench_report: computing the report failed\n");
			return 1;
		}
		t = now() - t;
		if (t < best)
			best = t;
		if (i == runs - 1)
			printf("check: %" PRIu64 " launches, %" PRIu64
			       " iterations of %u launches, "
			       "%zu fusion candidates, %zu transfer findings, cpu %s\n",
			       r->launches.total, r->launches.iter.count, r->launches.iter.launches,
			       r->fusion.ncandidates, r->transfer.nfindings,
			       r->cpu.verdict.level == GR_VERDICT_PROBLEM ? "starved" : "ok");
		gr_report_free(r);
	}
	printf("report events/s: %.1fM (compute %.3f s, best of %d, one core)\n",
	       (double)events / best / 1e6, best, runs);
	printf("this process peak RSS MiB: %.1f\n", peak_mib());
	gr_model_free(m);
	if (!keep)
		unlink(path);
	return 0;
}
