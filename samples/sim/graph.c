/* SPDX-License-Identifier: MIT */
/*
 * gpusim graphs: graphs (from stream capture, stream.c, or built node by node), executable
 * graphs and graph launches.
 *
 * A graph is its nodes in the order they were added; a child graph node holds a private copy of
 * its graph, as cudaGraphAddChildGraphNode copies it. Instantiation flattens a graph into an
 * executable graph: its leaf nodes in order, each remembering the node it came from (the handle
 * cudaGraphExecKernelNodeSetParams names). A graph launch queues the whole executable graph on
 * the stream as one operation whose duration is the sum of its nodes' modelled durations: the
 * nodes run one after another (the model ignores dependency edges, so parallel branches do not
 * overlap), each kernel node is written to GPUSIM_LOG as a launch on the launching stream, and
 * copies and memsets move their bytes (within GPUSIM_DATA_MAX). Host cost: LAUNCH_NS for a graph
 * launch, ALLOC_NS for instantiation and executable update, API_NS for building calls.
 */
#include <stdlib.h>
#include <string.h>

#include "gpusim.h"

struct sim_graph {
	struct sim_graph *next;	 /* registry of graphs programs hold (child copies are not in it) */
	struct sim_node **nodes; /* handles stay valid as the graph grows */
	size_t n, cap;
};

struct exec_node {
	const struct sim_node *origin; /* the graph node it was instantiated from */
	struct sim_node node;	       /* never SIM_NODE_CHILD: children are flattened */
};

struct sim_exec {
	struct sim_exec *next;
	struct exec_node *nodes;
	size_t n;
};

static struct sim_graph *graphs;
static struct sim_exec *execs;

static void graph_free(struct sim_graph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		graph_free(g->nodes[i]->child);
		free(g->nodes[i]);
	}
	free(g->nodes);
	free(g);
}

static struct sim_graph *graph_clone(const struct sim_graph *src)
{
	struct sim_graph *g = calloc(1, sizeof(*g));

	for (size_t i = 0; g && i < src->n; i++)
		if (sim_graph_append_locked(g, src->nodes[i], NULL)) {
			graph_free(g);
			return NULL;
		}
	return g;
}

struct sim_graph *sim_graph_new_locked(void)
{
	struct sim_graph *g = calloc(1, sizeof(*g));

	if (g) {
		g->next = graphs;
		graphs = g;
	}
	return g;
}

int sim_graph_known_locked(const struct sim_graph *g)
{
	for (struct sim_graph *o = graphs; o; o = o->next)
		if (o == g)
			return 1;
	return 0;
}

/* Appends a copy of @node (a child node gets its own copy of the child graph). */
cudaError_t sim_graph_append_locked(struct sim_graph *g, const struct sim_node *node,
				    struct sim_node **added)
{
	struct sim_node *n;

	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		struct sim_node **v = realloc(g->nodes, cap * sizeof(*v));

		if (!v)
			return cudaErrorMemoryAllocation;
		g->nodes = v;
		g->cap = cap;
	}
	n = malloc(sizeof(*n));
	if (!n)
		return cudaErrorMemoryAllocation;
	*n = *node;
	if (node->type == SIM_NODE_CHILD && !(n->child = graph_clone(node->child))) {
		free(n);
		return cudaErrorMemoryAllocation;
	}
	g->nodes[g->n++] = n;
	if (added)
		*added = n;
	return cudaSuccess;
}

/* The graph that holds node @n, among the registered graphs (lock held), or NULL. */
static struct sim_graph *graph_of_node(const struct sim_node *n)
{
	for (struct sim_graph *g = graphs; g; g = g->next)
		for (size_t i = 0; i < g->n; i++)
			if (g->nodes[i] == n)
				return g;
	return NULL;
}

static struct sim_exec *exec_get(const void *h)
{
	for (struct sim_exec *e = execs; e; e = e->next)
		if ((const void *)e == h)
			return e;
	return NULL;
}

static size_t leaf_count(const struct sim_graph *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++)
		n += g->nodes[i]->type == SIM_NODE_CHILD ? leaf_count(g->nodes[i]->child) : 1;
	return n;
}

static void flatten(const struct sim_graph *g, struct exec_node *out, size_t *at)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct sim_node *n = g->nodes[i];

		if (n->type == SIM_NODE_CHILD) {
			flatten(n->child, out, at);
			continue;
		}
		out[*at].origin = n;
		out[*at].node = *n;
		(*at)++;
	}
}

