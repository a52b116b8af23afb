/* SPDX-License-Identifier: MIT */
/*
 * gpurec's vocabulary: the record kinds and columns `record` writes and `analyze` reads. This is
 * the file's meaning, independent of how BPF captures it (bpf/ structs never reach analyze/).
 * Readers look columns up by name through the file's own schema (gr_schema_column), so a file
 * written by a build with more columns still reads; the enums below are the column order that
 * this build writes, used by the writer and for files whose schema matches.
 *
 * All timestamps are CLOCK_MONOTONIC nanoseconds of the recording host. "dur" is the API call's
 * duration in ns (entry to return), 0 when not measured. "stack" is a stack id (see GR_K_STACK),
 * 0 for none.
 *
 * Every API call kind (LAUNCH .. GRAPH) ends with two optional columns (absent in files of
 * gpurec before they existed, read as 0): "status", the call's return value (cudaError_t or
 * CUresult: 0 is success) when GR_CALL_RETURNED is set in "call", and "call", the GR_CALL_*
 * flags and the call's nesting depth.
 */
#ifndef GR_FORMAT_EVENTS_H
#define GR_FORMAT_EVENTS_H

#include "trace.h"

/*
 * The "call" column. A call recorded at entry only (a launch without --launch-time) has neither
 * RETURNED nor IN_FLIGHT: its status is unknown. An IN_FLIGHT call had been entered and had not
 * returned when its thread exited (EXITED) or the recording stopped: its dur is the time from
 * entry to then, its status and out-parameters (an allocation's address) are unknown. The depth
 * is the number of recorded calls the thread was inside when it made this one (0: an outermost
 * call); an inner call's time is part of the outer call's.
 */
#define GR_CALL_RETURNED    1u
#define GR_CALL_IN_FLIGHT   2u
#define GR_CALL_EXITED	    4u
#define GR_CALL_DEPTH_SHIFT 4
#define GR_CALL_DEPTH(call) ((unsigned)((call) >> GR_CALL_DEPTH_SHIFT) & 15u)
/* ncclResult_t's ncclInProgress: a non-blocking communicator's call that goes on working. */
#define GR_NCCL_IN_PROGRESS 7u
/*
 * The one definition of a failed call, for every command and for record's own warning: a call
 * to @api that returned (GR_CALL_RETURNED in @call) with a status that is an error. 0 is success
 * for the runtime (cudaError_t), the driver (CUresult) and NCCL (ncclResult_t) alike; NCCL's
 * ncclInProgress is no error either: a call on a non-blocking communicator returns it when it
 * has queued its work, and a failure comes later, from ncclCommGetAsyncError. 1 when failed.
 */
int gr_call_failed(unsigned api, uint64_t call, uint32_t status);
/* A call the reports must not count as done: it failed, is nested in another, or never ended. */
#define GR_CALL_ASIDE(api, call, status)                                                           \
	(((call)&GR_CALL_IN_FLIGHT) || GR_CALL_DEPTH(call) || gr_call_failed(api, call, status))

enum gr_kind {
	GR_K_LAUNCH = 1,    /* a kernel launch (runtime or driver API) */
	GR_K_COPY = 2,	    /* a memory copy */
	GR_K_MEMSET = 3,    /* a memset */
	GR_K_ALLOC = 4,	    /* device, pinned host, registered or managed allocation */
	GR_K_FREE = 5,	    /* the matching release */
	GR_K_SYNC = 6,	    /* device/stream/event synchronisation, event record, stream wait */
	GR_K_GRAPH = 7,	    /* stream capture begin/end, graph instantiate, graph launch */
	GR_K_SCHED = 8,	    /* scheduler switch/wakeup touching a traced thread */
	GR_K_PROC = 9,	    /* process/thread lifecycle: start, exec, exit, attach */
	GR_K_NAME = 10,	    /* a name for a key: kernel name, comm, library version */
	GR_K_MAPPING = 11,  /* an executable mapping of a traced process, with build-id */
	GR_K_SYMBOL = 12,   /* symbol of one referenced address (frames), as first referenced */
	GR_K_STACK = 13,    /* stack id -> frame addresses (deduplicated) */
	GR_K_LOSS = 14,	    /* events lost, with the time range and source */
	GR_K_RAWSTACK = 15, /* --call-graph dwarf: registers + raw stack bytes of one event */
	GR_K_SESSION = 16,  /* session facts known only at the end: stop time, exit status */
	GR_K_PYFRAME = 17,  /* a Python frame a STACK refers to: file, line, function */
	GR_K_COMM = 18,	    /* a collective communication call (NCCL): collective, p2p, group,
			       communicator creation and destruction */
	GR_K_GPU = 19,	    /* --cupti: what the GPU did (a kernel, copy, memset), measured by
			       CUPTI, tied to the host call that asked for it */
	GR_K_MEMINFO = 20,  /* what cudaMemGetInfo / cuMemGetInfo answered: free and total */
	GR_K_NVTX = 21,	    /* an NVTX call of the program's: a range pushed, popped, started or
			       ended, a mark, a name given (format 1.3) */
	GR_K_COUNT
};

/* LAUNCH columns. api: enum gr_api. func: host stub / CUfunction / kernel handle. */
enum {
	GR_LAUNCH_TS,
	GR_LAUNCH_DUR,
	GR_LAUNCH_PID,
	GR_LAUNCH_TID,
	GR_LAUNCH_CPU,
	GR_LAUNCH_API,
	GR_LAUNCH_FUNC,
	GR_LAUNCH_GX,
	GR_LAUNCH_GY,
	GR_LAUNCH_GZ,
	GR_LAUNCH_BX,
	GR_LAUNCH_BY,
	GR_LAUNCH_BZ,
	GR_LAUNCH_SHMEM,
	GR_LAUNCH_STREAM,
	GR_LAUNCH_STACK,
	GR_LAUNCH_STATUS,
	GR_LAUNCH_CALL,
	/* thread block cluster dimensions (cudaLaunchAttributeClusterDimension,
	 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION): optional, 0 0 0 when the launch set none */
	GR_LAUNCH_CLUSTER_X,
	GR_LAUNCH_CLUSTER_Y,
	GR_LAUNCH_CLUSTER_Z,
	GR_LAUNCH_NCOLS
};

