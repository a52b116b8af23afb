/* SPDX-License-Identifier: MIT */
/*
 * gpurec info [FILE] [--json]: what a trace holds. The header (command, host, times, exit
 * status, CUDA libraries), counts per record kind, kernels with their launch configs, copies per
 * direction, processes and threads, losses and the file's integrity.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "json.h"
#include "keymap.h"
#include "load.h"
#include "model.h"
#include "options.h"
#include "units.h"

#define NCOPY_KINDS  6 /* H2H H2D D2H D2D default, then everything else */
#define NSYNC_KINDS  6
#define NALLOC_KINDS 6
#define NGRAPH_KINDS 5

struct sum {
	uint64_t count, bytes, dur;
};

struct kernel_stat {
	uint32_t name_id;
	uint64_t count;
	uint64_t dur;
	uint32_t first_cfg, ncfg; /* range in info.cfgs */
};

struct cfg_stat {
	uint32_t config;
	uint64_t count;
};

struct info {
	const struct gr_model *m;
	const char *path;
	uint64_t with_stack;
	struct kernel_stat *kernels; /* one per kernel name, sorted for output */
	size_t nkernels;
	struct cfg_stat *cfgs;
	size_t ncfgs;
	uint64_t *thread_launches;
	uint64_t *process_launches;
	uint32_t *thread_order; /* thread indexes sorted by (pid, tid) */
	uint64_t *stream_launches;
	struct sum copies[NCOPY_KINDS], memsets, syncs[NSYNC_KINDS], allocs[NALLOC_KINDS];
	struct sum frees, graphs[NGRAPH_KINDS];
};

static const char *const event_kinds[] = {"launch", "copy",  "memset", "alloc", "free",
					  "sync",   "sched", "stack",  "graph"};

static unsigned clamp_kind(unsigned v, unsigned n)
{
	return v < n - 1 ? v : n - 1;
}

static int cmp_kernel_stat(const void *a, const void *b, void *names)
{
	const struct kernel_stat *x = a, *y = b;
	const char *const *nm = names;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(nm[x->name_id], nm[y->name_id]);
}

