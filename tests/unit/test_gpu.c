/* SPDX-License-Identifier: MIT */
/*
 * analyze/gpu: GPU rows (--cupti) in the model and every figure computed from them, on a
 * synthetic trace whose GPU times are chosen here: ties to the probed calls, busy share and idle
 * gaps, kernel durations per name and per configuration, copy bandwidth, and the probes' kernel
 * counts against the GPU's (a mismatch either way, a graph launch's node).
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/diff/diff.h"
#include "analyze/figures/gpu.h"
#include "analyze/figures/graphs.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "synth.h"
#include "synth_gpu_loop.h"
#include "test.h"

#define T0  SYNTH_T0
#define PID 100
#define TID 101

static char dir[] = "/tmp/gr_test_gpu.XXXXXX";

struct tb {
	struct gr_trace_writer *w;
	char path[256];
	int err;
};

static void launch(struct tb *b, uint64_t ts, uint64_t func, uint32_t gx, uint64_t stream,
		   uint64_t dur)
{
	const uint32_t grid[3] = {gx, 1, 1}, block[3] = {128, 1, 1};

	b->err |= synth_launch(b->w, ts, PID, TID, func, grid, block, 0, stream, 0, dur);
}

static void graph(struct tb *b, uint64_t ts, unsigned kind, uint64_t stream, uint64_t g,
		  uint64_t exec)
{
	uint64_t v[GR_GRAPH_NCOLS] = {
	    [GR_GRAPH_TS] = ts,	  [GR_GRAPH_DUR] = 100,	   [GR_GRAPH_PID] = PID,
	    [GR_GRAPH_TID] = TID, [GR_GRAPH_GKIND] = kind, [GR_GRAPH_STREAM] = stream,
	    [GR_GRAPH_GRAPH] = g, [GR_GRAPH_EXEC] = exec,
	};

	b->err |= gr_trace_writer_append(b->w, GR_K_GRAPH, v, NULL);
}

/* A GPU row of device 0, stream 7; @name: the mangled kernel name ("" for copies, memsets). */
static void gpu(struct tb *b, unsigned kind, uint64_t ts, uint64_t dur, uint64_t host_ts,
		uint32_t gx, uint64_t bytes, unsigned copy_kind, uint64_t graph, const char *name)
{
	static uint64_t correlation;
	uint64_t v[GR_GPU_NCOLS] = {
	    [GR_GPU_TS] = ts,
	    [GR_GPU_DUR] = dur,
	    [GR_GPU_PID] = PID,
	    [GR_GPU_HOST_TID] = TID,
	    [GR_GPU_HOST_TS] = host_ts,
	    [GR_GPU_KIND] = kind,
	    [GR_GPU_STREAM] = 7,
	    [GR_GPU_CORRELATION] = ++correlation,
	    [GR_GPU_GRID_X] = kind == GR_GPU_KERNEL ? gx : 0,
	    [GR_GPU_GRID_Y] = kind == GR_GPU_KERNEL,
	    [GR_GPU_GRID_Z] = kind == GR_GPU_KERNEL,
	    [GR_GPU_BLOCK_X] = kind == GR_GPU_KERNEL ? 128 : 0,
	    [GR_GPU_BLOCK_Y] = kind == GR_GPU_KERNEL,
	    [GR_GPU_BLOCK_Z] = kind == GR_GPU_KERNEL,
	    [GR_GPU_BYTES] = bytes,
	    [GR_GPU_COPY_KIND] = copy_kind,
	    [GR_GPU_GRAPH] = graph,
	    [GR_GPU_GRAPH_NODE] = graph ? 1 : 0,
	};
	struct gr_bytes n[1] = {{(const uint8_t *)name, (uint32_t)strlen(name)}};

	b->err |= gr_trace_writer_append(b->w, GR_K_GPU, v, n);
}

/*
 * The scenario, thread 101 of pid 100 (times from T0, ns):
 *   host: launch a at 1000 and 2000 (grid 4), b at 3000 and 3600 (grid 8), each 500 long; an
 *   HtoD copy at 4000 and a memset at 5000; a capture of stream 0x7 from 6000 holding a launch
 *   of a at 6100 (a node), graph 0x10 instantiated as 0x20, launched at 7000.
 *   GPU: a [10000, 11000] (host_ts 1000: exact), a [11000, 14000] (host_ts 2007: 7 ns after
 *   its call's entry), b [20000, 22000] (b's second launch never ran on the GPU), the copy
 *   [22000, 122000] of 1e6 B, the memset [122000, 123000] of 256 B, the graph's node a (grid
 *   2) [130000, 131000], and c [140000, 141000] whose call the probes never saw (host_ts 8000,
 *   after every kernel launch of the thread returned).
 */
