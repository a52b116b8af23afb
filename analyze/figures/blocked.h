/* SPDX-License-Identifier: MIT */
/*
 * Why a thread was blocked: one blocked span of a thread (from its switch-out while sleeping to
 * the wakeup that ended the sleep) named by a reason, from the switch-out's system call, the
 * kind of file its fd names and the thread's stack there, and the culprit: the task whose wakeup
 * ended the span (for the GIL and locks the holder, which released it). The one classifier
 * behind the budget's blocked reasons, the diagnosis, diff and export. Rules and their limits:
 * docs/REPORTS.md ("Why the host waited").
 *
 * Ownership: nothing here allocates; strings point into the model or static tables.
 */
#ifndef GR_ANALYZE_BLOCKED_H
#define GR_ANALYZE_BLOCKED_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/figures/timeline.h"
#include "analyze/model/model.h"

/* The reasons, in the order every output lists them. */
enum gr_block_reason {
	GR_BLOCK_GIL = 0, /* CPython's GIL wait */
	GR_BLOCK_LOCK,	  /* any other futex wait: mutex, condition variable, semaphore */
	GR_BLOCK_INPUT,	  /* reading a pipe or socket (or polling) fed by another process of the
			   * traced tree */
	GR_BLOCK_DISK,	  /* reading a file, or an uninterruptible sleep outside a system call */
	GR_BLOCK_SLEEP,	  /* nanosleep, clock_nanosleep */
	GR_BLOCK_CHILD,	  /* wait4, waitid */
	GR_BLOCK_OTHER,	  /* any other system call (named by it) */
	GR_BLOCK_STOPPED, /* stopped by a signal or a tracer (SIGSTOP, a debugger, the recorder
			   * holding the process while it reads a new library or Python stack) */
	GR_BLOCK_UNKNOWN, /* no system call known: a trace without blocked reasons */
	GR_BLOCK_NREASONS,
};

/* What the classifier needs of a model, gathered once. */
struct gr_block_ctx {
	const struct gr_model *m;
	/* some switch of the trace carries a system call or a stack: it records blocked reasons
	 * (0: an older recorder's trace, every reason is unknown) */
	int recorded;
};

void gr_block_ctx_init(struct gr_block_ctx *c, const struct gr_model *m);

/* One blocked span explained. */
struct gr_block_why {
	uint8_t reason;	 /* enum gr_block_reason */
	uint8_t woken;	 /* a wakeup ended the span: waker_* say who */
	int32_t syscall; /* the call the thread blocked in, -1: none or not known */
	uint32_t stack;	 /* the thread's stack where it blocked, 0 = none */
	uint32_t waker_pid, waker_tid;
	uint32_t waker_stack; /* the waker's stack when it woke the thread, 0 = none */
	uint8_t fd_kind;      /* enum gr_fd_kind of the call's fd */
};

/*
 * Explain the blocked span of a thread of process @pid that began at switch @out (NULL: the
 * span's start was not recorded) and ended at wakeup @wake (NULL: no wakeup ended it) into
 * *@why. Never fails.
 */
void gr_block_classify(const struct gr_block_ctx *c, const struct gr_sched_key *out,
		       const struct gr_sched_key *wake, uint32_t pid, struct gr_block_why *why);

/*
 * The classifier over a replay of the thread timeline (timeline.h) of @n tracked threads: tell
 * it each record before gr_timeline_feed() gets it, and hand it every span the timeline
 * reports; it explains the blocked ones. Memory: one pointer per thread.
 */
struct gr_block_tracker {
	struct gr_block_ctx ctx;
	const uint32_t *pids;		 /* each tracked thread's process (the caller's array) */
	const struct gr_sched_key **out; /* each one's switch into its current sleep, or NULL */
	size_t n;
	const struct gr_sched_key *cur; /* the record being fed; NULL at the replay's end */
};

/* Track the @n threads of processes @pids (kept, not copied). Returns 0 or -ENOMEM. */
int gr_block_tracker_init(struct gr_block_tracker *t, const struct gr_model *m,
			  const uint32_t *pids, size_t n);
/* The timeline is about to be fed @key (NULL before gr_timeline_finish()). */
static inline void gr_block_tracker_feed(struct gr_block_tracker *t, const struct gr_sched_key *key)
{
	t->cur = key;
}
/*
 * Span @sp (reported while the record last given to gr_block_tracker_feed() was fed): into
 * *@why, why a BLOCKED one was blocked; any other state gets reason GR_BLOCK_UNKNOWN and no
 * waker. Returns 1 for a BLOCKED span, else 0.
 */
int gr_block_tracker_span(struct gr_block_tracker *t, const struct gr_state_span *sp,
			  struct gr_block_why *why);
void gr_block_tracker_free(struct gr_block_tracker *t);

/* One span of a thread's timeline with why it was blocked (any other state: reason unknown;
 * NULL when the replay was not asked for reasons). */
typedef int (*gr_block_span_fn)(void *ctx, const struct gr_state_span *sp,
				const struct gr_block_why *why);

/*
 * Replay every thread of @m (sp->thread: its gr_model_threads() index) through the thread
 * timeline with the classifier: @fn gets each span and why. Records after @hi are not fed; each
 * thread's last state ends at @end, or at its process's exit when that comes after the state
 * began and before @end. A state whose start was not recorded is not reported (no thread is
 * known to run before its first record). @flags: GR_BLOCK_REPLAY_WHY classifies the blocked
 * spans (else @fn gets NULL: a replay of states alone pays for no stack lookups);
 * GR_BLOCK_REPLAY_PROGRESS counts each record fed as progress (analyze/util/progress.h).
 * Returns 0, -ENOMEM, or @fn's nonzero return, which ends it.
 */
#define GR_BLOCK_REPLAY_WHY	 1u
#define GR_BLOCK_REPLAY_PROGRESS 2u
int gr_block_replay(const struct gr_model *m, uint64_t hi, uint64_t end, unsigned flags,
		    gr_block_span_fn fn, void *ctx);

/* "gil", "lock", "input", "disk", "sleep", "child", "other", "unknown": the JSON key stems. */
const char *gr_block_reason_name(unsigned reason);
/* Words for text: "GIL wait", "lock wait", "input wait", "disk I/O", "sleep", "child wait",
 * "other system calls", "reason unknown". */
const char *gr_block_reason_words(unsigned reason);

/* System calls are named by analyze/util/syscalls.h's gr_syscall_name(). */

/*
 * The frame of stack @stack (gr_model_stacks() index) that names where its thread was: the
 * innermost Python frame, else the innermost native frame outside the C library, the dynamic
 * loader and CPython's own library, else the innermost frame. -1 when the stack has no frames.
 */
int gr_block_site_frame(const struct gr_model *m, uint32_t stack);

/* That frame as gr_frame_format() writes it, into @buf (@len bytes): "" without one. */
const char *gr_block_site(const struct gr_model *m, uint32_t stack, char *buf, size_t len);

/*
 * 1 when a lock wait is a hand-off through a condition variable, the thread waiting for
 * another's signal rather than for a lock to be released: the waker's stack @waker_stack passes
 * through a condition variable's wake (pthread_cond_signal, std::condition_variable), or, with
 * no waker stack (0), the waiter's @stack through its wait. The waker decides when known: a
 * thread in pthread_cond_wait that then waits for the mutex is woken by pthread_mutex_unlock.
 * Else 0. Stacks are gr_model_stacks() indexes.
 */
int gr_block_condvar(const struct gr_model *m, uint32_t stack, uint32_t waker_stack);

#endif
