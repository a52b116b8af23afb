/*
 * The driver API's memory, host and event graph nodes, against a libcuda.so.1 found at run time
 * (dlopen). With tests/progs/fake_libcuda.c, where every call succeeds and nothing runs:
 *   cuGraphAddMemcpyNode: host -> device, 1000 x 3 x 1 = 3000 bytes (H2D)
 *   cuGraphAddMemcpyNode: device -> host, 700 x 1 x 1 = 700 bytes (D2H)
 *   cuGraphAddMemsetNode: 2-byte elements, width 50, height 2 = 200 bytes
 *   cuGraphAddHostNode, cuGraphAddEventRecordNode, cuGraphAddEventWaitNode
 *   cuGraphAddKernelNode "drv_nodes_k" grid (4,1,1) block (32,1,1)
 *   instantiate, 3 x cuGraphLaunch; cuGraphExecMemsetNodeSetParams: width 100 (400 bytes);
 *   cuGraphExecMemcpyNodeSetParams: the H2D copy 500 x 2 x 1 = 1000 bytes; 2 x cuGraphLaunch
 * So the graph launches executed H2D 5 copies, 3 x 3000 + 2 x 1000 = 11000 bytes; D2H 5, 3500;
 * 5 memsets, 3 x 200 + 2 x 400 = 1400 bytes; 5 host nodes; 10 event nodes; drv_nodes_k 5
 * times.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* CUDA_MEMCPY3D as cuda.h lays it out (200 bytes; tests/progs/graph_nodes.cu checks the
 * offsets the recorder reads against cuda.h) */
struct memcpy3d {
	size_t src_x, src_y, src_z, src_lod;
	unsigned src_type;
	const void *src_host;
	uint64_t src_device;
	void *src_array, *reserved0;
	size_t src_pitch, src_height;
	size_t dst_x, dst_y, dst_z, dst_lod;
	unsigned dst_type;
	void *dst_host;
	uint64_t dst_device;
	void *dst_array, *reserved1;
	size_t dst_pitch, dst_height;
	size_t width, height, depth;
};

/* CUDA_MEMSET_NODE_PARAMS */
struct memset_params {
	uint64_t dst;
	size_t pitch;
	unsigned value, element_size;
	size_t width, height;
};

struct host_params {
	void (*fn)(void *);
	void *user;
};

struct kernel_node_params {
	void *func;
	unsigned grid[3], block[3], shmem;
	void **params, **extra;
	void *kern, *ctx;
};

static void on_host(void *user)
{
	(void)user;
}

#define LOAD(name)                                                                                 \
	do {                                                                                       \
		*(void **)&name = dlsym(lib, #name);                                               \
		if (!name) {                                                                       \
			fprintf(stderr, "driver_graph_nodes: no %s\n", #name);                     \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	int (*cuInit)(unsigned);
	int (*cuModuleGetFunction)(void **, void *, const char *);
	int (*cuGraphCreate)(void **, unsigned);
	int (*cuGraphAddMemcpyNode)(void **, void *, const void *, size_t, const void *, void *);
	int (*cuGraphAddMemsetNode)(void **, void *, const void *, size_t, const void *, void *);
	int (*cuGraphAddHostNode)(void **, void *, const void *, size_t, const void *);
	int (*cuGraphAddEventRecordNode)(void **, void *, const void *, size_t, void *);
	int (*cuGraphAddEventWaitNode)(void **, void *, const void *, size_t, void *);
	int (*cuGraphAddKernelNode_v2)(void **, void *, const void *, size_t, const void *);
	int (*cuGraphInstantiateWithFlags)(void **, void *, unsigned long long);
	int (*cuGraphLaunch)(void *, void *);
	int (*cuGraphExecMemsetNodeSetParams)(void *, void *, const void *, void *);
	int (*cuGraphExecMemcpyNodeSetParams)(void *, void *, const void *, void *);
	void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);
	static char host_in[3000], host_out[700];
	struct memcpy3d up = {.src_type = 1,
			      .src_host = host_in,
			      .dst_type = 2,
			      .dst_device = 0x7e0000000000ull,
			      .width = 1000,
			      .height = 3,
			      .depth = 1};
	struct memcpy3d down = {.src_type = 2,
				.src_device = 0x7e0000001000ull,
				.dst_type = 1,
				.dst_host = host_out,
				.width = 700,
				.height = 1,
				.depth = 1};
	struct memset_params ms = {
	    .dst = 0x7e0000002000ull, .value = 9, .element_size = 2, .width = 50, .height = 2};
	struct host_params hp = {.fn = on_host};
	struct kernel_node_params k = {.grid = {4, 1, 1}, .block = {32, 1, 1}};
	void *graph, *n_up, *n_down, *n_set, *n_host, *n_rec, *n_wait, *n_k, *exec;
	int err = 0;

	if (sizeof(struct memcpy3d) != 200 || offsetof(struct memcpy3d, width) != 176) {
		fprintf(stderr, "driver_graph_nodes: CUDA_MEMCPY3D layout differs\n");
		return 2;
	}
	if (!lib) {
		fprintf(stderr, "driver_graph_nodes: %s\n", dlerror());
		return 1;
	}
	LOAD(cuInit);
	LOAD(cuModuleGetFunction);
	LOAD(cuGraphCreate);
	LOAD(cuGraphAddMemcpyNode);
	LOAD(cuGraphAddMemsetNode);
	LOAD(cuGraphAddHostNode);
	LOAD(cuGraphAddEventRecordNode);
	LOAD(cuGraphAddEventWaitNode);
	LOAD(cuGraphAddKernelNode_v2);
	LOAD(cuGraphInstantiateWithFlags);
	LOAD(cuGraphLaunch);
	LOAD(cuGraphExecMemsetNodeSetParams);
	LOAD(cuGraphExecMemcpyNodeSetParams);
	err |= cuInit(0);
	err |= cuModuleGetFunction(&k.func, NULL, "drv_nodes_k");
	err |= cuGraphCreate(&graph, 0);
	err |= cuGraphAddMemcpyNode(&n_up, graph, NULL, 0, &up, NULL);
	err |= cuGraphAddMemcpyNode(&n_down, graph, NULL, 0, &down, NULL);
	err |= cuGraphAddMemsetNode(&n_set, graph, NULL, 0, &ms, NULL);
	err |= cuGraphAddHostNode(&n_host, graph, NULL, 0, &hp);
	err |= cuGraphAddEventRecordNode(&n_rec, graph, NULL, 0, (void *)0x77);
	err |= cuGraphAddEventWaitNode(&n_wait, graph, NULL, 0, (void *)0x77);
	err |= cuGraphAddKernelNode_v2(&n_k, graph, NULL, 0, &k);
	err |= cuGraphInstantiateWithFlags(&exec, graph, 0);
	for (int i = 0; i < 3; i++)
		err |= cuGraphLaunch(exec, (void *)0x55);
	ms.width = 100;
	err |= cuGraphExecMemsetNodeSetParams(exec, n_set, &ms, NULL);
	up.width = 500;
	up.height = 2;
	err |= cuGraphExecMemcpyNodeSetParams(exec, n_up, &up, NULL);
	for (int i = 0; i < 2; i++)
		err |= cuGraphLaunch(exec, (void *)0x55);
	printf("errors=%d\n", err);
	return err != 0;
}
