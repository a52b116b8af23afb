/* SPDX-License-Identifier: MIT */
/*
 * gr_info_write_text(): `gpurec info` for people, from a struct gr_info and the model's
 * metadata. Times, sizes and positions in the recording read as units.h writes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analyze/model/damage.h"
#include "analyze/util/text.h"
#include "analyze/util/units.h"
#include "info.h"

/* @ts relative to the start of the recording, in ns (negative before it). */
static double rel_ns(const struct gr_model *m, uint64_t ts)
{
	uint64_t first;

	gr_model_time_span(m, &first, NULL);
	return ts >= first ? (double)(ts - first) : -(double)(first - ts);
}

static void integrity(FILE *f, const struct gr_integrity *ig)
{
	if (ig->complete) {
		fprintf(f, "integrity: complete\n");
		return;
	}
	fprintf(f, "integrity: recovered %" PRIu64 " chunks, %" PRIu64 " bad", ig->chunks_ok,
		ig->chunks_bad);
	if (ig->chunks_repeated)
		fprintf(f, " (%" PRIu64 " repeated)", ig->chunks_repeated);
	if (ig->chunks_out_of_order)
		fprintf(f, ", %" PRIu64 " out of order", ig->chunks_out_of_order);
	if (ig->first_problem.err)
		fprintf(f, ", first problem at offset %" PRIu64 ": %s", ig->first_problem.offset,
			ig->first_problem.reason[0] ? GR_TEXT(ig->first_problem.reason)
						    : gr_strerror(ig->first_problem.err));
	else if (!ig->footer_present)
		fprintf(f, ", no footer (the recording did not finish)");
	if (ig->bytes_unread)
		fprintf(f, "; %" PRIu64 " bytes unread at the end", ig->bytes_unread);
	fprintf(f, "; the figures above are lower bounds\n");
}

/* What the SESSION fact GR_SESS_MMAP_HOOK's value implies (record/mmap_hook.h). */
static const char *mmap_hook_note(uint64_t hook)
{
	switch (hook) {
	case 0: /* fexit on the mmap system call: every mmap, at no cost elsewhere */
		return "";
	case 1:
		return " (it ran at every system call of the machine)";
	case 2:
		return " (fexit unavailable; code mapped without the loader is not seen)";
	}
	return "";
}

