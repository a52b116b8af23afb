// SPDX-License-Identifier: GPL-2.0
/*
 * gpurec's kernel side: capture CUDA API calls of the traced process tree with uprobes, the
 * tree itself and its scheduler context with tp_btf, and hold a process that maps an unknown
 * executable file (SIGSTOP) until the recorder has attached its probes.
 *
 * Transport: one ring buffer, written without wakeups; the recorder drains it on a timer and is
 * woken only past a fill threshold or for events it must act on at once (a stopped process).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "gpurec.h"

#define SIGSTOP	  19
#define PROT_EXEC 4
#define NR_MMAP	  9

const volatile __u32 targ_recorder_pid = 0;	  /* never trace ourselves */
const volatile __u64 targ_wakeup_bytes = 1 << 20; /* wake the recorder past this fill */
const volatile __u32 targ_stack_frames = GR_MAX_FRAMES;
const volatile __u32 targ_dwarf_bytes = 0; /* --call-graph dwarf: raw stack bytes, 0 = walk fp */
/* --call-graph dwarf: past this fill, events go without their raw stack (0: never) */
const volatile __u64 targ_shed_bytes = 0;
const volatile bool targ_sched = true;
const volatile bool targ_hold_mappings = true;
const volatile bool targ_python = true; /* walk Python frames where py_procs says how */
const volatile bool targ_cfi = false;	/* walk by the unwind tables in cfi_procs (default) */
/*
 * Launch sampling (launch_session): the launches of a thread whose sequence number n (0, 1, ...)
 * has n % targ_launch_sample == 1 % targ_launch_sample are timed, entry to return; so the second
 * launch of each thread and every targ_launch_sample-th after it (the first may load modules).
 * A power of two: the remainder is a mask, not a division, on every launch.
 */
const volatile __u32 targ_launch_sample = 64;

/* uprobe session kfuncs (6.12+): weak, so a kernel without them still loads the rest */
extern bool bpf_session_is_return(void) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by the recorder */
} events SEC(".maps");

/*
 * The traced process tree: one bit per tgid, in .bss so the recorder sets bits through its
 * mmap and the hot path tests one word (a hash lookup would cost more than the rest of an
 * event). PID_MAX_LIMIT on 64-bit is 4M: 512 KiB.
 */
#define GR_PID_LIMIT (4u << 20)
__u64 traced_bits[GR_PID_LIMIT / 64];

/* Set by the recorder once a driver library (libcuda) is probed: runtime launches then mark
 * their thread so that the driver launch they make is not counted twice. */
bool driver_probed;

struct file_key {
	__u64 dev, ino;
};

/* Executable files the recorder has examined (probes attached when CUDA): no need to hold. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct file_key);
	__type(value, __u8);
} known_files SEC(".maps");

/*
 * Per thread: the calls whose return probe is pending, innermost last. A recorded call may make
 * another (a runtime whose copy synchronises through its own exported sync function, a launch
 * through a wrapper we also probe): each keeps its own entry state, and its depth. Levels past
 * GR_CALL_LEVELS are counted in depth but not kept: their calls are lost (C_PENDING_LOST).
 */
#define GR_CALL_LEVELS 4

/*
 * What one read of user stack memory takes for a frame-pointer walk: a user read costs about as
 * much for 1 KiB as for 16 bytes (~30 ns), and most frames are smaller than that.
 */
#define GR_STACK_WINDOW 1024

/*
 * The rules a thread's last walk by unwind tables found, per frame: a thread that calls from
 * the same place again (a training loop's launches) walks the same return addresses, and a
 * rule from here costs a compare where a search costs two bounded binary searches. key: the
 * address looked up, and the process's cfi_procs generation in the top 16 bits (user addresses
 * have 47), so an update of the process's mappings makes every entry stale.
 */
struct cfi_cache {
	__u64 key[GR_MAX_FRAMES];
	struct gr_cfi_row row[GR_MAX_FRAMES];
};

struct pending_call {
	struct gr_ev_call call; /* header and arguments at entry */
	__u64 cookie;
	__u32 nframes; /* the user stack walked at entry (frame-pointer stacks) */
	__u32 pad;
	__u64 frames[GR_MAX_FRAMES];
};

/*
 * The thread's call events not yet in the ring buffer (struct gr_ev_batch). Only the thread's
 * own programs append, so no lock: @busy tells a reader in the thread's context that an append
 * was preempted midway (the switch-out hook then leaves the batch for later). Sent when the next
 * event might not fit, when its first event is GR_BATCH_AGE_NS old, when the thread is switched
 * out, before any event of the thread that goes to the ring directly, at the thread's exit and
 * at the stop (after the probes are detached).
 */
struct call_batch {
	__u32 len;	/* bytes of events[] in use */
	__u32 count;	/* events in it */
	__u64 first_ts; /* of its first event */
	__u32 busy;
	__u32 nostack; /* events in it whose stack is missing: counted once the batch is sent */
	struct gr_ev_batch hdr; /* the ring record starts here, events[] follow it */
	__u8 events[GR_BATCH_BYTES];
};

/*
 * What one read of a thread's Python frames takes (py_walk()): 3.11+ frames lie back to back in
 * the thread's data stack, a few hundred bytes each, so a window holds several.
 */
#define GR_PY_WINDOW 8192
/* What py_thread_frame() reads of a PyThreadState at most: its thread id and current frame */
#define PY_TSTATE_SPAN 256
/* What a window holds beyond the span of the thread's last walk: its stack may grow a frame */
#define PY_WINDOW_SLACK 512
/* A thread with no PyThreadState (a C thread) is searched for again after this long. */
#define GR_PY_MISS_NS 10000000ULL

/*
 * The entries of a walk py_capture() keeps, and so the most it keeps (frames and 3.12+ shims
 * together); a deeper stack is walked whole every time (py_step()).
 */
#define PY_KEEP 128

/* The farthest into a frame py_check() reads: further, and the walk keeps nothing */
#define PY_FIELD_MAX 256

/* What a walk reads of one entry of a thread's frame chain (py_scan()) */
struct py_entry {
	__u64 addr, prev, code, instr; /* code untagged (3.14) */
	__u64 owner;		       /* the byte at frame_owner; 0 without one */
};

/*
 * One entry of the last walk, outermost first (py_keep_step()), with what the walk made of it
 * and of the entries outer to it: when it reads the same bytes now, and so do all outer to it,
 * a walk that meets it has the same stack from it outward (py_check()).
 */
struct py_kept {
	struct py_entry e;
	__u64 hash;	       /* of the frames up to this entry (py_mix(), outermost first) */
	struct gr_py_frame fr; /* the frame it is, when kind is PY_FRAME */
	__u32 nframes;	       /* frames up to this entry */
	__u8 kind;	       /* PY_FRAME, PY_SHIM, PY_NOCODE */
	__u8 pend;	       /* a shim outer to it waits to flag the next frame GR_PYF_ENTRY */
	__u16 pad;
};

/* What a thread's walks of its Python frames keep (py_capture()). */
struct py_state {
	__u64 py_tstate;    /* the thread's PyThreadState, 0 when not known */
	__u64 py_miss;	    /* when a search last found none */
	__u64 py_last_sent; /* the id this thread sent or saw sent last */
	__u64 py_frame;	    /* the walk: the next frame to read */
	__u64 py_wbase;	    /* py_window holds py_wlen bytes of user memory from here */
	__u32 py_wlen;
	__u32 py_extent;	 /* bytes of a frame the walk reads */
	__u64 py_hash;		 /* of py.frames[] before the last */
	__u64 py_low;		 /* the walk's lowest frame address */
	__u32 py_want;		 /* bytes a window read takes (py_load()); 0: all */
	struct gr_ev_pystack py; /* the walk (nframes, flags so far), sent from here when new */
	/* py_check()'s loads reach past the window's end by at most PY_FIELD_MAX: never used */
	__u8 py_window[GR_PY_WINDOW + PY_FIELD_MAX];
	__u8 py_tbuf[PY_TSTATE_SPAN]; /* py_thread_frame()'s read */
	__u32 py_match;		      /* outer entries of kept[] that read the same now */
	__u32 py_nnew;		      /* entries of this walk in fresh[], innermost first */
	__u32 py_join;		      /* the walk met kept[py_match - 1] */
	__u32 py_over;		      /* more entries than PY_KEEP, or one not readable */
};

/*
 * What a thread's last walk leaves for the next (py_walk_kept()): per Python thread and walking
 * path (py_keeps, py_blk_keeps), apart from thread_states and blk_states, which every traced
 * thread has and which the scheduler programs allocate where memory may not be found: this is
 * created only for a thread of a Python process, and a thread without one walks whole.
 */
struct py_keep {
	__u32 kn;    /* entries in kept[]; 0: none */
	__u32 kseed; /* the process's seed their hashes hold */
	struct py_kept kept[PY_KEEP];
	struct py_entry fresh[PY_KEEP]; /* this walk's entries inner to kept[py_match - 1] */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct py_keep);
} py_keeps SEC(".maps"), py_blk_keeps SEC(".maps");

struct thread_state {
	struct pending_call calls[GR_CALL_LEVELS];
	__u32 depth;	     /* calls entered and not returned, kept or not */
	__u32 runtime_depth; /* kept ones through the runtime API (not GR_CF_DRIVER, GR_CF_OUTER) */
	__u32 outer;	     /* kept GR_CF_OUTER ones: not in the depth events carry */
	__u32 pad_outer;
	/* the last entry-only runtime launch, for the driver launch it makes (in_runtime_launch()):
	 * its stack pointer at entry (0: none) and the return address that was there */
	__u64 launch_sp, launch_ret;
	/* the return address at sp that batch_entry()'s capture read (0: unreadable), for the mark:
	 * kept here, not passed back, so that no value the verifier tracks outlives the capture */
	__u64 entry_ret;
	__u32 launch_seq;   /* launches seen by launch_session: its sampling counter */
	__u32 mark_pending; /* this call is a runtime launch to mark once its event is built */
	struct call_batch batch;
	__u8 window[GR_STACK_WINDOW]; /* user stack being walked (walk_window()) */
	struct cfi_cache cfi;	      /* the rules its last walk by unwind tables used */
	struct py_state ps;	      /* its Python frames (py_capture()) */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} thread_states SEC(".maps");

/*
 * A stack the scheduler programs send: the record, its frames right after it (one
 * bpf_ringbuf_output() of both, at their exact size: most switches carry none, and reserving
 * room for the deepest stack in each would waste the ring), and the walk's state. Kept per
 * traced thread that blocks or wakes a thread that makes CUDA calls (blk_states), apart from
 * thread_states: a waker (a data loader worker, the Python thread holding the GIL) makes no
 * CUDA call and needs none of a call's state, and the CUDA path never touches this.
 */
struct blk_state {
	__u64 site[2], last[2]; /* per role: the user ip of the last walk, and when */
	struct gr_ev_sched ev;	/* the thread's own switch-out, frames[] follow */
	__u64 frames[GR_MAX_FRAMES];
	/*
	 * This thread is being woken: the waker's record, from sched_waking (the waker's context:
	 * sched_wakeup may run on the wakee's CPU, from an interrupt, where current is another
	 * task), sent by sched_wakeup when @wake_ts is set. Apart from ev: a thread may be woken
	 * while it switches out. @wake_switches: the wakee's switch count then (wakee_switches()).
	 */
	__u64 wake_ts, wake_switches;
	struct gr_ev_sched wake_ev;
	__u64 wake_frames[GR_MAX_FRAMES];
	__u8 window[GR_STACK_WINDOW];
	struct cfi_cache cfi;
	struct py_state ps;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct blk_state);
} blk_states SEC(".maps");

/* How to walk each traced CPython process's frames: record/python/python.c fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct gr_py_proc);
} py_procs SEC(".maps");

struct py_sent_key {
	__u32 tgid;
	__u32 pad;
	__u64 id;
};

/*
 * The Python stacks sent per process: a stack is sent once, the first time a thread of the
 * process walks it. Least recently used ones go first when full: sent again then, harmless.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct py_sent_key);
	__type(value, __u8);
} py_sent SEC(".maps");

/*
 * The Python stacks the scheduler programs sent, which do not hold the process
 * (blocked_stack()): kept apart from py_sent, so that a CUDA call with the same stack still
 * sends it and holds the process until the recorder has resolved it (the recorder reads the
 * first copy then too, as the process waits for the second). The recorder keeps one per id.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct py_sent_key);
	__type(value, __u8);
} py_sent_unheld SEC(".maps");

/* An event being built: the call, then frames (fp) or registers and stack bytes (dwarf). */
struct scratch {
	struct gr_ev_call call;
	union {
		__u64 frames[GR_MAX_FRAMES];
		struct {
			struct gr_ev_rawstack raw;
			__u8 bytes[GR_DWARF_MAX];
		};
	};
	__u8 window[GR_STACK_WINDOW]; /* user stack being walked (walk_window()); not sent */
	/*
	 * The thread building the event. A uprobe program runs with migration disabled, not
	 * preemption: another thread may take this CPU, and this scratch, mid-event. Not sent
	 * with the event (it lies past what emit_call copies).
	 */
	__u64 owner;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, C_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * The holds sent to each traced process (hold_process()), until its last thread exits: one
 * SIGCONT ends every stop, so the recorder resumes a process only once it has handled as many
 * held events (record/hold.h).
 */
#define GR_HOLD_PROCS 65536
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GR_HOLD_PROCS);
	__type(key, __u32);
	__type(value, __u64);
} holds SEC(".maps");

/*
 * --call-graph cfi (the default): the unwind tables of every binary the recorder built one for
 * (record/cfi.h), back to back, and their buckets; and per traced process
 * (key: tgid) its executable mappings that have one. A process without an entry is walked by
 * frame pointers alone.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GR_CFI_MAX_ROWS);
	__type(key, __u32);
	__type(value, struct gr_cfi_row);
} cfi_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GR_CFI_MAX_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} cfi_buckets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	/* 12 KiB a process: allocated as processes come, not all up front */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct gr_cfi_proc);
} cfi_procs SEC(".maps");

static __always_inline void count_n(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += n;
}

static __always_inline void count(__u32 idx)
{
	count_n(idx, 1);
}

/*
 * Stop the calling process (all its threads) until the recorder has handled the event about to
 * be submitted, which says so: counted first, so that the recorder never sees a hold's SIGSTOP
 * before its count (record/hold.h). Returns false, holding nothing, when the process cannot be
 * counted (the map is full): a hold the recorder could not account for might never end.
 */
static __always_inline bool hold_process(__u32 tgid)
{
	__u64 zero = 0, *sent = bpf_map_lookup_elem(&holds, &tgid);

	if (!sent) {
		bpf_map_update_elem(&holds, &tgid, &zero, BPF_NOEXIST);
		sent = bpf_map_lookup_elem(&holds, &tgid);
		if (!sent)
			return false;
	}
	__sync_fetch_and_add(sent, 1);
	/* counted even when not sent (a thread exiting): the recorder's SIGCONT is then harmless */
	if (!bpf_send_signal(SIGSTOP))
		count(C_STOP_SENT);
	return true;
}

static __always_inline bool is_traced(__u32 tgid)
{
	__u32 word = tgid / 64;

	/* the barrier keeps clang from folding the bound into a shift the verifier can't follow */
	asm volatile("" : "+r"(word));
	if (word >= GR_PID_LIMIT / 64)
		return false;
	return traced_bits[word] & (1ull << (tgid % 64));
}

static __always_inline void set_traced(__u32 tgid)
{
	__u32 word = tgid / 64;

	asm volatile("" : "+r"(word));
	if (word < GR_PID_LIMIT / 64)
		__sync_fetch_and_or(&traced_bits[word], 1ull << (tgid % 64));
}

static __always_inline void clear_traced(__u32 tgid)
{
	__u32 word = tgid / 64;

	asm volatile("" : "+r"(word));
	if (word < GR_PID_LIMIT / 64)
		__sync_fetch_and_and(&traced_bits[word], ~(1ull << (tgid % 64)));
}

