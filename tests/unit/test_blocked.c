/* SPDX-License-Identifier: MIT */
/*
 * analyze/figures/blocked and the budget's blocked reasons: the classifier on hand-built switch
 * keys over a model whose stacks and symbols are known, and the budget's split of the blocked part
 * into reasons (exact, and adding up) with each reason's culprit, over hand-built scheduler states.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyze/figures/blocked.h"
#include "analyze/figures/budget.h"
#include "analyze/figures/frames.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "synth.h"
#include "test.h"

#define T0 SYNTH_T0

static char dir[] = "/tmp/gr_test_blocked.XXXXXX";

/* the loop's process and thread, a second thread of it, a producer process */
#define LOOP	100
#define HOLDER	101
#define PRODUCE 200

/* stack ids of the trace, and the frames they hold */
enum { ST_GIL = 1, ST_RESTORE, ST_MUTEX, ST_PY, ST_WAKER };

static int err;

static void symbol(struct gr_trace_writer *w, uint32_t pid, uint64_t addr, const char *name)
{
	uint64_t v[GR_SYM_NCOLS] = {T0, pid, addr, addr, 0x10, 0};
	struct gr_bytes n[2] = {{(const uint8_t *)name, (uint32_t)strlen(name)}, {NULL, 0}};

	err |= gr_trace_writer_append(w, GR_K_SYMBOL, v, n);
}

static void stack(struct gr_trace_writer *w, uint32_t pid, uint64_t id, const uint64_t *fr,
		  uint32_t n)
{
	uint8_t bytes[64];
	uint64_t v[GR_STACK_NCOLS] = {T0, id, pid, 0};
	struct gr_bytes bb[1] = {{bytes, n * 8}};

	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			bytes[i * 8 + k] = (uint8_t)(fr[i] >> (8 * k));
	err |= gr_trace_writer_append(w, GR_K_STACK, v, bb);
}

static void mapping(struct gr_trace_writer *w, uint32_t pid, uint64_t start, uint64_t end,
		    const char *path)
{
	uint64_t v[GR_MAP_NCOLS] = {T0, pid, start, end, 0, 0, 0};
	struct gr_bytes bb[2] = {{(const uint8_t *)path, (uint32_t)strlen(path)}, {NULL, 0}};

	err |= gr_trace_writer_append(w, GR_K_MAPPING, v, bb);
}

static void pyframe(struct gr_trace_writer *w, uint32_t pid, uint64_t n, const char *file,
		    uint32_t line, const char *function)
{
	uint64_t v[GR_PYF_NCOLS] = {T0, GR_FRAME_PYTHON | n, pid, 0, line, 0};
	struct gr_bytes bb[2] = {{(const uint8_t *)file, (uint32_t)strlen(file)},
				 {(const uint8_t *)function, (uint32_t)strlen(function)}};

	err |= gr_trace_writer_append(w, GR_K_PYFRAME, v, bb);
}

/*
 * The model: the loop thread launches at T0 + k ms (k = 0..3, each launch 100 us, stack k + 1
 * referenced so the model keeps stacks 1-4); the producer launches once with ST_WAKER.
 * libc.so.6 at 0x7000-0x8000 holds the futex wait; python3.12 at 0x1000-0x2000 holds take_gil
 * and PyEval_RestoreThread; the program (app) at 0x4000-0x5000 holds holder().
 */
static struct gr_model *load(void)
{
	static const uint32_t g[3] = {1, 1, 1};
	const uint64_t gil[] = {0x7010, 0x1010, 0x4010}, restore[] = {0x7010, 0x1110, 0x4010},
		       mutex[] = {0x7010, 0x4010}, py[] = {0x7010, 0x1010, GR_FRAME_PYTHON | 1},
		       waker[] = {0x7110, 0x4110};
	struct gr_trace_writer *w;
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	char path[256];

	snprintf(path, sizeof(path), "%s/blocked.trc", dir);
	err = synth_open(&w, path, 0) ? -1 : 0;
	if (err)
		return NULL;
	for (uint32_t pid = LOOP; pid <= PRODUCE; pid += PRODUCE - LOOP) {
		mapping(w, pid, 0x1000, 0x2000, "/usr/bin/python3.12");
		mapping(w, pid, 0x4000, 0x5000, "/work/app");
		mapping(w, pid, 0x7000, 0x8000, "/usr/lib/x86_64-linux-gnu/libc.so.6");
		symbol(w, pid, 0x1010, "take_gil.lto_priv.0");
		symbol(w, pid, 0x1110, "PyEval_RestoreThread");
		symbol(w, pid, 0x4010, "holder");
		symbol(w, pid, 0x4110, "produce");
		symbol(w, pid, 0x7010, "__futex_abstimed_wait_common");
		symbol(w, pid, 0x7110, "write");
	}
	pyframe(w, LOOP, 1, "worker.py", 12, "burn");
	stack(w, LOOP, ST_GIL, gil, 3);
	stack(w, LOOP, ST_RESTORE, restore, 3);
	stack(w, LOOP, ST_MUTEX, mutex, 2);
	stack(w, LOOP, ST_PY, py, 3);
	stack(w, PRODUCE, ST_WAKER, waker, 2);
	err |= synth_name(w, T0, GR_NAME_COMM, LOOP, HOLDER, "Thread-1");
	err |= synth_name(w, T0, GR_NAME_COMM, PRODUCE, PRODUCE, "producer");
	for (uint64_t k = 0; k < 4; k++)
		err |=
		    synth_launch(w, T0 + k * 1000000, LOOP, LOOP, 0xf00, g, g, 0, 0, k + 1, 100000);
	err |= synth_launch(w, T0 + 5000000, PRODUCE, PRODUCE, 0xf00, g, g, 0, 0, ST_WAKER, 100000);
	if (gr_trace_writer_close(w))
		err = -1;
	CHECK(err == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (!m)
		printf("#   load %s: %s\n", path, diag.reason);
	return m;
}

/* Close @w, the trace at @path, and load it; NULL (a failed check) when either fails. */
static struct gr_model *close_load(struct gr_trace_writer *w, const char *path)
{
	struct gr_model *m = NULL;

