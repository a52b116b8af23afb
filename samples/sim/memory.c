/* SPDX-License-Identifier: MIT */
/*
 * gpusim memory: device allocations (host memory standing in for device memory) within the
 * device's capacity, the stream-ordered pool that keeps freed blocks for reuse, the pinned host
 * ranges that decide a copy's bandwidth, and the copy and memset entry points.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gpusim.h"

#define DEFAULT_DATA_MAX (64u << 10)

/* Address ranges [lo, hi), sorted by lo, never overlapping. */
struct range {
	uintptr_t lo, hi;
	int owned;  /* mapped by the simulator (else: a cudaHostRegister'd user buffer) */
	int pooled; /* freed by cudaFreeAsync: the pool keeps it for the next allocation */
	int dev;    /* device memory: the device charged (the allocating thread's current one) */
};

struct table {
	struct range *v;
	size_t n, cap;
};

static struct table device_mem, pinned_mem;
static size_t data_max = DEFAULT_DATA_MAX;
/*
 * Each device's capacity (GPUSIM_MEM_BYTES, the same for all) and the bytes its allocations
 * hold, the pool's kept blocks included: an allocation past it fails with
 * cudaErrorMemoryAllocation, and cudaMemGetInfo answers from both. Lock held.
 */
static uint64_t mem_total = SIM_MEM_DEFAULT, mem_used[SIM_MAX_DEVICES];
/* the one memory pool (cudaDeviceGetDefaultMemPool): its address is its handle */
static char default_pool;
/*
 * GPUSIM_NESTED_SYNC=1: a copy that blocks waits by calling the exported
 * cudaStreamSynchronize(_ptsz), as some runtimes do, so that a probe on the sync fires inside
 * the copy (a nested call). The copy's time is the same either way.
 */
static int nested_sync;

__attribute__((constructor)) static void memory_init(void)
{
	const char *v = getenv("GPUSIM_DATA_MAX");

	if (v && *v)
		data_max = strtoull(v, NULL, 0);
	v = getenv("GPUSIM_NESTED_SYNC");
	nested_sync = v && !strcmp(v, "1");
	v = getenv("GPUSIM_MEM_BYTES");
	if (v && *v)
		mem_total = strtoull(v, NULL, 0);
}

/* Charges @size bytes to the current device: its ordinal, -1 past its capacity. Lock held. */
static int mem_charge(uint64_t size)
{
	int dev = sim_current_device();

	if (size > mem_total - mem_used[dev])
		return -1;
	mem_used[dev] += size;
	return dev;
}

/* Gives @size bytes back to @dev. Lock held. */
static void mem_uncharge(int dev, uint64_t size)
{
	mem_used[dev] -= size < mem_used[dev] ? size : mem_used[dev];
}

int gpusim_mem_charge(uint64_t size)
{
	int dev;

	sim_lock();
	dev = mem_charge(size);
	sim_unlock();
	return dev;
}

void gpusim_mem_uncharge(int device, uint64_t size)
{
	sim_lock();
	mem_uncharge(device, size);
	sim_unlock();
}

void gpusim_mem_info_of(int device, uint64_t *free_bytes, uint64_t *total)
{
	sim_lock();
	*free_bytes = mem_total - mem_used[device];
	*total = mem_total;
	sim_unlock();
}

void gpusim_mem_info(uint64_t *free_bytes, uint64_t *total)
{
	gpusim_mem_info_of(sim_current_device(), free_bytes, total);
}

/* Index of the first range whose lo is > p. */
static size_t table_upper(const struct table *t, uintptr_t p)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].lo <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The range holding all of [p, p + n) (at least one byte), or NULL. Lock held. */
static struct range *table_find(const struct table *t, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	size_t i = table_upper(t, a);

	if (i == 0 || !p)
		return NULL;
	struct range *r = &t->v[i - 1];

	if (a >= r->hi || (n && (n > r->hi - a)))
		return NULL;
	return r;
}

