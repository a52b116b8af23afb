/* SPDX-License-Identifier: MIT */
/*
 * A stand-in libnccl.so.2 (selected with LD_LIBRARY_PATH, as samples/sim stands in for
 * libcudart): communicator creation succeeds and returns a handle of its own, every call returns
 * ncclSuccess at once. No communication happens: it gives tests successful calls with known
 * arguments, where the real libnccl fails without a GPU. Same entry points and ABI as nccl.h.
 * Like the real one, an all-reduce launches its kernel through the driver (libcuda.so.1, when
 * one loads: tests/progs/fake_libcuda.c), from inside the call.
 */
#include <dlfcn.h>
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

typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			 unsigned bz, unsigned shmem, void *stream, void **params, void **extra);

/* The driver's cuLaunchKernel, NULL when no libcuda.so.1 loads. */
static launch_fn driver_launch(void)
{
	static void *lib;

	if (!lib)
		lib = dlopen("libcuda.so.1", RTLD_NOW);
	return lib ? (launch_fn)dlsym(lib, "cuLaunchKernel") : NULL;
}

int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *comm, void *stream)
{
	static char kernel;
	launch_fn launch;

	(void)s, (void)r, (void)n, (void)t, (void)op;
	if (!comm)
		return 4; /* ncclInvalidArgument */
	launch = driver_launch();
	if (launch && launch(&kernel, 4, 1, 1, 256, 1, 1, 0, stream, NULL, NULL))
		return 1; /* ncclUnhandledCudaError */
	return 0;
}

int ncclCommDestroy(struct stand_in_comm *comm)
{
	free(comm);
	return 0;
}