/* COPY columns. ckind: enum gr_copy_kind. flags: GR_COPY_F_*. */
enum {
	GR_COPY_TS,
	GR_COPY_DUR,
	GR_COPY_PID,
	GR_COPY_TID,
	GR_COPY_CPU,
	GR_COPY_API,
	GR_COPY_DST,
	GR_COPY_SRC,
	GR_COPY_BYTES,
	GR_COPY_CKIND,
	GR_COPY_STREAM,
	GR_COPY_FLAGS,
	GR_COPY_STACK,
	GR_COPY_STATUS,
	GR_COPY_CALL,
	GR_COPY_NCOLS
};
#define GR_COPY_F_ASYNC	 1u /* the API is asynchronous (…Async) */
#define GR_COPY_F_2D	 2u
#define GR_COPY_F_3D	 4u
#define GR_COPY_F_PEER	 8u
#define GR_COPY_F_SYMBOL 16u
#define GR_COPY_F_DRIVER 32u /* issued through the driver API */

enum {
	GR_MEMSET_TS,
	GR_MEMSET_DUR,
	GR_MEMSET_PID,
	GR_MEMSET_TID,
	GR_MEMSET_CPU,
	GR_MEMSET_API,
	GR_MEMSET_DST,
	GR_MEMSET_BYTES,
	GR_MEMSET_VALUE,
	GR_MEMSET_STREAM,
	GR_MEMSET_FLAGS,
	GR_MEMSET_STACK,
	GR_MEMSET_STATUS,
	GR_MEMSET_CALL,
	GR_MEMSET_NCOLS
};

/*
 * ALLOC/FREE: akind enum gr_alloc_kind. addr 0 in ALLOC means the call failed. bytes: what the
 * allocation holds (a pitched one pitch x height x depth). Two optional ALLOC columns (absent in
 * files of gpurec before they existed, read as 0): stack, the allocation call's stack id, and
 * handle, the memory pool of a ...FromPoolAsync allocation or the physical handle a VMM mapping
 * maps (0 otherwise). A third optional one, device: the ordinal of the calling thread's current
 * device by the runtime's rule (its last successful cudaSetDevice, 0 before any; driver context
 * calls are not followed). A FREE row needs no stack: it is matched to its allocation.
 */
enum {
	GR_ALLOC_TS,
	GR_ALLOC_DUR,
	GR_ALLOC_PID,
	GR_ALLOC_TID,
	GR_ALLOC_API,
	GR_ALLOC_ADDR,
	GR_ALLOC_BYTES,
	GR_ALLOC_AKIND,
	GR_ALLOC_STREAM,
	GR_ALLOC_STATUS,
	GR_ALLOC_CALL,
	GR_ALLOC_STACK,
	GR_ALLOC_HANDLE,
	GR_ALLOC_DEVICE_ORD,
	GR_ALLOC_NCOLS
};
enum {
	GR_FREE_TS,
	GR_FREE_DUR,
	GR_FREE_PID,
	GR_FREE_TID,
	GR_FREE_API,
	GR_FREE_ADDR,
	GR_FREE_AKIND,
	GR_FREE_STATUS,
	GR_FREE_CALL,
	GR_FREE_NCOLS
};

/* SYNC: skind enum gr_sync_kind; handle: stream or event; handle2: event of a stream wait. */
enum {
	GR_SYNC_TS,
	GR_SYNC_DUR,
	GR_SYNC_PID,
	GR_SYNC_TID,
	GR_SYNC_CPU,
	GR_SYNC_API,
	GR_SYNC_SKIND,
	GR_SYNC_HANDLE,
	GR_SYNC_HANDLE2,
	GR_SYNC_STACK,
	GR_SYNC_STATUS,
	GR_SYNC_CALL,
	GR_SYNC_NCOLS
};

/* GRAPH: gkind enum gr_graph_kind; graph: cudaGraph_t; exec: cudaGraphExec_t. */
enum {
	GR_GRAPH_TS,
	GR_GRAPH_DUR,
	GR_GRAPH_PID,
	GR_GRAPH_TID,
	GR_GRAPH_API,
	GR_GRAPH_GKIND,
	GR_GRAPH_STREAM,
	GR_GRAPH_GRAPH,
	GR_GRAPH_EXEC,
	GR_GRAPH_STACK,
	GR_GRAPH_STATUS,
	GR_GRAPH_CALL,
	GR_GRAPH_NCOLS
};

/*
 * SCHED: type enum gr_sched_type. For a switch, prev_* left the CPU (prev_state: 0 runnable =
 * preempted, else the kernel's task state bits) and next_* took it. For a wakeup, prev_* is the
 * waker (current task) and next_* the woken task, target_cpu where it will run. For a migration,
 * prev_* is the traced thread that moves, cpu the CPU it leaves, target_cpu the one it moves to,
 * and next_* the task running on the CPU it leaves at that moment (GR_SCHED_NOBODY: unknown).
 * A trace with the SCHED_WINDOWS session fact also has every switch on a CPU while a traced
 * thread waited there runnable (docs/FORMAT.md).
 */
