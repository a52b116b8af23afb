/* SPDX-License-Identifier: MIT */
/*
 * analyze/graphs: on synthetic traces whose calls are all known, which launches, copies and
 * memsets are graph nodes, and exactly how many kernels each graph launch executes: capture and
 * replay, streams joined to a capture through events, explicit nodes, child graphs (copied when
 * added), set-params on a graph and on an executable graph, executable update, memory, host
 * and event nodes with the bytes graph launches moved, and a trace without graphs.
 */
#include <stdlib.h>
#include <unistd.h>

#include "analyze/figures/graphs.h"
#include "analyze/figures/launch_stats.h"
#include "analyze/model/model.h"
#include "synth.h"
#include "test.h"

#define PID 100
#define TID 101

static char dir[] = "/tmp/gr_test_graphs.XXXXXX";
static const uint32_t g16[3] = {16, 1, 1}, b256[3] = {256, 1, 1};

struct tb {
	struct gr_trace_writer *w;
	char path[256];
	uint64_t ts;
	int err;
};

static void begin(struct tb *b, const char *name)
{
	snprintf(b->path, sizeof(b->path), "%s/%s.trc", dir, name);
	b->ts = SYNTH_T0;
	b->err = synth_open(&b->w, b->path, 0);
}

/* A LAUNCH row of @api; @same: at the previous row's ts (the GRAPH row of the same call). */
static void launch_api(struct tb *b, unsigned api, uint64_t func, uint64_t stream)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {
	    [GR_LAUNCH_TS] = ++b->ts, [GR_LAUNCH_PID] = PID,	[GR_LAUNCH_TID] = TID,
	    [GR_LAUNCH_API] = api,    [GR_LAUNCH_FUNC] = func,	[GR_LAUNCH_GX] = g16[0],
	    [GR_LAUNCH_GY] = g16[1],  [GR_LAUNCH_GZ] = g16[2],	[GR_LAUNCH_BX] = b256[0],
	    [GR_LAUNCH_BY] = b256[1], [GR_LAUNCH_BZ] = b256[2], [GR_LAUNCH_STREAM] = stream,
	};

	b->err |= gr_trace_writer_append(b->w, GR_K_LAUNCH, v, NULL);
}

static void launch(struct tb *b, uint64_t func, uint64_t stream)
{
	launch_api(b, GR_API_cudaLaunchKernel, func, stream);
}

static void copy_api(struct tb *b, unsigned api, uint64_t stream)
{
	uint64_t v[GR_COPY_NCOLS] = {[GR_COPY_TS] = ++b->ts,	[GR_COPY_PID] = PID,
				     [GR_COPY_TID] = TID,	[GR_COPY_API] = api,
				     [GR_COPY_BYTES] = 4096,	[GR_COPY_CKIND] = GR_COPY_D2D,
				     [GR_COPY_STREAM] = stream, [GR_COPY_FLAGS] = GR_COPY_F_ASYNC};

	b->err |= gr_trace_writer_append(b->w, GR_K_COPY, v, NULL);
}

static void memset_on(struct tb *b, uint64_t stream)
{
	uint64_t v[GR_MEMSET_NCOLS] = {
	    [GR_MEMSET_TS] = ++b->ts, [GR_MEMSET_PID] = PID,
	    [GR_MEMSET_TID] = TID,    [GR_MEMSET_API] = GR_API_cudaMemsetAsync,
	    [GR_MEMSET_BYTES] = 256,  [GR_MEMSET_STREAM] = stream};

	b->err |= gr_trace_writer_append(b->w, GR_K_MEMSET, v, NULL);
}

/* A GRAPH row; @same_call: at the ts of the row just written (a node's work row). */
static void graph(struct tb *b, unsigned kind, uint64_t stream, uint64_t g, uint64_t exec,
		  int same_call)
{
	uint64_t v[GR_GRAPH_NCOLS] = {
	    [GR_GRAPH_TS] = same_call ? b->ts : ++b->ts,
	    [GR_GRAPH_PID] = PID,
	    [GR_GRAPH_TID] = TID,
	    [GR_GRAPH_GKIND] = kind,
	    [GR_GRAPH_STREAM] = stream,
	    [GR_GRAPH_GRAPH] = g,
	    [GR_GRAPH_EXEC] = exec,
	};

	b->err |= gr_trace_writer_append(b->w, GR_K_GRAPH, v, NULL);
}

