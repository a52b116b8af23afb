/* SPDX-License-Identifier: MIT */
/*
 * Loading a trace into memory (see model.h): the chunks are converted on worker threads
 * (model_read.c) and merged in file order, then the event arrays are sorted by ts where the file
 * had them out of order, and names, processes and lookup tables are resolved once at the end, so
 * metadata may come before or after its users. Then the passes that need the whole model run, in
 * order: collectives matched to their calls (model_comm.c), then copies placed against the
 * host-memory map (memmap.c). The model's lookups are model.c's; none of them calls back here.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/demangle.h"
#include "analyze/util/progress.h"
#include "memmap.h"
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
	    {GR_K_GPU, m->gpus.v, m->gpus.n, sizeof(*m->gpus.v)},
	    {GR_K_MEMINFO, m->meminfos.v, m->meminfos.n, sizeof(*m->meminfos.v)},
	    {GR_K_NVTX, m->nvtx_raw.v, m->nvtx_raw.n, sizeof(*m->nvtx_raw.v)},
	    {GR_K_COMM, m->comm_calls.v, m->comm_calls.n, sizeof(*m->comm_calls.v)},
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
	/* kinds interleave in a chunk's asides: never in order */
	if (!err && m->asides.n)
		err = sort_by_ts(m->asides.v, m->asides.n, sizeof(*m->asides.v));
	for (size_t i = 0; i < m->losses.n; i++)
		if (m->losses.v[i].ts_end > m->last_ts)
			m->last_ts = m->losses.v[i].ts_end;
	/* the GPU's work ends after it starts: a recording holds its end too */
	for (size_t i = 0; i < m->gpus.n; i++)
		if (m->gpus.v[i].ts + m->gpus.v[i].dur > m->last_ts)
			m->last_ts = m->gpus.v[i].ts + m->gpus.v[i].dur;
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
	s = gr_strtab_intern_str(&L->strs.t, d);
	free(d);
	return s ? s : name; /* out of memory: the mangled name still names it */
}

/*
 * GPU rows' kernel names, demangled. The strings are interned, so equal names are one pointer:
 * each distinct name is demangled once however many rows carry it (a run has millions).
 */
