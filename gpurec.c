/* SPDX-License-Identifier: MIT */
/* gpurec: record CUDA host activity with eBPF, replay it anywhere. The command table. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"record", cmd_record, "run a command (or attach with -p) and record its CUDA activity"},
    {"report", cmd_report, "the four reports: launches, fusion, transfers, CPU starvation"},
    {"info", cmd_info, "header, counts, losses and integrity of a trace"},
    {"diff", cmd_diff, "compare two traces: kernels, launches per iteration, copies, CPU"},
    {"export", cmd_export, "a trace as Chrome trace JSON (ui.perfetto.dev, chrome://tracing)"},
    {"check", cmd_check, "can this machine record? kernel features, privileges, CUDA libraries"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gpurec <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'gpurec <command> --help' for a command's options. See also gpurec(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gpurec %s\n", GPUREC_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "gpurec: '%s' is not a command\n\n", argv[1]);
	usage(stderr);
	return 2;
}
