/* SPDX-License-Identifier: MIT */
/*
 * analyze/export: Chrome trace JSON of synthetic traces, one event per line, exact counts; the
 * JSON writer's fast paths that export runs on (numbers, buffered output) against printf; the
 * SQLite export's batched inserts against one INSERT per row.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyze/export/export.h"
#include "analyze/export/export_tables.h"
#include "analyze/model/load.h"
#include "analyze/model/model.h"
#include "analyze/util/json.h"
#include "synth_gpu.h"
#include "test.h"

static char dir[] = "/tmp/gr_test_export.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

/* Export @m with @o into a string (caller frees); NULL on failure. */
static char *export_str(const struct gr_model *m, const struct gr_export_opts *o,
			struct gr_export_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = gr_export_chrome(m, f, o, st);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Lines of @s that contain every one of the NULL-terminated substrings. */
static uint64_t count_lines(const char *s, ...)
{
	uint64_t n = 0;

	while (s && *s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		char *line = strndup(s, len);
		const char *sub;
		va_list ap;
		int all = 1;

		va_start(ap, s);
		while ((sub = va_arg(ap, const char *)))
			all &= strstr(line, sub) != NULL;
		va_end(ap);
		n += all;
		free(line);
		s = eol ? eol + 1 : s + len;
	}
	return n;
}

static struct gr_model *load_synth(const char *name)
{
	struct gr_model *m = NULL;

	if (synth_write(tmp_path(name), 4096) || gr_model_load(&m, tmp_path(name), NULL))
		return NULL;
	return m;
}

static void test_every_call_once(void)
{
	struct gr_model *m = load_synth("std.trc");
	struct gr_export_stats st;
	char *s;

	CHECK(m != NULL);
	if (!m)
		return;
	s = export_str(m, NULL, &st);
	CHECK(s != NULL);
	CHECK(!strncmp(s, "{\"displayTimeUnit\":\"ns\",\"otherData\":{", 37));
	CHECK(strstr(s, ",\"traceEvents\":[\n{") != NULL);
	/* the events, then the one stack's two frames, outermost first (synth.h: stack 5) */
	CHECK(strstr(s, "\n],\"stackFrames\":{\"1\": {\"name\": \"main (train)\", \"category\": "
			"\"native\"}, \"2\": {\"name\": \"train_step() (train)\", \"category\": "
			"\"native\", \"parent\": \"1\"}}\n}\n") != NULL);
	/* every slice of a call with stack 5: 100 launches, 10 copies */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"sf\": 2,", NULL), 110);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"launch\"", NULL), SYNTH_LAUNCHES);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"copy\"", NULL), 19);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"memset\"", NULL), 2);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"sync\"", NULL), 4);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"alloc\"", NULL), 2);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"free\"", NULL), 1);
	CHECK_EQ_U64(st.api_slices[GR_K_LAUNCH], SYNTH_LAUNCHES);
	CHECK_EQ_U64(st.api_total, SYNTH_LAUNCHES + 19 + 2 + 4 + 2 + 1);
	CHECK_EQ_U64(st.launch_instants, SYNTH_LAUNCHES);
	CHECK_EQ_U64(st.flows, SYNTH_LAUNCHES);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"s\"", NULL), SYNTH_LAUNCHES);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"f\"", "\"bp\": \"e\"", NULL), SYNTH_LAUNCHES);
	/* arguments: the gemm launches (mangled name in the trace, demangled here) */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"name\": \"cudaLaunchKernel\"",
				 "\"kernel\": \"gemm(float const*, float const*, float*, int, int, "
				 "int)\", \"grid\": \"(70000,3,2)\", \"block\": \"(32,4,2)\", "
				 "\"shared_mem\": 128, \"stream\": \"0x1234\"",
				 NULL),
		     401);
	/* launch i = 9 (odd: tid 102; i % 5 == 4: gemm), ts T0 + 10000 ns = 10 us, dur 2009 ns */
	CHECK_EQ_U64(
	    count_lines(s,
			"{\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": "
			"\"launch\", \"pid\": 100, \"tid\": 102, \"ts\": 10, \"dur\": 2.009, "
			"\"args\": {\"kernel\": \"gemm(",
			NULL),
	    1);
	CHECK_EQ_U64(
	    count_lines(s, "\"cat\": \"copy\"", "\"bytes\": 4194304", "\"kind\": \"H2D\"", NULL),
	    12);
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"copy\"", "\"kind\": \"D2H\"", "\"dur\": 10,", NULL),
		     3);
	/* the default copy of 7 B: its addresses are in no allocation, so host to host */
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"copy\"", "\"bytes\": 7,", "\"kind\": \"H2H\"",
				 "\"recorded_kind\": \"default\"", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"recorded_kind\"", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"sync\"", "\"kind\": \"stream\"",
				 "\"stream\": \"0x1234\"", "\"dur\": 0.5,", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"alloc\"", "\"bytes\": 1048576",
				 "\"kind\": \"device\"", "\"addr\": \"0x10000\"", NULL),
		     1);
	/* an unmeasured call says so */
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"memset\"", "\"api_time\": \"not measured\"", NULL),
		     2);
	/* instants on the stream track, named by kernel */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"i\"", "\"name\": \"softmax(float*)\"",
				 "\"cat\": \"kernel\"", "\"pid\": 200", NULL),
		     7);
	/* metadata: both processes, every thread, the stream tracks */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"M\"", "\"name\": \"process_name\"", "\"pid\": 100,",
				 "{\"name\": \"train\"}", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"M\"", "\"name\": \"process_name\"", "\"pid\": 200,",
				 "{\"name\": \"worker\"}", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"thread_name\"", "\"tid\": 102,",
				 "{\"name\": \"loader\"}", NULL),
		     1);
	CHECK_EQ_U64(
	    count_lines(s, "\"name\": \"thread_name\"", "{\"name\": \"stream 0x1234\"}", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"thread_name\"",
				 "{\"name\": \"stream 0 (legacy default)\"}", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"thread_name\"", "\"pid\": 200,",
				 "{\"name\": \"stream 0x9999\"}", NULL),
		     1);
	/* the loss, as a global instant */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"i\"", "\"name\": \"lost 17 events (ringbuf)\"",
				 "\"ts\": 300,", "\"s\": \"g\"", "\"until_us\": 400", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"process\"", "\"name\": \"exit 1\"", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"ph\": ", NULL), st.events);
	{
		struct gr_export_stats est;

		/* the cheap count agrees with what was written, metadata aside */
		CHECK(gr_export_count(m, NULL, &est) == 0);
		CHECK_EQ_U64(est.events, st.events - st.metadata);
		CHECK_EQ_U64(est.api_total, st.api_total);
		CHECK_EQ_U64(est.flows, st.flows);
		CHECK_EQ_U64(est.sched_slices, st.sched_slices);
		CHECK_EQ_U64(est.loss_instants, 1);
		CHECK_EQ_U64(est.proc_instants, st.proc_instants);
	}
	free(s);
	gr_model_free(m);
}

static void test_window_and_pid(void)
{
	struct gr_model *m = load_synth("win.trc");
	struct gr_export_opts o = {.from_ns = 100000, .to_ns = 200000, .has_to = 1};
	static const uint32_t pid200[] = {200};
	struct gr_export_stats st;
	char *s;

	CHECK(m != NULL);
	if (!m)
		return;
	/* launches that overlap [T0 + 100 us, T0 + 200 us]: ts T0 + 1000 (i + 1), dur 2000 + i:
	 * i = 97..199 (97 and 98 start before the window and end in it) */
	s = export_str(m, &o, &st);
	CHECK(s != NULL);
	CHECK_EQ_U64(st.api_slices[GR_K_LAUNCH], 103);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"cat\": \"launch\"", NULL), 103);
	CHECK_EQ_U64(st.api_slices[GR_K_COPY], 0);
	CHECK_EQ_U64(st.loss_instants, 0);
	/* pid 200 was not active in the window: no track named for it */
	CHECK_EQ_U64(count_lines(s, "\"name\": \"process_name\"", "\"pid\": 200,", NULL), 0);
	free(s);

	o = (struct gr_export_opts){.pids = pid200, .npids = 1, .no_flows = 1};
	s = export_str(m, &o, &st);
	CHECK(s != NULL);
	CHECK_EQ_U64(st.api_total, 7);
	{
		struct gr_export_stats est;

		CHECK(gr_export_count(m, &o, &est) == 0);
		CHECK_EQ_U64(est.events, st.events - st.metadata);
	}
	CHECK_EQ_U64(st.flows, 0);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"s\"", NULL), 0);
	CHECK_EQ_U64(count_lines(s, "\"pid\": 100,", NULL), 0);
	CHECK_EQ_U64(st.loss_instants, 1); /* losses are global */
	free(s);
	gr_model_free(m);
}

