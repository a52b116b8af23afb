// Transfer-bound loop for the nested-call tests (tests/e2e/nested_calls.sh), run on the
// simulator: COPIES synchronous cudaMemcpy host-to-device copies of MIB MiB each from a pageable
// (malloc'd) buffer, and SYNCS cudaStreamSynchronize(0) calls, interleaved (copy, sync, copy,
// sync, ... while both last). Every other CUDA call is made exactly once: cudaMalloc(MIB MiB)
// before the loop and cudaFree after it. No kernel.
// Prints "copy_loop: copies=N syncs=M bytes=B errors=E" (bytes per copy; errors: calls that did
// not return cudaSuccess).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

int main(int argc, char **argv)
{
	long copies = argc > 1 ? atol(argv[1]) : 100;
	long syncs = argc > 2 ? atol(argv[2]) : 10;
	size_t bytes = (size_t)(argc > 3 ? atol(argv[3]) : 64) << 20;
	void *dev = nullptr;
	void *host = malloc(bytes); // pageable; the simulator moves no bytes of a copy this large
	long errors = 0;

	errors += cudaMalloc(&dev, bytes) != cudaSuccess;
	for (long i = 0; i < copies || i < syncs; i++) {
		if (i < copies)
			errors += cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess;
		if (i < syncs)
			errors += cudaStreamSynchronize(0) != cudaSuccess;
	}
	errors += cudaFree(dev) != cudaSuccess;
	free(host);
	printf("copy_loop: copies=%ld syncs=%ld bytes=%zu errors=%ld\n", copies, syncs, bytes, errors);
	return 0;
}
