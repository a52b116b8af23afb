/*
 * Thread block cluster dimensions through cuLaunchKernelEx, against a libcuda.so.1 found at run
 * time (dlopen). With tests/progs/fake_libcuda.c:
 *   cuModuleGetFunction("drv_cluster_k") -> 4 x cuLaunchKernelEx(grid (16,2,1), block (256,1,1),
 *       stream 0x66) with attributes: a priority, then a cluster dimension (2,2,1);
 *   then 3 x the same launch without attributes (no cluster)
 * The CUlaunchConfig layout is checked against cuda.h by tests/progs/cluster_launch.cu.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* CUlaunchAttribute: id, padding, a 64-byte value */
typedef struct {
	unsigned id;
	char pad[4];
	union {
		unsigned dim[3];
		int priority;
		char bytes[64];
	} value;
} launch_attr;

typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shmem;
	void *stream;
	launch_attr *attrs;
	unsigned nattrs;
} launch_config;

int main(int argc, char **argv)
{
	int (*cuModuleGetFunction)(void **, void *, const char *);
	int (*cuLaunchKernelEx)(const launch_config *, void *, void **, void **);
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW), *f = NULL;
	launch_attr attrs[2];
	launch_config cfg = {16, 2, 1, 256, 1, 1, 0, (void *)0x66, attrs, 2};
	int err = 0;

	if (!lib) {
		fprintf(stderr, "driver_cluster: %s\n", dlerror());
		return 1;
	}
	*(void **)&cuModuleGetFunction = dlsym(lib, "cuModuleGetFunction");
	*(void **)&cuLaunchKernelEx = dlsym(lib, "cuLaunchKernelEx");
	if (!cuModuleGetFunction || !cuLaunchKernelEx || sizeof(launch_attr) != 72) {
		fprintf(stderr, "driver_cluster: missing entry points or attribute layout\n");
		return 1;
	}
	memset(attrs, 0, sizeof(attrs));
	attrs[0].id = 8; /* CU_LAUNCH_ATTRIBUTE_PRIORITY */
	attrs[0].value.priority = 1;
	attrs[1].id = 4; /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
	attrs[1].value.dim[0] = 2;
	attrs[1].value.dim[1] = 2;
	attrs[1].value.dim[2] = 1;
	err |= cuModuleGetFunction(&f, NULL, "drv_cluster_k");
	for (int i = 0; i < 4; i++)
		err |= cuLaunchKernelEx(&cfg, f, NULL, NULL);
	cfg.attrs = NULL;
	cfg.nattrs = 0;
	for (int i = 0; i < 3; i++)
		err |= cuLaunchKernelEx(&cfg, f, NULL, NULL);
	printf("errors=%d\n", err);
	return err != 0;
}