static void header(FILE *f, const struct gr_info *in, const struct gr_model *m, const char *path)
{
	const struct gr_trace_header *h = gr_model_header(m);
	const char *text;
	const char *const *libs;
	struct gr_damage damage;
	char buf[64];
	size_t n;
	uint64_t v;

	const struct gr_model_trace *set = gr_model_traces(m, &n);

	gr_units_bytes(buf, sizeof(buf), gr_model_integrity(m)->file_bytes);
	fprintf(f, "%s: gpurec trace, format %u.%u, %s\n", GR_TEXT(path), h->major, h->minor, buf);
	/* several traces as one job: the header below is the first one's */
	for (size_t k = 0; k < n; k++)
		fprintf(
		    f,
		    "  trace %zu      %s (host %s, clock %+.3f ms%s; its pids shown + %zu x %u)\n",
		    k, GR_TEXT(set[k].path), GR_TEXT(set[k].host), set[k].shift_ns / 1e6,
		    set[k].anchored || !k ? "" : ", not aligned", k, GR_MODEL_SET_PIDS);
	/* a command line has no length limit: escaped whole, never cut at a buffer's end */
	fputs("  command      ", f);
	gr_text_fputs(h->cmdline, f);
	fputc('\n', f);
	fprintf(f, "  host         %s, kernel %s\n", GR_TEXT(h->host), GR_TEXT(h->kernel));
	fprintf(f, "  recorded by  gpurec %s\n", GR_TEXT(h->tool_version));
	if (h->clock_realtime_ns) {
		time_t t = (time_t)(h->clock_realtime_ns / 1000000000u);
		struct tm tm;

		if (localtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm))
			fprintf(f, "  started      %s\n", buf);
	}
	fprintf(f, "  duration     %s", gr_units_s(buf, sizeof(buf), (double)in->duration_ns));
	/* what recording cost the machine beside what it recorded */
	if (gr_model_session(m, GR_SESS_RECORDER_CPU, &v, NULL))
		fprintf(f, " (recorder CPU %s, user + sys)",
			gr_units_s(buf, sizeof(buf), (double)v));
	fprintf(f, "\n");
	if (gr_model_session(m, GR_SESS_EXIT_STATUS, &v, NULL))
		fprintf(f, "  exit status  %" PRIu64 "\n", v);
	if (in->stop_reason)
		fprintf(f, "  stopped by   %s\n", GR_TEXT(in->stop_reason));
	if (gr_model_session(m, GR_SESS_CALL_GRAPH, NULL, &text) && *text)
		fprintf(f, "  call graph   %s\n", GR_TEXT(text));
	if (gr_model_session(m, GR_SESS_MMAP_HOOK, &v, &text) && *text)
		fprintf(f, "  mappings     seen by %s%s\n", GR_TEXT(text), mmap_hook_note(v));
	if (gr_model_session(m, GR_SESS_ATTACHED, &v, NULL) && v)
		fprintf(f, "  attached     yes (-p: calls made before the attach are missing)\n");
	if (gr_model_session(m, GR_SESS_UNTRACED, &v, NULL) && v)
		fprintf(f,
			"  untraced     %" PRIu64 " privileged programs (setuid, setgid, file "
			"capabilities)\n",
			v);
	if (gr_model_session(m, GR_SESS_CUPTI, &v, &text)) {
		/* rows and losses of every trace of a set; the reason, the first trace's */
		uint64_t lost = gr_model_session_sum(m, GR_SESS_CUPTI_DROPPED);
		const char *why = NULL;

		gr_model_session(m, GR_SESS_CUPTI_DROPPED, NULL, &why);
		if (v)
			fprintf(f,
				"  GPU times    %" PRIu64
				" GPU rows, measured by CUPTI (--cupti); %" PRIu64 " lost%s%s%s\n",
				gr_model_record_count(m, GR_K_GPU), lost, lost ? " (" : "",
				lost && why ? GR_TEXT(why) : "", lost ? ")" : "");
		else
			fprintf(f, "  GPU times    not recorded (--cupti: %s)\n", GR_TEXT(text));
	}
	libs = gr_model_libraries(m, &n);
	gr_damage_of(m, &damage);
	if (!n && damage.libraries_lost)
		fprintf(f, "  CUDA libs    unknown: their names were lost with the damage\n");
	else if (!n && damage.damaged)
		fprintf(f, "  CUDA libs    none in the part of the damaged file that was kept\n");
	else if (!n)
		fprintf(f,
			"  CUDA libs    none seen: no CUDA library was loaded while recording\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-12s %s\n", i ? "" : "CUDA libs", GR_TEXT(libs[i]));
	libs = gr_model_unprobed_libraries(m, &n);
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"  %-12s %s (carries its own CUDA runtime: its internal CUDA calls are not "
			"seen, only its calls into the probed libcudart/libcuda)\n",
			i ? "" : "not probed", GR_TEXT(libs[i]));
	{
		const struct gr_python *py = gr_model_pythons(m, &n);

		for (size_t i = 0; i < n; i++)
			fprintf(f, "  %-12s pid %" PRIu32 ": %s%s\n", i ? "" : "python", py[i].pid,
				GR_TEXT(py[i].text),
				strstr(py[i].text, GR_PYTHON_NOT_READ) ? "" : ", frames read");
	}
}

