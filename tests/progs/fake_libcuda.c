/*
 * A stand-in for the CUDA driver (libcuda.so.1) with the real ABI, for tests on machines
 * without a GPU: lookups return handles, launches and copies return success and do nothing.
 * It also exports a cudaLaunchKernel and a cudaMemcpy that call into the driver entry points,
 * as the real runtime does, so tests can check that such a launch is counted once, also when
 * the runtime takes long to reach the driver or fails before it.
 * Test fixture only: not a driver.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
struct fake_fn {
	char name[64];
};
static struct fake_fn functions[16];
static int nfunctions;

static void *lookup(const char *name)
{
	for (int i = 0; i < nfunctions; i++)
		if (!strcmp(functions[i].name, name))
			return &functions[i];
	if (nfunctions == 16)
		return NULL;
	strncpy(functions[nfunctions].name, name, sizeof(functions[0].name) - 1);
	return &functions[nfunctions++];
}

CUresult cuInit(unsigned flags)
{
	return 0;
}

CUresult cuModuleGetFunction(void **f, void *module, const char *name)
{
	*f = lookup(name);
	return *f ? 0 : 500;
}

CUresult cuLibraryGetKernel(void **k, void *library, const char *name)
{
	*k = lookup(name);
	return *k ? 0 : 500;
}

/* A CUfunction distinct from the CUkernel it comes from, as in the real driver. */
CUresult cuKernelGetFunction(void **f, void *kernel)
{
	*f = (char *)kernel + 1;
	return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			unsigned bz, unsigned shmem, void *stream, void **params, void **extra)
{
	return 0;
}

CUresult cuLaunchKernelEx(const void *config, void *f, void **params, void **extra)
{
	return 0;
}

CUresult cuMemAlloc_v2(uint64_t *dptr, size_t bytes)
{
	*dptr = 0x7e0000000000ull;
	return 0;
}

CUresult cuMemFree_v2(uint64_t dptr)
{
	return 0;
}

CUresult cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes)
{
	return 0;
}

CUresult cuCtxSynchronize(void)
{
	return 0;
}

/* The runtime side, reaching the driver as libcudart does. */
typedef struct {
	unsigned x, y, z;
} dim3;

CUresult (*volatile driver_launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
				   unsigned, unsigned, void *, void **, void **) = cuLaunchKernel;
CUresult (*volatile driver_htod)(uint64_t, const void *, size_t) = cuMemcpyHtoD_v2;

/* Runtime-style launches of two stand-in functions behave as the real runtime can: SLOW_FUNC
 * spends 3 ms before it reaches the driver (CUPTI's first callback on a thread, lazy module
 * loading), a null function fails before it (cudaErrorInvalidDeviceFunction). */
#define SLOW_FUNC ((const void *)0x5107)

int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
		     void *stream)
{
	if (!func)
		return 98;
	if (func == SLOW_FUNC)
		nanosleep(&(struct timespec){.tv_nsec = 3000000}, NULL);
	return driver_launch((void *)func, grid.x, grid.y, grid.z, block.x, block.y, block.z,
			     (unsigned)shmem, stream, args, NULL);
}

int cudaMemcpy(void *dst, const void *src, size_t bytes, int kind)
{
	return driver_htod((uint64_t)(uintptr_t)dst, src, bytes);
}

/* Device attributes as a GPU with 108 SMs would give them: 16 is
 * CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1 CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK. */
CUresult cuDeviceGetAttribute(int *value, int attribute, int device)
{
	if (device != 0)
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	switch (attribute) {
	case 1:
		*value = 1024;
		return 0;
	case 16:
		*value = 108;
		return 0;
	default:
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	}
}

/*
 * Graphs built by hand: handles are distinct addresses, every call succeeds; nothing runs.
 * Enough for a recording to replay which kernels each graph launch executes.
 */
static char graphs[8], nodes[32], execs[8];
static int ngraphs, nnodes, nexecs;

CUresult cuGraphCreate(void **graph, unsigned flags)
{
	if (ngraphs == (int)sizeof(graphs))
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	*graph = &graphs[ngraphs++];
	return 0;
}

static CUresult new_node(void **node)
{
	if (nnodes == (int)sizeof(nodes))
		return 2;
	*node = &nodes[nnodes++];
	return 0;
}

CUresult cuGraphAddKernelNode_v2(void **node, void *graph, const void *deps, size_t ndeps,
				 const void *params)
{
	return new_node(node);
}

CUresult cuGraphAddChildGraphNode(void **node, void *graph, const void *deps, size_t ndeps,
				  void *child)
{
	return new_node(node);
}

CUresult cuGraphAddMemcpyNode(void **node, void *graph, const void *deps, size_t ndeps,
			      const void *params, void *ctx)
{
	return new_node(node);
}

CUresult cuGraphAddMemsetNode(void **node, void *graph, const void *deps, size_t ndeps,
			      const void *params, void *ctx)
{
	return new_node(node);
}

CUresult cuGraphAddHostNode(void **node, void *graph, const void *deps, size_t ndeps,
			    const void *params)
{
	return new_node(node);
}

CUresult cuGraphAddEventRecordNode(void **node, void *graph, const void *deps, size_t ndeps,
				   void *event)
{
	return new_node(node);
}

CUresult cuGraphAddEventWaitNode(void **node, void *graph, const void *deps, size_t ndeps,
				 void *event)
{
	return new_node(node);
}

CUresult cuGraphMemcpyNodeSetParams(void *node, const void *params)
{
	return 0;
}

CUresult cuGraphExecMemcpyNodeSetParams(void *exec, void *node, const void *params, void *ctx)
{
	return 0;
}

CUresult cuGraphMemsetNodeSetParams(void *node, const void *params)
{
	return 0;
}

CUresult cuGraphExecMemsetNodeSetParams(void *exec, void *node, const void *params, void *ctx)
{
	return 0;
}

CUresult cuGraphKernelNodeSetParams_v2(void *node, const void *params)
{
	return 0;
}

CUresult cuGraphExecKernelNodeSetParams_v2(void *exec, void *node, const void *params)
{
	return 0;
}

CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags)
{
	if (nexecs == (int)sizeof(execs))
		return 2;
	*exec = &execs[nexecs++];
	return 0;
}

CUresult cuGraphLaunch(void *exec, void *stream)
{
	return 0;
}