/* Adds [lo, hi); -1 when it overlaps a range already there or memory runs out. Lock held. */
static int table_insert(struct table *t, uintptr_t lo, uintptr_t hi, int owned, int dev)
{
	size_t i = table_upper(t, lo);

	if ((i > 0 && t->v[i - 1].hi > lo) || (i < t->n && t->v[i].lo < hi))
		return -1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct range *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof(*t->v));
	t->v[i] = (struct range){.lo = lo, .hi = hi, .owned = owned, .pooled = 0, .dev = dev};
	t->n++;
	return 0;
}

static void table_remove(struct table *t, struct range *r)
{
	size_t i = (size_t)(r - t->v);

	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
	t->n--;
}

int sim_is_device_range(const void *p, size_t n)
{
	int found;

	sim_lock();
	found = table_find(&device_mem, p, n) != NULL;
	sim_unlock();
	return found;
}

/* Maps size bytes and records them in t (device ones within the capacity); NULL when out of
 * memory. */
static void *map_range(struct table *t, size_t size)
{
	int device = t == &device_mem, dev = 0;
	void *p;
	int err;

	if (device && (dev = gpusim_mem_charge(size)) < 0)
		return NULL;
	/* NORESERVE: a 16 MiB buffer that large copies never touch costs no memory */
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		if (device)
			gpusim_mem_uncharge(dev, size);
		return NULL;
	}
	sim_lock();
	err = table_insert(t, (uintptr_t)p, (uintptr_t)p + size, 1, dev);
	if (err && device)
		mem_uncharge(dev, size);
	sim_unlock();
	if (err) {
		munmap(p, size);
		return NULL;
	}
	return p;
}

/* Unmaps the owned range that starts at p; -1 when there is none. */
static int unmap_range(struct table *t, void *p)
{
	struct range *r;
	uintptr_t lo = 0, hi = 0;

	sim_lock();
	r = table_find(t, p, 0);
	if (r && r->lo == (uintptr_t)p && r->owned && !r->pooled) {
		lo = r->lo;
		hi = r->hi;
		if (t == &device_mem)
			mem_uncharge(r->dev, hi - lo);
		table_remove(t, r);
	}
	sim_unlock();
	if (!lo)
		return -1;
	munmap((void *)lo, hi - lo);
	return 0;
}

void sim_memory_reset(void)
{
	struct table *tables[] = {&device_mem, &pinned_mem};

	sim_lock();
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < tables[k]->n; i++)
			if (tables[k]->v[i].owned)
				munmap((void *)tables[k]->v[i].lo,
				       tables[k]->v[i].hi - tables[k]->v[i].lo);
		tables[k]->n = 0;
	}
	memset(mem_used, 0, sizeof(mem_used));
	sim_unlock();
}

/* --- allocation --- */

static cudaError_t alloc(struct table *t, void **out, size_t size)
{
	uint64_t t0 = sim_now();

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	*out = NULL;
	if (size) {
		*out = map_range(t, size);
		if (!*out)
			return sim_fail(cudaErrorMemoryAllocation);
	}
	sim_spin_until(t0 + sim_alloc_ns);
	return cudaSuccess;
}

/* Frees an owned range after the device has drained, as the real frees synchronise. */
static cudaError_t free_sync(struct table *t, void *p)
{
	uint64_t t0 = sim_now();

	if (!p)
		return cudaSuccess;
	sim_wait_until(sim_device_tail());
	if (unmap_range(t, p))
		return sim_fail(cudaErrorInvalidValue);
	sim_spin_until(t0 + sim_alloc_ns);
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	return alloc(&device_mem, devPtr, size);
}

cudaError_t cudaFree(void *devPtr)
{
	return free_sync(&device_mem, devPtr);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return alloc(&pinned_mem, ptr, size);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	return alloc(&pinned_mem, pHost, size);
}

