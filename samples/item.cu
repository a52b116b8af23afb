/* SPDX-License-Identifier: MIT */
/*
 * item, item_free (-DITEM_FREE): the `.item()` pair.
 *
 * item (pathology): every step reads the loss back: a 4-byte device-to-host cudaMemcpyAsync
 * into a pageable host variable, then cudaStreamSynchronize. That is what PyTorch's
 * tensor.item() does (copy, then sync the stream). The host waits for the GPU every step, so it
 * cannot prepare the next step while the GPU works.
 * item_free (healthy twin): the same steps without the read; the loss is read once, after the
 * loop, with the same two calls.
 * Both start every step with 50 us of host work (a busy loop, no CUDA call), standing in for a
 * framework's per-step overhead, which only item_free overlaps with the GPU.
 *
 * Calls, in this order, each made exactly once where counted, whatever CUDA returns:
 *   setup     cudaStreamCreate(&S)                                         1
 *             cudaMalloc(27033600)  activations, 26400 x 256 floats       1
 *             cudaMalloc(1081344)   weights, 1056 x 256 floats            1
 *             cudaMalloc(4)         loss                                   1
 *   per step  (50 us host work)
 *             forward<<<(26400,1,1), (256,1,1), 0, S>>>                    1 launch
 *             loss_reduce<<<(1,1,1), (256,1,1), 0, S>>>                    1 launch
 *             sgd_update<<<(1056,1,1), (256,1,1), 0, S>>>                  1 launch
 *             item only: cudaMemcpyAsync(&h, loss, 4, DeviceToHost, S)    1
 *             item only: cudaStreamSynchronize(S)                          1
 *   after     item_free only: cudaMemcpyAsync(&h, loss, 4, DeviceToHost, S) 1,
 *             then cudaStreamSynchronize(S) 1
 *   teardown  cudaFree                                                     3
 *             cudaStreamDestroy(S)                                         1
 * argv[1] = steps (default 50): 3 x steps launches for both; item makes steps D2H copies of 4
 * bytes and steps stream syncs, item_free one of each. h is a local float: pageable memory.
 * Kernels (demangled): forward(float*, float const*, int), loss_reduce(float const*, float*),
 * sgd_update(float*, float const*, float, int).
 */
#include "sample.h"

#ifdef ITEM_FREE
#define NAME "item_free"
#else
#define NAME "item"
#endif

#define BLOCK	     256
#define ACT_GRID     26400 /* 25 waves of 1056 resident blocks on a 132-SM GPU */
#define W_GRID	     1056
#define N_ACT	     (ACT_GRID * BLOCK)
#define N_W	     (W_GRID * BLOCK)
#define LOSS_N	     65536 /* the loss samples this many activations: a short kernel */
#define HOST_WORK_US 50.0

__global__ void forward(float *act, const float *w, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		act[i] = fmaxf(act[i] * w[i % N_W], 0.0f);
}

__global__ void loss_reduce(const float *act, float *loss)
{
	__shared__ float part[BLOCK];
	float sum = 0.0f;

	for (int i = threadIdx.x; i < LOSS_N; i += BLOCK)
		sum += act[i] * act[i];
	part[threadIdx.x] = sum;
	__syncthreads();
	for (int half = BLOCK / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			part[threadIdx.x] += part[threadIdx.x + half];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*loss = part[0] / LOSS_N;
}

__global__ void sgd_update(float *w, const float *loss, float lr, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		w[i] -= lr * *loss * w[i];
}

int main(int argc, char **argv)
{
	long steps = sample_steps(argc, argv, 50);
	cudaStream_t s = 0;
	float *act = nullptr, *w = nullptr, *loss = nullptr;
	float h = 0.0f;

	ck(cudaStreamCreate(&s));
	ck(cudaMalloc((void **)&act, N_ACT * sizeof(float)));
	ck(cudaMalloc((void **)&w, N_W * sizeof(float)));
	ck(cudaMalloc((void **)&loss, sizeof(float)));

	sample_loop_start();
	for (long step = 0; step < steps; step++) {
		sample_busy_us(HOST_WORK_US);
		forward<<<ACT_GRID, BLOCK, 0, s>>>(act, w, N_ACT);
		loss_reduce<<<1, BLOCK, 0, s>>>(act, loss);
		sgd_update<<<W_GRID, BLOCK, 0, s>>>(w, loss, 0.01f, N_W);
		tally.launches += 3;
#ifndef ITEM_FREE
		ck(cudaMemcpyAsync(&h, loss, sizeof(h), cudaMemcpyDeviceToHost, s));
		ck(cudaStreamSynchronize(s));
		tally.copies++;
		tally.syncs++;
#endif
	}
#ifdef ITEM_FREE
	ck(cudaMemcpyAsync(&h, loss, sizeof(h), cudaMemcpyDeviceToHost, s));
	ck(cudaStreamSynchronize(s));
	tally.copies++;
	tally.syncs++;
#endif
	sample_summary(NAME, steps);

	ck(cudaFree(act));
	ck(cudaFree(w));
	ck(cudaFree(loss));
	ck(cudaStreamDestroy(s));
	return 0;
}
