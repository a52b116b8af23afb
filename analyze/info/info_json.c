/* SPDX-License-Identifier: MIT */
/*
 * gr_info_write_json(): `gpurec info --json`, from a struct gr_info and the model's metadata.
 * Raw figures only (ns, bytes, counts), no units.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analyze/model/damage.h"
#include "analyze/util/json.h"
#include "info.h"

/* What graph launches executed, node by node kind (docs/INFO.md). */
static void graph_executed(struct gr_json *j, const struct gr_graphs_summary *g)
{
	uint64_t copies = 0, bytes = 0;

	gr_json_key(j, "graph_executed");
	gr_json_object(j);
	gr_json_kv_u64(j, "graph_launches", g->graph_launches);
	gr_json_kv_u64(j, "kernels", g->kernels_executed);
	gr_json_key(j, "copies");
	gr_json_array(j);
	for (unsigned d = 0; d < GR_GRAPHS_COPY_KINDS; d++) {
		copies += g->copies_executed[d];
		bytes += g->copy_bytes_executed[d];
		if (!g->copies_executed[d])
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "kind", gr_copy_kind_name(d));
		gr_json_kv_u64(j, "count", g->copies_executed[d]);
		gr_json_kv_u64(j, "bytes", g->copy_bytes_executed[d]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_u64(j, "copy_count", copies);
	gr_json_kv_u64(j, "copy_bytes", bytes);
	gr_json_kv_u64(j, "memsets", g->memsets_executed);
	gr_json_kv_u64(j, "memset_bytes", g->memset_bytes_executed);
	gr_json_kv_u64(j, "host_nodes", g->hosts_executed);
	gr_json_kv_u64(j, "event_nodes", g->events_executed);
	gr_json_object_end(j);
}

/* A wait status as a shell reports it: the exit code, or 128 + the signal that killed it. */
static unsigned shell_status(uint64_t wait_status)
{
	if (wait_status & 0x7f)
		return 128 + (unsigned)(wait_status & 0x7f);
	return (unsigned)(wait_status >> 8 & 0xff);
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

/* "memory": the device memory figures info shows (docs/INFO.md). */
static void memory(struct gr_json *j, const struct gr_memory *mem)
{
	char s1[GR_FRAME_TEXT];

	gr_json_key(j, "memory");
	gr_json_object(j);
	gr_json_kv_bool(j, "judged", mem->any && mem->judged);
	gr_json_kv_u64(j, "failed", mem->failures_total);
	gr_json_key(j, "processes");
	gr_json_array(j);
	for (size_t k = 0; k < mem->nprocs; k++) {
		const struct gr_memory_proc *p = &mem->procs[k];

		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", p->pid);
		gr_json_kv_u64(j, "device", p->device);
		gr_json_kv_u64(j, "peak_bytes", p->peak_bytes);
		gr_json_kv_u64(j, "peak_ts", p->peak_ts);
		gr_json_kv_u64(j, "outstanding_bytes", p->end_bytes);
		gr_json_kv_u64(j, "outstanding_allocations", p->end_count);
		gr_json_kv_str(j, "outstanding_top_site",
			       p->nend_sites
				   ? gr_memory_site_text(mem, p->end_sites[0].site, s1, sizeof(s1))
				   : NULL);
		gr_json_kv_u64(j, "pinned_peak_bytes", p->pinned_peak_bytes);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

static void sum_list(struct gr_json *j, const char *key, const struct gr_info_sum *s, unsigned n,
		     int bytes)
{
	gr_json_key(j, key);
	gr_json_array(j);
	for (unsigned i = 0; i < n; i++) {
		if (!s[i].count)
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "kind", s[i].kind);
		gr_json_kv_u64(j, "count", s[i].count);
		if (bytes)
			gr_json_kv_u64(j, "bytes", s[i].bytes);
		gr_json_kv_u64(j, "dur_ns", s[i].dur);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void header(struct gr_json *j, const struct gr_model *m)
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

/* --cupti only: whether GPU times were recorded, why not, how many GPU rows, how many lost. */
static void gpu(struct gr_json *j, const struct gr_model *m)
{
	const char *text;
	uint64_t v;

	if (!gr_model_session(m, GR_SESS_CUPTI, &v, &text))
		return;
	gr_json_key(j, "gpu");
	gr_json_object_flat(j);
	gr_json_kv_bool(j, "recorded", v != 0);
	gr_json_key(j, "why");
	gr_json_str(j, text);
	gr_json_kv_u64(j, "rows", gr_model_record_count(m, GR_K_GPU));
	/* rows and losses of every trace of a set */
	gr_json_kv_u64(j, "lost", gr_model_session_sum(m, GR_SESS_CUPTI_DROPPED));
	gr_json_object_end(j);
}

static void session(struct gr_json *j, const struct gr_info *in, const struct gr_model *m)
{
	const char *text;
	uint64_t v;

	gr_json_kv_u64(j, "duration_ns", in->duration_ns);
	gr_json_key(j, "recorder_pids"); /* the recorder and its watchdog; [] in older traces */
	gr_json_array(j);
	if (gr_model_session(m, GR_SESS_RECORDER_PID, &v, NULL))
		gr_json_u64(j, v);
	if (gr_model_session(m, GR_SESS_WATCHDOG_PID, &v, NULL))
		gr_json_u64(j, v);
	gr_json_array_end(j);
	gr_json_key(j, "recorder_cpu_ns"); /* null: an older trace */
	if (gr_model_session(m, GR_SESS_RECORDER_CPU, &v, NULL))
		gr_json_u64(j, v);
	else
		gr_json_null(j);
	gr_json_key(j, "exit_status");
	if (gr_model_session(m, GR_SESS_EXIT_STATUS, &v, NULL))
		gr_json_u64(j, v);
	else
		gr_json_null(j);
	gr_json_key(j, "stop_reason");
	gr_json_str(j, in->stop_reason); /* NULL writes null */
	gr_json_key(j, "call_graph");
	if (gr_model_session(m, GR_SESS_CALL_GRAPH, NULL, &text))
		gr_json_str(j, text);
	else
		gr_json_null(j);
	gr_json_key(j, "mmap_hook");
	if (gr_model_session(m, GR_SESS_MMAP_HOOK, NULL, &text))
		gr_json_str(j, text);
	else
		gr_json_null(j);
	gr_json_kv_bool(j, "attached", gr_model_session(m, GR_SESS_ATTACHED, &v, NULL) && v);
	gr_json_kv_u64(j, "untraced_privileged",
		       gr_model_session(m, GR_SESS_UNTRACED, &v, NULL) ? v : 0);
	gpu(j, m);
}

static void kernels(struct gr_json *j, const struct gr_info *in, const struct gr_model *m)
{
	const struct gr_launch_stats *s = &in->launches;
	const char *const *names = gr_model_kernel_names(m, NULL);
	const struct gr_config *cfg = gr_model_configs(m, NULL);

	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < s->nkernels; i++) {
		uint32_t name_id = s->kernel_order[i];
		const struct gr_launch_kernel *k = &s->kernels[name_id];

		if (!k->count)
			continue;
		gr_json_object(j);
		gr_json_kv_str(j, "name", names[name_id]);
		gr_json_kv_u64(j, "count", k->count);
		gr_json_kv_u64(j, "executed", k->executed);
		gr_json_kv_u64(j, "api_ns", k->dur);
		gr_json_key(j, "configs");
		gr_json_array(j);
		for (uint32_t c = 0; c < k->npairs; c++) {
			const struct gr_launch_pair *p = &s->pairs[in->pair_order[k->first + c]];
			const struct gr_config *g = &cfg[p->config];

			gr_json_object_flat(j);
			gr_json_kv_dim3(j, "grid", g->grid);
			gr_json_kv_dim3(j, "block", g->block);
			gr_json_key(j, "cluster");
			if (gr_config_has_cluster(g))
				gr_json_dim3(j, g->cluster);
			else
				gr_json_null(j);
			gr_json_kv_u64(j, "shared_mem", g->shmem);
			gr_json_kv_u64(j, "count", p->count);
			gr_json_kv_u64(j, "executed", p->executed);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void procs(struct gr_json *j, const struct gr_info *in, const struct gr_model *m)
{
	size_t np, nt;
	const struct gr_process *p = gr_model_processes(m, &np);
	const struct gr_thread *t = gr_model_threads(m, &nt);

	gr_json_key(j, "processes");
	gr_json_array(j);
	for (size_t i = 0; i < np; i++) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", p[i].pid);
		gr_json_kv_str(j, "comm", p[i].comm);
		gr_json_kv_u64(j, "launches", in->launches.process_launches[i]);
		gr_json_kv_u64(j, "ppid", p[i].ppid);
		gr_json_kv_str(j, "exe", p[i].exe);
		gr_json_key(j, "exit_status");
		if (p[i].has_exit)
			gr_json_u64(j, shell_status(p[i].exit_status));
		else
			gr_json_null(j);
		/* several traces: which one it came from, and its pid there */
		if (gr_model_traces(m, NULL)) {
			gr_json_kv_u64(j, "trace", p[i].trace);
			gr_json_kv_u64(j, "trace_pid", p[i].trace_pid);
		}
		/* only where the launcher's environment set them: traces without read as before */
		if (p[i].rank_env) {
			gr_json_kv_i64(j, "rank", p[i].rank);
			gr_json_kv_i64(j, "local_rank", p[i].local_rank);
			gr_json_kv_i64(j, "world_size", p[i].world_size);
			gr_json_kv_str(j, "rank_env", p[i].rank_env);
		}
		gr_json_object_end(j);
	}
	gr_json_array_end(j);

	gr_json_key(j, "threads");
	gr_json_array(j);
	for (size_t k = 0; k < nt; k++) {
		uint32_t i = in->thread_order[k];

		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", t[i].pid);
		gr_json_kv_u64(j, "tid", t[i].tid);
		gr_json_kv_str(j, "comm", t[i].comm);
		gr_json_kv_u64(j, "launches", in->launches.thread_launches[i]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void streams(struct gr_json *j, const struct gr_info *in, const struct gr_model *m)
{
	size_t n;
	const struct gr_stream *s = gr_model_streams(m, &n);
	char buf[64];

	gr_json_key(j, "streams");
	gr_json_array(j);
	for (size_t i = 0; i < n; i++) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", s[i].pid);
		if (s[i].per_thread)
			gr_stream_name(&s[i], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%" PRIx64, s[i].handle);
		gr_json_kv_str(j, "stream", buf);
		gr_json_kv_u64(j, "launches", in->launches.stream_launches[i]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void losses(struct gr_json *j, const struct gr_model *m)
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

/*
 * "calls" (how many are known to have succeeded, failed, or have no status), "errors" (failed
 * calls by api and error), "in_flight" (calls never returned) and "inner_calls".
 */
/* "nvtx": the program's NVTX calls, by op (struct gr_info_nvtx); 0 everywhere without any. */
static void nvtx(struct gr_json *j, const struct gr_info *in)
{
	gr_json_key(j, "nvtx");
	gr_json_object(j);
	gr_json_kv_u64(j, "total", in->nvtx.total);
	gr_json_key(j, "by_op");
	gr_json_object_flat(j);
	for (unsigned op = 1; op < GR_NVTX_OP_COUNT; op++)
		gr_json_kv_u64(j, gr_nvtx_op_name(op), in->nvtx.by_op[op]);
	gr_json_kv_u64(j, "unknown", in->nvtx.by_op[0]);
	gr_json_object_end(j);
	gr_json_object_end(j);
}

/* "blocked": the traced threads' blocked spans by reason (struct gr_info_blocked); the
 * reasons are null in a trace that does not record them. */
static void blocked(struct gr_json *j, const struct gr_info *in)
{
	const struct gr_info_blocked *b = &in->blocked;
	char buf[32];

	gr_json_key(j, "blocked");
	gr_json_object(j);
	gr_json_kv_u64(j, "total", b->total);
	gr_json_kv_bool(j, "known", b->known);
	gr_json_kv_u64(j, "spans", b->spans);
	gr_json_kv_u64(j, "switches_missing", b->switches_missing);
	gr_json_key(j, "spans_by_reason");
	gr_json_object_flat(j);
	for (unsigned r = 0; r < GR_BLOCK_NREASONS; r++)
		gr_json_kv_u64(j, gr_block_reason_name(r), b->spans_by_reason[r]);
	gr_json_object_end(j);
	gr_json_key(j, "by_reason");
	if (!b->known) {
		gr_json_null(j);
		gr_json_object_end(j);
		return;
	}
	gr_json_object_flat(j);
	for (unsigned c = 0; c < GR_WAIT_NCLASSES; c++)
		gr_json_kv_u64(j, gr_wait_class_name(c), b->by_class[c]);
	gr_json_object_end(j);
	gr_json_key(j, "fd_by_kind");
	gr_json_object_flat(j);
	for (unsigned k = 1; k <= GR_FD_OTHER; k++)
		gr_json_kv_u64(j, gr_fd_kind_name(k), b->fd_by_kind[k]);
	gr_json_object_end(j);
	gr_json_key(j, "other_by_syscall");
	gr_json_object_flat(j);
	for (unsigned i = 0; i < b->nother; i++) {
		const char *name = gr_syscall_name(b->other[i].nr);

		if (!name) {
			snprintf(buf, sizeof(buf), "syscall_%d", (int)b->other[i].nr);
			name = buf;
		}
		gr_json_kv_u64(j, name, b->other[i].count);
	}
	gr_json_object_end(j);
	gr_json_kv_u64(j, "other_more", b->more);
	gr_json_object_end(j);
}

static void outcomes(struct gr_json *j, const struct gr_info *in, const struct gr_model *m)
{
	const struct gr_outcome *o = &in->outcome;
	const struct gr_thread *t = gr_model_threads(m, NULL);
	char buf[96];

	gr_outcome_json_calls(j, o);
	gr_json_key(j, "errors");
	gr_json_array(j);
	for (size_t i = 0; i < o->nerrors; i++) {
		const struct gr_outcome_error *e = &o->errors[i];

		gr_json_object_flat(j);
		gr_outcome_json_error(j, e);
		gr_json_kv_u64(j, "first_ts_ns", e->first_ts);
		gr_json_kv_u64(j, "last_ts_ns", e->last_ts);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "in_flight");
	gr_json_array(j);
	for (size_t i = 0; i < o->nin_flight; i++) {
		const struct gr_aside *a = o->in_flight[i];
		const struct gr_thread *th = &t[gr_aside_thread(m, a)];

		gr_json_object_flat(j);
		gr_json_kv_str(j, "api", gr_api_name(gr_aside_api(m, a)));
		gr_json_kv_u64(j, "pid", th->pid);
		gr_json_kv_u64(j, "tid", th->tid);
		gr_json_kv_u64(j, "ts_ns", a->ts);
		gr_json_kv_u64(j, "inside_ns", a->dur);
		gr_json_kv_u64(j, "depth", GR_CALL_DEPTH(a->call));
		gr_json_kv_bool(j, "thread_exited", (a->call & GR_CALL_EXITED) != 0);
		gr_json_kv_str(j, "until", gr_outcome_in_flight_end(m, a, buf, sizeof(buf)));
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "inner_calls");
	gr_json_array(j);
	for (size_t i = 0; i < o->ninner; i++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "api", gr_api_name(o->inner[i].api));
		gr_json_kv_u64(j, "count", o->inner[i].count);
		gr_json_kv_u64(j, "dur_ns", o->inner[i].ns);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

/* "ended_abruptly_at_s": seconds from the first event to the last one in the file, or null. */
static void ended_abruptly(struct gr_json *j, const struct gr_model *m)
{
	uint64_t first, last;

	gr_json_key(j, "ended_abruptly_at_s");
	gr_model_time_span(m, &first, NULL);
	if (gr_model_ended_abruptly(m, &last))
		gr_json_double(j, (last - first) / 1e9);
	else
		gr_json_null(j);
}

/* The CPythons of the traced processes; absent when there are none (traces read as before). */
static void pythons(struct gr_json *j, const struct gr_model *m)
{
	size_t n;
	const struct gr_python *py = gr_model_pythons(m, &n);
	char hex[16];

	if (!n)
		return;
	gr_json_key(j, "pythons");
	gr_json_array(j);
	for (size_t i = 0; i < n; i++) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "pid", py[i].pid);
		snprintf(hex, sizeof(hex), "0x%08" PRIx32, py[i].version);
		gr_json_kv_str(j, "version_hex", py[i].version ? hex : NULL);
		gr_json_kv_str(j, "text", py[i].text);
		gr_json_kv_bool(j, "frames_read", !strstr(py[i].text, GR_PYTHON_NOT_READ));
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

int gr_info_write_json(FILE *f, const struct gr_info *in, const struct gr_model *m,
		       const char *path)
{
	const struct gr_schema *schema = gr_events_schema();
	const char *const *libs;
	struct gr_json j;
	size_t n;

	gr_json_begin(&j, f, 2);
	gr_json_object(&j);
	gr_json_kv_str(&j, "file", path);
	{
		size_t nt;
		const struct gr_model_trace *t = gr_model_traces(m, &nt);

		/* several traces as one job: each one's path, host and clock shift */
		if (nt) {
			gr_json_key(&j, "traces");
			gr_json_array(&j);
			for (size_t i = 0; i < nt; i++) {
				gr_json_object_flat(&j);
				gr_json_kv_str(&j, "path", t[i].path);
				gr_json_kv_str(&j, "host", t[i].host);
				gr_json_kv_i64(&j, "shift_ns", t[i].shift_ns);
				gr_json_kv_bool(&j, "aligned", t[i].anchored || !i);
				gr_json_object_end(&j);
			}
			gr_json_array_end(&j);
		}
	}
	gr_json_kv_bool(&j, "complete", gr_model_integrity(m)->complete);
	gr_json_kv_u64(&j, "lost_events", gr_model_lost_events(m));
	gr_json_kv_u64(&j, "lost_stacks", gr_model_lost_stacks(m));
	ended_abruptly(&j, m);
	gr_json_kv_u64(&j, "launches", in->events[GR_INFO_EV_LAUNCH]);
	gr_json_key(&j, "events_by_kind");
	gr_json_object_flat(&j);
	for (unsigned e = 0; e < GR_INFO_NEVENTS; e++)
		gr_json_kv_u64(&j, gr_info_event_names[e], in->events[e]);
	gr_json_object_end(&j);
	gr_json_key(&j, "records_by_kind");
	gr_json_object_flat(&j);
	for (uint16_t k = 0; k < schema->nkinds; k++)
		if (gr_model_has_kind(m, schema->kinds[k].id))
			gr_json_kv_u64(&j, schema->kinds[k].name,
				       gr_model_record_count(m, schema->kinds[k].id));
	gr_json_object_end(&j);
	header(&j, m);
	session(&j, in, m);
	libs = gr_model_libraries(m, &n);
	gr_json_key(&j, "cuda_libraries");
	gr_json_array(&j);
	for (size_t i = 0; i < n; i++)
		gr_json_str(&j, libs[i]);
	gr_json_array_end(&j);
	libs = gr_model_unprobed_libraries(m, &n);
	gr_json_key(&j, "unprobed_libraries");
	gr_json_array(&j);
	for (size_t i = 0; i < n; i++)
		gr_json_str(&j, libs[i]);
	gr_json_array_end(&j);
	pythons(&j, m);
	kernels(&j, in, m);
	sum_list(&j, "copies", in->copies, GR_INFO_COPY_KINDS, 1);
	gr_json_key(&j, "memsets");
	gr_json_object_flat(&j);
	gr_json_kv_u64(&j, "count", in->memsets.count);
	gr_json_kv_u64(&j, "bytes", in->memsets.bytes);
	gr_json_kv_u64(&j, "dur_ns", in->memsets.dur);
	gr_json_object_end(&j);
	sum_list(&j, "syncs", in->syncs, GR_INFO_SYNC_KINDS, 0);
	sum_list(&j, "allocations", in->allocs, GR_INFO_ALLOC_KINDS, 1);
	gr_json_kv_u64(&j, "frees", in->frees.count);
	memory(&j, &in->memory);
	sum_list(&j, "graphs", in->graphs, GR_INFO_GRAPH_KINDS, 0);
	graph_executed(&j, gr_graphs_summary(in->launches.graphs));
	outcomes(&j, in, m);
	blocked(&j, in);
	nvtx(&j, in);
	procs(&j, in, m);
	streams(&j, in, m);
	losses(&j, m);
	gr_damage_json(&j, m);
	gr_json_object_end(&j);
	return gr_json_end(&j);
}
