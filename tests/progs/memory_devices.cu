// Device memory on two devices (run on samples/sim with GPUSIM_DEVICES=2): the main thread
// allocates on device 0 (its current device, never set) 8 MiB kept and 2 MiB freed at once
// (peak 10 MiB); a second thread sets device 1 and allocates 16 MiB kept and 4 MiB freed (peak
// 20 MiB). The main thread then frees the 16 MiB of device 1 (a free counts on its
// allocation's device) and its own 8 MiB: nothing outstanding.
#include <cstdio>
#include <pthread.h>
#include <cuda_runtime.h>

static void *dev1_block;

static void *on_device1(void *)
{
	void *tmp = nullptr;

	if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&dev1_block, 16 << 20) != cudaSuccess ||
	    cudaMalloc(&tmp, 4 << 20) != cudaSuccess || cudaFree(tmp) != cudaSuccess)
		dev1_block = nullptr;
	return nullptr;
}

int main()
{
	void *kept = nullptr, *tmp = nullptr;
	pthread_t t;
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
		fprintf(stderr, "memory_devices: needs 2 devices (GPUSIM_DEVICES=2), has %d\n", n);
		return 1;
	}
	if (cudaMalloc(&kept, 8 << 20) != cudaSuccess || cudaMalloc(&tmp, 2 << 20) != cudaSuccess ||
	    cudaFree(tmp) != cudaSuccess)
		return 1;
	pthread_create(&t, nullptr, on_device1, nullptr);
	pthread_join(t, nullptr);
	if (!dev1_block || cudaFree(dev1_block) != cudaSuccess || cudaFree(kept) != cudaSuccess)
		return 1;
	return 0;
}
