/* SPDX-License-Identifier: MIT */
/*
 * gpusim's driver: a libcuda.so.1 with the driver's memory entry points (cuMemAlloc, cuMemGetInfo
 * and the virtual memory API: cuMemCreate, cuMemAddressReserve, cuMemMap and their releases),
 * for tests on machines without a GPU. Device bytes are charged to the capacity of the simulated
 * calling thread's current device in libcudart.so.13 (gpusim_mem_charge), so the runtime and the
 * driver fill the same devices.
 * Test fixture only: not a driver. Every entry point not here is absent.
 */
#include <pthread.h>
#include <sys/mman.h>

#include <cuda.h>

#include "../gpusim.h"

#define MAX_OBJECTS 4096

/* What the driver handed out: allocations, physical handles, reservations and mappings. */
enum obj_kind { OBJ_NONE, OBJ_ALLOC, OBJ_PHYSICAL, OBJ_RESERVED, OBJ_MAPPED };

struct obj {
	enum obj_kind kind;
	uint64_t key; /* the address, or the handle of a physical allocation */
	uint64_t size;
	uint64_t handle; /* OBJ_MAPPED: the physical allocation mapped there */
	int dev;	 /* OBJ_ALLOC, OBJ_PHYSICAL: the device charged */
};

static struct obj objs[MAX_OBJECTS];
static uint64_t next_handle = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The object of @kind at @key, or NULL. Lock held. */
static struct obj *find(enum obj_kind kind, uint64_t key)
{
	for (int i = 0; i < MAX_OBJECTS; i++)
		if (objs[i].kind == kind && objs[i].key == key)
			return &objs[i];
	return NULL;
}

/* Records an object; -1 when the table is full. Lock held. */
static int add(enum obj_kind kind, uint64_t key, uint64_t size, uint64_t handle, int dev)
{
	struct obj *o = find(OBJ_NONE, 0);

	if (!o)
		return -1;
	*o = (struct obj){.kind = kind, .key = key, .size = size, .handle = handle, .dev = dev};
	return 0;
}

CUresult cuInit(unsigned int flags)
{
	return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(size_t *free_bytes, size_t *total)
{
	uint64_t f, t;

	if (!free_bytes || !total)
		return CUDA_ERROR_INVALID_VALUE;
	gpusim_mem_info(&f, &t);
	*free_bytes = f;
	*total = t;
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
	void *p;
	int err, dev;

	if (!dptr || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	dev = gpusim_mem_charge(bytesize);
	if (dev < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	p = mmap(NULL, bytesize, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		gpusim_mem_uncharge(dev, bytesize);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_lock(&lock);
	err = add(OBJ_ALLOC, (uintptr_t)p, bytesize, 0, dev);
	pthread_mutex_unlock(&lock);
	if (err) {
		munmap(p, bytesize);
		gpusim_mem_uncharge(dev, bytesize);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*dptr = (uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr dptr)
{
	struct obj *o, gone = {0};

	pthread_mutex_lock(&lock);
	o = find(OBJ_ALLOC, dptr);
	if (o) {
		gone = *o;
		o->kind = OBJ_NONE;
		o->key = 0;
	}
	pthread_mutex_unlock(&lock);
	if (!gone.kind)
		return CUDA_ERROR_INVALID_VALUE;
	munmap((void *)(uintptr_t)gone.key, gone.size);
	gpusim_mem_uncharge(gone.dev, gone.size);
	return CUDA_SUCCESS;
}

/* Physical memory: charged from cuMemCreate to cuMemRelease. */
CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
		     const CUmemAllocationProp *prop, unsigned long long flags)
{
	int err, dev;

	if (!handle || !prop || !size)
		return CUDA_ERROR_INVALID_VALUE;
	dev = gpusim_mem_charge(size);
	if (dev < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&lock);
	err = add(OBJ_PHYSICAL, next_handle, size, 0, dev);
	if (!err)
		*handle = next_handle++;
	pthread_mutex_unlock(&lock);
	if (err) {
		gpusim_mem_uncharge(dev, size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	struct obj *o;
	uint64_t size = 0;
	int dev = 0;

	pthread_mutex_lock(&lock);
	o = find(OBJ_PHYSICAL, handle);
	if (o) {
		size = o->size;
		dev = o->dev;
		o->kind = OBJ_NONE;
		o->key = 0;
	}
	pthread_mutex_unlock(&lock);
	if (!o)
		return CUDA_ERROR_INVALID_VALUE;
	gpusim_mem_uncharge(dev, size);
	return CUDA_SUCCESS;
}

/* Address space: reserved with no access, as the real one is until mapped. */
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
			     unsigned long long flags)
{
	void *p;
	int err;

	if (!ptr || !size)
		return CUDA_ERROR_INVALID_VALUE;
	p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&lock);
	err = add(OBJ_RESERVED, (uintptr_t)p, size, 0, 0);
	pthread_mutex_unlock(&lock);
	if (err) {
		munmap(p, size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*ptr = (uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	struct obj *o;

	pthread_mutex_lock(&lock);
	o = find(OBJ_RESERVED, ptr);
	if (o && o->size == size) {
		o->kind = OBJ_NONE;
		o->key = 0;
	}
	pthread_mutex_unlock(&lock);
	if (!o || o->size != size)
		return CUDA_ERROR_INVALID_VALUE;
	munmap((void *)(uintptr_t)ptr, size);
	return CUDA_SUCCESS;
}

/* A mapping must lie inside a reservation and inside its physical allocation. */
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
		  unsigned long long flags)
{
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	const struct obj *phys;
	int inside = 0;

	pthread_mutex_lock(&lock);
	phys = find(OBJ_PHYSICAL, handle);
	for (int i = 0; i < MAX_OBJECTS && !inside; i++)
		inside = objs[i].kind == OBJ_RESERVED && ptr >= objs[i].key &&
			 size <= objs[i].key + objs[i].size - ptr;
	if (phys && inside && size && offset <= phys->size && size <= phys->size - offset &&
	    !find(OBJ_MAPPED, ptr))
		res =
		    add(OBJ_MAPPED, ptr, size, handle, 0) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
	pthread_mutex_unlock(&lock);
	return res;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	struct obj *o;
	int ok;

	pthread_mutex_lock(&lock);
	o = find(OBJ_MAPPED, ptr);
	ok = o && o->size == size;
	if (ok) {
		o->kind = OBJ_NONE;
		o->key = 0;
	}
	pthread_mutex_unlock(&lock);
	return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
