/* SPDX-License-Identifier: MIT */
/* The schema gpurec writes (see events.h) and the names of its enum values. */
#include <string.h>

#include "events.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))
/* codec, optional (struct gr_column_def) */
#define V    GR_CODEC_VARINT, 0
#define D    GR_CODEC_DELTA, 0
#define T    GR_CODEC_DICT, 0
#define B    GR_CODEC_BYTES, 0
#define TOPT GR_CODEC_DICT, 1 /* added after the kind's first version */
#define VOPT GR_CODEC_VARINT, 1
#define BOPT GR_CODEC_BYTES, 1
static const char *const api_names[GR_API_COUNT] = {
    [GR_API_UNKNOWN] = "unknown",
    [GR_API_cudaLaunchKernel] = "cudaLaunchKernel",
    [GR_API_cudaLaunchKernel_ptsz] = "cudaLaunchKernel_ptsz",
    [GR_API_cudaLaunchKernelExC] = "cudaLaunchKernelExC",
    [GR_API_cudaLaunchKernelExC_ptsz] = "cudaLaunchKernelExC_ptsz",
    [GR_API_cudaLaunchCooperativeKernel] = "cudaLaunchCooperativeKernel",
    [GR_API_cudaLaunchCooperativeKernel_ptsz] = "cudaLaunchCooperativeKernel_ptsz",
    [GR_API_cudaGraphLaunch] = "cudaGraphLaunch",
    [GR_API_cudaGraphLaunch_ptsz] = "cudaGraphLaunch_ptsz",
    [GR_API_cuLaunchKernel] = "cuLaunchKernel",
    [GR_API_cuLaunchKernel_ptsz] = "cuLaunchKernel_ptsz",
    [GR_API_cuLaunchKernelEx] = "cuLaunchKernelEx",
    [GR_API_cuLaunchKernelEx_ptsz] = "cuLaunchKernelEx_ptsz",
    [GR_API_cuLaunchCooperativeKernel] = "cuLaunchCooperativeKernel",
    [GR_API_cuLaunchCooperativeKernel_ptsz] = "cuLaunchCooperativeKernel_ptsz",
    [GR_API_cuGraphLaunch] = "cuGraphLaunch",
    [GR_API_cuGraphLaunch_ptsz] = "cuGraphLaunch_ptsz",
    [GR_API_cudaMemcpy] = "cudaMemcpy",
    [GR_API_cudaMemcpy_ptds] = "cudaMemcpy_ptds",
    [GR_API_cudaMemcpyAsync] = "cudaMemcpyAsync",
    [GR_API_cudaMemcpyAsync_ptsz] = "cudaMemcpyAsync_ptsz",
    [GR_API_cudaMemcpy2D] = "cudaMemcpy2D",
    [GR_API_cudaMemcpy2D_ptds] = "cudaMemcpy2D_ptds",
    [GR_API_cudaMemcpy2DAsync] = "cudaMemcpy2DAsync",
    [GR_API_cudaMemcpy2DAsync_ptsz] = "cudaMemcpy2DAsync_ptsz",
    [GR_API_cudaMemcpy3D] = "cudaMemcpy3D",
    [GR_API_cudaMemcpy3D_ptds] = "cudaMemcpy3D_ptds",
    [GR_API_cudaMemcpy3DAsync] = "cudaMemcpy3DAsync",
    [GR_API_cudaMemcpy3DAsync_ptsz] = "cudaMemcpy3DAsync_ptsz",
    [GR_API_cudaMemcpyPeer] = "cudaMemcpyPeer",
    [GR_API_cudaMemcpyPeerAsync] = "cudaMemcpyPeerAsync",
    [GR_API_cudaMemcpyToSymbol] = "cudaMemcpyToSymbol",
    [GR_API_cudaMemcpyToSymbol_ptds] = "cudaMemcpyToSymbol_ptds",
    [GR_API_cudaMemcpyFromSymbol] = "cudaMemcpyFromSymbol",
    [GR_API_cudaMemcpyFromSymbol_ptds] = "cudaMemcpyFromSymbol_ptds",
    [GR_API_cudaMemcpyToSymbolAsync] = "cudaMemcpyToSymbolAsync",
    [GR_API_cudaMemcpyToSymbolAsync_ptsz] = "cudaMemcpyToSymbolAsync_ptsz",
    [GR_API_cudaMemcpyFromSymbolAsync] = "cudaMemcpyFromSymbolAsync",
    [GR_API_cudaMemcpyFromSymbolAsync_ptsz] = "cudaMemcpyFromSymbolAsync_ptsz",
    [GR_API_cuMemcpyHtoD] = "cuMemcpyHtoD",
    [GR_API_cuMemcpyDtoH] = "cuMemcpyDtoH",
    [GR_API_cuMemcpyDtoD] = "cuMemcpyDtoD",
    [GR_API_cuMemcpyHtoDAsync] = "cuMemcpyHtoDAsync",
    [GR_API_cuMemcpyDtoHAsync] = "cuMemcpyDtoHAsync",
    [GR_API_cuMemcpyDtoDAsync] = "cuMemcpyDtoDAsync",
    [GR_API_cuMemcpy] = "cuMemcpy",
    [GR_API_cuMemcpyAsync] = "cuMemcpyAsync",
    [GR_API_cudaMemset] = "cudaMemset",
    [GR_API_cudaMemset_ptds] = "cudaMemset_ptds",
    [GR_API_cudaMemsetAsync] = "cudaMemsetAsync",
    [GR_API_cudaMemsetAsync_ptsz] = "cudaMemsetAsync_ptsz",
    [GR_API_cuMemsetD8] = "cuMemsetD8",
    [GR_API_cuMemsetD32] = "cuMemsetD32",
    [GR_API_cuMemsetD8Async] = "cuMemsetD8Async",
    [GR_API_cuMemsetD32Async] = "cuMemsetD32Async",
    [GR_API_cudaMalloc] = "cudaMalloc",
    [GR_API_cudaMallocAsync] = "cudaMallocAsync",
    [GR_API_cudaMallocAsync_ptsz] = "cudaMallocAsync_ptsz",
    [GR_API_cudaMallocManaged] = "cudaMallocManaged",
    [GR_API_cudaMallocHost] = "cudaMallocHost",
    [GR_API_cudaHostAlloc] = "cudaHostAlloc",
    [GR_API_cudaHostRegister] = "cudaHostRegister",
    [GR_API_cudaFree] = "cudaFree",
    [GR_API_cudaFreeAsync] = "cudaFreeAsync",
    [GR_API_cudaFreeAsync_ptsz] = "cudaFreeAsync_ptsz",
    [GR_API_cudaFreeHost] = "cudaFreeHost",
    [GR_API_cudaHostUnregister] = "cudaHostUnregister",
    [GR_API_cuMemAlloc] = "cuMemAlloc",
    [GR_API_cuMemFree] = "cuMemFree",
    [GR_API_cuMemAllocHost] = "cuMemAllocHost",
    [GR_API_cuMemFreeHost] = "cuMemFreeHost",
    [GR_API_cuMemHostAlloc] = "cuMemHostAlloc",
    [GR_API_cuMemHostRegister] = "cuMemHostRegister",
    [GR_API_cuMemHostUnregister] = "cuMemHostUnregister",
    [GR_API_cuMemAllocAsync] = "cuMemAllocAsync",
    [GR_API_cuMemFreeAsync] = "cuMemFreeAsync",
    [GR_API_cudaDeviceSynchronize] = "cudaDeviceSynchronize",
    [GR_API_cudaStreamSynchronize] = "cudaStreamSynchronize",
    [GR_API_cudaStreamSynchronize_ptsz] = "cudaStreamSynchronize_ptsz",
    [GR_API_cudaEventSynchronize] = "cudaEventSynchronize",
    [GR_API_cudaStreamWaitEvent] = "cudaStreamWaitEvent",
    [GR_API_cudaStreamWaitEvent_ptsz] = "cudaStreamWaitEvent_ptsz",
    [GR_API_cudaEventRecord] = "cudaEventRecord",
    [GR_API_cudaEventRecord_ptsz] = "cudaEventRecord_ptsz",
    [GR_API_cuCtxSynchronize] = "cuCtxSynchronize",
    [GR_API_cuStreamSynchronize] = "cuStreamSynchronize",
    [GR_API_cuEventSynchronize] = "cuEventSynchronize",
    [GR_API_cuStreamWaitEvent] = "cuStreamWaitEvent",
    [GR_API_cuEventRecord] = "cuEventRecord",
    [GR_API_cudaStreamBeginCapture] = "cudaStreamBeginCapture",
    [GR_API_cudaStreamBeginCapture_ptsz] = "cudaStreamBeginCapture_ptsz",
    [GR_API_cudaStreamEndCapture] = "cudaStreamEndCapture",
    [GR_API_cudaStreamEndCapture_ptsz] = "cudaStreamEndCapture_ptsz",
    [GR_API_cudaGraphInstantiate] = "cudaGraphInstantiate",
    [GR_API_cudaGraphInstantiateWithFlags] = "cudaGraphInstantiateWithFlags",
    [GR_API_cuStreamBeginCapture] = "cuStreamBeginCapture",
    [GR_API_cuStreamEndCapture] = "cuStreamEndCapture",
    [GR_API_cuGraphInstantiate] = "cuGraphInstantiate",
    [GR_API___cudaLaunchKernel] = "__cudaLaunchKernel",
    [GR_API___cudaLaunchKernel_ptsz] = "__cudaLaunchKernel_ptsz",
    [GR_API_cudaGraphAddKernelNode] = "cudaGraphAddKernelNode",
    [GR_API_cudaGraphKernelNodeSetParams] = "cudaGraphKernelNodeSetParams",
    [GR_API_cudaGraphExecKernelNodeSetParams] = "cudaGraphExecKernelNodeSetParams",
    [GR_API_cuGraphAddKernelNode] = "cuGraphAddKernelNode",
    [GR_API_cuGraphKernelNodeSetParams] = "cuGraphKernelNodeSetParams",
    [GR_API_cuGraphExecKernelNodeSetParams] = "cuGraphExecKernelNodeSetParams",
    [GR_API_cudaGraphAddMemcpyNode] = "cudaGraphAddMemcpyNode",
    [GR_API_cudaGraphAddMemcpyNode1D] = "cudaGraphAddMemcpyNode1D",
    [GR_API_cudaGraphAddMemsetNode] = "cudaGraphAddMemsetNode",
    [GR_API_cudaGraphAddChildGraphNode] = "cudaGraphAddChildGraphNode",
    [GR_API_cudaGraphExecUpdate] = "cudaGraphExecUpdate",
    [GR_API_cuGraphExecUpdate] = "cuGraphExecUpdate",
    [GR_API_cudaGraphClone] = "cudaGraphClone",
    [GR_API_cuGraphAddChildGraphNode] = "cuGraphAddChildGraphNode",
    [GR_API_ncclAllReduce] = "ncclAllReduce",
    [GR_API_ncclReduceScatter] = "ncclReduceScatter",
    [GR_API_ncclAllGather] = "ncclAllGather",
    [GR_API_ncclBroadcast] = "ncclBroadcast",
    [GR_API_ncclReduce] = "ncclReduce",
    [GR_API_ncclSend] = "ncclSend",
    [GR_API_ncclRecv] = "ncclRecv",
    [GR_API_ncclGroupStart] = "ncclGroupStart",
    [GR_API_ncclGroupEnd] = "ncclGroupEnd",
    [GR_API_ncclCommInitRank] = "ncclCommInitRank",
    [GR_API_ncclCommInitRankConfig] = "ncclCommInitRankConfig",
    [GR_API_ncclCommDestroy] = "ncclCommDestroy",
    [GR_API_cudaGetDeviceCount] = "cudaGetDeviceCount",
    [GR_API_cudaSetDevice] = "cudaSetDevice",
    [GR_API_cudaGetDeviceProperties] = "cudaGetDeviceProperties",
    [GR_API_cudaGetDeviceProperties_v2] = "cudaGetDeviceProperties_v2",
    [GR_API_cudaDeviceGetAttribute] = "cudaDeviceGetAttribute",
    [GR_API_cuInit] = "cuInit",
    [GR_API_cuDeviceGetCount] = "cuDeviceGetCount",
    [GR_API_cuDeviceGetAttribute] = "cuDeviceGetAttribute",
    [GR_API_cudaGraphAddMemcpyNodeToSymbol] = "cudaGraphAddMemcpyNodeToSymbol",
    [GR_API_cudaGraphAddMemcpyNodeFromSymbol] = "cudaGraphAddMemcpyNodeFromSymbol",
    [GR_API_cuGraphAddMemcpyNode] = "cuGraphAddMemcpyNode",
    [GR_API_cuGraphAddMemsetNode] = "cuGraphAddMemsetNode",
    [GR_API_cudaGraphAddHostNode] = "cudaGraphAddHostNode",
    [GR_API_cuGraphAddHostNode] = "cuGraphAddHostNode",
    [GR_API_cudaGraphAddEventRecordNode] = "cudaGraphAddEventRecordNode",
    [GR_API_cuGraphAddEventRecordNode] = "cuGraphAddEventRecordNode",
    [GR_API_cudaGraphAddEventWaitNode] = "cudaGraphAddEventWaitNode",
    [GR_API_cuGraphAddEventWaitNode] = "cuGraphAddEventWaitNode",
    [GR_API_cudaGraphMemcpyNodeSetParams1D] = "cudaGraphMemcpyNodeSetParams1D",
    [GR_API_cudaGraphExecMemcpyNodeSetParams1D] = "cudaGraphExecMemcpyNodeSetParams1D",
    [GR_API_cudaGraphMemsetNodeSetParams] = "cudaGraphMemsetNodeSetParams",
    [GR_API_cudaGraphExecMemsetNodeSetParams] = "cudaGraphExecMemsetNodeSetParams",
    [GR_API_cuGraphMemsetNodeSetParams] = "cuGraphMemsetNodeSetParams",
    [GR_API_cuGraphExecMemsetNodeSetParams] = "cuGraphExecMemsetNodeSetParams",
    [GR_API_cudaGraphMemcpyNodeSetParams] = "cudaGraphMemcpyNodeSetParams",
    [GR_API_cudaGraphExecMemcpyNodeSetParams] = "cudaGraphExecMemcpyNodeSetParams",
    [GR_API_cuGraphMemcpyNodeSetParams] = "cuGraphMemcpyNodeSetParams",
    [GR_API_cuGraphExecMemcpyNodeSetParams] = "cuGraphExecMemcpyNodeSetParams",
    [GR_API_cudaGraphMemcpyNodeSetParamsToSymbol] = "cudaGraphMemcpyNodeSetParamsToSymbol",
    [GR_API_cudaGraphMemcpyNodeSetParamsFromSymbol] = "cudaGraphMemcpyNodeSetParamsFromSymbol",
    [GR_API_cudaGraphExecMemcpyNodeSetParamsToSymbol] = "cudaGraphExecMemcpyNodeSetParamsToSymbol",
    [GR_API_cudaGraphExecMemcpyNodeSetParamsFromSymbol] =
	"cudaGraphExecMemcpyNodeSetParamsFromSymbol",
    [GR_API_cudaMallocPitch] = "cudaMallocPitch",
    [GR_API_cudaMalloc3D] = "cudaMalloc3D",
    [GR_API_cudaMallocArray] = "cudaMallocArray",
    [GR_API_cudaMalloc3DArray] = "cudaMalloc3DArray",
    [GR_API_cudaMallocMipmappedArray] = "cudaMallocMipmappedArray",
    [GR_API_cudaFreeArray] = "cudaFreeArray",
    [GR_API_cudaFreeMipmappedArray] = "cudaFreeMipmappedArray",
    [GR_API_cudaMallocFromPoolAsync] = "cudaMallocFromPoolAsync",
    [GR_API_cudaMallocFromPoolAsync_ptsz] = "cudaMallocFromPoolAsync_ptsz",
    [GR_API_cuMemAllocPitch] = "cuMemAllocPitch",
    [GR_API_cuMemAllocManaged] = "cuMemAllocManaged",
    [GR_API_cuMemAllocAsync_ptsz] = "cuMemAllocAsync_ptsz",
    [GR_API_cuMemAllocFromPoolAsync] = "cuMemAllocFromPoolAsync",
    [GR_API_cuMemAllocFromPoolAsync_ptsz] = "cuMemAllocFromPoolAsync_ptsz",
    [GR_API_cuMemFreeAsync_ptsz] = "cuMemFreeAsync_ptsz",
    [GR_API_cuMemCreate] = "cuMemCreate",
    [GR_API_cuMemRelease] = "cuMemRelease",
    [GR_API_cuMemMap] = "cuMemMap",
    [GR_API_cuMemUnmap] = "cuMemUnmap",
    [GR_API_cuMemAddressReserve] = "cuMemAddressReserve",
    [GR_API_cuMemAddressFree] = "cuMemAddressFree",
    [GR_API_cudaMemGetInfo] = "cudaMemGetInfo",
    [GR_API_cuMemGetInfo] = "cuMemGetInfo",
    [GR_API_cuArrayCreate] = "cuArrayCreate",
    [GR_API_cuArray3DCreate] = "cuArray3DCreate",
    [GR_API_cuMipmappedArrayCreate] = "cuMipmappedArrayCreate",
    [GR_API_cuArrayDestroy] = "cuArrayDestroy",
    [GR_API_cuMipmappedArrayDestroy] = "cuMipmappedArrayDestroy",
};

