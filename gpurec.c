/* SPDX-License-Identifier: MIT */
/* gpurec: record CUDA host activity with eBPF, replay it anywhere. The command table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "record/identity.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	int bpf; /* loads BPF: keeps root under sudo (and drops it itself where a user acts) */
};

static const struct command commands[] = {
    {"record", cmd_record, "run a command (or attach with -p) and record its CUDA activity", 1},
    {"report", cmd_report,
     "the step, launches, fusion, transfers, CPU, NCCL, ranks (text/JSON/HTML)", 0},
    {"info", cmd_info, "header, counts, losses and integrity of a trace", 0},
    {"diff", cmd_diff, "compare two traces: kernels, launches per iteration, copies, CPU", 0},
    {"export", cmd_export, "a trace as Chrome JSON, Perfetto protobuf, SQLite or CSV", 0},
    {"check", cmd_check, "can this machine record? kernel features, privileges, CUDA libraries", 1},
};

/*
 * Replay needs no privilege: under sudo it runs with the invoking user's rights alone, so that a
 * sudoers line for gpurec lends root to record's BPF and to nothing that reads or writes files.
 */
static int drop_for_replay(const struct command *c)
{
	struct gr_identity id;
	int err;

	if (c->bpf)
		return 0;
	gr_identity_resolve(&id);
	err = gr_identity_drop(&id);
	if (err)
		fprintf(stderr, "gpurec %s: cannot take the invoking user's rights: %s\n", c->name,
			strerror(-err));
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gpurec <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\noptions:\n  -h, --help  this text (also 'gpurec help')\n"
		   "  --version   gpurec's version\n"
		   "\n'gpurec <command> --help' for a command's options. See also gpurec(1).\n");
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
			return drop_for_replay(&commands[i]) ? 1
							     : commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "gpurec: '%s' is not a command\n\n", argv[1]);
	usage(stderr);
	return 2;
}
