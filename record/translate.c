/* SPDX-License-Identifier: MIT */
/*
 * BPF events -> trace records. The BPF side captures raw argument registers; the meaning of
 * each register for each entry point (enum gr_layout) is decoded here, so the kernel side stays
 * small and the file format never depends on it.
 */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/gpurec.h"
#include "format/events.h"
#include "batch.h"
#include "discover.h"
#include "elf.h"
#include "record/python/pybuild.h"
#include "record/python/pymerge.h"
#include "record/python/pyresolve.h"
#include "record/python/python.h"
#include "rank_env.h"
#include "symbols.h"
#include "translate.h"
#include "watchdog.h"
#include "ringbuf.h"
#include "unwind.h"

#define LO32(v) ((uint64_t)(uint32_t)(v))
#define HI32(v) ((uint64_t)((v) >> 32))

/*
 * Whole words first: stacks are hashed at every event (16 frames of default stacks through
 * byte-wise FNV were a third of the recorder's time in a launch storm); the tail byte-wise.
 */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int write_name(struct gr_translate *t, uint64_t ts, unsigned cls, uint32_t pid, uint64_t key,
		      const char *text)
{
	uint64_t v[GR_NAME_NCOLS] = {ts, cls, pid, key, 0};
	struct gr_bytes b = {(const uint8_t *)text, (uint32_t)strlen(text)};

	return gr_trace_writer_append(t->w, GR_K_NAME, v, &b);
}

static int note_comm(struct gr_translate *t, uint64_t ts, uint32_t pid, uint32_t tid,
		     const char *comm, size_t maxlen)
{
	char buf[GR_COMM_LEN + 1];
	uint64_t h, *old;

	if (!tid)
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)maxlen, comm);
	h = hash_bytes(0xcbf29ce484222325ull, buf, strlen(buf)) | 1;
	old = gr_u64map_get(&t->comms, tid);
	if (old && *old == h)
		return 0;
	gr_u64map_put(&t->comms, tid, h);
	return write_name(t, ts, GR_NAME_COMM, pid, tid, buf);
}

/* Call events carry no comm: read it once per thread, while the thread most likely lives. */
static int note_thread(struct gr_translate *t, uint64_t ts, uint32_t pid, uint32_t tid)
{
	char path[64], comm[GR_COMM_LEN + 1] = "";
	FILE *f;

	if (gr_u64map_get(&t->comms, tid))
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	f = t->offline ? NULL : fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (!*comm)
		snprintf(comm, sizeof(comm), "%u", tid);
	return note_comm(t, ts, pid, tid, comm, GR_COMM_LEN);
}

/*
 * The id of the stack of @n @frames of @pid, a STACK record (and its frames' SYMBOLs) when new.
 * @leaf_pc: where the thread stopped when it is the innermost frame (a scheduler stack), else 0:
 * every other frame is a return address (symbols.h).
 */
static uint64_t stack_id(struct gr_translate *t, uint32_t pid, uint64_t ts, const uint64_t *frames,
			 unsigned n, uint64_t leaf_pc)
{
	uint64_t key = hash_bytes(0xcbf29ce484222325ull, &pid, sizeof(pid)), *id, kept_key = 0;
	uint64_t v[GR_STACK_NCOLS];
	struct gr_bytes b;
	unsigned kept;

	if (!n)
		return 0;
	key = hash_bytes(key, frames, n * 8ull) | 1;
	id = gr_u64map_get(&t->stacks, key);
	if (id)
		return *id;
	/* a new stack: end it where the walk left code; the cut one may be known already */
	kept = gr_stack_cut(&t->cuts, t->procs, pid, frames, n);
	if (kept < n) {
		kept_key = hash_bytes(hash_bytes(0xcbf29ce484222325ull, &pid, sizeof(pid)), frames,
				      kept * 8ull) |
			   1;
		id = gr_u64map_get(&t->stacks, kept_key);
		if (id) {
			gr_u64map_put(&t->stacks, key, *id);
			return *id;
		}
		n = kept;
	}
	v[GR_STACK_TS] = ts;
	v[GR_STACK_ID] = ++t->next_stack_id;
	v[GR_STACK_PID] = pid;
	b.data = (const uint8_t *)frames;
	b.len = n * 8;
	if (gr_u64map_put(&t->stacks, key, v[GR_STACK_ID]) ||
	    (kept_key && gr_u64map_put(&t->stacks, kept_key, v[GR_STACK_ID])))
		return 0;
	/* the frames' symbols go before the first record that uses the stack: same chunk or earlier
	 */
	for (unsigned i = 0; i < n; i++) {
		uint64_t frame =
		    frames[i] | (!i && leaf_pc && leaf_pc == frames[0] ? GR_SYM_LEAF_PC : 0);
		int err;

		if (GR_FRAME_IS_PYTHON(frames[i]))
			continue; /* named by its PYFRAME record */
		err = gr_addr_set_add(&t->refs.frames, pid, frame);

		if (err > 0)
			err = gr_symbols_frame(&t->sym, ts, pid, frame);
		if (err < 0 && !t->err)
			t->err = err;
	}
	if (gr_trace_writer_append(t->w, GR_K_STACK, v, &b))
		return 0;
	return v[GR_STACK_ID];
}

/* ---- Python frames: EV_PYSTACK records, merged into the stacks of the events that use them */

/* What translate keeps of one process's Python stacks. */
struct gr_py_pid {
	struct gr_u64map stacks; /* pystack id -> struct py_stack * */
	struct gr_u64map frames; /* key(code, lasti) -> PYFRAME key */
};

struct py_stack {
	uint32_t nframes, flags;
	struct gr_py_frame frames[];
};

static struct gr_py_pid *py_pid(struct gr_translate *t, uint32_t pid, int create)
{
	uint64_t *v = gr_u64map_get(&t->py_pids, pid);
	struct gr_py_pid *p;

	if (v && *v)
		return (struct gr_py_pid *)(uintptr_t)*v;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p || gr_u64map_put(&t->py_pids, pid, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	return p;
}

static void py_pid_free(struct gr_py_pid *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->stacks.cap; i++)
		if (p->stacks.keys[i])
			free((void *)(uintptr_t)p->stacks.vals[i]);
	gr_u64map_free(&p->stacks);
	gr_u64map_free(&p->frames);
	free(p);
}

/* @pid execs or exits: its code addresses mean nothing now. */
static void py_forget(struct gr_translate *t, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&t->py_pids, pid);

	if (v) {
		py_pid_free((struct gr_py_pid *)(uintptr_t)*v);
		*v = 0; /* u64map has no removal: 0 is none (py_pid()) */
	}
	if (t->pyres)
		gr_pyresolve_forget(t->pyres, pid);
	if (t->py)
		gr_python_forget(t->py, pid);
}

