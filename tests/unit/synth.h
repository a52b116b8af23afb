/* SPDX-License-Identifier: MIT */
/*
 * Synthetic traces with exactly known content, written through the format writer, for the
 * analyze/ tests. synth_write() writes the standard trace described below; the helpers let a test
 * write its own.
 *
 * The standard trace (T0 = 1000 s monotonic):
 * - pid 100 (comm "train", exe /usr/bin/train, ppid 1, wait status 256 = exit 1), threads 101
 * ("train") and 102 ("loader"); pid 200 (comm "worker", ppid 100, exit 0), thread 200.
 * - 1000 launches in pid 100, i = 0..999, ts T0 + 1000 * (i + 1) except every 100th (i % 100 ==
 *   50) written 1500 ns early (out of order); tid 101 for even i, 102 for odd i; stream 0x1234;
 *   grid (70000,3,2) block (32,4,2) shmem 128; func 0xAAA0 (scale_bias, 600: i % 5 < 3) or 0xBBB0
 *   (gemm, mangled name in the NAME record, 400); stack 5 for i % 10 == 0 (100 launches);
 *   dur 2000 + i.
 * - 10 launches of func 0xCCC0 (no name anywhere) grid (1,1,1) block (64,1,1) shmem 0, tid 101.
 * - 5 launches of func 0xDDD0 (only a KERNEL_RAW mangled name: vecAdd), grid (2,1,1) block
 *   (128,1,1) shmem 0, tid 102, stream 0.
 * - 7 launches in pid 200 of func 0xAAA0, named "softmax(float*)" in pid 200, grid (4,1,1) block
 *   (32,1,1) shmem 0, stream 0x9999.
 * - Two launches at the same ts T0 + 5000 + 1 (funcs 0xAAA0 then 0xBBB0): stable order.
 *   (counted in the 1000/600/400 above? no: they are two extra scale_bias + gemm launches)
 * - copies: H2H 1 x 100 B, H2D 12 x 4 MiB, D2H 3 x 1000 B, D2D 2 x 64 B, default 1 x 7 B (its
 *   addresses are in no allocation: the model resolves it to H2H); dur
 *   10000 each; copy i has stack 5 when i is even (10 of the 19).
 * - 2 memsets of 256 B; syncs: 3 device (dur 1000) + 1 stream (dur 500), stack 0; allocs: device
 *   1 MiB, host-pinned 4096 B; 1 free; 5 sched switches.
 * - names after the events, repeated; 1 loss (ringbuf, 17 events, T0 + 300000 .. T0 + 400000);
 *   session: exit status 1, stop 0 (exit), call graph "fp"; 1 library; 1 mapping; 2 symbols;
 *   1 stack.
 */
#ifndef GR_TEST_SYNTH_H
#define GR_TEST_SYNTH_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "format/events.h"
#include "format/trace.h"

#define SYNTH_T0       1000000000000ull
#define SYNTH_LAUNCHES (1000 + 10 + 5 + 7 + 2)

static const struct gr_trace_header synth_header = {
    .session_id = {0xde, 0xad, 0xbe, 0xef},
    .host = "testhost",
    .kernel = "6.18.0-test",
    .tool_version = "0.1.0",
    .cmdline = "./train --steps 10",
    .env = "CUDA_VISIBLE_DEVICES=0\n",
    .clock_monotonic_ns = SYNTH_T0,
    .clock_realtime_ns = 1700000000123456789ull,
};

static int synth_open(struct gr_trace_writer **w, const char *path, uint32_t chunk_bytes)
{
	struct gr_writer_opts opts = {.chunk_raw_bytes = chunk_bytes};
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	return gr_trace_writer_open(w, fd, &synth_header, gr_events_schema(), &opts);
}