/* The leaf nodes of @g in order, in a new array of *n (lock held); NULL only when out of memory
 * for a non-empty graph. */
static struct exec_node *snapshot(const struct sim_graph *g, size_t *n)
{
	struct exec_node *v;
	size_t at = 0;

	*n = leaf_count(g);
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (v)
		flatten(g, v, &at);
	return v;
}

/* --- building --- */

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
	uint64_t t0 = sim_now();
	struct sim_graph *g;

	if (!pGraph || flags)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	g = sim_graph_new_locked();
	sim_unlock();
	if (!g)
		return sim_fail(cudaErrorMemoryAllocation);
	*pGraph = (cudaGraph_t)(void *)g;
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

/* Adds @node to @graph, handing its handle out in *@out. Dependencies are not modelled. */
static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t graph, const struct sim_node *node)
{
	uint64_t t0 = sim_now();
	struct sim_graph *g = (struct sim_graph *)(void *)graph;
	struct sim_node *added = NULL;
	cudaError_t err;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	if (!sim_graph_known_locked(g))
		err = cudaErrorInvalidValue;
	else if (node->type == SIM_NODE_CHILD && !sim_graph_known_locked(node->child))
		err = cudaErrorInvalidValue;
	else
		err = sim_graph_append_locked(g, node, &added);
	sim_unlock();
	if (err)
		return sim_fail(err);
	*out = (cudaGraphNode_t)(void *)added;
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

/* A kernel node from the runtime's parameter struct: the kernel and its modelled duration. */
static cudaError_t kernel_node(struct sim_node *node, const struct cudaKernelNodeParams *p)
{
	cudaError_t err;

	if (!p)
		return cudaErrorInvalidValue;
	*node = (struct sim_node){.type = SIM_NODE_KERNEL};
	node->kernel = sim_kernel_of(p->func);
	if (!node->kernel)
		return cudaErrorInvalidDeviceFunction;
	err = sim_check_config(p->gridDim, p->blockDim, p->sharedMemBytes);
	if (err)
		return err;
	node->grid = p->gridDim;
	node->block = p->blockDim;
	node->shmem = p->sharedMemBytes;
	node->dur = sim_kernel_ns(p->gridDim, p->blockDim, p->sharedMemBytes);
	return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaKernelNodeParams *pNodeParams)
{
	struct sim_node node;
	cudaError_t err = kernel_node(&node, pNodeParams);

	return err ? sim_fail(err) : add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies, size_t numDependencies,
				     void *dst, const void *src, size_t count,
				     enum cudaMemcpyKind kind)
{
	struct sim_node node;
	cudaError_t err = sim_copy_node(&node, dst, src, count, kind);

	return err ? sim_fail(err) : add_node(pGraphNode, graph, &node);
}

/* Linear memory only (no arrays): the extent's bytes, from and to the pointers' starts. */
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaMemcpy3DParms *p)
{
	struct sim_node node;
	cudaError_t err;

	if (!p)
		return sim_fail(cudaErrorInvalidValue);
	if (p->srcArray || p->dstArray)
		return sim_fail(cudaErrorNotSupported);
	err = sim_copy_node(&node, p->dstPtr.ptr, p->srcPtr.ptr,
			    p->extent.width * p->extent.height * p->extent.depth, p->kind);
	return err ? sim_fail(err) : add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies, size_t numDependencies,
				   const struct cudaMemsetParams *p)
{
	struct sim_node node;
	cudaError_t err;

	if (!p)
		return sim_fail(cudaErrorInvalidValue);
	err = sim_memset_node(&node, p->dst, (int)p->value,
			      (size_t)p->elementSize * p->width * (p->height ? p->height : 1));
	return err ? sim_fail(err) : add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				       const cudaGraphNode_t *pDependencies, size_t numDependencies,
				       cudaGraph_t childGraph)
{
	struct sim_node node = {.type = SIM_NODE_CHILD};

	node.child = (struct sim_graph *)(void *)childGraph;
	return add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					   const cudaGraphNode_t *pDependencies,
					   size_t numDependencies, const void *symbol,
					   const void *src, size_t count, size_t offset,
					   enum cudaMemcpyKind kind)
{
	struct sim_node node;
	cudaError_t err =
	    sim_symbol_node(&node, (char *)symbol, offset, (void *)src, count, 1, kind);

