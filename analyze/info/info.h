/* SPDX-License-Identifier: MIT */
/*
 * What `gpurec info` shows about a trace, computed once: event counts, launches per kernel name
 * and config (launch_stats.h), per process, thread and stream, copies, memsets, syncs,
 * allocations and graphs per kind. The renderers (info_text.c, info_json.c) read this and the
 * model's metadata (header, session facts, processes, threads, streams, losses, integrity);
 * they compute nothing.
 *
 * Ownership: gr_info_compute() fills a caller's struct and allocates its arrays;
 * gr_info_free() releases them. Indexes are the model's, as in launch_stats.h, so an info is
 * rendered with the model it was computed from.
 */
#ifndef GR_ANALYZE_INFO_H
#define GR_ANALYZE_INFO_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/figures/blocked.h"
#include "analyze/figures/launch_stats.h"
#include "analyze/figures/memory.h"
#include "analyze/figures/outcome.h"
#include "analyze/model/model.h"
#include "analyze/util/syscalls.h"
#include "format/events.h"

/* Buckets per kind: the kinds of format/events.h up to the last, then "other" for the rest. */
#define GR_INFO_COPY_KINDS  6 /* H2H H2D D2H D2D default, other */
#define GR_INFO_SYNC_KINDS  6
#define GR_INFO_ALLOC_KINDS 10
#define GR_INFO_GRAPH_KINDS 11

/* Kinds of "other" system call info names one by one; the rest are summed as "more". */
#define GR_INFO_OTHER_CALLS 8

/*
 * Blocked spans: the switch-outs of the traced processes' threads while sleeping (SCHED rows,
 * docs/FORMAT.md; gr_sched_blocks()), by why (analyze/util/syscalls.h). A trace older than
 * format 1.2 has no reasons: every span is GR_WAIT_NONE there, and known says so.
 */
struct gr_info_blocked {
	uint64_t total;
	int known; /* the trace records why (format 1.2+) */
	uint64_t by_class[GR_WAIT_NCLASSES];
	uint64_t fd_by_kind[GR_FD_OTHER + 1]; /* GR_WAIT_FD by enum gr_fd_kind */
	/* GR_WAIT_OTHER by call, most first (then by number); more: those past the list */
	struct {
		int32_t nr;
		uint64_t count;
	} other[GR_INFO_OTHER_CALLS];
	unsigned nother;
	uint64_t more;
	/* the blocked spans of every thread (the thread timeline, timeline.h: a switch-out while
	 * sleeping to the wakeup that ended it) by the reports' reasons (blocked.h), the
	 * classification the budget, export's blocked_spans and the HTML page make */
	uint64_t spans;
	uint64_t spans_by_reason[GR_BLOCK_NREASONS];
	/* scheduler records the recording lost and no loss counter saw, inferred from each
	 * thread's sequence (timeline.h: a thread switched out while not on a CPU, or in while on
	 * one); the thread's state since its record before is unknown */
	uint64_t switches_missing;
};

/* The program's NVTX calls (format 1.3's NVTX rows) by op: what the injection library saw. */
struct gr_info_nvtx {
	uint64_t total;
	uint64_t by_op[GR_NVTX_OP_COUNT]; /* enum gr_nvtx_op; [0]: ops this gpurec does not know */
};

/* The event kinds info counts, in the order it lists them. */
enum gr_info_event {
	GR_INFO_EV_LAUNCH,
	GR_INFO_EV_COPY,
	GR_INFO_EV_MEMSET,
	GR_INFO_EV_ALLOC,
	GR_INFO_EV_FREE,
	GR_INFO_EV_SYNC,
	GR_INFO_EV_SCHED,
	GR_INFO_EV_STACK, /* not a kind: events of any kind with a stack */
	GR_INFO_EV_GRAPH,
	GR_INFO_NEVENTS,
};

/* Names of enum gr_info_event, as both renderers print them ("launch", ..., "graph"). */
extern const char *const gr_info_event_names[GR_INFO_NEVENTS];

/* Calls of one kind. */
struct gr_info_sum {
	const char *kind; /* static: the kind's name, "other" for the last bucket */
	uint64_t count;
	uint64_t bytes; /* 0 for kinds without a size (syncs, graphs, frees) */
	uint64_t dur;	/* API call time summed, ns */
};

struct gr_info {
	uint64_t events[GR_INFO_NEVENTS]; /* records in the file per kind; [STACK] see above */
	uint64_t duration_ns;		  /* gr_model_time_span(): last - first */
	const char *stop_reason; /* static: "exit", "signal", "duration", "unknown"; NULL: none */

	/* launches: per kernel name (kernels, kernel_order), per pair, thread, process, stream */
	struct gr_launch_stats launches;
	/* launches.pair_by_name re-sorted for info's listing: within a name by count descending,
	 * then by the config's bytes (memcmp of struct gr_config), the order info always had */
	uint32_t *pair_order;
	uint32_t *thread_order; /* gr_model_threads() indexes sorted by (pid, tid) */

	struct gr_info_sum copies[GR_INFO_COPY_KINDS]; /* enum gr_copy_kind, then other */
	struct gr_info_sum memsets;
	struct gr_info_sum syncs[GR_INFO_SYNC_KINDS];	/* enum gr_sync_kind, then other */
	struct gr_info_sum allocs[GR_INFO_ALLOC_KINDS]; /* enum gr_alloc_kind, then other */
	struct gr_info_sum frees;
	struct gr_info_sum graphs[GR_INFO_GRAPH_KINDS]; /* enum gr_graph_kind, then other */

	/* the sums above count calls that did not fail and were not inside another; these are
	 * the others: failed, nested and in-flight calls */
	struct gr_outcome outcome;
	struct gr_info_blocked blocked;
	struct gr_info_nvtx nvtx;

	/* device memory (memory.h), over the whole recording (info finds no loop): the peak and
	 * what is outstanding at the end, per process */
	struct gr_memory memory;
};

/*
 * Compute everything info shows about @m into *@in (overwritten). Prints nothing. Returns 0, or
 * -ENOMEM / GR_ERR_LIMIT with *@in zeroed and nothing to free.
 */
int gr_info_compute(const struct gr_model *m, struct gr_info *in);

/* Release what gr_info_compute() allocated and zero *@in (NULL and a zeroed struct are
 * accepted). */
void gr_info_free(struct gr_info *in);

/*
 * Text rendering of @in, computed from @m, the trace at @path (as the user named it). Returns 0
 * or -EIO.
 */
int gr_info_write_text(FILE *f, const struct gr_info *in, const struct gr_model *m,
		       const char *path);

/* JSON rendering (indent 2). Returns 0, -EIO or GR_ERR_STATE (writer misuse). */
int gr_info_write_json(FILE *f, const struct gr_info *in, const struct gr_model *m,
		       const char *path);

#endif
