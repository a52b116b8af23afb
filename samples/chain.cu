/* SPDX-License-Identifier: MIT */
/*
 * chain, chain_fused (-DFUSED): the fusion-opportunity pair.
 *
 * chain (pathology): every step launches a chain of five small elementwise kernels back to back
 * on one stream, with no sync and no copy between them, then synchronises the stream once. The
 * grid has 16 blocks, fewer than any data-centre GPU has SMs: each kernel is latency-bound, and
 * the host's launch cost, not the GPU, sets the pace.
 * chain_fused (healthy twin): the same arithmetic as one kernel per step.
 *
 * Calls, in this order, each made exactly once where counted, whatever CUDA returns:
 *   setup     cudaStreamCreate(&S)                          1
 *             cudaMalloc(16384 bytes)                       3   (x, bias, residual)
 *   per step  chain:  bias_add, gelu, scale, residual_add, dropout_mask, in this order,
 *                     each <<<(16,1,1), (256,1,1), 0, S>>>  5 launches
 *             fused:  fused_elementwise<<<(16,1,1), (256,1,1), 0, S>>>
 *                                                           1 launch
 *             cudaStreamSynchronize(S)                      1
 *   teardown  cudaFree                                      3
 *             cudaStreamDestroy(S)                          1
 * No copies, no other sync. argv[1] = steps (default 50): chain makes 5 x steps launches,
 * chain_fused steps launches, both steps stream syncs.
 * Kernels (demangled): bias_add(float*, float const*, int), gelu(float*, int),
 * scale(float*, float, int), residual_add(float*, float const*, int),
 * dropout_mask(float*, unsigned int, int),
 * fused_elementwise(float*, float const*, float const*, float, unsigned int, int).
 */
#include "sample.h"

#ifdef FUSED
#define NAME "chain_fused"
#else
#define NAME "chain"
#endif

#define N      4096 /* floats per buffer */
#define BLOCK  256
#define GRID   (N / BLOCK) /* 16 */
#define SCALE  0.5f
#define P_KEEP 0.9f

__device__ float gelu_f(float v)
{
	return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

/* Keeps an element with probability P_KEEP, from a hash of its index and the step's seed. */
__device__ float dropout_f(float v, unsigned seed, int i)
{
	unsigned h = (unsigned)i * 2654435761u ^ seed;

	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	return (h & 0xffffff) < (unsigned)(P_KEEP * 0xffffff) ? v / P_KEEP : 0.0f;
}

__global__ void bias_add(float *x, const float *bias, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += bias[i];
}

__global__ void gelu(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = gelu_f(x[i]);
}

__global__ void scale(float *x, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= s;
}

__global__ void residual_add(float *x, const float *res, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += res[i];
}

__global__ void dropout_mask(float *x, unsigned seed, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = dropout_f(x[i], seed, i);
}

__global__ void fused_elementwise(float *x, const float *bias, const float *res, float s,
				  unsigned seed, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = dropout_f(gelu_f(x[i] + bias[i]) * s + res[i], seed, i);
}

int main(int argc, char **argv)
{
	long steps = sample_steps(argc, argv, 50);
	cudaStream_t s = 0;
	float *x = nullptr, *bias = nullptr, *res = nullptr;

	ck(cudaStreamCreate(&s));
	ck(cudaMalloc((void **)&x, N * sizeof(float)));
	ck(cudaMalloc((void **)&bias, N * sizeof(float)));
	ck(cudaMalloc((void **)&res, N * sizeof(float)));

	sample_loop_start();
	for (long step = 0; step < steps; step++) {
#ifdef FUSED
		fused_elementwise<<<GRID, BLOCK, 0, s>>>(x, bias, res, SCALE, (unsigned)step, N);
		tally.launches += 1;
#else
		bias_add<<<GRID, BLOCK, 0, s>>>(x, bias, N);
		gelu<<<GRID, BLOCK, 0, s>>>(x, N);
		scale<<<GRID, BLOCK, 0, s>>>(x, SCALE, N);
		residual_add<<<GRID, BLOCK, 0, s>>>(x, res, N);
		dropout_mask<<<GRID, BLOCK, 0, s>>>(x, (unsigned)step, N);
		tally.launches += 5;
#endif
		ck(cudaStreamSynchronize(s));
		tally.syncs++;
	}
	sample_summary(NAME, steps);

	ck(cudaFree(x));
	ck(cudaFree(bias));
	ck(cudaFree(res));
	ck(cudaStreamDestroy(s));
	return 0;
}