/* ---- Perfetto: a launch's arguments folded (docs/EXPORT.md) ---- */

/* The InternedString entries of @n bytes at @s whose str (field 2) is exactly @text: the
 * field's tag, its length (a varint), the bytes. */
static uint64_t count_interned(const char *s, size_t n, const char *text)
{
	size_t k = strlen(text), h = 1;
	char needle[512];
	uint64_t count = 0;

	CHECK(k < 400);
	needle[0] = 2 << 3 | 2;
	for (size_t v = k; v >= 0x80; v >>= 7)
		needle[h++] = (char)(v | 0x80);
	needle[h] = (char)(k >> 7 * (h - 1));
	h++;
	memcpy(needle + h, text, k);
	for (const char *p = s; p && (size_t)(p - s) + k + h <= n; p++) {
		p = memmem(p, n - (size_t)(p - s), needle, k + h);
		if (!p)
			break;
		count++;
	}
	return count;
}

#define SCALE_BIAS                                                                                 \
	"kernel: scale_bias(float*, float, int)\ngrid: (70000,3,2)\nblock: (32,4,2)\nshared_mem: " \
	"128\nstream: "                                                                            \
	"0x1234\ncpu: 3"

static void test_perfetto_folded(void)
{
	struct gr_model *m = load_synth("fold.trc");
	struct gr_export_stats st;
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	CHECK(m && f);
	if (!m || !f)
		goto out;
	CHECK(gr_export_perfetto(m, f, NULL, &st) == 0);
	fclose(f);
	f = NULL;
	/* 601 scale_bias launches in pid 100 on two threads (on cpu 3: synth.h), 100 of them with
	 * stack 5: one text each way, interned once */
	CHECK_EQ_U64(count_interned(s, n, SCALE_BIAS), 1);
	CHECK_EQ_U64(
	    count_interned(s, n, SCALE_BIAS "\nstack: main (train)\n  train_step() (train)"), 1);
	/* their instants on the stream: one text per launching thread */
	CHECK_EQ_U64(
	    count_interned(
		s, n,
		"kernel: scale_bias(float*, float, int)\ngrid: (70000,3,2)\nblock: (32,4,2)\n"
		"shared_mem: 128\ntid: 102"),
	    1);
	/* the folded arguments are no annotation names of their own */
	CHECK_EQ_U64(count_interned(s, n, "launch"), 2); /* the category and the annotation */
	CHECK_EQ_U64(count_interned(s, n, "grid"), 0);
	CHECK_EQ_U64(count_interned(s, n, "shared_mem"), 0);
out:
	if (f)
		fclose(f);
	free(s);
	gr_model_free(m);
}

/* ---- GPU rows (--cupti): the trace of synth_gpu.h ---- */

/* The counts of a JSON and a Perfetto export of @m with @o, and of gr_export_count(). */
static void gpu_exports(const struct gr_model *m, const struct gr_export_opts *o,
			struct gr_export_stats *json, struct gr_export_stats *pf,
			struct gr_export_stats *est)
{
	FILE *f = fopen(tmp_path("gpu.pftrace"), "w");
	char *s = export_str(m, o, json);

	CHECK(s != NULL);
	free(s);
	CHECK(f && gr_export_perfetto(m, f, o, pf) == 0);
	if (f)
		fclose(f);
	CHECK(gr_export_count(m, o, est) == 0);
}

static void test_gpu_rows(void)
{
	struct gr_model *m = NULL;
	struct gr_export_stats st, pf, est;
	struct gr_export_opts o = {0};
	static const uint32_t pid200[] = {200};

	CHECK(synth_gpu_write(tmp_path("gpu.trc")) == 0);
	CHECK(gr_model_load(&m, tmp_path("gpu.trc"), NULL) == 0);
	if (!m)
		return;
	gpu_exports(m, &o, &st, &pf, &est);
	CHECK_EQ_U64(st.gpu_slices, SYNTH_GPU_ROWS);
	CHECK_EQ_U64(st.gpu_flows, SYNTH_GPU_TIED);
	CHECK_EQ_U64(st.gpu_untied, SYNTH_GPU_ROWS - SYNTH_GPU_TIED);
	CHECK_EQ_U64(st.flows, SYNTH_GPU_LAUNCHES);
	/* Perfetto: the same slices and flows, none of the flows' own events */
	CHECK_EQ_U64(pf.gpu_slices, SYNTH_GPU_ROWS);
	CHECK_EQ_U64(pf.gpu_flows, SYNTH_GPU_TIED);
	CHECK_EQ_U64(st.events - pf.events,
		     2 * (SYNTH_GPU_LAUNCHES + SYNTH_GPU_TIED) + (st.metadata - pf.metadata));
	/* the estimate counts what the JSON writes, but for the metadata */
	CHECK_EQ_U64(est.gpu_slices, SYNTH_GPU_ROWS);
	CHECK_EQ_U64(est.gpu_flows, SYNTH_GPU_TIED);
	CHECK_EQ_U64(est.events, st.events - st.metadata);
	/* metadata: 2 processes, 3 threads, 3 streams, 3 GPU tracks; a name and a place for each
	 * but the processes */
	CHECK_EQ_U64(pf.metadata, 2 + 3 + 3 + SYNTH_GPU_TRACKS);
	CHECK_EQ_U64(st.metadata, 2 + 2 * (3 + 3 + SYNTH_GPU_TRACKS));

	/* the window [11.5, 14] us holds 3 GPU rows but none of their calls: no flow */
	o = (struct gr_export_opts){.from_ns = 11500, .to_ns = 14000, .has_to = 1};
	gpu_exports(m, &o, &st, &pf, &est);
	CHECK_EQ_U64(st.gpu_slices, 3);
	CHECK_EQ_U64(st.gpu_flows, 0);
	CHECK_EQ_U64(pf.gpu_slices, 3);
	CHECK_EQ_U64(est.events, st.events - st.metadata);

	/* pid 200: its one row, tied, and its one launch */
	o = (struct gr_export_opts){.pids = pid200, .npids = 1};
	gpu_exports(m, &o, &st, &pf, &est);
	CHECK_EQ_U64(st.gpu_slices, 1);
	CHECK_EQ_U64(st.gpu_flows, 1);
	CHECK_EQ_U64(st.flows, 1);

	/* --no-flows: every GPU slice, no flow */
	o = (struct gr_export_opts){.no_flows = 1};
	gpu_exports(m, &o, &st, &pf, &est);
	CHECK_EQ_U64(st.gpu_slices, SYNTH_GPU_ROWS);
	CHECK_EQ_U64(st.gpu_flows + st.flows + pf.gpu_flows + est.gpu_flows, 0);
	CHECK_EQ_U64(st.gpu_untied, SYNTH_GPU_ROWS - SYNTH_GPU_TIED);
	gr_model_free(m);
}

/* ---- graph nodes and calls set aside ---- */

enum { NA = 0xA0, NB = 0xB0, NS = 0x10, NG = 0x900, NX = 0x990 };
#define NODE_REPLAYS 4

static int node_launch(struct gr_trace_writer *w, uint64_t ts, uint64_t func)
{
	static const uint32_t g[3] = {16, 1, 1}, b[3] = {256, 1, 1};

	return synth_launch(w, ts, 100, 101, func, g, b, 0, NS, 0, 700);
}

