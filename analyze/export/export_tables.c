/* SPDX-License-Identifier: MIT */
/* The relational tables of a trace, made once for every sink (see export_tables.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/blocked.h"
#include "analyze/util/syscalls.h"
#include "analyze/figures/frames.h"
#include "analyze/figures/gpu.h"
#include "analyze/figures/graphs.h"
#include "analyze/figures/nvtx.h"
#include "analyze/figures/outcome.h"
#include "analyze/figures/timeline.h"
#include "analyze/util/keymap.h"
#include "analyze/util/progress.h"
#include "analyze/util/strtab.h"
#include "export_tables.h"

#define I GR_XCOL_INT
#define T GR_XCOL_TEXT

/* Every API call table ends with these: what became of the call (export_tables.h). */
#define OUTCOME_COLS                                                                               \
	{"outcome", T}, {"status", I}, {"error", T},                                               \
	{                                                                                          \
		"depth", I                                                                         \
	}
#define NOUTCOME 4

static const struct gr_xcol meta_cols[] = {{"key", T}, {"int_value", I}, {"text_value", T}};
static const struct gr_xcol strings_cols[] = {{"id", I}, {"value", T}};
static const struct gr_xcol processes_cols[] = {
    {"id", I},	  {"pid", I},  {"ppid", I}, {"comm", T},	{"exe", T},
    {"start", I}, {"exec", I}, {"exit", I}, {"exit_status", I}, {"attached", I},
};
static const struct gr_xcol threads_cols[] = {
    {"id", I}, {"process_id", I}, {"pid", I}, {"tid", I}, {"comm", T},
};
static const struct gr_xcol streams_cols[] = {
    {"id", I}, {"process_id", I}, {"pid", I}, {"handle", I}, {"per_thread", I}, {"tid", I},
};
static const struct gr_xcol kernels_cols[] = {
    {"id", I}, {"process_id", I}, {"pid", I}, {"func", I}, {"name", T}, {"mangled", T},
};
static const struct gr_xcol stacks_cols[] = {
    {"id", I}, {"process_id", I}, {"pid", I}, {"file_stack_id", I}, {"nframes", I},
};
static const struct gr_xcol frames_cols[] = {
    {"stack_id", I}, {"position", I},	 {"kind", T},	   {"value", I},  {"file_id", I},
    {"line", I},     {"function_id", I}, {"module_id", I}, {"offset", I},
};
static const struct gr_xcol launches_cols[] = {
    {"id", I},	       {"start", I},	  {"dur", I},	    {"kernel_id", I}, {"grid_x", I},
    {"grid_y", I},     {"grid_z", I},	  {"block_x", I},   {"block_y", I},   {"block_z", I},
    {"shared_mem", I}, {"stream_id", I},  {"thread_id", I}, {"stack_id", I},  {"cpu", I},
    {"api_id", I},     {"graph_node", I}, OUTCOME_COLS,
};
static const struct gr_xcol copies_cols[] = {
    {"id", I},	      {"start", I},	    {"dur", I},	       {"thread_id", I},
    {"stream_id", I}, {"stack_id", I},	    {"cpu", I},	       {"api_id", I},
    {"direction", T}, {"kind_recorded", I}, {"bytes", I},      {"src", I},
    {"dst", I},	      {"flags", I},	    {"graph_node", I}, OUTCOME_COLS,
};
static const struct gr_xcol memsets_cols[] = {
    {"id", I},	     {"start", I}, {"dur", I},	      {"thread_id", I}, {"stream_id", I},
    {"stack_id", I}, {"cpu", I},   {"api_id", I},     {"dst", I},	{"bytes", I},
    {"value", I},    {"flags", I}, {"graph_node", I}, OUTCOME_COLS,
};
static const struct gr_xcol allocs_cols[] = {
    {"id", I},	 {"start", I}, {"dur", I},   {"thread_id", I}, {"stream_id", I}, {"api_id", I},
    {"kind", T}, {"addr", I},  {"bytes", I}, {"stack_id", I},  OUTCOME_COLS,
};
static const struct gr_xcol frees_cols[] = {
    {"id", I},	   {"start", I}, {"dur", I},  {"thread_id", I},
    {"api_id", I}, {"kind", T},	 {"addr", I}, OUTCOME_COLS,
};
static const struct gr_xcol syncs_cols[] = {
    {"id", I},	   {"start", I}, {"dur", I},	{"thread_id", I}, {"stack_id", I}, {"cpu", I},
    {"api_id", I}, {"kind", T},	 {"handle", I}, {"event", I},	  OUTCOME_COLS,
};
static const struct gr_xcol graph_calls_cols[] = {
    {"id", I},	     {"start", I},  {"dur", I},	    {"thread_id", I}, {"stream_id", I},
    {"stack_id", I}, {"api_id", I}, {"kind", T},    {"graph", I},     {"exec", I},
    {"kernels", I},  {"copies", I}, {"memsets", I}, OUTCOME_COLS,
};
static const struct gr_xcol nccl_calls_cols[] = {
    {"id", I},	   {"start", I}, {"dur", I},	{"thread_id", I}, {"stack_id", I},
    {"api_id", I}, {"kind", T},	 {"comm", I},	{"comm_id", I},	  {"nranks", I},
    {"rank", I},   {"seq", I},	 {"stream", I}, {"count", I},	  {"dtype", I},
    {"redop", I},  {"peer", I},	 {"bytes", I},	OUTCOME_COLS,
};
static const struct gr_xcol graph_kernels_cols[] = {
    {"graph_call_id", I}, {"position", I}, {"kernel_id", I}, {"grid_x", I},  {"grid_y", I},
    {"grid_z", I},	  {"block_x", I},  {"block_y", I},   {"block_z", I}, {"shared_mem", I},
};
static const struct gr_xcol sched_cols[] = {
    {"id", I},	{"thread_id", I}, {"state", T},	    {"start", I},     {"dur", I},
    {"cpu", I}, {"began_by", T},  {"other_pid", I}, {"other_tid", I}, {"prev_state", I},
};
/* why each blocked state was blocked (blocked.h) */
static const struct gr_xcol blocked_spans_cols[] = {
    {"id", I},	     {"thread_id", I}, {"start", I},	  {"dur", I},
    {"reason", T},   {"syscall", T},   {"syscall_nr", I}, {"fd_kind", T},
    {"stack_id", I}, {"waker_pid", I}, {"waker_tid", I},  {"waker_stack_id", I},
};
/* NVTX ranges and marks as figures/nvtx.h pairs them: what the program named itself */
static const struct gr_xcol nvtx_ranges_cols[] = {
    {"id", I},	   {"pid", I},	  {"tid", I},	       {"end_tid", I},
    {"domain", T}, {"name", T},	  {"category", I},     {"color", I},
    {"start", I},  {"end", I},	  {"depth", I},	       {"parent_id", I},
    {"kind", T},   {"closed", I}, {"payload_type", I}, {"payload", I},
};
static const struct gr_xcol nvtx_marks_cols[] = {
    {"id", I},	     {"pid", I},   {"tid", I}, {"domain", T},	    {"name", T},
    {"category", I}, {"color", I}, {"ts", I},  {"payload_type", I}, {"payload", I},
};
static const struct gr_xcol losses_cols[] = {
    {"id", I}, {"start", I}, {"end", I}, {"count", I}, {"source", T}, {"stack_only", I},
};
/* GPU rows (--cupti): every column of GR_K_GPU, and the call each is tied to (gpu.h) */
static const struct gr_xcol gpu_activity_cols[] = {
    {"id", I},	       {"start", I},	     {"dur", I},
    {"process_id", I}, {"pid", I},	     {"host_tid", I},
    {"host_start", I}, {"kind", T},	     {"device", I},
    {"context", I},    {"stream", I},	     {"correlation", I},
    {"grid_x", I},     {"grid_y", I},	     {"grid_z", I},
    {"block_x", I},    {"block_y", I},	     {"block_z", I},
    {"shared_mem", I}, {"bytes", I},	     {"copy_kind", T},
    {"graph", I},      {"graph_node", I},    {"name_id", I},
    {"mangled_id", I}, {"launch_id", I},     {"copy_id", I},
    {"memset_id", I},  {"graph_call_id", I},
};