static void counts(FILE *f, const struct gr_info *in, const struct gr_model *m)
{
	const struct gr_schema *schema = gr_events_schema();
	int col = 0;

	fprintf(f, "\nevents\n");
	for (unsigned e = 0; e < GR_INFO_NEVENTS; e++)
		fprintf(f, "  %-8s %12" PRIu64 "%s\n", gr_info_event_names[e], in->events[e],
			e == GR_INFO_EV_STACK ? "  (events with a stack)" : "");
	fprintf(f, "records\n ");
	for (uint16_t k = 0; k < schema->nkinds; k++) {
		uint16_t id = schema->kinds[k].id;

		/* the event kinds are listed above */
		if (id == GR_K_LAUNCH || id == GR_K_COPY || id == GR_K_MEMSET || id == GR_K_ALLOC ||
		    id == GR_K_FREE || id == GR_K_SYNC || id == GR_K_SCHED || id == GR_K_GRAPH)
			continue;
		/* a kind newer than the file is not "0 records" of it */
		if (!gr_model_has_kind(m, id))
			continue;
		col +=
		    fprintf(f, " %s %" PRIu64, schema->kinds[k].name, gr_model_record_count(m, id));
		if (col > 80) {
			fprintf(f, "\n ");
			col = 0;
		}
	}
	fprintf(f, "\n");
}

static void kernels(FILE *f, const struct gr_info *in, const struct gr_model *m)
{
	const struct gr_launch_stats *s = &in->launches;
	const char *const *names = gr_model_kernel_names(m, NULL);
	const struct gr_config *cfg = gr_model_configs(m, NULL);
	uint64_t total = in->events[GR_INFO_EV_LAUNCH];

	if (!s->nkernels)
		return;
	if (gr_graphs_any(s->graphs)) {
		const struct gr_graphs_summary *g = gr_graphs_summary(s->graphs);

		fprintf(f,
			"\ngraphs: %" PRIu64 " graph launches executed %" PRIu64
			" kernels; %" PRIu64 " launches were graph nodes (captured or added), not "
			"executions\n",
			g->graph_launches, g->kernels_executed, g->node_launches);
		if (g->mem_launches || g->hosts_executed || g->events_executed) {
			uint64_t copies = 0;

			for (unsigned d = 0; d < GR_GRAPHS_COPY_KINDS; d++)
				copies += g->copies_executed[d];
			fprintf(f,
				"  and %" PRIu64 " copies, %" PRIu64 " memsets, %" PRIu64
				" host function nodes, %" PRIu64 " event record/wait nodes\n",
				copies, g->memsets_executed, g->hosts_executed, g->events_executed);
		}
		if (g->unknown_launches)
			fprintf(f,
				"  %" PRIu64 " graph launches of graphs instantiated before the "
				"recording: what they executed is unknown\n",
				g->unknown_launches);
	}
	fprintf(f, "\nkernels: %zu distinct\n  %10s %7s  %s\n", s->nkernels, "launches", "share",
		"name / grid block shared-mem: launches");
	for (size_t i = 0; i < s->nkernels; i++) {
		uint32_t name_id = s->kernel_order[i];
		const struct gr_launch_kernel *k = &s->kernels[name_id];

		fprintf(f, "  %10" PRIu64 " %6.1f%%  %s", k->count,
			total ? 100.0 * (double)k->count / (double)total : 0.0,
			GR_TEXT(names[name_id]));
		/* with graphs, launch calls and kernels executed differ (docs/INFO.md) */
		if (gr_graphs_any(s->graphs))
			fprintf(f, "  [executed %" PRIu64 "]", k->executed);
		fputc('\n', f);
		for (uint32_t c = 0; c < k->npairs; c++) {
			const struct gr_launch_pair *p = &s->pairs[in->pair_order[k->first + c]];
			const struct gr_config *g = &cfg[p->config];

			fprintf(f, "  %10s %7s    (%u,%u,%u) (%u,%u,%u) %u", "", "", g->grid[0],
				g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2],
				g->shmem);
			if (gr_config_has_cluster(g))
				fprintf(f, " cluster (%u,%u,%u)", g->cluster[0], g->cluster[1],
					g->cluster[2]);
			fprintf(f, ": %" PRIu64 "\n", p->count);
		}
	}
}

/* Device memory per process: the peak and what was outstanding at the end, with the site holding
 * most of it (docs/REPORTS.md, "7. Device memory"). */