static int copy_call(struct gr_trace_writer *w, uint64_t ts, unsigned api, uint64_t call,
		     uint64_t status)
{
	uint64_t v[GR_COPY_NCOLS] = {[GR_COPY_TS] = ts,
				     [GR_COPY_DUR] = 300,
				     [GR_COPY_PID] = 100,
				     [GR_COPY_TID] = 101,
				     [GR_COPY_API] = api,
				     [GR_COPY_BYTES] = 4096,
				     [GR_COPY_CKIND] = GR_COPY_H2D,
				     [GR_COPY_STREAM] = NS,
				     [GR_COPY_STATUS] = status,
				     [GR_COPY_CALL] = call};

	return gr_trace_writer_append(w, GR_K_COPY, v, NULL);
}

static int sync_call(struct gr_trace_writer *w, uint64_t ts, uint64_t dur, unsigned api,
		     unsigned kind, uint64_t call)
{
	uint64_t v[GR_SYNC_NCOLS] = {
	    [GR_SYNC_TS] = ts,	   [GR_SYNC_DUR] = dur,	 [GR_SYNC_PID] = 100,
	    [GR_SYNC_TID] = 101,   [GR_SYNC_API] = api,	 [GR_SYNC_SKIND] = kind,
	    [GR_SYNC_HANDLE] = NS, [GR_SYNC_CALL] = call};

	return gr_trace_writer_append(w, GR_K_SYNC, v, NULL);
}

static int graph_row(struct gr_trace_writer *w, uint64_t ts, unsigned kind, uint64_t g,
		     uint64_t exec)
{
	uint64_t v[GR_GRAPH_NCOLS] = {[GR_GRAPH_TS] = ts,
				      [GR_GRAPH_DUR] = 900,
				      [GR_GRAPH_PID] = 100,
				      [GR_GRAPH_TID] = 101,
				      [GR_GRAPH_API] = GR_API_cudaGraphLaunch,
				      [GR_GRAPH_GKIND] = kind,
				      [GR_GRAPH_STREAM] = NS,
				      [GR_GRAPH_GRAPH] = g,
				      [GR_GRAPH_EXEC] = exec};

	return gr_trace_writer_append(w, GR_K_GRAPH, v, NULL);
}

/*
 * Microsecond by microsecond from T0: 3 failed cudaMemcpy (1..3), a nested stream sync (4),
 * one direct launch of "step_a" (5), a capture of step_a, step_b, step_b, a memset and a copy
 * (10..16), its instantiation (17), NODE_REPLAYS graph launches (20..), and a device sync still
 * in flight when the recording stopped (50, 2 us).
 */
static struct gr_model *load_graphs_asides(void)
{
	struct gr_trace_writer *w;
	struct gr_model *m = NULL;
	const uint64_t us = 1000, t = SYNTH_T0, failed = GR_CALL_RETURNED;
	uint64_t ms[GR_MEMSET_NCOLS] = {
	    [GR_MEMSET_TS] = t + 14 * us, [GR_MEMSET_PID] = 100,
	    [GR_MEMSET_TID] = 101,	  [GR_MEMSET_API] = GR_API_cudaMemsetAsync,
	    [GR_MEMSET_BYTES] = 256,	  [GR_MEMSET_STREAM] = NS};
	int err = synth_open(&w, tmp_path("graphs.trc"), 0);

	for (int i = 1; i <= 3; i++)
		err |= copy_call(w, t + i * us, GR_API_cudaMemcpy, failed, 35);
	err |= sync_call(w, t + 4 * us, 100, GR_API_cudaStreamSynchronize, GR_SYNC_STREAM,
			 GR_CALL_RETURNED | 1u << GR_CALL_DEPTH_SHIFT);
	err |= node_launch(w, t + 5 * us, NA);
	err |= graph_row(w, t + 10 * us, GR_GRAPH_BEGIN_CAPTURE, 0, 0);
	err |= node_launch(w, t + 11 * us, NA);
	err |= node_launch(w, t + 12 * us, NB);
	err |= node_launch(w, t + 13 * us, NB);
	err |= gr_trace_writer_append(w, GR_K_MEMSET, ms, NULL);
	err |= copy_call(w, t + 15 * us, GR_API_cudaMemcpyAsync, 0, 0);
	err |= graph_row(w, t + 16 * us, GR_GRAPH_END_CAPTURE, NG, 0);
	err |= graph_row(w, t + 17 * us, GR_GRAPH_INSTANTIATE, NG, NX);
	for (int i = 0; i < NODE_REPLAYS; i++)
		err |= graph_row(w, t + (20 + i) * us, GR_GRAPH_LAUNCH, 0, NX);
	err |= sync_call(w, t + 50 * us, 2 * us, GR_API_cudaDeviceSynchronize, GR_SYNC_DEVICE,
			 GR_CALL_IN_FLIGHT);
	err |= synth_name(w, t + 60 * us, GR_NAME_KERNEL, 100, NA, "step_a");
	err |= synth_name(w, t + 60 * us, GR_NAME_KERNEL, 100, NB, "step_b");
	if (gr_trace_writer_close(w))
		err = -1;
	if (err || gr_model_load(&m, tmp_path("graphs.trc"), NULL))
		return NULL;
	return m;
}

static void test_graph_nodes_and_asides(void)
{
	struct gr_model *m = load_graphs_asides();
	struct gr_export_opts o = {.from_ns = 9000};
	struct gr_export_stats st, cnt;
	char *s;

	CHECK(m != NULL);
	if (!m)
		return;
	s = export_str(m, NULL, &st);
	CHECK(s != NULL);
	/* executed: the one direct launch, with its instant and flow; nodes are neither */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"", "\"name\": \"cudaLaunchKernel\"", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"i\"", "\"cat\": \"kernel\"", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"s\"", NULL), 1);
	CHECK_EQ_U64(st.launch_instants, 1);
	CHECK_EQ_U64(st.flows, 1);
	CHECK_EQ_U64(st.api_slices[GR_K_LAUNCH], 1);
	/* capture-time markers */
	CHECK_EQ_U64(count_lines(s, "\"name\": \"captured: step_a\"", "\"graph_node\": true", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"captured: step_b\"", "\"graph_node\": true", NULL),
		     2);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"captured: cudaMemsetAsync\"", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"captured: cudaMemcpyAsync\"", NULL), 1);
	CHECK_EQ_U64(count_lines(s, "\"graph_node\": true", NULL), 5);
	CHECK_EQ_U64(st.node_slices, 5);
	CHECK_EQ_U64(st.api_slices[GR_K_COPY], 0);
	CHECK_EQ_U64(st.api_slices[GR_K_MEMSET], 0);
	/* each graph launch: what it executed */
	CHECK_EQ_U64(
	    count_lines(s, "\"name\": \"cudaGraphLaunch\"", "\"kind\": \"launch\"",
			"\"kernels\": 3, \"copies\": 1, \"memsets\": 1, \"copy_bytes\": 4096, "
			"\"memset_bytes\": 256, \"host_nodes\": 0, \"event_nodes\": 0, "
			"\"kernel_counts\": {\"step_a\": 1, \"step_b\": 2}",
			NULL),
	    NODE_REPLAYS);
	CHECK_EQ_U64(st.api_slices[GR_K_GRAPH], NODE_REPLAYS + 3);
	/* calls set aside: slices, never launches */
	CHECK_EQ_U64(count_lines(s, "\"ph\": \"X\"",
				 "\"name\": \"cudaMemcpy (failed: cudaErrorInsufficientDriver)\"",
				 "\"cat\": \"copy\"",
				 "\"status\": \"cudaErrorInsufficientDriver\", \"depth\": 0, "
				 "\"in_flight\": false",
				 NULL),
		     3);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"cudaStreamSynchronize\"",
				 "\"status\": \"cudaSuccess\", \"depth\": 1, \"in_flight\": false",
				 NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"cudaDeviceSynchronize (in flight)\"",
				 "\"ts\": 50, \"dur\": 2,",
				 "\"status\": \"unknown\", \"depth\": 0, \"in_flight\": true, "
				 "\"until\": \"when the recording stopped\"",
				 NULL),
		     1);
	CHECK_EQ_U64(st.aside_slices, 5);
	CHECK_EQ_U64(st.api_slices[GR_K_SYNC], 0);
	CHECK_EQ_U64(count_lines(s, "\"in_flight\": ", NULL), 5);
	/* the counting pass agrees */
	CHECK_EQ_U64(gr_export_count(m, NULL, &cnt), 0);
	CHECK_EQ_U64(cnt.node_slices, 5);
	CHECK_EQ_U64(cnt.aside_slices, 5);
	CHECK_EQ_U64(cnt.launch_instants, 1);
	free(s);

	/* the window: from 9 us, the failed copies, the nested sync and the direct launch go */
	s = export_str(m, &o, &st);
	CHECK(s != NULL);
	CHECK_EQ_U64(count_lines(s, "(failed: ", NULL), 0);
	CHECK_EQ_U64(count_lines(s, "\"depth\": 1", NULL), 0);
	CHECK_EQ_U64(st.aside_slices, 1);
	CHECK_EQ_U64(st.node_slices, 5);
	CHECK_EQ_U64(st.launch_instants, 0);
	CHECK_EQ_U64(count_lines(s, "\"kernels\": 3", NULL), NODE_REPLAYS);
	free(s);
	gr_model_free(m);
}

