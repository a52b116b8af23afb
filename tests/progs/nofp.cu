// Ground truth for --call-graph dwarf (tests/e2e/record_dwarf.sh): built -O2 WITHOUT frame
// pointers, so a frame-pointer walk cannot get past the innermost frame, while DWARF CFI can.
//   nofp N [unlink]: main -> outer -> N x middle -> inner, where inner launches
//   deep_kernel<<<2, 64>>> once (entry probe) and makes one cudaMemcpy H2D of 64 bytes (return
//   probe). With "unlink", the executable deletes itself first: the recorder must unwind with
//   the file it holds open.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>

volatile int sink; // work after each call keeps it out of tail position

__global__ void deep_kernel(int *x)
{
	if (x)
		x[threadIdx.x] = 1;
}

extern "C" __attribute__((noinline)) void inner(int i)
{
	static char host[64];

	deep_kernel<<<2, 64>>>((int *)(long)i);
	cudaMemcpy((void *)0x7f0000001000ull, host, sizeof(host), cudaMemcpyHostToDevice);
	sink = sink + 1;
}

extern "C" __attribute__((noinline)) void middle(int i)
{
	inner(i);
	sink = sink + 1;
}

extern "C" __attribute__((noinline)) void outer(int n)
{
	for (int i = 0; i < n; i++)
		middle(i);
	sink = sink + 1;
}

int main(int argc, char **argv)
{
	char exe[4096];
	ssize_t len;

	if (argc > 2 && !strcmp(argv[2], "unlink")) {
		len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (len <= 0)
			return 2;
		exe[len] = 0;
		if (unlink(exe))
			return 2;
	}
	outer(argc > 1 ? atoi(argv[1]) : 10);
	return 0;
}
