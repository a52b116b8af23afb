/* SPDX-License-Identifier: MIT */
/*
 * `gpurec diff` as aligned text: each trace, the summary, kernel rows by status, fusion rows,
 * then the figures by group, each row under its display name. Hidden rows are counted, not shown.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/util/text.h"
#include "diff.h"
#include "diff_common.h"
#include "diff_parts.h"

static const char *const side_name[2] = {"BASE", "NEW"};

/* "name" or "name (grid) (block)" as --key asks. */
static const char *kernel_label(const struct gr_diff *d, const char *name, const uint32_t grid[3],
				const uint32_t block[3], char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", name);

	if (n >= 0 && (size_t)n < len && (d->key & GR_DIFF_KEY_GRID))
		n += snprintf(buf + n, len - (size_t)n, " grid (%u,%u,%u)", grid[0], grid[1],
			      grid[2]);
	if (n >= 0 && (size_t)n < len && (d->key & GR_DIFF_KEY_BLOCK))
		snprintf(buf + n, len - (size_t)n, " block (%u,%u,%u)", block[0], block[1],
			 block[2]);
	return buf;
}

static void text_header(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
			const char *const path[2])
{
	for (int s = 0; s < 2; s++) {
		const struct gr_trace_header *h = gr_model_header(m[s]);
		uint64_t first, last;
		char probe[256];

		gr_model_time_span(m[s], &first, &last);
		gr_probe_cost_describe(&d->rep[s]->probe, probe, sizeof(probe));
		fprintf(f, "%-4s  %s: %s\n      host %s, %.3f s recorded\n      %s\n", side_name[s],
			GR_TEXT(path[s]), h->cmdline[0] ? GR_TEXT(h->cmdline) : "(no command)",
			GR_TEXT(h->host), (double)(last - first) / 1e9, GR_TEXT(probe));
	}
}

static void fmt_ratio(char *buf, size_t len, double r)
{
	if (isnan(r))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", r);
}

static void fmt_opt(char *buf, size_t len, const char *unit, double v, int measured)
{
	if (!measured)
		snprintf(buf, len, "-");
	else
		gr_diff_format(buf, len, unit, v);
}

static void text_kernels(FILE *f, const struct gr_diff *d)
{
	static const char *const titles[] = {
	    [GR_DIFF_COMMON] = "kernels in both",
	    [GR_DIFF_ADDED] = "kernels added (only in NEW)",
	    [GR_DIFF_REMOVED] = "kernels removed (only in BASE)",
	};
	static const enum gr_diff_status order[] = {GR_DIFF_COMMON, GR_DIFF_ADDED, GR_DIFF_REMOVED};
	int iter = d->iter_found[0] && d->iter_found[1];
	int api[2] = {d->rep[0]->launches.api_measured, d->rep[1]->launches.api_measured};
	size_t hidden = 0;
	char label[512], c[6][32];

	for (size_t o = 0; o < 3; o++) {
		size_t n = o == 0 ? d->ncommon : o == 1 ? d->nadded : d->nremoved;

		if (!n)
			continue;
		fprintf(f, "\n%s (matched by name%s%s; %s)\n", titles[order[o]],
			d->key & GR_DIFF_KEY_GRID ? ", grid" : "",
			d->key & GR_DIFF_KEY_BLOCK ? ", block" : "",
			order[o] == GR_DIFF_COMMON ? "by impact: largest count change first"
						   : "by launches");
		fprintf(f, "  %10s %10s %10s %7s", "BASE", "NEW", "delta", "ratio");
		if (iter)
			fprintf(f, " %9s %9s", "BASE/it", "NEW/it");
		fprintf(f, " %11s %11s  %s\n", "API BASE", "API NEW", "name");
		for (size_t i = 0; i < d->nkernels; i++) {
			const struct gr_diff_kernel *k = &d->kernels[i];

			if (k->status != order[o])
				continue;
			if (k->hidden) {
				hidden++;
				continue;
			}
			fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %+10" PRId64, k->count[0],
				k->count[1], k->delta);
			fmt_ratio(c[0], sizeof(c[0]), k->ratio);
			fprintf(f, " %7s", c[0]);
			if (iter) {
				gr_diff_format(c[1], sizeof(c[1]), "", k->per_iter[0]);
				gr_diff_format(c[2], sizeof(c[2]), "", k->per_iter[1]);
				fprintf(f, " %9s %9s", c[1], c[2]);
			}
			fmt_opt(c[3], sizeof(c[3]), "ns", (double)k->api_ns[0],
				api[0] && k->count[0]);
			fmt_opt(c[4], sizeof(c[4]), "ns", (double)k->api_ns[1],
				api[1] && k->count[1]);
			fprintf(f, " %11s %11s  %s\n", c[3], c[4],
				GR_TEXT(kernel_label(d, k->name, k->grid, k->block, label,
						     sizeof(label))));
		}
	}
	if (!d->nkernels)
		fprintf(f, "\nkernels: no launch in either trace\n");
	if (hidden)
		fprintf(f, "  (%zu kernels changed by less than the tolerance of %g%%: hidden)\n",
			hidden, d->tolerance);
}

