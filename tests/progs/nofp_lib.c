// A library between the user's code and libcudart, built -O2 WITHOUT frame pointers (tests/
// e2e/record_cfi.sh): nofp_lib_copy -> lib_middle -> lib_inner -> cudaMemcpy H2D of 32 bytes.
#include <cuda_runtime_api.h>

volatile int nofp_lib_sink; // work after each call keeps it out of tail position

__attribute__((noinline)) void nofp_lib_inner(int i)
{
	static char host[32];

	cudaMemcpy((void *)0x7f0000002000ull, host, sizeof(host), cudaMemcpyHostToDevice);
	nofp_lib_sink = nofp_lib_sink + i;
}

__attribute__((noinline)) void nofp_lib_middle(int i)
{
	nofp_lib_inner(i);
	nofp_lib_sink = nofp_lib_sink + 1;
}

__attribute__((noinline)) void nofp_lib_copy(int i)
{
	nofp_lib_middle(i);
	nofp_lib_sink = nofp_lib_sink + 1;
}