static __always_inline struct thread_state *thread_state(bool create)
{
	return bpf_task_storage_get(&thread_states, bpf_get_current_task_btf(), NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Wake the consumer only when the buffer fills: a wakeup per event costs 2-3 us in a VM. */
static __always_inline __u64 wake_flags(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > targ_wakeup_bytes
		   ? BPF_RB_FORCE_WAKEUP
		   : BPF_RB_NO_WAKEUP;
}

/* Send the thread's batched events as one ring record; a failure loses each of them, counted. */
static __always_inline void batch_flush(struct call_batch *b)
{
	__u64 len = b->len;

	/* 64 bits and the barrier keep the bound check on the register the helper gets */
	asm volatile("" : "+r"(len));
	if (len && len <= GR_BATCH_BYTES) {
		b->hdr.type = EV_BATCH;
		b->hdr.bytes = len;
		/* a stack loss is of an event that is kept (FORMAT.md), not of one dropped */
		if (bpf_ringbuf_output(&events, &b->hdr, sizeof(b->hdr) + len, wake_flags()))
			count_n(C_RINGBUF_LOST, b->count);
		else if (b->nostack)
			count_n(C_STACK_LOST, b->nostack);
	}
	b->len = 0;
	b->count = 0;
	b->nostack = 0;
}

/*
 * Room for one more call event with the deepest stack at the end of @b, flushed first if full.
 * NULL never happens: the check keeps the verifier's bound on the register that is used.
 */
static __always_inline struct gr_ev_call *batch_slot(struct call_batch *b)
{
	__u64 off;

	if (b->len > GR_BATCH_BYTES - GR_CALL_EVENT_MAX)
		batch_flush(b);
	off = b->len;
	asm volatile("" : "+r"(off));
	if (off > GR_BATCH_BYTES - GR_CALL_EVENT_MAX)
		return NULL;
	return (struct gr_ev_call *)(b->events + off);
}

/*
 * The event at the end of @b (@bytes with its frames, made at @now) is complete; @nostack: its
 * stack was wanted and could not be walked.
 */
static __always_inline void batch_commit(struct call_batch *b, __u64 now, __u32 bytes, bool nostack)
{
	if (!b->len)
		b->first_ts = now;
	b->len += bytes;
	b->count++;
	b->nostack += nostack;
	if (b->len > GR_BATCH_BYTES - GR_CALL_EVENT_MAX || now - b->first_ts >= GR_BATCH_AGE_NS)
		batch_flush(b);
}

/* Send what the thread batched, unless one of its programs was preempted mid-append. Before an
 * event of the thread goes to the ring directly, its earlier ones go first. */
static __always_inline void flush_state(struct thread_state *ts)
{
	if (ts && ts->batch.len && !ts->batch.busy)
		batch_flush(&ts->batch);
}

static __always_inline void flush_task(struct task_struct *task)
{
	flush_state(bpf_task_storage_get(&thread_states, task, NULL, 0));
}

static __always_inline void fill_hdr(struct gr_ev_hdr *h, __u8 type, __u64 pid_tgid)
{
	h->type = type;
	h->cpu = bpf_get_smp_processor_id();
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->ts = bpf_ktime_get_ns();
	h->stack_len = 0;
	h->flags = 0;
	h->dur = 0;
}

static __always_inline __u8 event_type(__u8 layout)
{
	switch (layout) {
	case L_RT_LAUNCH:
	case L_RT_LAUNCH_EXC:
	case L_CU_LAUNCH:
	case L_CU_LAUNCH_EX:
		return EV_LAUNCH;
	case L_GRAPH_LAUNCH:
	case L_CAPTURE_BEGIN:
	case L_CAPTURE_END:
	case L_GRAPH_INSTANTIATE:
	case L_GRAPH_ADD_KERNEL:
	case L_GRAPH_KERNEL_SET:
	case L_GRAPH_EXEC_KERNEL_SET:
	case L_GRAPH_EXEC_UPDATE:
	case L_GRAPH_ADD_CHILD:
	case L_GRAPH_CLONE:
	case L_GRAPH_ADD_MEMCPY_1D:
	case L_GRAPH_ADD_MEMSET:
	case L_GRAPH_ADD_MEMCPY_3D:
	case L_GRAPH_ADD_MEMCPY_SYM:
	case L_CU_GRAPH_ADD_MEMCPY:
	case L_GRAPH_ADD_NODE_ONLY:
	case L_GRAPH_MEMCPY_SET_1D:
	case L_GRAPH_EXEC_MEMCPY_SET_1D:
	case L_GRAPH_MEMSET_SET:
	case L_GRAPH_EXEC_MEMSET_SET:
	case L_GRAPH_MEMCPY_SET_3D:
	case L_GRAPH_EXEC_MEMCPY_SET_3D:
	case L_CU_GRAPH_MEMCPY_SET:
	case L_CU_GRAPH_EXEC_MEMCPY_SET:
	case L_GRAPH_MEMCPY_SET_SYM:
	case L_GRAPH_EXEC_MEMCPY_SET_SYM:
		return EV_GRAPH;
	case L_MEMSET:
	case L_CU_MEMSET_D8:
	case L_CU_MEMSET_D32:
		return EV_MEMSET;
	case L_MALLOC_OUT:
	case L_HOST_REGISTER:
	case L_MALLOC_PITCH:
	case L_MALLOC_3D:
	case L_MALLOC_ARRAY:
	case L_MALLOC_3D_ARRAY:
	case L_CU_ARRAY:
	case L_CU_ARRAY_3D:
		return EV_ALLOC;
	case L_MEMINFO:
		return EV_MEMINFO;
	case L_FREE:
		return EV_FREE;
	case L_SYNC_NONE:
	case L_SYNC_HANDLE:
	case L_SYNC_HANDLE2:
		return EV_SYNC;
	case L_REGISTER_FUNCTION:
	case L_GET_KERNEL:
	case L_CU_GET_FUNCTION:
	case L_CU_LIBRARY_GET_KERNEL:
	case L_CU_KERNEL_GET_FUNCTION:
		return EV_ALIAS;
	case L_DEVICE_PROPS:
	case L_DEVICE_ATTR:
	case L_DEVICE_QUERY:
		return EV_DEVICE;
	case L_NCCL_COLL_OP:
	case L_NCCL_BROADCAST:
	case L_NCCL_REDUCE:
	case L_NCCL_ALL_GATHER:
	case L_NCCL_P2P:
	case L_NCCL_GROUP:
	case L_NCCL_INIT:
	case L_NCCL_DESTROY:
		return EV_COMM;
	default:
		return EV_COPY;
	}
}

/* Read what a layout passes by pointer, while the caller's memory still holds it. */
static __always_inline void read_entry_structs(struct gr_ev_call *e, __u8 layout)
{
	const void *p = (const void *)e->r[0];

	switch (layout) {
	case L_RT_LAUNCH_EXC:
	case L_CU_LAUNCH_EX: {
		/* cudaLaunchConfig_t / CUlaunchConfig: dims, shared mem, stream in 40 bytes, then
		 * the attributes, searched for a cluster dimension */
		__u64 at[2] = {};

		bpf_probe_read_user(&e->x[0], 40, p);
		e->x[GR_X_CLUSTER] = e->x[GR_X_CLUSTER + 1] = 0;
		bpf_probe_read_user(at, sizeof(at), p + GR_LAUNCH_CONFIG_ATTRS);
		for (__u32 i = 0; i < GR_LAUNCH_ATTRS_MAX && i < (__u32)at[1]; i++) {
			const void *a = (const void *)at[0] + i * GR_LAUNCH_ATTR_BYTES;
			__u32 v[4] = {};

			if (bpf_probe_read_user(v, sizeof(v), a))
				break;
			if (v[0] != GR_LAUNCH_ATTR_CLUSTER)
				continue;
			bpf_probe_read_user(&v[1], 12, a + 8);
			e->x[GR_X_CLUSTER] = v[1] | (__u64)v[2] << 32;
			e->x[GR_X_CLUSTER + 1] = v[3];
			break;
		}
		break;
	}
	case L_MEMCPY_3D:
	case L_MEMCPY_3D_ASYNC:
		/* cudaMemcpy3DParms: srcArray@0 srcPtr.ptr@32 dstArray@64 dstPtr.ptr@96
		 * extent@128 (w, h, d) kind@152 */
		bpf_probe_read_user(&e->x[0], 8, p + 32);
		bpf_probe_read_user(&e->x[1], 8, p + 96);
		bpf_probe_read_user(&e->x[2], 24, p + 128);
		bpf_probe_read_user(&e->x[5], 4, p + 152);
		bpf_probe_read_user(&e->x[6], 8, p);
		bpf_probe_read_user(&e->x[7], 8, p + 64);
		break;
	case L_GRAPH_ADD_KERNEL:
		bpf_probe_read_user(&e->x[0], GR_KERNEL_NODE_PARAMS_BYTES, (const void *)e->r[4]);
		break;
	case L_MALLOC_ARRAY:
	case L_MALLOC_3D_ARRAY:
		bpf_probe_read_user(&e->x[GR_X_CHANNEL], GR_CHANNEL_DESC_BYTES,
				    (const void *)e->r[1]);
		break;
	case L_CU_ARRAY:
		bpf_probe_read_user(&e->x[GR_X_CHANNEL], GR_CU_ARRAY_DESC_BYTES,
				    (const void *)e->r[1]);
		break;
	case L_CU_ARRAY_3D:
		bpf_probe_read_user(&e->x[GR_X_CHANNEL], GR_CU_ARRAY3D_DESC_BYTES,
				    (const void *)e->r[1]);
		break;
	case L_GRAPH_KERNEL_SET:
		bpf_probe_read_user(&e->x[0], GR_KERNEL_NODE_PARAMS_BYTES, (const void *)e->r[1]);
		break;
	case L_GRAPH_EXEC_KERNEL_SET:
		bpf_probe_read_user(&e->x[0], GR_KERNEL_NODE_PARAMS_BYTES, (const void *)e->r[2]);
		break;
	case L_GRAPH_ADD_MEMSET:
		/* cudaMemsetParams: dst@0 pitch@8 value@16 elementSize@20 width@24 height@32;
		 * CUDA_MEMSET_NODE_PARAMS has the same layout */
		bpf_probe_read_user(&e->x[0], 40, (const void *)e->r[4]);
		break;
	case L_GRAPH_MEMSET_SET:
		bpf_probe_read_user(&e->x[0], 40, (const void *)e->r[1]);
		break;
	case L_GRAPH_EXEC_MEMSET_SET:
		bpf_probe_read_user(&e->x[0], 40, (const void *)e->r[2]);
		break;
	case L_GRAPH_ADD_MEMCPY_3D:
	case L_GRAPH_MEMCPY_SET_3D:
	case L_GRAPH_EXEC_MEMCPY_SET_3D:
		/* cudaMemcpy3DParms as for L_MEMCPY_3D, kind in x[6]: x[5] takes the node */
		p = (const void *)(layout == L_GRAPH_ADD_MEMCPY_3D   ? e->r[4]
				   : layout == L_GRAPH_MEMCPY_SET_3D ? e->r[1]
								     : e->r[2]);
		bpf_probe_read_user(&e->x[0], 8, p + 32);
		bpf_probe_read_user(&e->x[1], 8, p + 96);
		bpf_probe_read_user(&e->x[2], 24, p + 128);
		bpf_probe_read_user(&e->x[6], 4, p + 152);
		break;
	case L_CU_GRAPH_ADD_MEMCPY:
	case L_CU_GRAPH_MEMCPY_SET:
	case L_CU_GRAPH_EXEC_MEMCPY_SET: {
		/* CUDA_MEMCPY3D: srcMemoryType@32 srcHost@40 srcDevice@48, dst's at 120, 128,
		 * 136, WidthInBytes@176 Height@184 Depth@192; the pointer the type names */
		__u64 side[3] = {};

		p = (const void *)(layout == L_CU_GRAPH_ADD_MEMCPY   ? e->r[4]
				   : layout == L_CU_GRAPH_MEMCPY_SET ? e->r[1]
								     : e->r[2]);
		bpf_probe_read_user(side, sizeof(side), p + 32);
		e->x[6] = (__u32)side[0];
		e->x[0] = (__u32)side[0] == 1 ? side[1] : side[2];
		bpf_probe_read_user(side, sizeof(side), p + 120);
		e->x[6] |= (__u64)(__u32)side[0] << 32;
		e->x[1] = (__u32)side[0] == 1 ? side[1] : side[2];
		bpf_probe_read_user(&e->x[2], 24, p + 176);
		break;
	}
	}
}

/*
 * Copy @want bytes of user stack from @sp. A read past the top of the stack faults and copies
 * nothing, and faults are slow: the main thread's stack ends a little above mm->start_stack
 * (its arguments and environment), so its copy stops there, where its first frame lies; a
 * thread's stack lies far below, in another mapping. Should the read fault anyway, retry up to
 * each page boundary below, largest first.
 */
static __always_inline __u32 read_stack(__u8 *dst, __u64 sp, __u32 want)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 top = BPF_CORE_READ(task, mm, start_stack);
	__u32 to_page = 4096 - (sp & 4095), n;

	if (sp < top && top - sp < want)
		want = top - sp;
	if (!bpf_probe_read_user(dst, want, (void *)sp))
		return want;
	for (int i = GR_DWARF_MAX / 4096 - 1; i >= 0; i--) {
		n = to_page + i * 4096;
		/* the barrier keeps the bound check where the verifier can see it */
		asm volatile("" : "+r"(n));
		if (n >= want || n > GR_DWARF_MAX)
			continue;
		if (!bpf_probe_read_user(dst, n, (void *)sp))
			return n;
	}
	return 0;
}

/* --call-graph dwarf: the registers unwinding needs and the stack above sp, for user space. */
static __always_inline __u32 copy_stack(struct pt_regs *ctx, struct scratch *sc, bool at_entry)
{
	struct gr_ev_rawstack *r = &sc->raw;
	__u32 want = targ_dwarf_bytes;

	r->regs[GR_REG_IP] = PT_REGS_IP(ctx);
	r->regs[GR_REG_SP] = PT_REGS_SP(ctx);
	r->regs[GR_REG_BP] = PT_REGS_FP(ctx);
	r->regs[GR_REG_BX] = ctx->bx;
	r->regs[GR_REG_R12] = ctx->r12;
	r->regs[GR_REG_R13] = ctx->r13;
	r->regs[GR_REG_R14] = ctx->r14;
	r->regs[GR_REG_R15] = ctx->r15;
	r->flags = at_entry ? GR_RAW_ENTRY : 0;
	/*
	 * A raw stack is ~8 KiB of a ~250 B event: when the consumer falls behind (unwinding is
	 * slow, or it is starved of CPU), leaving the bytes out keeps the ring from overflowing, so
	 * the event itself is kept.
	 */
	if (targ_shed_bytes && bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > targ_shed_bytes) {
		r->flags |= GR_RAW_SHED;
		r->size = 0;
		return sizeof(*r);
	}
	if (want > GR_DWARF_MAX)
		want = GR_DWARF_MAX;
	r->size = read_stack(sc->bytes, r->regs[GR_REG_SP], want);
	return sizeof(*r) + r->size;
}

/* Copy @n frames walked earlier (at most GR_MAX_FRAMES: else nothing, and -1). */
static __always_inline int copy_frames(__u64 *dst, const __u64 *src, __u32 n)
{
	__u64 bytes = (__u64)n * 8;

	/* 64 bits and the barrier keep the bound check on the register the helper gets */
	asm volatile("" : "+r"(bytes));
	if (!bytes)
		return 0;
	if (bytes > GR_MAX_FRAMES * 8)
		return -1;
	return bpf_probe_read_kernel(dst, bytes, src) ? -1 : 0;
}

/*
 * Submit a call event built in @sc with its stack, copied at its exact size: reserving room for
 * the deepest stack in the ring would waste most of it and make the buffer (mapped into the
 * recorder, counted in its RSS) bigger for the same headroom.
 */
static __always_inline int emit_call(struct pt_regs *ctx, struct scratch *sc, __u32 flags,
				     bool at_entry, __u32 nframes, __u64 pid_tgid)
{
	struct gr_ev_call *e = &sc->call;
	__u64 size = sizeof(*e);
	__u32 stack_loss = C_COUNT; /* none */

	/* h.flags holds only the GR_EVF_* call state so far: fill_hdr() cleared it */
	e->h.stack_len = 0;
	if ((flags & GR_CF_STACK) && targ_dwarf_bytes) {
		e->h.flags |= GR_EVF_RAWSTACK;
		size += copy_stack(ctx, sc, at_entry);
		if (sc->raw.flags & GR_RAW_SHED)
			stack_loss = C_STACK_SHED;
		else if (!sc->raw.size)
			stack_loss = C_STACK_LOST;
	} else if ((flags & GR_CF_STACK) && targ_stack_frames) {
		/* walked into sc->frames already (capture_args_and_stack()) */
		__u32 n = nframes;

		if (n > GR_MAX_FRAMES)
			n = GR_MAX_FRAMES;
		e->h.stack_len = n;
		size += (__u64)n * 8;
		if (!n)
			stack_loss = C_STACK_LOST;
	}
	if (size > offsetof(struct scratch, owner))
		size = offsetof(struct scratch, owner);
	if (sc->owner != pid_tgid) {
		count(C_SCRATCH_LOST);
		return 0;
	}
	/* a stack loss is of an event that is kept (FORMAT.md), not of one dropped */
	if (bpf_ringbuf_output(&events, sc, size, wake_flags()))
		count(C_RINGBUF_LOST);
	else if (stack_loss != C_COUNT)
		count(stack_loss);
	return 0;
}

static __always_inline struct scratch *get_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch_map, &zero);
}

