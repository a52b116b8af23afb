/* SPDX-License-Identifier: MIT */
/*
 * The NVTX section: per range name (and domain) what its ranges held (nvtx.h computes it), and
 * the step's time split over the ranges of the step's thread: "forward 38%, backward 51%". Rules:
 * docs/REPORTS.md ("8. NVTX ranges").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/json.h"
#include "analyze/util/text.h"
#include "analyze/util/units.h"
#include "report_sections.h"

int rp_nvtx(struct rp_ctx *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_nvtx_step step = {0};

	if (it->found) {
		step.thread = it->thread;
		step.starts = it->starts;
		step.durs = it->durs;
		step.n = it->count;
	}
	return gr_nvtx_stats_compute(x->m, &x->r->nvtx.set, x->ls.graphs, x->pc, &step,
				     &x->r->nvtx.stats);
}

/* "NAME" or "DOMAIN:NAME" of stat @v. */
static const char *stat_name(const struct gr_report_nvtx *N, const struct gr_nvtx_stat *v,
			     char *buf, size_t len)
{
	const char *name = gr_nvtx_text(&N->set, v->name);

	if (!v->domain || v->domain >= N->set.ndomains)
		return name;
	snprintf(buf, len, "%s:%s", N->set.domains[v->domain].name, name);
	return buf;
}

/*
 * Whether @v is one of the ranges that split the step: push/pop ranges (they nest properly on a
 * thread, so those of one level and domain never overlap) of the step range's domain, nested in
 * the step's own range (@parent) when the step is an NVTX range, else the outermost ones.
 */
static int splits_step(const struct gr_report_nvtx *N, const struct gr_nvtx_stat *v,
		       uint32_t parent)
{
	uint32_t domain = parent == UINT32_MAX ? 0 : N->stats.v[parent].domain;

	return v->step_ns && v->parent == parent && v->kind == GR_NVTX_RANGE_PUSHPOP &&
	       v->domain == domain;
}

static uint32_t step_stat(const struct gr_report_nvtx *N)
{
	const struct gr_nvtx_stats *S = &N->stats;

	if (!N->step_range)
		return UINT32_MAX;
	for (uint32_t i = 0; i < S->n; i++) {
		char b[GR_TEXT_LEN];

		if (S->v[i].kind == GR_NVTX_RANGE_PUSHPOP &&
		    (!strcmp(stat_name(N, &S->v[i], b, sizeof(b)), N->step_range) ||
		     !strcmp(gr_nvtx_text(&N->set, S->v[i].name), N->step_range)))
			return i;
	}
	return UINT32_MAX;
}

void rp_nvtx_text(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top)
{
	const struct gr_report_nvtx *N = &r->nvtx;
	const struct gr_nvtx_stats *S = &N->stats;
	const struct gr_report_iteration *it = &r->launches.iter;
	char b1[GR_UNITS_LEN], b2[GR_UNITS_LEN], b3[GR_UNITS_LEN], b4[GR_UNITS_LEN];
	char b5[GR_UNITS_LEN], nb[GR_TEXT_LEN];
	uint32_t parent = step_stat(N);
	size_t shown = 0;
	size_t nth;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	double in_ranges = 0, whole;
	int any = 0;
	FILE *line;
	char *buf = NULL;
	size_t len = 0;

	gr_text_heading(f, "8. NVTX ranges", 100);
	if (!N->set.nranges) {
		fprintf(f, "  no NVTX ranges were recorded\n");
		return;
	}
	fprintf(f,
		"  %zu ranges of %zu names (host time: push to pop, start to end); %zu marks; "
		"%" PRIu64 " pops and %" PRIu64 " ends unmatched\n",
		N->set.nranges, S->n, N->set.nmarks, N->set.unmatched_pops, N->set.unmatched_ends);
	if (N->step_range)
		fprintf(f, "  the step is the NVTX range '%s'%s\n", GR_TEXT(N->step_range),
			it->why == GR_PHASE_NVTX ? ": it starts once an iteration of the loop found"
						 : " (--step)");
	fprintf(f, "  %-20s %6s %8s %8s %8s %8s %8s %8s %8s %6s\n", "name", "count", "total",
		"median", "p90", "launches", "kernels", "API time", "GPU time", "step");
	for (size_t i = 0; i < S->n && shown < top * 2; i++, shown++) {
		const struct gr_nvtx_stat *v = &S->v[i];
		int indent = 0;
		char name[GR_TEXT_LEN];
		size_t cut = 17;

		/* nested names under their parent, as deep as the table's width allows */
		for (uint32_t p = v->parent; p != UINT32_MAX && indent < 4; p = S->v[p].parent)
			indent++;
		snprintf(name, sizeof(name), "%*s%s", 2 * indent, "",
			 GR_TEXT(stat_name(N, v, nb, sizeof(nb))));
		if (strlen(name) > 20) {
			while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
				cut--;
			memcpy(name + cut, "...", 4);
		}
		fprintf(f, "  %-20s %6" PRIu64 " %8s %8s %8s %8" PRIu64 " %8" PRIu64 " %8s %8s",
			name, v->count, gr_units_ns(b1, sizeof(b1), (double)v->total_ns),
			gr_units_ns(b2, sizeof(b2), (double)v->median_ns),
			gr_units_ns(b3, sizeof(b3), (double)v->p90_ns), v->launches, v->kernels,
			gr_units_ns(b4, sizeof(b4), (double)v->api_ns),
			S->has_gpu ? gr_units_ns(b5, sizeof(b5), (double)v->gpu_ns) : "-");
		if (S->steps && v->step_ns)
			fprintf(f, " %5.1f%%", v->step_share * 100);
		fputc('\n', f);
	}
	if (S->n > shown)
		fprintf(f, "  %zu more names not shown (--top)\n", S->n - shown);
	if (!S->has_gpu)
		fprintf(f, "  GPU time: -, no --cupti (GPU rows give the GPU time of the work each "
			   "range's calls asked for)\n");
	if (!S->steps) {
		fprintf(f, "  step: no iteration was found: no budget per range\n");
		return;
	}
	/* the step budget per range: the split of the step's time on its thread, wrapped as one
	 * paragraph (the names go in raw: the wrap escapes them) */
	line = open_memstream(&buf, &len);
	if (!line)
		return;
	fprintf(line, "step budget per range (%" PRIu64 " steps, %s each on average, on tid %u):",
		S->steps, gr_units_ns(b1, sizeof(b1), (double)S->step_ns / (double)S->steps),
		it->thread < nth ? th[it->thread].tid : 0);
	for (size_t i = 0; i < S->n; i++) {
		const struct gr_nvtx_stat *v = &S->v[i];

		if (!splits_step(N, v, parent))
			continue;
		fprintf(line, "%s %s %.0f%% (%s)", any ? "," : "", stat_name(N, v, nb, sizeof(nb)),
			v->step_share * 100,
			gr_units_ns(b2, sizeof(b2), (double)v->step_ns / (double)S->steps));
		in_ranges += v->step_share;
		any = 1;
	}
	/* what the step's time holds beyond them: all of it, or its own range's share */
	whole = parent == UINT32_MAX ? 1.0 : S->v[parent].step_share;
	if (!any)
		fprintf(line, " no range of the step's thread is inside the steps");
	else
		fprintf(line, "; outside them %.0f%%",
			whole > in_ranges ? (whole - in_ranges) * 100 : 0.0);
	if (!fclose(line) && buf) {
		fputs("  ", f);
		gr_text_wrap(f, buf, 2, 4, 100);
	}
	free(buf);
}

