/* SPDX-License-Identifier: MIT */
/* What the traced CUDA calls returned: see call_status.h. */
#include <inttypes.h>
#include <string.h>

#include "format/events.h"
#include "call_status.h"

void gr_call_status_note(struct gr_call_status *s, unsigned api, uint32_t status, uint64_t call)
{
	enum gr_call_family fam;
	uint64_t *n;

	if (!(call & GR_CALL_RETURNED) || GR_CALL_DEPTH(call))
		return;
	fam = gr_api_is_nccl(api)     ? GR_FAMILY_NCCL
	      : gr_api_is_driver(api) ? GR_FAMILY_DRIVER
				      : GR_FAMILY_RUNTIME;
	s->returned[fam]++;
	if (!gr_call_failed(api, call, status))
		return;
	s->failed[fam]++;
	n = gr_u64map_get(&s->errors[fam], (uint64_t)status + 1);
	if (n)
		(*n)++;
	else
		gr_u64map_put(&s->errors[fam], (uint64_t)status + 1, 1);
}

/* The error @fam's calls returned most often (ties: the lowest number); 0 calls when none. */
static uint64_t most_common(const struct gr_call_status *s, enum gr_call_family fam,
			    uint32_t *error)
{
	const struct gr_u64map *m = &s->errors[fam];
	uint64_t best = 0;

	for (size_t i = 0; i < m->cap; i++) {
		uint32_t e;

		if (!m->keys || !m->keys[i])
			continue;
		e = (uint32_t)(m->keys[i] - 1);
		if (m->vals[i] > best || (m->vals[i] == best && e < *error)) {
			best = m->vals[i];
			*error = e;
		}
	}
	return best;
}

int gr_call_status_report(const struct gr_call_status *s, FILE *f)
{
	static const char *const api[GR_FAMILY_COUNT] = {"CUDA runtime", "CUDA driver", "NCCL"};
	static const unsigned first[GR_FAMILY_COUNT] = {
	    GR_API_cudaLaunchKernel, GR_API_cuLaunchKernel, GR_API_ncclAllReduce};
	uint64_t returned = 0, failed = 0;
	int printed = 0;

	for (int fam = 0; fam < GR_FAMILY_COUNT; fam++) {
		returned += s->returned[fam];
		failed += s->failed[fam];
	}
	if (!returned || failed != returned)
		return 0;
	for (int fam = 0; fam < GR_FAMILY_COUNT; fam++) {
		uint32_t error = 0;
		const char *name;
		uint64_t n;

		if (!s->failed[fam])
			continue;
		n = most_common(s, fam, &error);
		/* any API of the family names its statuses */
		name = gr_status_name(first[fam], error);
		fprintf(
		    f,
		    "gpurec record: every %s call that returned failed (%" PRIu64 " calls; %" PRIu64
		    " returned %s%s%" PRIu32 "%s): most likely no usable CUDA "
		    "driver or GPU here ('gpurec check' says); the trace holds what the program "
		    "asked for, not work a GPU did\n",
		    api[fam], s->returned[fam], n, name ? name : "error ", name ? " (" : "", error,
		    name ? ")" : "");
		printed = 1;
	}
	return printed;
}

void gr_call_status_free(struct gr_call_status *s)
{
	for (int fam = 0; fam < GR_FAMILY_COUNT; fam++)
		gr_u64map_free(&s->errors[fam]);
	memset(s, 0, sizeof(*s));
}
