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

#include "diff_impl.h"

static const char *const side_name[2] = {"BASE", "NEW"};

/* "name" or "name (grid) (block)" as --key asks. */
static const char *kernel_label(const struct gr_diff *d, const struct gr_diff_kernel *k, char *buf,
				size_t len)
{
	int n = snprintf(buf, len, "%s", k->name);

	if (n >= 0 && (size_t)n < len && (d->key & GR_DIFF_KEY_GRID))
		n += snprintf(buf + n, len - (size_t)n, " grid (%u,%u,%u)", k->grid[0], k->grid[1],
			      k->grid[2]);
	if (n >= 0 && (size_t)n < len && (d->key & GR_DIFF_KEY_BLOCK))
		snprintf(buf + n, len - (size_t)n, " block (%u,%u,%u)", k->block[0], k->block[1],
			 k->block[2]);
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
			path[s], h->cmdline[0] ? h->cmdline : "(no command)", h->host,
			(double)(last - first) / 1e9, probe);
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
				kernel_label(d, k, label, sizeof(label)));
		}
	}
	if (!d->nkernels)
		fprintf(f, "\nkernels: no launch in either trace\n");
	if (hidden)
		fprintf(f, "  (%zu kernels changed by less than the tolerance of %g%%: hidden)\n",
			hidden, d->tolerance);
}

static void text_metrics(FILE *f, const struct gr_diff *d)
{
	static const struct {
		const char *group, *title;
	} groups[] = {
	    {"run", "whole run"},
	    {"iteration", "per iteration (the detected training step)"},
	    {"transfer", "copies and syncs, whole run"},
	    {"cpu", "CPU starvation (threads matched by comm and order of first CUDA call)"},
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
			if (isnan(mt->delta))
				snprintf(pct, sizeof(pct), "-");
			else if (mt->delta == 0)
				snprintf(pct, sizeof(pct), "0%%");
			else if (isnan(mt->ratio))
				snprintf(pct, sizeof(pct), "new");
			else
				snprintf(pct, sizeof(pct), "%+.1f%%", 100 * (mt->ratio - 1));
			fprintf(f, "  %-38s %13s %13s %14s %8s\n", mt->name, a, b,
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
			fu->label);
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
			s->launches[1], s->delta, df_site_label(s, label, sizeof(label)),
			s->status == GR_DIFF_ADDED     ? "  (added)"
			: s->status == GR_DIFF_REMOVED ? "  (removed)"
						       : "");
	}
}

int gr_diff_write_text(FILE *f, const struct gr_diff *d, const struct gr_model *const m[2],
		       const char *const path[2])
{
	text_header(f, d, m, path);
	fprintf(f, "\nsummary\n");
	for (size_t i = 0; i < d->nsummary; i++)
		fprintf(f, "  %s\n", d->summary[i]);
	text_kernels(f, d);
	text_sites(f, d);
	text_fusion(f, d);
	text_metrics(f, d);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
