/* SPDX-License-Identifier: MIT */
/* What the traced CUDA calls returned: see call_status.h. */
#include <inttypes.h>
#include <string.h>

#include "format/events.h"
#include "call_status.h"

void gr_call_status_note(struct gr_call_status *s, unsigned api, uint32_t status, uint64_t call)
{
	uint64_t key = ((uint64_t)api << 32 | status) + 1, *n;

	if (!(call & GR_CALL_RETURNED) || GR_CALL_DEPTH(call))
		return;
	s->returned++;
	if (!gr_call_failed(api, call, status))
		return;
	s->failed++;
	n = gr_u64map_get(&s->errors, key);
	if (n)
		(*n)++;
	else
		gr_u64map_put(&s->errors, key, 1);
}

/* The (api, error) the calls failed with most often (ties: the lowest pair); its count. */
static uint64_t most_common(const struct gr_call_status *s, unsigned *api, uint32_t *error)
{
	const struct gr_u64map *m = &s->errors;
	uint64_t best = 0, best_key = 0;

	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys || !m->keys[i])
			continue;
		if (m->vals[i] > best || (m->vals[i] == best && m->keys[i] < best_key)) {
			best = m->vals[i];
			best_key = m->keys[i];
		}
	}
	*api = (unsigned)((best_key - 1) >> 32);
	*error = (uint32_t)(best_key - 1);
	return best;
}

int gr_call_status_report(const struct gr_call_status *s, FILE *f)
{
	const char *name, *cause;
	uint32_t error = 0;
	unsigned api = 0;
	char err[96];
	uint64_t n;

	if (!s->failed)
		return 0;
	n = most_common(s, &api, &error);
	name = gr_status_name(api, error);
	if (name)
		snprintf(err, sizeof(err), "%s (%" PRIu32 ")", name, error);
	else
		snprintf(err, sizeof(err), "error %" PRIu32, error);
	cause = gr_status_cause(name);
	if (s->failed == s->returned) {
		fprintf(f,
			"gpurec record: every call that returned failed: %" PRIu64
			" call%s, %" PRIu64
			" of them %s returned %s: likely %s ('gpurec check' says); the trace holds "
			"what the program asked for, not work a GPU did\n",
			s->failed, s->failed == 1 ? "" : "s", n, gr_api_name(api), err,
			cause ? cause : "no usable CUDA driver or GPU here");
		return 1;
	}
	fprintf(f,
		"gpurec record: %" PRIu64 " of %" PRIu64
		" calls whose status is known failed; most: "
		"%" PRIu64 " %s returned %s%s%s ('gpurec info' lists them)\n",
		s->failed, s->returned, n, gr_api_name(api), err, cause ? ": likely " : "",
		cause ? cause : "");
	return 1;
}

void gr_call_status_free(struct gr_call_status *s)
{
	gr_u64map_free(&s->errors);
	memset(s, 0, sizeof(*s));
}
