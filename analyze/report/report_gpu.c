/* SPDX-License-Identifier: MIT */
/*
 * The report's "measured on the GPU (CUPTI)" section: what gpu.h computes from the GPU rows, shown
 * beside the host-side estimates it checks (docs/REPORTS.md). Only for a trace with GPU rows:
 * without them the report's output is what it always was, byte for byte.
 */
#include <errno.h>
#include <inttypes.h>

#include "analyze/util/json.h"
#include "analyze/util/text.h"
#include "report_sections.h"

int rp_gpu(struct rp_ctx *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_graphs *g = NULL;
	size_t n;
	int err;

	gr_model_gpus(x->m, &n);
	if (!n)
		return 0;
	err = gr_graphs_build(x->m, &g);
	if (!err)
		err = gr_gpu_compute(x->m, g, it->found ? it->start_ts : 0,
				     it->found ? it->end_ts : 0, &x->r->gpu);
	gr_graphs_free(g);
	return err;
}

/* The host's estimate of the launch share of an iteration, beside the GPU's idle share. */
static double idle_share(const struct gr_gpu_window *w)
{
	double busy = 0;

	for (size_t d = 0; d < w->ndevices; d++)
		busy = w->devices[d].share > busy ? w->devices[d].share : busy;
	return w->ndevices ? 1 - busy : 0;
}

static void window_text(FILE *f, const char *what, const struct gr_gpu_window *w,
			const struct gr_model *m, const struct gr_gpu_summary *s)
{
	const struct gr_gpu *rows = gr_model_gpus(m, NULL);
	char a[32], b[32], c[32], g[32];

	for (size_t d = 0; d < w->ndevices; d++) {
		const struct gr_gpu_busy *x = &w->devices[d];
		uint32_t pid, tid;
		uint64_t ts;
		unsigned api;

		fprintf(f,
			"  device %" PRIu32 ", %s: busy %s of %s (%s); %" PRIu64
			" idle gaps, %s in all\n",
			x->device, what, gr_units_ns(a, sizeof(a), (double)x->busy_ns),
			gr_units_ns(b, sizeof(b), (double)(w->to_ts - w->from_ts)),
			gr_units_pct(c, sizeof(c), x->share), x->gaps,
			gr_units_ns(g, sizeof(g), (double)x->gap_ns));
		if (!x->gaps)
			continue;
		fprintf(f, "    largest gap %s at +%s, after %s, until %s",
			gr_units_ns(a, sizeof(a), (double)x->largest_ns),
			gr_units_ns(b, sizeof(b), (double)(x->largest_ts - w->from_ts)),
			*rows[x->before].name
			    ? GR_TEXT(rows[x->before].name)
			    : gr_gpu_copy_kind_name(rows[x->before].kind == GR_GPU_MEMSET
							? GR_GPU_COPY_KINDS
							: rows[x->before].copy_kind),
			*rows[x->after].name
			    ? GR_TEXT(rows[x->after].name)
			    : gr_gpu_copy_kind_name(rows[x->after].kind == GR_GPU_MEMSET
							? GR_GPU_COPY_KINDS
							: rows[x->after].copy_kind));
		if (gr_gpu_tie_call(m, &s->ties[x->after], &pid, &tid, &ts, &api))
			fprintf(f, " (%s by tid %" PRIu32 " at +%s)\n", gr_api_name(api), tid,
				gr_units_ns(c, sizeof(c), (double)(ts - w->from_ts)));
		else
			fprintf(f, " (its host call was not recorded)\n");
	}
}

/*
 * GPU records lost on the way (GR_SESS_CUPTI_DROPPED, over every trace of a set): rows that
 * never reached the trace, so every GPU count and time below is a lower bound. The breakdown
 * (CUPTI's buffers, the pipe, not valid) is the fact's text, shown for a single trace.
 */
static void dropped_text(FILE *f, const struct gr_model *m)
{
	uint64_t dropped = gr_model_session_sum(m, GR_SESS_CUPTI_DROPPED), min;
	const char *why = NULL;
	int differs;

	if (!dropped)
		return;
	if (gr_model_session_min(m, GR_SESS_CUPTI_DROPPED, &min, &differs) == 1)
		gr_model_session(m, GR_SESS_CUPTI_DROPPED, NULL, &why);
	fprintf(f,
		"  %" PRIu64 " GPU records dropped%s%s%s: the GPU counts and times below are lower "
		"bounds\n",
		dropped, why && *why ? " (" : "", why && *why ? GR_TEXT(why) : "",
		why && *why ? ")" : "");
}

