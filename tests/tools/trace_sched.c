/* SPDX-License-Identifier: MIT */
/*
 * Test helper: the scheduler records of a trace, one per line, for end-to-end checks:
 *   traced PID PID ...                      (every process the trace saw making CUDA calls)
 *   TYPE PREV_PID PREV_TID PREV_COMM NEXT_PID NEXT_TID NEXT_COMM PREV_STATE CPU TARGET_CPU TS
 * TYPE is switch, wakeup, wakeup_new or migrate; comms are "?" when the trace names nobody.
 */
#include <stdio.h>

#include "analyze/model/model.h"

static const char *comm(const struct gr_model *m, uint32_t tid)
{
	const char *c = gr_model_comm(m, tid);

	return c && *c ? c : "?";
}

int main(int argc, char **argv)
{
	static const char *const types[] = {"switch", "wakeup", "wakeup_new", "migrate"};
	const struct gr_thread *threads;
	const struct gr_sched *sched;
	struct gr_model *m;
	struct gr_diag diag = {0};
	size_t n, nt;

	if (argc != 2) {
		fprintf(stderr, "usage: tool_trace_sched TRACE\n");
		return 2;
	}
	if (gr_model_load(&m, argv[1], &diag)) {
		fprintf(stderr, "tool_trace_sched: %s: %s\n", argv[1], diag.reason);
		return 1;
	}
	threads = gr_model_threads(m, &nt);
	printf("traced");
	for (size_t i = 0; i < nt; i++)
		if (i == 0 || threads[i].pid != threads[i - 1].pid)
			printf(" %u", threads[i].pid);
	printf("\n");
	sched = gr_model_scheds(m, &n);
	for (size_t i = 0; i < n; i++) {
		const struct gr_sched_key *e = &gr_model_sched_keys(m, NULL)[sched[i].key];

		printf("%s %u %u %s %u %u %s %llu %u %u %llu\n", e->type < 4 ? types[e->type] : "?",
		       e->prev_pid, e->prev_tid, comm(m, e->prev_tid), e->next_pid, e->next_tid,
		       comm(m, e->next_tid), (unsigned long long)e->prev_state, e->cpu,
		       e->target_cpu, (unsigned long long)sched[i].ts);
	}
	gr_model_free(m);
	return 0;
}
