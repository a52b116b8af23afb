/* SPDX-License-Identifier: MIT */
/* Why a thread was blocked (blocked.h): a blocked span's reason and its culprit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "frames.h"

/* The kernel's task state bit of an uninterruptible sleep (D). */
#define TASK_UNINTERRUPTIBLE 0x2u

/* How the classifier groups the system calls it names. */
enum sc_class {
	SC_NONE = 0, /* named only */
	SC_FUTEX,
	SC_READ, /* reads from an fd: the fd's kind says input or disk */
	SC_POLL, /* waits on many fds: input when another process of the tree ends it */
	SC_SLEEP,
	SC_CHILD,
	SC_SYNC, /* writes a file back to its disk */
};

/*
 * The x86-64 numbers (arch/x86/entry/syscalls/syscall_64.tbl) of the calls a thread commonly
 * blocks in: a trace says the number, so the table is the recording machine's ABI, not this
 * one's. tests/unit/test_blocked.c checks it against <sys/syscall.h>.
 */
static const struct {
	int32_t nr;
	const char *name;
	enum sc_class cls;
} syscalls[] = {
    {0, "read", SC_READ},
    {1, "write", SC_NONE},
    {7, "poll", SC_POLL},
    {17, "pread64", SC_READ},
    {18, "pwrite64", SC_NONE},
    {19, "readv", SC_READ},
    {20, "writev", SC_NONE},
    {23, "select", SC_POLL},
    {34, "pause", SC_NONE},
    {35, "nanosleep", SC_SLEEP},
    {40, "sendfile", SC_NONE},
    {42, "connect", SC_NONE},
    {43, "accept", SC_NONE},
    {44, "sendto", SC_NONE},
    {45, "recvfrom", SC_READ},
    {46, "sendmsg", SC_NONE},
    {47, "recvmsg", SC_READ},
    {61, "wait4", SC_CHILD},
    {65, "semop", SC_NONE},
    {69, "msgsnd", SC_NONE},
    {70, "msgrcv", SC_NONE},
    {73, "flock", SC_NONE},
    {74, "fsync", SC_SYNC},
    {75, "fdatasync", SC_SYNC},
    {128, "rt_sigtimedwait", SC_NONE},
    {130, "rt_sigsuspend", SC_NONE},
    {202, "futex", SC_FUTEX},
    {208, "io_getevents", SC_NONE},
    {220, "semtimedop", SC_NONE},
    {230, "clock_nanosleep", SC_SLEEP},
    {232, "epoll_wait", SC_POLL},
    {247, "waitid", SC_CHILD},
    {257, "openat", SC_NONE},
    {270, "pselect6", SC_POLL},
    {271, "ppoll", SC_POLL},
    {275, "splice", SC_NONE},
    {277, "sync_file_range", SC_SYNC},
    {281, "epoll_pwait", SC_POLL},
    {288, "accept4", SC_NONE},
    {295, "preadv", SC_READ},
    {299, "recvmmsg", SC_READ},
    {327, "preadv2", SC_READ},
    {426, "io_uring_enter", SC_NONE},
    {441, "epoll_pwait2", SC_POLL},
    {449, "futex_waitv", SC_FUTEX},
};

#define NSYSCALLS (sizeof(syscalls) / sizeof(syscalls[0]))

static int sc_index(int32_t nr)
{
	for (size_t i = 0; i < NSYSCALLS; i++)
		if (syscalls[i].nr == nr)
			return (int)i;
	return -1;
}

const char *gr_block_syscall_name(int32_t nr)
{
	int i = sc_index(nr);

	return i < 0 ? NULL : syscalls[i].name;
}

static enum sc_class sc_class(int32_t nr)
{
	int i = sc_index(nr);

	return i < 0 ? SC_NONE : syscalls[i].cls;
}

void gr_block_ctx_init(struct gr_block_ctx *c, const struct gr_model *m)
{
	const struct gr_sched_key *k;
	size_t n;

	memset(c, 0, sizeof(*c));
	c->m = m;
	k = gr_model_sched_keys(m, &n);
	for (size_t i = 0; i < n && !c->recorded; i++)
		c->recorded = k[i].syscall >= 0 || k[i].stack;
}

