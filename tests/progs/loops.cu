// Two loops whose iterations the report must count exactly (issue 11, item 6).
//   loops timed:   a warm-up launch, cudaDeviceSynchronize, cudaEventRecord(start), 300
//                  launches of the same kernel, cudaEventRecord(stop), cudaEventSynchronize:
//                  300 iterations of 1 launch (the warm-up is not one).
//   loops streams: setup per stream (4): cudaMemcpy H2D 64 KiB, cudaEventRecord(e, s); then per
//                  stream, stream after stream, 20 times: cudaEventSynchronize(e), launch on s,
//                  cudaMemcpyAsync H2D then D2H 64 KiB on s, cudaEventRecord(e, s): 20
//                  iterations of those 5 calls (1 launch, 2 copies, 1 sync, 1 other).
// Every launch is k<<<1, 32>>>. Prints "launches N".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define NSTREAMS 4
#define BYTES	 65536

__global__ void k(float *x)
{
	if (x)
		x[threadIdx.x] = 1;
}

static int timed(void)
{
	cudaEvent_t start = nullptr, stop = nullptr;
	float *d = nullptr, ms = 0;
	int n = 0;

	cudaMalloc(&d, 4096);
	cudaEventCreate(&start);
	cudaEventCreate(&stop);
	k<<<1, 32>>>(d), n++;
	cudaDeviceSynchronize();
	cudaEventRecord(start);
	for (int i = 0; i < 300; i++)
		k<<<1, 32>>>(d), n++;
	cudaEventRecord(stop);
	cudaEventSynchronize(stop);
	cudaEventElapsedTime(&ms, start, stop);
	return n;
}

static int streams(void)
{
	cudaStream_t s[NSTREAMS] = {};
	cudaEvent_t e[NSTREAMS] = {};
	float *h[NSTREAMS] = {}, *d[NSTREAMS] = {};
	int n = 0;

	for (int i = 0; i < NSTREAMS; i++) {
		cudaStreamCreate(&s[i]);
		cudaEventCreate(&e[i]);
		cudaMallocHost(&h[i], BYTES);
		cudaMalloc(&d[i], BYTES);
		cudaMemcpy(d[i], h[i], BYTES, cudaMemcpyHostToDevice);
		cudaEventRecord(e[i], s[i]);
	}
	for (int i = 0; i < NSTREAMS; i++)
		for (int it = 0; it < 20; it++) {
			cudaEventSynchronize(e[i]);
			k<<<1, 32, 0, s[i]>>>(d[i]), n++;
			cudaMemcpyAsync(d[i], h[i], BYTES, cudaMemcpyHostToDevice, s[i]);
			cudaMemcpyAsync(h[i], d[i], BYTES, cudaMemcpyDeviceToHost, s[i]);
			cudaEventRecord(e[i], s[i]);
		}
	cudaDeviceSynchronize();
	return n;
}

int main(int argc, char **argv)
{
	int streams_mode = argc > 1 && !strcmp(argv[1], "streams");

	printf("launches %d\n", streams_mode ? streams() : timed());
	return 0;
}
