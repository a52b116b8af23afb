/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs replayed from the trace (see graphs.h): one walk over the launches, copies,
 * memsets, syncs and graph rows merged by time. At equal times, launches, copies and memsets
 * come before syncs and graph rows: a node's LAUNCH row and its GRAPH row share one call's ts,
 * and the GRAPH row takes the node the work row left pending for its thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/keymap.h"
#include "graphs.h"

enum node_type { NODE_KERNEL, NODE_COPY, NODE_MEMSET, NODE_CHILD, NODE_HOST, NODE_EVENT };

struct node {
	uint64_t handle; /* cudaGraphNode_t; 0 for a captured node (the trace never names it) */
	uint32_t ref;	 /* NODE_KERNEL: launch key; NODE_COPY, NODE_MEMSET: its row
			    (gr_model_copies(), gr_model_memsets() index); NODE_CHILD: graph id */
	uint8_t type;
};

struct graph {
	struct node *v;
	uint32_t n, cap;
	int capturing; /* a capture's graph, while the capture lasts */
};

/* An executable graph's node list at one time: kernels as launch keys
 * (keys/key_handles[off .. off + nkernels)), copies and memsets as their rows
 * (mems[moff .. moff + nmems)), host and event nodes counted. */
struct snap {
	uint32_t off, nkernels, ncopies, nmemsets;
	uint32_t moff, nmems, nhosts, nevents;
	uint64_t copy_bytes, memset_bytes;
};

/* A copy or memset node of a snapshot. */
struct mem_node {
	uint64_t handle;
	uint32_t row;
	uint8_t type; /* NODE_COPY or NODE_MEMSET */
};

/* (pid, handle) -> id, for one kind of handle. */
struct handles {
	struct gr_keymap map;
	uint32_t *id;
	uint32_t cap;
};

/* Work left by a node's LAUNCH/COPY/MEMSET row for the GRAPH row of the same call. */
struct pending {
	uint64_t ts;
	uint32_t key;
	uint8_t type, valid;
};

struct gr_graphs {
	int any;
	uint64_t *launch_bits, *copy_bits, *memset_bits;
	uint64_t *executed;    /* per launch key */
	uint32_t *launch_snap; /* per graph row: snap id + 1, 0 for none */
	struct snap *snaps;
	uint32_t nsnaps, snaps_cap;
	uint64_t *snap_launches;
	uint32_t *keys; /* kernel nodes of all snaps */
	uint64_t *key_handles;
	uint32_t nkeys, keys_cap;
	struct mem_node *mems;
	uint32_t nmem, mems_cap;
	struct gr_graphs_summary sum;
};

/* Replay state, gone when the build ends. */
struct walk {
	const struct gr_model *m;
	struct gr_graphs *g;
	const struct gr_launch_key *lkeys;
	const struct gr_thread *threads;
	const struct gr_stream *streams;
	size_t nstreams, nthreads;
	uint32_t *stream_capture; /* per stream index: graph id + 1 capturing it, 0 none */
	uint32_t capturing;	  /* captures open */
	struct graph *graphs;
	uint32_t ngraphs, graphs_cap;
	struct handles graph_of, exec_of, event_of, stream_of;
	struct gr_keymap node_of; /* (pid, node handle) -> index of node_at */
	uint64_t *node_at;	  /* graph id << 32 | node index */
	uint32_t node_at_cap;
	struct pending *pend; /* per thread */
	uint64_t budget;      /* nodes still allowed (GR_GRAPHS_MAX_NODES in all) */
};

static int grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, (size_t)c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static uint32_t pid_of_thread(const struct walk *w, uint32_t thread)
{
	return thread < w->nthreads ? w->threads[thread].pid : 0;
}

static uint32_t tid_of_thread(const struct walk *w, uint32_t thread)
{
	return thread < w->nthreads ? w->threads[thread].tid : 0;
}

/* Id of (pid, h) in @hs, or UINT32_MAX. */
static uint32_t handle_find(const struct handles *hs, uint32_t pid, uint64_t h)
{
	uint64_t k[2] = {pid, h};
	int64_t i = gr_keymap_find(&hs->map, k);

	return i < 0 ? UINT32_MAX : hs->id[i];
}

