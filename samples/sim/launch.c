/* SPDX-License-Identifier: MIT */
/*
 * gpusim launches: module and kernel registration (what nvcc's static constructors call), the
 * <<<>>> call-configuration stack, every launch entry point, and the launch log.
 *
 * GPUSIM_LOG=path appends one line per launch the simulator accepted, written with one write()
 * so threads and processes can share the file:
 *     <device name> <grid.x>,<grid.y>,<grid.z> <block.x>,<block.y>,<block.z> <shmem> <stream>
 * The name is the one registered by __cudaRegisterFunction (mangled for C++ kernels), shmem
 * the dynamic shared memory in bytes, stream the handle as the program passed it (0x0 for the
 * default stream). Rejected launches (bad configuration, unknown kernel or stream) are not
 * logged.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpusim.h"

struct sim_kernel {
	const void *host_fun; /* the host stub nvcc generated: what programs pass to launch */
	const char *name;     /* device-side (mangled) name */
	void **module;
};

/* Open-addressing map from a pointer (host stub or kernel handle) to its kernel. */
struct kmap {
	const void **keys;
	struct sim_kernel **vals;
	size_t cap, n;
};

static struct kmap by_stub, by_handle;

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static struct sim_kernel *kmap_get(const struct kmap *m, const void *key)
{
	if (!m->cap || !key)
		return NULL;
	for (size_t i = ptr_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int kmap_put(struct kmap *m, const void *key, struct sim_kernel *val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct kmap big = {.cap = m->cap ? 2 * m->cap : 64};

		big.keys = calloc(big.cap, sizeof(*big.keys));
		big.vals = calloc(big.cap, sizeof(*big.vals));
		if (!big.keys || !big.vals) {
			free(big.keys);
			free(big.vals);
			return -1;
		}
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				kmap_put(&big, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	for (i = ptr_hash(key, m->cap); m->keys[i] && m->keys[i] != key; i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

/* A host stub or a cudaKernel_t handle: launch entry points accept either, as CUDA 12+ does. */
static struct sim_kernel *kernel_get(const void *func)
{
	struct sim_kernel *k;

	sim_lock();
	k = kmap_get(&by_stub, func);
	if (!k)
		k = kmap_get(&by_handle, func);
	sim_unlock();
	return k;
}

struct sim_kernel *sim_kernel_of(const void *func)
{
	return kernel_get(func);
}

/* --- registration --- */

void **__cudaRegisterFatBinary(void *fatCubin)
{
	void **handle = malloc(sizeof(*handle));

	if (handle)
		*handle = fatCubin;
	return handle;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
}

/* Kernels stay registered: a handle a program cached must never dangle. */
void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
}

char __cudaInitModule(void **fatCubinHandle)
{
	return 1;
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize)
{
	struct sim_kernel *k = calloc(1, sizeof(*k));

	if (!k)
		return;
	k->host_fun = hostFun;
	k->name = deviceName ? deviceName : deviceFun;
	k->module = fatCubinHandle;
	sim_lock();
	/* out of memory leaves the kernel unknown (its launches fail), never half-known */
	if (kmap_put(&by_stub, hostFun, k) == 0 && kmap_put(&by_handle, k, k) != 0)
		kmap_put(&by_stub, hostFun, NULL);
	sim_unlock();
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size, int constant, int global)
{
}

/*
 * Without a driver the real runtime hands out the host stub itself as the cudaKernel_t (seen
 * with 13.0), so that is the default here too: a recorder sees the same values on both.
 * GPUSIM_OPAQUE_HANDLES=1 hands out handles unrelated to the stubs instead, as a driver does,
 * to test the code that maps them back to kernels.
 */
static int opaque_handles(void)
{
	static int opaque = -1;

	if (opaque < 0) {
		const char *v = getenv("GPUSIM_OPAQUE_HANDLES");

		opaque = v && *v && strcmp(v, "0") != 0;
	}
	return opaque;
}

static cudaError_t get_kernel(cudaKernel_t *out, const void *func)
{
	struct sim_kernel *k = kernel_get(func);

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	if (!k)
		return sim_fail(cudaErrorInvalidDeviceFunction);
	*out = (cudaKernel_t)(opaque_handles() ? (const void *)k : k->host_fun);
	return cudaSuccess;
}

/* nvcc 13's <<<>>> calls this once per launch site, then launches the handle. */
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
	return get_kernel(kernel, func);
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
	return get_kernel(kernelPtr, entryFuncAddr);
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
	struct sim_kernel *k = kernel_get(func);

	if (!name)
		return sim_fail(cudaErrorInvalidValue);
	if (!k)
		return sim_fail(cudaErrorInvalidDeviceFunction);
	*name = k->name;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	return kernel_get(func) ? cudaSuccess : sim_fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
	return kernel_get(func) ? cudaSuccess : sim_fail(cudaErrorInvalidDeviceFunction);
}

/* --- <<<>>> configuration: pushed by the caller, popped by the stub nvcc generated --- */

#define CONFIG_DEPTH 16 /* a launch inside a launch's arguments nests */

struct call_config {
	dim3 grid, block;
	size_t shmem;
	cudaStream_t stream;
};

static __thread struct call_config configs[CONFIG_DEPTH];
static __thread int nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
				     struct CUstream_st *stream)
{
	if (nconfigs == CONFIG_DEPTH)
		return 1; /* non-zero: the <<<>>> expression skips the launch */
	configs[nconfigs++] = (struct call_config){gridDim, blockDim, sharedMem, stream};
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
				       void *stream)
{
	struct call_config *c;

	if (!nconfigs)
		return sim_fail(cudaErrorMissingConfiguration);
	c = &configs[--nconfigs];
	*gridDim = c->grid;
	*blockDim = c->block;
	*sharedMem = c->shmem;
	*(cudaStream_t *)stream = c->stream;
	return cudaSuccess;
}

/* --- launches --- */

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static int log_fd = -1;

static void log_open(void)
{
	const char *path = getenv("GPUSIM_LOG");

	if (path && *path)
		log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

void sim_log_launch(const struct sim_kernel *k, dim3 g, dim3 b, size_t shmem, cudaStream_t stream)
{
	char line[1024];
	int n;

	pthread_once(&log_once, log_open);
	if (log_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %u,%u,%u %u,%u,%u %zu 0x%lx\n", k->name, g.x, g.y, g.z,
		     b.x, b.y, b.z, shmem, (unsigned long)(uintptr_t)stream);
	if (n > 0 && (size_t)n < sizeof(line) && write(log_fd, line, (size_t)n) < 0)
		return; /* the log is best effort; the launch itself succeeded */
}

cudaError_t sim_check_config(dim3 g, dim3 b, size_t shmem)
{
	uint64_t threads = (uint64_t)b.x * b.y * b.z;

	if (!g.x || !g.y || !g.z || !threads)
		return cudaErrorInvalidConfiguration;
	if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
		return cudaErrorInvalidConfiguration;
	if (b.x > 1024 || b.y > 1024 || b.z > 64 || threads > 1024)
		return cudaErrorInvalidConfiguration;
	return cudaSuccess;
}

static cudaError_t launch(struct sim_kernel *k, dim3 grid, dim3 block, size_t shmem,
			  cudaStream_t stream, int per_thread)
{
	uint64_t t0 = sim_now(), end;
	struct sim_node node = {.type = SIM_NODE_KERNEL};
	cudaError_t err;
	int captured;

	if (!k)
		return sim_fail(cudaErrorInvalidDeviceFunction);
	err = sim_check_config(grid, block, shmem);
	if (err)
		return sim_fail(err);
	node.kernel = k;
	node.grid = grid;
	node.block = block;
	node.shmem = shmem;
	node.dur = sim_kernel_ns(grid, block, shmem);
	/* on a capturing stream the launch becomes a node: it runs (and is logged) per graph launch
	 */
	err = sim_capture(stream, per_thread, &node, &captured);
	if (err)
		return sim_fail(err);
	if (captured) {
		sim_spin_until(t0 + sim_launch_ns);
		return cudaSuccess;
	}
	err = sim_submit(stream, per_thread, t0 + sim_launch_ns, node.dur, &end);
	if (err)
		return sim_fail(err);
	sim_log_launch(k, grid, block, shmem, stream);
	sim_spin_until(t0 + sim_launch_ns);
	return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
			     size_t sharedMem, cudaStream_t stream)
{
	return launch(kernel_get(func), gridDim, blockDim, sharedMem, stream, 0);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				  size_t sharedMem, cudaStream_t stream)
{
	return launch(kernel_get(func), gridDim, blockDim, sharedMem, stream, 1);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
			       size_t sharedMem, cudaStream_t stream)
{
	return launch(kernel_get(kernel), gridDim, blockDim, sharedMem, stream, 0);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
				    size_t sharedMem, cudaStream_t stream)
{
	return launch(kernel_get(kernel), gridDim, blockDim, sharedMem, stream, 1);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
					size_t sharedMem, cudaStream_t stream)
{
	return launch(kernel_get(func), gridDim, blockDim, sharedMem, stream, 0);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
					     void **args, size_t sharedMem, cudaStream_t stream)
{
	return launch(kernel_get(func), gridDim, blockDim, sharedMem, stream, 1);
}

static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, int per_thread)
{
	if (!config)
		return sim_fail(cudaErrorInvalidValue);
	/* attributes (clusters, priorities, ...) do not change the model */
	return launch(kernel_get(func), config->gridDim, config->blockDim, config->dynamicSmemBytes,
		      config->stream, per_thread);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
	return launch_ex(config, func, 0);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
				     void **args)
{
	return launch_ex(config, func, 1);
}
