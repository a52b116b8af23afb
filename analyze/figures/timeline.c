/* SPDX-License-Identifier: MIT */
/* The thread-state timeline (timeline.h): scheduler records into per-thread state spans. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

#define TASK_DEAD 0x80u /* the kernel's task state of a task switching out for the last time */

int gr_timeline_init(struct gr_timeline *tl, const uint32_t *tids, const uint64_t *first_seen,
		     size_t n, gr_timeline_fn fn, void *ctx)
{
	uint32_t cap = 16;

	memset(tl, 0, sizeof(*tl));
	while (cap < n * 2)
		cap *= 2;
	tl->t = calloc(n + 1, sizeof(*tl->t));
	tl->key = calloc(cap, sizeof(*tl->key));
	tl->val = calloc(cap, sizeof(*tl->val));
	if (!tl->t || !tl->key || !tl->val) {
		gr_timeline_free(tl);
		return -ENOMEM;
	}
	tl->mask = cap - 1;
	tl->n = n;
	tl->fn = fn;
	tl->ctx = ctx;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = (tids[i] * 2654435761u) & tl->mask;

		tl->t[i].tid = tids[i];
		tl->t[i].since = first_seen[i];
		while (tl->key[s])
			s = (s + 1) & tl->mask;
		tl->key[s] = tids[i] + 1;
		tl->val[s] = (uint32_t)i;
	}
	return 0;
}

int gr_timeline_pieces(struct gr_timeline *tl, gr_timeline_piece_fn fn)
{
	tl->waiting = calloc(tl->n + 1, sizeof(*tl->waiting));
	if (!tl->waiting)
		return -ENOMEM;
	tl->piece_fn = fn;
	return 0;
}

void gr_timeline_free(struct gr_timeline *tl)
{
	free(tl->waiting);
	free(tl->t);
	free(tl->key);
	free(tl->val);
	memset(tl, 0, sizeof(*tl));
}

static long lookup(const struct gr_timeline *tl, uint32_t tid)
{
	uint32_t s = (tid * 2654435761u) & tl->mask;

	while (tl->key[s]) {
		if (tl->key[s] == tid + 1)
			return tl->val[s];
		s = (s + 1) & tl->mask;
	}
	return -1;
}

/* The state a thread was in before its first scheduler record, from that record. */
static uint8_t prior_state(const struct gr_sched_key *e, uint32_t tid)
{
	if (e->type == GR_SCHED_SWITCH)
		return e->prev_tid == tid ? GR_STATE_RUN : GR_STATE_RUNNABLE;
	return e->next_tid == tid ? GR_STATE_BLOCKED : GR_STATE_RUN;
}

/* The piece of thread @i's wait from its mark to @end, held by @pid/@tid (known) or nobody. */
static int piece(struct gr_timeline *tl, size_t i, uint64_t end, int known, uint32_t pid,
		 uint32_t tid)
{
	struct gr_timeline_thread *t = &tl->t[i];
	struct gr_wait_piece p = {
	    .thread = (uint32_t)i,
	    .cpu = t->wait_cpu,
	    .pid = known ? pid : 0,
	    .tid = known ? tid : 0,
	    .known = (uint8_t)(known != 0),
	    .start = t->mark,
	    .end = end > t->mark ? end : t->mark,
	};

	t->mark = p.end;
	return p.end > p.start ? tl->piece_fn(tl->ctx, &p) : 0;
}

static int piece_to_holder(struct gr_timeline *tl, size_t i, uint64_t end)
{
	const struct gr_timeline_thread *t = &tl->t[i];

	return piece(tl, i, end, t->holder_known, t->holder_pid, t->holder_tid);
}

static void set_holder(struct gr_timeline_thread *t, int known, uint32_t pid, uint32_t tid)
{
	t->holder_known = (uint8_t)(known != 0);
	t->holder_pid = pid;
	t->holder_tid = tid;
}

/* Thread @i waits on @cpu from @ts; @e began it. */
static void wait_start(struct gr_timeline *tl, size_t i, uint64_t ts, const struct gr_sched_key *e)
{
	struct gr_timeline_thread *t = &tl->t[i];

	if (e->type == GR_SCHED_SWITCH) {
		t->wait_cpu = e->cpu;
		set_holder(t, 1, e->next_pid, e->next_tid);
	} else {
		/* a wakeup: the waker holds the target CPU when it runs there */
		t->wait_cpu = e->target_cpu;
		set_holder(t, e->cpu == e->target_cpu, e->prev_pid, e->prev_tid);
	}
	t->mark = ts;
	if (!t->waiting)
		tl->waiting[tl->nwaiting++] = (uint32_t)i;
	t->waiting = 1;
}