static int sched(struct gr_trace_writer *w, uint64_t ts, unsigned type, uint32_t prev_tid,
		 uint64_t prev_state, uint32_t next_tid)
{
	uint64_t v[GR_SCHED_NCOLS] = {
	    [GR_SCHED_TS] = SYNTH_T0 + ts,
	    [GR_SCHED_CPU] = 2,
	    [GR_SCHED_TYPE] = type,
	    [GR_SCHED_PREV_PID] = prev_tid > 100 && prev_tid < 105 ? 100 : prev_tid,
	    [GR_SCHED_PREV_TID] = prev_tid,
	    [GR_SCHED_PREV_STATE] = prev_state,
	    [GR_SCHED_NEXT_PID] = next_tid > 100 && next_tid < 105 ? 100 : next_tid,
	    [GR_SCHED_NEXT_TID] = next_tid,
	};

	return gr_trace_writer_append(w, GR_K_SCHED, v, NULL);
}

/* Thread 101 of pid 100: states from the switches and wakeups, in us from T0. */
static void test_sched_states(void)
{
	static const uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
	const char *path = tmp_path("sched.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	struct gr_export_stats st;
	int err = 0;
	char *s;

	CHECK(synth_open(&w, path, 0) == 0);
	if (!w)
		return;
	err |= synth_launch(w, SYNTH_T0 + 1000, 100, 101, 0xAAA0, g, b, 0, 0, 0, 0);
	err |= sched(w, 1000, GR_SCHED_WAKEUP, 7, 0, 101); /* state before unknown: not drawn */
	err |= sched(w, 2000, GR_SCHED_SWITCH, 0, 0, 101);
	err |= sched(w, 5000, GR_SCHED_SWITCH, 101, 0, 999); /* preempted by 999 */
	err |= sched(w, 7000, GR_SCHED_SWITCH, 999, 0, 101);
	err |= sched(w, 8000, GR_SCHED_SWITCH, 101, 1, 0); /* sleeps */
	err |= sched(w, 12000, GR_SCHED_WAKEUP, 0, 0, 101);
	err |= sched(w, 12500, GR_SCHED_SWITCH, 0, 0, 101);
	err |= sched(w, 14000, GR_SCHED_SWITCH, 101, 0x80, 0); /* exits */
	err |= synth_name(w, SYNTH_T0 + 20000, GR_NAME_COMM, 999, 999, "hog");
	err |= synth_name(w, SYNTH_T0 + 20000, GR_NAME_COMM, 100, 101, "train");
	CHECK(err == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	s = export_str(m, NULL, &st);
	CHECK(s != NULL);
	CHECK_EQ_U64(st.sched_slices, 7);
#define SCHED_LINE "\"cat\": \"sched\", \"pid\": 100, \"tid\": 4194304, "
	CHECK_EQ_U64(
	    count_lines(s,
			"\"name\": \"runnable\", " SCHED_LINE
			"\"ts\": 1, \"dur\": 1, \"args\": {\"woken_by\": \"tid 7 (pid 7)\"}",
			NULL),
	    1);
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"running\", " SCHED_LINE
				 "\"ts\": 2, \"dur\": 3, \"args\": {\"cpu\": 2}",
				 NULL),
		     1);
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"runnable\", " SCHED_LINE
				 "\"ts\": 5, \"dur\": 2, \"args\": {\"preempted_by\": \"hog 999\"}",
				 NULL),
		     1);
	CHECK_EQ_U64(
	    count_lines(s, "\"name\": \"running\", " SCHED_LINE "\"ts\": 7, \"dur\": 1,", NULL), 1);
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"blocked\", " SCHED_LINE
				 "\"ts\": 8, \"dur\": 4, \"args\": {\"sleep\": \"interruptible "
				 "(S)\"",
				 NULL),
		     1);
	CHECK_EQ_U64(
	    count_lines(s, "\"name\": \"runnable\", " SCHED_LINE "\"ts\": 12, \"dur\": 0.5,", NULL),
	    1);
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"running\", " SCHED_LINE "\"ts\": 12.5, \"dur\": 1.5,",
				 NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"thread_name\"", "\"tid\": 4194304,",
				 "{\"name\": \"train 101 CPU state\"}", NULL),
		     1);
	free(s);

	/* a window cuts the states at its edges */
	{
		struct gr_export_opts o = {.from_ns = 3000, .to_ns = 7500, .has_to = 1};

		s = export_str(m, &o, &st);
		CHECK_EQ_U64(st.sched_slices, 3);
		CHECK_EQ_U64(
		    count_lines(s, "\"name\": \"running\", " SCHED_LINE "\"ts\": 3, \"dur\": 2,",
				NULL),
		    1);
		CHECK_EQ_U64(
		    count_lines(s, "\"name\": \"running\", " SCHED_LINE "\"ts\": 7, \"dur\": 0.5,",
				NULL),
		    1);
		free(s);
	}
	gr_model_free(m);
}

/*
 * The shared timeline's rules where export's own state machine had others: a thread whose first
 * record is a wakeup it issues was running then (export drew nothing before its first switch);
 * a thread switched out dead is gone, and a wakeup after that changes nothing.
 */
static void test_sched_shared_rules(void)
{
	static const uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
	const char *path = tmp_path("rules.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	struct gr_export_stats st;
	int err = 0;
	char *s;

	CHECK(synth_open(&w, path, 0) == 0);
	if (!w)
		return;
	err |= synth_launch(w, SYNTH_T0 + 500, 100, 101, 0xAAA0, g, b, 0, 0, 0, 0);
	err |= synth_launch(w, SYNTH_T0 + 600, 100, 102, 0xAAA0, g, b, 0, 0, 0, 0);
	err |= sched(w, 1000, GR_SCHED_WAKEUP, 102, 0, 101); /* 102's first record */
	err |= sched(w, 1500, GR_SCHED_SWITCH, 0, 0, 101);
	err |= sched(w, 3000, GR_SCHED_SWITCH, 102, 1, 0);
	err |= sched(w, 4000, GR_SCHED_SWITCH, 101, 0x80, 0); /* 101 exits */
	err |= sched(w, 5000, GR_SCHED_WAKEUP, 7, 0, 101);    /* too late: changes nothing */
	err |= synth_name(w, SYNTH_T0 + 20000, GR_NAME_COMM, 100, 101, "train");
	err |= synth_name(w, SYNTH_T0 + 20000, GR_NAME_COMM, 100, 102, "loader");
	CHECK(err == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	s = export_str(m, NULL, &st);
	CHECK(s != NULL);
	CHECK_EQ_U64(st.sched_slices, 4);
	/* tracks by (pid, tid): 101's CPU state is 4194304, 102's 4194305 */
#define RULES_LINE(tid) "\"cat\": \"sched\", \"pid\": 100, \"tid\": " tid ", "
	CHECK_EQ_U64(
	    count_lines(
		s,
		"\"name\": \"runnable\", " RULES_LINE(
		    "4194304") "\"ts\": 1, \"dur\": 0.5, \"args\": {\"woken_by\": \"loader 102\"}",
		NULL),
	    1);
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"running\", " RULES_LINE(
				     "4194304") "\"ts\": 1.5, \"dur\": 2.5, \"args\": {\"cpu\": 2}",
				 NULL),
		     1);
	/* the waker ran from its wakeup, on the wakeup's CPU, until it slept */
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"running\", " RULES_LINE(
				     "4194305") "\"ts\": 1, \"dur\": 2, \"args\": {\"cpu\": 2}",
				 NULL),
		     1);
	CHECK_EQ_U64(
	    count_lines(
		s,
		"\"name\": \"blocked\", " RULES_LINE(
		    "4194305") "\"ts\": 3, \"dur\": 17, \"args\": {\"sleep\": \"interruptible "
			       "(S)\", \"prev_state\": \"0x1\"}",
		NULL),
	    1);
	free(s);
	gr_model_free(m);
}