	if (gr_trace_writer_close(w))
		err = -1;
	CHECK(err == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	return m;
}

/* The model's index of the stack with the trace's id @id in @pid. */
static uint32_t stack_index(const struct gr_model *m, uint32_t pid, uint64_t id)
{
	size_t n;
	const struct gr_stack *st = gr_model_stacks(m, &n);

	for (size_t i = 1; i < n; i++)
		if (st[i].id == id && st[i].pid == pid)
			return (uint32_t)i;
	return 0;
}

/* A switch-out of the loop thread asleep (@state) in @sc on @fd with stack @st. */
static struct gr_sched_key out_key(int32_t sc, unsigned fd, uint32_t st, uint64_t state)
{
	return (struct gr_sched_key){.type = GR_SCHED_SWITCH,
				     .prev_pid = LOOP,
				     .prev_tid = LOOP,
				     .prev_state = state,
				     .syscall = sc,
				     .fd_kind = (uint8_t)fd,
				     .stack = st};
}

/* @pid/@tid woke the loop thread with stack @st. */
static struct gr_sched_key wake_key(uint32_t pid, uint32_t tid, uint32_t st)
{
	return (struct gr_sched_key){.type = GR_SCHED_WAKEUP,
				     .prev_pid = pid,
				     .prev_tid = tid,
				     .next_pid = LOOP,
				     .next_tid = LOOP,
				     .stack = st};
}

static unsigned classify(const struct gr_block_ctx *c, struct gr_sched_key o,
			 const struct gr_sched_key *wk)
{
	struct gr_block_why why;

	gr_block_classify(c, &o, wk, LOOP, &why);
	return why.reason;
}

static void test_classify(void)
{
	struct gr_model *m = load();
	struct gr_block_ctx c;
	struct gr_sched_key holder, producer, self, o;
	struct gr_block_why why;
	uint32_t gil, restore, mutex, py, waker;
	char buf[GR_FRAME_TEXT];

	if (!m)
		return;
	gil = stack_index(m, LOOP, ST_GIL);
	restore = stack_index(m, LOOP, ST_RESTORE);
	mutex = stack_index(m, LOOP, ST_MUTEX);
	py = stack_index(m, LOOP, ST_PY);
	waker = stack_index(m, PRODUCE, ST_WAKER);
	CHECK(gil && restore && mutex && py && waker);
	holder = wake_key(LOOP, HOLDER, mutex);
	producer = wake_key(PRODUCE, PRODUCE, waker);
	self = wake_key(LOOP, HOLDER, 0);

	/* a trace whose switches carry nothing (the loader's keys: an older recorder) */
	gr_block_ctx_init(&c, m);
	CHECK(!c.recorded);
	CHECK_EQ_U64(classify(&c, out_key(SYS_futex, 0, gil, 1), &holder), GR_BLOCK_UNKNOWN);
	c.recorded = 1;

	CHECK_EQ_U64(classify(&c, out_key(SYS_futex, 0, gil, 1), &holder), GR_BLOCK_GIL);
	/* take_gil inlined into PyEval_RestoreThread: GIL only above a futex */
	CHECK_EQ_U64(classify(&c, out_key(SYS_futex, 0, restore, 1), &holder), GR_BLOCK_GIL);
	CHECK_EQ_U64(classify(&c, out_key(SYS_read, GR_FD_PIPE, restore, 1), &producer),
		     GR_BLOCK_INPUT);
	CHECK_EQ_U64(classify(&c, out_key(SYS_futex, 0, mutex, 1), &holder), GR_BLOCK_LOCK);
	CHECK_EQ_U64(classify(&c, out_key(SYS_futex, 0, 0, 1), NULL), GR_BLOCK_LOCK);
	CHECK_EQ_U64(classify(&c, out_key(SYS_futex_waitv, 0, 0, 1), NULL), GR_BLOCK_LOCK);
	/* input: a pipe or socket, woken by another process of the traced tree */
	CHECK_EQ_U64(classify(&c, out_key(SYS_read, GR_FD_PIPE, 0, 1), &producer), GR_BLOCK_INPUT);
	CHECK_EQ_U64(classify(&c, out_key(SYS_recvfrom, GR_FD_SOCKET, 0, 1), &producer),
		     GR_BLOCK_INPUT);
	CHECK_EQ_U64(classify(&c, out_key(SYS_epoll_wait, 0, 0, 1), &producer), GR_BLOCK_INPUT);
	CHECK_EQ_U64(classify(&c, out_key(SYS_read, GR_FD_PIPE, 0, 1), &self), GR_BLOCK_OTHER);
	CHECK_EQ_U64(classify(&c, out_key(SYS_read, GR_FD_PIPE, 0, 1), NULL), GR_BLOCK_OTHER);
	CHECK_EQ_U64(classify(&c, out_key(SYS_poll, 0, 0, 1), &self), GR_BLOCK_OTHER);
	CHECK_EQ_U64(classify(&c, out_key(SYS_read, GR_FD_CHAR, 0, 1), &producer), GR_BLOCK_OTHER);
	/* disk: a file read, a D sleep with no call; a D sleep in a call goes by the call */
	CHECK_EQ_U64(classify(&c, out_key(SYS_pread64, GR_FD_FILE, 0, 2), NULL), GR_BLOCK_DISK);
	CHECK_EQ_U64(classify(&c, out_key(-1, 0, 0, 2), NULL), GR_BLOCK_DISK);
	CHECK_EQ_U64(classify(&c, out_key(-1, 0, 0, 1), NULL), GR_BLOCK_UNKNOWN);
	CHECK_EQ_U64(classify(&c, out_key(SYS_fsync, GR_FD_FILE, 0, 2), NULL), GR_BLOCK_DISK);
	CHECK_EQ_U64(classify(&c, out_key(SYS_nanosleep, 0, 0, 1), NULL), GR_BLOCK_SLEEP);
	CHECK_EQ_U64(classify(&c, out_key(SYS_clock_nanosleep, 0, 0, 1), NULL), GR_BLOCK_SLEEP);
	CHECK_EQ_U64(classify(&c, out_key(SYS_wait4, 0, 0, 1), &producer), GR_BLOCK_CHILD);
	CHECK_EQ_U64(classify(&c, out_key(SYS_waitid, 0, 0, 1), &producer), GR_BLOCK_CHILD);
	CHECK_EQ_U64(classify(&c, out_key(SYS_accept4, GR_FD_SOCKET, 0, 1), NULL), GR_BLOCK_OTHER);
	CHECK_EQ_U64(classify(&c, out_key(9999, 0, 0, 1), NULL), GR_BLOCK_OTHER);
	/* stopped (T: SIGSTOP, the recorder's hold) or trace-stopped (t), whatever the call */
	CHECK_EQ_U64(classify(&c, out_key(SYS_futex, 0, gil, 0x4), &holder), GR_BLOCK_STOPPED);
	CHECK_EQ_U64(classify(&c, out_key(-1, 0, 0, 0x8), NULL), GR_BLOCK_STOPPED);
	/* the span's start not recorded */
	gr_block_classify(&c, NULL, &holder, LOOP, &why);
	CHECK_EQ_U64(why.reason, GR_BLOCK_UNKNOWN);
	CHECK(why.woken && why.waker_tid == HOLDER && why.waker_stack == mutex);

	/* the culprit is the waker, with its stack; where the thread waited is its stack */
	o = out_key(SYS_futex, 0, gil, 1);
	gr_block_classify(&c, &o, &holder, LOOP, &why);
	CHECK(why.woken && why.waker_pid == LOOP && why.waker_tid == HOLDER);
	CHECK_EQ_U64(why.stack, gil);
	CHECK_EQ_U64(why.syscall, SYS_futex);

	/* sites: past libc to the program's frame; a Python frame first; libc alone: itself */
	CHECK_STR(gr_block_site(m, mutex, buf, sizeof(buf)), "holder (app)");
	CHECK_STR(gr_block_site(m, py, buf, sizeof(buf)), "worker.py:12 burn");
	CHECK_STR(gr_block_site(m, waker, buf, sizeof(buf)), "produce (app)");
	CHECK_STR(gr_block_site(m, 0, buf, sizeof(buf)), "");
	CHECK_EQ_U64(gr_block_site_frame(m, gil), 1); /* take_gil: python3.12 is the program */
	gr_model_free(m);
}

struct seen {
	struct gr_block_tracker *bt;
	struct gr_block_why why[8];
	uint64_t start[8], end[8];
	size_t n;
};

static int on_span(void *ctx, const struct gr_state_span *sp)
{
	struct seen *s = ctx;
	struct gr_block_why why;

	if (gr_block_tracker_span(s->bt, sp, &why) && s->n < 8) {
		s->why[s->n] = why;
		s->start[s->n] = sp->start;
		s->end[s->n++] = sp->end;
	}
	return 0;
}

/*
 * The tracker over a real timeline replay: each blocked span gets the switch that began it and
 * the wakeup that ended it, not the records around them (a preemption, a second wakeup).
 */
static void test_tracker(void)
{
	struct gr_model *m = load();
	struct gr_block_tracker bt;
	struct gr_timeline tl;
	struct seen s = {.bt = &bt};
	uint32_t tid = LOOP, pid = LOOP, gil, waker;
	uint64_t first = T0;
	struct gr_sched_key k[9];
	int n = 0;

	if (!m)
		return;
	gil = stack_index(m, LOOP, ST_GIL);
	waker = stack_index(m, PRODUCE, ST_WAKER);
	/* asleep in the GIL, woken by the holder, woken again (no change), switched in */
	k[n++] = out_key(SYS_futex, 0, gil, 1);
	k[n++] = wake_key(LOOP, HOLDER, gil);
	k[n++] = wake_key(PRODUCE, PRODUCE, waker);
	k[n++] = (struct gr_sched_key){.type = GR_SCHED_SWITCH, .next_pid = LOOP, .next_tid = LOOP};
	/* preempted (runnable: no span to explain), in again */
	k[n++] = out_key(-1, 0, 0, 0);
	k[n++] = (struct gr_sched_key){.type = GR_SCHED_SWITCH, .next_pid = LOOP, .next_tid = LOOP};
	/* asleep reading the producer's pipe, woken by it; the replay ends before the switch in */
	k[n++] = out_key(SYS_read, GR_FD_PIPE, 0, 1);
	k[n++] = wake_key(PRODUCE, PRODUCE, waker);
	/* asleep in a nanosleep the replay ends in */
	k[n++] = (struct gr_sched_key){.type = GR_SCHED_SWITCH, .next_pid = LOOP, .next_tid = LOOP};
	CHECK(gr_block_tracker_init(&bt, m, &pid, 1) == 0);
	bt.ctx.recorded = 1; /* the loader's keys carry nothing: say these do */
	CHECK(gr_timeline_init(&tl, &tid, &first, 1, on_span, &s) == 0);
	for (int i = 0; i < n; i++) {
		gr_block_tracker_feed(&bt, &k[i]);
		CHECK(gr_timeline_feed(&tl, T0 + 1000 * (uint64_t)(i + 1), &k[i]) == 0);
	}
	{
		struct gr_sched_key sl = out_key(SYS_clock_nanosleep, 0, 0, 1);
		uint64_t last = T0 + 20000;

		gr_block_tracker_feed(&bt, &sl);
		CHECK(gr_timeline_feed(&tl, T0 + 10000, &sl) == 0);
		gr_block_tracker_feed(&bt, NULL);
		CHECK(gr_timeline_finish(&tl, &last) == 0);
	}
	CHECK_EQ_U64(s.n, 3);
	CHECK_EQ_U64(s.why[0].reason, GR_BLOCK_GIL);
	CHECK_EQ_U64(s.why[0].waker_tid, HOLDER);
	CHECK_EQ_U64(s.why[0].waker_stack, gil);
	CHECK_EQ_U64(s.start[0], T0 + 1000);
	CHECK_EQ_U64(s.end[0], T0 + 2000);
	CHECK_EQ_U64(s.why[1].reason, GR_BLOCK_INPUT);
	CHECK_EQ_U64(s.why[1].waker_tid, PRODUCE);
	CHECK_EQ_U64(s.why[1].waker_stack, waker);
	CHECK_EQ_U64(s.end[1], T0 + 8000);
	/* no wakeup ended the last: the reason, no waker */
	CHECK_EQ_U64(s.why[2].reason, GR_BLOCK_SLEEP);
	CHECK(!s.why[2].woken);
	CHECK_EQ_U64(s.end[2], T0 + 20000);
	gr_timeline_free(&tl);
	gr_block_tracker_free(&bt);
	gr_model_free(m);
}

/*
 * The budget over hand-built states of the loop thread (the model's launches at T0 + k ms,
 * 100 us each): iteration k is [T0 + k ms, T0 + (k + 1) ms) for k = 0, 1, 2 and the last
 * ends at T0 + 3.1 ms. Outside the launches each iteration runs 100 us, then sleeps.
 */
static void test_budget_split(void)
{
	struct gr_model *m = load();
	const uint64_t ms = 1000000, us = 1000;
	uint64_t starts[3] = {T0, T0 + ms, T0 + 2 * ms};
	struct gr_budget_span v[12];
	struct gr_block_why why[12];
	struct gr_budget_states st = {.known = 1, .reasons = 1, .v = v, .why = why};
	struct gr_budget_loop loop = {0, starts, 3, T0 + 3 * ms, NULL, 0, 0};
	struct gr_budgets B;
	struct gr_probe_cost pc = {0};
	uint32_t mutex, waker;
	size_t n = 0;

	if (!m)
		return;
	mutex = stack_index(m, LOOP, ST_MUTEX);
	waker = stack_index(m, PRODUCE, ST_WAKER);
#define SPAN(s, e, stt, r, wp, wt, ws)                                                             \
	do {                                                                                       \
		v[n] = (struct gr_budget_span){                                                    \
		    .state = (stt), .start = (s), .end = (e), .why = (uint32_t)n};                 \
		why[n] = (struct gr_block_why){.reason = (r),                                      \
					       .woken = (wt) != 0,                                 \
					       .syscall = -1,                                      \
					       .stack = mutex,                                     \
					       .waker_pid = (wp),                                  \
					       .waker_tid = (wt),                                  \
					       .waker_stack = (ws)};                               \
		n++;                                                                               \
	} while (0)
	/* iteration 0: 100 us launch, 100 us on CPU, 500 us GIL (Thread-1), 300 us lock (same) */
	SPAN(T0, T0 + 200 * us, GR_STATE_RUN, GR_BLOCK_UNKNOWN, 0, 0, 0);
	SPAN(T0 + 200 * us, T0 + 700 * us, GR_STATE_BLOCKED, GR_BLOCK_GIL, LOOP, HOLDER, mutex);
	SPAN(T0 + 700 * us, T0 + ms, GR_STATE_BLOCKED, GR_BLOCK_LOCK, LOOP, HOLDER, mutex);
	/* iteration 1: 100 us on CPU, input 400 us from the producer, 200 us from the holder
	 * thread's pipe write (same reason, another waker), 200 us unknown */
	SPAN(T0 + ms, T0 + ms + 200 * us, GR_STATE_RUN, GR_BLOCK_UNKNOWN, 0, 0, 0);
	SPAN(T0 + ms + 200 * us, T0 + ms + 600 * us, GR_STATE_BLOCKED, GR_BLOCK_INPUT, PRODUCE,
	     PRODUCE, waker);
	SPAN(T0 + ms + 600 * us, T0 + ms + 800 * us, GR_STATE_BLOCKED, GR_BLOCK_INPUT, LOOP, HOLDER,
	     0);
	SPAN(T0 + ms + 800 * us, T0 + 2 * ms, GR_STATE_BLOCKED, GR_BLOCK_UNKNOWN, 0, 0, 0);
	/* iteration 2: 100 us on CPU, a GIL wait of 799 us, 1 us runnable */
	SPAN(T0 + 2 * ms, T0 + 2 * ms + 200 * us, GR_STATE_RUN, GR_BLOCK_UNKNOWN, 0, 0, 0);
	SPAN(T0 + 2 * ms + 200 * us, T0 + 2 * ms + 999 * us, GR_STATE_BLOCKED, GR_BLOCK_GIL, LOOP,
	     HOLDER, mutex);
	SPAN(T0 + 2 * ms + 999 * us, T0 + 3 * ms, GR_STATE_RUNNABLE, GR_BLOCK_UNKNOWN, 0, 0, 0);
#undef SPAN
	st.n = st.nwhy = n;
	CHECK(gr_budget_compute(m, &pc, &loop, &st, &B) == 0);
	CHECK(B.has_reasons);
	/* iteration 0 */
	CHECK_EQ_U64(B.median.total_ns + B.p90.total_ns, 2 * ms); /* every iteration is 1 ms */
	{
		struct gr_budget each[3];
		struct gr_budget_loop l2 = loop;

		l2.each = each;
		CHECK(gr_budget_compute(m, &pc, &l2, &st, &B) == 0);
		for (int j = 0; j < 3; j++) {
			uint64_t sum = 0;

			for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++)
				sum += each[j].blocked_ns[r];
			CHECK_EQ_U64(sum, each[j].part_ns[GR_BUDGET_BLOCKED]);
		}
		CHECK_EQ_U64(each[0].blocked_ns[GR_BLOCK_GIL], 500 * us);
		CHECK_EQ_U64(each[0].blocked_ns[GR_BLOCK_LOCK], 300 * us);
		CHECK_EQ_U64(each[0].culprit[GR_BLOCK_GIL].tid, HOLDER);
		CHECK_EQ_U64(each[0].culprit[GR_BLOCK_GIL].ns, 500 * us);
		CHECK_EQ_U64(each[0].culprit[GR_BLOCK_LOCK].waker_stack, mutex);
		CHECK_EQ_U64(each[1].blocked_ns[GR_BLOCK_INPUT], 600 * us);
		CHECK_EQ_U64(each[1].blocked_ns[GR_BLOCK_UNKNOWN], 200 * us);
		/* the producer ended 400 of the 600 us: the culprit, two waker processes */
		CHECK_EQ_U64(each[1].culprit[GR_BLOCK_INPUT].tid, PRODUCE);
		CHECK_EQ_U64(each[1].culprit[GR_BLOCK_INPUT].ns, 400 * us);
		CHECK_EQ_U64(each[1].culprit[GR_BLOCK_INPUT].of_ns, 600 * us);
		CHECK_EQ_U64(each[1].culprit[GR_BLOCK_INPUT].wakers, 2);
		CHECK_EQ_U64(each[1].culprit[GR_BLOCK_INPUT].waker_stack, waker);
		CHECK_EQ_U64(each[1].culprit[GR_BLOCK_UNKNOWN].woken, 0);
		CHECK_EQ_U64(each[2].blocked_ns[GR_BLOCK_GIL], 799 * us);
		CHECK_EQ_U64(each[2].part_ns[GR_BUDGET_RUNNABLE], 1 * us);
		/* the median, p90 and slowest are walked again: the same budgets as the loop's */
		{
			const struct gr_budget *pick[3] = {&B.median, &B.p90, &B.slowest};

			for (int i = 0; i < 3; i++) {
				const struct gr_budget *e = &each[pick[i]->index];

				CHECK_EQ_U64(pick[i]->start_ts, e->start_ts);
				CHECK_EQ_U64(pick[i]->total_ns, e->total_ns);
				CHECK_EQ_U64(pick[i]->calls, e->calls);
				for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
					CHECK_EQ_U64(pick[i]->part_ns[p], e->part_ns[p]);
				for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
					CHECK_EQ_U64(pick[i]->blocked_ns[r], e->blocked_ns[r]);
					CHECK_EQ_U64(pick[i]->culprit[r].ns, e->culprit[r].ns);
					CHECK_EQ_U64(pick[i]->culprit[r].tid, e->culprit[r].tid);
					CHECK_EQ_U64(pick[i]->culprit[r].wakers,
						     e->culprit[r].wakers);
				}
			}
		}
		/* per 2: the means of iterations 0-1 and of 2 alone */
		{
			struct gr_budget bars[2], mean;

			l2.each = bars;
			l2.per = 2;
			CHECK(gr_budget_compute(m, &pc, &l2, &st, &B) == 0);
			gr_budget_mean(each, 2, &mean);
			CHECK_EQ_U64(bars[0].total_ns, mean.total_ns);
			for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
				CHECK_EQ_U64(bars[0].part_ns[p], mean.part_ns[p]);
			CHECK_EQ_U64(bars[0].part_ns[GR_BUDGET_BLOCKED],
				     (each[0].part_ns[GR_BUDGET_BLOCKED] +
				      each[1].part_ns[GR_BUDGET_BLOCKED]) /
					 2);
			CHECK_EQ_U64(bars[1].total_ns, each[2].total_ns);
			CHECK_EQ_U64(bars[1].part_ns[GR_BUDGET_RUNNABLE], 1 * us);
		}
	}
	/* the mean: (500 + 0 + 799) / 3 us GIL, rounded so the reasons add up to the blocked
	 * part's mean */
	{
		uint64_t sum = 0;

		for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++)
			sum += B.mean.blocked_ns[r];
		CHECK_EQ_U64(sum, B.mean.part_ns[GR_BUDGET_BLOCKED]);
		/* 2399 us / 3: 799666.67 ns, whose remainder (2) beats runnable's (1) */
		CHECK_EQ_U64(B.mean.part_ns[GR_BUDGET_BLOCKED], 799667);
		CHECK_EQ_U64(B.mean.blocked_ns[GR_BLOCK_UNKNOWN], 66667);
		CHECK_EQ_U64(B.mean.blocked_ns[GR_BLOCK_GIL], 433000);
		/* over the loop: the holder ended all 1299 us of GIL wait */
		CHECK_EQ_U64(B.mean.culprit[GR_BLOCK_GIL].ns, 1299 * us);
		CHECK_EQ_U64(B.mean.culprit[GR_BLOCK_GIL].of_ns, 1299 * us);
		CHECK_EQ_U64(B.mean.culprit[GR_BLOCK_GIL].wakers, 1);
		CHECK_EQ_U64(B.mean.culprit[GR_BLOCK_INPUT].tid, PRODUCE);
	}
	gr_model_free(m);
}

