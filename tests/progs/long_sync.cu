// A program that sits inside one long synchronisation, for the in-flight tests
// (tests/e2e/record_in_flight.sh), run on the simulator: it launches one kernel that the
// simulator models as SECONDS long on a created stream S (grid SECONDS x 500000 x 264 blocks of
// 1024 threads: 264 resident blocks a wave, 2 us a wave), prints
//   "long_sync: pid=P stream=0xS waiting" (flushed)
// and then waits in cudaDeviceSynchronize (MODE "device") or cudaStreamSynchronize(S) (MODE
// "stream") from its own function wait_for_gpu(), then prints "long_sync: done status=N".
// Calls: cudaStreamCreate 1, the launch 1, the sync 1, cudaStreamDestroy 1.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void spin(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

// Not inlined: the in-flight sync's stack must name it.
__attribute__((noinline)) static cudaError_t wait_for_gpu(int device, cudaStream_t s)
{
	return device ? cudaDeviceSynchronize() : cudaStreamSynchronize(s);
}

int main(int argc, char **argv)
{
	unsigned seconds = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
	int device = argc < 3 || strcmp(argv[2], "stream");
	cudaStream_t s = nullptr;
	cudaError_t err;

	cudaStreamCreate(&s);
	spin<<<dim3(500000 * 264, seconds), 1024, 0, s>>>(nullptr);
	printf("long_sync: pid=%d stream=%p waiting\n", (int)getpid(), (void *)s);
	fflush(stdout);
	err = wait_for_gpu(device, s);
	printf("long_sync: done status=%d\n", (int)err);
	cudaStreamDestroy(s);
	return 0;
}
