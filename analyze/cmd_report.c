/* SPDX-License-Identifier: MIT */
/*
 * gpurec report [FILE...] [--json | --html -o PAGE] [--only SECTIONS] [--top N] [--sms N]: load a
 * trace, compute the four reports (report.h), print them as text or JSON, or write them as one
 * HTML page (html.h, docs/HTML.md). Errors: "gpurec report: FILE: reason
 * (offset N)", exit 1; usage errors exit 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/html/html.h"
#include "analyze/model/load.h"
#include "analyze/model/model.h"
#include "analyze/report/job.h"
#include "analyze/report/job_run.h"
#include "analyze/report/report.h"
#include "analyze/util/options.h"
#include "analyze/util/pool.h"
#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "cmd.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: gpurec report [FILE...] [--json | --html -o PAGE] [--only SECTIONS] [--top N]\n"
	    "                     [--sms N] [--slow-launch US] [--no-compensate] [--step SPEC]\n"
	    "                     [--max-events N] [-j N] [-q] [--job] [--summary [-o OUT]]\n"
	    "  FILE            trace to report on (default gpurec.trc); several: one job\n"
	    "                  (one trace per node), aligned on the first one's clock;\n"
	    "                  -i FILE names one too, as perf does\n"
	    "  --job           report the traces as a job trace by trace: each loaded\n"
	    "                  alone (-j at a time), then the ranks section over all of\n"
	    "                  them; the route for a directory (its *.trc), for job\n"
	    "                  summaries and for more than %d traces\n"
	    "  --summary       write the job summary of the traces (docs/REPORTS.md) to -o\n"
	    "                  OUT (default standard output); `report A.sum B.sum` merges\n"
	    "                  summaries into the job's report\n"
	    "  --json          machine-readable output (schema: docs/REPORTS.md)\n"
	    "  --html          one self-contained HTML page with charts, the timeline and a\n"
	    "                  flame graph, written to -o PAGE (docs/HTML.md)\n"
	    "  -o, --output PAGE  the page --html writes (replaced if it exists)\n"
	    "  --only LIST     comma-separated sections: "
	    "launches,fusion,transfer,cpu,communication,ranks,memory,nvtx\n"
	    "  --top N         rows per ranked table (default 20; --json: all)\n"
	    "  --sms N         streaming multiprocessors of the GPU, for the small-grid test\n"
	    "                  (default: the count the program got from the runtime; else\n"
	    "                  unknown, and no grid is marked small)\n"
	    "  --slow-launch US  list launch calls slower than this many us (default %d)\n"
	    "  --no-compensate leave the probes' own cost in host times (for comparison)\n"
	    "  --step SPEC     the step is what SPEC names, not the loop the report finds:\n"
	    "                  kernel:NAME, api:NAME (cudaStreamSynchronize, ...),\n"
	    "                  py:FILE:LINE, py:FUNCTION, nvtx:NAME (an NVTX push/pop range;\n"
	    "                  nvtx:DOMAIN:NAME), or one of those without a prefix\n"
	    "  --max-events N  refuse a trace of more than N events (default: what half the\n"
	    "                  memory holds, %llu here; 0 = no limit)\n"
	    "  -j, --jobs N    threads that load the trace, and compute the report's passes\n"
	    "                  and a long step budget\n"
	    "                  (default: one per CPU; 1: none)\n"
	    "  -q, --quiet     no progress on a terminal (shown for work of more than 2 s)\n"
	    "  -h, --help      this text\n",
	    GR_JOB_DIRECT_MAX, GR_REPORT_SLOW_LAUNCH_NS / 1000,
	    (unsigned long long)gr_load_max_events());
}

/* "launches,fusion" -> bits; 0 on an unknown name. */
static unsigned parse_only(const char *s)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
	    {"launches", GR_REPORT_LAUNCHES},
	    {"launch", GR_REPORT_LAUNCHES},
	    {"fusion", GR_REPORT_FUSION},
	    {"transfer", GR_REPORT_TRANSFER},
	    {"transfers", GR_REPORT_TRANSFER},
	    {"cpu", GR_REPORT_CPU},
	    {"communication", GR_REPORT_COMM},
	    {"comm", GR_REPORT_COMM},
	    {"nccl", GR_REPORT_COMM},
	    {"ranks", GR_REPORT_RANKS},
	    {"memory", GR_REPORT_MEMORY},
	    {"nvtx", GR_REPORT_NVTX},
	    {"all", GR_REPORT_ALL},
	};
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

