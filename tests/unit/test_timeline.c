/* SPDX-License-Identifier: MIT */
/*
 * analyze/figures/timeline: a thread's scheduler records that say one of its records went
 * missing (a switch-out of a thread not on a CPU, a switch-in of one on a CPU). What the thread
 * did since its record before is unknown: that span is UNKNOWN and marked missed, never BLOCKED
 * or RUNNABLE (which every blocked and wait figure would count), and a wait it was in ends there
 * with no holder. Records and times are hand-built, so each span is exact.
 */
#include <stdint.h>

#include "analyze/figures/timeline.h"
#include "test.h"

#define T     10 /* the tracked thread */
#define OTHER 50 /* a task that is not tracked */
#define MAX   16

struct seen {
	struct gr_state_span span[MAX];
	struct gr_wait_piece piece[MAX];
	size_t nspan, npiece;
};

static int on_span(void *ctx, const struct gr_state_span *sp)
{
	struct seen *s = ctx;

	if (s->nspan < MAX)
		s->span[s->nspan++] = *sp;
	return 0;
}

static int on_piece(void *ctx, const struct gr_wait_piece *p)
{
	struct seen *s = ctx;

	if (s->npiece < MAX)
		s->piece[s->npiece++] = *p;
	return 0;
}

static struct gr_sched_key out(uint32_t cpu, uint64_t state)
{
	return (struct gr_sched_key){.type = GR_SCHED_SWITCH,
				     .cpu = cpu,
				     .prev_pid = T,
				     .prev_tid = T,
				     .prev_state = state,
				     .next_pid = OTHER,
				     .next_tid = OTHER};
}

static struct gr_sched_key in(uint32_t cpu)
{
	return (struct gr_sched_key){.type = GR_SCHED_SWITCH,
				     .cpu = cpu,
				     .prev_pid = OTHER,
				     .prev_tid = OTHER,
				     .prev_state = 1,
				     .next_pid = T,
				     .next_tid = T};
}

static struct gr_sched_key wake(uint32_t cpu)
{
	return (struct gr_sched_key){.type = GR_SCHED_WAKEUP,
				     .cpu = cpu,
				     .target_cpu = cpu,
				     .prev_pid = OTHER,
				     .prev_tid = OTHER,
				     .next_pid = T,
				     .next_tid = T};
}

static void check_span(const struct seen *s, size_t i, uint8_t state, uint64_t start, uint64_t end,
		       uint8_t missed)
{
	CHECK(i < s->nspan);
	if (i >= s->nspan)
		return;
	CHECK_EQ_U64(s->span[i].state, state);
	CHECK_EQ_U64(s->span[i].start, start);
	CHECK_EQ_U64(s->span[i].end, end);
	CHECK_EQ_U64(s->span[i].missed, missed);
}

