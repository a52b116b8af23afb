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

/* The device's memory unless GPUSIM_MEM_BYTES says (memory.c); cudaMallocPitch's row alignment. */
#define SIM_MEM_DEFAULT (80ull << 30)
#define SIM_PITCH_ALIGN 512
/* Most devices GPUSIM_DEVICES may ask for. */
#define SIM_MAX_DEVICES 16

/*
 * Exported for the simulated driver (libcuda/, a libcuda.so.1 that links this library): device
 * memory charged to the calling thread's current device (charge: the device's ordinal, -1 past
 * its capacity) and given back to the device it was charged to, and what cudaMemGetInfo answers
 * for the current device (gpusim_mem_info) or a given one.
 */
int gpusim_mem_charge(uint64_t size);
void gpusim_mem_uncharge(int device, uint64_t size);
void gpusim_mem_info(uint64_t *free_bytes, uint64_t *total);
void gpusim_mem_info_of(int device, uint64_t *free_bytes, uint64_t *total);

/* GPUSIM_DEVICES, and the calling thread's current device (cudaSetDevice; 0 in a new thread). */
int sim_device_count(void);
int sim_current_device(void);

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

/*
 * Graphs (graph.c, and stream.c for capture). A node is one piece of device work as a graph
 * holds it: what a launch, copy or memset would have queued, with its modelled duration
 * computed when the node is made, so that a graph launch replays exactly those times.
 */
struct sim_kernel; /* launch.c */
struct sim_graph;  /* graph.c */

enum sim_node_type {
	SIM_NODE_KERNEL,
	SIM_NODE_COPY,
	SIM_NODE_MEMSET,
	SIM_NODE_CHILD, /* a private copy of another graph, run in place */
	SIM_NODE_EMPTY, /* also event record and wait nodes: the model has no cross-stream order */
	SIM_NODE_HOST,	/* a host function, called when a graph launch reaches it */
};

struct sim_node {
	enum sim_node_type type;
	uint64_t dur; /* modelled device time; a child's is computed when it runs */
	/* kernel */
	struct sim_kernel *kernel;
	dim3 grid, block;
	size_t shmem;
	/* copy, memset: the bytes move when the node runs, as copies do (GPUSIM_DATA_MAX) */
	void *dst;
	const void *src;
	size_t bytes;
	int value;
	/* child */
	struct sim_graph *child;
	/* host */
	void (*host_fn)(void *);
	void *user_data;
};

/*
 * Stream capture (stream.c): when @stream is capturing, appends a copy of @node to the capture's
 * graph instead of queuing work, and sets *captured to 1; otherwise *captured is 0 and the
 * caller queues the work itself. @node NULL asks for a call that capture does not allow (a
 * synchronous copy): it fails with cudaErrorStreamCaptureUnsupported on a capturing stream.
 * Fails with cudaErrorInvalidResourceHandle for an unknown stream.
 */
cudaError_t sim_capture(cudaStream_t stream, int per_thread, const struct sim_node *node,
			int *captured);

/* graph.c, called with the lock held: a new empty graph, and appending a node to one. */
struct sim_graph *sim_graph_new_locked(void);
cudaError_t sim_graph_append_locked(struct sim_graph *g, const struct sim_node *node,
				    struct sim_node **added);
/* Whether @g is a live graph handle (lock held). */
int sim_graph_known_locked(const struct sim_graph *g);

/* launch.c: the kernel of a host stub or handle (NULL if unknown), and the launch log line. */
struct sim_kernel *sim_kernel_of(const void *func);
void sim_log_launch(const struct sim_kernel *k, dim3 grid, dim3 block, size_t shmem,
		    cudaStream_t stream);

/* memory.c: a copy node for these arguments (path and duration as the copy would take), and
 * moving a node's bytes when it runs (within GPUSIM_DATA_MAX). */
cudaError_t sim_copy_node(struct sim_node *node, void *dst, const void *src, size_t n,
			  enum cudaMemcpyKind kind);
cudaError_t sim_memset_node(struct sim_node *node, void *dst, int value, size_t n);
void sim_node_move_data(const struct sim_node *node);
/* A copy node to (@to_symbol) or from a __device__ variable at @sym + @offset: the simulator
 * keeps variables in their host shadows, so the bytes move there. */
cudaError_t sim_symbol_node(struct sim_node *node, char *sym, size_t offset, void *other, size_t n,
			    int to_symbol, enum cudaMemcpyKind kind);

#endif