/* EV_PYSTACK: kept until an event uses it (and after: later events may use it again). */
static int on_pystack(struct gr_translate *t, const struct gr_ev_pystack *e, size_t size)
{
	size_t bytes = offsetof(struct gr_ev_pystack, frames);
	struct gr_py_pid *p;
	struct py_stack *s;

	if (size < bytes || !e->id || e->nframes > GR_PY_MAX_FRAMES ||
	    size < bytes + e->nframes * sizeof(struct gr_py_frame))
		return 0;
	p = py_pid(t, e->h.pid, 1);
	if (!p)
		return -ENOMEM;
	if (gr_u64map_get(&p->stacks, e->id))
		return 0;
	s = malloc(sizeof(*s) + e->nframes * sizeof(struct gr_py_frame));
	if (!s)
		return -ENOMEM;
	s->nframes = e->nframes;
	s->flags = e->flags;
	memcpy(s->frames, e->frames, e->nframes * sizeof(struct gr_py_frame));
	if (gr_u64map_put(&p->stacks, e->id, (uintptr_t)s)) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The PYFRAME key of frame @f of @pid, the record written (resolved now, while the process
 * lives) when the frame is new: 0 when it cannot be written.
 */
static uint64_t pyframe_key(struct gr_translate *t, struct gr_py_pid *p, uint32_t pid, uint64_t ts,
			    const struct gr_python_proc *pp, const struct gr_py_frame *f)
{
	uint64_t k = gr_u64_key2(f->code, f->lasti), *known = gr_u64map_get(&p->frames, k);
	struct gr_py_site site = {"", "<unknown>", 0};
	uint64_t v[GR_PYF_NCOLS] = {0};
	struct gr_bytes b[2];

	if (known)
		return *known;
	if (!t->pyres ||
	    gr_pyresolve_frame(t->pyres, pid, pp->build, pp->bias, f->code, f->lasti, &site))
		site = (struct gr_py_site){"", "<unknown>", 0};
	v[GR_PYF_TS] = ts;
	v[GR_PYF_KEY] = GR_FRAME_PYTHON | (t->next_pyframe + 1);
	v[GR_PYF_PID] = pid;
	v[GR_PYF_LINE] = site.line;
	b[0] = (struct gr_bytes){(const uint8_t *)site.file, (uint32_t)strlen(site.file)};
	b[1] = (struct gr_bytes){(const uint8_t *)site.function, (uint32_t)strlen(site.function)};
	if (gr_u64map_put(&p->frames, k, v[GR_PYF_KEY]))
		return 0;
	t->next_pyframe++;
	/* before the STACK that uses it */
	if (gr_trace_writer_append(t->w, GR_K_PYFRAME, v, b))
		return 0;
	return v[GR_PYF_KEY];
}

/*
 * An EV_PYSTACK's frames resolved now, while their code objects live: the BPF side held the
 * process (GR_PYS_STOPPED) until this is done, so a stack first seen just before the process
 * exits is resolved before it finalises its modules. Resumes it.
 */
static int on_pystack_held(struct gr_translate *t, const struct gr_ev_pystack *e, size_t size)
{
	const struct gr_python_proc *pp = t->py ? gr_python_proc(t->py, e->h.pid) : NULL;
	bool held = (e->flags & GR_PYS_STOPPED) && !t->offline;
	struct gr_py_pid *p;
	int err;

	if (held)
		gr_holds_test_delay();
	err = on_pystack(t, e, size);

	p = err ? NULL : py_pid(t, e->h.pid, 0);
	for (uint32_t i = 0; pp && p && i < e->nframes && i < GR_PY_MAX_FRAMES; i++)
		pyframe_key(t, p, e->h.pid, e->h.ts, pp, &e->frames[i]);
	if (held)
		gr_holds_release(&t->holds, e->h.pid);
	return err;
}

/*
 * The stack id of an event's @n native frames and its Python stack @pystack: merged
 * (pymerge.h) when the process sent that stack, the native frames alone when not (not a
 * Python event, or its EV_PYSTACK was lost). The native frames are cut first where they leave
 * code (stack_cut.h), so that the Python frames stay; the pair (native frames, pystack) is
 * remembered with its stack id, so a stack seen before costs one hash.
 */
static uint64_t event_stack_id(struct gr_translate *t, const struct gr_ev_hdr *h,
			       const uint64_t *frames, unsigned n, uint64_t pystack)
{
	/* a scheduler stack begins where the thread entered the kernel, not at a return address */
	uint64_t leaf_pc = h->type == EV_SCHED && n ? frames[0] : 0;
	uint64_t merged[GR_MAX_FRAMES + GR_PY_MAX_FRAMES], lo, *v, key, id;
	const struct gr_python_proc *pp;
	const struct py_stack *s;
	struct gr_py_pid *p;
	uint64_t *sv;
	unsigned m;

	if (!pystack || !t->py || !(pp = gr_python_proc(t->py, h->pid)) ||
	    !(p = py_pid(t, h->pid, 0)) || !(sv = gr_u64map_get(&p->stacks, pystack)))
		return stack_id(t, h->pid, h->ts, frames, n, leaf_pc);
	if (n > GR_MAX_FRAMES)
		n = GR_MAX_FRAMES;
	key = hash_bytes(0xcbf29ce484222325ull, &h->pid, sizeof(h->pid));
	key = hash_bytes(hash_bytes(key, frames, n * 8ull), &pystack, sizeof(pystack)) | 1;
	v = gr_u64map_get(&t->stacks, key);
	if (v)
		return *v;
	s = (const struct py_stack *)(uintptr_t)*sv;
	n = gr_stack_cut(&t->cuts, t->procs, h->pid, frames, n);
	lo = pp->build->eval_start + pp->bias;
	m = gr_pymerge(frames, n, s->frames, s->nframes, lo, lo + pp->build->eval_size, merged);
	for (unsigned i = 0; i < m; i++) {
		if (!GR_FRAME_IS_PYTHON(merged[i]))
			continue;
		merged[i] =
		    pyframe_key(t, p, h->pid, h->ts, pp, &s->frames[merged[i] & ~GR_FRAME_PYTHON]);
		if (!merged[i])
			return stack_id(t, h->pid, h->ts, frames, n, leaf_pc);
	}
	id = stack_id(t, h->pid, h->ts, merged, m, leaf_pc);
	if (id)
		gr_u64map_put(&t->stacks, key, id);
	return id;
}

/*
 * --call-graph dwarf: unwind the registers and stack bytes now, while the files they ran are
 * open; the frames then take the path of frame-pointer stacks (deduplicated STACK records).
 * Keep the copy too (RAWSTACK, as perf's user stack dump), cut after the last byte the unwinder
 * read when it reached the outermost frame: an offline unwinder with the same files reads no
 * further, and the rest of the copy (most of it, often) is dead stack.
 *
 * Without a stack (0): a raw stack the BPF side left out (GR_RAW_SHED, counted there), or one
 * that arrives while the recorder is behind: unwinding costs several us an event, and a
 * recorder that cannot keep up would overflow the ring and lose events, not stacks. Neither
 * is kept as a RAWSTACK record (compressing the copy costs nearly as much).
 */
static uint64_t raw_stack_id(struct gr_translate *t, const struct gr_ev_hdr *h,
			     const struct gr_ev_rawstack *r, uint64_t pystack)
{
	uint64_t v[GR_RAW_NCOLS] = {0}, regs[GR_NREGS + 1], frames[GR_MAX_FRAMES];
	struct gr_bytes b[2];
	uint32_t needed;
	unsigned n;
	int err;

	if (r->flags & GR_RAW_SHED)
		return 0;
	if (t->rb && gr_ringbuf_backlog(t->rb) > t->unwind_backlog) {
		t->unwind_skipped++;
		return 0;
	}
	n = gr_unwind_stack(t->unwind, t->procs, h->pid, h->tid, r, frames, GR_MAX_FRAMES, &needed);
	v[GR_RAW_TS] = h->ts;
	v[GR_RAW_PID] = h->pid;
	v[GR_RAW_TID] = h->tid;
	/* regs: the GR_REG_* order of bpf/gpurec.h, then the GR_RAW_* flags */
	memcpy(regs, r->regs, sizeof(r->regs));
	regs[GR_NREGS] = r->flags;
	b[0] = (struct gr_bytes){(const uint8_t *)regs, sizeof(regs)};
	b[1] = (struct gr_bytes){(const uint8_t *)(r + 1), needed};
	err = gr_trace_writer_append(t->w, GR_K_RAWSTACK, v, b);
	if (err && !t->err)
		t->err = err;
	return event_stack_id(t, h, frames, n, pystack);
}

static int is_async(unsigned api)
{
	return strstr(gr_api_name(api), "Async") != NULL;
}

/*
 * The "status" and "call" columns of call event @e: the return value, when the call returned (a
 * cudaError_t or CUresult: 32 bits, the rest of rax is not the callee's), and how the call was
 * seen: returned, in flight at its thread's exit or the recording's end, and its depth.
 */
static void call_columns(const struct gr_ev_call *e, uint64_t *status, uint64_t *call)
{
	unsigned f = e->h.flags;

	*status = (f & GR_EVF_RETURNED) ? (uint32_t)e->ret : 0;
	*call = ((f & GR_EVF_RETURNED) ? GR_CALL_RETURNED : 0) |
		((f & GR_EVF_IN_FLIGHT) ? GR_CALL_IN_FLIGHT : 0) |
		((f & GR_EVF_EXITED) ? GR_CALL_EXITED : 0) |
		(uint64_t)GR_EVF_DEPTH(f) << GR_CALL_DEPTH_SHIFT;
}

/* call_columns(), and the call counted for record's closing line: once per call. */
static void call_state(struct gr_translate *t, const struct gr_ev_call *e, uint64_t *status,
		       uint64_t *call)
{
	call_columns(e, status, call);
	/* counted from the columns written, so record's warning counts the calls info counts */
	gr_call_status_note(&t->calls, e->h.api, (uint32_t)*status, *call);
}

static int name_kernel(struct gr_translate *t, uint64_t ts, uint32_t pid, uint64_t key,
		       const char *raw);

/*
 * A function launched for the first time in @pid: named now, before the launch record, so that
 * the chunk holding the launch (or an earlier one) holds its name. From its registration when
 * one named it (written only now: a process registers every kernel of every library it loads,
 * tens of thousands for PyTorch, and launches a few hundred), else from its symbol.
 */
static int note_function(struct gr_translate *t, uint64_t ts, uint32_t pid, uint64_t func)
{
	uint64_t nk = gr_u64_key2(pid, func), *registered;
	int err = gr_addr_set_add(&t->refs.funcs, pid, func);

	if (err <= 0 || gr_u64map_get(&t->refs.named, nk))
		return err < 0 ? err : 0;
	registered = gr_u64map_get(&t->kernel_names, nk);
	if (registered && *(const char *)(uintptr_t)*registered)
		return name_kernel(t, ts, pid, func, (const char *)(uintptr_t)*registered);
	err = gr_symbols_function(&t->sym, ts, pid, func);
	if (err > 0)
		err = gr_u64map_put(&t->refs.named, nk, 1);
	return err;
}

static int on_launch(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {0};
	int err;

	v[GR_LAUNCH_TS] = e->h.ts;
	call_state(t, e, &v[GR_LAUNCH_STATUS], &v[GR_LAUNCH_CALL]);
	v[GR_LAUNCH_DUR] = e->h.dur;
	v[GR_LAUNCH_PID] = e->h.pid;
	v[GR_LAUNCH_TID] = e->h.tid;
	v[GR_LAUNCH_CPU] = e->h.cpu;
	v[GR_LAUNCH_API] = e->h.api;
	v[GR_LAUNCH_STACK] = stack;
	switch (e->h.layout) {
	case L_RT_LAUNCH: /* dim3 by value: x|y<<32 in one register, z in the next */
		v[GR_LAUNCH_FUNC] = e->r[0];
		v[GR_LAUNCH_GX] = LO32(e->r[1]);
		v[GR_LAUNCH_GY] = HI32(e->r[1]);
		v[GR_LAUNCH_GZ] = LO32(e->r[2]);
		v[GR_LAUNCH_BX] = LO32(e->r[3]);
		v[GR_LAUNCH_BY] = HI32(e->r[3]);
		v[GR_LAUNCH_BZ] = LO32(e->r[4]);
		v[GR_LAUNCH_SHMEM] = e->s[0];
		v[GR_LAUNCH_STREAM] = e->s[1];
		break;
	case L_CU_LAUNCH:
		v[GR_LAUNCH_FUNC] = e->r[0];
		v[GR_LAUNCH_GX] = LO32(e->r[1]);
		v[GR_LAUNCH_GY] = LO32(e->r[2]);
		v[GR_LAUNCH_GZ] = LO32(e->r[3]);
		v[GR_LAUNCH_BX] = LO32(e->r[4]);
		v[GR_LAUNCH_BY] = LO32(e->r[5]);
		v[GR_LAUNCH_BZ] = LO32(e->s[0]);
		v[GR_LAUNCH_SHMEM] = LO32(e->s[1]);
		v[GR_LAUNCH_STREAM] = e->s[2];
		break;
	case L_RT_LAUNCH_EXC:
	case L_CU_LAUNCH_EX: /* config struct: 3+3 u32 dims, shared mem, stream at 32 */
		v[GR_LAUNCH_FUNC] = e->r[1];
		v[GR_LAUNCH_GX] = LO32(e->x[0]);
		v[GR_LAUNCH_GY] = HI32(e->x[0]);
		v[GR_LAUNCH_GZ] = LO32(e->x[1]);
		v[GR_LAUNCH_BX] = HI32(e->x[1]);
		v[GR_LAUNCH_BY] = LO32(e->x[2]);
		v[GR_LAUNCH_BZ] = HI32(e->x[2]);
		v[GR_LAUNCH_SHMEM] = e->h.layout == L_CU_LAUNCH_EX ? LO32(e->x[3]) : e->x[3];
		v[GR_LAUNCH_STREAM] = e->x[4];
		v[GR_LAUNCH_CLUSTER_X] = LO32(e->x[GR_X_CLUSTER]);
		v[GR_LAUNCH_CLUSTER_Y] = HI32(e->x[GR_X_CLUSTER]);
		v[GR_LAUNCH_CLUSTER_Z] = LO32(e->x[GR_X_CLUSTER + 1]);
		break;
	}
	err = note_function(t, e->h.ts, e->h.pid, v[GR_LAUNCH_FUNC]);
	if (err)
		return err;
	return gr_trace_writer_append(t->w, GR_K_LAUNCH, v, NULL);
}

/* The COPY row of call @e: a copy call's (on_copy()) or a graph memcpy node's. */
static int append_copy(struct gr_translate *t, const struct gr_ev_call *e, uint64_t dst,
		       uint64_t src, uint64_t bytes, uint64_t kind, uint64_t stream, uint64_t flags,
		       uint64_t stack)
{
	uint64_t v[GR_COPY_NCOLS] = {0};

	v[GR_COPY_TS] = e->h.ts;
	call_state(t, e, &v[GR_COPY_STATUS], &v[GR_COPY_CALL]);
	v[GR_COPY_DUR] = e->h.dur;
	v[GR_COPY_PID] = e->h.pid;
	v[GR_COPY_TID] = e->h.tid;
	v[GR_COPY_CPU] = e->h.cpu;
	v[GR_COPY_API] = e->h.api;
	v[GR_COPY_DST] = dst;
	v[GR_COPY_SRC] = src;
	v[GR_COPY_BYTES] = bytes;
	v[GR_COPY_CKIND] = LO32(kind) <= GR_COPY_DEFAULT ? LO32(kind) : GR_COPY_DEFAULT;
	v[GR_COPY_STREAM] = stream;
	v[GR_COPY_FLAGS] = flags;
	v[GR_COPY_STACK] = stack;
	return gr_trace_writer_append(t->w, GR_K_COPY, v, NULL);
}

static int on_copy(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t flags = is_async(e->h.api) ? GR_COPY_F_ASYNC : 0;
	uint64_t dst = e->r[0], src = e->r[1], bytes = e->r[2], kind = e->r[3], stream = 0;

	switch (e->h.layout) {
	case L_MEMCPY_ASYNC:
		stream = e->r[4];
		break;
	case L_MEMCPY_2D_ASYNC:
		stream = e->s[1];
		/* fallthrough */
	case L_MEMCPY_2D:
		src = e->r[2];
		bytes = e->r[4] * e->r[5];
		kind = e->s[0];
		flags |= GR_COPY_F_2D;
		break;
	case L_MEMCPY_3D_ASYNC:
		stream = e->r[1];
		/* fallthrough */
	case L_MEMCPY_3D:
		src = e->x[0];
		dst = e->x[1];
		bytes = e->x[2] * e->x[3] * e->x[4];
		kind = LO32(e->x[5]);
		flags |= GR_COPY_F_3D;
		break;
	case L_MEMCPY_PEER_ASYNC:
		stream = e->r[5];
		/* fallthrough */
	case L_MEMCPY_PEER:
		src = e->r[2];
		bytes = e->r[4];
		kind = GR_COPY_D2D;
		flags |= GR_COPY_F_PEER;
		break;
	case L_MEMCPY_TO_SYM_ASYNC:
	case L_MEMCPY_FROM_SYM_ASYNC:
		stream = e->r[5];
		/* fallthrough */
	case L_MEMCPY_TO_SYM:
	case L_MEMCPY_FROM_SYM:
		kind = LO32(e->r[4]);
		flags |= GR_COPY_F_SYMBOL;
		break;
	case L_CU_MEMCPY_HTOD:
	case L_CU_MEMCPY_DTOH:
	case L_CU_MEMCPY_DTOD:
	case L_CU_MEMCPY:
		kind = e->h.layout == L_CU_MEMCPY_HTOD	 ? GR_COPY_H2D
		       : e->h.layout == L_CU_MEMCPY_DTOH ? GR_COPY_D2H
		       : e->h.layout == L_CU_MEMCPY_DTOD ? GR_COPY_D2D
							 : GR_COPY_DEFAULT;
		stream = (flags & GR_COPY_F_ASYNC) ? e->r[3] : 0;
		flags |= GR_COPY_F_DRIVER;
		break;
	}
	return append_copy(t, e, dst, src, bytes, kind, stream, flags, stack);
}

/* The MEMSET row of call @e: a memset call's (on_memset()) or a graph memset node's. */
static int append_memset(struct gr_translate *t, const struct gr_ev_call *e, uint64_t dst,
			 uint64_t value, uint64_t bytes, uint64_t stream, uint64_t flags,
			 uint64_t stack)
{
	uint64_t v[GR_MEMSET_NCOLS] = {0};

	v[GR_MEMSET_TS] = e->h.ts;
	call_state(t, e, &v[GR_MEMSET_STATUS], &v[GR_MEMSET_CALL]);
	v[GR_MEMSET_DUR] = e->h.dur;
	v[GR_MEMSET_PID] = e->h.pid;
	v[GR_MEMSET_TID] = e->h.tid;
	v[GR_MEMSET_CPU] = e->h.cpu;
	v[GR_MEMSET_API] = e->h.api;
	v[GR_MEMSET_DST] = dst;
	v[GR_MEMSET_VALUE] = value;
	v[GR_MEMSET_BYTES] = bytes;
	v[GR_MEMSET_STREAM] = stream;
	v[GR_MEMSET_FLAGS] = flags;
	v[GR_MEMSET_STACK] = stack;
	return gr_trace_writer_append(t->w, GR_K_MEMSET, v, NULL);
}

static int on_memset(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	int async = is_async(e->h.api);

	return append_memset(t, e, e->r[0], LO32(e->r[1]),
			     e->h.layout == L_CU_MEMSET_D32 ? e->r[2] * 4 : e->r[2],
			     async ? e->r[3] : 0, async ? GR_COPY_F_ASYNC : 0, stack);
}

static unsigned alloc_kind(unsigned api)
{
	switch (api) {
	case GR_API_cudaMallocAsync:
	case GR_API_cudaMallocAsync_ptsz:
	case GR_API_cudaMallocFromPoolAsync:
	case GR_API_cudaMallocFromPoolAsync_ptsz:
	case GR_API_cudaFreeAsync:
	case GR_API_cudaFreeAsync_ptsz:
	case GR_API_cuMemAllocAsync:
	case GR_API_cuMemAllocAsync_ptsz:
	case GR_API_cuMemAllocFromPoolAsync:
	case GR_API_cuMemAllocFromPoolAsync_ptsz:
	case GR_API_cuMemFreeAsync:
	case GR_API_cuMemFreeAsync_ptsz:
		return GR_ALLOC_DEVICE_ASYNC;
	case GR_API_cudaMallocManaged:
	case GR_API_cuMemAllocManaged:
		return GR_ALLOC_MANAGED;
	case GR_API_cudaMallocHost:
	case GR_API_cudaHostAlloc:
	case GR_API_cudaFreeHost:
	case GR_API_cuMemAllocHost:
	case GR_API_cuMemHostAlloc:
	case GR_API_cuMemFreeHost:
		return GR_ALLOC_HOST_PINNED;
	case GR_API_cudaHostRegister:
	case GR_API_cudaHostUnregister:
	case GR_API_cuMemHostRegister:
	case GR_API_cuMemHostUnregister:
		return GR_ALLOC_HOST_REGISTERED;
	case GR_API_cudaMallocArray:
	case GR_API_cudaMalloc3DArray:
	case GR_API_cudaMallocMipmappedArray:
	case GR_API_cudaFreeArray:
	case GR_API_cudaFreeMipmappedArray:
	case GR_API_cuArrayCreate:
	case GR_API_cuArray3DCreate:
	case GR_API_cuMipmappedArrayCreate:
	case GR_API_cuArrayDestroy:
	case GR_API_cuMipmappedArrayDestroy:
		return GR_ALLOC_ARRAY;
	case GR_API_cuMemCreate:
	case GR_API_cuMemRelease:
		return GR_ALLOC_VMM_PHYSICAL;
	case GR_API_cuMemMap:
	case GR_API_cuMemUnmap:
		return GR_ALLOC_VMM_MAP;
	case GR_API_cuMemAddressReserve:
	case GR_API_cuMemAddressFree:
		return GR_ALLOC_VMM_RESERVE;
	default:
		return GR_ALLOC_DEVICE;
	}
}

static int from_pool(unsigned api)
{
	return api == GR_API_cudaMallocFromPoolAsync ||
	       api == GR_API_cudaMallocFromPoolAsync_ptsz ||
	       api == GR_API_cuMemAllocFromPoolAsync || api == GR_API_cuMemAllocFromPoolAsync_ptsz;
}

static uint64_t at_least_1(uint64_t v)
{
	return v ? v : 1;
}

/*
 * The bytes a CUDA array's elements take: each element the bits of its channel format's four
 * components (x[GR_X_CHANNEL..]: x | y << 32, z | w << 32), times width x height x depth (0 in
 * a dimension the array lacks). A mipmapped array: its level 0. The driver's padding is not
 * known: these are the bytes asked for.
 */
/*
 * The bytes of one channel of a CUarray_format (cuda.h): the 8, 16 and 32-bit integer, half
 * and float formats; 0 for the packed and block-compressed ones, whose size is not per channel.
 */
static uint64_t cu_format_bytes(uint32_t format)
{
	switch (format) {
	case 0x01: /* CU_AD_FORMAT_UNSIGNED_INT8 */
	case 0x08: /* SIGNED_INT8 */
		return 1;
	case 0x02: /* UNSIGNED_INT16 */
	case 0x09: /* SIGNED_INT16 */
	case 0x10: /* HALF */
		return 2;
	case 0x03: /* UNSIGNED_INT32 */
	case 0x0a: /* SIGNED_INT32 */
	case 0x20: /* FLOAT */
		return 4;
	default:
		return 0;
	}
}

/*
 * The driver's arrays: the descriptor's width x height (x depth), a missing dimension 1, times
 * its format's channel bytes x its channels (x[GR_X_CHANNEL..], bpf/gpurec.h).
 */
static uint64_t cu_array_bytes(const struct gr_ev_call *e)
{
	const __u64 *d = &e->x[GR_X_CHANNEL];
	uint64_t fmt = e->h.layout == L_CU_ARRAY ? d[2] : d[3];
	uint64_t n = d[0] * at_least_1(d[1]) * (e->h.layout == L_CU_ARRAY ? 1 : at_least_1(d[2]));
	uint64_t channels = fmt >> 32;

	return channels <= 4 ? n * cu_format_bytes((uint32_t)fmt) * channels : 0;
}

static uint64_t array_bytes(const struct gr_ev_call *e)
{
	uint64_t c0 = e->x[GR_X_CHANNEL], c1 = e->x[GR_X_CHANNEL + 1];
	uint64_t bits = (uint64_t)(uint32_t)c0 + (c0 >> 32) + (uint32_t)c1 + (c1 >> 32);
	uint64_t n = e->h.layout == L_MALLOC_ARRAY
			 ? e->r[2] * at_least_1(e->r[3])
			 : e->s[0] * at_least_1(e->s[1]) * at_least_1(e->s[2]);

	/* each component is at most 32 bits: a bigger sum is not a channel format */
	return bits <= 128 ? n * (bits / 8) : 0;
}

/*
 * What an allocation call holds: its size argument, or for pitched ones pitch x height
 * (x depth) as allocated; a pitched call that failed returned no pitch: the width asked then.
 */
static uint64_t alloc_bytes(const struct gr_ev_call *e, int ok)
{
	switch (e->h.layout) {
	case L_MALLOC_PITCH: /* cudaMallocPitch(out, pitch, width, height) and cuMemAllocPitch */
		return (ok ? e->x[1] : e->r[2]) * e->r[3];
	case L_MALLOC_3D: /* cudaMalloc3D(out, extent {width, height, depth} at [sp+8]) */
		return (ok ? e->x[1] : e->s[0]) * at_least_1(e->s[1]) * at_least_1(e->s[2]);
	case L_MALLOC_ARRAY:
	case L_MALLOC_3D_ARRAY:
		return array_bytes(e);
	case L_CU_ARRAY:
	case L_CU_ARRAY_3D:
		return cu_array_bytes(e);
	default:
		return e->r[1];
	}
}

static uint64_t alloc_stream(const struct gr_ev_call *e, unsigned kind)
{
	if (kind != GR_ALLOC_DEVICE_ASYNC)
		return 0;
	return from_pool(e->h.api) ? e->r[3] : e->r[2];
}

static uint64_t alloc_handle(const struct gr_ev_call *e)
{
	if (from_pool(e->h.api))
		return e->r[2];
	return e->h.api == GR_API_cuMemMap ? e->r[3] : 0; /* (ptr, size, offset, handle, flags) */
}

static int on_alloc(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_ALLOC_NCOLS] = {0}, *dev;
	unsigned kind = alloc_kind(e->h.api);
	int ok = (e->h.flags & GR_EVF_RETURNED) && (uint32_t)e->ret == 0;

	v[GR_ALLOC_TS] = e->h.ts;
	call_state(t, e, &v[GR_ALLOC_STATUS], &v[GR_ALLOC_CALL]);
	v[GR_ALLOC_DUR] = e->h.dur;
	v[GR_ALLOC_PID] = e->h.pid;
	v[GR_ALLOC_TID] = e->h.tid;
	v[GR_ALLOC_API] = e->h.api;
	/* a failed call allocated nothing, one in flight nothing yet: address 0 */
	v[GR_ALLOC_ADDR] = !ok ? 0 : e->h.layout == L_HOST_REGISTER ? e->r[0] : e->x[0];
	v[GR_ALLOC_BYTES] = alloc_bytes(e, ok);
	v[GR_ALLOC_AKIND] = kind;
	v[GR_ALLOC_STREAM] = alloc_stream(e, kind);
	v[GR_ALLOC_STACK] = stack;
	v[GR_ALLOC_HANDLE] = alloc_handle(e);
	dev = gr_u64map_get(&t->cur_device, e->h.tid);
	v[GR_ALLOC_DEVICE_ORD] = dev ? *dev : 0;
	return gr_trace_writer_append(t->w, GR_K_ALLOC, v, NULL);
}

