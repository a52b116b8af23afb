/* SPDX-License-Identifier: MIT */
/*
 * A whole trace in memory, for the reports: one pass over the file's chunks fills one array per
 * event kind (compact structs, each sorted by ts, stable), dense tables that the events index
 * (kernels, launch configs, threads, streams), and the metadata (names, processes, stacks,
 * symbols, mappings, losses, session facts, header, integrity).
 *
 * Ownership: everything returned by a gr_model_*() accessor belongs to the model and stays valid
 * and unchanged until gr_model_free(); callers never free it. Strings are NUL-terminated and
 * never NULL unless a comment says so. The model is immutable after load: any number of readers
 * may share it.
 *
 * Columns are looked up by name in the file's own schema, so files from builds with extra columns
 * load; a record kind of this vocabulary that lacks one of its columns fails the load with
 * GR_ERR_SCHEMA. A kind absent from the file's schema just has no records.
 *
 * Indexes: struct gr_launch.key indexes gr_model_launch_keys(), whose .kernel indexes
 * gr_model_kernels(), .config gr_model_configs(), .thread gr_model_threads(), .stream
 * gr_model_streams() (as do the .thread and .stream of other kinds); gr_kernel.name_id indexes
 * gr_model_kernel_names(); gr_thread.process indexes gr_model_processes(); the .stack of every
 * event kind indexes gr_model_stacks(), where entry 0 is "no stack". All dense u32 indexes from 0.
 */
#ifndef GR_ANALYZE_MODEL_H
#define GR_ANALYZE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "format/events.h"
#include "format/trace.h"

struct gr_model;

/* ---- event kinds: ts (CLOCK_MONOTONIC ns at API entry) first, dur 0 = not measured ---- */

/*
 * A launch is its time and its key: everything else about it (kernel, config, thread, stream,
 * stack, CPU, API) repeats over and over in a real run, so launches share one gr_launch_key
 * entry per distinct combination and the launch array, by far the largest, is 16 bytes an event.
 */
struct gr_launch {
	uint64_t ts;
	uint32_t key;	 /* gr_model_launch_keys() index */
	uint32_t dur_lo; /* low 32 bits of the duration: gr_launch_dur() */
};

struct gr_launch_key {
	uint32_t kernel; /* gr_model_kernels() index: (pid, func) */
	uint32_t config; /* gr_model_configs() index: grid, block, shared memory */
	uint32_t thread; /* gr_model_threads() index: (pid, tid) */
	uint32_t stream; /* gr_model_streams() index: (pid, stream handle) */
	uint32_t stack;	 /* gr_model_stacks() index, 0 = none */
	uint32_t dur_hi; /* high 32 bits of the duration (4.3 s and more: rare, a key each) */
	uint16_t cpu;	 /* saturated at 65535 */
	uint16_t api;	 /* enum gr_api */
};

/* The duration of launch @l whose key is @k (0 = not measured). */
static inline uint64_t gr_launch_dur(const struct gr_launch_key *k, const struct gr_launch *l)
{
	return (uint64_t)k->dur_hi << 32 | l->dur_lo;
}

struct gr_copy {
	uint64_t ts;
	uint64_t dur;
	uint64_t dst, src;
	uint64_t bytes;
	uint32_t stack; /* gr_model_stacks() index, 0 = none */
	uint32_t thread, stream;
	uint16_t cpu, api;
	uint16_t flags; /* GR_COPY_F_* */
	/*
	 * enum gr_copy_kind, values above GR_COPY_DEFAULT kept as read (<= 255). A copy recorded
	 * as GR_COPY_DEFAULT has the direction its addresses say when the recorded allocations
	 * tell (memmap.h: gr_memmap_resolve_copies()); kind_recorded is the kind in the file.
	 */
	uint8_t kind;
	uint8_t kind_recorded;
};

struct gr_memset {
	uint64_t ts;
	uint64_t dur;
	uint64_t dst;
	uint64_t bytes;
	uint32_t stack; /* gr_model_stacks() index, 0 = none */
	uint32_t value;
	uint32_t thread, stream;
	uint16_t cpu, api;
	uint16_t flags;
};

