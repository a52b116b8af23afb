/* SPDX-License-Identifier: MIT */
/*
 * `gpurec diff --json`: the schema of docs/REPORTS.md ("gpurec diff --json"); raw ns, bytes and
 * ratios, null where a trace lacks a figure. Metrics carry their id for programs to key on.
 */
#include <math.h>
#include <stdio.h>

#include "analyze/model/damage.h"
#include "analyze/util/json.h"
#include "diff.h"
#include "diff_common.h"
#include "diff_parts.h"

static const char *kstatus(enum gr_diff_status s)
{
	return s == GR_DIFF_ADDED ? "added" : s == GR_DIFF_REMOVED ? "removed" : "both";
}

static void json_side(struct gr_json *j, const struct gr_diff *d, int s, const struct gr_model *m,
		      const char *path)
{
	const struct gr_trace_header *h = gr_model_header(m);
	const struct gr_report_iteration *it = &d->rep[s]->launches.iter;

	gr_json_key(j, s ? "new" : "base");
	gr_json_object(j);
	gr_json_kv_str(j, "file", path);
	gr_json_kv_str(j, "command", h->cmdline);
	gr_json_kv_str(j, "host", h->host);
	gr_json_kv_u64(j, "duration_ns", d->rep[s]->wall_ns);
	gr_json_kv_u64(j, "launches", d->rep[s]->launches.total);
	gr_json_kv_u64(j, "lost_events", gr_model_lost_events(m));
	gr_json_kv_bool(j, "complete", gr_model_integrity(m)->complete);
	gr_damage_json(j, m);
	gr_probe_cost_json(j, "probe_cost", &d->rep[s]->probe);
	gr_json_key(j, "iteration");
	if (d->iter_found[s]) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "count", it->count);
		gr_json_kv_u64(j, "launches", it->launches);
		gr_json_kv_u64(j, "calls", it->calls);
		gr_json_kv_u64(j, "period_ns", it->period_ns);
		gr_json_object_end(j);
	} else {
		gr_json_null(j);
	}
	gr_json_object_end(j);
}

/* A kernel row's key as the diff keys it (--key), and its status. */
static void json_key(struct gr_json *j, const struct gr_diff *d, const char *name,
		     const uint32_t grid[3], const uint32_t block[3], enum gr_diff_status status)
{
	gr_json_kv_str(j, "name", name);
	if (d->key & GR_DIFF_KEY_GRID)
		gr_json_kv_dim3(j, "grid", grid);
	if (d->key & GR_DIFF_KEY_BLOCK)
		gr_json_kv_dim3(j, "block", block);
	gr_json_kv_str(j, "status", kstatus(status));
}