const char *gr_api_name(unsigned api)
{
	if (api >= GR_API_COUNT || !api_names[api])
		return "unknown";
	return api_names[api];
}

int gr_api_is_driver(unsigned api)
{
	const char *n = gr_api_name(api);

	return !strncmp(n, "cu", 2) && strncmp(n, "cuda", 4);
}

int gr_api_is_nccl(unsigned api)
{
	return !strncmp(gr_api_name(api), "nccl", 4);
}

int gr_api_graph_node_work(unsigned api)
{
	switch (api) {
	case GR_API_cudaGraphAddKernelNode:
	case GR_API_cudaGraphKernelNodeSetParams:
	case GR_API_cudaGraphExecKernelNodeSetParams:
	case GR_API_cuGraphAddKernelNode:
	case GR_API_cuGraphKernelNodeSetParams:
	case GR_API_cuGraphExecKernelNodeSetParams:
	case GR_API_cudaGraphAddMemcpyNode:
	case GR_API_cudaGraphAddMemcpyNode1D:
	case GR_API_cudaGraphAddMemsetNode:
	case GR_API_cudaGraphAddMemcpyNodeToSymbol:
	case GR_API_cudaGraphAddMemcpyNodeFromSymbol:
	case GR_API_cuGraphAddMemcpyNode:
	case GR_API_cuGraphAddMemsetNode:
	case GR_API_cudaGraphMemcpyNodeSetParams1D:
	case GR_API_cudaGraphExecMemcpyNodeSetParams1D:
	case GR_API_cudaGraphMemsetNodeSetParams:
	case GR_API_cudaGraphExecMemsetNodeSetParams:
	case GR_API_cuGraphMemsetNodeSetParams:
	case GR_API_cuGraphExecMemsetNodeSetParams:
	case GR_API_cudaGraphMemcpyNodeSetParams:
	case GR_API_cudaGraphExecMemcpyNodeSetParams:
	case GR_API_cuGraphMemcpyNodeSetParams:
	case GR_API_cuGraphExecMemcpyNodeSetParams:
	case GR_API_cudaGraphMemcpyNodeSetParamsToSymbol:
	case GR_API_cudaGraphMemcpyNodeSetParamsFromSymbol:
	case GR_API_cudaGraphExecMemcpyNodeSetParamsToSymbol:
	case GR_API_cudaGraphExecMemcpyNodeSetParamsFromSymbol:
		return 1;
	default:
		return 0;
	}
}

