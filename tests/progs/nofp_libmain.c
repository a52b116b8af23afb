// nofp_libmain N: main -> user_loop -> N x nofp_lib_copy (libnofp_lib.so, no frame pointers)
// -> lib_middle -> lib_inner -> cudaMemcpy. Built -O2 without frame pointers too
// (tests/e2e/record_cfi.sh).
#include <stdlib.h>

void nofp_lib_copy(int i);

volatile int sink;

__attribute__((noinline)) void user_loop(int n)
{
	for (int i = 0; i < n; i++)
		nofp_lib_copy(i);
	sink = sink + 1;
}

int main(int argc, char **argv)
{
	user_loop(argc > 1 ? atoi(argv[1]) : 10);
	return 0;
}
