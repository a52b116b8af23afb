/* SPDX-License-Identifier: MIT */
/*
 * The one header shared by the BPF programs (bpf/gpurec.bpf.c) and the recorder (record/).
 * Fixed-width types only; record/ translates these events into format records, so a change
 * here never changes the trace file.
 */
#ifndef GR_BPF_GPUREC_H
#define GR_BPF_GPUREC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define GR_MAX_FRAMES 64  /* user frames kept per event (frame-pointer walk) */
#define GR_NAME_MAX   512 /* kernel name bytes read at registration */
#define GR_COMM_LEN   16

/*
 * The attach cookie of every API probe: flags << 32 | layout << 16 | api (enum gr_api of
 * format/events.h). One BPF program serves every entry point; the cookie says how to read it.
 */
#define GR_COOKIE(flags, layout, api) (((__u64)(flags) << 32) | ((__u64)(layout) << 16) | (api))
#define GR_CK_API(c)		      ((__u16)(c))
#define GR_CK_LAYOUT(c)		      ((__u8)((c) >> 16))
#define GR_CK_FLAGS(c)		      ((__u32)((c) >> 32))
#define GR_CF_RET		      1 /* a return probe is attached: keep entry state, emit at return */
#define GR_CF_DRIVER		      2 /* driver API: skipped while a runtime call of the thread is inside */
#define GR_CF_STACK		      4 /* capture the user stack with the event */
#define GR_CF_LAUNCH		      8 /* entry-only launch: marks the thread for the driver launch it makes */
/* a library call that makes CUDA calls as its work (NCCL): those are not nested calls, and driver
 * calls inside it are recorded (it counts in neither the depth events carry nor runtime_depth) */
#define GR_CF_OUTER 16

