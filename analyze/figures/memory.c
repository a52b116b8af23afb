/* SPDX-License-Identifier: MIT */
/*
 * Device memory: one replay of the allocations and frees in time order (memory.h says what it
 * computes). The replay runs twice: the first finds each process's peak, the second stops at each
 * peak to take the live set by site, so that a process whose live bytes climb a million times
 * still costs one walk over its live set, not one per new peak.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/keymap.h"
#include "memory.h"

enum op_type { OP_ALLOC = 0, OP_FAIL, OP_FREE };

/* An allocation or free in replay order; idx into the model's allocs, asides or frees. */
struct op {
	uint64_t ts;
	uint32_t idx;
	uint8_t type;
};

/* An address ever allocated, by (pid, family, addr): what lives there now. */
struct slot {
	uint64_t bytes;
	uint64_t ts; /* of the allocation */
	uint32_t site, stack;
	uint32_t proc;
	uint8_t live, device; /* device: the held_class */
};

struct replay {
	const struct gr_model *m;
	const struct gr_thread *th;
	const struct gr_alloc *al;
	const struct gr_free *fr;
	const struct gr_aside *as;
	struct op *ops;
	size_t nops;
	struct gr_keymap addrs; /* (pid, family, addr) -> slot */
	struct slot *slots;
	size_t cap;
	uint64_t *live, *pinned;	 /* per process */
	uint64_t *acc_bytes, *acc_count; /* per site, scratch for a snapshot */
	uint32_t *site_of_stack;
	size_t nstacks;
	struct gr_keymap site_keys; /* (pid, frame value) -> site */
	struct gr_memory *out;
};

