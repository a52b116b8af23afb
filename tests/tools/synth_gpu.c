/* SPDX-License-Identifier: MIT */
/*
 * Test helper: writes the synthetic trace with GPU rows of tests/unit/synth_gpu.h (times and ties
 * chosen there) to FILE, for the end-to-end export tests.
 */
#include <stdio.h>

#include "tests/unit/synth_gpu.h"

int main(int argc, char **argv)
{
	(void)synth_write; /* synth.h's standard trace: not this one */
	if (argc != 2) {
		fprintf(stderr, "usage: synth_gpu FILE\n");
		return 2;
	}
	if (synth_gpu_write(argv[1])) {
		fprintf(stderr, "synth_gpu: %s: cannot write\n", argv[1]);
		return 1;
	}
	return 0;
}