enum {
	GR_SCHED_TS,
	GR_SCHED_CPU,
	GR_SCHED_TYPE,
	GR_SCHED_PREV_PID,
	GR_SCHED_PREV_TID,
	GR_SCHED_PREV_STATE,
	GR_SCHED_NEXT_PID,
	GR_SCHED_NEXT_TID,
	GR_SCHED_TARGET_CPU,
	/*
	 * Why and where a thread blocked (1.2, optional: 0 in older files). A SWITCH whose prev is
	 * sleeping: stack = prev's user stack where it blocked, syscall = the x86-64 system call
	 * number it is blocked in + 1 (0: none, a page fault, or not known), fd_kind = enum
	 * gr_fd_kind of the file the call's fd names (fd-taking calls only). A WAKEUP(_NEW) of a
	 * thread that makes CUDA calls, by a traced waker: stack = the waker's user stack.
	 */
	GR_SCHED_STACK,
	GR_SCHED_SYSCALL,
	GR_SCHED_FD_KIND,
	GR_SCHED_NCOLS
};

/* PROC: type enum gr_proc_type; value: exit status for EXIT, parent pid for START. */
enum {
	GR_PROC_TS,
	GR_PROC_TYPE,
	GR_PROC_PID,
	GR_PROC_TID,
	GR_PROC_VALUE,
	GR_PROC_TEXT,
	GR_PROC_NCOLS
};

/*
 * NAME: a name for (class, pid, key). class enum gr_name_class. KERNEL: key is the launch func
 * value in that pid. COMM: key is a tid (pid 0 when the pid is unknown). LIBRARY: key is the
 * mapping start, text is the CUDA library version string.
 */
enum { GR_NAME_TS, GR_NAME_CLASS, GR_NAME_PID, GR_NAME_KEY, GR_NAME_TEXT, GR_NAME_NCOLS };

/* MAPPING: one file-backed executable mapping: [start, end) at file offset pgoff. */
enum {
	GR_MAP_TS,
	GR_MAP_PID,
	GR_MAP_START,
	GR_MAP_END,
	GR_MAP_PGOFF,
	GR_MAP_PATH,
	GR_MAP_BUILDID,
	GR_MAP_NCOLS
};

/*
 * SYMBOL: name of the function containing addr in pid (addr..addr+size from sym_start). Two
 * optional columns (absent in files of gpurec before they existed: read as empty and 0): file
 * and line, the source line of the call the frame made (its return address less one) from the
 * file's own line tables, as the recorder read them; empty and 0 when it has none (no -g, or
 * stripped).
 */
enum {
	GR_SYM_TS,
	GR_SYM_PID,
	GR_SYM_ADDR,
	GR_SYM_START,
	GR_SYM_SIZE,
	GR_SYM_NAME,
	GR_SYM_FILE,
	GR_SYM_LINE,
	GR_SYM_NCOLS
};

/*
 * STACK: frames are little-endian u64 return addresses, innermost first. A frame with
 * GR_FRAME_PYTHON set is not an address but a Python frame: the PYFRAME record whose key it is.
 * User-space addresses never have that bit set, so the two cannot be confused. Python frames
 * stand where the interpreter's evaluation loop ran them (they replace its native frames), or
 * outermost when the native walk ended before reaching the interpreter.
 */
enum { GR_STACK_TS, GR_STACK_ID, GR_STACK_PID, GR_STACK_FRAMES, GR_STACK_NCOLS };
#define GR_FRAME_PYTHON	      (1ull << 63)
#define GR_FRAME_IS_PYTHON(f) (((f)&GR_FRAME_PYTHON) != 0)

/*
 * PYFRAME: one Python frame as the recorder resolved it while the process lived: key is the
 * frame value stacks use (GR_FRAME_PYTHON | a number unique in the file), pid the process it ran
 * in, file the code object's co_filename, line the line of the instruction running (0 when the
 * code has no line for it), function its co_qualname (co_name before 3.11). Written before the
 * first STACK that uses it. A frame the recorder could not resolve has an empty file and
 * function "<unknown>".
 */
enum { GR_PYF_TS, GR_PYF_KEY, GR_PYF_PID, GR_PYF_FILE, GR_PYF_LINE, GR_PYF_FUNCTION, GR_PYF_NCOLS };

/* LOSS: count events of source (enum gr_loss_source) lost between ts and ts_end. */
enum { GR_LOSS_TS, GR_LOSS_TS_END, GR_LOSS_SOURCE, GR_LOSS_COUNT, GR_LOSS_NCOLS };

/*
 * RAWSTACK (--call-graph dwarf): for the event of (pid, tid, event_ts), what unwinding needs, as
 * perf's user regs and stack dump. regs: 9 little-endian u64, the x86-64 ip sp bp bx r12 r13 r14
 * r15, then flags (1: taken at a function's first instruction, so ip is the called function and
 * the first frame its caller's). stack: the user stack bytes from sp upward, as copied, or up to
 * the last one the recorder's unwinder read when it reached the outermost frame.
 */
enum { GR_RAW_TS, GR_RAW_PID, GR_RAW_TID, GR_RAW_REGS, GR_RAW_STACK, GR_RAW_NCOLS };

/*
 * COMM: one NCCL call. kind enum gr_comm_kind; comm the ncclComm_t it was made on (INIT: the one
 * it returned through its first argument, 0 when it failed); stream the cudaStream_t; count the
 * elements as passed (ALL_GATHER: per rank, the send buffer's; REDUCE_SCATTER: per rank, the
 * receive buffer's); dtype the ncclDataType_t; redop the ncclRedOp_t (reductions only); peer the
 * peer of SEND/RECV or the root of BROADCAST/REDUCE, GR_COMM_NO_PEER otherwise. INIT only: id
 * the hash of the ncclUniqueId (docs/FORMAT.md), nranks, rank. status the ncclResult_t. Every
 * COMM call is probed at entry and return.
 */
enum {
	GR_COMM_TS,
	GR_COMM_DUR,
	GR_COMM_PID,
	GR_COMM_TID,
	GR_COMM_CPU,
	GR_COMM_API,
	GR_COMM_KIND,
	GR_COMM_COMM,
	GR_COMM_STREAM,
	GR_COMM_COUNT,
	GR_COMM_DTYPE,
	GR_COMM_REDOP,
	GR_COMM_PEER,
	GR_COMM_ID,
	GR_COMM_NRANKS,
	GR_COMM_RANK,
	GR_COMM_STACK,
	GR_COMM_STATUS,
	GR_COMM_CALL,
	GR_COMM_NCOLS
};
#define GR_COMM_NO_PEER 0xffffffffu