static struct gr_model *scenario(void)
{
	struct tb b = {0};
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	uint64_t v[GR_COPY_NCOLS] = {[GR_COPY_TS] = T0 + 4000,
				     [GR_COPY_DUR] = 500,
				     [GR_COPY_PID] = PID,
				     [GR_COPY_TID] = TID,
				     [GR_COPY_API] = GR_API_cudaMemcpyAsync,
				     [GR_COPY_BYTES] = 1000000,
				     [GR_COPY_CKIND] = GR_COPY_H2D,
				     [GR_COPY_STREAM] = 0x5,
				     [GR_COPY_FLAGS] = GR_COPY_F_ASYNC};
	uint64_t ms[GR_MEMSET_NCOLS] = {
	    [GR_MEMSET_TS] = T0 + 5000, [GR_MEMSET_DUR] = 500,	 [GR_MEMSET_PID] = PID,
	    [GR_MEMSET_TID] = TID,	[GR_MEMSET_BYTES] = 256, [GR_MEMSET_STREAM] = 0x5};

	snprintf(b.path, sizeof(b.path), "%s/scenario.trc", dir);
	b.err = synth_open(&b.w, b.path, 0);
	if (b.err)
		return NULL;
	launch(&b, T0 + 1000, 0xA0, 4, 0x5, 500);
	launch(&b, T0 + 2000, 0xA0, 4, 0x5, 500);
	launch(&b, T0 + 3000, 0xB0, 8, 0x5, 500);
	launch(&b, T0 + 3600, 0xB0, 8, 0x5, 500);
	b.err |= gr_trace_writer_append(b.w, GR_K_COPY, v, NULL);
	b.err |= gr_trace_writer_append(b.w, GR_K_MEMSET, ms, NULL);
	graph(&b, T0 + 6000, GR_GRAPH_BEGIN_CAPTURE, 0x7, 0, 0);
	launch(&b, T0 + 6100, 0xA0, 2, 0x7, 500);
	graph(&b, T0 + 6200, GR_GRAPH_END_CAPTURE, 0x7, 0x10, 0);
	graph(&b, T0 + 6300, GR_GRAPH_INSTANTIATE, 0, 0x10, 0x20);
	graph(&b, T0 + 7000, GR_GRAPH_LAUNCH, 0x7, 0, 0x20);

	gpu(&b, GR_GPU_KERNEL, T0 + 10000, 1000, T0 + 1000, 4, 0, 0, 0, "_Z1aPf");
	gpu(&b, GR_GPU_KERNEL, T0 + 11000, 3000, T0 + 2007, 4, 0, 0, 0, "_Z1aPf");
	gpu(&b, GR_GPU_KERNEL, T0 + 20000, 2000, T0 + 3000, 8, 0, 0, 0, "_Z1bPf");
	gpu(&b, GR_GPU_MEMCPY, T0 + 22000, 100000, T0 + 4000, 0, 1000000, 1, 0, "");
	gpu(&b, GR_GPU_MEMSET, T0 + 122000, 1000, T0 + 5000, 0, 256, 0, 0, "");
	gpu(&b, GR_GPU_KERNEL, T0 + 130000, 1000, T0 + 7000, 2, 0, 0, 77, "_Z1aPf");
	gpu(&b, GR_GPU_KERNEL, T0 + 140000, 1000, T0 + 8000, 1, 0, 0, 0, "_Z1cv");

	b.err |= synth_name(b.w, T0 + 500, GR_NAME_KERNEL, PID, 0xA0, "_Z1aPf");
	b.err |= synth_name(b.w, T0 + 500, GR_NAME_KERNEL, PID, 0xB0, "_Z1bPf");
	if (gr_trace_writer_close(b.w))
		b.err = -1;
	CHECK(b.err == 0);
	CHECK(gr_model_load(&m, b.path, &diag) == 0);
	if (!m)
		printf("#   load %s: %s\n", b.path, diag.reason);
	return m;
}

