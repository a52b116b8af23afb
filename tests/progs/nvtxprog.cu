/* SPDX-License-Identifier: MIT */
/*
 * NVTX ground truth: a training-like loop annotated with every kind of NVTX call gpurec records,
 * each call printed with the CLOCK_MONOTONIC bracket around it, so tests compare exact counts,
 * texts and values and check each recorded time inside the program's own bracket.
 *
 *   nvtxprog [STEPS [FORWARD]]     (default 3 steps, 2 launches in forward)
 *
 * Before the loop: category 1 named "compute", a stream created and named "side", the domain
 * "io", the string "load batch" registered in it, and a worker thread named "loader" (which
 * then makes one CUDA call, cudaStreamSynchronize of the default stream). Each step:
 *   push "step" (Ex: category 1, colour 0xff2080ff, payload uint64 = the step)
 *     start "load batch" in "io" (registered, category 2); the worker ends it on its thread
 *     push "forward"; FORWARD launches of scale on "side"; pop
 *     push L"backward \u2713" (Unicode); one launch of scale; pop
 *     mark "loss" (Ex: colour 0xffff0000, payload double = step + 0.5)
 *   pop
 *
 * Lines on stdout:
 *   at OP BEFORE AFTER TID RET TEXT    each NVTX call: OP as the recording's, RET what the call
 *                                      returned (names: the handle or id named), TEXT the UTF-8
 *   step N done                        the same with and without a recorder or NVTX tool
 * `at` lines depend on the run (times, threads, handles, and whether a tool answered).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static long tid(void)
{
	return syscall(SYS_gettid);
}

static void at(const char *op, unsigned long long before, unsigned long long after, long long ret,
	       const char *text)
{
	pthread_mutex_lock(&out_lock);
	printf("at %s %llu %llu %ld %lld %s\n", op, before, after, tid(), ret, text);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* time one NVTX call that returns a value */
#define CALL(op, text, expr)                                                                       \
	({                                                                                         \
		unsigned long long b_ = now();                                                     \
		long long r_ = (long long)(expr);                                                  \
		at(op, b_, now(), r_, text);                                                       \
		r_;                                                                                \
	})
/* time one NVTX call that returns nothing; @ret: what the line says it named */
#define CALLV(op, text, ret, expr)                                                                 \
	do {                                                                                       \
		unsigned long long b_ = now();                                                     \
		expr;                                                                              \
		at(op, b_, now(), (long long)(ret), text);                                         \
	} while (0)

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= a;
}

static nvtxDomainHandle_t io;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static nvtxRangeId_t to_end; /* the range the worker ends next (0 without a tool) */
static int pending, named, quit;

static void *loader(void *arg)
{
	long me = tid();

	(void)arg;
	CALLV("name_thread", "loader", me, nvtxNameOsThreadA((uint32_t)me, "loader"));
	cudaStreamSynchronize(0); /* a CUDA call: the thread is in the reports' thread tables */
	pthread_mutex_lock(&lock);
	named = 1;
	pthread_cond_broadcast(&cond);
	for (;;) {
		while (!pending && !quit)
			pthread_cond_wait(&cond, &lock);
		if (!pending)
			break;
		nvtxRangeId_t id = to_end;
		CALLV("end", "", id, nvtxDomainRangeEnd(io, id));
		pending = 0;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static nvtxEventAttributes_t attrs(void)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	return a;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 3, forward = argc > 2 ? atoi(argv[2]) : 2, n = 4096;
	nvtxStringHandle_t load;
	cudaStream_t side = NULL;
	float *x = NULL;
	pthread_t th;

	CALLV("name_category", "compute", 1, nvtxNameCategoryA(1, "compute"));
	cudaStreamCreate(&side);
	CALLV("name_stream", "side", (uintptr_t)side, nvtxNameCudaStreamA(side, "side"));
	cudaMalloc((void **)&x, n * sizeof(float));
	io = (nvtxDomainHandle_t)CALL("name_domain", "io", nvtxDomainCreateA("io"));
	load = nvtxDomainRegisterStringA(io, "load batch");
	CALLV("name_category", "disk", 2, nvtxDomainNameCategoryA(io, 2, "disk"));
	pthread_create(&th, NULL, loader, NULL);
	pthread_mutex_lock(&lock);
	while (!named)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);

	for (int s = 0; s < steps; s++) {
		nvtxEventAttributes_t a = attrs();

		a.category = 1;
		a.colorType = NVTX_COLOR_ARGB;
		a.color = 0xff2080ff;
		a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
		a.payload.ullValue = (uint64_t)s;
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		a.message.ascii = "step";
		CALL("push", "step", nvtxRangePushEx(&a));

		a = attrs();
		a.category = 2;
		a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		a.message.registered = load;
		pthread_mutex_lock(&lock);
		to_end = (nvtxRangeId_t)CALL("start", "load batch", nvtxDomainRangeStartEx(io, &a));
		pending = 1;
		pthread_cond_broadcast(&cond);
		/* ended before the step goes on: the order of the lines is the order of the calls */
		while (pending)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);

		CALL("push", "forward", nvtxRangePushA("forward"));
		for (int k = 0; k < forward; k++)
			scale<<<(n + 255) / 256, 256, 0, side>>>(x, k % 2 ? 0.5f : 2.0f, n);
		CALL("pop", "", nvtxRangePop());
		CALL("push", "backward \u2713", nvtxRangePushW(L"backward \u2713"));
		scale<<<(n + 255) / 256, 256, 0, side>>>(x, 1.0f, n);
		CALL("pop", "", nvtxRangePop());

		a = attrs();
		a.colorType = NVTX_COLOR_ARGB;
		a.color = 0xffff0000;
		a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
		a.payload.dValue = s + 0.5;
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		a.message.ascii = "loss";
		CALLV("mark", "loss", 0, nvtxMarkEx(&a));
		cudaStreamSynchronize(side);
		CALL("pop", "", nvtxRangePop());
		printf("step %d done\n", s);
		fflush(stdout);
	}
	pthread_mutex_lock(&lock);
	quit = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);
	cudaFree(x);
	cudaStreamDestroy(side);
	return 0;
}