/* How a probe's arguments are laid out. */
enum gr_layout {
	L_RT_LAUNCH = 1,   /* cudaLaunchKernel(func, dim3 grid, dim3 block, args, shmem, stream) */
	L_RT_LAUNCH_EXC,   /* cudaLaunchKernelExC(const cudaLaunchConfig_t *, func, args) */
	L_CU_LAUNCH,	   /* cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, ...) */
	L_CU_LAUNCH_EX,	   /* cuLaunchKernelEx(const CUlaunchConfig *, f, ...) */
	L_GRAPH_LAUNCH,	   /* cudaGraphLaunch(exec, stream) / cuGraphLaunch */
	L_MEMCPY,	   /* (dst, src, bytes, kind) */
	L_MEMCPY_ASYNC,	   /* (dst, src, bytes, kind, stream) */
	L_MEMCPY_2D,	   /* (dst, dpitch, src, spitch, width, height, kind) */
	L_MEMCPY_2D_ASYNC, /* ... kind, stream */
	L_MEMCPY_3D,	   /* (const cudaMemcpy3DParms *) */
	L_MEMCPY_3D_ASYNC, /* (const cudaMemcpy3DParms *, stream) */
	L_MEMCPY_PEER,	   /* (dst, dstDev, src, srcDev, bytes) */
	L_MEMCPY_PEER_ASYNC,   /* ..., stream */
	L_MEMCPY_TO_SYM,       /* (symbol, src, bytes, offset, kind) */
	L_MEMCPY_TO_SYM_ASYNC, /* ..., stream */
	L_MEMCPY_FROM_SYM,     /* (dst, symbol, bytes, offset, kind) */
	L_MEMCPY_FROM_SYM_ASYNC,
	L_CU_MEMCPY_HTOD, /* (dst, src, bytes [, stream]) with a fixed kind */
	L_CU_MEMCPY_DTOH,
	L_CU_MEMCPY_DTOD,
	L_CU_MEMCPY,	/* cuMemcpy(dst, src, bytes [, stream]): kind from unified addressing */
	L_MEMSET,	/* cudaMemset(ptr, value, bytes [, stream]) */
	L_CU_MEMSET_D8, /* cuMemsetD8(ptr, value, n [, stream]) */
	L_CU_MEMSET_D32,
	L_MALLOC_OUT,	     /* (void **out, size [, ...]): address (or handle) read at return */
	L_HOST_REGISTER,     /* (ptr, size, ...): all in registers (also cuMemMap) */
	L_FREE,		     /* (ptr [, stream]) */
	L_SYNC_NONE,	     /* cudaDeviceSynchronize() */
	L_SYNC_HANDLE,	     /* (handle [, ...]) */
	L_SYNC_HANDLE2,	     /* (stream, event, ...) / (event, stream) */
	L_CAPTURE_BEGIN,     /* (stream, mode) */
	L_CAPTURE_END,	     /* (stream, graph *out) */
	L_GRAPH_INSTANTIATE, /* (exec *out, graph, ...) */
	L_REGISTER_FUNCTION, /* __cudaRegisterFunction(handle, hostFun, deviceFun, deviceName..) */
	L_GET_KERNEL,	     /* __cudaGetKernel / cudaGetKernel(kernel *out, hostFun) */
	L_CU_GET_FUNCTION,   /* cuModuleGetFunction(CUfunction *out, module, name) */
	L_CU_LIBRARY_GET_KERNEL,  /* cuLibraryGetKernel(CUkernel *out, library, name) */
	L_CU_KERNEL_GET_FUNCTION, /* cuKernelGetFunction(CUfunction *out, CUkernel) */
	L_DEVICE_PROPS, /* cudaGetDeviceProperties(cudaDeviceProp *out, device): SM count at return
			 */
	L_DEVICE_ATTR,	/* cudaDeviceGetAttribute / cuDeviceGetAttribute(int *out, attr, device) */
	/* explicit graph building (docs/FORMAT.md, CUDA graphs); the kernel node parameters
	 * (cudaKernelNodeParams, CUDA_KERNEL_NODE_PARAMS) are read into x[0..4] at entry */
	L_GRAPH_ADD_KERNEL,	    /* (node *out, graph, deps, ndeps, const params *) */
	L_GRAPH_KERNEL_SET,	    /* (node, const params *) */
	L_GRAPH_EXEC_KERNEL_SET,    /* (exec, node, const params *) */
	L_GRAPH_EXEC_UPDATE,	    /* (exec, graph, info *) */
	L_GRAPH_ADD_CHILD,	    /* (node *out, graph, deps, ndeps, child graph) */
	L_GRAPH_CLONE,		    /* (graph *clone out, graph) */
	L_GRAPH_ADD_MEMCPY_1D,	    /* (node *out, graph, deps, ndeps, dst, src, [sp+8] bytes,
				       [sp+16] kind) */
	L_GRAPH_ADD_MEMSET,	    /* (node *out, graph, deps, ndeps, const cudaMemsetParams *):
				       dst, pitch, value, element size, width, height in x[0..4] */
	L_GRAPH_ADD_MEMCPY_3D,	    /* (node *out, graph, deps, ndeps, const cudaMemcpy3DParms *):
				       src x[0], dst x[1], extent x[2..4], kind x[6] */
	L_GRAPH_ADD_MEMCPY_SYM,	    /* (node *out, graph, deps, ndeps, dst, src, [sp+8] count,
				       [sp+16] offset, [sp+24] kind): To/FromSymbol */
	L_CU_GRAPH_ADD_MEMCPY,	    /* (node *out, graph, deps, ndeps, const CUDA_MEMCPY3D *, ctx):
				       src x[0], dst x[1], extent x[2..4], memory types x[6] */
	L_GRAPH_ADD_NODE_ONLY,	    /* (node *out, graph, deps, ndeps, ...): host and event nodes */
	L_GRAPH_MEMCPY_SET_1D,	    /* (node, dst, src, count, kind) */
	L_GRAPH_EXEC_MEMCPY_SET_1D, /* (exec, node, dst, src, count, kind) */
	L_GRAPH_MEMSET_SET,	    /* (node, const memset params *): as L_GRAPH_ADD_MEMSET's */
	L_GRAPH_EXEC_MEMSET_SET,    /* (exec, node, const memset params * [, ctx]) */
	L_GRAPH_MEMCPY_SET_3D, /* (node, const cudaMemcpy3DParms *): as L_GRAPH_ADD_MEMCPY_3D */
	L_GRAPH_EXEC_MEMCPY_SET_3D,  /* (exec, node, const cudaMemcpy3DParms *) */
	L_CU_GRAPH_MEMCPY_SET,	     /* (node, const CUDA_MEMCPY3D *): as L_CU_GRAPH_ADD_MEMCPY */
	L_CU_GRAPH_EXEC_MEMCPY_SET,  /* (exec, node, const CUDA_MEMCPY3D *, ctx) */
	L_GRAPH_MEMCPY_SET_SYM,	     /* (node, dst, src, count, offset, kind): To/FromSymbol */
	L_GRAPH_EXEC_MEMCPY_SET_SYM, /* (exec, node, dst, src, count, offset, [sp+8] kind) */
	/* NCCL (docs/FORMAT.md, COMM); stream is the last argument of every call that has one */
	L_NCCL_COLL_OP,	   /* (send, recv, count, dtype, op, comm, [sp+8] stream): AllReduce,
			      ReduceScatter */
	L_NCCL_BROADCAST,  /* (send, recv, count, dtype, root, comm, [sp+8] stream) */
	L_NCCL_REDUCE,	   /* (send, recv, count, dtype, op, root, [sp+8] comm, [sp+16] stream) */
	L_NCCL_ALL_GATHER, /* (send, recv, count, dtype, comm, stream) */
	L_NCCL_P2P,	   /* (buf, count, dtype, peer, comm, stream): Send, Recv */
	L_NCCL_GROUP,	   /* () */
	L_NCCL_INIT,	   /* (comm *out, nranks, ncclUniqueId by value, rank [, config]): the
			      128-byte id is passed in memory, at [sp+8] at entry, so rank is in
			      rdx; x[GR_X_NCCL_ID] its hash, x[GR_X_NCCL_COMM] *out at return */
	L_NCCL_DESTROY,	   /* (comm) */
	L_DEVICE_QUERY,	   /* cudaGetDeviceCount, cudaSetDevice, cuInit ...: only the status */
	/* allocators whose results come back through two pointers or a struct (docs/FORMAT.md,
	 * ALLOC): x[0] the address or handle and x[1] the pitch, read at return */
	L_MALLOC_PITCH,	   /* (void **out, size_t *pitch out, width, height [, element size]) */
	L_MALLOC_3D,	   /* (cudaPitchedPtr *out, cudaExtent by value at [sp+8]): ptr@0 pitch@8 */
	L_MALLOC_ARRAY,	   /* (array *out, const cudaChannelFormatDesc *, width, height, flags) */
	L_MALLOC_3D_ARRAY, /* (array *out, const desc *, cudaExtent at [sp+8] ...): 3D, mipmapped */
	L_MEMINFO,	   /* (size_t *free out, size_t *total out): x[0] free, x[1] total */
	/* the driver's arrays: the descriptor read whole at entry into x[GR_X_CHANNEL..] */
	L_CU_ARRAY,    /* cuArrayCreate(array *out, const CUDA_ARRAY_DESCRIPTOR *): 24 bytes */
	L_CU_ARRAY_3D, /* (array *out, const CUDA_ARRAY3D_DESCRIPTOR * [, levels]): 32 bytes */
	L_COUNT
};