static int on_free(struct gr_translate *t, const struct gr_ev_call *e)
{
	uint64_t v[GR_FREE_NCOLS] = {0};

	v[GR_FREE_TS] = e->h.ts;
	call_state(t, e, &v[GR_FREE_STATUS], &v[GR_FREE_CALL]);
	v[GR_FREE_DUR] = e->h.dur;
	v[GR_FREE_PID] = e->h.pid;
	v[GR_FREE_TID] = e->h.tid;
	v[GR_FREE_API] = e->h.api;
	v[GR_FREE_ADDR] = e->r[0];
	v[GR_FREE_AKIND] = alloc_kind(e->h.api);
	return gr_trace_writer_append(t->w, GR_K_FREE, v, NULL);
}

/*
 * cudaMemGetInfo / cuMemGetInfo: what it answered, 0 and 0 when it failed (garbage then). A
 * query, not counted among the calls record's closing line counts: info counts the calls of the
 * API call kinds, and both count by one definition.
 */
static int on_meminfo(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_MEMINFO_NCOLS] = {0};
	int ok = (e->h.flags & GR_EVF_RETURNED) && (uint32_t)e->ret == 0;

	v[GR_MEMINFO_TS] = e->h.ts;
	call_columns(e, &v[GR_MEMINFO_STATUS], &v[GR_MEMINFO_CALL]);
	v[GR_MEMINFO_DUR] = e->h.dur;
	v[GR_MEMINFO_PID] = e->h.pid;
	v[GR_MEMINFO_TID] = e->h.tid;
	v[GR_MEMINFO_API] = e->h.api;
	v[GR_MEMINFO_FREE] = ok ? e->x[0] : 0;
	v[GR_MEMINFO_TOTAL] = ok ? e->x[1] : 0;
	v[GR_MEMINFO_STACK] = stack;
	return gr_trace_writer_append(t->w, GR_K_MEMINFO, v, NULL);
}

