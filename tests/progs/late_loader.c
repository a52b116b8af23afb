/*
 * Loads a CUDA runtime late, from any path (argv[1]: e.g. a renamed copy of libcudart.so.13 in
 * a temporary directory), then a library with kernels (argv[2]) that uses it, and launches
 * argv[3] kernels through it. Nothing CUDA is mapped before the dlopen calls.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *rt, *lib;
	void (*run_late)(int);

	if (argc < 4) {
		fprintf(stderr, "usage: late_loader CUDART LIBKERN N\n");
		return 2;
	}
	usleep(100000); /* well after start: the recorder is long attached */
	rt = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!rt) {
		fprintf(stderr, "late_loader: %s\n", dlerror());
		return 1;
	}
	lib = dlopen(argv[2], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "late_loader: %s\n", dlerror());
		return 1;
	}
	run_late = (void (*)(int))dlsym(lib, "run_late");
	if (!run_late)
		return 1;
	run_late(atoi(argv[3]));
	return 0;
}