static int op_cmp(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The allocation kinds of the virtual memory API and CUDA arrays (format/events.h): an array's
 * and a physical allocation's addr is a handle, not a pointer, and may equal one, so a free
 * matches its allocation within its family; a mapping is an address range over physical memory
 * already counted, a reservation address space only: neither holds bytes of its own.
 */
/* What an allocation of @kind holds. */
enum held_class { HELD_NONE = 0, HELD_DEVICE, HELD_PINNED };

static enum held_class held_class(unsigned kind)
{
	switch (kind) {
	case GR_ALLOC_DEVICE:
	case GR_ALLOC_DEVICE_ASYNC:
	case GR_ALLOC_MANAGED:
	case GR_ALLOC_ARRAY:
	case GR_ALLOC_VMM_PHYSICAL:
		return HELD_DEVICE;
	case GR_ALLOC_HOST_PINNED:
	case GR_ALLOC_HOST_REGISTERED:
		return HELD_PINNED;
	default:
		return HELD_NONE;
	}
}

static int is_device(unsigned kind)
{
	return held_class(kind) == HELD_DEVICE;
}

/* The namespace @kind's addresses live in: pointers, array handles, physical handles, mapped
 * ranges, reserved ranges. */
static uint64_t family(unsigned kind)
{
	return kind >= GR_ALLOC_ARRAY && kind <= GR_ALLOC_VMM_RESERVE ? kind : 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t proc_key(uint32_t pid, uint32_t device)
{
	return (uint64_t)pid << 32 | device;
}

/*
 * Index in out->procs of (@thread's process, @device); the process's first device when it has
 * no entry for @device (an unmatched free). The table holds every (pid, device) of an
 * allocation call and every pid of a free.
 */
static size_t proc_lower(const struct gr_memory *M, uint64_t key)
{
	size_t lo = 0, hi = M->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (proc_key(M->procs[mid].pid, M->procs[mid].device) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t proc_of(const struct replay *R, uint32_t thread, uint32_t device)
{
	uint32_t pid = R->th[thread].pid;
	size_t k = proc_lower(R->out, proc_key(pid, device));

	if (k < R->out->nprocs && R->out->procs[k].pid == pid && R->out->procs[k].device == device)
		return (uint32_t)k;
	return (uint32_t)proc_lower(R->out, proc_key(pid, 0));
}

/* The site of stack @stack: made on first use. Returns 0 or -ENOMEM. */
static int site_of(struct replay *R, uint32_t stack, uint32_t *site)
{
	const struct gr_stack *st;
	struct gr_memory *M = R->out;
	uint64_t key[2];
	uint32_t idx;
	int i, added;

	*site = 0;
	if (!stack || stack >= R->nstacks)
		return 0;
	if (R->site_of_stack[stack] != UINT32_MAX) {
		*site = R->site_of_stack[stack];
		return 0;
	}
	st = &gr_model_stacks(R->m, NULL)[stack];
	i = st->nframes ? gr_frames_python(st, st->nframes) : -1;
	if (i < 0 && st->nframes)
		i = gr_frames_launcher(R->m, st, st->nframes);
	if (i < 0) {
		R->site_of_stack[stack] = 0;
		return 0;
	}
	key[0] = st->pid;
	key[1] = st->frames[i];
	added = gr_keymap_intern(&R->site_keys, key, &idx);
	if (added < 0)
		return added;
	idx++; /* site 0 is "no stack" */
	if (added) {
		struct gr_memory_site *v = realloc(M->sites, (idx + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		M->sites = v;
		memset(&v[idx], 0, sizeof(*v));
		gr_frame_describe(R->m, st->pid, st->frames[i], &v[idx].frame);
		v[idx].stack = stack;
		v[idx].pid = st->pid;
		M->nsites = idx + 1;
	}
	R->site_of_stack[stack] = idx;
	*site = idx;
	return 0;
}

/* The iteration of @loop whose window holds @ts, or -1. */
static int64_t iteration_of(const struct gr_memory_loop *loop, uint64_t ts)
{
	size_t lo = 0, hi;

	if (!loop || !loop->n || ts < loop->starts[0] || ts >= loop->end_ts)
		return -1;
	hi = loop->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (loop->starts[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

static int held_cmp(const void *a, const void *b)
{
	const struct gr_memory_held *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/*
 * The live device allocations of process @proc allocated in [@since, @until), grouped by site, the
 * largest GR_MEMORY_TOP into @top; how many sites in *@n.
 */
static void snapshot(struct replay *R, uint32_t proc, uint64_t since, uint64_t until,
		     struct gr_memory_held *top, size_t *ntop, size_t *n)
{
	struct gr_memory_held h[GR_MEMORY_TOP + 1];
	size_t k = 0, nsites = R->out->nsites;

	*n = 0;
	memset(R->acc_bytes, 0, nsites * sizeof(*R->acc_bytes));
	memset(R->acc_count, 0, nsites * sizeof(*R->acc_count));
	for (size_t i = 0; i < R->addrs.len; i++) {
		const struct slot *s = &R->slots[i];

		if (s->live && s->device == HELD_DEVICE && s->proc == proc && s->ts >= since &&
		    s->ts < until) {
			R->acc_bytes[s->site] += s->bytes;
			R->acc_count[s->site]++;
		}
	}
	/* the largest by a bounded insertion: sites are few next to the slots */
	for (uint32_t s = 0; s < nsites; s++) {
		size_t j;

		if (!R->acc_count[s])
			continue;
		(*n)++;
		h[k] = (struct gr_memory_held){
		    .site = s, .bytes = R->acc_bytes[s], .count = R->acc_count[s]};
		for (j = k; j > 0 && held_cmp(&h[j], &h[j - 1]) < 0; j--) {
			struct gr_memory_held t = h[j];

			h[j] = h[j - 1];
			h[j - 1] = t;
		}
		if (k < GR_MEMORY_TOP)
			k++;
	}
	memcpy(top, h, k * sizeof(*h));
	*ntop = k;
}

static int series_add(struct gr_memory_proc *p, size_t *cap, uint64_t ts, uint64_t bytes)
{
	if (p->nseries && p->series[p->nseries - 1].ts == ts) {
		p->series[p->nseries - 1].bytes = bytes;
		return 0;
	}
	if (p->nseries == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct gr_memory_point *v = realloc(p->series, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->series = v;
		*cap = nc;
	}
	p->series[p->nseries++] = (struct gr_memory_point){.ts = ts, .bytes = bytes};
	return 0;
}

/* An allocation that succeeded: live from now on. */
static int do_alloc(struct replay *R, const struct gr_alloc *a, uint32_t proc)
{
	uint64_t key[3] = {R->th[a->thread].pid, family(a->kind), a->addr};
	struct slot *s;
	uint32_t idx, site;
	int added = gr_keymap_intern(&R->addrs, key, &idx), err;

	if (added < 0)
		return added;
	if (idx >= R->cap) {
		size_t nc = R->cap ? R->cap * 2 : 256;
		struct slot *v = realloc(R->slots, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		R->slots = v;
		R->cap = nc;
	}
	err = site_of(R, a->stack, &site);
	if (err)
		return err;
	s = &R->slots[idx];
	if (added) /* a new address: nothing lived there */
		memset(s, 0, sizeof(*s));
	/* an address allocated again while live (a free the recording missed): the new one
	 * replaces it */
	if (s->live && s->proc == proc) {
		if (s->device == HELD_DEVICE)
			R->live[proc] -= s->bytes;
		else if (s->device == HELD_PINNED)
			R->pinned[proc] -= s->bytes;
	}
	*s = (struct slot){.bytes = a->bytes,
			   .ts = a->ts,
			   .site = site,
			   .stack = a->stack < R->nstacks ? a->stack : 0,
			   .proc = proc,
			   .live = 1,
			   .device = (uint8_t)held_class(a->kind)};
	if (s->device == HELD_DEVICE)
		R->live[proc] += a->bytes;
	else if (s->device == HELD_PINNED)
		R->pinned[proc] += a->bytes;
	return 0;
}

/* A free: the live allocation at its address is gone. Returns 1 when it was device memory, 0
 * other memory, -1 when nothing was live there (unmatched). */
static int do_free(struct replay *R, const struct gr_free *f, uint32_t *procp)
{
	uint64_t key[3] = {R->th[f->thread].pid, family(f->kind), f->addr};
	int64_t idx = gr_keymap_find(&R->addrs, key);
	struct slot *s;
	uint32_t proc;

	if (idx < 0 || !R->slots[idx].live)
		return -1;
	s = &R->slots[idx];
	/* freed where it was allocated: the device of the allocation, whatever the freeing
	 * thread's current device */
	proc = *procp = s->proc;
	s->live = 0;
	if (s->device != HELD_DEVICE) {
		if (s->device == HELD_PINNED)
			R->pinned[proc] -= s->bytes;
		return 0;
	}
	R->live[proc] -= s->bytes;
	return 1;
}

/* The entry a free's allocation was charged to into *@proc (left as is when unmatched). */
static void do_free_proc(const struct replay *R, const struct gr_free *f, uint32_t *proc)
{
	uint64_t key[3] = {R->th[f->thread].pid, family(f->kind), f->addr};
	int64_t idx = gr_keymap_find(&R->addrs, key);

	if (idx >= 0 && R->slots[idx].live)
		*proc = R->slots[idx].proc;
}

/* The free memory @F's process was last told before it asked. Failures described are few
 * (GR_MEMORY_FAILURES): a walk back over the MEMINFO rows for each is cheap. */
static void told(const struct replay *R, struct gr_memory_failure *F)
{
	size_t n;
	const struct gr_meminfo *mi = gr_model_meminfos(R->m, &n);

	for (size_t i = n; i-- > 0;) {
		if (mi[i].ts > F->ts || R->th[mi[i].thread].pid != F->pid ||
		    !(mi[i].call & GR_CALL_RETURNED) || GR_CALL_DEPTH(mi[i].call) || mi[i].status)
			continue;
		F->free_known = 1;
		F->free_bytes = mi[i].free;
		F->total_bytes = mi[i].total;
		F->told_ts = mi[i].ts;
		return;
	}
}

/* A failed allocation call at op @o: described while there is room, with what was live. */
static int do_fail(struct replay *R, const struct op *o, const struct gr_memory_loop *loop)
{
	struct gr_memory *M = R->out;
	const struct gr_alloc *a = o->type == OP_FAIL && o->idx & 0x80000000u
				       ? &R->al[o->idx & 0x7fffffffu]
				       : &R->as[o->idx].u.alloc;
	uint32_t proc = proc_of(R, a->thread, a->device), site;
	struct gr_memory_failure *F;
	int err;

	if (is_device(a->kind)) {
		M->device_failed++;
		M->procs[proc].failed++;
	}
	M->failures_total++;
	if (M->nfailures == GR_MEMORY_FAILURES)
		return 0;
	err = site_of(R, a->stack, &site);
	if (err)
		return err;
	F = &M->failures[M->nfailures++];
	memset(F, 0, sizeof(*F));
	F->ts = a->ts;
	F->dur = a->dur;
	F->bytes = a->bytes;
	F->pid = R->th[a->thread].pid;
	F->thread = a->thread;
	F->site = site;
	F->status = o->idx & 0x80000000u ? 0 : R->as[o->idx].status;
	F->api = a->api;
	F->kind = a->kind;
	F->iteration = iteration_of(loop, a->ts);
	F->live_bytes = R->live[proc];
	snapshot(R, proc, 0, UINT64_MAX, F->holders, &F->nholders, &F->holders_n);
	told(R, F);
	return 0;
}

/* The ops in replay order: allocations that succeeded, failed ones, frees. */
static int collect(struct replay *R)
{
	size_t nal, nfr, nas, n = 0;

	R->al = gr_model_allocs(R->m, &nal);
	R->fr = gr_model_frees(R->m, &nfr);
	R->as = gr_model_asides(R->m, &nas);
	R->ops = malloc((nal + nfr + nas + 1) * sizeof(*R->ops));
	if (!R->ops)
		return -ENOMEM;
	/* op indexes keep a flag bit: an allocation row with addr 0 (failed, older files) */
	if (nal >= 0x80000000u || nas >= 0x80000000u || nfr >= 0x80000000u)
		return -E2BIG;
	for (size_t i = 0; i < nal; i++)
		R->ops[n++] =
		    R->al[i].addr
			? (struct op){.ts = R->al[i].ts, .idx = (uint32_t)i, .type = OP_ALLOC}
			: (struct op){
			      .ts = R->al[i].ts, .idx = (uint32_t)i | 0x80000000u, .type = OP_FAIL};
	/* nested allocation calls are part of the outer call; in-flight ones said nothing */
	for (size_t i = 0; i < nas; i++)
		if (R->as[i].kind == GR_K_ALLOC && !GR_CALL_DEPTH(R->as[i].call) &&
		    gr_call_failed(R->as[i].u.alloc.api, R->as[i].call, R->as[i].status))
			R->ops[n++] =
			    (struct op){.ts = R->as[i].ts, .idx = (uint32_t)i, .type = OP_FAIL};
	for (size_t i = 0; i < nfr; i++)
		R->ops[n++] = (struct op){.ts = R->fr[i].ts, .idx = (uint32_t)i, .type = OP_FREE};
	R->nops = n;
	gr_qsort(R->ops, n, sizeof(*R->ops), op_cmp);
	return 0;
}

/* The thread of op @o. */
static uint32_t op_thread(const struct replay *R, const struct op *o)
{
	if (o->type == OP_FREE)
		return R->fr[o->idx].thread;
	if (o->type == OP_ALLOC || o->idx & 0x80000000u)
		return R->al[o->idx & 0x7fffffffu].thread;
	return R->as[o->idx].u.alloc.thread;
}

/* The device of allocation or failure op @o (a free's is its allocation's: 0 here). */
static uint32_t op_device(const struct replay *R, const struct op *o)
{
	if (o->type == OP_FREE)
		return 0;
	if (o->type == OP_ALLOC || o->idx & 0x80000000u)
		return R->al[o->idx & 0x7fffffffu].device;
	return R->as[o->idx].u.alloc.device;
}

/* Whether process @pid made an allocation call on device 0. */
static int device0_allocs(const struct replay *R, uint32_t pid)
{
	for (size_t i = 0; i < R->nops; i++)
		if (R->ops[i].type != OP_FREE && !op_device(R, &R->ops[i]) &&
		    R->th[op_thread(R, &R->ops[i])].pid == pid)
			return 1;
	return 0;
}

/* The (process, device) of every allocation op, and (process, 0) of a process with only frees,
 * sorted. */
static int make_procs(struct replay *R)
{
	struct gr_memory *M = R->out;
	uint64_t *keys = malloc((R->nops + 1) * sizeof(*keys));
	size_t n = 0;

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < R->nops; i++)
		keys[i] = proc_key(R->th[op_thread(R, &R->ops[i])].pid, op_device(R, &R->ops[i]));
	gr_qsort(keys, R->nops, sizeof(*keys), u64_cmp);
	for (size_t i = 0; i < R->nops; i++)
		if (!n || keys[n - 1] != keys[i])
			keys[n++] = keys[i];
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && keys[j] >> 32 == keys[i] >> 32)
			j++;
		/* drop a (pid, 0) that only frees made when the process allocated elsewhere */
		if (j - i > 1 && !(keys[i] & 0xffffffffu) && !device0_allocs(R, keys[i] >> 32)) {
			memmove(&keys[i], &keys[i + 1], (n - i - 1) * sizeof(*keys));
			n--;
			j--;
		}
		i = j;
	}
	M->procs = calloc(n + 1, sizeof(*M->procs));
	R->live = calloc(n + 1, sizeof(*R->live));
	R->pinned = calloc(n + 1, sizeof(*R->pinned));
	if (!M->procs || !R->live || !R->pinned) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		M->procs[i].pid = (uint32_t)(keys[i] >> 32);
		M->procs[i].device = (uint32_t)keys[i];
		M->procs[i].peak_iteration = -1;
	}
	M->nprocs = n;
	free(keys);
	return 0;
}

/* Replay everything: counts, peaks, series, failures, growth samples (@samples: live bytes of
 * the loop's process before each start and at the end, n + 1 of them). */
static int replay_all(struct replay *R, const struct gr_memory_loop *loop, uint32_t loop_proc,
		      uint64_t *samples, size_t *peak_op)
{
	struct gr_memory *M = R->out;
	size_t *cap = calloc(M->nprocs + 1, sizeof(*cap)), j = 0;
	int err = 0;

	if (!cap)
		return -ENOMEM;
	for (size_t i = 0; i < R->nops && !err; i++) {
		const struct op *o = &R->ops[i];
		uint32_t proc = proc_of(R, op_thread(R, o), op_device(R, o));
		struct gr_memory_proc *p;
		int changed = 0;

		while (samples && j <= loop->n &&
		       o->ts >= (j < loop->n ? loop->starts[j] : loop->end_ts))
			samples[j++] = R->live[loop_proc];
		if (o->type == OP_FREE) /* the allocation's device, when it is matched */
			do_free_proc(R, &R->fr[o->idx], &proc);
		p = &M->procs[proc];
		switch (o->type) {
		case OP_ALLOC: {
			const struct gr_alloc *a = &R->al[o->idx];

			err = do_alloc(R, a, proc);
			if (is_device(a->kind)) {
				M->device_allocs++;
				p->allocs++;
				p->alloc_bytes += a->bytes;
				changed = 1;
				if (a->kind == GR_ALLOC_DEVICE_ASYNC)
					M->async_allocs++;
			} else if (held_class(a->kind) == HELD_PINNED) {
				M->pinned_allocs++;
				p->pinned_allocs++;
				if (R->pinned[proc] > p->pinned_peak_bytes) {
					p->pinned_peak_bytes = R->pinned[proc];
					p->pinned_peak_ts = o->ts;
				}
			}
			break;
		}
		case OP_FREE:
			M->frees++;
			changed = do_free(R, &R->fr[o->idx], &proc);
			if (changed < 0)
				p->unmatched_frees++;
			p->frees += changed > 0;
			changed = changed > 0;
			break;
		default:
			err = do_fail(R, o, loop);
			break;
		}
		if (changed && !err) {
			err = series_add(p, &cap[proc], o->ts, R->live[proc]);
			if (R->live[proc] > p->peak_bytes) {
				p->peak_bytes = R->live[proc];
				p->peak_ts = o->ts;
				peak_op[proc] = i;
			}
		}
	}
	while (!err && samples && j <= loop->n)
		samples[j++] = R->live[loop_proc];
	for (size_t k = 0; k < M->nprocs; k++) {
		M->procs[k].end_bytes = R->live[k];
		M->procs[k].pinned_end_bytes = R->pinned[k];
	}
	free(cap);
	return err;
}

/* The live device bytes of process @proc by stack into @p->peak_stacks. Returns 0 or -ENOMEM. */
static int peak_stacks(struct replay *R, uint32_t proc, struct gr_memory_proc *p)
{
	uint64_t *by = calloc(R->nstacks + 1, sizeof(*by));
	size_t n = 0;

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < R->addrs.len; i++) {
		const struct slot *s = &R->slots[i];

		if (s->live && s->device == HELD_DEVICE && s->proc == proc)
			by[s->stack] += s->bytes;
	}
	for (size_t k = 0; k <= R->nstacks; k++)
		n += by[k] != 0;
	p->peak_stacks = calloc(n + 1, sizeof(*p->peak_stacks));
	if (!p->peak_stacks) {
		free(by);
		return -ENOMEM;
	}
	for (size_t k = 0; k <= R->nstacks; k++)
		if (by[k])
			p->peak_stacks[p->npeak_stacks++] =
			    (struct gr_memory_stack_bytes){.stack = (uint32_t)k, .bytes = by[k]};
	free(by);
	return 0;
}

/* The second replay: the live set of each process at its peak op. Only allocations and frees
 * change it; failures and counts were taken by the first. */
static int replay_peaks(struct replay *R, const size_t *peak_op)
{
	struct gr_memory *M = R->out;
	size_t last = 0;

	for (size_t k = 0; k < M->nprocs; k++)
		if (M->procs[k].peak_bytes && peak_op[k] + 1 > last)
			last = peak_op[k] + 1;
	gr_keymap_free(&R->addrs);
	memset(R->live, 0, M->nprocs * sizeof(*R->live));
	memset(R->pinned, 0, M->nprocs * sizeof(*R->pinned));
	for (size_t i = 0; i < last; i++) {
		const struct op *o = &R->ops[i];
		uint32_t proc = proc_of(R, op_thread(R, o), op_device(R, o));
		int err = 0;

		if (o->type == OP_ALLOC)
			err = do_alloc(R, &R->al[o->idx], proc);
		else if (o->type == OP_FREE)
			do_free(R, &R->fr[o->idx], &proc);
		if (err)
			return err;
		if (M->procs[proc].peak_bytes && peak_op[proc] == i) {
			struct gr_memory_proc *p = &M->procs[proc];

			snapshot(R, proc, 0, UINT64_MAX, p->peak_sites, &p->npeak_sites,
				 &p->peak_sites_n);
			err = peak_stacks(R, proc, p);
			if (err)
				return err;
		}
	}
	return 0;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Steady growth of the loop's process, from the live bytes @L sampled at each iteration's start
 * and at the loop's end: most iterations grow (3 in 4), and the typical one (the lower median of
 * the changes) by more than nothing. A one-off allocation that stays, or a large temporary at one
 * iteration's start, moves one or two changes, not the median. Returns 0 or -ENOMEM.
 */
static int growth(struct replay *R, const struct gr_memory_loop *loop, uint32_t loop_proc,
		  const uint64_t *L)
{
	struct gr_memory_growth *G = &R->out->growth;
	int64_t *d = malloc((loop->n + 1) * sizeof(*d));
	uint64_t grew = 0;

	if (!d)
		return -ENOMEM;
	for (size_t j = 0; j < loop->n; j++) {
		d[j] = (int64_t)(L[j + 1] - L[j]);
		grew += L[j + 1] > L[j];
	}
	gr_qsort(d, loop->n, sizeof(*d), i64_cmp);
	G->pid = R->out->procs[loop_proc].pid;
	G->iterations = loop->n;
	G->grew = grew;
	G->start_bytes = L[0];
	G->end_bytes = L[loop->n];
	if (loop->n >= GR_MEMORY_GROWTH_MIN_ITERS && grew * 4 >= loop->n * 3 &&
	    d[(loop->n - 1) / 2] > 0) {
		G->found = 1;
		G->per_iteration = (uint64_t)d[(loop->n - 1) / 2];
	}
	free(d);
	return 0;
}

static void caching(struct replay *R, const struct gr_memory_loop *loop)
{
	static const char *const libs[] = {"libc10_cuda", "libtorch_cuda", "cupy"};
	struct gr_memory *M = R->out;
	const struct gr_mapping *mp;
	int typical = 0;
	size_t n;

	mp = gr_model_mappings(R->m, &n);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(libs) / sizeof(libs[0]); k++)
			if (mp[i].path && strstr(mp[i].path, libs[k])) {
				M->caching = GR_MEMORY_CACHING_LIBRARY;
				M->caching_library = mp[i].path;
				return;
			}
	/*
	 * Without the library: PyTorch's caching allocator asks the device for segments of 2 MiB
	 * (small blocks) and of 20 MiB or 2 MiB multiples (large ones), and hands them out again
	 * without another call. A loop that runs without allocating from the device, over two or
	 * more segments all of such sizes, one of them 2 or 20 MiB, is that pattern; a program's
	 * own buffers rarely all are.
	 */
	if (M->device_allocs < 2 || !loop || !R->out->churn.found || R->out->churn.allocs)
		return;
	gr_model_allocs(R->m, &n);
	for (size_t i = 0; i < n; i++) {
		const struct gr_alloc *a = &R->al[i];

		if (!a->addr || !is_device(a->kind))
			continue;
		if (!a->bytes || a->bytes % (2u << 20))
			return;
		typical |= a->bytes == (2u << 20) || a->bytes == (20u << 20);
	}
	if (!typical)
		return;
	M->caching = GR_MEMORY_CACHING_SEGMENTS;
	return;
}

/* The loop thread's allocator calls inside the loop, and the sites still holding what the loop
 * allocated at the end. */
/* The lower median of column @c of the @n rows of 4 in @v (sorted in place). */
static uint64_t median_of(uint64_t *v, size_t n, size_t c, uint64_t *tmp)
{
	for (size_t j = 0; j < n; j++)
		tmp[j] = v[j * 4 + c];
	gr_qsort(tmp, n, sizeof(*tmp), u64_cmp);
	return tmp[(n - 1) / 2];
}

static int churn(struct replay *R, const struct gr_memory_loop *loop, uint32_t *site_allocs)
{
	struct gr_memory_churn *C = &R->out->churn;
	uint64_t lo = loop->starts[0], hi = loop->end_ts;
	/* per iteration: allocations, frees, bytes, ns */
	uint64_t *per = calloc(loop->n * 4 + 1, sizeof(*per)), *tmp = calloc(loop->n + 1, 8);

	if (!per || !tmp) {
		free(per);
		free(tmp);
		return -ENOMEM;
	}
	C->found = 1;
	C->iterations = loop->n;
	for (size_t i = 0; i < R->nops; i++) {
		const struct op *o = &R->ops[i];
		int64_t j;

		if (o->ts < lo || o->ts >= hi || op_thread(R, o) != loop->thread)
			continue;
		j = iteration_of(loop, o->ts);
		if (o->type == OP_ALLOC) {
			const struct gr_alloc *a = &R->al[o->idx];

			per[j * 4]++;
			per[j * 4 + 2] += a->bytes;
			per[j * 4 + 3] += a->dur;
			C->allocs++;
			C->alloc_bytes += a->bytes;
			C->alloc_ns += a->dur;
			if (R->site_of_stack && a->stack < R->nstacks &&
			    R->site_of_stack[a->stack] != UINT32_MAX)
				site_allocs[R->site_of_stack[a->stack]]++;
			else
				site_allocs[0]++;
		} else if (o->type == OP_FREE) {
			per[j * 4 + 1]++;
			per[j * 4 + 3] += R->fr[o->idx].dur;
			C->frees++;
			C->free_ns += R->fr[o->idx].dur;
		} else {
			C->failed++;
		}
	}
	for (uint32_t s = 0; s < R->out->nsites; s++)
		if (site_allocs[s] > C->top_site_allocs) {
			C->top_site_allocs = site_allocs[s];
			C->top_site = s;
		}
	C->median_allocs = median_of(per, loop->n, 0, tmp);
	C->median_frees = median_of(per, loop->n, 1, tmp);
	C->median_bytes = median_of(per, loop->n, 2, tmp);
	C->median_ns = median_of(per, loop->n, 3, tmp);
	free(per);
	free(tmp);
	return 0;
}

int gr_memory_compute(const struct gr_model *m, const struct gr_memory_loop *loop,
		      struct gr_memory *out)
{
	struct replay R = {.m = m, .out = out};
	uint64_t *samples = NULL;
	uint32_t *site_allocs = NULL, loop_proc = UINT32_MAX;
	size_t *peak_op = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	gr_keymap_init(&R.addrs, 3);
	gr_keymap_init(&R.site_keys, 2);
	R.th = gr_model_threads(m, NULL);
	gr_model_stacks(m, &R.nstacks);
	err = -ENOMEM;
	out->sites = calloc(1, sizeof(*out->sites));
	out->failures = calloc(GR_MEMORY_FAILURES, sizeof(*out->failures));
	R.site_of_stack = malloc((R.nstacks + 1) * sizeof(*R.site_of_stack));
	if (!out->sites || !out->failures || !R.site_of_stack)
		goto out;
	memset(R.site_of_stack, 0xff, (R.nstacks + 1) * sizeof(*R.site_of_stack));
	out->nsites = 1;
	err = collect(&R);
	if (err)
		goto out;
	out->any = R.nops > 0;
	err = make_procs(&R);
	if (err)
		goto out;
	/* every site is made before a snapshot needs its scratch: sites of every allocation */
	for (size_t i = 0; i < R.nops; i++) {
		const struct op *o = &R.ops[i];
		uint32_t site;

		if (o->type == OP_FREE)
			continue;
		err = site_of(&R,
			      o->type == OP_ALLOC || o->idx & 0x80000000u
				  ? R.al[o->idx & 0x7fffffffu].stack
				  : R.as[o->idx].u.alloc.stack,
			      &site);
		if (err)
			goto out;
	}
	err = -ENOMEM;
	R.acc_bytes = calloc(out->nsites, sizeof(*R.acc_bytes));
	R.acc_count = calloc(out->nsites, sizeof(*R.acc_count));
	site_allocs = calloc(out->nsites, sizeof(*site_allocs));
	peak_op = calloc(out->nprocs + 1, sizeof(*peak_op));
	if (!R.acc_bytes || !R.acc_count || !site_allocs || !peak_op)
		goto out;
	if (loop && loop->n) {
		uint32_t pid = R.th[loop->thread].pid;

		for (size_t k = 0; k < out->nprocs; k++)
			if (out->procs[k].pid == pid && loop_proc == UINT32_MAX)
				loop_proc = (uint32_t)k;
		if (loop_proc != UINT32_MAX && !(samples = calloc(loop->n + 1, sizeof(*samples))))
			goto out;
	}
	err = replay_all(&R, loop, loop_proc, samples, peak_op);
	if (err)
		goto out;
	out->judged = out->device_allocs || out->pinned_allocs || !out->failures_total;
	/* what is still live after the whole replay: the leaks, and the loop's share of them */
	for (size_t k = 0; k < out->nprocs; k++) {
		struct gr_memory_proc *p = &out->procs[k];

		snapshot(&R, (uint32_t)k, 0, UINT64_MAX, p->end_sites, &p->nend_sites,
			 &p->end_sites_n);
		for (size_t i = 0; i < R.addrs.len; i++)
			p->end_count += R.slots[i].live && R.slots[i].device == HELD_DEVICE &&
					R.slots[i].proc == k;
		p->peak_iteration = p->peak_bytes ? iteration_of(loop, p->peak_ts) : -1;
	}
	if (samples) {
		struct gr_memory_growth *G = &out->growth;

		err = growth(&R, loop, loop_proc, samples);
		if (err)
			goto out;
		if (G->found)
			snapshot(&R, loop_proc, loop->starts[0], loop->end_ts, G->sites, &G->nsites,
				 &G->sites_n);
	}
	if (loop && loop->n && (err = churn(&R, loop, site_allocs)))
		goto out;
	caching(&R, loop);
	err = replay_peaks(&R, peak_op);
out:
	if (err)
		gr_memory_free(out);
	gr_keymap_free(&R.addrs);
	gr_keymap_free(&R.site_keys);
	free(R.ops);
	free(R.slots);
	free(R.live);
	free(R.pinned);
	free(R.acc_bytes);
	free(R.acc_count);
	free(R.site_of_stack);
	free(site_allocs);
	free(samples);
	free(peak_op);
	return err;
}

void gr_memory_free(struct gr_memory *mem)
{
	if (!mem)
		return;
	for (size_t k = 0; k < mem->nprocs; k++) {
		free(mem->procs[k].series);
		free(mem->procs[k].peak_stacks);
	}
	free(mem->procs);
	free(mem->sites);
	free(mem->failures);
	memset(mem, 0, sizeof(*mem));
}

const char *gr_memory_site_text(const struct gr_memory *mem, uint32_t site, char *buf, size_t len)
{
	if (!site || site >= mem->nsites) {
		snprintf(buf, len, "(no stack recorded)");
		return buf;
	}
	return gr_frame_format(&mem->sites[site].frame, buf, len);
}

const struct gr_memory_proc *gr_memory_proc(const struct gr_memory *mem, uint32_t pid)
{
	for (size_t k = 0; k < mem->nprocs; k++)
		if (mem->procs[k].pid == pid)
			return &mem->procs[k];
	return NULL;
}

const struct gr_memory_proc *gr_memory_top_proc(const struct gr_memory *mem)
{
	const struct gr_memory_proc *best = NULL;

	for (size_t k = 0; k < mem->nprocs; k++)
		if (!best || mem->procs[k].peak_bytes > best->peak_bytes)
			best = &mem->procs[k];
	return best;
}

const char *gr_memory_caching_name(enum gr_memory_caching c)
{
	switch (c) {
	case GR_MEMORY_CACHING_LIBRARY:
		return "library";
	case GR_MEMORY_CACHING_SEGMENTS:
		return "segments";
	default:
		return "none";
	}
}
