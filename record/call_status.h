/* SPDX-License-Identifier: MIT */
/*
 * What the traced CUDA calls returned, counted while recording: when every call that returned
 * failed, the trace is a record of calls a GPU never saw (no driver, no device, the toolkit's
 * stub libcuda), and `record` says so once at the end rather than let the reports imply work
 * was done.
 *
 * translate.c notes every call row as it writes it; record.c prints the warning at the end.
 */
#ifndef GR_RECORD_CALL_STATUS_H
#define GR_RECORD_CALL_STATUS_H

#include <stdint.h>
#include <stdio.h>

#include "u64map.h"

/* The runtime API (cudaError_t), the driver API (CUresult) and NCCL (ncclResult_t) number their
 * errors apart. */
enum gr_call_family { GR_FAMILY_RUNTIME, GR_FAMILY_DRIVER, GR_FAMILY_NCCL, GR_FAMILY_COUNT };

struct gr_call_status {
	uint64_t returned[GR_FAMILY_COUNT];	  /* outermost calls whose return value was seen */
	uint64_t failed[GR_FAMILY_COUNT];	  /* of those, how many failed (gr_call_failed) */
	struct gr_u64map errors[GR_FAMILY_COUNT]; /* error + 1 -> how many calls returned it */
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
 * Print one warning to @f when calls returned and every one of them failed, naming the most
 * frequent error and the likely cause. Returns 1 when it printed, else 0.
 */
int gr_call_status_report(const struct gr_call_status *s, FILE *f);

/* Free what it holds; @s is zeroed. */
void gr_call_status_free(struct gr_call_status *s);

#endif
