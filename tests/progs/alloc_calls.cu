// Every allocator of the runtime and the driver once, with known sizes, each call on its own
// line, which the program prints ("line NAME N") before making it: tests/e2e/record_alloc.sh
// compares the recorded rows (kind, bytes, status, the stack's source line) with these. Each
// call's return value is printed as "status NAME RC", each memory query's answer as
// "meminfo API FREE TOTAL". The driver is opened with dlopen, as PyTorch does: without one (the
// real runtime here) its calls are not made ("driver none"). Before its first cudaFree it
// launches a kernel of 20 ms on the simulator (10000 waves): the free waits for it. Built with -g.
#include <cstddef>
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bpf/gpurec.h"

// the layouts the BPF side reads (bpf/gpurec.h), checked against the toolkit's headers
static_assert(sizeof(cudaChannelFormatDesc) == GR_CHANNEL_DESC_BYTES &&
		      offsetof(cudaChannelFormatDesc, y) == 4 &&
		      offsetof(cudaChannelFormatDesc, w) == 12,
	      "cudaChannelFormatDesc is not 4 ints and its kind");
static_assert(offsetof(cudaPitchedPtr, ptr) == 0 && offsetof(cudaPitchedPtr, pitch) == 8,
	      "cudaPitchedPtr: ptr@0 pitch@8");
static_assert(sizeof(cudaExtent) == 24, "cudaExtent: 3 size_t, passed in memory");
static_assert(sizeof(CUDA_ARRAY_DESCRIPTOR) == GR_CU_ARRAY_DESC_BYTES &&
		      offsetof(CUDA_ARRAY_DESCRIPTOR, Format) == 16 &&
		      offsetof(CUDA_ARRAY_DESCRIPTOR, NumChannels) == 20,
	      "CUDA_ARRAY_DESCRIPTOR: Width, Height, Format, NumChannels");
static_assert(offsetof(CUDA_ARRAY3D_DESCRIPTOR, Format) == 24 &&
		      offsetof(CUDA_ARRAY3D_DESCRIPTOR, NumChannels) + 4 == GR_CU_ARRAY3D_DESC_BYTES,
	      "CUDA_ARRAY3D_DESCRIPTOR: Width, Height, Depth, Format, NumChannels");
static_assert(CU_AD_FORMAT_UNSIGNED_INT8 == 0x01 && CU_AD_FORMAT_SIGNED_INT16 == 0x09 &&
		      CU_AD_FORMAT_HALF == 0x10 && CU_AD_FORMAT_FLOAT == 0x20,
	      "the CUarray_format values record/translate.c sizes");

#define AT(name, call) (printf("line %s %d\n", name, __LINE__), status(name, (int)(call)))

__global__ void busy(void)
{
}

static int status(const char *name, int rc)
{
	printf("status %s %d\n", name, rc);
	return rc;
}

static void meminfo(const char *api, int rc, size_t free_bytes, size_t total)
{
	if (rc == 0)
		printf("meminfo %s %zu %zu\n", api, free_bytes, total);
}

// The driver's entry points used, as cuda.h declares them (CUresult = int, CUdeviceptr = u64).
typedef unsigned long long u64;
struct drv {
	int (*init)(unsigned);
	int (*get_info)(size_t *, size_t *);
	int (*alloc)(u64 *, size_t);
	int (*free)(u64);
	int (*create)(u64 *, size_t, const void *, u64);
	int (*release)(u64);
	int (*reserve)(u64 *, size_t, size_t, u64, u64);
	int (*address_free)(u64, size_t);
	int (*map)(u64, size_t, size_t, u64, u64);
	int (*unmap)(u64, size_t);
};

__attribute__((noinline)) static void driver_calls(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	struct drv d;
	// CUmemAllocationProp: type 1 (pinned), location {type 1 (device), id 0}, the rest 0
	int prop[8] = {1, 0, 1, 0};
	size_t free_bytes = 0, total = 0;
	u64 p = 0, handle = 0, va = 0;
	int rc;

	if (!h) {
		printf("driver none\n");
		return;
	}
	*(void **)&d.init = dlsym(h, "cuInit");
	*(void **)&d.get_info = dlsym(h, "cuMemGetInfo_v2");
	*(void **)&d.alloc = dlsym(h, "cuMemAlloc_v2");
	*(void **)&d.free = dlsym(h, "cuMemFree_v2");
	*(void **)&d.create = dlsym(h, "cuMemCreate");
	*(void **)&d.release = dlsym(h, "cuMemRelease");
	*(void **)&d.reserve = dlsym(h, "cuMemAddressReserve");
	*(void **)&d.address_free = dlsym(h, "cuMemAddressFree");
	*(void **)&d.map = dlsym(h, "cuMemMap");
	*(void **)&d.unmap = dlsym(h, "cuMemUnmap");
	d.init(0);
	rc = AT("cuMemGetInfo", d.get_info(&free_bytes, &total));
	meminfo("cuMemGetInfo", rc, free_bytes, total);
	AT("cuMemAlloc", d.alloc(&p, 5 << 20));
	AT("cuMemFree", d.free(p));
	AT("cuMemCreate", d.create(&handle, 2 << 20, prop, 0));
	AT("cuMemAddressReserve", d.reserve(&va, 4 << 20, 0, 0, 0));
	AT("cuMemMap", d.map(va, 2 << 20, 0, handle, 0));
	AT("cuMemUnmap", d.unmap(va, 2 << 20));
	AT("cuMemAddressFree", d.address_free(va, 4 << 20));
	AT("cuMemRelease", d.release(handle));
}