enum gr_ev_type {
	EV_LAUNCH = 1,
	EV_COPY,
	EV_MEMSET,
	EV_ALLOC,
	EV_FREE,
	EV_SYNC,
	EV_GRAPH,
	EV_SCHED,
	EV_FORK, /* a traced process forked (child pid) or started a thread */
	EV_EXEC, /* a traced process exec'ed: stopped until the recorder resumes it */
	EV_EXIT, /* a traced thread exited */
	/* a traced process mapped an unknown executable file (dev, ino), or its dynamic loader
	 * changed what is mapped (dev = ino = 0: rescan them all): stopped */
	EV_MMAP,
	EV_NAME,    /* a kernel name: registration or driver lookup */
	EV_ALIAS,   /* handle -> function: __cudaGetKernel, cuKernelGetFunction */
	EV_DEVICE,  /* a device query: x[0] the int it returned (the SM count for L_DEVICE_PROPS) */
	EV_BATCH,   /* call events of one thread back to back (struct gr_ev_batch) */
	EV_PYSTACK, /* a Python stack not sent before (struct gr_ev_pystack) */
	EV_COMM,    /* an NCCL call (layouts L_NCCL_*) */
	EV_MEMINFO, /* cudaMemGetInfo / cuMemGetInfo (L_MEMINFO) */
	EV_NVTX,    /* an NVTX call, from libgpurec_nvtx.so's tap (struct gr_ev_nvtx) */
};

