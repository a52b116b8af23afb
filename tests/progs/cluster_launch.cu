/* SPDX-License-Identifier: MIT */
/*
 * Thread block cluster dimensions, for cluster_dims.sh, on the real libcudart (without a driver
 * every launch fails; the recorder sees the configs):
 *   5 x cudaLaunchKernelExC(cluster_k) grid (8,4,1) block (128,1,1), attributes: a priority,
 *       then a cluster dimension (4,2,1)
 *   2 x the same launch without attributes (no cluster)
 *   3 x cudaLaunchKernelEx(cluster_k2) grid (6,1,1) block (64,1,1) shmem 256, cluster (2,1,1)
 * It exits 2 when the launch attribute layout differs from what the recorder reads
 * (bpf/gpurec.h, GR_LAUNCH_CONFIG_ATTRS and on).
 */
#include <stddef.h>
#include <stdio.h>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void cluster_k(int v)
{
}

__global__ void cluster_k2(int v)
{
}

int main(void)
{
	cudaLaunchAttribute attrs[2] = {};
	cudaLaunchConfig_t cfg = {};
	int v = 0;
	void *args[] = {&v};

	if (offsetof(cudaLaunchConfig_t, attrs) != 40 || offsetof(cudaLaunchConfig_t, numAttrs) != 48 ||
	    sizeof(cudaLaunchAttribute) != 72 || offsetof(cudaLaunchAttribute, val) != 8 ||
	    offsetof(CUlaunchConfig, attrs) != 40 || offsetof(CUlaunchConfig, numAttrs) != 48 ||
	    sizeof(CUlaunchAttribute) != 72 || offsetof(CUlaunchAttribute, value) != 8 ||
	    cudaLaunchAttributeClusterDimension != 4 || CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION != 4) {
		fprintf(stderr, "launch attribute layout differs from bpf/gpurec.h\n");
		return 2;
	}
	attrs[0].id = cudaLaunchAttributePriority;
	attrs[0].val.priority = 1;
	attrs[1].id = cudaLaunchAttributeClusterDimension;
	attrs[1].val.clusterDim.x = 4;
	attrs[1].val.clusterDim.y = 2;
	attrs[1].val.clusterDim.z = 1;
	cfg.gridDim = dim3(8, 4, 1);
	cfg.blockDim = dim3(128, 1, 1);
	cfg.attrs = attrs;
	cfg.numAttrs = 2;
	for (int i = 0; i < 5; i++)
		cudaLaunchKernelExC(&cfg, (const void *)cluster_k, args);
	cfg.attrs = NULL;
	cfg.numAttrs = 0;
	for (int i = 0; i < 2; i++)
		cudaLaunchKernelExC(&cfg, (const void *)cluster_k, args);
	cfg.gridDim = dim3(6, 1, 1);
	cfg.blockDim = dim3(64, 1, 1);
	cfg.dynamicSmemBytes = 256;
	attrs[0].id = cudaLaunchAttributeClusterDimension;
	attrs[0].val.clusterDim.x = 2;
	attrs[0].val.clusterDim.y = 1;
	attrs[0].val.clusterDim.z = 1;
	cfg.attrs = attrs;
	cfg.numAttrs = 1;
	for (int i = 0; i < 3; i++)
		cudaLaunchKernelEx(&cfg, cluster_k2, 0);
	printf("done\n");
	return 0;
}
