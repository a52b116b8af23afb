/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's views (html_views.h): the iterations the report's iteration finder walked,
 * every iteration's step budget (budget.h, as the report computes it), the timeline of three of
 * them (or of the busiest 50 ms without one), the flame graph of the CUDA calls' stacks. Scheduler
 * states come from the shared thread timeline (timeline.h), frames are named as every report
 * names them (frames.h), graph nodes and graph launches' kernels as the report counts them
 * (graphs.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/figures/blocked.h"
#include "analyze/figures/frames.h"
#include "analyze/figures/graphs.h"
#include "analyze/figures/timeline.h"
#include "analyze/util/json.h"
#include "analyze/util/strtab.h"
#include "analyze/util/syscalls.h"
#include "analyze/util/units.h"
#include "html_views.h"

#define FLAME_DEPTH 100 /* frames of a stack at most (the outermost beyond are left out) */

static const char *const type_names[GR_HTML_NTYPES] = {
    "launch",	     "copy",	      "memset",	       "sync",		 "alloc",
    "free",	     "graph",	      "nccl",	       "other",		 "failed",
    "runnable",	     "blocked",	      "gpu_kernel",    "gpu_memcpy",	 "gpu_memset",
    "kernel",	     "blocked_gil",   "blocked_lock",  "blocked_input",	 "blocked_disk",
    "blocked_sleep", "blocked_child", "blocked_other", "blocked_stopped"};
_Static_assert(GR_HTML_BLOCKED_STOPPED - GR_HTML_BLOCKED_GIL == GR_BLOCK_STOPPED - GR_BLOCK_GIL,
	       "a span type per known blocked reason");

const char *gr_html_span_type_name(unsigned type)
{
	return type < GR_HTML_NTYPES ? type_names[type] : "other";
}

static const char *const label_names[] = {"first", "median", "slowest", "whole"};
static const char *const mark_names[GR_HTML_NMARKS] = {"median", "p90", "slowest"};

/* The growing span list of one window. */
struct cand {
	struct gr_html_span *v;
	size_t n, cap;
};

struct hv {
	const struct gr_model *m;
	const struct gr_report *r;
	struct gr_html_views *v;
	struct gr_arena arena;
	struct gr_strtab strs;
	struct gr_graphs *graphs;
	struct gr_probe_cost pc; /* a copy: compensating counts clamps in it */
	int err;
	/* interned names: open addressing over indices into v->names */
	uint32_t *slot;
	size_t nslots, names_cap;
	/* tracks, made when a span first needs them */
	int32_t *thread_track, *stream_track;
	size_t tracks_cap;
	struct cand cand[GR_HTML_NWINDOWS];
};

static void *grow(void *p, size_t *cap, size_t need, size_t size, int *err)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	q = realloc(p, c * size);
	if (!q) {
		*err = -ENOMEM;
		return NULL;
	}
	*cap = c;
	return q;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* The index of @s in the names, added when new; -1 when out of memory. */
static int32_t name_idx(struct hv *x, const char *s)
{
	struct gr_html_views *v = x->v;
	size_t i;

	if (x->err)
		return -1;
	if ((v->nnames + 1) * 2 > x->nslots) {
		size_t n = x->nslots ? x->nslots * 2 : 1024;
		uint32_t *sl = malloc(n * sizeof(*sl));

		if (!sl) {
			x->err = -ENOMEM;
			return -1;
		}
		memset(sl, 0xff, n * sizeof(*sl));
		for (size_t k = 0; k < v->nnames; k++) {
			for (i = hash_str(v->names[k]) & (n - 1); sl[i] != UINT32_MAX;
			     i = (i + 1) & (n - 1))
				;
			sl[i] = (uint32_t)k;
		}
		free(x->slot);
		x->slot = sl;
		x->nslots = n;
	}
	for (i = hash_str(s) & (x->nslots - 1); x->slot[i] != UINT32_MAX;
	     i = (i + 1) & (x->nslots - 1))
		if (!strcmp(v->names[x->slot[i]], s))
			return (int32_t)x->slot[i];
	v->names = grow(v->names, &x->names_cap, v->nnames + 1, sizeof(*v->names), &x->err);
	if (x->err)
		return -1;
	v->names[v->nnames] = gr_strtab_intern_str(&x->strs, s);
	if (!v->names[v->nnames]) {
		x->err = -ENOMEM;
		return -1;
	}
	x->slot[i] = (uint32_t)v->nnames;
	return (int32_t)v->nnames++;
}

static struct gr_html_track *new_track(struct hv *x, enum gr_html_track_kind kind, uint32_t pid,
				       const char *label, int32_t *id)
{
	struct gr_html_views *v = x->v;
	struct gr_html_track *t;

	v->tracks = grow(v->tracks, &x->tracks_cap, v->ntracks + 1, sizeof(*v->tracks), &x->err);
	if (x->err)
		return NULL;
	t = &v->tracks[v->ntracks];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->pid = pid;
	t->rank = -1;
	t->label = gr_strtab_intern_str(&x->strs, label);
	if (!t->label) {
		x->err = -ENOMEM;
		return NULL;
	}
	*id = (int32_t)v->ntracks++;
	return t;
}

static int32_t rank_of(const struct hv *x, uint32_t process)
{
	size_t np;
	const struct gr_process *p = gr_model_processes(x->m, &np);

	return process < np ? p[process].rank : -1;
}

static int32_t thread_track(struct hv *x, uint32_t thread)
{
	size_t nth;
	const struct gr_thread *th = gr_model_threads(x->m, &nth);
	struct gr_html_track *t;
	const char *nv;
	char label[256];

	if (thread >= nth)
		return -1;
	if (x->thread_track[thread] >= 0)
		return x->thread_track[thread];
	/* the name the program gave the thread with NVTX, where it gave one */
	nv = gr_nvtx_thread_name(&x->r->nvtx.set, th[thread].pid, th[thread].tid);
	snprintf(label, sizeof(label), "%s %u/%u",
		 nv && nv[0]	      ? nv
		 : th[thread].comm[0] ? th[thread].comm
				      : "?",
		 th[thread].pid, th[thread].tid);
	t = new_track(x, GR_HTML_TRACK_THREAD, th[thread].pid, label, &x->thread_track[thread]);
	if (!t)
		return -1;
	t->tid = th[thread].tid;
	t->comm = th[thread].comm;
	t->rank = rank_of(x, th[thread].process);
	return x->thread_track[thread];
}

static int32_t stream_track(struct hv *x, uint32_t stream)
{
	size_t ns;
	const struct gr_stream *s = gr_model_streams(x->m, &ns);
	struct gr_html_track *t;
	const char *nv;
	char name[64], label[128];

	if (stream >= ns)
		return -1;
	if (x->stream_track[stream] >= 0)
		return x->stream_track[stream];
	nv = s[stream].per_thread
		 ? NULL
		 : gr_nvtx_stream_name(&x->r->nvtx.set, s[stream].pid, s[stream].handle);
	snprintf(label, sizeof(label), "%s (pid %u)",
		 nv && nv[0] ? nv : gr_stream_name(&s[stream], name, sizeof(name)), s[stream].pid);
	t = new_track(x, GR_HTML_TRACK_STREAM, s[stream].pid, label, &x->stream_track[stream]);
	if (!t)
		return -1;
	t->tid = s[stream].per_thread ? s[stream].tid : 0;
	t->stream = s[stream].handle;
	t->has_stream = 1;
	return x->stream_track[stream];
}

/* GPU rows' (pid, device, stream): few, found by a walk over the tracks. */
static int32_t gpu_track(struct hv *x, const struct gr_gpu *g)
{
	struct gr_html_track *t;
	char label[128];
	int32_t id;

	for (size_t i = 0; i < x->v->ntracks; i++) {
		t = &x->v->tracks[i];
		if (t->kind == GR_HTML_TRACK_GPU && t->pid == g->pid && t->device == g->device &&
		    t->stream == g->stream)
			return (int32_t)i;
	}
	snprintf(label, sizeof(label), "GPU %u stream %u (pid %u)", g->device, g->stream, g->pid);
	t = new_track(x, GR_HTML_TRACK_GPU, g->pid, label, &id);
	if (!t)
		return -1;
	t->device = g->device;
	t->stream = g->stream;
	t->has_stream = 1;
	return id;
}

/* A span of [start, start + dur] in every window [start, end) it overlaps. */
static void span(struct hv *x, int32_t track, unsigned type, const char *name, const char *detail,
		 uint64_t start, uint64_t dur)
{
	int32_t ni = -1, di = -1;

	if (track < 0 || x->err)
		return;
	for (size_t w = 0; w < x->v->nwindows; w++) {
		const struct gr_html_window *win = &x->v->windows[w];
		struct cand *c = &x->cand[w];

		if (start >= win->end || start + dur < win->start)
			continue;
		if (ni < 0) {
			ni = name_idx(x, name);
			di = detail ? name_idx(x, detail) : -1;
			if (x->err)
				return;
		}
		c->v = grow(c->v, &c->cap, c->n + 1, sizeof(*c->v), &x->err);
		if (x->err)
			return;
		c->v[c->n++] = (struct gr_html_span){
		    .track = (uint32_t)track,
		    .type = (uint8_t)type,
		    .name = (uint32_t)ni,
		    .detail = di,
		    .start = start,
		    .dur = dur,
		};
	}
}

/* Whether [start, start + dur] overlaps any window: most calls do not, and need no text. */
static int wanted(const struct hv *x, uint64_t start, uint64_t dur)
{
	for (size_t w = 0; w < x->v->nwindows; w++)
		if (start < x->v->windows[w].end && start + dur >= x->v->windows[w].start)
			return 1;
	return 0;
}

static const char *dims(char *buf, size_t len, const char *api, const uint32_t g[3],
			const uint32_t b[3])
{
	snprintf(buf, len, "%s%sgrid (%u,%u,%u) block (%u,%u,%u)", api ? api : "", api ? " " : "",
		 g[0], g[1], g[2], b[0], b[1], b[2]);
	return buf;
}

static const char *bytes_detail(char *buf, size_t len, const char *what, uint64_t bytes)
{
	char b[32];

	snprintf(buf, len, "%s%s%s", what ? what : "", what ? " " : "",
		 gr_units_bytes(b, sizeof(b), (double)bytes));
	return buf;
}

static void launch_spans(struct hv *x)
{
	size_t n;
	const struct gr_launch *l = gr_model_launches(x->m, &n);
	const struct gr_launch_key *lk = gr_model_launch_keys(x->m, NULL);
	const struct gr_kernel *k = gr_model_kernels(x->m, NULL);
	const struct gr_config *cfg = gr_model_configs(x->m, NULL);
	char d[160];

	for (size_t i = 0; i < n && !x->err; i++) {
		const struct gr_launch_key *key = &lk[l[i].key];
		uint64_t dur = gr_launch_dur(key, &l[i]);
		int node = gr_graphs_launch_is_node(x->graphs, i);

		if (!wanted(x, l[i].ts, dur))
			continue;
		dims(d, sizeof(d), gr_api_name(key->api), cfg[key->config].grid,
		     cfg[key->config].block);
		if (gr_config_has_cluster(&cfg[key->config])) {
			size_t at = strlen(d);
			const uint32_t *c = cfg[key->config].cluster;

			snprintf(d + at, sizeof(d) - at, " cluster (%u,%u,%u)", c[0], c[1], c[2]);
		}
		/* a graph node executed nothing: no launch, no instant on its stream */
		span(x, thread_track(x, key->thread), node ? GR_HTML_OTHER : GR_HTML_LAUNCH,
		     k[key->kernel].name, node ? "graph node: executed nothing" : d, l[i].ts, dur);
		if (!node)
			span(x, stream_track(x, key->stream), GR_HTML_KERNEL, k[key->kernel].name,
			     NULL, l[i].ts, 0);
	}
}

static void call_spans(struct hv *x)
{
	size_t n;
	char d[96];
	const struct gr_copy *c = gr_model_copies(x->m, &n);

	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, c[i].ts, c[i].dur))
			span(x, thread_track(x, c[i].thread),
			     gr_graphs_copy_is_node(x->graphs, i) ? GR_HTML_OTHER : GR_HTML_COPY,
			     gr_api_name(c[i].api),
			     bytes_detail(d, sizeof(d), gr_copy_kind_name(c[i].kind), c[i].bytes),
			     c[i].ts, c[i].dur);
	const struct gr_memset *ms = gr_model_memsets(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, ms[i].ts, ms[i].dur))
			span(x, thread_track(x, ms[i].thread),
			     gr_graphs_memset_is_node(x->graphs, i) ? GR_HTML_OTHER
								    : GR_HTML_MEMSET,
			     gr_api_name(ms[i].api), bytes_detail(d, sizeof(d), NULL, ms[i].bytes),
			     ms[i].ts, ms[i].dur);
	const struct gr_sync *sy = gr_model_syncs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, sy[i].ts, sy[i].dur))
			/* event records and stream waits do not block the host */
			span(x, thread_track(x, sy[i].thread),
			     sy[i].kind <= GR_SYNC_EVENT ? GR_HTML_SYNC : GR_HTML_OTHER,
			     gr_api_name(sy[i].api), NULL, sy[i].ts, sy[i].dur);
	const struct gr_alloc *al = gr_model_allocs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, al[i].ts, al[i].dur))
			span(x, thread_track(x, al[i].thread), GR_HTML_ALLOC,
			     gr_api_name(al[i].api), bytes_detail(d, sizeof(d), NULL, al[i].bytes),
			     al[i].ts, al[i].dur);
	const struct gr_free *fr = gr_model_frees(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, fr[i].ts, fr[i].dur))
			span(x, thread_track(x, fr[i].thread), GR_HTML_FREE, gr_api_name(fr[i].api),
			     NULL, fr[i].ts, fr[i].dur);
	const struct gr_graph *g = gr_model_graphs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, g[i].ts, g[i].dur))
			span(x, thread_track(x, g[i].thread), GR_HTML_GRAPH, gr_api_name(g[i].api),
			     NULL, g[i].ts, g[i].dur);
	const struct gr_comm_call *cc = gr_model_comm_calls(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		if (wanted(x, cc[i].ts, cc[i].dur))
			span(x, thread_track(x, cc[i].thread), GR_HTML_NCCL, gr_api_name(cc[i].api),
			     bytes_detail(d, sizeof(d), gr_comm_kind_name(cc[i].kind), cc[i].bytes),
			     cc[i].ts, cc[i].dur);
}