static int handle_set(struct handles *hs, uint32_t pid, uint64_t h, uint32_t id)
{
	uint64_t k[2] = {pid, h};
	uint32_t i;
	int err = gr_keymap_intern(&hs->map, k, &i);

	if (err < 0)
		return err;
	if (grow((void **)&hs->id, &hs->cap, i + 1, sizeof(*hs->id)))
		return -ENOMEM;
	hs->id[i] = id;
	return 0;
}

static void handles_free(struct handles *hs)
{
	gr_keymap_free(&hs->map);
	free(hs->id);
}

static int graph_new(struct walk *w, uint32_t *id)
{
	if (grow((void **)&w->graphs, &w->graphs_cap, w->ngraphs + 1, sizeof(*w->graphs)))
		return -ENOMEM;
	memset(&w->graphs[w->ngraphs], 0, sizeof(*w->graphs));
	*id = w->ngraphs++;
	return 0;
}

/* The graph (pid, h) names, made empty when the trace did not show where it came from. */
static int graph_named(struct walk *w, uint32_t pid, uint64_t h, uint32_t *id)
{
	int err;

	*id = handle_find(&w->graph_of, pid, h);
	if (*id != UINT32_MAX)
		return 0;
	err = graph_new(w, id);
	return err ? err : handle_set(&w->graph_of, pid, h, *id);
}

static int node_add(struct walk *w, uint32_t gid, const struct node *n, uint32_t pid)
{
	struct graph *gr = &w->graphs[gid];

	if (!w->budget) {
		w->g->sum.truncated++;
		return 0;
	}
	w->budget--;
	if (grow((void **)&gr->v, &gr->cap, gr->n + 1, sizeof(*gr->v)))
		return -ENOMEM;
	gr->v[gr->n] = *n;
	if (n->handle) {
		uint64_t k[2] = {pid, n->handle};
		uint32_t i;
		int err = gr_keymap_intern(&w->node_of, k, &i);

		if (err < 0)
			return err;
		if (grow((void **)&w->node_at, &w->node_at_cap, i + 1, sizeof(*w->node_at)))
			return -ENOMEM;
		w->node_at[i] = (uint64_t)gid << 32 | gr->n;
	}
	gr->n++;
	return 0;
}

/* A copy of graph @src as a new graph (a child node's, or a clone). */
static int graph_clone(struct walk *w, uint32_t src, uint32_t *id)
{
	int err = graph_new(w, id);

	for (uint32_t i = 0; !err && i < w->graphs[src].n; i++) {
		struct node n = w->graphs[src].v[i];

		n.handle = 0; /* a copy's nodes have handles of their own, never seen */
		err = node_add(w, *id, &n, 0);
	}
	return err;
}

/* --- executable graphs: snapshots --- */

static int snap_begin(struct walk *w, uint32_t *sid)
{
	struct gr_graphs *g = w->g;
	uint32_t cap = g->snaps_cap;

	if (grow((void **)&g->snaps, &g->snaps_cap, g->nsnaps + 1, sizeof(*g->snaps)))
		return -ENOMEM;
	if (cap != g->snaps_cap) {
		/* the launch counters follow the snapshots' capacity */
		uint64_t *v = realloc(g->snap_launches, (size_t)g->snaps_cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + cap, 0, (size_t)(g->snaps_cap - cap) * sizeof(*v));
		g->snap_launches = v;
	}
	g->snaps[g->nsnaps] = (struct snap){.off = g->nkeys, .moff = g->nmem};
	*sid = g->nsnaps++;
	return 0;
}

static int snap_kernel(struct walk *w, uint32_t sid, uint32_t key, uint64_t handle)
{
	struct gr_graphs *g = w->g;

	if (!w->budget) {
		g->sum.truncated++;
		return 0;
	}
	w->budget--;
	if (grow((void **)&g->keys, &g->keys_cap, g->nkeys + 1, sizeof(*g->keys)))
		return -ENOMEM;
	/* keys_cap is shared: grow the handles to the same capacity */
	uint64_t *h = realloc(g->key_handles, (size_t)g->keys_cap * sizeof(*h));

	if (!h)
		return -ENOMEM;
	g->key_handles = h;
	g->keys[g->nkeys] = key;
	g->key_handles[g->nkeys++] = handle;
	g->snaps[sid].nkernels++;
	return 0;
}