struct gr_alloc {
	uint64_t ts;
	uint64_t dur;
	uint64_t addr; /* 0: the call failed */
	uint64_t bytes;
	uint64_t handle; /* pool (FromPool), physical handle (VMM map), else 0 */
	uint32_t device; /* the calling thread's current device (runtime rule; 0 in older files) */
	uint32_t thread, stream;
	uint16_t api;
	uint16_t kind;	/* enum gr_alloc_kind */
	uint32_t stack; /* gr_model_stacks() index, 0 = none */
};

struct gr_free {
	uint64_t ts;
	uint64_t dur;
	uint64_t addr;
	uint32_t thread;
	uint16_t api;
	uint16_t kind; /* enum gr_alloc_kind */
};

struct gr_sync {
	uint64_t ts;
	uint64_t dur;
	uint64_t handle;  /* stream or event */
	uint64_t handle2; /* the event of a stream wait */
	uint32_t stack;	  /* gr_model_stacks() index, 0 = none */
	uint32_t thread;
	uint16_t cpu, api;
	uint16_t kind; /* enum gr_sync_kind */
};

struct gr_graph {
	uint64_t ts;
	uint64_t dur;
	uint64_t graph, exec;
	uint32_t stack; /* gr_model_stacks() index, 0 = none */
	uint32_t thread, stream;
	uint16_t api;
	uint16_t kind; /* enum gr_graph_kind */
};

/*
 * A cudaMemGetInfo / cuMemGetInfo call (MEMINFO record): every one, by ts, failed ones too
 * (status != 0; free and total 0 then).
 */
struct gr_meminfo {
	uint64_t ts, dur;
	uint64_t free, total; /* device bytes, as the call returned them */
	uint32_t thread;
	uint32_t stack;	 /* gr_model_stacks() index, 0 = none */
	uint32_t status; /* the return value when call has GR_CALL_RETURNED */
	uint16_t api;
	uint16_t call; /* GR_CALL_* flags and depth */
};

/* An NVTX call (format 1.3): by ts. text indexes gr_model_nvtx_text() (0 = "") */
struct gr_nvtx {
	uint64_t ts;
	uint64_t id; /* as the GR_NVTX_ID column */
	uint64_t payload;
	uint64_t domain; /* the domain handle in the process, 0 = default */
	uint32_t thread; /* gr_model_threads() index of the calling thread */
	uint32_t text;	 /* gr_model_nvtx_text() index */
	uint32_t category;
	uint32_t color;
	uint8_t op; /* enum gr_nvtx_op */
	uint8_t payload_type;
};

/*
 * A call kept out of the event arrays above: it failed (returned an error), it was made inside
 * another recorded call of its thread (depth > 0: its time is part of the outer call's), or it
 * never returned (in flight when its thread exited or the recording stopped). See GR_CALL_ASIDE
 * in format/events.h. The event arrays hold only outermost calls that succeeded or whose status
 * is unknown (launches recorded at entry), so no figure computed from them can count a call that
 * did nothing; the reports name these calls from here.
 */
struct gr_aside {
	uint64_t ts, dur; /* in flight: dur runs from entry to the exit or the recording's end */
	uint32_t status;  /* the return value when call has GR_CALL_RETURNED */
	uint16_t kind;	  /* GR_K_LAUNCH .. GR_K_GRAPH: which member of u holds the call */
	uint16_t call;	  /* the "call" column: GR_CALL_* flags and the depth */
	union {
		struct gr_launch launch; /* its key indexes gr_model_launch_keys() */
		struct gr_copy copy;
		struct gr_memset memset;
		struct gr_alloc alloc;
		struct gr_free free;
		struct gr_sync sync;
		struct gr_graph graph;
	} u;
};

/*
 * An NCCL call (COMM record). Collectives carry the identity of their communicator, from the
 * init that returned its handle in the same process (0 when the trace has none): id (the
 * ncclUniqueId's hash, the same in every rank), nranks and rank; and seq, their number on it in
 * their process, counting the collectives done on it before (from 0). A collective k of
 * communicator id in one process and collective k of id in another are the same operation:
 * that is how ranks are matched, across the processes of one model, never by the handle.
 */
