/* SPDX-License-Identifier: MIT */
/*
 * The capture surface of DESIGN.md section 3 as data. Runtime launches are entry-only (the
 * launch event is complete at entry and a return probe would double its cost); everything whose
 * duration matters (copies, syncs) or whose result comes back through a pointer (allocations,
 * handles) has a return probe. Driver entry points are skipped while a runtime call of the same
 * thread is inside them, so a launch is counted once.
 */
#include "format/events.h"
#include "bpf/gpurec.h"
#include "probes.h"

static const struct gr_probe_spec table[] = {
    {"cudaLaunchKernel", GR_API_cudaLaunchKernel, L_RT_LAUNCH, GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"cudaLaunchKernel_ptsz", GR_API_cudaLaunchKernel_ptsz, L_RT_LAUNCH, GR_CF_LAUNCH | GR_CF_STACK,
     0},
    {"cudaLaunchCooperativeKernel", GR_API_cudaLaunchCooperativeKernel, L_RT_LAUNCH,
     GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"cudaLaunchCooperativeKernel_ptsz", GR_API_cudaLaunchCooperativeKernel_ptsz, L_RT_LAUNCH,
     GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"__cudaLaunchKernel", GR_API___cudaLaunchKernel, L_RT_LAUNCH, GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"__cudaLaunchKernel_ptsz", GR_API___cudaLaunchKernel_ptsz, L_RT_LAUNCH,
     GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"cudaLaunchKernelExC", GR_API_cudaLaunchKernelExC, L_RT_LAUNCH_EXC, GR_CF_LAUNCH | GR_CF_STACK,
     0},
    {"cudaLaunchKernelExC_ptsz", GR_API_cudaLaunchKernelExC_ptsz, L_RT_LAUNCH_EXC,
     GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"cudaGraphLaunch", GR_API_cudaGraphLaunch, L_GRAPH_LAUNCH, GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"cudaGraphLaunch_ptsz", GR_API_cudaGraphLaunch_ptsz, L_GRAPH_LAUNCH,
     GR_CF_LAUNCH | GR_CF_STACK, 0},
    {"cuLaunchKernel", GR_API_cuLaunchKernel, L_CU_LAUNCH, GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuLaunchKernel_ptsz", GR_API_cuLaunchKernel_ptsz, L_CU_LAUNCH, GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuLaunchCooperativeKernel", GR_API_cuLaunchCooperativeKernel, L_CU_LAUNCH,
     GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuLaunchCooperativeKernel_ptsz", GR_API_cuLaunchCooperativeKernel_ptsz, L_CU_LAUNCH,
     GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuLaunchKernelEx", GR_API_cuLaunchKernelEx, L_CU_LAUNCH_EX, GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuLaunchKernelEx_ptsz", GR_API_cuLaunchKernelEx_ptsz, L_CU_LAUNCH_EX,
     GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuGraphLaunch", GR_API_cuGraphLaunch, L_GRAPH_LAUNCH, GR_CF_DRIVER | GR_CF_STACK, 0},
    {"cuGraphLaunch_ptsz", GR_API_cuGraphLaunch_ptsz, L_GRAPH_LAUNCH, GR_CF_DRIVER | GR_CF_STACK,
     0},
    {"cudaMemcpy", GR_API_cudaMemcpy, L_MEMCPY, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy_ptds", GR_API_cudaMemcpy_ptds, L_MEMCPY, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyAsync", GR_API_cudaMemcpyAsync, L_MEMCPY_ASYNC, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyAsync_ptsz", GR_API_cudaMemcpyAsync_ptsz, L_MEMCPY_ASYNC, GR_CF_RET | GR_CF_STACK,
     0},
    {"cudaMemcpy2D", GR_API_cudaMemcpy2D, L_MEMCPY_2D, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy2D_ptds", GR_API_cudaMemcpy2D_ptds, L_MEMCPY_2D, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy2DAsync", GR_API_cudaMemcpy2DAsync, L_MEMCPY_2D_ASYNC, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy2DAsync_ptsz", GR_API_cudaMemcpy2DAsync_ptsz, L_MEMCPY_2D_ASYNC,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy3D", GR_API_cudaMemcpy3D, L_MEMCPY_3D, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy3D_ptds", GR_API_cudaMemcpy3D_ptds, L_MEMCPY_3D, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy3DAsync", GR_API_cudaMemcpy3DAsync, L_MEMCPY_3D_ASYNC, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpy3DAsync_ptsz", GR_API_cudaMemcpy3DAsync_ptsz, L_MEMCPY_3D_ASYNC,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyPeer", GR_API_cudaMemcpyPeer, L_MEMCPY_PEER, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyPeerAsync", GR_API_cudaMemcpyPeerAsync, L_MEMCPY_PEER_ASYNC,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyToSymbol", GR_API_cudaMemcpyToSymbol, L_MEMCPY_TO_SYM, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyToSymbol_ptds", GR_API_cudaMemcpyToSymbol_ptds, L_MEMCPY_TO_SYM,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyFromSymbol", GR_API_cudaMemcpyFromSymbol, L_MEMCPY_FROM_SYM,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyFromSymbol_ptds", GR_API_cudaMemcpyFromSymbol_ptds, L_MEMCPY_FROM_SYM,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyToSymbolAsync", GR_API_cudaMemcpyToSymbolAsync, L_MEMCPY_TO_SYM_ASYNC,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyToSymbolAsync_ptsz", GR_API_cudaMemcpyToSymbolAsync_ptsz, L_MEMCPY_TO_SYM_ASYNC,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyFromSymbolAsync", GR_API_cudaMemcpyFromSymbolAsync, L_MEMCPY_FROM_SYM_ASYNC,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemcpyFromSymbolAsync_ptsz", GR_API_cudaMemcpyFromSymbolAsync_ptsz,
     L_MEMCPY_FROM_SYM_ASYNC, GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyHtoD_v2", GR_API_cuMemcpyHtoD, L_CU_MEMCPY_HTOD,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyDtoH_v2", GR_API_cuMemcpyDtoH, L_CU_MEMCPY_DTOH,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyDtoD_v2", GR_API_cuMemcpyDtoD, L_CU_MEMCPY_DTOD,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyHtoDAsync_v2", GR_API_cuMemcpyHtoDAsync, L_CU_MEMCPY_HTOD,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyDtoHAsync_v2", GR_API_cuMemcpyDtoHAsync, L_CU_MEMCPY_DTOH,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyDtoDAsync_v2", GR_API_cuMemcpyDtoDAsync, L_CU_MEMCPY_DTOD,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpy", GR_API_cuMemcpy, L_CU_MEMCPY, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemcpyAsync", GR_API_cuMemcpyAsync, L_CU_MEMCPY, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemset", GR_API_cudaMemset, L_MEMSET, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemset_ptds", GR_API_cudaMemset_ptds, L_MEMSET, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemsetAsync", GR_API_cudaMemsetAsync, L_MEMSET, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMemsetAsync_ptsz", GR_API_cudaMemsetAsync_ptsz, L_MEMSET, GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemsetD8_v2", GR_API_cuMemsetD8, L_CU_MEMSET_D8, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemsetD32_v2", GR_API_cuMemsetD32, L_CU_MEMSET_D32, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK,
     0},
    {"cuMemsetD8Async", GR_API_cuMemsetD8Async, L_CU_MEMSET_D8,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuMemsetD32Async", GR_API_cuMemsetD32Async, L_CU_MEMSET_D32,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cudaMalloc", GR_API_cudaMalloc, L_MALLOC_OUT, GR_CF_RET, 0},
    {"cudaMallocAsync", GR_API_cudaMallocAsync, L_MALLOC_OUT, GR_CF_RET, 0},
    {"cudaMallocAsync_ptsz", GR_API_cudaMallocAsync_ptsz, L_MALLOC_OUT, GR_CF_RET, 0},
    {"cudaMallocManaged", GR_API_cudaMallocManaged, L_MALLOC_OUT, GR_CF_RET, 0},
    {"cudaMallocHost", GR_API_cudaMallocHost, L_MALLOC_OUT, GR_CF_RET, 0},
    {"cudaHostAlloc", GR_API_cudaHostAlloc, L_MALLOC_OUT, GR_CF_RET, 0},
    {"cudaHostRegister", GR_API_cudaHostRegister, L_HOST_REGISTER, GR_CF_RET, 0},
    {"cudaFree", GR_API_cudaFree, L_FREE, GR_CF_RET, 0},
    {"cudaFreeAsync", GR_API_cudaFreeAsync, L_FREE, GR_CF_RET, 0},
    {"cudaFreeAsync_ptsz", GR_API_cudaFreeAsync_ptsz, L_FREE, GR_CF_RET, 0},
    {"cudaFreeHost", GR_API_cudaFreeHost, L_FREE, GR_CF_RET, 0},
    {"cudaHostUnregister", GR_API_cudaHostUnregister, L_FREE, GR_CF_RET, 0},
    {"cuMemAlloc_v2", GR_API_cuMemAlloc, L_MALLOC_OUT, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemAllocHost_v2", GR_API_cuMemAllocHost, L_MALLOC_OUT, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemHostAlloc", GR_API_cuMemHostAlloc, L_MALLOC_OUT, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemAllocAsync", GR_API_cuMemAllocAsync, L_MALLOC_OUT, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemHostRegister_v2", GR_API_cuMemHostRegister, L_HOST_REGISTER, GR_CF_DRIVER | GR_CF_RET,
     0},
    {"cuMemFree_v2", GR_API_cuMemFree, L_FREE, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemFreeHost", GR_API_cuMemFreeHost, L_FREE, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemHostUnregister", GR_API_cuMemHostUnregister, L_FREE, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cuMemFreeAsync", GR_API_cuMemFreeAsync, L_FREE, GR_CF_DRIVER | GR_CF_RET, 0},
    {"cudaDeviceSynchronize", GR_API_cudaDeviceSynchronize, L_SYNC_NONE, GR_CF_RET | GR_CF_STACK,
     0},
    {"cudaStreamSynchronize", GR_API_cudaStreamSynchronize, L_SYNC_HANDLE, GR_CF_RET | GR_CF_STACK,
     0},
    {"cudaStreamSynchronize_ptsz", GR_API_cudaStreamSynchronize_ptsz, L_SYNC_HANDLE,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaEventSynchronize", GR_API_cudaEventSynchronize, L_SYNC_HANDLE, GR_CF_RET | GR_CF_STACK,
     0},
    {"cudaStreamWaitEvent", GR_API_cudaStreamWaitEvent, L_SYNC_HANDLE2, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaStreamWaitEvent_ptsz", GR_API_cudaStreamWaitEvent_ptsz, L_SYNC_HANDLE2,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaEventRecord", GR_API_cudaEventRecord, L_SYNC_HANDLE2, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaEventRecord_ptsz", GR_API_cudaEventRecord_ptsz, L_SYNC_HANDLE2, GR_CF_RET | GR_CF_STACK,
     0},
    {"cuCtxSynchronize", GR_API_cuCtxSynchronize, L_SYNC_NONE,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuStreamSynchronize", GR_API_cuStreamSynchronize, L_SYNC_HANDLE,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuEventSynchronize", GR_API_cuEventSynchronize, L_SYNC_HANDLE,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuStreamWaitEvent", GR_API_cuStreamWaitEvent, L_SYNC_HANDLE2,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuEventRecord", GR_API_cuEventRecord, L_SYNC_HANDLE2, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK,
     0},
    {"cudaStreamBeginCapture", GR_API_cudaStreamBeginCapture, L_CAPTURE_BEGIN,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaStreamBeginCapture_ptsz", GR_API_cudaStreamBeginCapture_ptsz, L_CAPTURE_BEGIN,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaStreamEndCapture", GR_API_cudaStreamEndCapture, L_CAPTURE_END, GR_CF_RET | GR_CF_STACK,
     0},
    {"cudaStreamEndCapture_ptsz", GR_API_cudaStreamEndCapture_ptsz, L_CAPTURE_END,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphInstantiate", GR_API_cudaGraphInstantiate, L_GRAPH_INSTANTIATE,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphInstantiateWithFlags", GR_API_cudaGraphInstantiateWithFlags, L_GRAPH_INSTANTIATE,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cuStreamBeginCapture_v2", GR_API_cuStreamBeginCapture, L_CAPTURE_BEGIN,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuStreamEndCapture", GR_API_cuStreamEndCapture, L_CAPTURE_END,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphInstantiateWithFlags", GR_API_cuGraphInstantiate, L_GRAPH_INSTANTIATE,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    /* explicit graph building: return probes, since a failed call added or changed nothing */
    {"cudaGraphAddKernelNode", GR_API_cudaGraphAddKernelNode, L_GRAPH_ADD_KERNEL,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphKernelNodeSetParams", GR_API_cudaGraphKernelNodeSetParams, L_GRAPH_KERNEL_SET,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphExecKernelNodeSetParams", GR_API_cudaGraphExecKernelNodeSetParams,
     L_GRAPH_EXEC_KERNEL_SET, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphExecUpdate", GR_API_cudaGraphExecUpdate, L_GRAPH_EXEC_UPDATE,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphAddChildGraphNode", GR_API_cudaGraphAddChildGraphNode, L_GRAPH_ADD_CHILD,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphClone", GR_API_cudaGraphClone, L_GRAPH_CLONE, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphAddMemcpyNode1D", GR_API_cudaGraphAddMemcpyNode1D, L_GRAPH_ADD_MEMCPY_1D,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGraphAddMemsetNode", GR_API_cudaGraphAddMemsetNode, L_GRAPH_ADD_MEMSET,
     GR_CF_RET | GR_CF_STACK, 0},
    /*
     * The driver's: CUDA_KERNEL_NODE_PARAMS starts as cudaKernelNodeParams does (function,
     * grid, block, shared memory at the same offsets), and cuda.h maps the plain names to the
     * _v2 entry points; binaries built against older headers call the plain ones.
     */
    {"cuGraphAddKernelNode_v2", GR_API_cuGraphAddKernelNode, L_GRAPH_ADD_KERNEL,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphAddKernelNode", GR_API_cuGraphAddKernelNode, L_GRAPH_ADD_KERNEL,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphKernelNodeSetParams_v2", GR_API_cuGraphKernelNodeSetParams, L_GRAPH_KERNEL_SET,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphKernelNodeSetParams", GR_API_cuGraphKernelNodeSetParams, L_GRAPH_KERNEL_SET,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphExecKernelNodeSetParams_v2", GR_API_cuGraphExecKernelNodeSetParams,
     L_GRAPH_EXEC_KERNEL_SET, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphExecKernelNodeSetParams", GR_API_cuGraphExecKernelNodeSetParams,
     L_GRAPH_EXEC_KERNEL_SET, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphExecUpdate_v2", GR_API_cuGraphExecUpdate, L_GRAPH_EXEC_UPDATE,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphExecUpdate", GR_API_cuGraphExecUpdate, L_GRAPH_EXEC_UPDATE,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuGraphAddChildGraphNode", GR_API_cuGraphAddChildGraphNode, L_GRAPH_ADD_CHILD,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    /*
     * NCCL (libnccl.so.2, found like libcudart wherever it is mapped): entry and return, for
     * the time in the call and its ncclResult_t. ncclFoo and pncclFoo are one address: the
     * plain name is probed. Its kernels are launched through a runtime linked into libnccl,
     * which has no symbols, so they are seen at the driver: GR_CF_OUTER keeps those driver
     * calls recorded, as the collective's own work, not calls nested in it.
     */
    {"ncclAllReduce", GR_API_ncclAllReduce, L_NCCL_COLL_OP, GR_CF_OUTER | GR_CF_RET | GR_CF_STACK,
     0},
    {"ncclReduceScatter", GR_API_ncclReduceScatter, L_NCCL_COLL_OP,
     GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclAllGather", GR_API_ncclAllGather, L_NCCL_ALL_GATHER,
     GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclBroadcast", GR_API_ncclBroadcast, L_NCCL_BROADCAST, GR_CF_OUTER | GR_CF_RET | GR_CF_STACK,
     0},
    {"ncclReduce", GR_API_ncclReduce, L_NCCL_REDUCE, GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclSend", GR_API_ncclSend, L_NCCL_P2P, GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclRecv", GR_API_ncclRecv, L_NCCL_P2P, GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclGroupStart", GR_API_ncclGroupStart, L_NCCL_GROUP, GR_CF_OUTER | GR_CF_RET, 0},
    {"ncclGroupEnd", GR_API_ncclGroupEnd, L_NCCL_GROUP, GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclCommInitRank", GR_API_ncclCommInitRank, L_NCCL_INIT,
     GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclCommInitRankConfig", GR_API_ncclCommInitRankConfig, L_NCCL_INIT,
     GR_CF_OUTER | GR_CF_RET | GR_CF_STACK, 0},
    {"ncclCommDestroy", GR_API_ncclCommDestroy, L_NCCL_DESTROY, GR_CF_OUTER | GR_CF_RET, 0},
    {"__cudaRegisterFunction", GR_API_UNKNOWN, L_REGISTER_FUNCTION, 0, 1},
    {"__cudaGetKernel", GR_API_UNKNOWN, L_GET_KERNEL, GR_CF_RET, 0},
    {"cudaGetKernel", GR_API_UNKNOWN, L_GET_KERNEL, GR_CF_RET, 0},
    {"cuModuleGetFunction", GR_API_UNKNOWN, L_CU_GET_FUNCTION, GR_CF_DRIVER | GR_CF_RET, 1},
    {"cuLibraryGetKernel", GR_API_UNKNOWN, L_CU_LIBRARY_GET_KERNEL, GR_CF_DRIVER | GR_CF_RET, 1},
    {"cuKernelGetFunction", GR_API_UNKNOWN, L_CU_KERNEL_GET_FUNCTION, GR_CF_DRIVER | GR_CF_RET, 0},
    /*
     * device queries and set-up: the SM count they return (GR_SESS_DEVICE_SMS), and a call row
     * only when one fails: often a program's first call and, with no driver, its last
     */
    {"cudaGetDeviceProperties", GR_API_cudaGetDeviceProperties, L_DEVICE_PROPS,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGetDeviceProperties_v2", GR_API_cudaGetDeviceProperties_v2, L_DEVICE_PROPS,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cudaDeviceGetAttribute", GR_API_cudaDeviceGetAttribute, L_DEVICE_ATTR,
     GR_CF_RET | GR_CF_STACK, 0},
    {"cuDeviceGetAttribute", GR_API_cuDeviceGetAttribute, L_DEVICE_ATTR,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cudaGetDeviceCount", GR_API_cudaGetDeviceCount, L_DEVICE_QUERY, GR_CF_RET | GR_CF_STACK, 0},
    {"cudaSetDevice", GR_API_cudaSetDevice, L_DEVICE_QUERY, GR_CF_RET | GR_CF_STACK, 0},
    {"cuInit", GR_API_cuInit, L_DEVICE_QUERY, GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
    {"cuDeviceGetCount", GR_API_cuDeviceGetCount, L_DEVICE_QUERY,
     GR_CF_DRIVER | GR_CF_RET | GR_CF_STACK, 0},
};

const struct gr_probe_spec *gr_probes_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

static int is_launch(const struct gr_probe_spec *spec)
{
	return spec->layout == L_RT_LAUNCH || spec->layout == L_RT_LAUNCH_EXC ||
	       spec->layout == L_CU_LAUNCH || spec->layout == L_CU_LAUNCH_EX ||
	       spec->layout == L_GRAPH_LAUNCH;
}

int gr_probe_sampled(const struct gr_probe_spec *spec, const struct gr_probe_opts *opts)
{
	return !opts->launch_time && opts->launch_sample && is_launch(spec);
}

int gr_probe_has_return(const struct gr_probe_spec *spec, const struct gr_probe_opts *opts)
{
	return (spec->flags & GR_CF_RET) || (opts->launch_time && is_launch(spec));
}

uint64_t gr_probe_cookie(const struct gr_probe_spec *spec, const struct gr_probe_opts *opts)
{
	uint32_t flags = spec->flags;

	if (!opts->stacks)
		flags &= ~GR_CF_STACK;
	if (gr_probe_has_return(spec, opts))
		flags = (flags | GR_CF_RET) & ~GR_CF_LAUNCH;
	return GR_COOKIE(flags, spec->layout, spec->api);
}
