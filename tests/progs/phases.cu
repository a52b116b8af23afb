// Programs with several loops, or with allocations in the step, whose iteration the report must
// find exactly (issue 28): the loop holding the most calls is the iteration, the others are
// listed beside it. Each step's calls are on one stream s, created first.
//   phases warm_train:       10 warm-up steps, cudaDeviceSynchronize, 1000 training steps. A
//                            step: cudaMemcpyAsync H2D 64 KiB, fwd, bwd, cudaStreamSynchronize;
//                            the warm-up's fwd runs a grid of 64 blocks, the training's of 128
//                            (autotuning warm-up): the same period, another call. The
//                            iteration: 1000 iterations of 4 calls (2 launches, 1 copy, 1 sync).
//   phases train_warm:       the same, the 1000 training steps first.
//   phases warm_same:        as warm_train with the same grid in both: the same calls.
//   phases alloc_step:       100 steps: cudaMalloc 1 MiB temp, step x 3, cudaFree temp: 100
//                            iterations of 5 calls (3 launches, 2 allocs).
//   phases alloc_async:      100 steps: cudaMallocAsync 1 MiB temp on s, step x 3,
//                            cudaFreeAsync, cudaStreamSynchronize: 100 iterations of 6 calls
//                            (3 launches, 2 allocs, 1 sync).
//   phases setup_then_train: a setup loop of 50 x (cudaMemsetAsync 4 KiB, init), 300 training
//                            steps of (step, cudaDeviceSynchronize), an eval loop of
//                            20 x (eval, cudaMemcpy D2H 4 bytes): three loops of period 2; the
//                            iteration is the training's 300.
// Prints "launches N".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define BYTES 65536

__global__ void fwd(float *x)
{
	if (x)
		x[threadIdx.x] = 1;
}

__global__ void bwd(float *x)
{
	if (x)
		x[threadIdx.x] = 2;
}

__global__ void step(float *x)
{
	if (x)
		x[threadIdx.x] = 3;
}

__global__ void init(float *x)
{
	if (x)
		x[threadIdx.x] = 4;
}

__global__ void eval(float *x)
{
	if (x)
		x[threadIdx.x] = 5;
}

static cudaStream_t s;
static float *d, *h;
static int n;

static void train_step(int grid)
{
	cudaMemcpyAsync(d, h, BYTES, cudaMemcpyHostToDevice, s);
	fwd<<<grid, 32, 0, s>>>(d), n++;
	bwd<<<1, 32, 0, s>>>(d), n++;
	cudaStreamSynchronize(s);
}

static void warm(int steps, int grid)
{
	for (int i = 0; i < steps; i++)
		train_step(grid);
	cudaDeviceSynchronize();
}

static void train(int steps)
{
	for (int i = 0; i < steps; i++)
		train_step(128);
	cudaDeviceSynchronize();
}

static void alloc_step(int async)
{
	for (int i = 0; i < 100; i++) {
		float *t = nullptr;

		if (async)
			cudaMallocAsync((void **)&t, 1 << 20, s);
		else
			cudaMalloc(&t, 1 << 20);
		for (int j = 0; j < 3; j++)
			step<<<1, 32, 0, s>>>(t), n++;
		if (async) {
			cudaFreeAsync(t, s);
			cudaStreamSynchronize(s);
		} else
			cudaFree(t);
	}
}

static void setup_then_train(void)
{
	float r = 0;

	for (int i = 0; i < 50; i++) {
		cudaMemsetAsync(d, 0, 4096, s);
		init<<<1, 32, 0, s>>>(d), n++;
	}
	for (int i = 0; i < 300; i++) {
		step<<<1, 32, 0, s>>>(d), n++;
		cudaDeviceSynchronize();
	}
	for (int i = 0; i < 20; i++) {
		eval<<<1, 32, 0, s>>>(d), n++;
		cudaMemcpy(&r, d, sizeof(r), cudaMemcpyDeviceToHost);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	cudaStreamCreate(&s);
	cudaMallocHost(&h, BYTES);
	cudaMalloc(&d, BYTES);
	if (!strcmp(mode, "warm_train")) {
		warm(10, 64);
		train(1000);
	} else if (!strcmp(mode, "train_warm")) {
		train(1000);
		warm(10, 64);
	} else if (!strcmp(mode, "warm_same")) {
		warm(10, 128);
		train(1000);
	} else if (!strcmp(mode, "alloc_step"))
		alloc_step(0);
	else if (!strcmp(mode, "alloc_async"))
		alloc_step(1);
	else if (!strcmp(mode, "setup_then_train"))
		setup_then_train();
	else {
		fprintf(stderr, "usage: phases warm_train|train_warm|warm_same|alloc_step|"
				"alloc_async|setup_then_train\n");
		return 2;
	}
	printf("launches %d\n", n);
	return 0;
}
