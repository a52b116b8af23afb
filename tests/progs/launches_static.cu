// nvcc's default: cudart linked statically into the executable.
//   300 x static_kernel<<<(1000, 2, 1), (128, 1, 1), 64>>>; 2 x cudaMemcpy H2D 512 bytes
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void static_kernel(int *x)
{
	if (x)
		x[0] = 1;
}

int main()
{
	char *host = (char *)calloc(1, 512);
	for (int i = 0; i < 300; i++)
		static_kernel<<<dim3(1000, 2, 1), 128, 64>>>(nullptr);
	for (int i = 0; i < 2; i++)
		cudaMemcpy((void *)0x7f0000001000ull, host, 512, cudaMemcpyHostToDevice);
	free(host);
	return 0;
}
