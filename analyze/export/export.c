/* SPDX-License-Identifier: MIT */
/* Chrome trace-event JSON writer (see export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/figures/blocked.h"
#include "analyze/util/syscalls.h"
#include "analyze/figures/frames.h"
#include "analyze/figures/gpu.h"
#include "analyze/figures/graphs.h"
#include "analyze/figures/memory.h"
#include "analyze/figures/nvtx.h"
#include "analyze/figures/outcome.h"
#include "analyze/figures/timeline.h"
#include "analyze/model/damage.h"
#include "analyze/util/json.h"
#include "analyze/util/progress.h"
#include "export.h"
#include "export_perfetto.h"
#include "export_stacks.h"

/* Output is built in memory and written in blocks this large: never a write per event. */
#define OUT_BUF (1u << 20)

/* The host calls that make GPU rows, in the order the export writes their slices. */
enum gpu_slot { SLOT_LAUNCH, SLOT_COPY, SLOT_MEMSET, SLOT_GRAPH, SLOT_COUNT };

/* One GPU track: a stream of a device, as CUPTI numbers them, in one process. */
struct ex_gpu_track {
	uint32_t pid, device, stream;
};

/* A flow from the host call that made a GPU row: the call (by its kind's slot and model index). */
struct ex_gpu_from {
	uint32_t slot; /* enum gpu_slot */
	uint32_t index;
	uint32_t row;
};

/*
 * The GPU rows (gpu.h) and what the export makes of them. Only allocated when the trace has GPU
 * rows: without, the export is what it was before they existed, byte for byte.
 */
struct ex_gpu {
	struct gr_gpu_summary *sum; /* the rows' ties; NULL: no GPU rows */
	const struct gr_gpu *rows;
	size_t nrows;
	uint32_t *track; /* per row: its track's rank, UINT32_MAX when the window drops it */
	uint64_t *flow;	 /* per row: its flow's number among the GPU flows (from 1), 0: none */
	uint64_t nflows; /* numbered so far (marking pass) */
	uint64_t base;	 /* the launch flows' count: GPU flow ids follow theirs */
	struct ex_gpu_track *tracks;
	size_t ntracks;
	struct ex_gpu_from *from; /* rows with a flow, by (slot, index, row) */
	size_t nfrom;
	size_t cursor[SLOT_COUNT]; /* per slot: the next entry of from[] (calls are written in
				      order) */
};

struct ex {
	const struct gr_model *m;
	struct gr_json_buf out;
	const struct gr_export_opts *o;
	struct gr_export_stats st;
	uint64_t t0, lo, hi, end;
	const struct gr_thread *threads;
	const struct gr_stream *streams;
	const struct gr_process *procs;
	size_t nthreads, nstreams, nprocs;
	uint8_t *thread_ok;  /* thread passes the pid filter */
	uint8_t *thread_use; /* 1: API track used, 2: CPU-state track used (bits) */
	uint8_t *stream_use;
	uint8_t *proc_use;
	/*
	 * The tracks written, in order: used threads by (pid, tid), used streams by (pid, handle),
	 * and each one's rank in that order. What the window holds decides them, never the model's
	 * indexes: a model loaded for the window alone has other ones.
	 */
	uint32_t *thread_order, *stream_order;
	uint32_t *thread_rank, *stream_rank;
	size_t nthread_order, nstream_order;
	uint64_t launches; /* launches written so far: the flows' ids */
	/* which launches, copies and memsets were graph nodes, and what graph launches ran */
	struct gr_graphs *graphs;
	/* scratch for one graph launch's kernel counts, by kernel name id: allocated once */
	uint64_t *name_count;
	uint32_t *name_seen;
	size_t nnames;
	struct ex_stacks stacks; /* the events' call stacks */
	struct ex_gpu gpu;	 /* the GPU rows (--cupti) */
	/* the trace records why threads blocked (gr_block_ctx's recorded) */
	int reasons_recorded;
	uint64_t wake_flows; /* wake flows written in this pass: their ids */
	/* Perfetto: per thread, the wake flow its next slice (the runnable wait the wakeup began)
	 * ends; 0: none */
	uint64_t *wake_pending;
	struct gr_memory mem;	 /* live device bytes per process (memory.h) */
	int steps_used;		 /* the steps track (--step) has a slice in the window */
	struct gr_nvtx_set nvtx; /* NVTX ranges, marks and names (nvtx.h) */
	/* start/end ranges' tracks (in the marking pass: which each range goes on), per track
	 * its process and when its last range ends */
	uint32_t *nvtx_lane; /* per range: its track, UINT32_MAX none */
	uint32_t *lane_pid;
	uint64_t *lane_end;
	size_t nlanes;
	struct gr_json j;
	/* the Perfetto protobuf form (export_perfetto.h) instead of JSON; NULL for JSON */
	struct ex_pf *pf;
	int err;
	int emit; /* 0: the marking pass, nothing written */
};

static int pid_wanted(const struct gr_export_opts *o, uint32_t pid)
{
	if (!o->npids)
		return 1;
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return 1;
	return 0;
}

static int in_window(const struct ex *x, uint64_t ts, uint64_t dur)
{
	return ts <= x->hi && ts + dur >= x->lo;
}

static double rel_us(const struct ex *x, uint64_t ts)
{
	if (ts >= x->t0)
		return (double)(ts - x->t0) / 1000.0;
	return -(double)(x->t0 - ts) / 1000.0;
}

/* @v in decimal at @p, as "%u" prints it; returns the end. */
static char *put_dec(char *p, uint32_t v)
{
	char tmp[10];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, tmp + n, sizeof(tmp) - n);
	return p + sizeof(tmp) - n;
}

/* "0x" and @v in hex at @p, as "0x%" PRIx64 prints it; returns the end. */
static char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	int shift = 60;

	*p++ = '0';
	*p++ = 'x';
	while (shift && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = digits[v >> shift & 15];
	return p;
}

/*
 * The arguments of an event, in JSON or as Perfetto debug annotations. Hexadecimal numbers are
 * strings in JSON and pointers in Perfetto, which shows them in hex.
 */
static void arg_str(struct ex *x, const char *key, const char *v)
{
	if (x->pf)
		ex_pf_arg_str(x->pf, key, v, strlen(v));
	else
		gr_json_kv_str(&x->j, key, v);
}

static void arg_strn(struct ex *x, const char *key, const char *v, size_t n)
{
	if (x->pf) {
		ex_pf_arg_str(x->pf, key, v, n);
	} else {
		gr_json_key(&x->j, key);
		gr_json_strn(&x->j, v, n);
	}
}

static void arg_u64(struct ex *x, const char *key, uint64_t v)
{
	if (x->pf)
		ex_pf_arg_u64(x->pf, key, v);
	else
		gr_json_kv_u64(&x->j, key, v);
}

static void arg_bool(struct ex *x, const char *key, int v)
{
	if (x->pf)
		ex_pf_arg_bool(x->pf, key, v);
	else
		gr_json_kv_bool(&x->j, key, v);
}

static void arg_double(struct ex *x, const char *key, double v)
{
	if (x->pf)
		ex_pf_arg_double(x->pf, key, v);
	else
		gr_json_kv_double(&x->j, key, v);
}

static void arg_dict_begin(struct ex *x, const char *key)
{
	if (x->pf) {
		ex_pf_dict_begin(x->pf, key);
	} else {
		gr_json_key(&x->j, key);
		gr_json_object(&x->j);
	}
}

static void arg_dict_end(struct ex *x)
{
	if (x->pf)
		ex_pf_dict_end(x->pf);
	else
		gr_json_object_end(&x->j);
}

/* These run a few times per event: formatted by hand, not by snprintf(). */
static void arg_hex(struct ex *x, const char *key, uint64_t v)
{
	char buf[24];

	if (x->pf) {
		ex_pf_arg_pointer(x->pf, key, v);
		return;
	}
	gr_json_key(&x->j, key);
	gr_json_strn(&x->j, buf, (size_t)(put_hex(buf, v) - buf));
}

static void arg_dim3(struct ex *x, const char *key, const uint32_t d[3])
{
	char buf[48], *p = buf;

	*p++ = '(';
	p = put_dec(p, d[0]);
	*p++ = ',';
	p = put_dec(p, d[1]);
	*p++ = ',';
	p = put_dec(p, d[2]);
	*p++ = ')';
	arg_strn(x, key, buf, (size_t)(p - buf));
}

/* Opens one event object on its own line: the caller adds members, then event_end(). */
static void event_begin(struct ex *x, const char *ph, const char *name, const char *cat,
			uint32_t pid, uint32_t tid)
{
	if (x->pf) {
		ex_pf_begin(x->pf, ph[0], name, cat, pid, tid);
		return;
	}
	if (x->st.events)
		gr_json_buf_raw(&x->out, ",", 1);
	gr_json_begin_buf(&x->j, &x->out, 0);
	gr_json_object(&x->j);
	gr_json_kv_str(&x->j, "ph", ph);
	gr_json_kv_str(&x->j, "name", name);
	if (cat)
		gr_json_kv_str(&x->j, "cat", cat);
	gr_json_kv_u64(&x->j, "pid", pid);
	gr_json_kv_u64(&x->j, "tid", tid);
}

static void event_ts(struct ex *x, uint64_t ts)
{
	if (x->pf)
		ex_pf_ts(x->pf, ts);
	else
		gr_json_kv_double(&x->j, "ts", rel_us(x, ts));
}

static void event_dur(struct ex *x, uint64_t dur)
{
	if (x->pf)
		ex_pf_dur(x->pf, dur);
	else
		gr_json_kv_double(&x->j, "dur", (double)dur / 1000.0);
}

/* An instant's scope: 't' its thread, 'p' its process, 'g' global. */
static void event_scope(struct ex *x, char scope)
{
	char s[2] = {scope, 0};

	if (x->pf)
		ex_pf_scope(x->pf, scope);
	else
		gr_json_kv_str(&x->j, "s", s);
}

