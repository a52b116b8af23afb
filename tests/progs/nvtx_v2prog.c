/* SPDX-License-Identifier: MIT */
/*
 * A program of NVTX v2's kind: it calls the nvtx* functions of libnvToolsExt.so.1 (the stand-in,
 * nvtx_v2lib.c) instead of carrying NVTX itself. STEPS times: push "v2 step", mark "v2 mark",
 * pop; then start "v2 range" and end it. Prints each call as nvtxprog does:
 *   at OP BEFORE AFTER TID RET TEXT
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void at(const char *op, unsigned long long before, long long ret, const char *text)
{
	printf("at %s %llu %llu %ld %lld %s\n", op, before, now(), syscall(SYS_gettid), ret, text);
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 2;
	unsigned long long b;
	nvtxRangeId_t id;
	long long r;

	for (int i = 0; i < steps; i++) {
		b = now();
		r = nvtxRangePushA("v2 step");
		at("push", b, r, "v2 step");
		b = now();
		nvtxMarkA("v2 mark");
		at("mark", b, 0, "v2 mark");
		b = now();
		r = nvtxRangePop();
		at("pop", b, r, "");
	}
	b = now();
	id = nvtxRangeStartA("v2 range");
	at("start", b, (long long)id, "v2 range");
	b = now();
	nvtxRangeEnd(id);
	at("end", b, (long long)id, "");
	printf("v2 done\n");
	return 0;
}