/* cudaEventRecord(event, stream) or cudaStreamWaitEvent(stream, event) */
static void sync_ev(struct tb *b, unsigned kind, uint64_t stream, uint64_t event)
{
	uint64_t v[GR_SYNC_NCOLS] = {
	    [GR_SYNC_TS] = ++b->ts, [GR_SYNC_PID] = PID,       [GR_SYNC_TID] = TID,
	    [GR_SYNC_SKIND] = kind, [GR_SYNC_HANDLE] = stream, [GR_SYNC_HANDLE2] = event};

	b->err |= gr_trace_writer_append(b->w, GR_K_SYNC, v, NULL);
}

static struct gr_model *load(struct tb *b)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};

	if (gr_trace_writer_close(b->w))
		b->err = -1;
	CHECK(b->err == 0);
	CHECK(gr_model_load(&m, b->path, &diag) == 0);
	if (!m)
		printf("#   load %s: %s\n", b->path, diag.reason);
	return m;
}

/* Kernels executed of func @func, and its launch rows (host calls), from the launch stats. */
static uint64_t executed(const struct gr_model *m, const struct gr_graphs *g, uint64_t func,
			 uint64_t *calls)
{
	size_t nkeys, nl;
	const struct gr_launch_key *keys = gr_model_launch_keys(m, &nkeys);
	const struct gr_kernel *k = gr_model_kernels(m, NULL);
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const uint64_t *ex = gr_graphs_executed_by_key(g);
	uint64_t n = 0;

	*calls = 0;
	for (size_t i = 0; i < nkeys; i++)
		if (k[keys[i].kernel].func == func)
			n += ex[i];
	for (size_t i = 0; i < nl; i++)
		*calls += k[keys[l[i].key].kernel].func == func;
	return n;
}

#define CHECK_EXEC(m, g, func, want_exec, want_calls)                                              \
	do {                                                                                       \
		uint64_t calls_;                                                                   \
		CHECK_EQ_U64(executed(m, g, func, &calls_), want_exec);                            \
		CHECK_EQ_U64(calls_, want_calls);                                                  \
	} while (0)

enum { A = 0xA0, B = 0xB0, C = 0xC0, D = 0xD0, E = 0xE0, F = 0xF0 };
enum { S = 0x10, S2 = 0x20, G = 0x900, X = 0x990 };

/*
 * Two direct launches of A, then on S under capture A, B, B, a memset and a copy (nodes), while
 * C runs on another stream; the capture is instantiated and launched 5 times; then A once more.
 */