#undef I
#undef T

#define TABLE(name)                                                                                \
	{                                                                                          \
#name, name##_cols, sizeof(name##_cols) / sizeof(name##_cols[0])                   \
	}

/* The order here is the order tables are written in; the indexes are enum tab's. */
enum tab {
	TAB_META,
	TAB_PROCESSES,
	TAB_THREADS,
	TAB_STREAMS,
	TAB_KERNELS,
	TAB_STACKS,
	TAB_FRAMES,
	TAB_LAUNCHES,
	TAB_COPIES,
	TAB_MEMSETS,
	TAB_ALLOCS,
	TAB_FREES,
	TAB_SYNCS,
	TAB_GRAPH_CALLS,
	TAB_GRAPH_KERNELS,
	TAB_NCCL_CALLS,
	TAB_SCHED,
	TAB_BLOCKED_SPANS,
	TAB_NVTX_RANGES,
	TAB_NVTX_MARKS,
	TAB_LOSSES,
	TAB_GPU_ACTIVITY, /* only when the trace has GPU rows */
	TAB_STRINGS,	  /* last: the other tables name what it holds */
	TAB_COUNT
};

static const struct gr_xtable tables[TAB_COUNT] = {
    [TAB_META] = TABLE(meta),
    [TAB_PROCESSES] = TABLE(processes),
    [TAB_THREADS] = TABLE(threads),
    [TAB_STREAMS] = TABLE(streams),
    [TAB_KERNELS] = TABLE(kernels),
    [TAB_STACKS] = TABLE(stacks),
    [TAB_FRAMES] = TABLE(frames),
    [TAB_LAUNCHES] = TABLE(launches),
    [TAB_COPIES] = TABLE(copies),
    [TAB_MEMSETS] = TABLE(memsets),
    [TAB_ALLOCS] = TABLE(allocs),
    [TAB_FREES] = TABLE(frees),
    [TAB_SYNCS] = TABLE(syncs),
    [TAB_GRAPH_CALLS] = TABLE(graph_calls),
    [TAB_GRAPH_KERNELS] = TABLE(graph_kernels),
    [TAB_NCCL_CALLS] = TABLE(nccl_calls),
    [TAB_SCHED] = {"sched_states", sched_cols, sizeof(sched_cols) / sizeof(sched_cols[0])},
    [TAB_BLOCKED_SPANS] = TABLE(blocked_spans),
    [TAB_NVTX_RANGES] = TABLE(nvtx_ranges),
    [TAB_NVTX_MARKS] = TABLE(nvtx_marks),
    [TAB_LOSSES] = TABLE(losses),
    [TAB_GPU_ACTIVITY] = TABLE(gpu_activity),
    [TAB_STRINGS] = TABLE(strings),
};

_Static_assert(TAB_COUNT <= GR_EXPORT_MAX_TABLES, "gr_export_table_stats.rows is too small");

const struct gr_xtable *gr_export_tables_list(size_t *n)
{
	if (n)
		*n = TAB_COUNT;
	return tables;
}

/* The widest table's columns: a row is built in place, one value after another. */
#define MAX_COLS 32

