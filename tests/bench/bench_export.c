/* SPDX-License-Identifier: MIT */
/*
 * Export speed: writes a training-loop trace through the format writer (per step: 40 kernel
 * launches, timed but every eighth step not, an async H2D copy, a D2H read, a stream sync, and
 * the launching thread preempted, given the CPU back, blocked in the sync and woken), loads it
 * once, then times gr_export_chrome() alone into a JSON file, on one core.
 *
 *   build/tests/bench_export [-n LAUNCHES] [-r RUNS] [-o OUT] [-k] [-e] [-p] [-s] [FILE]
 *
 * -s times gr_export_sqlite() instead (the SQLite database, a new file each run; events are the
 * rows of the event tables, as `gpurec export --format sqlite` counts them).
 * -p times gr_export_perfetto() instead (Perfetto's protobuf trace) and says the bytes per
 * launch and per JSON event of what it wrote, for comparing the two forms' sizes.
 *
 * Prints "export trace events/s: X" (trace events written, metadata included, over the best
 * write time: formatting and the write into the page cache), the same over the best CPU time
 * (user + system: what decides on a loaded machine) and the load time apart. Default
 * 500k launches (about 2M trace events, 400 MB of JSON), best of 3 runs, FILE
 * /tmp/gr_bench_export.trc and OUT /tmp/gr_bench_export.json, both removed at the end unless -k;
 * -e exports an existing FILE instead of writing one. Only the files the bench made itself are
 * removed: never FILE with -e, never an OUT given with -o (which may be /dev/null).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/export/export.h"
#include "analyze/export/export_tables.h"
#include "analyze/model/model.h"
#include "format/events.h"
#include "format/trace.h"

#define NKERNELS 40
#define PID	 4242
#define HOG	 5000
#define STREAM	 0x7f0000001000ull
#define PINNED	 0x7f5000000000ull

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This process's CPU time (user + system): what the export costs on a loaded machine. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int put(struct gr_trace_writer *w, uint16_t kind, const uint64_t *v, int err)
{
	return err ? err : gr_trace_writer_append(w, kind, v, NULL);
}

static int sched(struct gr_trace_writer *w, uint64_t ts, unsigned type, uint32_t prev,
		 uint64_t state, uint32_t next, int err)
{
	uint64_t v[GR_SCHED_NCOLS] = {
	    [GR_SCHED_TS] = ts,		[GR_SCHED_CPU] = 1,	    [GR_SCHED_TYPE] = type,
	    [GR_SCHED_PREV_PID] = prev, [GR_SCHED_PREV_TID] = prev, [GR_SCHED_PREV_STATE] = state,
	    [GR_SCHED_NEXT_PID] = next, [GR_SCHED_NEXT_TID] = next};

	return put(w, GR_K_SCHED, v, err);
}

static int copy(struct gr_trace_writer *w, uint64_t ts, uint64_t dur, unsigned kind, uint64_t bytes,
		int err)
{
	uint64_t c[GR_COPY_NCOLS] = {
	    [GR_COPY_TS] = ts,
	    [GR_COPY_DUR] = dur,
	    [GR_COPY_PID] = PID,
	    [GR_COPY_TID] = PID,
	    [GR_COPY_API] = GR_API_cudaMemcpyAsync,
	    [GR_COPY_DST] = kind == GR_COPY_H2D ? 0x7e0000000000ull : PINNED,
	    [GR_COPY_SRC] = kind == GR_COPY_H2D ? PINNED : 0x7e0000000000ull,
	    [GR_COPY_BYTES] = bytes,
	    [GR_COPY_CKIND] = kind,
	    [GR_COPY_STREAM] = STREAM,
	    [GR_COPY_FLAGS] = GR_COPY_F_ASYNC,
	    [GR_COPY_STACK] = 60};

	return put(w, GR_K_COPY, c, err);
}

static int write_trace(const char *path, uint64_t nlaunch)
{
	static const struct gr_trace_header hdr = {
	    .host = "bench",
	    .kernel = "bench",
	    .tool_version = "bench",
	    .cmdline = "bench_export",
	    .env = "",
	    .clock_monotonic_ns = 1000000000000ull,
	    .clock_realtime_ns = 1700000000000000000ull,
	};
	struct gr_trace_writer *w = NULL;
	uint64_t ts = hdr.clock_monotonic_ns + 1000, seed = 42, steps = nlaunch / NKERNELS;
	int fd, err;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	err = gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL);
	for (uint64_t s = 0; s < steps && !err; s++) {
		uint64_t y[GR_SYNC_NCOLS] = {[GR_SYNC_PID] = PID,
					     [GR_SYNC_TID] = PID,
					     [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
					     [GR_SYNC_SKIND] = GR_SYNC_STREAM,
					     [GR_SYNC_HANDLE] = STREAM,
					     [GR_SYNC_STACK] = 61};

		ts += 2000;
		err = copy(w, ts, 2500, GR_COPY_H2D, 1 << 20, err);
		for (uint64_t k = 0; k < NKERNELS && !err; k++) {
			uint64_t v[GR_LAUNCH_NCOLS] = {0};

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ts += 3000 + (seed >> 54); /* ~3-4 us apart, jittered */
			v[GR_LAUNCH_TS] = ts;
			v[GR_LAUNCH_DUR] = s % 8 == 7 ? 0 : 2000 + (seed >> 56);
			v[GR_LAUNCH_PID] = PID;
			v[GR_LAUNCH_TID] = PID;
			v[GR_LAUNCH_CPU] = 1;
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
			if (k == 10) { /* preempted for 20 us */
				err = sched(w, ts + 2500, GR_SCHED_SWITCH, PID, 0, HOG, err);
				err = sched(w, ts + 22500, GR_SCHED_SWITCH, HOG, 0, PID, err);
				ts += 23000;
			}
		}
		ts += 1000;
		err = copy(w, ts, 40000, GR_COPY_D2H, 4, err);
		ts += 41000;
		y[GR_SYNC_TS] = ts;
		y[GR_SYNC_DUR] = 30000;
		err = put(w, GR_K_SYNC, y, err);
		/* blocked in the sync, woken by the idle task, back on the CPU */
		err = sched(w, ts + 1000, GR_SCHED_SWITCH, PID, 1, 0, err);
		err = sched(w, ts + 28000, GR_SCHED_WAKEUP, 0, 0, PID, err);
		err = sched(w, ts + 29000, GR_SCHED_SWITCH, 0, 0, PID, err);
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
	if (gr_trace_writer_close(w) && !err)
		err = -1;
	return err;
}

