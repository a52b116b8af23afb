/* SPDX-License-Identifier: MIT */
/*
 * gpusim self-test, TAP on stdout (tests/e2e/sim.sh runs it).
 *
 * 1. Launch ABI: every launch entry point, called the way compiled code calls it (dim3 by value,
 *    shared memory and stream on the stack), must decode to the same grid, block, shared memory
 *    and stream in the GPUSIM_LOG file (argv[1], or a temporary file).
 * 2. Time model: durations measured with events behind a busy stream are exact (the virtual
 *    clock is deterministic) when the host queued them before the busy work ended, which each
 *    measurement checks (a host kept off the CPU longer measures again behind more busy work);
 *    which calls block the host is checked on the wall clock in the directions other work on
 *    the machine cannot fake: a wait from before the work it waits for was queued (other work
 *    only lengthens it), a quick return as wall time less the time the kernel kept this thread
 *    waiting for a CPU (schedstat run_delay).
 * 3. Memory: small copies move bytes; bad pointers, streams and configurations fail cleanly.
 * 4. Graphs: captured work runs only when its graph is launched, with the captured times, as
 *    often as it is launched (GPUSIM_LOG counts kernels executed); streams joined through events
 *    feed the capture; explicit nodes, set-params, executable update and child graphs.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

/* Declared for nvcc's generated code only (C++ headers): the real prototypes, restated. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
			       size_t sharedMem, cudaStream_t stream);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
				     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
				       void *stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				  size_t sharedMem, cudaStream_t stream);

/* One wave: blocks of 256 threads that fit at once, 132 SMs x 8 resident blocks. */
#define WAVE (132 * 8)
/* 10000 waves, 20 ms of device time, which wall-clock bounds below keep far apart. */
#define BUSY dim3_of(WAVE * 10000, 1, 1)
/* An exact measurement behind busy work is tried this many times, the busy work doubled each. */
#define TRIES 6
#define B256  dim3_of(256, 1, 1)

static int failures;

static void check(int cond, const char *what)
{
	printf("%s - %s\n", cond ? "ok" : "not ok", what);
	if (!cond)
		failures++;
}

