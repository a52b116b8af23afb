/* SPDX-License-Identifier: MIT */
/*
 * record -o's pattern (record/output_name.c): each escape, the host name cut at its first dot and
 * never a path, and every way a pattern is refused before anything is created.
 */
#include <stdlib.h>
#include <string.h>

#include "record/output_name.h"
#include "test.h"

static void test_escapes(void)
{
	char out[64], why[128];

	CHECK_EQ_U64(gr_output_name_expand("trace.%h.%r.trc", "node07.cluster.example", "13", 4242,
					   out, sizeof(out), why),
		     0);
	CHECK_STR(out, "trace.node07.13.trc");
	CHECK_EQ_U64(
	    gr_output_name_expand("/tmp/run-%p/%%r-%r", "h", "0", 4242, out, sizeof(out), why), 0);
	CHECK_STR(out, "/tmp/run-4242/%r-0");
	/* a pattern without escapes is the name itself, and needs no rank */
	CHECK_EQ_U64(gr_output_name_expand("plain.trc", "h", NULL, 1, out, sizeof(out), why), 0);
	CHECK_STR(out, "plain.trc");
}

static void test_host_is_never_a_path(void)
{
	char out[64], why[128];

	CHECK_EQ_U64(gr_output_name_expand("t.%h", "x/../../etc/y", "1", 1, out, sizeof(out), why),
		     0);
	CHECK_STR(out, "t.x_");
	/* a name that starts with its dot leaves nothing */
	CHECK(gr_output_name_expand("t.%h", "../etc", "1", 1, out, sizeof(out), why) == -1);
	CHECK(gr_output_name_expand("t.%h", "", "1", 1, out, sizeof(out), why) == -1);
	CHECK_EQ_U64(gr_output_name_expand("t.%h", "a/b c", "1", 1, out, sizeof(out), why), 0);
	CHECK_STR(out, "t.a_b_c");
}

static void test_refused(void)
{
	char out[16], why[128];

	CHECK(gr_output_name_expand("t.%r.trc", "h", NULL, 1, out, sizeof(out), why) == -1);
	CHECK(strstr(why, "no rank") != NULL);
	CHECK(gr_output_name_expand("t.%x.trc", "h", "1", 1, out, sizeof(out), why) == -1);
	CHECK(strstr(why, "unknown escape '%x'") != NULL);
	CHECK(gr_output_name_expand("t.trc%", "h", "1", 1, out, sizeof(out), why) == -1);
	CHECK(gr_output_name_expand("a-very-long-name-%h", "host", "1", 1, out, sizeof(out), why) ==
	      -1);
	CHECK(strstr(why, "longer than 15 bytes") != NULL);
}

static void test_rank_from_environment(void)
{
	unsetenv("RANK");
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMI_RANK");
	unsetenv("SLURM_PROCID");
	CHECK(gr_output_name_rank() == NULL);
	setenv("SLURM_PROCID", "7", 1);
	CHECK_STR(gr_output_name_rank(), "7");
	/* torchrun's RANK comes first; a value that is not a number is not a rank */
	setenv("RANK", "x1", 1);
	CHECK_STR(gr_output_name_rank(), "7");
	setenv("RANK", "3", 1);
	CHECK_STR(gr_output_name_rank(), "3");
}

int main(void)
{
	RUN_TEST(test_escapes);
	RUN_TEST(test_host_is_never_a_path);
	RUN_TEST(test_refused);
	RUN_TEST(test_rank_from_environment);
	TEST_EXIT();
}
