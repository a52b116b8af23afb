/* SPDX-License-Identifier: MIT */
/*
 * Test helper: a stand-in for a CUDA program under `record --cupti` on a machine without a
 * driver. It does what libgpurec_cupti.so does at each completed buffer, with synthetic CUPTI
 * records: convert, join with the API records, send to the pipe named by GPUREC_CUPTI_FD; then
 * the library's totals. So the recorder's side is tested end to end with times we choose.
 *
 *   cupti_feed N    HELLO; N kernels (kernel i: start 1e9 + i*1e4, dur 1000 + i, grid (i+1,2,3),
 *                   block (128,1,1), correlation 100 + i, host tid = our tid, host ts 1e9 + i);
 *                   one D2H memcpy (4096 bytes, start 2e9, dur 500); one memset (1 MiB, start
 *                   3e9, dur 250, no API record: host 0); TOTALS (7 dropped by CUPTI)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti/convert.h"
#include "cupti/send.h"

static struct gr_cupti_join join;

static CUpti_ActivityAPI api(uint32_t corr, uint64_t start)
{
	CUpti_ActivityAPI a;

	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.correlationId = corr;
	a.threadId = (uint32_t)gettid();
	a.start = start;
	a.end = start + 1;
	return a;
}

static void send_one(struct gr_cupti_sender *s, const CUpti_Activity *a)
{
	struct gr_cupti_rec rec;
	uint32_t alt;

	if (gr_cupti_convert(a, (uint32_t)getpid(), &rec, &alt)) {
		gr_cupti_join_fill(&join, &rec, alt);
		gr_cupti_send(s, &rec);
	}
}

int main(int argc, char **argv)
{
	const char *fd = getenv(GR_CUPTI_FD_ENV);
	struct gr_cupti_sender s = {.fd = fd ? atoi(fd) : -1};
	struct gr_cupti_rec ctl;
	int n = argc > 1 ? atoi(argv[1]) : 0;
	CUpti_ActivityKernel10 k;
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemset4 ms;
	CUpti_ActivityAPI a;

	if (!fd) {
		fprintf(stderr, "cupti_feed: no " GR_CUPTI_FD_ENV "\n");
		return 2;
	}
	memset(&ctl, 0, sizeof(ctl));
	ctl.magic = GR_CUPTI_MAGIC;
	ctl.type = GR_CUPTI_HELLO;
	ctl.pid = (uint32_t)getpid();
	gr_cupti_send_now(&s, &ctl, 1000);
	for (int i = 0; i < n; i++) {
		a = api(100 + i, 1000000000ull + i);
		gr_cupti_join_note(&join, &a);
		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k.start = 1000000000ull + i * 10000ull;
		k.end = k.start + 1000 + i;
		k.gridX = i + 1, k.gridY = 2, k.gridZ = 3;
		k.blockX = 128, k.blockY = 1, k.blockZ = 1;
		k.correlationId = 100 + i;
		k.streamId = 7;
		k.name = "_Z6kernelPf";
		send_one(&s, (CUpti_Activity *)&k);
	}
	a = api(5000, 1999999000ull);
	gr_cupti_join_note(&join, &a);
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
	m.bytes = 4096;
	m.start = 2000000000ull;
	m.end = m.start + 500;
	m.correlationId = 5000;
	send_one(&s, (CUpti_Activity *)&m);
	memset(&ms, 0, sizeof(ms));
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.bytes = 1 << 20;
	ms.start = 3000000000ull;
	ms.end = ms.start + 250;
	ms.correlationId = 6000;
	send_one(&s, (CUpti_Activity *)&ms);
	gr_cupti_send_flush(&s);
	ctl.type = GR_CUPTI_TOTALS;
	ctl.cupti_dropped = 7;
	ctl.unwritten = s.unwritten;
	gr_cupti_send_now(&s, &ctl, 1000);
	printf("tid %d unwritten %llu\n", gettid(), (unsigned long long)s.unwritten);
	return 5;
}