/*
 * GPU (--cupti only): one CUPTI activity record of a kernel, memcpy or memset, as the GPU ran it.
 * ts: the GPU's start and dur its end minus start, both on the trace's CLOCK_MONOTONIC (the
 * injection library gives CUPTI a CLOCK_MONOTONIC timestamp callback); pid the process; kind enum
 * gr_gpu_kind; device, context: CUPTI's ids; stream: CUPTI's stream id (not the cudaStream_t);
 * correlation: CUPTI's correlation id of the API call that asked for it; host_tid, host_ts: that
 * API call's thread and entry time (CLOCK_MONOTONIC), from CUPTI's RUNTIME or DRIVER activity
 * record of the same correlation id, 0 when not known: they tie the row to the call the probes
 * recorded (docs/FORMAT.md, "GPU rows"); grid, block, shared (static + dynamic bytes): kernels;
 * bytes: copies and memsets; copy_kind: CUpti_ActivityMemcpyKind; graph: the CUDA graph id a
 * node ran in (0: not from a graph), graph_node its node id; name: the kernel's name as CUPTI
 * gives it (mangled), empty for copies and memsets.
 */
enum {
	GR_GPU_TS,
	GR_GPU_DUR,
	GR_GPU_PID,
	GR_GPU_HOST_TID,
	GR_GPU_HOST_TS,
	GR_GPU_KIND,
	GR_GPU_DEVICE,
	GR_GPU_CONTEXT,
	GR_GPU_STREAM,
	GR_GPU_CORRELATION,
	GR_GPU_GRID_X,
	GR_GPU_GRID_Y,
	GR_GPU_GRID_Z,
	GR_GPU_BLOCK_X,
	GR_GPU_BLOCK_Y,
	GR_GPU_BLOCK_Z,
	GR_GPU_SHARED,
	GR_GPU_BYTES,
	GR_GPU_COPY_KIND,
	GR_GPU_GRAPH,
	GR_GPU_GRAPH_NODE,
	GR_GPU_NAME,
	GR_GPU_NCOLS
};

enum gr_gpu_kind {
	GR_GPU_KERNEL = 0,
	GR_GPU_MEMCPY,
	GR_GPU_MEMSET,
};

/*
 * MEMINFO: one cudaMemGetInfo / cuMemGetInfo call and the free and total device bytes it
 * returned (0 and 0 when it failed: status says). stack as the API call kinds'.
 */
enum {
	GR_MEMINFO_TS,
	GR_MEMINFO_DUR,
	GR_MEMINFO_PID,
	GR_MEMINFO_TID,
	GR_MEMINFO_API,
	GR_MEMINFO_FREE,
	GR_MEMINFO_TOTAL,
	GR_MEMINFO_STACK,
	GR_MEMINFO_STATUS,
	GR_MEMINFO_CALL,
	GR_MEMINFO_NCOLS
};

/*
 * NVTX: one NVTX call of the traced program, as the injection library the recorder gives it
 * (libgpurec_nvtx.so) saw it. op: enum gr_nvtx_op. domain: the domain's handle in pid, 0 the
 * default domain. id: START/END the range id, NAME_THREAD the OS tid named, NAME_STREAM the stream
 * handle, NAME_DEVICE the device ordinal, NAME_CATEGORY the category id, PUSH the nesting level
 * the push returned, else 0. color: ARGB, 0 none. payload_type: nvtxPayloadType_t as given, 0
 * none. text: UTF-8, the message (registered strings resolved, wide strings converted) or the
 * name given (NAME_DOMAIN: the domain's name); the recorder keeps its first 127 bytes.
 */
enum {
	GR_NVTX_TS,
	GR_NVTX_PID,
	GR_NVTX_TID,
	GR_NVTX_OP,
	GR_NVTX_DOMAIN,
	GR_NVTX_ID,
	GR_NVTX_CATEGORY,
	GR_NVTX_COLOR,
	GR_NVTX_PAYLOAD_TYPE,
	GR_NVTX_PAYLOAD,
	GR_NVTX_TEXT,
	GR_NVTX_NCOLS
};

enum gr_nvtx_op {
	GR_NVTX_PUSH = 1,
	GR_NVTX_POP,
	GR_NVTX_START,
	GR_NVTX_END,
	GR_NVTX_MARK,
	GR_NVTX_NAME_DOMAIN,
	GR_NVTX_NAME_CATEGORY,
	GR_NVTX_NAME_THREAD,
	GR_NVTX_NAME_STREAM,
	GR_NVTX_NAME_DEVICE,
	GR_NVTX_OP_COUNT
};
/* "push", "pop", "start", "end", "mark", "name_domain", "name_category", "name_thread",
 * "name_stream", "name_device"; "unknown" otherwise. */
const char *gr_nvtx_op_name(unsigned op);

/* SESSION: key enum gr_session_key, value numeric, text optional. */
enum { GR_SESS_TS, GR_SESS_KEY, GR_SESS_VALUE, GR_SESS_TEXT, GR_SESS_NCOLS };