struct xt {
	const struct gr_model *m;
	const struct gr_table_sink *sink;
	struct gr_export_table_stats st;
	uint64_t t0; /* the recording start: timestamps are ns from it */
	/* strings: interned once (strtab), numbered by first use (keymap over the pointers) */
	struct gr_arena arena;
	struct gr_strtab strtab;
	struct gr_keymap string_ids;
	uint32_t api_string[GR_API_COUNT]; /* string id + 1 of each API's name; 0 = not yet */
	struct gr_graphs *graphs;
	enum tab tab; /* the table being written */
	struct gr_xval v[MAX_COLS];
	unsigned n;
	char status_text[128]; /* the row's error text: a text value lives until the row ends */
	uint64_t sched_rows, blocked_rows;
	int blocked; /* the replay writes blocked_spans, not sched_states */
	int err;
};

/* ---- building one row ---- */

static void put_int(struct xt *x, int64_t v)
{
	if (x->n < MAX_COLS)
		x->v[x->n] = (struct gr_xval){.i = v};
	x->n++;
}

static void put_u64(struct xt *x, uint64_t v)
{
	put_int(x, (int64_t)v); /* 2^63 and above read negative: export_tables.h */
}

static void put_null(struct xt *x)
{
	if (x->n < MAX_COLS)
		x->v[x->n] = (struct gr_xval){.null = 1};
	x->n++;
}

static void put_text(struct xt *x, const char *s)
{
	if (x->n < MAX_COLS)
		x->v[x->n] = (struct gr_xval){.s = s, .null = !s};
	x->n++;
}

/* A model index whose "none" is @none as an id from 1, else NULL. */
static void put_ref(struct xt *x, uint32_t index, uint32_t none)
{
	if (index == none)
		put_null(x);
	else
		put_int(x, (int64_t)index + 1);
}

/* A stack index as an id: the model's index itself, entry 0 ("no stack") being NULL. */
static void put_stack(struct xt *x, uint32_t stack)
{
	if (stack)
		put_int(x, stack);
	else
		put_null(x);
}

/* ns from the recording start (negative before it). */
static void put_time(struct xt *x, uint64_t ts)
{
	put_int(x, ts >= x->t0 ? (int64_t)(ts - x->t0) : -(int64_t)(x->t0 - ts));
}

static void put_dur(struct xt *x, uint64_t dur)
{
	if (dur)
		put_u64(x, dur);
	else
		put_null(x);
}

/* The id (from 1) of string @s in the strings table, added on first use; NULL for NULL. */
static void put_string(struct xt *x, const char *s)
{
	const char *p;
	uint64_t key;
	uint32_t idx;
	int r;

	if (!s) {
		put_null(x);
		return;
	}
	p = gr_strtab_intern_str(&x->strtab, s);
	if (!p) {
		x->err = -ENOMEM;
		put_null(x);
		return;
	}
	key = (uint64_t)(uintptr_t)p;
	r = gr_keymap_intern(&x->string_ids, &key, &idx);
	if (r < 0) {
		x->err = r;
		put_null(x);
		return;
	}
	put_int(x, (int64_t)idx + 1);
}

/* API names repeat on every row: each is looked up once. */
static void put_api(struct xt *x, unsigned api)
{
	if (api >= GR_API_COUNT) {
		put_string(x, gr_api_name(api));
		return;
	}
	if (!x->api_string[api]) {
		put_string(x, gr_api_name(api));
		if (!x->v[x->n - 1].null)
			x->api_string[api] = (uint32_t)x->v[x->n - 1].i;
		return;
	}
	put_int(x, x->api_string[api]);
}

static void begin_table(struct xt *x, enum tab t)
{
	x->tab = t;
	x->st.tables++;
	if (!x->err)
		x->err = x->sink->table(x->sink->ctx, &tables[t]);
}

/* The row built so far goes to the sink; a row of the wrong width is this file's bug. */
static void end_row(struct xt *x)
{
	if (!x->err && x->n != tables[x->tab].ncols)
		x->err = -EINVAL;
	if (!x->err)
		x->err = x->sink->row(x->sink->ctx, &tables[x->tab], x->v);
	x->st.rows[x->tab]++;
	x->n = 0;
	gr_progress_add(1);
}

/* ---- what every API call table says of a call ---- */

static void put_outcome_ok(struct xt *x)
{
	put_text(x, "ok");
	put_null(x);
	put_null(x);
	put_int(x, 0);
}

/*
 * The outcome columns of a call set aside, by info's precedence (outcome.h): in flight, nested,
 * failed. @call is its "call" column, @status what @api returned. CUDA and NCCL calls alike.
 */
static void put_outcome_set_aside(struct xt *x, unsigned api, uint16_t call, uint32_t status)
{
	if (call & GR_CALL_IN_FLIGHT)
		put_text(x, "in_flight");
	else if (GR_CALL_DEPTH(call))
		put_text(x, "nested");
	else
		put_text(x, "failed");
	if (call & GR_CALL_RETURNED) {
		put_int(x, status);
		put_text(x, status ? gr_outcome_call_status_text(api, status, x->status_text,
								 sizeof(x->status_text))
				   : NULL);
	} else {
		put_null(x);
		put_null(x);
	}
	put_int(x, GR_CALL_DEPTH(call));
}

/* ---- the small tables ---- */

static void meta_int(struct xt *x, const char *key, int has, int64_t v)
{
	put_text(x, key);
	if (has)
		put_int(x, v);
	else
		put_null(x);
	put_null(x);
	end_row(x);
}

static void meta_text(struct xt *x, const char *key, const char *s)
{
	put_text(x, key);
	put_null(x);
	put_text(x, s);
	end_row(x);
}

