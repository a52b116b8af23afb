/* SPDX-License-Identifier: MIT */
/*
 * gpusim: a GPU SIMULATOR standing in for libcudart.so.13. It is a test fixture, not a device:
 * kernels never execute, and every time below is a model. Same soname, same symbol names and
 * the same version node (libcudart.so.13) as the toolkit's runtime, so a program built with
 * `nvcc -cudart shared` runs on it when LD_LIBRARY_PATH names this library's directory.
 * GPUSIM_VERBOSE=1 says so on stderr; the exported gpusim_simulator string says so to tools.
 *
 * Time model. One simulated device; times are CLOCK_MONOTONIC ns, so the virtual GPU clock and
 * the host share one timeline and a profiler's timestamps can be compared with the model.
 *
 *  - Every stream is a FIFO of operations, each [start, end) on the virtual clock:
 *        start = max(ready, end of the stream's previous operation, dependencies)
 *        end   = start + duration
 *    where ready = entry of the API call that queued it + that call's host cost. Dependencies
 *    are the legacy default stream's rules: an operation on the legacy stream waits for every
 *    blocking stream, and one on a blocking stream (created without cudaStreamNonBlocking, or a
 *    per-thread default stream) waits for the legacy one. Streams otherwise overlap freely
 *    (concurrent kernels and copy engines are not contended). A stream holds at most
 *    SIM_QUEUE_DEPTH (1024) unfinished operations; a call that queues one more blocks until
 *    the oldest finishes, as with a full launch queue.
 *  - Host cost: a successful call busy-waits until LAUNCH_NS (launches), API_NS (copies,
 *    memsets, event records, stream waits, stream and event create/destroy) or ALLOC_NS
 *    (allocations, frees, host registration) after its entry. Synchronising calls return at
 *    max(completion, entry + SYNC_NS). Queries and failed calls cost nothing extra.
 *  - Kernel: resident = min(MAX_BLOCKS_PER_SM, MAX_THREADS_PER_SM / threads per block,
 *    SHMEM_PER_SM / dynamic shared memory), at least 1; waves = ceil(blocks / (sms x
 *    resident)); duration = max(KERNEL_MIN_NS, waves x WAVE_NS). The kernel's code is ignored.
 *  - Copy: duration = COPY_LATENCY_NS + bytes / bandwidth: PINNED_BW when the host buffer lies
 *    inside a range from cudaMallocHost, cudaHostAlloc or cudaHostRegister, PAGEABLE_BW for any
 *    other host buffer and for host-to-host, DEVICE_BW for device-to-device. cudaMemset and
 *    cudaMemsetAsync take the device-to-device time of their byte count.
 *  - Blocking, as the CUDA documentation describes it: cudaMemcpy returns when its copy has
 *    completed, which is after everything queued before it, except device-to-device copies,
 *    which return after API_NS. cudaMemcpyAsync returns after API_NS, except through a pageable
 *    host buffer (or host to host): the CPU stages those, so the call returns only when the copy
 *    has completed. cudaMemset(Async) never blocks. cudaFree and cudaFreeHost first wait for
 *    the whole device. Waits sleep, then spin the last SPIN_SLACK_NS, and so return within a
 *    few us of the completion time.
 *  - Graphs (graph.c): work issued to a capturing stream becomes a graph node with its modelled
 *    duration instead of being queued; a graph launch queues its nodes as one operation lasting
 *    the sum of their durations (in order, no parallel branches) and costs LAUNCH_NS.
 *  - Data: device memory is host memory. Copies and memsets of at most GPUSIM_DATA_MAX bytes
 *    (default 64 KiB) move their bytes when called, so small read-backs see real values. Larger
 *    ones are timed but move nothing: a host memcpy of 16 MiB takes longer than the modelled
 *    25 GB/s DMA, so doing it would break the timing of the calls the model is about.
 *  - A device pointer outside every allocation, or a stream, event or kernel the simulator does
 *    not know, fails with the runtime's error code. Host pointers are trusted, as the real
 *    runtime trusts them.
 *
 * Environment: GPUSIM_VERBOSE=1 (banner and unsimulated calls on stderr), GPUSIM_LOG=path (one
 * line per accepted launch, see launch.c), GPUSIM_DATA_MAX=bytes, GPUSIM_OPAQUE_HANDLES=1
 * (kernel handles unlike host stubs, see launch.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#include "gpusim.h"

#define NS_PER_S 1000000000ull

/* Host cost of API calls. */
#define LAUNCH_NS 5000ull  /* a launch call on a fast driver path */
#define API_NS	  2000ull  /* any other call that queues work */
#define SYNC_NS	  1000ull  /* least time a synchronising call takes */
#define ALLOC_NS  10000ull /* cudaMalloc, cudaFree, pinned host memory */