static unsigned sync_kind(unsigned api)
{
	switch (api) {
	case GR_API_cudaStreamSynchronize:
	case GR_API_cudaStreamSynchronize_ptsz:
	case GR_API_cuStreamSynchronize:
		return GR_SYNC_STREAM;
	case GR_API_cudaEventSynchronize:
	case GR_API_cuEventSynchronize:
		return GR_SYNC_EVENT;
	case GR_API_cudaStreamWaitEvent:
	case GR_API_cudaStreamWaitEvent_ptsz:
	case GR_API_cuStreamWaitEvent:
		return GR_SYNC_STREAM_WAIT_EVENT;
	case GR_API_cudaEventRecord:
	case GR_API_cudaEventRecord_ptsz:
	case GR_API_cuEventRecord:
		return GR_SYNC_EVENT_RECORD;
	default:
		return GR_SYNC_DEVICE;
	}
}

static int on_sync(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_SYNC_NCOLS] = {0};
	unsigned kind = sync_kind(e->h.api);

	v[GR_SYNC_TS] = e->h.ts;
	call_state(t, e, &v[GR_SYNC_STATUS], &v[GR_SYNC_CALL]);
	v[GR_SYNC_DUR] = e->h.dur;
	v[GR_SYNC_PID] = e->h.pid;
	v[GR_SYNC_TID] = e->h.tid;
	v[GR_SYNC_CPU] = e->h.cpu;
	v[GR_SYNC_API] = e->h.api;
	v[GR_SYNC_SKIND] = kind;
	v[GR_SYNC_STACK] = stack;
	if (e->h.layout == L_SYNC_HANDLE) {
		v[GR_SYNC_HANDLE] = e->r[0];
	} else if (e->h.layout == L_SYNC_HANDLE2) {
		/* StreamWaitEvent(stream, event); EventRecord(event, stream): stream first */
		int record = kind == GR_SYNC_EVENT_RECORD;

		v[GR_SYNC_HANDLE] = record ? e->r[1] : e->r[0];
		v[GR_SYNC_HANDLE2] = record ? e->r[0] : e->r[1];
	}
	return gr_trace_writer_append(t->w, GR_K_SYNC, v, NULL);
}

static unsigned comm_kind(unsigned api)
{
	switch (api) {
	case GR_API_ncclAllReduce:
		return GR_COMM_ALL_REDUCE;
	case GR_API_ncclReduceScatter:
		return GR_COMM_REDUCE_SCATTER;
	case GR_API_ncclAllGather:
		return GR_COMM_ALL_GATHER;
	case GR_API_ncclBroadcast:
		return GR_COMM_BROADCAST;
	case GR_API_ncclReduce:
		return GR_COMM_REDUCE;
	case GR_API_ncclSend:
		return GR_COMM_SEND;
	case GR_API_ncclRecv:
		return GR_COMM_RECV;
	case GR_API_ncclGroupStart:
		return GR_COMM_GROUP_START;
	case GR_API_ncclGroupEnd:
		return GR_COMM_GROUP_END;
	case GR_API_ncclCommDestroy:
		return GR_COMM_DESTROY;
	default:
		return GR_COMM_INIT;
	}
}