int main(int argc, char **argv)
{
	const char *path = "/tmp/gr_bench_export.trc", *out = "/tmp/gr_bench_export.json";
	uint64_t nlaunch = 500000;
	int runs = 3, keep = 0, existing = 0, own_out = 1, opt, status = 0, ret = 1, perfetto = 0;
	int sqlite = 0;
	double best = 1e30, best_cpu = 1e30, load, t, c;
	struct gr_diag diag = {0};
	struct gr_model *m = NULL;
	struct gr_export_stats st = {0};
	struct gr_export_table_stats tst = {0};
	struct stat sb;
	pid_t child;

	while ((opt = getopt(argc, argv, "n:r:o:keps")) != -1) {
		switch (opt) {
		case 'n':
			nlaunch = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			runs = atoi(optarg) > 0 ? atoi(optarg) : 1;
			break;
		case 'o':
			out = optarg;
			own_out = 0;
			break;
		case 'k':
			keep = 1;
			break;
		case 'e':
			existing = 1;
			break;
		case 'p':
			perfetto = 1;
			break;
		case 's':
			sqlite = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n LAUNCHES] [-r RUNS] [-o OUT] [-k] [-e] [-p] [-s] "
				"[FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		path = argv[optind];

	child = existing ? 0 : fork();
	if (!existing && child == 0)
		_exit(write_trace(path, nlaunch) ? 1 : 0);
	if (!existing && (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
			  WEXITSTATUS(status))) {
		fprintf(stderr, "bench_export: writing %s failed\n", path);
		return 1;
	}

	load = now();
	if (gr_model_load(&m, path, &diag)) {
		fprintf(stderr, "bench_export: %s: %s (offset %" PRIu64 ")\n", path, diag.reason,
			diag.offset);
		goto out;
	}
	load = now() - load;
	if (sqlite && own_out)
		out = "/tmp/gr_bench_export.sqlite";
	for (int i = 0; i < runs; i++) {
		FILE *f = sqlite ? NULL : fopen(out, "w");
		int err;

		if (!sqlite && !f) {
			fprintf(stderr, "bench_export: cannot write %s\n", out);
			goto out;
		}
		t = now();
		c = cpu_now();
		if (sqlite)
			err = gr_export_sqlite(m, out, "bench", &tst, NULL);
		else
			err = perfetto ? gr_export_perfetto(m, f, NULL, &st)
				       : gr_export_chrome(m, f, NULL, &st);
		t = now() - t;
		c = cpu_now() - c;
		if ((f && fclose(f)) || err) {
			fprintf(stderr, "bench_export: exporting to %s failed\n", out);
			goto out;
		}
		if (t < best)
			best = t;
		if (c < best_cpu)
			best_cpu = c;
	}
	if (stat(out, &sb))
		goto out;
	if (sqlite) {
		printf("export sqlite events/s: %.2fM (%" PRIu64 " events, %" PRIu64
		       " rows, %.0f MB "
		       "in %.3f s, best of %d; target >= 2M)\n",
		       (double)tst.events / best / 1e6, tst.events, tst.total,
		       (double)sb.st_size / 1e6, best, runs);
		printf("export sqlite events per CPU second: %.2fM (%.3f s of CPU, best of %d)\n",
		       (double)tst.events / best_cpu / 1e6, best_cpu, runs);
		printf("export load: %.3f s\n", load);
		ret = 0;
		goto out;
	}
	printf("export trace events/s: %.2fM (%" PRIu64 " events, %.0f MB of %s in %.3f s, "
	       "best of %d; target >= 2M)\n",
	       (double)st.events / best / 1e6, st.events, (double)sb.st_size / 1e6,
	       perfetto ? "Perfetto protobuf" : "JSON", best, runs);
	printf("export trace events per CPU second: %.2fM (%.3f s of CPU, best of %d)\n",
	       (double)st.events / best_cpu / 1e6, best_cpu, runs);
	printf("export bytes: %.1f per event, %.1f per launch\n",
	       (double)sb.st_size / (double)(st.events ? st.events : 1),
	       (double)sb.st_size /
		   (double)(st.api_slices[GR_K_LAUNCH] ? st.api_slices[GR_K_LAUNCH] : 1));
	printf("export load: %.3f s for %" PRIu64 " launches (not in the figure above)\n", load,
	       gr_model_record_count(m, GR_K_LAUNCH));
	ret = 0;
out:
	gr_model_free(m);
	if (!keep && !existing)
		unlink(path);
	if (!keep && own_out)
		unlink(out);
	return ret;
}