static void test_model_rows(void)
{
	struct gr_model *m = scenario();
	const struct gr_gpu *g;
	uint64_t first, last;
	size_t n;

	if (!m)
		return;
	g = gr_model_gpus(m, &n);
	CHECK_EQ_U64(n, 7);
	CHECK_EQ_U64(g[0].ts, T0 + 10000);
	CHECK_EQ_U64(g[0].dur, 1000);
	CHECK_EQ_U64(g[0].host_ts, T0 + 1000);
	CHECK_EQ_U64(g[0].pid, PID);
	CHECK_EQ_U64(g[0].host_tid, TID);
	CHECK_EQ_U64(g[0].grid[0], 4);
	CHECK_EQ_U64(g[0].block[0], 128);
	CHECK_STR(g[0].name, "a(float*)");
	CHECK_STR(g[0].mangled, "_Z1aPf");
	CHECK_EQ_U64(g[3].kind, GR_GPU_MEMCPY);
	CHECK_EQ_U64(g[3].bytes, 1000000);
	CHECK_EQ_U64(g[3].copy_kind, 1);
	CHECK_STR(g[3].name, "");
	CHECK_EQ_U64(g[5].graph, 77);
	CHECK_STR(g[6].name, "c()");
	/* the last GPU row's end closes the recording */
	gr_model_time_span(m, &first, &last);
	CHECK_EQ_U64(first, T0);
	CHECK_EQ_U64(last, T0 + 141000);
	gr_model_free(m);
}

static struct gr_gpu_summary *summary(const struct gr_model *m, struct gr_graphs **g, uint64_t from,
				      uint64_t to)
{
	struct gr_gpu_summary *s = NULL;

	CHECK_EQ_U64(gr_graphs_build(m, g), 0);
	CHECK_EQ_U64(gr_gpu_compute(m, *g, from, to, &s), 0);
	return s;
}

static void test_ties(void)
{
	struct gr_model *m = scenario();
	struct gr_graphs *g = NULL;
	struct gr_gpu_summary *s;
	uint32_t pid, tid;
	uint64_t ts;
	unsigned api;

	if (!m)
		return;
	s = summary(m, &g, 0, 0);
	if (s) {
		CHECK_EQ_U64(s->nrows, 7);
		CHECK_EQ_U64(s->tied, 6);
		CHECK_EQ_U64(s->exact, 5);
		CHECK_EQ_U64(s->untied, 1);
		CHECK_EQ_U64(s->kernels, 5);
		CHECK_EQ_U64(s->copies, 1);
		CHECK_EQ_U64(s->memsets, 1);
		/* launches by ts: a 1000, a 2000, b 3000, b 3600, a 6100 (the node) */
		CHECK_EQ_U64(s->ties[0].kind, GR_K_LAUNCH);
		CHECK_EQ_U64(s->ties[0].index, 0);
		CHECK_EQ_U64(s->ties[0].exact, 1);
		CHECK_EQ_U64(s->ties[1].kind, GR_K_LAUNCH);
		CHECK_EQ_U64(s->ties[1].index, 1);
		CHECK_EQ_U64(s->ties[1].exact, 0);
		CHECK_EQ_U64(s->ties[2].index, 2);
		CHECK_EQ_U64(s->ties[3].kind, GR_K_COPY);
		CHECK_EQ_U64(s->ties[3].index, 0);
		CHECK_EQ_U64(s->ties[4].kind, GR_K_MEMSET);
		/* graphs by ts: begin, end, instantiate, launch */
		CHECK_EQ_U64(s->ties[5].kind, GR_K_GRAPH);
		CHECK_EQ_U64(s->ties[5].index, 3);
		CHECK_EQ_U64(s->ties[6].kind, 0);
		CHECK(gr_gpu_tie_call(m, &s->ties[5], &pid, &tid, &ts, &api) == 1);
		CHECK_EQ_U64(pid, PID);
		CHECK_EQ_U64(tid, TID);
		CHECK_EQ_U64(ts, T0 + 7000);
		CHECK(gr_gpu_tie_call(m, &s->ties[6], &pid, &tid, &ts, &api) == 0);
	}
	gr_gpu_free(s);
	gr_graphs_free(g);
	gr_model_free(m);
}