static int snap_mem(struct walk *w, uint32_t sid, uint8_t type, uint32_t row, uint64_t handle)
{
	struct gr_graphs *g = w->g;
	struct snap *sn = &g->snaps[sid];
	size_t n;

	/* as a kernel node: every copy made spends the budget, or set-params repeated on a hostile
	 * trace's big graph would copy without bound */
	if (!w->budget) {
		g->sum.truncated++;
		return 0;
	}
	w->budget--;
	if (grow((void **)&g->mems, &g->mems_cap, g->nmem + 1, sizeof(*g->mems)))
		return -ENOMEM;
	g->mems[g->nmem++] = (struct mem_node){handle, row, type};
	sn->nmems++;
	if (type == NODE_COPY) {
		const struct gr_copy *c = gr_model_copies(w->m, &n);

		sn->ncopies++;
		sn->copy_bytes += row < n ? c[row].bytes : 0;
	} else {
		const struct gr_memset *ms = gr_model_memsets(w->m, &n);

		sn->nmemsets++;
		sn->memset_bytes += row < n ? ms[row].bytes : 0;
	}
	return 0;
}

/* Appends graph @gid's nodes, children expanded, to snapshot @sid. */
static int snap_graph(struct walk *w, uint32_t sid, uint32_t gid, int depth)
{
	const struct graph *gr = &w->graphs[gid];
	int err = 0;

	/*
	 * A child node refers to a copy made when it was added, never to a graph that can change
	 * later, so there are no cycles; the depth bound and the node budget (every node visited
	 * spends one) keep a hostile trace's nesting from costing more than GR_GRAPHS_MAX_NODES.
	 */
	for (uint32_t i = 0; !err && i < gr->n; i++) {
		const struct node *n = &gr->v[i];

		/* kernels, copies and memsets spend it as they are copied in */
		if (n->type != NODE_KERNEL && n->type != NODE_COPY && n->type != NODE_MEMSET) {
			if (!w->budget) {
				w->g->sum.truncated++;
				return 0;
			}
			w->budget--;
		}
		switch (n->type) {
		case NODE_KERNEL:
			err = snap_kernel(w, sid, n->ref, n->handle);
			break;
		case NODE_COPY:
		case NODE_MEMSET:
			err = snap_mem(w, sid, n->type, n->ref, n->handle);
			break;
		case NODE_HOST:
			w->g->snaps[sid].nhosts++;
			break;
		case NODE_EVENT:
			w->g->snaps[sid].nevents++;
			break;
		case NODE_CHILD:
			if (n->ref < w->ngraphs && depth < 64)
				err = snap_graph(w, sid, n->ref, depth + 1);
			break;
		}
	}
	return err;
}

/* @sid's list with the node @handle (of @type) set to @ref, as a new snapshot in *@out. */
static int snap_set_params(struct walk *w, uint32_t sid, uint64_t handle, uint8_t type,
			   uint32_t ref, uint32_t *out)
{
	struct snap old = w->g->snaps[sid];
	int err = snap_begin(w, out);

	for (uint32_t i = 0; !err && i < old.nkernels; i++) {
		uint64_t h = w->g->key_handles[old.off + i];
		/* handle 0: a captured node, which no set-params call can name */
		uint32_t key =
		    h && h == handle && type == NODE_KERNEL ? ref : w->g->keys[old.off + i];

		err = snap_kernel(w, *out, key, h);
	}
	for (uint32_t i = 0; !err && i < old.nmems; i++) {
		struct mem_node mn = w->g->mems[old.moff + i];

		err = snap_mem(w, *out, mn.type,
			       mn.handle && mn.handle == handle && mn.type == type ? ref : mn.row,
			       mn.handle);
	}
	if (!err) {
		w->g->snaps[*out].nhosts = old.nhosts;
		w->g->snaps[*out].nevents = old.nevents;
	}
	return err;
}

