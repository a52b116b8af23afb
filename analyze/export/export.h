/* SPDX-License-Identifier: MIT */
/*
 * A trace as Chrome trace-event JSON (the "JSON Object Format" that ui.perfetto.dev and
 * chrome://tracing open). Timestamps are microseconds from the recording start (the header's
 * clock anchor), with nanosecond decimals. One event per line.
 *
 * Tracks: a process per traced pid and a thread per traced tid, named by "M" metadata events.
 * Each thread that has scheduler events gets a second track, "<comm> <tid> CPU state", and each
 * stream a track "stream 0x..." in its process; these extra tracks use tids from
 * GR_EXPORT_TID_BASE up, above any real tid (PID_MAX_LIMIT), so they never collide. The tracks
 * written are sorted: threads by (pid, tid), each with its CPU-state track after it, then streams
 * by (pid, handle), then GPU tracks by (pid, device, stream); their extra tids and sort indexes,
 * and the flows' ids (launches written, in order, from 1; then the GPU rows' flows, in
 * gr_model_gpus() order), depend on what the window holds alone. So a model loaded for the window
 * alone (gr_model_load_opts()'s window, margin GR_MODEL_MARGIN_NS) gives the same JSON as a whole
 * one, but for what began more than the margin before the window: an API call that long reaching
 * into it, a thread state entered before the margin (not drawn), the CPU-state track of a thread
 * whose calls are all older (that model does not know the thread).
 *
 * - every CUDA API call (launch, copy, memset, alloc, free, sync, graph) is one "X" slice on its
 *   thread, named by the API function, with cat the call's kind and its arguments in args;
 *   dur is the measured API time, 0 when the recording did not time the call;
 * - every NCCL call is an "X" slice on its thread, cat "nccl", named by the function, with its
 *   kind, communicator (comm, comm_id, nranks, rank), count, dtype, bytes, stream, peer or root
 *   and, for a collective, seq (its number on the communicator: one seq of one comm_id is one
 *   operation across ranks) in args; one not done is named and marked as an aside below is;
 * - every launch is also an "i" instant on its stream's track, named by the kernel, and (unless
 *   no_flows) a flow ("s" on the thread, "f" on the stream track) joining the two;
 * - a launch, copy or memset that was a graph node (graphs.h) executed nothing: it is a slice
 *   "captured: KERNEL" (or "graph node: ...", cat "graph_node", args graph_node: true), without
 *   instant or flow; a graph launch's slice says the kernels, copies and memsets it executed and
 *   each kernel name's count;
 * - a call set aside (model.h struct gr_aside: failed, nested, in flight) is a slice on its
 *   thread named "API (failed: STATUS)" or "API (in flight)", args status, depth, in_flight and
 *   until; never an instant or a flow;
 * - scheduler states of each traced thread as "X" slices "running", "runnable" and "blocked"
 *   (cat "sched") on the thread's CPU-state track, between the switch and wakeup events that
 *   delimit them, by the rules of the shared thread timeline (timeline.h); a state whose start
 *   was not recorded is not drawn (a thread's first record that is a wakeup it issued starts
 *   its "running" state); a thread switched out dead (TASK_DEAD) has no state after; in a
 *   trace that records why threads block (blocked.h), a "blocked" slice also has args reason,
 *   syscall (or syscall_nr when unnamed), woken_by and waker_site (when a wakeup ended it), and
 *   the stack the thread slept at ("sf"; Perfetto: its callstack); JSON only, unless no_flows, a
 *   flow (cat "wake") from the waker's CPU-state track to the blocked thread's at the wakeup
 *   that ended the slice, when the waker is a traced thread the pid filter keeps;
 * - GPU rows (--cupti, gpu.h): a track "GPU N stream 0x..." per (pid, device, stream), CUPTI's
 *   ids (streams are per process), after the process's thread and stream tracks; an "X" slice
 *   per row at its GPU time: a kernel named by its (demangled) name, cat "gpu_kernel", with
 *   grid, block, shared_mem; "memcpy KIND", cat "gpu_memcpy", with copy_kind and bytes;
 *   "memset", cat "gpu_memset", with bytes; all with correlation, graph and graph_node (from a
 *   graph) and the call they are tied to (call, call_tid). Unless no_flows, a flow (JSON "s"
 *   named "gpu" at the call's entry on its thread, "f" on the GPU slice; Perfetto: the flow's id
 *   on both slices) from the slice of the call that made the row, when that slice is written; a
 *   row tied to no recorded call is a slice without a flow (gpu_untied). A trace without GPU
 *   rows exports as it did before they existed, byte for byte;
 * - NVTX ranges (figures/nvtx.h; format 1.3): a push/pop range is an "X" slice on its thread,
 *   named by its message, cat "nvtx", its API calls nested in it; a start/end range (it may end
 *   on another thread) is an "X" slice on a track "NVTX start/end N" of its process (tids
 *   from 2 * GR_EXPORT_TID_BASE, numbered in the order ranges start), on the first track whose
 *   ranges have all ended, as nsys draws them apart from threads; both have args domain,
 *   category, color (ARGB hex), payload, payload_type, depth, closed (0: still open when the
 *   recording ended) and, for start/end, end_tid; a mark is an "i" instant on its thread, cat
 *   "nvtx_mark". A thread or stream the program named with NVTX has that name on its tracks;
 * - losses as global "i" instants (cat "loss"); process start, exec, exit as process instants;
 * - with steps given (gr_export_opts.step_starts, --step): a track "steps (--step SPEC)" in the
 *   step thread's process, after every other track (its tid the next one after the GPU tracks'),
 *   with an "X" slice "step N" (N from 0, cat "step", args index) per step, clipped to the window
 *   as scheduler states are; none when the window or the pid filter leaves the thread out.
 */