/*
 * Parts of 4.3 s and more (the loop keeps a part in 32 bits, a longer one apart): three
 * iterations after the model's calls, 5, 6 and 7 s of unknown time, and their exact medians.
 */
static void test_budget_long_parts(void)
{
	struct gr_model *m = load();
	const uint64_t s = 1000000000ull, from = T0 + 10 * s;
	uint64_t starts[3] = {from, from + 5 * s, from + 11 * s};
	struct gr_budget_loop loop = {0, starts, 3, from + 18 * s, NULL, 0, 0};
	struct gr_probe_cost pc = {0};
	struct gr_budgets B;

	if (!m)
		return;
	CHECK(gr_budget_compute(m, &pc, &loop, NULL, &B) == 0);
	CHECK_EQ_U64(B.part_median_ns[GR_BUDGET_OUTSIDE_UNKNOWN], 6 * s);
	CHECK_EQ_U64(B.median.total_ns, 6 * s);
	CHECK_EQ_U64(B.slowest.part_ns[GR_BUDGET_OUTSIDE_UNKNOWN], 7 * s);
	CHECK_EQ_U64(B.mean.total_ns, 6 * s);
	gr_model_free(m);
}

/* Means of budgets whose reasons do not divide evenly still add up (largest remainders). */
static void test_mean_rounding(void)
{
	struct gr_budget v[3] = {0}, out;
	uint64_t sum = 0, part_sum = 0;

	for (int i = 0; i < 3; i++) {
		v[i].part_ns[GR_BUDGET_BLOCKED] = 10 + (uint64_t)i;
		/* 3 4 6, 3 3 4, 4 4 2: 10, 11, 12 */
		v[i].blocked_ns[GR_BLOCK_GIL] = i == 2 ? 6 : 3 + (uint64_t)i;
		v[i].blocked_ns[GR_BLOCK_LOCK] = i == 2 ? 4 : 3;
		v[i].blocked_ns[GR_BLOCK_SLEEP] = i == 2 ? 2 : 4;
		v[i].part_ns[GR_BUDGET_HOST] = 1;
		v[i].total_ns = 11 + (uint64_t)i;
	}
	gr_budget_mean(v, 3, &out);
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++)
		sum += out.blocked_ns[r];
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		part_sum += out.part_ns[p];
	CHECK_EQ_U64(part_sum, out.total_ns);
	CHECK_EQ_U64(out.part_ns[GR_BUDGET_BLOCKED], 11);
	CHECK_EQ_U64(sum, out.part_ns[GR_BUDGET_BLOCKED]);
	/* floors 4 3 3, one ns short; remainders tie (1 each): the first reason gets it */
	CHECK_EQ_U64(out.blocked_ns[GR_BLOCK_GIL], 5);
	CHECK_EQ_U64(out.blocked_ns[GR_BLOCK_LOCK], 3);
	CHECK_EQ_U64(out.blocked_ns[GR_BLOCK_SLEEP], 3);
}

