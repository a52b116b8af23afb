/* SPDX-License-Identifier: MIT */
/*
 * A launcher that forks 4 ranks of one NCCL communicator, as torchrun would: each creates it
 * from the same ncclUniqueId, then makes N all-reduces of 1024 float32; rank 3 sleeps SLOW_MS
 * before each one, so it enters every all-reduce last (the others do not wait: the stand-in
 * libnccl, tests/progs/fake_libnccl.c, returns at once). Then a last all-reduce on a NULL
 * communicator that fails in every rank.
 *
 * FIRST..LAST (default 0..3) are the ranks this launcher forks: two launchers recorded apart,
 * one with 0 1 and one with 2 3, make one job of two traces. With NCCL_RANKS_GO=PATH, the
 * launcher creates PATH.ready.FIRST once it runs (under its recorder) and its ranks begin only
 * when PATH exists: the test starts both halves together.
 *
 *   nccl_ranks N SLOW_MS [FIRST LAST]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nccl.h>

#define NRANKS 4

/* Until @path exists (the test's go), or at once without one. */
static void wait_for_go(const char *path)
{
	struct timespec tick = {0, 1000000};

	while (path && access(path, F_OK))
		nanosleep(&tick, NULL);
}

static void rank_main(int rank, int n, int slow_ms)
{
	struct timespec slow = {slow_ms / 1000, (slow_ms % 1000) * 1000000L};
	ncclComm_t comm = NULL;
	ncclUniqueId id;
	static float buf[1024];

	for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++)
		id.internal[i] = (char)(i * 7 + 1);
	if (ncclCommInitRank(&comm, NRANKS, id, rank) != ncclSuccess)
		exit(1);
	wait_for_go(getenv("NCCL_RANKS_GO"));
	for (int i = 0; i < n; i++) {
		if (rank == NRANKS - 1)
			nanosleep(&slow, NULL);
		if (ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, NULL) != ncclSuccess)
			exit(1);
	}
	if (ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, NULL, NULL) == ncclSuccess)
		exit(1);
	ncclCommDestroy(comm);
	exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, slow_ms = argc > 2 ? atoi(argv[2]) : 20, bad = 0;
	int first = argc > 4 ? atoi(argv[3]) : 0, last = argc > 4 ? atoi(argv[4]) : NRANKS - 1;

	if (first < 0 || last >= NRANKS || first > last) {
		fprintf(stderr, "nccl_ranks: ranks %d..%d: not within 0..%d\n", first, last,
			NRANKS - 1);
		return 2;
	}
	if (getenv("NCCL_RANKS_GO")) {
		char ready[4096];
		FILE *f;

		snprintf(ready, sizeof(ready), "%s.ready.%d", getenv("NCCL_RANKS_GO"), first);
		f = fopen(ready, "w");
		if (!f || fclose(f))
			return 2;
	}
	for (int r = first; r <= last; r++)
		if (fork() == 0)
			rank_main(r, n, slow_ms);
	for (int r = first; r <= last; r++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return bad;
}