/* Thread @i no longer waits: out of the waiting list. */
static void unwait(struct gr_timeline *tl, size_t i)
{
	for (size_t k = 0; k < tl->nwaiting; k++)
		if (tl->waiting[k] == i) {
			tl->waiting[k] = tl->waiting[--tl->nwaiting];
			break;
		}
	tl->t[i].waiting = 0;
}

/* Thread @i's runnable state ends at @ts (record @e, NULL at the end of the replay): its last
 * piece. A wait whose start no record showed is one unknown piece. */
static int wait_stop(struct gr_timeline *tl, size_t i, uint64_t ts, const struct gr_sched_key *e)
{
	struct gr_timeline_thread *t = &tl->t[i];
	int err;

	if (!t->waiting) {
		t->mark = t->since;
		return piece(tl, i, ts, 0, 0, 0);
	}
	/* switched in on another CPU than the one it waited on: a migration went unrecorded */
	if (e && e->type == GR_SCHED_SWITCH && e->cpu != t->wait_cpu)
		err = piece(tl, i, ts, 0, 0, 0);
	else
		err = piece_to_holder(tl, i, ts);
	unwait(tl, i);
	return err;
}

/* The thread enters @next at @ts by record @e (what began it: @cause), leaving its state as a
 * span. */
static int change(struct gr_timeline *tl, size_t i, uint64_t ts, const struct gr_sched_key *e,
		  uint8_t next, uint8_t cause, uint32_t other)
{
	struct gr_timeline_thread *t = &tl->t[i];
	struct gr_state_span sp;
	int err;

	if (tl->piece_fn && t->state == GR_STATE_RUNNABLE && (err = wait_stop(tl, i, ts, e)))
		return err;
	if (tl->piece_fn && next == GR_STATE_RUNNABLE)
		wait_start(tl, i, ts, e);
	sp = (struct gr_state_span){
	    .thread = (uint32_t)i,
	    .state = t->state,
	    .next = next,
	    .cause = cause,
	    .other_tid = cause == GR_SPAN_WAKEUP ? 0 : other,
	    .other_pid = cause == GR_SPAN_WAKEUP       ? 0
			 : cause == GR_SPAN_SWITCH_OUT ? e->next_pid
						       : e->prev_pid,
	    .start = t->since,
	    .end = ts > t->since ? ts : t->since,
	    .begin = t->begin,
	    .missed = t->missed,
	};

	t->state = next;
	t->missed = 0;
	t->since = ts;
	t->begin = (struct gr_state_begin){
	    .cause = cause,
	    .cpu = e->cpu,
	    .other_pid = cause == GR_SPAN_SWITCH_OUT ? e->next_pid : e->prev_pid,
	    .other_tid = other,
	    .prev_state = cause == GR_SPAN_SWITCH_OUT ? e->prev_state : 0,
	};
	return tl->fn(tl->ctx, &sp);
}

/*
 * A record of thread @i at @ts says another went unrecorded: a switch-out of a thread not on a
 * CPU (its switch-in is missing), or a switch-in of one on a CPU (its switch-out is). What it
 * did since its last record is not known: the state left is UNKNOWN, marked missed, and a wait
 * it was in ends there as one piece of no known holder.
 */
static int lost_record(struct gr_timeline *tl, size_t i, uint64_t ts)
{
	struct gr_timeline_thread *t = &tl->t[i];
	int err = 0;

	if (tl->piece_fn && t->state == GR_STATE_RUNNABLE && t->waiting) {
		err = piece(tl, i, ts, 0, 0, 0);
		unwait(tl, i);
	}
	t->state = GR_STATE_UNKNOWN;
	t->missed = 1;
	return err;
}

static uint8_t switched_out(uint64_t prev_state)
{
	if (!prev_state)
		return GR_STATE_RUNNABLE;
	return prev_state & TASK_DEAD ? GR_STATE_GONE : GR_STATE_BLOCKED;
}

