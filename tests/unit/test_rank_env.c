/* SPDX-License-Identifier: MIT */
/* record/rank_env.c: only the launchers' rank variables leave a process's environment, in the
 * documented order, and only values that look like ranks. */
#include <stdio.h>
#include <string.h>

#include "record/rank_env.h"
#include "test.h"

/* An environment block as /proc/PID/environ holds it: NUL after each string. */
static size_t block(char *buf, const char *const *vars, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		memcpy(buf + len, vars[i], strlen(vars[i]) + 1);
		len += strlen(vars[i]) + 1;
	}
	return len;
}

static void test_select(void)
{
	static const char *const vars[] = {
	    "PATH=/usr/bin",  "WORLD_SIZE=4",
	    "HOME=/root",     "API_TOKEN=secret",
	    "XRANK=9",	      "RANK_EXTRA=1",
	    "SLURM_PROCID=",  "PMI_RANK=a/b",
	    "LOCAL_RANK=1",   "RANK=3",
	    "SLURM_NTASKS=4", "OMPI_COMM_WORLD_RANK=1234567890123456789012345678901234",
	};
	char buf[4096], out[GR_RANK_ENV_MAX];
	size_t len = block(buf, vars, sizeof(vars) / sizeof(vars[0]));

	/* the list's order, not the block's; empty, odd and over-long values left out */
	CHECK_EQ_U64(gr_rank_env_select(buf, len, out),
		     strlen("RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 SLURM_NTASKS=4"));
	CHECK_STR(out, "RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 SLURM_NTASKS=4");
	CHECK(!strstr(out, "secret") && !strstr(out, "PATH"));

	/* none set: nothing, an empty text */
	len = block(buf, vars + 2, 3); /* HOME, API_TOKEN, XRANK */
	CHECK_EQ_U64(gr_rank_env_select(buf, len, out), 0);
	CHECK_STR(out, "");
	/* a block cut without its last NUL, and one empty */
	memcpy(buf, "RANK=7", 6);
	CHECK_EQ_U64(gr_rank_env_select(buf, 6, out), 6);
	CHECK_STR(out, "RANK=7");
	CHECK_EQ_U64(gr_rank_env_select(buf, 0, out), 0);
}

/* Every variable at its longest fits GR_RANK_ENV_MAX. */
static void test_longest(void)
{
	static const char *const names[] = {"RANK",
					    "LOCAL_RANK",
					    "WORLD_SIZE",
					    "LOCAL_WORLD_SIZE",
					    "OMPI_COMM_WORLD_RANK",
					    "OMPI_COMM_WORLD_SIZE",
					    "PMI_RANK",
					    "SLURM_PROCID",
					    "SLURM_NTASKS"};
	char buf[4096], out[GR_RANK_ENV_MAX];
	size_t len = 0, want = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int n = snprintf(buf + len, sizeof(buf) - len, "%s=%s", names[i],
				 "12345678901234567890123456789012");

		len += (size_t)n + 1;
		want += (size_t)n + (i ? 1 : 0);
	}
	CHECK_EQ_U64(gr_rank_env_select(buf, len, out), want);
	CHECK(want < GR_RANK_ENV_MAX);
}

int main(void)
{
	RUN_TEST(test_select);
	RUN_TEST(test_longest);
	TEST_EXIT();
}
