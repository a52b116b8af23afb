/* SPDX-License-Identifier: MIT */
/*
 * A synthetic job for `make bench`: NRANKS traces, one per rank as `record -o t.%h.%r.trc` names
 * them, 8 ranks a node (each node's clocks offset differently, as two hosts' are), each rank a
 * training loop of STEPS steps: 20 launches 5 us apart, then a stream sync to the step's end,
 * 2 ms a step; rank STRAGGLER spends 1 ms more host work per step (1.5x). Every rank's loop runs
 * at the same wall-clock time, so all are compared.
 *
 *   build/tests/bench_ranks DIR NRANKS STEPS STRAGGLER
 *
 * Writes DIR/rank.NODE.RANK.trc and prints "events N" (all traces).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/events.h"
#include "format/trace.h"

#define LAUNCHES  20
#define STEP_NS	  2000000ull
#define EXTRA_NS  1000000ull
#define STREAM	  0x7f0000001000ull
#define REALTIME0 1700000000000000000ull

static int put(struct gr_trace_writer *w, uint16_t kind, const uint64_t *v, int err)
{
	return err ? err : gr_trace_writer_append(w, kind, v, NULL);
}

static int text(struct gr_trace_writer *w, uint64_t ts, uint64_t class, uint64_t pid, uint64_t key,
		const char *s, int err)
{
	uint64_t v[GR_NAME_NCOLS] = {ts, class, pid, key, 0};
	struct gr_bytes b[1] = {{(const uint8_t *)s, (uint32_t)strlen(s)}};

	return err ? err : gr_trace_writer_append(w, GR_K_NAME, v, b);
}

/* One rank's trace; returns its events, or 0 on an error. */
static uint64_t write_rank(const char *dir, unsigned rank, unsigned nranks, uint64_t steps,
			   unsigned straggler)
{
	char path[4096], host[32], env[128];
	unsigned node = rank / 8;
	/* each node's monotonic clock started at its own time; the wall clock is shared */
	uint64_t mono0 = 1000000000000ull + node * 7777777ull, pid = 1000 + rank;
	struct gr_trace_header hdr = {
	    .host = host,
	    .kernel = "bench",
	    .tool_version = "bench",
	    .cmdline = "bench_ranks",
	    .env = "",
	    .clock_monotonic_ns = mono0,
	    .clock_realtime_ns = REALTIME0,
	};
	struct gr_trace_writer *w = NULL;
	uint64_t ts = mono0 + 1000000, events = 0, seed = rank + 1;
	int fd, err;

	snprintf(host, sizeof(host), "node%03u", node);
	snprintf(path, sizeof(path), "%s/rank.%s.%03u.trc", dir, host, rank);
	snprintf(env, sizeof(env), "RANK=%u LOCAL_RANK=%u WORLD_SIZE=%u", rank, rank % 8, nranks);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	err = gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL);
	err = text(w, ts, GR_NAME_COMM, pid, pid, "python", err);
	err = text(w, ts, GR_NAME_RANK, pid, pid, env, err);
	err =
	    text(w, ts, GR_NAME_KERNEL, pid, 0x5555, "gemm_kernel(float*, float const*, int)", err);
	err = text(w, ts, GR_NAME_LIBRARY, pid, 0, "libcudart.so.13", err);
	for (uint64_t s = 0; s < steps && !err; s++) {
		uint64_t start = ts, v[GR_LAUNCH_NCOLS] = {0};
		uint64_t y[GR_SYNC_NCOLS] = {[GR_SYNC_PID] = pid,
					     [GR_SYNC_TID] = pid,
					     [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
					     [GR_SYNC_SKIND] = GR_SYNC_STREAM,
					     [GR_SYNC_HANDLE] = STREAM};

		if (rank == straggler)
			ts += EXTRA_NS; /* its host work, before the step's launches */
		for (unsigned k = 0; k < LAUNCHES && !err; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ts += 5000 + (seed >> 56); /* ~5 us apart, jittered */
			v[GR_LAUNCH_TS] = ts;
			v[GR_LAUNCH_PID] = pid;
			v[GR_LAUNCH_TID] = pid;
			v[GR_LAUNCH_API] = GR_API_cudaLaunchKernel;
			v[GR_LAUNCH_FUNC] = 0x5555;
			v[GR_LAUNCH_GX] = 1024;
			v[GR_LAUNCH_GY] = v[GR_LAUNCH_GZ] = 1;
			v[GR_LAUNCH_BX] = 256;
			v[GR_LAUNCH_BY] = v[GR_LAUNCH_BZ] = 1;
			v[GR_LAUNCH_STREAM] = STREAM;
			err = put(w, GR_K_LAUNCH, v, err);
			events++;
		}
		ts += 1000;
		y[GR_SYNC_TS] = ts;
		/* the GPU's work ends a step after the step began (plus the straggler's extra) */
		y[GR_SYNC_DUR] = start + STEP_NS + (rank == straggler ? EXTRA_NS : 0) - ts - 100;
		err = put(w, GR_K_SYNC, y, err);
		events++;
		ts = start + STEP_NS + (rank == straggler ? EXTRA_NS : 0);
	}
	if (gr_trace_writer_close(w) && !err)
		err = -1;
	return err ? 0 : events;
}

int main(int argc, char **argv)
{
	unsigned nranks, straggler;
	uint64_t steps, events = 0, n;

	if (argc != 5) {
		fprintf(stderr, "usage: bench_ranks DIR NRANKS STEPS STRAGGLER\n");
		return 2;
	}
	nranks = (unsigned)atoi(argv[2]);
	steps = strtoull(argv[3], NULL, 10);
	straggler = (unsigned)atoi(argv[4]);
	for (unsigned r = 0; r < nranks; r++) {
		n = write_rank(argv[1], r, nranks, steps, straggler);
		if (!n) {
			fprintf(stderr, "bench_ranks: cannot write rank %u's trace in %s\n", r,
				argv[1]);
			return 1;
		}
		events += n;
	}
	printf("events %" PRIu64 "\n", events);
	return 0;
}