/* The id of the flow a Perfetto slice or instant starts or ends; the JSON has events of its own
 * for a flow's ends ("s" and "f", which the Perfetto form skips). */
static void event_flow(struct ex *x, uint64_t id)
{
	if (x->pf)
		ex_pf_flow(x->pf, id);
}

static void event_end(struct ex *x)
{
	int err;

	if (x->pf) {
		ex_pf_end(x->pf);
		x->st.events++;
		return;
	}
	gr_json_object_end(&x->j);
	err = gr_json_end(&x->j);
	if (err && !x->err)
		x->err = err;
	x->st.events++;
}

static void args_begin(struct ex *x)
{
	if (x->pf)
		return;
	gr_json_key(&x->j, "args");
	gr_json_object(&x->j);
}

static void args_end(struct ex *x)
{
	if (!x->pf)
		gr_json_object_end(&x->j);
}

static uint32_t sched_tid(const struct ex *x, size_t thread)
{
	return GR_EXPORT_TID_BASE + x->thread_rank[thread];
}

static uint32_t stream_tid(const struct ex *x, size_t stream)
{
	return GR_EXPORT_TID_BASE + (uint32_t)x->nthread_order + x->stream_rank[stream];
}

/* GPU tracks come after the streams' tracks. */
static uint32_t gpu_tid(const struct ex *x, uint32_t rank)
{
	return GR_EXPORT_TID_BASE + (uint32_t)(x->nthread_order + x->nstream_order) + rank;
}

/* The steps track (--step) comes after every other, so that theirs are the same without it. */
static uint32_t step_tid(const struct ex *x)
{
	return GR_EXPORT_TID_BASE +
	       (uint32_t)(x->nthread_order + x->nstream_order + x->gpu.ntracks);
}

/* The device memory counters come after the steps track, one per device (the last tracks). */
static uint32_t memory_tid(const struct ex *x, uint32_t device)
{
	return step_tid(x) + 1 + device;
}

/* NVTX start/end tracks: after every other, in a range of their own (any number of them). */
static uint32_t nvtx_tid(size_t lane)
{
	return 2 * GR_EXPORT_TID_BASE + (uint32_t)lane;
}

/* ---- metadata ---- */

/* A track's name: a JSON metadata event, a Perfetto track descriptor. */
static void meta(struct ex *x, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	if (x->pf) {
		ex_pf_track(x->pf,
			    !strcmp(what, "process_name") ? EX_PF_PROCESS
			    : tid < GR_EXPORT_TID_BASE	  ? EX_PF_THREAD
							  : EX_PF_CUSTOM,
			    pid, tid, name);
		x->st.metadata++;
		x->st.events++;
		return;
	}
	event_begin(x, "M", what, "__metadata", pid, tid);
	args_begin(x);
	gr_json_kv_str(&x->j, "name", name);
	args_end(x);
	event_end(x);
	x->st.metadata++;
}

/* A track's place: JSON only (a Perfetto UI orders tracks by itself). */
static void meta_sort(struct ex *x, uint32_t pid, uint32_t tid, uint64_t index)
{
	if (x->pf)
		return;
	event_begin(x, "M", "thread_sort_index", "__metadata", pid, tid);
	args_begin(x);
	gr_json_kv_u64(&x->j, "sort_index", index);
	args_end(x);
	event_end(x);
	x->st.metadata++;
}

/* A thread's name: the one the program gave it with NVTX, else its comm, else its tid. */
static const char *thread_name(const struct ex *x, const struct gr_thread *t, char *buf, size_t len)
{
	const char *nv = gr_nvtx_thread_name(&x->nvtx, t->pid, t->tid);

	if (nv && nv[0])
		return nv;
	if (t->comm[0])
		return t->comm;
	snprintf(buf, len, "tid %u", t->tid);
	return buf;
}

static void write_metadata(struct ex *x)
{
	char buf[300];

	for (size_t p = 0; p < x->nprocs; p++) {
		const struct gr_process *pr = &x->procs[p];
		const char *name = pr->comm;

		if (!x->proc_use[p])
			continue;
		if (!name[0] && pr->exe[0]) {
			name = strrchr(pr->exe, '/');
			name = name ? name + 1 : pr->exe;
		}
		if (!name[0]) {
			snprintf(buf, sizeof(buf), "pid %u", pr->pid);
			name = buf;
		}
		meta(x, "process_name", pr->pid, pr->pid, name);
	}
	for (size_t r = 0; r < x->nthread_order; r++) {
		size_t t = x->thread_order[r];
		const struct gr_thread *th = &x->threads[t];
		char name[64];

		if (x->thread_use[t] & 1) {
			meta(x, "thread_name", th->pid, th->tid,
			     thread_name(x, th, name, sizeof(name)));
			meta_sort(x, th->pid, th->tid, 2 * (uint64_t)r);
		}
		if (x->thread_use[t] & 2) {
			snprintf(buf, sizeof(buf), "%s %u CPU state",
				 thread_name(x, th, name, sizeof(name)), th->tid);
			meta(x, "thread_name", th->pid, sched_tid(x, t), buf);
			meta_sort(x, th->pid, sched_tid(x, t), 2 * (uint64_t)r + 1);
		}
	}
	for (size_t r = 0; r < x->nstream_order; r++) {
		size_t s = x->stream_order[r];
		const struct gr_stream *st = &x->streams[s];

		const char *nv = gr_nvtx_stream_name(&x->nvtx, st->pid, st->handle);

		if (nv && nv[0] && !st->per_thread)
			snprintf(buf, sizeof(buf), "%s", nv);
		else if (st->per_thread)
			gr_stream_name(st, buf, sizeof(buf));
		else if (st->handle)
			snprintf(buf, sizeof(buf), "stream 0x%" PRIx64, st->handle);
		else
			snprintf(buf, sizeof(buf), "stream 0 (legacy default)");
		meta(x, "thread_name", st->pid, stream_tid(x, s), buf);
		meta_sort(x, st->pid, stream_tid(x, s), 2 * (uint64_t)x->nthread_order + r);
	}
	for (size_t r = 0; r < x->gpu.ntracks; r++) {
		const struct ex_gpu_track *t = &x->gpu.tracks[r];

		snprintf(buf, sizeof(buf), "GPU %u stream 0x%x", t->device, t->stream);
		meta(x, "thread_name", t->pid, gpu_tid(x, (uint32_t)r), buf);
		meta_sort(x, t->pid, gpu_tid(x, (uint32_t)r),
			  2 * (uint64_t)x->nthread_order + x->nstream_order + r);
	}
	for (size_t k = 0; k < x->nlanes; k++) {
		snprintf(buf, sizeof(buf), "NVTX start/end %zu", k);
		meta(x, "thread_name", x->lane_pid[k], nvtx_tid(k), buf);
	}
	if (x->steps_used) {
		const struct gr_thread *th = &x->threads[x->o->step_thread];

		snprintf(buf, sizeof(buf), "steps (--step %s)",
			 x->o->step_spec ? x->o->step_spec : "?");
		meta(x, "thread_name", th->pid, step_tid(x), buf);
		meta_sort(x, th->pid, step_tid(x),
			  2 * (uint64_t)x->nthread_order + x->nstream_order + x->gpu.ntracks);
	}
}

/* ---- API calls ---- */

/* What a call slice is, for the counts: an executed call, a graph node, or a call set aside. */
enum slice_sort { SLICE_CALL, SLICE_NODE, SLICE_ASIDE };

static void count_slice(struct ex *x, enum slice_sort sort, unsigned kind)
{
	if (sort == SLICE_NODE) {
		x->st.node_slices++;
	} else if (sort == SLICE_ASIDE) {
		x->st.aside_slices++;
	} else {
		x->st.api_slices[kind]++;
		x->st.api_total++;
	}
}

/*
 * Marks (first pass) or opens (second pass) the slice @name of one call on its thread; 1 when it
 * is written.
 */
static int slice_begin(struct ex *x, enum slice_sort sort, unsigned kind, const char *cat,
		       uint32_t thread, const char *name, uint64_t ts, uint64_t dur, uint32_t stack)
{
	const struct gr_thread *t = &x->threads[thread];

	if (!x->thread_ok[thread] || !in_window(x, ts, dur))
		return 0;
	count_slice(x, sort, kind);
	if (!x->emit) {
		x->thread_use[thread] |= 1;
		x->proc_use[t->process] = 1;
		x->st.events++;
		return 0;
	}
	event_begin(x, "X", name, cat, t->pid, t->tid);
	event_ts(x, ts);
	event_dur(x, dur);
	if (stack && x->pf) {
		ex_pf_stack(x->pf, stack);
	} else if (stack) {
		/* the call stack, for the Perfetto UI's slice details ("stackFrames") */
		int64_t sf = ex_stacks_sf(&x->stacks, stack);

		if (sf < 0 && !x->err)
			x->err = (int)sf;
		if (sf > 0)
			gr_json_kv_u64(&x->j, "sf", (uint64_t)sf);
	}
	args_begin(x);
	return 1;
}

/* The slice of one executed API call, named by its function. */
static int api_begin(struct ex *x, unsigned kind, const char *cat, uint32_t thread, uint16_t api,
		     uint64_t ts, uint64_t dur, uint32_t stack)
{
	return slice_begin(x, SLICE_CALL, kind, cat, thread, gr_api_name(api), ts, dur, stack);
}

static void api_end(struct ex *x, uint64_t dur)
{
	if (!dur)
		arg_str(x, "api_time", "not measured");
	args_end(x);
	event_end(x);
}

static void kv_stream(struct ex *x, uint32_t stream)
{
	const struct gr_stream *s = &x->streams[stream];
	char buf[64];

	if (s->per_thread)
		arg_str(x, "stream", gr_stream_name(s, buf, sizeof(buf)));
	else
		arg_hex(x, "stream", s->handle);
}