static void test_busy(void)
{
	struct gr_model *m = scenario();
	struct gr_graphs *g = NULL;
	struct gr_gpu_summary *s;
	const struct gr_gpu_busy *b;

	if (!m)
		return;
	s = summary(m, &g, T0 + 20000, T0 + 131000);
	if (s && s->recording.ndevices == 1 && s->iteration.ndevices == 1) {
		/* busy: [10000, 14000] [20000, 123000] [130000, 131000] [140000, 141000] */
		b = &s->recording.devices[0];
		CHECK_EQ_U64(s->recording.from_ts, T0);
		CHECK_EQ_U64(s->recording.to_ts, T0 + 141000);
		CHECK_EQ_U64(b->device, 0);
		CHECK_EQ_U64(b->busy_ns, 109000);
		CHECK(b->share == 109000.0 / 141000.0);
		CHECK_EQ_U64(b->gaps, 3);
		CHECK_EQ_U64(b->gap_ns, 6000 + 7000 + 9000);
		CHECK_EQ_U64(b->largest_ns, 9000);
		CHECK_EQ_U64(b->largest_ts, T0 + 131000);
		CHECK_EQ_U64(b->before, 5);
		CHECK_EQ_U64(b->after, 6);
		/* the iteration [20000, 131000]: [20000, 123000] and [130000, 131000] */
		b = &s->iteration.devices[0];
		CHECK_EQ_U64(b->busy_ns, 104000);
		CHECK(b->share == 104000.0 / 111000.0);
		CHECK_EQ_U64(b->gaps, 1);
		CHECK_EQ_U64(b->gap_ns, 7000);
		CHECK_EQ_U64(b->before, 4);
		CHECK_EQ_U64(b->after, 5);
	} else {
		CHECK(0);
	}
	gr_gpu_free(s);
	gr_graphs_free(g);
	gr_model_free(m);
}

static void test_kernels_copies(void)
{
	struct gr_model *m = scenario();
	struct gr_graphs *g = NULL;
	struct gr_gpu_summary *s;

	if (!m)
		return;
	s = summary(m, &g, 0, 0);
	if (s && s->nby_name == 3 && s->nby_config == 4 && s->ncopy_dirs == 2) {
		CHECK_EQ_U64(s->iteration.ndevices, 0);
		CHECK_STR(s->by_name[0].name, "a(float*)");
		CHECK_EQ_U64(s->by_name[0].dur.count, 3);
		CHECK_EQ_U64(s->by_name[0].dur.total, 5000);
		CHECK_EQ_U64(s->by_name[0].dur.median, 1000);
		CHECK_EQ_U64(s->by_name[0].dur.p99, 3000);
		CHECK_STR(s->by_name[1].name, "b(float*)");
		CHECK_EQ_U64(s->by_name[1].dur.total, 2000);
		CHECK_STR(s->by_name[2].name, "c()");
		/* a's two configurations: grid 4 (4000 ns), grid 2 (the graph node, 1000 ns) */
		CHECK_STR(s->by_config[0].name, "a(float*)");
		CHECK_EQ_U64(s->by_config[0].grid[0], 4);
		CHECK_EQ_U64(s->by_config[0].block[0], 128);
		CHECK_EQ_U64(s->by_config[0].dur.count, 2);
		CHECK_EQ_U64(s->by_config[0].dur.total, 4000);
		CHECK_EQ_U64(s->by_config[0].dur.median, 1000);
		CHECK_STR(s->by_config[1].name, "b(float*)");
		CHECK_STR(s->by_config[2].name, "a(float*)");
		CHECK_EQ_U64(s->by_config[2].grid[0], 2);
		CHECK_EQ_U64(s->by_config[2].dur.total, 1000);
		CHECK_STR(s->by_config[3].name, "c()");
		/* HtoD: 1e6 B in 100 us = 1e10 B/s; memsets: 256 B in 1 us */
		CHECK_EQ_U64(s->copy_dirs[0].copy_kind, 1);
		CHECK_STR(gr_gpu_copy_kind_name(s->copy_dirs[0].copy_kind), "HtoD");
		CHECK_EQ_U64(s->copy_dirs[0].dur.count, 1);
		CHECK_EQ_U64(s->copy_dirs[0].dur.total, 100000);
		CHECK_EQ_U64(s->copy_dirs[0].bytes, 1000000);
		CHECK(s->copy_dirs[0].bytes_per_s == 1e10);
		CHECK_EQ_U64(s->copy_dirs[1].copy_kind, GR_GPU_COPY_KINDS);
		CHECK_STR(gr_gpu_copy_kind_name(s->copy_dirs[1].copy_kind), "memset");
		CHECK_EQ_U64(s->copy_dirs[1].bytes, 256);
		CHECK(s->copy_dirs[1].bytes_per_s == 256e9 / 1000);
	} else {
		CHECK(0);
	}
	gr_gpu_free(s);
	gr_graphs_free(g);
	gr_model_free(m);
}

