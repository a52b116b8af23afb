/* SPDX-License-Identifier: MIT */
/*
 * Loading a trace into memory (see model.h): one pass over the chunks (model_read.c), then the
 * event arrays are sorted by ts where the file had them out of order, and names, processes and
 * lookup tables are resolved once at the end, so metadata may come before or after its users.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "model_impl.h"

/* ---- sorting by ts (stable) ---- */

static inline uint64_t ts_at(const char *p)
{
	uint64_t t;

	memcpy(&t, p, sizeof(t));
	return t;
}

/* Bottom-up merge sort through a scratch buffer: for input that is far from sorted. */
static int merge_sort(char *a, size_t n, size_t size)
{
	char *tmp = malloc(n * size), *src = a, *dst = tmp;

	if (!tmp)
		return -ENOMEM;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi) {
				if (ts_at(src + j * size) < ts_at(src + i * size))
					memcpy(dst + o++ * size, src + j++ * size, size);
				else
					memcpy(dst + o++ * size, src + i++ * size, size);
			}
			memcpy(dst + o * size, src + i * size, (mid - i) * size);
			o += mid - i;
			memcpy(dst + o * size, src + j * size, (hi - j) * size);
		}
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(tmp);
	return 0;
}

/*
 * Records arrive nearly sorted (ring-buffer order across CPUs), so insertion sort usually moves
 * few entries; past a budget of moves it hands over to merge sort, so hostile input stays
 * O(n log n).
 */
static int sort_by_ts(void *base, size_t n, size_t size)
{
	char *a = base, tmp[128];
	uint64_t budget = (uint64_t)n * 4 + 4096, moves = 0;

	if (size > sizeof(tmp))
		return merge_sort(a, n, size);
	for (size_t i = 1; i < n; i++) {
		uint64_t t = ts_at(a + i * size);
		size_t j = i;

		if (ts_at(a + (i - 1) * size) <= t)
			continue;
		while (j > 0 && ts_at(a + (j - 1) * size) > t)
			j--;
		moves += i - j;
		if (moves > budget)
			return merge_sort(a, n, size);
		memcpy(tmp, a + i * size, size);
		memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
		memcpy(a + j * size, tmp, size);
	}
	return 0;
}

static int sort_events(struct loader *L)
{
	struct gr_model *m = L->m;
	struct {
		uint16_t kind;
		void *v;
		size_t n, size;
	} arrs[] = {
	    {GR_K_LAUNCH, m->launches.v, m->launches.n, sizeof(*m->launches.v)},
	    {GR_K_COPY, m->copies.v, m->copies.n, sizeof(*m->copies.v)},
	    {GR_K_MEMSET, m->memsets.v, m->memsets.n, sizeof(*m->memsets.v)},
	    {GR_K_ALLOC, m->allocs.v, m->allocs.n, sizeof(*m->allocs.v)},
	    {GR_K_FREE, m->frees.v, m->frees.n, sizeof(*m->frees.v)},
	    {GR_K_SYNC, m->syncs.v, m->syncs.n, sizeof(*m->syncs.v)},
	    {GR_K_GRAPH, m->graphs.v, m->graphs.n, sizeof(*m->graphs.v)},
	    {GR_K_SCHED, m->scheds.v, m->scheds.n, sizeof(*m->scheds.v)},
	    {GR_K_PROC, m->procs.v, m->procs.n, sizeof(*m->procs.v)},
	    {GR_K_LOSS, m->losses.v, m->losses.n, sizeof(*m->losses.v)},
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]) && !err; i++) {
		if (arrs[i].n) {
			uint64_t last;

			if (L->unsorted[arrs[i].kind])
				err = sort_by_ts(arrs[i].v, arrs[i].n, arrs[i].size);
			if (ts_at(arrs[i].v) < m->first_ts)
				m->first_ts = ts_at(arrs[i].v);
			last = ts_at((char *)arrs[i].v + (arrs[i].n - 1) * arrs[i].size);
			if (last > m->last_ts)
				m->last_ts = last;
		}
	}
	for (size_t i = 0; i < m->losses.n; i++)
		if (m->losses.v[i].ts_end > m->last_ts)
			m->last_ts = m->losses.v[i].ts_end;
	return err ? gr_diag_set(L->diag, err, 0, "out of memory sorting events") : 0;
}