static void launch_extras(struct ex *x, const struct gr_launch *l, const struct gr_launch_key *lk,
			  const char *kernel, const struct gr_config *c)
{
	const struct gr_thread *t = &x->threads[lk->thread];
	uint32_t stid = stream_tid(x, lk->stream);
	uint64_t id = ++x->launches;

	event_begin(x, "i", kernel, "kernel", t->pid, stid);
	event_ts(x, l->ts);
	event_scope(x, 't');
	event_flow(x, x->o->no_flows ? 0 : id);
	args_begin(x);
	/* all of the launch key's: Perfetto folds them into one argument, written once a key */
	if (!x->pf || !ex_pf_fold_begin(x->pf, EX_PF_FOLD_KERNEL, l->key)) {
		arg_str(x, "kernel", kernel);
		arg_dim3(x, "grid", c->grid);
		arg_dim3(x, "block", c->block);
		if (gr_config_has_cluster(c))
			arg_dim3(x, "cluster", c->cluster);
		arg_u64(x, "shared_mem", c->shmem);
		arg_u64(x, "tid", t->tid);
		if (x->pf)
			ex_pf_fold_end(x->pf);
	}
	args_end(x);
	event_end(x);
	x->st.launch_instants++;
	if (x->o->no_flows)
		return;
	x->st.flows++;
	if (x->pf)
		return; /* the slice and the instant carry the flow's id: no events of its own */
	event_begin(x, "s", "launch", "flow", t->pid, t->tid);
	event_ts(x, l->ts);
	gr_json_kv_u64(&x->j, "id", id);
	args_begin(x); /* DevTools' loader wants args on every event */
	args_end(x);
	event_end(x);
	event_begin(x, "f", "launch", "flow", t->pid, stid);
	event_ts(x, l->ts);
	gr_json_kv_u64(&x->j, "id", id);
	gr_json_kv_str(&x->j, "bp", "e");
	args_begin(x);
	args_end(x);
	event_end(x);
}

/* ---- flows from the calls to the GPU rows they made ---- */

static uint64_t gpu_flow_id(const struct ex *x, size_t row)
{
	return x->gpu.base + x->gpu.flow[row];
}

/*
 * Ends the slice of executed call @index of @slot's kind on @thread (api_end()) with the flows
 * that start there, one per GPU row the call made (struct ex_gpu): their ids on the slice in
 * Perfetto, an "s" event each at the call's entry @ts in JSON.
 */
static void call_end(struct ex *x, enum gpu_slot slot, size_t index, uint32_t thread, uint64_t ts,
		     uint64_t dur)
{
	const struct gr_thread *t = &x->threads[thread];
	struct ex_gpu *g = &x->gpu;
	size_t a = g->cursor[slot], b;

	if (!g->nfrom) {
		api_end(x, dur);
		return;
	}
	while (a < g->nfrom && g->from[a].slot == slot && g->from[a].index < index)
		a++;
	for (b = a; b < g->nfrom && g->from[b].slot == slot && g->from[b].index == index; b++)
		event_flow(x, gpu_flow_id(x, g->from[b].row));
	api_end(x, dur);
	g->cursor[slot] = b;
	if (x->pf)
		return; /* the slice and the GPU slice carry the flow's id */
	for (size_t c = a; c < b; c++) {
		event_begin(x, "s", "gpu", "flow", t->pid, t->tid);
		event_ts(x, ts);
		gr_json_kv_u64(&x->j, "id", gpu_flow_id(x, g->from[c].row));
		args_begin(x);
		args_end(x);
		event_end(x);
	}
}

/* The arguments of each kind of call, shared by executed calls, graph nodes and asides. */
static void launch_args(struct ex *x, const struct gr_launch_key *lk)
{
	const struct gr_kernel *k = gr_model_kernels(x->m, NULL);
	const struct gr_config *cfg = &gr_model_configs(x->m, NULL)[lk->config];

	/* all of the launch key's: Perfetto folds them into one argument, written once a key */
	if (x->pf && ex_pf_fold_begin(x->pf, EX_PF_FOLD_LAUNCH,
				      (uint64_t)(lk - gr_model_launch_keys(x->m, NULL))))
		return;
	arg_str(x, "kernel", k[lk->kernel].name);
	arg_dim3(x, "grid", cfg->grid);
	arg_dim3(x, "block", cfg->block);
	if (gr_config_has_cluster(cfg))
		arg_dim3(x, "cluster", cfg->cluster);
	arg_u64(x, "shared_mem", cfg->shmem);
	kv_stream(x, lk->stream);
	arg_u64(x, "cpu", lk->cpu);
	if (x->pf)
		ex_pf_fold_end(x->pf);
}

static void copy_args(struct ex *x, const struct gr_copy *c)
{
	arg_u64(x, "bytes", c->bytes);
	arg_str(x, "kind", gr_copy_kind_name(c->kind));
	/* a "default" copy whose direction the allocations told (memmap.h) */
	if (c->kind_recorded != c->kind)
		arg_str(x, "recorded_kind", gr_copy_kind_name(c->kind_recorded));
	kv_stream(x, c->stream);
	arg_bool(x, "async", !!(c->flags & GR_COPY_F_ASYNC));
	arg_hex(x, "dst", c->dst);
	arg_hex(x, "src", c->src);
}

static void memset_args(struct ex *x, const struct gr_memset *ms)
{
	arg_u64(x, "bytes", ms->bytes);
	arg_u64(x, "value", ms->value);
	arg_hex(x, "dst", ms->dst);
	kv_stream(x, ms->stream);
}

static void alloc_args(struct ex *x, const struct gr_alloc *a)
{
	arg_u64(x, "bytes", a->bytes);
	arg_str(x, "kind", gr_alloc_kind_name(a->kind));
	if (a->addr)
		arg_hex(x, "addr", a->addr);
	else
		arg_str(x, "addr", "failed");
}

static void free_args(struct ex *x, const struct gr_free *fr)
{
	arg_hex(x, "addr", fr->addr);
	arg_str(x, "kind", gr_alloc_kind_name(fr->kind));
}

static void sync_args(struct ex *x, const struct gr_sync *s)
{
	arg_str(x, "kind", gr_sync_kind_name(s->kind));
	if (s->kind == GR_SYNC_STREAM)
		arg_hex(x, "stream", s->handle);
	else if (s->kind != GR_SYNC_DEVICE)
		arg_hex(x, "handle", s->handle);
	if (s->kind == GR_SYNC_STREAM_WAIT_EVENT)
		arg_hex(x, "event", s->handle2);
}

/*
 * What graph launch @i (gr_model_graphs() index) executed, as graphs.c replayed it: the kernels,
 * copies and memsets, and each kernel name with its count, in order of first appearance.
 */
static void graph_launch_args(struct ex *x, size_t i)
{
	const struct gr_kernel *k = gr_model_kernels(x->m, NULL);
	const struct gr_launch_key *keys = gr_model_launch_keys(x->m, NULL);
	const char *const *names = gr_model_kernel_names(x->m, NULL);
	struct gr_graph_work w;
	size_t nseen = 0;

	if (!gr_graphs_launch_work(x->graphs, i, &w)) {
		arg_str(x, "kernels", "unknown: the trace never instantiated this graph");
		return;
	}
	arg_u64(x, "kernels", w.nkernels);
	arg_u64(x, "copies", w.ncopies);
	arg_u64(x, "memsets", w.nmemsets);
	arg_u64(x, "copy_bytes", w.copy_bytes);
	arg_u64(x, "memset_bytes", w.memset_bytes);
	arg_u64(x, "host_nodes", w.nhosts);
	arg_u64(x, "event_nodes", w.nevents);
	for (uint32_t n = 0; n < w.nkernels; n++) {
		uint32_t id = k[keys[w.keys[n]].kernel].name_id;

		if (!x->name_count[id]++)
			x->name_seen[nseen++] = id;
	}
	arg_dict_begin(x, "kernel_counts");
	for (size_t n = 0; n < nseen; n++) {
		arg_u64(x, names[x->name_seen[n]], x->name_count[x->name_seen[n]]);
		x->name_count[x->name_seen[n]] = 0;
	}
	arg_dict_end(x);
}

static void graph_args(struct ex *x, const struct gr_graph *g, size_t i)
{
	arg_str(x, "kind", gr_graph_kind_name(g->kind));
	arg_hex(x, "graph", g->graph);
	arg_hex(x, "exec", g->exec);
	kv_stream(x, g->stream);
	if (i != SIZE_MAX && g->kind == GR_GRAPH_LAUNCH)
		graph_launch_args(x, i);
}

/*
 * A graph node (graphs.h): recorded when the graph was built, it executed nothing then. A
 * labelled slice on its thread, never an instant on a stream nor a flow: the graph launches that
 * ran it carry what it did. @what: the kernel's name or the API's.
 */
static int node_begin(struct ex *x, unsigned kind, uint32_t thread, uint16_t api, const char *what,
		      uint64_t ts, uint64_t dur, uint32_t stack)
{
	char name[300];

	snprintf(name, sizeof(name), "%s: %s",
		 gr_graphs_api_is_node(api) ? "graph node" : "captured", what);
	if (!slice_begin(x, SLICE_NODE, kind, "graph_node", thread, name, ts, dur, stack))
		return 0;
	arg_bool(x, "graph_node", 1);
	arg_str(x, "api", gr_api_name(api));
	return 1;
}