cudaError_t cudaFreeHost(void *ptr)
{
	return free_sync(&pinned_mem, ptr);
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	uint64_t t0 = sim_now();
	int err;

	if (!ptr || !size)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	err = table_insert(&pinned_mem, (uintptr_t)ptr, (uintptr_t)ptr + size, 0, 0);
	sim_unlock();
	if (err)
		return sim_fail(cudaErrorHostMemoryAlreadyRegistered);
	sim_spin_until(t0 + sim_alloc_ns);
	return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
	uint64_t t0 = sim_now();
	struct range *r;
	int found = 0;

	sim_lock();
	r = table_find(&pinned_mem, ptr, 0);
	if (r && r->lo == (uintptr_t)ptr && !r->owned) {
		table_remove(&pinned_mem, r);
		found = 1;
	}
	sim_unlock();
	if (!found)
		return sim_fail(cudaErrorHostMemoryNotRegistered);
	sim_spin_until(t0 + sim_alloc_ns);
	return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	struct range *r;

	if (!pDevice)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	r = table_find(&pinned_mem, pHost, 0);
	sim_unlock();
	if (!r)
		return sim_fail(cudaErrorInvalidValue);
	*pDevice = pHost; /* unified addressing: the same address on both sides */
	return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
	int dev, pinned;

	if (!attributes)
		return sim_fail(cudaErrorInvalidValue);
	sim_lock();
	dev = table_find(&device_mem, ptr, 0) != NULL;
	pinned = table_find(&pinned_mem, ptr, 0) != NULL;
	sim_unlock();
	memset(attributes, 0, sizeof(*attributes));
	attributes->type = dev	    ? cudaMemoryTypeDevice
			   : pinned ? cudaMemoryTypeHost
				    : cudaMemoryTypeUnregistered;
	attributes->device = dev || pinned ? 0 : -2;
	attributes->devicePointer = dev || pinned ? (void *)ptr : NULL;
	attributes->hostPointer = pinned ? (void *)ptr : NULL;
	return cudaSuccess;
}

/*
 * A block the pool keeps of exactly @size bytes on the current device, taken out of the pool;
 * NULL when it has none. Lock held.
 */
static void *pool_take(size_t size)
{
	int dev = sim_current_device();

	for (size_t i = 0; i < device_mem.n; i++) {
		struct range *r = &device_mem.v[i];

		if (r->pooled && r->dev == dev && r->hi - r->lo == size) {
			r->pooled = 0;
			return (void *)r->lo;
		}
	}
	return NULL;
}

/*
 * Stream-ordered allocation from the pool: a block freed before of the same size is reused (the
 * same address), else new memory is charged to the device.
 */
static cudaError_t alloc_async(void **out, size_t size, cudaStream_t stream, int per_thread)
{
	uint64_t t0 = sim_now(), end;
	cudaError_t err;

	if (!out)
		return sim_fail(cudaErrorInvalidValue);
	/* stream-ordered: a zero-length operation, which also validates the stream */
	err = sim_submit(stream, per_thread, t0 + sim_api_ns, 0, &end);
	if (err)
		return sim_fail(err);
	sim_lock();
	*out = size ? pool_take(size) : NULL;
	sim_unlock();
	if (size && !*out)
		*out = map_range(&device_mem, size);
	if (size && !*out)
		return sim_fail(cudaErrorMemoryAllocation);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

/* Back to the pool, which keeps the block (and its bytes) until cudaMemPoolTrimTo. */
static cudaError_t free_async(void *p, cudaStream_t stream, int per_thread)
{
	uint64_t t0 = sim_now(), end;
	struct range *r;
	cudaError_t err;
	int found = 0;

	err = sim_submit(stream, per_thread, t0 + sim_api_ns, 0, &end);
	if (err)
		return sim_fail(err);
	/* queued copies moved their bytes when they were called: the block is free now */
	sim_lock();
	r = p ? table_find(&device_mem, p, 0) : NULL;
	if (r && r->lo == (uintptr_t)p && r->owned && !r->pooled) {
		r->pooled = 1;
		found = 1;
	}
	sim_unlock();
	if (p && !found)
		return sim_fail(cudaErrorInvalidValue);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
	return alloc_async(devPtr, size, hStream, 0);
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
	return alloc_async(devPtr, size, hStream, 1);
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
				    cudaStream_t stream)
{
	if (memPool != (cudaMemPool_t)&default_pool)
		return sim_fail(cudaErrorInvalidValue);
	return alloc_async(ptr, size, stream, 0);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
					 cudaStream_t stream)
{
	if (memPool != (cudaMemPool_t)&default_pool)
		return sim_fail(cudaErrorInvalidValue);
	return alloc_async(ptr, size, stream, 1);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
	return free_async(devPtr, hStream, 0);
}

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
	return free_async(devPtr, hStream, 1);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
	if (!memPool || device != 0)
		return sim_fail(cudaErrorInvalidValue);
	*memPool = (cudaMemPool_t)&default_pool;
	return cudaSuccess;
}

