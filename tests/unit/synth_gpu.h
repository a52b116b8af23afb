/* SPDX-License-Identifier: MIT */
/*
 * A synthetic trace with GPU rows (--cupti) whose every time and tie is chosen here, for the
 * export tests (tests/unit/test_export.c, and tests/e2e/export_gpu.sh through
 * tests/tools/synth_gpu.c). Times are ns from SYNTH_T0, the recording start.
 *
 * Host calls (500 ns each unless said):
 * - pid 100, tid 101: launches of a (func 0xA0, "_Z1aPf") at 1000, 2000, 3000 on stream 0x5; an
 *   HtoD copy of 1e6 B at 4000; a memset of 256 B at 5000; a capture of stream 0x7 from 6000
 *   holding a launch of a at 6100 (a graph node: no GPU row), graph 0x10 instantiated as 0x20 at
 *   6300, launched at 7000 (100 ns).
 * - pid 100, tid 102: a launch of b (0xB0, "_Z1bPf") at 1500 on stream 0x6.
 * - pid 200, tid 201: a launch of c (0xC0, "_Z1cv") at 2500 on stream 0x9.
 * GPU rows, in this order (r0..r9; device 0, CUPTI stream 7 unless said):
 *   r0 a [10000, 11000] from the launch at 1000     r5 memset 256 B [25000, 25100] from 5000
 *   r1 a [11000, 12000] from the launch at 2000     r6 a [30000, 31000] graph 77 node 1, from 7000
 *   r2 b [12000, 12500] device 1 stream 8, tid 102  r7 a [31000, 32000] graph 77 node 2, from 7000
 *   r3 a [13000, 14000] from the launch at 3000     r8 a [40000, 41000] no host call known: untied
 *   r4 HtoD 1e6 B [20000, 24000] from the copy      r9 c [15000, 17000] pid 200 (device 0 stream 7)
 * So: 10 GPU slices on 3 tracks ((100, 0, 7), (100, 1, 8), (200, 0, 7)), 9 tied (8 in pid 100),
 * 1 untied; 5 launches that executed (their flows 1..5), the GPU flows 6..14.
 */
#ifndef GR_TEST_SYNTH_GPU_H
#define GR_TEST_SYNTH_GPU_H

#include "synth.h"

#define SYNTH_GPU_ROWS	   10
#define SYNTH_GPU_TIED	   9
#define SYNTH_GPU_TRACKS   3
#define SYNTH_GPU_LAUNCHES 5 /* that executed: one more was a graph node */

static void synth_gpu_launch(struct gr_trace_writer *w, int *err, uint64_t ts, uint32_t pid,
			     uint32_t tid, uint64_t func, uint64_t stream)
{
	const uint32_t grid[3] = {4, 1, 1}, block[3] = {128, 1, 1};

	*err |= synth_launch(w, SYNTH_T0 + ts, pid, tid, func, grid, block, 0, stream, 0, 500);
}

static void synth_gpu_graph(struct gr_trace_writer *w, int *err, uint64_t ts, unsigned kind,
			    unsigned api, uint64_t stream, uint64_t g, uint64_t exec)
{
	uint64_t v[GR_GRAPH_NCOLS] = {
	    [GR_GRAPH_API] = api,	[GR_GRAPH_TS] = SYNTH_T0 + ts, [GR_GRAPH_DUR] = 100,
	    [GR_GRAPH_PID] = 100,	[GR_GRAPH_TID] = 101,	       [GR_GRAPH_GKIND] = kind,
	    [GR_GRAPH_STREAM] = stream, [GR_GRAPH_GRAPH] = g,	       [GR_GRAPH_EXEC] = exec,
	};

	*err |= gr_trace_writer_append(w, GR_K_GRAPH, v, NULL);
}

/* One GPU row; @host_ts 0: no host call known. Correlation ids count from 1 in row order. */
static void synth_gpu_row(struct gr_trace_writer *w, int *err, unsigned kind, uint64_t ts,
			  uint64_t dur, uint32_t pid, uint32_t host_tid, uint64_t host_ts,
			  uint32_t device, uint32_t stream, uint64_t bytes, uint64_t graph,
			  uint64_t node, const char *name)
{
	static uint64_t correlation;
	int k = kind == GR_GPU_KERNEL;
	uint64_t v[GR_GPU_NCOLS] = {
	    [GR_GPU_TS] = SYNTH_T0 + ts,
	    [GR_GPU_DUR] = dur,
	    [GR_GPU_PID] = pid,
	    [GR_GPU_HOST_TID] = host_ts ? host_tid : 0,
	    [GR_GPU_HOST_TS] = host_ts ? SYNTH_T0 + host_ts : 0,
	    [GR_GPU_KIND] = kind,
	    [GR_GPU_DEVICE] = device,
	    [GR_GPU_CONTEXT] = 1,
	    [GR_GPU_STREAM] = stream,
	    [GR_GPU_CORRELATION] = ++correlation,
	    [GR_GPU_GRID_X] = k ? 4 : 0,
	    [GR_GPU_GRID_Y] = k,
	    [GR_GPU_GRID_Z] = k,
	    [GR_GPU_BLOCK_X] = k ? 128 : 0,
	    [GR_GPU_BLOCK_Y] = k,
	    [GR_GPU_BLOCK_Z] = k,
	    [GR_GPU_SHARED] = k ? 64 : 0,
	    [GR_GPU_BYTES] = bytes,
	    [GR_GPU_COPY_KIND] = kind == GR_GPU_MEMCPY ? 1 : 0, /* HtoD */
	    [GR_GPU_GRAPH] = graph,
	    [GR_GPU_GRAPH_NODE] = node,
	};
	struct gr_bytes n[1] = {{(const uint8_t *)name, (uint32_t)strlen(name)}};

	*err |= gr_trace_writer_append(w, GR_K_GPU, v, n);
}