/* Calls set aside (model.h struct gr_aside): failed, nested or in flight, drawn as failed. */
static void aside_spans(struct hv *x)
{
	size_t n;
	const struct gr_aside *a = gr_model_asides(x->m, &n);
	char d[96];

	for (size_t i = 0; i < n && !x->err; i++) {
		const char *st;
		unsigned api;

		if (!wanted(x, a[i].ts, a[i].dur))
			continue;
		switch (a[i].kind) {
		case GR_K_LAUNCH:
			api = gr_model_launch_keys(x->m, NULL)[a[i].u.launch.key].api;
			break;
		case GR_K_COPY:
			api = a[i].u.copy.api;
			break;
		case GR_K_MEMSET:
			api = a[i].u.memset.api;
			break;
		case GR_K_ALLOC:
			api = a[i].u.alloc.api;
			break;
		case GR_K_FREE:
			api = a[i].u.free.api;
			break;
		case GR_K_SYNC:
			api = a[i].u.sync.api;
			break;
		default:
			api = a[i].u.graph.api;
		}
		if (a[i].call & GR_CALL_IN_FLIGHT)
			st = "in flight";
		else if (GR_CALL_DEPTH(a[i].call))
			st = "nested in another call";
		else {
			st = gr_status_name(api, a[i].status);
			if (!st) {
				snprintf(d, sizeof(d), "status %u", a[i].status);
				st = d;
			}
		}
		span(x, thread_track(x, gr_aside_thread(x->m, &a[i])), GR_HTML_FAILED,
		     gr_api_name(api), st, a[i].ts, a[i].dur);
	}
}