/*
 * ncclCommInitRank's ncclUniqueId, passed by value in memory at [sp+8] at entry: its hash (see
 * GR_NCCL_ID_BYTES), 0 when unreadable. Read in two halves through x[], which is free then.
 */
static __always_inline __u64 nccl_id_hash(struct pt_regs *ctx, struct gr_ev_call *e)
{
	__u64 h = GR_FNV_OFFSET;

	for (int half = 0; half < 2; half++) {
		if (bpf_probe_read_user(&e->x[0], sizeof(e->x),
					(void *)PT_REGS_SP(ctx) + 8 + half * sizeof(e->x)))
			return 0;
		for (int i = 0; i < 8; i++)
			h = (h ^ e->x[i]) * GR_FNV_PRIME;
	}
	__builtin_memset(e->x, 0, sizeof(e->x));
	return h;
}

/* Registers and stack arguments at entry (@s1..@s3: [sp+8..]), plus what the layout passes by
 * pointer. */
static __always_inline void fill_args(struct pt_regs *ctx, struct gr_ev_call *e, __u8 layout,
				      __u64 s1, __u64 s2, __u64 s3)
{
	e->r[0] = PT_REGS_PARM1(ctx);
	e->r[1] = PT_REGS_PARM2(ctx);
	e->r[2] = PT_REGS_PARM3(ctx);
	e->r[3] = PT_REGS_PARM4(ctx);
	e->r[4] = PT_REGS_PARM5(ctx);
	e->r[5] = ctx->r9; /* PT_REGS_PARM6 is missing from libbpf 1.1 */
	e->s[0] = s1;
	e->s[1] = s2;
	e->s[2] = s3;
	read_entry_structs(e, layout);
	if (layout == L_NCCL_INIT)
		e->x[GR_X_NCCL_ID] = nccl_id_hash(ctx, e);
	e->ret = 0;
	e->pystack = 0;
}

/*
 * The 32 bytes at the user stack pointer @sp into @top (zeros when unreadable). A subprogram of
 * its own for the stack it reads into: a program whose stack passes 64 bytes (every one here) is
 * given a per-CPU private stack, and a bpf_probe_read_user() into that pays the kernel's
 * hardened-usercopy heap checks, ~45 ns a read on the bench machine, a third of the read. This
 * one's few bytes stay on the task's kernel stack, which those checks pass in a few compares.
 */
static __noinline int read_user_top(__u64 sp, __u64 *top)
{
	__u64 v[4];

	if (bpf_probe_read_user(v, sizeof(v), (void *)sp)) {
		top[0] = top[1] = top[2] = top[3] = 0;
		return -1;
	}
	top[0] = v[0];
	top[1] = v[1];
	top[2] = v[2];
	top[3] = v[3];
	return 0;
}

/* The @size bytes (at most 8) at user address @addr into *@out, zero-extended: 0, or -1 (and
 * *@out 0) when unreadable. A subprogram for read_user_top()'s reason. */
static __noinline int read_user_word(__u64 addr, __u32 size, __u64 *out)
{
	__u64 v = 0;

	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(size));
	if (size > sizeof(v) || bpf_probe_read_user(&v, size, (void *)addr)) {
		*out = 0;
		return -1;
	}
	*out = v;
	return 0;
}

/* The arguments at entry; returns the return address at [sp], read with the stack arguments
 * (0 when unreadable). */
static __always_inline __u64 capture_args(struct pt_regs *ctx, struct gr_ev_call *e, __u8 layout)
{
	__u64 top[4];

	/* at entry [sp] is the return address; stack arguments start at sp+8 */
	read_user_top(PT_REGS_SP(ctx), top);
	fill_args(ctx, e, layout, top[1], top[2], top[3]);
	return top[0];
}

/*
 * Up to GR_STACK_WINDOW bytes of user memory at @addr into @win: the bytes read, 0 when
 * unreadable. A read that runs past the end of the stack's mapping faults whole: then only up
 * to the end of @addr's page.
 */
static __always_inline __u32 load_window(__u8 *win, __u64 addr)
{
	__u64 n;

	if (!bpf_probe_read_user(win, GR_STACK_WINDOW, (void *)addr))
		return GR_STACK_WINDOW;
	n = 4096 - (addr & 4095);
	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(n));
	if (n >= GR_STACK_WINDOW || bpf_probe_read_user(win, n, (void *)addr))
		return 0;
	return n;
}

/*
 * Return addresses that pending uretprobes replaced. A function with a return probe (a CUDA
 * call the recorder times) returns through the uprobes trampoline, whose address stands in its
 * return slot until it returns: a walk through that frame (a thread blocked inside
 * cudaStreamSynchronize, a probe inside a call another probe times) would take the trampoline
 * for the caller and end there. Its pending return instances, innermost first, hold the real
 * ones in the order the walk meets the trampoline, as the kernel's own callchains take them.
 */
struct uret_fixup {
	__u64 tramp; /* the trampoline's address; 0: no return pending */
	__u64 ri;    /* the next pending struct return_instance (a kernel address), 0: none */
};

/*
 * Every stack walk starts here: the two loads are direct (BTF pointers, faults caught), where
 * BPF_CORE_READ() costs a helper call each (60 ns a walk on the bench machine). The rest is read
 * only when a return is pending, which is rare.
 */
static __always_inline void uret_init(struct uret_fixup *u)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct uprobe_task *ut = t->utask;

	u->tramp = 0;
	u->ri = ut ? (__u64)ut->return_instances : 0;
	if (u->ri)
		u->tramp = BPF_CORE_READ(t, mm, uprobes_state.xol_area, vaddr);
}

/* @ret, or the return address a pending uretprobe's trampoline stands for. */
static __always_inline __u64 uret_fix(struct uret_fixup *u, __u64 ret)
{
	struct return_instance *ri = (struct return_instance *)u->ri;

	if (!ri || ret != u->tramp)
		return ret;
	ret = BPF_CORE_READ(ri, orig_ret_vaddr);
	u->ri = (__u64)BPF_CORE_READ(ri, next);
	return ret;
}

/* The state of walk_window(), through bpf_loop(): one step per frame. */
struct window_walk {
	__u64 *frames;
	__u8 *win;
	__u64 fp, wbase;
	__u32 wlen, n;
	struct uret_fixup uret;
};

/*
 * Frame @i + 1 of a walk_window(). A bpf_loop() callback rather than an unrolled loop: the
 * verifier checks it once, where a loop whose every step may read a window explodes its paths.
 */
static long window_step(__u64 i, void *ctx)
{
	struct window_walk *w = ctx;
	__u64 fp = w->fp, off, saved_fp, ret, idx = i + 1;

	if (idx >= GR_MAX_FRAMES || idx >= targ_stack_frames || !fp || (fp & 7))
		return 1;
	off = fp - w->wbase;
	if (fp < w->wbase || off + 16 > w->wlen) {
		w->wlen = load_window(w->win, fp);
		w->wbase = fp;
		off = 0;
	}
	asm volatile("" : "+r"(off));
	if (off + 16 > w->wlen || off > GR_STACK_WINDOW - 16)
		return 1;
	/* the caller's saved rbp, then the return address */
	saved_fp = *(__u64 *)(w->win + off);
	ret = uret_fix(&w->uret, *(__u64 *)(w->win + off + 8));
	if (ret < 4096)
		return 1;
	w->frames[idx] = ret;
	w->n = idx + 1;
	/* frames grow towards higher addresses; anything else is not a frame chain */
	if (saved_fp <= fp)
		return 1;
	w->fp = saved_fp;
	return 0;
}

/* The state of a walk by unwind tables (cfi_step()), through bpf_loop(): one step per frame. */
struct cfi_walk {
	__u64 *frames;
	__u8 *win;
	const struct gr_cfi_proc *proc;
	struct cfi_cache *cache; /* NULL: none (no thread state) */
	__u64 pc, sp, fp, wbase; /* the frame's return address; its caller's sp and rbp */
	__u32 wlen, n;
	__u32 map; /* the mapping of the last frame found (cfi_find()) */
	/* 1 while the frame is frames[0] of a thread stopped at an instruction (a switch, a
	 * wakeup), not at a return address: its own rule applies, not its predecessor's */
	__u32 exact;
	struct uret_fixup uret;
};

/* The u64 of user memory at @addr, through @w's window: a new window when outside it. */
static __always_inline int cfi_read(struct cfi_walk *w, __u64 addr, __u64 *v)
{
	__u64 off = addr - w->wbase;

	if (addr < w->wbase || off + 8 > w->wlen) {
		w->wlen = load_window(w->win, addr);
		w->wbase = addr;
		off = 0;
	}
	asm volatile("" : "+r"(off));
	if (off + 8 > w->wlen || off > GR_STACK_WINDOW - 8)
		return -1;
	*v = *(__u64 *)(w->win + off);
	return 0;
}

/* A search of a table's rows for the last one at or below vpc (cfi_row_step()). */
struct cfi_row_search {
	__u64 vpc;
	__u32 first; /* the table's first row in cfi_rows */
	__u32 lo, hi, zero;
};

/*
 * One step of the search, through bpf_loop(): the verifier checks a step once for every way in,
 * not once per step of an unrolled loop in each of the programs that walk (api_entry,
 * launch_session, on_switch, on_waking). Unrolled, the 23 steps were a third of the
 * instructions it processed, and the load's time with them.
 */
static long cfi_row_step(__u64 i, void *ctx)
{
	struct cfi_row_search *s = ctx;
	const struct gr_cfi_row *c;
	__u32 mid, key;

	if (s->lo + 1 >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	key = s->first + mid;
	c = bpf_map_lookup_elem(&cfi_rows, &key);
	if (!c) {
		s->hi = 0; /* no row: the search fails */
		return 1;
	}
	if (c->pc <= s->vpc)
		s->lo = mid;
	else
		s->hi = mid;
	/* zero is 0 (the recorder writes it so), unknown to the verifier: one state, not two */
	s->lo ^= s->zero;
	s->hi ^= s->zero;
	return 0;
}

/* A search of a process's mappings for the last one that starts at or below pc. */
struct cfi_map_search {
	const struct gr_cfi_proc *proc;
	__u64 pc;
	__u32 lo, hi, zero;
};

/* One step of it, through bpf_loop() as cfi_row_step(). */
static long cfi_map_step(__u64 i, void *ctx)
{
	struct cfi_map_search *s = ctx;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	if (mid >= GR_CFI_MAPS) {
		s->lo = 0; /* fails the search */
		return 1;
	}
	if (s->proc->maps[mid].start <= s->pc)
		s->lo = mid + 1;
	else
		s->hi = mid;
	s->lo ^= s->zero;
	s->hi ^= s->zero;
	return 0;
}

/* The row for address @pc in @w's process; NULL where no table covers it. */
static __always_inline const struct gr_cfi_row *cfi_find(struct cfi_walk *w, __u64 pc)
{
	const struct gr_cfi_proc *proc = w->proc;
	const struct gr_cfi_map *m;
	const __u64 *b;
	/*
	 * zero is 0 (the recorder writes it so) but the verifier cannot know it: xor'ed into lo
	 * and hi after each step of a search, it leaves them any value to the verifier, so both
	 * sides of the step are one state to it, which otherwise walks 2^steps paths (and does so
	 * again for every path into the next search: seconds of loading).
	 */
	__u32 lo = 0, hi = proc->n, key, zero = proc->zero;
	struct cfi_row_search rs;
	__u64 vpc, k;

	m = &proc->maps[w->map & (GR_CFI_MAPS - 1)];
	/* mostly in the mapping of the frame before: no search then */
	if (pc < m->start || pc >= m->end) {
		struct cfi_map_search ms = {.proc = proc,
					    .pc = pc,
					    .hi = hi > GR_CFI_MAPS ? GR_CFI_MAPS : hi,
					    .zero = zero};

		/* the last mapping that starts at or below pc: log2(GR_CFI_MAPS) + 1 steps */
		bpf_loop(9, cfi_map_step, &ms, 0);
		lo = ms.lo;
		if (!lo)
			return NULL;
		w->map = (lo - 1) & (GR_CFI_MAPS - 1);
		m = &proc->maps[w->map];
		if (pc < m->start || pc >= m->end)
			return NULL;
	}
	vpc = pc - m->bias;
	if (vpc < m->base || vpc > 0xffffffffULL || !m->nbuckets)
		return NULL;
	/* the rows between the one in effect at vpc's bucket and the next bucket's */
	k = (vpc - m->base) >> (m->shift & 31);
	if (k >= m->nbuckets)
		k = m->nbuckets - 1;
	key = m->bucket + k;
	b = bpf_map_lookup_elem(&cfi_buckets, &key);
	if (!b)
		return NULL;
	rs.vpc = vpc;
	rs.first = m->first;
	rs.lo = (__u32)*b;
	rs.hi = (__u32)(*b >> 32) + 1;
	rs.zero = zero;
	/* the last row at or below vpc, found in lo: at most log2(GR_CFI_MAX_ROWS) + 1 steps */
	bpf_loop(23, cfi_row_step, &rs, 0);
	if (!rs.hi)
		return NULL;
	key = m->first + rs.lo;
	return bpf_map_lookup_elem(&cfi_rows, &key);
}

/*
 * Frame @i + 1 of a walk by unwind tables: the rule for the call site (pc - 1: a return address
 * points past its call) gives the caller's frame (CFA), its return address at CFA - 8 and
 * where its rbp was saved. Where no table covers pc (a binary mapped too late, one without
 * .eh_frame, a PLT stub), a frame-pointer step, as walk_window() takes.
 */
static long cfi_step(__u64 i, void *ctx)
{
	struct cfi_walk *w = ctx;
	struct cfi_cache *cache = w->cache;
	__u64 idx = i + 1, cfa, ret, fp = w->fp, key, slot = i & (GR_MAX_FRAMES - 1), at;
	struct gr_cfi_row row = {};
	const struct gr_cfi_row *r;
	__u8 kind;
	__s64 rbp_off;

	if (idx >= GR_MAX_FRAMES || idx >= targ_stack_frames)
		return 1;
	/*
	 * A return address points past its call: the call's rule is the byte before's. A thread
	 * stopped by an interrupt is at the instruction it will run next, whose own rule holds: the
	 * byte before may be a push not yet undone, or another function.
	 */
	at = w->pc - 1 + w->exact; /* no branch: one path through the search for the verifier */
	w->exact = 0;
	key = at | ((__u64)w->proc->gen << 48);
	if (cache && cache->key[slot] == key) {
		row = cache->row[slot];
	} else {
		r = cfi_find(w, at);
		if (r)
			row = *r;
		if (cache) {
			cache->key[slot] = key;
			cache->row[slot] = row;
		}
	}
	kind = row.kind;
	rbp_off = row.rbp_off * 8;
	switch (kind & GR_CFI_CFA_MASK) {
	case GR_CFI_END:
		return 1;
	case GR_CFI_CFA_RSP:
		cfa = w->sp + row.cfa_off;
		break;
	case GR_CFI_CFA_RBP:
		cfa = w->fp + row.cfa_off;
		break;
	default:
		/* rbp's frame record: the saved rbp, then the return address */
		if (!fp || (fp & 7) || fp < w->sp)
			return 1;
		cfa = fp + 16;
		kind = GR_CFI_RBP_SAVED;
		rbp_off = -16;
		break;
	}
	/* the caller's frame lies above this one; else no frame chain */
	if (cfa <= w->sp)
		return 1;
	if ((kind & GR_CFI_RBP_SAVED) && cfi_read(w, cfa + rbp_off, &fp))
		return 1;
	if (cfi_read(w, cfa - 8, &ret))
		return 1;
	ret = uret_fix(&w->uret, ret);
	if (ret < 4096)
		return 1;
	w->frames[idx] = ret;
	w->n = idx + 1;
	w->pc = ret;
	w->sp = cfa;
	w->fp = fp;
	return 0;
}

/*
 * The user stack from @pc with the caller's @sp and @fp (rbp), by unwind tables where the
 * process has them, else by frame pointers; walked here rather than with bpf_get_stack(): the
 * perf callchain machinery costs ~4x more per event. At a uprobe (walk_window()) @pc is the
 * return address at [sp] and rbp still the caller's frame; at a switch or wakeup
 * (blocked_stack()) the thread's user registers where it entered the kernel: @exact, @pc is
 * the instruction it stopped at, not a return address (cfi_step()). Frames are
 * return addresses, innermost first (frames[0] is @pc itself). The frames are read through
 * @win, which holds @wlen bytes from @wbase: a new window is read only when a frame lies
 * outside it, so a deep stack costs a read per window, not one per frame.
 */
static __always_inline __u32 walk_from(__u64 *frames, __u8 *win, __u64 wbase, __u32 wlen, __u64 pc,
				       __u64 sp, __u64 fp, int exact, struct cfi_cache *cache)
{
	struct window_walk w = {
	    .frames = frames, .win = win, .fp = fp, .wbase = wbase, .wlen = wlen, .n = 1};

	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	const struct gr_cfi_proc *proc;

	frames[0] = pc;
	if (!pc)
		return 0;
	uret_init(&w.uret);
	proc = targ_cfi ? bpf_map_lookup_elem(&cfi_procs, &tgid) : NULL;
	if (proc) {
		struct cfi_walk c = {.frames = frames,
				     .win = win,
				     .proc = proc,
				     .cache = cache,
				     .pc = pc,
				     .sp = sp,
				     .fp = fp,
				     .wbase = wbase,
				     .wlen = wlen,
				     .n = 1,
				     .exact = !!exact,
				     .uret = w.uret};

		bpf_loop(GR_MAX_FRAMES - 1, cfi_step, &c, 0);
		return c.n;
	}
	bpf_loop(GR_MAX_FRAMES - 1, window_step, &w, 0);
	return w.n;
}

/*
 * walk_from() at a function's entry (a uprobe): @entry_ret is the return address at [sp], and
 * the caller's sp is just above it.
 */
static __always_inline __u32 walk_window(struct pt_regs *ctx, __u64 *frames, __u8 *win, __u64 wbase,
					 __u32 wlen, __u64 entry_ret, struct cfi_cache *cache)
{
	return walk_from(frames, win, wbase, wlen, entry_ret, PT_REGS_SP(ctx) + 8, PT_REGS_FP(ctx),
			 0, cache);
}

/* fill_args() and the walk, from one read of the stack at sp: the return address (into
 * *@at_sp unless NULL, 0 when unreadable), the stack arguments and, mostly, the first frames of
 * the chain. Returns the frames walked. Inlined, a NULL @at_sp costs nothing. */
static __always_inline __u32 capture_args_and_stack(struct pt_regs *ctx, struct gr_ev_call *e,
						    __u8 layout, __u8 *win, __u64 *frames,
						    struct cfi_cache *cache, __u64 *at_sp)
{
	__u64 sp = PT_REGS_SP(ctx), top[4] = {};
	__u32 wlen = load_window(win, sp);

	if (wlen >= sizeof(top))
		__builtin_memcpy(top, win, sizeof(top));
	fill_args(ctx, e, layout, top[1], top[2], top[3]);
	if (at_sp)
		*at_sp = top[0];
	return walk_window(ctx, frames, win, sp, wlen, top[0], cache);
}

/* ---- Python frames (bpf/gpurec.h: struct gr_py_proc, struct gr_ev_pystack) ---- */

/* The frame owner from which a 3.12+ frame is a shim the evaluation loop puts on the C stack
 * where C called it (FRAME_OWNED_BY_CSTACK; 3.14's FRAME_OWNED_BY_INTERPRETER too) */
#define PY_OWNED_BY_CSTACK 3
/* 3.14's f_executable is a _PyStackRef: its low bits are tags */
#define PY_STACKREF_TAGS 7ULL

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v;

	read_user_word(addr, sizeof(v), &v);
	return v;
}

