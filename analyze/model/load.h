/* SPDX-License-Identifier: MIT */
/*
 * The one way a command opens a trace: load it, or tell the user why not in one line, "gpurec
 * CMD: PATH: reason (offset N)", with a hint when the file does not exist; a damaged one that
 * loads, in one line naming the damage. Every command that reads a trace goes through here, so
 * a damaged or missing file reads the same everywhere.
 */
#ifndef GR_ANALYZE_LOAD_H
#define GR_ANALYZE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/*
 * Load @path into *@out for command @cmd ("report", ...), with @o (NULL: defaults, every CPU).
 * Returns 0, or a negative error after printing why (stderr); past @o->max_records (GR_ERR_LIMIT)
 * that is "gpurec CMD: PATH: holds N events, more than --max-events M (about X GiB to load);
 * raise --max-events or use export --from/--to for a window". A damaged trace that loads is
 * said once on stderr too (damage.h: what was lost, figures are lower bounds).
 */
int gr_load_trace(const char *cmd, const char *path, const struct gr_model_load_opts *o,
		  struct gr_model **out);

/*
 * Load the @n traces at @paths as one job (gr_model_load_set(): one trace per node or launcher,
 * aligned on the first one's clock), or the one trace as gr_load_trace() when @n is 1. Errors
 * name the trace they concern; a trace that cannot be aligned (no clock anchor) is said on
 * stderr and read on its own clock.
 */
int gr_load_set(const char *cmd, const char *const *paths, size_t n,
		const struct gr_model_load_opts *o, struct gr_model **out);

/*
 * The recording start of @path, as gr_model_time_span() gives it for the whole trace (the
 * header's monotonic clock anchor, else the smallest first timestamp of the chunk index), into
 * *@start, from the header and the chunk index alone: no chunk is decoded. For a command whose
 * window is relative to the start, before it loads only the window. Returns 0, or a negative
 * error after printing why, as gr_load_trace().
 */
int gr_load_start(const char *cmd, const char *path, uint64_t *start);

/*
 * The default of every command's --max-events (struct gr_model_load_opts' max_records): the
 * records that take about half the memory this process may use (the machine's, or its cgroup's
 * cap when lower: v2 memory.max, v1 memory.limit_in_bytes) at GR_MODEL_RECORD_BYTES each, and
 * GR_LOAD_MIN_EVENTS at least. A trace over it fails at once, naming its count, instead of
 * growing until the kernel kills the command.
 */
#define GR_LOAD_MIN_EVENTS 10000000ull
uint64_t gr_load_max_events(void);

#endif