/* --- the walk --- */

int gr_graphs_api_is_node(unsigned api)
{
	return gr_api_graph_node_work(api);
}

static void set_bit(uint64_t *bits, size_t i)
{
	bits[i >> 6] |= 1ull << (i & 63);
}

/*
 * A launch, copy or memset on stream index @stream by @thread: 1 when it is a node (left pending
 * for its GRAPH row, or appended to the capture), 0 when it executed.
 */
static int work(struct walk *w, uint64_t ts, uint32_t thread, uint32_t stream, unsigned api,
		uint8_t type, uint32_t key, int *err)
{
	uint32_t cap;

	if (gr_graphs_api_is_node(api)) {
		if (thread < w->nthreads)
			w->pend[thread] = (struct pending){ts, key, type, 1};
		return 1;
	}
	if (!w->capturing || stream >= w->nstreams || !(cap = w->stream_capture[stream]))
		return 0;
	if (type == NODE_KERNEL || type == NODE_COPY || type == NODE_MEMSET) {
		struct node n = {.ref = key, .type = type};

		*err = node_add(w, cap - 1, &n, 0);
	}
	return 1;
}

static uint32_t stream_index(struct walk *w, uint32_t pid, uint64_t handle)
{
	return handle_find(&w->stream_of, pid, handle);
}

static int on_sync(struct walk *w, const struct gr_sync *s)
{
	uint32_t pid = pid_of_thread(w, s->thread), si, cap;

	if (s->kind != GR_SYNC_EVENT_RECORD && s->kind != GR_SYNC_STREAM_WAIT_EVENT)
		return 0;
	/* a sync's handle is raw: the stream table's key says which default stream it is */
	si = stream_index(w, pid, gr_stream_key(tid_of_thread(w, s->thread), s->api, s->handle));
	if (s->kind == GR_SYNC_EVENT_RECORD) {
		cap = si < w->nstreams ? w->stream_capture[si] : 0;
		/* an event recorded outside a capture no longer joins anything */
		if (cap || handle_find(&w->event_of, pid, s->handle2) != UINT32_MAX)
			return handle_set(&w->event_of, pid, s->handle2, cap);
		return 0;
	}
	cap = handle_find(&w->event_of, pid, s->handle2);
	if (cap != UINT32_MAX && cap && w->graphs[cap - 1].capturing && si < w->nstreams &&
	    !w->stream_capture[si])
		w->stream_capture[si] = cap; /* joined: its work goes to the capture's graph */
	return 0;
}

/* The pending work row of @thread for a GRAPH row at @ts, consumed; NULL when none. */
static const struct pending *take_pending(struct walk *w, uint32_t thread, uint64_t ts)
{
	struct pending *p;

	if (thread >= w->nthreads)
		return NULL;
	p = &w->pend[thread];
	if (!p->valid || p->ts != ts)
		return NULL;
	p->valid = 0;
	return p;
}