static void test_capture_replay(void)
{
	struct tb b = {0};
	struct gr_model *m;
	struct gr_graphs *g = NULL;
	struct gr_graph_work w;
	size_t ng, nl;

	begin(&b, "capture");
	launch(&b, A, S);
	launch(&b, A, S);
	graph(&b, GR_GRAPH_BEGIN_CAPTURE, S, 0, 0, 0);
	launch(&b, A, S);
	launch(&b, B, S);
	launch(&b, C, S2);
	launch(&b, B, S);
	memset_on(&b, S);
	copy_api(&b, GR_API_cudaMemcpyAsync, S);
	graph(&b, GR_GRAPH_END_CAPTURE, S, G, 0, 0);
	graph(&b, GR_GRAPH_INSTANTIATE, 0, G, X, 0);
	for (int i = 0; i < 5; i++)
		graph(&b, GR_GRAPH_LAUNCH, S, 0, X, 0);
	launch(&b, A, S);
	copy_api(&b, GR_API_cudaMemcpyAsync, S);
	m = load(&b);
	if (!m)
		return;
	CHECK_EQ_U64(gr_graphs_build(m, &g), 0);
	CHECK(gr_graphs_any(g));
	CHECK_EXEC(m, g, A, 2 + 5 + 1, 4);
	CHECK_EXEC(m, g, B, 10, 2);
	CHECK_EXEC(m, g, C, 1, 1);
	gr_model_launches(m, &nl);
	CHECK_EQ_U64(nl, 7);
	/* launches in time order: A A A(node) B(node) C B(node) A */
	for (size_t i = 0; i < nl; i++)
		CHECK_EQ_U64(gr_graphs_launch_is_node(g, i), i == 2 || i == 3 || i == 5);
	CHECK(gr_graphs_copy_is_node(g, 0) && !gr_graphs_copy_is_node(g, 1));
	CHECK(gr_graphs_memset_is_node(g, 0));
	CHECK_EQ_U64(gr_graphs_summary(g)->graph_launches, 5);
	CHECK_EQ_U64(gr_graphs_summary(g)->kernels_executed, 15);
	CHECK_EQ_U64(gr_graphs_summary(g)->node_launches, 3);
	CHECK_EQ_U64(gr_graphs_summary(g)->node_copies, 1);
	CHECK_EQ_U64(gr_graphs_summary(g)->node_memsets, 1);
	gr_model_graphs(m, &ng);
	CHECK_EQ_U64(ng, 8);
	CHECK(!gr_graphs_launch_work(g, 2, &w)); /* the instantiate row */
	CHECK(gr_graphs_launch_work(g, 3, &w));
	CHECK_EQ_U64(w.nkernels, 3);
	CHECK_EQ_U64(w.ncopies, 1);
	CHECK_EQ_U64(w.nmemsets, 1);
	if (w.nkernels == 3) {
		const struct gr_launch_key *keys = gr_model_launch_keys(m, NULL);
		const struct gr_kernel *k = gr_model_kernels(m, NULL);

		CHECK_EQ_U64(k[keys[w.keys[0]].kernel].func, A);
		CHECK_EQ_U64(k[keys[w.keys[1]].kernel].func, B);
		CHECK_EQ_U64(k[keys[w.keys[2]].kernel].func, B);
	}

	/* the launch stats carry the same figures per kernel */
	struct gr_launch_stats ls;

	CHECK_EQ_U64(gr_launch_stats_compute(m, &ls), 0);
	CHECK_EQ_U64(ls.executed, 8 + 10 + 1);
	CHECK_EQ_U64(ls.nlaunches, 7);
	gr_launch_stats_free(&ls);
	gr_graphs_free(g);
	gr_model_free(m);
}

/*
 * S2 joins the capture of @cs through event 0xE1 recorded on it, and rejoins through 0xE2. An
 * event recorded outside the capture (0xE3) joins nothing. The graph is launched 3 times.
 * The capturing stream is @cs: S, or the per-thread default stream.
 */
static void joined(const char *name, uint64_t cs)
{
	struct tb b = {0};
	struct gr_model *m;
	struct gr_graphs *g = NULL;

	begin(&b, name);
	launch(&b, D, S2); /* S2 known before the capture, as in a real program */
	sync_ev(&b, GR_SYNC_EVENT_RECORD, S2, 0xE3);
	graph(&b, GR_GRAPH_BEGIN_CAPTURE, cs, 0, 0, 0);
	sync_ev(&b, GR_SYNC_STREAM_WAIT_EVENT, S2, 0xE3); /* not a capture's event */
	launch(&b, D, S2);				  /* so this runs */
	sync_ev(&b, GR_SYNC_EVENT_RECORD, cs, 0xE1);
	sync_ev(&b, GR_SYNC_STREAM_WAIT_EVENT, S2, 0xE1);
	launch(&b, A, S2);
	launch(&b, B, cs);
	sync_ev(&b, GR_SYNC_EVENT_RECORD, S2, 0xE2);
	sync_ev(&b, GR_SYNC_STREAM_WAIT_EVENT, cs, 0xE2);
	graph(&b, GR_GRAPH_END_CAPTURE, cs, G, 0, 0);
	launch(&b, A, S2);				  /* the capture ended for S2 too */
	sync_ev(&b, GR_SYNC_STREAM_WAIT_EVENT, S2, 0xE1); /* its capture is over */
	launch(&b, A, S2);
	graph(&b, GR_GRAPH_INSTANTIATE, 0, G, X, 0);
	for (int i = 0; i < 3; i++)
		graph(&b, GR_GRAPH_LAUNCH, cs, 0, X, 0);
	m = load(&b);
	if (!m)
		return;
	CHECK_EQ_U64(gr_graphs_build(m, &g), 0);
	CHECK_EXEC(m, g, A, 3 + 2, 3);
	CHECK_EXEC(m, g, B, 3, 1);
	CHECK_EXEC(m, g, D, 2, 2);
	CHECK_EQ_U64(gr_graphs_summary(g)->node_launches, 2);
	CHECK_EQ_U64(gr_graphs_summary(g)->kernels_executed, 6);
	gr_graphs_free(g);
	gr_model_free(m);
}