void rp_gpu_text(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top)
{
	const struct gr_gpu_summary *s = r->gpu;
	char a[32], b[32], c[32];

	if (!s || !s->nrows)
		return;
	if (!top)
		top = 20;
	fprintf(f, "\nGPU: measured on the GPU (CUPTI)\n");
	fprintf(f,
		"  %zu GPU rows: %" PRIu64 " kernels, %" PRIu64 " copies, %" PRIu64
		" memsets; %" PRIu64 " tied to a recorded call (%" PRIu64 " at its entry), %" PRIu64
		" untied\n",
		s->nrows, s->kernels, s->copies, s->memsets, s->tied, s->exact, s->untied);
	dropped_text(f, m);
	window_text(f, "recording", &s->recording, m, s);
	window_text(f, "iteration", &s->iteration, m, s);
	if (s->iteration.ndevices && r->launches.iter.found)
		fprintf(
		    f,
		    "  host-side estimate: launch calls take %s of an iteration (launch cost %s);"
		    " measured: the GPU idles %s of it\n",
		    gr_units_pct(a, sizeof(a), r->launches.launch_share),
		    gr_units_ns(b, sizeof(b), (double)r->launches.launch_cost_ns),
		    gr_units_pct(c, sizeof(c), idle_share(&s->iteration)));
	fprintf(f, "  kernel counts, probes (executed) vs GPU: %zu names, %" PRIu64 " differ\n",
		s->ncounts, s->count_mismatches);
	for (size_t i = 0; i < s->ncounts; i++) {
		const struct gr_gpu_count *k = &s->counts[i];

		if (k->probe_direct == k->gpu_direct && k->probe_graph == k->gpu_graph)
			continue;
		/* every difference, never cut by top: it says what the probes missed */
		fprintf(f,
			"    %s: probes %" PRIu64 " (+%" PRIu64 " in graphs), GPU %" PRIu64
			" (+%" PRIu64 " in graphs)\n",
			k->name, k->probe_direct, k->probe_graph, k->gpu_direct, k->gpu_graph);
	}
	fprintf(f, "  kernels (GPU time)            count      total     median        p99\n");
	for (size_t i = 0; i < s->nby_name && i < top; i++) {
		const struct gr_gpu_kernel *k = &s->by_name[i];
		char t[32], md[32], p[32];

		fprintf(f, "    %-26s %8" PRIu64 " %10s %10s %10s\n", k->name, k->dur.count,
			gr_units_ns(t, sizeof(t), (double)k->dur.total),
			gr_units_ns(md, sizeof(md), (double)k->dur.median),
			gr_units_ns(p, sizeof(p), (double)k->dur.p99));
	}
	for (size_t i = 0; i < s->nby_config && i < top; i++) {
		const struct gr_gpu_kernel *k = &s->by_config[i];

		fprintf(f,
			"    %s grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") block (%" PRIu32
			",%" PRIu32 ",%" PRIu32 "): %" PRIu64 " x, median %s\n",
			k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
			k->block[2], k->dur.count,
			gr_units_ns(a, sizeof(a), (double)k->dur.median));
	}
	for (size_t i = 0; i < s->ncopy_dirs; i++) {
		const struct gr_gpu_copies *cp = &s->copy_dirs[i];

		fprintf(f, "  %-7s %" PRIu64 " x, %s in %s: %s\n",
			gr_gpu_copy_kind_name(cp->copy_kind), cp->dur.count,
			gr_units_bytes(a, sizeof(a), (double)cp->bytes),
			gr_units_ns(b, sizeof(b), (double)cp->dur.total),
			gr_units_rate(c, sizeof(c), cp->bytes_per_s));
	}
}

static void dist_json(struct gr_json *j, const char *key, const struct gr_dist *d)
{
	gr_json_key(j, key);
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "count", d->count);
	gr_json_kv_u64(j, "total_ns", d->total);
	gr_json_kv_u64(j, "median_ns", d->median);
	gr_json_kv_u64(j, "p99_ns", d->p99);
	gr_json_object_end(j);
}