static int on_graph(struct walk *w, const struct gr_graph *r, size_t row)
{
	struct gr_graphs *g = w->g;
	uint32_t pid = pid_of_thread(w, r->thread), gid, sid, cap;
	const struct pending *p;
	int err = 0;

	switch (r->kind) {
	case GR_GRAPH_BEGIN_CAPTURE:
		if (r->stream >= w->nstreams || w->stream_capture[r->stream])
			return 0;
		err = graph_new(w, &gid);
		if (err)
			return err;
		w->graphs[gid].capturing = 1;
		w->stream_capture[r->stream] = gid + 1;
		w->capturing++;
		return 0;
	case GR_GRAPH_END_CAPTURE:
		if (r->stream >= w->nstreams || !(cap = w->stream_capture[r->stream]))
			return 0;
		/* every stream that joined the capture leaves it */
		for (size_t i = 0; i < w->nstreams; i++)
			if (w->stream_capture[i] == cap)
				w->stream_capture[i] = 0;
		w->graphs[cap - 1].capturing = 0;
		w->capturing--;
		return r->graph ? handle_set(&w->graph_of, pid, r->graph, cap - 1) : 0;
	case GR_GRAPH_INSTANTIATE:
	case GR_GRAPH_EXEC_UPDATE:
		gid = handle_find(&w->graph_of, pid, r->graph);
		if (gid == UINT32_MAX || !r->exec)
			return 0;
		err = snap_begin(w, &sid);
		if (!err)
			err = snap_graph(w, sid, gid, 0);
		return err ? err : handle_set(&w->exec_of, pid, r->exec, sid);
	case GR_GRAPH_LAUNCH:
		g->sum.graph_launches++;
		sid = handle_find(&w->exec_of, pid, r->exec);
		if (sid == UINT32_MAX) {
			g->sum.unknown_launches++;
			return 0;
		}
		g->launch_snap[row] = sid + 1;
		g->snap_launches[sid]++;
		return 0;
	case GR_GRAPH_ADD_NODE: {
		struct node n = {.handle = r->exec};

		p = take_pending(w, r->thread, r->ts);
		if (p) {
			n.ref = p->key;
			n.type = p->type;
		} else if (gr_api_graph_node_only(r->api)) {
			n.type = r->api == GR_API_cudaGraphAddHostNode ||
					 r->api == GR_API_cuGraphAddHostNode
				     ? NODE_HOST
				     : NODE_EVENT;
		} else {
			return 0;
		}
		err = graph_named(w, pid, r->graph, &gid);
		return err ? err : node_add(w, gid, &n, pid);
	}
	case GR_GRAPH_ADD_CHILD: {
		uint32_t child, copy;

		err = graph_named(w, pid, r->graph, &gid);
		if (!err)
			err = graph_named(w, pid, r->exec, &child);
		if (!err)
			err = graph_clone(w, child, &copy);
		if (!err) {
			struct node n = {.ref = copy, .type = NODE_CHILD};

			err = node_add(w, gid, &n, pid);
		}
		return err;
	}
	case GR_GRAPH_NODE_SET_PARAMS: {
		uint64_t k[2] = {pid, r->exec};
		int64_t i = gr_keymap_find(&w->node_of, k);
		struct node *n;

		p = take_pending(w, r->thread, r->ts);
		if (!p || i < 0)
			return 0;
		n = &w->graphs[w->node_at[i] >> 32].v[(uint32_t)w->node_at[i]];
		if (n->type == p->type)
			n->ref = p->key;
		return 0;
	}
	case GR_GRAPH_EXEC_SET_PARAMS:
		p = take_pending(w, r->thread, r->ts);
		sid = handle_find(&w->exec_of, pid, r->exec);
		if (!p || sid == UINT32_MAX)
			return 0;
		err = snap_set_params(w, sid, r->graph, p->type, p->key, &sid);
		return err ? err : handle_set(&w->exec_of, pid, r->exec, sid);
	case GR_GRAPH_CLONE: {
		uint32_t copy;

		gid = handle_find(&w->graph_of, pid, r->graph);
		if (gid == UINT32_MAX || !r->exec)
			return 0;
		err = graph_clone(w, gid, &copy);
		return err ? err : handle_set(&w->graph_of, pid, r->exec, copy);
	}
	}
	return 0;
}

static uint64_t *bits_new(size_t n)
{
	return calloc(n / 64 + 1, sizeof(uint64_t));
}

