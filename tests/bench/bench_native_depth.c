/* SPDX-License-Identifier: MIT */
/*
 * make bench: cudaLaunchKernel calls (the real libcudart.so.13, dlopen()ed: without a driver
 * each fails at once, yet the probes see it) from native stacks DEPTH frames deep, in a
 * recursion built without frame pointers, as PyTorch's libraries are: the walk by unwind tables
 * (--call-graph cfi) reads every frame's rule, a frame-pointer walk stops at the first. Blocks of
 * N launches, ROUNDS rounds of one block per DEPTH, the depths' order turned each round so that
 * drift in a loaded machine hits every depth alike. A block is timed around its loop only, in
 * the thread's CPU time (the uprobe trap and the BPF programs run on the launching thread). One
 * line per block:
 *
 *   block DEPTH NS_PER_LAUNCH
 *
 * usage: bench_native_depth N ROUNDS DEPTH [DEPTH...]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
	unsigned x, y, z;
} dim3;
typedef int (*launch_fn)(const void *, dim3, dim3, void **, size_t, void *);

static launch_fn launch;

static uint64_t thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static __attribute__((noinline)) uint64_t launches(long n)
{
	uint64_t start = thread_ns();

	for (long i = 0; i < n; i++)
		launch((const void *)4096, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, NULL);
	return thread_ns() - start;
}

/* One frame per level, without a frame pointer (the project builds with them); the volatile
 * keeps the recursion from becoming a loop. */
static __attribute__((noinline, optimize("omit-frame-pointer"))) uint64_t down(int depth, long n)
{
	volatile int keep = depth;

	if (depth > 1)
		return down(depth - 1, n) + (uint64_t)(keep - depth);
	return launches(n);
}

int main(int argc, char **argv)
{
	void *lib = dlopen("libcudart.so.13", RTLD_NOW);
	long n = argc > 1 ? atol(argv[1]) : 0;
	int rounds = argc > 2 ? atoi(argv[2]) : 0, ndepths = argc - 3;

	if (n <= 0 || rounds <= 0 || ndepths <= 0) {
		fprintf(stderr, "usage: bench_native_depth N ROUNDS DEPTH [DEPTH...]\n");
		return 2;
	}
	if (!lib || !(launch = (launch_fn)dlsym(lib, "cudaLaunchKernel"))) {
		fprintf(stderr, "bench_native_depth: %s\n", dlerror());
		return 1;
	}
	launches(n / 10 + 1); /* the runtime's first call initialises it */
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < ndepths; k++) {
			int depth = atoi(argv[3 + (r + k) % ndepths]);

			printf("block %d %.1f\n", depth, (double)down(depth, n) / (double)n);
		}
	return 0;
}
