/* SPDX-License-Identifier: MIT */
/*
 * `make bench`'s NVTX load: N push/pop pairs of one thread, timed after a first pair that loads
 * the NVTX tool (if any). Prints "ns_per_pair X".
 *   nvtx_loop N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	double t;

	nvtxRangePushA("warm");
	nvtxRangePop();
	t = now();
	for (long i = 0; i < n; i++) {
		nvtxRangePushA("pair");
		nvtxRangePop();
	}
	printf("ns_per_pair %.1f\n", (now() - t) / n);
	return 0;
}