static void write_launches(struct ex *x)
{
	size_t n;
	const struct gr_launch *l = gr_model_launches(x->m, &n);
	const struct gr_launch_key *keys = gr_model_launch_keys(x->m, NULL);
	const struct gr_kernel *k = gr_model_kernels(x->m, NULL);
	const struct gr_config *c = gr_model_configs(x->m, NULL);
	const uint64_t *nodes = gr_graphs_launch_bits(x->graphs);

	for (size_t i = 0; i < n; i++) {
		const struct gr_launch_key *lk = &keys[l[i].key];
		uint64_t dur = gr_launch_dur(lk, &l[i]);

		gr_progress_add(1);
		if (gr_graphs_bit(nodes, i)) {
			if (node_begin(x, GR_K_LAUNCH, lk->thread, lk->api, k[lk->kernel].name,
				       l[i].ts, dur, lk->stack)) {
				launch_args(x, lk);
				api_end(x, dur);
			}
			continue;
		}
		if (!api_begin(x, GR_K_LAUNCH, "launch", lk->thread, lk->api, l[i].ts, dur,
			       lk->stack)) {
			if (!x->emit && x->thread_ok[lk->thread] && in_window(x, l[i].ts, dur)) {
				x->stream_use[lk->stream] = 1;
				x->st.launch_instants++;
				x->st.flows += !x->o->no_flows;
				x->st.events += x->o->no_flows ? 1 : 3;
			}
			continue;
		}
		launch_args(x, lk);
		event_flow(x, x->o->no_flows ? 0 : x->launches + 1); /* launch_extras()'s id */
		call_end(x, SLOT_LAUNCH, i, lk->thread, l[i].ts, dur);
		launch_extras(x, &l[i], lk, k[lk->kernel].name, &c[lk->config]);
	}
}

static void write_calls(struct ex *x)
{
	size_t n;

	const struct gr_copy *c = gr_model_copies(x->m, &n);
	const uint64_t *copy_nodes = gr_graphs_copy_bits(x->graphs);
	for (size_t i = 0; i < n; i++) {
		gr_progress_add(1);
		if (gr_graphs_bit(copy_nodes, i)
			? !node_begin(x, GR_K_COPY, c[i].thread, c[i].api, gr_api_name(c[i].api),
				      c[i].ts, c[i].dur, c[i].stack)
			: !api_begin(x, GR_K_COPY, "copy", c[i].thread, c[i].api, c[i].ts, c[i].dur,
				     c[i].stack))
			continue;
		copy_args(x, &c[i]);
		call_end(x, SLOT_COPY, i, c[i].thread, c[i].ts, c[i].dur);
	}
	const struct gr_memset *ms = gr_model_memsets(x->m, &n);
	const uint64_t *memset_nodes = gr_graphs_memset_bits(x->graphs);
	for (size_t i = 0; i < n; i++) {
		gr_progress_add(1);
		if (gr_graphs_bit(memset_nodes, i)
			? !node_begin(x, GR_K_MEMSET, ms[i].thread, ms[i].api,
				      gr_api_name(ms[i].api), ms[i].ts, ms[i].dur, ms[i].stack)
			: !api_begin(x, GR_K_MEMSET, "memset", ms[i].thread, ms[i].api, ms[i].ts,
				     ms[i].dur, ms[i].stack))
			continue;
		memset_args(x, &ms[i]);
		call_end(x, SLOT_MEMSET, i, ms[i].thread, ms[i].ts, ms[i].dur);
	}
	const struct gr_alloc *a = gr_model_allocs(x->m, &n);
	for (size_t i = 0; i < n; i++) {
		if (!api_begin(x, GR_K_ALLOC, "alloc", a[i].thread, a[i].api, a[i].ts, a[i].dur, 0))
			continue;
		alloc_args(x, &a[i]);
		api_end(x, a[i].dur);
	}
	const struct gr_free *fr = gr_model_frees(x->m, &n);
	for (size_t i = 0; i < n; i++) {
		if (!api_begin(x, GR_K_FREE, "free", fr[i].thread, fr[i].api, fr[i].ts, fr[i].dur,
			       0))
			continue;
		free_args(x, &fr[i]);
		api_end(x, fr[i].dur);
	}
	const struct gr_sync *s = gr_model_syncs(x->m, &n);
	for (size_t i = 0; i < n; i++) {
		if (!api_begin(x, GR_K_SYNC, "sync", s[i].thread, s[i].api, s[i].ts, s[i].dur,
			       s[i].stack))
			continue;
		sync_args(x, &s[i]);
		api_end(x, s[i].dur);
	}
	const struct gr_graph *g = gr_model_graphs(x->m, &n);
	for (size_t i = 0; i < n; i++) {
		if (!api_begin(x, GR_K_GRAPH, "graph", g[i].thread, g[i].api, g[i].ts, g[i].dur,
			       g[i].stack))
			continue;
		graph_args(x, &g[i], i);
		call_end(x, SLOT_GRAPH, i, g[i].thread, g[i].ts, g[i].dur);
	}
}

/*
 * Opens the slice of a call set aside (failed, nested, in flight), named so that a failure shows,
 * with what became of it in args; 1 when it is written. CUDA calls (write_asides()) and NCCL
 * calls (write_comm()) alike.
 */
static int aside_begin(struct ex *x, unsigned kind, const char *cat, uint32_t thread, unsigned api,
		       uint16_t call, uint32_t status, uint64_t ts, uint64_t dur, uint32_t stack)
{
	int returned = !!(call & GR_CALL_RETURNED), in_flight = !!(call & GR_CALL_IN_FLIGHT);
	char name[160], buf[128];

	gr_outcome_call_status_text(api, status, buf, sizeof(buf));
	if (returned && status)
		snprintf(name, sizeof(name), "%s (failed: %s)", gr_api_name(api), buf);
	else if (in_flight)
		snprintf(name, sizeof(name), "%s (in flight)", gr_api_name(api));
	else
		snprintf(name, sizeof(name), "%s", gr_api_name(api));
	if (!slice_begin(x, SLICE_ASIDE, kind, cat, thread, name, ts, dur, stack))
		return 0;
	arg_str(x, "status", returned ? buf : "unknown");
	arg_u64(x, "depth", GR_CALL_DEPTH(call));
	arg_bool(x, "in_flight", in_flight);
	return 1;
}

/* What an NCCL call says, beside its kind (docs/FORMAT.md, COMM). */
static void comm_args(struct ex *x, const struct gr_comm_call *c)
{
	arg_str(x, "kind", gr_comm_kind_name(c->kind));
	arg_hex(x, "comm", c->comm);
	if (c->id) {
		arg_hex(x, "comm_id", c->id);
		arg_u64(x, "nranks", c->nranks);
		arg_u64(x, "rank", c->rank);
	}
	if (c->kind == GR_COMM_INIT || c->kind == GR_COMM_DESTROY ||
	    c->kind == GR_COMM_GROUP_START || c->kind == GR_COMM_GROUP_END)
		return;
	arg_hex(x, "stream", c->stream);
	arg_u64(x, "count", c->count);
	arg_u64(x, "dtype", c->dtype);
	arg_u64(x, "bytes", c->bytes);
	if (c->kind == GR_COMM_ALL_REDUCE || c->kind == GR_COMM_REDUCE_SCATTER ||
	    c->kind == GR_COMM_REDUCE)
		arg_u64(x, "redop", c->redop);
	if (c->peer != GR_COMM_NO_PEER)
		arg_u64(x, c->kind == GR_COMM_SEND || c->kind == GR_COMM_RECV ? "peer" : "root",
			c->peer);
}

/*
 * The NCCL calls: a slice each on its thread, cat "nccl", named by the function; done ones with
 * their collective number (seq: collective seq of one comm_id is one operation across ranks),
 * the others named and marked as the CUDA calls set aside are.
 */
static void write_comm(struct ex *x)
{
	size_t n;
	const struct gr_comm_call *c = gr_model_comm_calls(x->m, &n);

	for (size_t i = 0; i < n; i++) {
		if (!api_begin(x, GR_K_COMM, "nccl", c[i].thread, c[i].api, c[i].ts, c[i].dur,
			       c[i].stack))
			continue;
		comm_args(x, &c[i]);
		if (GR_COMM_IS_COLLECTIVE(c[i].kind))
			arg_u64(x, "seq", c[i].seq);
		api_end(x, c[i].dur);
	}
	c = gr_model_comm_asides(x->m, &n);
	for (size_t i = 0; i < n; i++) {
		if (!aside_begin(x, GR_K_COMM, "nccl", c[i].thread, c[i].api, c[i].call,
				 c[i].status, c[i].ts, c[i].dur, c[i].stack))
			continue;
		comm_args(x, &c[i]);
		api_end(x, c[i].dur);
	}
}

static const char *const kind_cat[GR_K_COUNT] = {
    [GR_K_LAUNCH] = "launch", [GR_K_COPY] = "copy", [GR_K_MEMSET] = "memset",
    [GR_K_ALLOC] = "alloc",   [GR_K_FREE] = "free", [GR_K_SYNC] = "sync",
    [GR_K_GRAPH] = "graph",
};

/*
 * The calls set aside (model.h struct gr_aside): failed, nested in another call, or in flight.
 * Each is a slice on its thread like any call, named so that a failure shows, with what became of
 * it in args; never a launch instant nor a flow, since none executed anything. An in-flight
 * call's slice runs from its entry to where the recording lost it.
 */
static void write_asides(struct ex *x)
{
	size_t n;
	const struct gr_aside *a = gr_model_asides(x->m, &n);
	const struct gr_launch_key *keys = gr_model_launch_keys(x->m, NULL);
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		const char *cat = a[i].kind < GR_K_COUNT ? kind_cat[a[i].kind] : NULL;

		if (!cat || !aside_begin(x, a[i].kind, cat, gr_aside_thread(x->m, &a[i]),
					 gr_aside_api(x->m, &a[i]), a[i].call, a[i].status, a[i].ts,
					 a[i].dur, gr_aside_stack(x->m, &a[i])))
			continue;
		if (a[i].call & GR_CALL_IN_FLIGHT)
			arg_str(x, "until",
				gr_outcome_in_flight_end(x->m, &a[i], buf, sizeof(buf)));
		switch (a[i].kind) {
		case GR_K_LAUNCH:
			launch_args(x, &keys[a[i].u.launch.key]);
			break;
		case GR_K_COPY:
			copy_args(x, &a[i].u.copy);
			break;
		case GR_K_MEMSET:
			memset_args(x, &a[i].u.memset);
			break;
		case GR_K_ALLOC:
			alloc_args(x, &a[i].u.alloc);
			break;
		case GR_K_FREE:
			free_args(x, &a[i].u.free);
			break;
		case GR_K_SYNC:
			sync_args(x, &a[i].u.sync);
			break;
		default:
			graph_args(x, &a[i].u.graph, SIZE_MAX);
			break;
		}
		api_end(x, a[i].dur);
	}
}