/* The device: an H100 SXM as far as the model needs one. */
#define DEFAULT_SMS	   132		    /* streaming multiprocessors, unless GPUSIM_SMS */
#define MAX_THREADS_PER_SM 2048		    /* resident threads per SM */
#define MAX_BLOCKS_PER_SM  32		    /* resident blocks per SM */
#define SHMEM_PER_SM	   (228u << 10)	    /* shared memory per SM, bytes */
#define WAVE_NS		   2000ull	    /* one wave of resident blocks */
#define KERNEL_MIN_NS	   3000ull	    /* floor: launch latency of the smallest kernel */
#define COPY_LATENCY_NS	   2000ull	    /* DMA setup per copy or memset */
#define PINNED_BW	   25000000000ull   /* B/s, host <-> device, page-locked host memory */
#define PAGEABLE_BW	   8000000000ull    /* B/s, through a pageable host buffer */
#define DEVICE_BW	   1000000000000ull /* B/s, device <-> device copy and memset */
#define SPIN_SLACK_NS	   200000ull	    /* waits spin their last 200 us: sleeps overshoot */

const uint64_t sim_launch_ns = LAUNCH_NS;
const uint64_t sim_api_ns = API_NS;
const uint64_t sim_sync_ns = SYNC_NS;
const uint64_t sim_alloc_ns = ALLOC_NS;

/* Exported markers: tools and tests can tell the simulator from the real runtime. */
const char gpusim_simulator[] = "gpusim: simulated GPU (not a real device)";

int gpusim_is_simulator(void)
{
	return 1;
}

static int verbose;
static uint64_t sms = DEFAULT_SMS; /* GPUSIM_SMS: what the device reports and the model uses */
static __thread cudaError_t last_error;
/* GPUSIM_DEVICES: how many devices cudaGetDeviceCount reports (memory.c keeps each one's bytes) */
static int ndevices = 1;
/* the calling thread's current device: its last successful cudaSetDevice; a new thread has 0 */
static __thread int current_device;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((constructor)) static void sim_init(void)
{
	const char *v = getenv("GPUSIM_VERBOSE");

	verbose = v && *v && strcmp(v, "0") != 0;
	v = getenv("GPUSIM_SMS");
	if (v && *v) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);

		if (*end || n < 1 || n > 100000)
			fprintf(stderr,
				"gpusim: GPUSIM_SMS=%s is not an SM count (1..100000): "
				"using %d\n",
				v, DEFAULT_SMS);
		else
			sms = n;
	}
	v = getenv("GPUSIM_DEVICES");
	if (v && *v) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);

		if (*end || n < 1 || n > SIM_MAX_DEVICES)
			fprintf(
			    stderr,
			    "gpusim: GPUSIM_DEVICES=%s is not a device count (1..%d): using 1\n", v,
			    SIM_MAX_DEVICES);
		else
			ndevices = (int)n;
	}
	if (verbose)
		fprintf(stderr, "%s\n", gpusim_simulator);
}

int sim_device_count(void)
{
	return ndevices;
}

int sim_current_device(void)
{
	return current_device;
}