static int synth_launch(struct gr_trace_writer *w, uint64_t ts, uint64_t pid, uint64_t tid,
			uint64_t func, const uint32_t grid[3], const uint32_t block[3],
			uint64_t shmem, uint64_t stream, uint64_t stack, uint64_t dur)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {
	    [GR_LAUNCH_TS] = ts,	 [GR_LAUNCH_DUR] = dur,
	    [GR_LAUNCH_PID] = pid,	 [GR_LAUNCH_TID] = tid,
	    [GR_LAUNCH_CPU] = 3,	 [GR_LAUNCH_API] = GR_API_cudaLaunchKernel,
	    [GR_LAUNCH_FUNC] = func,	 [GR_LAUNCH_GX] = grid[0],
	    [GR_LAUNCH_GY] = grid[1],	 [GR_LAUNCH_GZ] = grid[2],
	    [GR_LAUNCH_BX] = block[0],	 [GR_LAUNCH_BY] = block[1],
	    [GR_LAUNCH_BZ] = block[2],	 [GR_LAUNCH_SHMEM] = shmem,
	    [GR_LAUNCH_STREAM] = stream, [GR_LAUNCH_STACK] = stack,
	};

	return gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
}

static int synth_name(struct gr_trace_writer *w, uint64_t ts, unsigned cls, uint64_t pid,
		      uint64_t key, const char *text)
{
	uint64_t v[GR_NAME_NCOLS] = {ts, cls, pid, key, 0};
	struct gr_bytes b[1] = {{(const uint8_t *)text, (uint32_t)strlen(text)}};

	return gr_trace_writer_append(w, GR_K_NAME, v, b);
}

static int synth_proc(struct gr_trace_writer *w, uint64_t ts, unsigned type, uint64_t pid,
		      uint64_t tid, uint64_t value, const char *text)
{
	uint64_t v[GR_PROC_NCOLS] = {ts, type, pid, tid, value, 0};
	struct gr_bytes b[1] = {{(const uint8_t *)text, (uint32_t)strlen(text)}};

	return gr_trace_writer_append(w, GR_K_PROC, v, b);
}

static int synth_session(struct gr_trace_writer *w, uint64_t ts, unsigned key, uint64_t value,
			 const char *text)
{
	uint64_t v[GR_SESS_NCOLS] = {ts, key, value, 0};
	struct gr_bytes b[1] = {{(const uint8_t *)text, (uint32_t)strlen(text)}};

	return gr_trace_writer_append(w, GR_K_SESSION, v, b);
}