static void write_meta(struct xt *x, const char *version)
{
	const struct gr_trace_header *h = gr_model_header(x->m);
	uint64_t first, last;
	int anchored = h->clock_monotonic_ns && h->clock_realtime_ns;

	gr_model_time_span(x->m, &first, &last);
	begin_table(x, TAB_META);
	meta_int(x, "schema_version", 1, GR_EXPORT_SCHEMA_VERSION);
	meta_text(x, "gpurec_version", version);
	meta_text(x, "recorder_version", h->tool_version);
	meta_text(x, "command", h->cmdline);
	meta_text(x, "host", h->host);
	meta_text(x, "kernel", h->kernel);
	meta_int(x, "start_monotonic_ns", 1, (int64_t)x->t0);
	/* wall clock at the recording start: the anchor pair read back to back, moved to t0 */
	meta_int(x, "start_realtime_ns", anchored,
		 (int64_t)(h->clock_realtime_ns + (x->t0 - h->clock_monotonic_ns)));
	meta_int(x, "duration_ns", 1, (int64_t)(last - first));
	meta_int(x, "ended_abruptly", 1, gr_model_ended_abruptly(x->m, NULL));
	meta_int(x, "lost_events", 1, (int64_t)gr_model_lost_events(x->m));
	meta_int(x, "lost_stacks", 1, (int64_t)gr_model_lost_stacks(x->m));
}

/* Index of the process of @pid (gr_model_processes() is sorted by pid), or UINT32_MAX. */
static uint32_t process_of(const struct gr_process *p, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && p[lo].pid == pid ? (uint32_t)lo : UINT32_MAX;
}

static void put_opt_time(struct xt *x, uint64_t ts)
{
	if (ts)
		put_time(x, ts);
	else
		put_null(x);
}

static void write_processes(struct xt *x)
{
	size_t n;
	const struct gr_process *p = gr_model_processes(x->m, &n);

	begin_table(x, TAB_PROCESSES);
	for (size_t i = 0; i < n; i++) {
		put_int(x, (int64_t)i + 1);
		put_int(x, p[i].pid);
		if (p[i].ppid)
			put_int(x, p[i].ppid);
		else
			put_null(x);
		put_text(x, p[i].comm);
		put_text(x, p[i].exe);
		put_opt_time(x, p[i].start_ts);
		put_opt_time(x, p[i].exec_ts);
		put_opt_time(x, p[i].has_exit ? p[i].exit_ts : 0);
		if (p[i].has_exit)
			put_u64(x, p[i].exit_status);
		else
			put_null(x);
		put_int(x, p[i].attached);
		end_row(x);
	}
}

static void write_threads(struct xt *x)
{
	size_t n;
	const struct gr_thread *t = gr_model_threads(x->m, &n);

	begin_table(x, TAB_THREADS);
	for (size_t i = 0; i < n; i++) {
		put_int(x, (int64_t)i + 1);
		put_int(x, (int64_t)t[i].process + 1);
		put_int(x, t[i].pid);
		put_int(x, t[i].tid);
		put_text(x, t[i].comm);
		end_row(x);
	}
}

static void write_streams(struct xt *x)
{
	size_t n, np;
	const struct gr_stream *s = gr_model_streams(x->m, &n);
	const struct gr_process *p = gr_model_processes(x->m, &np);

	begin_table(x, TAB_STREAMS);
	for (size_t i = 0; i < n; i++) {
		put_int(x, (int64_t)i + 1);
		put_ref(x, process_of(p, np, s[i].pid), UINT32_MAX);
		put_int(x, s[i].pid);
		/* the handle the program passed: a per-thread default stream's is
		 * cudaStreamPerThread (the model's tagged key is not a value any program sees) */
		put_u64(x, s[i].per_thread ? GR_STREAM_HANDLE_PER_THREAD : s[i].handle);
		put_int(x, s[i].per_thread);
		if (s[i].per_thread)
			put_int(x, s[i].tid);
		else
			put_null(x);
		end_row(x);
	}
}

static void write_kernels(struct xt *x)
{
	size_t n, np;
	const struct gr_kernel *k = gr_model_kernels(x->m, &n);
	const struct gr_process *p = gr_model_processes(x->m, &np);

	begin_table(x, TAB_KERNELS);
	for (size_t i = 0; i < n; i++) {
		put_int(x, (int64_t)i + 1);
		put_ref(x, process_of(p, np, k[i].pid), UINT32_MAX);
		put_int(x, k[i].pid);
		put_u64(x, k[i].func);
		put_text(x, k[i].name);
		put_text(x, k[i].mangled);
		end_row(x);
	}
}

/* Stacks and their frames, one row per frame, innermost first (position 0). */
static void write_stacks(struct xt *x)
{
	size_t n, np;
	const struct gr_stack *s = gr_model_stacks(x->m, &n);
	const struct gr_process *p = gr_model_processes(x->m, &np);

	begin_table(x, TAB_STACKS);
	for (size_t i = 1; i < n; i++) {
		put_int(x, (int64_t)i);
		put_ref(x, process_of(p, np, s[i].pid), UINT32_MAX);
		put_int(x, s[i].pid);
		put_u64(x, s[i].id);
		put_int(x, s[i].nframes);
		end_row(x);
	}
	begin_table(x, TAB_FRAMES);
	for (size_t i = 1; i < n && !x->err; i++) {
		for (uint32_t f = 0; f < s[i].nframes; f++) {
			struct gr_frame fr;
			int py;

			gr_frame_describe(x->m, s[i].pid, s[i].frames[f], &fr);
			py = fr.kind == GR_FRAME_KIND_PYTHON;
			put_int(x, (int64_t)i);
			put_int(x, f);
			put_text(x, py ? "python" : "native");
			put_u64(x, fr.value);
			put_string(x, fr.file);
			if (fr.line)
				put_int(x, fr.line);
			else
				put_null(x);
			put_string(x, fr.function);
			put_string(x, fr.module);
			if (fr.module)
				put_u64(x, fr.offset);
			else
				put_null(x);
			end_row(x);
		}
	}
}

