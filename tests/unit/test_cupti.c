/* SPDX-License-Identifier: MIT */
/*
 * --cupti: CUPTI activity records (synthetic, every field chosen here) become the pipe's records
 * with exact times, configurations, bytes and names (cupti/convert.c); the join gives each the
 * thread and entry time of its API call; and the recorder turns a pipe record into the exact
 * GR_K_GPU row, refusing one it cannot trust (record/cupti.c).
 */
#include <errno.h>
#include <string.h>

#include "cupti/convert.h"
#include "format/trace.h"
#include "record/cupti.h"
#include "test.h"

static struct gr_cupti_join join;

static CUpti_ActivityAPI api(CUpti_ActivityKind kind, uint32_t corr, uint32_t tid, uint64_t start)
{
	CUpti_ActivityAPI a;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.correlationId = corr;
	a.threadId = tid;
	a.start = start;
	a.end = start + 900;
	return a;
}

static void test_kernel(void)
{
	CUpti_ActivityKernel10 k;
	struct gr_cupti_rec r;
	uint32_t alt = 99;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = 5000000123;
	k.end = 5000004123;
	k.deviceId = 1;
	k.contextId = 7;
	k.streamId = 13;
	k.gridX = 70000, k.gridY = 3, k.gridZ = 2;
	k.blockX = 32, k.blockY = 4, k.blockZ = 2;
	k.staticSharedMemory = 1024;
	k.dynamicSharedMemory = 128;
	k.correlationId = 42;
	k.graphId = 3;
	k.graphNodeId = 0x100000002ull;
	k.name = "_Z10scale_biasPffi";
	CHECK_EQ_U64(gr_cupti_convert((CUpti_Activity *)&k, 4321, &r, &alt), 1);
	CHECK_EQ_U64(r.magic, GR_CUPTI_MAGIC);
	CHECK_EQ_U64(r.type, GR_CUPTI_GPU);
	CHECK_EQ_U64(r.kind, GR_GPU_KERNEL);
	CHECK_EQ_U64(r.pid, 4321);
	CHECK_EQ_U64(r.start, 5000000123);
	CHECK_EQ_U64(r.end, 5000004123);
	CHECK_EQ_U64(r.device, 1);
	CHECK_EQ_U64(r.context, 7);
	CHECK_EQ_U64(r.stream, 13);
	CHECK_EQ_U64(r.correlation, 42);
	CHECK_EQ_U64(r.grid[0], 70000);
	CHECK_EQ_U64(r.grid[1], 3);
	CHECK_EQ_U64(r.grid[2], 2);
	CHECK_EQ_U64(r.block[0], 32);
	CHECK_EQ_U64(r.block[1], 4);
	CHECK_EQ_U64(r.block[2], 2);
	CHECK_EQ_U64(r.shared, 1152);
	CHECK_EQ_U64(r.graph, 3);
	CHECK_EQ_U64(r.graph_node, 0x100000002ull);
	CHECK_EQ_U64(r.bytes, 0);
	CHECK_EQ_U64(alt, 0);
	CHECK_EQ_U64(r.flags, 0);
	CHECK_EQ_U64(r.name_len, strlen("_Z10scale_biasPffi"));
	CHECK(!memcmp(r.name, "_Z10scale_biasPffi", r.name_len));
	CHECK_EQ_U64(r.host_tid, 0);
	CHECK_EQ_U64(r.host_ts, 0);
}

/* A name longer than the record holds is cut there and flagged, never overrun. */
static void test_long_name(void)
{
	static char name[GR_CUPTI_NAME_MAX + 100];
	CUpti_ActivityKernel10 k;
	struct gr_cupti_rec r;
	uint32_t alt;

	memset(name, 'x', sizeof(name) - 1);
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
	k.name = name;
	CHECK_EQ_U64(gr_cupti_convert((CUpti_Activity *)&k, 1, &r, &alt), 1);
	CHECK_EQ_U64(r.name_len, GR_CUPTI_NAME_MAX);
	CHECK_EQ_U64(r.flags, GR_CUPTI_NAME_CUT);
	k.name = NULL;
	CHECK_EQ_U64(gr_cupti_convert((CUpti_Activity *)&k, 1, &r, &alt), 1);
	CHECK_EQ_U64(r.name_len, 0);
}

static void test_memcpy_memset(void)
{
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemset4 s;
	CUpti_ActivityAPI other = api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 2, 3);
	struct gr_cupti_rec r;
	uint32_t alt;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
	m.bytes = 4096;
	m.start = 7000;
	m.end = 7500;
	m.deviceId = 0;
	m.contextId = 1;
	m.streamId = 7;
	m.correlationId = 300;
	m.runtimeCorrelationId = 299;
	CHECK_EQ_U64(gr_cupti_convert((CUpti_Activity *)&m, 10, &r, &alt), 1);
	CHECK_EQ_U64(r.kind, GR_GPU_MEMCPY);
	CHECK_EQ_U64(r.start, 7000);
	CHECK_EQ_U64(r.end, 7500);
	CHECK_EQ_U64(r.bytes, 4096);
	CHECK_EQ_U64(r.copy_kind, 2);
	CHECK_EQ_U64(r.stream, 7);
	CHECK_EQ_U64(r.correlation, 300);
	CHECK_EQ_U64(alt, 299);
	CHECK_EQ_U64(r.name_len, 0);

	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = 1 << 20;
	s.start = 8000;
	s.end = 8100;
	s.streamId = 9;
	s.correlationId = 301;
	CHECK_EQ_U64(gr_cupti_convert((CUpti_Activity *)&s, 10, &r, &alt), 1);
	CHECK_EQ_U64(r.kind, GR_GPU_MEMSET);
	CHECK_EQ_U64(r.bytes, 1 << 20);
	CHECK_EQ_U64(r.start, 8000);
	CHECK_EQ_U64(r.end, 8100);
	CHECK_EQ_U64(r.copy_kind, 0);
	CHECK_EQ_U64(alt, 0);

	/* API records are joined, not converted */
	CHECK_EQ_U64(gr_cupti_convert((CUpti_Activity *)&other, 10, &r, &alt), 0);
	CHECK(gr_cupti_is_api((CUpti_Activity *)&other));
	CHECK(!gr_cupti_is_api((CUpti_Activity *)&s));
}