/* ---- resolving names and tables at the end ---- */

static const char *lookup_text(const struct gr_keymap *map, const char *const *texts, size_t n,
			       const uint64_t *key)
{
	int64_t idx = gr_keymap_find(map, key);

	return idx >= 0 && (size_t)idx < n ? texts[idx] : NULL;
}

/* The demangled, interned form of @name when it is mangled, else @name itself. */
static const char *demangled(struct loader *L, const char *name)
{
	char *d = gr_demangle_dup(name);
	const char *s;

	if (!d)
		return name;
	s = gr_strtab_intern_str(&L->strs, d);
	free(d);
	return s ? s : name; /* out of memory: the mangled name still names it */
}

/* qsort() that accepts the NULL array of an empty table */
static void sort_table(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct gr_symbol *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct gr_mapping *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int cmp_stack_at(const void *a, const void *b, void *stacks);

/*
 * The (id, pid) index behind gr_model_stack(), and frames for stacks that events reference in
 * their pid while the STACK record was written for pid 0 (any process).
 */
static int index_stacks(struct gr_model *m)
{
	m->stacks_by_id = malloc((m->stacks.n + 1) * sizeof(*m->stacks_by_id));
	if (!m->stacks_by_id)
		return -ENOMEM;
	for (size_t i = 0; i < m->stacks.n; i++)
		m->stacks_by_id[i] = (uint32_t)i;
	if (m->stacks.n > 1)
		qsort_r(m->stacks_by_id, m->stacks.n, sizeof(*m->stacks_by_id), cmp_stack_at,
			m->stacks.v);
	for (size_t i = 1; i < m->stacks.n; i++) {
		struct gr_stack *s = &m->stacks.v[i];
		const struct gr_stack *any;

		if (s->frames || s->pid == 0)
			continue;
		any = gr_model_stack(m, 0, s->id);
		if (any && any->pid == 0) {
			s->frames = any->frames;
			s->nframes = any->nframes;
		}
	}
	return 0;
}

static int cmp_stack_at(const void *a, const void *b, void *stacks)
{
	const struct gr_stack *x = (const struct gr_stack *)stacks + *(const uint32_t *)a;
	const struct gr_stack *y = (const struct gr_stack *)stacks + *(const uint32_t *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_comm(const void *a, const void *b)
{
	const struct comm_entry *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_process(const void *a, const void *b)
{
	const struct gr_process *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int resolve_kernels(struct loader *L)
{
	struct gr_model *m = L->m;
	struct gr_keymap names;
	int err;

	gr_keymap_init(&names, 1);
	err = RESERVE(m->kernels, L->kernels.len);
	if (err)
		goto out;
	for (uint32_t i = 0; i < L->kernels.len; i++) {
		const uint64_t *key = gr_keymap_key(&L->kernels, i);
		struct gr_kernel *k = &m->kernels.v[i];
		const char *text = lookup_text(&L->kname_k, L->kname.v, L->kname.n, key);
		const char *raw = lookup_text(&L->kraw_k, L->kraw.v, L->kraw.n, key);
		const struct gr_symbol *sym;
		uint64_t w;

		memset(k, 0, sizeof(*k));
		k->pid = (uint32_t)key[0];
		k->func = key[1];
		k->named = 1;
		if (text) {
			k->name = demangled(L, text);
			k->mangled = k->name != text ? text : raw;
		} else if (raw) {
			k->name = demangled(L, raw);
			k->mangled = raw;
		} else if ((sym = gr_model_symbol(m, k->pid, k->func)) && sym->addr == k->func &&
			   *sym->name) {
			/* the host stub carries the kernel's mangled name: symbols are demangled */
			k->name = sym->name;
		} else {
			char buf[40];

			snprintf(buf, sizeof(buf), "func 0x%" PRIx64, k->func);
			k->name = gr_strtab_intern_str(&L->strs, buf);
			k->named = 0;
		}
		if (!k->name) {
			err = -ENOMEM;
			goto out;
		}
		w = (uintptr_t)k->name;
		err = gr_keymap_intern(&names, &w, &k->name_id);
		if (err < 0)
			goto out;
		if (err == 1) {
			err = RESERVE(m->kernel_names, 1);
			if (err)
				goto out;
			m->kernel_names.v[m->kernel_names.n++] = k->name;
		}
		m->kernels.n++;
	}
	err = 0;
out:
	gr_keymap_free(&names);
	return err;
}

static int add_pid(struct gr_keymap *pids, uint32_t pid)
{
	uint64_t k = pid;
	uint32_t idx;

	return gr_keymap_intern(pids, &k, &idx) < 0 ? -ENOMEM : 0;
}

static struct gr_process *find_process(struct gr_model *m, uint32_t pid)
{
	struct gr_process key = {.pid = pid};

	return m->processes.n
		   ? bsearch(&key, m->processes.v, m->processes.n, sizeof(key), cmp_process)
		   : NULL;
}

static int resolve_threads_processes(struct loader *L)
{
	struct gr_model *m = L->m;
	struct gr_keymap pids;
	uint32_t idx;
	int err = 0;

	gr_keymap_init(&pids, 1);
	/* threads of PROC records that made no API call go after those that did */
	for (size_t i = 0; i < m->procs.n && err >= 0; i++) {
		const struct gr_proc_event *p = &m->procs.v[i];
		uint64_t k[2] = {p->pid, p->tid};

		if (p->tid && (p->type == GR_PROC_THREAD || p->tid == p->pid))
			err = gr_keymap_intern(&L->threads, k, &idx);
		if (err >= 0)
			err = add_pid(&pids, p->pid);
	}
	if (err >= 0)
		err = RESERVE(m->threads, L->threads.len);
	if (err < 0)
		goto out;
	for (uint32_t i = 0; i < L->threads.len; i++) {
		const uint64_t *key = gr_keymap_key(&L->threads, i);
		struct gr_thread *t = &m->threads.v[m->threads.n++];

		t->pid = (uint32_t)key[0];
		t->tid = (uint32_t)key[1];
		t->comm = gr_model_comm(m, t->tid);
		if (!t->comm)
			t->comm = "";
		err = add_pid(&pids, t->pid);
		if (err)
			goto out;
	}
	for (uint32_t i = 0; i < L->streams.len; i++) {
		err = add_pid(&pids, (uint32_t)gr_keymap_key(&L->streams, i)[0]);
		if (err)
			goto out;
	}
	for (uint32_t i = 0; i < L->kernels.len; i++) {
		err = add_pid(&pids, (uint32_t)gr_keymap_key(&L->kernels, i)[0]);
		if (err)
			goto out;
	}
	err = RESERVE(m->processes, pids.len);
	if (err)
		goto out;
	for (uint32_t i = 0; i < pids.len; i++) {
		struct gr_process *p = &m->processes.v[m->processes.n++];

		memset(p, 0, sizeof(*p));
		p->pid = (uint32_t)gr_keymap_key(&pids, i)[0];
		p->exe = "";
	}
	sort_table(m->processes.v, m->processes.n, sizeof(*m->processes.v), cmp_process);
	/* PROC records are sorted by ts, so the last exec wins */
	for (size_t i = 0; i < m->procs.n; i++) {
		const struct gr_proc_event *e = &m->procs.v[i];
		struct gr_process *p = find_process(m, e->pid);

		if (!p)
			continue;
		switch (e->type) {
		case GR_PROC_START:
			p->ppid = sat32(e->value);
			p->start_ts = e->ts;
			break;
		case GR_PROC_EXEC:
			p->exe = e->text;
			p->exec_ts = e->ts;
			break;
		case GR_PROC_EXIT:
			if (e->tid && e->tid != e->pid)
				break; /* a thread's exit */
			p->has_exit = 1;
			p->exit_status = e->value;
			p->exit_ts = e->ts;
			break;
		case GR_PROC_ATTACH:
			p->attached = 1;
			if (!p->start_ts)
				p->start_ts = e->ts;
			break;
		default:
			break;
		}
	}
	for (size_t i = 0; i < m->processes.n; i++) {
		struct gr_process *p = &m->processes.v[i];
		const char *slash;

		p->comm = gr_model_comm(m, p->pid);
		if (!p->comm) {
			slash = strrchr(p->exe, '/');
			p->comm = slash ? slash + 1 : p->exe;
		}
	}
	for (size_t i = 0; i < m->threads.n; i++) {
		struct gr_process *p = find_process(m, m->threads.v[i].pid);

		m->threads.v[i].process = p ? (uint32_t)(p - m->processes.v) : 0;
	}
	err = 0;
out:
	gr_keymap_free(&pids);
	return err < 0 ? err : 0;
}

static int finish(struct loader *L)
{
	struct gr_model *m = L->m;
	int err;

	err = sort_events(L);
	if (err)
		return err;

	/* lookup tables first: kernel and thread names use them */
	for (size_t i = 0; i < m->symbols.n; i++)
		m->symbols.v[i].name = demangled(L, m->symbols.v[i].name);
	sort_table(m->symbols.v, m->symbols.n, sizeof(*m->symbols.v), cmp_symbol);
	sort_table(m->mappings.v, m->mappings.n, sizeof(*m->mappings.v), cmp_mapping);
	err = index_stacks(m);
	if (err)
		goto oom;
	err = RESERVE(m->comms, L->comm_k.len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->comm_k.len && i < L->comm.n; i++) {
		m->comms.v[m->comms.n].tid = (uint32_t)gr_keymap_key(&L->comm_k, i)[0];
		m->comms.v[m->comms.n++].comm = L->comm.v[i];
	}
	sort_table(m->comms.v, m->comms.n, sizeof(*m->comms.v), cmp_comm);

	err = resolve_kernels(L);
	if (err)
		goto oom;
	err = resolve_threads_processes(L);
	if (err)
		goto oom;

	err = RESERVE(m->configs, L->configs.len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->configs.len; i++) {
		const uint64_t *k = gr_keymap_key(&L->configs, i);
		struct gr_config *c = &m->configs.v[m->configs.n++];

		c->grid[0] = (uint32_t)k[0];
		c->grid[1] = (uint32_t)(k[0] >> 32);
		c->grid[2] = (uint32_t)k[1];
		c->block[0] = (uint32_t)(k[1] >> 32);
		c->block[1] = (uint32_t)k[2];
		c->block[2] = (uint32_t)(k[2] >> 32);
		c->shmem = (uint32_t)k[3];
	}
	err = RESERVE(m->streams, L->streams.len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->streams.len; i++) {
		const uint64_t *k = gr_keymap_key(&L->streams, i);
		struct gr_stream *s = &m->streams.v[m->streams.n++];

		s->pid = (uint32_t)k[0];
		s->handle = k[1];
	}
	return 0;
oom:
	return gr_diag_set(L->diag, err, 0, "out of memory resolving names");
}

/* ---- header ---- */

static const char *copy_str(struct loader *L, const char *s)
{
	return gr_strtab_intern_str(&L->strs, s ? s : "");
}

static int copy_header(struct loader *L, const struct gr_trace_header *h)
{
	struct gr_trace_header *d = &L->m->hdr;

	*d = *h;
	d->host = copy_str(L, h->host);
	d->kernel = copy_str(L, h->kernel);
	d->tool_version = copy_str(L, h->tool_version);
	d->cmdline = copy_str(L, h->cmdline);
	d->env = copy_str(L, h->env);
	if (!d->host || !d->kernel || !d->tool_version || !d->cmdline || !d->env)
		return gr_diag_set(L->diag, -ENOMEM, 0, "out of memory reading the header");
	return 0;
}

/* ---- load ---- */

static void loader_free(struct loader *L)
{
	if (!L)
		return;
	struct gr_keymap *maps[] = {&L->kernels, &L->configs, &L->threads, &L->streams,
				    &L->kname_k, &L->kraw_k,  &L->comm_k,  &L->lib_k,
				    &L->sym_k,	 &L->stack_k, &L->map_k,   &L->sess_k};

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		gr_keymap_free(maps[i]);
	RELEASE(L->kname);
	RELEASE(L->kraw);
	RELEASE(L->comm);
	gr_strtab_free(&L->strs);
	free(L);
}

static int load(struct gr_model **out, struct gr_trace_reader *r, uint64_t max_records,
		struct gr_diag *diag)
{
	struct gr_model *m = NULL;
	struct loader *L;
	const struct gr_chunk *c;
	int err;

	*out = NULL;
	L = calloc(1, sizeof(*L));
	m = calloc(1, sizeof(*m));
	if (!L || !m) {
		err = gr_diag_set(diag, -ENOMEM, 0, "out of memory");
		goto out;
	}
	m->first_ts = UINT64_MAX;
	L->m = m;
	L->diag = diag;
	L->max_records = max_records;
	gr_strtab_init(&L->strs, &m->arena);
	gr_keymap_init(&L->kernels, 2);
	gr_keymap_init(&L->configs, 4);
	gr_keymap_init(&L->threads, 2);
	gr_keymap_init(&L->streams, 2);
	gr_keymap_init(&L->kname_k, 2);
	gr_keymap_init(&L->kraw_k, 2);
	gr_keymap_init(&L->comm_k, 2);
	gr_keymap_init(&L->lib_k, 1);
	gr_keymap_init(&L->sym_k, 2);
	gr_keymap_init(&L->stack_k, 2);
	{
		/* stack index 0 is "no stack" */
		uint64_t none[2] = {0, 0};
		struct gr_stack empty = {0};
		uint32_t idx;

		err = gr_keymap_intern(&L->stack_k, none, &idx);
		if (err >= 0)
			err = SET_AT(m->stacks, idx, &empty);
		if (err < 0) {
			err = gr_diag_set(diag, -ENOMEM, 0, "out of memory");
			goto out;
		}
	}
	gr_keymap_init(&L->map_k, 3);
	gr_keymap_init(&L->sess_k, 1);

	err = model_map_schema(L, gr_trace_reader_schema(r));
	if (err)
		goto out;
	err = copy_header(L, gr_trace_reader_header(r));
	if (err)
		goto out;
	while ((err = gr_trace_reader_next_chunk(r, &c)) == 1) {
		err = model_read_chunk(L, c);
		if (err)
			goto out;
	}
	if (err < 0) {
		err =
		    gr_diag_set(diag, err, L->chunk_offset, "reading chunks: %s", gr_strerror(err));
		goto out;
	}
	m->integ = *gr_trace_reader_integrity(r);
	err = finish(L);
	if (err)
		goto out;
	if (m->hdr.clock_monotonic_ns)
		m->first_ts = m->hdr.clock_monotonic_ns;
	else if (m->first_ts == UINT64_MAX)
		m->first_ts = 0;
	*out = m;
	m = NULL;
out:
	loader_free(L);
	gr_model_free(m);
	return err;
}

int gr_model_load(struct gr_model **out, const char *path, struct gr_diag *diag)
{
	struct gr_trace_reader *r = NULL;
	int err;

	*out = NULL;
	err = gr_trace_reader_open(&r, path, diag);
	if (err)
		return err;
	err = load(out, r, 0, diag);
	gr_trace_reader_close(r);
	return err;
}

int gr_model_load_mem(struct gr_model **out, const void *buf, size_t len, uint64_t max_records,
		      struct gr_diag *diag)
{
	struct gr_trace_reader *r = NULL;
	int err;

	*out = NULL;
	err = gr_trace_reader_open_mem(&r, buf, len, diag);
	if (err)
		return err;
	err = load(out, r, max_records, diag);
	gr_trace_reader_close(r);
	return err;
}

void gr_model_free(struct gr_model *m)
{
	if (!m)
		return;
	RELEASE(m->launches);
	RELEASE(m->copies);
	RELEASE(m->memsets);
	RELEASE(m->allocs);
	RELEASE(m->frees);
	RELEASE(m->syncs);
	RELEASE(m->graphs);
	RELEASE(m->scheds);
	RELEASE(m->procs);
	RELEASE(m->losses);
	RELEASE(m->kernels);
	RELEASE(m->kernel_names);
	RELEASE(m->configs);
	RELEASE(m->threads);
	RELEASE(m->streams);
	RELEASE(m->processes);
	RELEASE(m->libraries);
	RELEASE(m->mappings);
	RELEASE(m->symbols);
	RELEASE(m->stacks);
	free(m->stacks_by_id);
	RELEASE(m->comms);
	RELEASE(m->session);
	gr_arena_free(&m->arena);
	free(m);
}

/* ---- accessors ---- */

const struct gr_trace_header *gr_model_header(const struct gr_model *m)
{
	return &m->hdr;
}

const struct gr_integrity *gr_model_integrity(const struct gr_model *m)
{
	return &m->integ;
}

int gr_model_ended_abruptly(const struct gr_model *m, uint64_t *last_ts)
{
	if (m->integ.footer_present)
		return 0;
	gr_model_time_span(m, NULL, last_ts);
	return 1;
}

uint64_t gr_model_record_count(const struct gr_model *m, unsigned kind)
{
	return kind < GR_K_COUNT ? m->counts[kind] : 0;
}

#define ACCESSOR(fn, type, field)                                                                  \
	const type *fn(const struct gr_model *m, size_t *n)                                        \
	{                                                                                          \
		if (n)                                                                             \
			*n = m->field.n;                                                           \
		return m->field.v;                                                                 \
	}

ACCESSOR(gr_model_launches, struct gr_launch, launches)
ACCESSOR(gr_model_copies, struct gr_copy, copies)
ACCESSOR(gr_model_memsets, struct gr_memset, memsets)
ACCESSOR(gr_model_allocs, struct gr_alloc, allocs)
ACCESSOR(gr_model_frees, struct gr_free, frees)
ACCESSOR(gr_model_syncs, struct gr_sync, syncs)
ACCESSOR(gr_model_graphs, struct gr_graph, graphs)
ACCESSOR(gr_model_scheds, struct gr_sched, scheds)
ACCESSOR(gr_model_proc_events, struct gr_proc_event, procs)
ACCESSOR(gr_model_losses, struct gr_loss, losses)
ACCESSOR(gr_model_kernels, struct gr_kernel, kernels)
ACCESSOR(gr_model_configs, struct gr_config, configs)
ACCESSOR(gr_model_threads, struct gr_thread, threads)
ACCESSOR(gr_model_streams, struct gr_stream, streams)
ACCESSOR(gr_model_processes, struct gr_process, processes)
ACCESSOR(gr_model_mappings, struct gr_mapping, mappings)
ACCESSOR(gr_model_symbols, struct gr_symbol, symbols)
ACCESSOR(gr_model_stacks, struct gr_stack, stacks)

const char *const *gr_model_kernel_names(const struct gr_model *m, size_t *n)
{
	if (n)
		*n = m->kernel_names.n;
	return m->kernel_names.v;
}

const char *const *gr_model_libraries(const struct gr_model *m, size_t *n)
{
	if (n)
		*n = m->libraries.n;
	return m->libraries.v;
}

const char *gr_model_comm(const struct gr_model *m, uint32_t tid)
{
	struct comm_entry key = {.tid = tid}, *e;

	e = m->comms.n ? bsearch(&key, m->comms.v, m->comms.n, sizeof(key), cmp_comm) : NULL;
	return e ? e->comm : NULL;
}

/* First position in stacks_by_id of a stack with @id. */
static size_t stack_lower_bound(const struct gr_model *m, uint64_t id)
{
	size_t lo = 0, hi = m->stacks.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->stacks.v[m->stacks_by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct gr_stack *gr_model_stack(const struct gr_model *m, uint32_t pid, uint64_t id)
{
	const struct gr_stack *any = NULL;

	if (!id)
		return NULL;
	for (size_t i = stack_lower_bound(m, id); i < m->stacks.n; i++) {
		const struct gr_stack *s = &m->stacks.v[m->stacks_by_id[i]];

		if (s->id != id)
			break;
		if (s->pid == pid)
			return s;
		if (s->pid == 0)
			any = s;
	}
	return any;
}

/* Index of the first symbol at or after (@pid, @addr). */
static size_t symbol_lower_bound(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = m->symbols.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gr_symbol *s = &m->symbols.v[mid];

		if (s->pid < pid || (s->pid == pid && s->addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int symbol_holds(const struct gr_symbol *s, uint32_t pid, uint64_t addr)
{
	return s->pid == pid && s->start <= addr && addr - s->start < s->size;
}

const struct gr_symbol *gr_model_symbol(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	size_t i = symbol_lower_bound(m, pid, addr);

	if (i < m->symbols.n && m->symbols.v[i].pid == pid && m->symbols.v[i].addr == addr)
		return &m->symbols.v[i];
	/*
	 * Functions do not overlap, so the recorded addresses of the function holding @addr are
	 * contiguous in (pid, addr) order: if any exists, one of the two neighbours is one.
	 */
	if (i < m->symbols.n && symbol_holds(&m->symbols.v[i], pid, addr))
		return &m->symbols.v[i];
	if (i > 0 && symbol_holds(&m->symbols.v[i - 1], pid, addr))
		return &m->symbols.v[i - 1];
	return NULL;
}

const struct gr_mapping *gr_model_mapping(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = m->mappings.n;

	/* first mapping after (pid, addr) by (pid, start) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gr_mapping *e = &m->mappings.v[mid];

		if (e->pid < pid || (e->pid == pid && e->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* mappings of one pid rarely overlap (a re-map after exec): look back a little */
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++) {
		const struct gr_mapping *e = &m->mappings.v[i - 1];

		if (e->pid != pid)
			break;
		if (addr < e->end)
			return e;
	}
	return NULL;
}

int gr_model_session(const struct gr_model *m, unsigned key, uint64_t *value, const char **text)
{
	for (size_t i = 0; i < m->session.n; i++) {
		if (m->session.v[i].key != key || !m->session.v[i].text)
			continue;
		if (value)
			*value = m->session.v[i].value;
		if (text)
			*text = m->session.v[i].text;
		return 1;
	}
	return 0;
}

uint64_t gr_model_lost_events(const struct gr_model *m)
{
	return m->lost;
}

void gr_model_time_span(const struct gr_model *m, uint64_t *first, uint64_t *last)
{
	if (first)
		*first = m->first_ts;
	if (last)
		*last = m->last_ts < m->first_ts ? m->first_ts : m->last_ts;
}