/*
 * cudaChannelFormatDesc { int x, y, z, w; enum f; }: the bits of each component, read whole at
 * an array allocation's entry into x[2..4] (x | y << 32, z | w << 32, f).
 */
#define GR_CHANNEL_DESC_BYTES 20
#define GR_X_CHANNEL	      2
/*
 * CUDA_ARRAY_DESCRIPTOR { size_t Width, Height; CUarray_format Format; unsigned NumChannels; }
 * and CUDA_ARRAY3D_DESCRIPTOR { size_t Width, Height, Depth; Format; NumChannels; Flags; }: read
 * into x[GR_X_CHANNEL..] up to NumChannels (Format | NumChannels << 32 in the last word).
 */
#define GR_CU_ARRAY_DESC_BYTES	 24
#define GR_CU_ARRAY3D_DESC_BYTES 32

/*
 * ncclUniqueId: 128 bytes, the same in every rank of one communicator. The BPF side folds it
 * into 64 bits at ncclCommInitRank's entry, FNV-1a over its 16 little-endian u64 words (docs/
 * FORMAT.md): ranks recorded apart get the same hash, so replay matches their collectives.
 */
#define GR_NCCL_ID_BYTES 128
#define GR_FNV_OFFSET	 0xcbf29ce484222325ull
#define GR_FNV_PRIME	 0x100000001b3ull
#define GR_X_NCCL_ID	 0
#define GR_X_NCCL_COMM	 1

/*
 * Offset of multiProcessorCount in the CUDA 13 struct cudaDeviceProp (driver_types.h), read at
 * the return of cudaGetDeviceProperties. tests/progs/sm_count.cu checks it with offsetof.
 */
#define GR_DEVICE_PROP_SMS_OFFSET 384
/* cudaDevAttrMultiProcessorCount = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT (checked there too) */
#define GR_DEVICE_ATTR_SMS 16

/*
 * The kernel node parameters, the same in the CUDA 13 struct cudaKernelNodeParams
 * (driver_types.h) and CUDA_KERNEL_NODE_PARAMS (cuda.h): func at 0, then the grid and block
 * dimensions as 6 u32 and the shared memory bytes as a u32 at 32 (tests/progs/graph_build.cu
 * checks it with offsetof). Read whole at entry into x[0..4]; the node handle a building call
 * returns through its first argument is read at the return into x[GR_X_GRAPH_OUT].
 */
#define GR_KERNEL_NODE_PARAMS_BYTES 36

/*
 * Launch attributes of cudaLaunchKernelExC / cuLaunchKernelEx: the config's attrs pointer at 40
 * and numAttrs at 48; each attribute 72 bytes, its id (u32) at 0, its value at 8. The thread
 * block cluster dimension (cudaLaunchAttributeClusterDimension = CU_LAUNCH_ATTRIBUTE_CLUSTER_
 * DIMENSION = 4) is 3 u32 there, read into x[GR_X_CLUSTER] (x | y << 32) and the next (z).
 * tests/progs/cluster_launch.cu checks the layout with offsetof. The first
 * GR_LAUNCH_ATTRS_MAX attributes are searched.
 */
#define GR_LAUNCH_CONFIG_ATTRS 40
#define GR_LAUNCH_ATTR_BYTES   72
#define GR_LAUNCH_ATTR_CLUSTER 4
#define GR_LAUNCH_ATTRS_MAX    8
#define GR_X_CLUSTER	       5
#define GR_X_GRAPH_OUT	       5

/*
 * Common prefix. Events that carry a stack follow their fixed part with stack_len frames (u64),
 * or, with GR_EVF_RAWSTACK in flags (--call-graph dwarf), with a struct gr_ev_rawstack and its
 * stack bytes.
 */