/* ---- the API call tables: the calls in the figures, then the calls set aside ---- */

static void put_config(struct xt *x, const struct gr_config *c)
{
	for (int d = 0; d < 3; d++)
		put_int(x, c->grid[d]);
	for (int d = 0; d < 3; d++)
		put_int(x, c->block[d]);
	put_int(x, c->shmem);
}

static void launch_row(struct xt *x, uint64_t *id, const struct gr_launch *l, int node)
{
	const struct gr_launch_key *k = &gr_model_launch_keys(x->m, NULL)[l->key];
	const struct gr_config *cfg = gr_model_configs(x->m, NULL);

	put_u64(x, ++*id);
	put_time(x, l->ts);
	put_dur(x, gr_launch_dur(k, l));
	put_int(x, (int64_t)k->kernel + 1);
	put_config(x, &cfg[k->config]);
	put_int(x, (int64_t)k->stream + 1);
	put_int(x, (int64_t)k->thread + 1);
	put_stack(x, k->stack);
	put_int(x, k->cpu);
	put_api(x, k->api);
	put_int(x, node);
}

static void copy_row(struct xt *x, uint64_t *id, const struct gr_copy *c, int node)
{
	put_u64(x, ++*id);
	put_time(x, c->ts);
	put_dur(x, c->dur);
	put_int(x, (int64_t)c->thread + 1);
	put_int(x, (int64_t)c->stream + 1);
	put_stack(x, c->stack);
	put_int(x, c->cpu);
	put_api(x, c->api);
	put_text(x, gr_copy_kind_name(c->kind));
	put_int(x, c->kind_recorded);
	put_u64(x, c->bytes);
	put_u64(x, c->src);
	put_u64(x, c->dst);
	put_int(x, c->flags);
	put_int(x, node);
}

static void memset_row(struct xt *x, uint64_t *id, const struct gr_memset *s, int node)
{
	put_u64(x, ++*id);
	put_time(x, s->ts);
	put_dur(x, s->dur);
	put_int(x, (int64_t)s->thread + 1);
	put_int(x, (int64_t)s->stream + 1);
	put_stack(x, s->stack);
	put_int(x, s->cpu);
	put_api(x, s->api);
	put_u64(x, s->dst);
	put_u64(x, s->bytes);
	put_int(x, s->value);
	put_int(x, s->flags);
	put_int(x, node);
}

static void alloc_row(struct xt *x, uint64_t *id, const struct gr_alloc *a)
{
	put_u64(x, ++*id);
	put_time(x, a->ts);
	put_dur(x, a->dur);
	put_int(x, (int64_t)a->thread + 1);
	put_int(x, (int64_t)a->stream + 1);
	put_api(x, a->api);
	put_text(x, gr_alloc_kind_name(a->kind));
	put_u64(x, a->addr);
	put_u64(x, a->bytes);
	put_stack(x, a->stack);
}

static void free_row(struct xt *x, uint64_t *id, const struct gr_free *f)
{
	put_u64(x, ++*id);
	put_time(x, f->ts);
	put_dur(x, f->dur);
	put_int(x, (int64_t)f->thread + 1);
	put_api(x, f->api);
	put_text(x, gr_alloc_kind_name(f->kind));
	put_u64(x, f->addr);
}

static void sync_row(struct xt *x, uint64_t *id, const struct gr_sync *s)
{
	put_u64(x, ++*id);
	put_time(x, s->ts);
	put_dur(x, s->dur);
	put_int(x, (int64_t)s->thread + 1);
	put_stack(x, s->stack);
	put_int(x, s->cpu);
	put_api(x, s->api);
	put_text(x, gr_sync_kind_name(s->kind));
	put_u64(x, s->handle);
	if (s->kind == GR_SYNC_STREAM_WAIT_EVENT)
		put_u64(x, s->handle2);
	else
		put_null(x);
}

/* An NCCL call, its outcome columns after it: "ok" for those the model counts, else as asides. */
static void nccl_row(struct xt *x, uint64_t *id, const struct gr_comm_call *c, int done)
{
	put_u64(x, ++*id);
	put_time(x, c->ts);
	put_dur(x, c->dur);
	put_int(x, (int64_t)c->thread + 1);
	put_stack(x, c->stack);
	put_api(x, c->api);
	put_text(x, gr_comm_kind_name(c->kind));
	put_u64(x, c->comm);
	if (c->id)
		put_u64(x, c->id);
	else
		put_null(x);
	if (c->nranks) {
		put_int(x, c->nranks);
		put_int(x, c->rank);
	} else {
		put_null(x);
		put_null(x);
	}
	if (done && GR_COMM_IS_COLLECTIVE(c->kind))
		put_int(x, c->seq);
	else
		put_null(x);
	put_u64(x, c->stream);
	put_u64(x, c->count);
	put_int(x, c->dtype);
	put_int(x, c->redop);
	if (c->peer != GR_COMM_NO_PEER)
		put_int(x, c->peer);
	else
		put_null(x);
	put_u64(x, c->bytes);
	if (done)
		put_outcome_ok(x);
	else
		put_outcome_set_aside(x, c->api, c->call, c->status);
}