/* The state of py_find_thread(), through bpf_loop(): one step per PyThreadState. */
struct py_search {
	const struct gr_py_proc *p;
	__u64 tstate, found;
	__u64 id; /* py_thread_id() */
};

/*
 * What names the calling thread in its PyThreadState: its kernel tid (native_thread_id, 3.11+),
 * or on 3.10, which has none, its pthread_self() (thread_id): the thread pointer, which on
 * x86-64 is the fs base the kernel keeps for the task.
 */
static __always_inline __u64 py_thread_id(const struct gr_py_proc *p, __u32 tid)
{
	if (p->tstate_pthread_id)
		return BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase);
	return tid;
}

/* Whether @tstate is the thread named @id (py_thread_id()). */
static __always_inline bool py_is_thread(const struct gr_py_proc *p, __u64 tstate, __u64 id)
{
	__u64 v;

	if (p->tstate_pthread_id)
		return !read_user_word(tstate + p->tstate_pthread_id, sizeof(v), &v) && v == id;
	return !read_user_word(tstate + p->tstate_native_tid, sizeof(__u32), &v) && v == id;
}

static long py_search_step(__u64 i, void *ctx)
{
	struct py_search *s = ctx;

	if (!s->tstate)
		return 1;
	if (py_is_thread(s->p, s->tstate, s->id)) {
		s->found = s->tstate;
		return 1;
	}
	s->tstate = read_u64(s->tstate + s->p->tstate_next);
	return 0;
}

/*
 * The calling thread's PyThreadState, named by @id, searched for in the main interpreter's list
 * of them, and cached in @ts. 0 when the thread has none (a thread of C code): not searched for
 * again for GR_PY_MISS_NS.
 */
static __always_inline __u64 py_find_thread(struct py_state *ts, const struct gr_py_proc *p,
					    __u64 id)
{
	struct py_search s = {.p = p, .id = id};
	__u64 now = bpf_ktime_get_ns();

	if (ts->py_miss && now - ts->py_miss < GR_PY_MISS_NS)
		return 0;
	s.tstate = read_u64(read_u64(p->runtime + p->interp_head) + p->threads_head);
	bpf_loop(256, py_search_step, &s, 0);
	ts->py_tstate = s.found;
	ts->py_miss = s.found ? 0 : now;
	return s.found;
}

static __always_inline __u64 tbuf_u64(const __u8 *buf, __u64 off)
{
	/* the barrier keeps the bound check on the register that is used */
	asm volatile("" : "+r"(off));
	if (off > PY_TSTATE_SPAN - 8)
		return 0;
	return *(const __u64 *)(buf + off);
}

/*
 * The frame @tstate runs, when it is the thread named @id: its thread id and its current frame
 * in one read (a read of user memory costs more than the bytes it copies). 0 with *@frame left
 * 0 when it is the thread but runs no Python; -1 when it is not the thread, or unreadable.
 */
static __always_inline int py_thread_frame(struct py_state *ts, const struct gr_py_proc *p,
					   __u64 tstate, __u64 id, __u64 *frame)
{
	__u32 id_off = p->tstate_pthread_id ?: p->tstate_native_tid, lo = id_off, hi = id_off;
	__u64 len, v;

	if (p->tstate_frame < lo)
		lo = p->tstate_frame;
	if (p->tstate_frame > hi)
		hi = p->tstate_frame;
	len = hi + 8 - lo;
	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(len));
	if (len > PY_TSTATE_SPAN || bpf_probe_read_user(ts->py_tbuf, len, (void *)(tstate + lo)))
		return -1;
	v = tbuf_u64(ts->py_tbuf, id_off - lo);
	if (!p->tstate_pthread_id)
		v = (__u32)v;
	if (v != id)
		return -1;
	*frame = tbuf_u64(ts->py_tbuf, p->tstate_frame - lo);
	return 0;
}

/*
 * What py_step() is given: the walk's state lives in the thread's map value, not on the stack,
 * so that the verifier knows none of it and checks the step once (a count it knew would make it
 * check the step for each value).
 */
struct py_walk {
	const struct gr_py_proc *p;
	struct py_state *ts;
	struct py_keep *k; /* NULL: the walk keeps nothing (py_step() only) */
};

static __always_inline __u64 win_u64(const __u8 *win, __u64 off)
{
	/* the barrier keeps the bound check on the register that is used */
	asm volatile("" : "+r"(off));
	if (off > GR_PY_WINDOW - 8)
		return 0;
	return *(const __u64 *)(win + off);
}

/*
 * Make @ts's Python window hold @frame's bytes. Older frames lie below a frame in the data stack
 * (it grows up), so the window ends with this frame. When that read crosses into memory not
 * mapped or not yet touched (below the first frames of a thread: its data stack is a mapping
 * of its own), the window starts at the frame's page instead, which the frame's bytes show
 * mapped. A read copies what the thread's last walk spanned (py_want), plus some: copying
 * costs by the byte. Returns 0, or -1 when unreadable.
 */
static __always_inline int py_load(struct py_state *ts, __u64 frame)
{
	__u64 end = frame + ts->py_extent, n = ts->py_want, base;

	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(n));
	if (n < PY_WINDOW_SLACK || n > GR_PY_WINDOW)
		n = GR_PY_WINDOW;
	base = end - n;
	if (end > n && !bpf_probe_read_user(ts->py_window, n, (void *)base)) {
		ts->py_wbase = base;
		ts->py_wlen = n;
		return 0;
	}
	base = frame & ~4095ULL;
	n = end - base;
	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(n));
	if (n > GR_PY_WINDOW || bpf_probe_read_user(ts->py_window, n, (void *)base))
		return -1;
	ts->py_wbase = base;
	ts->py_wlen = n;
	return 0;
}

static __always_inline __u64 py_mix(__u64 h, const struct gr_py_frame *f)
{
	h = (h ^ f->code) * 0x100000001b3ULL;
	h = (h ^ f->lasti) * 0x100000001b3ULL;
	return (h ^ f->flags) * 0x100000001b3ULL;
}

/*
 * One frame of a py_capture() walk, innermost first: kept as {code, lasti, flags} unless it is
 * a shim (3.12+) or has no code. The hash takes a frame in when the next is kept, as a shim
 * after it may still flag it GR_PYF_ENTRY.
 */
static long py_step(__u64 i, void *ctx)
{
	struct py_walk *w = ctx;
	const struct gr_py_proc *p = w->p;
	struct py_state *ts = w->ts;
	struct gr_ev_pystack *out = &ts->py;
	__u64 f = ts->py_frame, off, code, instr, prev;
	__u32 chain = p->chain, n = out->nframes, flags = 0, lasti;
	__u8 owner = 0;

	if (!f)
		return 1;
	if (n >= GR_PY_MAX_FRAMES) {
		out->flags |= GR_PYS_TRUNCATED;
		return 1;
	}
	off = f - ts->py_wbase;
	if (f < ts->py_wbase || off + ts->py_extent > ts->py_wlen) {
		if (py_load(ts, f)) {
			out->flags |= GR_PYS_TRUNCATED;
			return 1;
		}
		off = f - ts->py_wbase;
	}
	if (f < ts->py_low)
		ts->py_low = f;
	prev = win_u64(ts->py_window, off + p->frame_previous);
	code = win_u64(ts->py_window, off + p->frame_code);
	instr = win_u64(ts->py_window, off + p->frame_instr);
	if (p->frame_owner)
		owner = win_u64(ts->py_window, off + p->frame_owner);
	ts->py_frame = prev;
	if (chain >= GR_PY_CHAIN_312 && owner >= PY_OWNED_BY_CSTACK) {
		/* the C entry shim: the frame inner to it is where the evaluation loop began */
		if (n)
			out->frames[(n - 1) & (GR_PY_MAX_FRAMES - 1)].flags |= GR_PYF_ENTRY;
		return 0;
	}
	if (chain == GR_PY_CHAIN_314)
		code &= ~PY_STACKREF_TAGS;
	if (!code)
		return 0;
	if (chain == GR_PY_CHAIN_310) {
		lasti = (__u32)instr; /* f_lasti, an int, in code units already */
		flags = GR_PYF_ENTRY;
	} else {
		/* unsigned: the instruction before the first gives -1 (0xffffffff) as 3.10 does */
		lasti = (__u32)((instr - (code + p->code_adaptive)) >> 1);
		if (chain == GR_PY_CHAIN_311 && owner)
			flags = GR_PYF_ENTRY;
	}
	if (n)
		ts->py_hash = py_mix(ts->py_hash, &out->frames[(n - 1) & (GR_PY_MAX_FRAMES - 1)]);
	out->frames[n & (GR_PY_MAX_FRAMES - 1)] = (struct gr_py_frame){code, lasti, flags};
	out->nframes = n + 1;
	return 0;
}

/* What one entry of a frame chain is (py_derive()) */
#define PY_FRAME  0
#define PY_SHIM	  1 /* a 3.12+ shim: flags the next frame inner to it GR_PYF_ENTRY */
#define PY_NOCODE 2 /* no code: not a frame of the stack */

/*
 * The bytes of the entry at @f a walk reads, from @ts's window; loaded there first when @load
 * and they are not in it. Returns 0, or -1 when not in the window or unreadable.
 */
static __always_inline int py_read(const struct gr_py_proc *p, struct py_state *ts, __u64 f,
				   struct py_entry *e, bool load)
{
	__u64 off = f - ts->py_wbase;

	if (f < ts->py_wbase || off + ts->py_extent > ts->py_wlen) {
		if (!load || py_load(ts, f))
			return -1;
		off = f - ts->py_wbase;
	}
	e->addr = f;
	e->prev = win_u64(ts->py_window, off + p->frame_previous);
	e->code = win_u64(ts->py_window, off + p->frame_code);
	if (p->chain == GR_PY_CHAIN_314)
		e->code &= ~PY_STACKREF_TAGS;
	e->instr = win_u64(ts->py_window, off + p->frame_instr);
	e->owner = p->frame_owner ? (__u8)win_u64(ts->py_window, off + p->frame_owner) : 0;
	return 0;
}

/* What @e is, and as PY_FRAME its {code, lasti, flags} in @fr, as py_step() makes them. */
static __always_inline __u8 py_derive(const struct gr_py_proc *p, const struct py_entry *e,
				      struct gr_py_frame *fr)
{
	__u32 chain = p->chain, flags = 0, lasti;

	if (chain >= GR_PY_CHAIN_312 && e->owner >= PY_OWNED_BY_CSTACK)
		return PY_SHIM;
	if (!e->code)
		return PY_NOCODE;
	if (chain == GR_PY_CHAIN_310) {
		lasti = (__u32)e->instr;
		flags = GR_PYF_ENTRY;
	} else {
		lasti = (__u32)((e->instr - (e->code + p->code_adaptive)) >> 1);
		if (chain == GR_PY_CHAIN_311 && e->owner)
			flags = GR_PYF_ENTRY;
	}
	*fr = (struct gr_py_frame){e->code, lasti, flags};
	return PY_FRAME;
}

