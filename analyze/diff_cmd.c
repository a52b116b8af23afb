/* SPDX-License-Identifier: MIT */
/*
 * gpurec diff [BASE [NEW]] [--key name,grid,block] [--tolerance PCT] [--json]: two recordings
 * side by side (see diff.h), as aligned text or JSON (docs/REPORTS.md, "gpurec diff --json").
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "diff.h"
#include "json.h"
#include "load.h"
#include "options.h"

static const char *const side_name[2] = {"BASE", "NEW"};

static void usage(FILE *f)
{
	fprintf(f, "usage: gpurec diff [BASE [NEW]] [--key name,grid,block] [--tolerance PCT] "
		   "[--json]\n"
		   "  BASE, NEW        traces to compare (default gpurec.trc.old and gpurec.trc;\n"
		   "                   with one file: that file against gpurec.trc)\n"
		   "  --key LIST       match kernels by name (always), and grid and/or block\n"
		   "  --tolerance PCT  hide rows whose relative change is below PCT percent\n"
		   "  --sms N          the GPU's SM count, for the fusion report's small grids\n"
		   "  --json           machine-readable output (docs/REPORTS.md)\n");
}

static int parse_key(const char *s, unsigned *key)
{
	char buf[64], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	*key = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "grid"))
			*key |= GR_DIFF_KEY_GRID;
		else if (!strcmp(t, "block"))
			*key |= GR_DIFF_KEY_BLOCK;
		else if (strcmp(t, "name"))
			return -EINVAL;
	}
	return 0;
}

static const char *kstatus(enum gr_diff_status s)
{
	return s == GR_DIFF_ADDED ? "added" : s == GR_DIFF_REMOVED ? "removed" : "both";
}

static const char *fstatus(enum gr_diff_status s)
{
	return s == GR_DIFF_ADDED ? "new" : s == GR_DIFF_REMOVED ? "gone" : "both";
}

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

/* ---- text ---- */

static void text_header(FILE *f, const struct gr_model *m[2], const char *path[2])
{
	for (int s = 0; s < 2; s++) {
		const struct gr_trace_header *h = gr_model_header(m[s]);
		uint64_t first, last;

		gr_model_time_span(m[s], &first, &last);
		fprintf(f, "%-4s  %s: %s\n      host %s, %.3f s recorded\n", side_name[s], path[s],
			h->cmdline[0] ? h->cmdline : "(no command)", h->host,
			(double)(last - first) / 1e9);
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
			fstatus(fu->status), fu->occurrences[0], fu->occurrences[1], a, b,
			fu->label);
	}
}

