/* SPDX-License-Identifier: MIT */
/*
 * record/translate.c on the live path: an event the recorder drops as malformed still resumes
 * the process the BPF side stopped with it (an exec, a new mapping, a Python stack), so a
 * disagreement between the two sides never leaves the traced program stopped. The process here
 * is a child this test stops itself; waitpid(WCONTINUED) is the kernel's word that it runs again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "format/events.h"
#include "format/trace.h"
#include "record/discover.h"
#include "record/translate.h"
#include "test.h"

/* A child stopped by SIGSTOP, as the BPF side leaves a process it holds; 0 on failure. */
static pid_t stopped_child(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pid < 0 || kill(pid, SIGSTOP) || waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
		return 0;
	return pid;
}

/* Whether @pid was continued: waits at most ~2 s for the kernel to say so. */
static int continued(pid_t pid)
{
	for (int i = 0; i < 200; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WCONTINUED | WNOHANG);

		if (r == pid && WIFCONTINUED(st))
			return 1;
		if (r < 0)
			return 0;
		usleep(10000);
	}
	return 0;
}

static void finish(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Feed one event to a live translator writing to a scratch trace; returns t.malformed. */
static uint64_t feed(void *ev, size_t size)
{
	static const struct gr_trace_header hdr = {.host = "test", .tool_version = "gpurec"};
	struct gr_procs procs = {0};
	struct gr_translate t;
	struct gr_trace_writer *w;
	uint64_t malformed;
	int fd = memfd_create("translate", MFD_CLOEXEC);

	if (fd < 0 || gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL))
		return UINT64_MAX;
	gr_translate_init(&t, w, &procs, NULL, -1);
	gr_translate_event(&t, ev, size);
	malformed = t.malformed;
	gr_translate_free(&t);
	gr_discover_free(&procs);
	gr_trace_writer_close(w);
	return malformed;
}

/* An exec event cut short after its stopped flag: dropped, and the process resumed. */
static void test_short_exec_resumes(void)
{
	struct gr_ev_proc e;
	pid_t pid = stopped_child();

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	memset(&e, 0, sizeof(e));
	e.h.type = EV_EXEC;
	e.h.pid = e.h.tid = (__u32)pid;
	e.stopped = 1;
	CHECK_EQ_U64(feed(&e, offsetof(struct gr_ev_proc, stopped) + sizeof(e.stopped)), 1);
	CHECK(continued(pid));
	finish(pid);
}

/* A Python stack claiming more bytes than it has: dropped, and the process resumed. */
static void test_long_pystack_resumes(void)
{
	static struct gr_ev_pystack e[2];
	pid_t pid = stopped_child();

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	memset(e, 0, sizeof(e));
	e[0].h.type = EV_PYSTACK;
	e[0].h.pid = e[0].h.tid = (__u32)pid;
	e[0].id = 1;
	e[0].flags = GR_PYS_STOPPED;
	/* longer than the BPF side ever sends one */
	CHECK_EQ_U64(feed(e, sizeof(e)), 1);
	CHECK(continued(pid));
	finish(pid);
}

/* Without the flag, a dropped event sends no signal: the process stays stopped. */
static void test_unflagged_stays(void)
{
	struct gr_ev_proc e;
	pid_t pid = stopped_child();

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	memset(&e, 0, sizeof(e));
	e.h.type = EV_EXEC;
	e.h.pid = e.h.tid = (__u32)pid;
	CHECK_EQ_U64(feed(&e, offsetof(struct gr_ev_proc, stopped) + sizeof(e.stopped)), 1);
	CHECK(!continued(pid));
	finish(pid);
}

int main(void)
{
	RUN_TEST(test_short_exec_resumes);
	RUN_TEST(test_long_pystack_resumes);
	RUN_TEST(test_unflagged_stays);
	TEST_EXIT();
}
