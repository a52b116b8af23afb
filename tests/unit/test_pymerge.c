/* SPDX-License-Identifier: MIT */
/* record/python/pymerge.c: where Python frames go among the native frames of one event. */
#include "format/events.h"
#include "record/python/pymerge.h"
#include "test.h"

#define EVAL_LO 0x1000
#define EVAL_HI 0x2000
#define PY(i)	(GR_FRAME_PYTHON | (i))

static void check_frames(const uint64_t *got, unsigned n, const uint64_t *want, unsigned nwant)
{
	CHECK_EQ_U64(n, nwant);
	for (unsigned i = 0; i < n && i < nwant; i++)
		CHECK_EQ_U64(got[i], want[i]);
}

/* Each eval-loop frame stands for the Python frames up to the next entry frame. */
static void test_eval_frames_replaced(void)
{
	/* libcudart, libffi, eval (2 frames), a C extension, eval (1 frame), main */
	const uint64_t native[] = {0x9000, 0x8000, 0x1100, 0x7000, 0x1200, 0x500};
	const struct gr_py_frame py[] = {
	    {0xa0, 10, 0}, {0xa1, 20, GR_PYF_ENTRY}, {0xa2, 30, GR_PYF_ENTRY}};
	const uint64_t want[] = {0x9000, 0x8000, PY(0), PY(1), 0x7000, PY(2), 0x500};
	uint64_t out[9];

	check_frames(out, gr_pymerge(native, 6, py, 3, EVAL_LO, EVAL_HI, out), want, 7);
}

/* A native walk that ends before the interpreter (no frame pointers there): Python outermost. */
static void test_rest_outermost(void)
{
	const uint64_t native[] = {0x9000, 0x8000};
	const struct gr_py_frame py[] = {{0xa0, 1, 0}, {0xa1, 2, 0}, {0xa2, 3, GR_PYF_ENTRY}};
	const uint64_t want[] = {0x9000, 0x8000, PY(0), PY(1), PY(2)};
	uint64_t out[5];

	check_frames(out, gr_pymerge(native, 2, py, 3, EVAL_LO, EVAL_HI, out), want, 5);
}

/* Frames left after the last eval frame, and an eval frame with no Python frame left. */
static void test_leftovers(void)
{
	const uint64_t native[] = {0x9000, 0x1100, 0x1fff, 0x2000, 0x1000};
	const struct gr_py_frame py[] = {{0xa0, 1, GR_PYF_ENTRY}, {0xa1, 2, GR_PYF_ENTRY}};
	/* 0x2000 is past the loop: native; the last eval frame has no Python frame left */
	const uint64_t want[] = {0x9000, PY(0), PY(1), 0x2000, 0x1000};
	uint64_t out[7];

	check_frames(out, gr_pymerge(native, 5, py, 2, EVAL_LO, EVAL_HI, out), want, 5);
}

/* No native frames (a walk that failed): the Python frames alone; no Python: unchanged. */
static void test_empty_sides(void)
{
	const uint64_t native[] = {0x9000, 0x1100};
	const struct gr_py_frame py[] = {{0xa0, 1, GR_PYF_ENTRY}};
	const uint64_t want_py[] = {PY(0)};
	uint64_t out[3];

	check_frames(out, gr_pymerge(native, 0, py, 1, EVAL_LO, EVAL_HI, out), want_py, 1);
	check_frames(out, gr_pymerge(native, 2, py, 0, EVAL_LO, EVAL_HI, out), native, 2);
}

int main(void)
{
	RUN_TEST(test_eval_frames_replaced);
	RUN_TEST(test_rest_outermost);
	RUN_TEST(test_leftovers);
	RUN_TEST(test_empty_sides);
	TEST_EXIT();
}