static void test_joined_streams(void)
{
	joined("joined", S);
}

/*
 * The same with S the thread's per-thread default stream (cudaStreamPerThread): the model keys
 * it by thread, and the event recorded on it, whose handle the trace keeps raw, must find it.
 */
static void test_joined_per_thread_stream(void)
{
	joined("joined_ptds", GR_STREAM_HANDLE_PER_THREAD);
}

/* An explicit node: its work row, then its GRAPH row at the same ts. */
static void kernel_node(struct tb *b, uint64_t func, uint64_t graph_h, uint64_t node)
{
	launch_api(b, GR_API_cudaGraphAddKernelNode, func, 0);
	graph(b, GR_GRAPH_ADD_NODE, 0, graph_h, node, 1);
}

/*
 * Graph G: kernel nodes A (N1) and B (N2), a memcpy node, and a child graph node of C0 = {C}.
 * After the child node, C0 gains F: G's copy does not. X = instantiate(G), then launches and
 * changes, with the kernels each launch executes:
 *   2 launches                                   A B C     (A 2, B 2, C 2)
 *   N1 -> D in G; 1 launch (X unchanged)         A B C     (A 3, B 3, C 3)
 *   exec update X <- G; 1 launch                 D B C     (D 1, B 4, C 4)
 *   N2 -> E in X; 2 launches                     D E C     (D 3, E 2, C 6)
 */
static void test_explicit_nodes(void)
{
	struct tb b = {0};
	struct gr_model *m;
	struct gr_graphs *g = NULL;
	struct gr_graph_work w;
	size_t ng;

	begin(&b, "explicit");
	kernel_node(&b, A, G, 0x1);
	kernel_node(&b, B, G, 0x2);
	copy_api(&b, GR_API_cudaGraphAddMemcpyNode1D, 0);
	graph(&b, GR_GRAPH_ADD_NODE, 0, G, 0x3, 1);
	kernel_node(&b, C, 0x800, 0x4);
	graph(&b, GR_GRAPH_ADD_CHILD, 0, G, 0x800, 0);
	kernel_node(&b, F, 0x800, 0x5);
	graph(&b, GR_GRAPH_INSTANTIATE, 0, G, X, 0);
	for (int i = 0; i < 2; i++)
		graph(&b, GR_GRAPH_LAUNCH, S, 0, X, 0);
	launch_api(&b, GR_API_cudaGraphKernelNodeSetParams, D, 0);
	graph(&b, GR_GRAPH_NODE_SET_PARAMS, 0, 0, 0x1, 1);
	graph(&b, GR_GRAPH_LAUNCH, S, 0, X, 0);
	graph(&b, GR_GRAPH_EXEC_UPDATE, 0, G, X, 0);
	graph(&b, GR_GRAPH_LAUNCH, S, 0, X, 0);
	launch_api(&b, GR_API_cudaGraphExecKernelNodeSetParams, E, 0);
	graph(&b, GR_GRAPH_EXEC_SET_PARAMS, 0, 0x2, X, 1);
	for (int i = 0; i < 2; i++)
		graph(&b, GR_GRAPH_LAUNCH, S, 0, X, 0);
	graph(&b, GR_GRAPH_LAUNCH, S, 0, 0x999, 0); /* never instantiated in this trace */
	m = load(&b);
	if (!m)
		return;
	CHECK_EQ_U64(gr_graphs_build(m, &g), 0);
	CHECK_EXEC(m, g, A, 3, 1);
	CHECK_EXEC(m, g, B, 4, 1);
	CHECK_EXEC(m, g, C, 6, 1);
	CHECK_EXEC(m, g, D, 3, 1);
	CHECK_EXEC(m, g, E, 2, 1);
	CHECK_EXEC(m, g, F, 0, 1);
	CHECK_EQ_U64(gr_graphs_summary(g)->node_launches, 6);
	CHECK_EQ_U64(gr_graphs_summary(g)->node_copies, 1);
	CHECK_EQ_U64(gr_graphs_summary(g)->graph_launches, 7);
	CHECK_EQ_U64(gr_graphs_summary(g)->unknown_launches, 1);
	CHECK_EQ_U64(gr_graphs_summary(g)->kernels_executed, 18);
	gr_model_graphs(m, &ng);
	CHECK(gr_graphs_launch_work(g, ng - 2, &w) && w.nkernels == 3 && w.ncopies == 1);
	CHECK(!gr_graphs_launch_work(g, ng - 1, &w));
	gr_graphs_free(g);
	gr_model_free(m);
}

