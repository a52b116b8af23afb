/* SPDX-License-Identifier: MIT */
/*
 * A stand-in libnccl.so.2 (selected with LD_LIBRARY_PATH, as samples/sim stands in for
 * libcudart): communicator creation succeeds and returns a handle of its own, every call returns
 * ncclSuccess at once. No communication happens: it gives tests successful calls with known
 * arguments, where the real libnccl fails without a GPU. Same entry points and ABI as nccl.h.
 */
#include <stdlib.h>

typedef struct {
	char internal[128];
} ncclUniqueId;

struct stand_in_comm {
	int nranks, rank;
};

int ncclCommInitRank(struct stand_in_comm **comm, int nranks, ncclUniqueId id, int rank)
{
	(void)id;
	*comm = calloc(1, sizeof(**comm));
	if (!*comm)
		return 2; /* ncclSystemError */
	(*comm)->nranks = nranks;
	(*comm)->rank = rank;
	return 0;
}

int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *comm, void *stream)
{
	(void)s, (void)r, (void)n, (void)t, (void)op, (void)stream;
	return comm ? 0 : 4; /* ncclInvalidArgument */
}

int ncclCommDestroy(struct stand_in_comm *comm)
{
	free(comm);
	return 0;
}
