// Device memory with known truth (issue 31, tests/e2e/report_memory.sh), on the simulator:
//   memory_steps leak|healthy [STEPS]   (STEPS >= 12, default 30)
// Before the loop: cudaMalloc 64 MiB (base, held to the end), cudaMallocHost 4 MiB (pinned,
// freed at the end). Each step, on the default stream:
//   cudaMalloc 16 MiB (tmp; 48 MiB in step 10, the same calls: the loop stays one), in step 5
//   then cudaMemGetInfo (printed) and cudaMalloc 96 GiB (fails: the simulated device has 80), a
//   1 ms kernel, cudaMalloc 1 MiB (kept: the leak), cudaMallocAsync 2 MiB and cudaFreeAsync of it
//   (a pool's reuse: never a leak), cudaFree tmp (waits for the kernel).
// leak keeps every 1 MiB buffer to the end (never freed); healthy frees it at the end of its step.
// So, leak: live device bytes 64 + 16 + 5 = 85 MiB when the 96 GiB request fails; the peak is
// 64 + 48 + 11 + 2 = 125 MiB, in step 10 (healthy: 64 + 48 + 1 + 2 = 115 MiB); growth
// 1 MiB a step; STEPS MiB outstanding at the end from keep(). Per step: 3 device allocations
// (tmp, leak, async) of 19 MiB, 2 frees (healthy: 3). The host waits in cudaFree for the kernel.
// Prints "memory_steps: MODE steps=N".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define MiB (1ull << 20)

__global__ void work(float *x)
{
	if (x)
		x[threadIdx.x] += 1;
}

// Each allocation from its own function, not inlined: each is its own call site.
__attribute__((noinline)) static void *base_alloc(void)
{
	void *p = nullptr;

	cudaMalloc(&p, 64 * MiB);
	return p;
}

__attribute__((noinline)) static void *tmp_alloc(size_t bytes)
{
	void *p = nullptr;

	cudaMalloc(&p, bytes);
	return p;
}

__attribute__((noinline)) static void *keep(void)
{
	void *p = nullptr;

	cudaMalloc(&p, 1 * MiB);
	return p;
}

// Asks what is free first, as a program that sizes its buffers does, and prints it: the report
// names the answer beside the failure.
__attribute__((noinline)) static int huge(void)
{
	size_t free = 0, total = 0;
	void *p = nullptr;

	if (cudaMemGetInfo(&free, &total) == cudaSuccess)
		printf("memory_steps: told free=%zu total=%zu\n", free, total);
	return cudaMalloc(&p, 96ull << 30);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int steps = argc > 2 ? atoi(argv[2]) : 30, leak = !strcmp(mode, "leak");
	void *base, *pinned = nullptr, **kept;

	if ((!leak && strcmp(mode, "healthy")) || steps < 12) {
		fprintf(stderr, "usage: memory_steps leak|healthy [STEPS >= 12]\n");
		return 2;
	}
	kept = (void **)calloc(steps, sizeof(*kept));
	base = base_alloc();
	cudaMallocHost(&pinned, 4 * MiB);
	for (int i = 0; i < steps; i++) {
		void *tmp = tmp_alloc(i == 10 ? 48 * MiB : 16 * MiB), *async = nullptr;

		if (i == 5)
			huge();
		work<<<dim3(1056, 500), 256>>>((float *)tmp);
		kept[i] = keep();
		cudaMallocAsync(&async, 2 * MiB, 0);
		cudaFreeAsync(async, 0);
		if (!leak)
			cudaFree(kept[i]);
		cudaFree(tmp);
	}
	cudaFree(base);
	cudaFreeHost(pinned);
	printf("memory_steps: %s steps=%d\n", mode, steps);
	return 0;
}
