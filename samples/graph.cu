/* SPDX-License-Identifier: MIT */
/*
 * graph, graph_eager (-DEAGER): a training step captured once into a CUDA graph and replayed,
 * and its twin that launches the same kernels directly every step.
 *
 * The step is LAYERS (10) layers of four small kernels each, 40 launches on one stream. graph
 * captures it once before the loop (stream capture, then instantiate) and launches the graph
 * each step: one host launch call executes 40 kernels. graph_eager makes the 40 launches every
 * step. Both synchronise the stream once per step.
 *
 * Calls, in this order, each made exactly once where counted, whatever CUDA returns:
 *   setup     cudaStreamCreate(&S)                                      1
 *             cudaMalloc(16384 bytes)                                   2   (x, w)
 *   graph:    cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal)    1
 *             the step's 40 launches on S (below)                      40
 *             cudaStreamEndCapture(S, &G)                               1
 *             cudaGraphInstantiate(&X, G, 0)                            1
 *   per step  graph:  cudaGraphLaunch(X, S)                             1
 *             eager:  the step's 40 launches on S                      40
 *             cudaStreamSynchronize(S)                                  1
 *   teardown  graph:  cudaGraphExecDestroy(X) 1, cudaGraphDestroy(G) 1
 *             cudaFree                                                  2
 *             cudaStreamDestroy(S)                                      1
 * The step, per layer, in this order: layer_linear<<<(16,1,1), (256,1,1), 0, S>>>,
 * layer_bias<<<(16,1,1), (256,1,1), 0, S>>>, layer_act<<<(16,1,1), (256,1,1), 0, S>>>,
 * layer_norm<<<(1,1,1), (256,1,1), 0, S>>>.
 * argv[1] = steps (default 50). The loop's launches: graph makes steps graph launches (each
 * executing 40 kernels), graph_eager 40 x steps launches; both make steps syncs.
 * Kernels (demangled): layer_linear(float*, float const*, int), layer_bias(float*, int),
 * layer_act(float*, int), layer_norm(float*, int).
 */
#include "sample.h"

#ifdef EAGER
#define NAME "graph_eager"
#else
#define NAME "graph"
#endif

#define N      4096 /* floats per buffer */
#define BLOCK  256
#define GRID   (N / BLOCK) /* 16 */
#define LAYERS 10

__global__ void layer_linear(float *x, const float *w, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * w[i];
}

__global__ void layer_bias(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += 0.01f;
}

__global__ void layer_act(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] > 0.0f ? x[i] : 0.1f * x[i];
}

/* One block scales the whole buffer by its first element's magnitude (a cheap stand-in). */
__global__ void layer_norm(float *x, int n)
{
	float s = fabsf(x[0]) + 1.0f;

	for (int i = threadIdx.x; i < n; i += blockDim.x)
		x[i] /= s;
}

/* The step: 40 launches on s. */
static void step(cudaStream_t s, float *x, const float *w)
{
	for (int l = 0; l < LAYERS; l++) {
		layer_linear<<<GRID, BLOCK, 0, s>>>(x, w, N);
		layer_bias<<<GRID, BLOCK, 0, s>>>(x, N);
		layer_act<<<GRID, BLOCK, 0, s>>>(x, N);
		layer_norm<<<1, BLOCK, 0, s>>>(x, N);
	}
}

int main(int argc, char **argv)
{
	long steps = sample_steps(argc, argv, 50);
	cudaStream_t s = 0;
	float *x = nullptr, *w = nullptr;
#ifndef EAGER
	cudaGraph_t g = nullptr;
	cudaGraphExec_t exec = nullptr;
#endif

	ck(cudaStreamCreate(&s));
	ck(cudaMalloc((void **)&x, N * sizeof(float)));
	ck(cudaMalloc((void **)&w, N * sizeof(float)));
#ifndef EAGER
	ck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	step(s, x, w);
	ck(cudaStreamEndCapture(s, &g));
	ck(cudaGraphInstantiate(&exec, g, 0));
#endif

	sample_loop_start();
	for (long i = 0; i < steps; i++) {
#ifdef EAGER
		step(s, x, w);
		tally.launches += 4 * LAYERS;
#else
		ck(cudaGraphLaunch(exec, s));
		tally.launches += 1;
#endif
		ck(cudaStreamSynchronize(s));
		tally.syncs++;
	}
	sample_summary(NAME, steps);

#ifndef EAGER
	ck(cudaGraphExecDestroy(exec));
	ck(cudaGraphDestroy(g));
#endif
	ck(cudaFree(x));
	ck(cudaFree(w));
	ck(cudaStreamDestroy(s));
	return 0;
}
