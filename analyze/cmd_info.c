/* SPDX-License-Identifier: MIT */
/*
 * gpurec info [FILE] [--json]: what a trace holds. The header (command, host, times, exit
 * status, CUDA libraries), counts per record kind, kernels with their launch configs, copies per
 * direction, processes and threads, losses and the file's integrity. Options, load, compute
 * (info.c), render (info_text.c, info_json.c).
 */
#include <stdio.h>

#include "cmd.h"
#include "info.h"
#include "load.h"
#include "options.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: gpurec info [FILE] [--json]\n"
		   "  FILE    trace to describe (default gpurec.trc)\n"
		   "  --json  machine-readable output\n");
}

int cmd_info(int argc, char **argv)
{
	struct gr_model_load_opts lopts = {0};
	const char *path = NULL;
	struct gr_model *m = NULL;
	struct gr_info in = {0};
	int json = 0, err, ret = 1;

	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	gr_opt_begin();
	while ((c = getopt_long(argc, argv, ":hi:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'i': /* perf's spelling */
			path = optarg;
			break;
		case 'j':
			if (gr_opt_jobs("info", optarg, &lopts.jobs))
				return 2;
			break;
		default:
			gr_opt_error("info", c, argv);
			usage(stderr);
			return 2;
		}
	}
	if (gr_opt_paths("info", argc, argv, &path, !!path, 1) < 0) {
		usage(stderr);
		return 2;
	}
	if (!path)
		path = "gpurec.trc";
	if (gr_load_trace("info", path, &lopts, &m))
		goto out;
	err = gr_info_compute(m, &in);
	if (err) {
		fprintf(stderr, "gpurec info: %s: %s\n", path, gr_strerror(err));
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
