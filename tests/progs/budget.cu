// A training step of known shape, for the step budget's ground truth on the simulator
// (tests/e2e/report_budget.sh): ITERATIONS times, on a created stream S, busy-wait HOST_US
// microseconds on the CPU (host work outside any CUDA call), launch LAUNCHES kernels, then
// cudaStreamSynchronize(S). Each kernel is 1056 x 50 blocks of 256 threads: the simulator
// models it as 50 waves of 2 us = 100 us of GPU time, so the sync waits. Prints
// "budget: host_us=H launches=N kernel_us=100 iterations=I" first.
// Calls: cudaStreamCreate 1, per iteration LAUNCHES launches and 1 sync, cudaStreamDestroy 1.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void step(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

static unsigned long long now_ns()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

// Not inlined, and never a CUDA call: the host work the budget must find outside calls.
__attribute__((noinline)) static void host_work(unsigned us)
{
	unsigned long long end = now_ns() + us * 1000ull;

	while (now_ns() < end)
		;
}

int main(int argc, char **argv)
{
	unsigned iterations = argc > 1 ? (unsigned)atoi(argv[1]) : 50;
	unsigned host_us = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	unsigned launches = argc > 3 ? (unsigned)atoi(argv[3]) : 4;
	cudaStream_t s = nullptr;

	printf("budget: host_us=%u launches=%u kernel_us=100 iterations=%u\n", host_us, launches,
	       iterations);
	fflush(stdout);
	cudaStreamCreate(&s);
	for (unsigned i = 0; i < iterations; i++) {
		host_work(host_us);
		for (unsigned k = 0; k < launches; k++)
			step<<<dim3(1056, 50), 256, 0, s>>>(nullptr);
		cudaStreamSynchronize(s);
	}
	cudaStreamDestroy(s);
	return 0;
}