static void window_json(struct gr_json *j, const char *key, const struct gr_gpu_window *w)
{
	gr_json_key(j, key);
	if (!w->ndevices) {
		gr_json_null(j);
		return;
	}
	gr_json_object(j);
	gr_json_kv_u64(j, "from_ts", w->from_ts);
	gr_json_kv_u64(j, "to_ts", w->to_ts);
	gr_json_key(j, "devices");
	gr_json_array(j);
	for (size_t d = 0; d < w->ndevices; d++) {
		const struct gr_gpu_busy *x = &w->devices[d];

		gr_json_object_flat(j);
		gr_json_kv_u64(j, "device", x->device);
		gr_json_kv_u64(j, "busy_ns", x->busy_ns);
		gr_json_kv_double(j, "busy_share", x->share);
		gr_json_kv_u64(j, "gaps", x->gaps);
		gr_json_kv_u64(j, "gap_ns", x->gap_ns);
		gr_json_kv_u64(j, "largest_gap_ns", x->largest_ns);
		gr_json_kv_u64(j, "largest_gap_ts", x->largest_ts);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

void rp_gpu_json(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		 unsigned top)
{
	const struct gr_gpu_summary *s = r->gpu;

	if (!s || !s->nrows)
		return;
	gr_json_key(j, "gpu");
	gr_json_object(j);
	gr_json_kv_str(j, "source", "measured on the GPU (CUPTI)");
	gr_json_kv_u64(j, "rows", s->nrows);
	/* rows by kind: "kernels" and "copies" below are the per-name arrays */
	gr_json_kv_u64(j, "kernel_rows", s->kernels);
	gr_json_kv_u64(j, "copy_rows", s->copies);
	gr_json_kv_u64(j, "memset_rows", s->memsets);
	gr_json_kv_u64(j, "tied", s->tied);
	gr_json_kv_u64(j, "tied_exact", s->exact);
	gr_json_kv_u64(j, "untied", s->untied);
	/* GPU records that never reached the trace: the counts and times are lower bounds */
	gr_json_kv_u64(j, "dropped", gr_model_session_sum(m, GR_SESS_CUPTI_DROPPED));
	window_json(j, "recording", &s->recording);
	window_json(j, "iteration", &s->iteration);
	gr_json_kv_double(j, "host_launch_share", r->launches.launch_share);
	gr_json_kv_double(j, "gpu_idle_share_iteration", idle_share(&s->iteration));
	gr_json_kv_u64(j, "count_mismatches", s->count_mismatches);
	gr_json_key(j, "counts");
	gr_json_array(j);
	for (size_t i = 0; i < s->ncounts; i++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "name", s->counts[i].name);
		gr_json_kv_u64(j, "probe_direct", s->counts[i].probe_direct);
		gr_json_kv_u64(j, "probe_graph", s->counts[i].probe_graph);
		gr_json_kv_u64(j, "gpu_direct", s->counts[i].gpu_direct);
		gr_json_kv_u64(j, "gpu_graph", s->counts[i].gpu_graph);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < s->nby_name && (!top || i < top); i++) {
		gr_json_object(j);
		gr_json_kv_str(j, "name", s->by_name[i].name);
		dist_json(j, "dur", &s->by_name[i].dur);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "configs");
	gr_json_array(j);
	for (size_t i = 0; i < s->nby_config && (!top || i < top); i++) {
		const struct gr_gpu_kernel *k = &s->by_config[i];

		gr_json_object(j);
		gr_json_kv_str(j, "name", k->name);
		gr_json_kv_dim3(j, "grid", k->grid);
		gr_json_kv_dim3(j, "block", k->block);
		gr_json_kv_u64(j, "shared", k->shared);
		dist_json(j, "dur", &k->dur);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "copies");
	gr_json_array(j);
	for (size_t i = 0; i < s->ncopy_dirs; i++) {
		const struct gr_gpu_copies *cp = &s->copy_dirs[i];

		gr_json_object(j);
		gr_json_kv_str(j, "kind", gr_gpu_copy_kind_name(cp->copy_kind));
		gr_json_kv_u64(j, "bytes", cp->bytes);
		gr_json_kv_double(j, "bytes_per_s", cp->bytes_per_s);
		dist_json(j, "dur", &cp->dur);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}
