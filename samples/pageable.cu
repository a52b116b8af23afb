/* SPDX-License-Identifier: MIT */
/*
 * pageable, pinned (-DPINNED): the transfer-bound pair.
 *
 * pageable (pathology): every step copies 16 MiB host to device with cudaMemcpyAsync from a
 * malloc'd, pageable buffer. The driver stages pageable memory through a bounce buffer, so the
 * "async" call returns only when the copy is done, and at pageable bandwidth.
 * pinned (healthy twin): the same, from a buffer allocated with cudaMallocHost: the call
 * returns at once and the copy runs at DMA bandwidth.
 *
 * Calls, in this order, each made exactly once where counted, whatever CUDA returns:
 *   setup     cudaStreamCreate(&S)                                         1
 *             cudaMalloc(16777216)                                         1   (dev)
 *             pinned: cudaMallocHost(16777216)                             1   (host)
 *             pageable: malloc(16777216), no CUDA call
 *   per step  cudaMemcpyAsync(dev, host, 16777216, HostToDevice, S)        1
 *             normalize<<<(16384,1,1), (256,1,1), 0, S>>>                  1 launch
 *             cudaStreamSynchronize(S)                                     1
 *   teardown  cudaFree(dev)                                                1
 *             pinned: cudaFreeHost(host) 1; pageable: free(host)
 *             cudaStreamDestroy(S)                                         1
 * argv[1] = steps (default 50): steps copies of 16 MiB H2D (steps x 16777216 bytes), steps
 * launches, steps stream syncs.
 * Kernel (demangled): normalize(float*, float, int).
 */
#include <cstring>

#include "sample.h"

#ifdef PINNED
#define NAME "pinned"
#else
#define NAME "pageable"
#endif

#define BYTES (16u << 20)
#define N     (BYTES / sizeof(float)) /* 4194304 */
#define BLOCK 256
#define GRID  (N / BLOCK) /* 16384 */

__global__ void normalize(float *x, float inv_std, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = (x[i] - 0.5f) * inv_std;
}

int main(int argc, char **argv)
{
	long steps = sample_steps(argc, argv, 50);
	cudaStream_t s = 0;
	float *dev = nullptr, *host = nullptr;

	ck(cudaStreamCreate(&s));
	ck(cudaMalloc((void **)&dev, BYTES));
#ifdef PINNED
	ck(cudaMallocHost((void **)&host, BYTES));
#else
	host = (float *)malloc(BYTES);
#endif
	/* fault the pages in now, so the loop measures copies, not page faults */
	if (host)
		memset(host, 0, BYTES);

	sample_loop_start();
	for (long step = 0; step < steps; step++) {
		ck(cudaMemcpyAsync(dev, host, BYTES, cudaMemcpyHostToDevice, s));
		tally.copies++;
		normalize<<<GRID, BLOCK, 0, s>>>(dev, 2.0f, (int)N);
		tally.launches++;
		ck(cudaStreamSynchronize(s));
		tally.syncs++;
	}
	sample_summary(NAME, steps);

	ck(cudaFree(dev));
#ifdef PINNED
	ck(cudaFreeHost(host));
#else
	free(host);
#endif
	ck(cudaStreamDestroy(s));
	return 0;
}
