/* SPDX-License-Identifier: MIT */
/*
 * Recorded memory over time (memmap.h): the successful allocations of each process as ranges
 * sorted by (pid, start, allocation ts), each ended by the first free of its start address after
 * it. Failed allocations are not in gr_model_allocs() (the model keeps them aside), and an
 * allocation with address 0 or size 0 holds nothing. Only allocations whose address is one are
 * ranges: not a CUDA array's or a VMM physical allocation's handle, nor a VMM reservation, which
 * holds no memory (its mappings do, and start where it does: cuMemUnmap ends the mapping).
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/util/arrays.h"
#include "memmap.h"
#include "model_impl.h"

struct range {
	uint32_t pid;
	uint32_t kind; /* enum gr_alloc_kind */
	uint64_t start, end;
	uint64_t from, to; /* lifetime: allocation ts to free ts (UINT64_MAX: never freed) */
};

struct gr_memmap {
	struct range *v;
	size_t n;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The index of the first range with (pid, start) > (@pid, @addr). */
static size_t upper_bound(const struct gr_memmap *mm, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = mm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct range *r = &mm->v[mid];

		if (r->pid < pid || (r->pid == pid && r->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int gr_memmap_build(struct gr_memmap **out, const struct gr_model *m)
{
	size_t nal, nfr, nth;
	const struct gr_alloc *al = gr_model_allocs(m, &nal);
	const struct gr_free *fr = gr_model_frees(m, &nfr);
	const struct gr_thread *th = gr_model_threads(m, &nth);
	struct gr_memmap *mm;

	*out = NULL;
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	mm->v = calloc(nal + 1, sizeof(*mm->v));
	if (!mm->v) {
		free(mm);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nal; i++) {
		const struct gr_alloc *a = &al[i];

		if (!a->addr || !a->bytes || a->thread >= nth || a->kind == GR_ALLOC_ARRAY ||
		    a->kind == GR_ALLOC_VMM_PHYSICAL || a->kind == GR_ALLOC_VMM_RESERVE)
			continue;
		mm->v[mm->n++] = (struct range){th[a->thread].pid,  a->kind, a->addr,
						a->addr + a->bytes, a->ts,   UINT64_MAX};
	}
	gr_qsort(mm->v, mm->n, sizeof(*mm->v), cmp_range);
	/*
	 * Frees (in time order) end the earliest live range that starts at their address. The
	 * address alone decides, not the free's kind: cudaFree also frees managed memory.
	 */
	for (size_t i = 0; i < nfr; i++) {
		const struct gr_free *f = &fr[i];
		uint32_t pid;
		size_t j;

		if (f->thread >= nth)
			continue;
		pid = th[f->thread].pid;
		j = upper_bound(mm, pid, f->addr);
		/* back to the first range starting at the address */
		while (j > 0 && mm->v[j - 1].pid == pid && mm->v[j - 1].start == f->addr)
			j--;
		for (; j < mm->n && mm->v[j].pid == pid && mm->v[j].start == f->addr; j++) {
			struct range *r = &mm->v[j];

			if (r->from <= f->ts && r->to == UINT64_MAX) {
				r->to = f->ts;
				break;
			}
		}
	}
	*out = mm;
	return 0;
}

void gr_memmap_free(struct gr_memmap *mm)
{
	if (!mm)
		return;
	free(mm->v);
	free(mm);
}

int gr_memmap_kind_at(const struct gr_memmap *mm, uint32_t pid, uint64_t addr, uint64_t ts)
{
	size_t j = upper_bound(mm, pid, addr);

	while (j-- > 0) {
		const struct range *r = &mm->v[j];

		if (r->pid != pid)
			break;
		if (addr < r->end && ts >= r->from && ts < r->to)
			return (int)r->kind;
	}
	return -1;
}

int gr_memmap_pinned_at(const struct gr_memmap *mm, uint32_t pid, uint64_t addr, uint64_t ts)
{
	int k = gr_memmap_kind_at(mm, pid, addr, ts);

	return k == GR_ALLOC_HOST_PINNED || k == GR_ALLOC_HOST_REGISTERED;
}

static int is_device_kind(int k)
{
	return k == GR_ALLOC_DEVICE || k == GR_ALLOC_DEVICE_ASYNC || k == GR_ALLOC_MANAGED ||
	       k == GR_ALLOC_VMM_MAP;
}

/*
 * 1 when the addresses of @pid's copies can be told apart: the process made a device or managed
 * allocation the trace saw succeed, and was not attached to (see gr_memmap_resolve_copies()).
 */
static int resolvable(const struct gr_model *m, const struct gr_memmap *mm, uint32_t pid)
{
	size_t np;
	const struct gr_process *p = gr_model_processes(m, &np);

	for (size_t i = 0; i < np; i++)
		if (p[i].pid == pid && p[i].attached)
			return 0;
	/* ranges never start at 0: the first of @pid is the first after (pid, 0) */
	for (size_t j = upper_bound(mm, pid, 0); j < mm->n && mm->v[j].pid == pid; j++)
		if (is_device_kind((int)mm->v[j].kind))
			return 1;
	return 0;
}

int gr_memmap_resolve_copies(struct gr_model *m, int whole_trace)
{
	struct gr_memmap *mm;
	uint64_t attached = 0;
	uint32_t last_pid = 0;
	int last_ok = 0, have_last = 0, err;

	for (size_t i = 0; i < m->copies.n; i++)
		m->copies.v[i].kind_recorded = m->copies.v[i].kind;
	if (!whole_trace || (gr_model_session(m, GR_SESS_ATTACHED, &attached, NULL) && attached))
		return 0;
	err = gr_memmap_build(&mm, m);
	if (err)
		return err;
	for (size_t i = 0; i < m->copies.n; i++) {
		struct gr_copy *c = &m->copies.v[i];
		uint32_t pid;
		int dst_dev, src_dev;

		if (c->kind != GR_COPY_DEFAULT || c->thread >= m->threads.n)
			continue;
		pid = m->threads.v[c->thread].pid;
		if (!have_last || pid != last_pid) {
			last_pid = pid;
			last_ok = resolvable(m, mm, pid);
			have_last = 1;
		}
		if (!last_ok)
			continue;
		dst_dev = is_device_kind(gr_memmap_kind_at(mm, pid, c->dst, c->ts));
		src_dev = is_device_kind(gr_memmap_kind_at(mm, pid, c->src, c->ts));
		c->kind = src_dev ? (dst_dev ? GR_COPY_D2D : GR_COPY_D2H)
				  : (dst_dev ? GR_COPY_H2D : GR_COPY_H2H);
	}
	gr_memmap_free(mm);
	return 0;
}