static void gpu_spans(struct hv *x)
{
	size_t n;
	const struct gr_gpu *g = gr_model_gpus(x->m, &n);
	char d[96];

	for (size_t i = 0; i < n && !x->err; i++) {
		if (!wanted(x, g[i].ts, g[i].dur))
			continue;
		if (g[i].kind == GR_GPU_KERNEL)
			span(x, gpu_track(x, &g[i]), GR_HTML_GPU_KERNEL, g[i].name,
			     dims(d, sizeof(d), NULL, g[i].grid, g[i].block), g[i].ts, g[i].dur);
		else if (g[i].kind == GR_GPU_MEMCPY)
			span(x, gpu_track(x, &g[i]), GR_HTML_GPU_MEMCPY, "memcpy",
			     bytes_detail(d, sizeof(d), gr_gpu_copy_kind_name(g[i].copy_kind),
					  g[i].bytes),
			     g[i].ts, g[i].dur);
		else if (g[i].kind == GR_GPU_MEMSET)
			span(x, gpu_track(x, &g[i]), GR_HTML_GPU_MEMSET, "memset",
			     bytes_detail(d, sizeof(d), NULL, g[i].bytes), g[i].ts, g[i].dur);
	}
}

/* ---- scheduler waits, from the shared thread timeline ---- */

struct sched_ctx {
	struct hv *x;
	int recorded; /* the trace records why threads blocked (gr_block_ctx's) */
};

/*
 * A blocked wait whose reason is known: "blocked: GIL wait" (@name), coloured by its reason
 * (the type returned), detail "futex at SITE; woken by COMM (tid N) at SITE, stack: FRAMES"
 * (@detail: the waker's innermost frames, what the page shows on hover).
 */
static unsigned blocked_text(const struct hv *x, const struct gr_block_why *why, char *name,
			     size_t nlen, char *detail, size_t dlen)
{
	const struct gr_stack *st;
	const char *sc = gr_syscall_name(why->syscall), *comm;
	char site[GR_FRAME_TEXT];
	size_t at, nst;

	snprintf(name, nlen, "blocked: %s", gr_block_reason_words(why->reason));
	gr_block_site(x->m, why->stack, site, sizeof(site));
	at = (size_t)snprintf(detail, dlen, "%s%s%s", sc ? sc : "no system call known",
			      *site ? " at " : "", site);
	if (why->woken && at < dlen) {
		comm = why->waker_tid ? gr_model_comm(x->m, why->waker_tid) : "an interrupt";
		gr_block_site(x->m, why->waker_stack, site, sizeof(site));
		at +=
		    (size_t)snprintf(detail + at, dlen - at, "; woken by %s (tid %u)%s%s",
				     comm ? comm : "?", why->waker_tid, *site ? " at " : "", site);
	}
	st = gr_model_stacks(x->m, &nst);
	for (uint32_t i = 0;
	     why->waker_stack < nst && i < st[why->waker_stack].nframes && i < 6 && at < dlen;
	     i++) {
		struct gr_frame f;

		gr_frame_describe(x->m, st[why->waker_stack].pid, st[why->waker_stack].frames[i],
				  &f);
		at += (size_t)snprintf(detail + at, dlen - at, "%s%s", i ? " <- " : "; its stack: ",
				       gr_frame_format(&f, site, sizeof(site)));
	}
	if (why->reason == GR_BLOCK_UNKNOWN)
		return GR_HTML_BLOCKED;
	return GR_HTML_BLOCKED_GIL + (why->reason - GR_BLOCK_GIL);
}

static int on_state(void *ctx, const struct gr_state_span *sp, const struct gr_block_why *why)
{
	struct sched_ctx *c = ctx;
	char name[64], detail[4 * GR_FRAME_TEXT];
	unsigned type;

	/* running is not drawn: the calls show what the thread ran */
	if ((sp->state != GR_STATE_RUNNABLE && sp->state != GR_STATE_BLOCKED) ||
	    sp->end <= sp->start || !wanted(c->x, sp->start, sp->end - sp->start))
		return c->x->err;
	if (sp->state == GR_STATE_BLOCKED && c->recorded) {
		type = blocked_text(c->x, why, name, sizeof(name), detail, sizeof(detail));
		span(c->x, thread_track(c->x, sp->thread), type, name, detail, sp->start,
		     sp->end - sp->start);
	} else {
		span(c->x, thread_track(c->x, sp->thread),
		     sp->state == GR_STATE_RUNNABLE ? GR_HTML_RUNNABLE : GR_HTML_BLOCKED,
		     gr_thread_state_name(sp->state), NULL, sp->start, sp->end - sp->start);
	}
	return c->x->err;
}

/* As export's CPU-state tracks: every model thread tracked, a state whose start was not recorded
 * not drawn, each thread's last state ending with the trace or its process's exit. */
static void sched_spans(struct hv *x)
{
	struct sched_ctx c = {.x = x};
	struct gr_block_ctx bc;
	size_t n;
	int err;

	gr_model_scheds(x->m, &n);
	if (!n || !x->v->nwindows)
		return;
	gr_block_ctx_init(&bc, x->m);
	c.recorded = bc.recorded;
	err = gr_block_replay(x->m, UINT64_MAX, x->r->last_ts, GR_BLOCK_REPLAY_WHY, on_state, &c);
	if (err && !x->err)
		x->err = err;
}