#define MS 1000000ull

/* A host-to-device copy and a device synchronize of pid 100, at T0 + @ts. */
static int copy_at(struct gr_trace_writer *w, uint64_t ts, uint64_t dur, uint32_t tid)
{
	uint64_t v[GR_COPY_NCOLS] = {
	    [GR_COPY_TS] = SYNTH_T0 + ts,
	    [GR_COPY_DUR] = dur,
	    [GR_COPY_PID] = 100,
	    [GR_COPY_TID] = tid,
	    [GR_COPY_API] = GR_API_cudaMemcpy,
	    [GR_COPY_BYTES] = 4096,
	    [GR_COPY_CKIND] = GR_COPY_H2D,
	};

	return gr_trace_writer_append(w, GR_K_COPY, v, NULL);
}

static int sync_at(struct gr_trace_writer *w, uint64_t ts, uint64_t dur, uint32_t tid)
{
	uint64_t v[GR_SYNC_NCOLS] = {
	    [GR_SYNC_TS] = SYNTH_T0 + ts,
	    [GR_SYNC_DUR] = dur,
	    [GR_SYNC_PID] = 100,
	    [GR_SYNC_TID] = tid,
	    [GR_SYNC_API] = GR_API_cudaDeviceSynchronize,
	    [GR_SYNC_SKIND] = GR_SYNC_DEVICE,
	};

	return gr_trace_writer_append(w, GR_K_SYNC, v, NULL);
}

/*
 * A 5 s trace in small chunks, exported for a 60 ms window from a whole load and from a load of
 * the window alone (what `gpurec export --from --to` does): the same bytes. Pid 100: thread 101
 * launches every ms and cycles every 10 ms through preempted, running, blocked, woken, running;
 * thread 103 launches on its own stream long before the window; in the window, 102 launches on a
 * third stream, wakes from a sleep begun 300 ms before it, and 104 runs once then exits. A copy
 * starts 0.5 ms before the window and ends in it, a sync 500 ms before it and ends in it.
 */
static void test_window_load(void)
{
	static const uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
	const uint64_t from = 2500 * MS + 300000, to = from + 60 * MS;
	const struct gr_export_opts o = {.from_ns = from, .to_ns = to, .has_to = 1};
	const char *path = tmp_path("window.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *whole = NULL, *win = NULL;
	struct gr_model_load_opts lo = {.has_window = 1, .margin_ns = GR_MODEL_MARGIN_NS};
	struct gr_export_stats st, wst;
	uint64_t start = 0, per[4] = {0}, wper[4] = {0};
	size_t n, np;
	char *s = NULL, *ws = NULL;
	int err = 0;

	CHECK(synth_open(&w, path, 4096) == 0);
	if (!w)
		return;
	err |= synth_proc(w, SYNTH_T0 + 10, GR_PROC_START, 100, 100, 1, "");
	for (uint64_t k = 1; k <= 5000; k++)
		err |=
		    synth_launch(w, SYNTH_T0 + k * MS, 100, 101, 0xAAA0, g, b, 0, 0x1234, 0, 2000);
	for (uint64_t j = 0; j < 10; j++)
		err |= synth_launch(w, SYNTH_T0 + 100 * MS + j * 1000, 100, 103, 0xAAA0, g, b, 0,
				    0x5555, 0, 2000);
	for (uint64_t j = 0; j < 5; j++)
		err |= synth_launch(w, SYNTH_T0 + 2500 * MS + 400000 + j * 20000, 100, 102, 0xAAA0,
				    g, b, 0, 0x7777, 0, 1000);
	err |= synth_launch(w, SYNTH_T0 + 2500 * MS, 100, 104, 0xAAA0, g, b, 0, 0x1234, 0, MS);
	err |= copy_at(w, from - 500000, MS, 101);
	err |= sync_at(w, from - 500 * MS, 520 * MS, 102);
	for (uint64_t c = 0; c < 500; c++) {
		uint64_t t = c * 10 * MS + 3 * MS;

		err |= sched(w, t, GR_SCHED_SWITCH, 101, 0, 999);
		err |= sched(w, t + 2 * MS, GR_SCHED_SWITCH, 999, 0, 101);
		err |= sched(w, t + 5 * MS, GR_SCHED_SWITCH, 101, 1, 0);
		err |= sched(w, t + 7 * MS, GR_SCHED_WAKEUP, 0, 0, 101);
		err |= sched(w, t + 8 * MS, GR_SCHED_SWITCH, 0, 0, 101);
	}
	err |= sched(w, from - 300 * MS, GR_SCHED_SWITCH, 102, 2, 0);
	err |= sched(w, from + 50000, GR_SCHED_WAKEUP, 101, 0, 102);
	err |= sched(w, from + 60000, GR_SCHED_SWITCH, 0, 0, 102);
	err |= sched(w, 2500 * MS + 500000, GR_SCHED_SWITCH, 0, 0, 104);
	err |= sched(w, 2501 * MS, GR_SCHED_SWITCH, 104, 0x80, 0);
	err |= sched(w, 2502 * MS, GR_SCHED_WAKEUP, 7, 0, 104);
	err |= synth_name(w, SYNTH_T0 + 5001 * MS, GR_NAME_COMM, 100, 101, "train");
	err |= synth_name(w, SYNTH_T0 + 5001 * MS, GR_NAME_COMM, 100, 102, "loader");
	err |= synth_name(w, SYNTH_T0 + 5001 * MS, GR_NAME_COMM, 100, 104, "short");
	err |= synth_name(w, SYNTH_T0 + 5001 * MS, GR_NAME_COMM, 999, 999, "hog");
	CHECK(err == 0);
	CHECK(gr_trace_writer_close(w) == 0);

	CHECK(gr_load_start("test", path, &start) == 0);
	CHECK_EQ_U64(start, SYNTH_T0);
	lo.from_ts = start + from;
	lo.to_ts = start + to;
	CHECK(gr_model_load(&whole, path, NULL) == 0);
	CHECK(gr_model_load_opts(&win, path, &lo, NULL) == 0);
	if (!whole || !win)
		goto out;
	/* the window's load holds the calls that reach into it: 101's 60, 102's 5, 104's */
	gr_model_launches(whole, &n);
	CHECK_EQ_U64(n, 5016);
	gr_model_launches(win, &n);
	CHECK_EQ_U64(n, 66);
	/* and the scheduler records of the margin and the window: 101's from 1501 ms on */
	gr_model_scheds(whole, &n);
	CHECK_EQ_U64(n, 2506);
	gr_model_scheds(win, &n);
	CHECK_EQ_U64(n, 1 + 105 * 5 + 4 + 3 + 3);
	s = export_str(whole, &o, &st);
	ws = export_str(win, &o, &wst);
	CHECK(s && ws && !strcmp(s, ws));
	CHECK(!memcmp(&st, &wst, sizeof(st)));
	CHECK_EQ_U64(st.api_slices[GR_K_LAUNCH], 66);
	CHECK_EQ_U64(st.api_total, 68);
	CHECK_EQ_U64(st.flows, 66);
	/* 101: 2 + 5 cycles of 5 + 4 in the last one; 102: blocked, runnable, running; 104: 1 */
	CHECK_EQ_U64(st.sched_slices, 35);
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"copy\"", "\"ts\": 2499800, \"dur\": 1000,", NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"cat\": \"sync\"", "\"ts\": 2000300, \"dur\": 520000,", NULL),
		     1);
	/* tracks by (pid, tid), then streams by handle: 103 and its stream are not in the window */
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"blocked\", \"cat\": \"sched\", \"pid\": 100, "
				 "\"tid\": 4194305, \"ts\": 2500300, \"dur\": 50, \"args\": "
				 "{\"sleep\": \"uninterruptible (D)\"",
				 NULL),
		     1);
	CHECK_EQ_U64(count_lines(s,
				 "\"name\": \"running\", \"cat\": \"sched\", \"pid\": 100, "
				 "\"tid\": 4194306, \"ts\": 2500500, \"dur\": 500, ",
				 NULL),
		     1);
	CHECK_EQ_U64(count_lines(s, "\"name\": \"thread_name\"", "\"tid\": 4194308,",
				 "{\"name\": \"stream 0x7777\"}", NULL),
		     1);
	/* the advice's launches per process: those in the window, whatever the load */
	gr_model_processes(whole, &np);
	CHECK(np <= 4);
	CHECK(gr_export_process_launches(whole, &o, per) == 0);
	CHECK(gr_export_process_launches(win, &o, wper) == 0);
	CHECK_EQ_U64(per[0], 66);
	CHECK(!memcmp(per, wper, sizeof(per)));
