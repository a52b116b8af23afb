/* SPDX-License-Identifier: MIT */
/*
 * The thread-state timeline: scheduler records (switches and wakeups, in time order) replayed
 * into the state of each thread of interest over time, on CPU, runnable but waiting for one, or
 * blocked. The one state machine behind every scheduler figure: the CPU report's waits and
 * culprits, diff's per-iteration waits, export's CPU-state tracks.
 *
 * It streams: feed records in time order (a chunk at a time is fine) and it reports each state a
 * tracked thread leaves as a span, through a callback; memory is one small struct per tracked
 * thread. Threads are matched by tid (scheduler records carry raw ids).
 *
 * Rules (docs/REPORTS.md, "CPU starvation"):
 * - switched out with prev_state 0 (still runnable): preempted, RUNNABLE; with TASK_DEAD in it:
 *   it exited, GONE (a wakeup changes nothing; a switch in, a reused tid, makes it RUN); any
 *   other prev_state: it blocked, BLOCKED;
 * - switched in: RUN;
 * - a wakeup of a BLOCKED thread: RUNNABLE (a wakeup in any other state changes nothing);
 * - before its first record a thread's state follows from that record (switched out: it was
 *   running; switched in: runnable; woken: blocked), except that a thread seen making calls
 *   before that record must have run then: a prior state other than RUN is UNKNOWN;
 * - a migration record changes no state;
 * - a switch-out of a thread not running (blocked, runnable, gone) says its switch-in went
 *   unrecorded, a switch-in of a running one its switch-out: what it did since its last record
 *   is UNKNOWN (the span says missed), and a wait it was in ends there, one piece of nobody.
 *
 * Who held the CPU while a thread waited (gr_timeline_pieces(), for traces with wait windows:
 * every switch on a CPU where a traced thread waited is recorded, and every migration):
 * - a wait is on one CPU at a time: the one it was preempted on, the one a wakeup put it on
 *   (target_cpu), then the one each migration moves it to;
 * - a switch on that CPU ends a piece of the wait: the task switched out held the CPU since the
 *   previous piece ended (exact: no switch on that CPU inside a window goes unrecorded);
 * - the piece cut by a migration, by the thread's switch in elsewhere or by the end of the
 *   replay goes to the task known to hold the CPU then (switched in on it during the wait, the
 *   local waker, the migration record's task), else to nobody (known = 0);
 * - a wait whose start no record shows (recording started mid-wait) is one unknown piece.
 * The pieces of a wait tile it: their sum is the wait. They come before the wait's span.
 */
#ifndef GR_ANALYZE_TIMELINE_H
#define GR_ANALYZE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"

enum gr_thread_state {
	GR_STATE_UNKNOWN = 0,
	GR_STATE_RUN,
	GR_STATE_RUNNABLE,
	GR_STATE_BLOCKED,
	GR_STATE_GONE, /* switched out for the last time: the thread exited */
};

/* A record that began or ended a span. */
enum gr_span_edge {
	GR_SPAN_SWITCH_OUT = 0, /* the thread left the CPU (next: RUNNABLE, BLOCKED or GONE) */
	GR_SPAN_SWITCH_IN,	/* the thread got the CPU (next: RUN) */
	GR_SPAN_WAKEUP,		/* a blocked thread was woken (next: RUNNABLE) */
	GR_SPAN_REPLAY_END,	/* gr_timeline_finish() (next: UNKNOWN) */
	GR_SPAN_REPLAY_START,	/* (began only) the state before the thread's first record */
};

/* The record that began a state: what a timeline shows about it (who preempted, why asleep). */
struct gr_state_begin {
	uint8_t cause; /* enum gr_span_edge */
	uint32_t cpu;  /* the record's CPU: for a switch in, the one the thread runs on; for
			* REPLAY_START, the first record's: where a thread running then ran */
	/* SWITCH_OUT: the task switched to; SWITCH_IN: the one switched from; WAKEUP: the waker;
	 * 0 otherwise (tid 0 is also the idle task) */
	uint32_t other_pid, other_tid;
	uint64_t prev_state; /* SWITCH_OUT: the thread's state word then; 0 otherwise */
};