struct gr_comm_call {
	uint64_t ts;
	uint64_t dur;
	uint64_t comm;	 /* the ncclComm_t passed (init: returned) */
	uint64_t stream; /* the cudaStream_t passed, raw */
	uint64_t count;	 /* elements as passed (docs/FORMAT.md, COMM) */
	uint64_t bytes;	 /* count x the datatype's size: the buffer counted (docs/REPORTS.md) */
	uint64_t id;	 /* the communicator's ncclUniqueId hash, 0 = unknown */
	uint32_t nranks, rank; /* the communicator's, 0 and 0 when unknown */
	uint32_t peer;	       /* send/recv peer, broadcast/reduce root, else GR_COMM_NO_PEER */
	uint32_t seq;	       /* collectives only: number on its communicator in its process */
	uint32_t thread;       /* gr_model_threads() index */
	uint32_t stack;	       /* gr_model_stacks() index, 0 = none */
	uint32_t status;       /* ncclResult_t when call has GR_CALL_RETURNED */
	uint16_t api, call;    /* enum gr_api; the "call" column */
	uint16_t redop;	       /* ncclRedOp_t (saturated) */
	uint8_t kind;	       /* enum gr_comm_kind */
	uint8_t dtype;	       /* ncclDataType_t (saturated at 255) */
};

/*
 * Scheduler events keep raw ids: they involve threads outside the traced set. As with launches,
 * what an event says but its time repeats (the same threads switch on the same CPUs), so events
 * share one gr_sched_key per distinct combination and an event is 16 bytes.
 */
struct gr_sched {
	uint64_t ts;
	uint32_t key; /* gr_model_sched_keys() index */
};

struct gr_sched_key {
	uint64_t prev_state;
	uint32_t cpu, target_cpu;
	uint32_t prev_pid, prev_tid;
	uint32_t next_pid, next_tid;
	uint8_t type;	 /* enum gr_sched_type */
	uint32_t stack;	 /* SWITCH with prev sleeping: prev's user stack where it blocked;
			    WAKEUP/WAKEUP_NEW: the waker's user stack when the waker is traced;
			    gr_model_stacks() index, 0 = none */
	int32_t syscall; /* SWITCH with prev sleeping: the x86-64 system call number prev is
			    blocked in; -1: none (page fault, or not known: old traces) */
	uint8_t fd_kind; /* enum gr_fd_kind (format/events.h): the kind of file the blocking
			    call's fd names, for fd-taking calls (read*, recv*, write*, send*,
			    pread*, ...); GR_FD_NONE otherwise */
};

struct gr_proc_event {
	uint64_t ts;
	uint64_t value;	  /* START: parent pid; EXIT: wait status */
	const char *text; /* EXEC: path; "" otherwise */
	uint32_t pid, tid;
	uint8_t type; /* enum gr_proc_type */
};

/*
 * A GPU row (--cupti, docs/FORMAT.md "GPU rows"): what the GPU ran, as CUPTI measured it; ts and
 * dur are the GPU's. Ids are raw (pid and host_tid moved like every pid of a set's later trace):
 * the GPU's device, context and stream are CUPTI's and index no table of the model. gpu.h ties
 * a row to the probed call that made it.
 */
struct gr_gpu {
	uint64_t ts, dur;
	uint64_t host_ts; /* entry of the API call that asked for it; 0 = not known */
	uint64_t bytes;	  /* copies and memsets */
	uint64_t correlation;
	uint64_t graph; /* the CUDA graph it ran in; 0 = not from a graph */
	uint64_t graph_node;
	const char *name;	/* kernels: demangled when it was mangled; "" otherwise */
	const char *mangled;	/* kernels: as CUPTI gave it; "" otherwise */
	uint32_t pid, host_tid; /* host_tid 0 = not known */
	uint32_t device, context, stream;
	uint32_t grid[3], block[3];
	uint32_t shared;   /* static + dynamic shared memory bytes */
	uint8_t kind;	   /* enum gr_gpu_kind (saturated at 255) */
	uint8_t copy_kind; /* CUpti_ActivityMemcpyKind (saturated at 255) */
};

struct gr_loss {
	uint64_t ts, ts_end;
	uint64_t count;
	uint32_t source; /* enum gr_loss_source */
};

/* ---- dense tables ---- */