/* A graph call; @i its gr_model_graphs() index (SIZE_MAX for an aside: it executed nothing). */
static void graph_row(struct xt *x, uint64_t *id, const struct gr_graph *g, size_t i)
{
	struct gr_graph_work w;
	int known = i != SIZE_MAX && gr_graphs_launch_work(x->graphs, i, &w);

	put_u64(x, ++*id);
	put_time(x, g->ts);
	put_dur(x, g->dur);
	put_int(x, (int64_t)g->thread + 1);
	put_ref(x, g->stream, UINT32_MAX);
	put_stack(x, g->stack);
	put_api(x, g->api);
	put_text(x, gr_graph_kind_name(g->kind));
	put_u64(x, g->graph);
	put_u64(x, g->exec);
	if (known) {
		put_int(x, w.nkernels);
		put_int(x, w.ncopies);
		put_int(x, w.nmemsets);
	} else {
		put_null(x);
		put_null(x);
		put_null(x);
	}
}

/* The asides of kind @kind, after the calls in the figures, ids following on. */
static void write_asides(struct xt *x, unsigned kind, uint64_t *id)
{
	size_t n;
	const struct gr_aside *a = gr_model_asides(x->m, &n);

	for (size_t i = 0; i < n && !x->err; i++) {
		if (a[i].kind != kind)
			continue;
		switch (kind) {
		case GR_K_LAUNCH:
			launch_row(x, id, &a[i].u.launch, 0);
			break;
		case GR_K_COPY:
			copy_row(x, id, &a[i].u.copy, 0);
			break;
		case GR_K_MEMSET:
			memset_row(x, id, &a[i].u.memset, 0);
			break;
		case GR_K_ALLOC:
			alloc_row(x, id, &a[i].u.alloc);
			break;
		case GR_K_FREE:
			free_row(x, id, &a[i].u.free);
			break;
		case GR_K_SYNC:
			sync_row(x, id, &a[i].u.sync);
			break;
		default:
			graph_row(x, id, &a[i].u.graph, SIZE_MAX);
			break;
		}
		/* an aside's duration is its own (in flight: to where the recording lost it) */
		x->v[2] = a[i].dur ? (struct gr_xval){.i = (int64_t)a[i].dur}
				   : (struct gr_xval){.null = 1};
		put_outcome_set_aside(x, gr_aside_api(x->m, &a[i]), a[i].call, a[i].status);
		end_row(x);
	}
}

static void write_calls(struct xt *x)
{
	size_t n;
	uint64_t id;

	begin_table(x, TAB_LAUNCHES);
	id = 0;
	const struct gr_launch *l = gr_model_launches(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		launch_row(x, &id, &l[i], gr_graphs_launch_is_node(x->graphs, i));
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_LAUNCH, &id);

	begin_table(x, TAB_COPIES);
	id = 0;
	const struct gr_copy *c = gr_model_copies(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		copy_row(x, &id, &c[i], gr_graphs_copy_is_node(x->graphs, i));
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_COPY, &id);

	begin_table(x, TAB_MEMSETS);
	id = 0;
	const struct gr_memset *ms = gr_model_memsets(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		memset_row(x, &id, &ms[i], gr_graphs_memset_is_node(x->graphs, i));
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_MEMSET, &id);

	begin_table(x, TAB_ALLOCS);
	id = 0;
	const struct gr_alloc *a = gr_model_allocs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		alloc_row(x, &id, &a[i]);
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_ALLOC, &id);

	begin_table(x, TAB_FREES);
	id = 0;
	const struct gr_free *f = gr_model_frees(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		free_row(x, &id, &f[i]);
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_FREE, &id);

	begin_table(x, TAB_SYNCS);
	id = 0;
	const struct gr_sync *s = gr_model_syncs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		sync_row(x, &id, &s[i]);
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_SYNC, &id);

	begin_table(x, TAB_GRAPH_CALLS);
	id = 0;
	const struct gr_graph *g = gr_model_graphs(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		graph_row(x, &id, &g[i], i);
		put_outcome_ok(x);
		end_row(x);
	}
	write_asides(x, GR_K_GRAPH, &id);

	/* what each graph launch executed: its kernels in order (graph_calls ids are the model's
	 * graph indexes + 1, the asides coming after) */
	const struct gr_launch_key *keys = gr_model_launch_keys(x->m, NULL);
	const struct gr_config *cfg = gr_model_configs(x->m, NULL);
	begin_table(x, TAB_GRAPH_KERNELS);
	for (size_t i = 0; i < n && !x->err; i++) {
		struct gr_graph_work w;

		if (!gr_graphs_launch_work(x->graphs, i, &w))
			continue;
		for (uint32_t k = 0; k < w.nkernels && !x->err; k++) {
			const struct gr_launch_key *lk = &keys[w.keys[k]];

			put_int(x, (int64_t)i + 1);
			put_int(x, k);
			put_int(x, (int64_t)lk->kernel + 1);
			put_config(x, &cfg[lk->config]);
			end_row(x);
		}
	}
}

static void write_nccl(struct xt *x)
{
	uint64_t id = 0;
	size_t n;
	const struct gr_comm_call *c = gr_model_comm_calls(x->m, &n);

	begin_table(x, TAB_NCCL_CALLS);
	for (size_t i = 0; i < n && !x->err; i++) {
		nccl_row(x, &id, &c[i], 1);
		end_row(x);
	}
	c = gr_model_comm_asides(x->m, &n);
	for (size_t i = 0; i < n && !x->err; i++) {
		nccl_row(x, &id, &c[i], 0);
		end_row(x);
	}
}

/* ---- scheduler states, from the shared thread timeline (as export's CPU-state tracks) ---- */

static const char *const edge_name[] = {
    [GR_SPAN_SWITCH_OUT] = "switch_out",
    [GR_SPAN_SWITCH_IN] = "switch_in",
    [GR_SPAN_WAKEUP] = "wakeup",
    [GR_SPAN_REPLAY_END] = "replay_end",
    [GR_SPAN_REPLAY_START] = "replay_start",
};