/* @name is function @want, or a compiler's local copy of it ("take_gil.lto_priv.0"). */
static int is_function(const char *name, const char *want)
{
	size_t n = strlen(want);

	return name && !strncmp(name, want, n) && (name[n] == '\0' || name[n] == '.');
}

/*
 * The stack waits for CPython's GIL: take_gil (every version 3.10-3.14 waits there), or, in a
 * futex wait, one of the API functions that take the GIL (take_gil inlined into them).
 */
static int gil_wait(const struct gr_model *m, uint32_t stack, int futex)
{
	static const char *const takers[] = {
	    "PyEval_AcquireThread", "PyEval_RestoreThread",  "PyGILState_Ensure",
	    "PyEval_AcquireLock",   "_PyThreadState_Attach",
	};
	const struct gr_stack *st;
	size_t n;

	st = gr_model_stacks(m, &n);
	if (!stack || stack >= n)
		return 0;
	st = &st[stack];
	for (uint32_t i = 0; i < st->nframes; i++) {
		struct gr_frame f;

		if (GR_FRAME_IS_PYTHON(st->frames[i]))
			continue;
		gr_frame_describe(m, st->pid, st->frames[i], &f);
		if (is_function(f.function, "take_gil"))
			return 1;
		for (size_t t = 0; futex && t < sizeof(takers) / sizeof(takers[0]); t++)
			if (is_function(f.function, takers[t]))
				return 1;
	}
	return 0;
}

/* @pid is a process of the traced tree other than @self. */
static int other_traced(const struct gr_model *m, uint32_t pid, uint32_t self)
{
	const struct gr_process *p;
	size_t n;

	if (!pid || pid == self)
		return 0;
	p = gr_model_processes(m, &n);
	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return 1;
	return 0;
}

void gr_block_classify(const struct gr_block_ctx *c, const struct gr_sched_key *out,
		       const struct gr_sched_key *wake, uint32_t pid, struct gr_block_why *why)
{
	enum sc_class cls;
	int from_tree;

	memset(why, 0, sizeof(*why));
	why->reason = GR_BLOCK_UNKNOWN;
	why->syscall = -1;
	if (wake) {
		why->woken = 1;
		why->waker_pid = wake->prev_pid;
		why->waker_tid = wake->prev_tid;
		why->waker_stack = wake->stack;
	}
	if (!out || !c->recorded)
		return;
	why->syscall = out->syscall;
	why->stack = out->stack;
	why->fd_kind = out->fd_kind;
	if (out->syscall < 0) {
		/* no call: a page fault, or I/O the kernel waits on for the thread */
		if (out->prev_state & TASK_UNINTERRUPTIBLE)
			why->reason = GR_BLOCK_DISK;
		return;
	}
	cls = sc_class(out->syscall);
	from_tree = wake && other_traced(c->m, wake->prev_pid, pid);
	switch (cls) {
	case SC_FUTEX:
		why->reason = gil_wait(c->m, out->stack, 1) ? GR_BLOCK_GIL : GR_BLOCK_LOCK;
		return;
	case SC_READ:
		if ((out->fd_kind == GR_FD_PIPE || out->fd_kind == GR_FD_SOCKET) && from_tree)
			why->reason = GR_BLOCK_INPUT;
		else if (out->fd_kind == GR_FD_FILE)
			why->reason = GR_BLOCK_DISK;
		else
			why->reason = GR_BLOCK_OTHER;
		return;
	case SC_POLL:
		why->reason = from_tree ? GR_BLOCK_INPUT : GR_BLOCK_OTHER;
		return;
	case SC_SLEEP:
		why->reason = GR_BLOCK_SLEEP;
		return;
	case SC_CHILD:
		why->reason = GR_BLOCK_CHILD;
		return;
	case SC_SYNC:
		why->reason = GR_BLOCK_DISK;
		return;
	case SC_NONE:
		break;
	}
	/* a GIL wait the recorder saw outside a futex (a build that waits otherwise) */
	why->reason = gil_wait(c->m, out->stack, 0) ? GR_BLOCK_GIL : GR_BLOCK_OTHER;
}