/* Feed @n records at their times; finish at @last. */
static void replay(struct seen *s, const struct gr_sched_key *k, const uint64_t *ts, size_t n,
		   uint64_t last, int pieces)
{
	struct gr_timeline tl;
	uint32_t tid = T;
	uint64_t first = UINT64_MAX;

	CHECK(gr_timeline_init(&tl, &tid, &first, 1, on_span, s) == 0);
	if (pieces)
		CHECK(gr_timeline_pieces(&tl, on_piece) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(gr_timeline_feed(&tl, ts[i], &k[i]) == 0);
	CHECK(gr_timeline_finish(&tl, &last) == 0);
	CHECK_EQ_U64(tl.nwaiting, 0);
	gr_timeline_free(&tl);
}

/* Asleep at 1000, asleep again at 5000: the wakeup and the switch-in between went unrecorded. */
static void test_missing_switch_in(void)
{
	const struct gr_sched_key k[] = {out(0, 1), out(0, 1), wake(0), in(0)};
	const uint64_t ts[] = {1000, 5000, 6000, 7000};
	struct seen s = {0};

	replay(&s, k, ts, 4, 8000, 0);
	CHECK_EQ_U64(s.nspan, 5);
	check_span(&s, 0, GR_STATE_RUN, 1000, 1000, 0); /* before the first record */
	check_span(&s, 1, GR_STATE_UNKNOWN, 1000, 5000, 1);
	check_span(&s, 2, GR_STATE_BLOCKED, 5000, 6000, 0);
	check_span(&s, 3, GR_STATE_RUNNABLE, 6000, 7000, 0);
	check_span(&s, 4, GR_STATE_RUN, 7000, 8000, 0);
}

/* On a CPU from 1000, switched in again at 3000 on another: its switch-out went unrecorded. */
static void test_missing_switch_out(void)
{
	const struct gr_sched_key k[] = {in(0), in(1), out(1, 0)};
	const uint64_t ts[] = {1000, 3000, 4000};
	struct seen s = {0};

	replay(&s, k, ts, 3, 5000, 0);
	CHECK_EQ_U64(s.nspan, 4);
	check_span(&s, 0, GR_STATE_RUNNABLE, 1000, 1000, 0);
	check_span(&s, 1, GR_STATE_UNKNOWN, 1000, 3000, 1);
	check_span(&s, 2, GR_STATE_RUN, 3000, 4000, 0);
	check_span(&s, 3, GR_STATE_RUNNABLE, 4000, 5000, 0);
}

/*
 * Woken at 2000 (its wait cut into pieces), switched out asleep at 3000 with no switch-in: the
 * wait ends at 3000 as one piece of no known holder, and a later switch on its CPU cuts nothing.
 */
static void test_missing_switch_in_while_waiting(void)
{
	const struct gr_sched_key other = {.type = GR_SCHED_SWITCH,
					   .cpu = 0,
					   .prev_pid = OTHER,
					   .prev_tid = OTHER,
					   .prev_state = 1,
					   .next_pid = OTHER + 1,
					   .next_tid = OTHER + 1};
	const struct gr_sched_key k[] = {out(0, 1), wake(0), out(0, 1), other};
	const uint64_t ts[] = {1000, 2000, 3000, 4000};
	struct seen s = {0};

	replay(&s, k, ts, 4, 5000, 1);
	CHECK_EQ_U64(s.nspan, 4);
	check_span(&s, 1, GR_STATE_BLOCKED, 1000, 2000, 0);
	check_span(&s, 2, GR_STATE_UNKNOWN, 2000, 3000, 1);
	check_span(&s, 3, GR_STATE_BLOCKED, 3000, 5000, 0);
	CHECK_EQ_U64(s.npiece, 1);
	CHECK_EQ_U64(s.piece[0].start, 2000);
	CHECK_EQ_U64(s.piece[0].end, 3000);
	CHECK_EQ_U64(s.piece[0].known, 0);
}

/* A whole sequence with nothing missing marks nothing missed. */
static void test_nothing_missing(void)
{
	const struct gr_sched_key k[] = {out(0, 1), wake(0), in(0), out(0, 0), in(1), out(1, 1)};
	const uint64_t ts[] = {1000, 2000, 3000, 4000, 5000, 6000};
	struct seen s = {0};

	replay(&s, k, ts, 6, 7000, 1);
	CHECK_EQ_U64(s.nspan, 7);
	for (size_t i = 0; i < s.nspan; i++)
		CHECK_EQ_U64(s.span[i].missed, 0);
	check_span(&s, 1, GR_STATE_BLOCKED, 1000, 2000, 0);
	check_span(&s, 4, GR_STATE_RUNNABLE, 4000, 5000, 0);
	check_span(&s, 6, GR_STATE_BLOCKED, 6000, 7000, 0);
}

int main(void)
{
	RUN_TEST(test_missing_switch_in);
	RUN_TEST(test_missing_switch_out);
	RUN_TEST(test_missing_switch_in_while_waiting);
	RUN_TEST(test_nothing_missing);
	TEST_EXIT();
}
