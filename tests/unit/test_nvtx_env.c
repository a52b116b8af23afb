/* SPDX-License-Identifier: MIT */
/*
 * record's NVTX variables for the command (record/nvtx_env.c): our library always in
 * NVTX_INJECTION64_PATH; the user's own tool moved to GPUREC_NVTX_CHAIN, an inherited chain
 * cleared when the user names no tool, and left alone inside a recording of our own.
 */
#include "record/nvtx_env.h"
#include "test.h"

static void test_no_user_tool(void)
{
	struct gr_nvtx_env e = {0};

	CHECK_EQ_U64(gr_nvtx_env_make(&e, "/opt/g/libgpurec_nvtx.so", NULL), 0);
	CHECK(e.active);
	CHECK(!e.chained);
	CHECK_STR(e.env[0], "NVTX_INJECTION64_PATH=/opt/g/libgpurec_nvtx.so");
	CHECK_STR(e.env[1], "GPUREC_NVTX_CHAIN=");
	CHECK(e.env[2] == NULL);
	gr_nvtx_env_close(&e);
	CHECK(e.env[0] == NULL && !e.active);

	/* set and empty is unset for NVTX too */
	CHECK_EQ_U64(gr_nvtx_env_make(&e, "/opt/g/libgpurec_nvtx.so", ""), 0);
	CHECK(!e.chained);
	CHECK_STR(e.env[1], "GPUREC_NVTX_CHAIN=");
	gr_nvtx_env_close(&e);
}

static void test_user_tool(void)
{
	struct gr_nvtx_env e = {0};

	CHECK_EQ_U64(gr_nvtx_env_make(&e, "/opt/g/libgpurec_nvtx.so", "libmytool.so"), 0);
	CHECK(e.chained);
	CHECK_STR(e.env[0], "NVTX_INJECTION64_PATH=/opt/g/libgpurec_nvtx.so");
	CHECK_STR(e.env[1], "GPUREC_NVTX_CHAIN=libmytool.so");
	CHECK(e.env[2] == NULL);
	gr_nvtx_env_close(&e);
}

static void test_inside_a_recording(void)
{
	struct gr_nvtx_env e = {0};

	CHECK_EQ_U64(gr_nvtx_env_make(&e, "/opt/g/libgpurec_nvtx.so", "/opt/g/libgpurec_nvtx.so"),
		     0);
	CHECK(!e.chained);
	CHECK_STR(e.env[0], "NVTX_INJECTION64_PATH=/opt/g/libgpurec_nvtx.so");
	CHECK(e.env[1] == NULL);
	gr_nvtx_env_close(&e);
}

int main(void)
{
	RUN_TEST(test_no_user_tool);
	RUN_TEST(test_user_tool);
	RUN_TEST(test_inside_a_recording);
	TEST_EXIT();
}
