/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "bpf/signals.skel.h"
#include "clock.h"
#include "forward.h"

struct gr_forward {
	struct signals_bpf *skel; /* NULL when the BPF side could not be loaded */
	pid_t command;
};

/*
 * Signals received from a process, one slot per number: copies that arrive while one is
 * pending are one request (the kernel merges pending standard signals the same way). Written
 * by the handler, cleared by the loop once handled.
 */
static struct {
	volatile sig_atomic_t pending;
	volatile pid_t sender;
	volatile uint64_t ts;
} incoming[GR_NSIG];
static volatile sig_atomic_t stop_signal;

/* The signals the recorder catches, and what it was started with (gr_forward_init()). */
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction started_action[sizeof(caught) / sizeof(caught[0])];
static sigset_t started_mask, held_mask;
static int held;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	stop_signal = sig;
	/* from the kernel (a terminal's Ctrl-C, a hangup): it reached the command's group too */
	if (info->si_code > 0 || sig <= 0 || sig >= GR_NSIG || incoming[sig].pending)
		return;
	incoming[sig].sender = info->si_pid;
	incoming[sig].ts = gr_clock_ns(CLOCK_MONOTONIC);
	incoming[sig].pending = 1;
}

void gr_forward_init(void)
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	sigprocmask(SIG_SETMASK, NULL, &started_mask);
	for (unsigned i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		sigaction(caught[i], NULL, &started_action[i]);
		/*
		 * Ignored by whoever started us (nohup, a shell's background job): ignored by the
		 * recorder too, so that a logout stops neither the recording nor the command.
		 */
		if (started_action[i].sa_handler != SIG_IGN)
			sigaction(caught[i], &sa, NULL);
	}
}

void gr_forward_restore(void)
{
	for (unsigned i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaction(caught[i], &started_action[i], NULL);
	/* after the dispositions: a signal held until now meets the command's, not our handler */
	sigprocmask(SIG_SETMASK, &started_mask, NULL);
}

int gr_forward_hold(void)
{
	sigset_t set;

	sigemptyset(&set);
	for (unsigned i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&set, caught[i]);
	if (!held && !sigprocmask(SIG_BLOCK, &set, &held_mask))
		held = 1;
	return stop_signal;
}

void gr_forward_unhold(void)
{
	if (held)
		sigprocmask(SIG_SETMASK, &held_mask, NULL);
	held = 0;
}

const char *gr_forward_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}

int gr_forward_open(struct gr_forward **out)
{
	struct gr_forward *f;
	int err = 0;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->skel = signals_bpf__open();
	if (!f->skel) {
		err = -errno;
		goto out;
	}
	f->skel->rodata->targ_recorder_pid = getpid();
	err = signals_bpf__load(f->skel);
	if (!err)
		err = signals_bpf__attach(f->skel);
	if (err) {
		signals_bpf__destroy(f->skel);
		f->skel = NULL;
	}
out:
	*out = f;
	return err;
}

void gr_forward_set_command(struct gr_forward *f, pid_t pid)
{
	f->command = pid;
	if (f->skel)
		f->skel->bss->command_tgid = pid;
}

int gr_forward_stop_signal(void)
{
	return stop_signal;
}

/* The command got @sig from @sender by itself, at or after @since. */
static int got_it(const struct gr_forward *f, int sig, pid_t sender, uint64_t since)
{
	const struct gr_signal_seen *seen;
	uint64_t ts;

	if (!f->skel)
		return 0;
	seen = &f->skel->bss->command_signals[sig];
	ts = __atomic_load_n(&seen->ts, __ATOMIC_ACQUIRE);
	return ts && ts >= since &&
	       (pid_t)__atomic_load_n(&seen->sender, __ATOMIC_RELAXED) == sender;
}

void gr_forward_due(struct gr_forward *f, uint64_t now_ns)
{
	for (int sig = 1; sig < GR_NSIG; sig++) {
		uint64_t ts;

		if (!incoming[sig].pending)
			continue;
		ts = incoming[sig].ts;
		if (f->command > 0 &&
		    !got_it(f, sig, incoming[sig].sender, ts - GR_FORWARD_WINDOW_NS)) {
			/* the sender may still be on its way to the command: timeout kills us first
			 */
			if (f->skel && now_ns < ts + GR_FORWARD_WINDOW_NS)
				continue;
			kill(f->command, sig);
		}
		incoming[sig].pending = 0;
	}
}

uint64_t gr_forward_next_ns(const struct gr_forward *f, uint64_t now_ns)
{
	uint64_t next = 0;

	for (int sig = 1; sig < GR_NSIG; sig++) {
		uint64_t due = incoming[sig].ts + GR_FORWARD_WINDOW_NS;
		uint64_t left = due > now_ns ? due - now_ns : 1;

		if (incoming[sig].pending && (!next || left < next))
			next = left;
	}
	return next;
}

void gr_forward_close(struct gr_forward *f)
{
	if (!f)
		return;
	signals_bpf__destroy(f->skel);
	free(f);
}
