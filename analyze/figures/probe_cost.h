/* SPDX-License-Identifier: MIT */
/*
 * What our own probes added to the host times of a recording, and the subtraction of it: the one
 * place every command (report, diff, export) takes it from. The recorder measured it at the start
 * of the recording (SESSION facts GR_SESS_PROBE_*, record/calibrate.h); docs/REPORTS.md ("Probe
 * cost") says which share of each probe lands in which measured interval.
 *
 * A call is probed at entry only (an untimed launch: dur 0 in the trace) or at entry and return
 * (every other call, launches recorded with --launch-time, and the sample of launches a default
 * recording times through a uprobe session, whose return half costs what a return probe does:
 * dur > 0). The entry-only cost is calibrated with the program untimed launches ran through (the
 * session's entry half, where the recording sampled). Its probes' cost splits
 * at its timestamps: before the entry timestamp (pre), between entry and return timestamps (in:
 * part of the measured duration), after the last timestamp (post). So:
 *   - a measured duration holds `in`;
 *   - the interval from one call's entry to a later call's entry on the same thread holds the
 *     first call's in + post, the whole cost of every call between, and the last call's pre;
 *   - a span from an iteration's first call to the next iteration's first call holds the whole
 *     cost of every call of the iteration.
 * Subtractions clamp at 0 and count how often they had to (a sanity signal: the calibration
 * overstated the cost, or the machine was faster while recording).
 */
#ifndef GR_ANALYZE_PROBE_COST_H
#define GR_ANALYZE_PROBE_COST_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"
#include "analyze/util/json.h"

struct gr_probe_cost {
	int known;   /* the trace holds the calibration (else: recorded by an older gpurec) */
	int applied; /* known, and compensation was not turned off */
	uint64_t entry_pre, entry_post;	       /* an entry-only probe */
	uint64_t call_pre, call_in, call_post; /* a call probed at entry and return */
	const char *mode;		       /* stack mode of the calibration ("" when unknown) */
	int traces_differ; /* a set whose traces measured different costs: the smallest is used */
	uint64_t clamped;  /* subtractions that would have gone below 0 (the only mutable field) */
};

/*
 * From the session facts of @m; @compensate 0 leaves every figure as recorded (known still says
 * whether the trace has the facts). Cannot fail.
 */
void gr_probe_cost_init(struct gr_probe_cost *pc, const struct gr_model *m, int compensate);

/* Whole probe cost of one call whose recorded duration is @dur (0: entry-only); 0 when not
 * applied. Also the parts before its entry timestamp and after it. */
uint64_t gr_probe_cost_call(const struct gr_probe_cost *pc, uint64_t dur);
uint64_t gr_probe_cost_pre(const struct gr_probe_cost *pc, uint64_t dur);
uint64_t gr_probe_cost_after_entry(const struct gr_probe_cost *pc, uint64_t dur);

/* The cost the report prints "per call": an entry-only launch's when @timed is 0, else a timed
 * call's. */
uint64_t gr_probe_cost_per_call(const struct gr_probe_cost *pc, int timed);

/* @v - @cost, or 0 (counted in pc->clamped) when the cost exceeds it. */
uint64_t gr_probe_cost_sub(struct gr_probe_cost *pc, uint64_t v, uint64_t cost);

/* A measured call duration @dur without the probes' share (0 stays 0: not measured). */
uint64_t gr_probe_cost_dur(struct gr_probe_cost *pc, uint64_t dur);

/*
 * The interval @gap from the entry of a call with duration @from_dur to the entry of a later call
 * of the same thread with duration @to_dur, the calls between them costing @between (the sum of
 * gr_probe_cost_call() over them), without the probes' share.
 */
uint64_t gr_probe_cost_gap(struct gr_probe_cost *pc, uint64_t gap, uint64_t from_dur,
			   uint64_t to_dur, uint64_t between);

/*
 * The sentence every command prints about it: "compensated for N ns of probe cost per call
 * (...)", "not compensated for ... (--no-compensate)" or "probe cost unknown (recorded by an
 * older gpurec)". Writes at most @size bytes (truncated, NUL-terminated) into @buf.
 */
void gr_probe_cost_describe(const struct gr_probe_cost *pc, char *buf, size_t size);

/*
 * @key: {"known", "compensated", "per_call_ns" (an untimed launch), "timed_call_ns",
 * "in_duration_ns", "stack_mode", "clamped"}; the ns are null when not known.
 */
void gr_probe_cost_json(struct gr_json *j, const char *key, const struct gr_probe_cost *pc);

#endif