/*
 * How many entries of the last walk, outermost first, read the same bytes now, up to the first
 * that does not (ts->py_match). Nothing in an entry that reads the same bytes proves it the frame
 * the last walk saw (it may have returned and a call from the same line put a frame with the
 * same code at the same address); the stack is the same either way, and so is the rest of the
 * chain from it outward, all of whose entries read the same: the walk may take them as they are
 * when it meets one (py_scan()). Every launch checks every kept entry, so this is a loop of its
 * own rather than bpf_loop() steps: the offsets stay in registers, bounded once.
 */
static __always_inline void py_check(const struct gr_py_proc *p, struct py_state *ts,
				     struct py_keep *pk)
{
	__u64 prev_o = p->frame_previous, code_o = p->frame_code, instr_o = p->frame_instr;
	__u64 owner_o = p->frame_owner, wbase = ts->py_wbase, wlen = ts->py_wlen;
	__u64 extent = ts->py_extent, low = ts->py_low, tags = 0, off, v;
	__u32 kn = pk->kn, i;
	struct py_kept *k;

	if (p->chain == GR_PY_CHAIN_314)
		tags = PY_STACKREF_TAGS;
	if (prev_o > PY_FIELD_MAX - 8 || code_o > PY_FIELD_MAX - 8 || instr_o > PY_FIELD_MAX - 8 ||
	    owner_o > PY_FIELD_MAX - 8 || wlen > GR_PY_WINDOW)
		return;
#pragma clang loop unroll(disable)
	for (i = 0; i < PY_KEEP; i++) {
		if (i >= kn)
			break;
		k = &pk->kept[i];
		off = k->e.addr - wbase;
		if (k->e.addr < wbase || off + extent > wlen)
			break;
		/* the barrier keeps the bound check on the register that is used */
		asm volatile("" : "+r"(off));
		if (off > GR_PY_WINDOW)
			break;
		if (*(__u64 *)(ts->py_window + off + prev_o) != k->e.prev ||
		    (*(__u64 *)(ts->py_window + off + code_o) & ~tags) != k->e.code ||
		    *(__u64 *)(ts->py_window + off + instr_o) != k->e.instr)
			break;
		v = owner_o ? ts->py_window[off + owner_o] : 0;
		if (v != k->e.owner)
			break;
		if (k->e.addr < low)
			low = k->e.addr;
	}
	ts->py_match = i;
	ts->py_low = low;
}

/*
 * One entry of the walk, innermost first, read into fresh[] until the chain ends or meets the
 * innermost entry of the last walk that reads the same (py_check()): the rest is kept[] up
 * to it.
 */
static long py_scan(__u64 i, void *ctx)
{
	struct py_walk *w = ctx;
	struct py_state *ts = w->ts;
	struct py_keep *pk = w->k;
	__u64 f = ts->py_frame;
	__u32 m = ts->py_match, n = ts->py_nnew;
	struct py_entry *e;

	if (!f || !pk)
		return 1;
	if (m && f == pk->kept[(m - 1) & (PY_KEEP - 1)].e.addr) {
		ts->py_join = 1;
		return 1;
	}
	if (n >= PY_KEEP) {
		ts->py_over = 1;
		return 1;
	}
	e = &pk->fresh[n & (PY_KEEP - 1)];
	if (py_read(w->p, ts, f, e, true)) {
		ts->py_over = 1;
		return 1;
	}
	if (f < ts->py_low)
		ts->py_low = f;
	ts->py_frame = e->prev;
	ts->py_nnew = n + 1;
	return 0;
}

/*
 * New entry @i of the walk, outermost first, kept after those kept[] keeps of the last: its
 * frame hashed onto theirs, so that the entries outer to it keep their hash while they hold.
 */
static long py_keep_step(__u64 i, void *ctx)
{
	struct py_walk *w = ctx;
	struct py_state *ts = w->ts;
	struct py_keep *pk = w->k;
	__u64 hash = ts->py_hash;
	__u32 n = ts->py_nnew, d, nf = 0;
	struct py_kept *k, *o;
	__u8 pend = 0;

	if (!pk)
		return 1;
	d = pk->kn;
	if (i >= n || d >= PY_KEEP)
		return 1;
	if (d) {
		o = &pk->kept[(d - 1) & (PY_KEEP - 1)];
		hash = o->hash;
		nf = o->nframes;
		pend = o->pend;
	}
	k = &pk->kept[d & (PY_KEEP - 1)];
	k->e = pk->fresh[(n - 1 - i) & (PY_KEEP - 1)];
	k->kind = py_derive(w->p, &k->e, &k->fr);
	if (k->kind == PY_SHIM) {
		pend = 1;
	} else if (k->kind == PY_FRAME) {
		if (pend)
			k->fr.flags |= GR_PYF_ENTRY;
		pend = 0;
		hash = py_mix(hash, &k->fr);
		nf++;
	}
	k->hash = hash;
	k->nframes = nf;
	k->pend = pend;
	pk->kn = d + 1;
	return 0;
}

/* Kept entry @i's frame into ts->py.frames[], innermost first (ts->py.nframes in all). */
static long py_emit_step(__u64 i, void *ctx)
{
	struct py_walk *w = ctx;
	struct py_state *ts = w->ts;
	struct py_keep *pk = w->k;
	struct py_kept *k;

	if (!pk || i >= pk->kn || i >= PY_KEEP)
		return 1;
	k = &pk->kept[i & (PY_KEEP - 1)];
	if (k->kind == PY_FRAME)
		ts->py.frames[(ts->py.nframes - k->nframes) & (GR_PY_MAX_FRAMES - 1)] = k->fr;
	return 0;
}

/*
 * The walk of py_capture(), into w->k's kept[] (its hash in *@hash, its frames counted in
 * *@n), reading only the entries inner to the innermost one of the last walk that reads the same
 * bytes: a stack changes where it is deepest, and the bytes that name its outer frames (their
 * code, instruction, previous frame, owner) are compared in the window already read, not walked
 * again nor hashed again. Returns 0, or -1 when the chain has more than PY_KEEP entries or one
 * is not readable, or the thread has no struct py_keep: then py_step() walks it.
 */
static __always_inline int py_walk_kept(struct py_walk *w, __u64 frame, __u64 *hash, __u32 *n)
{
	const struct gr_py_proc *p = w->p;
	struct py_state *ts = w->ts;
	struct py_keep *pk = w->k;
	struct py_kept *k;
	__u32 kn;

	if (!pk)
		return -1;
	if (pk->kseed != p->seed)
		pk->kn = 0;
	ts->py_match = 0;
	ts->py_nnew = 0;
	ts->py_join = 0;
	ts->py_over = 0;
	if (py_load(ts, frame))
		return -1;
	if (pk->kn)
		py_check(p, ts, pk);
	ts->py_frame = frame;
	/*
	 * A stack that reads the same as the last walk's, its innermost entry at @frame: py_scan()
	 * would join at its first step. Checked here, as a loop costs even when it ends at once.
	 */
	kn = pk->kn;
	if (kn && kn <= PY_KEEP && ts->py_match == kn &&
	    pk->kept[(kn - 1) & (PY_KEEP - 1)].e.addr == frame)
		ts->py_join = 1;
	else
		bpf_loop(PY_KEEP + 1, py_scan, w, 0);
	kn = ts->py_join ? ts->py_match : 0;
	if (ts->py_over || kn + ts->py_nnew > PY_KEEP) {
		pk->kn = 0;
		return -1;
	}
	pk->kn = kn;
	pk->kseed = p->seed;
	if (ts->py_nnew)
		bpf_loop(PY_KEEP, py_keep_step, w, 0);
	kn = pk->kn;
	if (!kn || kn > PY_KEEP)
		return -1;
	k = &pk->kept[(kn - 1) & (PY_KEEP - 1)];
	*hash = k->hash;
	*n = k->nframes;
	return 0;
}

/*
 * The calling thread's Python stack, when its process runs a CPython the recorder described in
 * py_procs: walked into ts->py, named by a hash of its frames, sent as an EV_PYSTACK unless this
 * process sent it before. Returns the id for the call event's pystack, 0 for none (not Python,
 * no frame). The EV_PYSTACK goes to the ring at once, the call event later (in its batch, or
 * after this returns): the recorder always sees the stack first. @hold: stop the process until
 * the recorder has resolved a new stack (a CUDA call's); the scheduler's walks do not (see
 * blocked_stack()).
 */
static __always_inline __u64 py_capture(struct py_state *ts, __u64 pid_tgid, bool hold)
{
	__u32 tgid = pid_tgid >> 32, tid = (__u32)pid_tgid, n = 0, extent;
	struct py_sent_key key = {.tgid = tgid};
	const struct gr_py_proc *p;
	struct gr_ev_pystack *out;
	struct py_walk w;
	__u64 tstate, frame = 0, size, hash = 0, id;
	bool kept;
	__u8 one = 1;

	if (!targ_python)
		return 0;
	p = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!p)
		return 0;
	id = py_thread_id(p, tid);
	/* the cached thread state, unless its thread ended and its memory is another's now */
	tstate = ts->py_tstate;
	if (!tstate || py_thread_frame(ts, p, tstate, id, &frame)) {
		ts->py_tstate = 0;
		tstate = py_find_thread(ts, p, id);
		if (!tstate || py_thread_frame(ts, p, tstate, id, &frame))
			return 0;
	}
	if (p->chain == GR_PY_CHAIN_311 || p->chain == GR_PY_CHAIN_312)
		frame = frame ? read_u64(frame + p->cframe_current) : 0;
	if (!frame)
		return 0;
	extent = p->frame_previous;
	if (p->frame_code > extent)
		extent = p->frame_code;
	if (p->frame_instr > extent)
		extent = p->frame_instr;
	if (p->frame_owner > extent)
		extent = p->frame_owner;
	ts->py_extent = extent + 8;
	ts->py_wbase = 0;
	ts->py_wlen = 0;
	ts->py_hash = 0xcbf29ce484222325ULL ^ p->seed;
	ts->py.flags = 0;
	ts->py_low = frame;
	w.p = p;
	w.ts = ts;
	/* made here, for a thread with Python frames: see struct py_keep */
	if (hold)
		w.k = bpf_task_storage_get(&py_keeps, bpf_get_current_task_btf(), NULL,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);
	else
		w.k = bpf_task_storage_get(&py_blk_keeps, bpf_get_current_task_btf(), NULL,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);
	kept = !py_walk_kept(&w, frame, &hash, &n);
	if (!kept) {
		ts->py_frame = frame;
		ts->py.nframes = 0;
		ts->py_low = frame;
		/* 3.12+ shims take a step each, at most one per frame */
		bpf_loop(2 * GR_PY_MAX_FRAMES + 1, py_step, &w, 0);
		n = ts->py.nframes;
		if (n && n <= GR_PY_MAX_FRAMES)
			hash =
			    py_mix(ts->py_hash, &ts->py.frames[(n - 1) & (GR_PY_MAX_FRAMES - 1)]);
	}
	/* the next walk's first read: this one's frames, if the stack stays as deep */
	size = frame + ts->py_extent - ts->py_low + PY_WINDOW_SLACK;
	ts->py_want = size < GR_PY_WINDOW ? size : GR_PY_WINDOW;
	if (!n || n > GR_PY_MAX_FRAMES)
		return 0;
	hash = ((hash ^ n ^ ((__u64)ts->py.flags << 32)) * 0x100000001b3ULL) ?: 1;
	if (hash == ts->py_last_sent)
		return hash;
	key.id = hash;
	if (bpf_map_lookup_elem(&py_sent, &key) ||
	    (!hold && bpf_map_lookup_elem(&py_sent_unheld, &key))) {
		ts->py_last_sent = hash;
		return hash;
	}
	if (kept) {
		/* a new stack: its frames, innermost first, from what the walk keeps */
		ts->py.nframes = n;
		bpf_loop(PY_KEEP, py_emit_step, &w, 0);
	}
	fill_hdr(&ts->py.h, EV_PYSTACK, pid_tgid);
	ts->py.id = hash;
	size = offsetof(struct gr_ev_pystack, frames) + (__u64)n * sizeof(struct gr_py_frame);
	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(size));
	if (size > sizeof(ts->py))
		return hash;
	out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
	if (!out) {
		/* not sent: the call event keeps its native stack (the recorder knows no id) */
		count(C_RINGBUF_LOST);
		return hash;
	}
	if (bpf_probe_read_kernel(out, size, &ts->py)) {
		__builtin_memset(out, 0, sizeof(out->h));
		hold = false;
	}
	/*
	 * The process is held until the recorder has resolved the frames: their code objects
	 * are alive now, and may not be once the process runs on (a last call before it exits
	 * and finalises its modules). A new stack is rare: a loop repeats its stacks.
	 */
	if (hold && hold_process(tgid))
		out->flags |= GR_PYS_STOPPED;
	bpf_ringbuf_submit(out, BPF_RB_FORCE_WAKEUP);
	/* only a stack the recorder will see counts as sent */
	if (hold)
		bpf_map_update_elem(&py_sent, &key, &one, BPF_ANY);
	else
		bpf_map_update_elem(&py_sent_unheld, &key, &one, BPF_ANY);
	ts->py_last_sent = hash;
	return hash;
}

/* Whether an event of @flags has its stack captured, and so Python frames walked. */
static __always_inline bool py_wanted(__u32 flags)
{
	return targ_python && (flags & GR_CF_STACK) && (targ_stack_frames || targ_dwarf_bytes);
}

/*
 * The hot path: one entry-only event (a launch), built at the end of the thread's batch; the
 * return address at sp its capture read goes to ts->entry_ret (0 when unread).
 */
static __always_inline int batch_entry(struct pt_regs *ctx, struct thread_state *ts, __u64 cookie,
				       __u64 pid_tgid, __u32 depth)
{
	__u8 layout = GR_CK_LAYOUT(cookie);
	struct call_batch *b = &ts->batch;
	struct gr_ev_call *e;
	bool nostack = false;
	__u32 n = 0;

	ts->entry_ret = 0;
	b->busy = 1;
	e = batch_slot(b);
	if (!e) {
		b->busy = 0;
		return 0;
	}
	fill_hdr(&e->h, event_type(layout), pid_tgid);
	e->h.layout = layout;
	e->h.api = GR_CK_API(cookie);
	e->h.flags = depth << GR_EVF_DEPTH_SHIFT;
	if ((GR_CK_FLAGS(cookie) & GR_CF_STACK) && targ_stack_frames) {
		n = capture_args_and_stack(ctx, e, layout, ts->window, (__u64 *)(e + 1), &ts->cfi,
					   &ts->entry_ret);
		nostack = !n;
	} else {
		ts->entry_ret = capture_args(ctx, e, layout);
	}
	if (py_wanted(GR_CK_FLAGS(cookie)))
		e->pystack = py_capture(&ts->ps, pid_tgid, true);
	e->h.stack_len = n;
	batch_commit(b, e->h.ts, sizeof(*e) + n * 8, nostack);
	b->busy = 0;
	return 0;
}

/*
 * The same, built in the per-CPU scratch and sent alone: raw (dwarf) stacks are too big to
 * batch, and a thread whose state could not be allocated has no batch.
 */
static __always_inline int emit_entry(struct pt_regs *ctx, struct thread_state *ts, __u64 cookie,
				      __u64 pid_tgid, __u32 depth)
{
	__u8 layout = GR_CK_LAYOUT(cookie);
	__u32 flags = GR_CK_FLAGS(cookie), n = 0;
	struct scratch *sc = get_scratch();

	if (!sc)
		return 0;
	sc->owner = pid_tgid;
	fill_hdr(&sc->call.h, event_type(layout), pid_tgid);
	sc->call.h.layout = layout;
	sc->call.h.api = GR_CK_API(cookie);
	if ((flags & GR_CF_STACK) && !targ_dwarf_bytes && targ_stack_frames)
		n = capture_args_and_stack(ctx, &sc->call, layout, sc->window, sc->frames, NULL,
					   NULL);
	else
		capture_args(ctx, &sc->call, layout);
	if (ts && py_wanted(flags))
		sc->call.pystack = py_capture(&ts->ps, pid_tgid, true);
	sc->call.h.flags = depth << GR_EVF_DEPTH_SHIFT;
	return emit_call(ctx, sc, flags, true, n, pid_tgid);
}