/* A blocked state and why (blocked.h), as a blocked_spans row. */
static void blocked_row(struct xt *x, const struct gr_state_span *sp,
			const struct gr_block_why *why)
{
	put_u64(x, ++x->blocked_rows);
	put_int(x, (int64_t)sp->thread + 1);
	put_time(x, sp->start);
	put_u64(x, sp->end - sp->start);
	put_text(x, gr_block_reason_name(why->reason));
	put_text(x, gr_syscall_name(why->syscall));
	if (why->syscall >= 0)
		put_int(x, why->syscall);
	else
		put_null(x);
	put_text(x, why->fd_kind ? gr_fd_kind_name(why->fd_kind) : NULL);
	put_stack(x, why->stack);
	if (why->woken) {
		put_int(x, why->waker_pid);
		put_int(x, why->waker_tid);
	} else {
		put_null(x);
		put_null(x);
	}
	put_stack(x, why->waker_stack);
	end_row(x);
}

static int on_span(void *ctx, const struct gr_state_span *sp, const struct gr_block_why *why)
{
	struct xt *x = ctx;
	const struct gr_state_begin *by = &sp->begin;

	if (x->blocked) {
		if (sp->state == GR_STATE_BLOCKED && sp->end > sp->start)
			blocked_row(x, sp, why);
		return x->err;
	}

	if ((sp->state != GR_STATE_RUN && sp->state != GR_STATE_RUNNABLE &&
	     sp->state != GR_STATE_BLOCKED) ||
	    sp->end <= sp->start)
		return 0;
	put_u64(x, ++x->sched_rows);
	put_int(x, (int64_t)sp->thread + 1);
	put_text(x, gr_thread_state_name(sp->state));
	put_time(x, sp->start);
	put_u64(x, sp->end - sp->start);
	if (sp->state == GR_STATE_RUN)
		put_int(x, by->cpu);
	else
		put_null(x);
	put_text(x, by->cause < sizeof(edge_name) / sizeof(edge_name[0]) ? edge_name[by->cause]
									 : NULL);
	if (sp->state == GR_STATE_RUNNABLE && by->cause != GR_SPAN_REPLAY_START) {
		put_int(x, by->other_pid);
		put_int(x, by->other_tid);
	} else {
		put_null(x);
		put_null(x);
	}
	if (sp->state == GR_STATE_BLOCKED && by->cause == GR_SPAN_SWITCH_OUT)
		put_u64(x, by->prev_state);
	else
		put_null(x);
	end_row(x);
	return x->err;
}

/*
 * Every thread's states; the last ends with the trace, or its process's exit after it began.
 * @blocked: the blocked ones and why, as blocked_spans (a second replay, with the tracker).
 */
static void write_sched(struct xt *x, int blocked)
{
	uint64_t start, end;
	int err;

	begin_table(x, blocked ? TAB_BLOCKED_SPANS : TAB_SCHED);
	if (x->err)
		return;
	gr_model_time_span(x->m, &start, &end);
	x->blocked = blocked;
	err = gr_block_replay(x->m, UINT64_MAX, end, blocked ? GR_BLOCK_REPLAY_WHY : 0, on_span, x);
	x->blocked = 0;
	if (err && !x->err)
		x->err = err;
}

static void write_losses(struct xt *x)
{
	size_t n;
	const struct gr_loss *l = gr_model_losses(x->m, &n);

	begin_table(x, TAB_LOSSES);
	for (size_t i = 0; i < n; i++) {
		put_int(x, (int64_t)i + 1);
		put_time(x, l[i].ts);
		put_time(x, l[i].ts_end > l[i].ts ? l[i].ts_end : l[i].ts);
		put_u64(x, l[i].count);
		put_text(x, gr_loss_source_name(l[i].source));
		put_int(x, gr_loss_stack_only(l[i].source));
		end_row(x);
	}
}

/* The name of the domain of handle @handle in process @pid: "" the default one and one unnamed. */
static const char *nvtx_domain_name(const struct gr_nvtx_set *s, uint32_t pid, uint64_t handle)
{
	for (size_t d = 1; handle && d < s->ndomains; d++)
		if (s->domains[d].pid == pid && s->domains[d].handle == handle)
			return s->domains[d].name;
	return "";
}

/*
 * NVTX ranges (parent_id: the enclosing range's id; ids are the set's order from 1) and marks.
 * A trace without NVTX (before format 1.3) has both tables, empty.
 */
static void write_nvtx(struct xt *x)
{
	size_t nt;
	const struct gr_thread *th = gr_model_threads(x->m, &nt);
	struct gr_nvtx_set s;

	x->err = x->err ? x->err : gr_nvtx_build(x->m, &s);
	if (x->err)
		return;
	begin_table(x, TAB_NVTX_RANGES);
	for (size_t i = 0; i < s.nranges && !x->err; i++) {
		const struct gr_nvtx_range *r = &s.ranges[i];

		if (r->thread >= nt || r->end_thread >= nt)
			continue;
		put_u64(x, i + 1);
		put_int(x, th[r->thread].pid);
		put_int(x, th[r->thread].tid);
		put_int(x, th[r->end_thread].tid);
		put_text(x, r->domain < s.ndomains ? s.domains[r->domain].name : "");
		put_text(x, gr_nvtx_text(&s, r->name));
		put_int(x, r->category);
		put_int(x, r->color);
		put_time(x, r->start);
		put_time(x, r->end);
		put_int(x, r->depth);
		put_ref(x, r->parent, UINT32_MAX);
		put_text(x, r->kind == GR_NVTX_RANGE_STARTEND ? "startend" : "pushpop");
		put_int(x, r->closed);
		put_int(x, r->payload_type);
		put_u64(x, r->payload);
		end_row(x);
	}
	begin_table(x, TAB_NVTX_MARKS);
	for (size_t i = 0; i < s.nmarks && !x->err; i++) {
		const struct gr_nvtx *mk = s.marks[i];

		if (mk->thread >= nt)
			continue;
		put_u64(x, i + 1);
		put_int(x, th[mk->thread].pid);
		put_int(x, th[mk->thread].tid);
		put_text(x, nvtx_domain_name(&s, th[mk->thread].pid, mk->domain));
		put_text(x, gr_nvtx_text(&s, mk->text));
		put_int(x, mk->category);
		put_int(x, mk->color);
		put_time(x, mk->ts);
		put_int(x, mk->payload_type);
		put_u64(x, mk->payload);
		end_row(x);
	}
	gr_nvtx_free(&s);
}

