// A library with kernels, loaded late with dlopen (tests/progs/late_loader.c). Its kernels are
// registered by its constructor, in whichever libcudart.so.13 is already loaded.
//   run_late(n): n x late_kernel<<<(5, 1, 1), (32, 2, 1)>>>
#include <cuda_runtime.h>

__global__ void late_kernel(float *x, int n)
{
	if (x)
		x[0] = n;
}

extern "C" void run_late(int n)
{
	for (int i = 0; i < n; i++)
		late_kernel<<<5, dim3(32, 2, 1)>>>(nullptr, n);
}
