/* SPDX-License-Identifier: MIT */
/*
 * What became of the recorded calls, for every command that tells it (info, report, diff,
 * export): how many are known to have succeeded, which failed and with what error (with the
 * likely cause when most did), which were made inside another recorded call, and which had not
 * returned when their thread exited or the recording stopped. The calls themselves are the
 * model's asides (gr_model_asides()); nothing here points into a report.
 *
 * Ownership: gr_outcome_compute() fills a caller's struct with arrays it allocates;
 * gr_outcome_free() releases them. Pointers to asides and strings point into the model.
 */
#ifndef GR_ANALYZE_OUTCOME_H
#define GR_ANALYZE_OUTCOME_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"
#include "analyze/util/json.h"

/* The calls of one API that returned one error. */
struct gr_outcome_error {
	unsigned api;	  /* enum gr_api */
	uint32_t status;  /* cudaError_t, CUresult or ncclResult_t */
	const char *name; /* gr_status_name(), NULL when this build does not know it */
	uint64_t count;
	uint64_t first_ts, last_ts;
	uint32_t
	    stack; /* the first such call's (gr_model_stacks() index, 0 = none): the call site */
};

/* The calls of one API made inside another recorded call of the same thread. */
struct gr_outcome_inner {
	unsigned api;
	uint64_t count;
	uint64_t ns; /* their time, part of the outer calls' time */
};

/*
 * Calls are those of the figures (launches, copies, memsets, allocations, frees, syncs, graphs)
 * and NCCL's; a call failed as gr_call_failed() (format/events.h) defines it for all of them and
 * for record's own warning: it returned an error (NCCL's ncclInProgress is none).
 */
struct gr_outcome {
	uint64_t ok;	  /* calls known to have returned success */
	uint64_t failed;  /* outermost calls that returned an error */
	uint64_t unknown; /* calls in the figures whose status was not recorded (entry only) */
	/* failed > ok: more than half of the calls whose status is known failed; the reports then
	 * judge nothing (no verdict is made of calls that did nothing) */
	int most_failed;
	/* the likely cause when one error makes at least half of the failures ("no CUDA driver",
	 * "out of memory"), else NULL; static */
	const char *cause;
	struct gr_outcome_error *errors; /* by count, descending, then api and status */
	size_t nerrors;
	struct gr_outcome_inner *inner; /* by count, descending */
	size_t ninner;
	const struct gr_aside **in_flight; /* by entry time */
	size_t nin_flight;
};

/* Returns 0 or -ENOMEM (with @o freed). */
int gr_outcome_compute(const struct gr_model *m, struct gr_outcome *o);
void gr_outcome_free(struct gr_outcome *o);

/*
 * The failed calls in one sentence, as the report's summary (text and HTML) opens with it, in
 * @buf: "MOST CALLS FAILED: 1 of 1 calls whose status is known returned an error: likely no CUDA
 * driver (...); no verdict ..." when most failed, a milder line when some did. NULL (and @buf
 * empty) when none failed.
 */
const char *gr_outcome_banner(const struct gr_outcome *o, char *buf, size_t len);

/* Status @status of a call to @api as text: its name, else "error N", in @buf. */
const char *gr_outcome_call_status_text(unsigned api, uint32_t status, char *buf, size_t len);
/* The same for a group of failures. */
const char *gr_outcome_error_text(const struct gr_outcome_error *e, char *buf, size_t len);

/* In-flight call @a as every command says it: "thread P/T (comm) still inside API for 1.05 s
 * when the process was killed by SIGKILL", in @buf. */
const char *gr_outcome_in_flight_text(const struct gr_model *m, const struct gr_aside *a, char *buf,
				      size_t len);

/* --json: the "calls" object (ok, failed, status_unknown, most_failed, likely_cause), and the
 * fields every "errors" entry has (api, status, status_name, count), into an open object. */
void gr_outcome_json_calls(struct gr_json *j, const struct gr_outcome *o);
void gr_outcome_json_error(struct gr_json *j, const struct gr_outcome_error *e);

/*
 * Why in-flight call @a ended where it did, as a phrase that completes "still inside X for 12.3 s
 * ...": "when the process was killed by SIGKILL", "when its thread exited", "when the recording
 * stopped". In @buf.
 */
const char *gr_outcome_in_flight_end(const struct gr_model *m, const struct gr_aside *a, char *buf,
				     size_t len);

#endif