/* A GPU row's column that only some kinds have: NULL for the others. */
static void put_if(struct xt *x, int has, uint64_t v)
{
	if (has)
		put_u64(x, v);
	else
		put_null(x);
}

/* The call a GPU row is tied to, as the id of its table's row (ids are model indexes + 1). */
static void put_tie(struct xt *x, const struct gr_gpu_tie *t)
{
	static const unsigned kinds[] = {GR_K_LAUNCH, GR_K_COPY, GR_K_MEMSET, GR_K_GRAPH};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		put_ref(x, t->kind == kinds[k] ? t->index : UINT32_MAX, UINT32_MAX);
}

/*
 * The GPU rows (--cupti), one row each, tied to their call by gpu.h's computation (report and
 * export agree). A trace without GPU rows has no such table: its export is what it was before.
 */
static void write_gpu_activity(struct xt *x)
{
	size_t n, np;
	const struct gr_gpu *g = gr_model_gpus(x->m, &n);
	const struct gr_process *p = gr_model_processes(x->m, &np);
	struct gr_gpu_summary *sum = NULL;

	if (!n || x->err)
		return;
	x->err = gr_gpu_compute(x->m, x->graphs, 0, 0, &sum);
	begin_table(x, TAB_GPU_ACTIVITY);
	for (size_t i = 0; i < n && !x->err; i++) {
		int kernel = g[i].kind == GR_GPU_KERNEL, copy = g[i].kind == GR_GPU_MEMCPY;

		put_int(x, (int64_t)i + 1);
		put_time(x, g[i].ts);
		put_u64(x, g[i].dur);
		put_ref(x, process_of(p, np, g[i].pid), UINT32_MAX);
		put_int(x, g[i].pid);
		put_if(x, g[i].host_tid, g[i].host_tid);
		put_opt_time(x, g[i].host_ts);
		put_text(x, kernel			 ? "kernel"
			    : copy			 ? "memcpy"
			    : g[i].kind == GR_GPU_MEMSET ? "memset"
							 : "unknown");
		put_int(x, g[i].device);
		put_int(x, g[i].context);
		put_int(x, g[i].stream);
		put_u64(x, g[i].correlation);
		for (int d = 0; d < 3; d++)
			put_if(x, kernel, g[i].grid[d]);
		for (int d = 0; d < 3; d++)
			put_if(x, kernel, g[i].block[d]);
		put_if(x, kernel, g[i].shared);
		put_if(x, !kernel, g[i].bytes);
		put_text(x, copy ? gr_gpu_copy_kind_name(g[i].copy_kind) : NULL);
		put_if(x, g[i].graph, g[i].graph);
		put_if(x, g[i].graph, g[i].graph_node);
		put_string(x, kernel ? g[i].name : NULL);
		put_string(x, kernel ? g[i].mangled : NULL);
		put_tie(x, &sum->ties[i]);
		end_row(x);
	}
	gr_gpu_free(sum);
}

static void write_strings(struct xt *x)
{
	begin_table(x, TAB_STRINGS);
	for (uint32_t i = 0; i < x->string_ids.len; i++) {
		put_int(x, (int64_t)i + 1);
		put_text(x, (const char *)(uintptr_t)*gr_keymap_key(&x->string_ids, i));
		end_row(x);
	}
}

int gr_export_tables(const struct gr_model *m, const char *version,
		     const struct gr_table_sink *sink, struct gr_export_table_stats *st)
{
	struct xt *x = calloc(1, sizeof(*x));
	static const enum tab events[] = {TAB_LAUNCHES, TAB_COPIES, TAB_MEMSETS,     TAB_ALLOCS,
					  TAB_FREES,	TAB_SYNCS,  TAB_GRAPH_CALLS, TAB_NCCL_CALLS,
					  TAB_SCHED,	TAB_LOSSES, TAB_GPU_ACTIVITY};
	uint64_t last;
	int err;

	if (!x)
		return -ENOMEM;
	x->m = m;
	x->sink = sink;
	gr_model_time_span(m, &x->t0, &last);
	gr_strtab_init(&x->strtab, &x->arena);
	gr_keymap_init(&x->string_ids, 1);
	x->err = gr_graphs_build(m, &x->graphs);

	if (!x->err)
		write_meta(x, version);
	write_processes(x);
	write_threads(x);
	write_streams(x);
	write_kernels(x);
	write_stacks(x);
	write_calls(x);
	write_nccl(x);
	if (!x->err)
		write_sched(x, 0);
	if (!x->err)
		write_sched(x, 1);
	write_nvtx(x);
	write_losses(x);
	write_gpu_activity(x);
	write_strings(x);

	for (size_t i = 0; i < TAB_COUNT; i++)
		x->st.total += x->st.rows[i];
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		x->st.events += x->st.rows[events[i]];
	if (st)
		*st = x->st;
	err = x->err;
	gr_graphs_free(x->graphs);
	gr_keymap_free(&x->string_ids);
	gr_strtab_free(&x->strtab);
	gr_arena_free(&x->arena);
	free(x);
	return err;
}