void sim_lock(void)
{
	pthread_mutex_lock(&state_lock);
}

void sim_unlock(void)
{
	pthread_mutex_unlock(&state_lock);
}

uint64_t sim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

void sim_spin_until(uint64_t t)
{
	while (sim_now() < t) {
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile("pause");
#endif
	}
}

void sim_wait_until(uint64_t t)
{
	uint64_t now = sim_now();

	/* Sleep through long waits (the thread shows as blocked, as in a blocking sync), but spin
	 * the end: a sleep here overshoots by tens of us, more than the model's resolution. */
	if (t > now + SPIN_SLACK_NS) {
		uint64_t wake = t - SPIN_SLACK_NS;
		struct timespec ts = {.tv_sec = wake / NS_PER_S, .tv_nsec = wake % NS_PER_S};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	sim_spin_until(t);
}

uint64_t sim_kernel_ns(dim3 grid, dim3 block, size_t shmem)
{
	uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
	uint64_t threads = (uint64_t)block.x * block.y * block.z;
	uint64_t resident = MAX_BLOCKS_PER_SM, slots, waves;

	if (threads && MAX_THREADS_PER_SM / threads < resident)
		resident = MAX_THREADS_PER_SM / threads;
	if (shmem && SHMEM_PER_SM / shmem < resident)
		resident = SHMEM_PER_SM / shmem;
	if (resident == 0)
		resident = 1;
	slots = sms * resident;
	waves = (blocks + slots - 1) / slots;
	return waves * WAVE_NS > KERNEL_MIN_NS ? waves * WAVE_NS : KERNEL_MIN_NS;
}

uint64_t sim_copy_ns(size_t bytes, enum sim_path path)
{
	uint64_t bw = path == SIM_PINNED     ? PINNED_BW
		      : path == SIM_PAGEABLE ? PAGEABLE_BW
					     : DEVICE_BW;

	/* bytes * 1e9 overflows past 16 GiB; split to stay exact below that and safe above */
	return COPY_LATENCY_NS + (uint64_t)bytes / bw * NS_PER_S +
	       (uint64_t)bytes % bw * NS_PER_S / bw;
}

cudaError_t sim_fail(cudaError_t err)
{
	if (err != cudaSuccess)
		last_error = err;
	return err;
}

cudaError_t cudaGetLastError(void)
{
	cudaError_t err = last_error;

	last_error = cudaSuccess;
	return err;
}

cudaError_t cudaPeekAtLastError(void)
{
	return last_error;
}

static const struct {
	cudaError_t err;
	const char *name, *text;
} errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const char *cudaGetErrorName(cudaError_t error)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].err == error)
			return errors[i].name;
	return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].err == error)
			return errors[i].text;
	return "unrecognized error code";
}

/* --- the devices (GPUSIM_DEVICES, each with its own memory; one time model for all) --- */

