/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs, replayed: which launches, copies and memsets were graph nodes rather than work
 * the GPU did when they were called, and what each graph launch executed.
 *
 * A launch, copy or memset is a *node* when its stream was capturing at the time (between a
 * BEGIN_CAPTURE and the END_CAPTURE of its capture; a stream joins a capture when it waits on an
 * event recorded on a capturing stream) or when its API adds or changes a node
 * (cudaGraphAddKernelNode, cudaGraphExecKernelNodeSetParams, ...). Nodes executed nothing when
 * called. Every other one is an execution, as before.
 *
 * Graphs are rebuilt from the GRAPH rows in time order: a capture's nodes become the graph
 * END_CAPTURE names; explicit nodes are appended to theirs; a child graph node copies its child
 * as it is then. INSTANTIATE snapshots a graph (children expanded) as the executable graph's
 * node list; EXEC_UPDATE replaces that list with the graph's; EXEC_SET_PARAMS and
 * NODE_SET_PARAMS change one kernel node of the list or of the graph. A graph LAUNCH executes
 * the list its executable graph has at that time; one whose executable graph the trace never
 * instantiated (recording began later) executes an unknown list, counted apart.
 *
 * Cost: nothing for a trace without GRAPH rows; otherwise one pass over the calls merged by
 * time, no allocation per call, one bit per launch, copy and memset for "is a node".
 *
 * Ownership: gr_graphs_build() returns an object that indexes the model it was built from;
 * valid until gr_graphs_free(), never past the model's life.
 */
#ifndef GR_ANALYZE_GRAPHS_H
#define GR_ANALYZE_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"

struct gr_graphs;

/* What one graph launch executed. */
struct gr_graph_work {
	const uint32_t *keys; /* launch keys (gr_model_launch_keys()) of its kernels, in order */
	uint32_t nkernels;
	uint32_t ncopies, nmemsets;
	uint32_t nhosts, nevents; /* host nodes; event record and event wait nodes */
	uint64_t copy_bytes, memset_bytes;
};

/* Copy directions counted apart: enum gr_copy_kind (format/events.h). */
#define GR_GRAPHS_COPY_KINDS 5

/* Totals, for reports and info. */
struct gr_graphs_summary {
	uint64_t graph_launches;   /* GRAPH rows of kind LAUNCH */
	uint64_t unknown_launches; /* ... of an executable graph the trace never instantiated */
	uint64_t kernels_executed; /* kernels all graph launches executed together */
	uint64_t node_launches;	   /* LAUNCH rows that were nodes (captured or explicit) */
	uint64_t node_copies, node_memsets;
	uint64_t truncated; /* nodes left out past GR_GRAPHS_MAX_NODES (hostile or huge traces) */
	/* what all graph launches executed besides kernels: copies and their bytes by direction
	 * (enum gr_copy_kind), memsets, host nodes, event record and wait nodes */
	uint64_t copies_executed[GR_GRAPHS_COPY_KINDS], copy_bytes_executed[GR_GRAPHS_COPY_KINDS];
	uint64_t memsets_executed, memset_bytes_executed;
	uint64_t hosts_executed, events_executed;
	uint64_t mem_launches; /* graph launches that executed at least one copy or memset */
};

/* The most nodes all graphs and executable graphs may hold together. */
#define GR_GRAPHS_MAX_NODES (1u << 26)

/*
 * Replay the graphs of @m. Returns 0 and sets *@out (an object even for a trace without
 * graphs), or -ENOMEM with *@out NULL.
 */
int gr_graphs_build(const struct gr_model *m, struct gr_graphs **out);

/* Free what gr_graphs_build() returned (NULL is accepted). */
void gr_graphs_free(struct gr_graphs *g);

/* 1 when the trace has GRAPH rows at all (else every call is an execution). NULL: 0. */
int gr_graphs_any(const struct gr_graphs *g);

/* 1 when launch @i (gr_model_launches() index) was a graph node, not an execution. NULL: 0. */
static inline int gr_graphs_bit(const uint64_t *bits, size_t i)
{
	return bits && (bits[i >> 6] >> (i & 63) & 1);
}
const uint64_t *gr_graphs_launch_bits(const struct gr_graphs *g);
const uint64_t *gr_graphs_copy_bits(const struct gr_graphs *g);
const uint64_t *gr_graphs_memset_bits(const struct gr_graphs *g);

static inline int gr_graphs_launch_is_node(const struct gr_graphs *g, size_t i)
{
	return gr_graphs_bit(gr_graphs_launch_bits(g), i);
}
static inline int gr_graphs_copy_is_node(const struct gr_graphs *g, size_t i)
{
	return gr_graphs_bit(gr_graphs_copy_bits(g), i);
}
static inline int gr_graphs_memset_is_node(const struct gr_graphs *g, size_t i)
{
	return gr_graphs_bit(gr_graphs_memset_bits(g), i);
}

/*
 * What graph row @i (gr_model_graphs() index) executed: 1 and *@w filled for a graph launch of
 * a known executable graph (its arrays valid while @g lives), else 0.
 */
int gr_graphs_launch_work(const struct gr_graphs *g, size_t i, struct gr_graph_work *w);

/*
 * Kernels executed per launch key (gr_model_launch_keys() index): its launches that were not
 * nodes, plus its kernel nodes in every graph launch. NULL when the trace has no GRAPH rows:
 * then every launch is an execution.
 */
const uint64_t *gr_graphs_executed_by_key(const struct gr_graphs *g);

const struct gr_graphs_summary *gr_graphs_summary(const struct gr_graphs *g);

/* 1 when @api (enum gr_api) describes a graph node rather than work (cudaGraphAddKernelNode). */
int gr_graphs_api_is_node(unsigned api);

#endif