#ifndef GR_ANALYZE_EXPORT_H
#define GR_ANALYZE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/model/model.h"

#define GR_EXPORT_TID_BASE 4194304u /* PID_MAX_LIMIT: no real tid reaches it */

struct gr_export_opts {
	/* Window in ns from the recording start: events that overlap [from_ns, to_ns] are
	 * written, scheduler states clipped to it. has_to 0 = to the end. */
	uint64_t from_ns, to_ns;
	int has_to;
	const uint32_t *pids; /* only these processes (losses are global: always kept) */
	size_t npids;	      /* 0 = every process */
	int no_flows; /* no flows (launch nor GPU): about a third smaller for launch-heavy traces */
	/* --step SPEC: the named steps (nsteps > 0), found by the caller (export never computes a
	 * report): step j spans step_starts[j] to step_starts[j + 1], the last to step_end, all in
	 * the model's ns (absolute, as its ts); on thread step_thread (a gr_model_threads() index),
	 * whose process gets a track "steps (--step STEP_SPEC)". NULL/0: no step track. */
	const uint64_t *step_starts;
	size_t nsteps;
	uint64_t step_end;
	uint32_t step_thread;
	const char *step_spec;
};

/* What was written, per sort of event. */
struct gr_export_stats {
	uint64_t api_slices[GR_K_COUNT]; /* "X" slices of executed API calls, by enum gr_kind */
	uint64_t api_total;
	uint64_t node_slices;  /* graph nodes: launches, copies, memsets that executed nothing */
	uint64_t aside_slices; /* failed, nested and in-flight calls (model.h struct gr_aside) */
	uint64_t sched_slices;
	uint64_t launch_instants; /* on stream tracks */
	uint64_t flows;		  /* launch flows: pairs of "s" + "f" */
	uint64_t gpu_slices;	  /* GPU rows (--cupti), on GPU tracks */
	uint64_t gpu_flows;	  /* from the call that made a GPU row to its slice: "s" + "f" */
	uint64_t gpu_untied;	  /* GPU slices tied to no recorded call (gpu.h): never a flow */
	uint64_t step_slices;	  /* "step N" slices on the steps track (--step) */
	uint64_t memory_counters; /* points of live device bytes, per process ("C" events) */
	uint64_t nvtx_slices;	  /* NVTX ranges (nvtx.h): push/pop on their threads, start/end
				   * on their process's NVTX lanes */
	uint64_t nvtx_instants;	  /* NVTX marks, on their threads */
	/* from the waker's CPU-state track to the blocked thread's, at the wakeup that ended a
	 * blocked slice (a trace that records why threads block): JSON "s" + "f"; Perfetto a
	 * "wake" instant and the woken thread's next slice */
	uint64_t wake_flows;
	uint64_t loss_instants, proc_instants;
	uint64_t metadata;
	uint64_t events; /* every event above, metadata included */
};

/*
 * Write the Chrome trace JSON of @m to @f. @o may be NULL (everything). @st (may be NULL) gets
 * the counts. The JSON is built in a buffer of its own and written to @f in large blocks, then @f
 * is flushed. Returns 0, -ENOMEM, or -EIO when writing @f failed; prints nothing.
 */
int gr_export_chrome(const struct gr_model *m, FILE *f, const struct gr_export_opts *o,
		     struct gr_export_stats *st);

/*
 * The same events as gr_export_chrome() in Perfetto's protobuf trace format (export_perfetto.h,
 * docs/EXPORT.md "Perfetto"), streamed to @f packet by packet: slices as begin and end track
 * events, flows as flow ids on the launch's slice and its instant, the tracks' names as track
 * descriptors, call stacks as an interned "stack" argument. @st counts as for JSON, but for the
 * flows' own events and sort-index metadata, which this form has none of. Returns 0, -ENOMEM, or
 * -EIO when writing @f failed; prints nothing.
 */
int gr_export_perfetto(const struct gr_model *m, FILE *f, const struct gr_export_opts *o,
		       struct gr_export_stats *st);

/*
 * The rows of the kinds that make most of an export's work (launches, copies, memsets, scheduler
 * events), for its progress: JSON and Perfetto walk them twice (counting, then writing: two
 * pieces of work), the tables once; each walk counts one per row to gr_progress_add()
 * (progress.h).
 */
uint64_t gr_export_rows_estimate(const struct gr_model *m);

/*
 * What gr_export_chrome() would write with @o, counted without formatting anything (metadata
 * events are not counted): a cheap size estimate before a long write. Returns 0 or -ENOMEM.
 */
int gr_export_count(const struct gr_model *m, const struct gr_export_opts *o,
		    struct gr_export_stats *st);

/*
 * The launches gr_export_chrome() would write with @o, the pid filter aside, per process: @per
 * has one entry per gr_model_processes() entry, which this sets. Returns 0 or -ENOMEM.
 */
int gr_export_process_launches(const struct gr_model *m, const struct gr_export_opts *o,
			       uint64_t *per);

#endif