/* A state a thread held over [start, end), how it entered it and how it left it. */
struct gr_state_span {
	uint32_t thread;    /* index of the thread in gr_timeline_init()'s list */
	uint8_t state;	    /* enum gr_thread_state held */
	uint8_t next;	    /* the state entered at end */
	uint8_t cause;	    /* enum gr_span_edge that ended it */
	uint32_t other_tid; /* SWITCH_OUT: the task switched to; SWITCH_IN: the task switched from
			     * (0: the idle task); 0 otherwise */
	uint32_t other_pid; /* its process */
	uint64_t start, end;
	struct gr_state_begin begin;
	/* UNKNOWN because a record of the thread went missing (the rules above): the recording
	 * lost a switch, which no loss counter saw */
	uint8_t missed;
};

typedef int (*gr_timeline_fn)(void *ctx, const struct gr_state_span *span);

/* While thread @thread waited runnable on CPU @cpu over [start, end), task @pid/@tid held it;
 * known 0: no record says who (tid and pid 0 are then meaningless). tid 0 with known: idle. */
struct gr_wait_piece {
	uint32_t thread;
	uint32_t cpu;
	uint32_t pid, tid;
	uint8_t known;
	uint64_t start, end;
};

typedef int (*gr_timeline_piece_fn)(void *ctx, const struct gr_wait_piece *piece);

struct gr_timeline_thread {
	uint32_t tid;
	uint8_t state, seen;
	uint8_t missed; /* the current state is UNKNOWN for a missing record */
	uint64_t since; /* start of the current state (before the first record: first seen) */
	struct gr_state_begin begin; /* of the current state */
	/* the wait being cut into pieces: its CPU, the end of its last piece, who holds the CPU */
	uint8_t waiting, holder_known;
	uint32_t wait_cpu, holder_pid, holder_tid;
	uint64_t mark;
};

struct gr_timeline {
	struct gr_timeline_thread *t;
	size_t n;
	uint32_t *key, *val; /* tid + 1 -> index, open addressing */
	uint32_t mask;
	gr_timeline_fn fn;
	void *ctx;
	gr_timeline_piece_fn piece_fn; /* NULL: no pieces */
	uint32_t *waiting;	       /* indices of the threads with waiting set */
	size_t nwaiting;
};

/*
 * Track the @n threads @tids; @first_seen[i] is when thread i is first known to run (its first
 * API call), or UINT64_MAX when unknown. @fn gets every span. Returns 0 or -ENOMEM.
 */
int gr_timeline_init(struct gr_timeline *tl, const uint32_t *tids, const uint64_t *first_seen,
		     size_t n, gr_timeline_fn fn, void *ctx);

/*
 * Also cut every runnable wait into the pieces each task held the CPU (rules above), reported
 * to @fn (the init's ctx) before the wait's span. Call before the first feed. Returns 0 or
 * -ENOMEM.
 */
int gr_timeline_pieces(struct gr_timeline *tl, gr_timeline_piece_fn fn);

/* Replay one scheduler record: its time @ts and key @e (struct gr_sched). Returns 0 or the first
 * non-zero value @fn returned. */
int gr_timeline_feed(struct gr_timeline *tl, uint64_t ts, const struct gr_sched_key *e);

/*
 * End the replay: each thread seen in a record closes its current state at @last[i] (or at the
 * state's start when that is later), with a span whose cause is GR_SPAN_REPLAY_END. Returns like
 * feed.
 */
int gr_timeline_finish(struct gr_timeline *tl, const uint64_t *last);

void gr_timeline_free(struct gr_timeline *tl);

/* "running", "runnable", "blocked", "gone", "unknown" */
const char *gr_thread_state_name(unsigned state);

#endif
