/* SPDX-License-Identifier: MIT */
/* The capture surface: which CUDA entry points gpurec probes, and how each one is read. */
#ifndef GR_RECORD_PROBES_H
#define GR_RECORD_PROBES_H

#include <stddef.h>
#include <stdint.h>

struct gr_probe_spec {
	const char *symbol; /* exported name in libcudart / libcuda (or a static executable) */
	uint16_t api;	    /* enum gr_api */
	uint8_t layout;	    /* enum gr_layout */
	uint32_t flags;	    /* GR_CF_* */
	uint8_t name_probe; /* also attach the sleepable name reader at entry */
};

/* The whole table; *n receives its length. */
const struct gr_probe_spec *gr_probes_table(size_t *n);

/* Options that change what is attached. */
struct gr_probe_opts {
	int stacks;	 /* capture user stacks at launches, copies, syncs */
	int launch_time; /* return probes on launches too: exact API time, ~2x the cost */
	/* without launch_time: 1 launch in launch_sample per thread timed through a uprobe session
	 * (GR_LAUNCH_SAMPLE; bpf/gpurec.bpf.c, launch_session); 0: none (no sessions) */
	unsigned launch_sample;
};

/* The launch sampling period, a power of two (the BPF side masks): the cost of timing 1 launch
 * in 64 is lost in the noise (make bench). */
#define GR_LAUNCH_SAMPLE 64
_Static_assert((GR_LAUNCH_SAMPLE & (GR_LAUNCH_SAMPLE - 1)) == 0, "a power of two");

/* The attach cookie for @spec under @opts. */
uint64_t gr_probe_cookie(const struct gr_probe_spec *spec, const struct gr_probe_opts *opts);
/* Whether @spec is a launch whose calls are sampled through the session program under @opts. */
int gr_probe_sampled(const struct gr_probe_spec *spec, const struct gr_probe_opts *opts);
/* Whether @spec gets a return probe under @opts. */
int gr_probe_has_return(const struct gr_probe_spec *spec, const struct gr_probe_opts *opts);

#endif
