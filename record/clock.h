/* SPDX-License-Identifier: MIT */
/* The recorder's clock reads: CLOCK_MONOTONIC is the BPF side's bpf_ktime_get_ns(). */
#ifndef GR_RECORD_CLOCK_H
#define GR_RECORD_CLOCK_H

#include <stdint.h>
#include <time.h>

/* @clk now, in ns. Async-signal-safe (clock_gettime is). */
static inline uint64_t gr_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#endif