static int print_text(FILE *f, const struct gr_diff *d, const struct gr_model *m[2],
		      const char *path[2])
{
	text_header(f, m, path);
	fprintf(f, "\nsummary\n");
	for (size_t i = 0; i < d->nsummary; i++)
		fprintf(f, "  %s\n", d->summary[i]);
	text_kernels(f, d);
	text_fusion(f, d);
	text_metrics(f, d);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* ---- JSON ---- */

static void json_dim3(struct gr_json *j, const char *key, const uint32_t v[3])
{
	gr_json_key(j, key);
	gr_json_array_flat(j);
	for (int i = 0; i < 3; i++)
		gr_json_u64(j, v[i]);
	gr_json_array_end(j);
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

static void json_kernels(struct gr_json *j, const struct gr_diff *d)
{
	gr_json_key(j, "kernels");
	gr_json_array(j);
	for (size_t i = 0; i < d->nkernels; i++) {
		const struct gr_diff_kernel *k = &d->kernels[i];

		if (k->hidden)
			continue;
		gr_json_object_flat(j);
		gr_json_kv_str(j, "name", k->name);
		if (d->key & GR_DIFF_KEY_GRID)
			json_dim3(j, "grid", k->grid);
		if (d->key & GR_DIFF_KEY_BLOCK)
			json_dim3(j, "block", k->block);
		gr_json_kv_str(j, "status", kstatus(k->status));
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

static void json_metrics(struct gr_json *j, const struct gr_diff *d)
{
	gr_json_key(j, "metrics");
	gr_json_array(j);
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct gr_diff_metric *mt = &d->metrics[i];

		if (mt->hidden)
			continue;
		gr_json_object_flat(j);
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
		gr_json_kv_str(j, "status", fstatus(fu->status));
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

static int print_json(FILE *f, const struct gr_diff *d, const struct gr_model *m[2],
		      const char *path[2])
{
	struct gr_json j;
	size_t hidden_k = 0, hidden_m = 0;

	for (size_t i = 0; i < d->nkernels; i++)
		hidden_k += d->kernels[i].hidden;
	for (size_t i = 0; i < d->nmetrics; i++)
		hidden_m += d->metrics[i].hidden;
	gr_json_begin(&j, f, 2);
	gr_json_object(&j);
	json_side(&j, d, 0, m[0], path[0]);
	json_side(&j, d, 1, m[1], path[1]);
	gr_json_key(&j, "key");
	gr_json_array_flat(&j);
	gr_json_str(&j, "name");
	if (d->key & GR_DIFF_KEY_GRID)
		gr_json_str(&j, "grid");
	if (d->key & GR_DIFF_KEY_BLOCK)
		gr_json_str(&j, "block");
	gr_json_array_end(&j);
	gr_json_kv_double(&j, "tolerance_pct", d->tolerance);
	gr_json_kv_bool(&j, "comparable", d->comparable);
	gr_json_kv_bool(&j, "same_host", d->same_host);
	gr_json_key(&j, "counts");
	gr_json_object_flat(&j);
	gr_json_kv_u64(&j, "both", d->ncommon);
	gr_json_kv_u64(&j, "added", d->nadded);
	gr_json_kv_u64(&j, "removed", d->nremoved);
	gr_json_kv_u64(&j, "hidden_kernels", hidden_k);
	gr_json_kv_u64(&j, "hidden_metrics", hidden_m);
	gr_json_object_end(&j);
	gr_json_key(&j, "summary");
	gr_json_array(&j);
	for (size_t i = 0; i < d->nsummary; i++)
		gr_json_str(&j, d->summary[i]);
	gr_json_array_end(&j);
	json_kernels(&j, d);
	json_fusion(&j, d);
	json_metrics(&j, d);
	gr_json_object_end(&j);
	return gr_json_end(&j);
}

int cmd_diff(int argc, char **argv)
{
	const char *path[2] = {NULL, NULL};
	struct gr_model *m[2] = {NULL, NULL};
	struct gr_report_opts ropts = {0};
	struct gr_diff_opts o = {.report = &ropts};
	struct gr_diff *d = NULL;
	int json = 0, npaths = 0, err, ret = 1;

	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},
	    {"key", required_argument, NULL, 'K'},
	    {"tolerance", required_argument, NULL, 'T'},
	    {"sms", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	unsigned long sms;
	char *end;
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'K':
			if (parse_key(optarg, &o.key)) {
				fprintf(stderr,
					"gpurec diff: --key '%s': a list of name, grid, block\n",
					optarg);
				return 2;
			}
			break;
		case 'T':
			errno = 0;
			o.tolerance = strtod(optarg, &end);
			if (errno || end == optarg || (*end && strcmp(end, "%")) ||
			    !(o.tolerance >= 0)) {
				fprintf(
				    stderr,
				    "gpurec diff: --tolerance '%s': a percentage >= 0 is needed\n",
				    optarg);
				return 2;
			}
			break;
		case 'S':
			if (gr_opt_count("diff", "--sms", optarg, 100000, &sms))
				return 2;
			ropts.sms = (uint32_t)sms;
			break;
		default:
			gr_opt_error("diff", c, argv);
			usage(stderr);
			return 2;
		}
	}
	npaths = gr_opt_paths("diff", argc, argv, path, 0, 2);
	if (npaths < 0) {
		usage(stderr);
		return 2;
	}
	if (npaths == 0)
		path[0] = "gpurec.trc.old";
	if (npaths < 2)
		path[1] = "gpurec.trc";
	for (int s = 0; s < 2; s++)
		if (gr_load_trace("diff", path[s], &m[s]))
			goto out;
	err = gr_diff_compute(m[0], m[1], &o, &d);
	if (err) {
		fprintf(stderr, "gpurec diff: %s\n", gr_strerror(err));
		goto out;
	}
	err = json ? print_json(stdout, d, (const struct gr_model **)m, path)
		   : print_text(stdout, d, (const struct gr_model **)m, path);
	if (err) {
		fprintf(stderr, "gpurec diff: writing the output: %s\n", gr_strerror(err));
		goto out;
	}
	ret = 0;
out:
	gr_diff_free(d);
	gr_model_free(m[0]);
	gr_model_free(m[1]);
	return ret;
}