enum gr_api {
	GR_API_UNKNOWN = 0,
	/* runtime launches */
	GR_API_cudaLaunchKernel,
	GR_API_cudaLaunchKernel_ptsz,
	GR_API_cudaLaunchKernelExC,
	GR_API_cudaLaunchKernelExC_ptsz,
	GR_API_cudaLaunchCooperativeKernel,
	GR_API_cudaLaunchCooperativeKernel_ptsz,
	GR_API_cudaGraphLaunch,
	GR_API_cudaGraphLaunch_ptsz,
	/* driver launches */
	GR_API_cuLaunchKernel,
	GR_API_cuLaunchKernel_ptsz,
	GR_API_cuLaunchKernelEx,
	GR_API_cuLaunchKernelEx_ptsz,
	GR_API_cuLaunchCooperativeKernel,
	GR_API_cuLaunchCooperativeKernel_ptsz,
	GR_API_cuGraphLaunch,
	GR_API_cuGraphLaunch_ptsz,
	/* runtime copies */
	GR_API_cudaMemcpy,
	GR_API_cudaMemcpy_ptds,
	GR_API_cudaMemcpyAsync,
	GR_API_cudaMemcpyAsync_ptsz,
	GR_API_cudaMemcpy2D,
	GR_API_cudaMemcpy2D_ptds,
	GR_API_cudaMemcpy2DAsync,
	GR_API_cudaMemcpy2DAsync_ptsz,
	GR_API_cudaMemcpy3D,
	GR_API_cudaMemcpy3D_ptds,
	GR_API_cudaMemcpy3DAsync,
	GR_API_cudaMemcpy3DAsync_ptsz,
	GR_API_cudaMemcpyPeer,
	GR_API_cudaMemcpyPeerAsync,
	GR_API_cudaMemcpyToSymbol,
	GR_API_cudaMemcpyToSymbol_ptds,
	GR_API_cudaMemcpyFromSymbol,
	GR_API_cudaMemcpyFromSymbol_ptds,
	GR_API_cudaMemcpyToSymbolAsync,
	GR_API_cudaMemcpyToSymbolAsync_ptsz,
	GR_API_cudaMemcpyFromSymbolAsync,
	GR_API_cudaMemcpyFromSymbolAsync_ptsz,
	/* driver copies */
	GR_API_cuMemcpyHtoD,
	GR_API_cuMemcpyDtoH,
	GR_API_cuMemcpyDtoD,
	GR_API_cuMemcpyHtoDAsync,
	GR_API_cuMemcpyDtoHAsync,
	GR_API_cuMemcpyDtoDAsync,
	GR_API_cuMemcpy,
	GR_API_cuMemcpyAsync,
	/* memset */
	GR_API_cudaMemset,
	GR_API_cudaMemset_ptds,
	GR_API_cudaMemsetAsync,
	GR_API_cudaMemsetAsync_ptsz,
	GR_API_cuMemsetD8,
	GR_API_cuMemsetD32,
	GR_API_cuMemsetD8Async,
	GR_API_cuMemsetD32Async,
	/* allocation */
	GR_API_cudaMalloc,
	GR_API_cudaMallocAsync,
	GR_API_cudaMallocAsync_ptsz,
	GR_API_cudaMallocManaged,
	GR_API_cudaMallocHost,
	GR_API_cudaHostAlloc,
	GR_API_cudaHostRegister,
	GR_API_cudaFree,
	GR_API_cudaFreeAsync,
	GR_API_cudaFreeAsync_ptsz,
	GR_API_cudaFreeHost,
	GR_API_cudaHostUnregister,
	GR_API_cuMemAlloc,
	GR_API_cuMemFree,
	GR_API_cuMemAllocHost,
	GR_API_cuMemFreeHost,
	GR_API_cuMemHostAlloc,
	GR_API_cuMemHostRegister,
	GR_API_cuMemHostUnregister,
	GR_API_cuMemAllocAsync,
	GR_API_cuMemFreeAsync,
	/* synchronisation */
	GR_API_cudaDeviceSynchronize,
	GR_API_cudaStreamSynchronize,
	GR_API_cudaStreamSynchronize_ptsz,
	GR_API_cudaEventSynchronize,
	GR_API_cudaStreamWaitEvent,
	GR_API_cudaStreamWaitEvent_ptsz,
	GR_API_cudaEventRecord,
	GR_API_cudaEventRecord_ptsz,
	GR_API_cuCtxSynchronize,
	GR_API_cuStreamSynchronize,
	GR_API_cuEventSynchronize,
	GR_API_cuStreamWaitEvent,
	GR_API_cuEventRecord,
	/* graphs */
	GR_API_cudaStreamBeginCapture,
	GR_API_cudaStreamBeginCapture_ptsz,
	GR_API_cudaStreamEndCapture,
	GR_API_cudaStreamEndCapture_ptsz,
	GR_API_cudaGraphInstantiate,
	GR_API_cudaGraphInstantiateWithFlags,
	GR_API_cuStreamBeginCapture,
	GR_API_cuStreamEndCapture,
	GR_API_cuGraphInstantiate,
	/* nvcc 13's <<<>>> calls these; in the toolkit's runtime they jump to cudaLaunchKernel */
	GR_API___cudaLaunchKernel,
	GR_API___cudaLaunchKernel_ptsz,
	/* explicit graph building: LAUNCH, COPY or MEMSET rows that describe a node, not work */
	GR_API_cudaGraphAddKernelNode,
	GR_API_cudaGraphKernelNodeSetParams,
	GR_API_cudaGraphExecKernelNodeSetParams,
	GR_API_cuGraphAddKernelNode,
	GR_API_cuGraphKernelNodeSetParams,
	GR_API_cuGraphExecKernelNodeSetParams,
	GR_API_cudaGraphAddMemcpyNode,
	GR_API_cudaGraphAddMemcpyNode1D,
	GR_API_cudaGraphAddMemsetNode,
	/* graph calls (GRAPH rows) */
	GR_API_cudaGraphAddChildGraphNode,
	GR_API_cudaGraphExecUpdate,
	GR_API_cuGraphExecUpdate,
	GR_API_cudaGraphClone,
	GR_API_cuGraphAddChildGraphNode,
	/* NCCL (COMM rows) */
	GR_API_ncclAllReduce,
	GR_API_ncclReduceScatter,
	GR_API_ncclAllGather,
	GR_API_ncclBroadcast,
	GR_API_ncclReduce,
	GR_API_ncclSend,
	GR_API_ncclRecv,
	GR_API_ncclGroupStart,
	GR_API_ncclGroupEnd,
	GR_API_ncclCommInitRank,
	GR_API_ncclCommInitRankConfig,
	GR_API_ncclCommDestroy,
	/* device set-up and queries: SYNC rows of skind GR_SYNC_DEVICE_QUERY, written only when
	 * the call failed (often the only call of a program that finds no GPU) */
	GR_API_cudaGetDeviceCount,
	GR_API_cudaSetDevice,
	GR_API_cudaGetDeviceProperties,
	GR_API_cudaGetDeviceProperties_v2,
	GR_API_cudaDeviceGetAttribute,
	GR_API_cuInit,
	GR_API_cuDeviceGetCount,
	GR_API_cuDeviceGetAttribute,
	/*
	 * more graph building (appended: the values above are in files). Work rows + GRAPH row:
	 * memcpy nodes (3D parameters, to and from a symbol, the driver's), the driver's memset
	 * node, and the memcpy and memset set-params of graphs and executable graphs. A GRAPH
	 * add-node row alone: host and event nodes, which move no bytes.
	 */
	GR_API_cudaGraphAddMemcpyNodeToSymbol,
	GR_API_cudaGraphAddMemcpyNodeFromSymbol,
	GR_API_cuGraphAddMemcpyNode,
	GR_API_cuGraphAddMemsetNode,
	GR_API_cudaGraphAddHostNode,
	GR_API_cuGraphAddHostNode,
	GR_API_cudaGraphAddEventRecordNode,
	GR_API_cuGraphAddEventRecordNode,
	GR_API_cudaGraphAddEventWaitNode,
	GR_API_cuGraphAddEventWaitNode,
	GR_API_cudaGraphMemcpyNodeSetParams1D,
	GR_API_cudaGraphExecMemcpyNodeSetParams1D,
	GR_API_cudaGraphMemsetNodeSetParams,
	GR_API_cudaGraphExecMemsetNodeSetParams,
	GR_API_cuGraphMemsetNodeSetParams,
	GR_API_cuGraphExecMemsetNodeSetParams,
	GR_API_cudaGraphMemcpyNodeSetParams,
	GR_API_cudaGraphExecMemcpyNodeSetParams,
	GR_API_cuGraphMemcpyNodeSetParams,
	GR_API_cuGraphExecMemcpyNodeSetParams,
	GR_API_cudaGraphMemcpyNodeSetParamsToSymbol,
	GR_API_cudaGraphMemcpyNodeSetParamsFromSymbol,
	GR_API_cudaGraphExecMemcpyNodeSetParamsToSymbol,
	GR_API_cudaGraphExecMemcpyNodeSetParamsFromSymbol,
	/* more allocators (appended): ALLOC and FREE rows, and MEMINFO */
	GR_API_cudaMallocPitch,
	GR_API_cudaMalloc3D,
	GR_API_cudaMallocArray,
	GR_API_cudaMalloc3DArray,
	GR_API_cudaMallocMipmappedArray,
	GR_API_cudaFreeArray,
	GR_API_cudaFreeMipmappedArray,
	GR_API_cudaMallocFromPoolAsync,
	GR_API_cudaMallocFromPoolAsync_ptsz,
	GR_API_cuMemAllocPitch,
	GR_API_cuMemAllocManaged,
	GR_API_cuMemAllocAsync_ptsz,
	GR_API_cuMemAllocFromPoolAsync,
	GR_API_cuMemAllocFromPoolAsync_ptsz,
	GR_API_cuMemFreeAsync_ptsz,
	GR_API_cuMemCreate,
	GR_API_cuMemRelease,
	GR_API_cuMemMap,
	GR_API_cuMemUnmap,
	GR_API_cuMemAddressReserve,
	GR_API_cuMemAddressFree,
	GR_API_cudaMemGetInfo,
	GR_API_cuMemGetInfo,
	GR_API_cuArrayCreate,
	GR_API_cuArray3DCreate,
	GR_API_cuMipmappedArrayCreate,
	GR_API_cuArrayDestroy,
	GR_API_cuMipmappedArrayDestroy,
	GR_API_COUNT
};

