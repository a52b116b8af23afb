/* SPDX-License-Identifier: MIT */
/*
 * gpurec info [FILE] [--json]: what a trace holds. The header (command, host, times, exit
 * status, CUDA libraries), counts per record kind, kernels with their launch configs, copies per
 * direction, processes and threads, losses and the file's integrity. Options, load, compute
 * (info.c), render (info_text.c, info_json.c).
 */
#include <stdio.h>

#include "analyze/info/info.h"
#include "analyze/model/load.h"
#include "analyze/util/options.h"
#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "cmd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpurec info [FILE...] [--json] [--max-events N] [-j N] [-q]\n"
		"  FILE            trace to describe (default gpurec.trc); several: one job,\n"
		"                  aligned on the first one's clock; -i FILE names one too,\n"
		"                  as perf does\n"
		"  --json          machine-readable output (schema: docs/INFO.md)\n"
		"  --max-events N  refuse a trace of more than N events (default: what half\n"
		"                  the memory holds, %llu here; 0 = no limit)\n"
		"  -j, --jobs N    threads that load the trace (default: one per CPU; 1: none)\n"
		"  -q, --quiet     no progress on a terminal (shown for work of more than 2 s)\n"
		"  -h, --help      this text\n",
		(unsigned long long)gr_load_max_events());
}

int cmd_info(int argc, char **argv)
{
	struct gr_model_load_opts lopts = {.max_records = gr_load_max_events()};
	const char *paths[GR_MODEL_SET_MAX] = {NULL}, *path;
	int npaths;
	struct gr_model *m = NULL;
	struct gr_info in = {0};
	int json = 0, quiet = 0, err, ret = 1;

	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"max-events", required_argument, NULL, 'M'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":hi:j:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'i': /* perf's spelling */
			paths[0] = optarg;
			break;
		case 'j':
			if (gr_opt_jobs("info", optarg, &lopts.jobs))
				return 2;
			break;
		case 'M':
			if (gr_opt_max_events("info", optarg, &lopts.max_records))
				return 2;
			break;
		default:
			gr_opt_error("info", c, argv);
			usage(stderr);
			return 2;
		}
	}
	npaths = gr_opt_paths("info", argc, argv, paths, !!paths[0], GR_MODEL_SET_MAX);
	if (npaths < 0) {
		usage(stderr);
		return 2;
	}
	if (!npaths) {
		paths[0] = "gpurec.trc";
		npaths = 1;
	}
	/* a set is named by its first trace; the output lists them all */
	path = paths[0];
	gr_progress_init("info", quiet);
	if (gr_load_set("info", paths, (size_t)npaths, &lopts, &m))
		goto out;
	gr_progress_begin("counting", 0, NULL);
	err = gr_info_compute(m, &in);
	gr_progress_end();
	if (err) {
		fprintf(stderr, "gpurec info: %s: %s\n", GR_TEXT(path), gr_strerror(err));
		goto out;
	}
	err = json ? gr_info_write_json(stdout, &in, m, path)
		   : gr_info_write_text(stdout, &in, m, path);
	if (err) {
		fprintf(stderr, "gpurec info: writing the output: %s\n", gr_strerror(err));
		goto out;
	}
	ret = 0;
out:
	gr_info_free(&in);
	gr_model_free(m);
	return ret;
}