/* Keep the entry state of a call whose return is probed: its arguments, and its stack now. */
static __always_inline int push_call(struct pt_regs *ctx, struct thread_state *ts, __u64 cookie,
				     __u64 pid_tgid)
{
	__u8 layout = GR_CK_LAYOUT(cookie);
	__u32 flags = GR_CK_FLAGS(cookie), d = ts->depth;
	struct pending_call *pc;

	if (d >= GR_CALL_LEVELS) {
		ts->depth = d + 1;
		count(C_PENDING_LOST);
		return 0;
	}
	pc = &ts->calls[d & (GR_CALL_LEVELS - 1)];
	fill_hdr(&pc->call.h, event_type(layout), pid_tgid);
	pc->call.h.layout = layout;
	pc->call.h.api = GR_CK_API(cookie);
	pc->call.h.flags = (d - ts->outer) << GR_EVF_DEPTH_SHIFT;
	__builtin_memset(pc->call.x, 0, sizeof(pc->call.x));
	pc->cookie = cookie;
	/*
	 * Frame-pointer stacks are walked at entry, where they are the same as at the return: a
	 * call that never returns (a hung sync, a killed process) keeps its stack too. Raw stacks
	 * (dwarf) are too big to keep per level: they are copied at the return.
	 */
	pc->nframes = 0;
	if ((flags & GR_CF_STACK) && !targ_dwarf_bytes && targ_stack_frames)
		pc->nframes = capture_args_and_stack(ctx, &pc->call, layout, ts->window, pc->frames,
						     &ts->cfi, NULL);
	else
		capture_args(ctx, &pc->call, layout);
	/* the Python stack is the same at the return: walked now, sent before the event */
	if (py_wanted(flags))
		pc->call.pystack = py_capture(&ts->ps, pid_tgid, true);
	if (flags & GR_CF_OUTER)
		ts->outer++;
	else if (!(flags & GR_CF_DRIVER))
		ts->runtime_depth++;
	ts->depth = d + 1;
	return 0;
}

/* The cookie a timed launch has: as with --launch-time (record/probes.c, gr_probe_cookie()). */
static __always_inline __u64 timed_cookie(__u64 cookie)
{
	return GR_COOKIE((GR_CK_FLAGS(cookie) | GR_CF_RET) & ~GR_CF_LAUNCH, GR_CK_LAYOUT(cookie),
			 GR_CK_API(cookie));
}

/*
 * An entry-only runtime launch and the driver launch it makes inside: the pair is one launch,
 * recorded at the runtime's level. The runtime's frame is still live when its return address
 * is still on the stack where its entry found it, at or above the driver call's stack pointer.
 * No time limit: the runtime can take milliseconds before it reaches the driver (CUPTI's first
 * callback on a thread, lazy module loading), and a runtime launch that failed before the driver
 * must not hide the next driver launch its caller makes (that call's return address differs).
 * @batched: the launch's event was built by batch_entry(), whose capture read the return
 * address into ts->entry_ret (a read costs as much as the rest of the program); else it is read
 * here. 0: unreadable, no mark.
 */
static __always_inline void mark_runtime_launch(struct pt_regs *ctx, struct thread_state *ts,
						bool batched)
{
	__u64 sp = PT_REGS_SP(ctx), ret = ts->entry_ret;

	if (!batched)
		read_user_word(sp, sizeof(ret), &ret);
	ts->launch_sp = ret ? sp : 0;
	ts->launch_ret = ret;
}

/* Whether this driver call is made inside the marked runtime launch; the mark is used up. */
static __always_inline bool in_runtime_launch(struct pt_regs *ctx, struct thread_state *ts)
{
	__u64 mark = ts->launch_sp, ret;

	ts->launch_sp = 0;
	if (!mark || PT_REGS_SP(ctx) > mark)
		return false;
	return !read_user_word(mark, sizeof(ret), &ret) && ret == ts->launch_ret;
}

/*
 * A call's entry. @sample: a launch of launch_session, timed when its thread's counter says so.
 * Returns 0 when the call's return must be seen (its entry state was kept, or its level counted),
 * 1 when not.
 */
static __always_inline int call_entry(struct pt_regs *ctx, __u64 cookie, bool sample)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 flags = GR_CK_FLAGS(cookie), depth, seq;
	__u8 layout = GR_CK_LAYOUT(cookie);
	struct thread_state *ts;

	if (!is_traced(pid_tgid >> 32))
		return 1;
	/* every call needs the state now: its batch, or its Python frames; raw stacks are sent
	 * alone. A sampled launch needs its counter. */
	ts = thread_state(sample || (flags & GR_CF_RET) || !targ_dwarf_bytes || py_wanted(flags));
	if ((flags & GR_CF_DRIVER) && ts) {
		/* a runtime call in progress on this thread: it is recorded already */
		if (ts->runtime_depth)
			return 1;
		if ((event_type(layout) == EV_LAUNCH || layout == L_GRAPH_LAUNCH) &&
		    in_runtime_launch(ctx, ts))
			return 1;
	}
	/* counted only here, past the launches recorded elsewhere: one count per launch */
	if (sample && ts && targ_launch_sample) {
		seq = ts->launch_seq++;
		if ((seq & (targ_launch_sample - 1)) == (1 & (targ_launch_sample - 1))) {
			cookie = timed_cookie(cookie);
			flags = GR_CK_FLAGS(cookie);
		}
	}
	if (flags & GR_CF_RET) {
		if (!ts) {
			count(C_PENDING_LOST);
			return 1;
		}
		push_call(ctx, ts, cookie, pid_tgid);
		return 0;
	}
	/*
	 * Decided here, kept in the state's memory: a flag the verifier tracked across the capture
	 * would have it check the whole capture twice (over a million instructions with unwind
	 * tables).
	 */
	if ((flags & GR_CF_LAUNCH) && driver_probed) {
		if (!ts)
			ts = thread_state(true);
		if (ts)
			ts->mark_pending = 1;
	}
	depth = ts && ts->depth > ts->outer ? ts->depth - ts->outer : 0;
	depth = depth < 15 ? depth : 15;
	if (ts && !targ_dwarf_bytes)
		batch_entry(ctx, ts, cookie, pid_tgid, depth);
	else
		emit_entry(ctx, ts, cookie, pid_tgid, depth);
	/* after the event: the driver launch comes once this program has returned */
	if (ts && ts->mark_pending) {
		ts->mark_pending = 0;
		mark_runtime_launch(ctx, ts, !targ_dwarf_bytes);
	}
	return 1;
}

SEC("uprobe")
int BPF_KPROBE(api_entry)
{
	call_entry(ctx, bpf_get_attach_cookie(ctx), false);
	return 0;
}

/* Drop the kept levels from @level up (their calls returned or are given up). */
static __always_inline void pop_to(struct thread_state *ts, __u32 level)
{
	__u32 flags;

	for (int i = GR_CALL_LEVELS - 1; i >= 0; i--) {
		if (i < level || i >= ts->depth)
			continue;
		flags = GR_CK_FLAGS(ts->calls[i].cookie);
		if (flags & GR_CF_OUTER) {
			if (ts->outer)
				ts->outer--;
		} else if (!(flags & GR_CF_DRIVER) && ts->runtime_depth) {
			ts->runtime_depth--;
		}
	}
	ts->depth = level;
}

/* A call event copied from its entry state, completed at the call's return. */
static __always_inline void finish_return(struct pt_regs *ctx, struct gr_ev_call *e)
{
	__u64 out = 0;

	e->h.dur = bpf_ktime_get_ns() - e->h.ts;
	e->h.cpu = bpf_get_smp_processor_id();
	e->h.flags |= GR_EVF_RETURNED;
	e->ret = PT_REGS_RC(ctx);
	switch (e->h.layout) {
	case L_MALLOC_OUT:
	case L_GET_KERNEL:
	case L_CU_GET_FUNCTION:
	case L_CU_LIBRARY_GET_KERNEL:
	case L_CU_KERNEL_GET_FUNCTION:
	case L_GRAPH_INSTANTIATE:
	/* the arrays' x[GR_X_CHANNEL..] keep the channel format or descriptor read at entry */
	case L_MALLOC_ARRAY:
	case L_MALLOC_3D_ARRAY:
	case L_CU_ARRAY:
	case L_CU_ARRAY_3D:
		bpf_probe_read_user(&out, sizeof(out), (void *)e->r[0]);
		e->x[0] = out;
		break;
	case L_CAPTURE_END:
		bpf_probe_read_user(&out, sizeof(out), (void *)e->r[1]);
		e->x[0] = out;
		break;
	case L_MALLOC_PITCH:
	case L_MEMINFO:
		/* what a failed call leaves there is garbage: translate checks ret */
		bpf_probe_read_user(&e->x[0], 8, (void *)e->r[0]);
		bpf_probe_read_user(&e->x[1], 8, (void *)e->r[1]);
		break;
	case L_MALLOC_3D:
		bpf_probe_read_user(&e->x[0], 16, (void *)e->r[0]);
		break;
	case L_NCCL_INIT:
		/* x[GR_X_NCCL_ID] holds the id's hash */
		bpf_probe_read_user(&out, sizeof(out), (void *)e->r[0]);
		e->x[GR_X_NCCL_COMM] = out;
		break;
	case L_GRAPH_ADD_KERNEL:
	case L_GRAPH_ADD_CHILD:
	case L_GRAPH_CLONE:
	case L_GRAPH_ADD_MEMCPY_1D:
	case L_GRAPH_ADD_MEMSET:
	case L_GRAPH_ADD_MEMCPY_3D:
	case L_GRAPH_ADD_MEMCPY_SYM:
	case L_CU_GRAPH_ADD_MEMCPY:
	case L_GRAPH_ADD_NODE_ONLY:
		/* x[0..4] may hold the kernel or memset node parameters */
		bpf_probe_read_user(&out, sizeof(out), (void *)e->r[0]);
		e->x[GR_X_GRAPH_OUT] = out;
		break;
	case L_DEVICE_PROPS:
	case L_DEVICE_ATTR: {
		/* an int; what a failed call leaves there is garbage: translate checks ret */
		__s32 v = 0;

		bpf_probe_read_user(&v, sizeof(v),
				    (void *)e->r[0] + (e->h.layout == L_DEVICE_PROPS
							   ? GR_DEVICE_PROP_SMS_OFFSET
							   : 0));
		e->x[0] = (__u32)v;
		break;
	}
	}
}

/*
 * A call's return: its event completed from the entry state kept for @cookie. @status: the event
 * carries what the call returned (GR_EVF_RETURNED); a sampled launch's does not.
 */
static __always_inline int call_return(struct pt_regs *ctx, __u64 cookie, bool status)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct pending_call *pc = NULL;
	struct thread_state *ts;
	struct call_batch *b;
	struct gr_ev_call *e;
	struct scratch *sc;
	bool nostack = false;
	__u32 level = 0, n = 0;

	if (!is_traced(pid_tgid >> 32))
		return 0;
	ts = thread_state(false);
	if (!ts || !ts->depth)
		return 0;
	if (ts->depth > GR_CALL_LEVELS) {
		/* the return of a level that was not kept (a driver call skipped at entry
		 * inside a runtime call returns here too: those never count in depth) */
		if (!(GR_CK_FLAGS(cookie) & GR_CF_DRIVER) || !ts->runtime_depth)
			ts->depth--;
		return 0;
	}
	/* the innermost kept call of this entry point; levels above it never returned (a
	 * longjmp or an exception unwound through them): their calls are lost */
	for (int i = GR_CALL_LEVELS - 1; i >= 0; i--) {
		if (i < ts->depth && ts->calls[i].cookie == cookie) {
			pc = &ts->calls[i];
			level = i;
			break;
		}
	}
	/* not ours: a driver call returning inside the runtime call that is pending */
	if (!pc)
		return 0;
	if (ts->depth > level + 1)
		count(C_PENDING_LOST);
	if (targ_dwarf_bytes) {
		/* raw stacks are copied now, too big to batch: the event is sent alone */
		sc = get_scratch();
		if (!sc) {
			pop_to(ts, level);
			return 0;
		}
		sc->owner = pid_tgid;
		__builtin_memcpy(&sc->call, &pc->call, sizeof(sc->call));
		pop_to(ts, level);
		finish_return(ctx, &sc->call);
		if (!status)
			sc->call.h.flags &= ~GR_EVF_RETURNED;
		return emit_call(ctx, sc, GR_CK_FLAGS(cookie), false, 0, pid_tgid);
	}
	b = &ts->batch;
	b->busy = 1;
	e = batch_slot(b);
	if (!e) {
		b->busy = 0;
		pop_to(ts, level);
		return 0;
	}
	__builtin_memcpy(e, &pc->call, sizeof(*e));
	pop_to(ts, level);
	finish_return(ctx, e);
	if (!status)
		e->h.flags &= ~GR_EVF_RETURNED;
	if ((GR_CK_FLAGS(cookie) & GR_CF_STACK) && targ_stack_frames) {
		/* walked at entry (push_call); the level's memory is intact after pop_to() */
		n = pc->nframes;
		if (n > GR_MAX_FRAMES || copy_frames((__u64 *)(e + 1), pc->frames, n))
			n = 0;
		nostack = !n;
	}
	e->h.stack_len = n;
	batch_commit(b, e->h.ts + e->h.dur, sizeof(*e) + n * 8, nostack);
	b->busy = 0;
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(api_return)
{
	return call_return(ctx, bpf_get_attach_cookie(ctx), true);
}

/*
 * The launch entry points as one uprobe session (kernel 6.12+, record/uprobe_multi.h) when
 * launches are not all timed (no --launch-time): every launch is recorded at entry, and a sample
 * of them (targ_launch_sample) is timed to its return. The entry half's 0 asks the kernel for
 * the return half of that one call, 1 spares the others the return probe's cost.
 */
SEC("uprobe")
int BPF_KPROBE(launch_session)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	/*
	 * A sampled launch keeps its duration, not its status: known for 1 launch in 64, a
	 * failure would set those apart from the rest (reports leave out calls known to have
	 * failed), as statuses are recorded for every launch or none (--launch-time).
	 */
	if (bpf_session_is_return())
		return call_return(ctx, timed_cookie(cookie), false);
	return call_entry(ctx, cookie, true);
}

/*
 * The calls @ts holds that never returned, each as its call event with GR_EVF_IN_FLIGHT and the
 * time inside so far: at the thread's exit (@exited, the process was killed or exited mid-call)
 * or when the recording stops. Rare: each event gets ring-buffer room for a full stack.
 */
static __always_inline void emit_in_flight(struct thread_state *ts, bool exited, __u32 cpu)
{
	__u64 now = bpf_ktime_get_ns();

	for (int i = 0; i < GR_CALL_LEVELS; i++) {
		struct pending_call *pc = &ts->calls[i];
		struct {
			struct gr_ev_call call;
			__u64 frames[GR_MAX_FRAMES];
		} * e;
		__u32 n = pc->nframes;

		if (i >= ts->depth)
			break;
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			count(C_RINGBUF_LOST);
			continue;
		}
		__builtin_memcpy(&e->call, &pc->call, sizeof(e->call));
		e->call.h.dur = now - e->call.h.ts;
		e->call.h.cpu = cpu;
		e->call.h.flags |= GR_EVF_IN_FLIGHT | (exited ? GR_EVF_EXITED : 0);
		e->call.h.stack_len = 0;
		e->call.ret = 0;
		if (!copy_frames(e->frames, pc->frames, n))
			e->call.h.stack_len = n;
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	}
}

/*
 * Kernel names at registration (often in constructors, before main): the strings may sit in
 * pages not faulted in yet, so this program is sleepable and copies with page faults allowed.
 */
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __weak __ksym;