/* An NCCL call: its arguments where its layout (bpf/gpurec.h) puts them. ints are 32 bits. */
static int on_comm(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_COMM_NCOLS] = {0};

	v[GR_COMM_TS] = e->h.ts;
	call_state(t, e, &v[GR_COMM_STATUS], &v[GR_COMM_CALL]);
	v[GR_COMM_DUR] = e->h.dur;
	v[GR_COMM_PID] = e->h.pid;
	v[GR_COMM_TID] = e->h.tid;
	v[GR_COMM_CPU] = e->h.cpu;
	v[GR_COMM_API] = e->h.api;
	v[GR_COMM_KIND] = comm_kind(e->h.api);
	v[GR_COMM_PEER] = GR_COMM_NO_PEER;
	v[GR_COMM_STACK] = stack;
	switch (e->h.layout) {
	case L_NCCL_COLL_OP:
	case L_NCCL_BROADCAST:
		v[GR_COMM_COUNT] = e->r[2];
		v[GR_COMM_DTYPE] = (uint32_t)e->r[3];
		if (e->h.layout == L_NCCL_BROADCAST)
			v[GR_COMM_PEER] = (uint32_t)e->r[4];
		else
			v[GR_COMM_REDOP] = (uint32_t)e->r[4];
		v[GR_COMM_COMM] = e->r[5];
		v[GR_COMM_STREAM] = e->s[0];
		break;
	case L_NCCL_REDUCE:
		v[GR_COMM_COUNT] = e->r[2];
		v[GR_COMM_DTYPE] = (uint32_t)e->r[3];
		v[GR_COMM_REDOP] = (uint32_t)e->r[4];
		v[GR_COMM_PEER] = (uint32_t)e->r[5];
		v[GR_COMM_COMM] = e->s[0];
		v[GR_COMM_STREAM] = e->s[1];
		break;
	case L_NCCL_ALL_GATHER:
		v[GR_COMM_COUNT] = e->r[2];
		v[GR_COMM_DTYPE] = (uint32_t)e->r[3];
		v[GR_COMM_COMM] = e->r[4];
		v[GR_COMM_STREAM] = e->r[5];
		break;
	case L_NCCL_P2P:
		v[GR_COMM_COUNT] = e->r[1];
		v[GR_COMM_DTYPE] = (uint32_t)e->r[2];
		v[GR_COMM_PEER] = (uint32_t)e->r[3];
		v[GR_COMM_COMM] = e->r[4];
		v[GR_COMM_STREAM] = e->r[5];
		break;
	case L_NCCL_INIT:
		v[GR_COMM_NRANKS] = (uint32_t)e->r[1];
		v[GR_COMM_RANK] = (uint32_t)e->r[2];
		v[GR_COMM_ID] = e->x[GR_X_NCCL_ID];
		/* what a failed call leaves in *comm is not a communicator */
		if ((e->h.flags & GR_EVF_RETURNED) && !(uint32_t)e->ret)
			v[GR_COMM_COMM] = e->x[GR_X_NCCL_COMM];
		break;
	case L_NCCL_DESTROY:
		v[GR_COMM_COMM] = e->r[0];
		break;
	}
	return gr_trace_writer_append(t->w, GR_K_COMM, v, NULL);
}

static int on_graph(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_GRAPH_NCOLS] = {0};

	v[GR_GRAPH_TS] = e->h.ts;
	/* a node call's work row counted the call already: one call, once */
	if (gr_api_graph_node_work(e->h.api))
		call_columns(e, &v[GR_GRAPH_STATUS], &v[GR_GRAPH_CALL]);
	else
		call_state(t, e, &v[GR_GRAPH_STATUS], &v[GR_GRAPH_CALL]);
	v[GR_GRAPH_DUR] = e->h.dur;
	v[GR_GRAPH_PID] = e->h.pid;
	v[GR_GRAPH_TID] = e->h.tid;
	v[GR_GRAPH_API] = e->h.api;
	v[GR_GRAPH_STACK] = stack;
	switch (e->h.layout) {
	case L_GRAPH_LAUNCH:
		v[GR_GRAPH_GKIND] = GR_GRAPH_LAUNCH;
		v[GR_GRAPH_EXEC] = e->r[0];
		v[GR_GRAPH_STREAM] = e->r[1];
		break;
	case L_CAPTURE_BEGIN:
		v[GR_GRAPH_GKIND] = GR_GRAPH_BEGIN_CAPTURE;
		v[GR_GRAPH_STREAM] = e->r[0];
		break;
	case L_CAPTURE_END:
		v[GR_GRAPH_GKIND] = GR_GRAPH_END_CAPTURE;
		v[GR_GRAPH_STREAM] = e->r[0];
		v[GR_GRAPH_GRAPH] = e->x[0];
		break;
	case L_GRAPH_INSTANTIATE:
		v[GR_GRAPH_GKIND] = GR_GRAPH_INSTANTIATE;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->x[0];
		break;
	case L_GRAPH_ADD_KERNEL:
		v[GR_GRAPH_GKIND] = GR_GRAPH_ADD_NODE;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->x[GR_X_GRAPH_OUT];
		break;
	case L_GRAPH_KERNEL_SET:
	case L_GRAPH_MEMCPY_SET_1D:
	case L_GRAPH_MEMSET_SET:
	case L_GRAPH_MEMCPY_SET_3D:
	case L_CU_GRAPH_MEMCPY_SET:
	case L_GRAPH_MEMCPY_SET_SYM:
		v[GR_GRAPH_GKIND] = GR_GRAPH_NODE_SET_PARAMS;
		v[GR_GRAPH_EXEC] = e->r[0];
		break;
	case L_GRAPH_EXEC_KERNEL_SET:
	case L_GRAPH_EXEC_MEMCPY_SET_1D:
	case L_GRAPH_EXEC_MEMSET_SET:
	case L_GRAPH_EXEC_MEMCPY_SET_3D:
	case L_CU_GRAPH_EXEC_MEMCPY_SET:
	case L_GRAPH_EXEC_MEMCPY_SET_SYM:
		v[GR_GRAPH_GKIND] = GR_GRAPH_EXEC_SET_PARAMS;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->r[0];
		break;
	case L_GRAPH_EXEC_UPDATE:
		v[GR_GRAPH_GKIND] = GR_GRAPH_EXEC_UPDATE;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->r[0];
		break;
	case L_GRAPH_ADD_CHILD:
		v[GR_GRAPH_GKIND] = GR_GRAPH_ADD_CHILD;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->r[4];
		break;
	case L_GRAPH_ADD_MEMCPY_1D:
	case L_GRAPH_ADD_MEMSET:
	case L_GRAPH_ADD_MEMCPY_3D:
	case L_GRAPH_ADD_MEMCPY_SYM:
	case L_CU_GRAPH_ADD_MEMCPY:
	case L_GRAPH_ADD_NODE_ONLY:
		v[GR_GRAPH_GKIND] = GR_GRAPH_ADD_NODE;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->x[GR_X_GRAPH_OUT];
		break;
	case L_GRAPH_CLONE:
		v[GR_GRAPH_GKIND] = GR_GRAPH_CLONE;
		v[GR_GRAPH_GRAPH] = e->r[1];
		v[GR_GRAPH_EXEC] = e->x[GR_X_GRAPH_OUT];
		break;
	}
	return gr_trace_writer_append(t->w, GR_K_GRAPH, v, NULL);
}

/*
 * A kernel node's work as FORMAT.md says: a LAUNCH row of the building call on stream 0, from
 * the kernel node parameters read at entry, written before the call's GRAPH row (same ts).
 */
static int on_kernel_node(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {0};
	int err;

	v[GR_LAUNCH_TS] = e->h.ts;
	/* one call, two rows: this work row counts it, its GRAPH row (on_graph()) does not */
	call_state(t, e, &v[GR_LAUNCH_STATUS], &v[GR_LAUNCH_CALL]);
	v[GR_LAUNCH_DUR] = e->h.dur;
	v[GR_LAUNCH_PID] = e->h.pid;
	v[GR_LAUNCH_TID] = e->h.tid;
	v[GR_LAUNCH_CPU] = e->h.cpu;
	v[GR_LAUNCH_API] = e->h.api;
	v[GR_LAUNCH_STACK] = stack;
	v[GR_LAUNCH_FUNC] = e->x[0];
	v[GR_LAUNCH_GX] = LO32(e->x[1]);
	v[GR_LAUNCH_GY] = HI32(e->x[1]);
	v[GR_LAUNCH_GZ] = LO32(e->x[2]);
	v[GR_LAUNCH_BX] = HI32(e->x[2]);
	v[GR_LAUNCH_BY] = LO32(e->x[3]);
	v[GR_LAUNCH_BZ] = HI32(e->x[3]);
	v[GR_LAUNCH_SHMEM] = LO32(e->x[4]);
	err = note_function(t, e->h.ts, e->h.pid, v[GR_LAUNCH_FUNC]);
	if (!err)
		err = gr_trace_writer_append(t->w, GR_K_LAUNCH, v, NULL);
	return err ? err : on_graph(t, e, stack);
}

/* cudaMemcpyKind of a driver copy from its CUmemorytype pair (1 host, 2 device, 3 array,
 * 4 unified: an array is device memory; unified memory has no one direction). */
static uint64_t cu_copy_kind(uint64_t types)
{
	uint32_t src = LO32(types), dst = HI32(types);
	int sh = src == 1, dh = dst == 1, sd = src == 2 || src == 3, dd = dst == 2 || dst == 3;

	return sh && dd	  ? GR_COPY_H2D
	       : sd && dh ? GR_COPY_D2H
	       : sd && dd ? GR_COPY_D2D
	       : sh && dh ? GR_COPY_H2H
			  : GR_COPY_DEFAULT;
}

/*
 * A memcpy or memset node's work (added, or its parameters set), as a kernel node's: a COPY or
 * MEMSET row of the building call on stream 0, written before the call's GRAPH row (same ts).
 */
