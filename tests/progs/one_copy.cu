// One tiny copy in a launch loop, for the transfer verdict's floor (tests/e2e/report_transfer_floor.sh),
// run on the simulator: STEPS iterations of three kernels (a, b, c: 132 x 256 threads) on the
// default stream and a cudaDeviceSynchronize, then, once, BYTES (default 4) read back from the
// device with a synchronous cudaMemcpy. Prints "one_copy: steps=N bytes=B errors=E" (errors:
// calls that did not return cudaSuccess, the launches' cudaGetLastError included).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void a(float *x) { x[threadIdx.x] += 1.0f; }
__global__ void b(float *x) { x[threadIdx.x] *= 2.0f; }
__global__ void c(float *x) { x[threadIdx.x] -= 1.0f; }

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 200;
	size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 4;
	float *dev = nullptr;
	char *host = (char *)calloc(1, bytes < 1024 ? 1024 : bytes);
	long errors = 0;

	errors += cudaMalloc(&dev, bytes < 1024 ? 1024 : bytes) != cudaSuccess;
	for (long i = 0; i < steps; i++) {
		a<<<132, 256>>>(dev);
		b<<<132, 256>>>(dev);
		c<<<132, 256>>>(dev);
		errors += cudaGetLastError() != cudaSuccess;
		errors += cudaDeviceSynchronize() != cudaSuccess;
	}
	errors += cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
	errors += cudaFree(dev) != cudaSuccess;
	free(host);
	printf("one_copy: steps=%ld bytes=%zu errors=%ld\n", steps, bytes, errors);
	return 0;
}
