/* SPDX-License-Identifier: MIT */
/*
 * Test helper: writes a trace of a Python program with exactly known call sites, as the recorder
 * writes one for `gpurec record -- python3 train.py` (PYFRAME records, tagged stack frames, the
 * NAME class PYTHON), for the replay tests (tests/e2e/python_sites.sh).
 *
 *   trace_python FILE [LINE]
 *
 * pid 300 (comm "python3"), thread 300, CPython 3.11.2 (/usr/bin/python3.11). Python frames:
 * train.py:LINE step (LINE 42 unless given), train.py:88 main, model.py:7 forward, train.py:95
 * main, train.py:60 read_loss; and one frame value without a PYFRAME ("python:?").
 * - 100 steps, it = 0..99, at T0 + 20000 it: 10 launches from train.py:LINE step <-
 *   launch_scale (libkern.so), 1000 ns apart, kernel scale_bias for the first 7 (700 in all),
 *   gemm for the other 3 (300), dur 2000; then loss.item(): a 4-byte D2H cudaMemcpy (+12000,
 *   dur 5000) and a cudaStreamSynchronize (+17500, dur 1000) from train.py:60 read_loss <-
 *   copy_back (libkern.so).
 * - 300 launches of softmax from model.py:7 forward, whose stack starts in libcudart (a frame
 *   of the runtime itself) then launch_gemm (libkern.so); ts T0 + 3000000 + 1000 i.
 * - 1 launch of softmax from the frame without a PYFRAME, at T0 + 3400000.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/events.h"
#include "format/trace.h"

#define T0  1000000000000ull
#define PID 300

#define KERN   0x7f0000000000ull /* libkern.so */
#define CUDART 0x7f1000000000ull /* libcudart.so.13 */
#define PYEXE  0x400000ull	 /* python3.11 */
#define PY(n)  (GR_FRAME_PYTHON | (n))
#define NOPYF  PY(7) /* a frame value no PYFRAME names */

static const struct gr_trace_header header = {
    .session_id = {0x70, 0x79},
    .host = "testhost",
    .kernel = "6.18.0-test",
    .tool_version = "0.1.0",
    .cmdline = "python3 train.py",
    .clock_monotonic_ns = T0,
    .clock_realtime_ns = 1700000000000000000ull,
};

static struct gr_bytes text(const char *s)
{
	return (struct gr_bytes){(const uint8_t *)s, (uint32_t)strlen(s)};
}

static int name(struct gr_trace_writer *w, unsigned cls, uint64_t key, const char *t)
{
	uint64_t v[GR_NAME_NCOLS] = {T0, cls, PID, key, 0};
	struct gr_bytes b[1] = {text(t)};

	return gr_trace_writer_append(w, GR_K_NAME, v, b);
}

static int mapping(struct gr_trace_writer *w, uint64_t start, const char *path)
{
	uint64_t v[GR_MAP_NCOLS] = {T0, PID, start, start + 0x100000, 0, 0, 0};
	struct gr_bytes b[2] = {text(path), {(const uint8_t *)"", 0}};

	return gr_trace_writer_append(w, GR_K_MAPPING, v, b);
}

static int symbol(struct gr_trace_writer *w, uint64_t addr, const char *n)
{
	uint64_t v[GR_SYM_NCOLS] = {T0, PID, addr, addr & ~0xfffull, 0x1000, 0};
	struct gr_bytes b[2] = {text(n), {(const uint8_t *)"", 0}};

	return gr_trace_writer_append(w, GR_K_SYMBOL, v, b);
}

static int pyframe(struct gr_trace_writer *w, uint64_t key, const char *file, uint64_t line,
		   const char *fn)
{
	uint64_t v[GR_PYF_NCOLS] = {T0, key, PID, 0, line, 0};
	struct gr_bytes b[2] = {text(file), text(fn)};

	return gr_trace_writer_append(w, GR_K_PYFRAME, v, b);
}

static int stack(struct gr_trace_writer *w, uint64_t id, const uint64_t *frames, unsigned n)
{
	uint8_t buf[64];
	uint64_t v[GR_STACK_NCOLS] = {T0, id, PID, 0};
	struct gr_bytes b[1] = {{buf, n * 8}};

	for (unsigned f = 0; f < n; f++)
		for (int i = 0; i < 8; i++)
			buf[f * 8 + i] = (uint8_t)(frames[f] >> (8 * i));
	return gr_trace_writer_append(w, GR_K_STACK, v, b);
}

static int launch(struct gr_trace_writer *w, uint64_t ts, uint64_t func, uint64_t stack_id)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {
	    [GR_LAUNCH_TS] = ts,	  [GR_LAUNCH_DUR] = 2000,
	    [GR_LAUNCH_PID] = PID,	  [GR_LAUNCH_TID] = PID,
	    [GR_LAUNCH_CPU] = 1,	  [GR_LAUNCH_API] = GR_API_cudaLaunchKernel,
	    [GR_LAUNCH_FUNC] = func,	  [GR_LAUNCH_GX] = 64,
	    [GR_LAUNCH_GY] = 1,		  [GR_LAUNCH_GZ] = 1,
	    [GR_LAUNCH_BX] = 256,	  [GR_LAUNCH_BY] = 1,
	    [GR_LAUNCH_BZ] = 1,		  [GR_LAUNCH_STREAM] = 0,
	    [GR_LAUNCH_STACK] = stack_id, [GR_LAUNCH_CALL] = GR_CALL_RETURNED,
	};

	return gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
}