int gr_api_graph_node_only(unsigned api)
{
	switch (api) {
	case GR_API_cudaGraphAddHostNode:
	case GR_API_cuGraphAddHostNode:
	case GR_API_cudaGraphAddEventRecordNode:
	case GR_API_cuGraphAddEventRecordNode:
	case GR_API_cudaGraphAddEventWaitNode:
	case GR_API_cuGraphAddEventWaitNode:
		return 1;
	default:
		return 0;
	}
}

int gr_call_failed(unsigned api, uint64_t call, uint32_t status)
{
	if (!(call & GR_CALL_RETURNED) || !status)
		return 0;
	return !(status == GR_NCCL_IN_PROGRESS && gr_api_is_nccl(api));
}

/* ncclResult_t of nccl.h (NCCL 2.x): few, stable, and not worth a generated table */
static const struct gr_status_name nccl_status_names[] = {
    {0, "ncclSuccess"},	      {1, "ncclUnhandledCudaError"}, {2, "ncclSystemError"},
    {3, "ncclInternalError"}, {4, "ncclInvalidArgument"},    {5, "ncclInvalidUsage"},
    {6, "ncclRemoteError"},   {7, "ncclInProgress"},	     {0, NULL},
};

const char *gr_status_name(unsigned api, uint32_t status)
{
	const struct gr_status_name *t = gr_api_is_nccl(api)	 ? nccl_status_names
					 : gr_api_is_driver(api) ? gr_driver_status_names
								 : gr_runtime_status_names;

	for (; t->name; t++)
		if (t->status == status)
			return t->name;
	return NULL;
}