/* Releases the pool's kept blocks, after the device has drained, until it keeps at most
 * minBytesToKeep. */
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
	uint64_t kept = 0;

	if (memPool != (cudaMemPool_t)&default_pool)
		return sim_fail(cudaErrorInvalidValue);
	sim_wait_until(sim_device_tail());
	sim_lock();
	for (size_t i = 0; i < device_mem.n; i++)
		if (device_mem.v[i].pooled)
			kept += device_mem.v[i].hi - device_mem.v[i].lo;
	for (size_t i = device_mem.n; i-- > 0 && kept > minBytesToKeep;) {
		struct range r = device_mem.v[i];

		if (!r.pooled)
			continue;
		table_remove(&device_mem, &device_mem.v[i]);
		mem_uncharge(r.dev, r.hi - r.lo);
		kept -= r.hi - r.lo;
		munmap((void *)r.lo, r.hi - r.lo);
	}
	sim_unlock();
	return cudaSuccess;
}

/* --- pitched, managed and array allocations: device memory like cudaMalloc's --- */

/* Rows of a pitched allocation start SIM_PITCH_ALIGN bytes apart at least. */
static size_t pitch_of(size_t width)
{
	return (width + SIM_PITCH_ALIGN - 1) / SIM_PITCH_ALIGN * SIM_PITCH_ALIGN;
}

static size_t at_least_1(size_t v)
{
	return v ? v : 1;
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
	cudaError_t err;

	if (!pitch)
		return sim_fail(cudaErrorInvalidValue);
	err = alloc(&device_mem, devPtr, pitch_of(width) * height);
	if (!err)
		*pitch = pitch_of(width);
	return err;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
	size_t pitch = pitch_of(extent.width);
	void *p = NULL;
	cudaError_t err;

	if (!pitchedDevPtr)
		return sim_fail(cudaErrorInvalidValue);
	err = alloc(&device_mem, &p, pitch * at_least_1(extent.height) * at_least_1(extent.depth));
	if (!err)
		*pitchedDevPtr = (struct cudaPitchedPtr){
		    .ptr = p, .pitch = pitch, .xsize = extent.width, .ysize = extent.height};
	return err;
}

/* Unified memory counts against the device's capacity, as if it were all resident there. */
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	return alloc(&device_mem, devPtr, size);
}

/* The bytes of an array of @n elements of format @desc; 0 for a format that is none. */
static size_t array_bytes(const struct cudaChannelFormatDesc *desc, size_t n)
{
	int bits = desc->x + desc->y + desc->z + desc->w;

	return bits > 0 && bits % 8 == 0 ? n * (size_t)(bits / 8) : 0;
}

/* An array is device memory whose address is its handle (kernels never read it here). */
static cudaError_t alloc_array(void **out, const struct cudaChannelFormatDesc *desc, size_t n)
{
	size_t bytes;

	if (!out || !desc)
		return sim_fail(cudaErrorInvalidValue);
	bytes = array_bytes(desc, n);
	if (!bytes)
		return sim_fail(cudaErrorInvalidChannelDescriptor);
	return alloc(&device_mem, out, bytes);
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
			    size_t width, size_t height, unsigned int flags)
{
	return alloc_array((void **)array, desc, width * at_least_1(height));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
			      struct cudaExtent extent, unsigned int flags)
{
	return alloc_array((void **)array, desc,
			   extent.width * at_least_1(extent.height) * at_least_1(extent.depth));
}