/* A trace of a recorder without blocked reasons (synth.h's standard one, 5 switches): every
 * switch key loads with no stack, no system call, no fd kind, and the classifier says unknown. */
static void test_old_trace(void)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct gr_block_ctx c;
	const struct gr_sched_key *k;
	char path[256];
	size_t n;

	snprintf(path, sizeof(path), "%s/std.trc", dir);
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (!m)
		return;
	k = gr_model_sched_keys(m, &n);
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++) {
		struct gr_block_why why;

		CHECK_EQ_U64(k[i].stack, 0);
		CHECK(k[i].syscall == -1);
		CHECK_EQ_U64(k[i].fd_kind, GR_FD_NONE);
		gr_block_ctx_init(&c, m);
		gr_block_classify(&c, &k[i], NULL, k[i].prev_pid, &why);
		CHECK_EQ_U64(why.reason, GR_BLOCK_UNKNOWN);
	}
	CHECK(!c.recorded);
	gr_model_free(m);
}

/* A launch of the loop thread that returned cudaSuccess after @dur ns (--launch-time). */
static void launch_ok(struct gr_trace_writer *w, uint64_t ts, uint64_t dur)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {
	    [GR_LAUNCH_TS] = ts,
	    [GR_LAUNCH_DUR] = dur,
	    [GR_LAUNCH_PID] = LOOP,
	    [GR_LAUNCH_TID] = LOOP,
	    [GR_LAUNCH_API] = GR_API_cudaLaunchKernel,
	    [GR_LAUNCH_FUNC] = 0xf00,
	    [GR_LAUNCH_GX] = 1,
	    [GR_LAUNCH_GY] = 1,
	    [GR_LAUNCH_GZ] = 1,
	    [GR_LAUNCH_BX] = 1,
	    [GR_LAUNCH_BY] = 1,
	    [GR_LAUNCH_BZ] = 1,
	    [GR_LAUNCH_CALL] = GR_CALL_RETURNED,
	};

	err |= gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
}

