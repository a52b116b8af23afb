/* SPDX-License-Identifier: MIT */
/*
 * A launch under a call that never returns, for tests/e2e/record_noreturn.sh: main's last
 * instruction is its call to serve() (noreturn), so the return address in main's frame is the
 * first byte of the function the compiler put after main, after_main(). The frame must read
 * main. With a libcuda.so.1 found at run time (tests/progs/fake_libcuda.c):
 *   serve() launches 3 times and exits.
 *
 *   noreturn_site LIBCUDA
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			     unsigned, void *, void **, void **);

__attribute__((noreturn, noinline)) void serve(void)
{
	for (int i = 0; i < 3; i++)
		cuLaunchKernel((void *)0x1000, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	exit(0);
}

int main(int argc, char **argv)
{
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);

	if (!lib || !(*(void **)&cuLaunchKernel = dlsym(lib, "cuLaunchKernel"))) {
		fprintf(stderr, "noreturn_site: no cuLaunchKernel\n");
		return 1;
	}
	serve();
}

/* right after main in the binary (-O1 keeps source order and adds no alignment padding) */
__attribute__((noinline)) int after_main(int x)
{
	return x * 3 + 1;
}
