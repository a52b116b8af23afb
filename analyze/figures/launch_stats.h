/* SPDX-License-Identifier: MIT */
/*
 * Launches aggregated once, for every command that counts them (info, report, diff): per kernel
 * NAME (struct gr_kernel.name_id, so one kernel loaded by two processes is one entry), per
 * (kernel name, launch config) pair, and per model thread, process and stream. One pass over
 * gr_model_launches() that counts per launch key (gr_model_launch_keys(): launches that share
 * one share their pair, thread and stream), no allocation per launch, made for 10^8 launches;
 * then the keys make the pairs.
 *
 * Pairs are numbered 0, 1, 2, ... in order of first launch (the launch array's order, which is
 * by ts, stable), the numbering report's call tokens use. A consumer that keys kernels by
 * something coarser than the config (diff: name, name + grid, name + block) sums pairs[]: every
 * pair carries its config index, count and launch-call time.
 *
 * Ownership: gr_launch_stats_compute() fills a caller's struct with arrays it allocates;
 * gr_launch_stats_free() releases them. Nothing points into the model, but every index is one
 * of the model's (gr_model_kernel_names(), gr_model_configs(), gr_model_threads(),
 * gr_model_processes(), gr_model_streams(), gr_model_launches()), so the figures mean something
 * only next to the model they were computed from.
 */
#ifndef GR_ANALYZE_LAUNCH_STATS_H
#define GR_ANALYZE_LAUNCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"
#include "graphs.h"

/* One (kernel name, launch config) pair. */
struct gr_launch_pair {
	uint32_t name_id;  /* gr_model_kernel_names() index */
	uint32_t config;   /* gr_model_configs() index */
	uint64_t count;	   /* launches: host launch calls, graph nodes included */
	uint64_t executed; /* kernels executed: launches that were not graph nodes, plus the
			      pair's kernel nodes in every graph launch (graphs.h) */
	uint64_t dur;	   /* launch call time summed, ns (0 when launches were not timed) */
};

/* One kernel name: the sum of its pairs. */
struct gr_launch_kernel {
	uint64_t count;	   /* launches (host launch calls) */
	uint64_t executed; /* kernels executed (struct gr_launch_pair.executed) */
	uint64_t dur;	   /* launch call time summed, ns */
	uint32_t first;	   /* its pairs are pair_by_name[first .. first + npairs) */
	uint32_t npairs;
};

struct gr_launch_stats {
	uint64_t nlaunches;  /* gr_model_launches() entries */
	uint64_t with_stack; /* launches with a stack (stack != 0) */
	uint64_t measured;   /* launches with a measured call time (dur > 0) */
	uint64_t executed;   /* kernels executed, all kernels together */
	/* the trace's graphs replayed (graphs.h): which launches were nodes, what graph launches
	 * executed; owned by the stats, for every section that needs them */
	struct gr_graphs *graphs;

	/* per kernel name, indexed by name_id: nkernels == gr_model_kernel_names() entries */
	struct gr_launch_kernel *kernels;
	size_t nkernels;
	/* every name_id once: by count descending, then name (strcmp; names are distinct) */
	uint32_t *kernel_order;

	/* per pair, indexed by pair id (order of first launch) */
	struct gr_launch_pair *pairs;
	size_t npairs;
	/* every pair id once, grouped by name_id ascending (see gr_launch_kernel.first); within a
	 * name by count descending, then config index ascending */
	uint32_t *pair_by_name;
	/* per launch key (gr_model_launch_keys() index): the pair id of its launches (0 for a key
	 * no launch uses) */
	uint32_t *pair_of_key;

	/* launches per model table entry, indexed as the model's table (zero for an entry that
	 * launched nothing) */
	uint64_t *thread_launches; /* gr_model_threads() index */
	size_t nthreads;
	uint64_t *process_launches; /* gr_model_processes() index: its threads together */
	size_t nprocesses;
	uint64_t *stream_launches; /* gr_model_streams() index */
	size_t nstreams;
};

/*
 * Aggregate the launches of @m into *@out (overwritten, no need to zero it). Returns 0, or
 * -ENOMEM / GR_ERR_LIMIT (more than 2^31 pairs) with *@out zeroed and nothing to free. Every
 * array is allocated (non-NULL, possibly empty) on success.
 */
int gr_launch_stats_compute(const struct gr_model *m, struct gr_launch_stats *out);

/* Release what gr_launch_stats_compute() allocated and zero *@s (NULL and a zeroed struct are
 * accepted). */
void gr_launch_stats_free(struct gr_launch_stats *s);

/* The pairs of kernel name @name_id (< nkernels): its npairs pair ids, most launched first. */
static inline const uint32_t *gr_launch_stats_kernel_pairs(const struct gr_launch_stats *s,
							   uint32_t name_id)
{
	return s->pair_by_name + s->kernels[name_id].first;
}

#endif