struct gr_ev_hdr {
	__u8 type;
	__u8 layout;
	__u16 api;
	__u16 cpu;
	__u8 stack_len; /* <= GR_MAX_FRAMES */
	__u8 flags;	/* GR_EVF_* */
	__u32 pid;
	__u32 tid;
	__u64 ts;
	__u64 dur;
};

#define GR_EVF_RAWSTACK 1 /* a struct gr_ev_rawstack follows instead of frames */
#define GR_EVF_RETURNED 2 /* a call event emitted at the call's return: ret is valid */
#define GR_EVF_IN_FLIGHT                                                                           \
	4 /* a call entered and not returned when its thread exited                                \
	     (GR_EVF_EXITED) or the recording stopped; dur: time inside */
#define GR_EVF_EXITED	    8
#define GR_EVF_DEPTH_SHIFT  4 /* calls of ours the thread was inside when it made this one */
#define GR_EVF_DEPTH(flags) (((flags) >> GR_EVF_DEPTH_SHIFT) & 15)

/*
 * --call-graph dwarf: what unwinding needs, as perf's user regs + stack dump. The registers are
 * the user's at the probe: at a function's first instruction (uprobe, GR_RAW_ENTRY) ip is the
 * called function and [sp] the return address; at a return probe ip is the return address and
 * the callee-saved registers are the caller's again. size bytes of the stack from sp upward
 * follow (fewer than asked when the stack's top is nearer).
 */
#define GR_DWARF_DEFAULT 8192  /* stack bytes per event, as perf */
#define GR_DWARF_MAX	 16384 /* what the per-CPU scratch holds */
#define GR_RAW_ENTRY	 1     /* gr_ev_rawstack.flags: taken at a function's entry */
/* gr_ev_rawstack.flags: the stack bytes were left out (size 0) because the ring buffer was
 * filling (C_STACK_SHED): the event is kept, its stack is not */
#define GR_RAW_SHED 2

/* Registers of a raw stack, in this order (x86-64): what CFI rules name in practice. */
enum gr_raw_reg {
	GR_REG_IP,
	GR_REG_SP,
	GR_REG_BP,
	GR_REG_BX,
	GR_REG_R12,
	GR_REG_R13,
	GR_REG_R14,
	GR_REG_R15,
	GR_NREGS
};

struct gr_ev_rawstack {
	__u64 regs[GR_NREGS];
	__u32 size;  /* stack bytes that follow */
	__u32 flags; /* GR_RAW_* */
};

/*
 * EV_LAUNCH ... EV_GRAPH, and the return half of name lookups: one API call. The BPF side only
 * captures; record/translate.c decodes by layout. r: argument registers at entry (rdi, rsi,
 * rdx, rcx, r8, r9); s: the stack arguments [sp+8], [sp+16], [sp+24]; x: what the layout reads
 * through pointers (config structs at entry, out-parameters at return); ret: return value.
 * stack_len u64 frames, or a raw stack (GR_EVF_RAWSTACK), follow.
 */
struct gr_ev_call {
	struct gr_ev_hdr h;
	__u64 r[6];
	__u64 s[3];
	__u64 x[8];
	__u64 ret;
	__u64 pystack; /* the thread's Python stack (struct gr_ev_pystack id), 0 for none */
};

/*
 * A ring record of one thread's call events, each a struct gr_ev_call and its stack_len frames
 * (never a raw stack), in the order the thread made them. Batching spares each event the ring
 * buffer's reservation (a lock) and the fill query: a third of the cost of an event.
 */
#define GR_BATCH_BYTES	  4096
#define GR_CALL_EVENT_MAX (sizeof(struct gr_ev_call) + GR_MAX_FRAMES * 8)
#define GR_BATCH_AGE_NS	  10000000ULL /* a thread that keeps calling sends its batch this often */

struct gr_ev_batch {
	__u8 type; /* EV_BATCH */
	__u8 pad[3];
	__u32 bytes; /* of events that follow */
};

