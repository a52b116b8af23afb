/* SPDX-License-Identifier: MIT */
/*
 * What our own probes add to the traced threads' times, measured on this machine at the start of
 * each recording (before the command runs) with the recording's own BPF programs and stack mode.
 * record.c stores the result as SESSION facts (format/events.h, GR_SESS_PROBE_*); analyze/
 * probe_cost.c subtracts it (docs/REPORTS.md, "Probe cost").
 *
 * A probe's cost is split by the point where its BPF program reads the clock: the part before it
 * lies before the event's timestamp, the part after it after. Every value is a robust estimate
 * (the least of the medians of several batches), in ns.
 */
#ifndef GR_RECORD_CALIBRATE_H
#define GR_RECORD_CALIBRATE_H

#include <stdint.h>

struct gpurec_bpf;
struct gr_ringbuf;

struct gr_calibration {
	/* an entry-only probe (a launch without --launch-time), with the recording's stacks */
	uint64_t entry_pre, entry_post;
	/* a call probed at entry and return (copies, syncs, timed launches, sampled ones too: a
	 * session's return costs what a return probe does): before its entry
	 * timestamp, inside its measured duration, after its return timestamp */
	uint64_t call_pre, call_in, call_post;
	uint64_t elapsed_ns; /* what calibrating took, attach and detach included */
};

/*
 * Measure the probe cost with @skel's api_entry and api_return programs (loaded, with expected
 * attach type uprobe multi when @multi) attached to functions of this process (the entry-only
 * one through launch_session when @session: untimed launches are probed so), capturing stacks
 * when @stacks. This process is in the traced set only meanwhile; its events are read from @rb and
 * dropped, and the BPF loss counters are zeroed afterwards, so nothing of it reaches the trace.
 * Call it before anything else is traced. Returns 0, or -errno (*@out zeroed): no compensation.
 */
int gr_calibrate(struct gpurec_bpf *skel, struct gr_ringbuf *rb, int multi, int session, int stacks,
		 struct gr_calibration *out);

#endif