/* ---- GPU rows (--cupti) ---- */

/* Index of the process of @pid (gr_model_processes() is sorted by pid), or SIZE_MAX. */
static size_t process_index(const struct ex *x, uint32_t pid)
{
	size_t lo = 0, hi = x->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nprocs && x->procs[lo].pid == pid ? lo : SIZE_MAX;
}

/* The call a GPU row is tied to (gpu.h): 1 and its slot, thread, entry and duration; 0 none. */
static int tied_call(const struct ex *x, const struct gr_gpu_tie *t, enum gpu_slot *slot,
		     uint32_t *thread, uint64_t *ts, uint64_t *dur)
{
	switch (t->kind) {
	case GR_K_LAUNCH: {
		const struct gr_launch *l = &gr_model_launches(x->m, NULL)[t->index];
		const struct gr_launch_key *k = &gr_model_launch_keys(x->m, NULL)[l->key];

		*slot = SLOT_LAUNCH, *thread = k->thread, *ts = l->ts, *dur = gr_launch_dur(k, l);
		return 1;
	}
	case GR_K_COPY: {
		const struct gr_copy *c = &gr_model_copies(x->m, NULL)[t->index];

		*slot = SLOT_COPY, *thread = c->thread, *ts = c->ts, *dur = c->dur;
		return 1;
	}
	case GR_K_MEMSET: {
		const struct gr_memset *s = &gr_model_memsets(x->m, NULL)[t->index];

		*slot = SLOT_MEMSET, *thread = s->thread, *ts = s->ts, *dur = s->dur;
		return 1;
	}
	case GR_K_GRAPH: {
		const struct gr_graph *g = &gr_model_graphs(x->m, NULL)[t->index];

		*slot = SLOT_GRAPH, *thread = g->thread, *ts = g->ts, *dur = g->dur;
		return 1;
	}
	default:
		return 0;
	}
}

/*
 * Marking pass for GPU row @r, which the window holds: its track and process are used, and it
 * gets a flow when the slice of its call is written too (a row whose call the probes did not
 * record, or whose call is outside the window, is a slice without a flow).
 */
static void mark_gpu_row(struct ex *x, size_t r)
{
	const struct gr_gpu *row = &x->gpu.rows[r];
	const struct gr_gpu_tie *t = &x->gpu.sum->ties[r];
	size_t p = process_index(x, row->pid);
	enum gpu_slot slot;
	uint32_t thread;
	uint64_t ts, dur;

	x->gpu.track[r] = 0; /* used: order_gpu() ranks it */
	if (p != SIZE_MAX)
		x->proc_use[p] = 1;
	x->st.gpu_slices++;
	x->st.gpu_untied += !t->kind;
	x->st.events++;
	if (x->o->no_flows || !tied_call(x, t, &slot, &thread, &ts, &dur) ||
	    !x->thread_ok[thread] || !in_window(x, ts, dur))
		return;
	x->gpu.flow[r] = ++x->gpu.nflows;
	x->st.gpu_flows++;
	x->st.events += 2; /* JSON: "s" and "f" */
}

/* The slice of GPU row @r on its track, and the end of its flow. */
static void gpu_slice(struct ex *x, size_t r)
{
	const struct gr_gpu *row = &x->gpu.rows[r];
	uint32_t tid = gpu_tid(x, x->gpu.track[r]), pid, host_tid;
	uint64_t id = x->gpu.flow[r] ? gpu_flow_id(x, r) : 0, host_ts;
	const char *name, *cat;
	char buf[64];
	unsigned api;

	if (row->kind == GR_GPU_KERNEL) {
		name = row->name[0] ? row->name : "kernel";
		cat = "gpu_kernel";
	} else if (row->kind == GR_GPU_MEMCPY) {
		snprintf(buf, sizeof(buf), "memcpy %s", gr_gpu_copy_kind_name(row->copy_kind));
		name = buf;
		cat = "gpu_memcpy";
	} else if (row->kind == GR_GPU_MEMSET) {
		name = "memset";
		cat = "gpu_memset";
	} else {
		snprintf(buf, sizeof(buf), "GPU activity (kind %u)", row->kind);
		name = buf;
		cat = "gpu";
	}
	event_begin(x, "X", name, cat, row->pid, tid);
	event_ts(x, row->ts);
	event_dur(x, row->dur);
	event_flow(x, id);
	args_begin(x);
	if (row->kind == GR_GPU_KERNEL) {
		arg_str(x, "kernel", name);
		arg_dim3(x, "grid", row->grid);
		arg_dim3(x, "block", row->block);
		arg_u64(x, "shared_mem", row->shared);
	} else if (row->kind == GR_GPU_MEMCPY) {
		arg_str(x, "copy_kind", gr_gpu_copy_kind_name(row->copy_kind));
		arg_u64(x, "bytes", row->bytes);
	} else if (row->kind == GR_GPU_MEMSET) {
		arg_u64(x, "bytes", row->bytes);
	}
	arg_u64(x, "correlation", row->correlation);
	if (row->graph) {
		arg_u64(x, "graph", row->graph);
		arg_u64(x, "graph_node", row->graph_node);
	}
	if (gr_gpu_tie_call(x->m, &x->gpu.sum->ties[r], &pid, &host_tid, &host_ts, &api)) {
		arg_str(x, "call", gr_api_name(api));
		arg_u64(x, "call_tid", host_tid);
	} else {
		arg_str(x, "call", "not recorded by the probes");
	}
	args_end(x);
	event_end(x);
	x->st.gpu_slices++;
	x->st.gpu_untied += !x->gpu.sum->ties[r].kind;
	if (!id)
		return;
	x->st.gpu_flows++;
	if (x->pf)
		return;
	event_begin(x, "f", "gpu", "flow", row->pid, tid);
	event_ts(x, row->ts);
	gr_json_kv_u64(&x->j, "id", id);
	gr_json_kv_str(&x->j, "bp", "e");
	args_begin(x);
	args_end(x);
	event_end(x);
}

/*
 * Every GPU row the window and the pid filter hold: a slice on the track of its (process,
 * device, stream) at its GPU time, and the end of the flow from its call. Marked (first pass) or
 * written.
 */
static void write_gpu(struct ex *x)
{
	for (size_t r = 0; r < x->gpu.nrows; r++) {
		const struct gr_gpu *row = &x->gpu.rows[r];

		if (!pid_wanted(x->o, row->pid) || !in_window(x, row->ts, row->dur))
			continue;
		if (!x->emit)
			mark_gpu_row(x, r);
		else
			gpu_slice(x, r);
	}
}

/* ---- scheduler state slices: what one slice looks like ---- */

static void other_name(const struct ex *x, char *buf, size_t len, uint32_t pid, uint32_t tid)
{
	const char *comm = gr_model_comm(x->m, tid);

	if (!tid)
		snprintf(buf, len, "idle");
	else if (gr_model_is_recorder(x->m, pid))
		snprintf(buf, len, "%s %u", GR_RECORDER_NAME, tid);
	else if (comm)
		snprintf(buf, len, "%s %u", comm, tid);
	else
		snprintf(buf, len, "tid %u (pid %u)", tid, pid);
}

static const char *sleep_name(uint64_t prev_state)
{
	if (prev_state & 2)
		return "uninterruptible (D)";
	if (prev_state & 1)
		return "interruptible (S)";
	if (prev_state & 4)
		return "stopped (T)";
	if (prev_state & 8)
		return "traced (t)";
	return "other";
}

/* Why a blocked slice's thread slept (blocked.h): the reason, the call, who woke it and where. */
static void blocked_args(struct ex *x, const struct gr_block_why *why)
{
	char buf[GR_FRAME_TEXT];
	const char *sc = gr_syscall_name(why->syscall);

	arg_str(x, "reason", gr_block_reason_name(why->reason));
	if (sc)
		arg_str(x, "syscall", sc);
	else if (why->syscall >= 0)
		arg_u64(x, "syscall_nr", (uint64_t)why->syscall);
	if (!why->woken)
		return;
	other_name(x, buf, sizeof(buf), why->waker_pid, why->waker_tid);
	arg_str(x, "woken_by", buf);
	if (why->waker_stack)
		arg_str(x, "waker_site", gr_block_site(x->m, why->waker_stack, buf, sizeof(buf)));
}

/*
 * One scheduler state slice of traced thread @t, [@a, @b] already clipped to the window: marked
 * (first pass) or written on the thread's CPU-state track. @sp says which state and how it began;
 * @flow, when not 0, the Perfetto wake flow the slice ends.
 */
