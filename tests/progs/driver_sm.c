/*
 * The SM count through the driver API, as Triton asks it, against a libcuda.so.1 found at run
 * time (dlopen): cuDeviceGetAttribute(MAX_THREADS_PER_BLOCK = 1) first (not an SM count), then
 * (MULTIPROCESSOR_COUNT = 16) on device 0, then 16 on device 1 (fails with the fake driver).
 * Prints "STATUS VALUE" for each. With tests/progs/fake_libcuda.c: "0 1024 0 108 101 -1".
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*cuInit)(unsigned);
	int (*cuDeviceGetAttribute)(int *, int, int);
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);
	int v[3] = {-1, -1, -1}, rc[3];

	if (!lib) {
		fprintf(stderr, "driver_sm: %s\n", dlerror());
		return 1;
	}
	*(void **)&cuInit = dlsym(lib, "cuInit");
	*(void **)&cuDeviceGetAttribute = dlsym(lib, "cuDeviceGetAttribute");
	if (!cuInit || !cuDeviceGetAttribute)
		return 1;
	cuInit(0);
	rc[0] = cuDeviceGetAttribute(&v[0], 1, 0);
	rc[1] = cuDeviceGetAttribute(&v[1], 16, 0);
	rc[2] = cuDeviceGetAttribute(&v[2], 16, 1);
	printf("%d %d %d %d %d %d\n", rc[0], v[0], rc[1], v[1], rc[2], v[2]);
	return 0;
}
