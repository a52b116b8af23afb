// End-to-end ground truth for `gpurec record` (tests/e2e/record_basic.sh). Every call below is
// made exactly as counted, whatever CUDA returns (no driver here: every call fails).
//   1000 x scale_bias<<<(70000,3,2), (32,4,2), 128, stream 0x1234>>>   (grid.x > 65535)
//     64 x reduce_rows<<<(1,1,1), (256,1,1), 0, default stream>>>
//   cudaMemcpy H2D 3 x 1048576, D2H 2 x 4096, H2H 1 x 10, default 1 x 7
//   cudaMemcpyAsync D2D 5 x 100 on stream 0x1234
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale_bias(float *x, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * s + 1.0f;
}

__global__ void reduce_rows(const float *x, float *out)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = x[0];
}

int main(int argc, char **argv)
{
	int launches = argc > 1 ? atoi(argv[1]) : 1000;
	cudaStream_t stream = (cudaStream_t)0x1234;
	float *dev = (float *)0x7f0000001000ull, *dev2 = (float *)0x7f0000101000ull;
	char *host = (char *)calloc(1, 1 << 20), *host2 = (char *)calloc(1, 1 << 20);

	for (int i = 0; i < launches; i++)
		scale_bias<<<dim3(70000, 3, 2), dim3(32, 4, 2), 128, stream>>>(dev, 2.0f, 7);
	for (int i = 0; i < 64; i++)
		reduce_rows<<<1, 256>>>(dev, dev2);
	for (int i = 0; i < 3; i++)
		cudaMemcpy(dev, host, 1 << 20, cudaMemcpyHostToDevice);
	for (int i = 0; i < 2; i++)
		cudaMemcpy(host, dev, 4096, cudaMemcpyDeviceToHost);
	cudaMemcpy(host2, host, 10, cudaMemcpyHostToHost);
	cudaMemcpy(host2, host, 7, cudaMemcpyDefault);
	for (int i = 0; i < 5; i++)
		cudaMemcpyAsync(dev2, dev, 100, cudaMemcpyDeviceToDevice, stream);
	free(host);
	free(host2);
	return 3; /* a distinctive status: record must pass it through */
}
