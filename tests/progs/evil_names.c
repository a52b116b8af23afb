/* SPDX-License-Identifier: MIT */
/*
 * Names a hostile or careless program chooses, for tests/e2e/escape_names.sh: every text output
 * must show them escaped, never send their ESC and BEL bytes to a terminal. With a libcuda.so.1
 * found at run time (tests/progs/fake_libcuda.c, from a folder whose name holds an ESC too):
 *   main thread named "\e[31mevil\a": cuModuleGetFunction("k\e]0;x\a\x7f") -> 3 launches
 *   a thread named "t\tb\nc\x7f\xff\x9b": 2 launches of the same kernel
 *
 *   evil_names LIBCUDA [ARG...]   (the test passes arguments holding control bytes)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

static int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			     unsigned, void *, void **, void **);
static void *func;

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "t\tb\nc\x7f\xff\x9b");
	for (int i = 0; i < 2; i++)
		cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	int (*cuModuleGetFunction)(void **, void *, const char *);
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);
	pthread_t t;

	if (!lib) {
		fprintf(stderr, "evil_names: %s\n", dlerror());
		return 1;
	}
	*(void **)&cuModuleGetFunction = dlsym(lib, "cuModuleGetFunction");
	*(void **)&cuLaunchKernel = dlsym(lib, "cuLaunchKernel");
	if (!cuModuleGetFunction || !cuLaunchKernel) {
		fprintf(stderr, "evil_names: missing driver entry points\n");
		return 1;
	}
	prctl(PR_SET_NAME, "\x1b[31mevil\a");
	cuModuleGetFunction(&func, (void *)0x1000, "k\x1b]0;x\a\x7f");
	for (int i = 0; i < 3; i++)
		cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