static void test_join(void)
{
	CUpti_ActivityAPI rt = api(CUPTI_ACTIVITY_KIND_RUNTIME, 42, 777, 4999990000);
	CUpti_ActivityAPI drv = api(CUPTI_ACTIVITY_KIND_DRIVER, 299, 778, 6000);
	CUpti_ActivityAPI later = api(CUPTI_ACTIVITY_KIND_RUNTIME, 42 + GR_CUPTI_JOIN_SLOTS, 5, 9);
	struct gr_cupti_rec r;

	memset(&join, 0, sizeof(join));
	memset(&r, 0, sizeof(r));
	gr_cupti_join_note(&join, &rt);
	gr_cupti_join_note(&join, &drv);
	r.correlation = 42;
	CHECK_EQ_U64(gr_cupti_join_fill(&join, &r, 0), 1);
	CHECK_EQ_U64(r.host_tid, 777);
	CHECK_EQ_U64(r.host_ts, 4999990000);
	/* a memcpy whose own id is unknown finds its runtime call */
	r.correlation = 300;
	CHECK_EQ_U64(gr_cupti_join_fill(&join, &r, 299), 1);
	CHECK_EQ_U64(r.host_tid, 778);
	CHECK_EQ_U64(r.host_ts, 6000);
	/* not seen: 0, not a neighbour's */
	r.correlation = 43;
	CHECK_EQ_U64(gr_cupti_join_fill(&join, &r, 0), 0);
	CHECK_EQ_U64(r.host_tid, 0);
	CHECK_EQ_U64(r.host_ts, 0);
	/* id 0 is CUPTI's "none": it never matches an empty slot */
	r.correlation = 0;
	CHECK_EQ_U64(gr_cupti_join_fill(&join, &r, 0), 0);
	/* a slot taken by a later id no longer answers for the old one */
	gr_cupti_join_note(&join, &later);
	r.correlation = 42;
	CHECK_EQ_U64(gr_cupti_join_fill(&join, &r, 0), 0);
	r.correlation = 42 + GR_CUPTI_JOIN_SLOTS;
	CHECK_EQ_U64(gr_cupti_join_fill(&join, &r, 0), 1);
	CHECK_EQ_U64(r.host_tid, 5);
}

static struct gr_cupti_rec gpu_rec(void)
{
	struct gr_cupti_rec r;

	memset(&r, 0, sizeof(r));
	r.magic = GR_CUPTI_MAGIC;
	r.type = GR_CUPTI_GPU;
	r.kind = GR_GPU_KERNEL;
	r.pid = 55;
	r.host_tid = 56;
	r.start = 1000;
	r.end = 1750;
	r.host_ts = 900;
	r.device = 2, r.context = 3, r.stream = 4, r.correlation = 5;
	r.grid[0] = 6, r.grid[1] = 7, r.grid[2] = 8;
	r.block[0] = 9, r.block[1] = 10, r.block[2] = 11;
	r.shared = 12;
	r.bytes = 13;
	r.copy_kind = 14;
	r.graph = 15;
	r.graph_node = 16;
	r.name_len = 3;
	memcpy(r.name, "abc", 3);
	return r;
}

static void test_row(void)
{
	static const uint64_t want[GR_GPU_NCOLS - 1] = {
	    1000, 750, 55, 56, 900, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	struct gr_cupti_rec r = gpu_rec();
	uint64_t v[GR_GPU_NCOLS];
	struct gr_bytes name;

	CHECK_EQ_U64(gr_cupti_row(&r, v, &name), 0);
	for (int i = 0; i < GR_GPU_NAME; i++)
		CHECK_EQ_U64(v[i], want[i]);
	CHECK_EQ_U64(name.len, 3);
	CHECK(!memcmp(name.data, "abc", 3));

	/* what a stray or hostile writer could send is refused, field by field */
	r = gpu_rec(), r.magic ^= 1;
	CHECK_EQ_U64(gr_cupti_row(&r, v, &name), (uint64_t)-EINVAL);
	r = gpu_rec(), r.type = GR_CUPTI_TOTALS;
	CHECK_EQ_U64(gr_cupti_row(&r, v, &name), (uint64_t)-EINVAL);
	r = gpu_rec(), r.kind = GR_GPU_MEMSET + 1;
	CHECK_EQ_U64(gr_cupti_row(&r, v, &name), (uint64_t)-EINVAL);
	r = gpu_rec(), r.name_len = GR_CUPTI_NAME_MAX + 1;
	CHECK_EQ_U64(gr_cupti_row(&r, v, &name), (uint64_t)-EINVAL);
	r = gpu_rec(), r.end = r.start - 1;
	CHECK_EQ_U64(gr_cupti_row(&r, v, &name), (uint64_t)-EINVAL);
}

int main(void)
{
	RUN_TEST(test_kernel);
	RUN_TEST(test_long_name);
	RUN_TEST(test_memcpy_memset);
	RUN_TEST(test_join);
	RUN_TEST(test_row);
	TEST_EXIT();
}