struct gr_kernel {
	uint64_t func; /* launch func value in pid */
	uint32_t pid;
	uint32_t name_id;    /* gr_model_kernel_names() index: equal names, equal ids */
	const char *name;    /* demangled; "func 0x<hex>" when the trace names it nowhere */
	const char *mangled; /* the mangled name when known, else NULL */
	int named;	     /* 0 when name is the "func 0x..." fallback */
};

struct gr_config {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shmem; /* dynamic shared memory bytes */
	/* thread block cluster dimensions; 0 0 0 when the launch set none (or the file predates
	 * them); each saturated at GR_CLUSTER_DIM_MAX */
	uint32_t cluster[3];
};
#define GR_CLUSTER_DIM_MAX 1023u

/* 1 when the launches of @c set a thread block cluster dimension. */
static inline int gr_config_has_cluster(const struct gr_config *c)
{
	return (c->cluster[0] | c->cluster[1] | c->cluster[2]) != 0;
}

struct gr_thread {
	uint32_t pid, tid;
	uint32_t process; /* gr_model_processes() index */
	const char *comm; /* "" when unknown */
};

/*
 * A stream: (pid, handle). The legacy default stream is handle 0 (cudaStreamLegacy, 0x1, is
 * folded into it). A thread's per-thread default stream (cudaStreamPerThread, 0x2, or stream 0
 * through a _ptsz/_ptds entry point) is its own stream: handle GR_STREAM_PER_THREAD | tid,
 * per_thread 1. gr_stream_name() says which in words.
 */
#define GR_STREAM_HANDLE_LEGACY	    0x1ull
#define GR_STREAM_HANDLE_PER_THREAD 0x2ull
/* a tag no user-space stream pointer has (the kernel half of the address space) */
#define GR_STREAM_PER_THREAD 0xffff000000000000ull

struct gr_stream {
	uint64_t handle; /* 0 = the legacy default stream */
	uint32_t pid;
	uint32_t tid;	/* the thread of a per-thread default stream, else 0 */
	int per_thread; /* the per-thread default stream of thread tid */
};

/*
 * The handle gr_stream.handle has for a call of @api (enum gr_api) by thread @tid on the recorded
 * stream @handle: GR_STREAM_PER_THREAD | tid for a per-thread default stream, 0 for the legacy
 * one, else @handle. For handles that events carry raw (gr_sync.handle).
 */
uint64_t gr_stream_key(uint32_t tid, uint64_t api, uint64_t handle);

/* @s in words into @buf (@len >= 48): "legacy default stream", "per-thread default stream (tid
 * N)" or "stream 0x<hex>". Returns @buf. */
const char *gr_stream_name(const struct gr_stream *s, char *buf, size_t len);

struct gr_process {
	uint32_t pid;
	uint32_t ppid;	  /* 0 when unknown */
	const char *comm; /* comm of the main thread, else the exec basename, else "" */
	const char *exe;  /* last EXEC path; before one, the parent's at the fork; "" when
			   * neither is known */
	uint64_t start_ts, exec_ts, exit_ts; /* 0 when not seen */
	uint64_t exit_status;		     /* wait status, valid when has_exit */
	int has_exit;
	int attached; /* recorded with -p: registrations before the attach may be missing */
	/* from the launcher's environment at its exec (NAME class RANK, docs/FORMAT.md); -1 when
	 * not set (or an older trace) */
	int32_t rank, local_rank, world_size;
	const char *rank_env; /* the recorded variables as text; NULL when none */
	uint32_t trace;	      /* the trace of a set it came from (gr_model_traces()); 0 for one */
	uint32_t trace_pid;   /* its pid in that trace (pid is moved up by trace x
			       * GR_MODEL_SET_PIDS) */
};

struct gr_mapping {
	uint64_t start, end, pgoff;
	uint32_t pid;
	uint32_t build_id_len;
	const char *path;
	const uint8_t *build_id;
};

struct gr_symbol {
	uint64_t addr; /* the referenced address */
	uint64_t start, size;
	uint32_t pid;
	const char *name; /* demangled when it was mangled */
	/* the source line of the frame's call, from the file's line tables: "" and 0 when the
	 * recorder had none (no -g, stripped, or a trace from before it read them) */
	const char *file;
	uint32_t line;
};

/*
 * A stack as events reference it: (pid, the file's stack id). nframes is 0 when the trace has no
 * STACK record for it (lost), and for entry 0, which stands for "no stack".
 */
