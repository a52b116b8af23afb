/* SPDX-License-Identifier: MIT */
/*
 * BPF events -> trace records. Owns what turning events into records needs to remember:
 * stack deduplication (hash of frames -> stack id), the last comm written per thread, kernel
 * names per (pid, function) for handle aliases and forks, the BPF loss counters last seen,
 * and the functions and frames the events referenced (struct gr_refs), which symbols.c names as
 * they first appear (record/symbols.h). Process events go on to discovery (record/discover.h).
 *
 * record.c sets it up once the trace is open, hands it every ring-buffer record and the loss
 * counters at each drain, and frees it at the end.
 */
#ifndef GR_RECORD_TRANSLATE_H
#define GR_RECORD_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/util/strtab.h"
#include "bpf/gpurec.h"
#include "addr_set.h"
#include "symbols.h"
#include "call_status.h"
#include "hold.h"
#include "stack_cut.h"
#include "u64map.h"

struct gr_trace_writer;
struct gr_procs;
struct gr_python;
struct gr_pyresolve;
struct gr_unwind;
struct gr_ringbuf;

/*
 * What the events referenced: symbols.c names each when first seen, and at the end what it
 * could not name then (record/symbols.h).
 */
struct gr_refs {
	struct gr_addr_set
	    funcs; /* launch funcs: named from their symbol when nothing named them */
	struct gr_addr_set frames; /* stack frames: symbolized */
	struct gr_u64map named;	   /* key(pid, func) -> 1 once a kernel NAME is written */
};

struct gr_translate {
	/* the caller's, given to gr_translate_init() */
	struct gr_trace_writer *w;
	struct gr_procs *procs;	  /* processes fork, exec and map files: discovery follows */
	struct gr_unwind *unwind; /* --call-graph dwarf: raw stacks are unwound; else NULL */
	int counters_fd;	  /* the BPF side's per-CPU loss counters (enum gr_counter) */
	/* which processes run a CPython whose frames are read (set after gr_translate_init();
	 * NULL: none does) */
	struct gr_python *py;
	/* when a held process is resumed (set after gr_translate_init(); zero: at every held
	 * event, uncounted) */
	struct gr_holds holds;

	struct gr_u64map stacks; /* hash of frames (before any cut) -> stack id */
	/* (tid, role) -> the stack id of the thread's last SCHED record of that role that walked
	 * one (0 switch-out, 1 waker): what a record marked GR_EVS_F_SAME has */
	struct gr_u64map blk_stacks;
	/* tid -> the thread's current device: its last successful cudaSetDevice (absent: 0) */
	struct gr_u64map cur_device;
	/* pid -> struct gr_py_pid * (translate.c): the Python stacks a process sent (EV_PYSTACK)
	 * and the PYFRAME keys of its frames, until it execs or exits */
	struct gr_u64map py_pids;
	struct gr_pyresolve *pyres; /* code objects -> file, line, function; NULL: none */
	uint64_t next_pyframe;	    /* PYFRAME keys given so far */
	struct gr_stack_cuts cuts;  /* stacks cut at a frame that is no code, per binary */
	uint64_t next_stack_id;
	struct gr_u64map comms; /* tid -> hash of the last comm written */
	/* key(pid, func) -> const char * raw name (in kernel_texts), until first launched */
	struct gr_u64map kernel_names;
	/* each distinct registered name once: every process that imports torch registers the
	 * same ~43k (the names live in kernel_arena) */
	struct gr_strtab kernel_texts;
	struct gr_arena kernel_arena;
	struct gr_addr_set named_keys; /* (pid, key) pairs in kernel_names, for fork inheritance */
	/* tid -> char * name of a driver lookup awaiting its handle */
	struct gr_u64map pending_name;
	struct gr_refs refs;
	struct gr_symbols sym;	     /* names, symbols and mappings written so far */
	struct gr_call_status calls; /* what the calls returned: record.c warns at the end */
	/* last values of the loss counters; record.c reads them for its closing line */
	uint64_t counters_seen[C_COUNT];
	/*
	 * --call-graph dwarf: while the ring holds more than unwind_backlog bytes (the recorder
	 * behind), raw stacks are not unwound, so that draining keeps up; counted, written as
	 * LOSS records (GR_LOSS_UNWIND_SKIPPED). rb NULL: always unwound.
	 */
	const struct gr_ringbuf *rb;
	uint64_t unwind_backlog;
	uint64_t unwind_skipped, unwind_skipped_seen; /* so far; written as LOSS so far */
	/* holds of the dynamic loader's debug hook (EV_MMAP without a file): -v says them */
	uint64_t loader_holds;
	/* records dropped as no event the BPF side sends (gr_translate_decode()): record.c says
	 * them at the end */
	uint64_t malformed;
	/*
	 * Set after gr_translate_init(): events are turned into records without asking or touching
	 * the processes they name (no /proc read, no signal, no discovery scan): bytes that did not
	 * come from the BPF side (tests/fuzz/fuzz_events.c). Else the live recorder.
	 */
	bool offline;
	bool device_sms_seen; /* GR_SESS_DEVICE_SMS written: the first SM count wins */
	int err;	      /* first error writing a record */
};

/* Start with nothing translated. @unwind may be NULL. Cannot fail. */
void gr_translate_init(struct gr_translate *t, struct gr_trace_writer *w, struct gr_procs *procs,
		       struct gr_unwind *unwind, int counters_fd);

/*
 * --call-graph dwarf: skip unwinding while @rb (the ring being drained) holds more than
 * @backlog bytes. Cannot fail.
 */
void gr_translate_unwind_limit(struct gr_translate *t, const struct gr_ringbuf *rb,
			       uint64_t backlog);

/*
 * Whether the @size bytes at @data are an event the BPF side sends (bpf/gpurec.h), one event of
 * a batch or a record of its own (not a batch: gr_batch_each() splits those): its type is known
 * and its size fits its type, its frames, raw stack or Python frames included. Reads nothing
 * past @size and nothing else. Returns the event's type (EV_*), or -EINVAL.
 */
int gr_translate_decode(const void *data, size_t size);

/*
 * A gr_ringbuf_fn (record/ringbuf.h), @ctx the struct gr_translate: turn one ring-buffer record
 * into trace records. A record gr_translate_decode() rejects, and a malformed batch, are counted
 * in t->malformed and skipped. Returns 0, to keep draining: the first error writing a record is
 * kept in t->err, to be reported once at the end.
 */
int gr_translate_event(void *ctx, void *data, size_t size);

/*
 * Turn increases of the BPF loss counters since the last call into LOSS records spanning
 * @since_ns .. @now_ns (CLOCK_MONOTONIC: the previous drain and this one). Returns 0, or -EIO
 * when a record could not be written.
 */
int gr_translate_losses(struct gr_translate *t, uint64_t since_ns, uint64_t now_ns);

/* Free what it remembers; @t is zeroed. */
void gr_translate_free(struct gr_translate *t);

#endif