static void json_kernels(struct gr_json *j, const struct gr_diff *d)
{
	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < d->nkernels; i++) {
		const struct gr_diff_kernel *k = &d->kernels[i];

		if (k->hidden)
			continue;
		gr_json_object_flat(j);
		json_key(j, d, k->name, k->grid, k->block, k->status);
		gr_json_kv_u64(j, "count_a", k->count[0]);
		gr_json_kv_u64(j, "count_b", k->count[1]);
		gr_json_kv_i64(j, "delta", k->delta);
		gr_json_kv_double(j, "ratio", k->ratio);
		gr_json_kv_double(j, "per_iteration_a", k->per_iter[0]);
		gr_json_kv_double(j, "per_iteration_b", k->per_iter[1]);
		gr_json_key(j, "api_ns_a");
		if (d->rep[0]->launches.api_measured && k->count[0])
			gr_json_u64(j, k->api_ns[0]);
		else
			gr_json_null(j);
		gr_json_key(j, "api_ns_b");
		if (d->rep[1]->launches.api_measured && k->count[1])
			gr_json_u64(j, k->api_ns[1]);
		else
			gr_json_null(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_dist(struct gr_json *j, const char *key, const struct gr_dist *d)
{
	gr_json_key(j, key);
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "count", d->count);
	gr_json_kv_u64(j, "total_ns", d->total);
	gr_json_kv_u64(j, "median_ns", d->median);
	gr_json_object_end(j);
}

/* Measured on the GPU (--cupti): absent when neither trace has GPU rows, so the output reads as
 * it did before; "compared" false, and no kernels, when only one has. */
static void json_gpu(struct gr_json *j, const struct gr_diff *d, const struct gr_model *const m[2])
{
	size_t hidden = 0;

	if (!d->gpu[0] && !d->gpu[1])
		return;
	gr_json_key(j, "gpu");
	gr_json_object(j);
	gr_json_kv_str(j, "source", "measured on the GPU (CUPTI)");
	gr_json_kv_bool(j, "compared", d->gpu[0] && d->gpu[1]);
	gr_json_kv_u64(j, "rows_a", d->gpu[0] ? d->rep[0]->gpu->nrows : 0);
	gr_json_kv_u64(j, "rows_b", d->gpu[1] ? d->rep[1]->gpu->nrows : 0);
	gr_json_kv_u64(j, "dropped_a", gr_model_session_sum(m[0], GR_SESS_CUPTI_DROPPED));
	gr_json_kv_u64(j, "dropped_b", gr_model_session_sum(m[1], GR_SESS_CUPTI_DROPPED));
	for (size_t i = 0; i < d->ngpu_kernels; i++)
		hidden += d->gpu_kernels[i].hidden;
	gr_json_kv_u64(j, "hidden_kernels", hidden);
	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < d->ngpu_kernels; i++) {
		const struct gr_diff_gpu_kernel *k = &d->gpu_kernels[i];

		if (k->hidden)
			continue;
		gr_json_object(j);
		json_key(j, d, k->name, k->grid, k->block, k->status);
		json_dist(j, "a", &k->dur[0]);
		json_dist(j, "b", &k->dur[1]);
		gr_json_kv_i64(j, "total_delta_ns", k->total_delta);
		gr_json_kv_double(j, "total_ratio", k->total_ratio);
		gr_json_kv_i64(j, "median_delta_ns", k->median_delta);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}

static void json_metrics(struct gr_json *j, const struct gr_diff *d)
{
	gr_json_key(j, "metrics");
	gr_json_array(j);
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct gr_diff_metric *mt = &d->metrics[i];

		if (mt->hidden)
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "id", mt->id);
		gr_json_kv_str(j, "group", mt->group);
		gr_json_kv_str(j, "name", mt->name);
		gr_json_kv_str(j, "unit", mt->unit);
		gr_json_kv_double(j, "a", mt->v[0]);
		gr_json_kv_double(j, "b", mt->v[1]);
		gr_json_kv_double(j, "delta", mt->delta);
		gr_json_kv_double(j, "ratio", mt->ratio);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_fusion(struct gr_json *j, const struct gr_diff *d)
{
	gr_json_key(j, "fusion");
	gr_json_array(j);
	for (size_t i = 0; i < d->nfusion; i++) {
		const struct gr_diff_fusion *fu = &d->fusion[i];

		gr_json_object_flat(j);
		gr_json_kv_str(j, "label", fu->label);
		gr_json_kv_str(j, "status", df_fusion_status(fu->status));
		gr_json_kv_u64(j, "length", fu->len);
		gr_json_kv_u64(j, "occurrences_a", fu->occurrences[0]);
		gr_json_kv_u64(j, "occurrences_b", fu->occurrences[1]);
		gr_json_kv_u64(j, "saving_ns_a", fu->saving_ns[0]);
		gr_json_kv_u64(j, "saving_ns_b", fu->saving_ns[1]);
		gr_json_kv_str(j, "sequence", fu->sequence);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

static void json_sites(struct gr_json *j, const struct gr_diff *d)
{
	char label[2 * GR_FRAME_TEXT];

	if (!d->python)
		return;
	gr_json_key(j, "launch_sites");
	gr_json_array(j);
	for (size_t i = 0; i < d->nsites; i++) {
		const struct gr_diff_site *s = &d->sites[i];

		gr_json_object(j);
		gr_json_kv_str(j, "site", df_site_label(s, label, sizeof(label)));
		gr_json_kv_str(j, "status", kstatus(s->status));
		gr_json_key(j, "launches");
		gr_json_array_flat(j);
		gr_json_u64(j, s->launches[0]);
		gr_json_u64(j, s->launches[1]);
		gr_json_array_end(j);
		gr_json_kv_i64(j, "delta", s->delta);
		gr_json_key(j, "frames");
		gr_json_array(j);
		for (int side = 0; side < 2; side++) {
			if (s->frame[side].value)
				gr_frame_json(j, &s->frame[side]);
			else
				gr_json_null(j);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

/* "nvtx": the range names of both traces (diff_types.h struct gr_diff_nvtx); absent without. */
static void json_nvtx(struct gr_json *j, const struct gr_diff *d)
{
	if (!d->nnvtx)
		return;
	gr_json_key(j, "nvtx");
	gr_json_array(j);
	for (size_t i = 0; i < d->nnvtx; i++) {
		const struct gr_diff_nvtx *r = &d->nvtx[i];

		gr_json_object(j);
		gr_json_kv_str(j, "name", r->name);
		gr_json_kv_str(j, "status", kstatus(r->status));
		gr_json_kv_bool(j, "hidden", r->hidden);
		gr_json_key(j, "count");
		gr_json_array_flat(j);
		gr_json_u64(j, r->count[0]);
		gr_json_u64(j, r->count[1]);
		gr_json_array_end(j);
		gr_json_key(j, "total_ns");
		gr_json_array_flat(j);
		gr_json_u64(j, r->total_ns[0]);
		gr_json_u64(j, r->total_ns[1]);
		gr_json_array_end(j);
		gr_json_key(j, "median_ns");
		gr_json_array_flat(j);
		gr_json_u64(j, r->median_ns[0]);
		gr_json_u64(j, r->median_ns[1]);
		gr_json_array_end(j);
		gr_json_key(j, "per_step_ns");
		gr_json_array_flat(j);
		for (int s = 0; s < 2; s++) {
			if (isnan(r->per_step[s]))
				gr_json_null(j);
			else
				gr_json_double(j, r->per_step[s]);
		}
		gr_json_array_end(j);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
}

void gr_diff_json(struct gr_json *j, const struct gr_diff *d, const struct gr_model *const m[2],
		  const char *const path[2])
{
	size_t hidden_k = 0, hidden_m = 0;

	for (size_t i = 0; i < d->nkernels; i++)
		hidden_k += d->kernels[i].hidden;
	for (size_t i = 0; i < d->nmetrics; i++)
		hidden_m += d->metrics[i].hidden;
	gr_json_object(j);
	json_side(j, d, 0, m[0], path[0]);
	json_side(j, d, 1, m[1], path[1]);
	gr_json_key(j, "key");
	gr_json_array_flat(j);
	gr_json_str(j, "name");
	if (d->key & GR_DIFF_KEY_GRID)
		gr_json_str(j, "grid");
	if (d->key & GR_DIFF_KEY_BLOCK)
		gr_json_str(j, "block");
	gr_json_array_end(j);
	gr_json_kv_double(j, "tolerance_pct", d->tolerance);
	gr_json_kv_bool(j, "comparable", d->comparable);
	gr_json_kv_bool(j, "same_host", d->same_host);
	gr_json_key(j, "counts");
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "both", d->ncommon);
	gr_json_kv_u64(j, "added", d->nadded);
	gr_json_kv_u64(j, "removed", d->nremoved);
	gr_json_kv_u64(j, "hidden_kernels", hidden_k);
	gr_json_kv_u64(j, "hidden_metrics", hidden_m);
	gr_json_object_end(j);
	gr_json_key(j, "summary");
	gr_json_array(j);
	for (size_t i = 0; i < d->nsummary; i++)
		gr_json_str(j, d->summary[i]);
	gr_json_array_end(j);
	/* each report's own diagnosis of the step, as its report --json names it */
	gr_json_key(j, "diagnosis");
	gr_json_object_flat(j);
	gr_json_kv_str(j, "base", gr_step_bound_name(d->rep[0]->diagnosis.bound));
	gr_json_kv_str(j, "new", gr_step_bound_name(d->rep[1]->diagnosis.bound));
	gr_json_kv_bool(j, "changed", d->rep[0]->diagnosis.bound != d->rep[1]->diagnosis.bound);
	gr_json_object_end(j);
	json_kernels(j, d);
	json_gpu(j, d, m);
	json_sites(j, d);
	json_nvtx(j, d);
	json_fusion(j, d);
	json_metrics(j, d);
	gr_json_object_end(j);
}

int gr_diff_write_json(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		       const char *const path[2])
{
	struct gr_json j;

	gr_json_begin(&j, f, 2);
	gr_diff_json(&j, d, m, path);
	return gr_json_end(&j);
}
