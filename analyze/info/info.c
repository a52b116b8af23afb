/* SPDX-License-Identifier: MIT */
/*
 * gr_info_compute(): the figures of `gpurec info`. Launches go through launch_stats.c, the
 * aggregation report and diff share; the other call kinds are summed per kind here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "info.h"

const char *const gr_info_event_names[GR_INFO_NEVENTS] = {
    [GR_INFO_EV_LAUNCH] = "launch", [GR_INFO_EV_COPY] = "copy",	  [GR_INFO_EV_MEMSET] = "memset",
    [GR_INFO_EV_ALLOC] = "alloc",   [GR_INFO_EV_FREE] = "free",	  [GR_INFO_EV_SYNC] = "sync",
    [GR_INFO_EV_SCHED] = "sched",   [GR_INFO_EV_STACK] = "stack", [GR_INFO_EV_GRAPH] = "graph",
};

/* The record kind each event kind counts (GR_INFO_EV_STACK counts events, not records). */
static const unsigned event_record_kind[GR_INFO_NEVENTS] = {
    [GR_INFO_EV_LAUNCH] = GR_K_LAUNCH, [GR_INFO_EV_COPY] = GR_K_COPY,
    [GR_INFO_EV_MEMSET] = GR_K_MEMSET, [GR_INFO_EV_ALLOC] = GR_K_ALLOC,
    [GR_INFO_EV_FREE] = GR_K_FREE,     [GR_INFO_EV_SYNC] = GR_K_SYNC,
    [GR_INFO_EV_SCHED] = GR_K_SCHED,   [GR_INFO_EV_GRAPH] = GR_K_GRAPH,
};

static unsigned clamp_kind(unsigned v, unsigned n)
{
	return v < n - 1 ? v : n - 1;
}

static void label(struct gr_info_sum *s, unsigned n, const char *(*name)(unsigned))
{
	for (unsigned i = 0; i < n; i++)
		s[i].kind = i == n - 1 ? "other" : name(i);
}

static void add(struct gr_info_sum *s, uint64_t bytes, uint64_t dur)
{
	s->count++;
	s->bytes += bytes;
	s->dur += dur;
}

