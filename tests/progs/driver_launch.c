/*
 * Driver-API launches, as Triton and cuBLAS make them, against a libcuda.so.1 found at run
 * time (dlopen). With tests/progs/fake_libcuda.c as that library:
 *   cuModuleGetFunction("triton_fused_add") -> 40 x cuLaunchKernel(grid (128,1,1),
 *       block (256,1,1), shmem 1024, stream 0x55)
 *   cuLibraryGetKernel("cublas_gemm_kernel") + cuKernelGetFunction -> 20 x cuLaunchKernelEx(
 *       grid (7,8,9), block (32,8,1), shmem 4096, stream 0x66)
 *   cuMemAlloc_v2 1 MiB; 2 x cuMemcpyHtoD_v2 4096 bytes; 1 x cuCtxSynchronize
 *   through the library's runtime-style entry points (each reaches the driver inside):
 *   15 x cudaLaunchKernel(grid (9,1,1), block (64,1,1)); 3 x cudaMemcpy 256 bytes H2D
 * With a second argument "slow" (fake_libcuda.c's slow and failing runtime launches) instead:
 *   5 x cudaLaunchKernel(0x5107, grid (3,1,1), block (32,1,1)), each 3 ms in the runtime before
 *   it reaches the driver; then 4 x [cudaLaunchKernel(NULL), failing before the driver, at once
 *   followed by cuLaunchKernel("triton_fused_add", grid (5,1,1), block (64,1,1))]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shmem;
	void *stream;
	void *attrs;
	unsigned nattrs;
} launch_config;

typedef struct {
	unsigned x, y, z;
} dim3;

#define LOAD(name) *(void **)&name = dlsym(lib, #name)

int main(int argc, char **argv)
{
	int (*cuModuleGetFunction)(void **, void *, const char *);
	int (*cuLibraryGetKernel)(void **, void *, const char *);
	int (*cuKernelGetFunction)(void **, void *);
	int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, void *, void **, void **);
	int (*cuLaunchKernelEx)(const launch_config *, void *, void **, void **);
	int (*cuMemAlloc_v2)(uint64_t *, size_t);
	int (*cuMemcpyHtoD_v2)(uint64_t, const void *, size_t);
	int (*cuCtxSynchronize)(void);
	int (*cudaLaunchKernel)(const void *, dim3, dim3, void **, size_t, void *);
	int (*cudaMemcpy)(void *, const void *, size_t, int);
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW), *f, *k, *f2;
	launch_config cfg = {7, 8, 9, 32, 8, 1, 4096, (void *)0x66, NULL, 0};
	char buf[4096] = {0};
	uint64_t dptr = 0;

	if (!lib) {
		fprintf(stderr, "driver_launch: %s\n", dlerror());
		return 1;
	}
	LOAD(cuModuleGetFunction);
	LOAD(cuLibraryGetKernel);
	LOAD(cuKernelGetFunction);
	LOAD(cuLaunchKernel);
	LOAD(cuLaunchKernelEx);
	LOAD(cuMemAlloc_v2);
	LOAD(cuMemcpyHtoD_v2);
	LOAD(cuCtxSynchronize);
	LOAD(cudaLaunchKernel);
	LOAD(cudaMemcpy);
	if (!cuModuleGetFunction || !cuLaunchKernel || !cudaLaunchKernel) {
		fprintf(stderr, "driver_launch: missing driver entry points\n");
		return 1;
	}
	cuModuleGetFunction(&f, (void *)0x1000, "triton_fused_add");
	if (argc > 2 && !strcmp(argv[2], "slow")) {
		for (int i = 0; i < 5; i++)
			cudaLaunchKernel((void *)0x5107, (dim3){3, 1, 1}, (dim3){32, 1, 1}, NULL, 0,
					 NULL);
		for (int i = 0; i < 4; i++) {
			cudaLaunchKernel(NULL, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, NULL);
			cuLaunchKernel(f, 5, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL);
		}
		return 0;
	}
	for (int i = 0; i < 40; i++)
		cuLaunchKernel(f, 128, 1, 1, 256, 1, 1, 1024, (void *)0x55, NULL, NULL);
	cuLibraryGetKernel(&k, (void *)0x2000, "cublas_gemm_kernel");
	cuKernelGetFunction(&f2, k);
	for (int i = 0; i < 20; i++)
		cuLaunchKernelEx(&cfg, f2, NULL, NULL);
	cuMemAlloc_v2(&dptr, 1 << 20);
	for (int i = 0; i < 2; i++)
		cuMemcpyHtoD_v2(dptr, buf, sizeof(buf));
	cuCtxSynchronize();
	for (int i = 0; i < 15; i++)
		cudaLaunchKernel((void *)0x4242, (dim3){9, 1, 1}, (dim3){64, 1, 1}, NULL, 0, NULL);
	for (int i = 0; i < 3; i++)
		cudaMemcpy((void *)dptr, buf, 256, 1);
	return 0;
}