static int walk_init(struct walk *w, const struct gr_model *m, struct gr_graphs *g)
{
	size_t nkeys, ngraphs, n;

	memset(w, 0, sizeof(*w));
	w->m = m;
	w->g = g;
	w->budget = GR_GRAPHS_MAX_NODES;
	w->lkeys = gr_model_launch_keys(m, &nkeys);
	w->threads = gr_model_threads(m, &w->nthreads);
	w->streams = gr_model_streams(m, &w->nstreams);
	gr_model_graphs(m, &ngraphs);
	gr_keymap_init(&w->graph_of.map, 2);
	gr_keymap_init(&w->exec_of.map, 2);
	gr_keymap_init(&w->event_of.map, 2);
	gr_keymap_init(&w->stream_of.map, 2);
	gr_keymap_init(&w->node_of, 2);
	w->stream_capture = calloc(w->nstreams + 1, sizeof(*w->stream_capture));
	w->pend = calloc(w->nthreads + 1, sizeof(*w->pend));
	g->executed = calloc(nkeys + 1, sizeof(*g->executed));
	g->launch_snap = calloc(ngraphs + 1, sizeof(*g->launch_snap));
	gr_model_launches(m, &n);
	g->launch_bits = bits_new(n);
	gr_model_copies(m, &n);
	g->copy_bits = bits_new(n);
	gr_model_memsets(m, &n);
	g->memset_bits = bits_new(n);
	if (!w->stream_capture || !w->pend || !g->executed || !g->launch_snap || !g->launch_bits ||
	    !g->copy_bits || !g->memset_bits)
		return -ENOMEM;
	for (size_t i = 0; i < w->nstreams; i++) {
		int err =
		    handle_set(&w->stream_of, w->streams[i].pid, w->streams[i].handle, (uint32_t)i);

		if (err)
			return err;
	}
	return 0;
}

static void walk_free(struct walk *w)
{
	for (uint32_t i = 0; i < w->ngraphs; i++)
		free(w->graphs[i].v);
	free(w->graphs);
	handles_free(&w->graph_of);
	handles_free(&w->exec_of);
	handles_free(&w->event_of);
	handles_free(&w->stream_of);
	gr_keymap_free(&w->node_of);
	free(w->node_at);
	free(w->stream_capture);
	free(w->pend);
}

#define TS(arr, i, n) ((i) < (n) ? (arr)[i].ts : UINT64_MAX)

static int walk_run(struct walk *w)
{
	size_t nl, nc, nm, ns, ng, il = 0, ic = 0, im = 0, is = 0, ig = 0;
	const struct gr_launch *l = gr_model_launches(w->m, &nl);
	const struct gr_copy *c = gr_model_copies(w->m, &nc);
	const struct gr_memset *ms = gr_model_memsets(w->m, &nm);
	const struct gr_sync *s = gr_model_syncs(w->m, &ns);
	const struct gr_graph *gr = gr_model_graphs(w->m, &ng);
	struct gr_graphs *g = w->g;
	int err = 0;

	while (!err && (il < nl || ic < nc || im < nm || is < ns || ig < ng)) {
		uint64_t other = TS(c, ic, nc);

		if (TS(ms, im, nm) < other)
			other = TS(ms, im, nm);
		if (TS(s, is, ns) < other)
			other = TS(s, is, ns);
		if (TS(gr, ig, ng) < other)
			other = TS(gr, ig, ng);
		/* launches, the bulk, in one tight run up to the next other call */
		for (; il < nl && l[il].ts <= other; il++) {
			const struct gr_launch_key *k = &w->lkeys[l[il].key];

			if (work(w, l[il].ts, k->thread, k->stream, k->api, NODE_KERNEL, l[il].key,
				 &err)) {
				set_bit(g->launch_bits, il);
				g->sum.node_launches++;
			} else {
				g->executed[l[il].key]++;
			}
		}
		if (err || other == UINT64_MAX)
			break;
		if (ic < nc && c[ic].ts == other) {
			if (work(w, c[ic].ts, c[ic].thread, c[ic].stream, c[ic].api, NODE_COPY,
				 (uint32_t)ic, &err)) {
				set_bit(g->copy_bits, ic);
				g->sum.node_copies++;
			}
			ic++;
		} else if (im < nm && ms[im].ts == other) {
			if (work(w, ms[im].ts, ms[im].thread, ms[im].stream, ms[im].api,
				 NODE_MEMSET, (uint32_t)im, &err)) {
				set_bit(g->memset_bits, im);
				g->sum.node_memsets++;
			}
			im++;
		} else if (is < ns && s[is].ts == other) {
			err = on_sync(w, &s[is++]);
		} else {
			err = on_graph(w, &gr[ig], ig);
			ig++;
		}
	}
	return err;
}

/* Executions per launch key: the direct ones counted by the walk, plus each snapshot's kernels
 * times its launches; the summary's kernels, copies, memsets, host and event nodes executed. */
