/* SPDX-License-Identifier: MIT */
/*
 * What the traced CUDA calls returned, counted while recording: when every call that returned
 * failed, the trace is a record of calls a GPU never saw (no driver, no device, the toolkit's
 * stub libcuda), and `record` says so once at the end rather than let the reports imply work
 * was done; when some failed, it says how many, by the count `info` gives.
 *
 * translate.c notes every call row as it writes it; record.c prints the warning at the end.
 */
#ifndef GR_RECORD_CALL_STATUS_H
#define GR_RECORD_CALL_STATUS_H

#include <stdint.h>
#include <stdio.h>

#include "u64map.h"

struct gr_call_status {
	uint64_t returned;	 /* outermost calls whose return value was seen */
	uint64_t failed;	 /* of those, how many failed (gr_call_failed) */
	struct gr_u64map errors; /* (api << 32 | error) + 1 -> how many calls returned it */
};

/*
 * Count one call row written, with its "status" and "call" columns (format/events.h), as every
 * command counts the trace's calls: an outermost call that returned, failed when
 * gr_call_failed() says so (the one definition: NCCL's ncclInProgress is no failure). Nested
 * calls (an NCCL call's own CUDA calls) are the outer call's business, and rows without a
 * status (entry only, in flight) say nothing. Cannot fail (an error it could not count is
 * counted as failed, without its number).
 */
void gr_call_status_note(struct gr_call_status *s, unsigned api, uint32_t status, uint64_t call);

/*
 * Print one line to @f when calls failed, naming the failed count (the one `info` and `report`
 * show), the API and error most of them returned and the likely cause (gr_status_cause()): a
 * warning when every call that returned failed, else a note. Returns 1 when it printed, else 0.
 */
int gr_call_status_report(const struct gr_call_status *s, FILE *f);

/* Free what it holds; @s is zeroed. */
void gr_call_status_free(struct gr_call_status *s);

#endif