/* "+12.5%", "0%", "new" (from 0), "-" (no base): a change as the figures' rows write it. */
static void fmt_change(char *buf, size_t len, double delta, double ratio)
{
	if (isnan(delta))
		snprintf(buf, len, "-");
	else if (delta == 0)
		snprintf(buf, len, "0%%");
	else if (isnan(ratio))
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
}

/* GPU time per kernel (--cupti): both traces' rows, or the one line that says only one has. */
static void text_gpu(FILE *f, const struct gr_diff *d)
{
	static const char *const status[] = {
	    [GR_DIFF_COMMON] = "both", [GR_DIFF_ADDED] = "added", [GR_DIFF_REMOVED] = "removed"};
	size_t hidden = 0;
	char label[512], c[6][32];

	if (!d->gpu[0] && !d->gpu[1])
		return;
	if (!d->gpu[0] || !d->gpu[1]) {
		fprintf(f,
			"\nGPU: only %s has GPU rows (recorded with --cupti): nothing is compared "
			"on the GPU side\n",
			d->gpu[0] ? "BASE" : "NEW");
		return;
	}
	fprintf(f,
		"\nGPU time per kernel, measured on the GPU (CUPTI): matched by name%s%s; largest "
		"change of GPU time first\n",
		d->key & GR_DIFF_KEY_GRID ? ", grid" : "",
		d->key & GR_DIFF_KEY_BLOCK ? ", block" : "");
	fprintf(f, "  %-7s %8s %8s %11s %11s %12s %8s %11s %11s  %s\n", "", "BASE", "NEW",
		"time BASE", "time NEW", "delta", "change", "median BASE", "median NEW", "name");
	for (size_t i = 0; i < d->ngpu_kernels; i++) {
		const struct gr_diff_gpu_kernel *k = &d->gpu_kernels[i];
		double delta = (double)k->total_delta;

		if (k->hidden) {
			hidden++;
			continue;
		}
		gr_diff_format(c[0], sizeof(c[0]), "ns", (double)k->dur[0].total);
		gr_diff_format(c[1], sizeof(c[1]), "ns", (double)k->dur[1].total);
		gr_diff_format(c[2] + 1, sizeof(c[2]) - 1, "ns", delta);
		c[2][0] = '+';
		fmt_change(c[3], sizeof(c[3]), delta, k->total_ratio);
		fmt_opt(c[4], sizeof(c[4]), "ns", (double)k->dur[0].median, k->dur[0].count != 0);
		fmt_opt(c[5], sizeof(c[5]), "ns", (double)k->dur[1].median, k->dur[1].count != 0);
		fprintf(f, "  %-7s %8" PRIu64 " %8" PRIu64 " %11s %11s %12s %8s %11s %11s  %s\n",
			status[k->status], k->dur[0].count, k->dur[1].count, c[0], c[1],
			delta > 0 ? c[2] : c[2] + 1, c[3], c[4], c[5],
			GR_TEXT(kernel_label(d, k->name, k->grid, k->block, label, sizeof(label))));
	}
	if (hidden)
		fprintf(
		    f,
		    "  (%zu GPU kernel rows changed by less than the tolerance of %g%%: hidden)\n",
		    hidden, d->tolerance);
}

static void text_metrics(FILE *f, const struct gr_diff *d)
{
	static const struct {
		const char *group, *title;
	} groups[] = {
	    {"run", "whole run"},
	    {"iteration", "per iteration (the detected training step)"},
	    {"budget",
	     "step budget (each part's median over the iterations, on the loop's thread)"},
	    {"transfer", "copies and syncs, whole run"},
	    {"cpu", "CPU starvation (threads matched by comm and order of first CUDA call)"},
	    {"gpu", "measured on the GPU (CUPTI)"},
	    {"memory", "device memory (peak, leaks, churn)"},
	    {"losses", "losses"},
	};
	size_t hidden = 0;

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		int shown = 0;

		for (size_t i = 0; i < d->nmetrics; i++) {
			const struct gr_diff_metric *mt = &d->metrics[i];
			char a[32], b[32], delta[40], pct[16];

			if (strcmp(mt->group, groups[g].group))
				continue;
			if (mt->hidden) {
				hidden++;
				continue;
			}
			if (!shown++) {
				fprintf(f, "\n%s\n", groups[g].title);
				if (!strcmp(groups[g].group, "iteration") &&
				    !(d->iter_found[0] && d->iter_found[1]))
					fprintf(f, "  (an iteration was found only in %s)\n",
						d->iter_found[0] ? "BASE" : "NEW");
				fprintf(f, "  %-38s %13s %13s %14s %8s\n", "", "BASE", "NEW",
					"delta", "change");
			}
			gr_diff_format(a, sizeof(a), mt->unit, mt->v[0]);
			gr_diff_format(b, sizeof(b), mt->unit, mt->v[1]);
			gr_diff_format(delta + 1, sizeof(delta) - 1, mt->unit, mt->delta);
			delta[0] = !isnan(mt->delta) && mt->delta > 0 ? '+' : ' ';
			fmt_change(pct, sizeof(pct), mt->delta, mt->ratio);
			fprintf(f, "  %-38s %13s %13s %14s %8s\n", GR_TEXT(mt->name), a, b,
				delta[0] == ' ' ? delta + 1 : delta, pct);
		}
	}
	if (hidden)
		fprintf(f, "  (%zu figures changed by less than the tolerance of %g%%: hidden)\n",
			hidden, d->tolerance);
}