static int on_memory_node(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t dst = 0, src = 0, bytes = 0, kind = 0, flags = GR_COPY_F_ASYNC;
	const __u64 *ms = e->x; /* the memset parameters, as cudaMemsetParams */
	int err;

	switch (e->h.layout) {
	case L_GRAPH_ADD_MEMCPY_1D:
		dst = e->r[4], src = e->r[5], bytes = e->s[0], kind = e->s[1];
		break;
	case L_GRAPH_MEMCPY_SET_1D:
		dst = e->r[1], src = e->r[2], bytes = e->r[3], kind = e->r[4];
		break;
	case L_GRAPH_EXEC_MEMCPY_SET_1D:
		dst = e->r[2], src = e->r[3], bytes = e->r[4], kind = e->r[5];
		break;
	case L_GRAPH_ADD_MEMCPY_SYM:
		dst = e->r[4], src = e->r[5], bytes = e->s[0], kind = e->s[2];
		flags |= GR_COPY_F_SYMBOL;
		break;
	case L_GRAPH_MEMCPY_SET_SYM:
		dst = e->r[1], src = e->r[2], bytes = e->r[3], kind = e->r[5];
		flags |= GR_COPY_F_SYMBOL;
		break;
	case L_GRAPH_EXEC_MEMCPY_SET_SYM:
		dst = e->r[2], src = e->r[3], bytes = e->r[4], kind = e->s[0];
		flags |= GR_COPY_F_SYMBOL;
		break;
	case L_GRAPH_ADD_MEMCPY_3D:
	case L_GRAPH_MEMCPY_SET_3D:
	case L_GRAPH_EXEC_MEMCPY_SET_3D:
		src = e->x[0], dst = e->x[1], bytes = e->x[2] * e->x[3] * e->x[4];
		kind = LO32(e->x[6]);
		flags |= GR_COPY_F_3D;
		break;
	case L_CU_GRAPH_ADD_MEMCPY:
	case L_CU_GRAPH_MEMCPY_SET:
	case L_CU_GRAPH_EXEC_MEMCPY_SET:
		src = e->x[0], dst = e->x[1], bytes = e->x[2] * e->x[3] * e->x[4];
		kind = cu_copy_kind(e->x[6]);
		flags |= GR_COPY_F_3D | GR_COPY_F_DRIVER;
		break;
	default: /* memset nodes: element size x width x height; it runs in a graph launch */
		err = append_memset(t, e, ms[0], LO32(ms[2]),
				    HI32(ms[2]) * ms[3] * (ms[4] ? ms[4] : 1), 0, GR_COPY_F_ASYNC,
				    stack);
		return err ? err : on_graph(t, e, stack);
	}
	/* no stream: it runs in a graph launch, on the launch's */
	err = append_copy(t, e, dst, src, bytes, kind, 0, flags, stack);
	return err ? err : on_graph(t, e, stack);
}

static int is_memory_node(unsigned layout)
{
	switch (layout) {
	case L_GRAPH_ADD_MEMCPY_1D:
	case L_GRAPH_ADD_MEMSET:
	case L_GRAPH_ADD_MEMCPY_3D:
	case L_GRAPH_ADD_MEMCPY_SYM:
	case L_CU_GRAPH_ADD_MEMCPY:
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
		return 1;
	default:
		return 0;
	}
}

static int is_kernel_node(unsigned layout)
{
	return layout == L_GRAPH_ADD_KERNEL || layout == L_GRAPH_KERNEL_SET ||
	       layout == L_GRAPH_EXEC_KERNEL_SET;
}

/* Write the name of (pid, key), demangled, with the mangled form beside it. */
static int name_kernel(struct gr_translate *t, uint64_t ts, uint32_t pid, uint64_t key,
		       const char *raw)
{
	char buf[4096];
	const char *pretty;
	uint64_t nk = gr_u64_key2(pid, key);
	int err;

	if (!key || !*raw)
		return 0;
	pretty = gr_demangle(raw, buf, sizeof(buf));
	err = gr_u64map_put(&t->refs.named, nk, 1);
	if (!err)
		err = write_name(t, ts, GR_NAME_KERNEL, pid, key, pretty);
	if (!err && strcmp(pretty, raw))
		err = write_name(t, ts, GR_NAME_KERNEL_RAW, pid, key, raw);
	return err;
}

/* Remember the name a registration (or a driver lookup) gave (pid, key). */
static int remember_name(struct gr_translate *t, uint64_t ts, uint32_t pid, uint64_t key,
			 const char *raw)
{
	const char *text = gr_strtab_intern_str(&t->kernel_texts, raw);
	uint64_t k = gr_u64_key2(pid, key);

	if (!text)
		return -ENOMEM;
	if (!gr_u64map_get(&t->kernel_names, k) && gr_addr_set_add(&t->named_keys, pid, key) < 0)
		return -ENOMEM;
	if (gr_u64map_put(&t->kernel_names, k, (uintptr_t)text))
		return -ENOMEM;
	/* written when first launched (note_function()); again now if it was: the last wins */
	if (!gr_u64map_get(&t->refs.funcs.seen, k))
		return 0;
	return name_kernel(t, ts, pid, key, raw);
}

/* A forked child launches through the registrations its parent made before fork. */
static int inherit_names(struct gr_translate *t, uint64_t ts, uint32_t parent, uint32_t child)
{
	size_t n = t->named_keys.len;

	for (size_t i = 0; i < n; i++) {
		uint64_t key = t->named_keys.items[i].addr, *name;
		int err;

		if (t->named_keys.items[i].pid != parent)
			continue;
		name = gr_u64map_get(&t->kernel_names, gr_u64_key2(parent, key));
		if (!name)
			continue;
		err = remember_name(t, ts, child, key, (const char *)(uintptr_t)*name);
		if (err)
			return err;
	}
	return 0;
}

/* A name event of @size bytes (gr_translate_decode(): its name, up to GR_NAME_MAX bytes). */
static int on_name(struct gr_translate *t, const struct gr_ev_name *e, size_t size)
{
	size_t len = size - offsetof(struct gr_ev_name, name);
	char name[GR_NAME_MAX + 1], *copy;
	uint64_t *old;

	memcpy(name, e->name, len);
	name[len] = 0;
	if (e->h.layout == L_REGISTER_FUNCTION)
		return remember_name(t, e->h.ts, e->h.pid, e->key, name);
	/* a driver lookup: the handle comes with this thread's return event */
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	old = gr_u64map_get(&t->pending_name, e->h.tid);
	if (old) {
		free((char *)(uintptr_t)*old);
		*old = (uintptr_t)copy;
		return 0;
	}
	if (gr_u64map_put(&t->pending_name, e->h.tid, (uintptr_t)copy)) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

/* An NVTX call (libgpurec_nvtx.so's tap): one NVTX row, its text as the tap read it. */
static int on_nvtx(struct gr_translate *t, const struct gr_ev_nvtx *e)
{
	char text[GR_NVTX_TEXT_BYTES];
	struct gr_bytes b;
	uint64_t v[GR_NVTX_NCOLS] = {
	    [GR_NVTX_TS] = e->h.ts,
	    [GR_NVTX_PID] = e->h.pid,
	    [GR_NVTX_TID] = e->h.tid,
	    [GR_NVTX_OP] = e->op,
	    [GR_NVTX_DOMAIN] = e->domain,
	    [GR_NVTX_ID] = e->id,
	    [GR_NVTX_CATEGORY] = e->category,
	    [GR_NVTX_COLOR] = e->color,
	    [GR_NVTX_PAYLOAD_TYPE] = e->payload_type,
	    [GR_NVTX_PAYLOAD] = e->payload,
	};

	memcpy(text, e->text, sizeof(text));
	text[sizeof(text) - 1] = 0;
	b.data = (const uint8_t *)text;
	b.len = (uint32_t)strlen(text);
	return gr_trace_writer_append(t->w, GR_K_NVTX, v, &b) ? -EIO : 0;
}

static int on_alias(struct gr_translate *t, const struct gr_ev_call *e)
{
	uint64_t handle = e->x[0], *v;
	uint64_t target = e->r[1];

	if (e->h.layout == L_CU_GET_FUNCTION || e->h.layout == L_CU_LIBRARY_GET_KERNEL) {
		uint64_t *pending = gr_u64map_get(&t->pending_name, e->h.tid);
		char *name = pending ? (char *)(uintptr_t)*pending : NULL;
		int err = 0;

		/* the lookup's name is consumed whether or not the lookup succeeded */
		if (pending)
			*pending = 0;
		if (name && handle && !(uint32_t)e->ret)
			err = remember_name(t, e->h.ts, e->h.pid, handle, name);
		free(name);
		return err;
	}
	if (!handle || (uint32_t)e->ret)
		return 0;
	/* __cudaGetKernel(handle, hostFun) / cuKernelGetFunction(func, kernel) */
	v = gr_u64map_get(&t->kernel_names, gr_u64_key2(e->h.pid, target));
	if (!v || handle == target)
		return 0;
	return remember_name(t, e->h.ts, e->h.pid, handle, (const char *)(uintptr_t)*v);
}

/* A device query's event that returned an error: it becomes a call row (device_failed()). */
static int device_query_failed(const struct gr_ev_call *e)
{
	return (e->h.flags & GR_EVF_RETURNED) && (uint32_t)e->ret;
}

/*
 * A failed device query or set-up call (cudaGetDeviceCount, cuInit, ...): a SYNC row of skind
 * GR_SYNC_DEVICE_QUERY, so that every command counts and names it with the other failed calls.
 * Programs that find no GPU often make this one call and exit. One that succeeded is no row.
 */
static int device_failed(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_SYNC_NCOLS] = {0};

	v[GR_SYNC_TS] = e->h.ts;
	call_state(t, e, &v[GR_SYNC_STATUS], &v[GR_SYNC_CALL]);
	v[GR_SYNC_DUR] = e->h.dur;
	v[GR_SYNC_PID] = e->h.pid;
	v[GR_SYNC_TID] = e->h.tid;
	v[GR_SYNC_CPU] = e->h.cpu;
	v[GR_SYNC_API] = e->h.api;
	v[GR_SYNC_SKIND] = GR_SYNC_DEVICE_QUERY;
	v[GR_SYNC_STACK] = stack;
	return gr_trace_writer_append(t->w, GR_K_SYNC, v, NULL);
}

/* A thread gone (or exec'd): a later thread with its tid starts at device 0, as a new one does. */
static void forget_device(struct gr_translate *t, uint32_t tid)
{
	uint64_t *dev = gr_u64map_get(&t->cur_device, tid);

	if (dev)
		*dev = 0;
}

/*
 * A device query: a failed one is a call row (device_failed()); one that returned the SM count
 * makes the first GR_SESS_DEVICE_SMS (the device the program set up first; a later query of
 * another device does not replace it). A failed call leaves garbage in its out-parameter, an
 * attribute query may ask anything else.
 */
