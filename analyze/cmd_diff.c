/* SPDX-License-Identifier: MIT */
/*
 * gpurec diff [BASE [NEW]] [--key name,grid,block] [--tolerance PCT] [--sms N] [--json | --html
 * -o PAGE]: load both traces, compare them (diff.h), render the result as aligned text
 * (diff_text.c), JSON (diff_json.c; docs/REPORTS.md, "gpurec diff --json") or one HTML page
 * (html.h, docs/HTML.md). Exit status 0, 1 when a trace cannot be
 * read or the output not written, 2 for a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/diff/diff.h"
#include "analyze/html/html.h"
#include "analyze/model/load.h"
#include "analyze/report/report.h"
#include "analyze/util/options.h"
#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "cmd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpurec diff [BASE [NEW]] [--key name,grid,block] [--tolerance PCT] "
		"[--json | --html -o PAGE]\n"
		"                   [--sms N] [--no-compensate] [--step SPEC] [--max-events N]\n"
		"                   [-j N] [-q]\n"
		"  BASE, NEW        traces to compare (default gpurec.trc.old and gpurec.trc;\n"
		"                   with one file: that file against gpurec.trc); a set of\n"
		"                   traces as one job: comma-separated, a1.trc,a2.trc\n"
		"  --key LIST       match kernels by name (always), and grid and/or block\n"
		"  --tolerance PCT  hide rows whose relative change is below PCT percent\n"
		"  --sms N          the GPU's SM count, for the fusion report's small grids\n"
		"  --no-compensate  leave the probes' own cost in host times\n"
		"  --step SPEC      the step on both sides is what SPEC names (report --help)\n"
		"  --json           machine-readable output (docs/REPORTS.md)\n"
		"  --html           one self-contained HTML page, both sides and the changes,\n"
		"                   written to -o PAGE (docs/HTML.md)\n"
		"  -o, --output PAGE  the page --html writes (replaced if it exists)\n"
		"  --max-events N   refuse a trace of more than N events (default: what half\n"
		"                   the memory holds, %llu here; 0 = no limit)\n"
		"  -j, --jobs N     threads that load the traces (default: one per CPU; 1: none)\n"
		"  -q, --quiet      no progress on a terminal (shown for work of more than 2 s)\n"
		"  -h, --help       this text\n",
		(unsigned long long)gr_load_max_events());
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

/*
 * One side of the diff: a trace, or a set of traces as one job, comma-separated ("a1.trc,a2.trc";
 * a file whose own name holds a comma is taken whole).
 */
static int load_side(const char *arg, const struct gr_model_load_opts *lopts, struct gr_model **out)
{
	const char *paths[GR_MODEL_SET_MAX];
	char *copy, *save = NULL;
	size_t n = 0;
	int err;

	if (!strchr(arg, ',') || !access(arg, F_OK))
		return gr_load_trace("diff", arg, lopts, out);
	copy = strdup(arg);
	if (!copy) {
		fprintf(stderr, "gpurec diff: out of memory\n");
		return -ENOMEM;
	}
	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (n == GR_MODEL_SET_MAX) {
			fprintf(stderr, "gpurec diff: %d traces at most in a set ('%s')\n",
				GR_MODEL_SET_MAX, arg);
			free(copy);
			return -EINVAL;
		}
		paths[n++] = p;
	}
	err = n ? gr_load_set("diff", paths, n, lopts, out) : -EINVAL;
	if (!n)
		fprintf(stderr, "gpurec diff: '%s': no trace in the set\n", arg);
	free(copy);
	return err;
}

int cmd_diff(int argc, char **argv)
{
	struct gr_model_load_opts lopts = {.max_records = gr_load_max_events()};
	const char *path[2] = {NULL, NULL};
	struct gr_model *m[2] = {NULL, NULL};
	struct gr_report_opts ropts = {0};
	struct gr_diff_opts o = {.report = &ropts};
	struct gr_diff *d = NULL;
	const char *out = NULL;
	int json = 0, html = 0, quiet = 0, npaths = 0, err, ret = 1;

	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},
	    {"html", no_argument, NULL, 'H'},
	    {"output", required_argument, NULL, 'o'},
	    {"key", required_argument, NULL, 'K'},
	    {"tolerance", required_argument, NULL, 'T'},
	    {"sms", required_argument, NULL, 'S'},
	    {"no-compensate", no_argument, NULL, 'N'},
	    {"step", required_argument, NULL, 'P'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"max-events", required_argument, NULL, 'M'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	unsigned long sms;
	char *end;
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":hj:o:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'H':
			html = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
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
		case 'N':
			ropts.no_compensate = 1;
			break;
		case 'P':
			ropts.step = optarg;
			break;
		case 'S':
			if (gr_opt_count("diff", "--sms", optarg, 100000, &sms))
				return 2;
			ropts.sms = (uint32_t)sms;
			break;
		case 'j':
			if (gr_opt_jobs("diff", optarg, &lopts.jobs))
				return 2;
			break;
		case 'M':
			if (gr_opt_max_events("diff", optarg, &lopts.max_records))
				return 2;
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
	if (gr_opt_html("diff", html, json, out))
		return 2;
	gr_progress_init("diff", quiet);
	for (int s = 0; s < 2; s++)
		if (load_side(path[s], &lopts, &m[s]))
			goto out;
	gr_progress_begin("comparing", 0, NULL);
	err = gr_diff_compute(m[0], m[1], &o, &d);
	if (html && !err)
		gr_progress_begin("writing the page", 0, NULL);
	else
		gr_progress_end();
	if (err && ropts.step && gr_report_step_error(err)) {
		fprintf(stderr, "gpurec diff: --step '%s', in %s or %s: %s\n", GR_TEXT(ropts.step),
			GR_TEXT(path[0]), GR_TEXT(path[1]), gr_report_step_error(err));
		goto out;
	}
	if (err) {
		fprintf(stderr, "gpurec diff: %s\n", gr_strerror(err));
		goto out;
	}
	if (html) {
		long long bytes = -1;

		err = gr_html_diff_save(out, d, (const struct gr_model *const *)m, path, &bytes);
		gr_progress_end();
		if (err) {
			fprintf(stderr, "gpurec diff: writing %s: %s\n", out, gr_strerror(err));
			goto out;
		}
		printf("gpurec diff: wrote %s (%.1f kB)\n", GR_TEXT(out), (double)bytes / 1e3);
		ret = 0;
		goto out;
	}
	err = json ? gr_diff_write_json(stdout, d, (const struct gr_model *const *)m, path)
		   : gr_diff_write_text(stdout, d, (const struct gr_model *const *)m, path);
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