struct gr_stack {
	uint64_t id;
	uint32_t pid;
	uint32_t nframes;
	const uint64_t *frames; /* innermost first; NULL when nframes is 0 */
};

/*
 * A Python frame (PYFRAME record): what a stack frame with GR_FRAME_PYTHON set stands for. key is
 * that frame value, unique in the file; pid the process it ran in.
 */
struct gr_pyframe {
	uint64_t key;
	uint32_t pid;
	uint32_t line;	      /* 0 when the code has no line for the instruction */
	const char *file;     /* co_filename; "" when the recorder could not resolve the frame */
	const char *function; /* co_qualname (co_name before 3.11); "<unknown>" when unresolved */
};

/* The CPython a process ran (NAME class PYTHON): version PY_VERSION_HEX, 0 unknown; text as the
 * recorder wrote it: "CPython 3.12.1 (path)", followed by ": not read: <why>" when its frames
 * could not be read. */
#define GR_PYTHON_NOT_READ ": not read: " /* in gr_python.text: frames could not be read */
struct gr_python {
	uint32_t pid;
	uint32_t version;
	const char *text;
};

struct gr_session_fact {
	uint64_t value;
	const char *text; /* "" when none */
	uint32_t key;	  /* enum gr_session_key */
};

/* ---- loading ---- */

/*
 * Read the trace at @path completely, on every CPU this process may use. Returns 0 and sets
 * *@out, or a negative error (-errno, GR_ERR_*) with *@out NULL and the file offset and reason in
 * @diag (may be NULL). A damaged file that the reader recovers loads: gr_model_integrity() says
 * what was lost.
 */
int gr_model_load(struct gr_model **out, const char *path, struct gr_diag *diag);

/*
 * Same, from a buffer the caller keeps alive during the call (not after), on the calling thread.
 * @max_records caps the number of records of all kinds together in the chunks read (GR_ERR_LIMIT
 * past it; 0 = no cap), so fuzzers bound memory on highly compressible input.
 */
int gr_model_load_mem(struct gr_model **out, const void *buf, size_t len, uint64_t max_records,
		      struct gr_diag *diag);

/* A good margin for a windowed load (struct gr_model_load_opts): 1 s. */
#define GR_MODEL_MARGIN_NS 1000000000ull

struct gr_model_load_opts {
	/*
	 * Threads that decode and convert chunks: 0 = one per CPU this process may run on, 1 = none
	 * (everything on the calling thread). The model is the same whatever the number. Memory
	 * beyond the model's: per thread, one chunk's compressed and decompressed bytes (4 MiB for
	 * gpurec's chunks, 16 MiB at most) and its keyed tables; for a windowed load or a file
	 * without a footer, also one chunk's converted events per thread plus one.
	 */
	unsigned jobs;
	/*
	 * A window: keep only the events of [from_ts, to_ts] (CLOCK_MONOTONIC ns, inclusive, as
	 * event timestamps). An API call (launch, copy, memset, alloc, free, sync, graph) is kept
	 * when it starts in [from_ts - margin_ns, to_ts] and its [ts, ts + dur] reaches from_ts;
	 * a loss the same with [ts, ts_end]; a scheduler event when it is in [from_ts - margin_ns,
	 * to_ts], so that the state each thread is in when the window opens is known (a thread
	 * that did not switch within the margin has no known state then). Process events are
	 * metadata (the process table is made of them) and all kept, as are names, mappings,
	 * symbols, stacks and session facts. So the dense tables (kernels, threads, ...) hold what
	 * the kept events use, plus what the metadata adds; lost_events() counts the kept losses;
	 * record_count() stays that of the whole file, and time_span() that of its chunks (the end
	 * of a loss the window dropped aside).
	 *
	 * With the footer's index, chunks whose [first, last] timestamps miss [from_ts - margin_ns,
	 * to_ts] and that hold no metadata kind (NAME, MAPPING, SYMBOL, STACK, SESSION, PROC) are
	 * not even decoded; memory follows the window and the metadata, not the file. A file
	 * without a footer (recovered by scan) has no per-chunk kinds: every chunk is decoded, and
	 * only the kept events stay.
	 */
	int has_window;
	uint64_t from_ts, to_ts;
	uint64_t margin_ns; /* GR_MODEL_MARGIN_NS is a good value; 0 = none */
	/*
	 * Records of all kinds (events, names, stacks, ...) in the chunks the load reads, at most
	 * (a set: its traces' together); 0 = no cap. Checked against the chunk index before the
	 * model's arrays are allocated, and again as each chunk merges (GR_ERR_LIMIT), so a small
	 * file that expands to a great many records fails at once instead of taking the memory.
	 */
	uint64_t max_records;
	/* Out, may be NULL: on GR_ERR_LIMIT, how many records the load would read (at least). */
	uint64_t *over_records;
};