out:
	free(s);
	free(ws);
	gr_model_free(whole);
	gr_model_free(win);
}

/* Without the header's clock anchor, the recording starts at the earliest chunk's first event. */
static void test_load_start(void)
{
	struct gr_trace_header h = synth_header;
	const char *path = tmp_path("noanchor.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	uint64_t v[GR_LOSS_NCOLS] = {7000, 7100, GR_LOSS_RINGBUF, 1};
	uint64_t start = 1, first = 0, last;
	int fd;

	h.clock_monotonic_ns = 0;
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && gr_trace_writer_open(&w, fd, &h, gr_events_schema(), NULL) == 0);
	if (!w)
		return;
	CHECK(gr_trace_writer_append(w, GR_K_LOSS, v, NULL) == 0);
	CHECK(gr_trace_writer_flush(w) == 0);
	v[0] = 5000;
	CHECK(gr_trace_writer_append(w, GR_K_LOSS, v, NULL) == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_load_start("test", path, &start) == 0);
	CHECK_EQ_U64(start, 5000);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (m)
		gr_model_time_span(m, &first, &last);
	CHECK_EQ_U64(first, start);
	gr_model_free(m);
}

static void test_write_error(void)
{
	struct gr_model *m = load_synth("err.trc");
	FILE *f = fopen("/dev/full", "w");

	CHECK(m != NULL && f != NULL);
	if (m && f)
		CHECK(gr_export_chrome(m, f, NULL, NULL) == -EIO);
	if (f)
		fclose(f);
	gr_model_free(m);
}

/* What gr_json_double() printed before it had a fast path: the reference. */
static void ref_double(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "null");
		return;
	}
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

/* One double through the writer; 1 when it prints as the reference does. */
static int double_ok(double v)
{
	char want[64], *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);
	struct gr_json j;
	int ok;

	if (!f)
		return 0;
	gr_json_begin(&j, f, 0);
	gr_json_double(&j, v);
	gr_json_end(&j);
	fclose(f);
	ref_double(want, sizeof(want) - 1, v);
	strcat(want, "\n");
	ok = got && !strcmp(got, want);
	if (!ok)
		printf("#   double %.17g: got %s want %s", v, got ? got : "(null)", want);
	free(got);
	return ok;
}

static void test_json_doubles(void)
{
	static const double edge[] = {0.0,    -0.0,   0.001,	0.0005,		  1e-5,	    0.1,
				      1.5,    1e12,   1e12 - 1, 999999999999.999, 1e15,	    1e300,
				      -2.125, 5e-324, NAN,	INFINITY,	  -INFINITY};
	uint64_t seed = 1, bad = 0;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		bad += !double_ok(edge[i]);
	/* microseconds from nanoseconds, the export's timestamps, at every magnitude */
	for (uint64_t ns = 0; ns < 200000; ns++)
		bad += !double_ok((double)ns / 1000.0);
	for (int i = 0; i < 200000 && bad < 10; i++) {
		uint64_t bits;
		double v;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		bits = seed >> 1;
		switch (i % 4) {
		case 0: /* ns / 1000 up to 1e18 ns, past the fast path's 1e12 us */
			v = (double)(bits % 1000000000000000000ull >> (i % 40)) / 1000.0;
			break;
		case 1:
			v = -(double)(bits % 1000000000000000ull) / 1000.0;
			break;
		case 2: /* ratios and percentages as report prints them */
			v = (double)(bits % 100000000) / (double)(1 + (seed >> 40) % 9999);
			break;
		default: /* any bit pattern */
			memcpy(&v, &seed, sizeof(v));
			break;
		}
		bad += !double_ok(v);
	}
	CHECK_EQ_U64(bad, 0);
}

/* A few documents of every sort of value, to @j begun by the caller, and raw text between. */
static void json_sample(struct gr_json *j, struct gr_json_buf *b, FILE *f, int doc)
{
	static const char bytes[] = "ab\"\\\n\x01\x7f\xc3\xa9\xff xyz";
	char big[9000];

	/* escapes, valid and invalid UTF-8 */
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = bytes[(i + (size_t)doc) % (sizeof(bytes) - 1)];
	big[sizeof(big) - 1] = 0;
	gr_json_object(j);
	gr_json_kv_str(j, "name", "kernel_00(float*, float const*, int)");
	gr_json_kv_u64(j, "u", UINT64_MAX >> (doc % 64));
	gr_json_kv_i64(j, "i", doc % 2 ? INT64_MIN : -(int64_t)doc);
	gr_json_kv_double(j, "ts", (double)(doc * 1234567) / 1000.0);
	gr_json_kv_bool(j, "b", doc & 1);
	gr_json_key(j, "arr");
	gr_json_array_flat(j);
	gr_json_null(j);
	gr_json_strn(j, big, (size_t)(doc * 997) % sizeof(big));
	gr_json_array_end(j);
	if (doc % 5 == 0)
		gr_json_kv_str(j, "big", big);
	gr_json_object_end(j);
	if (b)
		gr_json_buf_raw(b, ",", 1);
	else
		fputc(',', f);
}

static void test_json_buffered(void)
{
	char *want = NULL, *got = NULL;
	size_t wlen = 0, glen = 0;
	FILE *wf = open_memstream(&want, &wlen), *gf = open_memstream(&got, &glen);
	struct gr_json_buf b = {0};
	struct gr_json j;
	int err = 0;

	CHECK(wf && gf);
	if (!wf || !gf)
		return;
	/* the smallest buffer, so that documents and long strings cross its end */
	CHECK(gr_json_buf_init(&b, gf, 1) == 0);
	for (int doc = 0; doc < 200; doc++) {
		int indent = doc % 3;

		gr_json_begin(&j, wf, indent);
		json_sample(&j, NULL, wf, doc);
		CHECK(gr_json_end(&j) == 0);
		gr_json_begin_buf(&j, &b, indent);
		json_sample(&j, &b, NULL, doc);
		err |= gr_json_end(&j);
	}
	CHECK(err == 0);
	CHECK(gr_json_buf_flush(&b) == 0);
	gr_json_buf_free(&b);
	gr_json_buf_free(NULL);
	fclose(wf);
	fclose(gf);
	CHECK(want && got && wlen > 100000);
	CHECK(wlen == glen && want && got && !memcmp(want, got, wlen));
	free(want);
	free(got);
}

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
	(void)buf;
	++*(uint64_t *)cookie;
	return (ssize_t)n;
}

/* The output goes out in large blocks, never a write per event. */
static void test_few_writes(void)
{
	struct gr_model *m = load_synth("writes.trc");
	cookie_io_functions_t io = {.write = count_write};
	struct gr_export_stats st;
	uint64_t writes = 0;
	FILE *f = fopencookie(&writes, "w", io);

	CHECK(m != NULL && f != NULL);
	if (m && f) {
		CHECK(gr_export_chrome(m, f, NULL, &st) == 0);
		CHECK(st.events > 4000);
		CHECK(writes <= 4);
	}
	if (f)
		fclose(f);
	gr_model_free(m);
}

