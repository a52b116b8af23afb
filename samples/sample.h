/* SPDX-License-Identifier: MIT */
/*
 * What every sample shares: the step count from argv[1], a wall clock, an error tally that
 * never stops a sample (without a driver every CUDA call fails, and the sample must still make
 * the same calls), and the one-line summary a sample prints on stdout:
 *     <name>: steps=N launches=N syncs=N copies=N errors=N loop_us=N
 * launches, syncs and copies count the calls of the timed loop only, errors every failed CUDA
 * call of the run; loop_us is the wall time of the loop.
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

struct sample_tally {
	long launches, syncs, copies, errors;
};

static struct sample_tally tally;

static inline long sample_steps(int argc, char **argv, long fallback)
{
	long n = argc > 1 ? atol(argv[1]) : fallback;

	return n < 0 ? 0 : n;
}

static inline double sample_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Host work without CUDA calls (a framework's per-step overhead): a busy loop, not a sleep. */
static inline void sample_busy_us(double us)
{
	double end = sample_now_us() + us;

	while (sample_now_us() < end)
		;
}

static inline void ck(cudaError_t err)
{
	if (err != cudaSuccess)
		tally.errors++;
}

static inline void sample_summary(const char *name, long steps, double loop_us)
{
	printf("%s: steps=%ld launches=%ld syncs=%ld copies=%ld errors=%ld loop_us=%.0f\n", name,
	       steps, tally.launches, tally.syncs, tally.copies, tally.errors, loop_us);
}

#endif