/*
 * What one record costs loaded and reported, about (the model's arrays, their sort, the figures
 * a command computes from them): to say what a limit spares, or size one to the memory there is.
 */
#define GR_MODEL_RECORD_BYTES 100ull

/*
 * gr_model_load() with options (@opts NULL: the defaults, as gr_model_load()). Whatever the jobs,
 * the model (every accessor's output, every index) is the one a one-thread load makes.
 */
int gr_model_load_opts(struct gr_model **out, const char *path,
		       const struct gr_model_load_opts *opts, struct gr_diag *diag);

/* Free the model and everything it returned (NULL is accepted). */
void gr_model_free(struct gr_model *m);

/* ---- accessors: arrays of *n entries (n may be NULL), sorted by ts unless said otherwise ---- */

/* The file header; strings are copies owned by the model ("" when absent, never NULL). */
const struct gr_trace_header *gr_model_header(const struct gr_model *m);

/*
 * Several traces as one job (one per node, or per launcher): gr_model_load_set() reads them into
 * one model. Trace k's times move onto the first trace's monotonic clock by the difference of
 * the two headers' clock anchors (realtime - monotonic, docs/FORMAT.md); its pids and tids (but
 * 0) move up by k x GR_MODEL_SET_PIDS, its CPUs by k x GR_MODEL_SET_CPUS and its GPU devices (GPU
 * rows) by k x GR_MODEL_SET_GPUS, so that processes, threads, CPUs and GPUs of different traces
 * stay distinct even where their numbers are equal. The
 * first trace's ids and times are its own: a set of one reads as gr_model_load_opts() does.
 */
#define GR_MODEL_SET_PIDS (1u << 22) /* above Linux's pid_max */
#define GR_MODEL_SET_CPUS 4096u
#define GR_MODEL_SET_GPUS 256u /* a node's device ordinals are below it */
#define GR_MODEL_SET_MAX  512  /* traces in a set: ids stay under 2^31 */

struct gr_model_trace {
	const char *path; /* as given */
	const char *host; /* its header's */
	int64_t shift_ns; /* added to its times */
	int anchored;	  /* its header and the first's hold both clocks: else shift_ns is 0 and
			   * its times are its own */
};

/* The traces of a set, in the order given; NULL and *n 0 for a model of one trace. */
const struct gr_model_trace *gr_model_traces(const struct gr_model *m, size_t *n);

/* What a trace with header @h adds to its monotonic times to read on the clock of the trace
 * with header @first; *@anchored 0 (and 0 returned) when either lacks a clock. */
int64_t gr_model_clock_shift(const struct gr_trace_header *first, const struct gr_trace_header *h,
			     int *anchored);

/*
 * Load the @n traces at @paths (1..GR_MODEL_SET_MAX) into one model, as above. Returns 0, or a
 * negative error with @diag set and *@failed the index of the trace it concerns.
 */
int gr_model_load_set(struct gr_model **out, const char *const *paths, size_t n,
		      const struct gr_model_load_opts *opts, struct gr_diag *diag, size_t *failed);
/* Final integrity of the read. */
const struct gr_integrity *gr_model_integrity(const struct gr_model *m);
/*
 * The recording ended without its footer (the recorder was killed, the disk filled, the file was
 * cut): 1, and the time of the last event the file holds in *@last_ts (may be NULL); events
 * after it are not in the file, and no loss record counts them. 0 for a trace closed properly.
 */
int gr_model_ended_abruptly(const struct gr_model *m, uint64_t *last_ts);
/* 1 when the file's schema declares record kind @kind (enum gr_kind), though it may hold none:
 * files written before a kind existed do not. */