static int step(struct gr_timeline *tl, size_t i, uint64_t ts, const struct gr_sched_key *e)
{
	struct gr_timeline_thread *t = &tl->t[i];
	int err;

	if (!t->seen) {
		uint8_t prior = prior_state(e, t->tid);

		if (ts < t->since)
			t->since = ts;
		t->seen = 1;
		/* an API call before the first record means it ran then: only RUN is consistent */
		t->state = t->since < ts && prior != GR_STATE_RUN ? GR_STATE_UNKNOWN : prior;
		/* the CPU of the first record: where a thread that was running then ran */
		t->begin = (struct gr_state_begin){.cause = GR_SPAN_REPLAY_START, .cpu = e->cpu};
	}
	if (e->type == GR_SCHED_SWITCH && e->prev_tid == t->tid) {
		if (t->state != GR_STATE_RUN && t->state != GR_STATE_UNKNOWN &&
		    (err = lost_record(tl, i, ts)))
			return err;
		return change(tl, i, ts, e, switched_out(e->prev_state), GR_SPAN_SWITCH_OUT,
			      e->next_tid);
	}
	if (e->type == GR_SCHED_SWITCH && e->next_tid == t->tid) {
		if (t->state == GR_STATE_RUN && (err = lost_record(tl, i, ts)))
			return err;
		return change(tl, i, ts, e, GR_STATE_RUN, GR_SPAN_SWITCH_IN, e->prev_tid);
	}
	if (e->next_tid == t->tid && t->state == GR_STATE_BLOCKED) /* woken */
		return change(tl, i, ts, e, GR_STATE_RUNNABLE, GR_SPAN_WAKEUP, e->prev_tid);
	return 0;
}

/*
 * A switch on a CPU where tracked threads wait: the task switched out held it since each one's
 * last piece; the task switched in holds it now.
 */
static int cut_waits(struct gr_timeline *tl, uint64_t ts, const struct gr_sched_key *e)
{
	for (size_t k = 0; k < tl->nwaiting; k++) {
		struct gr_timeline_thread *t = &tl->t[tl->waiting[k]];
		int err;

		/* a waiting thread switched out lost its switch-in: lost_record() ends its wait */
		if (t->wait_cpu != e->cpu || t->tid == e->prev_tid)
			continue;
		err = piece(tl, tl->waiting[k], ts, 1, e->prev_pid, e->prev_tid);
		if (err)
			return err;
		set_holder(t, 1, e->next_pid, e->next_tid);
	}
	return 0;
}

/* A waiting thread moves to another CPU: the piece on the CPU it leaves ends. */
static int migrate(struct gr_timeline *tl, uint64_t ts, const struct gr_sched_key *e)
{
	long a = lookup(tl, e->prev_tid);
	struct gr_timeline_thread *t;
	int err;

	if (a < 0 || !tl->t[a].waiting)
		return 0;
	t = &tl->t[a];
	if (t->wait_cpu != e->cpu)
		set_holder(t, 0, 0, 0); /* a migration before it went unrecorded */
	else if (e->next_tid != GR_SCHED_NOBODY)
		set_holder(t, 1, e->next_pid, e->next_tid);
	err = piece_to_holder(tl, (size_t)a, ts);
	t->wait_cpu = e->target_cpu;
	set_holder(t, 0, 0, 0);
	return err;
}

int gr_timeline_feed(struct gr_timeline *tl, uint64_t ts, const struct gr_sched_key *e)
{
	long a, b = -1;
	int err = 0;

	if (e->type == GR_SCHED_MIGRATE)
		return tl->piece_fn ? migrate(tl, ts, e) : 0;
	if (tl->piece_fn && e->type == GR_SCHED_SWITCH && tl->nwaiting &&
	    (err = cut_waits(tl, ts, e)))
		return err;
	a = lookup(tl, e->prev_tid);
	if (e->next_tid != e->prev_tid)
		b = lookup(tl, e->next_tid);
	if (a >= 0)
		err = step(tl, (size_t)a, ts, e);
	if (!err && b >= 0)
		err = step(tl, (size_t)b, ts, e);
	return err;
}

int gr_timeline_finish(struct gr_timeline *tl, const uint64_t *last)
{
	for (size_t i = 0; i < tl->n; i++) {
		struct gr_timeline_thread *t = &tl->t[i];
		struct gr_state_span sp;
		int err;

		if (!t->seen)
			continue;
		if (tl->piece_fn && t->state == GR_STATE_RUNNABLE &&
		    (err = wait_stop(tl, i, last[i] > t->since ? last[i] : t->since, NULL)))
			return err;
		sp = (struct gr_state_span){
		    .thread = (uint32_t)i,
		    .state = t->state,
		    .next = GR_STATE_UNKNOWN,
		    .cause = GR_SPAN_REPLAY_END,
		    .start = t->since,
		    .end = last[i] > t->since ? last[i] : t->since,
		    .begin = t->begin,
		};
		err = tl->fn(tl->ctx, &sp);
		if (err)
			return err;
	}
	return 0;
}

const char *gr_thread_state_name(unsigned state)
{
	static const char *const names[] = {"unknown", "running", "runnable", "blocked", "gone"};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}