static void sched_rec(struct gr_trace_writer *w, uint64_t ts, unsigned type, uint32_t prev,
		      uint64_t state, uint32_t next, uint64_t stack, int32_t sc, unsigned fd)
{
	uint64_t v[GR_SCHED_NCOLS] = {
	    [GR_SCHED_TS] = ts,
	    [GR_SCHED_TYPE] = type,
	    [GR_SCHED_PREV_PID] = LOOP,
	    [GR_SCHED_PREV_TID] = prev,
	    [GR_SCHED_PREV_STATE] = state,
	    [GR_SCHED_NEXT_PID] = next ? LOOP : 0,
	    [GR_SCHED_NEXT_TID] = next,
	    [GR_SCHED_STACK] = stack,
	    [GR_SCHED_SYSCALL] = (uint64_t)(sc + 1),
	    [GR_SCHED_FD_KIND] = fd,
	};

	err |= gr_trace_writer_append(w, GR_K_SCHED, v, NULL);
}

/* 1 when budgets @a and @b are the same, field by field (struct padding aside). */
static int budget_same(const struct gr_budget *a, const struct gr_budget *b)
{
	int same = a->index == b->index && a->start_ts == b->start_ts &&
		   a->total_ns == b->total_ns && a->calls == b->calls &&
		   a->unmeasured == b->unmeasured;

	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
		same &= a->part_ns[p] == b->part_ns[p];
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
		const struct gr_block_culprit *x = &a->culprit[r], *y = &b->culprit[r];

		same &= a->blocked_ns[r] == b->blocked_ns[r];
		same &= x->ns == y->ns && x->of_ns == y->of_ns && x->pid == y->pid &&
			x->tid == y->tid && x->woken == y->woken && x->syscall == y->syscall &&
			x->stack == y->stack && x->waker_stack == y->waker_stack &&
			x->wakers == y->wakers && x->worker_cpu_ns == y->worker_cpu_ns;
	}
	return same;
}