/* Write the trace above to @path. Returns 0 or an error. */
static int synth_gpu_write(const char *path)
{
	struct gr_trace_writer *w = NULL;
	uint64_t copy[GR_COPY_NCOLS] = {[GR_COPY_TS] = SYNTH_T0 + 4000,
					[GR_COPY_DUR] = 500,
					[GR_COPY_PID] = 100,
					[GR_COPY_TID] = 101,
					[GR_COPY_API] = GR_API_cudaMemcpyAsync,
					[GR_COPY_BYTES] = 1000000,
					[GR_COPY_CKIND] = GR_COPY_H2D,
					[GR_COPY_STREAM] = 0x5,
					[GR_COPY_FLAGS] = GR_COPY_F_ASYNC};
	uint64_t ms[GR_MEMSET_NCOLS] = {[GR_MEMSET_TS] = SYNTH_T0 + 5000,
					[GR_MEMSET_DUR] = 500,
					[GR_MEMSET_PID] = 100,
					[GR_MEMSET_TID] = 101,
					[GR_MEMSET_BYTES] = 256,
					[GR_MEMSET_STREAM] = 0x5,
					[GR_MEMSET_API] = GR_API_cudaMemsetAsync};
	int err = synth_open(&w, path, 0);

	if (err)
		return err;
	synth_gpu_launch(w, &err, 1000, 100, 101, 0xA0, 0x5);
	synth_gpu_launch(w, &err, 1500, 100, 102, 0xB0, 0x6);
	synth_gpu_launch(w, &err, 2000, 100, 101, 0xA0, 0x5);
	synth_gpu_launch(w, &err, 2500, 200, 201, 0xC0, 0x9);
	synth_gpu_launch(w, &err, 3000, 100, 101, 0xA0, 0x5);
	err |= gr_trace_writer_append(w, GR_K_COPY, copy, NULL);
	err |= gr_trace_writer_append(w, GR_K_MEMSET, ms, NULL);
	synth_gpu_graph(w, &err, 6000, GR_GRAPH_BEGIN_CAPTURE, GR_API_cudaStreamBeginCapture, 0x7,
			0, 0);
	synth_gpu_launch(w, &err, 6100, 100, 101, 0xA0, 0x7);
	synth_gpu_graph(w, &err, 6200, GR_GRAPH_END_CAPTURE, GR_API_cudaStreamEndCapture, 0x7, 0x10,
			0);
	synth_gpu_graph(w, &err, 6300, GR_GRAPH_INSTANTIATE, GR_API_cudaGraphInstantiate, 0, 0x10,
			0x20);
	synth_gpu_graph(w, &err, 7000, GR_GRAPH_LAUNCH, GR_API_cudaGraphLaunch, 0x7, 0, 0x20);

	synth_gpu_row(w, &err, GR_GPU_KERNEL, 10000, 1000, 100, 101, 1000, 0, 7, 0, 0, 0, "_Z1aPf");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 11000, 1000, 100, 101, 2000, 0, 7, 0, 0, 0, "_Z1aPf");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 12000, 500, 100, 102, 1500, 1, 8, 0, 0, 0, "_Z1bPf");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 13000, 1000, 100, 101, 3000, 0, 7, 0, 0, 0, "_Z1aPf");
	synth_gpu_row(w, &err, GR_GPU_MEMCPY, 20000, 4000, 100, 101, 4000, 0, 7, 1000000, 0, 0, "");
	synth_gpu_row(w, &err, GR_GPU_MEMSET, 25000, 100, 100, 101, 5000, 0, 7, 256, 0, 0, "");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 30000, 1000, 100, 101, 7000, 0, 7, 0, 77, 1,
		      "_Z1aPf");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 31000, 1000, 100, 101, 7000, 0, 7, 0, 77, 2,
		      "_Z1aPf");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 40000, 1000, 100, 101, 0, 0, 7, 0, 0, 0, "_Z1aPf");
	synth_gpu_row(w, &err, GR_GPU_KERNEL, 15000, 2000, 200, 201, 2500, 0, 7, 0, 0, 0, "_Z1cv");

	err |= synth_name(w, SYNTH_T0 + 500, GR_NAME_KERNEL, 100, 0xA0, "_Z1aPf");
	err |= synth_name(w, SYNTH_T0 + 500, GR_NAME_KERNEL, 100, 0xB0, "_Z1bPf");
	err |= synth_name(w, SYNTH_T0 + 500, GR_NAME_KERNEL, 200, 0xC0, "_Z1cv");
	if (gr_trace_writer_close(w))
		err = -1;
	return err;
}

#endif
