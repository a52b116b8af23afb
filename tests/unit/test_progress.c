/* SPDX-License-Identifier: MIT */
/*
 * The progress line (analyze/util/progress.c) apart from the clock and the terminal: how far, the
 * rate, what is left, and work whose size is not known ahead.
 */
#include "analyze/util/progress.h"
#include "test.h"

static void test_known_total(void)
{
	char line[256];

	/* 45.2M of 100M in 4 s: 11.3M/s, 54.8M left at that rate is 4.85 s */
	gr_progress_format(line, sizeof(line), "report", "loading", 45200000, 100000000, "events",
			   4000000000ull);
	CHECK_STR(line, "gpurec report: loading: 45.2M of 100.0M events (45%), 11.3M/s, about 5 s "
			"left");
	/* minutes, and small counts as they are */
	gr_progress_format(line, sizeof(line), "export", "writing", 100, 1000, "events",
			   20000000000ull);
	CHECK_STR(line, "gpurec export: writing: 100 of 1000 events (10%), 5/s, about 3 min 0 s "
			"left");
	/* nothing done yet: no rate, no estimate */
	gr_progress_format(line, sizeof(line), "info", "loading", 0, 20000, "events", 1000);
	CHECK_STR(line, "gpurec info: loading: 0 of 20k events (0%)");
	/* a count past the total (an estimate) reads as done, never over 100% */
	gr_progress_format(line, sizeof(line), "export", "writing", 3000, 2000, "events",
			   1000000000ull);
	CHECK_STR(line,
		  "gpurec export: writing: 2000 of 2000 events (100%), 2000/s, about 0 s left");
}

static void test_unknown_total(void)
{
	char line[256];

	gr_progress_format(line, sizeof(line), "report", "computing the report", 0, 0, NULL,
			   7200000000000ull);
	CHECK_STR(line, "gpurec report: computing the report (2 h 0 min)");
	gr_progress_format(line, sizeof(line), "report", "reading", 1500000, 0, "rows",
			   3000000000ull);
	CHECK_STR(line, "gpurec report: reading: 1.5M rows, 3 s");
}

int main(void)
{
	RUN_TEST(test_known_total);
	RUN_TEST(test_unknown_total);
	TEST_EXIT();
}