static void memory(FILE *f, const struct gr_memory *mem, const struct gr_model *m)
{
	char b1[GR_UNITS_LEN], b2[GR_UNITS_LEN], s1[GR_FRAME_TEXT];
	uint64_t first, last;

	if (!mem->any)
		return;
	fprintf(f, "\ndevice memory\n");
	if (!mem->judged) {
		fprintf(f,
			"  not judged: every one of the %" PRIu64
			" allocation calls failed; nothing was live\n",
			mem->failures_total);
		return;
	}
	gr_model_time_span(m, &first, &last);
	for (size_t k = 0; k < mem->nprocs; k++) {
		const struct gr_memory_proc *p = &mem->procs[k];

		char dev[32] = "";

		/* the device is named only where the process used more than one */
		if ((k && mem->procs[k - 1].pid == p->pid) ||
		    (k + 1 < mem->nprocs && mem->procs[k + 1].pid == p->pid))
			snprintf(dev, sizeof(dev), " device %u", p->device);
		fprintf(f,
			"  pid %u%s: peak %s at %.3f s; outstanding at the end %s in %" PRIu64
			" allocation%s\n",
			p->pid, dev, gr_units_bytes(b1, sizeof(b1), (double)p->peak_bytes),
			p->peak_bytes ? (p->peak_ts - first) / 1e9 : 0.0,
			gr_units_bytes(b2, sizeof(b2), (double)p->end_bytes), p->end_count,
			p->end_count == 1 ? "" : "s");
		if (p->nend_sites)
			fprintf(f, "    most from %s\n",
				GR_TEXT(gr_memory_site_text(mem, p->end_sites[0].site, s1,
							    sizeof(s1))));
	}
	if (mem->failures_total)
		fprintf(f,
			"  %" PRIu64
			" allocation call%s failed ('gpurec report' shows what was live)\n",
			mem->failures_total, mem->failures_total == 1 ? "" : "s");
}

static void sums(FILE *f, const char *title, const struct gr_info_sum *s, unsigned n, int bytes)
{
	int any = 0;
	char buf[GR_UNITS_LEN], t[GR_UNITS_LEN];

	for (unsigned i = 0; i < n; i++) {
		if (!s[i].count)
			continue;
		if (!any++)
			fprintf(f, "\n%s\n", title);
		fprintf(f, "  %-18s %10" PRIu64 " calls", s[i].kind, s[i].count);
		if (bytes) {
			gr_units_bytes(buf, sizeof(buf), s[i].bytes);
			fprintf(f, " %12s", buf);
		}
		fprintf(f, " %12s in the API\n", gr_units_ns(t, sizeof(t), (double)s[i].dur));
	}
}

static void procs(FILE *f, const struct gr_info *in, const struct gr_model *m)
{
	size_t np, nt;
	const struct gr_process *p = gr_model_processes(m, &np);
	const struct gr_thread *t = gr_model_threads(m, &nt);

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
		fprintf(f, "  %8u %8u %-16s %10" PRIu64 "  %s", p[i].pid, p[i].ppid,
			GR_TEXT(p[i].comm), in->launches.process_launches[i], exit_buf);
		/* from the launcher's environment, when it set any */
		if (p[i].rank_env)
			fprintf(f, "  (%s)", GR_TEXT(p[i].rank_env));
		fprintf(f, "\n");
	}
	fprintf(f, "threads\n  %8s %8s %-16s %10s\n", "pid", "tid", "comm", "launches");
	for (size_t k = 0; k < nt; k++) {
		uint32_t i = in->thread_order[k];

		fprintf(f, "  %8u %8u %-16s %10" PRIu64 "\n", t[i].pid, t[i].tid,
			GR_TEXT(t[i].comm), in->launches.thread_launches[i]);
	}
}

/* Calls still inside when their thread exited or the recording stopped: what a hung job's user
 * looks for first. */
static void in_flight(FILE *f, const struct gr_info *in, const struct gr_model *m)
{
	const struct gr_outcome *o = &in->outcome;
	char at[GR_UNITS_LEN], line[256];

	for (size_t i = 0; i < o->nin_flight; i++) {
		const struct gr_aside *a = o->in_flight[i];

		fprintf(f, "IN FLIGHT: %s (entered at %s)\n",
			GR_TEXT(gr_outcome_in_flight_text(m, a, line, sizeof(line))),
			gr_units_s(at, sizeof(at), rel_ns(m, a->ts)));
	}
	if (o->nin_flight)
		fprintf(f, "\n");
}