static dim3 dim3_of(unsigned x, unsigned y, unsigned z)
{
	dim3 d = {x, y, z};

	return d;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Host stubs: distinct addresses, as nvcc's generated stubs are. */
static void stub_a(void)
{
	static volatile int a;

	a++;
}

static void stub_b(void)
{
	static volatile int b;

	b++;
}

static void stub_busy(void)
{
	static volatile int c;

	c++;
}

static void register_kernels(void)
{
	static char fatbin[16];
	void **h = __cudaRegisterFatBinary(fatbin);

	__cudaRegisterFunction(h, (const char *)stub_a, "_Z5abi_av", "_Z5abi_av", -1, NULL, NULL,
			       NULL, NULL, NULL);
	__cudaRegisterFunction(h, (const char *)stub_b, "_Z5abi_bPfi", "_Z5abi_bPfi", -1, NULL,
			       NULL, NULL, NULL, NULL);
	__cudaRegisterFunction(h, (const char *)stub_busy, "busy", "busy", -1, NULL, NULL, NULL,
			       NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);
}

static int launch(const void *f, dim3 g, dim3 b, size_t shmem, cudaStream_t s)
{
	return cudaLaunchKernel(f, g, b, NULL, shmem, s);
}

static void test_abi(const char *log)
{
	cudaStream_t s = NULL;
	cudaKernel_t k = NULL;
	cudaLaunchConfig_t cfg;
	dim3 g, b;
	size_t shmem = 0;
	cudaStream_t popped = NULL;
	const char *name = NULL;
	char want[4][160], line[256];
	FILE *f;
	int n = 0, same = 1;
	long from;

	/* the other tests launched too: compare what this one appends */
	f = fopen(log, "r");
	from = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
	if (f)
		fclose(f);

	check(cudaStreamCreate(&s) == cudaSuccess, "cudaStreamCreate");
	check(launch((const void *)stub_a, dim3_of(70000, 3, 2), dim3_of(32, 4, 2), 128, s) == 0,
	      "cudaLaunchKernel grid.x > 65535, asymmetric block");
	snprintf(want[0], sizeof(want[0]), "_Z5abi_av 70000,3,2 32,4,2 128 %p\n", (void *)s);

	check(__cudaGetKernel(&k, (const void *)stub_b) == cudaSuccess && k, "__cudaGetKernel");
	if (getenv("GPUSIM_OPAQUE_HANDLES"))
		check((void *)k != (void *)stub_b, "opaque kernel handle (GPUSIM_OPAQUE_HANDLES)");
	else
		check((void *)k == (void *)stub_b,
		      "kernel handle is the host stub, as without driver");
	check(__cudaLaunchKernel(k, dim3_of(1, 2, 3), dim3_of(4, 5, 6), NULL, 4096, 0) == 0,
	      "__cudaLaunchKernel (nvcc 13 <<<>>>) on the default stream");
	snprintf(want[1], sizeof(want[1]), "_Z5abi_bPfi 1,2,3 4,5,6 4096 0x0\n");

	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDim = dim3_of(0x7fffffff, 65535, 1);
	cfg.blockDim = dim3_of(1024, 1, 1);
	cfg.dynamicSmemBytes = 49152;
	cfg.stream = s;
	check(cudaLaunchKernelExC(&cfg, (const void *)stub_a, NULL) == 0,
	      "cudaLaunchKernelExC with the largest grid");
	snprintf(want[2], sizeof(want[2]), "_Z5abi_av 2147483647,65535,1 1024,1,1 49152 %p\n",
		 (void *)s);

	check(cudaLaunchKernel_ptsz((const void *)stub_b, dim3_of(5, 1, 1), dim3_of(64, 1, 1), NULL,
				    0, cudaStreamPerThread) == 0,
	      "cudaLaunchKernel_ptsz on cudaStreamPerThread");
	snprintf(want[3], sizeof(want[3]), "_Z5abi_bPfi 5,1,1 64,1,1 0 0x2\n");

	/* rejected launches are not logged */
	check(launch((const void *)stub_a, dim3_of(1, 1, 1), dim3_of(1025, 1, 1), 0, s) ==
		  cudaErrorInvalidConfiguration,
	      "1025 threads per block: cudaErrorInvalidConfiguration");
	check(cudaGetLastError() == cudaErrorInvalidConfiguration &&
		  cudaGetLastError() == cudaSuccess,
	      "cudaGetLastError returns the error once");
	check(launch((const void *)stub_a, dim3_of(0, 1, 1), B256, 0, s) ==
		  cudaErrorInvalidConfiguration,
	      "empty grid: cudaErrorInvalidConfiguration");
	check(launch((const void *)now_us, dim3_of(1, 1, 1), B256, 0, s) ==
		  cudaErrorInvalidDeviceFunction,
	      "unregistered function: cudaErrorInvalidDeviceFunction");
	check(launch((const void *)stub_a, dim3_of(1, 1, 1), B256, 0, (cudaStream_t)0x1234) ==
		  cudaErrorInvalidResourceHandle,
	      "unknown stream: cudaErrorInvalidResourceHandle");
	cudaGetLastError();

	check(__cudaPushCallConfiguration(dim3_of(9, 8, 7), dim3_of(6, 5, 4), 300, s) == 0,
	      "__cudaPushCallConfiguration");
	check(__cudaPopCallConfiguration(&g, &b, &shmem, &popped) == cudaSuccess && g.x == 9 &&
		  g.y == 8 && g.z == 7 && b.x == 6 && b.y == 5 && b.z == 4 && shmem == 300 &&
		  popped == s,
	      "__cudaPopCallConfiguration returns what was pushed");
	check(cudaFuncGetName(&name, (const void *)stub_a) == cudaSuccess && name &&
		  strcmp(name, "_Z5abi_av") == 0,
	      "cudaFuncGetName gives the registered name");

	f = fopen(log, "r");
	if (!f || fseek(f, from, SEEK_SET) != 0) {
		check(0, "GPUSIM_LOG file written");
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (n < 4 && strcmp(line, want[n]) != 0) {
			printf("# line %d: got '%.*s', want '%.*s'\n", n + 1,
			       (int)strcspn(line, "\n"), line, (int)strcspn(want[n], "\n"),
			       want[n]);
			same = 0;
		}
		n++;
	}
	fclose(f);
	check(n == 4, "GPUSIM_LOG has one line per accepted launch (4)");
	check(same, "GPUSIM_LOG lines decode grid, block, shared memory and stream");
	cudaStreamDestroy(s);
}

/* This thread's time spent runnable but not running (schedstat run_delay), in ns. */
static unsigned long long run_delay_ns(void)
{
	unsigned long long run = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

/* A point on the host's wall clock, with the thread's run_delay then. */
struct host_clock {
	double us;
	unsigned long long delay_ns;
};

static struct host_clock host_clock(void)
{
	struct host_clock c = {0, run_delay_ns()};

	c.us = now_us();
	return c;
}

/* Wall time since c: other work on the machine only adds to it. */
static double wall_since(struct host_clock c)
{
	return now_us() - c.us;
}

/* Wall time since c less this thread's wait for a CPU meanwhile: other work does not add to it. */
static double own_since(struct host_clock c)
{
	double us = now_us() - c.us;

	return us - (run_delay_ns() - c.delay_ns) / 1e3;
}

/* Busy work of ms milliseconds on s. */
static void launch_busy(cudaStream_t s, unsigned ms)
{
	launch((const void *)stub_busy, dim3_of(WAVE * 500 * ms, 1, 1), B256, 0, s);
}

/* Whether the host was kept from running past the busy work: its event had completed. */
static int host_late(cudaEvent_t after_busy, unsigned ms)
{
	if (cudaEventQuery(after_busy) != cudaSuccess)
		return 0;
	printf("# the busy work (%u ms) ended before this thread had queued what it times: "
	       "again behind %u ms\n",
	       ms, 2 * ms);
	return 1;
}

/* The run_delay of the last timed() call: how late the kernel let this thread run. */
static double timed_run_delay_ms;

/*
 * Device time of what fn queues on s behind busy work, from events: exact when the host queued
 * fn's work and the closing event before the busy work ended (checked: the opening event had not
 * completed then). For a fn that blocks the host (blocking != 0) the check is made before fn,
 * which cannot return before the busy work ends.
 */
static float timed_as(cudaStream_t s, void (*fn)(cudaStream_t, void *), void *arg, int blocking)
{
	unsigned ms = 20;
	float elapsed = -1;

	for (int i = 0; i < TRIES; i++, ms *= 2) {
		unsigned long long delay = run_delay_ns();
		cudaEvent_t e0, e1;
		int late;

		cudaEventCreate(&e0);
		cudaEventCreate(&e1);
		launch_busy(s, ms);
		cudaEventRecord(e0, s);
		late = blocking && host_late(e0, ms);
		fn(s, arg);
		cudaEventRecord(e1, s);
		late = late || (!blocking && host_late(e0, ms));
		cudaEventSynchronize(e1);
		timed_run_delay_ms = (run_delay_ns() - delay) / 1e6;
		cudaEventElapsedTime(&elapsed, e0, e1);
		cudaEventDestroy(e0);
		cudaEventDestroy(e1);
		if (!late)
			return elapsed;
	}
	printf("# never queued before the busy work ended, %d tries\n", TRIES);
	return -1;
}

static float timed(cudaStream_t s, void (*fn)(cudaStream_t, void *), void *arg)
{
	return timed_as(s, fn, arg, 0);
}

struct kargs {
	dim3 grid, block;
	size_t shmem;
};

static void run_kernel(cudaStream_t s, void *arg)
{
	struct kargs *a = arg;

	launch((const void *)stub_a, a->grid, a->block, a->shmem, s);
}

struct cargs {
	void *dst;
	const void *src;
	size_t n;
	enum cudaMemcpyKind kind;
};

static void run_copy(cudaStream_t s, void *arg)
{
	struct cargs *a = arg;

	cudaMemcpyAsync(a->dst, a->src, a->n, a->kind, s);
}

static int near_ms(float got, double want_ns)
{
	double d = got - want_ns / 1e6;

	return d < 1e-5 && d > -1e-5;
}

/*
 * A copy that blocks the host ends before the next event can be queued: that event is at least
 * the copy's time after the one before it. How much later depends on when the host woke, which
 * a busy machine delays in ways the thread's run_delay does not all show (interrupts, a
 * hypervisor's steal): the copy's own duration is measured exactly as a graph node (timed_node).
 */
static int blocked_ms(float got, double want_ns)
{
	printf("# blocking copy: %.6f ms for %.6f ms of copy, %.6f ms waiting to run\n", got,
	       want_ns / 1e6, timed_run_delay_ms);
	return got - want_ns / 1e6 > -1e-5;
}

static void run_graph(cudaStream_t s, void *arg);

/*
 * Device time of what fn queues on s, captured into a graph and launched: a capture turns a
 * copy that would block the host into a node of the same modelled duration that does not, so
 * its time is measured exactly, as timed() measures non-blocking work. -1 if capture fails.
 */
static float timed_node(cudaStream_t s, void (*fn)(cudaStream_t, void *), void *arg)
{
	cudaGraph_t g = NULL;
	cudaGraphExec_t x = NULL;
	float ms = -1;

	if (cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess)
		return -1;
	fn(s, arg);
	if (cudaStreamEndCapture(s, &g) == cudaSuccess &&
	    cudaGraphInstantiate(&x, g, 0) == cudaSuccess)
		ms = timed(s, run_graph, &x);
	cudaGraphExecDestroy(x);
	cudaGraphDestroy(g);
	return ms;
}

static void test_model(void)
{
	cudaStream_t s, nb;
	struct kargs k;
	struct cargs c;
	void *dev = NULL, *dev2 = NULL, *pinned = NULL, *pageable = malloc(1 << 20);
	struct host_clock hc, hc_nb;
	double t;
	float ms;

	cudaStreamCreate(&s);
	cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
	cudaMalloc(&dev, 1 << 20);
	cudaMalloc(&dev2, 1 << 20);
	cudaMallocHost(&pinned, 1 << 20);

	k = (struct kargs){dim3_of(WAVE * 10, 1, 1), B256, 0};
	ms = timed(s, run_kernel, &k);
	printf("# 10 waves: %.6f ms\n", ms);
	check(near_ms(ms, 20000), "kernel of 10 waves takes 10 x 2 us");
	k = (struct kargs){dim3_of(1, 1, 1), dim3_of(32, 1, 1), 0};
	check(near_ms(timed(s, run_kernel, &k), 3000), "smallest kernel takes the 3 us floor");
	k = (struct kargs){dim3_of(264 * 4, 1, 1), dim3_of(32, 1, 1), 100 << 10};
	check(near_ms(timed(s, run_kernel, &k), 8000),
	      "100 KiB shared memory: 2 blocks per SM, 4 waves, 8 us");

	c = (struct cargs){dev, pinned, 1 << 20, cudaMemcpyHostToDevice};
	ms = timed(s, run_copy, &c);
	printf("# pinned 1 MiB: %.6f ms\n", ms);
	check(near_ms(ms, 2000 + 41943), "pinned H2D 1 MiB: 2 us + 1 MiB at 25 GB/s");
	c = (struct cargs){pageable, dev, 1 << 20, cudaMemcpyDeviceToHost};
	check(near_ms(timed_node(s, run_copy, &c), 2000 + 131072), "pageable D2H 1 MiB: 8 GB/s");
	check(blocked_ms(timed_as(s, run_copy, &c, 1), 2000 + 131072),
	      "a pageable D2H copy returns once it has ended");
	c = (struct cargs){dev2, dev, 1 << 20, cudaMemcpyDeviceToDevice};
	check(near_ms(timed(s, run_copy, &c), 2000 + 1048), "D2D 1 MiB: 1000 GB/s");
	c = (struct cargs){dev2, pinned, 1 << 20, cudaMemcpyDefault};
	check(near_ms(timed(s, run_copy, &c), 2000 + 41943), "cudaMemcpyDefault infers pinned H2D");

	/* who blocks the host: 20 ms of work queued first in each case. A wait is timed from before
	 * that work was queued, a quick return as the call's own time (less any wait for a CPU). */
	launch((const void *)stub_busy, BUSY, B256, 0, s);
	hc = host_clock();
	cudaMemcpyAsync(dev, pinned, 1 << 20, cudaMemcpyHostToDevice, s);
	t = own_since(hc);
	printf("# pinned cudaMemcpyAsync call: %.0f us\n", t);
	check(t < 10000, "pinned cudaMemcpyAsync returns at once");
	hc = host_clock();
	launch((const void *)stub_busy, BUSY, B256, 0, s);
	cudaMemcpyAsync(dev, pageable, 1 << 20, cudaMemcpyHostToDevice, s);
	t = wall_since(hc);
	printf("# pageable cudaMemcpyAsync call: %.0f us\n", t);
	check(t > 20000 + 131 && cudaStreamQuery(s) == cudaSuccess,
	      "pageable cudaMemcpyAsync waits for the stream and the copy");
	hc = host_clock();
	launch((const void *)stub_busy, BUSY, B256, 0, s);
	cudaMemcpy(pageable, dev, 4, cudaMemcpyDeviceToHost);
	check(wall_since(hc) > 20000 && cudaStreamQuery(s) == cudaSuccess,
	      "cudaMemcpy on the legacy stream waits for a blocking stream");
	hc_nb = host_clock();
	launch((const void *)stub_busy, BUSY, B256, 0, nb);
	hc = host_clock();
	cudaMemcpy(pageable, dev, 4, cudaMemcpyDeviceToHost);
	check(own_since(hc) < 10000, "... but not for a non-blocking one");
	cudaStreamSynchronize(nb);
	check(wall_since(hc_nb) > 20000 && cudaStreamQuery(nb) == cudaSuccess,
	      "cudaStreamSynchronize waits for the stream's work");
	hc = host_clock();
	launch((const void *)stub_busy, BUSY, B256, 0, s);
	cudaFree(dev2);
	check(wall_since(hc) > 20000 && cudaStreamQuery(s) == cudaSuccess,
	      "cudaFree waits for the device");

	/* cudaHostRegister makes a malloc'd buffer pinned; unregistering makes it pageable again */
	check(cudaHostRegister(pageable, 1 << 20, 0) == cudaSuccess, "cudaHostRegister");
	c = (struct cargs){dev, pageable, 1 << 20, cudaMemcpyHostToDevice};
	check(near_ms(timed(s, run_copy, &c), 2000 + 41943), "registered buffer copies pinned");
	check(cudaHostRegister(pageable, 4096, 0) == cudaErrorHostMemoryAlreadyRegistered,
	      "registering twice fails");
	check(cudaHostUnregister(pageable) == cudaSuccess, "cudaHostUnregister");
	check(near_ms(timed_node(s, run_copy, &c), 2000 + 131072),
	      "unregistered buffer copies pageable");
	check(blocked_ms(timed_as(s, run_copy, &c, 1), 2000 + 131072),
	      "... and blocks until it has ended");
	cudaGetLastError();

	/* a stream waits for an event of another */
	{
		cudaEvent_t e, e3;
		cudaStream_t s3;

		cudaStreamCreate(&s3);
		cudaEventCreate(&e);
		cudaEventCreate(&e3);
		for (unsigned i = 0, busy = 20; i < TRIES; i++, busy *= 2) {
			launch_busy(nb, busy);
			cudaEventRecord(e, nb);
			cudaStreamWaitEvent(s3, e, 0);
			launch((const void *)stub_a, dim3_of(1, 1, 1), B256, 0, s3);
			cudaEventRecord(e3, s3);
			if (!host_late(e, busy))
				break;
		}
		cudaStreamSynchronize(s3);
		ms = -1;
		cudaEventElapsedTime(&ms, e, e3);
		check(near_ms(ms, 3000), "cudaStreamWaitEvent orders work after the event");
		cudaEventDestroy(e);
		cudaEventDestroy(e3);
		cudaStreamDestroy(s3);
	}
	cudaFree(dev);
	cudaFreeHost(pinned);
	cudaStreamDestroy(s);
	cudaStreamDestroy(nb);
	free(pageable);
}

static void test_memory(void)
{
	int *dev = NULL, in[4] = {1, 2, 3, 4}, out[4] = {0};
	struct cudaDeviceProp prop;
	cudaStream_t s;

	cudaStreamCreate(&s);
	check(cudaMalloc((void **)&dev, 4096) == cudaSuccess && dev, "cudaMalloc");
	cudaMemcpy(dev, in, sizeof(in), cudaMemcpyHostToDevice);
	cudaMemcpy(out, dev, sizeof(out), cudaMemcpyDeviceToHost);
	check(memcmp(in, out, sizeof(in)) == 0, "small copies move their bytes");
	cudaMemsetAsync(dev, 0xff, 8, s);
	cudaMemcpyAsync(out, dev, sizeof(out), cudaMemcpyDeviceToHost, s);
	cudaStreamSynchronize(s);
	check(out[0] == -1 && out[1] == -1 && out[2] == 3, "cudaMemsetAsync sets bytes");
	check(cudaMemcpy(in, in, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
	      "H2D to a host pointer: cudaErrorInvalidValue");
	check(cudaMemcpy(dev, in, 8192, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
	      "copy past the allocation's end: cudaErrorInvalidValue");
	check(cudaFree(in) == cudaErrorInvalidValue, "cudaFree of a host pointer fails");
	check(cudaFree(dev) == cudaSuccess, "cudaFree");
	check(cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.multiProcessorCount == 132,
	      "cudaGetDeviceProperties: 132 SMs");
	cudaGetLastError();
	cudaStreamDestroy(s);
}

/*
 * The device's capacity (80 GiB by default): cudaMemGetInfo's free bytes fall by what is
 * allocated and come back at its free; a request past them fails and allocates nothing; the
 * stream-ordered pool keeps a freed block (still charged) and hands it out again at the same
 * address, until cudaMemPoolTrimTo releases it.
 */
static void test_capacity(void)
{
	size_t free0 = 0, total = 0, free1 = 0, t1 = 0;
	void *p = NULL, *a = NULL, *b = NULL, *big = NULL;
	cudaMemPool_t pool = NULL;
	cudaStream_t s;

	cudaStreamCreate(&s);
	check(cudaMemGetInfo(&free0, &total) == cudaSuccess && total == (80ull << 30) &&
		  free0 <= total,
	      "cudaMemGetInfo: 80 GiB device");
	check(cudaMalloc(&p, 1 << 20) == cudaSuccess, "cudaMalloc 1 MiB");
	cudaMemGetInfo(&free1, &t1);
	check(free1 == free0 - (1 << 20) && t1 == total, "1 MiB allocated: 1 MiB less free");
	check(cudaMalloc(&big, free1 + 1) == cudaErrorMemoryAllocation && !big,
	      "past the free bytes: cudaErrorMemoryAllocation, nothing allocated");
	cudaGetLastError();
	cudaFree(p);
	cudaMemGetInfo(&free1, &t1);
	check(free1 == free0, "cudaFree gives the bytes back");
	check(cudaMallocAsync(&a, 3 << 20, s) == cudaSuccess && cudaFreeAsync(a, s) == cudaSuccess,
	      "cudaMallocAsync, cudaFreeAsync");
	cudaMemGetInfo(&free1, &t1);
	check(free1 == free0 - (3 << 20), "the pool keeps the freed block");
	check(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess &&
		  cudaMallocFromPoolAsync(&b, 3 << 20, pool, s) == cudaSuccess && b == a,
	      "the next block of that size is the same one");
	cudaMemGetInfo(&free1, &t1);
	check(free1 == free0 - (3 << 20), "reused: no new memory");
	cudaFreeAsync(b, s);
	check(cudaMemPoolTrimTo(pool, 0) == cudaSuccess, "cudaMemPoolTrimTo");
	cudaMemGetInfo(&free1, &t1);
	check(free1 == free0, "trimmed: the pool's block released");
	cudaStreamDestroy(s);
}

static void *current_device_of_new_thread(void *out)
{
	cudaGetDevice((int *)out);
	return NULL;
}

/*
 * Devices (GPUSIM_DEVICES, default 1): cudaSetDevice past the count fails; with two, the
 * current device is the calling thread's (a new thread starts at 0), each device has its own
 * capacity, cudaMemGetInfo answers for the current one, and a free gives the bytes back to the
 * device charged whatever the freeing thread's current device.
 */
static void test_devices(void)
{
	size_t free0 = 0, free1 = 0, f = 0, total = 0;
	int n = 0, d = -1, other = -1;
	void *p = NULL;
	pthread_t t;

	check(cudaGetDeviceCount(&n) == cudaSuccess && n >= 1, "cudaGetDeviceCount");
	check(cudaSetDevice(n) == cudaErrorInvalidDevice, "cudaSetDevice past the count fails");
	cudaGetLastError();
	check(cudaGetDevice(&d) == cudaSuccess && d == 0, "the current device is 0 at first");
	if (n < 2) {
		printf("# one device (GPUSIM_DEVICES=2 tests two)\n");
		return;
	}
	cudaMemGetInfo(&free0, &total);
	check(cudaSetDevice(1) == cudaSuccess && cudaGetDevice(&d) == cudaSuccess && d == 1,
	      "cudaSetDevice(1): the current device is 1");
	pthread_create(&t, NULL, current_device_of_new_thread, &other);
	pthread_join(t, NULL);
	check(other == 0, "a new thread's current device is 0");
	cudaMemGetInfo(&free1, &f);
	check(cudaMalloc(&p, 5 << 20) == cudaSuccess, "cudaMalloc 5 MiB on device 1");
	cudaMemGetInfo(&f, &total);
	check(f == free1 - (5 << 20), "device 1: 5 MiB less free");
	cudaSetDevice(0);
	cudaMemGetInfo(&f, &total);
	check(f == free0, "device 0: its free bytes unchanged");
	check(cudaFree(p) == cudaSuccess, "cudaFree from device 0 of device 1's memory");
	cudaSetDevice(1);
	cudaMemGetInfo(&f, &total);
	check(f == free1, "device 1's bytes given back");
	cudaSetDevice(0);
}

/* Lines of the launch log for kernel @name: kernels the simulator executed. */
static long log_count(const char *log, const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long n = 0;
	FILE *f = fopen(log, "r");

	while (f && fgets(line, sizeof(line), f))
		n += strncmp(line, name, len) == 0 && line[len] == ' ';
	if (f)
		fclose(f);
	return n;
}

static void run_graph(cudaStream_t s, void *arg)
{
	cudaGraphLaunch(*(cudaGraphExec_t *)arg, s);
}

/* 4 us, 6 us, 3 us of kernels and a 3 us memset, captured on s. */
static void capture_step(cudaStream_t s, void *dev)
{
	launch((const void *)stub_b, dim3_of(WAVE * 2, 1, 1), B256, 0, s);
	launch((const void *)stub_b, dim3_of(WAVE * 3, 1, 1), B256, 0, s);
	launch((const void *)stub_b, dim3_of(1, 1, 1), B256, 0, s);
	cudaMemsetAsync(dev, 0, 1000000, s); /* 2 us + 1 us at 1000 GB/s */
}

static void test_capture(const char *log)
{
	enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusInvalidated;
	cudaStream_t s, s2;
	cudaEvent_t fork, join;
	cudaGraph_t g = NULL, g2 = NULL;
	cudaGraphExec_t x = NULL, x2 = NULL;
	void *dev = NULL, *host = malloc(64);
	long before;
	float ms;

	/* non-blocking: the legacy stream's copies below do not delay it */
	cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	cudaStreamCreate(&s2);
	cudaEventCreate(&fork);
	cudaEventCreate(&join);
	cudaMalloc(&dev, 1 << 20);
	check(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) ==
		  cudaErrorStreamCaptureUnsupported,
	      "the legacy stream cannot be captured");

	before = log_count(log, "_Z5abi_bPfi");
	/* the capture queues nothing: events around it, behind busy work, see no device time (when
	 * the host recorded the second before the busy work ended; else again, behind more) */
	for (unsigned i = 0, busy = 20; i < TRIES; i++, busy *= 2) {
		int active, copied, ended;

		launch_busy(s, busy);
		cudaEventRecord(fork, s);
		cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
		capture_step(s, dev);
		active = cudaStreamIsCapturing(s, &st) == cudaSuccess &&
			 st == cudaStreamCaptureStatusActive;
		copied = cudaMemcpy(dev, host, 64, cudaMemcpyHostToDevice) == cudaSuccess;
		ended = cudaStreamEndCapture(s, &g) == cudaSuccess && g;
		cudaEventRecord(join, s);
		if (i + 1 < TRIES && host_late(fork, busy)) {
			cudaGraphDestroy(g);
			g = NULL;
			continue;
		}
		check(active, "cudaStreamIsCapturing: active");
		check(copied, "a synchronous copy on the legacy stream runs beside a capture");
		check(ended, "cudaStreamEndCapture: a graph");
		break;
	}
	cudaEventSynchronize(join);
	ms = -1;
	cudaEventElapsedTime(&ms, fork, join);
	check(near_ms(ms, 0), "captured work takes no device time when captured");
	check(log_count(log, "_Z5abi_bPfi") == before, "captured launches do not execute");
	check(cudaStreamIsCapturing(s, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone,
	      "cudaStreamIsCapturing: none after the end");
	check(cudaGraphInstantiate(&x, g, 0) == cudaSuccess, "cudaGraphInstantiate");
	ms = timed(s, run_graph, &x);
	check(near_ms(ms, 16000), "a graph launch takes its nodes' times (4 + 6 + 3 + 3 us)");
	for (int i = 0; i < 4; i++)
		run_graph(s, &x);
	cudaStreamSynchronize(s);
	check(log_count(log, "_Z5abi_bPfi") == before + 15,
	      "5 graph launches execute 3 kernels each: 15");

	/* s2 joins the capture through an event recorded on s, and rejoins through another */
	before = log_count(log, "_Z5abi_bPfi");
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	cudaEventRecord(fork, s);
	cudaStreamWaitEvent(s2, fork, 0);
	check(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusActive,
	      "a stream waiting on an event recorded in a capture joins it");
	launch((const void *)stub_b, dim3_of(WAVE * 2, 1, 1), B256, 0, s2);
	launch((const void *)stub_b, dim3_of(1, 1, 1), B256, 0, s);
	cudaEventRecord(join, s2);
	cudaStreamWaitEvent(s, join, 0);
	check(cudaMemcpy(dev, host, 64, cudaMemcpyHostToDevice) == cudaSuccess &&
		  log_count(log, "_Z5abi_bPfi") == before,
	      "launches on a joined stream do not execute");
	check(cudaStreamEndCapture(s2, &g2) == cudaErrorStreamCaptureUnmatched,
	      "only the origin stream ends a capture");
	check(cudaStreamEndCapture(s, &g2) == cudaSuccess, "end of the joined capture");
	check(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone,
	      "the joined stream stops capturing with its capture");
	cudaGraphInstantiateWithFlags(&x2, g2, 0);
	ms = timed(s, run_graph, &x2);
	check(near_ms(ms, 7000), "joined capture: both streams' nodes run (4 + 3 us)");
	check(log_count(log, "_Z5abi_bPfi") == before + 2, "joined capture: 2 kernels per launch");

	check(cudaGraphExecDestroy(x) == cudaSuccess && cudaGraphExecDestroy(x2) == cudaSuccess,
	      "cudaGraphExecDestroy");
	check(cudaGraphDestroy(g) == cudaSuccess && cudaGraphDestroy(g2) == cudaSuccess,
	      "cudaGraphDestroy");
	check(cudaGraphLaunch(x, s) == cudaErrorInvalidValue, "a destroyed executable graph fails");
	cudaFree(dev);
	free(host);
	cudaEventDestroy(fork);
	cudaEventDestroy(join);
	cudaStreamDestroy(s);
	cudaStreamDestroy(s2);
}

static struct cudaKernelNodeParams kparams(const void *f, unsigned blocks)
{
	struct cudaKernelNodeParams p = {0};

	p.func = (void *)f;
	p.gridDim = dim3_of(blocks, 1, 1);
	p.blockDim = B256;
	return p;
}

static void test_graph_building(const char *log)
{
	cudaGraph_t g = NULL, child = NULL, clone = NULL;
	cudaGraphExec_t x = NULL;
	cudaGraphNode_t k1 = NULL, cp = NULL, ch = NULL, inner = NULL, extra = NULL;
	cudaGraphExecUpdateResultInfo info;
	struct cudaKernelNodeParams p = kparams((const void *)stub_b, WAVE * 2);
	cudaStream_t s;
	void *a = NULL, *b = NULL;
	long before;
	float ms;

	cudaStreamCreate(&s);
	cudaMalloc(&a, 1 << 20);
	cudaMalloc(&b, 1 << 20);
	check(cudaGraphCreate(&g, 0) == cudaSuccess && cudaGraphCreate(&child, 0) == cudaSuccess,
	      "cudaGraphCreate");
	check(cudaGraphAddKernelNode(&k1, g, NULL, 0, &p) == cudaSuccess && k1,
	      "cudaGraphAddKernelNode");
	check(cudaGraphAddMemcpyNode1D(&cp, g, &k1, 1, b, a, 1000000, cudaMemcpyDeviceToDevice) ==
		  cudaSuccess,
	      "cudaGraphAddMemcpyNode1D");
	p = kparams((const void *)stub_b, 1);
	check(cudaGraphAddKernelNode(&inner, child, NULL, 0, &p) == cudaSuccess,
	      "a kernel node in the child graph");
	check(cudaGraphAddChildGraphNode(&ch, g, &cp, 1, child) == cudaSuccess,
	      "cudaGraphAddChildGraphNode");
	p.func = (void *)&p; /* not a kernel */
	check(cudaGraphAddKernelNode(&extra, g, NULL, 0, &p) == cudaErrorInvalidDeviceFunction,
	      "a kernel node of an unknown kernel fails");
	check(cudaGraphInstantiateWithFlags(&x, g, 0) == cudaSuccess,
	      "instantiate the built graph");
	before = log_count(log, "_Z5abi_bPfi");
	ms = timed(s, run_graph, &x);
	check(near_ms(ms, 10000), "built graph: 4 us kernel + 3 us copy + 3 us child kernel");
	check(log_count(log, "_Z5abi_bPfi") == before + 2, "built graph: 2 kernels per launch");

	/* set-params on the graph leaves the executable graph alone until an update */
	p = kparams((const void *)stub_b, WAVE * 5);
	check(cudaGraphKernelNodeSetParams(k1, &p) == cudaSuccess, "cudaGraphKernelNodeSetParams");
	ms = timed(s, run_graph, &x);
	check(near_ms(ms, 10000), "graph set-params does not change the executable graph");
	check(cudaGraphExecUpdate(x, g, &info) == cudaSuccess &&
		  info.result == cudaGraphExecUpdateSuccess,
	      "cudaGraphExecUpdate");
	ms = timed(s, run_graph, &x);
	check(near_ms(ms, 16000), "after the update: 10 us kernel + 3 + 3");
	p = kparams((const void *)stub_b, 1);
	check(cudaGraphExecKernelNodeSetParams(x, k1, &p) == cudaSuccess,
	      "cudaGraphExecKernelNodeSetParams");
	ms = timed(s, run_graph, &x);
	check(near_ms(ms, 9000), "exec set-params: 3 us kernel + 3 + 3");
	check(cudaGraphClone(&clone, g) == cudaSuccess, "cudaGraphClone");
	check(cudaGraphAddEmptyNode(&extra, clone, NULL, 0) == cudaSuccess,
	      "cudaGraphAddEmptyNode");
	check(cudaGraphExecUpdate(x, clone, &info) == cudaErrorGraphExecUpdateFailure &&
		  info.result == cudaGraphExecUpdateErrorTopologyChanged,
	      "an update to another topology fails");
	ms = timed(s, run_graph, &x);
	check(near_ms(ms, 9000), "a failed update leaves the executable graph as it was");

	cudaGraphExecDestroy(x);
	cudaGraphDestroy(clone);
	cudaGraphDestroy(child);
	cudaGraphDestroy(g);
	cudaFree(a);
	cudaFree(b);
	cudaStreamDestroy(s);
}

static void test_queue_depth(void)
{
	struct host_clock hc;
	cudaEvent_t busy_done;
	cudaStream_t s;
	double t;

	cudaStreamCreate(&s);
	cudaEventCreate(&busy_done);
	/* 20 ms of work, then more launches than a stream holds: the 1023rd after the busy work and
	 * its event waits for the busy work, the oldest, to finish */
	hc = host_clock();
	launch((const void *)stub_busy, BUSY, B256, 0, s);
	cudaEventRecord(busy_done, s);
	for (int i = 0; i < 1100; i++)
		launch((const void *)stub_a, dim3_of(1, 1, 1), B256, 0, s);
	t = wall_since(hc);
	printf("# 1100 launches behind 20 ms of work: %.0f us\n", t);
	check(t > 20000 && cudaEventQuery(busy_done) == cudaSuccess,
	      "a full queue blocks the launching thread until the oldest work is done");
	cudaEventDestroy(busy_done);
	cudaStreamSynchronize(s);
	cudaStreamDestroy(s);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/gpusim-log.XXXXXX";
	const char *log = argc > 1 ? argv[1] : NULL;

	if (!log) {
		int fd = mkstemp(tmp);

		if (fd < 0) {
			perror("mkstemp");
			return 1;
		}
		close(fd);
		log = tmp;
	} else {
		unlink(log);
	}
	/* read lazily, at the first launch */
	setenv("GPUSIM_LOG", log, 1);
	check(dlsym(RTLD_DEFAULT, "gpusim_simulator") != NULL,
	      "running on the simulator (gpusim_simulator exported)");
	register_kernels();
	test_model();
	test_memory();
	test_capacity();
	test_devices();
	test_queue_depth();
	test_capture(log);
	test_graph_building(log);
	/* last: its largest grid keeps the simulated device busy for days */
	test_abi(log);
	if (log == tmp)
		unlink(tmp);
	return failures ? 1 : 0;
}
