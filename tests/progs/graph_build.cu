/* SPDX-License-Identifier: MIT */
/*
 * A CUDA graph built by hand (no stream capture), for graph_build.sh. The graph holds node_a
 * <<<4, 128>>>, node_b <<<(2, 3), 64>>> and a child graph of child_k <<<1, 32>>>. Before the
 * instantiation node_b is set to <<<8, 64>>>; the executable graph runs 3 times; node_a is set
 * to <<<16, 128>>> in the graph, which reaches the executable graph through cudaGraphExecUpdate;
 * it runs 4 times; node_b is set to <<<5, 64>>> in the executable graph; it runs 2 times; the
 * graph is cloned (the clone never runs). So node_a executes 3 x <<<4>>> + 6 x <<<16>>>, node_b
 * 7 x <<<8>>> + 2 x <<<5>>>, child_k 9 x <<<1>>>. On the real runtime without a driver every
 * call fails and nothing executes. It also checks the kernel node parameter offsets the
 * recorder reads (bpf/gpurec.h) and exits 2 when they differ.
 */
#include <stddef.h>
#include <stdio.h>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void node_a(void)
{
}
__global__ void node_b(void)
{
}
__global__ void child_k(void)
{
}

static cudaKernelNodeParams params(const void *func, dim3 grid, dim3 block)
{
	cudaKernelNodeParams p = {};

	p.func = (void *)func;
	p.gridDim = grid;
	p.blockDim = block;
	return p;
}

static void launch(cudaGraphExec_t exec, int times)
{
	for (int i = 0; i < times; i++)
		cudaGraphLaunch(exec, 0);
	cudaDeviceSynchronize();
}

int main(void)
{
	cudaGraph_t graph = NULL, child = NULL, clone = NULL;
	cudaGraphExec_t exec = NULL;
	cudaGraphNode_t a = NULL, b = NULL, c = NULL, in_child = NULL;
	cudaGraphExecUpdateResultInfo info;
	cudaKernelNodeParams p;

	if (offsetof(cudaKernelNodeParams, func) != 0 ||
	    offsetof(cudaKernelNodeParams, gridDim) != 8 ||
	    offsetof(cudaKernelNodeParams, blockDim) != 20 ||
	    offsetof(cudaKernelNodeParams, sharedMemBytes) != 32 ||
	    offsetof(CUDA_KERNEL_NODE_PARAMS, gridDimX) != 8 ||
	    offsetof(CUDA_KERNEL_NODE_PARAMS, blockDimX) != 20 ||
	    offsetof(CUDA_KERNEL_NODE_PARAMS, sharedMemBytes) != 32) {
		fprintf(stderr, "kernel node parameter offsets differ from bpf/gpurec.h\n");
		return 2;
	}
	cudaGraphCreate(&graph, 0);
	cudaGraphCreate(&child, 0);
	p = params((const void *)node_a, dim3(4), dim3(128));
	cudaGraphAddKernelNode(&a, graph, NULL, 0, &p);
	p = params((const void *)node_b, dim3(2, 3), dim3(64));
	cudaGraphAddKernelNode(&b, graph, &a, a ? 1 : 0, &p);
	p = params((const void *)child_k, dim3(1), dim3(32));
	cudaGraphAddKernelNode(&in_child, child, NULL, 0, &p);
	cudaGraphAddChildGraphNode(&c, graph, &b, b ? 1 : 0, child);
	p = params((const void *)node_b, dim3(8), dim3(64));
	cudaGraphKernelNodeSetParams(b, &p);
	cudaGraphInstantiate(&exec, graph, 0);
	launch(exec, 3);
	p = params((const void *)node_a, dim3(16), dim3(128));
	cudaGraphKernelNodeSetParams(a, &p);
	cudaGraphExecUpdate(exec, graph, &info);
	launch(exec, 4);
	p = params((const void *)node_b, dim3(5), dim3(64));
	cudaGraphExecKernelNodeSetParams(exec, b, &p);
	launch(exec, 2);
	cudaGraphClone(&clone, graph);
	printf("graph_build: %s\n", cudaGetErrorName(cudaGetLastError()));
	return 0;
}