/* A row of @kind whose bytes are @bytes, of @api (a node call's work row), on stream 0. */
static void mem_row(struct tb *b, unsigned kind, unsigned api, uint64_t bytes)
{
	uint64_t c[GR_COPY_NCOLS] = {
	    [GR_COPY_TS] = ++b->ts, [GR_COPY_PID] = PID,     [GR_COPY_TID] = TID,
	    [GR_COPY_API] = api,    [GR_COPY_BYTES] = bytes, [GR_COPY_CKIND] = GR_COPY_H2D};
	uint64_t m[GR_MEMSET_NCOLS] = {[GR_MEMSET_TS] = b->ts,
				       [GR_MEMSET_PID] = PID,
				       [GR_MEMSET_TID] = TID,
				       [GR_MEMSET_API] = api,
				       [GR_MEMSET_BYTES] = bytes};

	b->err |= gr_trace_writer_append(b->w, kind, kind == GR_K_COPY ? c : m, NULL);
}

/* A GRAPH add-node row alone, of @api (a host or event node). */
static void node_only(struct tb *b, unsigned api, uint64_t g, uint64_t node)
{
	uint64_t v[GR_GRAPH_NCOLS] = {
	    [GR_GRAPH_TS] = ++b->ts,
	    [GR_GRAPH_PID] = PID,
	    [GR_GRAPH_TID] = TID,
	    [GR_GRAPH_API] = api,
	    [GR_GRAPH_GKIND] = GR_GRAPH_ADD_NODE,
	    [GR_GRAPH_GRAPH] = g,
	    [GR_GRAPH_EXEC] = node,
	};
	b->err |= gr_trace_writer_append(b->w, GR_K_GRAPH, v, NULL);
}

/*
 * Memory, host and event nodes: an H2D copy node (4096 bytes), set to 3000 in the graph, a
 * memset node (256), a host and an event node, and a child graph holding a D2D copy captured on
 * S (4096); instantiated, 2 launches; in the executable graph the copy node set to 1000 bytes
 * (and a set-params naming node 0, which no captured node answers to); 3 launches. Executed:
 * H2D 5 copies, 2 x 3000 + 3 x 1000 bytes; D2D 5 x 4096; 5 memsets, 1280 bytes; 5 host and 5
 * event nodes.
 */