/*
 * A loop long enough to be walked in slices on several threads (budget.c: 4096 iterations a
 * slice at least) gives the budgets of one walk, whatever the number of threads: 12293
 * iterations of 10 us, each a launch of 1-13 us (the longer ones still running when the next
 * iteration begins) then blocked for reasons and wakers that vary, of lengths that tie. The
 * launch before each slice's first iteration lasts 25 us: still running two iterations later,
 * so every slice but the first begins from the wrong state and is walked again.
 */
static void test_budget_slices(void)
{
	enum { N = 3 * 4096 + 5 };
	const uint64_t us = 1000;
	const uint32_t wakers[3] = {HOLDER, PRODUCE, LOOP};
	const unsigned reasons[3] = {GR_BLOCK_GIL, GR_BLOCK_LOCK, GR_BLOCK_INPUT};
	static uint64_t starts[N];
	static uint64_t dur[N];
	static struct gr_budget_span v[N];
	static struct gr_block_why why[N];
	static struct gr_budget each1[N], each[N];
	struct gr_budget_states st = {.known = 1, .reasons = 1, .v = v, .why = why};
	struct gr_probe_cost pc = {0};
	struct gr_budgets B1, B;
	struct gr_trace_writer *w;
	struct gr_model *m = NULL;
	char path[256];

	for (size_t k = 0; k < N; k++) {
		starts[k] = T0 + k * 10 * us;
		dur[k] = (k * 37 % 13 + 1) * us;
	}
	for (unsigned jobs = 2; jobs <= 4; jobs++)
		for (unsigned i = 1; i < jobs; i++)
			dur[(size_t)N * i / jobs - 1] = 25 * us;
	snprintf(path, sizeof(path), "%s/slices.trc", dir);
	err = synth_open(&w, path, 0) ? -1 : 0;
	if (err)
		return;
	for (size_t k = 0; k < N; k++)
		launch_ok(w, starts[k], dur[k]);
	m = close_load(w, path);
	if (!m)
		return;
	/* blocked from 5 us into each iteration to its end: 5 us, or 4 us every seventh */
	for (size_t k = 0; k < N; k++) {
		uint32_t t = wakers[k % 3];

		v[k] = (struct gr_budget_span){.state = GR_STATE_BLOCKED,
					       .start = starts[k] + (k % 7 ? 5 : 6) * us,
					       .end = starts[k] + 10 * us,
					       .why = (uint32_t)k};
		why[k] = (struct gr_block_why){.reason = reasons[k / 5 % 3],
					       .woken = 1,
					       .syscall = -1,
					       .stack = (uint32_t)(k % 4),
					       .waker_pid = t == PRODUCE ? PRODUCE : LOOP,
					       .waker_tid = t,
					       .waker_stack = (uint32_t)(k % 3)};
	}
	st.n = st.nwhy = N;
	for (size_t per = 1; per <= 7; per += 6) {
		struct gr_budget_loop loop = {0, starts, N, starts[N - 1] + 10 * us, each1, per, 1};

		CHECK(gr_budget_compute(m, &pc, &loop, &st, &B1) == 0);
		for (unsigned jobs = 2; jobs <= 5; jobs++) {
			int same;

			loop.each = each;
			loop.jobs = jobs;
			CHECK(gr_budget_compute(m, &pc, &loop, &st, &B) == 0);
			same = B.iterations == B1.iterations && B.clamped == B1.clamped &&
			       budget_same(&B.median, &B1.median) && budget_same(&B.p90, &B1.p90) &&
			       budget_same(&B.slowest, &B1.slowest) &&
			       budget_same(&B.mean, &B1.mean);
			for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
				same &= B.part_median_ns[p] == B1.part_median_ns[p];
			for (size_t k = 0; k < (N + per - 1) / per; k++)
				same &= budget_same(&each[k], &each1[k]);
			if (!same)
				printf("#   per %zu, %u threads: not the budgets of one walk\n",
				       per, jobs);
			CHECK(same);
		}
	}
	/* what the figures are: the 25 us launches' time lands in the iterations they run into */
	CHECK_EQ_U64(B1.iterations, N);
	CHECK(B1.mean.culprit[GR_BLOCK_GIL].ns > 0);
	CHECK(B1.slowest.total_ns == 10 * us);
	gr_model_free(m);
}