/* The standard trace (see the top of this file). Returns 0 or the first error. */
static int synth_write(const char *path, uint32_t chunk_bytes)
{
	static const uint32_t big_grid[3] = {70000, 3, 2}, big_block[3] = {32, 4, 2};
	static const uint32_t g1[3] = {1, 1, 1}, b64[3] = {64, 1, 1};
	static const uint32_t g2[3] = {2, 1, 1}, b128[3] = {128, 1, 1};
	static const uint32_t g4[3] = {4, 1, 1}, b32[3] = {32, 1, 1};
	static const struct {
		unsigned kind, count;
		uint64_t bytes;
	} copies[] = {{GR_COPY_H2H, 1, 100},
		      {GR_COPY_H2D, 12, 4u << 20},
		      {GR_COPY_D2H, 3, 1000},
		      {GR_COPY_D2D, 2, 64},
		      {GR_COPY_DEFAULT, 1, 7}};
	const uint64_t T0 = SYNTH_T0, end = T0 + 2000000;
	struct gr_trace_writer *w = NULL;
	int err = 0, ci = 0;

	if (synth_open(&w, path, chunk_bytes))
		return -1;
	err |= synth_proc(w, T0 + 10, GR_PROC_START, 100, 100, 1, "");
	err |= synth_proc(w, T0 + 20, GR_PROC_EXEC, 100, 100, 0, "/usr/bin/train");
	err |= synth_proc(w, T0 + 30, GR_PROC_THREAD, 100, 102, 0, "");
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t ts = T0 + 1000 * (i + 1) - (i % 100 == 50 ? 1500 : 0);

		err |= synth_launch(w, ts, 100, i % 2 ? 102 : 101, i % 5 < 3 ? 0xAAA0 : 0xBBB0,
				    big_grid, big_block, 128, 0x1234, i % 10 ? 0 : 5, 2000 + i);
	}
	err |= synth_launch(w, T0 + 5001, 100, 101, 0xAAA0, big_grid, big_block, 128, 0x1234, 0, 1);
	err |= synth_launch(w, T0 + 5001, 100, 101, 0xBBB0, big_grid, big_block, 128, 0x1234, 0, 2);
	for (uint64_t i = 0; i < 10; i++)
		err |=
		    synth_launch(w, T0 + 1001000 + i, 100, 101, 0xCCC0, g1, b64, 0, 0x1234, 0, 3);
	for (uint64_t i = 0; i < 5; i++)
		err |= synth_launch(w, T0 + 1002000 + i, 100, 102, 0xDDD0, g2, b128, 0, 0, 0, 3);
	err |= synth_proc(w, T0 + 1003000, GR_PROC_START, 200, 200, 100, "");
	for (uint64_t i = 0; i < 7; i++)
		err |=
		    synth_launch(w, T0 + 1003100 + i, 200, 200, 0xAAA0, g4, b32, 0, 0x9999, 0, 3);
	for (size_t k = 0; k < sizeof(copies) / sizeof(copies[0]); k++) {
		for (unsigned i = 0; i < copies[k].count; i++, ci++) {
			uint64_t v[GR_COPY_NCOLS] = {
			    [GR_COPY_TS] = T0 + 1100000 + ci * 100,
			    [GR_COPY_DUR] = 10000,
			    [GR_COPY_PID] = 100,
			    [GR_COPY_TID] = 101,
			    [GR_COPY_API] = GR_API_cudaMemcpy,
			    [GR_COPY_DST] = 0x7000000 + ci,
			    [GR_COPY_SRC] = 0x8000000 + ci,
			    [GR_COPY_BYTES] = copies[k].bytes,
			    [GR_COPY_CKIND] = copies[k].kind,
			    [GR_COPY_STREAM] = 0,
			    [GR_COPY_STACK] = ci % 2 ? 0 : 5,
			};

			err |= gr_trace_writer_append(w, GR_K_COPY, v, NULL);
		}
	}
	for (int i = 0; i < 2; i++) {
		uint64_t v[GR_MEMSET_NCOLS] = {[GR_MEMSET_TS] = T0 + 1200000 + i,
					       [GR_MEMSET_PID] = 100,
					       [GR_MEMSET_TID] = 101,
					       [GR_MEMSET_BYTES] = 256};

		err |= gr_trace_writer_append(w, GR_K_MEMSET, v, NULL);
	}
	for (int i = 0; i < 4; i++) {
		uint64_t v[GR_SYNC_NCOLS] = {[GR_SYNC_TS] = T0 + 1300000 + i,
					     [GR_SYNC_DUR] = i < 3 ? 1000 : 500,
					     [GR_SYNC_PID] = 100,
					     [GR_SYNC_TID] = 101,
					     [GR_SYNC_SKIND] =
						 i < 3 ? GR_SYNC_DEVICE : GR_SYNC_STREAM,
					     [GR_SYNC_HANDLE] = i < 3 ? 0 : 0x1234};

		err |= gr_trace_writer_append(w, GR_K_SYNC, v, NULL);
	}
	for (int i = 0; i < 2; i++) {
		uint64_t v[GR_ALLOC_NCOLS] = {
		    [GR_ALLOC_TS] = T0 + 500 + i,
		    [GR_ALLOC_PID] = 100,
		    [GR_ALLOC_TID] = 101,
		    [GR_ALLOC_ADDR] = 0x10000 * (i + 1),
		    [GR_ALLOC_BYTES] = i ? 4096 : 1u << 20,
		    [GR_ALLOC_AKIND] = i ? GR_ALLOC_HOST_PINNED : GR_ALLOC_DEVICE,
		};

		err |= gr_trace_writer_append(w, GR_K_ALLOC, v, NULL);
	}
	{
		uint64_t v[GR_FREE_NCOLS] = {[GR_FREE_TS] = T0 + 1400000,
					     [GR_FREE_PID] = 100,
					     [GR_FREE_TID] = 101,
					     [GR_FREE_ADDR] = 0x10000};

		err |= gr_trace_writer_append(w, GR_K_FREE, v, NULL);
	}
	/* preempted, back on its CPU, preempted...: switches out and in that follow each other */
	for (int i = 0; i < 5; i++) {
		uint64_t v[GR_SCHED_NCOLS] = {
		    [GR_SCHED_TS] = T0 + 1500000 + i,	   [GR_SCHED_CPU] = 1,
		    [GR_SCHED_TYPE] = GR_SCHED_SWITCH,	   [GR_SCHED_PREV_PID] = i % 2 ? 0 : 100,
		    [GR_SCHED_PREV_TID] = i % 2 ? 0 : 101, [GR_SCHED_NEXT_PID] = i % 2 ? 100 : 0,
		    [GR_SCHED_NEXT_TID] = i % 2 ? 101 : 0};

		err |= gr_trace_writer_append(w, GR_K_SCHED, v, NULL);
	}
	{
		uint64_t v[GR_LOSS_NCOLS] = {T0 + 300000, T0 + 400000, GR_LOSS_RINGBUF, 17};

		err |= gr_trace_writer_append(w, GR_K_LOSS, v, NULL);
	}
	err |= synth_proc(w, T0 + 1600000, GR_PROC_EXIT, 200, 200, 0, "");
	err |= synth_proc(w, T0 + 1700000, GR_PROC_EXIT, 100, 100, 256, "");

	/* metadata after the events, some of it twice */
	for (int rep = 0; rep < 2; rep++) {
		err |= synth_name(w, end, GR_NAME_KERNEL, 100, 0xAAA0,
				  "scale_bias(float*, float, int)");
		err |= synth_name(w, end, GR_NAME_KERNEL, 100, 0xBBB0, "_Z4gemmPKfS0_Pfiii");
		err |= synth_name(w, end, GR_NAME_KERNEL_RAW, 100, 0xDDD0, "_Z6vecAddPfS_S_i");
		err |= synth_name(w, end, GR_NAME_KERNEL, 200, 0xAAA0, "softmax(float*)");
		err |= synth_name(w, end, GR_NAME_COMM, 100, 101, rep ? "train" : "train-old");
		err |= synth_name(w, end, GR_NAME_COMM, 100, 102, "loader");
		err |= synth_name(w, end, GR_NAME_COMM, 0, 200, "worker");
		err |= synth_name(w, end, GR_NAME_COMM, 100, 100, "train");
		err |= synth_name(w, end, GR_NAME_LIBRARY, 100, 0,
				  "/usr/local/cuda/lib64/libcudart.so.13");
	}
	{
		static const uint8_t bid[4] = {0x12, 0x34, 0x56, 0x78};
		static const char *path_ = "/usr/bin/train";
		uint64_t v[GR_MAP_NCOLS] = {end, 100, 0x400000, 0x500000, 0, 0, 0};
		struct gr_bytes b[2] = {{(const uint8_t *)path_, (uint32_t)strlen(path_)},
					{bid, 4}};

		err |= gr_trace_writer_append(w, GR_K_MAPPING, v, b);
	}
	{
		static const char *n1 = "_Z10train_stepv", *n2 = "main";
		uint64_t v1[GR_SYM_NCOLS] = {end, 100, 0x401010, 0x401000, 0x100, 0};
		uint64_t v2[GR_SYM_NCOLS] = {end, 100, 0x402020, 0x402000, 0x80, 0};
		struct gr_bytes b1[2] = {{(const uint8_t *)n1, (uint32_t)strlen(n1)}, {NULL, 0}};
		struct gr_bytes b2[2] = {{(const uint8_t *)n2, (uint32_t)strlen(n2)}, {NULL, 0}};

		err |= gr_trace_writer_append(w, GR_K_SYMBOL, v1, b1);
		err |= gr_trace_writer_append(w, GR_K_SYMBOL, v2, b2);
	}
	{
		/* frames 0x401010, 0x402020, little-endian */
		static const uint8_t frames[16] = {0x10, 0x10, 0x40, 0, 0, 0, 0, 0,
						   0x20, 0x20, 0x40, 0, 0, 0, 0, 0};
		uint64_t v[GR_STACK_NCOLS] = {end, 5, 100, 0};
		struct gr_bytes b[1] = {{frames, 16}};

		err |= gr_trace_writer_append(w, GR_K_STACK, v, b);
	}
	err |= synth_session(w, end, GR_SESS_EXIT_STATUS, 1, "");
	err |= synth_session(w, end, GR_SESS_STOP, 0, "");
	err |= synth_session(w, end, GR_SESS_CALL_GRAPH, 0, "fp");
	if (gr_trace_writer_close(w))
		err = -1;
	return err ? -1 : 0;
}

#endif