/*
 * The dynamic loader's debug hook (on_dl_debug_state): the attach cookie is the distance from
 * the loader's _dl_debug_state to the r_state field of its _r_debug, 0 when the loader does not
 * export one. <link.h>: struct r_debug { int r_version; struct link_map *r_map; ElfW(Addr)
 * r_brk; enum r_state; ElfW(Addr) r_ldbase; } (musl's struct debug is laid out the same). At
 * RT_ADD the loader is about to map, not done: it calls again at RT_CONSISTENT, when it is.
 */
#define GR_R_DEBUG_SIZE		40
#define GR_R_DEBUG_STATE_OFFSET 24
#define GR_RT_ADD		1

/* gr_ev_sched.sub: the values of enum gr_sched_type in format/events.h (checked there). */
#define GR_EVS_SWITCH	  0
#define GR_EVS_WAKEUP	  1
#define GR_EVS_WAKEUP_NEW 2
#define GR_EVS_MIGRATE	  3 /* pid/tid: the task moving; next: who runs on the CPU it leaves */
#define GR_EVS_NOBODY	  0xffffffffu /* next_pid/next_tid of a MIGRATE: not known */

/*
 * Why and where a traced thread blocked: a SWITCH whose prev sleeps carries the system call it
 * sleeps in and, for the calls below that take an fd first, the kind of that fd's file; a
 * switch of a thread that makes CUDA calls (it has a thread state) carries its user stack, and
 * a WAKEUP(_NEW) of such a thread by a traced waker the waker's. stack_len frames follow the
 * record; at most one walk per thread and role (blocked, waker) per GR_BLK_SITE_NS at one call
 * site (the user ip): a walk skipped for that says GR_EVS_F_SAME, "the stack of this thread's
 * last record of this role".
 */
#define GR_BLK_SITE_NS 1000000ULL
#define GR_EVS_F_SAME  1 /* gr_ev_sched h.flags */

/* The x86-64 system calls whose first argument is the fd they block on: X(number, name). */
#define GR_FD_SYSCALLS(X)                                                                          \
	X(0, read)                                                                                 \
	X(1, write)                                                                                \
	X(17, pread64)                                                                             \
	X(18, pwrite64)                                                                            \
	X(19, readv)                                                                               \
	X(20, writev)                                                                              \
	X(40, sendfile)                                                                            \
	X(42, connect)                                                                             \
	X(43, accept)                                                                              \
	X(44, sendto)                                                                              \
	X(45, recvfrom)                                                                            \
	X(46, sendmsg)                                                                             \
	X(47, recvmsg)                                                                             \
	X(72, fcntl)                                                                               \
	X(73, flock)                                                                               \
	X(74, fsync)                                                                               \
	X(75, fdatasync)                                                                           \
	X(275, splice)                                                                             \
	X(276, tee)                                                                                \
	X(278, vmsplice)                                                                           \
	X(288, accept4)                                                                            \
	X(295, preadv)                                                                             \
	X(296, pwritev)                                                                            \
	X(299, recvmmsg)                                                                           \
	X(307, sendmmsg)                                                                           \
	X(326, copy_file_range)                                                                    \
	X(327, preadv2)                                                                            \
	X(328, pwritev2)

struct gr_ev_sched {
	struct gr_ev_hdr h; /* pid/tid: prev (switch) or waker (wakeup) */
	__u32 next_pid, next_tid;
	__u32 prev_state;
	__u32 target_cpu;
	__u8 sub;     /* enum gr_sched_type from format/events.h */
	__u8 fd_kind; /* enum gr_fd_kind from format/events.h */
	__u16 pad;
	__s32 syscall; /* SWITCH with prev sleeping: the system call, -1 none */
	__u64 pystack; /* the Python stack with the frames (struct gr_ev_pystack id), 0 none */
	char prev_comm[GR_COMM_LEN];
	char next_comm[GR_COMM_LEN];
};

/* EV_FORK, EV_EXEC, EV_EXIT, EV_MMAP. */
struct gr_ev_proc {
	struct gr_ev_hdr h;
	__u32 child_pid, child_tid; /* EV_FORK */
	__u32 exit_code;	    /* EV_EXIT */
	/* the process is held: counted in the holds map, sent SIGSTOP, waits to be resumed
	 * (record/hold.h) */
	__u32 stopped;
	__u32 group_dead; /* EV_EXIT: the process's last thread */
	__u32 unused;	  /* dev stays 8-aligned */
	__u64 dev, ino;	  /* EV_MMAP: the file; 0, 0 from the loader's debug hook */
	__u64 addr, len;  /* EV_MMAP */
	char comm[GR_COMM_LEN];
};

