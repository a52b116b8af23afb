/* SPDX-License-Identifier: MIT */
/* When to resume a held process: see hold.h. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "hold.h"
#include "watchdog.h"

static uint64_t sent_from_map(void *ctx, uint32_t pid)
{
	uint64_t sent = 0;

	if (bpf_map_lookup_elem((int)(intptr_t)ctx, &pid, &sent))
		return 0; /* none sent, or its last thread exited */
	return sent;
}

static void signal_process(void *ctx, uint32_t pid, int sig)
{
	(void)ctx;
	if (sig == SIGCONT)
		gr_resume(pid); /* where the tests' GPUREC_TEST_NO_RESUME applies */
	else
		kill((pid_t)pid, sig);
}

void gr_holds_init(struct gr_holds *h, int holds_fd)
{
	gr_holds_init_with(h, sent_from_map, signal_process, (void *)(intptr_t)holds_fd);
}

void gr_holds_init_with(struct gr_holds *h, gr_holds_sent_fn sent, gr_holds_signal_fn signal,
			void *ctx)
{
	*h = (struct gr_holds){.sent = sent, .signal = signal, .ctx = ctx};
}

int gr_holds_release(struct gr_holds *h, uint32_t pid)
{
	uint64_t *v, handled;

	if (!h->sent) {
		gr_resume(pid); /* not set up: every held event resumes, uncounted */
		return 1;
	}
	v = gr_u64map_get(&h->handled, pid);
	if (v) {
		handled = ++*v;
	} else {
		handled = 1;
		if (gr_u64map_put(&h->handled, pid, handled)) {
			/* uncounted from here on: resuming too early beats never resuming */
			h->signal(h->ctx, pid, SIGCONT);
			return 1;
		}
	}
	if (handled < h->sent(h->ctx, pid))
		return 0; /* a later held event resumes it */
	h->signal(h->ctx, pid, SIGCONT);
	/* a hold sent since the check: its SIGSTOP may have come before the SIGCONT */
	if (h->sent(h->ctx, pid) > handled)
		h->signal(h->ctx, pid, SIGSTOP);
	return 1;
}

void gr_holds_forget(struct gr_holds *h, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&h->handled, pid);

	if (v)
		*v = 0; /* u64map has no removal: counting starts again */
}

void gr_holds_free(struct gr_holds *h)
{
	gr_u64map_free(&h->handled);
	memset(h, 0, sizeof(*h));
}

void gr_holds_test_delay(void)
{
	static long ms = -1;
	const char *v;

	if (ms < 0) {
		v = getenv("GPUREC_TEST_HOLD_DELAY_MS");
		ms = v ? strtol(v, NULL, 10) : 0;
		if (ms < 0 || ms > 10000)
			ms = 0;
	}
	if (ms)
		nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000}, NULL);
}