/*
 * A registration's event, built per registering thread and sent at its name's length: apart
 * from thread_states, whose presence marks a thread that makes CUDA calls (its switches carry
 * stacks), and an Inductor compile worker registers ~43k kernels and launches none.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct gr_ev_name);
} name_events SEC(".maps");

SEC("uprobe.s")
int BPF_KPROBE(name_entry)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u8 layout = GR_CK_LAYOUT(cookie);
	struct gr_ev_name *e;
	__u64 host_fun, name3, name4;
	const void *str;
	long n = -1;
	__u64 size;

	if (!is_traced(pid_tgid >> 32))
		return 0;
	/* the recorder pairs a name with the thread's next return of this call: keep order */
	flush_task(bpf_get_current_task_btf());
	/*
	 * Sent at the name's own length: a process that imports torch registers ~43k kernels, at
	 * GR_NAME_MAX bytes each some 25 MB through the ring, where their names take a fifth.
	 */
	e = bpf_task_storage_get(&name_events, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!e) {
		count(C_RINGBUF_LOST);
		return 0;
	}
	fill_hdr(&e->h, EV_NAME, pid_tgid);
	e->h.layout = layout;
	e->h.api = GR_CK_API(cookie);
	/* read ctx fields unconditionally: the verifier rejects a ctx load at a computed offset */
	host_fun = PT_REGS_PARM2(ctx);
	name3 = PT_REGS_PARM3(ctx);
	name4 = PT_REGS_PARM4(ctx);
	asm volatile("" : "+r"(host_fun), "+r"(name3), "+r"(name4));
	if (layout == L_REGISTER_FUNCTION) {
		e->key = host_fun;
		str = (const void *)name4;
	} else {
		e->key = 0; /* paired with this thread's return event by the recorder */
		str = (const void *)name3;
	}
	if (bpf_copy_from_user_str)
		n = bpf_copy_from_user_str(e->name, sizeof(e->name), str, 0);
	if (n < 0) {
		n = bpf_copy_from_user(e->name, sizeof(e->name) - 1, str);
		e->name[sizeof(e->name) - 1] = 0;
		/* a fault somewhere in the buffer's span: the name is cut, not lost */
		n = n < 0 ? (e->name[0] = 0, 1) : (long)sizeof(e->name);
	}
	/* the bytes copied, with the NUL */
	size = offsetof(struct gr_ev_name, name) + (__u64)n;
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&events, e, size, 0))
		count(C_RINGBUF_LOST);
	return 0;
}

/*
 * An NVTX call of a traced thread: libgpurec_nvtx.so, which the recorder gives the traced command
 * as its NVTX injection library, calls its tap (nvtx/tap.h) once per NVTX call with what the call
 * said. Sleepable, as name_entry: the message is often a literal in a page not faulted in yet.
 */
SEC("uprobe.s")
int BPF_KPROBE(nvtx_tap)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	const void *arg = (const void *)PT_REGS_PARM1(ctx);
	struct {
		__u64 domain, id, payload;
		__u32 op, category, color, payload_type;
		__u64 text;
	} tap;
	struct gr_ev_nvtx *e;
	long n = -1;

	if (!is_traced(pid_tgid >> 32) || bpf_copy_from_user(&tap, sizeof(tap), arg))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(C_RINGBUF_LOST);
		return 0;
	}
	fill_hdr(&e->h, EV_NVTX, pid_tgid);
	e->domain = tap.domain;
	e->id = tap.id;
	e->payload = tap.payload;
	e->op = tap.op;
	e->category = tap.category;
	e->color = tap.color;
	e->payload_type = tap.payload_type;
	e->text[0] = 0;
	if (tap.text && bpf_copy_from_user_str)
		n = bpf_copy_from_user_str(e->text, sizeof(e->text), (const void *)tap.text, 0);
	if (tap.text && n < 0) {
		n = bpf_copy_from_user(e->text, sizeof(e->text) - 1, (const void *)tap.text);
		e->text[sizeof(e->text) - 1] = 0;
		if (n < 0)
			e->text[0] = 0;
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* ---- the process tree ---- */

static __always_inline int emit_proc(__u8 type, struct task_struct *task, __u64 flags,
				     struct gr_ev_proc **out)
{
	struct gr_ev_proc *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count(C_RINGBUF_LOST);
		return -1;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->h.type = type;
	e->h.cpu = bpf_get_smp_processor_id();
	e->h.pid = BPF_CORE_READ(task, tgid);
	e->h.tid = BPF_CORE_READ(task, pid);
	e->h.ts = bpf_ktime_get_ns();
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	*out = e;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct gr_ev_proc *e;

	if (!is_traced(ptgid) || ptgid == targ_recorder_pid)
		return 0;
	/* the whole tree is traced: children (and threads) inherit */
	set_traced(ctgid);
	/* a forked child runs the same interpreter, and the same code, at the same addresses */
	if (ctgid != ptgid) {
		struct gr_py_proc *py = bpf_map_lookup_elem(&py_procs, &ptgid);
		struct gr_cfi_proc *cfi = bpf_map_lookup_elem(&cfi_procs, &ptgid);

		if (py)
			bpf_map_update_elem(&py_procs, &ctgid, py, BPF_ANY);
		/* its first calls come before the recorder has seen the fork */
		if (cfi)
			bpf_map_update_elem(&cfi_procs, &ctgid, cfi, BPF_ANY);
	}
	if (emit_proc(EV_FORK, parent, 0, &e))
		return 0;
	e->child_pid = ctgid;
	e->child_tid = child->pid;
	BPF_CORE_READ_STR_INTO(&e->comm, child, comm);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* @p execs: its process's Python description and its thread's Python state are the old
 * image's. */
static __always_inline void forget_python(struct task_struct *p)
{
	struct thread_state *ts = bpf_task_storage_get(&thread_states, p, NULL, 0);
	struct blk_state *bs = bpf_task_storage_get(&blk_states, p, NULL, 0);
	struct py_keep *pk = bpf_task_storage_get(&py_keeps, p, NULL, 0);
	__u32 tgid = p->tgid;

	bpf_map_delete_elem(&py_procs, &tgid);
	if (ts) {
		ts->ps.py_tstate = 0;
		ts->ps.py_miss = 0;
		ts->ps.py_last_sent = 0;
	}
	if (bs) {
		bs->ps.py_tstate = 0;
		bs->ps.py_miss = 0;
		bs->ps.py_last_sent = 0;
	}
	if (pk)
		pk->kn = 0;
	pk = bpf_task_storage_get(&py_blk_keeps, p, NULL, 0);
	if (pk)
		pk->kn = 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct gr_ev_proc *e;

	if (!is_traced(p->tgid))
		return 0;
	/*
	 * A setuid or setgid program, or one with file capabilities, runs with rights the user
	 * who started the recording does not have: its arguments, stacks and memory are not theirs
	 * to read. It and its children leave the traced set here, unheld.
	 */
	if (BPF_CORE_READ_BITFIELD(bprm, secureexec)) {
		clear_traced(p->tgid);
		count(C_UNTRACED);
		return 0;
	}
	/* calls of the old image come before the exec */
	flush_task(p);
	/* the new image is another program: the recorder describes it again if it is a CPython */
	forget_python(p);
	if (emit_proc(EV_EXEC, p, 0, &e))
		return 0;
	/* hold the new image before its first instruction: static cudart lives in it */
	if (targ_hold_mappings && hold_process(p->tgid))
		e->stopped = 1;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct thread_state *ts;
	bool group_dead;
	struct gr_ev_proc *e;

	if (!is_traced(tgid))
		return 0;
	ts = bpf_task_storage_get(&thread_states, p, NULL, 0);
	flush_state(ts);
	group_dead = !BPF_CORE_READ(p, signal, live.counter);
	if (group_dead) {
		bpf_map_delete_elem(&py_procs, &tgid);
		bpf_map_delete_elem(&cfi_procs, &tgid);
		/* its events are all in the ring before this one: the recorder forgets with it */
		bpf_map_delete_elem(&holds, &tgid);
	}
	if (ts && ts->depth)
		emit_in_flight(ts, true, bpf_get_smp_processor_id());
	if (emit_proc(EV_EXIT, p, 0, &e))
		return 0;
	e->exit_code = p->exit_code;
	e->group_dead = group_dead;
	if (p->pid == tgid)
		e->exit_code = BPF_CORE_READ(p, signal, group_exit_code) ?: p->exit_code;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * A new executable mapping of a file nobody examined yet: hold the process (all its threads) so
 * that no constructor or call in that file runs before the recorder has attached its probes.
 * @ret is what mmap returned, @prot, @fd and @len what it was asked.
 */
static __always_inline int hold_new_mapping(__u64 prot, __u64 fd, __u64 len, __u64 ret)
{
	struct task_struct *task;
	struct file_key key = {};
	struct file **fds, *file;
	struct gr_ev_proc *e;

	if (ret > -4096UL || !(prot & PROT_EXEC) || (int)fd < 0)
		return 0;
	task = bpf_get_current_task_btf();
	fds = BPF_CORE_READ(task, files, fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[(int)fd]) || !file)
		return 0;
	key.ino = BPF_CORE_READ(file, f_inode, i_ino);
	key.dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	if (bpf_map_lookup_elem(&known_files, &key))
		return 0;
	if (emit_proc(EV_MMAP, task, 0, &e))
		return 0;
	e->dev = key.dev;
	e->ino = key.ino;
	e->addr = ret;
	e->len = len;
	if (hold_process(e->h.pid))
		e->stopped = 1;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * New mappings, seen at the return of the mmap system call's body: runs only when some process
 * maps something, and tests the traced set first. The recorder attaches this one, or where the
 * kernel cannot (no BTF for the function, no fexit trampolines) on_dl_debug_state
 * (record/mmap_hook.h).
 * Mappings made by exec itself are held by on_exec.
 */
SEC("fexit/ksys_mmap_pgoff")
int BPF_PROG(on_mmap_return, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, unsigned long fd, unsigned long pgoff, unsigned long ret)
{
	if (!targ_hold_mappings || !is_traced(bpf_get_current_pid_tgid() >> 32))
		return 0;
	return hold_new_mapping(prot, fd, len, ret);
}

/* Every system call of every process on the machine, to find the mmaps: only when asked for. */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!targ_hold_mappings || ret < 0)
		return 0;
	if (BPF_CORE_READ(regs, orig_ax) != NR_MMAP || !is_traced(tgid))
		return 0;
	return hold_new_mapping(BPF_CORE_READ(regs, dx), BPF_CORE_READ(regs, r8),
				BPF_CORE_READ(regs, si), ret);
}

/*
 * The dynamic loader's debug hook, the third way (record/mmap_hook.h): ld.so (glibc's, musl's)
 * calls _dl_debug_state() after it maps the objects of the program at startup, and of each
 * dlopen, before their constructors run (and around each change: RT_ADD, RT_DELETE). Attached
 * by the recorder to every loader its traced processes use. Unless the loader's r_debug says
 * it is only about to map (RT_ADD, gpurec.h), the process is held (EV_MMAP without a file:
 * dev = ino = 0) and the recorder rescans its mappings, whatever they are.
 */
SEC("uprobe")
int BPF_KPROBE(on_dl_debug_state)
{
	__s64 to_state = bpf_get_attach_cookie(ctx);
	struct gr_ev_proc *e;
	__u32 state;

	if (!is_traced(bpf_get_current_pid_tgid() >> 32) || !targ_hold_mappings)
		return 0;
	/* the uprobe's ip is _dl_debug_state's address in this process */
	if (to_state &&
	    !bpf_probe_read_user(&state, sizeof(state), (void *)(PT_REGS_IP(ctx) + to_state)) &&
	    state == GR_RT_ADD)
		return 0;
	if (emit_proc(EV_MMAP, bpf_get_current_task_btf(), 0, &e))
		return 0;
	if (hold_process(e->h.pid))
		e->stopped = 1;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * Run once by the recorder when the recording stops, after it detached the probes (no append
 * can be under way): what the threads still alive batched, and the calls they are inside (a
 * hung sync, a -d recording cut mid-call).
 */
SEC("iter/task")
int in_flight_at_stop(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct thread_state *ts;

	if (!task || !is_traced(task->tgid))
		return 0;
	ts = bpf_task_storage_get(&thread_states, task, NULL, 0);
	flush_state(ts);
	if (ts && ts->depth)
		emit_in_flight(ts, false, bpf_get_smp_processor_id());
	return 0;
}

/* ---- scheduler context of traced threads ---- */

/*
 * Wait windows: while a traced thread is runnable but waiting for a CPU, every switch on that
 * CPU is recorded, so that replay knows exactly which tasks ran there, and for how long, while
 * the thread waited (docs/REPORTS.md, "CPU starvation"). The rules:
 * - a traced thread begins waiting on CPU c when it is switched out of c still runnable
 *   (preempted, or prev_state 0), or woken onto c (sched_wakeup, sched_wakeup_new: c is
 *   task_cpu(p)); a wakeup of a thread that is on a CPU (about to block) begins nothing;
 * - it stops waiting when it is switched in, on any CPU;
 * - a waiting thread that migrates moves its count from the old CPU to the new one; every
 *   migration of a traced thread is recorded, with the task running on the old CPU then (who
 *   held that CPU from its last switch until the thread left it);
 * - self-healing: the count a switch-in takes back is the one of the CPU the thread was recorded
 *   waiting on, wherever the switch-in happens; a thread waits on one CPU at most, so a missed
 *   event can keep a CPU's switches recorded a little too long, never stop a window early.
 * Counts change under the run queue locks of the CPUs involved, but the programs run on other
 * CPUs than the count's (a wakeup's waker): hence the atomics.
 */
#define GR_MAX_CPUS 1024
__u32 cpu_waiters[GR_MAX_CPUS];

struct wait_state {
	__u32 cpu; /* the CPU the thread waits on, + 1; 0 = not waiting */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wait_state);
} wait_states SEC(".maps");

static __always_inline void waiters_add(__u32 cpu, int d)
{
	if (cpu < GR_MAX_CPUS)
		__sync_fetch_and_add(&cpu_waiters[cpu], d);
}

static __always_inline void wait_begin(struct task_struct *p, __u32 cpu)
{
	struct wait_state *w =
	    bpf_task_storage_get(&wait_states, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!w || cpu >= GR_MAX_CPUS || w->cpu == cpu + 1)
		return;
	if (w->cpu)
		waiters_add(w->cpu - 1, -1);
	w->cpu = cpu + 1;
	waiters_add(cpu, 1);
}

static __always_inline void wait_end(struct task_struct *p)
{
	struct wait_state *w = bpf_task_storage_get(&wait_states, p, NULL, 0);

	if (!w || !w->cpu)
		return;
	waiters_add(w->cpu - 1, -1);
	w->cpu = 0;
}

static __always_inline struct gr_ev_sched *sched_reserve(__u8 sub, __u32 cpu, __u32 prev_state,
							 __u32 target_cpu)
{
	struct gr_ev_sched *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count(C_RINGBUF_LOST);
		return NULL;
	}
	e->h.type = EV_SCHED;
	e->h.layout = 0;
	e->h.api = 0;
	e->h.stack_len = 0;
	e->h.flags = 0;
	e->h.cpu = cpu;
	e->h.ts = bpf_ktime_get_ns();
	e->h.dur = 0;
	e->prev_state = prev_state;
	e->target_cpu = target_cpu;
	e->sub = sub;
	e->fd_kind = 0;
	e->pad = 0;
	e->syscall = -1;
	e->pystack = 0;
	return e;
}

/*
 * A task's comm into @dst (GR_COMM_LEN bytes), by two direct loads from its BTF pointer: a
 * switch copies two of them, and bpf_probe_read_kernel_str() cost a helper call each (on the
 * bench machine sched_switch's program ran 490 ns with them, 426 without). The kernel pads comm
 * with NULs (strscpy_pad); the last byte is set should a rename race the copy.
 */
static __always_inline void copy_comm(char *dst, const struct task_struct *t)
{
	_Static_assert(GR_COMM_LEN == 16 && sizeof(t->comm) == 16, "comm is two words");
	__u64 lo = *(const __u64 *)&t->comm[0], hi = *(const __u64 *)&t->comm[8];

	__builtin_memcpy(dst, &lo, 8);
	__builtin_memcpy(dst + 8, &hi, 8);
	dst[GR_COMM_LEN - 1] = 0;
}