static int cmp_thread(const void *a, const void *b, void *threads)
{
	const struct gr_thread *t = threads, *x = &t[*(const uint32_t *)a],
			       *y = &t[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_cfg_stat(const void *a, const void *b, void *configs)
{
	const struct cfg_stat *x = a, *y = b;
	const struct gr_config *c = configs;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return memcmp(&c[x->config], &c[y->config], sizeof(*c));
}

/* Kernel and config counts, per kernel name: configs of one name are contiguous in info->cfgs. */
static int kernel_stats(struct info *in)
{
	size_t nl, nk, nnames;
	const struct gr_launch *l = gr_model_launches(in->m, &nl);
	const struct gr_kernel *k = gr_model_kernels(in->m, &nk);
	const char *const *names = gr_model_kernel_names(in->m, &nnames);
	struct gr_keymap pairs;
	uint64_t *pair_count = NULL, *pair_dur = NULL;
	size_t pair_cap = 0;
	uint64_t last[2] = {UINT64_MAX, UINT64_MAX};
	uint32_t idx = 0;
	int err = -ENOMEM;

	gr_keymap_init(&pairs, 2);
	in->kernels = calloc(nnames ? nnames : 1, sizeof(*in->kernels));
	if (!in->kernels)
		goto out;
	in->nkernels = nnames;
	for (size_t i = 0; i < nnames; i++)
		in->kernels[i].name_id = (uint32_t)i;
	for (size_t i = 0; i < nl; i++) {
		uint64_t key[2] = {k[l[i].kernel].name_id, l[i].config};

		if (key[0] != last[0] || key[1] != last[1]) {
			err = gr_keymap_intern(&pairs, key, &idx);
			if (err < 0)
				goto out;
			if (idx >= pair_cap) {
				size_t ncap = pair_cap ? pair_cap * 2 : 64;
				uint64_t *c = realloc(pair_count, ncap * sizeof(*c));

				if (!c)
					goto oom;
				pair_count = c;
				c = realloc(pair_dur, ncap * sizeof(*c));
				if (!c)
					goto oom;
				pair_dur = c;
				memset(pair_count + pair_cap, 0, (ncap - pair_cap) * sizeof(*c));
				memset(pair_dur + pair_cap, 0, (ncap - pair_cap) * sizeof(*c));
				pair_cap = ncap;
			}
			last[0] = key[0];
			last[1] = key[1];
		}
		pair_count[idx]++;
		pair_dur[idx] += l[i].dur;
	}
	in->ncfgs = pairs.len;
	in->cfgs = calloc(pairs.len ? pairs.len : 1, sizeof(*in->cfgs));
	if (!in->cfgs)
		goto oom;
	/* bucket the pairs by name: count per name, prefix sums, then place */
	for (uint32_t p = 0; p < pairs.len; p++) {
		struct kernel_stat *ks = &in->kernels[gr_keymap_key(&pairs, p)[0]];

		ks->ncfg++;
		ks->count += pair_count[p];
		ks->dur += pair_dur[p];
	}
	for (size_t i = 0, at = 0; i < nnames; i++) {
		in->kernels[i].first_cfg = (uint32_t)at;
		at += in->kernels[i].ncfg;
		in->kernels[i].ncfg = 0;
	}
	for (uint32_t p = 0; p < pairs.len; p++) {
		const uint64_t *key = gr_keymap_key(&pairs, p);
		struct kernel_stat *ks = &in->kernels[key[0]];
		struct cfg_stat *cs = &in->cfgs[ks->first_cfg + ks->ncfg++];

		cs->config = (uint32_t)key[1];
		cs->count = pair_count[p];
	}
	for (size_t i = 0; i < nnames; i++)
		qsort_r(in->cfgs + in->kernels[i].first_cfg, in->kernels[i].ncfg, sizeof(*in->cfgs),
			cmp_cfg_stat, (void *)gr_model_configs(in->m, NULL));
	qsort_r(in->kernels, in->nkernels, sizeof(*in->kernels), cmp_kernel_stat, (void *)names);
	err = 0;
	goto out;
oom:
	err = -ENOMEM;
out:
	gr_keymap_free(&pairs);
	free(pair_count);
	free(pair_dur);
	return err;
}

static void add(struct sum *s, uint64_t bytes, uint64_t dur)
{
	s->count++;
	s->bytes += bytes;
	s->dur += dur;
}

static int compute(struct info *in)
{
	const struct gr_model *m = in->m;
	size_t n, nthreads, nprocs;
	const struct gr_thread *threads = gr_model_threads(m, &nthreads);
	int err;

	gr_model_processes(m, &nprocs);
	in->thread_launches = calloc(nthreads + 1, sizeof(uint64_t));
	in->process_launches = calloc(nprocs + 1, sizeof(uint64_t));
	in->thread_order = calloc(nthreads + 1, sizeof(uint32_t));
	gr_model_streams(m, &n);
	in->stream_launches = calloc(n + 1, sizeof(uint64_t));
	if (!in->thread_launches || !in->process_launches || !in->thread_order ||
	    !in->stream_launches)
		return -ENOMEM;
	for (size_t i = 0; i < nthreads; i++)
		in->thread_order[i] = (uint32_t)i;
	qsort_r(in->thread_order, nthreads, sizeof(uint32_t), cmp_thread, (void *)threads);
	err = kernel_stats(in);
	if (err)
		return err;

	const struct gr_launch *l = gr_model_launches(m, &n);
	for (size_t i = 0; i < n; i++) {
		in->thread_launches[l[i].thread]++;
		in->stream_launches[l[i].stream]++;
		in->with_stack += l[i].stack != 0;
	}
	for (size_t i = 0; i < nthreads; i++)
		in->process_launches[threads[i].process] += in->thread_launches[i];

	const struct gr_copy *c = gr_model_copies(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->copies[clamp_kind(c[i].kind, NCOPY_KINDS)], c[i].bytes, c[i].dur);
		in->with_stack += c[i].stack != 0;
	}
	const struct gr_memset *ms = gr_model_memsets(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->memsets, ms[i].bytes, ms[i].dur);
		in->with_stack += ms[i].stack != 0;
	}
	const struct gr_sync *s = gr_model_syncs(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->syncs[clamp_kind(s[i].kind, NSYNC_KINDS)], 0, s[i].dur);
		in->with_stack += s[i].stack != 0;
	}
	const struct gr_graph *g = gr_model_graphs(m, &n);
	for (size_t i = 0; i < n; i++) {
		add(&in->graphs[clamp_kind(g[i].kind, NGRAPH_KINDS)], 0, g[i].dur);
		in->with_stack += g[i].stack != 0;
	}
	const struct gr_alloc *a = gr_model_allocs(m, &n);
	for (size_t i = 0; i < n; i++)
		add(&in->allocs[clamp_kind(a[i].kind, NALLOC_KINDS)], a[i].bytes, a[i].dur);
	const struct gr_free *f = gr_model_frees(m, &n);
	for (size_t i = 0; i < n; i++)
		add(&in->frees, 0, f[i].dur);
	return 0;
}

