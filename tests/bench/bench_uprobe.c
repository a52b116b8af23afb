/* SPDX-License-Identifier: MIT */
/*
 * Benchmark baseline: attach the empty uprobe (tests/bench/empty.bpf.c) to SYMBOL in LIBRARY for
 * every process, run COMMAND, detach. `make bench` divides gpurec's per-launch cost by this one's.
 * With --floor, the floor program instead: the stack arguments' read and a timestamp.
 *
 *   bench_uprobe [--floor] LIBRARY SYMBOL COMMAND [ARGS...]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tests/bench/empty.skel.h"

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct empty_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link;
	int status = 1, use_floor = argc > 1 && !strcmp(argv[1], "--floor");
	pid_t pid;

	argc -= use_floor;
	argv += use_floor;
	if (argc < 4) {
		fprintf(stderr, "usage: bench_uprobe [--floor] LIBRARY SYMBOL COMMAND [ARGS...]\n");
		return 2;
	}
	skel = empty_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "bench_uprobe: cannot load BPF: %s\n", strerror(errno));
		return 1;
	}
	opts.func_name = argv[2];
	prog = use_floor ? skel->progs.floor_uprobe : skel->progs.empty_uprobe;
	link = bpf_program__attach_uprobe_opts(prog, -1, argv[1], 0, &opts);
	if (!link) {
		fprintf(stderr, "bench_uprobe: cannot attach %s:%s: %s\n", argv[1], argv[2],
			strerror(errno));
		empty_bpf__destroy(skel);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	bpf_link__destroy(link);
	empty_bpf__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
