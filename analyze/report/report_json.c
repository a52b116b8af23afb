/* SPDX-License-Identifier: MIT */
/*
 * The report as JSON, the stable schema of docs/REPORTS.md ("schema": "gpurec-report/2"). Every
 * section has "level" ("problem", "ok", "none") and "verdict"; times are integer ns, shares are
 * fractions (0.25 = 25%), bandwidths bytes per second. Lists are ranked as in report.h; with a
 * top N each ranked list keeps N entries and "<list>_total" gives the full count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "analyze/model/damage.h"
#include "analyze/util/json.h"
#include "report.h"
#include "report_sections.h"

static const char *level_name(enum gr_verdict_level l)
{
	return l == GR_VERDICT_PROBLEM ? "problem" : l == GR_VERDICT_OK ? "ok" : "none";
}

static size_t cap(size_t n, unsigned top)
{
	return top && n > top ? top : n;
}

static void verdict(struct gr_json *j, const struct gr_verdict *v)
{
	gr_json_kv_str(j, "level", level_name(v->level));
	gr_json_kv_str(j, "verdict", v->text ? v->text : "");
}

static void dist(struct gr_json *j, const char *key, const struct gr_dist *d)
{
	gr_json_key(j, key);
	if (!d->count) {
		gr_json_null(j);
		return;
	}
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "count", d->count);
	gr_json_kv_u64(j, "total_ns", d->total);
	gr_json_kv_u64(j, "min_ns", d->min);
	gr_json_kv_u64(j, "median_ns", d->median);
	gr_json_kv_u64(j, "p99_ns", d->p99);
	gr_json_kv_u64(j, "max_ns", d->max);
	gr_json_object_end(j);
}

/*
 * A site's frames as strings under @key, and, in a trace with Python frames, as objects under
 * @objects_key (frames.h: gr_frame_json()); traces without them read as before. Caller first,
 * as every stack gpurec prints: the outermost frame first, the one that made the call last.
 */
static void frames(struct gr_json *j, const struct gr_report *r, const char *key,
		   const char *objects_key, const struct gr_report_site *s)
{
	gr_json_key(j, key);
	gr_json_array(j);
	for (uint32_t i = s->nframes; i-- > 0;)
		gr_json_str(j, s->frames[i]);
	gr_json_array_end(j);
	if (!r->python)
		return;
	gr_json_key(j, objects_key);
	gr_json_array(j);
	for (uint32_t i = s->nframes; i-- > 0;)
		gr_frame_json(j, &s->desc[i]);
	gr_json_array_end(j);
}

/* {pid, tid, comm} of model thread @t, and nvtx_name when the program named it with NVTX. */
static void thread_id(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		      uint32_t t)
{
	size_t n;
	const struct gr_thread *th = gr_model_threads(m, &n);
	const char *nvtx;

	if (t >= n) {
		gr_json_null(j);
		return;
	}
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "pid", th[t].pid);
	gr_json_kv_u64(j, "tid", th[t].tid);
	gr_json_kv_str(j, "comm", th[t].comm);
	nvtx = gr_nvtx_thread_name(&r->nvtx.set, th[t].pid, th[t].tid);
	if (nvtx)
		gr_json_kv_str(j, "nvtx_name", nvtx);
	gr_json_object_end(j);
}