static void finish(struct gr_graphs *g, const struct gr_model *m)
{
	size_t nc, nm;
	const struct gr_copy *c = gr_model_copies(m, &nc);
	const struct gr_memset *ms = gr_model_memsets(m, &nm);
	struct gr_graphs_summary *sum = &g->sum;

	for (uint32_t sid = 0; sid < g->nsnaps; sid++) {
		uint64_t times = g->snap_launches[sid];
		const struct snap *sn = &g->snaps[sid];

		if (!times)
			continue;
		sum->kernels_executed += times * sn->nkernels;
		for (uint32_t i = 0; i < sn->nkernels; i++)
			g->executed[g->keys[sn->off + i]] += times;
		for (uint32_t i = 0; i < sn->nmems; i++) {
			const struct mem_node *mn = &g->mems[sn->moff + i];

			if (mn->type == NODE_COPY && mn->row < nc) {
				unsigned k = c[mn->row].kind < GR_GRAPHS_COPY_KINDS
						 ? c[mn->row].kind
						 : GR_COPY_DEFAULT;

				sum->copies_executed[k] += times;
				sum->copy_bytes_executed[k] += times * c[mn->row].bytes;
			} else if (mn->type == NODE_MEMSET && mn->row < nm) {
				sum->memsets_executed += times;
				sum->memset_bytes_executed += times * ms[mn->row].bytes;
			}
		}
		sum->mem_launches += sn->nmems ? times : 0;
		sum->hosts_executed += times * sn->nhosts;
		sum->events_executed += times * sn->nevents;
	}
}

int gr_graphs_build(const struct gr_model *m, struct gr_graphs **out)
{
	struct gr_graphs *g = calloc(1, sizeof(*g));
	struct walk w;
	size_t ngraphs;
	int err;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	gr_model_graphs(m, &ngraphs);
	if (!ngraphs) { /* the common case: every call is an execution, nothing to keep */
		*out = g;
		return 0;
	}
	g->any = 1;
	err = walk_init(&w, m, g);
	if (!err)
		err = walk_run(&w);
	walk_free(&w);
	if (err) {
		gr_graphs_free(g);
		return err;
	}
	finish(g, m);
	*out = g;
	return 0;
}

void gr_graphs_free(struct gr_graphs *g)
{
	if (!g)
		return;
	free(g->launch_bits);
	free(g->copy_bits);
	free(g->memset_bits);
	free(g->executed);
	free(g->launch_snap);
	free(g->snaps);
	free(g->snap_launches);
	free(g->keys);
	free(g->key_handles);
	free(g->mems);
	free(g);
}

int gr_graphs_any(const struct gr_graphs *g)
{
	return g && g->any;
}

const uint64_t *gr_graphs_launch_bits(const struct gr_graphs *g)
{
	return g ? g->launch_bits : NULL;
}

const uint64_t *gr_graphs_copy_bits(const struct gr_graphs *g)
{
	return g ? g->copy_bits : NULL;
}

const uint64_t *gr_graphs_memset_bits(const struct gr_graphs *g)
{
	return g ? g->memset_bits : NULL;
}

int gr_graphs_launch_work(const struct gr_graphs *g, size_t i, struct gr_graph_work *w)
{
	const struct snap *sn;
	uint32_t sid;

	if (!g || !g->launch_snap || !(sid = g->launch_snap[i]))
		return 0;
	sn = &g->snaps[sid - 1];
	w->keys = g->keys ? g->keys + sn->off : NULL;
	w->nkernels = sn->nkernels;
	w->ncopies = sn->ncopies;
	w->nmemsets = sn->nmemsets;
	w->nhosts = sn->nhosts;
	w->nevents = sn->nevents;
	w->copy_bytes = sn->copy_bytes;
	w->memset_bytes = sn->memset_bytes;
	return 1;
}

const uint64_t *gr_graphs_executed_by_key(const struct gr_graphs *g)
{
	return g && g->any ? g->executed : NULL;
}

const struct gr_graphs_summary *gr_graphs_summary(const struct gr_graphs *g)
{
	static const struct gr_graphs_summary none;

	return g ? &g->sum : &none;
}