/* ---- NVTX (format 1.3) ---- */

static int nvtx_row(struct gr_trace_writer *w, uint64_t ts, uint64_t tid, unsigned op,
		    uint64_t domain, uint64_t id, uint64_t color, uint64_t payload,
		    const char *text)
{
	uint64_t v[GR_NVTX_NCOLS] = {
	    [GR_NVTX_TS] = ts,		 [GR_NVTX_PID] = 100,
	    [GR_NVTX_TID] = tid,	 [GR_NVTX_OP] = op,
	    [GR_NVTX_DOMAIN] = domain,	 [GR_NVTX_ID] = id,
	    [GR_NVTX_COLOR] = color,	 [GR_NVTX_PAYLOAD_TYPE] = payload ? 1 : 0,
	    [GR_NVTX_PAYLOAD] = payload,
	};
	struct gr_bytes b[1] = {{(const uint8_t *)text, (uint32_t)strlen(text)}};

	return gr_trace_writer_append(w, GR_K_NVTX, v, b);
}

/* The nvtx_ranges and nvtx_marks rows, as text: "name|tid|end_tid|domain|depth|parent|kind|
 * closed|color|payload" and "name|tid|payload". */
struct nvtx_sink {
	char ranges[8][128], marks[4][64];
	int nranges, nmarks;
};

static int nvtx_table(void *ctx, const struct gr_xtable *t)
{
	return 0;
}

static int nvtx_rows(void *ctx, const struct gr_xtable *t, const struct gr_xval *v)
{
	struct nvtx_sink *k = ctx;

	if (!strcmp(t->name, "nvtx_ranges") && k->nranges < 8)
		snprintf(k->ranges[k->nranges++], 128,
			 "%s|%lld|%lld|%s|%lld|%s%lld|%s|%lld|%llx|%lld|%lld", v[5].s,
			 (long long)v[2].i, (long long)v[3].i, v[4].s, (long long)v[10].i,
			 v[11].null ? "-" : "", v[11].null ? 0LL : (long long)v[11].i, v[12].s,
			 (long long)v[13].i, (long long)v[7].i, (long long)v[15].i,
			 (long long)(v[9].i - v[8].i));
	if (!strcmp(t->name, "nvtx_marks") && k->nmarks < 4)
		snprintf(k->marks[k->nmarks++], 64, "%s|%lld|%lld", v[4].s, (long long)v[2].i,
			 (long long)v[9].i);
	return 0;
}

/*
 * A trace with NVTX rows: on tid 101 "step" (red) holding "fwd", a range "load" of domain "io"
 * started on 101 and ended on 102, a mark with a payload, tid 102 named "loader". The tables
 * hold each range with its thread, ending thread, domain, depth, parent, kind, colour and time;
 * the JSON has the push/pop ranges on the thread, the start/end one on an NVTX track, the mark,
 * and the NVTX thread name on the thread's track.
 */
static void test_nvtx(void)
{
	static const uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	struct nvtx_sink k = {0};
	struct gr_table_sink sink = {&k, nvtx_table, nvtx_rows};
	struct gr_export_stats st;
	uint64_t t = SYNTH_T0 + 1000;
	char *json = NULL;
	int err = 0;

	CHECK(synth_open(&w, tmp_path("nvtx.trc"), 0) == 0);
	if (!w)
		return;
	err |= synth_launch(w, t, 100, 101, 0xA, g, b, 0, 0, 0, 50);
	err |= synth_launch(w, t + 10, 100, 102, 0xA, g, b, 0, 0, 0, 50);
	err |= nvtx_row(w, t + 100, 101, GR_NVTX_NAME_DOMAIN, 0xD0, 0, 0, 0, "io");
	err |= nvtx_row(w, t + 110, 101, GR_NVTX_NAME_THREAD, 0, 102, 0, 0, "loader");
	err |= nvtx_row(w, t + 200, 101, GR_NVTX_PUSH, 0, 0, 0xFFFF0000, 0, "step");
	err |= nvtx_row(w, t + 210, 101, GR_NVTX_PUSH, 0, 1, 0, 0, "fwd");
	err |= nvtx_row(w, t + 220, 101, GR_NVTX_START, 0xD0, 7, 0, 0, "load");
	err |= nvtx_row(w, t + 250, 101, GR_NVTX_MARK, 0, 0, 0, 42, "here");
	err |= nvtx_row(w, t + 300, 101, GR_NVTX_POP, 0, 0, 0, 0, "");
	err |= nvtx_row(w, t + 400, 101, GR_NVTX_POP, 0, 0, 0, 0, "");
	err |= nvtx_row(w, t + 450, 102, GR_NVTX_END, 0xD0, 7, 0, 0, "");
	err |= synth_launch(w, t + 2000, 100, 101, 0xA, g, b, 0, 0, 0, 50);
	if (gr_trace_writer_close(w))
		err = -1;
	CHECK(err == 0);
	if (err || gr_model_load(&m, tmp_path("nvtx.trc"), NULL)) {
		CHECK(!"the NVTX trace loads");
		return;
	}
	CHECK(gr_export_tables(m, "test", &sink, NULL) == 0);
	CHECK_EQ_U64(k.nranges, 3);
	CHECK_STR(k.ranges[0], "step|101|101||0|-0|pushpop|1|ffff0000|0|200");
	CHECK_STR(k.ranges[1], "fwd|101|101||1|1|pushpop|1|0|0|90");
	CHECK_STR(k.ranges[2], "load|101|102|io|0|-0|startend|1|0|0|230");
	CHECK_EQ_U64(k.nmarks, 1);
	CHECK_STR(k.marks[0], "here|101|42");

	json = export_str(m, NULL, &st);
	CHECK(json != NULL);
	CHECK_EQ_U64(st.nvtx_slices, 3);
	CHECK_EQ_U64(st.nvtx_instants, 1);
	if (json) {
		CHECK(strstr(json, "\"name\": \"step\", \"cat\": \"nvtx\", \"pid\": 100, "
				   "\"tid\": 101, \"ts\": 1.2, \"dur\": 0.2"));
		CHECK(strstr(json, "\"name\": \"fwd\", \"cat\": \"nvtx\", \"pid\": 100, "
				   "\"tid\": 101, \"ts\": 1.21, \"dur\": 0.09"));
		/* the start/end range on its process's NVTX track, ended by 102 */
		CHECK(strstr(json, "\"name\": \"load\", \"cat\": \"nvtx\", \"pid\": 100, "
				   "\"tid\": 8388608, \"ts\": 1.22, \"dur\": 0.23, \"args\": "
				   "{\"domain\": \"io\""));
		CHECK(strstr(json, "\"closed\": true, \"end_tid\": 102}"));
		CHECK(strstr(json, "\"tid\": 8388608, \"args\": {\"name\": \"NVTX start/end 0\"}"));
		CHECK(strstr(json, "\"tid\": 102, \"args\": {\"name\": \"loader\"}"));
		CHECK(strstr(json, "\"ph\": \"i\", \"name\": \"here\", \"cat\": \"nvtx_mark\", "
				   "\"pid\": 100, \"tid\": 101"));
		CHECK(strstr(json, "\"color\": \"0xffff0000\""));
	}
	free(json);
	gr_model_free(m);
}

/* The plain way to store the tables, one INSERT per row: the oracle for the batched export. */
struct ref_sink {
	sqlite3 *db;
	sqlite3_stmt *st;
};

static int ref_table(void *ctx, const struct gr_xtable *t)
{
	struct ref_sink *r = ctx;
	char sql[4096];
	int n = snprintf(sql, sizeof(sql), "CREATE TABLE %s (", t->name);

	/* no INTEGER PRIMARY KEY: the rowids are SQLite's own 1..n, which the ids must equal */
	for (unsigned i = 0; i < t->ncols; i++)
		n +=
		    snprintf(sql + n, sizeof(sql) - (size_t)n, "%s\"%s\" %s", i ? ", " : "",
			     t->cols[i].name, t->cols[i].type == GR_XCOL_TEXT ? "TEXT" : "INTEGER");
	snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	n = snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (", t->name);
	for (unsigned i = 0; i < t->ncols; i++)
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, "%s?", i ? ", " : "");
	snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
	sqlite3_finalize(r->st);
	return sqlite3_prepare_v2(r->db, sql, -1, &r->st, NULL) == SQLITE_OK ? 0 : -EIO;
}

