/* SPDX-License-Identifier: MIT */
/*
 * CUPTI activity records -> the pipe's records (wire.h), and the join that gives a GPU record
 * the thread and entry time of the API call that asked for it. Pure functions over the structs
 * of cupti_activity.h: no CUPTI call, so unit tests feed them synthetic records.
 */
#ifndef GR_CUPTI_CONVERT_H
#define GR_CUPTI_CONVERT_H

#include <stdint.h>

#include <cupti_activity.h>

#include "wire.h"

/*
 * The API calls seen, by correlation id: a direct-mapped table of the last GR_CUPTI_JOIN_SLOTS
 * ids (CUPTI numbers them in increasing order), so it never grows and a call that asked for no
 * GPU work is simply overwritten.
 */
#define GR_CUPTI_JOIN_SLOTS 65536u

struct gr_cupti_join_slot {
	uint32_t correlation;
	uint32_t tid;
	uint64_t start;
};

struct gr_cupti_join {
	struct gr_cupti_join_slot slot[GR_CUPTI_JOIN_SLOTS];
};

/* Remember @api's thread and start under its correlation id (RUNTIME and DRIVER records). */
void gr_cupti_join_note(struct gr_cupti_join *j, const CUpti_ActivityAPI *api);

/*
 * Fill @rec's host_tid and host_ts from the API call of its correlation id; memcpy records also
 * try their runtime correlation id @alt (0: none). Returns 1 when found, 0 when not (both 0).
 */
int gr_cupti_join_fill(const struct gr_cupti_join *j, struct gr_cupti_rec *rec, uint32_t alt);

/*
 * Convert @a into @rec for process @pid: 1 for a kernel (CONCURRENT_KERNEL or KERNEL), memcpy or
 * memset, with *alt set to a memcpy's runtime correlation id (else 0); 0 for any other kind
 * (@rec untouched). host_tid and host_ts are left 0: gr_cupti_join_fill() sets them.
 */
int gr_cupti_convert(const CUpti_Activity *a, uint32_t pid, struct gr_cupti_rec *rec,
		     uint32_t *alt);

/* Whether @a is an API record the join takes (RUNTIME or DRIVER). */
int gr_cupti_is_api(const CUpti_Activity *a);

#endif