static void sched_slice(struct ex *x, size_t t, const struct gr_state_span *sp, uint64_t a,
			uint64_t b, const struct gr_block_why *why, uint64_t flow)
{
	const struct gr_thread *th = &x->threads[t];
	const struct gr_state_begin *by = &sp->begin;
	char buf[96];

	if (!x->emit) {
		x->thread_use[t] |= 2;
		x->proc_use[th->process] = 1;
		x->st.sched_slices++;
		x->st.events++;
		return;
	}
	event_begin(x, "X", gr_thread_state_name(sp->state), "sched", th->pid, sched_tid(x, t));
	event_ts(x, a);
	event_dur(x, b - a);
	event_flow(x, flow);
	/* a trace that records why threads block: the stack the thread slept at */
	if (sp->state == GR_STATE_BLOCKED && x->reasons_recorded && why->stack) {
		if (x->pf) {
			ex_pf_stack(x->pf, why->stack);
		} else {
			int64_t sf = ex_stacks_sf(&x->stacks, why->stack);

			if (sf < 0 && !x->err)
				x->err = (int)sf;
			if (sf > 0)
				gr_json_kv_u64(&x->j, "sf", (uint64_t)sf);
		}
	}
	args_begin(x);
	if (sp->state == GR_STATE_RUN) {
		arg_u64(x, "cpu", by->cpu);
	} else if (sp->state == GR_STATE_RUNNABLE) {
		other_name(x, buf, sizeof(buf), by->other_pid, by->other_tid);
		arg_str(x, by->cause == GR_SPAN_WAKEUP ? "woken_by" : "preempted_by", buf);
	} else {
		arg_str(x, "sleep", sleep_name(by->prev_state));
		arg_hex(x, "prev_state", by->prev_state);
		if (x->reasons_recorded)
			blocked_args(x, why);
	}
	args_end(x);
	event_end(x);
	x->st.sched_slices++;
}

/* Wake flows' ids: above every launch and GPU flow's (those count from 1). */
#define WAKE_FLOW_BASE (1ull << 40)

/*
 * The flow of the wakeup at @ts that ended traced thread @t's blocked slice, from its waker's
 * CPU-state track (where the waker ran then) to @t's, only when the waker is a traced thread
 * the pid filter keeps. The marking pass keeps the waker's track. JSON: an "s" and an "f" event.
 * Perfetto ties a flow to slices and links them in time order: a "wake" instant on the waker's
 * track starts it, and the slice that begins at the wakeup on @t's (its runnable wait, which
 * ends at the blocked slice's end) ends it; tied to the blocked slice itself, which began before
 * the wakeup, the flow would point from the sleeper to its waker.
 */
static void wake_flow(struct ex *x, size_t t, const struct gr_block_why *why, uint64_t ts)
{
	const struct gr_thread *bt = &x->threads[t], *wt;
	size_t w;
	uint64_t id;
	char buf[96];

	if (x->o->no_flows || !x->reasons_recorded || !why->woken || !why->waker_tid)
		return;
	for (w = 0; w < x->nthreads; w++)
		if (x->threads[w].tid == why->waker_tid && x->threads[w].pid == why->waker_pid)
			break;
	if (w == x->nthreads || w == t || !x->thread_ok[w])
		return;
	wt = &x->threads[w];
	if (!x->emit) {
		x->thread_use[w] |= 2;
		x->proc_use[wt->process] = 1;
		x->st.wake_flows++;
		x->st.events += x->pf ? 1 : 2;
		return;
	}
	id = WAKE_FLOW_BASE + ++x->wake_flows;
	if (x->pf) {
		event_begin(x, "i", "wake", "wake", wt->pid, sched_tid(x, w));
		event_ts(x, ts);
		event_flow(x, id);
		args_begin(x);
		other_name(x, buf, sizeof(buf), bt->pid, bt->tid);
		arg_str(x, "woke", buf);
		args_end(x);
		event_end(x);
		x->wake_pending[t] = id;
		x->st.wake_flows++;
		return;
	}
	event_begin(x, "s", "wakeup", "wake", wt->pid, sched_tid(x, w));
	event_ts(x, ts);
	gr_json_kv_u64(&x->j, "id", id);
	args_begin(x);
	args_end(x);
	event_end(x);
	event_begin(x, "f", "wakeup", "wake", bt->pid, sched_tid(x, t));
	event_ts(x, ts);
	gr_json_kv_u64(&x->j, "id", id);
	gr_json_kv_str(&x->j, "bp", "e");
	args_begin(x);
	args_end(x);
	event_end(x);
	x->st.wake_flows++;
}

/* A state a traced thread left (timeline.h): its slice, clipped to the window. */
static int on_span(void *ctx, const struct gr_state_span *sp, const struct gr_block_why *why)
{
	struct ex *x = ctx;
	uint64_t a = sp->start > x->lo ? sp->start : x->lo;
	uint64_t b = sp->end < x->hi ? sp->end : x->hi;
	/* a wake flow waits for the slice that begins at its wakeup: this one, or none */
	uint64_t flow = x->wake_pending[sp->thread];

	x->wake_pending[sp->thread] = 0;
	if (flow && (sp->state != GR_STATE_RUNNABLE || sp->begin.cause != GR_SPAN_WAKEUP))
		flow = 0;
	if ((sp->state == GR_STATE_RUN || sp->state == GR_STATE_RUNNABLE ||
	     sp->state == GR_STATE_BLOCKED) &&
	    b > a && x->thread_ok[sp->thread]) {
		sched_slice(x, sp->thread, sp, a, b, why, flow);
		if (sp->state == GR_STATE_BLOCKED && sp->cause == GR_SPAN_WAKEUP &&
		    in_window(x, sp->end, 0))
			wake_flow(x, sp->thread, why, sp->end);
	}
	return 0;
}

/*
 * The scheduler records up to the window's end through the shared thread timeline, every model
 * thread tracked (gr_block_replay()). Returns 0 or -ENOMEM.
 */
static int write_sched(struct ex *x)
{
	struct gr_block_ctx bc;

	gr_block_ctx_init(&bc, x->m);
	x->reasons_recorded = bc.recorded;
	return gr_block_replay(x->m, x->hi, x->end, GR_BLOCK_REPLAY_WHY | GR_BLOCK_REPLAY_PROGRESS,
			       on_span, x);
}

/* ---- the named steps (--step) ---- */

/*
 * One slice per step the caller named, clipped to the window as scheduler states are: a step is
 * a span of time, and the window's edges cut it. Nothing when the pid filter drops the step's
 * thread, or a model loaded for a window does not know it (its index then names another thread
 * or none: the caller's report was computed on this same model, so it does not happen).
 */
static void write_steps(struct ex *x)
{
	const struct gr_export_opts *o = x->o;
	const struct gr_thread *th;
	char name[32];

	if (!o->nsteps || !o->step_starts || o->step_thread >= x->nthreads ||
	    !x->thread_ok[o->step_thread])
		return;
	th = &x->threads[o->step_thread];
	for (size_t j = 0; j < o->nsteps; j++) {
		uint64_t s = o->step_starts[j];
		uint64_t e = j + 1 < o->nsteps ? o->step_starts[j + 1] : o->step_end;
		uint64_t a = s > x->lo ? s : x->lo, b = e < x->hi ? e : x->hi;

		if (b <= a)
			continue;
		x->st.step_slices++;
		if (!x->emit) {
			x->steps_used = 1;
			x->proc_use[th->process] = 1;
			x->st.events++;
			continue;
		}
		snprintf(name, sizeof(name), "step %zu", j);
		event_begin(x, "X", name, "step", th->pid, step_tid(x));
		event_ts(x, a);
		event_dur(x, b - a);
		args_begin(x);
		arg_u64(x, "index", j);
		args_end(x);
		event_end(x);
	}
}

/* The start/end range @i's track: the first of its process free at its start, else a new one. */
static uint32_t nvtx_lane(struct ex *x, size_t i, uint32_t pid)
{
	const struct gr_nvtx_range *r = &x->nvtx.ranges[i];
	size_t k;

	for (k = 0; k < x->nlanes; k++)
		if (x->lane_pid[k] == pid && x->lane_end[k] <= r->start)
			break;
	if (k == x->nlanes) {
		x->lane_pid[k] = pid;
		x->nlanes++;
	}
	x->lane_end[k] = r->end;
	return (uint32_t)k;
}

static void nvtx_args(struct ex *x, const struct gr_nvtx_range *r)
{
	args_begin(x);
	arg_str(x, "domain", r->domain < x->nvtx.ndomains ? x->nvtx.domains[r->domain].name : "");
	arg_u64(x, "category", r->category);
	arg_hex(x, "color", r->color);
	arg_u64(x, "payload_type", r->payload_type);
	arg_u64(x, "payload", r->payload);
	arg_u64(x, "depth", r->depth);
	arg_bool(x, "closed", r->closed);
	if (r->kind == GR_NVTX_RANGE_STARTEND)
		arg_u64(x, "end_tid", x->threads[r->end_thread].tid);
	args_end(x);
}

/*
 * NVTX ranges and marks (export.h). The marking pass puts each start/end range on its track;
 * ranges and marks count as events of their threads, which they make used.
 */
static void write_nvtx(struct ex *x)
{
	const struct gr_nvtx_set *s = &x->nvtx;

	for (size_t i = 0; i < s->nranges; i++) {
		const struct gr_nvtx_range *r = &s->ranges[i];
		const struct gr_thread *t;
		const char *name = gr_nvtx_text(s, r->name);
		int async = r->kind == GR_NVTX_RANGE_STARTEND;

		if (r->thread >= x->nthreads || r->end_thread >= x->nthreads ||
		    !x->thread_ok[r->thread] || !in_window(x, r->start, r->end - r->start))
			continue;
		t = &x->threads[r->thread];
		x->st.nvtx_slices++;
		if (!x->emit) {
			if (async)
				x->nvtx_lane[i] = nvtx_lane(x, i, t->pid);
			else
				x->thread_use[r->thread] |= 1;
			x->proc_use[t->process] = 1;
			x->st.events++;
			continue;
		}
		event_begin(x, "X", name[0] ? name : "(unnamed)", "nvtx", t->pid,
			    async ? nvtx_tid(x->nvtx_lane[i]) : t->tid);
		event_ts(x, r->start);
		event_dur(x, r->end - r->start);
		nvtx_args(x, r);
		event_end(x);
	}
	for (size_t i = 0; i < s->nmarks; i++) {
		const struct gr_nvtx *mk = s->marks[i];
		const struct gr_thread *t;
		const char *name = gr_nvtx_text(s, mk->text);

		if (mk->thread >= x->nthreads || !x->thread_ok[mk->thread] ||
		    !in_window(x, mk->ts, 0))
			continue;
		t = &x->threads[mk->thread];
		x->st.nvtx_instants++;
		if (!x->emit) {
			x->thread_use[mk->thread] |= 1;
			x->proc_use[t->process] = 1;
			x->st.events++;
			continue;
		}
		event_begin(x, "i", name[0] ? name : "(unnamed)", "nvtx_mark", t->pid, t->tid);
		event_ts(x, mk->ts);
		event_scope(x, 't');
		args_begin(x);
		arg_u64(x, "category", mk->category);
		arg_hex(x, "color", mk->color);
		arg_u64(x, "payload_type", mk->payload_type);
		arg_u64(x, "payload", mk->payload);
		args_end(x);
		event_end(x);
	}
}

