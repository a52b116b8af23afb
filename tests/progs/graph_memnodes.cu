/* SPDX-License-Identifier: MIT */
/*
 * A CUDA graph built by hand with memory nodes, for graph_build.sh: a 4096-byte H2D memcpy node
 * (cudaGraphAddMemcpyNode1D), a memset node of 256 4-byte elements (1024 bytes, value 7) and a
 * kernel node mem_k <<<2, 64>>>, instantiated and launched 3 times. On the real runtime without
 * a driver every call fails: the trace still holds the nodes' arguments. It checks the
 * cudaMemsetParams offsets the recorder reads (bpf/gpurec.bpf.c) and exits 2 when they differ.
 */
#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime.h>

__global__ void mem_k(void)
{
}

int main(void)
{
	static char host[4096];
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	cudaGraphNode_t copy = NULL, set = NULL, kern = NULL;
	cudaMemsetParams mp = {};
	cudaKernelNodeParams kp = {};
	void *dev = NULL;
	int errors = 0;

	if (offsetof(cudaMemsetParams, value) != 16 ||
	    offsetof(cudaMemsetParams, elementSize) != 20 ||
	    offsetof(cudaMemsetParams, width) != 24 || offsetof(cudaMemsetParams, height) != 32) {
		fprintf(stderr, "cudaMemsetParams offsets differ from bpf/gpurec.bpf.c\n");
		return 2;
	}
	errors += cudaMalloc(&dev, 4096) != cudaSuccess;
	errors += cudaGraphCreate(&graph, 0) != cudaSuccess;
	errors += cudaGraphAddMemcpyNode1D(&copy, graph, NULL, 0, dev, host, sizeof(host),
					   cudaMemcpyHostToDevice) != cudaSuccess;
	mp.dst = dev;
	mp.value = 7;
	mp.elementSize = 4;
	mp.width = 256;
	mp.height = 1;
	errors += cudaGraphAddMemsetNode(&set, graph, &copy, 1, &mp) != cudaSuccess;
	kp.func = (void *)mem_k;
	kp.gridDim = dim3(2);
	kp.blockDim = dim3(64);
	errors += cudaGraphAddKernelNode(&kern, graph, &set, 1, &kp) != cudaSuccess;
	errors += cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess;
	for (int i = 0; i < 3; i++)
		errors += cudaGraphLaunch(exec, 0) != cudaSuccess;
	errors += cudaDeviceSynchronize() != cudaSuccess;
	printf("errors=%d\n", errors);
	return 0;
}
