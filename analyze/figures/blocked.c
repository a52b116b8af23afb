/* SPDX-License-Identifier: MIT */
/* Why a thread was blocked (blocked.h): a blocked span's reason and its culprit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/progress.h"
#include "analyze/util/syscalls.h"
#include "blocked.h"
#include "frames.h"

/* The kernel's task state bits of an uninterruptible sleep (D), a stop (T) and a trace stop (t). */
#define TASK_UNINTERRUPTIBLE 0x2u
#define TASK_STOPPED	     0x4u
#define TASK_TRACED	     0x8u

/* A call that reads from its fd: blocked in it on a pipe or socket, the thread waits for data. */
static int reads(int32_t nr)
{
	const char *name = gr_syscall_name(nr);

	return name && (!strncmp(name, "read", 4) || !strncmp(name, "pread", 5) ||
			!strncmp(name, "recv", 4));
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
 * Whether stack @stack has a native frame of one of the @n functions @names: each @name itself
 * or a compiler's local copy of it (is_function()), or with @prefix any function whose name
 * begins with it.
 */
static int stack_calls(const struct gr_model *m, uint32_t stack, const char *const *names, size_t n,
		       int prefix)
{
	const struct gr_stack *st;
	size_t nst;

	st = gr_model_stacks(m, &nst);
	if (!stack || stack >= nst)
		return 0;
	st = &st[stack];
	for (uint32_t i = 0; i < st->nframes; i++) {
		struct gr_frame f;

		if (GR_FRAME_IS_PYTHON(st->frames[i]))
			continue;
		gr_frame_describe(m, st->pid, st->frames[i], &f);
		for (size_t k = 0; f.function && k < n; k++)
			if (prefix ? !strncmp(f.function, names[k], strlen(names[k]))
				   : is_function(f.function, names[k]))
				return 1;
	}
	return 0;
}

/*
 * The stack waits for CPython's GIL: take_gil (every version 3.10-3.14 waits there), or, in a
 * futex wait, one of the API functions that take the GIL (take_gil inlined into them).
 */
static int gil_wait(const struct gr_model *m, uint32_t stack, int futex)
{
	static const char *const takers[] = {
	    "take_gil",		 "PyEval_AcquireThread", "PyEval_RestoreThread",
	    "PyGILState_Ensure", "PyEval_AcquireLock",	 "_PyThreadState_Attach",
	};

	return stack_calls(m, stack, takers, futex ? sizeof(takers) / sizeof(takers[0]) : 1, 0);
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
	from_tree = wake && other_traced(c->m, wake->prev_pid, pid);
	/* not a wait of the program's: it was stopped, whatever call it was in (its waker is
	 * whoever continued it: the recorder's hold names gpurec) */
	if (out->prev_state & (TASK_STOPPED | TASK_TRACED)) {
		why->reason = GR_BLOCK_STOPPED;
		return;
	}
	switch (gr_syscall_class(out->syscall)) {
	case GR_WAIT_NONE:
		/* no call: a page fault, or I/O the kernel waits on for the thread */
		if (out->prev_state & TASK_UNINTERRUPTIBLE)
			why->reason = GR_BLOCK_DISK;
		return;
	case GR_WAIT_FUTEX:
		why->reason = gil_wait(c->m, out->stack, 1) ? GR_BLOCK_GIL : GR_BLOCK_LOCK;
		return;
	case GR_WAIT_FD:
		/* a file's reads, writes and syncs wait for its disk */
		if (out->fd_kind == GR_FD_FILE)
			why->reason = GR_BLOCK_DISK;
		else if ((out->fd_kind == GR_FD_PIPE || out->fd_kind == GR_FD_SOCKET) &&
			 reads(out->syscall) && from_tree)
			why->reason = GR_BLOCK_INPUT;
		else
			why->reason = GR_BLOCK_OTHER;
		return;
	case GR_WAIT_POLL:
		why->reason = from_tree ? GR_BLOCK_INPUT : GR_BLOCK_OTHER;
		return;
	case GR_WAIT_SLEEP:
		why->reason = GR_BLOCK_SLEEP;
		return;
	case GR_WAIT_CHILD:
		why->reason = GR_BLOCK_CHILD;
		return;
	default:
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

struct replay {
	struct gr_block_tracker bt;
	int why; /* GR_BLOCK_REPLAY_WHY: bt classifies */
	gr_block_span_fn fn;
	void *ctx;
};

static int on_replay_span(void *ctx, const struct gr_state_span *sp)
{
	struct replay *r = ctx;
	struct gr_block_why why;

	if (!r->why)
		return r->fn(r->ctx, sp, NULL);
	gr_block_tracker_span(&r->bt, sp, &why);
	return r->fn(r->ctx, sp, &why);
}

int gr_block_replay(const struct gr_model *m, uint64_t hi, uint64_t end, unsigned flags,
		    gr_block_span_fn fn, void *ctx)
{
	size_t n, nt, np;
	const struct gr_sched *e = gr_model_scheds(m, &n);
	const struct gr_sched_key *keys = gr_model_sched_keys(m, NULL);
	const struct gr_thread *th = gr_model_threads(m, &nt);
	const struct gr_process *procs = gr_model_processes(m, &np);
	uint32_t *tids = calloc(nt + 1, sizeof(*tids)), *pids = calloc(nt + 1, sizeof(*pids));
	uint64_t *first = calloc(nt + 1, sizeof(*first)), *last = calloc(nt + 1, sizeof(*last));
	struct replay r = {.why = !!(flags & GR_BLOCK_REPLAY_WHY), .fn = fn, .ctx = ctx};
	struct gr_timeline tl = {0};
	int err = -ENOMEM;

	if (!tids || !pids || !first || !last)
		goto out;
	for (size_t t = 0; t < nt; t++) {
		tids[t] = th[t].tid;
		pids[t] = th[t].pid;
		first[t] = UINT64_MAX;
	}
	err = gr_block_tracker_init(&r.bt, m, pids, nt);
	if (!err)
		err = gr_timeline_init(&tl, tids, first, nt, on_replay_span, &r);
	for (size_t i = 0; !err && i < n && e[i].ts <= hi; i++) {
		if (flags & GR_BLOCK_REPLAY_PROGRESS)
			gr_progress_add(1);
		gr_block_tracker_feed(&r.bt, &keys[e[i].key]);
		err = gr_timeline_feed(&tl, e[i].ts, &keys[e[i].key]);
	}
	gr_block_tracker_feed(&r.bt, NULL);
	if (err)
		goto out;
	for (size_t t = 0; t < nt; t++) {
		const struct gr_process *p = th[t].process < np ? &procs[th[t].process] : NULL;

		last[t] = end;
		if (p && p->has_exit && p->exit_ts > tl.t[t].since && p->exit_ts < end)
			last[t] = p->exit_ts;
	}
	err = gr_timeline_finish(&tl, last);
out:
	gr_timeline_free(&tl);
	gr_block_tracker_free(&r.bt);
	free(tids);
	free(pids);
	free(first);
	free(last);
	return err;
}

const char *gr_block_reason_name(unsigned reason)
{
	static const char *const names[GR_BLOCK_NREASONS] = {
	    "gil", "lock", "input", "disk", "sleep", "child", "other", "stopped", "unknown",
	};

	return reason < GR_BLOCK_NREASONS ? names[reason] : "unknown";
}

const char *gr_block_reason_words(unsigned reason)
{
	static const char *const words[GR_BLOCK_NREASONS] = {
	    "GIL wait",	  "lock wait",		"input wait", "disk I/O",	"sleep",
	    "child wait", "other system calls", "stopped",    "reason unknown",
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

int gr_block_condvar(const struct gr_model *m, uint32_t stack, uint32_t waker_stack)
{
	/* glibc's (and musl's) and libstdc++'s over them: the waits and the wakes */
	static const char *const prefixes[] = {"pthread_cond_", "__pthread_cond_",
					       "___pthread_cond_", "std::condition_variable",
					       "std::_V2::condition_variable_any"};

	return stack_calls(m, waker_stack ? waker_stack : stack, prefixes,
			   sizeof(prefixes) / sizeof(prefixes[0]), 1);
}
