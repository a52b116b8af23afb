// Call sites of a program on nvcc's default static runtime (cudart in the executable), built
// with -g (sites_static) and with its debug info stripped (sites_nodebug, symbols kept).
// train_step launches step_a, step_b, step_c <<<(64,1,1), (128,1,1)>>> on the default stream,
// 40 times, then calls cudaDeviceSynchronize once from main (it fails without a driver); it
// prints the line of each launch, of the call to train_step and of the sync ("line step_a N",
// "line sync N"), which the tests expect as the frames' source lines.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void step_a(float *x)
{
	if (x)
		x[0] = 1;
}
__global__ void step_b(float *x)
{
	if (x)
		x[1] = 2;
}
__global__ void step_c(float *x)
{
	if (x)
		x[2] = 3;
}

static int lines[3];

__attribute__((noinline)) void train_step(float *x)
{
	step_a<<<64, 128>>>(x); lines[0] = __LINE__;
	step_b<<<64, 128>>>(x); lines[1] = __LINE__;
	step_c<<<64, 128>>>(x); lines[2] = __LINE__;
}

int main()
{
	int step_line = 0;

	for (int i = 0; i < 40; i++) {
		train_step(nullptr); step_line = __LINE__;
	}
	cudaDeviceSynchronize(); int sync_line = __LINE__;
	printf("line step_a %d\nline step_b %d\nline step_c %d\nline train_step %d\nline sync %d\n",
	       lines[0], lines[1], lines[2], step_line, sync_line);
	return 0;
}
