/* SPDX-License-Identifier: MIT */
/*
 * Test helper: writes the synthetic training loop of tests/unit/synth_gpu_loop.h, recorded with
 * --cupti and with GPU times given here, for the end-to-end test of `gpurec diff`'s GPU figures
 * (tests/e2e/diff_gpu.sh).
 *
 *   trace_gpu_loop FILE ITERATIONS A_NS B_NS DROPPED
 */
#include <stdio.h>
#include <stdlib.h>

/* the unit tests' header-only writers: this helper uses the loop's, not the standard trace's */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../unit/synth_gpu_loop.h"

static int arg(const char *s, unsigned long long *v)
{
	char *end;

	*v = strtoull(s, &end, 10);
	return *s && !*end;
}

int main(int argc, char **argv)
{
	unsigned long long n, a, b, dropped;

	if (argc != 6 || !arg(argv[2], &n) || !arg(argv[3], &a) || !arg(argv[4], &b) ||
	    !arg(argv[5], &dropped) || !n || n > 100000) {
		fprintf(stderr, "usage: trace_gpu_loop FILE ITERATIONS A_NS B_NS DROPPED\n");
		return 2;
	}
	if (synth_gpu_loop(argv[1], (unsigned)n, a, b, dropped)) {
		fprintf(stderr, "trace_gpu_loop: %s: cannot write it\n", argv[1]);
		return 1;
	}
	return 0;
}