int main(void)
{
	void *dev = NULL, *pitched = NULL, *managed = NULL, *host = NULL, *host2 = NULL;
	void *async = NULL, *pooled = NULL, *big = NULL;
	void *reg = aligned_alloc(4096, 16384);
	size_t pitch = 0, free_bytes = 0, total = 0;
	struct cudaPitchedPtr p3 = {0};
	cudaArray_t arr = NULL, arr3 = NULL;
	cudaMipmappedArray_t mip = NULL;
	cudaMemPool_t pool = NULL;
	cudaStream_t s = NULL;
	int rc;
	cudaChannelFormatDesc f32 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaChannelFormatDesc u8x4 =
	    cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
	cudaChannelFormatDesc f16 = cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);

	setvbuf(stdout, NULL, _IOLBF, 0);
	cudaStreamCreate(&s);
	rc = AT("meminfo0", cudaMemGetInfo(&free_bytes, &total));
	meminfo("cudaMemGetInfo", rc, free_bytes, total);
	AT("cudaMalloc", cudaMalloc(&dev, 1 << 20));
	AT("cudaMallocPitch", cudaMallocPitch(&pitched, &pitch, 1000, 10));
	printf("pitch %zu\n", pitch);
	AT("cudaMalloc3D", cudaMalloc3D(&p3, make_cudaExtent(100, 4, 3)));
	printf("pitch3d %zu\n", p3.pitch);
	AT("cudaMallocManaged", cudaMallocManaged(&managed, 2 << 20, cudaMemAttachGlobal));
	AT("cudaMallocArray", cudaMallocArray(&arr, &f32, 64, 8, 0));
	AT("cudaMalloc3DArray", cudaMalloc3DArray(&arr3, &u8x4, make_cudaExtent(16, 16, 4), 0));
	AT("cudaMallocMipmappedArray",
	   cudaMallocMipmappedArray(&mip, &f16, make_cudaExtent(32, 32, 0), 3, 0));
	AT("cudaMallocHost", cudaMallocHost(&host, 4096));
	AT("cudaHostAlloc", cudaHostAlloc(&host2, 8192, cudaHostAllocDefault));
	AT("cudaHostRegister", cudaHostRegister(reg, 16384, cudaHostRegisterDefault));
	// the pool keeps what cudaFreeAsync gives back: the next block of that size is the same
	AT("cudaMallocAsync", cudaMallocAsync(&async, 3 << 20, s));
	AT("cudaFreeAsync", cudaFreeAsync(async, s));
	cudaDeviceGetDefaultMemPool(&pool, 0);
	AT("cudaMallocFromPoolAsync", cudaMallocFromPoolAsync(&pooled, 3 << 20, pool, s));
	printf("reused %d\n", async && pooled == async);
	AT("cudaFreeAsync2", cudaFreeAsync(pooled, s));
	cudaStreamSynchronize(s);
	cudaMemPoolTrimTo(pool, 0);
	// past the device's capacity (the test gives the simulator 1 GiB)
	AT("big", cudaMalloc(&big, (size_t)2 << 30));
	rc = AT("meminfo1", cudaMemGetInfo(&free_bytes, &total));
	meminfo("cudaMemGetInfo", rc, free_bytes, total);
	driver_calls();
	// 10000 waves of 132 SMs x 32 resident blocks: 20 ms of modelled work
	busy<<<10000 * 132 * 32, 64>>>();
	AT("cudaFree", cudaFree(dev));
	cudaFree(pitched);
	cudaFree(p3.ptr);
	cudaFree(managed);
	AT("cudaFreeArray", cudaFreeArray(arr));
	cudaFreeArray(arr3);
	AT("cudaFreeMipmappedArray", cudaFreeMipmappedArray(mip));
	AT("cudaFreeHost", cudaFreeHost(host));
	cudaFreeHost(host2);
	AT("cudaHostUnregister", cudaHostUnregister(reg));
	free(reg);
	return 0;
}