static void test_counts(void)
{
	struct gr_model *m = scenario();
	struct gr_graphs *g = NULL;
	struct gr_gpu_summary *s;

	if (!m)
		return;
	s = summary(m, &g, 0, 0);
	if (s && s->ncounts == 3) {
		/* a: 2 launches and 1 graph node executed, 2 + 1 on the GPU: equal */
		CHECK_STR(s->counts[0].name, "a(float*)");
		CHECK_EQ_U64(s->counts[0].probe_direct, 2);
		CHECK_EQ_U64(s->counts[0].probe_graph, 1);
		CHECK_EQ_U64(s->counts[0].gpu_direct, 2);
		CHECK_EQ_U64(s->counts[0].gpu_graph, 1);
		/* b: launched twice, ran once */
		CHECK_STR(s->counts[1].name, "b(float*)");
		CHECK_EQ_U64(s->counts[1].probe_direct, 2);
		CHECK_EQ_U64(s->counts[1].gpu_direct, 1);
		/* c: never seen by the probes */
		CHECK_STR(s->counts[2].name, "c()");
		CHECK_EQ_U64(s->counts[2].probe_direct, 0);
		CHECK_EQ_U64(s->counts[2].gpu_direct, 1);
		CHECK_EQ_U64(s->count_mismatches, 2);
	} else {
		CHECK(0);
	}
	gr_gpu_free(s);
	gr_graphs_free(g);
	gr_model_free(m);
}