static int ref_row(void *ctx, const struct gr_xtable *t, const struct gr_xval *v)
{
	struct ref_sink *r = ctx;

	for (unsigned i = 0; i < t->ncols; i++) {
		if (v[i].null)
			sqlite3_bind_null(r->st, (int)i + 1);
		else if (t->cols[i].type == GR_XCOL_TEXT)
			sqlite3_bind_text(r->st, (int)i + 1, v[i].s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(r->st, (int)i + 1, v[i].i);
	}
	if (sqlite3_step(r->st) != SQLITE_DONE)
		return -EIO;
	return sqlite3_reset(r->st) == SQLITE_OK ? 0 : -EIO;
}

static int64_t sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * The SQLite export of @m against the oracle's: every table must hold exactly the rows, rowids
 * and values a one-row INSERT per row stores. Sets bit 0 of *@seen for a table of more than one
 * batch (32 rows), bit 1 for one that ends in a part batch after full ones.
 */
static void check_sqlite_rows(const struct gr_model *m, const char *name, unsigned *seen)
{
	struct gr_export_table_stats st = {0}, ref_st = {0};
	struct ref_sink ref = {0};
	struct gr_table_sink sink = {.ctx = &ref, .table = ref_table, .row = ref_row};
	const struct gr_xtable *tabs;
	size_t ntabs;
	sqlite3 *db = NULL;
	int64_t written;
	char sql[512], ref_name[64];

	snprintf(ref_name, sizeof(ref_name), "ref_%s", name);
	CHECK(gr_export_sqlite(m, tmp_path(name), "test", &st, NULL) == 0);
	CHECK(sqlite3_open(tmp_path(ref_name), &ref.db) == SQLITE_OK);
	CHECK(sqlite3_exec(ref.db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(gr_export_tables(m, "test", &sink, &ref_st) == 0);
	sqlite3_finalize(ref.st);
	CHECK(sqlite3_exec(ref.db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(ref.db);
	CHECK(sqlite3_open(tmp_path(name), &db) == SQLITE_OK);
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS ref", tmp_path(ref_name));
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK_EQ_U64(st.total, ref_st.total);
	tabs = gr_export_tables_list(&ntabs);
	for (size_t i = 0; i < ntabs; i++) {
		const char *t = tabs[i].name;

		/* a table not written (gpu_activity without GPU rows) is in neither */
		snprintf(sql, sizeof(sql),
			 "SELECT (SELECT count(*) FROM main.sqlite_schema WHERE name = '%s') * 2 + "
			 "(SELECT count(*) FROM ref.sqlite_schema WHERE name = '%s')",
			 t, t);
		written = sql_int(db, sql);
		CHECK(written == 0 || written == 3);
		if (written != 3)
			continue;
		*seen |= (st.rows[i] > 32) | (st.rows[i] > 32 && st.rows[i] % 32) << 1;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM main.%s", t);
		CHECK_EQ_U64((uint64_t)sql_int(db, sql), st.rows[i]);
		/* both ways, rowid included: the same rows, and ids that are the rowids */
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM (SELECT rowid, * FROM main.%s EXCEPT "
			 "SELECT rowid, * FROM ref.%s)",
			 t, t);
		CHECK_EQ_U64((uint64_t)sql_int(db, sql), 0);
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM (SELECT rowid, * FROM ref.%s EXCEPT "
			 "SELECT rowid, * FROM main.%s)",
			 t, t);
		CHECK_EQ_U64((uint64_t)sql_int(db, sql), 0);
	}
	sqlite3_close(db);
}

/*
 * The SQLite export holds rows and inserts them 32 at a time, the rest one by one, dense ids left
 * to SQLite, and a row whose texts do not fit its 64 KiB of held text inserted at once: the
 * standard trace, and one of 70 launches (two batches and 6 rows) of a kernel whose name is
 * 70000 bytes long. A value is bound only when its parameter held another: 100 copies whose
 * API, status, outcome and error (NULL, or a text too long to keep) change at rows that fall on
 * other places of each batch.
 */
static void test_sqlite_rows(void)
{
	struct gr_model *m = load_synth("sq.trc");
	struct gr_trace_writer *w = NULL;
	char *longname = malloc(70001);
	unsigned seen = 0;
	int err;

	CHECK(m != NULL && longname != NULL);
	if (!m || !longname)
		goto out;
	check_sqlite_rows(m, "std.sqlite", &seen);
	gr_model_free(m);
	m = NULL;
	memset(longname, 'k', 70000);
	longname[70000] = 0;
	err = synth_open(&w, tmp_path("sq70.trc"), 0);
	for (int i = 0; i < 70; i++)
		err |= node_launch(w, SYNTH_T0 + (uint64_t)i * 1000, NA);
	err |= synth_name(w, SYNTH_T0 + 80000, GR_NAME_KERNEL, 100, NA, longname);
	if (gr_trace_writer_close(w))
		err = -1;
	CHECK(err == 0 && gr_model_load(&m, tmp_path("sq70.trc"), NULL) == 0);
	if (m)
		check_sqlite_rows(m, "sq70.sqlite", &seen);
	CHECK(seen == 3);
	if (m) {
		/* the name went in whole, by the row-at-once way */
		sqlite3 *db = NULL;

		CHECK(sqlite3_open(tmp_path("sq70.sqlite"), &db) == SQLITE_OK);
		CHECK_EQ_U64((uint64_t)sql_int(db, "SELECT max(length(name)) FROM kernels"), 70000);
		CHECK_EQ_U64((uint64_t)sql_int(db, "SELECT count(*) FROM launches"), 70);
		sqlite3_close(db);
	}
	gr_model_free(m);
	m = NULL;
	err = synth_open(&w, tmp_path("sqcp.trc"), 0);
	for (int i = 0; i < 100; i++) {
		int bad = i % 5 == 2 || i % 11 == 0;

		err |= copy_call(w, SYNTH_T0 + (uint64_t)i * 1000,
				 i % 3 ? GR_API_cudaMemcpy : GR_API_cudaMemcpyAsync,
				 bad ? GR_CALL_RETURNED : 0, bad ? 35 : 0);
	}
	if (gr_trace_writer_close(w))
		err = -1;
	CHECK(err == 0 && gr_model_load(&m, tmp_path("sqcp.trc"), NULL) == 0);
	if (m) {
		static const char bad_sql[] = "SELECT count(*) FROM copies WHERE status = 35 AND "
					      "error IS NOT NULL AND outcome = 'failed'",
				  ok_sql[] = "SELECT count(*) FROM copies WHERE status IS NULL AND "
					     "error IS NULL AND outcome = 'ok'";
		sqlite3 *db = NULL;

		check_sqlite_rows(m, "sqcp.sqlite", &seen);
		CHECK(sqlite3_open(tmp_path("sqcp.sqlite"), &db) == SQLITE_OK);
		/* i % 5 == 2: 20, i % 11 == 0: 10, both: 22, 77 */
		CHECK_EQ_U64((uint64_t)sql_int(db, bad_sql), 28);
		CHECK_EQ_U64((uint64_t)sql_int(db, ok_sql), 72);
		sqlite3_close(db);
	}
out:
	free(longname);
	gr_model_free(m);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_every_call_once);
	RUN_TEST(test_window_and_pid);
	RUN_TEST(test_perfetto_folded);
	RUN_TEST(test_gpu_rows);
	RUN_TEST(test_graph_nodes_and_asides);
	RUN_TEST(test_sched_states);
	RUN_TEST(test_sched_shared_rules);
	RUN_TEST(test_window_load);
	RUN_TEST(test_load_start);
	RUN_TEST(test_write_error);
	RUN_TEST(test_json_doubles);
	RUN_TEST(test_json_buffered);
	RUN_TEST(test_few_writes);
	RUN_TEST(test_nvtx);
	RUN_TEST(test_sqlite_rows);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
