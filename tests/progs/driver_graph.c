/*
 * A CUDA graph built by hand through the driver API, against a libcuda.so.1 found at run time
 * (dlopen). With tests/progs/fake_libcuda.c:
 *   graph: kernel node "drv_graph_a" grid (7,1,1) block (64,1,1) shmem 128, and a child graph
 *          holding kernel node "drv_graph_b" grid (2,1,1) block (32,1,1)
 *   instantiate, 5 x cuGraphLaunch(stream 0x55)
 *   cuGraphExecKernelNodeSetParams_v2: "drv_graph_a" now grid (9,1,1); 2 x cuGraphLaunch
 * So drv_graph_a executes 5 times in (7,1,1) and 2 in (9,1,1); drv_graph_b 7 times.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* CUDA_KERNEL_NODE_PARAMS_v2 as cuda.h lays it out (func, grid, block, shared memory first) */
struct kernel_node_params {
	void *func;
	unsigned grid[3], block[3], shmem;
	void **params, **extra;
	void *kern, *ctx;
};

#define LOAD(name)                                                                                 \
	do {                                                                                       \
		*(void **)&name = dlsym(lib, #name);                                               \
		if (!name) {                                                                       \
			fprintf(stderr, "driver_graph: no %s\n", #name);                           \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	int (*cuInit)(unsigned);
	int (*cuModuleGetFunction)(void **, void *, const char *);
	int (*cuGraphCreate)(void **, unsigned);
	int (*cuGraphAddKernelNode_v2)(void **, void *, const void *, size_t, const void *);
	int (*cuGraphAddChildGraphNode)(void **, void *, const void *, size_t, void *);
	int (*cuGraphInstantiateWithFlags)(void **, void *, unsigned long long);
	int (*cuGraphLaunch)(void *, void *);
	int (*cuGraphExecKernelNodeSetParams_v2)(void *, void *, const void *);
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);
	struct kernel_node_params a = {.grid = {7, 1, 1}, .block = {64, 1, 1}, .shmem = 128};
	struct kernel_node_params b = {.grid = {2, 1, 1}, .block = {32, 1, 1}};
	void *graph, *child, *node_a, *node_b, *node_child, *exec;
	int err = 0;

	if (!lib) {
		fprintf(stderr, "driver_graph: %s\n", dlerror());
		return 1;
	}
	LOAD(cuInit);
	LOAD(cuModuleGetFunction);
	LOAD(cuGraphCreate);
	LOAD(cuGraphAddKernelNode_v2);
	LOAD(cuGraphAddChildGraphNode);
	LOAD(cuGraphInstantiateWithFlags);
	LOAD(cuGraphLaunch);
	LOAD(cuGraphExecKernelNodeSetParams_v2);
	err |= cuInit(0);
	err |= cuModuleGetFunction(&a.func, NULL, "drv_graph_a");
	err |= cuModuleGetFunction(&b.func, NULL, "drv_graph_b");
	err |= cuGraphCreate(&graph, 0);
	err |= cuGraphCreate(&child, 0);
	err |= cuGraphAddKernelNode_v2(&node_a, graph, NULL, 0, &a);
	err |= cuGraphAddKernelNode_v2(&node_b, child, NULL, 0, &b);
	err |= cuGraphAddChildGraphNode(&node_child, graph, NULL, 0, child);
	err |= cuGraphInstantiateWithFlags(&exec, graph, 0);
	for (int i = 0; i < 5; i++)
		err |= cuGraphLaunch(exec, (void *)0x55);
	a.grid[0] = 9;
	err |= cuGraphExecKernelNodeSetParams_v2(exec, node_a, &a);
	for (int i = 0; i < 2; i++)
		err |= cuGraphLaunch(exec, (void *)0x55);
	printf("errors=%d\n", err);
	return err != 0;
}