static void info_free(struct info *in)
{
	free(in->kernels);
	free(in->cfgs);
	free(in->thread_launches);
	free(in->process_launches);
	free(in->thread_order);
	free(in->stream_launches);
}

/* Count of events of one kind as listed in events_by_kind ("stack": events with a stack). */
static uint64_t event_count(const struct info *in, const char *kind)
{
	static const struct {
		const char *name;
		unsigned kind;
	} map[] = {{"launch", GR_K_LAUNCH}, {"copy", GR_K_COPY},  {"memset", GR_K_MEMSET},
		   {"alloc", GR_K_ALLOC},   {"free", GR_K_FREE},  {"sync", GR_K_SYNC},
		   {"sched", GR_K_SCHED},   {"graph", GR_K_GRAPH}};

	if (!strcmp(kind, "stack"))
		return in->with_stack;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(kind, map[i].name))
			return gr_model_record_count(in->m, map[i].kind);
	return 0;
}

/* A wait status as a shell reports it: the exit code, or 128 + the signal that killed it. */
static unsigned shell_status(uint64_t wait_status)
{
	if (wait_status & 0x7f)
		return 128 + (unsigned)(wait_status & 0x7f);
	return (unsigned)(wait_status >> 8 & 0xff);
}

static const char *stop_reason(uint64_t v)
{
	static const char *const names[] = {"exit", "signal", "duration"};

	return v < 3 ? names[v] : "unknown";
}

static const char *kind_label(const char *name, unsigned idx, unsigned n)
{
	return idx == n - 1 ? "other" : name;
}

/* "2025-06-01T12:00:00.123Z" from CLOCK_REALTIME ns. */
static void iso_time(char *buf, size_t len, uint64_t realtime_ns)
{
	time_t t = (time_t)(realtime_ns / 1000000000u);
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t, &tm) || !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf + n, len - n, ".%03uZ", (unsigned)(realtime_ns / 1000000u % 1000u));
}

static void session_hex(char *buf, const uint8_t id[16])
{
	for (int i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
}

static uint64_t duration_ns(const struct gr_model *m)
{
	uint64_t first, last;

	gr_model_time_span(m, &first, &last);
	return last - first;
}

/* ---- JSON ---- */

static void json_sum_list(struct gr_json *j, const char *key, const struct sum *s, unsigned n,
			  const char *(*name)(unsigned), int bytes)
{
	gr_json_key(j, key);
	gr_json_array(j);
	for (unsigned i = 0; i < n; i++) {
		if (!s[i].count)
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "kind", kind_label(name(i), i, n));
		gr_json_kv_u64(j, "count", s[i].count);
		if (bytes)
			gr_json_kv_u64(j, "bytes", s[i].bytes);
		gr_json_kv_u64(j, "dur_ns", s[i].dur);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_integrity(struct gr_json *j, const struct gr_integrity *ig)
{
	gr_json_key(j, "integrity");
	gr_json_object(j);
	gr_json_kv_bool(j, "complete", ig->complete);
	gr_json_kv_bool(j, "footer_present", ig->footer_present);
	gr_json_kv_u64(j, "file_bytes", ig->file_bytes);
	gr_json_kv_u64(j, "chunks_ok", ig->chunks_ok);
	gr_json_kv_u64(j, "chunks_bad", ig->chunks_bad);
	gr_json_kv_u64(j, "bytes_unread", ig->bytes_unread);
	gr_json_key(j, "first_problem");
	if (ig->first_problem.err) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "offset", ig->first_problem.offset);
		gr_json_kv_str(j, "error", gr_strerror(ig->first_problem.err));
		gr_json_kv_str(j, "reason", ig->first_problem.reason);
		gr_json_object_end(j);
	} else {
		gr_json_null(j);
	}
	gr_json_object_end(j);
}

