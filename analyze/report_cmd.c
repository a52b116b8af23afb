/* SPDX-License-Identifier: MIT */
/*
 * gpurec report [FILE] [--json] [--only SECTIONS] [--top N] [--sms N]: load a trace, compute the
 * four reports (report.h), print them as text or JSON. Errors: "gpurec report: FILE: reason
 * (offset N)", exit 1; usage errors exit 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "model.h"
#include "report.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpurec report [FILE] [--json] [--only SECTIONS] [--top N] [--sms N]\n"
		"  FILE            trace to report on (default gpurec.trc)\n"
		"  --json          machine-readable output (schema: docs/REPORTS.md)\n"
		"  --only LIST     comma-separated sections: launches,fusion,transfer,cpu\n"
		"  --top N         rows per ranked table (default 20; --json: all)\n"
		"  --sms N         streaming multiprocessors of the GPU, for the small-grid test\n"
		"                  (default %d, an H100)\n"
		"  --slow-launch US  list launch calls slower than this many us (default %d)\n",
		GR_REPORT_DEFAULT_SMS, GR_REPORT_SLOW_LAUNCH_NS / 1000);
}

/* "launches,fusion" -> bits; 0 on an unknown name. */
static unsigned parse_only(const char *s)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {{"launches", GR_REPORT_LAUNCHES},
		     {"launch", GR_REPORT_LAUNCHES},
		     {"fusion", GR_REPORT_FUSION},
		     {"transfer", GR_REPORT_TRANSFER},
		     {"transfers", GR_REPORT_TRANSFER},
		     {"cpu", GR_REPORT_CPU},
		     {"all", GR_REPORT_ALL}};
	unsigned bits = 0;

	while (*s) {
		size_t len = strcspn(s, ",");
		unsigned bit = 0;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(s, names[i].name, len))
				bit = names[i].bit;
		if (!bit)
			return 0;
		bits |= bit;
		s += len;
		if (*s == ',')
			s++;
	}
	return bits;
}

/* A positive integer argument, or 0 when it is not one. */
static unsigned long parse_count(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v || v > 1000000000ul || s[0] == '-')
		return 0;
	return v;
}

int cmd_report(int argc, char **argv)
{
	struct gr_report_opts opts = {0};
	const char *path = NULL;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_diag diag = {0};
	unsigned long top = 0; /* text: 20; JSON: every row */
	int json = 0, err, ret = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_val = i + 1 < argc;

		if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--only") && has_val) {
			opts.sections = parse_only(argv[++i]);
			if (!opts.sections) {
				fprintf(
				    stderr,
				    "gpurec report: --only '%s': sections are launches, fusion, "
				    "transfer, cpu\n",
				    argv[i]);
				return 2;
			}
		} else if ((!strcmp(a, "--top") || !strcmp(a, "--sms") ||
			    !strcmp(a, "--slow-launch")) &&
			   has_val) {
			unsigned long v = parse_count(argv[++i]);

			if (!v) {
				fprintf(stderr,
					"gpurec report: %s '%s': a positive number is needed\n", a,
					argv[i]);
				return 2;
			}
			if (!strcmp(a, "--top"))
				top = v;
			else if (!strcmp(a, "--sms"))
				opts.sms = (uint32_t)v;
			else
				opts.slow_launch_ns = (uint64_t)v * 1000;
		} else if (!strcmp(a, "-i") && has_val && !path) {
			path = argv[++i]; /* perf's spelling */
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gpurec report: unknown option or missing value: '%s'\n",
				a);
			usage(stderr);
			return 2;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr, "gpurec report: one trace file at a time ('%s')\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!path)
		path = "gpurec.trc";

	err = gr_model_load(&m, path, &diag);
	if (err == -ENOENT) {
		fprintf(stderr,
			"gpurec report: %s: %s (record one with: sudo gpurec record -- CMD)\n",
			path, gr_strerror(err));
		goto out;
	}
	if (err) {
		fprintf(stderr, "gpurec report: %s: %s (offset %" PRIu64 ")\n", path,
			diag.reason[0] ? diag.reason : gr_strerror(err), diag.offset);
		goto out;
	}
	err = gr_report_compute(m, &opts, &r);
	if (err) {
		fprintf(stderr, "gpurec report: %s: %s\n", path, gr_strerror(err));
		goto out;
	}
	if (!json)
		printf("gpurec report: %s\n", path);
	err = json ? gr_report_write_json(stdout, r, m, (unsigned)top)
		   : gr_report_write_text(stdout, r, m, (unsigned)top);
	if (err) {
		fprintf(stderr, "gpurec report: writing the output: %s\n", gr_strerror(err));
		goto out;
	}
	ret = 0;
out:
	gr_report_free(r);
	gr_model_free(m);
	return ret;
}