static __always_inline int emit_sched(__u8 sub, struct task_struct *prev, struct task_struct *next,
				      __u32 prev_state, __u32 target_cpu, __s32 nr, __u8 fd_kind)
{
	struct gr_ev_sched *e =
	    sched_reserve(sub, bpf_get_smp_processor_id(), prev_state, target_cpu);

	if (!e)
		return 0;
	e->h.pid = prev->tgid;
	e->h.tid = prev->pid;
	e->next_pid = next->tgid;
	e->next_tid = next->pid;
	e->syscall = nr;
	e->fd_kind = fd_kind;
	copy_comm(e->prev_comm, prev);
	copy_comm(e->next_comm, next);
	bpf_ringbuf_submit(e, wake_flags());
	return 0;
}

/* ---- why and where a traced thread blocks (bpf/gpurec.h: GR_FD_SYSCALLS, GR_BLK_SITE_NS) ---- */

#define ENOSYS		    38
#define S_IFMT		    00170000
#define S_IFSOCK	    0140000
#define S_IFREG		    0100000
#define S_IFBLK		    0060000
#define S_IFCHR		    0020000
#define S_IFIFO		    0010000
#define ANON_INODE_FS_MAGIC 0x09041934
#define PF_KTHREAD	    0x00200000
#define TASK_STOPPED	    0x04
#define TASK_TRACED	    0x08
#define TASK_DEAD	    0x80

/* The kinds of a blocked record's stack: the rate bound is per thread and role. */
#define BLK_SWITCH 0
#define BLK_WAKE   1

/* Stacks of blocked and waking threads: in every stack mode but none. */
static __always_inline bool blk_stacks(void)
{
	return targ_stack_frames || targ_dwarf_bytes;
}

/*
 * The system call @regs (a task's user registers) is inside, -1 when none. orig_ax holds the
 * number at a system call's entry, but also an exception's error code (a page fault's), so a
 * call is told by ax too: the entry sets it to -ENOSYS, which it stays until the call returns;
 * an exception leaves the user's rax there.
 */
static __always_inline __s32 blk_syscall(struct pt_regs *regs)
{
	__s64 nr = BPF_CORE_READ(regs, orig_ax);

	if (nr < 0 || nr > 0x7fffffff || (__s64)BPF_CORE_READ(regs, ax) != -ENOSYS)
		return -1;
	return nr;
}

#define GR_FD_CASE(nr, name) case nr:
static __always_inline bool fd_call(__s32 nr)
{
	switch (nr) {
		GR_FD_SYSCALLS(GR_FD_CASE)
		return true;
	}
	return false;
}

/* The kind of the file @task's @fd names (enum gr_fd_kind), GR_FD_NONE when none. */
static __always_inline __u8 fd_kind(struct task_struct *task, __u64 fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *f = NULL;
	struct inode *inode;
	__u32 mode;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), fds + fd) || !f)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	/* eventfd, epoll, timerfd, signalfd, io_uring: one inode of their own file system, whose
	 * mode says nothing (0600, or a regular file's on newer kernels) */
	if (BPF_CORE_READ(inode, i_sb, s_magic) == ANON_INODE_FS_MAGIC)
		return 5; /* GR_FD_ANON */
	mode = BPF_CORE_READ(inode, i_mode);
	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFBLK:
		return 1; /* GR_FD_FILE */
	case S_IFIFO:
		return 2; /* GR_FD_PIPE */
	case S_IFSOCK:
		return 3; /* GR_FD_SOCKET */
	case S_IFCHR:
		return 4; /* GR_FD_CHAR */
	case 0:
		return 5; /* GR_FD_ANON */
	}
	return 6; /* GR_FD_OTHER */
}

/*
 * The current thread's user stack at @regs, native and Python, into @frames (the record @e's),
 * at most once per GR_BLK_SITE_NS at the same call site for @role; a walk skipped for that
 * marks @e GR_EVS_F_SAME. Runs in the thread's own context (its switch-out, or its wakeup of
 * another): its user memory is readable. A new Python stack is sent without stopping the
 * process: a stop would wake the sleeper (a signal ends an interruptible sleep) and add
 * switches to those recorded, and a sleeping thread's code objects outlive the recorder's
 * read of them. Returns the frames walked.
 */
static __always_inline __u32 blocked_stack(struct blk_state *bs, int role, struct pt_regs *regs,
					   struct gr_ev_sched *e, __u64 *frames)
{
	__u64 ip = BPF_CORE_READ(regs, ip), sp = BPF_CORE_READ(regs, sp), now = e->h.ts;
	__u32 r = role & 1, wlen;

	if (bs->site[r] == ip && now - bs->last[r] < GR_BLK_SITE_NS) {
		e->h.flags = GR_EVS_F_SAME;
		return 0;
	}
	bs->site[r] = ip;
	bs->last[r] = now;
	wlen = load_window(bs->window, sp);
	/* the walk starts in @ip's own frame: at the kernel's entry sp and rbp are still its */
	r = walk_from(frames, bs->window, sp, wlen, ip, sp, BPF_CORE_READ(regs, bp), 1, &bs->cfi);
	e->pystack = py_capture(&bs->ps, bpf_get_current_pid_tgid(), false);
	return r;
}

/* Send @e with @n frames (they follow it in memory). */
static __always_inline void blk_output(struct gr_ev_sched *e, __u32 n)
{
	__u64 size;

	if (n > GR_MAX_FRAMES)
		n = GR_MAX_FRAMES;
	e->h.stack_len = n;
	size = sizeof(*e) + (__u64)n * 8;
	/* the barrier keeps the bound check on the register the helper gets */
	asm volatile("" : "+r"(size));
	if (size > sizeof(*e) + GR_MAX_FRAMES * 8)
		return;
	if (bpf_ringbuf_output(&events, e, size, wake_flags()))
		count(C_RINGBUF_LOST);
}

static __always_inline void blk_fill(struct gr_ev_sched *e, __u8 sub, __u32 cpu,
				     struct task_struct *prev, struct task_struct *next,
				     __u32 prev_state, __u32 target_cpu)
{
	e->h.type = EV_SCHED;
	e->h.layout = 0;
	e->h.api = 0;
	e->h.stack_len = 0;
	e->h.flags = 0;
	e->h.cpu = cpu;
	e->h.ts = bpf_ktime_get_ns();
	e->h.dur = 0;
	e->h.pid = prev->tgid;
	e->h.tid = prev->pid;
	e->next_pid = next->tgid;
	e->next_tid = next->pid;
	e->prev_state = prev_state;
	e->target_cpu = target_cpu;
	e->sub = sub;
	e->fd_kind = 0;
	e->pad = 0;
	e->syscall = -1;
	e->pystack = 0;
	copy_comm(e->prev_comm, prev);
	copy_comm(e->next_comm, next);
}

/* A traced @prev switches out sleeping: why (its system call, the fd's kind) and, for a thread
 * that makes CUDA calls, where (its stack). */
static __always_inline int emit_blocked(struct task_struct *prev, struct task_struct *next,
					__u32 state, __u32 cpu)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	struct blk_state *bs = NULL;
	__s32 nr = -1;
	__u8 kind = 0;

	if (regs) {
		nr = blk_syscall(regs);
		if (nr >= 0 && fd_call(nr))
			kind = fd_kind(prev, BPF_CORE_READ(regs, di));
	}
	/* a dying thread's last switch (TASK_DEAD) blocks nothing, and its memory is gone; a
	 * stopped one (the recorder's own holds, a debugger) waits for no call site */
	if (regs && blk_stacks() && !(state & (TASK_DEAD | TASK_STOPPED | TASK_TRACED)) &&
	    bpf_task_storage_get(&thread_states, prev, NULL, 0))
		bs = bpf_task_storage_get(&blk_states, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!bs)
		return emit_sched(GR_EVS_SWITCH, prev, next, state, cpu, nr, kind);
	blk_fill(&bs->ev, GR_EVS_SWITCH, cpu, prev, next, state, cpu);
	bs->ev.syscall = nr;
	bs->ev.fd_kind = kind;
	blk_output(&bs->ev, blocked_stack(bs, BLK_SWITCH, regs, &bs->ev, bs->frames));
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id(), state = preempt ? 0 : prev_state;

	/* a thread that stops running sends what it batched: events wait at most a time slice */
	if (is_traced(prev->tgid))
		flush_task(prev);
	if (!targ_sched || cpu >= GR_MAX_CPUS)
		return 0;
	/* idle (pid 0) and kernel threads are not traced: only switches touching ours, and every
	 * switch on a CPU where one of ours waits (one load when none does) */
	if (!cpu_waiters[cpu] && !is_traced(prev->tgid) && !is_traced(next->tgid))
		return 0;
	if (is_traced(next->tgid))
		wait_end(next);
	if (!state && is_traced(prev->tgid))
		wait_begin(prev, cpu);
	if (state && is_traced(prev->tgid))
		return emit_blocked(prev, next, state, cpu);
	/* preempted while runnable reads as state 0, as in perf sched */
	return emit_sched(GR_EVS_SWITCH, prev, next, state, cpu, -1, 0);
}

/*
 * Whether a wakeup inside system call @nr can be the caller's doing: one that wakes another
 * thread by what it does (a futex wake, a write or send that feeds a reader, a close that ends
 * one, a signal, its exit). A wakeup from an interrupt (a timer, a disk completion, a network
 * packet) runs in whatever task it interrupted, which may be in any call; what such a task calls
 * is mostly none of these. (The CPU's preempt count would say "interrupt" exactly, but its
 * per-CPU symbol is missing from kallsyms without CONFIG_KALLSYMS_ALL, and tracing programs may
 * run on a stack of their own, so the stack pointer cannot tell either.)
 */
static __always_inline bool waking_call(__s32 nr)
{
	switch (nr) {
	case 1:	  /* write */
	case 3:	  /* close */
	case 18:  /* pwrite64 */
	case 20:  /* writev */
	case 40:  /* sendfile */
	case 44:  /* sendto */
	case 46:  /* sendmsg */
	case 60:  /* exit */
	case 62:  /* kill */
	case 65:  /* semop */
	case 69:  /* msgsnd */
	case 129: /* rt_sigqueueinfo */
	case 200: /* tkill */
	case 202: /* futex */
	case 220: /* semtimedop */
	case 231: /* exit_group */
	case 234: /* tgkill */
	case 242: /* mq_timedsend */
	case 275: /* splice */
	case 276: /* tee */
	case 278: /* vmsplice */
	case 296: /* pwritev */
	case 297: /* rt_tgsigqueueinfo */
	case 307: /* sendmmsg */
	case 328: /* pwritev2 */
	case 424: /* pidfd_send_signal */
	case 426: /* io_uring_enter */
	case 454: /* futex_wake */
	case 456: /* futex_requeue */
		return true;
	}
	return false;
}

/*
 * Whether the wait @w (the wakee's last switch-out) ends by the hardware's doing, not a
 * thread's: a sleep (its timer), a regular file's or block device's I/O, a page fault.
 */
static __always_inline bool device_wait(const struct gr_ev_sched *w)
{
	return w->syscall < 0 || w->syscall == 35 /* nanosleep */ ||
	       w->syscall == 230 /* clock_nanosleep */ || w->fd_kind == 1 /* GR_FD_FILE */;
}

/* How many times @p has switched out: unchanged from its wakeup's sched_waking to its
 * sched_wakeup, since a sleeping thread runs only once woken. */
static __always_inline __u64 wakee_switches(struct task_struct *p)
{
	return BPF_CORE_READ(p, nvcsw) + BPF_CORE_READ(p, nivcsw);
}

/*
 * A traced task wakes @p, a thread that makes CUDA calls: the waker's record and stack, kept in
 * @p's blk_state for sched_wakeup to send (struct blk_state). Only a waker inside a system call
 * that wakes (waking_call()), of a thread whose wait a thread ends (not device_wait()): a
 * timer's or a disk's wakeup runs in whatever task it interrupted, which woke nobody.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct blk_state *bs, *ws;
	struct pt_regs *regs;

	if (!targ_sched || !blk_stacks() || !is_traced(p->tgid) || !is_traced(cur->tgid) ||
	    (cur->flags & PF_KTHREAD) || !bpf_task_storage_get(&thread_states, p, NULL, 0))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	if (!regs || !waking_call(blk_syscall(regs)))
		return 0;
	ws = bpf_task_storage_get(&blk_states, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ws || device_wait(&ws->ev))
		return 0;
	bs = bpf_task_storage_get(&blk_states, cur, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!bs)
		return 0;
	blk_fill(&ws->wake_ev, GR_EVS_WAKEUP, bpf_get_smp_processor_id(), cur, p, 0, 0);
	ws->wake_ev.h.stack_len = blocked_stack(bs, BLK_WAKE, regs, &ws->wake_ev, ws->wake_frames);
	ws->wake_ts = ws->wake_ev.h.ts;
	ws->wake_switches = wakee_switches(p);
	return 0;
}

/*
 * A wakeup's record: the one sched_waking kept when there is one, else with current as the
 * waker. The kept one is this wakeup's when @p has not switched since (wakee_switches()): a
 * wakeup onto an idle CPU is finished there, in its interrupt, as late as the hypervisor runs
 * that CPU (milliseconds on a busy host), and current there is whoever it interrupted. Within
 * GR_BLK_SITE_NS of its sched_waking it is too: @p may have finished switching out in between.
 */
static __always_inline int wakeup(__u8 sub, struct task_struct *p)
{
	__u32 cpu = BPF_CORE_READ(p, thread_info.cpu);
	struct blk_state *ws;

	if (!targ_sched || !is_traced(p->tgid))
		return 0;
	if (!BPF_CORE_READ(p, on_cpu))
		wait_begin(p, cpu);
	ws = blk_stacks() ? bpf_task_storage_get(&blk_states, p, NULL, 0) : NULL;
	if (ws && ws->wake_ts &&
	    (wakee_switches(p) == ws->wake_switches ||
	     bpf_ktime_get_ns() - ws->wake_ts < GR_BLK_SITE_NS)) {
		ws->wake_ts = 0;
		ws->wake_ev.h.ts = bpf_ktime_get_ns();
		ws->wake_ev.h.cpu = bpf_get_smp_processor_id();
		ws->wake_ev.sub = sub;
		ws->wake_ev.target_cpu = cpu;
		blk_output(&ws->wake_ev, ws->wake_ev.h.stack_len);
		return 0;
	}
	return emit_sched(sub, bpf_get_current_task_btf(), p, 0, cpu, -1, 0);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	return wakeup(GR_EVS_WAKEUP, p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	return wakeup(GR_EVS_WAKEUP_NEW, p);
}

/*
 * A traced thread moves to @dest_cpu: recorded with the CPU it leaves and, when this program runs
 * on that CPU (a push by its stopper thread, a wakeup there), the task running there: replay
 * charges it the end of the wait on that CPU. Elsewhere that task is not known here (the run
 * queues are not a symbol BPF can reach on every kernel): GR_EVS_NOBODY.
 */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(on_migrate, struct task_struct *p, int dest_cpu)
{
	__u32 from = BPF_CORE_READ(p, thread_info.cpu);
	struct task_struct *cur = bpf_get_current_task_btf();
	struct wait_state *w;
	struct gr_ev_sched *e;

	if (!targ_sched || !is_traced(p->tgid) || dest_cpu < 0 || dest_cpu >= GR_MAX_CPUS)
		return 0;
	w = bpf_task_storage_get(&wait_states, p, NULL, 0);
	if (w && w->cpu)
		wait_begin(p, dest_cpu);
	e = sched_reserve(GR_EVS_MIGRATE, from, 0, dest_cpu);
	if (!e)
		return 0;
	e->h.pid = p->tgid;
	e->h.tid = p->pid;
	copy_comm(e->prev_comm, p);
	e->next_pid = e->next_tid = GR_EVS_NOBODY;
	e->next_comm[0] = 0;
	if (bpf_get_smp_processor_id() == from) {
		e->next_pid = cur->tgid;
		e->next_tid = cur->pid;
		copy_comm(e->next_comm, cur);
	}
	bpf_ringbuf_submit(e, wake_flags());
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
