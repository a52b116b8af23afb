/* SPDX-License-Identifier: MIT */
/*
 * What every sample shares: the step count from argv[1], a wall clock, an error tally that
 * never stops a sample (without a driver every CUDA call fails, and the sample must still make
 * the same calls), and the one-line summary a sample prints on stdout:
 *     <name>: steps=N launches=N syncs=N copies=N errors=N wait_us=N loop_us=N
 * launches, syncs and copies count the calls of the timed loop only, errors every failed CUDA
 * call of the run; loop_us is the wall time of the loop (sample_loop_start() to the summary),
 * wait_us the part of it the launching thread spent runnable but not running, by the kernel's
 * own accounting (schedstat run_delay): what other work on the machine added to loop_us.
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

/* This thread's time runnable but not running so far, in us (0 where the kernel does not say). */
static inline double sample_run_delay_us(void)
{
	unsigned long long run_ns = 0, delay_ns = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run_ns, &delay_ns) != 2)
			delay_ns = 0;
		fclose(f);
	}
	return delay_ns / 1e3;
}

static double loop_start_us, loop_start_delay_us;

/* The timed loop begins (called by the thread that runs it). */
static inline void sample_loop_start(void)
{
	loop_start_delay_us = sample_run_delay_us();
	loop_start_us = sample_now_us();
}

/* The timed loop has ended: prints the summary line. */
static inline void sample_summary(const char *name, long steps)
{
	double loop_us = sample_now_us() - loop_start_us;
	double wait_us = sample_run_delay_us() - loop_start_delay_us;

	printf("%s: steps=%ld launches=%ld syncs=%ld copies=%ld errors=%ld wait_us=%.0f "
	       "loop_us=%.0f\n",
	       name, steps, tally.launches, tally.syncs, tally.copies, tally.errors, wait_us,
	       loop_us);
}

#endif
