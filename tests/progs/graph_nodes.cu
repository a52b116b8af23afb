/* SPDX-License-Identifier: MIT */
/*
 * Every graph node kind the runtime builds by hand, for graph_nodes.sh. One graph:
 *   memcpy node (cudaMemcpy3DParms): H2D, extent 2048 x 2 x 1 = 4096 bytes, set to 2048 x 3
 *       x 1 = 6144 in the graph before instantiation
 *   memcpy node to symbol: H2D 1024 bytes
 *   memcpy node from symbol: D2H 512 bytes (offset 256), set to 768 (offset 0) in the graph
 *   memcpy node 1D: D2D 2048 bytes, set to 3000 in the graph before instantiation
 *   memset node m1: 4-byte elements x 32, set to x 64 (256 bytes) before instantiation
 *   memset node m2: 1-byte elements x 100 (100 bytes)
 *   host node (counts its calls), event record node, event wait node
 *   kernel nodes nodes_k <<<3, 32>>> and nodes_k2 <<<5, 64>>>
 * instantiated, launched 4 times; then in the executable graph the 1D copy is set to 1000
 * bytes, m1 to x 128 (512 bytes), the 3D copy to 1024 x 2 x 1 = 2048 bytes and the copy to
 * the symbol to 512 bytes; launched 2 more times. So the graph launches executed: H2D 12
 * copies, 4 x (6144 + 1024) + 2 x (2048 + 512) = 33792 bytes; D2H 6, 4608; D2D 6, 4 x 3000 +
 * 2 x 1000 = 14000; memsets 12, 4 x 256 + 2 x 512 + 6 x 100 = 2648 bytes; 6 host calls; 12
 * event nodes; each kernel 6 times. On the real runtime without a driver every call fails
 * (23 calls the recorder sees return): nothing executed; the trace holds the calls'
 * arguments, 2 kernel node and 2 memset node calls each counted once. It prints the host
 * node's calls and exits 2 when the structs' offsets differ from what the recorder reads.
 */
#include <stddef.h>
#include <stdio.h>
#include <cuda.h>
#include <cuda_runtime.h>

__device__ int sym[256];

__global__ void nodes_k(void)
{
}

__global__ void nodes_k2(void)
{
}

static int host_calls;

static void CUDART_CB on_host(void *user)
{
	(*(int *)user)++;
}