/* loss.item(): a 4-byte D2H copy, then a stream sync, from train.py:60 read_loss */
static int read_back(struct gr_trace_writer *w, uint64_t ts)
{
	uint64_t c[GR_COPY_NCOLS] = {
	    [GR_COPY_TS] = ts,
	    [GR_COPY_DUR] = 5000,
	    [GR_COPY_PID] = PID,
	    [GR_COPY_TID] = PID,
	    [GR_COPY_API] = GR_API_cudaMemcpy,
	    [GR_COPY_DST] = 0x10000,
	    [GR_COPY_SRC] = 0x7e0000000000ull,
	    [GR_COPY_BYTES] = 4,
	    [GR_COPY_CKIND] = GR_COPY_D2H,
	    [GR_COPY_STACK] = 4,
	    [GR_COPY_CALL] = GR_CALL_RETURNED,
	};
	uint64_t s[GR_SYNC_NCOLS] = {
	    [GR_SYNC_TS] = ts + 5500,
	    [GR_SYNC_DUR] = 1000,
	    [GR_SYNC_PID] = PID,
	    [GR_SYNC_TID] = PID,
	    [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
	    [GR_SYNC_SKIND] = GR_SYNC_STREAM,
	    [GR_SYNC_STACK] = 4,
	    [GR_SYNC_CALL] = GR_CALL_RETURNED,
	};

	return gr_trace_writer_append(w, GR_K_COPY, c, NULL) ||
	       gr_trace_writer_append(w, GR_K_SYNC, s, NULL);
}

int main(int argc, char **argv)
{
	const uint64_t step[] = {KERN + 0x1010, PY(1), PY(2), PYEXE + 0x1010};
	const uint64_t forward[] = {CUDART + 0x1234, KERN + 0x2020, PY(3), PY(4), PYEXE + 0x1010};
	const uint64_t unknown[] = {KERN + 0x1010, NOPYF, PYEXE + 0x1010};
	const uint64_t read_loss[] = {KERN + 0x3030, PY(5), PY(2), PYEXE + 0x1010};
	struct gr_trace_writer *w = NULL;
	uint64_t line = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
	int fd, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: trace_python FILE [LINE]\n");
		return 2;
	}
	unlink(argv[1]);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || gr_trace_writer_open(&w, fd, &header, gr_events_schema(), NULL)) {
		perror(argv[1]);
		return 1;
	}
	err |= name(w, GR_NAME_COMM, PID, "python3");
	err |= name(w, GR_NAME_LIBRARY, 0, "/usr/local/cuda/lib64/libcudart.so.13");
	err |= name(w, GR_NAME_PYTHON, 0x030b02f0, "CPython 3.11.2 (/usr/bin/python3.11)");
	err |= name(w, GR_NAME_KERNEL, 0xA0, "scale_bias");
	err |= name(w, GR_NAME_KERNEL, 0xB0, "gemm");
	err |= name(w, GR_NAME_KERNEL, 0xC0, "softmax");
	err |= mapping(w, KERN, "/opt/app/libkern.so");
	err |= mapping(w, CUDART, "/usr/local/cuda/lib64/libcudart.so.13");
	err |= mapping(w, PYEXE, "/usr/bin/python3.11");
	err |= symbol(w, KERN + 0x1010, "launch_scale");
	err |= symbol(w, KERN + 0x2020, "launch_gemm");
	err |= symbol(w, KERN + 0x3030, "copy_back");
	err |= symbol(w, CUDART + 0x1234, "cudart_launch_internal");
	err |= symbol(w, PYEXE + 0x1010, "main");
	err |= pyframe(w, PY(1), "train.py", line, "step");
	err |= pyframe(w, PY(2), "train.py", 88, "main");
	err |= pyframe(w, PY(3), "model.py", 7, "forward");
	err |= pyframe(w, PY(4), "train.py", 95, "main");
	err |= pyframe(w, PY(5), "train.py", 60, "read_loss");
	err |= stack(w, 1, step, 4);
	err |= stack(w, 2, forward, 5);
	err |= stack(w, 3, unknown, 3);
	err |= stack(w, 4, read_loss, 4);
	for (uint64_t it = 0; it < 100; it++) {
		uint64_t t = T0 + 20000 * it;

		for (uint64_t k = 0; k < 10; k++)
			err |= launch(w, t + 1000 * k, k < 7 ? 0xA0 : 0xB0, 1);
		err |= read_back(w, t + 12000);
	}
	for (uint64_t i = 0; i < 300; i++)
		err |= launch(w, T0 + 3000000 + 1000 * i, 0xC0, 2);
	err |= launch(w, T0 + 3400000, 0xC0, 3);
	if (gr_trace_writer_close(w))
		err = 1;
	if (err) {
		fprintf(stderr, "trace_python: %s: could not write\n", argv[1]);
		return 1;
	}
	return 0;
}