cudaError_t cudaGetDeviceCount(int *count)
{
	if (!count)
		return sim_fail(cudaErrorInvalidValue);
	*count = ndevices;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	if (!device)
		return sim_fail(cudaErrorInvalidValue);
	*device = current_device;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	if (device < 0 || device >= ndevices)
		return sim_fail(cudaErrorInvalidDevice);
	current_device = device;
	return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
	return device >= 0 && device < ndevices ? cudaSuccess : sim_fail(cudaErrorInvalidDevice);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	if (!flags)
		return sim_fail(cudaErrorInvalidValue);
	*flags = 0;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
	if (!version)
		return sim_fail(cudaErrorInvalidValue);
	*version = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
	if (!version)
		return sim_fail(cudaErrorInvalidValue);
	*version = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	uint64_t free_bytes, total;

	if (!prop)
		return sim_fail(cudaErrorInvalidValue);
	if (device < 0 || device >= ndevices)
		return sim_fail(cudaErrorInvalidDevice);
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "gpusim simulated GPU (simulator, not a device)");
	gpusim_mem_info_of(device, &free_bytes, &total);
	prop->totalGlobalMem = total;
	prop->sharedMemPerBlock = 48 << 10;
	prop->sharedMemPerBlockOptin = 227 << 10;
	prop->sharedMemPerMultiprocessor = SHMEM_PER_SM;
	prop->regsPerBlock = 65536;
	prop->regsPerMultiprocessor = 65536;
	prop->warpSize = 32;
	prop->maxThreadsPerBlock = 1024;
	prop->maxThreadsDim[0] = 1024;
	prop->maxThreadsDim[1] = 1024;
	prop->maxThreadsDim[2] = 64;
	prop->maxGridSize[0] = 0x7fffffff;
	prop->maxGridSize[1] = 65535;
	prop->maxGridSize[2] = 65535;
	prop->totalConstMem = 64 << 10;
	prop->major = 9;
	prop->minor = 0;
	prop->multiProcessorCount = (int)sms;
	prop->maxThreadsPerMultiProcessor = MAX_THREADS_PER_SM;
	prop->maxBlocksPerMultiProcessor = MAX_BLOCKS_PER_SM;
	prop->concurrentKernels = 1;
	prop->asyncEngineCount = 2;
	prop->unifiedAddressing = 1;
	prop->canMapHostMemory = 1;
	prop->hostRegisterSupported = 1;
	prop->memoryPoolsSupported = 1;
	prop->l2CacheSize = 50 << 20;
	prop->memoryBusWidth = 5120;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	if (!value)
		return sim_fail(cudaErrorInvalidValue);
	if (device < 0 || device >= ndevices)
		return sim_fail(cudaErrorInvalidDevice);
	switch (attr) {
	case cudaDevAttrMultiProcessorCount:
		*value = (int)sms;
		break;
	case cudaDevAttrMaxThreadsPerBlock:
	case cudaDevAttrMaxBlockDimX:
	case cudaDevAttrMaxBlockDimY:
		*value = 1024;
		break;
	case cudaDevAttrMaxBlockDimZ:
		*value = 64;
		break;
	case cudaDevAttrMaxGridDimX:
		*value = 0x7fffffff;
		break;
	case cudaDevAttrMaxGridDimY:
	case cudaDevAttrMaxGridDimZ:
		*value = 65535;
		break;
	case cudaDevAttrWarpSize:
		*value = 32;
		break;
	case cudaDevAttrMaxSharedMemoryPerBlock:
		*value = 48 << 10;
		break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin:
		*value = 227 << 10;
		break;
	case cudaDevAttrMaxThreadsPerMultiProcessor:
		*value = MAX_THREADS_PER_SM;
		break;
	case cudaDevAttrComputeCapabilityMajor:
		*value = 9;
		break;
	case cudaDevAttrComputeCapabilityMinor:
		*value = 0;
		break;
	case cudaDevAttrConcurrentKernels:
	case cudaDevAttrUnifiedAddressing:
		*value = 1;
		break;
	case cudaDevAttrAsyncEngineCount:
		*value = 2;
		break;
	default:
		return sim_fail(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
	if (!free || !total)
		return sim_fail(cudaErrorInvalidValue);
	uint64_t f, t;

	gpusim_mem_info(&f, &t);
	*free = f;
	*total = t;
	return cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
	sim_wait_until(sim_device_tail());
	sim_memory_reset();
	last_error = cudaSuccess;
	return cudaSuccess;
}

/* --- entry points the simulator does not model (stubs.c) --- */

int sim_unsupported(const char *name)
{
	if (verbose)
		fprintf(stderr, "gpusim: %s is not simulated\n", name);
	return sim_fail(cudaErrorNotSupported);
}

/* Returned by value, 20 bytes: in memory through a hidden pointer, so it cannot be a stub. */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
						   enum cudaChannelFormatKind f)
{
	return (struct cudaChannelFormatDesc){.x = x, .y = y, .z = z, .w = w, .f = f};
}