static void test_memory_nodes(void)
{
	struct tb b = {0};
	struct gr_model *m;
	struct gr_graphs *g = NULL;
	const struct gr_graphs_summary *sum;
	struct gr_graph_work w;
	size_t ng;

	begin(&b, "memory");
	mem_row(&b, GR_K_COPY, GR_API_cudaGraphAddMemcpyNode, 4096);
	graph(&b, GR_GRAPH_ADD_NODE, 0, G, 0x3, 1);
	mem_row(&b, GR_K_COPY, GR_API_cudaGraphMemcpyNodeSetParams1D, 3000);
	graph(&b, GR_GRAPH_NODE_SET_PARAMS, 0, 0, 0x3, 1);
	mem_row(&b, GR_K_MEMSET, GR_API_cuGraphAddMemsetNode, 256);
	graph(&b, GR_GRAPH_ADD_NODE, 0, G, 0x6, 1);
	node_only(&b, GR_API_cudaGraphAddHostNode, G, 0x7);
	node_only(&b, GR_API_cuGraphAddEventRecordNode, G, 0x8);
	graph(&b, GR_GRAPH_BEGIN_CAPTURE, S, 0, 0, 0);
	copy_api(&b, GR_API_cudaMemcpyAsync, S); /* 4096 D2D, captured */
	graph(&b, GR_GRAPH_END_CAPTURE, S, 0x901, 0, 0);
	graph(&b, GR_GRAPH_ADD_CHILD, 0, G, 0x901, 0);
	graph(&b, GR_GRAPH_INSTANTIATE, 0, G, X, 0);
	for (int i = 0; i < 2; i++)
		graph(&b, GR_GRAPH_LAUNCH, S2, 0, X, 0);
	mem_row(&b, GR_K_COPY, GR_API_cudaGraphExecMemcpyNodeSetParams1D, 1000);
	graph(&b, GR_GRAPH_EXEC_SET_PARAMS, 0, 0x3, X, 1);
	mem_row(&b, GR_K_COPY, GR_API_cudaGraphExecMemcpyNodeSetParams1D, 1);
	graph(&b, GR_GRAPH_EXEC_SET_PARAMS, 0, 0, X, 1);
	for (int i = 0; i < 3; i++)
		graph(&b, GR_GRAPH_LAUNCH, S2, 0, X, 0);
	m = load(&b);
	if (!m)
		return;
	CHECK_EQ_U64(gr_graphs_build(m, &g), 0);
	sum = gr_graphs_summary(g);
	CHECK_EQ_U64(sum->copies_executed[GR_COPY_H2D], 5);
	CHECK_EQ_U64(sum->copy_bytes_executed[GR_COPY_H2D], 2 * 3000 + 3 * 1000);
	CHECK_EQ_U64(sum->copies_executed[GR_COPY_D2D], 5);
	CHECK_EQ_U64(sum->copy_bytes_executed[GR_COPY_D2D], 5 * 4096);
	CHECK_EQ_U64(sum->memsets_executed, 5);
	CHECK_EQ_U64(sum->memset_bytes_executed, 5 * 256);
	CHECK_EQ_U64(sum->hosts_executed, 5);
	CHECK_EQ_U64(sum->events_executed, 5);
	CHECK_EQ_U64(sum->mem_launches, 5);
	CHECK_EQ_U64(sum->node_copies, 5);
	CHECK_EQ_U64(sum->node_memsets, 1);
	gr_model_graphs(m, &ng);
	CHECK(gr_graphs_launch_work(g, ng - 1, &w));
	CHECK(w.ncopies == 2 && w.copy_bytes == 1000 + 4096 && w.nmemsets == 1 &&
	      w.memset_bytes == 256 && w.nhosts == 1 && w.nevents == 1);
	gr_graphs_free(g);
	gr_model_free(m);
}

/* The standard synthetic trace has no GRAPH rows: nothing is a node, every launch executed. */
static void test_no_graphs(void)
{
	char path[300];
	struct gr_model *m = NULL;
	struct gr_graphs *g = NULL;
	struct gr_launch_stats ls;

	snprintf(path, sizeof(path), "%s/standard.trc", dir);
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	CHECK_EQ_U64(gr_graphs_build(m, &g), 0);
	CHECK(!gr_graphs_any(g));
	CHECK(gr_graphs_executed_by_key(g) == NULL);
	CHECK(!gr_graphs_launch_is_node(g, 0));
	CHECK_EQ_U64(gr_launch_stats_compute(m, &ls), 0);
	CHECK_EQ_U64(ls.executed, SYNTH_LAUNCHES);
	gr_launch_stats_free(&ls);
	gr_graphs_free(g);
	gr_model_free(m);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_capture_replay);
	RUN_TEST(test_joined_streams);
	RUN_TEST(test_joined_per_thread_stream);
	RUN_TEST(test_memory_nodes);
	RUN_TEST(test_explicit_nodes);
	RUN_TEST(test_no_graphs);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