/*
 * Live device bytes of each process as a counter (docs/REPORTS.md, "7. Device memory"): a point
 * at every change in the window. JSON: "C" events named "device memory" on the process; Perfetto:
 * a counter track in bytes under the process.
 */
static void write_memory(struct ex *x)
{
	for (size_t k = 0; k < x->mem.nprocs; k++) {
		const struct gr_memory_proc *p = &x->mem.procs[k];
		size_t proc = process_index(x, p->pid);
		uint32_t tid = memory_tid(x, p->device);
		int described = 0;
		char name[64], track[64];

		if (proc == SIZE_MAX || !pid_wanted(x->o, p->pid))
			continue;
		/* device 0 keeps the name traces of one device always had */
		if (p->device) {
			snprintf(name, sizeof(name), "device %u memory", p->device);
			snprintf(track, sizeof(track), "device %u memory (live bytes)", p->device);
		} else {
			snprintf(name, sizeof(name), "device memory");
			snprintf(track, sizeof(track), "device memory (live bytes)");
		}
		for (size_t i = 0; i < p->nseries; i++) {
			const struct gr_memory_point *pt = &p->series[i];

			if (!in_window(x, pt->ts, 0))
				continue;
			x->st.memory_counters++;
			if (!x->emit) {
				x->proc_use[proc] = 1;
				x->st.events++;
				continue;
			}
			if (x->pf) {
				if (!described++)
					ex_pf_track(x->pf, EX_PF_COUNTER, p->pid, tid, track);
				ex_pf_counter(x->pf, p->pid, tid, pt->ts, (int64_t)pt->bytes);
				x->st.events++;
				continue;
			}
			event_begin(x, "C", name, "memory", p->pid, tid);
			event_ts(x, pt->ts);
			args_begin(x);
			arg_u64(x, "live bytes", pt->bytes);
			args_end(x);
			event_end(x);
		}
	}
}

/* ---- losses and process events ---- */

static void write_losses(struct ex *x)
{
	size_t n;
	const struct gr_loss *l = gr_model_losses(x->m, &n);
	char name[96];

	for (size_t i = 0; i < n; i++) {
		uint64_t end = l[i].ts_end > l[i].ts ? l[i].ts_end : l[i].ts;

		if (!in_window(x, l[i].ts, end - l[i].ts))
			continue;
		snprintf(name, sizeof(name), "lost %" PRIu64 " events (%s)", l[i].count,
			 gr_loss_source_name(l[i].source));
		event_begin(x, "i", name, "loss", 0, 0);
		event_ts(x, l[i].ts);
		event_scope(x, 'g');
		args_begin(x);
		arg_str(x, "source", gr_loss_source_name(l[i].source));
		arg_u64(x, "count", l[i].count);
		arg_double(x, "until_us", rel_us(x, end));
		args_end(x);
		event_end(x);
		x->st.loss_instants++;
	}
}

static void write_procs(struct ex *x)
{
	size_t n;
	const struct gr_proc_event *p = gr_model_proc_events(x->m, &n);
	char name[64];

	for (size_t i = 0; i < n; i++) {
		if (!in_window(x, p[i].ts, 0) || !pid_wanted(x->o, p[i].pid))
			continue;
		switch (p[i].type) {
		case GR_PROC_START:
			snprintf(name, sizeof(name), "process start");
			break;
		case GR_PROC_EXEC:
			snprintf(name, sizeof(name), "exec");
			break;
		case GR_PROC_EXIT:
			if (p[i].value & 0x7f)
				snprintf(name, sizeof(name), "exit (signal %u)",
					 (unsigned)(p[i].value & 0x7f));
			else
				snprintf(name, sizeof(name), "exit %u",
					 (unsigned)(p[i].value >> 8 & 0xff));
			break;
		case GR_PROC_ATTACH:
			snprintf(name, sizeof(name), "attach");
			break;
		case GR_PROC_THREAD:
			snprintf(name, sizeof(name), "thread %u start", p[i].tid);
			break;
		default:
			continue;
		}
		if (!x->emit) {
			for (size_t k = 0; k < x->nprocs; k++)
				if (x->procs[k].pid == p[i].pid)
					x->proc_use[k] = 1;
			x->st.proc_instants++;
			x->st.events++;
			continue;
		}
		event_begin(x, "i", name, "process", p[i].pid, p[i].pid);
		event_ts(x, p[i].ts);
		event_scope(x, 'p');
		args_begin(x);
		arg_u64(x, "tid", p[i].tid);
		if (p[i].type == GR_PROC_START)
			arg_u64(x, "parent", p[i].value);
		else if (p[i].type == GR_PROC_EXIT)
			arg_u64(x, "wait_status", p[i].value);
		else if (p[i].type == GR_PROC_EXEC)
			arg_str(x, "path", p[i].text);
		args_end(x);
		event_end(x);
		x->st.proc_instants++;
	}
}

static void write_prologue(struct ex *x)
{
	const struct gr_trace_header *h = gr_model_header(x->m);
	struct gr_json j;

	static const char head[] = "{\"displayTimeUnit\":\"ns\",\"otherData\":";
	static const char events[] = ",\"traceEvents\":[\n";

	gr_json_buf_raw(&x->out, head, sizeof(head) - 1);
	gr_json_begin_buf(&j, &x->out, 0);
	gr_json_object(&j);
	gr_json_kv_str(&j, "producer", "gpurec export");
	gr_json_kv_str(&j, "command", h->cmdline);
	gr_json_kv_str(&j, "host", h->host);
	gr_json_kv_str(&j, "recorded_by", h->tool_version);
	gr_json_kv_u64(&j, "start_monotonic_ns", x->t0);
	gr_json_kv_u64(&j, "start_realtime_ns", h->clock_realtime_ns);
	gr_json_kv_double(&j, "window_from_us", rel_us(x, x->lo));
	gr_json_kv_double(&j, "window_to_us", rel_us(x, x->hi < x->end ? x->hi : x->end));
	gr_damage_json(&j, x->m);
	gr_json_object_end(&j);
	if (gr_json_end(&j) && !x->err)
		x->err = -EIO;
	gr_json_buf_raw(&x->out, events, sizeof(events) - 1);
}

/* The GPU rows' ties and per-row state, when the trace has GPU rows. Returns 0 or -ENOMEM. */
static int setup_gpu(struct ex *x)
{
	struct ex_gpu *g = &x->gpu;
	int err;

	g->rows = gr_model_gpus(x->m, &g->nrows);
	if (!g->nrows)
		return 0;
	err = gr_gpu_compute(x->m, x->graphs, 0, 0, &g->sum);
	if (err)
		return err;
	g->track = malloc(g->nrows * sizeof(*g->track));
	g->flow = calloc(g->nrows, sizeof(*g->flow));
	if (!g->track || !g->flow)
		return -ENOMEM;
	memset(g->track, 0xff, g->nrows * sizeof(*g->track)); /* UINT32_MAX: not written */
	return 0;
}

static int setup(struct ex *x)
{
	int err;

	x->thread_ok = calloc(x->nthreads + 1, 1);
	x->wake_pending = calloc(x->nthreads + 1, sizeof(*x->wake_pending));
	x->thread_use = calloc(x->nthreads + 1, 1);
	x->stream_use = calloc(x->nstreams + 1, 1);
	x->proc_use = calloc(x->nprocs + 1, 1);
	x->thread_order = calloc(x->nthreads + 1, sizeof(*x->thread_order));
	x->thread_rank = calloc(x->nthreads + 1, sizeof(*x->thread_rank));
	x->stream_order = calloc(x->nstreams + 1, sizeof(*x->stream_order));
	x->stream_rank = calloc(x->nstreams + 1, sizeof(*x->stream_rank));
	if (!x->thread_ok || !x->thread_use || !x->stream_use || !x->proc_use || !x->thread_order ||
	    !x->thread_rank || !x->stream_order || !x->stream_rank || !x->wake_pending)
		return -ENOMEM;
	for (size_t t = 0; t < x->nthreads; t++)
		x->thread_ok[t] = (uint8_t)pid_wanted(x->o, x->threads[t].pid);
	gr_model_kernel_names(x->m, &x->nnames);
	x->name_count = calloc(x->nnames + 1, sizeof(*x->name_count));
	x->name_seen = calloc(x->nnames + 1, sizeof(*x->name_seen));
	if (!x->name_count || !x->name_seen)
		return -ENOMEM;
	if (ex_stacks_init(&x->stacks, x->m))
		return -ENOMEM;
	err = gr_graphs_build(x->m, &x->graphs);
	if (!err)
		err = setup_gpu(x);
	if (!err)
		err = gr_memory_compute(x->m, NULL, &x->mem);
	if (!err)
		err = gr_nvtx_build(x->m, &x->nvtx);
	if (!err) {
		x->nvtx_lane = calloc(x->nvtx.nranges + 1, sizeof(*x->nvtx_lane));
		x->lane_pid = calloc(x->nvtx.nranges + 1, sizeof(*x->lane_pid));
		x->lane_end = calloc(x->nvtx.nranges + 1, sizeof(*x->lane_end));
		if (!x->nvtx_lane || !x->lane_pid || !x->lane_end)
			err = -ENOMEM;
	}
	return err;
}

