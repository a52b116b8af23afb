/* SPDX-License-Identifier: MIT */
/*
 * record/hold.c: a held process is resumed only by the last of the held events sent to it, and
 * stopped again when a hold came between its count and the resume.
 */
#include <signal.h>

#include "record/hold.h"
#include "test.h"

/* The BPF side's counts and the signals sent, as the fakes see them. */
struct world {
	uint64_t sent[4]; /* per pid 1..3 */
	int log[16];	  /* signals sent, in order: +pid SIGCONT, -pid SIGSTOP */
	unsigned nlog;
	uint32_t race_pid; /* the next read of its count, after the first, finds one more hold */
	unsigned reads;
};

static uint64_t fake_sent(void *ctx, uint32_t pid)
{
	struct world *w = ctx;

	if (pid == w->race_pid && w->reads++ == 1)
		w->sent[pid]++;
	return w->sent[pid];
}

static void fake_signal(void *ctx, uint32_t pid, int sig)
{
	struct world *w = ctx;

	if (w->nlog < 16)
		w->log[w->nlog++] = sig == SIGCONT ? (int)pid : -(int)pid;
}

static void test_two_holds_one_resume(void)
{
	struct world w = {.sent = {0, 2}};
	struct gr_holds h;

	gr_holds_init_with(&h, fake_sent, fake_signal, &w);
	/* the first event's resume would free the second's stop */
	CHECK_EQ_U64(gr_holds_release(&h, 1), 0);
	CHECK_EQ_U64(w.nlog, 0);
	CHECK_EQ_U64(gr_holds_release(&h, 1), 1);
	CHECK_EQ_U64(w.nlog, 1);
	CHECK_EQ_U64(w.log[0], 1);
	/* a third hold later: resumed at its own event */
	w.sent[1] = 3;
	CHECK_EQ_U64(gr_holds_release(&h, 1), 1);
	CHECK_EQ_U64(w.nlog, 2);
	gr_holds_free(&h);
}

static void test_processes_apart(void)
{
	struct world w = {.sent = {0, 1, 2}};
	struct gr_holds h;

	gr_holds_init_with(&h, fake_sent, fake_signal, &w);
	CHECK_EQ_U64(gr_holds_release(&h, 2), 0);
	CHECK_EQ_U64(gr_holds_release(&h, 1), 1);
	CHECK_EQ_U64(gr_holds_release(&h, 2), 1);
	CHECK_EQ_U64(w.nlog, 2);
	CHECK_EQ_U64(w.log[0], 1);
	CHECK_EQ_U64(w.log[1], 2);
	gr_holds_free(&h);
}

/* a hold counted between the check and the SIGCONT: stopped again, resumed by its event */
static void test_hold_during_resume(void)
{
	struct world w = {.sent = {0, 0, 0, 1}, .race_pid = 3};
	struct gr_holds h;

	gr_holds_init_with(&h, fake_sent, fake_signal, &w);
	CHECK_EQ_U64(gr_holds_release(&h, 3), 1);
	CHECK_EQ_U64(w.nlog, 2);
	CHECK_EQ_U64(w.log[0], 3);
	CHECK_EQ_U64(w.log[1], -3);
	CHECK_EQ_U64(gr_holds_release(&h, 3), 1);
	CHECK_EQ_U64(w.nlog, 3);
	CHECK_EQ_U64(w.log[2], 3);
	gr_holds_free(&h);
}

/* the last thread exited: the BPF side forgot its count, and so does the recorder */
static void test_forget(void)
{
	struct world w = {.sent = {0, 1}};
	struct gr_holds h;

	gr_holds_init_with(&h, fake_sent, fake_signal, &w);
	CHECK_EQ_U64(gr_holds_release(&h, 1), 1);
	gr_holds_forget(&h, 1);
	/* the pid's next process: its own first hold resumes it */
	w.sent[1] = 1;
	CHECK_EQ_U64(gr_holds_release(&h, 1), 1);
	CHECK_EQ_U64(w.nlog, 2);
	gr_holds_free(&h);
}

/* more handled than counted (a count the BPF side could not keep): resumed, never left */
static void test_uncounted_resumes(void)
{
	struct world w = {0};
	struct gr_holds h;

	gr_holds_init_with(&h, fake_sent, fake_signal, &w);
	CHECK_EQ_U64(gr_holds_release(&h, 2), 1);
	CHECK_EQ_U64(gr_holds_release(&h, 2), 1);
	CHECK_EQ_U64(w.nlog, 2);
	gr_holds_free(&h);
}

int main(void)
{
	RUN_TEST(test_two_holds_one_resume);
	RUN_TEST(test_processes_apart);
	RUN_TEST(test_hold_during_resume);
	RUN_TEST(test_forget);
	RUN_TEST(test_uncounted_resumes);
	TEST_EXIT();
}