/* --summary's take (job_run.h): the summary written to the FILE @ctx as it is. */
static int write_summary(void *ctx, const char *path, char *text, size_t len)
{
	size_t n = fwrite(text, 1, len, ctx);

	(void)path;
	free(text);
	return n == len ? 0 : -EIO;
}

/*
 * The per-trace route (job.h): the summaries of @args (traces, directories of them, summaries),
 * written to @out (--summary: NULL or "-" for standard output) or merged into the job's report.
 */
static int report_job(const char *const *args, size_t nargs, const struct gr_model_load_opts *lo,
		      const struct gr_report_opts *ro, int summary, const char *out, int json,
		      unsigned top)
{
	char **paths = NULL;
	size_t n = 0;
	struct gr_job job = {0};
	FILE *f = stdout;
	int err, ret = 1;

	if (gr_job_paths("report", args, nargs, &paths, &n))
		return 1;
	if (summary) {
		if (out && strcmp(out, "-") && !(f = fopen(out, "we"))) {
			fprintf(stderr, "gpurec report: %s: %s\n", GR_TEXT(out), strerror(errno));
			goto out;
		}
		err = gr_job_summaries("report", paths, n, lo, ro, lo->jobs, write_summary, f);
		if (err == -EIO)
			fprintf(stderr, "gpurec report: writing %s: %s\n",
				f != stdout ? GR_TEXT(out) : "the output", strerror(errno));
		if ((f != stdout ? fclose(f) : fflush(f)) && !err) {
			fprintf(stderr, "gpurec report: writing %s: %s\n",
				f != stdout ? GR_TEXT(out) : "the output", strerror(errno));
			err = -EIO;
		}
		ret = err ? 1 : 0;
		goto out;
	}
	err = gr_job_summaries("report", paths, n, lo, ro, lo->jobs, gr_job_take, &job);
	if (!err && (err = gr_job_finish(&job)))
		fprintf(stderr, "gpurec report: %s\n", gr_strerror(err));
	if (err)
		goto out;
	err = json ? gr_job_write_json(stdout, &job, top) : gr_job_write_text(stdout, &job, top);
	if (err)
		fprintf(stderr, "gpurec report: writing the output: %s\n", gr_strerror(err));
	else
		ret = 0;
out:
	gr_job_free(&job);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct gr_model_load_opts lopts = {.max_records = gr_load_max_events()};
	struct gr_report_opts opts = {0};
	const char *paths[GR_MODEL_SET_MAX] = {NULL};
	int npaths;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	unsigned long top = 0; /* text: 20; JSON: every row */
	const char *out = NULL;
	int json = 0, html = 0, quiet = 0, job = 0, summary = 0, err, ret = 1;

	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},
	    {"html", no_argument, NULL, 'H'},
	    {"output", required_argument, NULL, 'o'},
	    {"only", required_argument, NULL, 'O'},
	    {"top", required_argument, NULL, 'T'},
	    {"sms", required_argument, NULL, 'S'},
	    {"slow-launch", required_argument, NULL, 'L'},
	    {"no-compensate", no_argument, NULL, 'N'},
	    {"step", required_argument, NULL, 'P'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"max-events", required_argument, NULL, 'M'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"job", no_argument, NULL, 'B'},
	    {"summary", no_argument, NULL, 'Y'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	unsigned long v;
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":hi:j:o:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'H':
			html = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'B':
			job = 1;
			break;
		case 'Y':
			summary = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'i': /* perf's spelling */
			paths[0] = optarg;
			break;
		case 'O':
			opts.sections = parse_only(optarg);
			if (!opts.sections) {
				fprintf(
				    stderr,
				    "gpurec report: --only '%s': sections are launches, fusion, "
				    "transfer, cpu, communication, ranks, memory, nvtx\n",
				    optarg);
				return 2;
			}
			break;
		case 'N':
			opts.no_compensate = 1;
			break;
		case 'P':
			opts.step = optarg;
			break;
		case 'T':
		case 'S':
		case 'L':
			if (gr_opt_count("report",
					 c == 'T'   ? "--top"
					 : c == 'S' ? "--sms"
						    : "--slow-launch",
					 optarg, 1000000000ul, &v))
				return 2;
			if (c == 'T')
				top = v;
			else if (c == 'S')
				opts.sms = (uint32_t)v;
			else
				opts.slow_launch_ns = (uint64_t)v * 1000;
			break;
		case 'j':
			if (gr_opt_jobs("report", optarg, &lopts.jobs))
				return 2;
			break;
		case 'M':
			if (gr_opt_max_events("report", optarg, &lopts.max_records))
				return 2;
			break;
		default:
			gr_opt_error("report", c, argv);
			usage(stderr);
			return 2;
		}
	}
	npaths = gr_opt_paths("report", argc, argv, paths, !!paths[0], GR_MODEL_SET_MAX);
	if (npaths < 0) {
		usage(stderr);
		return 2;
	}
	if (!npaths) {
		paths[0] = "gpurec.trc";
		npaths = 1;
	}
	for (int i = 0; i < npaths; i++)
		job |= gr_job_takes(paths[i]);
	if (summary || job || npaths > GR_JOB_DIRECT_MAX) {
		if (html) {
			fprintf(stderr,
				"gpurec report: --html is for one model of the traces, not "
				"a job reported trace by trace (--job, --summary, a "
				"directory, summaries or more than %d traces)\n",
				GR_JOB_DIRECT_MAX);
			return 2;
		}
		if (out && !summary) {
			fprintf(stderr, "gpurec report: -o is for --summary (or --html)\n");
			return 2;
		}
		if (summary && json) {
			fprintf(stderr, "gpurec report: --summary writes a summary, not JSON\n");
			return 2;
		}
		gr_progress_init("report", quiet);
		return report_job(paths, (size_t)npaths, &lopts, &opts, summary, out, json,
				  (unsigned)top);
	}
	if (gr_opt_html("report", html, json, out))
		return 2;
	gr_progress_init("report", quiet);
	if (gr_load_set("report", paths, (size_t)npaths, &lopts, &m))
		goto out;
	gr_progress_begin("computing the report", 0, NULL);
	/* one trace: its report may use the threads that loaded it (a job's traces run side by
	 * side, each on one) */
	opts.jobs = lopts.jobs ? lopts.jobs : gr_pool_cpus();
	err = gr_report_compute(m, &opts, &r);
	if (html && !err)
		gr_progress_begin("writing the page", 0, NULL);
	else
		gr_progress_end();
	if (err && opts.step && gr_report_step_error(err)) {
		fprintf(stderr, "gpurec report: --step '%s': %s\n", GR_TEXT(opts.step),
			gr_report_step_error(err));
		goto out;
	}
	if (err) {
		fprintf(stderr, "gpurec report: %s: %s\n", GR_TEXT(paths[0]), gr_strerror(err));
		goto out;
	}
	if (html) {
		long long bytes = -1;

		err = gr_html_report_save(out, m, r, paths, (size_t)npaths, &bytes);
		gr_progress_end();
		if (err) {
			fprintf(stderr, "gpurec report: writing %s: %s\n", out, gr_strerror(err));
			goto out;
		}
		printf("gpurec report: wrote %s (%.1f kB)\n", GR_TEXT(out), (double)bytes / 1e3);
		ret = 0;
		goto out;
	}
	if (!json) {
		printf("gpurec report:");
		for (int i = 0; i < npaths; i++)
			printf("%s %s", i ? " +" : "", GR_TEXT(paths[i]));
		printf(npaths > 1 ? " (one job)\n" : "\n");
	}
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