int gr_model_has_kind(const struct gr_model *m, unsigned kind);
/* Records of @kind (enum gr_kind) in the file, all kinds counted, including metadata. */
uint64_t gr_model_record_count(const struct gr_model *m, unsigned kind);

const struct gr_launch *gr_model_launches(const struct gr_model *m, size_t *n);
/* Launch keys in order of first use (never NULL when there are launches). */
const struct gr_launch_key *gr_model_launch_keys(const struct gr_model *m, size_t *n);
const struct gr_copy *gr_model_copies(const struct gr_model *m, size_t *n);
const struct gr_memset *gr_model_memsets(const struct gr_model *m, size_t *n);
const struct gr_alloc *gr_model_allocs(const struct gr_model *m, size_t *n);
const struct gr_free *gr_model_frees(const struct gr_model *m, size_t *n);
/* cudaMemGetInfo / cuMemGetInfo calls by ts (struct gr_meminfo). */
const struct gr_meminfo *gr_model_meminfos(const struct gr_model *m, size_t *n);
/* NVTX calls by ts (struct gr_nvtx); none in a trace older than format 1.3. */
const struct gr_nvtx *gr_model_nvtx(const struct gr_model *m, size_t *n);
/* The NVTX text of index @idx: identical texts share an index; 0 and an index out of range are
 * "". */
const char *gr_model_nvtx_text(const struct gr_model *m, uint32_t idx);
const struct gr_sync *gr_model_syncs(const struct gr_model *m, size_t *n);
const struct gr_graph *gr_model_graphs(const struct gr_model *m, size_t *n);
/* Calls in the event arrays known to have succeeded (they returned 0): the others there were
 * recorded at entry only, or by a gpurec that kept no status. */
uint64_t gr_model_calls_ok(const struct gr_model *m);
/*
 * NCCL calls by ts: those done (outermost, not failed, returned), and apart from them those set
 * aside as GR_CALL_ASIDE says (failed, nested or in flight), which no figure may count.
 */
const struct gr_comm_call *gr_model_comm_calls(const struct gr_model *m, size_t *n);
const struct gr_comm_call *gr_model_comm_asides(const struct gr_model *m, size_t *n);
/* Calls kept aside (struct gr_aside), by ts. */
const struct gr_aside *gr_model_asides(const struct gr_model *m, size_t *n);
/* What every aside call has, whatever its kind: api, thread, stack (0 = none) and stream
 * (UINT32_MAX for kinds without one: free, sync). */
unsigned gr_aside_api(const struct gr_model *m, const struct gr_aside *a);
uint32_t gr_aside_thread(const struct gr_model *m, const struct gr_aside *a);
uint32_t gr_aside_stack(const struct gr_model *m, const struct gr_aside *a);
uint32_t gr_aside_stream(const struct gr_model *m, const struct gr_aside *a);
const struct gr_sched *gr_model_scheds(const struct gr_model *m, size_t *n);
/* Scheduler event keys in order of first use (never NULL when there are events). */
const struct gr_sched_key *gr_model_sched_keys(const struct gr_model *m, size_t *n);
const struct gr_proc_event *gr_model_proc_events(const struct gr_model *m, size_t *n);
const struct gr_loss *gr_model_losses(const struct gr_model *m, size_t *n);
/* GPU rows (--cupti) by ts, the GPU's start; none in a recording made without --cupti. */
const struct gr_gpu *gr_model_gpus(const struct gr_model *m, size_t *n);

/* Kernels in order of first launch (then kernels named but never launched are absent). */
const struct gr_kernel *gr_model_kernels(const struct gr_model *m, size_t *n);
/* Distinct kernel names, indexed by gr_kernel.name_id, in order of first launch. */
const char *const *gr_model_kernel_names(const struct gr_model *m, size_t *n);
/* Launch configs in order of first use. */
const struct gr_config *gr_model_configs(const struct gr_model *m, size_t *n);
/* Threads in order of first API call, then threads known only from PROC records. */
const struct gr_thread *gr_model_threads(const struct gr_model *m, size_t *n);
/* Streams in order of first use, per pid. */
const struct gr_stream *gr_model_streams(const struct gr_model *m, size_t *n);
/* Processes sorted by pid: every pid of a thread, an event or a PROC record. */
const struct gr_process *gr_model_processes(const struct gr_model *m, size_t *n);
/* Paths/versions of the CUDA libraries the recorder probed (NAME class LIBRARY), file order. */
const char *const *gr_model_libraries(const struct gr_model *m, size_t *n);