static int on_device(struct gr_translate *t, const struct gr_ev_call *e, uint64_t stack)
{
	uint64_t v[GR_SESS_NCOLS] = {e->h.ts, GR_SESS_DEVICE_SMS, e->x[0], 0};
	struct gr_bytes none = {(const uint8_t *)"", 0};

	if (device_query_failed(e))
		return device_failed(t, e, stack);
	/* the runtime's rule: a thread allocates on its last successful cudaSetDevice's device */
	if (e->h.api == GR_API_cudaSetDevice && (e->h.flags & GR_EVF_RETURNED) &&
	    gr_u64map_put(&t->cur_device, e->h.tid, (uint32_t)e->r[0]))
		return -ENOMEM;
	if (e->h.layout == L_DEVICE_QUERY || !(e->h.flags & GR_EVF_RETURNED))
		return 0;
	if (t->device_sms_seen || !(int32_t)e->x[0] || (int32_t)e->x[0] < 0)
		return 0;
	if (e->h.layout == L_DEVICE_ATTR && e->r[1] != GR_DEVICE_ATTR_SMS)
		return 0;
	t->device_sms_seen = true;
	return gr_trace_writer_append(t->w, GR_K_SESSION, v, &none);
}

_Static_assert(GR_EVS_SWITCH == GR_SCHED_SWITCH && GR_EVS_WAKEUP == GR_SCHED_WAKEUP &&
		   GR_EVS_WAKEUP_NEW == GR_SCHED_WAKEUP_NEW && GR_EVS_MIGRATE == GR_SCHED_MIGRATE &&
		   GR_EVS_NOBODY == GR_SCHED_NOBODY,
	       "the BPF side's scheduler record types are the file's");

/*
 * The stack of a SCHED record: its frames and Python stack, or, for one whose walk the BPF side
 * skipped (GR_EVS_F_SAME: the same call site within GR_BLK_SITE_NS), the thread's last of the
 * record's role. Frames belong to h.pid: the blocked thread at a switch, the waker at a wakeup.
 */
static uint64_t sched_stack(struct gr_translate *t, const struct gr_ev_sched *e)
{
	uint64_t role = e->sub == GR_EVS_SWITCH ? 0 : 1, key = gr_u64_key2(e->h.tid, role), id;
	const uint64_t *last;

	if (e->h.flags & GR_EVS_F_SAME) {
		last = gr_u64map_get(&t->blk_stacks, key);
		return last ? *last : 0;
	}
	if (!e->h.stack_len)
		return 0;
	id = event_stack_id(t, &e->h, (const uint64_t *)(e + 1), e->h.stack_len, e->pystack);
	if (gr_u64map_put(&t->blk_stacks, key, id) && !t->err)
		t->err = -ENOMEM;
	return id;
}

static int on_sched(struct gr_translate *t, const struct gr_ev_sched *e)
{
	uint64_t v[GR_SCHED_NCOLS];

	v[GR_SCHED_TS] = e->h.ts;
	v[GR_SCHED_CPU] = e->h.cpu;
	v[GR_SCHED_TYPE] = e->sub;
	v[GR_SCHED_PREV_PID] = e->h.pid;
	v[GR_SCHED_PREV_TID] = e->h.tid;
	v[GR_SCHED_PREV_STATE] = e->prev_state;
	v[GR_SCHED_NEXT_PID] = e->next_pid;
	v[GR_SCHED_NEXT_TID] = e->next_tid;
	v[GR_SCHED_TARGET_CPU] = e->target_cpu;
	v[GR_SCHED_STACK] = sched_stack(t, e);
	/* the file's syscall is the number + 1: 0, what a file without the column reads, is none */
	v[GR_SCHED_SYSCALL] = e->syscall < 0 ? 0 : (uint64_t)e->syscall + 1;
	v[GR_SCHED_FD_KIND] = e->fd_kind <= GR_FD_OTHER ? e->fd_kind : GR_FD_OTHER;
	note_comm(t, e->h.ts, e->h.pid, e->h.tid, e->prev_comm, GR_COMM_LEN);
	if (e->next_tid != GR_EVS_NOBODY)
		note_comm(t, e->h.ts, e->next_pid, e->next_tid, e->next_comm, GR_COMM_LEN);
	return gr_trace_writer_append(t->w, GR_K_SCHED, v, NULL);
}

static int write_proc(struct gr_translate *t, uint64_t ts, unsigned type, uint32_t pid,
		      uint32_t tid, uint64_t value, const char *text)
{
	uint64_t v[GR_PROC_NCOLS] = {ts, type, pid, tid, value, 0};
	struct gr_bytes b = {(const uint8_t *)text, (uint32_t)strlen(text)};

	return gr_trace_writer_append(t->w, GR_K_PROC, v, &b);
}

/*
 * What an exec asks of the live process, before its PROC record: discovery rescans it, a CPython
 * is described before it runs (python.h), its rank is read from the environment its launcher
 * gave it while it is held (it cannot have changed it yet, nor exited), it is resumed, its CUDA
 * libraries are named before any of their calls is written, and its executable's path is read
 * into @exe (@len bytes, "" when it cannot be). Only the live path calls it: it reads /proc of
 * the pid the event names and signals it.
 */
static int exec_live(struct gr_translate *t, const struct gr_ev_proc *e, char *exe, size_t len)
{
	char path[64], rank[GR_RANK_ENV_MAX];
	ssize_t n;
	int err = 0;

	gr_discover_scan(t->procs, e->h.pid);
	if (t->py)
		err = gr_python_note(t->py, t->procs, t->w, e->h.ts, e->h.pid);
	if (!err && gr_rank_env_read((pid_t)e->h.pid, rank))
		err = write_name(t, e->h.ts, GR_NAME_RANK, e->h.pid, e->h.pid, rank);
	if (e->stopped)
		gr_holds_release(&t->holds, e->h.pid);
	if (!err)
		err = gr_symbols_libraries(&t->sym, e->h.ts, e->h.pid);
	snprintf(path, sizeof(path), "/proc/%u/exe", e->h.pid);
	n = readlink(path, exe, len - 1);
	exe[n > 0 ? n : 0] = 0;
	return err;
}

/* What a new mapping asks of the live process: as for an exec (exec_live()), libpython mapped
 * late included. Only the live path calls it. */
static int mmap_live(struct gr_translate *t, const struct gr_ev_proc *e)
{
	int err = 0;

	gr_discover_scan(t->procs, e->h.pid);
	if (t->py)
		err = gr_python_note(t->py, t->procs, t->w, e->h.ts, e->h.pid);
	if (e->stopped)
		gr_holds_release(&t->holds, e->h.pid);
	if (!err)
		err = gr_symbols_libraries(&t->sym, e->h.ts, e->h.pid);
	return err;
}

static int on_proc(struct gr_translate *t, const struct gr_ev_proc *e)
{
	char exe[4096] = "";
	int err = 0;

	switch (e->h.type) {
	case EV_FORK:
		note_comm(t, e->h.ts, e->child_pid, e->child_tid, e->comm, GR_COMM_LEN);
		if (e->child_pid != e->h.pid) {
			gr_discover_fork(t->procs, e->h.pid, e->child_pid);
			err = inherit_names(t, e->h.ts, e->h.pid, e->child_pid);
			/* stacks the parent sent are not the child's: it sends its own */
			py_forget(t, e->child_pid);
			if (!err && t->py)
				err = gr_python_fork(t->py, t->w, e->h.ts, e->h.pid, e->child_pid);
			if (!err)
				err = write_proc(t, e->h.ts, GR_PROC_START, e->child_pid,
						 e->child_tid, e->h.pid, "");
		} else {
			err = write_proc(t, e->h.ts, GR_PROC_THREAD, e->child_pid, e->child_tid,
					 e->h.tid, "");
		}
		break;
	case EV_EXEC:
		/* a new image: old mappings stay (earlier events refer to them) */
		py_forget(t, e->h.pid);
		if (!t->offline)
			err = exec_live(t, e, exe, sizeof(exe));
		/* the comm changed with the image */
		gr_u64map_put(&t->comms, e->h.tid, 0);
		note_comm(t, e->h.ts, e->h.pid, e->h.tid, e->comm, GR_COMM_LEN);
		forget_device(t, e->h.tid); /* a new program: a new runtime */
		if (!err)
			err = write_proc(t, e->h.ts, GR_PROC_EXEC, e->h.pid, e->h.tid, 0, exe);
		break;
	case EV_MMAP:
		if (!e->dev && !e->ino && e->stopped)
			t->loader_holds++;
		if (!t->offline)
			err = mmap_live(t, e);
		break;
	case EV_EXIT:
		forget_device(t, e->h.tid);
		/*
		 * The process is gone with its last thread, not its main one (which may exit
		 * first, its workers still launching): its unwinding session, the fds that holds,
		 * its Python state. Kept until then, none is rebuilt; dropped then, none outlives
		 * the pid.
		 */
		if (e->group_dead) {
			if (t->unwind)
				gr_unwind_forget(t->unwind, e->h.pid);
			py_forget(t, e->h.pid);
			gr_holds_forget(&t->holds, e->h.pid);
		}
		err = write_proc(t, e->h.ts, GR_PROC_EXIT, e->h.pid, e->h.tid, e->exit_code, "");
		break;
	}
	return err;
}

/* The largest record of each kind the BPF side sends (bpf/gpurec.h). */
#define CALL_FRAMES_MAX                                                                            \
	GR_CALL_EVENT_MAX /* The events of an API call (struct gr_ev_call, with its stack): one    \
			   * list for the decoder and the translation. */
static int is_call_event(unsigned type)
{
	switch (type) {
	case EV_LAUNCH:
	case EV_COPY:
	case EV_MEMSET:
	case EV_ALLOC:
	case EV_FREE:
	case EV_SYNC:
	case EV_GRAPH:
	case EV_ALIAS:
	case EV_DEVICE:
	case EV_COMM:
	case EV_MEMINFO:
		return 1;
	}
	return 0;
}

/* an in-flight call reserves every frame */
#define CALL_RAW_MAX (sizeof(struct gr_ev_call) + sizeof(struct gr_ev_rawstack) + GR_DWARF_MAX)