/* Failed calls by API and error, and calls made inside other recorded calls. */
static void outcomes(FILE *f, const struct gr_info *in, const struct gr_model *m)
{
	const struct gr_outcome *o = &in->outcome;
	char a[GR_UNITS_LEN], b[GR_UNITS_LEN], num[64], d[GR_UNITS_LEN];

	if (o->failed) {
		fprintf(f, "\nfailed calls: %" PRIu64 " of %" PRIu64 " calls whose status is known",
			o->failed, o->failed + o->ok);
		if (o->cause)
			fprintf(f, " (likely cause: %s)", o->cause);
		fprintf(f, "\n  %-28s %-34s %8s %10s %10s\n", "api", "error", "calls", "first",
			"last");
		for (size_t i = 0; i < o->nerrors; i++) {
			const struct gr_outcome_error *e = &o->errors[i];

			fprintf(f, "  %-28s %-34s %8" PRIu64 " %10s %10s\n", gr_api_name(e->api),
				gr_outcome_error_text(e, num, sizeof(num)), e->count,
				gr_units_s(a, sizeof(a), rel_ns(m, e->first_ts)),
				gr_units_s(b, sizeof(b), rel_ns(m, e->last_ts)));
		}
	}
	if (o->unknown && in->launches.nlaunches && (o->failed || o->ok))
		fprintf(f, "  launches recorded at entry have no status (record with --launch-time "
			   "to keep it)\n");
	if (o->ninner) {
		fprintf(f, "\ninner calls (made inside another recorded call; their time is the "
			   "outer call's)\n");
		for (size_t i = 0; i < o->ninner; i++)
			fprintf(f, "  %-28s %8" PRIu64 " calls %12s\n",
				gr_api_name(o->inner[i].api), o->inner[i].count,
				gr_units_ns(d, sizeof(d), (double)o->inner[i].ns));
	}
}

static void losses(FILE *f, const struct gr_model *m, const struct gr_info *in)
{
	size_t n;
	const struct gr_loss *l = gr_model_losses(m, &n);
	char at[GR_UNITS_LEN];
	uint64_t last, missing = in->blocked.switches_missing;
	int abrupt = gr_model_ended_abruptly(m, &last);

	if (!gr_model_lost_events(m) && !n && !abrupt && !missing) {
		fprintf(f, "\nlosses: none\n");
		return;
	}
	fprintf(f, "\nlosses: %" PRIu64 " events lost", gr_model_lost_events(m));
	if (gr_model_lost_stacks(m))
		fprintf(f, ", %" PRIu64 " events kept without their stack",
			gr_model_lost_stacks(m));
	fprintf(f, "\n");
	/* no counter saw these: the threads' own sequences say so */
	if (missing)
		fprintf(f,
			"  %-14s %10" PRIu64
			" switches  not recorded, by the threads' own sequences "
			"(the states before them: unknown)\n",
			"sched", missing);
	if (abrupt) {
		gr_units_s(at, sizeof(at), rel_ns(m, last));
		fprintf(f,
			"  recording ended abruptly at %s: events after %s are not in the file\n",
			at, at);
	}
	/* us resolution: a loss interval is often shorter than the ms of gr_units_s() */
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-14s %10" PRIu64 " %s  %.6f s .. %.6f s\n",
			gr_loss_source_name(l[i].source), l[i].count,
			gr_loss_stack_only(l[i].source) ? "stacks" : "events",
			rel_ns(m, l[i].ts) / 1e9, rel_ns(m, l[i].ts_end) / 1e9);
}