/*
 * The whole report over a trace that records blocked reasons (format 1.2's SCHED columns): ten
 * iterations of 1 ms on the loop thread, each a 10 us launch, 10 us on CPU, then asleep in a
 * futex at take_gil for 880 us until Thread-1 (HOLDER) wakes it from worker.py:12 burn,
 * 10 us runnable, 90 us on CPU. Exact: 880 us of GIL wait per iteration, GIL-bound, the holder
 * named with its Python line.
 */
static void test_report_gil(void)
{
	const uint64_t us = 1000, gil[] = {0x7010, 0x1010, 0x4010},
		       waker[] = {0x7110, GR_FRAME_PYTHON | 2};
	struct gr_trace_writer *w;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/gil.trc", dir);
	err = synth_open(&w, path, 0) ? -1 : 0;
	if (err)
		return;
	mapping(w, LOOP, 0x1000, 0x2000, "/usr/bin/python3.12");
	mapping(w, LOOP, 0x4000, 0x5000, "/usr/bin/python3.12");
	mapping(w, LOOP, 0x7000, 0x8000, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	symbol(w, LOOP, 0x1010, "take_gil");
	symbol(w, LOOP, 0x7010, "__futex_abstimed_wait_common");
	symbol(w, LOOP, 0x7110, "pthread_cond_signal");
	pyframe(w, LOOP, 2, "worker.py", 12, "burn");
	stack(w, LOOP, ST_GIL, gil, 3);
	stack(w, LOOP, ST_WAKER, waker, 2);
	err |= synth_name(w, T0, GR_NAME_COMM, LOOP, LOOP, "python3");
	err |= synth_name(w, T0, GR_NAME_COMM, LOOP, HOLDER, "Thread-1");
	for (uint64_t k = 0; k < 10; k++) {
		uint64_t t = T0 + k * 1000 * us;

		launch_ok(w, t, 10 * us);
		sched_rec(w, t + 20 * us, GR_SCHED_SWITCH, LOOP, 1, HOLDER, ST_GIL, SYS_futex, 0);
		sched_rec(w, t + 900 * us, GR_SCHED_WAKEUP, HOLDER, 0, LOOP, ST_WAKER, -1, 0);
		sched_rec(w, t + 910 * us, GR_SCHED_SWITCH, HOLDER, 1, LOOP, 0, -1, 0);
	}
	launch_ok(w, T0 + 10000 * us, 10 * us);
	m = close_load(w, path);
	if (!m)
		return;
	CHECK(gr_report_compute(m, &(struct gr_report_opts){.no_compensate = 1}, &r) == 0);
	if (!r)
		goto out;
	CHECK(r->budget.found && r->budget.has_reasons);
	CHECK_EQ_U64(r->budget.median.blocked_ns[GR_BLOCK_GIL], 880 * us);
	CHECK_EQ_U64(r->budget.median.part_ns[GR_BUDGET_BLOCKED], 880 * us);
	CHECK_EQ_U64(r->budget.median.part_ns[GR_BUDGET_RUNNABLE], 10 * us);
	CHECK_EQ_U64(r->budget.mean.culprit[GR_BLOCK_GIL].tid, HOLDER);
	CHECK_EQ_U64(r->budget.mean.culprit[GR_BLOCK_GIL].ns, 10 * 880 * us);
	CHECK_EQ_U64(r->diagnosis.bound, GR_BOUND_BLOCKED);
	CHECK_EQ_U64(r->diagnosis.blocked_reason, GR_BLOCK_GIL);
	CHECK(strstr(r->diagnosis.verdict.text,
		     "GIL-bound: the loop thread waited for the GIL 88% of the 1.00 ms step") !=
	      NULL);
	CHECK(strstr(r->diagnosis.verdict.text,
		     "held by thread Thread-1 (tid 101) at worker.py:12 burn") != NULL);
	if (!strstr(r->diagnosis.verdict.text, "worker.py:12 burn"))
		printf("#   verdict: %s\n", r->diagnosis.verdict.text);
out:
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * The disk verdict, which tests/e2e/report_blocked.sh can assert only when the machine lets the
 * loop thread's fsyncs dominate its step: ten iterations of 1 ms, each a 10 us launch, 10 us on
 * CPU, then asleep uninterruptibly in fsync of a regular file at sync_data for 880 us until the
 * disk's interrupt wakes it (no traced waker), 10 us runnable, 90 us on CPU. Exact: 880 us of
 * disk I/O per iteration, disk-bound, the site named.
 */
static void test_report_disk(void)
{
	const uint64_t us = 1000, site[] = {0x7020, 0x1020};
	struct gr_trace_writer *w;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/disk.trc", dir);
	err = synth_open(&w, path, 0) ? -1 : 0;
	if (err)
		return;
	mapping(w, LOOP, 0x1000, 0x2000, "/usr/bin/blockstep");
	mapping(w, LOOP, 0x7000, 0x8000, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	symbol(w, LOOP, 0x1020, "sync_data");
	symbol(w, LOOP, 0x7020, "fsync");
	stack(w, LOOP, ST_PY, site, 2);
	err |= synth_name(w, T0, GR_NAME_COMM, LOOP, LOOP, "blockstep");
	for (uint64_t k = 0; k < 10; k++) {
		uint64_t t = T0 + k * 1000 * us;

		launch_ok(w, t, 10 * us);
		sched_rec(w, t + 20 * us, GR_SCHED_SWITCH, LOOP, 2 /* D */, 0, ST_PY, SYS_fsync,
			  GR_FD_FILE);
		sched_rec(w, t + 900 * us, GR_SCHED_WAKEUP, 0, 0, LOOP, 0, -1, 0);
		sched_rec(w, t + 910 * us, GR_SCHED_SWITCH, 0, 0, LOOP, 0, -1, 0);
	}
	launch_ok(w, T0 + 10000 * us, 10 * us);
	m = close_load(w, path);
	if (!m)
		return;
	CHECK(gr_report_compute(m, &(struct gr_report_opts){.no_compensate = 1}, &r) == 0);
	if (!r)
		goto out;
	CHECK_EQ_U64(r->budget.median.blocked_ns[GR_BLOCK_DISK], 880 * us);
	CHECK_EQ_U64(r->budget.median.part_ns[GR_BUDGET_BLOCKED], 880 * us);
	CHECK_EQ_U64(r->diagnosis.bound, GR_BOUND_BLOCKED);
	CHECK_EQ_U64(r->diagnosis.blocked_reason, GR_BLOCK_DISK);
	CHECK(strstr(r->diagnosis.verdict.text,
		     "disk-bound: the loop thread waits for disk I/O 88% of the 1.00 ms step") !=
	      NULL);
	if (!strstr(r->diagnosis.verdict.text, "sync_data"))
		printf("#   verdict: %s\n", r->diagnosis.verdict.text);
	CHECK(strstr(r->diagnosis.verdict.text, "sync_data") != NULL);
out:
	gr_report_free(r);
	gr_model_free(m);
}

static void test_names(void)
{
	static const char *const names[] = {"gil",   "lock",  "input",	 "disk",   "sleep",
					    "child", "other", "stopped", "unknown"};

	for (unsigned r = 0; r < GR_BLOCK_NREASONS; r++)
		CHECK_STR(gr_block_reason_name(r), names[r]);
	CHECK_STR(gr_budget_reason_name(GR_BLOCK_GIL), "gil");
	CHECK_STR(gr_block_reason_words(GR_BLOCK_GIL), "GIL wait");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_classify);
	RUN_TEST(test_tracker);
	RUN_TEST(test_budget_split);
	RUN_TEST(test_budget_long_parts);
	RUN_TEST(test_budget_slices);
	RUN_TEST(test_mean_rounding);
	RUN_TEST(test_old_trace);
	RUN_TEST(test_report_gil);
	RUN_TEST(test_report_disk);
	RUN_TEST(test_names);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