int gr_translate_decode(const void *data, size_t size)
{
	const struct gr_ev_hdr *h = data;
	const struct gr_ev_call *c = data;
	const struct gr_ev_rawstack *r;
	const struct gr_ev_pystack *p = data;
	size_t need;

	if (size < sizeof(*h))
		return -EINVAL;
	/* every event but the scheduler's is of a traced thread, never of pid or tid 0 (the idle
	 * task): the maps that follow processes and threads take no key 0 */
	if (h->type != EV_SCHED && (!h->pid || !h->tid))
		return -EINVAL;
	if (is_call_event(h->type)) {
		if (size < sizeof(*c))
			return -EINVAL;
		if (h->flags & GR_EVF_RAWSTACK) {
			/* the stack bytes the header promises, no more than the BPF side holds */
			if (size < sizeof(*c) + sizeof(*r))
				return -EINVAL;
			r = (const void *)(c + 1);
			need = sizeof(*c) + sizeof(*r) + (size_t)r->size;
			if (r->size > GR_DWARF_MAX || size < need || size > CALL_RAW_MAX)
				return -EINVAL;
		} else if (h->stack_len > GR_MAX_FRAMES ||
			   size < sizeof(*c) + h->stack_len * 8ull || size > CALL_FRAMES_MAX) {
			return -EINVAL;
		}
		return h->type;
	}
	switch (h->type) {
	case EV_SCHED:
		return h->stack_len <= GR_MAX_FRAMES &&
			       size == sizeof(struct gr_ev_sched) + h->stack_len * 8ull
			   ? h->type
			   : -EINVAL;
	case EV_NAME: /* sent at the name's length, its NUL included */
		return size > offsetof(struct gr_ev_name, name) && size <= sizeof(struct gr_ev_name)
			   ? h->type
			   : -EINVAL;
	case EV_NVTX:
		return size == sizeof(struct gr_ev_nvtx) ? h->type : -EINVAL;
	case EV_FORK:
	case EV_EXEC:
	case EV_EXIT:
	case EV_MMAP:
		return size == sizeof(struct gr_ev_proc) ? h->type : -EINVAL;
	case EV_PYSTACK:
		need = offsetof(struct gr_ev_pystack, frames);
		if (size < need || size > sizeof(*p) || !p->id || p->nframes > GR_PY_MAX_FRAMES ||
		    size < need + p->nframes * sizeof(struct gr_py_frame))
			return -EINVAL;
		return h->type;
	}
	/* EV_BATCH is split before (gr_batch_each()): inside a batch, or unknown, it is no event */
	return -EINVAL;
}

static int translate_one(void *ctx, void *data, size_t size);

/*
 * A process the BPF side stopped waits for the recorder's SIGCONT, whatever else the event
 * holds: an event dropped as malformed still resumes it when its pid and flag can be read, so a
 * disagreement between the two sides never leaves the traced program stopped.
 */
static void release_held(struct gr_translate *t, const void *data, size_t size)
{
	const struct gr_ev_hdr *h = data;
	int held = 0;

	if (t->offline || size < sizeof(*h) || !h->pid)
		return;
	if ((h->type == EV_EXEC || h->type == EV_MMAP) &&
	    size >= offsetof(struct gr_ev_proc, stopped) + sizeof(__u32))
		held = ((const struct gr_ev_proc *)data)->stopped != 0;
	else if (h->type == EV_PYSTACK && size >= offsetof(struct gr_ev_pystack, flags) +
						      sizeof(((struct gr_ev_pystack *)0)->flags))
		held = (((const struct gr_ev_pystack *)data)->flags & GR_PYS_STOPPED) != 0;
	if (held)
		gr_holds_release(&t->holds, h->pid);
}

int gr_translate_event(void *ctx, void *data, size_t size)
{
	struct gr_translate *t = ctx;

	/* a batch the BPF side could not have written: the events before its flaw are kept */
	if (gr_batch_each(data, size, translate_one, ctx) == -EINVAL)
		t->malformed++;
	return 0;
}

static int translate_one(void *ctx, void *data, size_t size)
{
	struct gr_translate *t = ctx;
	const struct gr_ev_hdr *h = data;
	const struct gr_ev_call *c = data;
	uint64_t stack = 0;
	int err = 0;

	/* nothing past a record's end is read, and what is dropped is counted, not silent */
	if (gr_translate_decode(data, size) < 0) {
		t->malformed++;
		release_held(t, data, size);
		return 0;
	}
	if (is_call_event(h->type)) {
		/* a device query that worked writes no row: no stack for it to refer to */
		int rows = h->type != EV_DEVICE || device_query_failed(c);

		note_thread(t, h->ts, h->pid, h->tid);
		if (rows && (h->flags & GR_EVF_RAWSTACK))
			stack =
			    t->unwind ? raw_stack_id(t, h, (const void *)(c + 1), c->pystack) : 0;
		else if (rows)
			stack = event_stack_id(t, h, (const uint64_t *)(c + 1), h->stack_len,
					       c->pystack);
	} else if (h->type == EV_PYSTACK) {
		err = on_pystack_held(t, data, size);
		if (err && !t->err)
			t->err = err;
		return 0;
	}
	switch (h->type) {
	case EV_LAUNCH:
		err = on_launch(t, c, stack);
		break;
	case EV_COPY:
		err = on_copy(t, c, stack);
		break;
	case EV_MEMSET:
		err = on_memset(t, c, stack);
		break;
	case EV_ALLOC:
		err = on_alloc(t, c, stack);
		break;
	case EV_MEMINFO:
		err = on_meminfo(t, c, stack);
		break;
	case EV_FREE:
		err = on_free(t, c);
		break;
	case EV_SYNC:
		err = on_sync(t, c, stack);
		break;
	case EV_GRAPH:
		if (is_kernel_node(c->h.layout))
			err = on_kernel_node(t, c, stack);
		else if (is_memory_node(c->h.layout))
			err = on_memory_node(t, c, stack);
		else
			err = on_graph(t, c, stack);
		break;
	case EV_ALIAS:
		err = on_alias(t, c);
		break;
	case EV_DEVICE:
		err = on_device(t, c, stack);
		break;
	case EV_COMM:
		err = on_comm(t, c, stack);
		break;
	case EV_NAME:
		err = on_name(t, data, size);
		break;
	case EV_NVTX:
		err = on_nvtx(t, data);
		break;
	case EV_SCHED:
		err = on_sched(t, data);
		break;
	default:
		err = on_proc(t, data);
	}
	if (err && !t->err)
		t->err = err;
	/* keep draining: a write error is reported once at the end */
	return 0;
}

/* Turn increases of the BPF loss counters into LOSS records placed between two drains. */
int gr_translate_losses(struct gr_translate *t, uint64_t since_ns, uint64_t now_ns)
{
	static const unsigned source[C_COUNT] = {
	    [C_RINGBUF_LOST] = GR_LOSS_RINGBUF,	 [C_STACK_LOST] = GR_LOSS_STACK,
	    [C_PENDING_LOST] = GR_LOSS_PENDING,	 [C_SCRATCH_LOST] = GR_LOSS_PREEMPTED,
	    [C_STACK_SHED] = GR_LOSS_STACK_SHED,
	};
	int ncpu = libbpf_num_possible_cpus(), fd = t->counters_fd;
	uint64_t vals[ncpu > 0 ? ncpu : 1];

	for (uint32_t i = 0; i < C_COUNT; i++) {
		uint64_t total = 0, v[GR_LOSS_NCOLS];

		if (i == C_STOP_SENT || ncpu <= 0 || bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			total += vals[c];
		if (total <= t->counters_seen[i])
			continue;
		if (i == C_UNTRACED) { /* on purpose, not a loss: said at the end */
			t->counters_seen[i] = total;
			continue;
		}
		v[GR_LOSS_TS] = since_ns;
		v[GR_LOSS_TS_END] = now_ns;
		v[GR_LOSS_SOURCE] = source[i];
		v[GR_LOSS_COUNT] = total - t->counters_seen[i];
		t->counters_seen[i] = total;
		if (gr_trace_writer_append(t->w, GR_K_LOSS, v, NULL))
			return -EIO;
	}
	if (t->unwind_skipped > t->unwind_skipped_seen) {
		uint64_t v[GR_LOSS_NCOLS] = {since_ns, now_ns, GR_LOSS_UNWIND_SKIPPED,
					     t->unwind_skipped - t->unwind_skipped_seen};

		t->unwind_skipped_seen = t->unwind_skipped;
		if (gr_trace_writer_append(t->w, GR_K_LOSS, v, NULL))
			return -EIO;
	}
	return 0;
}

void gr_translate_unwind_limit(struct gr_translate *t, const struct gr_ringbuf *rb,
			       uint64_t backlog)
{
	t->rb = rb;
	t->unwind_backlog = backlog;
}

void gr_translate_init(struct gr_translate *t, struct gr_trace_writer *w, struct gr_procs *procs,
		       struct gr_unwind *unwind, int counters_fd)
{
	*t = (struct gr_translate){
	    .w = w, .procs = procs, .unwind = unwind, .counters_fd = counters_fd};
	gr_strtab_init(&t->kernel_texts, &t->kernel_arena);
	gr_symbols_init(&t->sym, w, procs);
	/* without it, Python frames are named "<unknown>" */
	if (gr_pyresolve_new(&t->pyres))
		t->pyres = NULL;
}

/* Free a map whose values are strdup()ed strings (0 = none), and the map. */
static void free_strings(struct gr_u64map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			free((char *)(uintptr_t)m->vals[i]);
	gr_u64map_free(m);
}

void gr_translate_free(struct gr_translate *t)
{
	for (size_t i = 0; i < t->py_pids.cap; i++)
		if (t->py_pids.keys[i])
			py_pid_free((struct gr_py_pid *)(uintptr_t)t->py_pids.vals[i]);
	gr_u64map_free(&t->py_pids);
	gr_holds_free(&t->holds);
	gr_pyresolve_free(t->pyres);
	gr_u64map_free(&t->stacks);
	gr_u64map_free(&t->blk_stacks);
	gr_u64map_free(&t->cur_device);
	gr_call_status_free(&t->calls);
	gr_stack_cuts_free(&t->cuts);
	gr_u64map_free(&t->comms);
	gr_u64map_free(&t->refs.named);
	gr_u64map_free(&t->kernel_names);
	gr_strtab_free(&t->kernel_texts);
	gr_arena_free(&t->kernel_arena);
	free_strings(&t->pending_name);
	gr_addr_set_free(&t->named_keys);
	gr_addr_set_free(&t->refs.funcs);
	gr_addr_set_free(&t->refs.frames);
	gr_symbols_free(&t->sym);
	*t = (struct gr_translate){0};
}
