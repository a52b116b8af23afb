// Benchmark load: CALLS cudaMalloc calls of 4 KiB one after another (each freed when it
// succeeds), then "ns_per_call N": what an allocation call costs, with or without probes. On the
// real libcudart without a GPU each call is a real call that fails fast.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	auto t0 = std::chrono::steady_clock::now();

	for (long i = 0; i < calls; i++) {
		void *p = nullptr;

		if (cudaMalloc(&p, 4096) == cudaSuccess)
			cudaFree(p);
	}
	double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0)
			.count();
	printf("ns_per_call %.1f\n", ns / (calls ? calls : 1));
	return 0;
}