/* ---- windows ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Iteration @j's window: its start to the next one's (the last: to the loop's end). */
static void iter_window(struct hv *x, enum gr_html_window_label label, uint64_t j)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_html_window *w;

	for (size_t i = 0; i < x->v->nwindows; i++)
		if (x->v->windows[i].index == (int64_t)j)
			return; /* one iteration two labels: drawn once, under the first */
	w = &x->v->windows[x->v->nwindows++];
	w->label = label;
	w->index = (int64_t)j;
	w->start = it->starts[j];
	w->end = j + 1 < it->count ? it->starts[j + 1] : it->end_ts;
}

/*
 * With an iteration: the first steady one (the first no slower than 1.5 x the median: warm-up
 * iterations are not the loop's), the median one (the earliest of the median time), the
 * slowest (the earliest of the largest time). Without: the 50 ms holding the most API calls.
 */
static void choose_windows(struct hv *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	uint64_t K = it->count, med, first = 0, slow = 0, medj = UINT64_MAX;
	uint64_t *sorted;

	if (it->found && it->starts && K) {
		sorted = malloc(K * sizeof(*sorted));
		if (!sorted) {
			x->err = -ENOMEM;
			return;
		}
		memcpy(sorted, it->durs, K * sizeof(*sorted));
		gr_qsort(sorted, K, sizeof(*sorted), cmp_u64);
		med = sorted[(K - 1) / 2];
		free(sorted);
		for (uint64_t j = K; j-- > 0;)
			if (it->durs[j] * 2 <= med * 3)
				first = j;
		for (uint64_t j = 0; j < K; j++) {
			if (it->durs[j] > it->durs[slow])
				slow = j;
			if (it->durs[j] == med && medj == UINT64_MAX)
				medj = j;
		}
		iter_window(x, GR_HTML_FIRST, first);
		iter_window(x, GR_HTML_MEDIAN, medj);
		iter_window(x, GR_HTML_SLOWEST, slow);
		return;
	}
	/* the busiest 50 ms: call entries, sorted; the widest count in a 50 ms reach */
	size_t n, nl, total = 0, best = 0, bi = 0;
	const struct gr_launch *l = gr_model_launches(x->m, &nl);
	const struct gr_copy *c = gr_model_copies(x->m, &n);
	const struct gr_memset *ms;
	const struct gr_sync *sy;
	size_t nc = n, nms, nsy;
	uint64_t *ts;

	ms = gr_model_memsets(x->m, &nms);
	sy = gr_model_syncs(x->m, &nsy);
	total = nl + nc + nms + nsy;
	struct gr_html_window *w = &x->v->windows[x->v->nwindows++];

	w->label = GR_HTML_WHOLE;
	w->index = -1;
	w->start = x->r->first_ts;
	w->end = x->r->last_ts;
	if (!total || x->r->last_ts - x->r->first_ts <= GR_HTML_WHOLE_NS)
		return;
	ts = malloc(total * sizeof(*ts));
	if (!ts) {
		x->err = -ENOMEM;
		return;
	}
	n = 0;
	for (size_t i = 0; i < nl; i++)
		ts[n++] = l[i].ts;
	for (size_t i = 0; i < nc; i++)
		ts[n++] = c[i].ts;
	for (size_t i = 0; i < nms; i++)
		ts[n++] = ms[i].ts;
	for (size_t i = 0; i < nsy; i++)
		ts[n++] = sy[i].ts;
	gr_qsort(ts, n, sizeof(*ts), cmp_u64);
	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < n && ts[j] - ts[i] <= GR_HTML_WHOLE_NS)
			j++;
		if (j - i > best) {
			best = j - i;
			bi = i;
		}
	}
	w->start = ts[bi];
	w->end = ts[bi] + GR_HTML_WHOLE_NS;
	free(ts);
}