	return err ? sim_fail(err) : add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					     const cudaGraphNode_t *pDependencies,
					     size_t numDependencies, void *dst, const void *symbol,
					     size_t count, size_t offset, enum cudaMemcpyKind kind)
{
	struct sim_node node;
	cudaError_t err = sim_symbol_node(&node, (char *)symbol, offset, dst, count, 0, kind);

	return err ? sim_fail(err) : add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				 const cudaGraphNode_t *pDependencies, size_t numDependencies,
				 const struct cudaHostNodeParams *p)
{
	struct sim_node node = {.type = SIM_NODE_HOST};

	if (!p || !p->fn)
		return sim_fail(cudaErrorInvalidValue);
	node.host_fn = p->fn;
	node.user_data = p->userData;
	return add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					const cudaGraphNode_t *pDependencies,
					size_t numDependencies, cudaEvent_t event)
{
	struct sim_node node = {.type = SIM_NODE_EMPTY};

	return event ? add_node(pGraphNode, graph, &node)
		     : sim_fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				      const cudaGraphNode_t *pDependencies, size_t numDependencies,
				      cudaEvent_t event)
{
	struct sim_node node = {.type = SIM_NODE_EMPTY};

	return event ? add_node(pGraphNode, graph, &node)
		     : sim_fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
	struct sim_node node = {.type = SIM_NODE_EMPTY};

	return add_node(pGraphNode, graph, &node);
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
					 const struct cudaKernelNodeParams *pNodeParams)
{
	struct sim_node *n = (struct sim_node *)(void *)node, made;
	cudaError_t err = kernel_node(&made, pNodeParams);

	if (err)
		return sim_fail(err);
	sim_lock();
	if (!graph_of_node(n) || n->type != SIM_NODE_KERNEL)
		err = cudaErrorInvalidValue;
	else
		*n = made;
	sim_unlock();
	return err ? sim_fail(err) : cudaSuccess;
}

/* Sets graph node @node, which must be of @made's type, to @made. */
static cudaError_t node_set(cudaGraphNode_t node, const struct sim_node *made)
{
	struct sim_node *n = (struct sim_node *)(void *)node;
	cudaError_t err = cudaSuccess;

	sim_lock();
	if (!graph_of_node(n) || n->type != made->type)
		err = cudaErrorInvalidValue;
	else
		*n = *made;
	sim_unlock();
	return err ? sim_fail(err) : cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
					   size_t count, enum cudaMemcpyKind kind)
{
	struct sim_node made;
	cudaError_t err = sim_copy_node(&made, dst, src, count, kind);

	return err ? sim_fail(err) : node_set(node, &made);
}

/* A copy node from 3D parameters: linear memory only, as cudaGraphAddMemcpyNode. */
static cudaError_t copy3d_node(struct sim_node *made, const struct cudaMemcpy3DParms *p)
{
	if (!p)
		return cudaErrorInvalidValue;
	if (p->srcArray || p->dstArray)
		return cudaErrorNotSupported;
	return sim_copy_node(made, p->dstPtr.ptr, p->srcPtr.ptr,
			     p->extent.width * p->extent.height * p->extent.depth, p->kind);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *p)
{
	struct sim_node made;
	cudaError_t err = copy3d_node(&made, p);

	return err ? sim_fail(err) : node_set(node, &made);
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
						 const void *src, size_t count, size_t offset,
						 enum cudaMemcpyKind kind)
{
	struct sim_node made;
	cudaError_t err =
	    sim_symbol_node(&made, (char *)symbol, offset, (void *)src, count, 1, kind);

	return err ? sim_fail(err) : node_set(node, &made);
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
						   const void *symbol, size_t count, size_t offset,
						   enum cudaMemcpyKind kind)
{
	struct sim_node made;
	cudaError_t err = sim_symbol_node(&made, (char *)symbol, offset, dst, count, 0, kind);