/* Static name of an API id ("cudaLaunchKernel"), "unknown" when out of range. */
const char *gr_api_name(unsigned api);

enum gr_copy_kind {
	GR_COPY_H2H = 0,
	GR_COPY_H2D = 1,
	GR_COPY_D2H = 2,
	GR_COPY_D2D = 3,
	GR_COPY_DEFAULT = 4
};
/* "H2H", "H2D", "D2H", "D2D", "default"; "unknown" otherwise. Same numbering as cudaMemcpyKind. */
const char *gr_copy_kind_name(unsigned ckind);

enum gr_alloc_kind {
	GR_ALLOC_DEVICE = 0,
	GR_ALLOC_DEVICE_ASYNC,
	GR_ALLOC_MANAGED,
	GR_ALLOC_HOST_PINNED,
	GR_ALLOC_HOST_REGISTERED,
	/* a CUDA array (cudaMallocArray, 3DArray, MipmappedArray, the driver's cuArrayCreate ..):
	 * addr is the array or mipmapped array handle, bytes its elements x the element's size
	 * (level 0) */
	GR_ALLOC_ARRAY,
	/* VMM (cuMemCreate .. cuMemRelease): physical device memory; addr is the
	 * CUmemGenericAllocationHandle, not an address */
	GR_ALLOC_VMM_PHYSICAL,
	/* VMM (cuMemMap .. cuMemUnmap): a virtual range mapped onto the physical memory of handle;
	 * its bytes are the VMM_PHYSICAL allocation's, not more */
	GR_ALLOC_VMM_MAP,
	/* VMM (cuMemAddressReserve .. cuMemAddressFree): address space only, no memory */
	GR_ALLOC_VMM_RESERVE
};
const char *gr_alloc_kind_name(unsigned akind);