static int demangle_gpu_names(struct loader *L)
{
	struct gr_model *m = L->m;
	struct gr_keymap seen; /* mangled pointer -> index in names */
	ARRAY(const char *) names = {0};
	int err = 0;

	gr_keymap_init(&seen, 1);
	for (size_t i = 0; i < m->gpus.n && !err; i++) {
		struct gr_gpu *g = &m->gpus.v[i];
		uint64_t k = (uintptr_t)g->mangled;
		uint32_t idx;

		if (!*g->mangled) {
			g->name = g->mangled;
			continue;
		}
		err = gr_keymap_intern(&seen, &k, &idx);
		if (err < 0)
			break;
		err = 0;
		if (idx == names.n) {
			err = RESERVE(names, 1);
			if (err)
				break;
			names.v[names.n++] = demangled(L, g->mangled);
		}
		g->name = names.v[idx];
	}
	gr_keymap_free(&seen);
	RELEASE(names);
	return err < 0 ? err : 0;
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

/* A Python frame is the interpreter's own word for code: never "outside every mapping". */
static int in_code(const struct gr_model *m, uint32_t pid, uint64_t frame)
{
	return GR_FRAME_IS_PYTHON(frame) || gr_model_mapping(m, pid, frame);
}

/*
 * A frame-pointer walk through code built without frame pointers takes whatever rbp points at
 * for frames: a frame outside every mapping of its process is no code, and ends the stack (the
 * recorder cuts them since; traces from before still hold them). Only where the innermost frame
 * lies in a mapping: a trace without mappings (its recorder killed) says nothing either way.
 */
static void end_stacks_outside_mappings(struct gr_model *m)
{
	for (size_t i = 1; i < m->stacks.n; i++) {
		struct gr_stack *s = &m->stacks.v[i];
		uint32_t kept = 1;

		if (s->nframes <= 1 || !in_code(m, s->pid, s->frames[0]))
			continue;
		while (kept < s->nframes && in_code(m, s->pid, s->frames[kept]))
			kept++;
		s->nframes = kept;
	}
}

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
		gr_qsort_r(m->stacks_by_id, m->stacks.n, sizeof(*m->stacks_by_id), cmp_stack_at,
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
	err = RESERVE(m->kernels, L->tab[T_KERNEL].len);
	if (err)
		goto out;
	for (uint32_t i = 0; i < L->tab[T_KERNEL].len; i++) {
		const uint64_t *key = gr_keymap_key(&L->tab[T_KERNEL], i);
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
			k->name = gr_strtab_intern_str(&L->strs.t, buf);
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
		   ? gr_bsearch(&key, m->processes.v, m->processes.n, sizeof(key), cmp_process)
		   : NULL;
}

/* The value of @name in a RANK name's text ("NAME=VALUE NAME=VALUE"): a number 0..INT32_MAX,
 * else -1. */
static int32_t env_number(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = text; s && *s; s = strchr(s, ' '), s = s ? s + 1 : NULL) {
		char *end;
		long v;

		if (strncmp(s, name, n) || s[n] != '=')
			continue;
		errno = 0;
		v = strtol(s + n + 1, &end, 10);
		if (errno || end == s + n + 1 || (*end && *end != ' ') || v < 0 || v > INT32_MAX)
			return -1;
		return (int32_t)v;
	}
	return -1;
}

/* A process's rank, local rank and world size from its RANK name, each from the first variable
 * of its list that is set (docs/FORMAT.md). */
static void rank_of_env(struct gr_process *p, const char *text)
{
	static const char *const rank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
					   "SLURM_PROCID"};
	static const char *const size[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"};

	p->rank_env = text;
	for (size_t i = 0; i < sizeof(rank) / sizeof(rank[0]) && p->rank < 0; i++)
		p->rank = env_number(text, rank[i]);
	for (size_t i = 0; i < sizeof(size) / sizeof(size[0]) && p->world_size < 0; i++)
		p->world_size = env_number(text, size[i]);
	p->local_rank = env_number(text, "LOCAL_RANK");
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
			err = gr_keymap_intern(&L->tab[T_THREAD], k, &idx);
		if (err >= 0)
			err = add_pid(&pids, p->pid);
	}
	if (err >= 0)
		err = RESERVE(m->threads, L->tab[T_THREAD].len);
	if (err < 0)
		goto out;
	for (uint32_t i = 0; i < L->tab[T_THREAD].len; i++) {
		const uint64_t *key = gr_keymap_key(&L->tab[T_THREAD], i);
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
	for (uint32_t i = 0; i < L->tab[T_STREAM].len; i++) {
		err = add_pid(&pids, (uint32_t)gr_keymap_key(&L->tab[T_STREAM], i)[0]);
		if (err)
			goto out;
	}
	for (uint32_t i = 0; i < L->tab[T_KERNEL].len; i++) {
		err = add_pid(&pids, (uint32_t)gr_keymap_key(&L->tab[T_KERNEL], i)[0]);
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
		p->rank = p->local_rank = p->world_size = -1;
		if (m->traces.n) {
			p->trace = p->pid / GR_MODEL_SET_PIDS;
			p->trace_pid = p->pid % GR_MODEL_SET_PIDS;
		} else {
			p->trace_pid = p->pid;
		}
	}
	gr_qsort(m->processes.v, m->processes.n, sizeof(*m->processes.v), cmp_process);
	/* PROC records are sorted by ts, so the last exec wins */
	for (size_t i = 0; i < m->procs.n; i++) {
		const struct gr_proc_event *e = &m->procs.v[i];
		struct gr_process *p = find_process(m, e->pid);

		if (!p)
			continue;
		switch (e->type) {
		case GR_PROC_START: {
			/* a forked child runs its parent's executable until it execs one of its
			 * own: the parent's exe as of the fork (records come in time order) */
			const struct gr_process *parent = find_process(m, sat32(e->value));

			p->ppid = sat32(e->value);
			p->start_ts = e->ts;
			if (parent && parent != p && !p->exec_ts)
				p->exe = parent->exe;
			break;
		}
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
	for (uint32_t i = 0; i < L->rankenv_k.len && i < L->rankenv.n; i++) {
		struct gr_process *p =
		    find_process(m, (uint32_t)gr_keymap_key(&L->rankenv_k, i)[0]);

		if (p && L->rankenv.v[i])
			rank_of_env(p, L->rankenv.v[i]);
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

/*
 * NVTX rows with their texts as indexes (gr_model_nvtx_text()): the texts are interned, so one
 * pointer is one text. The loaded rows go once this is done.
 */
static int index_nvtx_texts(struct gr_model *m)
{
	struct gr_keymap seen; /* text pointer -> index - 1 */
	int err = 0;

	if (!m->nvtx_raw.n)
		return 0;
	err = RESERVE(m->nvtx, m->nvtx_raw.n);
	if (!err)
		err = RESERVE(m->nvtx_texts, 1);
	if (err)
		return err;
	m->nvtx_texts.v[m->nvtx_texts.n++] = "";
	gr_keymap_init(&seen, 1);
	for (size_t i = 0; i < m->nvtx_raw.n; i++) {
		const struct gr_nvtx_raw *r = &m->nvtx_raw.v[i];
		struct gr_nvtx *o = &m->nvtx.v[m->nvtx.n++];
		uint64_t k = (uintptr_t)r->text;
		uint32_t idx;

		*o = r->e;
		o->text = 0;
		if (!r->text || !*r->text)
			continue;
		err = gr_keymap_intern(&seen, &k, &idx);
		if (err < 0)
			break;
		err = 0;
		if (idx + 1 == m->nvtx_texts.n) {
			err = RESERVE(m->nvtx_texts, 1);
			if (err)
				break;
			m->nvtx_texts.v[m->nvtx_texts.n++] = r->text;
		}
		o->text = idx + 1;
	}
	gr_keymap_free(&seen);
	RELEASE(m->nvtx_raw);
	m->nvtx_raw.v = NULL;
	m->nvtx_raw.n = m->nvtx_raw.cap = 0;
	return err < 0 ? err : 0;
}

static int finish(struct loader *L)
{
	struct gr_model *m = L->m;
	int err;

	err = sort_events(L);
	if (err)
		return err;

	err = demangle_gpu_names(L);
	if (!err)
		err = index_nvtx_texts(m);
	if (err)
		goto oom;
	/* lookup tables first: kernel and thread names use them */
	for (size_t i = 0; i < m->symbols.n; i++)
		m->symbols.v[i].name = demangled(L, m->symbols.v[i].name);
	gr_qsort(m->symbols.v, m->symbols.n, sizeof(*m->symbols.v), cmp_symbol);
	gr_qsort(m->mappings.v, m->mappings.n, sizeof(*m->mappings.v), cmp_mapping);
	gr_qsort(m->pyframes.v, m->pyframes.n, sizeof(*m->pyframes.v), cmp_pyframe);
	end_stacks_outside_mappings(m);
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
	gr_qsort(m->comms.v, m->comms.n, sizeof(*m->comms.v), cmp_comm);

	err = resolve_kernels(L);
	if (err)
		goto oom;
	err = resolve_threads_processes(L);
	if (err)
		goto oom;
	/* by process: after the threads know theirs */
	err = gr_model_comm_resolve(m);
	if (err)
		goto oom;

	err = RESERVE(m->configs, L->tab[T_CONFIG].len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->tab[T_CONFIG].len; i++) {
		const uint64_t *k = gr_keymap_key(&L->tab[T_CONFIG], i);
		struct gr_config *c = &m->configs.v[m->configs.n++];

		c->grid[0] = (uint32_t)k[0];
		c->grid[1] = (uint32_t)(k[0] >> 32);
		c->grid[2] = (uint32_t)k[1];
		c->block[0] = (uint32_t)(k[1] >> 32);
		c->block[1] = (uint32_t)k[2];
		c->block[2] = (uint32_t)(k[2] >> 32);
		c->shmem = (uint32_t)k[3];
		c->cluster[0] = (uint32_t)(k[3] >> 32) & GR_CLUSTER_DIM_MAX;
		c->cluster[1] = (uint32_t)(k[3] >> 42) & GR_CLUSTER_DIM_MAX;
		c->cluster[2] = (uint32_t)(k[3] >> 52) & GR_CLUSTER_DIM_MAX;
	}
	err = RESERVE(m->streams, L->tab[T_STREAM].len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->tab[T_STREAM].len; i++) {
		const uint64_t *k = gr_keymap_key(&L->tab[T_STREAM], i);
		struct gr_stream *s = &m->streams.v[m->streams.n++];

		*s = (struct gr_stream){.pid = (uint32_t)k[0], .handle = k[1]};
		if ((k[1] & GR_STREAM_PER_THREAD) == GR_STREAM_PER_THREAD) {
			s->per_thread = 1;
			s->tid = (uint32_t)k[1];
		}
	}
	err = RESERVE(m->launch_keys, L->tab[T_LKEY].len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->tab[T_LKEY].len; i++)
		launch_key_unpack(gr_keymap_key(&L->tab[T_LKEY], i),
				  &m->launch_keys.v[m->launch_keys.n++]);
	err = RESERVE(m->sched_keys, L->tab[T_SKEY].len);
	if (err)
		goto oom;
	for (uint32_t i = 0; i < L->tab[T_SKEY].len; i++)
		sched_key_unpack(gr_keymap_key(&L->tab[T_SKEY], i),
				 &m->sched_keys.v[m->sched_keys.n++]);
	return 0;
oom:
	return gr_diag_set(L->diag, err, 0, "out of memory resolving names");
}

/* ---- header ---- */

static const char *copy_str(struct loader *L, const char *s)
{
	return gr_strtab_intern_str(&L->strs.t, s ? s : "");
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

/* ---- merging the parts, in chunk order ---- */

/*
 * The load runs as a pipeline over the chunks to read. This thread hands the chunks out in file
 * order, each with a copy of the model's tables as they stand (part_seed); a worker reads the
 * chunk by rows (gr_chunk_decode_lazy: a batch of values at a time, never the whole decoded
 * chunk) and converts it into its part (convert_job, model_read.c), where keys the seed knew keep
 * the model's index and new keys get local ones, in order of first use. This thread merges the
 * parts strictly in file order (merge): it interns each part's new keys in local order, which
 * gives every key the index of its first use in the file, replays the keyed metadata in order,
 * which keeps "last record wins", and places the events. When the footer counts every chunk's
 * kinds, a part's event arrays are its chunk's place in the model's arrays, so its events are
 * where they belong already and only those of new keys are mapped there (copy_job); otherwise a
 * worker copies them there. At most @nslots parts exist at once, so the memory beyond the model
 * is bounded whatever the file's length. The model is exactly the one a sequential pass makes.
 */
enum { SLOT_FREE, SLOT_CONVERTING, SLOT_COPYING };

/* merge(): a chunk in place is not where the footer's counts put it; the load starts over, the
 * other way */
#define LOAD_AGAIN 2

/* Tables with more keys than this are not copied into each part: their events are mapped. */
#define SEED_MAX 65536

/* Chunk decoders for the workers: at most one per worker at a time is ever made. */
struct decoders {
	pthread_mutex_t lock;
	struct gr_chunk_decoder **free;
	unsigned n, cap;
};

struct run {
	struct loader *L;
	struct gr_trace_reader *r;
	struct gr_pool *pool;
	struct decoders decs;
	struct part *slots;
	unsigned nslots;
	int in_place;		   /* events go straight to their place in the model's arrays */
	uint64_t next[GR_K_COUNT]; /* in place: where the next chunk handed out starts */
};

static struct gr_chunk_decoder *decoder_get(struct decoders *d)
{
	struct gr_chunk_decoder *dec = NULL;

	pthread_mutex_lock(&d->lock);
	if (d->n)
		dec = d->free[--d->n];
	pthread_mutex_unlock(&d->lock);
	if (!dec && gr_chunk_decoder_new(&dec))
		return NULL;
	return dec;
}

static void decoder_put(struct decoders *d, struct gr_chunk_decoder *dec)
{
	pthread_mutex_lock(&d->lock);
	if (d->n < d->cap) {
		d->free[d->n++] = dec;
		dec = NULL;
	}
	pthread_mutex_unlock(&d->lock);
	gr_chunk_decoder_free(dec);
}

#define PART_OF(j) ((struct part *)((char *)(j)-offsetof(struct part, job)))

static void convert_job(struct gr_pool_job *job)
{
	struct part *P = PART_OF(job);
	struct gr_chunk_decoder *d;
	const struct gr_chunk *c;
	int err;

	part_reset(P);
	d = decoder_get(P->decs);
	if (!d) {
		struct gr_chunk_info ci;

		gr_trace_reader_chunk_info(P->r, P->index, &ci);
		P->status = gr_diag_set(&P->diag, -ENOMEM, ci.offset, "out of memory");
		return;
	}
	err = gr_chunk_decode_lazy(d, P->r, P->index, &c);
	if (err == 1)
		err = part_read_chunk(P, d, c);
	decoder_put(P->decs, d);
	P->status = err;
}

/* Launch key @w of @P, its indexes local, as the key of the model's launch key (the tables it
 * indexes mapped already: T_LKEY comes last). */
static void launch_key_map(const struct part *P, const uint64_t w[4], uint64_t out[4])
{
	struct gr_launch_key k;

	launch_key_unpack(w, &k);
	k.kernel = P->map[T_KERNEL].v[k.kernel];
	k.config = P->map[T_CONFIG].v[k.config];
	k.thread = P->map[T_THREAD].v[k.thread];
	k.stream = P->map[T_STREAM].v[k.stream];
	k.stack = P->map[T_STACK].v[k.stack];
	launch_key_pack(&k, out);
}

/* Scheduler key @w of @P, its stack index local, as the key of the model's. */
static void sched_key_map(const struct part *P, const uint64_t w[6], uint64_t out[6])
{
	struct gr_sched_key k;

	sched_key_unpack(w, &k);
	k.stack = P->map[T_STACK].v[k.stack];
	sched_key_pack(&k, out);
}

/* The map of @P's local table @t into the model's: interned in local order, that is in order of
 * first use in the chunk. */
static int map_table(struct loader *L, struct part *P, int t)
{
	struct gr_model *m = L->m;
	const struct gr_keymap *local = &P->tab[t];
	int err;

	err = RESERVE(P->map[t], local->len);
	for (uint32_t i = 0; i < local->len && !err; i++) {
		const struct gr_stack *s;
		uint32_t g = i;
		int added = 0;

		/* the seed's keys have their index in the model already */
		if (i >= P->snap[t]) {
			const uint64_t *key = gr_keymap_key(local, i);
			uint64_t mapped[6];

			if (t == T_LKEY) {
				key = mapped;
				launch_key_map(P, gr_keymap_key(local, i), mapped);
			} else if (t == T_SKEY) {
				key = mapped;
				sched_key_map(P, gr_keymap_key(local, i), mapped);
			}
			err = gr_keymap_intern(&L->tab[t], key, &g);
			if (err < 0)
				break;
			added = err;
			err = 0;
			P->mapped |= g != i;
		}
		P->map[t].v[i] = g;
		if (t != T_STACK)
			continue;
		/* a new stack: frameless until its STACK record; the first record's frames win */
		s = &P->stacks.v[i];
		if (added) {
			struct gr_stack e = {.id = s->id, .pid = s->pid};

			err = SET_AT(m->stacks, g, &e);
			if (err)
				break;
		}
		if (s->frames && !m->stacks.v[g].frames) {
			uint64_t *f;

			pthread_mutex_lock(&L->strs.lock);
			f = gr_arena_alloc(&m->arena, (size_t)s->nframes * 8);
			pthread_mutex_unlock(&L->strs.lock);
			if (!f)
				return -ENOMEM;
			memcpy(f, s->frames, (size_t)s->nframes * 8);
			m->stacks.v[g] = *s;
			m->stacks.v[g].frames = f;
		}
	}
	P->map[t].n = local->len;
	return err < 0 ? err : 0;
}

/* Keyed text of @P into the loader's table: the last record wins. */
static int merge_texts(struct gr_keymap *gk, void *gv, const struct gr_keymap *pk,
		       const char *const *pv)
{
	ARRAY(const char *) *g = gv;

	for (uint32_t i = 0; i < pk->len; i++) {
		uint32_t idx;
		int err = gr_keymap_intern(gk, gr_keymap_key(pk, i), &idx);

		if (err >= 0)
			err = SET_AT(*g, idx, &pv[i]);
		if (err < 0)
			return err;
	}
	return 0;
}

static int merge_metadata(struct loader *L, struct part *P)
{
	struct gr_model *m = L->m;
	uint32_t idx;
	int err;

	err = merge_texts(&L->kname_k, &L->kname, &P->kname_k, P->kname.v);
	if (!err)
		err = merge_texts(&L->kraw_k, &L->kraw, &P->kraw_k, P->kraw.v);
	if (!err)
		err = merge_texts(&L->comm_k, &L->comm, &P->comm_k, P->comm.v);
	if (!err)
		err = merge_texts(&L->rankenv_k, &L->rankenv, &P->rankenv_k, P->rankenv.v);
	for (uint32_t i = 0; i < P->lib_k.len && err >= 0; i++) {
		err = gr_keymap_intern(&L->lib_k, gr_keymap_key(&P->lib_k, i), &idx);
		if (err == 1) {
			err = RESERVE(m->libraries, 1);
			if (!err)
				m->libraries.v[m->libraries.n++] = P->libs.v[i];
		}
	}
	for (uint32_t i = 0; i < P->unprobed_k.len && err >= 0; i++) {
		err = gr_keymap_intern(&L->unprobed_k, gr_keymap_key(&P->unprobed_k, i), &idx);
		if (err == 1) {
			err = RESERVE(m->unprobed, 1);
			if (!err)
				m->unprobed.v[m->unprobed.n++] = P->unprobed.v[i];
		}
	}
	for (uint32_t i = 0; i < P->map_k.len && err >= 0; i++) {
		struct gr_mapping e = P->mappings.v[i];

		pthread_mutex_lock(&L->strs.lock);
		e.build_id =
		    (const uint8_t *)gr_arena_strndup(&m->arena, e.build_id, e.build_id_len);
		pthread_mutex_unlock(&L->strs.lock);
		err = e.build_id ? gr_keymap_intern(&L->map_k, gr_keymap_key(&P->map_k, i), &idx)
				 : -ENOMEM;
		if (err >= 0)
			err = SET_AT(m->mappings, idx, &e);
	}
	for (uint32_t i = 0; i < P->sym_k.len && err >= 0; i++) {
		err = gr_keymap_intern(&L->sym_k, gr_keymap_key(&P->sym_k, i), &idx);
		if (err >= 0)
			err = SET_AT(m->symbols, idx, &P->symbols.v[i]);
	}
	for (uint32_t i = 0; i < P->pyf_k.len && err >= 0; i++) {
		err = gr_keymap_intern(&L->pyf_k, gr_keymap_key(&P->pyf_k, i), &idx);
		if (err >= 0)
			err = SET_AT(m->pyframes, idx, &P->pyframes.v[i]);
	}
	for (uint32_t i = 0; i < P->py_k.len && err >= 0; i++) {
		err = gr_keymap_intern(&L->py_k, gr_keymap_key(&P->py_k, i), &idx);
		if (err >= 0)
			err = SET_AT(m->pythons, idx, &P->pythons.v[i]);
	}
	for (uint32_t i = 0; i < P->sess_k.len && err >= 0; i++) {
		err = gr_keymap_intern(&L->sess_k, gr_keymap_key(&P->sess_k, i), &idx);
		if (err >= 0)
			err = SET_AT(m->session, idx, &P->session.v[i]);
	}
	return err < 0 ? err : 0;
}

/* The event arrays of a part and of the model, side by side. */
#define EVENT_ARRAYS(X)                                                                            \
	X(GR_K_LAUNCH, launches)                                                                   \
	X(GR_K_COPY, copies)                                                                       \
	X(GR_K_MEMSET, memsets)                                                                    \
	X(GR_K_ALLOC, allocs)                                                                      \
	X(GR_K_FREE, frees)                                                                        \
	X(GR_K_SYNC, syncs)                                                                        \
	X(GR_K_GRAPH, graphs)                                                                      \
	X(GR_K_SCHED, scheds)                                                                      \
	X(GR_K_PROC, procs)                                                                        \
	X(GR_K_LOSS, losses)                                                                       \
	X(GR_K_GPU, gpus)                                                                          \
	X(GR_K_MEMINFO, meminfos)                                                                  \
	X(GR_K_NVTX, nvtx_raw)                                                                     \
	X(GR_K_COMM, comm_calls)

/* Copies in flight write into the model's arrays: wait for them before an array moves. */
static void drain_copies(struct run *R)
{
	for (unsigned i = 0; i < R->nslots; i++) {
		if (R->slots[i].state == SLOT_COPYING) {
			gr_pool_wait(R->pool, &R->slots[i].job);
			R->slots[i].state = SLOT_FREE;
		}
	}
}

/* Room in the model's arrays for @P's events, and where they go (P->at). */
static int place_events(struct run *R, struct part *P)
{
	struct gr_model *m = R->L->m;
	int err = 0;

	if (P->views) {
		/* every earlier chunk took its place: this one is at the end */
#define X(kind, field)                                                                             \
	P->at[kind] = m->field.n;                                                                  \
	m->field.n += P->field.n;
		EVENT_ARRAYS(X)
#undef X
		return 0;
	}

#define X(kind, field)                                                                             \
	if (!err && m->field.n + P->field.n > m->field.cap) {                                      \
		drain_copies(R);                                                                   \
		err = RESERVE(m->field, P->field.n);                                               \
	}                                                                                          \
	if (!err) {                                                                                \
		P->at[kind] = m->field.n;                                                          \
		m->field.n += P->field.n;                                                          \
	}
	EVENT_ARRAYS(X)
#undef X
	return err;
}

/* Append @P's aside calls to the model's, with its local indexes mapped (in chunk order). */
static int merge_asides(struct loader *L, struct part *P)
{
	struct gr_model *m = L->m;
	const uint32_t *thread = P->map[T_THREAD].v, *stream = P->map[T_STREAM].v;
	const uint32_t *stack = P->map[T_STACK].v, *lkey = P->map[T_LKEY].v;
	int err;

	if (!P->asides.n)
		return 0;
	err = RESERVE(m->asides, P->asides.n);
	if (err)
		return err;
	for (size_t i = 0; i < P->asides.n; i++) {
		struct gr_aside *a = &m->asides.v[m->asides.n++];

		*a = P->asides.v[i];
		switch (a->kind) {
		case GR_K_LAUNCH:
			a->u.launch.key = lkey[a->u.launch.key];
			break;
		case GR_K_COPY:
			a->u.copy.thread = thread[a->u.copy.thread];
			a->u.copy.stream = stream[a->u.copy.stream];
			a->u.copy.stack = stack[a->u.copy.stack];
			break;
		case GR_K_MEMSET:
			a->u.memset.thread = thread[a->u.memset.thread];
			a->u.memset.stream = stream[a->u.memset.stream];
			a->u.memset.stack = stack[a->u.memset.stack];
			break;
		case GR_K_ALLOC:
			a->u.alloc.thread = thread[a->u.alloc.thread];
			a->u.alloc.stream = stream[a->u.alloc.stream];
			a->u.alloc.stack = stack[a->u.alloc.stack];
			break;
		case GR_K_FREE:
			a->u.free.thread = thread[a->u.free.thread];
			break;
		case GR_K_SYNC:
			a->u.sync.thread = thread[a->u.sync.thread];
			a->u.sync.stack = stack[a->u.sync.stack];
			break;
		case GR_K_GRAPH:
			a->u.graph.thread = thread[a->u.graph.thread];
			a->u.graph.stream = stream[a->u.graph.stream];
			a->u.graph.stack = stack[a->u.graph.stack];
			break;
		}
	}
	return 0;
}

/* GR_ERR_LIMIT: the load would read @records records, more than allowed. */
static int over_limit(struct loader *L, uint64_t records, uint64_t offset)
{
	if (L->over_records)
		*L->over_records = records;
	return gr_diag_set(L->diag, GR_ERR_LIMIT, offset,
			   "more than %" PRIu64 " records: %" PRIu64
			   " to read (about %.1f GiB to load)",
			   L->max_records, records,
			   (double)records * GR_MODEL_RECORD_BYTES / (1024.0 * 1024 * 1024));
}

/* Merge the next part in chunk order. Returns 1 when its events are to be copied, 0 when it
 * has none (a bad chunk), or a negative error with the loader's diag set. */
static int merge(struct run *R, struct part *P)
{
	struct loader *L = R->L;
	struct gr_model *m = L->m;
	int err;

	/* in place, a chunk that is not as the footer counts it leaves its place wrong */
	if (P->views && (P->status == 0 || P->status == PART_MISMATCH))
		return LOAD_AGAIN;
	if (P->status == 0)
		return 0;
	if (P->status < 0 && !P->diag.err)
		return gr_diag_set(L->diag, P->status, L->chunk_offset, "reading chunks: %s",
				   gr_strerror(P->status));
	L->chunk_offset = P->offset;
	if (L->max_records && P->total > L->max_records - L->nrecords)
		return over_limit(L, L->nrecords + P->total, P->offset);
	L->nrecords += P->total;
	gr_progress_add(P->total);
	if (P->status < 0) {
		if (L->diag)
			*L->diag = P->diag;
		return P->diag.err;
	}
	if (P->first_ts < m->first_ts)
		m->first_ts = P->first_ts;
	if (P->last_ts > m->last_ts)
		m->last_ts = P->last_ts;
	for (int k = 0; k < GR_K_COUNT; k++)
		m->counts[k] += P->counts[k];
	m->lost = sat_add(m->lost, P->lost);
	m->lost_stacks = sat_add(m->lost_stacks, P->lost_stacks);
	m->calls_ok += P->calls_ok;
#define X(kind, field)                                                                             \
	if (P->field.n) {                                                                          \
		L->unsorted[kind] |= P->unsorted[kind] || P->first_ev[kind] < L->prev_ts[kind];    \
		L->prev_ts[kind] = P->last_ev[kind];                                               \
	}
	EVENT_ARRAYS(X)
#undef X
	if (P->views) {
#define X(kind, field)                                                                             \
	if (P->field.n != P->field.cap)                                                            \
		return LOAD_AGAIN;
		EVENT_ARRAYS(X)
#undef X
	}
	err = 0;
	P->mapped = 0;
	for (int t = 0; t < T_COUNT && !err; t++)
		err = map_table(L, P, t);
	if (!err)
		err = merge_metadata(L, P);
	if (!err)
		err = merge_asides(L, P);
	if (!err)
		err = place_events(R, P);
	if (err)
		return gr_diag_set(L->diag, err, P->offset, "%s while loading",
				   err == GR_ERR_LIMIT ? "too many distinct keys"
						       : "out of memory");
	/* in place with the model's indexes: nothing left to do */
	return !P->views || P->mapped;
}

/* Copy @P's events to their places in the model, with its local indexes mapped (an empty array
 * may have no memory at all: nothing is computed from its pointer). */
static void copy_job(struct gr_pool_job *job)
{
	struct part *P = PART_OF(job);
	struct gr_model *m = P->ctx->m;
	const uint32_t *thread = P->map[T_THREAD].v, *stream = P->map[T_STREAM].v;
	const uint32_t *stack = P->map[T_STACK].v, *lkey = P->map[T_LKEY].v;
	const uint32_t *skey = P->map[T_SKEY].v;

	if (!P->mapped) {
		/* the part's indexes are the model's (not in place: merge() says so) */
#define X(kind, field)                                                                             \
	if (P->field.n)                                                                            \
		memcpy(m->field.v + P->at[kind], P->field.v, P->field.n * sizeof(*P->field.v));
		EVENT_ARRAYS(X)
#undef X
		return;
	}
	/* in place (P->views) the source is the destination */
	if (P->launches.n) {
		const struct gr_launch *s = P->launches.v;
		struct gr_launch *o = m->launches.v + P->at[GR_K_LAUNCH];

		for (size_t i = 0; i < P->launches.n; i++) {
			o[i] = s[i];
			o[i].key = lkey[s[i].key];
		}
	}
	if (P->copies.n) {
		struct gr_copy *o = m->copies.v + P->at[GR_K_COPY];

		for (size_t i = 0; i < P->copies.n; i++) {
			o[i] = P->copies.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stream = stream[o[i].stream];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->memsets.n) {
		struct gr_memset *o = m->memsets.v + P->at[GR_K_MEMSET];

		for (size_t i = 0; i < P->memsets.n; i++) {
			o[i] = P->memsets.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stream = stream[o[i].stream];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->allocs.n) {
		struct gr_alloc *o = m->allocs.v + P->at[GR_K_ALLOC];

		for (size_t i = 0; i < P->allocs.n; i++) {
			o[i] = P->allocs.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stream = stream[o[i].stream];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->nvtx_raw.n) {
		struct gr_nvtx_raw *o = m->nvtx_raw.v + P->at[GR_K_NVTX];

		for (size_t i = 0; i < P->nvtx_raw.n; i++) {
			o[i] = P->nvtx_raw.v[i];
			o[i].e.thread = thread[o[i].e.thread];
		}
	}
	if (P->meminfos.n) {
		struct gr_meminfo *o = m->meminfos.v + P->at[GR_K_MEMINFO];

		for (size_t i = 0; i < P->meminfos.n; i++) {
			o[i] = P->meminfos.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->frees.n) {
		struct gr_free *o = m->frees.v + P->at[GR_K_FREE];

		for (size_t i = 0; i < P->frees.n; i++) {
			o[i] = P->frees.v[i];
			o[i].thread = thread[o[i].thread];
		}
	}
	if (P->syncs.n) {
		struct gr_sync *o = m->syncs.v + P->at[GR_K_SYNC];

		for (size_t i = 0; i < P->syncs.n; i++) {
			o[i] = P->syncs.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->graphs.n) {
		struct gr_graph *o = m->graphs.v + P->at[GR_K_GRAPH];

		for (size_t i = 0; i < P->graphs.n; i++) {
			o[i] = P->graphs.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stream = stream[o[i].stream];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->comm_calls.n) {
		struct gr_comm_call *o = m->comm_calls.v + P->at[GR_K_COMM];

		for (size_t i = 0; i < P->comm_calls.n; i++) {
			o[i] = P->comm_calls.v[i];
			o[i].thread = thread[o[i].thread];
			o[i].stack = stack[o[i].stack];
		}
	}
	if (P->scheds.n) {
		struct gr_sched *o = m->scheds.v + P->at[GR_K_SCHED];

		for (size_t i = 0; i < P->scheds.n; i++) {
			o[i] = P->scheds.v[i];
			o[i].key = skey[o[i].key];
		}
	}
	if (P->views) /* the rest have no index: in place already */
		return;
	if (P->procs.n)
		memcpy(m->procs.v + P->at[GR_K_PROC], P->procs.v, P->procs.n * sizeof(*P->procs.v));
	if (P->losses.n)
		memcpy(m->losses.v + P->at[GR_K_LOSS], P->losses.v,
		       P->losses.n * sizeof(*P->losses.v));
	if (P->gpus.n)
		memcpy(m->gpus.v + P->at[GR_K_GPU], P->gpus.v, P->gpus.n * sizeof(*P->gpus.v));
}

/* ---- load ---- */

/* Record kinds the model keeps whole in a windowed load: a chunk with one of them is read. */
#define META_KINDS                                                                                 \
	(1ull << GR_K_PROC | 1ull << GR_K_NAME | 1ull << GR_K_MAPPING | 1ull << GR_K_SYMBOL |      \
	 1ull << GR_K_STACK | 1ull << GR_K_SESSION | 1ull << GR_K_PYFRAME)

/*
 * The chunks to read, in file order, into @todo (gr_trace_reader_index_len() entries). Bad ones
 * are left out (a sequential pass skips them too); so are, in a windowed load, the chunks the
 * window does not need: their record counts and time span come from the footer's index.
 * Returns the number of chunks to read; *@hint gets, per event kind, the records of those
 * chunks as the footer counts them (the room the model's arrays will need, at most), and
 * *@records their records of all kinds, as the index (footer or chunk headers) counts them.
 */
static uint64_t plan(struct loader *L, struct gr_trace_reader *r, uint64_t *todo, uint64_t *hint,
		     uint64_t *records)
{
	const struct load_ctx *x = &L->ctx;
	struct gr_model *m = L->m;
	uint64_t n = gr_trace_reader_index_len(r), ntodo = 0;
	struct gr_chunk_info ci;

	memset(hint, 0, GR_K_COUNT * sizeof(*hint));
	*records = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (gr_trace_reader_chunk_info(r, i, &ci) || ci.bad)
			continue;
		if (!x->window || !ci.kinds_known || (ci.kinds & META_KINDS) ||
		    (ci.last_ts >= x->lo && ci.first_ts <= x->to)) {
			todo[ntodo++] = i;
			*records += ci.records;
			for (int k = 1; k < GR_K_COUNT; k++)
				hint[k] += ci.count[k];
			continue;
		}
		for (int k = 1; k < GR_K_COUNT; k++)
			if (x->present[k])
				m->counts[k] += ci.count[k];
		if (ci.first_ts < m->first_ts)
			m->first_ts = ci.first_ts;
		if (ci.last_ts > m->last_ts)
			m->last_ts = ci.last_ts;
	}
	return ntodo;
}

/*
 * Room in the model's event arrays for what the index says is coming: one allocation each. Only
 * a hint (a footer may count wrong: merge() still checks every part). Returns 1 when every array
 * has exactly that room.
 */
static int presize(struct loader *L, const uint64_t *hint)
{
	struct gr_model *m = L->m;
	int exact = 1;

	/* room for this file's events after what earlier traces of a set put there: sized to the
	 * file's counts alone, a smaller second trace shrank the array under the first's events */
#define X(kind, field)                                                                             \
	if (hint[kind] && (!L->max_records || hint[kind] <= L->max_records))                       \
		exact &= !RESERVE_TO(m->field, m->field.n + hint[kind]);                           \
	else if (hint[kind])                                                                       \
		exact = 0;
	EVENT_ARRAYS(X)
#undef X
	return exact;
}

/* Whether the footer counts the kinds of every chunk to read: each one's place is known. */
static int all_counted(struct gr_trace_reader *r, const uint64_t *todo, uint64_t ntodo)
{
	struct gr_chunk_info ci;

	for (uint64_t j = 0; j < ntodo; j++)
		if (gr_trace_reader_chunk_info(r, todo[j], &ci) || !ci.kinds_known)
			return 0;
	return 1;
}

/*
 * Ready slot @P for chunk @index, the next to read in file order, on this thread (it owns the
 * model's tables): its tables start as copies of the model's, so that the keys known by now keep
 * their index and only the events of new keys need mapping; in place, its event arrays are the
 * chunk's place in the model's, as many events as the footer counts.
 */
static int part_seed(struct run *R, struct part *P, uint64_t index)
{
	struct loader *L = R->L;
	struct gr_model *m = L->m;
	int err = 0;

	for (int t = 0; t < T_COUNT && !err; t++) {
		if (L->tab[t].len <= SEED_MAX) {
			err = gr_keymap_copy(&P->tab[t], &L->tab[t]);
		} else {
			gr_keymap_free(&P->tab[t]);
			gr_keymap_init(&P->tab[t], table_words[t]);
		}
		P->snap[t] = P->tab[t].len;
	}
	/* the stacks' frames too: a STACK record repeated later finds them there, as in the model
	 */
	P->stacks.n = 0;
	if (!err)
		err = RESERVE(P->stacks, P->snap[T_STACK] + 1);
	if (!err && P->snap[T_STACK]) {
		memcpy(P->stacks.v, m->stacks.v, P->snap[T_STACK] * sizeof(*P->stacks.v));
		P->stacks.n = P->snap[T_STACK];
	} else if (!err) {
		/* stack index 0 is "no stack", as in the model */
		uint64_t none[2] = {0, 0};
		struct gr_stack empty = {0};
		uint32_t idx;

		err = gr_keymap_intern(&P->tab[T_STACK], none, &idx);
		if (err >= 0)
			err = SET_AT(P->stacks, idx, &empty);
	}
	if (R->in_place) {
		struct gr_chunk_info ci;

		gr_trace_reader_chunk_info(R->r, index, &ci);
		P->views = 1;
#define X(kind, field)                                                                             \
	P->field.v = m->field.v ? m->field.v + R->next[kind] : NULL;                               \
	P->field.cap = ci.count[kind];                                                             \
	P->field.n = 0;                                                                            \
	R->next[kind] += ci.count[kind];
		EVENT_ARRAYS(X)
#undef X
	}
	return err < 0 ? gr_diag_set(L->diag, -ENOMEM, 0, "out of memory") : 0;
}

static int run_chunks(struct run *R, const uint64_t *todo, uint64_t ntodo)
{
	uint64_t submitted = 0;
	int err = 0;

	for (uint64_t i = 0; i < ntodo && !err; i++) {
		struct part *P;

		/* keep the workers busy with the next chunks while this one merges */
		while (submitted < ntodo && submitted < i + R->nslots) {
			P = &R->slots[submitted % R->nslots];
			if (P->state == SLOT_COPYING)
				gr_pool_wait(R->pool, &P->job);
			P->state = SLOT_FREE;
			err = part_seed(R, P, todo[submitted]);
			if (err)
				break;
			P->index = todo[submitted++];
			P->state = SLOT_CONVERTING;
			P->job.fn = convert_job;
			gr_pool_submit(R->pool, &P->job);
		}
		if (err)
			break;
		P = &R->slots[i % R->nslots];
		gr_pool_wait(R->pool, &P->job);
		P->state = SLOT_FREE;
		err = merge(R, P);
		if (err == 1) {
			P->state = SLOT_COPYING;
			P->job.fn = copy_job;
			gr_pool_submit_first(R->pool, &P->job);
			err = 0;
		}
	}
	/* on an error too: no job may outlive the parts */
	for (unsigned i = 0; i < R->nslots; i++)
		if (R->slots[i].state != SLOT_FREE)
			gr_pool_wait(R->pool, &R->slots[i].job);
	return err;
}

/*
 * Read the chunks into the model. @in_place: convert straight into the model's arrays when the
 * footer's counts say where each chunk goes (no window: every event stays). Returns 0,
 * LOAD_AGAIN when a chunk did not match its count (the caller loads again without @in_place), or
 * a negative error with the diag set.
 */
static int read_chunks(struct loader *L, struct gr_trace_reader *r, unsigned jobs, int in_place)
{
	struct run R = {.L = L, .r = r};
	uint64_t hint[GR_K_COUNT], *todo, ntodo, records;
	int err;

	todo = malloc((gr_trace_reader_index_len(r) + 1) * sizeof(*todo));
	if (!todo)
		return gr_diag_set(L->diag, -ENOMEM, 0, "out of memory");
	ntodo = plan(L, r, todo, hint, &records);
	gr_progress_begin("loading", records, "events");
	/* before any array is sized to them: a few KB of zstd may claim millions of records, and
	 * the index counts what each chunk holds (a chunk that disagrees turns bad when decoded) */
	if (L->max_records && records > L->max_records - L->nrecords) {
		free(todo);
		return over_limit(L, L->nrecords + records, 0);
	}
	/* a window keeps some of the events counted: its arrays grow with what it keeps instead */
	R.in_place = !L->ctx.window && presize(L, hint) && in_place && all_counted(r, todo, ntodo);
	err = gr_pool_new(&R.pool, jobs);
	if (err) {
		free(todo);
		return gr_diag_set(L->diag, err, 0, "cannot start threads: %s", gr_strerror(err));
	}
	/* a chunk per worker converting, and one merging or copying: the memory beyond the model
	 * is a part and a decoder's batch per worker (more slots measured no faster) */
	R.nslots = gr_pool_size(R.pool) == 1 ? 1 : gr_pool_size(R.pool) + 1;
	if (R.nslots > ntodo)
		R.nslots = ntodo ? (unsigned)ntodo : 1;
	R.slots = calloc(R.nslots, sizeof(*R.slots));
	R.decs.cap = gr_pool_size(R.pool);
	R.decs.free = calloc(R.decs.cap, sizeof(*R.decs.free));
	pthread_mutex_init(&R.decs.lock, NULL);
	if (!R.slots || !R.decs.free) {
		err = gr_diag_set(L->diag, -ENOMEM, 0, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < R.nslots; i++) {
		R.slots[i].ctx = &L->ctx;
		R.slots[i].decs = &R.decs;
		R.slots[i].r = r;
	}
	err = run_chunks(&R, todo, ntodo);
out:
	gr_pool_free(R.pool);
	for (unsigned i = 0; R.slots && i < R.nslots; i++)
		part_free(&R.slots[i]);
	free(R.slots);
	for (unsigned i = 0; i < R.decs.n; i++)
		gr_chunk_decoder_free(R.decs.free[i]);
	free(R.decs.free);
	pthread_mutex_destroy(&R.decs.lock);
	free(todo);
	return err;
}

/* Give back what the growth of the model's arrays left unused. */
static void fit_arrays(struct gr_model *m)
{
#define X(kind, field) FIT(m->field);
	EVENT_ARRAYS(X)
#undef X
	FIT(m->kernels);
	FIT(m->kernel_names);
	FIT(m->configs);
	FIT(m->threads);
	FIT(m->streams);
	FIT(m->processes);
	FIT(m->libraries);
	FIT(m->unprobed);
	FIT(m->mappings);
	FIT(m->symbols);
	FIT(m->stacks);
	FIT(m->pyframes);
	FIT(m->pythons);
	FIT(m->comms);
	FIT(m->session);
}

static void loader_free(struct loader *L)
{
	if (!L)
		return;
	struct gr_keymap *maps[] = {&L->kname_k,    &L->kraw_k, &L->comm_k,   &L->lib_k,
				    &L->unprobed_k, &L->sym_k,	&L->map_k,    &L->sess_k,
				    &L->pyf_k,	    &L->py_k,	&L->rankenv_k};

	for (int t = 0; t < T_COUNT; t++)
		gr_keymap_free(&L->tab[t]);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		gr_keymap_free(maps[i]);
	RELEASE(L->kname);
	RELEASE(L->kraw);
	RELEASE(L->comm);
	RELEASE(L->rankenv);
	gr_strtab_free(&L->strs.t);
	pthread_mutex_destroy(&L->strs.lock);
	free(L);
}

int64_t gr_model_clock_shift(const struct gr_trace_header *first, const struct gr_trace_header *h,
			     int *anchored)
{
	*anchored = first->clock_monotonic_ns && first->clock_realtime_ns &&
		    h->clock_monotonic_ns && h->clock_realtime_ns;
	if (!*anchored)
		return 0;
	/* the same instant reads realtime - monotonic later on each clock: the difference of the
	 * two offsets carries one clock onto the other */
	return (int64_t)((h->clock_realtime_ns - h->clock_monotonic_ns) -
			 (first->clock_realtime_ns - first->clock_monotonic_ns));
}

/* The set's traces, where each came from, into the model; trace @k's place in L->ctx. */
static int set_trace(struct loader *L, struct gr_trace_reader *const *rs, const char *const *paths,
		     size_t n, size_t k)
{
	struct gr_model *m = L->m;
	const struct gr_trace_header *h = gr_trace_reader_header(rs[k]);
	struct gr_model_trace t = {0};
	int err;

	L->ctx.remap = k > 0;
	L->ctx.id_base = (uint32_t)k * GR_MODEL_SET_PIDS;
	L->ctx.cpu_base = (uint32_t)k * GR_MODEL_SET_CPUS;
	L->ctx.gpu_base = (uint32_t)k * GR_MODEL_SET_GPUS;
	L->ctx.ts_shift = gr_model_clock_shift(gr_trace_reader_header(rs[0]), h, &t.anchored);
	if (n < 2)
		return 0;
	t.path = copy_str(L, paths[k]);
	t.host = copy_str(L, h->host ? h->host : "");
	t.shift_ns = L->ctx.ts_shift;
	if (!t.path || !t.host)
		return -ENOMEM;
	err = RESERVE(m->traces, 1);
	if (err)
		return err;
	m->traces.v[m->traces.n++] = t;
	return 0;
}

static int load_once(struct gr_model **out, struct gr_trace_reader *const *rs,
		     const char *const *paths, size_t nr, const struct gr_model_load_opts *o,
		     int in_place, struct gr_diag *diag, size_t *failed)
{
	struct gr_model *m = NULL;
	struct gr_trace_reader *r = rs[0];
	struct loader *L;
	int err;

	*out = NULL;
	L = calloc(1, sizeof(*L));
	m = calloc(1, sizeof(*m));
	if (!L || !m) {
		free(L);
		L = NULL;
		err = gr_diag_set(diag, -ENOMEM, 0, "out of memory");
		goto out;
	}
	m->first_ts = UINT64_MAX;
	L->m = m;
	L->diag = diag;
	L->max_records = o->max_records;
	L->over_records = o->over_records;
	pthread_mutex_init(&L->strs.lock, NULL);
	gr_strtab_init(&L->strs.t, &m->arena);
	L->ctx.m = m;
	L->ctx.strs = &L->strs;
	if (o->has_window) {
		L->ctx.window = 1;
		L->ctx.from = o->from_ts;
		L->ctx.to = o->to_ts;
		L->ctx.lo = o->from_ts > o->margin_ns ? o->from_ts - o->margin_ns : 0;
	}
	for (int t = 0; t < T_COUNT; t++)
		gr_keymap_init(&L->tab[t], table_words[t]);
	gr_keymap_init(&L->kname_k, 2);
	gr_keymap_init(&L->kraw_k, 2);
	gr_keymap_init(&L->comm_k, 2);
	gr_keymap_init(&L->lib_k, 1);
	gr_keymap_init(&L->unprobed_k, 1);
	gr_keymap_init(&L->sym_k, 2);
	gr_keymap_init(&L->map_k, 3);
	gr_keymap_init(&L->sess_k, 1);
	gr_keymap_init(&L->pyf_k, 1);
	gr_keymap_init(&L->py_k, 2);
	gr_keymap_init(&L->rankenv_k, 2);
	{
		/* stack index 0 is "no stack" */
		uint64_t none[2] = {0, 0};
		struct gr_stack empty = {0};
		uint32_t idx;

		err = gr_keymap_intern(&L->tab[T_STACK], none, &idx);
		if (err >= 0)
			err = SET_AT(m->stacks, idx, &empty);
		if (err < 0) {
			err = gr_diag_set(diag, -ENOMEM, 0, "out of memory");
			goto out;
		}
	}

	err = copy_header(L, gr_trace_reader_header(r));
	if (err)
		goto out;
	/* a set's traces one after another; each one's chunks in its own file order */
	for (size_t k = 0; k < nr; k++) {
		*failed = k;
		err = set_trace(L, rs, paths, nr, k);
		if (err) {
			err = gr_diag_set(diag, -ENOMEM, 0, "out of memory");
			goto out;
		}
		err = model_map_schema(&L->ctx, gr_trace_reader_schema(rs[k]), diag);
		if (err)
			goto out;
		for (int kind = 0; kind < GR_K_COUNT; kind++)
			m->kinds[kind] |= L->ctx.present[kind];
		/* in place needs the footer's counts of the one file the arrays are sized for */
		err = read_chunks(L, rs[k], o->jobs, in_place && nr == 1);
		if (err)
			goto out;
	}
	*failed = 0;
	m->integ = *gr_trace_reader_integrity(r);
	gr_progress_begin("sorting and indexing", 0, NULL);
	err = finish(L);
	if (err)
		goto out;
	err = gr_memmap_resolve_copies(m, !o->has_window);
	if (err) {
		err = gr_diag_set(diag, err, 0, "out of memory resolving copy directions");
		goto out;
	}
	fit_arrays(m);
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

static int load_readers(struct gr_model **out, struct gr_trace_reader *const *rs,
			const char *const *paths, size_t nr, const struct gr_model_load_opts *o,
			struct gr_diag *diag, size_t *failed)
{
	int err = load_once(out, rs, paths, nr, o, 1, diag, failed);

	/* the footer counted some chunk wrong, or a chunk failed to decode: it is marked bad now,
	 * and the second load, through the parts, skips it as the first would have */
	if (err == LOAD_AGAIN)
		err = load_once(out, rs, paths, nr, o, 0, diag, failed);
	return err;
}

static int load(struct gr_model **out, struct gr_trace_reader *r,
		const struct gr_model_load_opts *o, struct gr_diag *diag)
{
	size_t failed;

	return load_readers(out, &r, NULL, 1, o, diag, &failed);
}

int gr_model_load_set(struct gr_model **out, const char *const *paths, size_t n,
		      const struct gr_model_load_opts *opts, struct gr_diag *diag, size_t *failed)
{
	static const struct gr_model_load_opts defaults;
	struct gr_trace_reader **rs;
	size_t opened = 0;
	int err = 0;

	*out = NULL;
	*failed = 0;
	if (!n || n > GR_MODEL_SET_MAX)
		return gr_diag_set(diag, -EINVAL, 0, "a set holds 1 to %d traces",
				   GR_MODEL_SET_MAX);
	rs = calloc(n, sizeof(*rs));
	if (!rs)
		return gr_diag_set(diag, -ENOMEM, 0, "out of memory");
	for (; opened < n && !err; opened++) {
		*failed = opened;
		err = gr_trace_reader_open(&rs[opened], paths[opened], diag);
	}
	if (!err)
		err = load_readers(out, rs, paths, n, opts ? opts : &defaults, diag, failed);
	for (size_t i = 0; i < n; i++)
		if (rs[i])
			gr_trace_reader_close(rs[i]);
	free(rs);
	return err;
}

int gr_model_load_opts(struct gr_model **out, const char *path,
		       const struct gr_model_load_opts *opts, struct gr_diag *diag)
{
	static const struct gr_model_load_opts defaults;
	struct gr_trace_reader *r = NULL;
	int err;

	*out = NULL;
	err = gr_trace_reader_open(&r, path, diag);
	if (err)
		return err;
	err = load(out, r, opts ? opts : &defaults, diag);
	gr_trace_reader_close(r);
	return err;
}

int gr_model_load(struct gr_model **out, const char *path, struct gr_diag *diag)
{
	return gr_model_load_opts(out, path, NULL, diag);
}

int gr_model_load_mem(struct gr_model **out, const void *buf, size_t len, uint64_t max_records,
		      struct gr_diag *diag)
{
	struct gr_model_load_opts o = {.jobs = 1, .max_records = max_records};
	struct gr_trace_reader *r = NULL;
	int err;

	*out = NULL;
	err = gr_trace_reader_open_mem(&r, buf, len, diag);
	if (err)
		return err;
	err = load(out, r, &o, diag);
	gr_trace_reader_close(r);
	return err;
}
