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

#include "analyze/gpu.h"
#include "analyze/graphs.h"
#include "analyze/model.h"
#include "analyze/report.h"
#include "test.h"
#include "synth.h"

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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