static void rates(struct gr_json *j, const char *key, const struct gr_report_rate *v, size_t n,
		  unsigned top, int what)
{
	char total[64];

	snprintf(total, sizeof(total), "%s_total", key);
	gr_json_kv_u64(j, total, n);
	gr_json_key(j, key);
	gr_json_array(j);
	for (size_t i = 0; i < cap(n, top); i++) {
		gr_json_object(j);
		gr_json_kv_u64(j, "pid", v[i].pid);
		if (what == 0)
			gr_json_kv_u64(j, "tid", v[i].tid);
		if (what == 2) {
			gr_json_kv_u64(j, "stream", v[i].handle);
			if (v[i].per_thread) {
				gr_json_kv_bool(j, "per_thread", 1);
				gr_json_kv_u64(j, "tid", v[i].tid);
			}
		} else
			gr_json_kv_str(j, "comm", v[i].comm);
		if (v[i].nvtx_name)
			gr_json_kv_str(j, "nvtx_name", v[i].nvtx_name);
		gr_json_kv_u64(j, "count", v[i].count);
		gr_json_kv_double(j, "share", v[i].share);
		gr_json_kv_double(j, "per_second", v[i].per_second);
		gr_json_kv_u64(j, "first_ts", v[i].first_ts);
		gr_json_kv_u64(j, "last_ts", v[i].last_ts);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void launch_sites(struct gr_json *j, const struct gr_report_launches *L,
			 const struct gr_model *m, unsigned top)
{
	const struct gr_launch_sites *S = &L->sites;
	const char *const *names = gr_model_kernel_names(m, NULL);
	char fb[GR_FRAME_TEXT];

	gr_json_key(j, "launch_sites");
	gr_json_object(j);
	gr_json_kv_u64(j, "total", S->n);
	gr_json_kv_u64(j, "without_site", S->without_site);
	gr_json_key(j, "sites");
	gr_json_array(j);
	for (size_t i = 0; i < cap(S->n, top); i++) {
		const struct gr_launch_site *s = &S->v[i];

		gr_json_object(j);
		gr_json_kv_str(j, "site", gr_frame_format(&s->frame, fb, sizeof(fb)));
		gr_json_kv_u64(j, "launches", s->launches);
		gr_json_kv_double(j, "share",
				  L->total ? (double)s->launches / (double)L->total : 0);
		gr_json_key(j, "frame");
		gr_frame_json(j, &s->frame);
		gr_json_key(j, "launcher");
		if (s->launcher.value)
			gr_frame_json(j, &s->launcher);
		else
			gr_json_null(j);
		gr_json_key(j, "kernels");
		gr_json_array(j);
		for (size_t k = 0; k < s->nkernels; k++) {
			gr_json_object_flat(j);
			gr_json_kv_str(j, "name", names[s->kernels[k].name_id]);
			gr_json_kv_u64(j, "count", s->kernels[k].count);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

/* The loops found on the iteration's thread (docs/REPORTS.md): "phases", in time order, the
 * chosen one marked, "phases_found" (the list keeps the largest GR_REPORT_MAX_PHASES) and
 * "chosen_because". */
static void phases(struct gr_json *j, const struct gr_report_iteration *it)
{
	static const char *const why[] = {
	    [GR_PHASE_ONLY] = "only_loop",
	    [GR_PHASE_MOST_CALLS] = "most_calls",
	    [GR_PHASE_SHORTER_PERIOD] = "shorter_period",
	    [GR_PHASE_RARER_ANCHOR] = "found_first",
	    [GR_PHASE_STEP] = "step_option",
	    [GR_PHASE_NVTX] = "nvtx_range",
	};

	gr_json_kv_str(j, "chosen_because", why[it->why]);
	gr_json_kv_u64(j, "phases_found", it->nphases_found);
	gr_json_key(j, "phases");
	gr_json_array(j);
	for (size_t i = 0; i < it->nphases; i++) {
		const struct gr_report_phase *ph = &it->phases[i];

		gr_json_object_flat(j);
		gr_json_kv_u64(j, "start_ts", ph->start_ts);
		gr_json_kv_u64(j, "end_ts", ph->end_ts);
		gr_json_kv_u64(j, "count", ph->count);
		gr_json_kv_u64(j, "calls", ph->calls);
		gr_json_kv_u64(j, "launches", ph->launches);
		gr_json_kv_bool(j, "chosen", ph->chosen);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void launches(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		     unsigned top)
{
	const struct gr_report_launches *L = &r->launches;
	const struct gr_report_iteration *it = &L->iter;

	gr_json_key(j, "launches");
	gr_json_object(j);
	verdict(j, &L->verdict);
	gr_json_kv_u64(j, "total", L->total);
	gr_json_kv_u64(j, "executed", L->executed);
	gr_json_kv_u64(j, "graph_launches", L->graph_launches);
	gr_json_kv_u64(j, "node_launches", L->node_launches);
	gr_json_kv_double(j, "per_second", L->per_second);
	gr_json_kv_u64(j, "first_ts", L->first_ts);
	gr_json_kv_u64(j, "last_ts", L->last_ts);
	gr_json_kv_bool(j, "api_measured", L->api_measured);
	gr_json_kv_u64(j, "launch_cost_ns", L->launch_cost_ns);
	gr_json_kv_u64(j, "launch_cost_samples", L->launch_cost_samples);
	gr_json_kv_u64(j, "graph_launch_cost_samples", L->graph_launch_cost_samples);
	/* "sampled" / "all": the median of the timed launches; "estimated": from gaps */
	gr_json_kv_str(j, "launch_cost_source",
		       !L->api_measured			     ? "estimated"
		       : L->timing == GR_REPORT_TIMED_SAMPLE ? "sampled"
							     : "all");
	gr_json_key(j, "launch_timing");
	gr_json_object(j);
	gr_json_kv_str(j, "mode",
		       L->timing == GR_REPORT_TIMED_ALL	     ? "all"
		       : L->timing == GR_REPORT_TIMED_SAMPLE ? "sampled"
							     : "none");
	gr_json_kv_bool(j, "recorded", L->timing_known); /* false: an older trace, inferred */
	gr_json_kv_u64(j, "sample_period", L->sample_period);
	gr_json_kv_str(j, "why_none", L->timing_why ? L->timing_why : "");
	gr_json_object_end(j);
	gr_json_kv_double(j, "launch_share", L->launch_share);

	gr_json_key(j, "iteration");
	gr_json_object(j);
	gr_json_kv_bool(j, "found", it->found);
	/* --step: what named it, and how many steps started */
	if (it->step) {
		gr_json_kv_str(j, "step", it->step);
		gr_json_kv_u64(j, "step_starts", it->step_starts);
	}
	if (it->found) {
		gr_json_key(j, "thread");
		thread_id(j, r, m, it->thread);
		gr_json_kv_u64(j, "calls", it->calls);
		gr_json_kv_u64(j, "launches", it->launches);
		gr_json_kv_u64(j, "graph_launches", it->graph_launches);
		gr_json_kv_u64(j, "kernels", it->kernels);
		gr_json_kv_u64(j, "copies", it->copies);
		gr_json_kv_u64(j, "syncs", it->syncs);
		gr_json_kv_u64(j, "allocs", it->allocs);
		gr_json_kv_u64(j, "other", it->other);
		gr_json_kv_u64(j, "count", it->count);
		gr_json_kv_u64(j, "period_ns", it->period_ns);
		gr_json_kv_u64(j, "start_ts", it->start_ts);
		gr_json_kv_u64(j, "end_ts", it->end_ts);
		gr_json_kv_double(j, "match", it->match);
		phases(j, it);
	}
	gr_json_object_end(j);

	gr_json_kv_u64(j, "kernels_total", L->nkernels);
	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < cap(L->nkernels, top); i++) {
		const struct gr_report_kernel *k = &L->kernels[i];

		gr_json_object(j);
		gr_json_kv_str(j, "name", k->name);
		gr_json_kv_u64(j, "count", k->count);
		gr_json_kv_u64(j, "executed", k->executed);
		gr_json_kv_double(j, "share", k->share);
		dist(j, "api", &k->api);
		gr_json_key(j, "configs");
		gr_json_array(j);
		for (size_t c = 0; c < k->nconfigs; c++) {
			const struct gr_report_kconfig *kc = &k->configs[c];

			gr_json_object_flat(j);
			gr_json_kv_dim3(j, "grid", kc->cfg.grid);
			gr_json_kv_dim3(j, "block", kc->cfg.block);
			gr_json_key(j, "cluster");
			if (gr_config_has_cluster(&kc->cfg))
				gr_json_dim3(j, kc->cfg.cluster);
			else
				gr_json_null(j);
			gr_json_kv_u64(j, "shmem", kc->cfg.shmem);
			gr_json_kv_u64(j, "count", kc->count);
			gr_json_kv_u64(j, "blocks", kc->blocks);
			gr_json_kv_double(j, "waves", kc->waves);
			gr_json_kv_bool(j, "small", kc->small);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);

	rates(j, "processes", L->processes, L->nprocesses, top, 1);
	rates(j, "threads", L->threads, L->nthreads, top, 0);
	rates(j, "streams", L->streams, L->nstreams, top, 2);

	gr_json_key(j, "gaps");
	gr_json_array(j);
	for (size_t i = 0; i < cap(L->ngaps, top); i++) {
		const struct gr_report_gaps *g = &L->gaps[i];

		gr_json_object(j);
		gr_json_kv_u64(j, "pid", g->pid);
		gr_json_kv_u64(j, "tid", g->tid);
		gr_json_kv_str(j, "comm", g->comm);
		if (g->nvtx_name)
			gr_json_kv_str(j, "nvtx_name", g->nvtx_name);
		dist(j, "gap", &g->gap);
		gr_json_key(j, "histogram");
		gr_json_array(j);
		for (int b = 0; b < GR_REPORT_GAP_BUCKETS; b++) {
			gr_json_object_flat(j);
			gr_json_key(j, "lt_ns");
			if (b < GR_REPORT_GAP_BUCKETS - 1)
				gr_json_u64(j, gr_report_gap_edges[b]);
			else
				gr_json_null(j);
			gr_json_kv_u64(j, "count", g->hist[b]);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);

	if (r->python)
		launch_sites(j, L, m, top);

	gr_json_key(j, "slow_launches");
	gr_json_object(j);
	gr_json_kv_u64(j, "threshold_ns", L->slow_threshold_ns);
	gr_json_kv_bool(j, "measured", L->api_measured);
	gr_json_kv_bool(j, "sampled", L->timing == GR_REPORT_TIMED_SAMPLE);
	gr_json_kv_u64(j, "count", L->slow_count);
	gr_json_key(j, "sites");
	gr_json_array(j);
	for (size_t i = 0; i < cap(L->nslow, top); i++) {
		const struct gr_report_slow *s = &L->slow[i];

		gr_json_object(j);
		gr_json_kv_str(j, "name", s->name);
		gr_json_kv_u64(j, "count", s->count);
		gr_json_kv_u64(j, "total_ns", s->total_ns);
		gr_json_kv_u64(j, "max_ns", s->max_ns);
		frames(j, r, "stack", "frames", &s->site);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
	gr_json_object_end(j);
}

static void fusion(struct gr_json *j, const struct gr_report *r, unsigned top)
{
	const struct gr_report_fusion *F = &r->fusion;

	gr_json_key(j, "fusion");
	gr_json_object(j);
	verdict(j, &F->verdict);
	gr_json_kv_u64(j, "launch_cost_ns", F->launch_cost_ns);
	gr_json_kv_bool(j, "cost_measured", F->cost_measured);
	gr_json_kv_u64(j, "runs", F->runs);
	gr_json_kv_u64(j, "total_saving_ns", F->total_saving_ns);
	gr_json_kv_double(j, "saving_share", F->saving_share);
	gr_json_kv_u64(j, "candidates_total", F->ncandidates);
	gr_json_key(j, "candidates");
	gr_json_array(j);
	for (size_t i = 0; i < cap(F->ncandidates, top); i++) {
		const struct gr_report_candidate *c = &F->candidates[i];

		gr_json_object(j);
		gr_json_key(j, "kernels");
		gr_json_array(j);
		for (uint32_t k = 0; k < c->len; k++)
			gr_json_str(j, c->kernels[k].name);
		gr_json_array_end(j);
		gr_json_key(j, "configs");
		gr_json_array(j);
		for (uint32_t k = 0; k < c->len; k++) {
			gr_json_object_flat(j);
			gr_json_kv_dim3(j, "grid", c->kernels[k].cfg.grid);
			gr_json_kv_dim3(j, "block", c->kernels[k].cfg.block);
			gr_json_kv_u64(j, "shmem", c->kernels[k].cfg.shmem);
			gr_json_kv_double(j, "waves", c->kernels[k].waves);
			gr_json_kv_bool(j, "small", c->kernels[k].small);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_kv_u64(j, "length", c->len);
		gr_json_kv_u64(j, "occurrences", c->occurrences);
		gr_json_kv_u64(j, "est_saving_ns", c->est_saving_ns);
		gr_json_kv_u64(j, "small_grids", c->nsmall);
		gr_json_kv_u64(j, "pid", c->pid);
		gr_json_kv_u64(j, "stream", c->stream);
		if (c->per_thread) {
			gr_json_kv_bool(j, "per_thread", 1);
			gr_json_kv_u64(j, "stream_tid", c->stream_tid);
		}
		gr_json_kv_u64(j, "first_ts", c->first_ts);
		frames(j, r, "stack", "frames", &c->stack);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

/* "graph_executed": the copies and memsets graph launches executed, in total and per launch. */
static void graph_executed(struct gr_json *j, const struct gr_report_transfer *T)
{
	uint64_t n = T->graph_launches ? T->graph_launches : 1;

	gr_json_key(j, "graph_executed");
	gr_json_object(j);
	gr_json_kv_u64(j, "graph_launches", T->graph_launches);
	gr_json_kv_u64(j, "copies", T->graph_copies);
	gr_json_kv_u64(j, "bytes", T->graph_bytes);
	gr_json_kv_u64(j, "memsets", T->graph_memsets);
	gr_json_kv_u64(j, "memset_bytes", T->graph_memset_bytes);
	gr_json_key(j, "directions");
	gr_json_array(j);
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++) {
		const struct gr_report_direction *D = &T->dirs[d];

		if (!D->graph_count)
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "kind", D->name);
		gr_json_kv_u64(j, "count", D->graph_count);
		gr_json_kv_u64(j, "bytes", D->graph_bytes);
		gr_json_kv_double(j, "per_launch_count", (double)D->graph_count / (double)n);
		gr_json_kv_u64(j, "per_launch_bytes", D->graph_bytes / n);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_u64(j, "per_launch_memset_bytes", T->graph_memset_bytes / n);
	gr_json_object_end(j);
}

static void transfer(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		     unsigned top)
{
	const struct gr_report_transfer *T = &r->transfer;

	gr_json_key(j, "transfer");
	gr_json_object(j);
	verdict(j, &T->verdict);
	gr_json_kv_u64(j, "copies", T->copies);
	gr_json_kv_u64(j, "bytes", T->bytes);
	gr_json_kv_u64(j, "time_ns", T->copy_ns);
	gr_json_key(j, "memsets");
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "count", T->memsets);
	gr_json_kv_u64(j, "bytes", T->memset_bytes);
	gr_json_kv_u64(j, "time_ns", T->memset_ns);
	gr_json_object_end(j);
	gr_json_key(j, "syncs");
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "count", T->syncs);
	gr_json_kv_u64(j, "time_ns", T->sync_ns);
	gr_json_object_end(j);
	graph_executed(j, T);
	gr_json_key(j, "directions");
	gr_json_array(j);
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++) {
		const struct gr_report_direction *D = &T->dirs[d];

		gr_json_object(j);
		gr_json_kv_str(j, "kind", D->name);
		gr_json_kv_u64(j, "count", D->count);
		gr_json_kv_u64(j, "bytes", D->bytes);
		gr_json_kv_u64(j, "time_ns", D->time_ns);
		gr_json_kv_u64(j, "async", D->async_count);
		gr_json_key(j, "blocking");
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "count", D->blocking_count);
		gr_json_kv_u64(j, "bytes", D->blocking_bytes);
		gr_json_kv_u64(j, "time_ns", D->blocking_ns);
		gr_json_object_end(j);
		gr_json_kv_double(j, "bandwidth", D->bandwidth);
		gr_json_key(j, "sizes");
		gr_json_array(j);
		for (int b = 0; b < GR_REPORT_SIZE_BUCKETS; b++) {
			gr_json_object_flat(j);
			gr_json_key(j, "le_bytes");
			if (b < GR_REPORT_SIZE_BUCKETS - 1)
				gr_json_u64(j, gr_report_size_edges[b]);
			else
				gr_json_null(j);
			gr_json_kv_u64(j, "count", D->hist_count[b]);
			gr_json_kv_u64(j, "bytes", D->hist_bytes[b]);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_double(j, "wall_share", T->wall_share);
	gr_json_key(j, "busiest_thread");
	if (T->busiest_copy_ns)
		thread_id(j, r, m, T->busiest_thread);
	else
		gr_json_null(j);
	gr_json_kv_u64(j, "busiest_copy_ns", T->busiest_copy_ns);
	gr_json_kv_u64(j, "iteration_copy_ns", T->iter_copy_ns);
	gr_json_kv_double(j, "iteration_share", T->iter_share);
	gr_json_kv_u64(j, "loop_blocking_bytes", T->loop_blocking_bytes);
	gr_json_kv_u64(j, "loop_blocking_ns", T->loop_blocking_ns);
	gr_json_key(j, "findings");
	gr_json_array(j);
	for (size_t i = 0; i < T->nfindings; i++) {
		const struct gr_report_finding *f = &T->findings[i];

		gr_json_object(j);
		gr_json_kv_str(j, "rule", f->rule);
		gr_json_kv_u64(j, "count", f->count);
		gr_json_kv_u64(j, "bytes", f->bytes);
		gr_json_kv_u64(j, "time_ns", f->time_ns);
		gr_json_kv_double(j, "per_iteration", f->per_iteration);
		gr_json_kv_str(j, "detail", f->detail);
		gr_json_kv_u64(j, "sites_total", f->nsites);
		gr_json_key(j, "sites");
		gr_json_array(j);
		for (size_t s = 0; s < cap(f->nsites, top); s++) {
			gr_json_object(j);
			gr_json_kv_u64(j, "count", f->site_counts[s]);
			frames(j, r, "stack", "frames", &f->sites[s]);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

static void cpu(struct gr_json *j, const struct gr_report *r, unsigned top)
{
	const struct gr_report_cpu *C = &r->cpu;

	gr_json_key(j, "cpu");
	gr_json_object(j);
	verdict(j, &C->verdict);
	gr_json_kv_bool(j, "has_sched", C->has_sched);
	gr_json_kv_u64(j, "sched_events", C->sched_events);
	gr_json_kv_bool(j, "exact_culprits", C->exact_culprits);
	gr_json_kv_u64(j, "switches_missing", C->switches_missing);
	gr_json_kv_u64(j, "starved_gap_ns", C->starved_gap_ns);
	gr_json_kv_u64(j, "active_ns", C->active_ns);
	gr_json_kv_double(j, "gap_share", C->gap_share);
	gr_json_kv_u64(j, "threads_total", C->nthreads);
	gr_json_key(j, "threads");
	gr_json_array(j);
	for (size_t i = 0; i < cap(C->nthreads, top); i++) {
		const struct gr_report_cpu_thread *t = &C->threads[i];

		gr_json_object(j);
		gr_json_kv_u64(j, "pid", t->pid);
		gr_json_kv_u64(j, "tid", t->tid);
		gr_json_kv_str(j, "comm", t->comm);
		if (t->nvtx_name)
			gr_json_kv_str(j, "nvtx_name", t->nvtx_name);
		gr_json_kv_u64(j, "lifetime_ns", t->lifetime_ns);
		gr_json_kv_u64(j, "oncpu_ns", t->oncpu_ns);
		gr_json_kv_u64(j, "runnable_wait_ns", t->runnable_wait_ns);
		gr_json_kv_u64(j, "blocked_ns", t->blocked_ns);
		gr_json_kv_u64(j, "unknown_ns", t->unknown_ns);
		gr_json_kv_u64(j, "involuntary", t->involuntary);
		gr_json_kv_u64(j, "voluntary", t->voluntary);
		gr_json_kv_double(j, "starved_share", t->starved_share);
		gr_json_kv_u64(j, "active_ns", t->active_ns);
		gr_json_kv_u64(j, "active_wait_ns", t->active_wait_ns);
		gr_json_kv_double(j, "active_share", t->active_share);
		gr_json_kv_u64(j, "gaps", t->gaps);
		gr_json_kv_u64(j, "starved_gaps", t->starved_gaps);
		gr_json_kv_u64(j, "starved_gap_ns", t->starved_gap_ns);
		gr_json_key(j, "culprits");
		gr_json_array(j);
		for (size_t c = 0; c < t->nculprits; c++) {
			gr_json_object_flat(j);
			gr_json_kv_str(j, "comm", t->culprits[c].comm);
			gr_json_kv_u64(j, "ns", t->culprits[c].ns);
			gr_json_kv_u64(j, "preemptions", t->culprits[c].preemptions);
			gr_json_kv_bool(j, "recorder", t->culprits[c].recorder);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

/* "traces": the traces of a set reported as one job; absent for one trace. */
static void traces(struct gr_json *j, const struct gr_model *m)
{
	size_t n;
	const struct gr_model_trace *t = gr_model_traces(m, &n);

	gr_report_traces_json(j, t, n);
}

void gr_report_traces_json(struct gr_json *j, const struct gr_model_trace *t, size_t n)
{
	if (!n)
		return;
	gr_json_key(j, "traces");
	gr_json_array(j);
	for (size_t i = 0; i < n; i++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "path", t[i].path);
		gr_json_kv_str(j, "host", t[i].host);
		gr_json_kv_i64(j, "shift_ns", t[i].shift_ns);
		gr_json_kv_bool(j, "aligned", t[i].anchored || !i);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

/* "ranks" and "straggler": only when two or more processes launch. Times are per iteration. */
void gr_report_ranks_json(struct gr_json *j, const struct gr_report_ranks *R, unsigned top)
{
	const struct gr_report_straggler *s = &R->straggler;

	gr_json_key(j, "ranks_verdict");
	gr_json_object_flat(j);
	verdict(j, &R->verdict);
	gr_json_object_end(j);
	gr_json_key(j, "ranks");
	gr_json_array(j);
	for (size_t i = 0; i < cap(R->n, top); i++) {
		const struct gr_report_rank *k = &R->v[i];

		gr_json_object(j);
		gr_json_kv_u64(j, "pid", k->pid);
		/* several traces: which one it came from */
		if (k->host) {
			gr_json_kv_u64(j, "trace", k->trace);
			gr_json_kv_str(j, "host", k->host);
		}
		gr_json_key(j, "rank");
		if (k->rank >= 0)
			gr_json_u64(j, (uint64_t)k->rank);
		else
			gr_json_null(j);
		gr_json_kv_str(j, "comm", k->comm);
		gr_json_kv_u64(j, "iterations", k->iter.count);
		gr_json_kv_bool(j, "compared", k->concurrent);
		gr_json_kv_u64(j, "iteration_ns", k->iter.period_ns);
		gr_json_kv_u64(j, "calls_per_iteration", k->iter.calls);
		gr_json_kv_u64(j, "launches_per_iteration", k->iter.launches);
		gr_json_kv_u64(j, "host_ns", k->part_ns[GR_RANK_HOST]);
		gr_json_kv_u64(j, "launch_ns", k->part_ns[GR_RANK_LAUNCH]);
		gr_json_kv_u64(j, "copy_ns", k->part_ns[GR_RANK_COPY]);
		gr_json_kv_u64(j, "sync_ns", k->part_ns[GR_RANK_SYNC]);
		gr_json_kv_u64(j, "runnable_ns", k->part_ns[GR_RANK_RUNNABLE]);
		gr_json_kv_u64(j, "other_ns", k->part_ns[GR_RANK_OTHER]);
		gr_json_kv_u64(j, "blocked_ns", k->part_ns[GR_RANK_BLOCKED]);
		gr_json_kv_u64(j, "unknown_ns", k->part_ns[GR_RANK_UNKNOWN]);
		/* false: no scheduler record split its time outside calls, all of it unknown_ns */
		gr_json_kv_bool(j, "scheduler", k->has_states);
		gr_json_kv_double(j, "blocked_share", k->blocked_share);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	/* the pace by NVTX range: median_ns per rank in "ranks" order, null where it has none;
	 * absent without NVTX ranges in two ranks (the JSON reads as before) */
	if (R->nranges) {
		gr_json_key(j, "nvtx_pace");
		gr_json_array(j);
	}
	for (size_t i = 0; i < R->nranges; i++) {
		const struct gr_report_rank_range *g = &R->ranges[i];

		gr_json_object(j);
		gr_json_kv_str(j, "name", g->name);
		gr_json_kv_str(j, "domain", g->domain);
		gr_json_key(j, "median_ns");
		gr_json_array_flat(j);
		for (size_t k = 0; k < R->n; k++) {
			if (g->count[k])
				gr_json_u64(j, g->median_ns[k]);
			else
				gr_json_null(j);
		}
		gr_json_array_end(j);
		gr_json_key(j, "count");
		gr_json_array_flat(j);
		for (size_t k = 0; k < R->n; k++)
			gr_json_u64(j, g->count[k]);
		gr_json_array_end(j);
		gr_json_kv_u64(j, "slowest_pid", R->v[g->slowest].pid);
		gr_json_key(j, "slowest_rank");
		if (R->v[g->slowest].rank >= 0)
			gr_json_u64(j, (uint64_t)R->v[g->slowest].rank);
		else
			gr_json_null(j);
		gr_json_kv_u64(j, "slowest_ns", g->median_ns[g->slowest]);
		gr_json_kv_u64(j, "median_rank_ns", g->median_rank_ns);
		gr_json_kv_double(j, "ratio", g->ratio);
		gr_json_object_end(j);
	}
	if (R->nranges)
		gr_json_array_end(j);
	gr_json_key(j, "straggler");
	if (!s->found) {
		gr_json_null(j);
		return;
	}
	gr_json_object(j);
	gr_json_kv_u64(j, "pid", R->v[s->index].pid);
	if (R->v[s->index].host)
		gr_json_kv_u64(j, "trace", R->v[s->index].trace);
	gr_json_key(j, "rank");
	if (R->v[s->index].rank >= 0)
		gr_json_u64(j, (uint64_t)R->v[s->index].rank);
	else
		gr_json_null(j);
	gr_json_kv_double(j, "ratio", s->ratio);
	gr_json_kv_u64(j, "iteration_ns", R->v[s->index].iter.period_ns);
	gr_json_kv_u64(j, "others_ns", s->others_ns);
	gr_json_kv_str(j, "cause", gr_rank_part_name(s->cause));
	gr_json_kv_u64(j, "excess_ns", s->excess_ns);
	gr_json_object_end(j);
}

/* "calls", "errors" (with the first call's frames) and "in_flight" (with frames). */
static void comm(struct gr_json *j, const struct gr_report *r)
{
	const struct gr_report_comm *C = &r->comm;

	gr_json_key(j, "communication");
	gr_json_object(j);
	gr_json_kv_u64(j, "collectives", C->collectives);
	gr_json_kv_u64(j, "p2p", C->p2p);
	gr_json_kv_u64(j, "aside", C->aside);
	gr_json_kv_u64(j, "host_ns", C->host_ns);
	gr_json_kv_double(j, "wall_share", C->wall_share);
	gr_json_kv_double(j, "per_iteration", C->per_iteration);
	gr_json_kv_double(j, "per_second", C->per_second);
	gr_json_key(j, "kinds");
	gr_json_array(j);
	for (unsigned k = 0; k < GR_REPORT_COMM_KINDS; k++) {
		if (!C->kinds[k].calls)
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "kind", gr_comm_kind_name(k));
		gr_json_kv_u64(j, "calls", C->kinds[k].calls);
		gr_json_kv_u64(j, "bytes", C->kinds[k].bytes);
		gr_json_kv_u64(j, "host_ns", C->kinds[k].host_ns);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_u64(j, "matched", C->matched);
	gr_json_key(j, "last_to_enter");
	gr_json_array(j);
	for (size_t i = 0; i < C->nranks; i++) {
		const struct gr_report_comm_rank *k = &C->ranks[i];
		char id[24];

		snprintf(id, sizeof(id), "%016" PRIx64, k->id);
		gr_json_object_flat(j);
		gr_json_kv_str(j, "comm_id", id);
		gr_json_kv_u64(j, "nranks", k->nranks);
		gr_json_kv_u64(j, "rank", k->rank);
		gr_json_kv_u64(j, "pid", k->pid);
		gr_json_kv_u64(j, "last", k->last);
		gr_json_kv_u64(j, "mean_wait_ns", k->last ? k->wait_ns / k->last : 0);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

static void outcome(struct gr_json *j, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_report_outcome *ro = &r->outcome;
	const struct gr_outcome *o = &ro->o;
	char buf[512];

	gr_outcome_json_calls(j, o);
	gr_json_key(j, "failed_banner");
	if (gr_outcome_banner(o, buf, sizeof(buf)))
		gr_json_str(j, buf);
	else
		gr_json_null(j);
	gr_json_key(j, "errors");
	gr_json_array(j);
	for (size_t i = 0; i < o->nerrors; i++) {
		const struct gr_outcome_error *e = &o->errors[i];

		gr_json_object(j);
		gr_outcome_json_error(j, e);
		gr_json_kv_u64(j, "first_ts", e->first_ts);
		gr_json_kv_u64(j, "last_ts", e->last_ts);
		frames(j, r, "site", "site_frames", &ro->error_sites[i]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "in_flight");
	gr_json_array(j);
	for (size_t i = 0; i < o->nin_flight; i++) {
		const struct gr_aside *a = o->in_flight[i];

		gr_json_object(j);
		gr_json_kv_str(j, "api", gr_api_name(gr_aside_api(m, a)));
		gr_json_key(j, "thread");
		thread_id(j, r, m, gr_aside_thread(m, a));
		gr_json_kv_u64(j, "ts", a->ts);
		gr_json_kv_u64(j, "inside_ns", a->dur);
		gr_json_kv_bool(j, "thread_exited", (a->call & GR_CALL_EXITED) != 0);
		gr_json_kv_str(j, "until", gr_outcome_in_flight_end(m, a, buf, sizeof(buf)));
		frames(j, r, "site", "site_frames", &ro->in_flight_sites[i]);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

/* The step budget (budget.h): every budget's total_ns beside its parts. */
static void budget(struct gr_json *j, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_budgets *B = &r->budget;

	gr_json_key(j, "budget");
	gr_json_object(j);
	gr_json_kv_bool(j, "found", B->found);
	if (B->found) {
		gr_json_key(j, "thread");
		thread_id(j, r, m, B->thread);
		gr_json_kv_u64(j, "iterations", B->iterations);
		gr_json_kv_bool(j, "scheduler", B->has_states);
		gr_json_kv_u64(j, "clamped", B->clamped);
		gr_budget_json(j, "median", &B->median, 0);
		gr_budget_json(j, "p90", &B->p90, 0);
		gr_budget_json(j, "slowest", &B->slowest, 0);
		gr_budget_json(j, "mean", &B->mean, 1);
		gr_json_kv_bool(j, "reasons", B->has_reasons);
		/* who ended each reason's wait: per budget, and over the loop (the mean's) */
		gr_json_key(j, "culprits");
		gr_json_object(j);
		gr_budget_culprits_json(j, m, "median", &B->median);
		gr_budget_culprits_json(j, m, "p90", &B->p90);
		gr_budget_culprits_json(j, m, "slowest", &B->slowest);
		gr_budget_culprits_json(j, m, "loop", &B->mean);
		gr_json_object_end(j);
		/* each part's own median over the iterations: need not add up */
		gr_json_key(j, "part_medians_ns");
		gr_json_object_flat(j);
		for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
			gr_json_kv_u64(j, gr_budget_part_name(p), B->part_median_ns[p]);
		gr_json_object_end(j);
	}
	gr_json_object_end(j);
}

/* What bounds the step (report_diagnosis.c): the bound, its verdict, what would refute it, and
 * the median iteration's budget as the verdict grouped it. */
static void diagnosis(struct gr_json *j, const struct gr_report *r)
{
	const struct gr_report_diagnosis *D = &r->diagnosis;

	gr_json_key(j, "diagnosis");
	gr_json_object(j);
	gr_json_kv_str(j, "bound", gr_step_bound_name(D->bound));
	verdict(j, &D->verdict);
	gr_json_kv_str(j, "refuted_by", D->refute ? D->refute : "");
	if (D->total_ns) {
		gr_json_kv_u64(j, "iteration", D->iteration);
		gr_json_kv_u64(j, "total_ns", D->total_ns);
		gr_json_key(j, "groups_ns");
		gr_json_object_flat(j);
		for (unsigned g = 0; g < GR_NGROUPS; g++)
			gr_json_kv_u64(j, gr_step_group_name(g), D->group_ns[g]);
		gr_json_object_end(j);
		gr_json_kv_bool(j, "launch_timed", D->launch_timed);
		gr_json_kv_u64(j, "launch_est_ns", D->launch_est_ns);
		gr_json_kv_double(j, "copy_rate", D->copy_rate);
		/* blocked-bound: why (budget culprits say who) */
		gr_json_kv_str(j, "blocked_reason",
			       D->blocked_reason >= 0 ? gr_block_reason_name(D->blocked_reason)
						      : NULL);
		gr_json_kv_u64(j, "blocked_reason_ns", D->blocked_reason_ns);
		gr_json_kv_bool(j, "blocked_condvar", D->blocked_condvar);
		/* host-bound: where the host work ends, per iteration */
		gr_json_key(j, "host_sites");
		gr_json_array(j);
		for (size_t i = 0; i < D->nhost_sites; i++) {
			gr_json_object_flat(j);
			gr_json_kv_str(j, "site", D->host_sites[i]);
			gr_json_kv_u64(j, "ns_per_iteration", D->host_site_ns[i]);
			gr_json_object_end(j);
		}
		gr_json_array_end(j);
	}
	gr_json_object_end(j);
}

void gr_report_json(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		    unsigned top)
{
	gr_json_object(j);
	gr_json_kv_str(j, "schema", "gpurec-report/2");
	budget(j, r, m);
	diagnosis(j, r);
	gr_json_kv_u64(j, "wall_ns", r->wall_ns);
	gr_json_kv_u64(j, "first_ts", r->first_ts);
	gr_json_kv_u64(j, "last_ts", r->last_ts);
	gr_json_kv_u64(j, "cuda_libraries", r->cuda_libraries);
	gr_json_kv_u64(j, "lost_events", r->lost_events);
	gr_json_kv_bool(j, "ended_abruptly", r->ended_abruptly);
	gr_damage_json(j, m);
	gr_json_key(j, "sms");
	if (r->sms)
		gr_json_u64(j, r->sms);
	else
		gr_json_null(j);
	gr_json_kv_str(j, "sms_source",
		       r->sms_source == GR_REPORT_SMS_OPTION	 ? "option"
		       : r->sms_source == GR_REPORT_SMS_RECORDED ? "recorded"
								 : "unknown");
	gr_probe_cost_json(j, "probe_cost", &r->probe);
	traces(j, m);
	gr_json_key(j, "sections");
	gr_json_array_flat(j);
	if (r->sections & GR_REPORT_LAUNCHES)
		gr_json_str(j, "launches");
	if (r->sections & GR_REPORT_FUSION)
		gr_json_str(j, "fusion");
	if (r->sections & GR_REPORT_TRANSFER)
		gr_json_str(j, "transfer");
	if (r->sections & GR_REPORT_CPU)
		gr_json_str(j, "cpu");
	if (r->sections & GR_REPORT_COMM)
		gr_json_str(j, "communication");
	if (r->sections & GR_REPORT_RANKS)
		gr_json_str(j, "ranks");
	if (r->sections & GR_REPORT_MEMORY)
		gr_json_str(j, "memory");
	if (r->sections & GR_REPORT_NVTX)
		gr_json_str(j, "nvtx");
	gr_json_array_end(j);
	outcome(j, r, m);
	if (r->sections & GR_REPORT_LAUNCHES)
		launches(j, r, m, top);
	if (r->sections & GR_REPORT_FUSION)
		fusion(j, r, top);
	if (r->sections & GR_REPORT_TRANSFER)
		transfer(j, r, m, top);
	if (r->sections & GR_REPORT_CPU)
		cpu(j, r, top);
	if (r->sections & GR_REPORT_COMM)
		comm(j, r);
	if (r->ranks.n)
		gr_report_ranks_json(j, &r->ranks, top);
	if (r->sections & GR_REPORT_MEMORY)
		rp_memory_json(j, r);
	rp_gpu_json(j, r, m, top);
	if (r->sections & GR_REPORT_NVTX)
		rp_nvtx_json(j, r, m);
	gr_json_object_end(j);
}

int gr_report_write_json(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top)
{
	struct gr_json j;

	gr_json_begin(&j, f, 2);
	gr_report_json(&j, r, m, top);
	return gr_json_end(&j);
}
