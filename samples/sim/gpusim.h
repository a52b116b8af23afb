/* SPDX-License-Identifier: MIT */
/*
 * gpusim: a GPU simulator that stands in for libcudart.so.13 (test fixture, not a real device).
 * Internal interface between the simulator's files; nothing here is exported (libcudart.map
 * exports only the CUDA entry points and the gpusim_* markers). The time model and its
 * constants are documented at the top of gpusim.c.
 */
#ifndef GPUSIM_H
#define GPUSIM_H

#include <stddef.h>
#include <stdint.h>

/* The toolkit's own declarations: the compiler checks every entry point against them. */
#include <cuda_runtime_api.h>

/* Unfinished operations a stream holds before the next submit blocks (a full launch queue). */
#define SIM_QUEUE_DEPTH 1024

/* Host-side cost of each class of API call, in ns (gpusim.c). */
extern const uint64_t sim_launch_ns;
extern const uint64_t sim_api_ns;
extern const uint64_t sim_sync_ns;
extern const uint64_t sim_alloc_ns;

/* Which path a copy or memset takes through the modelled hardware. */
enum sim_path {
	SIM_PINNED,   /* host <-> device, page-locked host buffer: DMA */
	SIM_PAGEABLE, /* host <-> device or host <-> host through pageable memory: staged */
	SIM_DEVICE,   /* device <-> device copy or memset: device memory bandwidth */
};

/* clock: CLOCK_MONOTONIC in ns; the virtual GPU clock runs on the same timeline */
uint64_t sim_now(void);
void sim_spin_until(uint64_t t);
void sim_wait_until(uint64_t t);

/* model: durations of device work */
uint64_t sim_kernel_ns(dim3 grid, dim3 block, size_t shmem);
uint64_t sim_copy_ns(size_t bytes, enum sim_path path);

/* errors: record err as the calling thread's last error (unless cudaSuccess) and return it */
cudaError_t sim_fail(cudaError_t err);
/* stubs.c: the entry points not modelled fail with cudaErrorNotSupported (named when verbose) */
int sim_unsupported(const char *name);

/* one lock for all simulator state; never held while waiting */
void sim_lock(void);
void sim_unlock(void);

/*
 * streams (stream.c). per_thread: 1 for the _ptsz/_ptds entry points, where stream 0 means the
 * calling thread's default stream instead of the legacy default stream.
 *
 * sim_submit() queues device work of dur ns that cannot start before ready (a CLOCK_MONOTONIC
 * time), honouring the stream's FIFO order and legacy default-stream semantics. It blocks while
 * the stream already holds SIM_QUEUE_DEPTH unfinished operations, as a full launch queue
 * does. On success *end is the virtual completion time. Fails with
 * cudaErrorInvalidResourceHandle for a handle the simulator never handed out.
 */
cudaError_t sim_submit(cudaStream_t stream, int per_thread, uint64_t ready, uint64_t dur,
		       uint64_t *end);
/* Completion time of everything queued so far on all streams (device-wide). */
uint64_t sim_device_tail(void);

/* memory (memory.c) */
int sim_is_device_range(const void *p, size_t n);
/* cudaDeviceReset: frees every allocation the simulator made and forgets registered ranges */
void sim_memory_reset(void);

/* launches (launch.c): grid/block/shmem validation shared by every launch entry point */
cudaError_t sim_check_config(dim3 grid, dim3 block, size_t shmem);

#endif
