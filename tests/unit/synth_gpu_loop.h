/* SPDX-License-Identifier: MIT */
/*
 * A synthetic training loop recorded with --cupti, its GPU times chosen by the caller, for the
 * GPU figures of `gpurec diff` (tests/unit/test_gpu.c, and tests/tools/trace_gpu_loop.c for the
 * end-to-end test). Header only, as synth.h.
 *
 * Thread 101 of pid 100, @iters iterations, iteration i starting at S = SYNTH_T0 + 1000 +
 * i * SYNTH_GPU_PERIOD:
 *   host: launch a(float*) (func 0xA0, grid (4,1,1), block (128,1,1)) at S, launch b(float*)
 *         (0xB0, grid (8,1,1), block (128,1,1)) at S + 1000, each 500 ns; a device sync at
 *         S + 2000 that lasts until the GPU is done, 200 + a_ns + b_i ns;
 *   GPU:  a on [S + 2100, S + 2100 + a_ns], b right after it for b_i = b_ns + (i % 2) * 100 ns
 *         (host_ts: its launch's entry); device 0, stream 7.
 * So every iteration keeps the GPU busy a_ns + b_i ns, inside its own sync; a's GPU time over
 * the run is iters * a_ns, median a_ns; b's is iters * b_ns + (iters / 2) * 100, median b_ns
 * (the lower median: half the rows are b_ns). The session says GPU activity was recorded and
 * @dropped records were dropped.
 */
#ifndef GR_TEST_SYNTH_GPU_LOOP_H
#define GR_TEST_SYNTH_GPU_LOOP_H

#include "synth.h"

#define SYNTH_GPU_PERIOD 100000ull
#define SYNTH_GPU_PID	 100
#define SYNTH_GPU_TID	 101

static int synth_gpu_row(struct gr_trace_writer *w, uint64_t ts, uint64_t dur, uint64_t host_ts,
			 uint32_t gx, uint64_t correlation, const char *name)
{
	uint64_t v[GR_GPU_NCOLS] = {
	    [GR_GPU_TS] = ts,
	    [GR_GPU_DUR] = dur,
	    [GR_GPU_PID] = SYNTH_GPU_PID,
	    [GR_GPU_HOST_TID] = SYNTH_GPU_TID,
	    [GR_GPU_HOST_TS] = host_ts,
	    [GR_GPU_KIND] = GR_GPU_KERNEL,
	    [GR_GPU_STREAM] = 7,
	    [GR_GPU_CORRELATION] = correlation,
	    [GR_GPU_GRID_X] = gx,
	    [GR_GPU_GRID_Y] = 1,
	    [GR_GPU_GRID_Z] = 1,
	    [GR_GPU_BLOCK_X] = 128,
	    [GR_GPU_BLOCK_Y] = 1,
	    [GR_GPU_BLOCK_Z] = 1,
	};
	struct gr_bytes n[1] = {{(const uint8_t *)name, (uint32_t)strlen(name)}};

	return gr_trace_writer_append(w, GR_K_GPU, v, n);
}

/* The loop above into a new file @path. Returns 0 or -1. */
static int synth_gpu_loop(const char *path, unsigned iters, uint64_t a_ns, uint64_t b_ns,
			  uint64_t dropped)
{
	static const uint32_t ga[3] = {4, 1, 1}, gb[3] = {8, 1, 1}, blk[3] = {128, 1, 1};
	struct gr_trace_writer *w = NULL;
	uint64_t end = SYNTH_T0;
	int err;

	if (synth_open(&w, path, 0))
		return -1;
	err = synth_name(w, SYNTH_T0 + 10, GR_NAME_KERNEL, SYNTH_GPU_PID, 0xA0, "_Z1aPf");
	err |= synth_name(w, SYNTH_T0 + 10, GR_NAME_KERNEL, SYNTH_GPU_PID, 0xB0, "_Z1bPf");
	for (unsigned i = 0; i < iters; i++) {
		uint64_t s = SYNTH_T0 + 1000 + i * SYNTH_GPU_PERIOD, b_i = b_ns + (i % 2) * 100;
		uint64_t sync[GR_SYNC_NCOLS] = {[GR_SYNC_TS] = s + 2000,
						[GR_SYNC_DUR] = 200 + a_ns + b_i,
						[GR_SYNC_PID] = SYNTH_GPU_PID,
						[GR_SYNC_TID] = SYNTH_GPU_TID,
						[GR_SYNC_SKIND] = GR_SYNC_DEVICE};

		err |=
		    synth_launch(w, s, SYNTH_GPU_PID, SYNTH_GPU_TID, 0xA0, ga, blk, 0, 7, 0, 500);
		err |= synth_launch(w, s + 1000, SYNTH_GPU_PID, SYNTH_GPU_TID, 0xB0, gb, blk, 0, 7,
				    0, 500);
		err |= gr_trace_writer_append(w, GR_K_SYNC, sync, NULL);
		err |= synth_gpu_row(w, s + 2100, a_ns, s, 4, 2 * i + 1, "_Z1aPf");
		err |= synth_gpu_row(w, s + 2100 + a_ns, b_i, s + 1000, 8, 2 * i + 2, "_Z1bPf");
		end = s + 2200 + a_ns + b_i;
	}
	err |= synth_session(w, end, GR_SESS_CUPTI, 1, "1 processes");
	err |= synth_session(w, end, GR_SESS_CUPTI_DROPPED, dropped,
			     dropped ? "dropped by CUPTI" : "");
	if (gr_trace_writer_close(w))
		err = -1;
	return err ? -1 : 0;
}

#endif