/*
 * CPython frames (record/python/pybuild.h says how a build is read). The recorder puts a struct
 * gr_py_proc in the py_procs map for each traced process running a CPython it can read, before
 * the process runs Python code. At every event with a stack the BPF side walks the calling
 * thread's Python frames, keeping per frame the code object and the instruction running, and
 * names the walk by a hash of it (gr_ev_call.pystack). A walk it has not sent for that process
 * before goes to the ring buffer first, as an EV_PYSTACK: the recorder resolves the code objects
 * while the process lives. Up to GR_PY_MAX_FRAMES frames, innermost first.
 */
#define GR_PY_MAX_FRAMES 128

/* How a build chains its frames: the CPython minor versions that differ in it. */
enum gr_py_chain {
	GR_PY_CHAIN_310 = 1, /* PyThreadState.frame -> PyFrameObject, f_back, f_lasti (int) */
	GR_PY_CHAIN_311,     /* tstate->cframe->current_frame, previous, prev_instr, is_entry */
	GR_PY_CHAIN_312,     /* ... owner: FRAME_OWNED_BY_CSTACK shims between C entries */
	GR_PY_CHAIN_313,     /* tstate->current_frame, f_executable, instr_ptr, owner */
	GR_PY_CHAIN_314,     /* ... f_executable a tagged _PyStackRef (low bits: tag) */
};

struct gr_py_frame {
	__u64 code;  /* the code object (f_code / f_executable, untagged) */
	__u32 lasti; /* the instruction running, in code units from the first */
	__u32 flags; /* GR_PYF_* */
};
/* the evaluation loop was entered from C for this frame: the outermost Python frame of one
 * native _PyEval_EvalFrameDefault frame */
#define GR_PYF_ENTRY 1

struct gr_ev_pystack {
	struct gr_ev_hdr h; /* pid, tid, ts of the event that walked it first */
	__u64 id;	    /* the hash call events carry in pystack (never 0) */
	__u32 nframes;
	__u32 flags; /* GR_PYS_* */
	struct gr_py_frame frames[GR_PY_MAX_FRAMES];
};
/* more frames than GR_PY_MAX_FRAMES, or the walk stopped at one it could not read: the
 * outermost are missing */
#define GR_PYS_TRUNCATED 1
/* the process is held with it (record/hold.h): the recorder resolves the frames, then resumes
 * it */
#define GR_PYS_STOPPED 2

/*
 * The py_procs map's value for one process (key: its tgid), written by record/python/python.c:
 * where its interpreter's state is, and the offsets of struct gr_py_layout
 * (record/python/pybuild.h) that the walk reads, each < 64 KiB. A fork inherits its parent's entry;
 * an exec or the exit of the process deletes it.
 */
struct gr_py_proc {
	__u64 runtime; /* _PyRuntime, load bias added */
	__u32 seed;    /* mixed into the stack ids: a new one for each entry the recorder writes,
			  so that an id of an image before an exec never names a stack of the next */
	__u16 chain;   /* enum gr_py_chain */
	__u16 interp_head, threads_head, tstate_next, tstate_native_tid, tstate_frame;
	__u16 cframe_current, frame_previous, frame_code, frame_instr, frame_owner;
	__u16 code_adaptive;
	__u16 tstate_pthread_id; /* 3.10: thread_id, matched against the thread pointer; 0 on
				    3.11+, which match native_thread_id */
};

/* EV_NAME: key is the host stub / CUfunction / CUkernel; name is NUL-terminated, and the event
 * ends with its NUL (its size: the name's length, not GR_NAME_MAX). */
struct gr_ev_name {
	struct gr_ev_hdr h;
	__u64 key;
	char name[GR_NAME_MAX];
};

/*
 * EV_NVTX: what the tap of libgpurec_nvtx.so was given (nvtx/tap.h: struct gr_nvtx_tap, read
 * whole), its text copied up to GR_NVTX_TEXT_BYTES - 1 bytes and NUL-terminated (empty: none).
 */
