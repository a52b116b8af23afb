/* SPDX-License-Identifier: MIT */
/*
 * libgpurec_cupti.so: the CUPTI subscriber `gpurec record --cupti` puts into the traced
 * processes. The CUDA driver loads it at cuInit when CUDA_INJECTION64_PATH names it and calls
 * InitializeInjection(). It asks CUPTI for kernel, memcpy, memset, runtime and driver activity,
 * timed on CLOCK_MONOTONIC (the trace's clock), and at each completed buffer sends the recorder
 * one record per kernel, copy and memset (wire.h) through the pipe named by GPUREC_CUPTI_FD,
 * each joined here with the API call of its correlation id (convert.h). At exit it flushes
 * CUPTI and sends its totals: what CUPTI dropped and what the full pipe refused.
 *
 * It runs in the user's program: it never blocks it on the recorder (the pipe is non-blocking)
 * and does nothing at all without GPUREC_CUPTI_FD.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "convert.h"
#include "send.h"

/* CUPTI's buffers: large enough that a busy loop completes a few per second, not thousands */
#define BUFFER_SIZE  (4u << 20)
#define BUFFER_ALIGN 8
/* how long the exit waits for room for the totals, at most */
#define TOTALS_WAIT_MS 200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gr_cupti_sender sender = {.fd = -1};
static struct gr_cupti_join join; /* 1 MiB of .bss, touched only when records come */
static uint64_t cupti_dropped;

static uint64_t CUPTIAPI monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(BUFFER_ALIGN, BUFFER_SIZE);
	*size = *buffer ? BUFFER_SIZE : 0;
	*max_records = 0;
}

/*
 * Two passes: the API records of a buffer first, so a kernel finds its call when both came in
 * the same buffer (the call's record is written when it returns, often after the kernel's).
 */
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	uint32_t pid = (uint32_t)getpid();
	CUpti_Activity *a = NULL;
	size_t dropped = 0;

	pthread_mutex_lock(&lock);
	while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS)
		if (gr_cupti_is_api(a))
			gr_cupti_join_note(&join, (const CUpti_ActivityAPI *)a);
	a = NULL;
	while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
		struct gr_cupti_rec rec;
		uint32_t alt;

		if (!gr_cupti_convert(a, pid, &rec, &alt))
			continue;
		gr_cupti_join_fill(&join, &rec, alt);
		gr_cupti_send(&sender, &rec);
	}
	gr_cupti_send_flush(&sender);
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
		cupti_dropped += dropped;
	pthread_mutex_unlock(&lock);
	free(buffer);
}

static struct gr_cupti_rec control(enum gr_cupti_rec_type type)
{
	struct gr_cupti_rec rec;

	memset(&rec, 0, sizeof(rec));
	rec.magic = GR_CUPTI_MAGIC;
	rec.type = type;
	rec.pid = (uint32_t)getpid();
	return rec;
}

static void at_exit(void)
{
	struct gr_cupti_rec rec;

	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&lock);
	rec = control(GR_CUPTI_TOTALS);
	rec.cupti_dropped = cupti_dropped;
	/* the totals count themselves should they not fit either */
	rec.unwritten = sender.unwritten;
	gr_cupti_send_now(&sender, &rec, TOTALS_WAIT_MS);
	pthread_mutex_unlock(&lock);
}

/* The pipe from GPUREC_CUPTI_FD: a descriptor that is open, or -1. */
static int pipe_fd(void)
{
	const char *v = getenv(GR_CUPTI_FD_ENV);
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (*end || errno || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0)
		return -1;
	return (int)fd;
}

static CUptiResult enable(void)
{
	static const CUpti_ActivityKind kinds[] = {
	    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	    CUPTI_ACTIVITY_KIND_MEMCPY,
	    CUPTI_ACTIVITY_KIND_MEMSET,
	    CUPTI_ACTIVITY_KIND_RUNTIME,
	    CUPTI_ACTIVITY_KIND_DRIVER,
	};
	CUptiResult r;

	/* gettid() numbers, as the probes record threads */
	r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	/* before any kind is enabled, so that every record is on this clock */
	if (r == CUPTI_SUCCESS)
		r = cuptiActivityRegisterTimestampCallback(monotonic_ns);
	if (r == CUPTI_SUCCESS)
		r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	for (size_t i = 0; r == CUPTI_SUCCESS && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		r = cuptiActivityEnable(kinds[i]);
	return r;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	struct gr_cupti_rec hello;
	const char *text = NULL;
	CUptiResult r;

	sender.fd = pipe_fd();
	if (sender.fd < 0)
		return 1;
	r = enable();
	hello = control(GR_CUPTI_HELLO);
	hello.status = r;
	if (r != CUPTI_SUCCESS && cuptiGetResultString(r, &text) == CUPTI_SUCCESS && text) {
		hello.name_len = strnlen(text, GR_CUPTI_NAME_MAX);
		memcpy(hello.name, text, hello.name_len);
	}
	gr_cupti_send_now(&sender, &hello, TOTALS_WAIT_MS);
	if (r == CUPTI_SUCCESS)
		atexit(at_exit);
	return 1;
}