static int cmp_thread(const void *a, const void *b, void *threads)
{
	const struct gr_thread *t = threads, *x = &t[*(const uint32_t *)a],
			       *y = &t[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct pair_cmp {
	const struct gr_launch_pair *pairs;
	const struct gr_config *configs;
};

static int cmp_pair(const void *a, const void *b, void *arg)
{
	const struct pair_cmp *c = arg;
	const struct gr_launch_pair *x = &c->pairs[*(const uint32_t *)a],
				    *y = &c->pairs[*(const uint32_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return memcmp(&c->configs[x->config], &c->configs[y->config], sizeof(*c->configs));
}

static const char *stop_reason(uint64_t v)
{
	static const char *const names[] = {"exit", "signal", "duration"};

	return v < 3 ? names[v] : "unknown";
}

/* Launches: the shared aggregation, then info's own orders of pairs and threads. */
static int launches(const struct gr_model *m, struct gr_info *in)
{
	struct gr_launch_stats *s = &in->launches;
	struct pair_cmp pc;
	size_t nthreads;
	const struct gr_thread *threads = gr_model_threads(m, &nthreads);
	int err;

	err = gr_launch_stats_compute(m, s);
	if (err)
		return err;
	in->pair_order = malloc((s->npairs + 1) * sizeof(*in->pair_order));
	in->thread_order = malloc((nthreads + 1) * sizeof(*in->thread_order));
	if (!in->pair_order || !in->thread_order)
		return -ENOMEM;
	memcpy(in->pair_order, s->pair_by_name, s->npairs * sizeof(*in->pair_order));
	pc.pairs = s->pairs;
	pc.configs = gr_model_configs(m, NULL);
	for (size_t i = 0; i < s->nkernels; i++)
		gr_qsort_r(in->pair_order + s->kernels[i].first, s->kernels[i].npairs,
			   sizeof(*in->pair_order), cmp_pair, &pc);
	for (size_t i = 0; i < nthreads; i++)
		in->thread_order[i] = (uint32_t)i;
	gr_qsort_r(in->thread_order, nthreads, sizeof(*in->thread_order), cmp_thread,
		   (void *)threads);
	return 0;
}

/* Every other call kind, per kind, and the events with a stack. */
static void calls(const struct gr_model *m, struct gr_info *in)
{
	uint64_t with_stack = in->launches.with_stack;
	size_t n;

	label(in->copies, GR_INFO_COPY_KINDS, gr_copy_kind_name);
	label(in->syncs, GR_INFO_SYNC_KINDS, gr_sync_kind_name);
	label(in->allocs, GR_INFO_ALLOC_KINDS, gr_alloc_kind_name);
	label(in->graphs, GR_INFO_GRAPH_KINDS, gr_graph_kind_name);
	in->memsets.kind = "all";
	in->frees.kind = "all";

	const struct gr_copy *c = gr_model_copies(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->copies[clamp_kind(c[i].kind, GR_INFO_COPY_KINDS)], c[i].bytes, c[i].dur);
		with_stack += c[i].stack != 0;
	}
	const struct gr_memset *ms = gr_model_memsets(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->memsets, ms[i].bytes, ms[i].dur);
		with_stack += ms[i].stack != 0;
	}
	const struct gr_sync *s = gr_model_syncs(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->syncs[clamp_kind(s[i].kind, GR_INFO_SYNC_KINDS)], 0, s[i].dur);
		with_stack += s[i].stack != 0;
	}
	const struct gr_graph *g = gr_model_graphs(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->graphs[clamp_kind(g[i].kind, GR_INFO_GRAPH_KINDS)], 0, g[i].dur);
		with_stack += g[i].stack != 0;
	}
	const struct gr_alloc *a = gr_model_allocs(m, &n);
	for (size_t i = 0; i < n; i++)
		add(&in->allocs[clamp_kind(a[i].kind, GR_INFO_ALLOC_KINDS)], a[i].bytes, a[i].dur);
	const struct gr_free *f = gr_model_frees(m, &n);
	for (size_t i = 0; i < n; i++)
		add(&in->frees, 0, f[i].dur);
	/* calls set aside (failed, nested, in flight) were recorded with their stacks too */
	const struct gr_aside *as = gr_model_asides(m, &n);
	for (size_t i = 0; i < n; i++)
		with_stack += gr_aside_stack(m, &as[i]) != 0;
	in->events[GR_INFO_EV_STACK] = with_stack;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int on_span(void *ctx, const struct gr_state_span *sp, const struct gr_block_why *why)
{
	struct gr_info_blocked *b = ctx;

	b->switches_missing += sp->missed;
	/* a span of no time (a thread woken as it slept) is no wait: export has no row for it */
	if (sp->state == GR_STATE_BLOCKED && sp->end > sp->start) {
		b->spans++;
		b->spans_by_reason[why->reason]++;
	}
	return 0;
}

/*
 * The blocked spans of every model thread by the reports' reasons: the thread timeline replayed
 * as export's blocked_spans table replays it (each thread's last state ends with the trace, or
 * with its process's exit; spans of no time left out), so both count the same spans. Returns 0
 * or -ENOMEM.
 */
static int blocked_spans(const struct gr_model *m, struct gr_info_blocked *b)
{
	uint64_t start, end;

	gr_model_time_span(m, &start, &end);
	return gr_block_replay(m, UINT64_MAX, end, GR_BLOCK_REPLAY_WHY, on_span, b);
}

/* The blocked spans of the traced processes' threads, by reason. */
static void nvtx_counts(const struct gr_model *m, struct gr_info_nvtx *o)
{
	size_t n;
	const struct gr_nvtx *ev = gr_model_nvtx(m, &n);

	o->total = n;
	for (size_t i = 0; i < n; i++)
		o->by_op[ev[i].op < GR_NVTX_OP_COUNT ? ev[i].op : 0]++;
}

static int blocked(const struct gr_model *m, struct gr_info *in)
{
	struct gr_info_blocked *b = &in->blocked;
	const struct gr_process *procs = gr_model_processes(m, NULL);
	const struct gr_sched_key *keys = gr_model_sched_keys(m, NULL);
	const struct gr_sched *s;
	size_t np, n, nk;
	uint64_t *calls;
	uint32_t *pids;

	gr_model_processes(m, &np);
	gr_model_sched_keys(m, &nk);
	b->known = gr_model_header(m)->minor >= 2 || gr_model_header(m)->major > 1;
	pids = malloc((np + 1) * sizeof(*pids));
	/* per key: a scheduler key repeats, so spans are counted per key first */
	calls = calloc(nk + 1, sizeof(*calls));
	if (!pids || !calls) {
		free(pids);
		free(calls);
		return -ENOMEM;
	}
	for (size_t i = 0; i < np; i++)
		pids[i] = procs[i].pid;
	qsort(pids, np, sizeof(*pids), cmp_pid);
	s = gr_model_scheds(m, &n);
	for (size_t i = 0; i < n; i++)
		calls[s[i].key]++;
	for (size_t k = 0; k < nk; k++) {
		const struct gr_sched_key *e = &keys[k];
		enum gr_wait_class c;

		if (!calls[k] || e->type != GR_SCHED_SWITCH || !gr_sched_blocks(e->prev_state) ||
		    !bsearch(&e->prev_pid, pids, np, sizeof(*pids), cmp_pid))
			continue;
		c = gr_syscall_class(e->syscall);
		b->total += calls[k];
		b->by_class[c] += calls[k];
		if (c == GR_WAIT_FD)
			b->fd_by_kind[e->fd_kind <= GR_FD_OTHER ? e->fd_kind : GR_FD_OTHER] +=
			    calls[k];
		if (c != GR_WAIT_OTHER)
			continue;
		/* few distinct calls: a linear search of the list */
		unsigned j = 0;
		while (j < b->nother && b->other[j].nr != e->syscall)
			j++;
		if (j == b->nother && j < GR_INFO_OTHER_CALLS)
			b->other[b->nother++].nr = e->syscall;
		if (j < b->nother)
			b->other[j].count += calls[k];
		else
			b->more += calls[k];
	}
	/* most first, then by number: a stable listing */
	for (unsigned i = 1; i < b->nother; i++)
		for (unsigned j = i; j > 0 && (b->other[j].count > b->other[j - 1].count ||
					       (b->other[j].count == b->other[j - 1].count &&
						b->other[j].nr < b->other[j - 1].nr));
		     j--) {
			int32_t nr = b->other[j].nr;
			uint64_t c = b->other[j].count;

			b->other[j] = b->other[j - 1];
			b->other[j - 1].nr = nr;
			b->other[j - 1].count = c;
		}
	free(pids);
	free(calls);
	return blocked_spans(m, b);
}

int gr_info_compute(const struct gr_model *m, struct gr_info *in)
{
	uint64_t first, last, v;
	int err;

	memset(in, 0, sizeof(*in));
	err = launches(m, in);
	if (err) {
		gr_info_free(in);
		return err;
	}
	calls(m, in);
	nvtx_counts(m, &in->nvtx);
	err = blocked(m, in);
	if (err) {
		gr_info_free(in);
		return err;
	}
	err = gr_outcome_compute(m, &in->outcome);
	if (!err)
		err = gr_memory_compute(m, NULL, &in->memory);
	if (err) {
		gr_info_free(in);
		return err;
	}
	for (unsigned e = 0; e < GR_INFO_NEVENTS; e++)
		if (e != GR_INFO_EV_STACK)
			in->events[e] = gr_model_record_count(m, event_record_kind[e]);
	gr_model_time_span(m, &first, &last);
	in->duration_ns = last - first;
	if (gr_model_session(m, GR_SESS_STOP, &v, NULL))
		in->stop_reason = stop_reason(v);
	return 0;
}

void gr_info_free(struct gr_info *in)
{
	if (!in)
		return;
	gr_launch_stats_free(&in->launches);
	free(in->pair_order);
	free(in->thread_order);
	gr_outcome_free(&in->outcome);
	gr_memory_free(&in->memory);
	memset(in, 0, sizeof(*in));
}