#define GR_NVTX_TEXT_BYTES 128
struct gr_ev_nvtx {
	struct gr_ev_hdr h;
	__u64 domain, id, payload;
	__u32 op, category, color, payload_type;
	char text[GR_NVTX_TEXT_BYTES];
};

/* EV_ALIAS: launches through handle use the name of target. */
struct gr_ev_alias {
	struct gr_ev_hdr h;
	__u64 handle, target;
};

/*
 * The last signal of each number that the traced command received from another process than
 * the recorder (BPF .bss, read by the recorder through its mmap): who sent it, and when
 * (CLOCK_MONOTONIC ns). ts is written last: a reader that sees it sees the sender too.
 */
#define GR_NSIG 32
struct gr_signal_seen {
	__u32 sender; /* tgid */
	__u32 pad;
	__u64 ts;
};

/*
 * Default stacks (--call-graph cfi): unwind tables built by the recorder from each binary's
 * .eh_frame (record/cfi_table.h), walked in BPF. One row of a binary's table: the rule from
 * link-time address pc up to the next row's. x86-64: the return address is at CFA - 8.
 */
struct gr_cfi_row {
	__u32 pc;
	__u16 cfa_off; /* CFA = (rsp or rbp, GR_CFI_CFA_*) + cfa_off */
	__u8 kind;     /* GR_CFI_CFA_* | GR_CFI_RBP_SAVED */
	__s8 rbp_off;  /* GR_CFI_RBP_SAVED: the caller's rbp is at CFA + 8 * rbp_off */
};
#define GR_CFI_NONE	 0 /* no rule here (no FDE, a DWARF expression): a frame-pointer step */
#define GR_CFI_CFA_RSP	 1
#define GR_CFI_CFA_RBP	 2
#define GR_CFI_END	 3 /* the outermost frame: its return address is undefined */
#define GR_CFI_CFA_MASK	 3
#define GR_CFI_RBP_SAVED 4
#define GR_CFI_MAX_ROWS	 (4u << 20) /* rows of all binaries together: 32 MiB */
/*
 * A binary's buckets (cfi_buckets) narrow the search for an address to a few rows: bucket k
 * holds the index (in the binary's rows) of the row in effect at base + (k << shift) in its low
 * half, and bucket k + 1's in its high half (the rows to search end there: one lookup). A
 * binary gets about one bucket per 4 rows, so the buckets of all take at most half as many
 * entries.
 */
#define GR_CFI_MAX_BUCKETS (GR_CFI_MAX_ROWS / 2)

/*
 * Executable mappings of one traced process that have a table, sorted by start (cfi_procs): a
 * PyTorch process maps a few hundred libraries, most of them extension modules.
 */
#define GR_CFI_MAPS 256
struct gr_cfi_map {
	__u64 start, end;
	__u64 bias;	   /* address - bias = link-time address */
	__u32 first, rows; /* the binary's rows in cfi_rows */
	__u32 base;	   /* the link-time address of its first row */
	__u32 bucket;	   /* its first bucket in cfi_buckets */
	__u32 nbuckets;
	__u32 shift;
};

struct gr_cfi_proc {
	__u32 n;
	__u32 zero; /* always 0: the BPF walk's searches need it (cfi_find()) */
	__u32 gen;  /* changes with every update: rules a thread cached before are stale */
	__u32 pad;
	struct gr_cfi_map maps[GR_CFI_MAPS];
};

/* Indexes of the counters array map. */
enum gr_counter {
	C_RINGBUF_LOST = 0, /* ring buffer reserve/output failures */
	C_STACK_LOST,	    /* stack walks that failed */
	C_PENDING_LOST,	    /* entry state that could not be stored (map full) */
	C_SCRATCH_LOST,	    /* an event whose per-CPU staging was taken over by a preempting
			       thread: dropped and counted rather than sent corrupt */
	C_STOP_SENT,	    /* SIGSTOPs sent for discovery */
	C_UNTRACED,	    /* privileged execs left untraced (not a loss: on purpose) */
	C_STACK_SHED,	    /* raw stacks left out of their event as the ring buffer filled */
	C_COUNT
};

#endif