int gr_block_tracker_init(struct gr_block_tracker *t, const struct gr_model *m,
			  const uint32_t *pids, size_t n)
{
	memset(t, 0, sizeof(*t));
	gr_block_ctx_init(&t->ctx, m);
	t->out = calloc(n ? n : 1, sizeof(*t->out));
	if (!t->out)
		return -ENOMEM;
	t->pids = pids;
	t->n = n;
	return 0;
}

int gr_block_tracker_span(struct gr_block_tracker *t, const struct gr_state_span *sp,
			  struct gr_block_why *why)
{
	const struct gr_sched_key *out = NULL;

	if (sp->thread >= t->n) {
		gr_block_classify(&t->ctx, NULL, NULL, 0, why);
		return 0;
	}
	if (sp->state == GR_STATE_BLOCKED && sp->begin.cause == GR_SPAN_SWITCH_OUT)
		out = t->out[sp->thread];
	/* spans end at the record being fed: a switch into sleep begins the next blocked span,
	 * a wakeup ends one */
	if (sp->next == GR_STATE_BLOCKED)
		t->out[sp->thread] = sp->cause == GR_SPAN_SWITCH_OUT ? t->cur : NULL;
	if (sp->state != GR_STATE_BLOCKED) {
		gr_block_classify(&t->ctx, NULL, NULL, 0, why);
		return 0;
	}
	gr_block_classify(&t->ctx, out, sp->cause == GR_SPAN_WAKEUP ? t->cur : NULL,
			  t->pids[sp->thread], why);
	return 1;
}

void gr_block_tracker_free(struct gr_block_tracker *t)
{
	if (!t)
		return;
	free(t->out);
	memset(t, 0, sizeof(*t));
}

const char *gr_block_reason_name(unsigned reason)
{
	static const char *const names[GR_BLOCK_NREASONS] = {
	    "gil", "lock", "input", "disk", "sleep", "child", "other", "unknown",
	};

	return reason < GR_BLOCK_NREASONS ? names[reason] : "unknown";
}

const char *gr_block_reason_words(unsigned reason)
{
	static const char *const words[GR_BLOCK_NREASONS] = {
	    "GIL wait", "lock wait",  "input wait",	    "disk I/O",
	    "sleep",	"child wait", "other system calls", "reason unknown",
	};

	return reason < GR_BLOCK_NREASONS ? words[reason] : "reason unknown";
}

/* Code every thread blocks through, whoever called it: not where the program was. */
static int system_module(const char *module)
{
	static const char *const prefixes[] = {"libc.so",   "libc-",	 "libpthread", "ld-linux",
					       "libpython", "libstdc++", "linux-vdso"};

	if (!module)
		return 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(module, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

int gr_block_site_frame(const struct gr_model *m, uint32_t stack)
{
	const struct gr_stack *st;
	size_t n;
	int py;

	st = gr_model_stacks(m, &n);
	if (!stack || stack >= n || !st[stack].nframes)
		return -1;
	st = &st[stack];
	py = gr_frames_python(st, st->nframes);
	if (py >= 0)
		return py;
	for (uint32_t i = 0; i < st->nframes; i++) {
		struct gr_frame f;

		gr_frame_describe(m, st->pid, st->frames[i], &f);
		if (!system_module(f.module) && f.module)
			return (int)i;
	}
	return 0;
}

const char *gr_block_site(const struct gr_model *m, uint32_t stack, char *buf, size_t len)
{
	const struct gr_stack *st = gr_model_stacks(m, NULL);
	int i = gr_block_site_frame(m, stack);
	struct gr_frame f;

	if (i < 0) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	gr_frame_describe(m, st[stack].pid, st[stack].frames[i], &f);
	return gr_frame_format(&f, buf, len);
}