	return err ? sim_fail(err) : node_set(node, &made);
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *p)
{
	struct sim_node made;
	cudaError_t err;

	if (!p)
		return sim_fail(cudaErrorInvalidValue);
	err = sim_memset_node(&made, p->dst, (int)p->value,
			      (size_t)p->elementSize * p->width * (p->height ? p->height : 1));
	return err ? sim_fail(err) : node_set(node, &made);
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
	uint64_t t0 = sim_now();
	struct sim_graph *g = NULL, *src = (struct sim_graph *)(void *)originalGraph;
	cudaError_t err = cudaSuccess;

	if (!pGraphClone)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	if (!sim_graph_known_locked(src))
		err = cudaErrorInvalidValue;
	else if (!(g = graph_clone(src)))
		err = cudaErrorMemoryAllocation;
	else {
		g->next = graphs;
		graphs = g;
	}
	sim_unlock();
	if (err)
		return sim_fail(err);
	*pGraphClone = (cudaGraph_t)(void *)g;
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	uint64_t t0 = sim_now();
	struct sim_graph **p, *g = NULL;

	sim_lock();
	for (p = &graphs; *p; p = &(*p)->next)
		if ((void *)*p == (void *)graph) {
			g = *p;
			*p = g->next;
			break;
		}
	sim_unlock();
	if (!g)
		return sim_fail(cudaErrorInvalidValue);
	graph_free(g);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

/* --- executable graphs --- */

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t graph)
{
	uint64_t t0 = sim_now();
	struct sim_graph *g = (struct sim_graph *)(void *)graph;
	struct sim_exec *e;
	cudaError_t err = cudaSuccess;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	e = calloc(1, sizeof(*e));
	if (!e)
		return sim_fail(cudaErrorMemoryAllocation);
	sim_lock();
	if (!sim_graph_known_locked(g))
		err = cudaErrorInvalidValue;
	else if (!(e->nodes = snapshot(g, &e->n)))
		err = cudaErrorMemoryAllocation;
	else {
		e->next = execs;
		execs = e;
	}
	sim_unlock();
	if (err) {
		free(e);
		return sim_fail(err);
	}
	*out = (cudaGraphExec_t)(void *)e;
	sim_spin_until(t0 + sim_alloc_ns);
	return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
				 unsigned long long flags)
{
	return instantiate(pGraphExec, graph);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					  unsigned long long flags)
{
	return instantiate(pGraphExec, graph);
}

/*
 * Takes @graph's nodes into @exec when its topology is the same: as many leaf nodes, of the same
 * types in the same order (the model's stand-in for CUDA's rules); else fails with
 * cudaErrorGraphExecUpdateFailure and cudaGraphExecUpdateErrorTopologyChanged.
 */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
				cudaGraphExecUpdateResultInfo *resultInfo)
{
	uint64_t t0 = sim_now();
	struct sim_graph *g = (struct sim_graph *)(void *)hGraph;
	enum cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
	struct exec_node *v = NULL;
	struct sim_exec *e;
	cudaError_t err = cudaSuccess;
	size_t n = 0;

	sim_lock();
	e = exec_get(hGraphExec);
	if (!e || !sim_graph_known_locked(g))
		err = cudaErrorInvalidValue;
	else if (!(v = snapshot(g, &n)))
		err = cudaErrorMemoryAllocation;
	for (size_t i = 0; !err && i < n; i++)
		if (n != e->n || v[i].node.type != e->nodes[i].node.type)
			result = cudaGraphExecUpdateErrorTopologyChanged;
	if (!err && n != e->n)
		result = cudaGraphExecUpdateErrorTopologyChanged;
	if (!err && result != cudaGraphExecUpdateSuccess)
		err = cudaErrorGraphExecUpdateFailure;
	if (!err) {
		free(e->nodes);
		e->nodes = v;
		v = NULL;
	}
	sim_unlock();
	free(v);
	if (resultInfo) {
		memset(resultInfo, 0, sizeof(*resultInfo));
		resultInfo->result = err ? (result ? result : cudaGraphExecUpdateError) : result;
	}
	if (err)
		return sim_fail(err);
	sim_spin_until(t0 + sim_alloc_ns);
	return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
					     const struct cudaKernelNodeParams *pNodeParams)
{
	struct sim_node made;
	struct sim_exec *e;
	cudaError_t err = kernel_node(&made, pNodeParams);
	int found = 0;

	if (err)
		return sim_fail(err);
	sim_lock();
	e = exec_get(hGraphExec);
	for (size_t i = 0; e && i < e->n; i++)
		if ((const void *)e->nodes[i].origin == (const void *)node &&
		    e->nodes[i].node.type == SIM_NODE_KERNEL) {
			e->nodes[i].node = made;
			found = 1;
		}
	sim_unlock();
	return found ? cudaSuccess : sim_fail(cudaErrorInvalidValue);
}