static void ex_free(struct ex *x)
{
	free(x->thread_ok);
	free(x->wake_pending);
	free(x->thread_use);
	free(x->stream_use);
	free(x->proc_use);
	free(x->thread_order);
	free(x->thread_rank);
	free(x->stream_order);
	free(x->stream_rank);
	free(x->name_count);
	free(x->name_seen);
	gr_graphs_free(x->graphs);
	gr_gpu_free(x->gpu.sum);
	gr_memory_free(&x->mem);
	gr_nvtx_free(&x->nvtx);
	free(x->nvtx_lane);
	free(x->lane_pid);
	free(x->lane_end);
	free(x->gpu.track);
	free(x->gpu.flow);
	free(x->gpu.tracks);
	free(x->gpu.from);
	ex_stacks_free(&x->stacks);
	gr_json_buf_free(&x->out);
}

/* @f NULL: counting only, no output buffer. */
static int ex_init(struct ex *x, const struct gr_model *m, FILE *f, const struct gr_export_opts *o)
{
	static const struct gr_export_opts all;
	int err;

	memset(x, 0, sizeof(*x));
	x->m = m;
	x->o = o ? o : &all;
	if (f) {
		err = gr_json_buf_init(&x->out, f, OUT_BUF);
		if (err)
			return err;
	}
	gr_model_time_span(m, &x->t0, &x->end);
	x->lo = x->t0 + x->o->from_ns >= x->t0 ? x->t0 + x->o->from_ns : UINT64_MAX;
	x->hi = x->o->has_to && x->t0 + x->o->to_ns >= x->t0 ? x->t0 + x->o->to_ns : UINT64_MAX;
	x->threads = gr_model_threads(m, &x->nthreads);
	x->streams = gr_model_streams(m, &x->nstreams);
	x->procs = gr_model_processes(m, &x->nprocs);
	return setup(x);
}

/* The marking pass: which tracks are used, and how many events each sort would have. */
static int mark(struct ex *x)
{
	size_t n;
	const struct gr_loss *l = gr_model_losses(x->m, &n);
	int err;

	x->emit = 0;
	gr_progress_begin("counting", gr_export_rows_estimate(x->m), "events");
	write_launches(x);
	write_calls(x);
	write_comm(x);
	write_asides(x);
	write_gpu(x);
	write_steps(x);
	write_nvtx(x);
	write_memory(x);
	err = write_sched(x);
	write_procs(x);
	for (size_t i = 0; i < n; i++) {
		uint64_t end = l[i].ts_end > l[i].ts ? l[i].ts_end : l[i].ts;

		x->st.loss_instants += in_window(x, l[i].ts, end - l[i].ts);
	}
	x->st.events += x->st.loss_instants;
	return err;
}

struct track_key {
	uint64_t a, b; /* (pid, tid) or (pid, stream handle) */
	uint32_t idx;
};

static int cmp_track(const void *p, const void *q)
{
	const struct track_key *x = p, *y = q;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* The used tracks of @n in @order, sorted by their keys, and each one's place in @rank. */
static size_t order_tracks(struct track_key *k, size_t n, uint32_t *order, uint32_t *rank)
{
	gr_qsort(k, n, sizeof(*k), cmp_track);
	for (size_t r = 0; r < n; r++) {
		order[r] = k[r].idx;
		rank[k[r].idx] = (uint32_t)r;
	}
	return n;
}

static int cmp_from(const void *p, const void *q)
{
	const struct ex_gpu_from *a = p, *b = q;

	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * After the marking pass: the GPU tracks used, by (pid, device, stream), each row's rank among
 * them, and the flows by the call they start from, in the order the calls are written. The GPU
 * flows' ids follow the launch flows' (the marking pass counted those). Returns 0 or -ENOMEM.
 */
static int order_gpu(struct ex *x)
{
	struct ex_gpu *g = &x->gpu;
	struct track_key *k;
	size_t n = 0;

	if (!g->sum)
		return 0;
	k = calloc(g->nrows, sizeof(*k));
	g->tracks = calloc(g->nrows, sizeof(*g->tracks));
	g->from = calloc(g->nflows + 1, sizeof(*g->from));
	if (!k || !g->tracks || !g->from) {
		free(k);
		return -ENOMEM;
	}
	for (size_t r = 0; r < g->nrows; r++)
		if (g->track[r] != UINT32_MAX)
			k[n++] = (struct track_key){
			    g->rows[r].pid, (uint64_t)g->rows[r].device << 32 | g->rows[r].stream,
			    (uint32_t)r};
	gr_qsort(k, n, sizeof(*k), cmp_track);
	for (size_t i = 0; i < n; i++) {
		if (!i || cmp_track(&k[i - 1], &k[i]))
			g->tracks[g->ntracks++] = (struct ex_gpu_track){
			    (uint32_t)k[i].a, (uint32_t)(k[i].b >> 32), (uint32_t)k[i].b};
		g->track[k[i].idx] = (uint32_t)g->ntracks - 1;
	}
	free(k);
	for (size_t r = 0; r < g->nrows; r++) {
		enum gpu_slot slot;
		uint32_t thread;
		uint64_t ts, dur;

		if (g->flow[r] && tied_call(x, &g->sum->ties[r], &slot, &thread, &ts, &dur))
			g->from[g->nfrom++] =
			    (struct ex_gpu_from){slot, g->sum->ties[r].index, (uint32_t)r};
	}
	gr_qsort(g->from, g->nfrom, sizeof(*g->from), cmp_from);
	for (size_t i = g->nfrom; i-- > 0;)
		g->cursor[g->from[i].slot] = i;
	g->base = x->st.flows;
	return 0;
}

/* After the marking pass: the order of the used tracks (struct ex). Returns 0 or -ENOMEM. */
static int order(struct ex *x)
{
	size_t most = x->nthreads > x->nstreams ? x->nthreads : x->nstreams, n = 0;
	struct track_key *k = calloc(most + 1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t t = 0; t < x->nthreads; t++)
		if (x->thread_use[t])
			k[n++] =
			    (struct track_key){x->threads[t].pid, x->threads[t].tid, (uint32_t)t};
	x->nthread_order = order_tracks(k, n, x->thread_order, x->thread_rank);
	n = 0;
	for (size_t s = 0; s < x->nstreams; s++)
		if (x->stream_use[s])
			k[n++] = (struct track_key){x->streams[s].pid, x->streams[s].handle,
						    (uint32_t)s};
	x->nstream_order = order_tracks(k, n, x->stream_order, x->stream_rank);
	free(k);
	return order_gpu(x);
}

uint64_t gr_export_rows_estimate(const struct gr_model *m)
{
	size_t launches, copies, memsets, scheds;

	gr_model_launches(m, &launches);
	gr_model_copies(m, &copies);
	gr_model_memsets(m, &memsets);
	gr_model_scheds(m, &scheds);
	return (uint64_t)launches + copies + memsets + scheds;
}

int gr_export_count(const struct gr_model *m, const struct gr_export_opts *o,
		    struct gr_export_stats *st)
{
	struct ex x;
	int err = ex_init(&x, m, NULL, o);

	if (!err)
		err = mark(&x);
	if (!err)
		*st = x.st;
	ex_free(&x);
	return err;
}

int gr_export_process_launches(const struct gr_model *m, const struct gr_export_opts *o,
			       uint64_t *per)
{
	struct ex x;
	size_t n;
	const struct gr_launch *l = gr_model_launches(m, &n);
	const struct gr_launch_key *keys = gr_model_launch_keys(m, NULL);
	int err = ex_init(&x, m, NULL, o);

	if (!err) {
		memset(per, 0, x.nprocs * sizeof(*per));
		for (size_t i = 0; i < n; i++)
			if (in_window(&x, l[i].ts, gr_launch_dur(&keys[l[i].key], &l[i])))
				per[x.threads[keys[l[i].key].thread].process]++;
	}
	ex_free(&x);
	return err;
}

/*
 * The events of either form, after the marking pass, so that the tracks' names come first. Returns
 * 0 or -ENOMEM; errors in writing are the form's own.
 */
static int write_all(struct ex *x)
{
	int err = mark(x);

	if (!err)
		err = order(x);
	if (err)
		return err;
	memset(&x->st, 0, sizeof(x->st));
	x->wake_flows = 0;
	x->emit = 1;
	gr_progress_begin("writing", gr_export_rows_estimate(x->m), "events");
	if (!x->pf)
		write_prologue(x);
	write_metadata(x);
	write_launches(x);
	write_calls(x);
	write_comm(x);
	write_asides(x);
	write_gpu(x);
	write_steps(x);
	write_nvtx(x);
	write_memory(x);
	err = write_sched(x);
	write_procs(x);
	write_losses(x);
	return err;
}

int gr_export_chrome(const struct gr_model *m, FILE *f, const struct gr_export_opts *o,
		     struct gr_export_stats *st)
{
	struct ex x;
	int err = ex_init(&x, m, f, o);

	if (err)
		goto out;
	err = write_all(&x);
	gr_json_buf_raw(&x.out, "\n]", 2);
	ex_stacks_write(&x.stacks, &x.out);
	gr_json_buf_raw(&x.out, "}\n", 2);
	if (!err)
		err = gr_json_buf_flush(&x.out);
	if (x.err)
		err = x.err;
	if (st)
		*st = x.st;
out:
	ex_free(&x);
	return err;
}

int gr_export_perfetto(const struct gr_model *m, FILE *f, const struct gr_export_opts *o,
		       struct gr_export_stats *st)
{
	struct ex x;
	int err = ex_init(&x, m, NULL, o), close_err;

	if (!err)
		err = ex_pf_open(&x.pf, f, m);
	if (!err)
		err = write_all(&x);
	close_err = ex_pf_close(x.pf);
	if (!err)
		err = close_err;
	if (!err && st)
		*st = x.st;
	ex_free(&x);
	return err;
}