enum gr_sync_kind {
	GR_SYNC_DEVICE = 0,
	GR_SYNC_STREAM,
	GR_SYNC_EVENT,
	GR_SYNC_STREAM_WAIT_EVENT,
	GR_SYNC_EVENT_RECORD,
	/* no synchronisation: a device query or set-up call that failed (GR_API_cudaGetDeviceCount
	 * ..), always set aside as failed; one that succeeds is no row */
	GR_SYNC_DEVICE_QUERY
};
const char *gr_sync_kind_name(unsigned skind);

/*
 * What a GRAPH row says; which handles it carries (docs/FORMAT.md section 11). The node kinds
 * reuse the row's handle columns: graph = the graph, exec = the node handle (ADD_NODE,
 * NODE_SET_PARAMS), the child graph (ADD_CHILD) or the clone (CLONE); EXEC_SET_PARAMS: exec =
 * the executable graph, graph = the node handle. ADD_NODE, NODE_SET_PARAMS and EXEC_SET_PARAMS
 * come with a LAUNCH, COPY or MEMSET row of the same thread and ts that holds the node's work.
 */
enum gr_graph_kind {
	GR_GRAPH_BEGIN_CAPTURE = 0,
	GR_GRAPH_END_CAPTURE,
	GR_GRAPH_INSTANTIATE,
	GR_GRAPH_LAUNCH,
	GR_GRAPH_ADD_NODE,	  /* a kernel, memcpy or memset node added to a graph */
	GR_GRAPH_ADD_CHILD,	  /* a child graph node: a copy of the child graph */
	GR_GRAPH_NODE_SET_PARAMS, /* a kernel node's parameters changed in its graph */
	GR_GRAPH_EXEC_SET_PARAMS, /* a kernel node's parameters changed in an executable graph */
	GR_GRAPH_EXEC_UPDATE,	  /* an executable graph takes a graph's nodes */
	GR_GRAPH_CLONE,		  /* a graph copied into a new one */
};
const char *gr_graph_kind_name(unsigned gkind);

/* What a COMM row is. The collectives come first: kind <= GR_COMM_REDUCE. */
enum gr_comm_kind {
	GR_COMM_ALL_REDUCE = 0,
	GR_COMM_REDUCE_SCATTER,
	GR_COMM_ALL_GATHER,
	GR_COMM_BROADCAST,
	GR_COMM_REDUCE,
	GR_COMM_SEND,
	GR_COMM_RECV,
	GR_COMM_GROUP_START,
	GR_COMM_GROUP_END,
	GR_COMM_INIT,	 /* a communicator created (ncclCommInitRank, ...Config) */
	GR_COMM_DESTROY, /* a communicator destroyed */
};
#define GR_COMM_IS_COLLECTIVE(kind) ((kind) <= GR_COMM_REDUCE)
/* "all-reduce", "reduce-scatter", ..., "init", "destroy"; "unknown" otherwise. */
const char *gr_comm_kind_name(unsigned kind);
/* "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
 * "bfloat16", "float8e4m3", "float8e5m2" (ncclDataType_t); "unknown" otherwise. */
const char *gr_comm_dtype_name(unsigned dtype);
/* Bytes of one element of ncclDataType_t @dtype, 0 when unknown. */
unsigned gr_comm_dtype_size(unsigned dtype);
/* "sum", "prod", "max", "min", "avg" (ncclRedOp_t); "custom" for a user-defined one. */
const char *gr_comm_redop_name(unsigned redop);

enum gr_sched_type {
	GR_SCHED_SWITCH = 0,
	GR_SCHED_WAKEUP,
	GR_SCHED_WAKEUP_NEW,
	GR_SCHED_MIGRATE, /* a traced thread moved to another CPU (see SCHED above) */
};
/* next_pid/next_tid of a MIGRATE when the task on the CPU left is not known. */
#define GR_SCHED_NOBODY 0xffffffffu

/* The kind of file a blocking call's fd names (SCHED fd_kind). */
enum gr_fd_kind {
	GR_FD_NONE,
	GR_FD_FILE /* regular file or block device */,
	GR_FD_PIPE,
	GR_FD_SOCKET,
	GR_FD_CHAR,
	GR_FD_ANON /* eventfd, epoll, timerfd... */,
	GR_FD_OTHER
};
/* "none", "file", "pipe", "socket", "char", "anon", "other"; "unknown" otherwise. */
const char *gr_fd_kind_name(unsigned kind);

enum gr_proc_type {
	GR_PROC_START = 0, /* fork/clone of a traced process (value = parent pid) */
	GR_PROC_EXEC,	   /* text = new executable path */
	GR_PROC_EXIT,	   /* value = exit status (wait status) */
	GR_PROC_ATTACH,	   /* -p: attached to a running process; earlier registrations missed */
	GR_PROC_THREAD,	   /* a new thread (tid) in pid */
};

enum gr_name_class {
	GR_NAME_KERNEL = 0, /* key = launch func in pid; text = demangled kernel name */
	GR_NAME_COMM,	    /* key = tid; text = comm */
	GR_NAME_LIBRARY,    /* key = 0; text = path of a CUDA library that was probed */
	GR_NAME_KERNEL_RAW, /* key = func; text = mangled name (when it differs) */
	GR_NAME_UNPROBED,   /* key = 0; text = path of a library with CUDA code it runs through a
			       runtime copy of its own, which was not probed (cuBLAS) */
	GR_NAME_PYTHON,	    /* key = PY_VERSION_HEX of the CPython that pid runs (0 unknown); text =
			       "CPython 3.12.1 (path)" when its frames are read, or that followed by
			       ": not read: <why>" when they cannot be (a build gpurec cannot read) */
	GR_NAME_RANK,	    /* key = pid; text = the launcher's rank variables set at its exec,
			       "RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 ..." (docs/FORMAT.md) */
};

