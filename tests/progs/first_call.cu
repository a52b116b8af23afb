// The first call of most CUDA programs, and on a machine without a driver their last: like the
// cuda-samples, ask for the device count, and on an error say it and exit 1. No kernel is
// launched; the one recorded call is cudaGetDeviceCount, failed (tests/e2e/record_first_call.sh).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

int main(void)
{
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);

	if (err != cudaSuccess) {
		printf("cudaGetDeviceCount returned %d\n-> %s\n", (int)err, cudaGetErrorString(err));
		return EXIT_FAILURE;
	}
	printf("%d devices\n", n);
	return 0;
}
