/* SPDX-License-Identifier: MIT */
/*
 * Copies and memsets captured into a CUDA graph, for graph_nodes.sh: on stream s, captured
 * cudaMemcpyAsync H2D 2000 bytes, cudaMemsetAsync 300 bytes, cap_k <<<2, 32>>>, cudaMemcpyAsync
 * D2H 1000 bytes; instantiated and launched 5 times, then one cudaMemcpy H2D of 100 bytes made
 * directly. So the transfer section counts 1 copy call (H2D 100 bytes) and, graph-executed by
 * 5 launches, H2D 5 copies 10000 bytes, D2H 5 copies 5000 bytes, 5 memsets 1500 bytes.
 */
#include <stdio.h>
#include <cuda_runtime.h>

__global__ void cap_k(void)
{
}

int main(void)
{
	static char h_in[4096], h_out[4096];
	cudaStream_t s = NULL;
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	char *d = NULL;
	int errors = 0;

	errors += cudaMalloc((void **)&d, 4096) != cudaSuccess;
	errors += cudaStreamCreate(&s) != cudaSuccess;
	errors += cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess;
	errors += cudaMemcpyAsync(d, h_in, 2000, cudaMemcpyHostToDevice, s) != cudaSuccess;
	errors += cudaMemsetAsync(d + 2048, 0, 300, s) != cudaSuccess;
	cap_k<<<2, 32, 0, s>>>();
	errors += cudaMemcpyAsync(h_out, d, 1000, cudaMemcpyDeviceToHost, s) != cudaSuccess;
	errors += cudaStreamEndCapture(s, &graph) != cudaSuccess;
	errors += cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess;
	for (int i = 0; i < 5; i++)
		errors += cudaGraphLaunch(exec, s) != cudaSuccess;
	errors += cudaStreamSynchronize(s) != cudaSuccess;
	errors += cudaMemcpy(d, h_in, 100, cudaMemcpyHostToDevice) != cudaSuccess;
	printf("errors=%d\n", errors);
	return 0;
}
