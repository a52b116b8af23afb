/* SPDX-License-Identifier: MIT */
/*
 * A launcher that forks 4 ranks of one NCCL communicator, as torchrun would: each creates it
 * from the same ncclUniqueId, then makes N all-reduces of 1024 float32; rank 3 sleeps SLOW_MS
 * before each one, so it enters every all-reduce last (the others do not wait: the stand-in
 * libnccl, tests/progs/fake_libnccl.c, returns at once). Then a last all-reduce on a NULL
 * communicator that fails in every rank.
 *
 *   nccl_ranks N SLOW_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nccl.h>

#define NRANKS 4

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

	for (int r = 0; r < NRANKS; r++)
		if (fork() == 0)
			rank_main(r, n, slow_ms);
	for (int r = 0; r < NRANKS; r++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return bad;
}