void rp_nvtx_json(struct gr_json *j, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_report_nvtx *N = &r->nvtx;
	const struct gr_nvtx_stats *S = &N->stats;
	uint32_t parent = step_stat(N);

	(void)m;
	gr_json_key(j, "nvtx");
	gr_json_object(j);
	gr_json_kv_u64(j, "ranges", N->set.nranges);
	gr_json_kv_u64(j, "marks", N->set.nmarks);
	gr_json_kv_u64(j, "unmatched_pops", N->set.unmatched_pops);
	gr_json_kv_u64(j, "unmatched_ends", N->set.unmatched_ends);
	gr_json_key(j, "step_range");
	if (N->step_range)
		gr_json_str(j, N->step_range);
	else
		gr_json_null(j);
	gr_json_kv_str(j, "step_range_by",
		       !N->step_range			       ? ""
		       : r->launches.iter.why == GR_PHASE_NVTX ? "finder"
							       : "step_option");
	gr_json_kv_bool(j, "gpu_measured", S->has_gpu);
	gr_json_kv_u64(j, "steps", S->steps);
	gr_json_kv_u64(j, "step_ns", S->step_ns);
	gr_json_key(j, "names");
	gr_json_array(j);
	for (size_t i = 0; i < S->n; i++) {
		const struct gr_nvtx_stat *v = &S->v[i];

		gr_json_object(j);
		gr_json_kv_str(j, "name", gr_nvtx_text(&N->set, v->name));
		gr_json_kv_str(j, "domain",
			       v->domain < N->set.ndomains ? N->set.domains[v->domain].name : "");
		gr_json_kv_str(j, "kind",
			       v->kind == GR_NVTX_RANGE_PUSHPOP ? "push_pop" : "start_end");
		gr_json_kv_u64(j, "depth", v->depth);
		gr_json_key(j, "parent");
		if (v->parent == UINT32_MAX)
			gr_json_null(j);
		else
			gr_json_u64(j, v->parent);
		gr_json_kv_u64(j, "count", v->count);
		gr_json_kv_u64(j, "unclosed", v->unclosed);
		gr_json_kv_u64(j, "total_ns", v->total_ns);
		gr_json_kv_u64(j, "median_ns", v->median_ns);
		gr_json_kv_u64(j, "p90_ns", v->p90_ns);
		gr_json_kv_u64(j, "max_ns", v->max_ns);
		gr_json_kv_u64(j, "launches", v->launches);
		gr_json_kv_u64(j, "kernels", v->kernels);
		gr_json_kv_u64(j, "api_calls", v->api_calls);
		gr_json_kv_u64(j, "api_ns", v->api_ns);
		gr_json_key(j, "gpu_ns");
		if (S->has_gpu)
			gr_json_u64(j, v->gpu_ns);
		else
			gr_json_null(j);
		gr_json_kv_u64(j, "gpu_ops", v->gpu_ops);
		gr_json_kv_u64(j, "step_count", v->step_count);
		gr_json_kv_u64(j, "step_ns", v->step_ns);
		gr_json_kv_double(j, "step_share", v->step_share);
		gr_json_kv_bool(j, "splits_step", S->steps && splits_step(N, v, parent));
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_object_end(j);
}