/* A trace without GPU rows: an empty summary, nothing else. */
static void test_no_rows(void)
{
	struct gr_model *m = NULL;
	struct gr_graphs *g = NULL;
	struct gr_gpu_summary *s;
	struct gr_diag diag = {0};
	char path[256];

	snprintf(path, sizeof(path), "%s/synth.trc", dir);
	CHECK(synth_write(path, 0) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (!m)
		return;
	CHECK(gr_model_gpus(m, NULL) == NULL);
	s = summary(m, &g, 0, 0);
	CHECK(s && s->nrows == 0 && s->ties == NULL && s->ncounts == 0);
	gr_gpu_free(s);
	gr_graphs_free(g);
	gr_model_free(m);
}

/* The report's GPU section: there with GPU rows (text and JSON), absent without. */
static void report_out(const struct gr_model *m, char **text, char **json)
{
	struct gr_report *r = NULL;
	size_t len;
	FILE *f;

	*text = *json = NULL;
	CHECK_EQ_U64(gr_report_compute(m, NULL, &r), 0);
	if (!r)
		return;
	f = open_memstream(text, &len);
	CHECK(f && gr_report_write_text(f, r, m, 0) == 0);
	if (f)
		fclose(f);
	f = open_memstream(json, &len);
	CHECK(f && gr_report_write_json(f, r, m, 0) == 0);
	if (f)
		fclose(f);
	gr_report_free(r);
}

static void test_report(void)
{
	struct gr_model *m = scenario();
	struct gr_diag diag = {0};
	char path[256], *text, *json;

	if (!m)
		return;
	report_out(m, &text, &json);
	CHECK(text && strstr(text, "GPU: measured on the GPU (CUPTI)"));
	CHECK(text && strstr(text, "b(float*): probes 2 (+0 in graphs), GPU 1 (+0 in graphs)"));
	CHECK(text && strstr(text, "c(): probes 0 (+0 in graphs), GPU 1 (+0 in graphs)"));
	CHECK(json && strstr(json, "\"count_mismatches\": 2"));
	CHECK(json && strstr(json, "\"busy_ns\": 109000"));
	free(text);
	free(json);
	gr_model_free(m);

	m = NULL;
	snprintf(path, sizeof(path), "%s/synth.trc", dir);
	CHECK(synth_write(path, 0) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (!m)
		return;
	report_out(m, &text, &json);
	CHECK(text && !strstr(text, "CUPTI"));
	CHECK(json && !strstr(json, "\"gpu\""));
	free(text);
	free(json);
	gr_model_free(m);
}

/* ---- gpurec diff: GPU time per kernel and per iteration (synth_gpu_loop.h's loop) ---- */

/* The loop of synth_gpu_loop.h into @name under the test's directory, loaded; NULL on failure. */
static struct gr_model *loop(const char *name, unsigned iters, uint64_t a_ns, uint64_t b_ns,
			     uint64_t dropped)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK(synth_gpu_loop(path, iters, a_ns, b_ns, dropped) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	return m;
}

static struct gr_model *standard(void)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	char path[256];

	snprintf(path, sizeof(path), "%s/standard.trc", dir);
	CHECK(synth_write(path, 0) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	return m;
}

static double fig(const struct gr_diff *d, const char *id, int side)
{
	const struct gr_diff_metric *mt = gr_diff_metric(d, id);

	CHECK(mt != NULL);
	return mt ? mt->v[side] : NAN;
}

/* The diff's text and JSON. */
static void diff_out(const struct gr_diff *d, const struct gr_model *a, const struct gr_model *b,
		     char **text, char **json)
{
	const struct gr_model *const m[2] = {a, b};
	const char *const path[2] = {"a.trc", "b.trc"};
	size_t len;
	FILE *f;

	*text = *json = NULL;
	f = open_memstream(text, &len);
	CHECK(f && gr_diff_write_text(f, d, m, path) == 0);
	if (f)
		fclose(f);
	f = open_memstream(json, &len);
	CHECK(f && gr_diff_write_json(f, d, m, path) == 0);
	if (f)
		fclose(f);
}

static void check_gpu_kernel(const struct gr_diff_gpu_kernel *k, const char *name,
			     enum gr_diff_status status, const uint64_t count[2],
			     const uint64_t total[2], const uint64_t median[2])
{
	CHECK_STR(k->name, name);
	CHECK_EQ_U64(k->status, status);
	for (int s = 0; s < 2; s++) {
		CHECK_EQ_U64(k->dur[s].count, count[s]);
		CHECK_EQ_U64(k->dur[s].total, total[s]);
		CHECK_EQ_U64(k->dur[s].median, median[s]);
	}
	CHECK(k->total_delta == (int64_t)total[1] - (int64_t)total[0]);
	CHECK(k->median_delta == (int64_t)median[1] - (int64_t)median[0]);
}

/*
 * BASE: 10 iterations, a 1000 ns, b 3000 / 3100 ns on the GPU; NEW: a 1500, b 2000 / 2100, and 5
 * records dropped. b: 10 x, 30500 -> 20500 ns (median 3000 -> 2000); a: 10000 -> 15000 ns (1000
 * -> 1500). Per iteration the GPU is busy a + b: 4050 -> 3550 ns; the loop runs from the first
 * launch to the last sync's end, 9 periods + 2200 + a + b_9 ns (906300 and 905800).
 */
static void test_diff_gpu(void)
{
	struct gr_model *a = loop("base.trc", 10, 1000, 3000, 0);
	struct gr_model *b = loop("new.trc", 10, 1500, 2000, 5);
	struct gr_diff *d = NULL;
	char *text = NULL, *json = NULL;

	if (!a || !b)
		goto out;
	CHECK_EQ_U64(gr_diff_compute(a, b, NULL, &d), 0);
	if (!d)
		goto out;
	CHECK(d->gpu[0] && d->gpu[1]);
	CHECK_EQ_U64(d->iterations[0], 10);
	CHECK_EQ_U64(d->iterations[1], 10);
	CHECK_EQ_U64(d->ngpu_kernels, 2);
	if (d->ngpu_kernels == 2) {
		/* by the change of GPU time: b's 10000 ns before a's 5000 */
		check_gpu_kernel(&d->gpu_kernels[0], "b(float*)", GR_DIFF_COMMON,
				 (const uint64_t[2]){10, 10}, (const uint64_t[2]){30500, 20500},
				 (const uint64_t[2]){3000, 2000});
		check_gpu_kernel(&d->gpu_kernels[1], "a(float*)", GR_DIFF_COMMON,
				 (const uint64_t[2]){10, 10}, (const uint64_t[2]){10000, 15000},
				 (const uint64_t[2]){1000, 1500});
		CHECK(d->gpu_kernels[1].total_ratio == 1.5);
	}
	CHECK(fig(d, "gpu.kernels", 0) == 20 && fig(d, "gpu.kernels", 1) == 20);
	CHECK(fig(d, "gpu.kernel_time", 0) == 40500 && fig(d, "gpu.kernel_time", 1) == 35500);
	CHECK(fig(d, "gpu.busy_time", 0) == 40500 && fig(d, "gpu.busy_time", 1) == 35500);
	CHECK(fig(d, "gpu.iteration.busy_time", 0) == 4050);
	CHECK(fig(d, "gpu.iteration.busy_time", 1) == 3550);
	CHECK(fig(d, "gpu.iteration.busy_share", 0) == 100 * (40500.0 / 906300.0));
	CHECK(fig(d, "gpu.iteration.busy_share", 1) == 100 * (35500.0 / 905800.0));
	/* the recording opens at the header's anchor, SYNTH_T0: 1000 ns before the loop */
	CHECK(fig(d, "gpu.busy_share", 0) == 100 * (40500.0 / 907300.0));
	CHECK(fig(d, "gpu.dropped", 0) == 0 && fig(d, "gpu.dropped", 1) == 5);
	diff_out(d, a, b, &text, &json);
	CHECK(text && strstr(text, "GPU time per kernel, measured on the GPU (CUPTI)"));
	CHECK(text &&
	      strstr(text, "  both          10       10     30.5 us     20.5 us     -10.0 us "
			   "  -32.8%     3.00 us     2.00 us  b(float*)\n"));
	CHECK(text && strstr(text, "  GPU busy time per iteration                  4.05 us       "
				   "3.55 us       -0.50 us   -12.3%\n"));
	CHECK(json && strstr(json, "\"total_delta_ns\": -10000"));
	CHECK(json && strstr(json, "\"dropped_b\": 5"));
out:
	free(text);
	free(json);
	gr_diff_free(d);
	gr_model_free(a);
	gr_model_free(b);
}

/*
 * Keyed by name and grid, the loop against test_gpu's scenario: a grid 4 in both (10 x 1000 ns;
 * 2 rows, 4000 ns, median the lower, 1000), b grid 8 in both (30500 -> 2000), a grid 2 (the graph
 * node) and c() only in NEW.
 */
static void test_diff_gpu_key(void)
{
	struct gr_model *a = loop("base.trc", 10, 1000, 3000, 0), *b = scenario();
	struct gr_diff_opts o = {.key = GR_DIFF_KEY_GRID};
	struct gr_diff *d = NULL;

	if (!a || !b)
		goto out;
	CHECK_EQ_U64(gr_diff_compute(a, b, &o, &d), 0);
	if (!d || d->ngpu_kernels != 4) {
		CHECK(0);
		goto out;
	}
	check_gpu_kernel(&d->gpu_kernels[0], "b(float*)", GR_DIFF_COMMON,
			 (const uint64_t[2]){10, 1}, (const uint64_t[2]){30500, 2000},
			 (const uint64_t[2]){3000, 2000});
	CHECK_EQ_U64(d->gpu_kernels[0].grid[0], 8);
	check_gpu_kernel(&d->gpu_kernels[1], "a(float*)", GR_DIFF_COMMON,
			 (const uint64_t[2]){10, 2}, (const uint64_t[2]){10000, 4000},
			 (const uint64_t[2]){1000, 1000});
	CHECK_EQ_U64(d->gpu_kernels[1].grid[0], 4);
	/* added, by GPU time then name: a grid 2 and c(), 1000 ns each */
	check_gpu_kernel(&d->gpu_kernels[2], "a(float*)", GR_DIFF_ADDED, (const uint64_t[2]){0, 1},
			 (const uint64_t[2]){0, 1000}, (const uint64_t[2]){0, 1000});
	CHECK_EQ_U64(d->gpu_kernels[2].grid[0], 2);
	CHECK(isnan(d->gpu_kernels[2].total_ratio));
	check_gpu_kernel(&d->gpu_kernels[3], "c()", GR_DIFF_ADDED, (const uint64_t[2]){0, 1},
			 (const uint64_t[2]){0, 1000}, (const uint64_t[2]){0, 1000});
	/* the block is not part of the key: 0 */
	CHECK_EQ_U64(d->gpu_kernels[3].block[0], 0);
out:
	gr_diff_free(d);
	gr_model_free(a);
	gr_model_free(b);
}

/* One side with GPU rows: one line, nothing compared; neither: no word of the GPU. */
static void test_diff_gpu_one_side(void)
{
	struct gr_model *a = standard(), *b = loop("new.trc", 10, 1500, 2000, 5);
	struct gr_diff *d = NULL;
	char *text = NULL, *json = NULL;

	if (!a || !b)
		goto out;
	CHECK_EQ_U64(gr_diff_compute(a, b, NULL, &d), 0);
	if (!d)
		goto out;
	CHECK(!d->gpu[0] && d->gpu[1]);
	CHECK_EQ_U64(d->ngpu_kernels, 0);
	CHECK(gr_diff_metric(d, "gpu.kernel_time") == NULL);
	CHECK(gr_diff_metric(d, "gpu.iteration.busy_time") == NULL);
	diff_out(d, a, b, &text, &json);
	CHECK(text && strstr(text, "\nGPU: only NEW has GPU rows (recorded with --cupti): nothing "
				   "is compared on the GPU side\n"));
	CHECK(text && !strstr(text, "GPU time per kernel"));
	CHECK(json && strstr(json, "\"compared\": false"));
	free(text);
	free(json);
	text = json = NULL;
	gr_diff_free(d);
	d = NULL;
	gr_model_free(b);
	b = standard();
	if (!b)
		goto out;
	CHECK_EQ_U64(gr_diff_compute(a, b, NULL, &d), 0);
	if (!d)
		goto out;
	diff_out(d, a, b, &text, &json);
	CHECK(text && !strstr(text, "GPU"));
	CHECK(json && !strstr(json, "\"gpu"));
out:
	free(text);
	free(json);
	gr_diff_free(d);
	gr_model_free(a);
	gr_model_free(b);
}

/* Sets as one job per side: GPU rows of every trace, dropped records added over the traces. */
static void test_diff_gpu_sets(void)
{
	struct gr_model *m[2] = {NULL, NULL};
	struct gr_diff *d = NULL;
	struct gr_diag diag = {0};
	char p[4][256];
	size_t failed;

	for (int i = 0; i < 4; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/set%d.trc", dir, i);
		CHECK(synth_gpu_loop(p[i], 10, i < 2 ? 1000 : 1500, i < 2 ? 3000 : 2000,
				     (uint64_t)i + 1) == 0);
	}
	for (int s = 0; s < 2; s++) {
		const char *const paths[2] = {p[2 * s], p[2 * s + 1]};

		CHECK(gr_model_load_set(&m[s], paths, 2, NULL, &diag, &failed) == 0);
	}
	if (!m[0] || !m[1])
		goto out;
	CHECK_EQ_U64(gr_diff_compute(m[0], m[1], NULL, &d), 0);
	if (!d || d->ngpu_kernels != 2) {
		CHECK(0);
		goto out;
	}
	check_gpu_kernel(&d->gpu_kernels[0], "b(float*)", GR_DIFF_COMMON,
			 (const uint64_t[2]){20, 20}, (const uint64_t[2]){61000, 41000},
			 (const uint64_t[2]){3000, 2000});
	check_gpu_kernel(&d->gpu_kernels[1], "a(float*)", GR_DIFF_COMMON,
			 (const uint64_t[2]){20, 20}, (const uint64_t[2]){20000, 30000},
			 (const uint64_t[2]){1000, 1500});
	CHECK(fig(d, "gpu.kernel_time", 0) == 81000 && fig(d, "gpu.kernel_time", 1) == 71000);
	/* each trace's GPU 0 is a GPU of its own: busy times add, not merge (both traces of a
	 * side run their kernels at the same times) */
	CHECK(fig(d, "gpu.busy_time", 0) == 81000 && fig(d, "gpu.busy_time", 1) == 71000);
	/* dropped: 1 + 2 in BASE, 3 + 4 in NEW */
	CHECK(fig(d, "gpu.dropped", 0) == 3 && fig(d, "gpu.dropped", 1) == 7);
out:
	gr_diff_free(d);
	gr_model_free(m[0]);
	gr_model_free(m[1]);
}

/* The report says how many GPU records were dropped: its figures are lower bounds. */
static void test_report_dropped(void)
{
	struct gr_model *m = loop("dropped.trc", 10, 1000, 3000, 5);
	char *text, *json;

	if (!m)
		return;
	report_out(m, &text, &json);
	CHECK(text && strstr(text, "\n  5 GPU records dropped (dropped by CUPTI): the GPU counts "
				   "and times below are lower bounds\n"));
	CHECK(json && strstr(json, "\"dropped\": 5"));
	free(text);
	free(json);
	gr_model_free(m);
	m = loop("kept.trc", 10, 1000, 3000, 0);
	if (!m)
		return;
	report_out(m, &text, &json);
	CHECK(text && !strstr(text, "dropped"));
	CHECK(json && strstr(json, "\"dropped\": 0"));
	free(text);
	free(json);
	gr_model_free(m);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_model_rows);
	RUN_TEST(test_ties);
	RUN_TEST(test_busy);
	RUN_TEST(test_kernels_copies);
	RUN_TEST(test_counts);
	RUN_TEST(test_no_rows);
	RUN_TEST(test_report);
	RUN_TEST(test_diff_gpu);
	RUN_TEST(test_diff_gpu_key);
	RUN_TEST(test_diff_gpu_one_side);
	RUN_TEST(test_diff_gpu_sets);
	RUN_TEST(test_report_dropped);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