/*
 * Paths of the mapped libraries that run CUDA code through a runtime copy of their own, which
 * the recorder cannot probe (NAME class UNPROBED, e.g. cuBLAS), file order; each path once.
 */
const char *const *gr_model_unprobed_libraries(const struct gr_model *m, size_t *n);
/* Mappings sorted by (pid, start); symbols by (pid, addr). */
const struct gr_mapping *gr_model_mappings(const struct gr_model *m, size_t *n);
const struct gr_symbol *gr_model_symbols(const struct gr_model *m, size_t *n);
/* Stacks in order of first reference; entry 0 is the empty "no stack" (never NULL). */
const struct gr_stack *gr_model_stacks(const struct gr_model *m, size_t *n);

/* Python frames (PYFRAME records) sorted by key; the last record of a key wins. */
const struct gr_pyframe *gr_model_pyframes(const struct gr_model *m, size_t *n);

/* The Python frame stack frame value @frame stands for (GR_FRAME_PYTHON set), or NULL when the
 * trace has no PYFRAME for it (reports say "python:?"). */
const struct gr_pyframe *gr_model_pyframe(const struct gr_model *m, uint64_t frame);

/* The CPythons of the traced processes (NAME class PYTHON), by (pid, version); the last record
 * of a (pid, version) wins. */
const struct gr_python *gr_model_pythons(const struct gr_model *m, size_t *n);

/* Comm of @tid from the NAME records, or NULL when the trace has none. */
const char *gr_model_comm(const struct gr_model *m, uint32_t tid);

/* Stack with the file's id @id in @pid (a stack recorded with pid 0 matches any pid), or NULL. */
const struct gr_stack *gr_model_stack(const struct gr_model *m, uint32_t pid, uint64_t id);

/* Symbol for @addr in @pid: the one recorded for that address, else one whose [start,
 * start+size) holds it; NULL when none. */
const struct gr_symbol *gr_model_symbol(const struct gr_model *m, uint32_t pid, uint64_t addr);

/* Mapping of @pid that holds @addr, or NULL. */
const struct gr_mapping *gr_model_mapping(const struct gr_model *m, uint32_t pid, uint64_t addr);

/* What reports call the recorder's own processes wherever a task is named. */
#define GR_RECORDER_NAME "gpurec (this recording)"

/* 1 when @pid is a process of the recorder that made the trace (GR_SESS_RECORDER_PID,
 * GR_SESS_WATCHDOG_PID; older traces name none), else 0. */
int gr_model_is_recorder(const struct gr_model *m, uint32_t pid);

/* Session fact @key (enum gr_session_key): 1 and *value, *text set when present, else 0. The
 * last record for a key wins; a set of traces keeps each trace's, and this gives the first
 * trace's. value and text may be NULL. */
int gr_model_session(const struct gr_model *m, unsigned key, uint64_t *value, const char **text);
/*
 * Over every fact @key of @m (a set of traces has one per trace): how many there are, the
 * smallest value in *@min, and in *@differs whether they do not all agree.
 */
int gr_model_session_min(const struct gr_model *m, unsigned key, uint64_t *min, int *differs);
/* The sum of every fact @key's value (a set of traces has one per trace): counts of a job, such as
 * GR_SESS_CUPTI_DROPPED. 0 when there is none. */
uint64_t gr_model_session_sum(const struct gr_model *m, unsigned key);

/* Events lost, over the LOSS records whose events were lost (not gr_loss_stack_only()). */
uint64_t gr_model_lost_events(const struct gr_model *m);

/* Events kept without their stack, over the other LOSS records (gr_loss_stack_only()). */
uint64_t gr_model_lost_stacks(const struct gr_model *m);

/*
 * Time span of the recording: *first = the header's monotonic clock anchor (else the earliest
 * event), *last = the latest ts of any record (ts_end of losses and GPU rows' ends included). Both
 * 0 for an empty trace without anchor.
 */
void gr_model_time_span(const struct gr_model *m, uint64_t *first, uint64_t *last);

#endif