static void text_fusion(FILE *f, const struct gr_diff *d)
{
	char a[32], b[32];

	if (!d->nfusion)
		return;
	fprintf(f, "\nfusion candidates (runs of >= 3 launches; saving is an estimate)\n");
	fprintf(f, "  %-6s %10s %10s %12s %12s  %s\n", "", "BASE", "NEW", "saving BASE",
		"saving NEW", "kernels");
	for (size_t i = 0; i < d->nfusion; i++) {
		const struct gr_diff_fusion *fu = &d->fusion[i];

		gr_diff_format(a, sizeof(a), "ns", (double)fu->saving_ns[0]);
		gr_diff_format(b, sizeof(b), "ns", (double)fu->saving_ns[1]);
		fprintf(f, "  %-6s %10" PRIu64 " %10" PRIu64 " %12s %12s  %s\n",
			df_fusion_status(fu->status), fu->occurrences[0], fu->occurrences[1], a, b,
			GR_TEXT(fu->label));
	}
}

static void text_sites(FILE *f, const struct gr_diff *d)
{
	char label[2 * GR_FRAME_TEXT];

	if (!d->python)
		return;
	fprintf(f,
		"\nlaunch sites (matched by file and function of the innermost Python frame, else "
		"by the native frame that launched)\n");
	fprintf(f, "  %10s %10s %10s  %s\n", "BASE", "NEW", "delta", "site");
	for (size_t i = 0; i < d->nsites; i++) {
		const struct gr_diff_site *s = &d->sites[i];

		fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %+10" PRId64 "  %s%s\n", s->launches[0],
			s->launches[1], s->delta, GR_TEXT(df_site_label(s, label, sizeof(label))),
			s->status == GR_DIFF_ADDED     ? "  (added)"
			: s->status == GR_DIFF_REMOVED ? "  (removed)"
						       : "");
	}
}

/* NVTX ranges by name (domain:name): per step when both traces have a step, and totals. */
static void text_nvtx(FILE *f, const struct gr_diff *d)
{
	static const char *const status[] = {
	    [GR_DIFF_COMMON] = "both", [GR_DIFF_ADDED] = "added", [GR_DIFF_REMOVED] = "removed"};
	size_t hidden = 0;
	char c[6][32];

	if (!d->nnvtx)
		return;
	fprintf(f, "\nNVTX ranges (matched by domain and name; time per step: inside the steps, "
		   "over the steps)\n");
	fprintf(f, "  %-7s %8s %8s %11s %11s %8s %11s %11s  %s\n", "", "BASE", "NEW", "step BASE",
		"step NEW", "change", "total BASE", "total NEW", "name");
	for (size_t i = 0; i < d->nnvtx; i++) {
		const struct gr_diff_nvtx *r = &d->nvtx[i];

		if (r->hidden) {
			hidden++;
			continue;
		}
		gr_diff_format(c[0], sizeof(c[0]), "ns", r->per_step[0]);
		gr_diff_format(c[1], sizeof(c[1]), "ns", r->per_step[1]);
		if (!isnan(r->per_step_delta))
			fmt_change(c[2], sizeof(c[2]), r->per_step_delta,
				   r->per_step[0] ? r->per_step[1] / r->per_step[0] : NAN);
		else
			fmt_change(c[2], sizeof(c[2]), r->total_delta,
				   r->total_ns[0] ? (double)r->total_ns[1] / (double)r->total_ns[0]
						  : NAN);
		gr_diff_format(c[3], sizeof(c[3]), "ns", (double)r->total_ns[0]);
		gr_diff_format(c[4], sizeof(c[4]), "ns", (double)r->total_ns[1]);
		fprintf(f, "  %-7s %8" PRIu64 " %8" PRIu64 " %11s %11s %8s %11s %11s  %s\n",
			status[r->status], r->count[0], r->count[1], c[0], c[1], c[2], c[3], c[4],
			GR_TEXT(r->name));
	}
	if (hidden)
		fprintf(f,
			"  (%zu NVTX ranges changed by less than the tolerance of %g%%: hidden)\n",
			hidden, d->tolerance);
}

int gr_diff_write_text(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		       const char *const path[2])
{
	text_header(f, d, m, path);
	fprintf(f, "\nsummary\n");
	for (size_t i = 0; i < d->nsummary; i++)
		fprintf(f, "  %s\n", GR_TEXT(d->summary[i]));
	text_kernels(f, d);
	text_gpu(f, d);
	text_sites(f, d);
	text_nvtx(f, d);
	text_fusion(f, d);
	text_metrics(f, d);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