static void json_header(struct gr_json *j, const struct gr_model *m)
{
	const struct gr_trace_header *h = gr_model_header(m);
	char buf[64];

	gr_json_key(j, "header");
	gr_json_object(j);
	gr_json_kv_str(j, "command", h->cmdline);
	gr_json_kv_str(j, "host", h->host);
	gr_json_kv_str(j, "kernel", h->kernel);
	gr_json_kv_str(j, "tool_version", h->tool_version);
	gr_json_key(j, "format");
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "major", h->major);
	gr_json_kv_u64(j, "minor", h->minor);
	gr_json_object_end(j);
	session_hex(buf, h->session_id);
	gr_json_kv_str(j, "session_id", buf);
	gr_json_kv_u64(j, "start_monotonic_ns", h->clock_monotonic_ns);
	gr_json_kv_u64(j, "start_realtime_ns", h->clock_realtime_ns);
	iso_time(buf, sizeof(buf), h->clock_realtime_ns);
	gr_json_kv_str(j, "start_time", buf);
	gr_json_kv_str(j, "env", h->env);
	gr_json_object_end(j);
}

static void json_session(struct gr_json *j, const struct gr_model *m)
{
	const char *text;
	uint64_t v;

	gr_json_kv_u64(j, "duration_ns", duration_ns(m));
	gr_json_key(j, "exit_status");
	if (gr_model_session(m, GR_SESS_EXIT_STATUS, &v, NULL))
		gr_json_u64(j, v);
	else
		gr_json_null(j);
	gr_json_key(j, "stop_reason");
	if (gr_model_session(m, GR_SESS_STOP, &v, NULL))
		gr_json_str(j, stop_reason(v));
	else
		gr_json_null(j);
	gr_json_key(j, "call_graph");
	if (gr_model_session(m, GR_SESS_CALL_GRAPH, NULL, &text))
		gr_json_str(j, text);
	else
		gr_json_null(j);
	gr_json_kv_bool(j, "attached", gr_model_session(m, GR_SESS_ATTACHED, &v, NULL) && v);
	gr_json_kv_u64(j, "untraced_privileged",
		       gr_model_session(m, GR_SESS_UNTRACED, &v, NULL) ? v : 0);
}