/* Level 0 only: the smaller levels are not simulated. */
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
				     const struct cudaChannelFormatDesc *desc,
				     struct cudaExtent extent, unsigned int numLevels,
				     unsigned int flags)
{
	if (!numLevels)
		return sim_fail(cudaErrorInvalidValue);
	return alloc_array((void **)mipmappedArray, desc,
			   extent.width * at_least_1(extent.height) * at_least_1(extent.depth));
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
	return free_sync(&device_mem, array);
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
	return free_sync(&device_mem, mipmappedArray);
}

/* --- copies and memsets --- */

/* Decides which path a copy takes; fails on a device side outside every device allocation. */
static cudaError_t copy_path(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			     enum sim_path *path)
{
	int dst_dev, src_dev, dst_pinned, src_pinned;

	sim_lock();
	dst_dev = table_find(&device_mem, dst, n) != NULL;
	src_dev = table_find(&device_mem, src, n) != NULL;
	dst_pinned = table_find(&pinned_mem, dst, n) != NULL;
	src_pinned = table_find(&pinned_mem, src, n) != NULL;
	sim_unlock();
	if (kind == cudaMemcpyDefault) /* unified addressing: the pointers tell the direction */
		kind = src_dev ? (dst_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
			       : (dst_dev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
	switch (kind) {
	case cudaMemcpyHostToDevice:
		*path = src_pinned ? SIM_PINNED : SIM_PAGEABLE;
		return dst_dev ? cudaSuccess : cudaErrorInvalidValue;
	case cudaMemcpyDeviceToHost:
		*path = dst_pinned ? SIM_PINNED : SIM_PAGEABLE;
		return src_dev ? cudaSuccess : cudaErrorInvalidValue;
	case cudaMemcpyDeviceToDevice:
		*path = SIM_DEVICE;
		return src_dev && dst_dev ? cudaSuccess : cudaErrorInvalidValue;
	case cudaMemcpyHostToHost:
		*path = SIM_PAGEABLE; /* the CPU copies it */
		return cudaSuccess;
	default:
		return cudaErrorInvalidMemcpyDirection;
	}
}

/*
 * Blocks until a copy queued on stream completes at end. Nested: through the exported
 * cudaStreamSynchronize, called through the PLT (the library is built without
 * -fno-semantic-interposition), which waits for the stream's tail: the copy itself, unless
 * another thread queued more behind it. A per-thread copy on stream 0 names its stream by the
 * cudaStreamPerThread handle, so every nested sync is the one entry point.
 */
static void copy_wait(cudaStream_t stream, int per_thread, uint64_t end)
{
	if (!nested_sync)
		sim_wait_until(end);
	else
		cudaStreamSynchronize(!stream && per_thread ? cudaStreamPerThread : stream);
}

/*
 * Every cudaMemcpy* variant. async: called as cudaMemcpyAsync; even then a copy through
 * pageable memory returns only once complete (the host buffer is staged by the CPU), and
 * cudaMemcpy returns early only for device-to-device copies, as the CUDA documentation says.
 */
static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			cudaStream_t stream, int per_thread, int async)
{
	uint64_t t0 = sim_now(), end;
	struct sim_node node;
	enum sim_path path;
	cudaError_t err;
	int captured;

	if (n == 0) {
		sim_spin_until(t0 + sim_api_ns);
		return cudaSuccess;
	}
	err = copy_path(dst, src, n, kind, &path);
	if (err)
		return sim_fail(err);
	/* a capturing stream takes asynchronous copies as nodes; cudaMemcpy is refused there */
	node = (struct sim_node){.type = SIM_NODE_COPY, .dst = dst, .src = src, .bytes = n};
	node.dur = sim_copy_ns(n, path);
	err = sim_capture(stream, per_thread, async ? &node : NULL, &captured);
	if (err)
		return sim_fail(err);
	if (captured) {
		sim_spin_until(t0 + sim_api_ns);
		return cudaSuccess;
	}
	err = sim_submit(stream, per_thread, t0 + sim_api_ns, node.dur, &end);
	if (err)
		return sim_fail(err);
	if (n <= data_max)
		memmove(dst, src, n);
	if (path == SIM_PAGEABLE || (!async && path == SIM_PINNED))
		copy_wait(stream, per_thread, end);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return copy(dst, src, count, kind, 0, 0, 0);
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return copy(dst, src, count, kind, 0, 1, 0);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream)
{
	return copy(dst, src, count, kind, stream, 0, 1);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
				 cudaStream_t stream)
{
	return copy(dst, src, count, kind, stream, 1, 1);
}

/* cudaMemset on device memory is asynchronous to the host, with or without Async. */
static cudaError_t memset_dev(void *p, int value, size_t n, cudaStream_t stream, int per_thread)
{
	uint64_t t0 = sim_now(), end;
	struct sim_node node;
	cudaError_t err;
	int captured;

	if (n == 0) {
		sim_spin_until(t0 + sim_api_ns);
		return cudaSuccess;
	}
	err = sim_memset_node(&node, p, value, n);
	if (!err)
		err = sim_capture(stream, per_thread, &node, &captured);
	if (err)
		return sim_fail(err);
	if (captured) {
		sim_spin_until(t0 + sim_api_ns);
		return cudaSuccess;
	}
	err = sim_submit(stream, per_thread, t0 + sim_api_ns, node.dur, &end);
	if (err)
		return sim_fail(err);
	if (n <= data_max)
		memset(p, value, n);
	sim_spin_until(t0 + sim_api_ns);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return memset_dev(devPtr, value, count, 0, 0);
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
	return memset_dev(devPtr, value, count, 0, 1);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	return memset_dev(devPtr, value, count, stream, 0);
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	return memset_dev(devPtr, value, count, stream, 1);
}

/* --- graph nodes (graph.c runs them) --- */

cudaError_t sim_copy_node(struct sim_node *node, void *dst, const void *src, size_t n,
			  enum cudaMemcpyKind kind)
{
	enum sim_path path;
	cudaError_t err = copy_path(dst, src, n, kind, &path);

	if (err)
		return err;
	*node = (struct sim_node){.type = SIM_NODE_COPY, .dst = dst, .src = src, .bytes = n};
	node->dur = sim_copy_ns(n, path);
	return cudaSuccess;
}

cudaError_t sim_memset_node(struct sim_node *node, void *dst, int value, size_t n)
{
	if (!sim_is_device_range(dst, n))
		return cudaErrorInvalidValue;
	*node = (struct sim_node){.type = SIM_NODE_MEMSET, .dst = dst, .bytes = n, .value = value};
	node->dur = sim_copy_ns(n, SIM_DEVICE);
	return cudaSuccess;
}

cudaError_t sim_symbol_node(struct sim_node *node, char *sym, size_t offset, void *other, size_t n,
			    int to_symbol, enum cudaMemcpyKind kind)
{
	enum sim_path path;
	int other_dev, other_pinned;

	if (!sym)
		return cudaErrorInvalidSymbol;
	sim_lock();
	other_dev = table_find(&device_mem, other, n) != NULL;
	other_pinned = table_find(&pinned_mem, other, n) != NULL;
	sim_unlock();
	if (kind == cudaMemcpyDefault)
		kind = other_dev   ? cudaMemcpyDeviceToDevice
		       : to_symbol ? cudaMemcpyHostToDevice
				   : cudaMemcpyDeviceToHost;
	if (kind == cudaMemcpyDeviceToDevice && other_dev)
		path = SIM_DEVICE;
	else if (kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost))
		path = other_pinned ? SIM_PINNED : SIM_PAGEABLE;
	else
		return cudaErrorInvalidMemcpyDirection;
	*node = (struct sim_node){.type = SIM_NODE_COPY, .bytes = n};
	node->dst = to_symbol ? sym + offset : other;
	node->src = to_symbol ? other : sym + offset;
	node->dur = sim_copy_ns(n, path);
	return cudaSuccess;
}

void sim_node_move_data(const struct sim_node *node)
{
	if (node->bytes > data_max)
		return;
	if (node->type == SIM_NODE_COPY)
		memmove(node->dst, node->src, node->bytes);
	else if (node->type == SIM_NODE_MEMSET)
		memset(node->dst, node->value, node->bytes);
}
