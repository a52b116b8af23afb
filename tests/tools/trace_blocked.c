/* SPDX-License-Identifier: MIT */
/*
 * Test helper: why and where the traced threads of a trace blocked, one line per record:
 *   blocked TID SYSCALL FD_KIND TS FRAMES     a switch-out of TID while sleeping
 *   woken TID WAKER_PID WAKER_TID TS FRAMES   a wakeup of TID whose record has the waker's stack
 * SYSCALL is the call's name (its number when the table has none, "-" for none), FD_KIND
 * gr_fd_kind_name(); FRAMES the stack innermost first, each frame its symbol name, else 0xADDR,
 * a Python frame "file:line function", joined by ';' ("-" for none).
 */
#include <inttypes.h>
#include <stdio.h>

#include "analyze/figures/frames.h"
#include "analyze/model/model.h"
#include "analyze/util/syscalls.h"
#include "format/events.h"

static void print_stack(const struct gr_model *m, uint32_t idx)
{
	const struct gr_stack *st = gr_model_stacks(m, NULL);

	if (!idx || !st[idx].nframes) {
		printf(" -\n");
		return;
	}
	for (uint32_t f = 0; f < st[idx].nframes; f++) {
		const struct gr_symbol *sym = gr_model_symbol(m, st[idx].pid, st[idx].frames[f]);
		struct gr_frame fr;
		char text[GR_FRAME_TEXT];

		gr_frame_describe(m, st[idx].pid, st[idx].frames[f], &fr);
		if (fr.kind == GR_FRAME_KIND_PYTHON)
			printf("%s%s", f ? ";" : " ", gr_frame_format(&fr, text, sizeof(text)));
		else if (sym)
			printf("%s%s", f ? ";" : " ", sym->name);
		else
			printf("%s0x%" PRIx64, f ? ";" : " ", st[idx].frames[f]);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	const struct gr_sched *sched;
	const struct gr_sched_key *keys;
	struct gr_model *m;
	struct gr_diag diag = {0};
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: tool_trace_blocked TRACE\n");
		return 2;
	}
	if (gr_model_load(&m, argv[1], &diag)) {
		fprintf(stderr, "tool_trace_blocked: %s: %s\n", argv[1], diag.reason);
		return 1;
	}
	sched = gr_model_scheds(m, &n);
	keys = gr_model_sched_keys(m, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct gr_sched_key *k = &keys[sched[i].key];
		const char *name = gr_syscall_name(k->syscall);

		if (k->type == GR_SCHED_SWITCH && k->prev_state) {
			printf("blocked %u ", k->prev_tid);
			if (name)
				printf("%s", name);
			else if (k->syscall >= 0)
				printf("%d", k->syscall);
			else
				printf("-");
			printf(" %s %" PRIu64, gr_fd_kind_name(k->fd_kind), sched[i].ts);
			print_stack(m, k->stack);
		} else if ((k->type == GR_SCHED_WAKEUP || k->type == GR_SCHED_WAKEUP_NEW) &&
			   k->stack) {
			printf("woken %u %u %u %" PRIu64, k->next_tid, k->prev_pid, k->prev_tid,
			       sched[i].ts);
			print_stack(m, k->stack);
		}
	}
	gr_model_free(m);
	return 0;
}