/* The blocked spans of the traced threads by reason (struct gr_info_blocked). */
static void blocked(FILE *f, const struct gr_info *in)
{
	static const char *const labels[GR_WAIT_NCLASSES] = {
	    [GR_WAIT_NONE] = "page fault/none", [GR_WAIT_FUTEX] = "futex",
	    [GR_WAIT_FD] = "fd read/write",	[GR_WAIT_POLL] = "poll/epoll/select",
	    [GR_WAIT_SLEEP] = "sleep",		[GR_WAIT_CHILD] = "child wait",
	    [GR_WAIT_OTHER] = "other"};
	const struct gr_info_blocked *b = &in->blocked;
	const char *sep;

	if (!b->total)
		return;
	fprintf(f, "\nblocked  %" PRIu64 " switch-outs of traced threads while sleeping%s\n",
		b->total, b->known ? "" : " (why: not recorded, a trace older than format 1.2)");
	/* the spans as the reports name them, then the calls the switch-outs were in */
	fprintf(f, "  %-18s %10" PRIu64, "spans by reason", b->spans);
	sep = "  ";
	for (unsigned r = 0; r < GR_BLOCK_NREASONS; r++) {
		if (!b->spans_by_reason[r])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, gr_block_reason_name(r), b->spans_by_reason[r]);
		sep = ", ";
	}
	fprintf(f, "\n");
	if (!b->known)
		return;
	for (unsigned c = 0; c < GR_WAIT_NCLASSES; c++) {
		if (!b->by_class[c])
			continue;
		fprintf(f, "  %-18s %10" PRIu64, labels[c], b->by_class[c]);
		sep = "  ";
		if (c == GR_WAIT_FD)
			for (unsigned k = 0; k <= GR_FD_OTHER; k++) {
				if (!b->fd_by_kind[k])
					continue;
				fprintf(f, "%s%s %" PRIu64, sep, gr_fd_kind_name(k),
					b->fd_by_kind[k]);
				sep = ", ";
			}
		if (c == GR_WAIT_OTHER) {
			for (unsigned i = 0; i < b->nother; i++) {
				const char *name = gr_syscall_name(b->other[i].nr);

				if (name)
					fprintf(f, "%s%s %" PRIu64, sep, name, b->other[i].count);
				else
					fprintf(f, "%ssyscall %d %" PRIu64, sep,
						(int)b->other[i].nr, b->other[i].count);
				sep = ", ";
			}
			if (b->more)
				fprintf(f, "%smore %" PRIu64, sep, b->more);
		}
		fprintf(f, "\n");
	}
}

/* The program's NVTX calls by op (struct gr_info_nvtx), when it made any. */
static void nvtx(FILE *f, const struct gr_info *in)
{
	const struct gr_info_nvtx *nv = &in->nvtx;
	const char *sep = "  ";

	if (!nv->total)
		return;
	fprintf(f, "\nnvtx     %" PRIu64 " calls of the program's NVTX\n  %-18s", nv->total,
		"by call");
	for (unsigned op = 0; op < GR_NVTX_OP_COUNT; op++) {
		if (!nv->by_op[op])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, gr_nvtx_op_name(op), nv->by_op[op]);
		sep = ", ";
	}
	fprintf(f, "\n");
}

int gr_info_write_text(FILE *f, const struct gr_info *in, const struct gr_model *m,
		       const char *path)
{
	in_flight(f, in, m);
	header(f, in, m, path);
	counts(f, in, m);
	kernels(f, in, m);
	sums(f, "copies", in->copies, GR_INFO_COPY_KINDS, 1);
	if (in->memsets.count) {
		char buf[GR_UNITS_LEN], t[GR_UNITS_LEN];

		gr_units_bytes(buf, sizeof(buf), in->memsets.bytes);
		fprintf(f, "\nmemsets\n  %-18s %10" PRIu64 " calls %12s %12s in the API\n",
			in->memsets.kind, in->memsets.count, buf,
			gr_units_ns(t, sizeof(t), (double)in->memsets.dur));
	}
	sums(f, "syncs", in->syncs, GR_INFO_SYNC_KINDS, 0);
	sums(f, "allocations", in->allocs, GR_INFO_ALLOC_KINDS, 1);
	memory(f, &in->memory, m);
	sums(f, "graphs", in->graphs, GR_INFO_GRAPH_KINDS, 0);
	outcomes(f, in, m);
	blocked(f, in);
	nvtx(f, in);
	procs(f, in, m);
	losses(f, m, in);
	fprintf(f, "\n");
	integrity(f, gr_model_integrity(m));
	return fflush(f) || ferror(f) ? -EIO : 0;
}