/*
 * Errors that say why a whole run failed, by the name the toolkit gives them, runtime and driver
 * alike. Names rather than numbers: the table reads like the headers it comes from.
 */
static const struct {
	const char *name;
	const char *cause;
} causes[] = {
    {"cudaErrorInsufficientDriver", "no CUDA driver (or one older than the CUDA runtime)"},
    {"cudaErrorNoDevice", "no CUDA device"},
    {"CUDA_ERROR_NO_DEVICE", "no CUDA device"},
    {"cudaErrorMemoryAllocation", "out of memory"},
    {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {"cudaErrorDevicesUnavailable", "the GPU is busy or unavailable (exclusive mode)"},
    {"CUDA_ERROR_DEVICE_UNAVAILABLE", "the GPU is busy or unavailable (exclusive mode)"},
    {"cudaErrorStubLibrary", "the toolkit's stub libcuda was loaded instead of a driver"},
    {"CUDA_ERROR_STUB_LIBRARY", "the toolkit's stub libcuda was loaded instead of a driver"},
    {"cudaErrorInitializationError", "CUDA failed to initialise"},
    {"CUDA_ERROR_NOT_INITIALIZED", "CUDA was not initialised (cuInit)"},
    {"cudaErrorNoKernelImageForDevice", "the program has no code for this GPU"},
    {"CUDA_ERROR_NO_BINARY_FOR_GPU", "the program has no code for this GPU"},
};

const char *gr_status_cause(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (!strcmp(causes[i].name, name))
			return causes[i].cause;
	return NULL;
}

static const char *name_of(const char *const *names, unsigned n, unsigned v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

const char *gr_copy_kind_name(unsigned ckind)
{
	static const char *const names[] = {"H2H", "H2D", "D2H", "D2D", "default"};
	return name_of(names, N(names), ckind);
}

const char *gr_alloc_kind_name(unsigned akind)
{
	static const char *const names[] = {"device",	    "device-async",    "managed",
					    "host-pinned",  "host-registered", "array",
					    "vmm-physical", "vmm-map",	       "vmm-reserve"};
	return name_of(names, N(names), akind);
}

const char *gr_sync_kind_name(unsigned skind)
{
	static const char *const names[] = {
	    "device", "stream", "event", "stream-wait-event", "event-record", "device-query"};
	return name_of(names, N(names), skind);
}

const char *gr_graph_kind_name(unsigned gkind)
{
	static const char *const names[] = {
	    "begin-capture",   "end-capture",	  "instantiate",     "launch",	    "add-node",
	    "add-child-graph", "node-set-params", "exec-set-params", "exec-update", "clone"};
	return name_of(names, N(names), gkind);
}

const char *gr_comm_kind_name(unsigned kind)
{
	static const char *const names[] = {
	    "all-reduce", "reduce-scatter", "all-gather", "broadcast", "reduce",  "send",
	    "recv",	  "group-start",    "group-end",  "init",      "destroy",
	};
	return name_of(names, N(names), kind);
}

const char *gr_comm_dtype_name(unsigned dtype)
{
	static const char *const names[] = {
	    "int8",    "uint8",	  "int32",   "uint32",	 "int64",      "uint64",
	    "float16", "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2",
	};
	return name_of(names, N(names), dtype);
}

unsigned gr_comm_dtype_size(unsigned dtype)
{
	static const unsigned char sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
	return dtype < N(sizes) ? sizes[dtype] : 0;
}

const char *gr_comm_redop_name(unsigned redop)
{
	static const char *const names[] = {"sum", "prod", "max", "min", "avg"};
	/* ncclRedOpCreatePreMulSum hands out values from ncclNumOps (5) up */
	return redop < N(names) ? names[redop] : "custom";
}

const char *gr_loss_source_name(unsigned src)
{
	static const char *const names[] = {"ringbuf",	 "stack",      "attach",	"pending",
					    "preempted", "stack_shed", "unwind_skipped"};
	return name_of(names, N(names), src);
}

const char *gr_fd_kind_name(unsigned kind)
{
	static const char *const names[] = {"none", "file", "pipe", "socket",
					    "char", "anon", "other"};
	return name_of(names, N(names), kind);
}

const char *gr_nvtx_op_name(unsigned op)
{
	static const char *const names[] = {
	    [GR_NVTX_PUSH] = "push",
	    [GR_NVTX_POP] = "pop",
	    [GR_NVTX_START] = "start",
	    [GR_NVTX_END] = "end",
	    [GR_NVTX_MARK] = "mark",
	    [GR_NVTX_NAME_DOMAIN] = "name_domain",
	    [GR_NVTX_NAME_CATEGORY] = "name_category",
	    [GR_NVTX_NAME_THREAD] = "name_thread",
	    [GR_NVTX_NAME_STREAM] = "name_stream",
	    [GR_NVTX_NAME_DEVICE] = "name_device",
	};
	return name_of(names, N(names), op);
}

int gr_loss_stack_only(unsigned src)
{
	return src == GR_LOSS_STACK || src == GR_LOSS_STACK_SHED || src == GR_LOSS_UNWIND_SKIPPED;
}

/*
 * Codecs: timestamps DELTA; values that repeat (pids, streams, configs, sizes) DICT; values that
 * are different every time (durations) VARINT. zstd then removes what the columns leave.
 */
static const struct gr_column_def launch_cols[GR_LAUNCH_NCOLS] = {
    {"ts", D},		 {"dur", V},	   {"pid", T},	   {"tid", T},		{"cpu", T},
    {"api", T},		 {"func", T},	   {"grid_x", T},  {"grid_y", T},	{"grid_z", T},
    {"block_x", T},	 {"block_y", T},   {"block_z", T}, {"shmem", T},	{"stream", T},
    {"stack", T},	 {"status", TOPT}, {"call", TOPT}, {"cluster_x", TOPT}, {"cluster_y", TOPT},
    {"cluster_z", TOPT},
};
static const struct gr_column_def copy_cols[GR_COPY_NCOLS] = {
    {"ts", D},	   {"dur", V},	 {"pid", T},   {"tid", T},	 {"cpu", T},
    {"api", T},	   {"dst", T},	 {"src", T},   {"bytes", T},	 {"kind", T},
    {"stream", T}, {"flags", T}, {"stack", T}, {"status", TOPT}, {"call", TOPT},
};
static const struct gr_column_def memset_cols[GR_MEMSET_NCOLS] = {
    {"ts", D},	  {"dur", V},	{"pid", T},	  {"tid", T},	  {"cpu", T},
    {"api", T},	  {"dst", T},	{"bytes", T},	  {"value", T},	  {"stream", T},
    {"flags", T}, {"stack", T}, {"status", TOPT}, {"call", TOPT},
};
static const struct gr_column_def alloc_cols[GR_ALLOC_NCOLS] = {
    {"ts", D},	    {"dur", V},	     {"pid", T},       {"tid", T},	 {"api", T},
    {"addr", V},    {"bytes", T},    {"kind", T},      {"stream", T},	 {"status", TOPT},
    {"call", TOPT}, {"stack", TOPT}, {"handle", TOPT}, {"device", TOPT},
};
static const struct gr_column_def free_cols[GR_FREE_NCOLS] = {
    {"ts", D},	 {"dur", V},  {"pid", T},	{"tid", T},	{"api", T},
    {"addr", V}, {"kind", T}, {"status", TOPT}, {"call", TOPT},
};
static const struct gr_column_def sync_cols[GR_SYNC_NCOLS] = {
    {"ts", D},	 {"dur", V},	{"pid", T},	{"tid", T},   {"cpu", T},	{"api", T},
    {"kind", T}, {"handle", T}, {"handle2", T}, {"stack", T}, {"status", TOPT}, {"call", TOPT},
};
static const struct gr_column_def graph_cols[GR_GRAPH_NCOLS] = {
    {"ts", D},	   {"dur", V},	 {"pid", T},  {"tid", T},   {"api", T},	      {"kind", T},
    {"stream", T}, {"graph", T}, {"exec", T}, {"stack", T}, {"status", TOPT}, {"call", TOPT},
};
static const struct gr_column_def sched_cols[GR_SCHED_NCOLS] = {
    {"ts", D},	       {"cpu", T},	  {"type", T},	     {"prev_pid", T},
    {"prev_tid", T},   {"prev_state", T}, {"next_pid", T},   {"next_tid", T},
    {"target_cpu", T}, {"stack", TOPT},	  {"syscall", TOPT}, {"fd_kind", TOPT},
};
static const struct gr_column_def proc_cols[GR_PROC_NCOLS] = {
    {"ts", D}, {"type", T}, {"pid", T}, {"tid", T}, {"value", V}, {"text", B},
};
static const struct gr_column_def name_cols[GR_NAME_NCOLS] = {
    {"ts", D}, {"class", T}, {"pid", T}, {"key", V}, {"text", B},
};
static const struct gr_column_def map_cols[GR_MAP_NCOLS] = {
    {"ts", D}, {"pid", T}, {"start", V}, {"end", V}, {"pgoff", V}, {"path", B}, {"build_id", B},
};
static const struct gr_column_def sym_cols[GR_SYM_NCOLS] = {
    {"ts", D},	 {"pid", T},  {"addr", V},    {"start", V},
    {"size", V}, {"name", B}, {"file", BOPT}, {"line", VOPT},
};
static const struct gr_column_def stack_cols[GR_STACK_NCOLS] = {
    {"ts", D},
    {"id", V},
    {"pid", T},
    {"frames", B},
};
static const struct gr_column_def pyframe_cols[GR_PYF_NCOLS] = {
    {"ts", D}, {"key", V}, {"pid", T}, {"file", B}, {"line", V}, {"function", B},
};
static const struct gr_column_def loss_cols[GR_LOSS_NCOLS] = {
    {"ts", D},
    {"ts_end", V},
    {"source", T},
    {"count", V},
};
static const struct gr_column_def raw_cols[GR_RAW_NCOLS] = {
    {"ts", D}, {"pid", T}, {"tid", T}, {"regs", B}, {"stack", B},
};
static const struct gr_column_def comm_cols[GR_COMM_NCOLS] = {
    {"ts", D},	  {"dur", V},	{"pid", T},    {"tid", T},    {"cpu", T},
    {"api", T},	  {"kind", T},	{"comm", T},   {"stream", T}, {"count", T},
    {"dtype", T}, {"redop", T}, {"peer", T},   {"id", T},     {"nranks", T},
    {"rank", T},  {"stack", T}, {"status", T}, {"call", T},
};
static const struct gr_column_def gpu_cols[GR_GPU_NCOLS] = {
    {"ts", D},	       {"dur", V},    {"pid", T},     {"host_tid", T},	{"host_ts", V},
    {"kind", T},       {"device", T}, {"context", T}, {"stream", T},	{"correlation", V},
    {"grid_x", T},     {"grid_y", T}, {"grid_z", T},  {"block_x", T},	{"block_y", T},
    {"block_z", T},    {"shared", T}, {"bytes", T},   {"copy_kind", T}, {"graph", T},
    {"graph_node", V}, {"name", B},
};
static const struct gr_column_def meminfo_cols[GR_MEMINFO_NCOLS] = {
    {"ts", D},	 {"dur", V},   {"pid", T},   {"tid", T},    {"api", T},
    {"free", V}, {"total", T}, {"stack", T}, {"status", T}, {"call", T},
};
static const struct gr_column_def nvtx_cols[GR_NVTX_NCOLS] = {
    {"ts", D},	     {"pid", T},   {"tid", T},		{"op", T},	{"domain", T}, {"id", V},
    {"category", T}, {"color", T}, {"payload_type", T}, {"payload", V}, {"text", B},
};
static const struct gr_column_def sess_cols[GR_SESS_NCOLS] = {
    {"ts", D},
    {"key", T},
    {"value", V},
    {"text", B},
};

#define KIND(id, name, cols)                                                                       \
	{                                                                                          \
		id, name, N(cols), cols                                                            \
	}
static const struct gr_kind_def kinds[] = {
    KIND(GR_K_LAUNCH, "launch", launch_cols),
    KIND(GR_K_COPY, "copy", copy_cols),
    KIND(GR_K_MEMSET, "memset", memset_cols),
    KIND(GR_K_ALLOC, "alloc", alloc_cols),
    KIND(GR_K_FREE, "free", free_cols),
    KIND(GR_K_SYNC, "sync", sync_cols),
    KIND(GR_K_GRAPH, "graph", graph_cols),
    KIND(GR_K_SCHED, "sched", sched_cols),
    KIND(GR_K_PROC, "proc", proc_cols),
    KIND(GR_K_NAME, "name", name_cols),
    KIND(GR_K_MAPPING, "mapping", map_cols),
    KIND(GR_K_SYMBOL, "symbol", sym_cols),
    KIND(GR_K_STACK, "stack", stack_cols),
    KIND(GR_K_LOSS, "loss", loss_cols),
    KIND(GR_K_RAWSTACK, "rawstack", raw_cols),
    KIND(GR_K_SESSION, "session", sess_cols),
    KIND(GR_K_PYFRAME, "pyframe", pyframe_cols),
    KIND(GR_K_COMM, "comm", comm_cols),
    KIND(GR_K_GPU, "gpu", gpu_cols),
    KIND(GR_K_MEMINFO, "meminfo", meminfo_cols),
    KIND(GR_K_NVTX, "nvtx", nvtx_cols),
};

static const struct gr_schema schema = {N(kinds), kinds};

const struct gr_schema *gr_events_schema(void)
{
	return &schema;
}