static void json_kernels(struct gr_json *j, const struct info *in)
{
	const char *const *names = gr_model_kernel_names(in->m, NULL);
	const struct gr_config *cfg = gr_model_configs(in->m, NULL);

	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < in->nkernels; i++) {
		const struct kernel_stat *ks = &in->kernels[i];

		if (!ks->count)
			continue;
		gr_json_object(j);
		gr_json_kv_str(j, "name", names[ks->name_id]);
		gr_json_kv_u64(j, "count", ks->count);
		gr_json_kv_u64(j, "api_ns", ks->dur);
		gr_json_key(j, "configs");
		gr_json_array(j);
		for (uint32_t c = 0; c < ks->ncfg; c++) {
			const struct cfg_stat *cs = &in->cfgs[ks->first_cfg + c];
			const struct gr_config *g = &cfg[cs->config];

			gr_json_object_flat(j);
			gr_json_key(j, "grid");
			gr_json_array(j);
			for (int d = 0; d < 3; d++)
				gr_json_u64(j, g->grid[d]);
			gr_json_array_end(j);
			gr_json_key(j, "block");
			gr_json_array(j);
			for (int d = 0; d < 3; d++)
				gr_json_u64(j, g->block[d]);
			gr_json_array_end(j);
			gr_json_kv_u64(j, "shared_mem", g->shmem);
			gr_json_kv_u64(j, "count", cs->count);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_procs(struct gr_json *j, const struct info *in)
{
	size_t np, nt;
	const struct gr_process *p = gr_model_processes(in->m, &np);
	const struct gr_thread *t = gr_model_threads(in->m, &nt);

	gr_json_key(j, "processes");
	gr_json_array(j);
	for (size_t i = 0; i < np; i++) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", p[i].pid);
		gr_json_kv_str(j, "comm", p[i].comm);
		gr_json_kv_u64(j, "launches", in->process_launches[i]);
		gr_json_kv_u64(j, "ppid", p[i].ppid);
		gr_json_kv_str(j, "exe", p[i].exe);
		gr_json_key(j, "exit_status");
		if (p[i].has_exit)
			gr_json_u64(j, shell_status(p[i].exit_status));
		else
			gr_json_null(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);

	gr_json_key(j, "threads");
	gr_json_array(j);
	for (size_t k = 0; k < nt; k++) {
		const struct gr_thread *th = &t[in->thread_order[k]];

		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", th->pid);
		gr_json_kv_u64(j, "tid", th->tid);
		gr_json_kv_str(j, "comm", th->comm);
		gr_json_kv_u64(j, "launches", in->thread_launches[in->thread_order[k]]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_streams(struct gr_json *j, const struct info *in)
{
	size_t n;
	const struct gr_stream *s = gr_model_streams(in->m, &n);
	char buf[24];

	gr_json_key(j, "streams");
	gr_json_array(j);
	for (size_t i = 0; i < n; i++) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", s[i].pid);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, s[i].handle);
		gr_json_kv_str(j, "stream", buf);
		gr_json_kv_u64(j, "launches", in->stream_launches[i]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_losses(struct gr_json *j, const struct gr_model *m)
{
	size_t n;
	const struct gr_loss *l = gr_model_losses(m, &n);

	gr_json_key(j, "losses");
	gr_json_array(j);
	for (size_t i = 0; i < n; i++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "source", gr_loss_source_name(l[i].source));
		gr_json_kv_u64(j, "count", l[i].count);
		gr_json_kv_u64(j, "ts_ns", l[i].ts);
		gr_json_kv_u64(j, "ts_end_ns", l[i].ts_end);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

/* "ended_abruptly_at_s": seconds from the first event to the last one in the file, or null. */
static void json_ended_abruptly(struct gr_json *j, const struct gr_model *m)
{
	uint64_t first, last;

	gr_json_key(j, "ended_abruptly_at_s");
	gr_model_time_span(m, &first, NULL);
	if (gr_model_ended_abruptly(m, &last))
		gr_json_double(j, (last - first) / 1e9);
	else
		gr_json_null(j);
}

static int print_json(const struct info *in, FILE *f)
{
	const struct gr_model *m = in->m;
	const struct gr_schema *schema = gr_events_schema();
	const char *const *libs;
	struct gr_json j;
	size_t n;

	gr_json_begin(&j, f, 2);
	gr_json_object(&j);
	gr_json_kv_str(&j, "file", in->path);
	gr_json_kv_bool(&j, "complete", gr_model_integrity(m)->complete);
	gr_json_kv_u64(&j, "lost_events", gr_model_lost_events(m));
	json_ended_abruptly(&j, m);
	gr_json_kv_u64(&j, "launches", gr_model_record_count(m, GR_K_LAUNCH));
	gr_json_key(&j, "events_by_kind");
	gr_json_object_flat(&j);
	for (size_t i = 0; i < sizeof(event_kinds) / sizeof(event_kinds[0]); i++)
		gr_json_kv_u64(&j, event_kinds[i], event_count(in, event_kinds[i]));
	gr_json_object_end(&j);
	gr_json_key(&j, "records_by_kind");
	gr_json_object_flat(&j);
	for (uint16_t k = 0; k < schema->nkinds; k++)
		gr_json_kv_u64(&j, schema->kinds[k].name,
			       gr_model_record_count(m, schema->kinds[k].id));
	gr_json_object_end(&j);
	json_header(&j, m);
	json_session(&j, m);
	libs = gr_model_libraries(m, &n);
	gr_json_key(&j, "cuda_libraries");
	gr_json_array(&j);
	for (size_t i = 0; i < n; i++)
		gr_json_str(&j, libs[i]);
	gr_json_array_end(&j);
	json_kernels(&j, in);
	json_sum_list(&j, "copies", in->copies, NCOPY_KINDS, gr_copy_kind_name, 1);
	gr_json_key(&j, "memsets");
	gr_json_object_flat(&j);
	gr_json_kv_u64(&j, "count", in->memsets.count);
	gr_json_kv_u64(&j, "bytes", in->memsets.bytes);
	gr_json_kv_u64(&j, "dur_ns", in->memsets.dur);
	gr_json_object_end(&j);
	json_sum_list(&j, "syncs", in->syncs, NSYNC_KINDS, gr_sync_kind_name, 0);
	json_sum_list(&j, "allocations", in->allocs, NALLOC_KINDS, gr_alloc_kind_name, 1);
	gr_json_kv_u64(&j, "frees", in->frees.count);
	json_sum_list(&j, "graphs", in->graphs, NGRAPH_KINDS, gr_graph_kind_name, 0);
	json_procs(&j, in);
	json_streams(&j, in);
	json_losses(&j, m);
	json_integrity(&j, gr_model_integrity(m));
	gr_json_object_end(&j);
	return gr_json_end(&j);
}

/* ---- text ---- */

static double rel_s(const struct gr_model *m, uint64_t ts)
{
	uint64_t first;

	gr_model_time_span(m, &first, NULL);
	return ts >= first ? (double)(ts - first) / 1e9 : -(double)(first - ts) / 1e9;
}

static void text_integrity(FILE *f, const struct gr_integrity *ig)
{
	if (ig->complete) {
		fprintf(f, "integrity: complete\n");
		return;
	}
	fprintf(f, "integrity: recovered %" PRIu64 " chunks, %" PRIu64 " bad", ig->chunks_ok,
		ig->chunks_bad);
	if (ig->first_problem.err)
		fprintf(f, ", first problem at offset %" PRIu64 ": %s", ig->first_problem.offset,
			ig->first_problem.reason[0] ? ig->first_problem.reason
						    : gr_strerror(ig->first_problem.err));
	else if (!ig->footer_present)
		fprintf(f, ", no footer (the recording did not finish)");
	if (ig->bytes_unread)
		fprintf(f, "; %" PRIu64 " bytes unread at the end", ig->bytes_unread);
	fprintf(f, "\n");
}

static void text_header(FILE *f, const struct info *in)
{
	const struct gr_model *m = in->m;
	const struct gr_trace_header *h = gr_model_header(m);
	const char *text;
	const char *const *libs;
	char buf[64];
	size_t n;
	uint64_t v;

	gr_units_bytes(buf, sizeof(buf), gr_model_integrity(m)->file_bytes);
	fprintf(f, "%s: gpurec trace, format %u.%u, %s\n", in->path, h->major, h->minor, buf);
	fprintf(f, "  command      %s\n", h->cmdline);
	fprintf(f, "  host         %s, kernel %s\n", h->host, h->kernel);
	fprintf(f, "  recorded by  gpurec %s\n", h->tool_version);
	if (h->clock_realtime_ns) {
		time_t t = (time_t)(h->clock_realtime_ns / 1000000000u);
		struct tm tm;

		if (localtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm))
			fprintf(f, "  started      %s\n", buf);
	}
	fprintf(f, "  duration     %.3f s\n", (double)duration_ns(m) / 1e9);
	if (gr_model_session(m, GR_SESS_EXIT_STATUS, &v, NULL))
		fprintf(f, "  exit status  %" PRIu64 "\n", v);
	if (gr_model_session(m, GR_SESS_STOP, &v, NULL))
		fprintf(f, "  stopped by   %s\n", stop_reason(v));
	if (gr_model_session(m, GR_SESS_CALL_GRAPH, NULL, &text) && *text)
		fprintf(f, "  call graph   %s\n", text);
	if (gr_model_session(m, GR_SESS_ATTACHED, &v, NULL) && v)
		fprintf(f, "  attached     yes (-p: calls made before the attach are missing)\n");
	if (gr_model_session(m, GR_SESS_UNTRACED, &v, NULL) && v)
		fprintf(f,
			"  untraced     %" PRIu64 " privileged programs (setuid, setgid, file "
			"capabilities)\n",
			v);
	libs = gr_model_libraries(m, &n);
	if (!n)
		fprintf(f,
			"  CUDA libs    none seen: no CUDA library was loaded while recording\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-12s %s\n", i ? "" : "CUDA libs", libs[i]);
}

static void text_counts(FILE *f, const struct info *in)
{
	const struct gr_schema *schema = gr_events_schema();
	int col = 0;

	fprintf(f, "\nevents\n");
	for (size_t i = 0; i < sizeof(event_kinds) / sizeof(event_kinds[0]); i++)
		fprintf(f, "  %-8s %12" PRIu64 "%s\n", event_kinds[i],
			event_count(in, event_kinds[i]),
			strcmp(event_kinds[i], "stack") ? "" : "  (events with a stack)");
	fprintf(f, "records\n ");
	for (uint16_t k = 0; k < schema->nkinds; k++) {
		uint16_t id = schema->kinds[k].id;

		if (id == GR_K_LAUNCH || id == GR_K_COPY || id == GR_K_MEMSET || id == GR_K_ALLOC ||
		    id == GR_K_FREE || id == GR_K_SYNC || id == GR_K_SCHED || id == GR_K_GRAPH)
			continue;
		col += fprintf(f, " %s %" PRIu64, schema->kinds[k].name,
			       gr_model_record_count(in->m, id));
		if (col > 80) {
			fprintf(f, "\n ");
			col = 0;
		}
	}
	fprintf(f, "\n");
}

static void text_kernels(FILE *f, const struct info *in)
{
	const char *const *names = gr_model_kernel_names(in->m, NULL);
	const struct gr_config *cfg = gr_model_configs(in->m, NULL);
	uint64_t total = gr_model_record_count(in->m, GR_K_LAUNCH);

	if (!in->nkernels)
		return;
	fprintf(f, "\nkernels: %zu distinct\n  %10s %7s  %s\n", in->nkernels, "launches", "share",
		"name / grid block shared-mem: launches");
	for (size_t i = 0; i < in->nkernels; i++) {
		const struct kernel_stat *ks = &in->kernels[i];

		fprintf(f, "  %10" PRIu64 " %6.1f%%  %s\n", ks->count,
			total ? 100.0 * (double)ks->count / (double)total : 0.0,
			names[ks->name_id]);
		for (uint32_t c = 0; c < ks->ncfg; c++) {
			const struct cfg_stat *cs = &in->cfgs[ks->first_cfg + c];
			const struct gr_config *g = &cfg[cs->config];

			fprintf(f, "  %10s %7s    (%u,%u,%u) (%u,%u,%u) %u: %" PRIu64 "\n", "", "",
				g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1],
				g->block[2], g->shmem, cs->count);
		}
	}
}

static void text_sums(FILE *f, const char *title, const struct sum *s, unsigned n,
		      const char *(*name)(unsigned), int bytes)
{
	int any = 0;
	char buf[GR_UNITS_LEN], t[GR_UNITS_LEN];

	for (unsigned i = 0; i < n; i++) {
		if (!s[i].count)
			continue;
		if (!any++)
			fprintf(f, "\n%s\n", title);
		fprintf(f, "  %-18s %10" PRIu64 " calls", kind_label(name(i), i, n), s[i].count);
		if (bytes) {
			gr_units_bytes(buf, sizeof(buf), s[i].bytes);
			fprintf(f, " %12s", buf);
		}
		fprintf(f, " %12s in the API\n", gr_units_ns(t, sizeof(t), (double)s[i].dur));
	}
}

static void text_procs(FILE *f, const struct info *in)
{
	size_t np, nt;
	const struct gr_process *p = gr_model_processes(in->m, &np);
	const struct gr_thread *t = gr_model_threads(in->m, &nt);

	if (!np)
		return;
	fprintf(f, "\nprocesses\n  %8s %8s %-16s %10s  %s\n", "pid", "ppid", "comm", "launches",
		"exit");
	for (size_t i = 0; i < np; i++) {
		char exit_buf[32] = "-";

		if (p[i].has_exit && !(p[i].exit_status & 0x7f))
			snprintf(exit_buf, sizeof(exit_buf), "exit %u",
				 (unsigned)(p[i].exit_status >> 8 & 0xff));
		else if (p[i].has_exit)
			snprintf(exit_buf, sizeof(exit_buf), "signal %u",
				 (unsigned)(p[i].exit_status & 0x7f));
		fprintf(f, "  %8u %8u %-16s %10" PRIu64 "  %s\n", p[i].pid, p[i].ppid, p[i].comm,
			in->process_launches[i], exit_buf);
	}
	fprintf(f, "threads\n  %8s %8s %-16s %10s\n", "pid", "tid", "comm", "launches");
	for (size_t k = 0; k < nt; k++) {
		uint32_t i = in->thread_order[k];

		fprintf(f, "  %8u %8u %-16s %10" PRIu64 "\n", t[i].pid, t[i].tid, t[i].comm,
			in->thread_launches[i]);
	}
}

static void text_losses(FILE *f, const struct gr_model *m)
{
	size_t n;
	const struct gr_loss *l = gr_model_losses(m, &n);
	uint64_t last;
	int abrupt = gr_model_ended_abruptly(m, &last);

	if (!gr_model_lost_events(m) && !n && !abrupt) {
		fprintf(f, "\nlosses: none\n");
		return;
	}
	fprintf(f, "\nlosses: %" PRIu64 " events lost\n", gr_model_lost_events(m));
	if (abrupt)
		fprintf(f,
			"  recording ended abruptly at %.3f s: events after %.3f s are not in the "
			"file\n",
			rel_s(m, last), rel_s(m, last));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-8s %10" PRIu64 " events  %.6f s .. %.6f s\n",
			gr_loss_source_name(l[i].source), l[i].count, rel_s(m, l[i].ts),
			rel_s(m, l[i].ts_end));
}

static int print_text(const struct info *in, FILE *f)
{
	text_header(f, in);
	text_counts(f, in);
	text_kernels(f, in);
	text_sums(f, "copies", in->copies, NCOPY_KINDS, gr_copy_kind_name, 1);
	if (in->memsets.count) {
		char buf[GR_UNITS_LEN], t[GR_UNITS_LEN];

		gr_units_bytes(buf, sizeof(buf), in->memsets.bytes);
		fprintf(f, "\nmemsets\n  %-18s %10" PRIu64 " calls %12s %12s in the API\n", "all",
			in->memsets.count, buf, gr_units_ns(t, sizeof(t), (double)in->memsets.dur));
	}
	text_sums(f, "syncs", in->syncs, NSYNC_KINDS, gr_sync_kind_name, 0);
	text_sums(f, "allocations", in->allocs, NALLOC_KINDS, gr_alloc_kind_name, 1);
	text_sums(f, "graphs", in->graphs, NGRAPH_KINDS, gr_graph_kind_name, 0);
	text_procs(f, in);
	text_losses(f, in->m);
	fprintf(f, "\n");
	text_integrity(f, gr_model_integrity(in->m));
	return fflush(f) || ferror(f) ? -EIO : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gpurec info [FILE] [--json]\n"
		   "  FILE    trace to describe (default gpurec.trc)\n"
		   "  --json  machine-readable output\n");
}

int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	struct gr_model *m = NULL;
	struct info in;
	int json = 0, err, ret = 1;

	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":hi:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'i': /* perf's spelling */
			path = optarg;
			break;
		default:
			gr_opt_error("info", c, argv);
			usage(stderr);
			return 2;
		}
	}
	if (gr_opt_paths("info", argc, argv, &path, !!path, 1) < 0) {
		usage(stderr);
		return 2;
	}
	if (!path)
		path = "gpurec.trc";
	memset(&in, 0, sizeof(in));
	if (gr_load_trace("info", path, &m))
		goto out;
	in.m = m;
	in.path = path;
	err = compute(&in);
	if (err) {
		fprintf(stderr, "gpurec info: %s: %s\n", path, gr_strerror(err));
		goto out;
	}
	err = json ? print_json(&in, stdout) : print_text(&in, stdout);
	if (err) {
		fprintf(stderr, "gpurec info: writing the output: %s\n", gr_strerror(err));
		goto out;
	}
	ret = 0;
out:
	info_free(&in);
	gr_model_free(m);
	return ret;
}