/* Sets the executable graph's nodes instantiated from @node (of @made's type) to @made. */
static cudaError_t exec_node_set(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
				 const struct sim_node *made)
{
	struct sim_exec *e;
	int found = 0;

	sim_lock();
	e = exec_get(hGraphExec);
	for (size_t i = 0; e && i < e->n; i++)
		if ((const void *)e->nodes[i].origin == (const void *)node &&
		    e->nodes[i].node.type == made->type) {
			e->nodes[i].node = *made;
			found = 1;
		}
	sim_unlock();
	return found ? cudaSuccess : sim_fail(cudaErrorInvalidValue);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
					       void *dst, const void *src, size_t count,
					       enum cudaMemcpyKind kind)
{
	struct sim_node made;
	cudaError_t err = sim_copy_node(&made, dst, src, count, kind);

	return err ? sim_fail(err) : exec_node_set(hGraphExec, node, &made);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
					     const struct cudaMemcpy3DParms *p)
{
	struct sim_node made;
	cudaError_t err = copy3d_node(&made, p);

	return err ? sim_fail(err) : exec_node_set(hGraphExec, node, &made);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
						     cudaGraphNode_t node, const void *symbol,
						     const void *src, size_t count, size_t offset,
						     enum cudaMemcpyKind kind)
{
	struct sim_node made;
	cudaError_t err =
	    sim_symbol_node(&made, (char *)symbol, offset, (void *)src, count, 1, kind);

	return err ? sim_fail(err) : exec_node_set(hGraphExec, node, &made);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
						       cudaGraphNode_t node, void *dst,
						       const void *symbol, size_t count,
						       size_t offset, enum cudaMemcpyKind kind)
{
	struct sim_node made;
	cudaError_t err = sim_symbol_node(&made, (char *)symbol, offset, dst, count, 0, kind);

	return err ? sim_fail(err) : exec_node_set(hGraphExec, node, &made);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
					     const struct cudaMemsetParams *p)
{
	struct sim_node made;
	cudaError_t err;

	if (!p)
		return sim_fail(cudaErrorInvalidValue);
	err = sim_memset_node(&made, p->dst, (int)p->value,
			      (size_t)p->elementSize * p->width * (p->height ? p->height : 1));
	return err ? sim_fail(err) : exec_node_set(hGraphExec, node, &made);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	uint64_t t0 = sim_now();
	struct sim_exec **p, *e = NULL;

	sim_lock();
	for (p = &execs; *p; p = &(*p)->next)
		if ((void *)*p == (void *)graphExec) {
			e = *p;
			*p = e->next;
			break;
		}
	sim_unlock();
	if (!e)
		return sim_fail(cudaErrorInvalidValue);
	free(e->nodes);
	free(e);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

/* --- launch --- */

static cudaError_t graph_launch(cudaGraphExec_t graphExec, cudaStream_t stream, int per_thread)
{
	uint64_t t0 = sim_now(), total = 0, end;
	struct exec_node *v = NULL;
	struct sim_exec *e;
	cudaError_t err = cudaSuccess;
	size_t n = 0;

	/* a copy of the nodes: the executable graph may be updated while this one runs */
	sim_lock();
	e = exec_get(graphExec);
	if (!e)
		err = cudaErrorInvalidValue;
	else if ((n = e->n) && !(v = malloc(n * sizeof(*v))))
		err = cudaErrorMemoryAllocation;
	else if (n)
		memcpy(v, e->nodes, n * sizeof(*v));
	sim_unlock();
	for (size_t i = 0; !err && i < n; i++)
		total += v[i].node.dur;
	if (!err)
		err = sim_submit(stream, per_thread, t0 + sim_launch_ns, total, &end);
	for (size_t i = 0; !err && i < n; i++) {
		if (v[i].node.type == SIM_NODE_KERNEL)
			sim_log_launch(v[i].node.kernel, v[i].node.grid, v[i].node.block,
				       v[i].node.shmem, stream);
		else if (v[i].node.type == SIM_NODE_HOST)
			v[i].node.host_fn(v[i].node.user_data); /* at once: the model runs no
								    host thread of its own */
		else
			sim_node_move_data(&v[i].node);
	}
	free(v);
	if (err)
		return sim_fail(err);
	sim_spin_until(t0 + sim_launch_ns);
	return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return graph_launch(graphExec, stream, 0);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return graph_launch(graphExec, stream, 1);
}
