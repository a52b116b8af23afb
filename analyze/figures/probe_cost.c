/* SPDX-License-Identifier: MIT */
/* Probe cost compensation (probe_cost.h). */
#include <inttypes.h>
#include <stdio.h>

#include "probe_cost.h"

void gr_probe_cost_init(struct gr_probe_cost *pc, const struct gr_model *m, int compensate)
{
	uint64_t v[GR_SESS_PROBE_CALL_POST - GR_SESS_PROBE_ENTRY_PRE + 1];
	const char *mode = "";
	int n = 0;

	*pc = (struct gr_probe_cost){.mode = ""};
	/*
	 * A set of traces (one per node) holds each trace's own calibration: the smallest of
	 * each part is taken, as subtracting more than a probe cost there would make its calls
	 * look faster than they ran
	 */
	for (unsigned k = GR_SESS_PROBE_ENTRY_PRE; k <= GR_SESS_PROBE_CALL_POST; k++) {
		int differs;

		if (gr_model_session_min(m, k, &v[k - GR_SESS_PROBE_ENTRY_PRE], &differs) > 0)
			n++;
		pc->traces_differ |= differs;
	}
	gr_model_session(m, GR_SESS_PROBE_ENTRY_PRE, NULL, &mode);
	/* all five or nothing: a partial calibration cannot place what it lacks */
	if (n != (int)(sizeof(v) / sizeof(v[0])))
		return;
	pc->known = 1;
	pc->applied = compensate;
	pc->entry_pre = v[0];
	pc->entry_post = v[1];
	pc->call_pre = v[2];
	pc->call_in = v[3];
	pc->call_post = v[4];
	pc->mode = mode ? mode : "";
}

uint64_t gr_probe_cost_per_call(const struct gr_probe_cost *pc, int timed)
{
	if (!pc->known)
		return 0;
	return timed ? pc->call_pre + pc->call_in + pc->call_post : pc->entry_pre + pc->entry_post;
}

uint64_t gr_probe_cost_call(const struct gr_probe_cost *pc, uint64_t dur)
{
	return pc->applied ? gr_probe_cost_per_call(pc, dur != 0) : 0;
}

uint64_t gr_probe_cost_pre(const struct gr_probe_cost *pc, uint64_t dur)
{
	if (!pc->applied)
		return 0;
	return dur ? pc->call_pre : pc->entry_pre;
}

uint64_t gr_probe_cost_after_entry(const struct gr_probe_cost *pc, uint64_t dur)
{
	if (!pc->applied)
		return 0;
	return dur ? pc->call_in + pc->call_post : pc->entry_post;
}

uint64_t gr_probe_cost_sub(struct gr_probe_cost *pc, uint64_t v, uint64_t cost)
{
	if (cost <= v)
		return v - cost;
	pc->clamped++;
	return 0;
}

uint64_t gr_probe_cost_dur(struct gr_probe_cost *pc, uint64_t dur)
{
	if (!dur || !pc->applied)
		return dur;
	return gr_probe_cost_sub(pc, dur, pc->call_in);
}

uint64_t gr_probe_cost_gap(struct gr_probe_cost *pc, uint64_t gap, uint64_t from_dur,
			   uint64_t to_dur, uint64_t between)
{
	if (!pc->applied)
		return gap;
	return gr_probe_cost_sub(pc, gap,
				 gr_probe_cost_after_entry(pc, from_dur) + between +
				     gr_probe_cost_pre(pc, to_dur));
}

void gr_probe_cost_describe(const struct gr_probe_cost *pc, char *buf, size_t size)
{
	int n;

	if (!pc->known) {
		snprintf(buf, size,
			 "probe cost unknown (recorded by an older gpurec): host times "
			 "include it");
		return;
	}
	n = snprintf(buf, size,
		     "%s %" PRIu64 " ns of probe cost per call (an untimed launch; %" PRIu64
		     " ns per timed call, %" PRIu64 " ns of it inside its duration; %s stacks)",
		     pc->applied ? "compensated for" : "not compensated (--no-compensate) for",
		     gr_probe_cost_per_call(pc, 0), gr_probe_cost_per_call(pc, 1), pc->call_in,
		     *pc->mode ? pc->mode : "unknown");
	if (pc->traces_differ && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n,
			      "; the smallest of the traces' own measurements, which differ");
	if (pc->clamped && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 "; %" PRIu64 " times a time was shorter than the cost and was taken as 0",
			 pc->clamped);
}

void gr_probe_cost_json(struct gr_json *j, const char *key, const struct gr_probe_cost *pc)
{
	gr_json_key(j, key);
	gr_json_object(j);
	gr_json_kv_bool(j, "known", pc->known);
	gr_json_kv_bool(j, "compensated", pc->applied);
	if (pc->known) {
		gr_json_kv_u64(j, "per_call_ns", gr_probe_cost_per_call(pc, 0));
		gr_json_kv_u64(j, "timed_call_ns", gr_probe_cost_per_call(pc, 1));
		gr_json_kv_u64(j, "in_duration_ns", pc->call_in);
		gr_json_kv_str(j, "stack_mode", pc->mode);
		gr_json_kv_bool(j, "traces_differ", pc->traces_differ);
	} else {
		const char *keys[] = {"per_call_ns", "timed_call_ns", "in_duration_ns",
				      "stack_mode", "traces_differ"};

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			gr_json_key(j, keys[i]);
			gr_json_null(j);
		}
	}
	gr_json_kv_u64(j, "clamped", pc->clamped);
	gr_json_object_end(j);
}