static int cmp_span_dur(const void *a, const void *b)
{
	const struct gr_html_span *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_span_start(const void *a, const void *b)
{
	const struct gr_html_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->track < y->track ? -1 : x->track > y->track;
}

/* Each window's spans, the longest GR_HTML_WINDOW_SPANS kept, by start, into v->spans. */
/* What a span adds to the data: its row, and each name it is first to use. */
static size_t span_bytes(const struct gr_html_views *v, const struct gr_html_span *sp,
			 uint8_t *named)
{
	size_t n = GR_HTML_SPAN_ROW_BYTES;

	if (!named[sp->name]) {
		named[sp->name] = 1;
		n += strlen(v->names[sp->name]) + 4;
	}
	if (sp->detail >= 0 && !named[sp->detail]) {
		named[sp->detail] = 1;
		n += strlen(v->names[sp->detail]) + 4;
	}
	return n;
}

/*
 * Each window keeps its spans, longest first when they are more than GR_HTML_WINDOW_SPANS or
 * than GR_HTML_WINDOW_BYTES of data (rows and the names they bring: thousands of distinct
 * kernel names made one window megabytes), then in time order; the names no kept span uses go.
 */
static void gather_spans(struct hv *x)
{
	struct gr_html_views *v = x->v;
	size_t total = 0, nnames = 0;
	uint8_t *named = calloc(v->nnames + 1, 1);
	uint32_t *renum = NULL;

	for (size_t w = 0; w < v->nwindows; w++)
		total += x->cand[w].n < GR_HTML_WINDOW_SPANS ? x->cand[w].n : GR_HTML_WINDOW_SPANS;
	v->spans = malloc((total + 1) * sizeof(*v->spans));
	renum = malloc((v->nnames + 1) * sizeof(*renum));
	if (!v->spans || !named || !renum) {
		x->err = -ENOMEM;
		goto out;
	}
	for (size_t w = 0; w < v->nwindows; w++) {
		struct cand *c = &x->cand[w];
		size_t keep = 0, bytes = 0;

		for (size_t i = 0; i < c->n; i++)
			bytes += span_bytes(v, &c->v[i], named);
		memset(named, 0, v->nnames);
		if (c->n > GR_HTML_WINDOW_SPANS || bytes > GR_HTML_WINDOW_BYTES) {
			gr_qsort(c->v, c->n, sizeof(*c->v), cmp_span_dur);
			for (bytes = 0; keep < c->n && keep < GR_HTML_WINDOW_SPANS; keep++) {
				bytes += span_bytes(v, &c->v[keep], named);
				if (bytes > GR_HTML_WINDOW_BYTES)
					break;
			}
			memset(named, 0, v->nnames);
			v->truncated += c->n - keep;
		} else {
			keep = c->n;
		}
		/* a window without spans has no array: qsort() and memcpy() take none */
		if (keep) {
			gr_qsort(c->v, keep, sizeof(*c->v), cmp_span_start);
			memcpy(v->spans + v->nspans, c->v, keep * sizeof(*c->v));
		}
		v->nspans += keep;
		v->window_spans[w] = keep;
	}
	/* the names of the spans kept, in their first order */
	for (size_t i = 0; i < v->nspans; i++) {
		named[v->spans[i].name] = 1;
		if (v->spans[i].detail >= 0)
			named[v->spans[i].detail] = 1;
	}
	for (size_t k = 0; k < v->nnames; k++) {
		renum[k] = (uint32_t)nnames;
		if (named[k])
			v->names[nnames++] = v->names[k];
	}
	for (size_t i = 0; i < v->nspans; i++) {
		v->spans[i].name = renum[v->spans[i].name];
		if (v->spans[i].detail >= 0)
			v->spans[i].detail = (int32_t)renum[v->spans[i].detail];
	}
	v->nnames = nnames;
out:
	free(named);
	free(renum);
}

/* ---- iterations ---- */

static void iterations(struct hv *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_html_views *v = x->v;
	uint64_t K = it->count, per;
	uint64_t *d;

	v->iter_found = it->found;
	v->iter_thread = it->thread;
	if (!it->found || !it->starts)
		return;
	v->iter_count = K;
	v->binned = K > GR_HTML_ITER_BINS;
	per = v->binned ? (K + GR_HTML_ITER_BINS - 1) / GR_HTML_ITER_BINS : 1;
	v->points = calloc((K + per - 1) / per, sizeof(*v->points));
	d = malloc(per * sizeof(*d));
	if (!v->points || !d) {
		free(d);
		x->err = -ENOMEM;
		return;
	}
	for (uint64_t j = 0; j < K; j += per) {
		struct gr_html_iter_point *p = &v->points[v->npoints++];
		uint64_t n = K - j < per ? K - j : per;

		memcpy(d, it->durs + j, n * sizeof(*d));
		gr_qsort(d, n, sizeof(*d), cmp_u64);
		p->start = it->starts[j];
		p->min = d[0];
		p->median = d[(n - 1) / 2];
		p->max = d[n - 1];
		p->n = n;
	}
	free(d);
}

/* ---- flame graph ---- */

/* One CUDA call, reduced to what places it in the graph and its weights. */
struct fcall {
	uint32_t stack;
	uint32_t leaf; /* top bit: an API (its enum gr_api), else a kernel name id */
	uint64_t launches, host_ns;
};

#define LEAF_API 0x80000000u

static int cmp_fcall(const void *a, const void *b)
{
	const struct fcall *x = a, *y = b;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* The calls merged by (stack, leaf) as they come: a run makes millions of calls from a few
 * hundred places, and a row per call was the page's largest array. */
struct fcalls {
	struct fcall *v; /* one per (stack, leaf), in first-seen order */
	size_t n, cap;
	uint32_t *slot; /* open addressing: 0 empty, else an index into v plus one */
	size_t nslots;
};

static size_t fcall_hash(uint32_t stack, uint32_t leaf, size_t nslots)
{
	uint64_t h = ((uint64_t)stack << 32 | leaf) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (nslots - 1);
}

/* Room for one more distinct call, the slots at most half full. */
static int fcall_room(struct fcalls *f)
{
	size_t ns = f->nslots ? f->nslots : 1024;
	uint32_t *slot;

	if (f->n + 1 >= (size_t)UINT32_MAX)
		return -ENOMEM;
	if (2 * (f->n + 1) <= f->nslots)
		return 0;
	while (2 * (f->n + 1) > ns)
		ns *= 2;
	slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		size_t h = fcall_hash(f->v[i].stack, f->v[i].leaf, ns);

		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(f->slot);
	f->slot = slot;
	f->nslots = ns;
	return 0;
}

static void fcall_add(struct hv *x, struct fcalls *f, uint32_t stack, uint32_t leaf,
		      uint64_t launches, uint64_t dur)
{
	uint64_t host_ns = gr_probe_cost_dur(&x->pc, dur);
	struct fcall *e;
	size_t h;

	if (f->nslots) {
		for (h = fcall_hash(stack, leaf, f->nslots); f->slot[h];
		     h = (h + 1) & (f->nslots - 1)) {
			e = &f->v[f->slot[h] - 1];
			if (e->stack == stack && e->leaf == leaf) {
				e->launches += launches;
				e->host_ns += host_ns;
				return;
			}
		}
	}
	x->err = fcall_room(f);
	f->v = x->err ? f->v : grow(f->v, &f->cap, f->n + 1, sizeof(*f->v), &x->err);
	if (x->err)
		return;
	for (h = fcall_hash(stack, leaf, f->nslots); f->slot[h]; h = (h + 1) & (f->nslots - 1))
		;
	f->slot[h] = (uint32_t)(f->n + 1);
	f->v[f->n++] = (struct fcall){stack, leaf, launches, host_ns};
}

/* The child of @parent named @name (interned), added when new; -1 when out of memory. */
/* The child of @parent named @name (interned) in the tree @*nodes of @*n (the launch flame graph
 * or the NVTX one), added when new; -1 when out of memory. */
static int32_t tree_child(struct hv *x, struct gr_html_flame_node **nodes, size_t *n, size_t *cap,
			  int32_t parent, const char *name)
{
	struct gr_html_flame_node *f = *nodes;
	int32_t c;

	for (c = f[parent].first_child; c >= 0; c = f[c].next)
		if (f[c].name == name)
			return c;
	f = *nodes = grow(f, cap, *n + 1, sizeof(*f), &x->err);
	if (x->err)
		return -1;
	c = (int32_t)(*n)++;
	f[c] = (struct gr_html_flame_node){name, 0, 0, -1, f[parent].first_child};
	f[parent].first_child = c;
	return c;
}

static int32_t flame_child(struct hv *x, size_t *cap, int32_t parent, const char *name)
{
	return tree_child(x, &x->v->flame, &x->v->nflame, cap, parent, name);
}

static void flame_path(struct hv *x, size_t *cap, const struct fcall *f)
{
	size_t nst, nk;
	const struct gr_stack *st = gr_model_stacks(x->m, &nst);
	const char *const *kn = gr_model_kernel_names(x->m, &nk);
	const char *leaf;
	int32_t node = 0;
	char buf[GR_FRAME_TEXT];

	x->v->flame[0].launches += f->launches;
	x->v->flame[0].host_ns += f->host_ns;
	if (f->stack && f->stack < nst && st[f->stack].nframes) {
		const struct gr_stack *s = &st[f->stack];
		int launcher = gr_frames_launcher(x->m, s, s->nframes);
		int python = gr_frames_python(s, s->nframes);
		uint32_t inner = launcher >= 0 ? (uint32_t)launcher : 0, outer = s->nframes;

		/* frames inside the CUDA libraries are below the call site: not the program's */
		if (python >= 0 && (uint32_t)python < inner)
			inner = (uint32_t)python;
		if (outer - inner > FLAME_DEPTH)
			outer = inner + FLAME_DEPTH;
		for (uint32_t i = outer; i-- > inner && !x->err;) {
			struct gr_frame fr;
			const char *name;

			gr_frame_describe(x->m, s->pid, s->frames[i], &fr);
			name =
			    gr_strtab_intern_str(&x->strs, gr_frame_format(&fr, buf, sizeof(buf)));
			if (!name) {
				x->err = -ENOMEM;
				return;
			}
			node = flame_child(x, cap, node, name);
			if (node < 0)
				return;
			x->v->flame[node].launches += f->launches;
			x->v->flame[node].host_ns += f->host_ns;
		}
	}
	leaf = f->leaf & LEAF_API ? gr_api_name(f->leaf & ~LEAF_API)
	       : f->leaf < nk	  ? kn[f->leaf]
				  : "?";
	leaf = gr_strtab_intern_str(&x->strs, leaf);
	if (!leaf) {
		x->err = -ENOMEM;
		return;
	}
	node = flame_child(x, cap, node, leaf);
	if (node < 0)
		return;
	x->v->flame[node].launches += f->launches;
	x->v->flame[node].host_ns += f->host_ns;
}

static uint64_t subtree_size(const struct gr_html_views *v, int32_t n)
{
	uint64_t s = 1;

	for (int32_t c = v->flame[n].first_child; c >= 0; c = v->flame[c].next)
		s += subtree_size(v, c);
	return s;
}

/* Children of @n under GR_HTML_FLAME_MIN of both root weights fold into one "(other)". */
static void flame_prune(struct hv *x, size_t *cap, int32_t n, double min_l, double min_h)
{
	struct gr_html_views *v = x->v;
	int32_t *link = &v->flame[n].first_child, other = -1;
	uint64_t ol = 0, oh = 0;
	const char *name;

	while (*link >= 0) {
		int32_t c = *link;

		if ((double)v->flame[c].launches < min_l && (double)v->flame[c].host_ns < min_h) {
			v->flame_merged += subtree_size(v, c);
			ol += v->flame[c].launches;
			oh += v->flame[c].host_ns;
			*link = v->flame[c].next;
			other = 1;
			continue;
		}
		flame_prune(x, cap, c, min_l, min_h);
		if (x->err)
			return;
		link = &v->flame[c].next;
	}
	if (other < 0)
		return;
	name = gr_strtab_intern_str(&x->strs, "(other)");
	if (!name) {
		x->err = -ENOMEM;
		return;
	}
	other = flame_child(x, cap, n, name);
	if (other >= 0) {
		v->flame[other].launches = ol;
		v->flame[other].host_ns = oh;
	}
}

static void flame(struct hv *x)
{
	struct gr_html_views *v = x->v;
	struct fcalls f = {0};
	size_t n, cap = 0;

	const struct gr_launch *l = gr_model_launches(x->m, &n);
	const struct gr_launch_key *lk = gr_model_launch_keys(x->m, NULL);
	const struct gr_kernel *k = gr_model_kernels(x->m, NULL);
	for (size_t i = 0; i < n && !x->err; i++) {
		const struct gr_launch_key *key = &lk[l[i].key];

		/* a graph node launched nothing; its call still cost host time */
		fcall_add(x, &f, key->stack, k[key->kernel].name_id,
			  !gr_graphs_launch_is_node(x->graphs, i), gr_launch_dur(key, &l[i]));
	}
	const struct gr_graph *g = gr_model_graphs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		struct gr_graph_work w = {0};
		uint64_t kernels = 0;

		if (g[i].kind == GR_GRAPH_LAUNCH && gr_graphs_launch_work(x->graphs, i, &w))
			kernels = w.nkernels;
		fcall_add(x, &f, g[i].stack, LEAF_API | g[i].api, kernels, g[i].dur);
	}
	const struct gr_copy *c = gr_model_copies(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		fcall_add(x, &f, c[i].stack, LEAF_API | c[i].api, 0, c[i].dur);
	const struct gr_memset *ms = gr_model_memsets(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		fcall_add(x, &f, ms[i].stack, LEAF_API | ms[i].api, 0, ms[i].dur);
	const struct gr_sync *sy = gr_model_syncs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		fcall_add(x, &f, sy[i].stack, LEAF_API | sy[i].api, 0, sy[i].dur);
	const struct gr_alloc *al = gr_model_allocs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		fcall_add(x, &f, 0, LEAF_API | al[i].api, 0, al[i].dur);
	const struct gr_free *fr = gr_model_frees(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		fcall_add(x, &f, 0, LEAF_API | fr[i].api, 0, fr[i].dur);
	const struct gr_comm_call *cc = gr_model_comm_calls(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++)
		fcall_add(x, &f, cc[i].stack, LEAF_API | cc[i].api, 0, cc[i].dur);
	if (x->err)
		goto out;

	v->flame = grow(NULL, &cap, 1, sizeof(*v->flame), &x->err);
	if (x->err)
		goto out;
	v->flame[0] =
	    (struct gr_html_flame_node){gr_strtab_intern_str(&x->strs, "all"), 0, 0, -1, -1};
	v->nflame = 1;
	/* calls with one stack and one leaf take one path, merged as they came; the paths are
	 * walked in (stack, leaf) order, which orders each node's children */
	gr_qsort(f.v, f.n, sizeof(*f.v), cmp_fcall);
	for (size_t i = 0; i < f.n && !x->err; i++)
		flame_path(x, &cap, &f.v[i]);
	/* a weight whose total is 0 (no call timed, no launch) holds every node under it: with
	 * 0 as its threshold nothing was ever folded, and 20000 kernels made 3 MB of flame */
	if (!x->err)
		flame_prune(x, &cap, 0,
			    v->flame[0].launches ? GR_HTML_FLAME_MIN * (double)v->flame[0].launches
						 : HUGE_VAL,
			    v->flame[0].host_ns ? GR_HTML_FLAME_MIN * (double)v->flame[0].host_ns
						: HUGE_VAL);
out:
	free(f.v);
	free(f.slot);
}

/* ---- step budget ---- */

/*
 * Every iteration's budget, computed as the report's own (report_budget.c: the thread's scheduler
 * states over the loop, the report's probe cost) with each iteration kept, then a bar per
 * iteration or the mean of consecutive ones, GR_HTML_BUDGET_BARS bars at most. Only where the
 * report has a budget: the chart marks the report's median, p90 and slowest.
 */
static void budget(struct hv *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	const struct gr_budgets *B = &x->r->budget;
	struct gr_html_views *v = x->v;
	struct gr_budget_states st;
	struct gr_budget_loop loop;
	struct gr_budgets all;
	struct gr_budget *each, mean;
	uint64_t K = it->count, per;
	int err;

	if (!it->found || !K || !it->starts || !B->found)
		return;
	/* a bar's mean, not every iteration's budget: a budget is 700 bytes, a loop can have a
	 * million iterations */
	per = (K + GR_HTML_BUDGET_BARS - 1) / GR_HTML_BUDGET_BARS;
	each = calloc((K + per - 1) / per, sizeof(*each));
	if (!each) {
		x->err = -ENOMEM;
		return;
	}
	err = gr_budget_states(x->m, it->thread, it->start_ts, it->end_ts, &st);
	if (!err) {
		loop = (struct gr_budget_loop){it->thread, it->starts, K, it->end_ts, each, per, 0};
		err = gr_budget_compute(x->m, &x->r->probe, &loop, &st, &all);
		gr_budget_states_free(&st);
	}
	if (!err) {
		v->bars = calloc((K + per - 1) / per, sizeof(*v->bars));
		err = v->bars ? 0 : -ENOMEM;
	}
	if (err) {
		x->err = err;
		free(each);
		return;
	}
	for (uint64_t j = 0; j < K; j += per) {
		struct gr_html_budget_bar *bar = &v->bars[v->nbars++];
		uint64_t n = K - j < per ? K - j : per;

		mean = each[j / per];
		bar->first = j;
		bar->last = j + n - 1;
		bar->total_ns = mean.total_ns;
		memcpy(bar->part_ns, mean.part_ns, sizeof(bar->part_ns));
	}
	free(each);
	v->budget_found = 1;
	v->budget_per = per;
	v->marks[GR_HTML_MARK_MEDIAN] = B->median;
	v->marks[GR_HTML_MARK_P90] = B->p90;
	v->marks[GR_HTML_MARK_SLOWEST] = B->slowest;
}

/* ---- the whole ---- */

/* ---- NVTX ranges ---- */

/*
 * The ranges of the report's NVTX set that overlap each window, on their opening thread's track
 * (its row gets a lane per depth under it), the longest GR_HTML_NVTX_SPANS a window; and the
 * range tree: ranges nested by their parent, each node a name under its parent's node, weighed
 * by the ranges' count and time (start/end ranges at the top).
 */
static void nvtx_views(struct hv *x)
{
	const struct gr_nvtx_set *s = &x->r->nvtx.set;
	struct gr_html_views *v = x->v;
	size_t cap = 0, fcap = 0;
	int32_t *node;
	const char *name;

	if (!s->nranges)
		return;
	node = malloc(s->nranges * sizeof(*node));
	name = gr_strtab_intern_str(&x->strs, "all");
	v->nvtx_flame = grow(NULL, &fcap, 1, sizeof(*v->nvtx_flame), &x->err);
	if (!node || !name || x->err) {
		free(node);
		x->err = -ENOMEM;
		return;
	}
	v->nvtx_flame[0] = (struct gr_html_flame_node){name, 0, 0, -1, -1};
	v->nnvtx_flame = 1;
	for (size_t i = 0; i < s->nranges && !x->err; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];
		int32_t up = r->parent < i ? node[r->parent] : 0;

		name = gr_strtab_intern_str(&x->strs, gr_nvtx_text(s, r->name));
		if (!name) {
			x->err = -ENOMEM;
			break;
		}
		node[i] =
		    up < 0 ? -1 : tree_child(x, &v->nvtx_flame, &v->nnvtx_flame, &fcap, up, name);
		if (node[i] >= 0) {
			v->nvtx_flame[node[i]].launches++;
			v->nvtx_flame[node[i]].host_ns += r->end - r->start;
		}
		if (!r->depth || r->kind == GR_NVTX_RANGE_STARTEND) {
			v->nvtx_flame[0].launches++;
			v->nvtx_flame[0].host_ns += r->end - r->start;
		}
		for (size_t w = 0; w < v->nwindows && !x->err; w++) {
			const struct gr_html_window *win = &v->windows[w];
			int32_t track;

			if (r->start >= win->end || r->end < win->start)
				continue;
			if (v->nvtx_window[w] == GR_HTML_NVTX_SPANS) {
				v->nvtx_truncated++;
				continue;
			}
			track = thread_track(x, r->thread);
			if (track < 0)
				continue;
			v->nvtx = grow(v->nvtx, &cap, v->nnvtx + 1, sizeof(*v->nvtx), &x->err);
			if (x->err)
				break;
			v->nvtx[v->nnvtx++] = (struct gr_html_nvtx_span){
			    (uint32_t)w,      (uint32_t)track,		r->depth,
			    r->color,	      gr_nvtx_text(s, r->name), r->start,
			    r->end - r->start};
			v->nvtx_window[w]++;
		}
	}
	free(node);
}

void gr_html_views_free(struct gr_html_views *v)
{
	if (!v)
		return;
	free(v->points);
	free(v->bars);
	free(v->tracks);
	free(v->names);
	free(v->spans);
	free(v->flame);
	free(v->nvtx);
	free(v->nvtx_flame);
	if (v->priv) {
		gr_arena_free(v->priv);
		free(v->priv);
	}
	free(v);
}

int gr_html_views_compute(const struct gr_model *m, const struct gr_report *r,
			  struct gr_html_views **out)
{
	struct hv x = {.m = m, .r = r, .pc = r->probe};
	size_t nth, ns;
	int err;

	*out = NULL;
	x.v = calloc(1, sizeof(*x.v));
	x.v->priv = calloc(1, sizeof(struct gr_arena));
	if (!x.v || !x.v->priv) {
		err = -ENOMEM;
		goto out;
	}
	gr_strtab_init(&x.strs, x.v->priv);
	x.v->t0 = r->first_ts;
	gr_model_threads(m, &nth);
	gr_model_streams(m, &ns);
	x.thread_track = malloc((nth + 1) * sizeof(*x.thread_track));
	x.stream_track = malloc((ns + 1) * sizeof(*x.stream_track));
	err = x.thread_track && x.stream_track ? gr_graphs_build(m, &x.graphs) : -ENOMEM;
	if (err)
		goto out;
	memset(x.thread_track, 0xff, (nth + 1) * sizeof(*x.thread_track));
	memset(x.stream_track, 0xff, (ns + 1) * sizeof(*x.stream_track));
	iterations(&x);
	if (!x.err)
		budget(&x);
	if (!x.err)
		choose_windows(&x);
	if (!x.err)
		launch_spans(&x);
	if (!x.err)
		call_spans(&x);
	if (!x.err)
		aside_spans(&x);
	if (!x.err)
		gpu_spans(&x);
	if (!x.err)
		sched_spans(&x);
	if (!x.err)
		gather_spans(&x);
	if (!x.err)
		flame(&x);
	if (!x.err)
		nvtx_views(&x);
	err = x.err;
out:
	for (size_t w = 0; w < GR_HTML_NWINDOWS; w++)
		free(x.cand[w].v);
	free(x.slot);
	free(x.thread_track);
	free(x.stream_track);
	gr_graphs_free(x.graphs);
	gr_strtab_free(&x.strs);
	if (err) {
		if (x.v && !x.v->priv) {
			free(x.v);
			x.v = NULL;
		}
		gr_html_views_free(x.v);
		return err;
	}
	*out = x.v;
	return 0;
}

/* ---- JSON ---- */

static uint64_t rel(const struct gr_html_views *v, uint64_t ts)
{
	return ts > v->t0 ? ts - v->t0 : 0;
}

/* Node @n of a tree (the launch flame graph: v = [launches, host_ns]; NVTX: [ranges, ns]). */
static void flame_json(struct gr_json *j, const struct gr_html_flame_node *f, int32_t n)
{
	gr_json_object_flat(j);
	gr_json_kv_str(j, "name", f[n].name);
	gr_json_key(j, "v");
	gr_json_array_flat(j);
	gr_json_u64(j, f[n].launches);
	gr_json_u64(j, f[n].host_ns);
	gr_json_array_end(j);
	gr_json_key(j, "children");
	gr_json_array_flat(j);
	for (int32_t c = f[n].first_child; c >= 0; c = f[c].next)
		flame_json(j, f, c);
	gr_json_array_end(j);
	gr_json_object_end(j);
}

/* "nvtx": the ranges on the timeline and the range tree; absent without ranges, so that a page of
 * a trace without NVTX is what it was. */
static void nvtx_json(struct gr_json *j, const struct gr_html_views *v)
{
	char color[16];

	if (!v->nnvtx_flame)
		return;
	gr_json_key(j, "nvtx");
	gr_json_object(j);
	/* [window, track, start, dur, depth, name, colour "#rrggbb" or null] */
	gr_json_key(j, "spans");
	gr_json_array(j);
	for (size_t i = 0; i < v->nnvtx; i++) {
		const struct gr_html_nvtx_span *p = &v->nvtx[i];

		gr_json_array_flat(j);
		gr_json_u64(j, p->window);
		gr_json_u64(j, p->track);
		gr_json_u64(j, rel(v, p->start));
		gr_json_u64(j, p->dur);
		gr_json_u64(j, p->depth);
		gr_json_str(j, p->name);
		/* ARGB: a colour with no alpha is one the program did not give */
		snprintf(color, sizeof(color), "#%06x", p->color & 0xffffff);
		gr_json_str(j, p->color >> 24 ? color : NULL);
		gr_json_array_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_u64(j, "truncated", v->nvtx_truncated);
	gr_json_key(j, "flame");
	gr_json_object(j);
	gr_json_key(j, "weights");
	gr_json_array_flat(j);
	gr_json_str(j, "ranges");
	gr_json_str(j, "range_ns");
	gr_json_array_end(j);
	gr_json_kv_u64(j, "first", 1);
	gr_json_kv_u64(j, "merged", 0);
	gr_json_key(j, "root");
	flame_json(j, v->nvtx_flame, 0);
	gr_json_object_end(j);
	gr_json_object_end(j);
}

void gr_html_views_json(struct gr_json *j, const struct gr_html_views *v, const struct gr_model *m)
{
	size_t nth;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	size_t s = 0;

	gr_json_object(j);
	gr_json_kv_u64(j, "t0", v->t0);

	gr_json_key(j, "iterations");
	gr_json_object(j);
	gr_json_kv_bool(j, "found", v->iter_found);
	gr_json_key(j, "thread");
	if (v->iter_found && v->iter_thread < nth) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", th[v->iter_thread].pid);
		gr_json_kv_u64(j, "tid", th[v->iter_thread].tid);
		gr_json_kv_str(j, "comm", th[v->iter_thread].comm);
		gr_json_object_end(j);
	} else
		gr_json_null(j);
	gr_json_kv_u64(j, "count", v->iter_count);
	gr_json_kv_bool(j, "binned", v->binned);
	gr_json_key(j, "points");
	gr_json_array_flat(j);
	for (size_t i = 0; i < v->npoints; i++) {
		const struct gr_html_iter_point *p = &v->points[i];

		gr_json_array_flat(j);
		gr_json_u64(j, rel(v, p->start));
		if (v->binned) {
			gr_json_u64(j, p->min);
			gr_json_u64(j, p->median);
			gr_json_u64(j, p->max);
			gr_json_u64(j, p->n);
		} else
			gr_json_u64(j, p->median);
		gr_json_array_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);

	gr_json_key(j, "budget");
	gr_json_object(j);
	gr_json_kv_bool(j, "found", v->budget_found);
	gr_json_kv_u64(j, "count", v->budget_found ? v->iter_count : 0);
	gr_json_kv_u64(j, "per", v->budget_per);
	gr_json_key(j, "parts");
	gr_json_array_flat(j);
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		gr_json_str(j, gr_budget_part_name(p));
	gr_json_array_end(j);
	gr_json_key(j, "words");
	gr_json_array_flat(j);
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		gr_json_str(j, gr_budget_part_words(p));
	gr_json_array_end(j);
	gr_json_key(j, "bars");
	gr_json_array(j);
	for (size_t i = 0; i < v->nbars; i++) {
		const struct gr_html_budget_bar *b = &v->bars[i];

		gr_json_array_flat(j);
		gr_json_u64(j, b->first);
		gr_json_u64(j, b->last);
		gr_json_u64(j, b->total_ns);
		for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
			gr_json_u64(j, b->part_ns[p]);
		gr_json_array_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "marks");
	gr_json_array_flat(j);
	for (unsigned k = 0; k < GR_HTML_NMARKS && v->budget_found; k++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "label", mark_names[k]);
		gr_json_kv_u64(j, "index", v->marks[k].index);
		gr_json_kv_u64(j, "total_ns", v->marks[k].total_ns);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);

	gr_json_key(j, "timeline");
	gr_json_object(j);
	gr_json_key(j, "windows");
	gr_json_array(j);
	for (size_t w = 0; w < v->nwindows; w++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "label", label_names[v->windows[w].label]);
		gr_json_kv_i64(j, "index", v->windows[w].index);
		gr_json_kv_u64(j, "start", rel(v, v->windows[w].start));
		gr_json_kv_u64(j, "end", rel(v, v->windows[w].end));
		gr_json_kv_u64(j, "spans", v->window_spans[w]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "tracks");
	gr_json_array(j);
	for (size_t i = 0; i < v->ntracks; i++) {
		const struct gr_html_track *t = &v->tracks[i];
		static const char *const kinds[] = {"thread", "gpu", "stream"};
		char hex[24];

		gr_json_object_flat(j);
		gr_json_kv_u64(j, "id", i);
		gr_json_kv_str(j, "kind", kinds[t->kind]);
		gr_json_kv_u64(j, "pid", t->pid);
		gr_json_key(j, "tid");
		if (t->tid)
			gr_json_u64(j, t->tid);
		else
			gr_json_null(j);
		gr_json_kv_str(j, "comm", t->comm);
		gr_json_key(j, "rank");
		if (t->rank >= 0)
			gr_json_i64(j, t->rank);
		else
			gr_json_null(j);
		gr_json_key(j, "device");
		if (t->kind == GR_HTML_TRACK_GPU)
			gr_json_u64(j, t->device);
		else
			gr_json_null(j);
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)t->stream);
		gr_json_kv_str(j, "stream", t->has_stream ? hex : NULL);
		gr_json_kv_str(j, "label", t->label);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "names");
	gr_json_array_flat(j);
	for (size_t i = 0; i < v->nnames; i++)
		gr_json_str(j, v->names[i]);
	gr_json_array_end(j);
	gr_json_key(j, "spans");
	gr_json_array(j);
	for (; s < v->nspans; s++) {
		const struct gr_html_span *p = &v->spans[s];

		gr_json_array_flat(j);
		gr_json_u64(j, p->track);
		gr_json_u64(j, rel(v, p->start));
		gr_json_u64(j, p->dur);
		gr_json_str(j, gr_html_span_type_name(p->type));
		gr_json_u64(j, p->name);
		gr_json_i64(j, p->detail);
		gr_json_array_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_u64(j, "truncated", v->truncated);
	gr_json_object_end(j);

	gr_json_key(j, "flame");
	gr_json_object(j);
	gr_json_key(j, "weights");
	gr_json_array_flat(j);
	gr_json_str(j, "launches");
	gr_json_str(j, "host_ns");
	gr_json_array_end(j);
	gr_json_kv_u64(j, "merged", v->flame_merged);
	gr_json_key(j, "root");
	if (v->nflame)
		flame_json(j, v->flame, 0);
	else
		gr_json_null(j);
	gr_json_object_end(j);
	nvtx_json(j, v);
	gr_json_object_end(j);
}