int main(void)
{
	static char h_in[8192], h_out[8192];
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	cudaGraphNode_t n3d, nto, nfrom, n1d, m1, m2, host, rec, wait, k1, k2;
	cudaMemcpy3DParms p3 = {};
	cudaMemsetParams mp1 = {}, mp2 = {};
	cudaHostNodeParams hp = {};
	cudaKernelNodeParams kp = {};
	cudaEvent_t ev = NULL;
	char *d_a = NULL, *d_b = NULL;
	int errors = 0;

	if (offsetof(cudaMemcpy3DParms, srcPtr) != 32 || offsetof(cudaMemcpy3DParms, dstPtr) != 96 ||
	    offsetof(cudaMemcpy3DParms, extent) != 128 || offsetof(cudaMemcpy3DParms, kind) != 152 ||
	    offsetof(CUDA_MEMCPY3D, srcMemoryType) != 32 || offsetof(CUDA_MEMCPY3D, dstHost) != 128 ||
	    offsetof(CUDA_MEMCPY3D, WidthInBytes) != 176) {
		fprintf(stderr, "memcpy parameter offsets differ from bpf/gpurec.bpf.c\n");
		return 2;
	}
	errors += cudaMalloc((void **)&d_a, 8192) != cudaSuccess;
	errors += cudaMalloc((void **)&d_b, 8192) != cudaSuccess;
	errors += cudaEventCreate(&ev) != cudaSuccess;
	errors += cudaGraphCreate(&graph, 0) != cudaSuccess;

	p3.srcPtr = make_cudaPitchedPtr(h_in, 2048, 2048, 2);
	p3.dstPtr = make_cudaPitchedPtr(d_a, 2048, 2048, 2);
	p3.extent = make_cudaExtent(2048, 2, 1);
	p3.kind = cudaMemcpyHostToDevice;
	errors += cudaGraphAddMemcpyNode(&n3d, graph, NULL, 0, &p3) != cudaSuccess;
	p3.extent = make_cudaExtent(2048, 3, 1);
	errors += cudaGraphMemcpyNodeSetParams(n3d, &p3) != cudaSuccess;
	errors += cudaGraphAddMemcpyNodeToSymbol(&nto, graph, NULL, 0, sym, h_in, 1024, 0,
						 cudaMemcpyHostToDevice) != cudaSuccess;
	errors += cudaGraphAddMemcpyNodeFromSymbol(&nfrom, graph, NULL, 0, h_out, sym, 512, 256,
						   cudaMemcpyDeviceToHost) != cudaSuccess;
	errors += cudaGraphMemcpyNodeSetParamsFromSymbol(nfrom, h_out, sym, 768, 0,
							 cudaMemcpyDeviceToHost) != cudaSuccess;
	errors += cudaGraphAddMemcpyNode1D(&n1d, graph, NULL, 0, d_b, d_a, 2048,
					   cudaMemcpyDeviceToDevice) != cudaSuccess;
	errors += cudaGraphMemcpyNodeSetParams1D(n1d, d_b, d_a, 3000, cudaMemcpyDeviceToDevice) !=
		  cudaSuccess;
	mp1.dst = d_b;
	mp1.value = 1;
	mp1.elementSize = 4;
	mp1.width = 32;
	mp1.height = 1;
	errors += cudaGraphAddMemsetNode(&m1, graph, NULL, 0, &mp1) != cudaSuccess;
	mp1.width = 64;
	errors += cudaGraphMemsetNodeSetParams(m1, &mp1) != cudaSuccess;
	mp2.dst = d_a + 4096;
	mp2.value = 2;
	mp2.elementSize = 1;
	mp2.width = 100;
	mp2.height = 1;
	errors += cudaGraphAddMemsetNode(&m2, graph, NULL, 0, &mp2) != cudaSuccess;
	hp.fn = on_host;
	hp.userData = &host_calls;
	errors += cudaGraphAddHostNode(&host, graph, NULL, 0, &hp) != cudaSuccess;
	errors += cudaGraphAddEventRecordNode(&rec, graph, NULL, 0, ev) != cudaSuccess;
	errors += cudaGraphAddEventWaitNode(&wait, graph, NULL, 0, ev) != cudaSuccess;
	kp.func = (void *)nodes_k;
	kp.gridDim = dim3(3);
	kp.blockDim = dim3(32);
	errors += cudaGraphAddKernelNode(&k1, graph, NULL, 0, &kp) != cudaSuccess;
	kp.func = (void *)nodes_k2;
	kp.gridDim = dim3(5);
	kp.blockDim = dim3(64);
	errors += cudaGraphAddKernelNode(&k2, graph, NULL, 0, &kp) != cudaSuccess;

	errors += cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess;
	for (int i = 0; i < 4; i++)
		errors += cudaGraphLaunch(exec, 0) != cudaSuccess;
	errors += cudaGraphExecMemcpyNodeSetParams1D(exec, n1d, d_b, d_a, 1000,
						     cudaMemcpyDeviceToDevice) != cudaSuccess;
	mp1.width = 128;
	errors += cudaGraphExecMemsetNodeSetParams(exec, m1, &mp1) != cudaSuccess;
	p3.extent = make_cudaExtent(1024, 2, 1);
	errors += cudaGraphExecMemcpyNodeSetParams(exec, n3d, &p3) != cudaSuccess;
	errors += cudaGraphExecMemcpyNodeSetParamsToSymbol(exec, nto, sym, h_in, 512, 0,
							   cudaMemcpyHostToDevice) != cudaSuccess;
	for (int i = 0; i < 2; i++)
		errors += cudaGraphLaunch(exec, 0) != cudaSuccess;
	errors += cudaDeviceSynchronize() != cudaSuccess;
	printf("errors=%d host_calls=%d\n", errors, host_calls);
	return 0;
}