enum gr_loss_source {
	GR_LOSS_RINGBUF = 0, /* BPF ring buffer full */
	GR_LOSS_STACK,	     /* stack not captured (stack map full / fault) */
	GR_LOSS_ATTACH,	     /* a library mapped but its probes could not be attached */
	GR_LOSS_PENDING,     /* entry without return (thread killed mid-call) */
	GR_LOSS_PREEMPTED,   /* staging taken over by a preempting thread */
	GR_LOSS_STACK_SHED,  /* --call-graph dwarf: raw stack left out, the ring buffer filling */
	GR_LOSS_UNWIND_SKIPPED, /* --call-graph dwarf: raw stack not unwound, the recorder behind */
};
const char *gr_loss_source_name(unsigned src);
/* 1 when a loss of source @src kept its events and lost only their stacks, else 0. */
int gr_loss_stack_only(unsigned src);

enum gr_session_key {
	GR_SESS_STOP = 0,    /* value: stop reason (0 exit, 1 signal, 2 duration) */
	GR_SESS_EXIT_STATUS, /* value: exit status of the traced command */
	GR_SESS_CUDA_SEEN,   /* value: number of CUDA libraries probed */
	GR_SESS_CALL_GRAPH,  /* text: "cfi", "fp", "dwarf,SIZE" or "none" */
	GR_SESS_ATTACHED,    /* value: 1 if recorded with -p (registrations may be missed) */
	GR_SESS_UNTRACED,    /* value: privileged programs (setuid, setgid, file capabilities)
				the traced processes exec'd and that were not traced */
	/*
	 * What our probes add per call on the recording machine, measured at the start of the
	 * recording (record/calibrate.h); value in ns, text the stack mode they were measured with
	 * (as GR_SESS_CALL_GRAPH). An entry-only probe (untimed launches), split at its timestamp:
	 */
	GR_SESS_PROBE_ENTRY_PRE,
	GR_SESS_PROBE_ENTRY_POST,
	/* a call probed at entry and return: before its entry timestamp, inside its duration,
	 * after its return timestamp */
	GR_SESS_PROBE_CALL_PRE,
	GR_SESS_PROBE_CALL_IN,
	GR_SESS_PROBE_CALL_POST,
	GR_SESS_DEVICE_SMS, /* value: the SM count (multiProcessorCount) the traced program got
			       from the runtime; absent when it asked for none or every such
			       call failed */
	/*
	 * value 1: the scheduler records hold, besides those of traced threads, every switch on a
	 * CPU while a traced thread waited there runnable, and every migration of a traced thread
	 * (wait windows, bpf/gpurec.bpf.c): culprits are exact. Absent in older traces.
	 */
	GR_SESS_SCHED_WINDOWS,
	GR_SESS_RECORDER_PID, /* value: the recorder's own pid; absent in older traces */
	GR_SESS_RECORDER_CPU, /* value: the recorder's CPU time (user + sys, ns) at the end */
	GR_SESS_WATCHDOG_PID, /* value: the pid of the recorder's watchdog process (a fork) */
	GR_SESS_MMAP_HOOK,    /* value: how new mappings were seen (0 fexit on the mmap system
			       call, 1 tp_btf sys_exit: at every system call of the machine, 2 the
			       dynamic loaders' debug hook); text: the hook's name. Absent in
			       older traces */
	/*
	 * --cupti: value 1 when GPU activity was recorded (GPU rows may follow), 0 when it could
	 * not be (text: why, e.g. "no CUDA driver"); value of GR_SESS_CUPTI_DROPPED: activity
	 * records CUPTI dropped (its buffers were full). Absent without --cupti.
	 */
	GR_SESS_CUPTI,
	GR_SESS_CUPTI_DROPPED,
	/*
	 * Which launches have their call duration (dur > 0): value 1 every one (--launch-time),
	 * N > 1 a sample, 1 in N per thread (the 2nd launch of each thread and every Nth after
	 * it), 0 none; text: "all", "sampled" or why none ("no uprobe sessions", "session
	 * attach failed"). Absent in older traces (launches timed only with --launch-time).
	 */
	GR_SESS_LAUNCH_SAMPLE,
};

/*
 * Names of the values a call returns, cudaError_t for the runtime API and CUresult for the
 * driver API (ncclResult_t for NCCL: gr_status_name() knows them), generated at build time from the
 * CUDA toolkit's headers (gen_status_names.sh). NULL-terminated tables.
 */
struct gr_status_name {
	uint32_t status;
	const char *name;
};
extern const struct gr_status_name gr_runtime_status_names[];
extern const struct gr_status_name gr_driver_status_names[];

/* 1 for a driver API entry point (cu*), 0 for the runtime's and NCCL's. */
int gr_api_is_driver(unsigned api);
/* 1 for an NCCL entry point (nccl*): its status is an ncclResult_t. */
int gr_api_is_nccl(unsigned api);
/*
 * 1 for a graph-building API whose one call writes two rows, a work row (LAUNCH, COPY or
 * MEMSET: the node's kernel, copy or memset) and the GRAPH row that places it: the call is the
 * work row's, and counting calls must skip the GRAPH row (docs/FORMAT.md, CUDA graphs).
 */
int gr_api_graph_node_work(unsigned api);
/* 1 for a graph-building API that adds a node without work row (host, event): its GRAPH row. */
int gr_api_graph_node_only(unsigned api);
/* The name of @status as @api returns it ("cudaErrorInsufficientDriver", "CUDA_SUCCESS",
 * "ncclUnhandledCudaError"), NULL
 * when this build's toolkit does not know it. */
const char *gr_status_name(unsigned api, uint32_t status);
/*
 * The likely cause of a run whose calls failed with the error named @name (a gr_status_name(),
 * runtime or driver): "no CUDA driver (or one older than the CUDA runtime)", "out of memory";
 * NULL for an error that says nothing about the run as a whole. Static. The one wording of
 * record's closing warning and of every command's failed calls.
 */
const char *gr_status_cause(const char *name);

/* The schema this build writes. */
const struct gr_schema *gr_events_schema(void);

#endif
