/* SPDX-License-Identifier: MIT */
/* Unwind tables for the BPF walk, per file and per process: see cfi.h. */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "analyze/util/text.h"
#include "cfi.h"
#include "cfi_table.h"
#include "clock.h"
#include "discover.h"
#include "elf.h"

/* Where a table lies in the BPF arrays: as struct gr_cfi_map's fields. */
struct cfi_place {
	uint32_t first, rows;
	uint32_t base, bucket, nbuckets, shift;
};

struct cfi_file {
	const struct gr_file *file;
	struct cfi_place at;
	/* 0: the table is in place (at); -EINPROGRESS: built on first need, not yet in place;
	 * else why there is none */
	int err;
	int on_need;	 /* its table was left to first need (large: defer_table()) */
	uint64_t needed; /* the order a stack first needed it in (1, 2, ...); 0 not yet */
	uint64_t before; /* stacks that ended in it before its table was in place */
};

/*
 * A table built and written into the BPF arrays on a thread of its own (build_thread()), so
 * that the recorder drains on: a large table takes tens of milliseconds to write, hundreds to
 * build. The recorder's thread names it in the processes' entries (gr_cfi_poll()).
 */
struct cfi_build {
	pthread_t thread;
	struct gr_cfi *c;
	size_t file; /* index in files */
	int fd;	     /* the recorder's own copy: the file's may close meanwhile */
	struct cfi_place at;
	int err;
	uint64_t ns;
	int finished; /* set last by the thread (atomic) */
};

void gr_cfi_init(struct gr_cfi *c, int rows_fd, size_t cap, int buckets_fd, size_t bcap,
		 int procs_fd)
{
	const char *defer = getenv("GPUREC_TEST_CFI_DEFER");

	memset(c, 0, sizeof(*c));
	c->rows_fd = rows_fd;
	c->buckets_fd = buckets_fd;
	c->procs_fd = procs_fd;
	c->cap = cap;
	c->bcap = bcap;
	c->defer_path = defer && *defer ? defer : NULL;
	pthread_mutex_init(&c->lock, NULL);
	/* without it, a table built on first need waits for the drain's next timer */
	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	c->ready = 1;
}

/* Write @n values of @size bytes into the array map @fd from index @first. 0 or -errno. */
static int write_array(int fd, size_t first, const void *vals, size_t n, size_t size)
{
	enum { CHUNK = 65536 };
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	int err = 0;

	if (!keys)
		return -ENOMEM;
	for (size_t done = 0; done < n && !err;) {
		uint32_t count = n - done < CHUNK ? (uint32_t)(n - done) : CHUNK;
		const char *v = (const char *)vals + done * size;

		for (uint32_t i = 0; i < count; i++)
			keys[i] = (uint32_t)(first + done + i);
		/* a kernel without batch updates for arrays: one at a time */
		if (bpf_map_update_batch(fd, keys, v, &count, NULL)) {
			count = 1;
			if (bpf_map_update_elem(fd, keys, v, BPF_ANY))
				err = -errno;
		}
		done += count;
	}
	free(keys);
	return err;
}

/*
 * The buckets of @t (struct gr_cfi_map) into *@out, *@nb of them: a width of 2^*@shift bytes
 * that gives about one bucket per 4 rows, so the BPF walk searches a few rows, not the whole
 * table. 0 or -ENOMEM.
 */
static int make_buckets(const struct gr_cfi_table *t, uint64_t **out, uint64_t *nb, unsigned *shift)
{
	uint64_t span = t->rows[t->n - 1].pc - t->rows[0].pc, *b;
	size_t r = 0;

	*shift = 4;
	while (*shift < 31 && (span >> *shift) + 1 > t->n / 4 + 1)
		(*shift)++;
	*nb = (span >> *shift) + 1;
	b = malloc(*nb * sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (uint64_t k = 0; k < *nb; k++) {
		uint64_t at = t->rows[0].pc + (k << *shift), next;

		while (r + 1 < t->n && t->rows[r + 1].pc <= at)
			r++;
		/* the last bucket's rows end with the table */
		next = r;
		while (k + 1 == *nb
			   ? next + 1 < t->n
			   : next + 1 < t->n && t->rows[next + 1].pc <= at + (1ull << *shift))
			next++;
		b[k] = (uint64_t)next << 32 | r;
	}
	*out = b;
	return 0;
}

/*
 * Take @rows rows and @nb buckets of what is left in the arrays: their first indices into @at,
 * or -E2BIG. Under the lock: a build on first need takes its share on its own thread.
 */
static int reserve(struct gr_cfi *c, size_t rows, uint64_t nb, struct cfi_place *at)
{
	int err = 0;

	pthread_mutex_lock(&c->lock);
	if (rows > c->cap - c->used || nb > c->bcap - c->bused) {
		err = -E2BIG;
	} else {
		at->first = (uint32_t)c->used;
		at->bucket = (uint32_t)c->bused;
		c->used += rows;
		c->bused += nb;
	}
	pthread_mutex_unlock(&c->lock);
	return err;
}

/*
 * Write built table @t (its build returned @err) into the BPF arrays; where it lies into @at.
 * Returns 0, or why the file has no table. The rows are in place before any process's entry
 * names them: the walk never sees them half. Safe on any thread.
 */
static int install(struct gr_cfi *c, const struct gr_cfi_table *t, int err, struct cfi_place *at)
{
	uint64_t *b = NULL, nb = 0;
	unsigned shift = 0;

	if (!err && !t->n)
		err = -ENOENT;
	if (!err)
		err = make_buckets(t, &b, &nb, &shift);
	if (!err)
		err = reserve(c, t->n, nb, at);
	if (!err)
		err = write_array(c->buckets_fd, at->bucket, b, nb, sizeof(*b));
	if (!err)
		err = write_array(c->rows_fd, at->first, t->rows, t->n, sizeof(*t->rows));
	free(b);
	if (err)
		return err;
	at->rows = (uint32_t)t->n;
	at->base = t->rows[0].pc;
	at->nbuckets = (uint32_t)nb;
	at->shift = shift;
	return 0;
}

/* Count a build of @ns for @f into the -v summary. */
static void note_build(struct gr_cfi *c, const struct gr_file *f, uint64_t ns)
{
	c->build_ns += ns;
	if (ns > c->worst_ns) {
		c->worst_ns = ns;
		c->worst = f->path;
	}
}

/* The rows taken: a table built on first need may be taking its share. */
static size_t rows_used(const struct gr_cfi *c)
{
	pthread_mutex_t *lock = (pthread_mutex_t *)&c->lock;
	size_t used;

	pthread_mutex_lock(lock);
	used = c->used;
	pthread_mutex_unlock(lock);
	return used;
}

static size_t rows_left(struct gr_cfi *c)
{
	return c->cap - rows_used(c);
}

/*
 * Whether @f's table waits for a stack that needs it, rather than being built while the process
 * that maps it is held: a large one (PyTorch maps cuFFT, cuSPARSE and more it never calls; their
 * tables took seconds and filled the rows before libtorch's). Not a file with probes, whose code
 * begins every stack of its calls, nor a CPython, which every Python stack runs through.
 */
static int defer_table(const struct gr_cfi *c, const struct gr_file *f)
{
	if (f->probes || f->py || !f->elf || f->fd < 0)
		return 0;
	if (c->defer_path) /* tests: which files, by path */
		return strstr(f->path, c->defer_path) != NULL;
	return gr_elf_section_size(f->elf, ".eh_frame") > GR_CFI_EAGER_EH_FRAME;
}

/* @f's table, built the first time any process maps it (or left to first need); NULL when out
 * of memory. */
static const struct cfi_file *file_table(struct gr_cfi *c, const struct gr_file *f)
{
	uint64_t *idx = gr_u64map_get(&c->by_file, (uintptr_t)f), t0;
	struct gr_cfi_table t = {0};
	struct cfi_file *files, *cf;
	int err = -ENOENT;

	if (idx)
		return &c->files[*idx - 1];
	files = realloc(c->files, (c->nfiles + 1) * sizeof(*files));
	if (!files)
		return NULL;
	c->files = files;
	cf = &files[c->nfiles];
	*cf = (struct cfi_file){.file = f, .err = -EINPROGRESS, .on_need = 1};
	if (!defer_table(c, f)) {
		cf->on_need = 0;
		t0 = gr_clock_ns(CLOCK_MONOTONIC);
		if (f->elf && f->fd >= 0)
			err = gr_cfi_table_build(f->fd, rows_left(c), &t);
		note_build(c, f, gr_clock_ns(CLOCK_MONOTONIC) - t0);
		cf->err = install(c, &t, err, &cf->at);
		gr_cfi_table_free(&t);
	}
	if (gr_u64map_put(&c->by_file, (uintptr_t)f, c->nfiles + 1))
		return NULL;
	return &c->files[c->nfiles++];
}

/* Build and write a table: it touches only @arg and what install() locks. */
static void *build_thread(void *arg)
{
	struct cfi_build *b = arg;
	struct gr_cfi_table t = {0};
	uint64_t t0 = gr_clock_ns(CLOCK_MONOTONIC), one = 1;
	int err = gr_cfi_table_build(b->fd, rows_left(b->c), &t);

	b->err = install(b->c, &t, err, &b->at);
	gr_cfi_table_free(&t);
	b->ns = gr_clock_ns(CLOCK_MONOTONIC) - t0;
	__atomic_store_n(&b->finished, 1, __ATOMIC_RELEASE);
	/* no wakeup written: the drain's timer finds it */
	if (b->c->wake_fd >= 0 && write(b->c->wake_fd, &one, sizeof(one)) != sizeof(one))
		return NULL;
	return NULL;
}

/* Start building the table a stack needed first of those still waiting, unless one is under
 * way. Where no thread can start, it waits for the next call. */
static void start_next(struct gr_cfi *c)
{
	struct cfi_build *b;
	size_t next = c->nfiles;

	if (c->build)
		return;
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].err == -EINPROGRESS && c->files[i].needed &&
		    (next == c->nfiles || c->files[i].needed < c->files[next].needed))
			next = i;
	if (next == c->nfiles || !(b = calloc(1, sizeof(*b))))
		return;
	b->c = c;
	b->file = next;
	b->fd = fcntl(c->files[next].file->fd, F_DUPFD_CLOEXEC, 0);
	if (b->fd < 0 || pthread_create(&b->thread, NULL, build_thread, b)) {
		if (b->fd >= 0)
			close(b->fd);
		free(b);
		return;
	}
	c->build = b;
}

/* Wait for the build under way, if any, and free it. */
static void join_build(struct gr_cfi *c)
{
	if (!c->build)
		return;
	pthread_join(c->build->thread, NULL);
	close(c->build->fd);
	free(c->build);
	c->build = NULL;
}

/* Whether @p maps @f. */
static int maps_file(const struct gr_proc *p, const struct gr_file *f)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].file == f)
			return 1;
	return 0;
}

void gr_cfi_poll(struct gr_cfi *c, struct gr_procs *procs)
{
	struct cfi_build *b = c ? c->build : NULL;
	struct cfi_file *cf;
	uint64_t count;

	if (!b || !__atomic_load_n(&b->finished, __ATOMIC_ACQUIRE))
		return;
	/* level-triggered: read, or every wait returns at once */
	if (c->wake_fd >= 0 && read(c->wake_fd, &count, sizeof(count)) < 0)
		count = 0;
	cf = &c->files[b->file];
	note_build(c, cf->file, b->ns);
	cf->at = b->at;
	cf->err = b->err;
	if (!cf->err) {
		c->on_need_built++;
		/* every process that maps it walks it from now on */
		for (size_t i = 0; i < procs->by_pid.cap; i++)
			if (procs->by_pid.keys && procs->by_pid.keys[i] &&
			    maps_file((const struct gr_proc *)(uintptr_t)procs->by_pid.vals[i],
				      cf->file))
				gr_cfi_sync(c, procs, (uint32_t)procs->by_pid.keys[i]);
	}
	if (c->verbose)
		fprintf(stderr,
			"gpurec record: unwind table of %s built on first need: %" PRIu32
			" rows in %.1f ms, after %" PRIu64 " %s ended in it%s\n",
			GR_TEXT(cf->file->path), cf->at.rows, b->ns / 1e6, cf->before,
			cf->before == 1 ? "stack" : "stacks", cf->err ? " (not installed)" : "");
	join_build(c);
	start_next(c);
}

static int cmp_start(const void *a, const void *b)
{
	const struct gr_cfi_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void gr_cfi_sync(struct gr_cfi *c, struct gr_procs *procs, uint32_t pid)
{
	struct gr_proc *p;
	struct gr_cfi_proc *v;

	if (!c || !c->ready || !(p = gr_discover_proc(procs, pid)))
		return;
	v = calloc(1, sizeof(*v));
	if (!v)
		return;
	/* newest first: a mapping overlapping a newer one is gone (exec, dlclose) */
	for (size_t i = p->nmaps; i > 0 && v->n < GR_CFI_MAPS; i--) {
		const struct gr_mapping *m = &p->maps[i - 1];
		const struct cfi_file *cf = file_table(c, m->file);
		uint64_t vaddr;
		int overlaps = 0;

		if (!cf || cf->err || gr_elf_offset_to_vaddr(m->file->elf, m->pgoff, &vaddr))
			continue;
		for (uint32_t k = 0; k < v->n && !overlaps; k++)
			overlaps = m->start < v->maps[k].end && v->maps[k].start < m->end;
		if (overlaps)
			continue;
		v->maps[v->n++] = (struct gr_cfi_map){.start = m->start,
						      .end = m->end,
						      .bias = m->start - vaddr,
						      .first = cf->at.first,
						      .rows = cf->at.rows,
						      .base = cf->at.base,
						      .bucket = cf->at.bucket,
						      .nbuckets = cf->at.nbuckets,
						      .shift = cf->at.shift};
	}
	qsort(v->maps, v->n, sizeof(v->maps[0]), cmp_start);
	/* what threads of @pid cached from the entry before is stale now (cfi_cache) */
	v->gen = ++c->gen & 0xffff;
	bpf_map_update_elem(c->procs_fd, &pid, v, BPF_ANY);
	free(v);
}

int gr_cfi_covered(const struct gr_cfi *c, const struct gr_file *f, const char **why)
{
	uint64_t *idx = gr_u64map_get(&c->by_file, (uintptr_t)f);
	int err = idx ? c->files[*idx - 1].err : -EAGAIN;

	if (why)
		*why = !err		     ? "code its .eh_frame does not describe"
		       : err == -ENOENT	     ? "no .eh_frame"
		       : err == -E2BIG	     ? "the tables are full"
		       : err == -EAGAIN	     ? "past the mappings a process's tables hold"
		       : err == -EINPROGRESS ? "its table was still being built"
					     : "its table could not be built";
	return !err;
}

/*
 * Whether the table of @cf has a rule the walk follows for link-time address @pc: read from the
 * BPF array, a row at a time (once per new stack: the recorder keeps no copy).
 */
static int has_rule(const struct gr_cfi *c, const struct cfi_file *cf, uint64_t pc)
{
	struct gr_cfi_row row;
	size_t lo = 0, hi = cf->at.rows;
	uint32_t key;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		key = cf->at.first + (uint32_t)mid;
		if (bpf_map_lookup_elem(c->rows_fd, &key, &row))
			return 1; /* unknown: say nothing */
		if (row.pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	key = cf->at.first + (uint32_t)lo - 1;
	return lo && !bpf_map_lookup_elem(c->rows_fd, &key, &row) &&
	       (row.kind & GR_CFI_CFA_MASK) != GR_CFI_NONE;
}

int gr_cfi_note_end(struct gr_cfi *c, struct gr_procs *procs, uint32_t pid, uint64_t last)
{
	const struct gr_mapping *m;
	const uint64_t *idx;
	uint64_t *count, vaddr;

	if (!c || !c->ready || !(m = gr_discover_lookup(procs, pid, last)))
		return 0;
	idx = gr_u64map_get(&c->by_file, (uintptr_t)m->file);
	if (idx && c->files[*idx - 1].err == -EINPROGRESS) {
		struct cfi_file *cf = &c->files[*idx - 1];

		/* a table left to first need: now it is needed */
		cf->before++;
		if (!cf->needed)
			cf->needed = ++c->needs;
		start_next(c);
		return 1;
	}
	/* a frame is a return address: its call is the byte before */
	if (idx && !c->files[*idx - 1].err &&
	    (gr_elf_offset_to_vaddr(m->file->elf, m->pgoff, &vaddr) ||
	     has_rule(c, &c->files[*idx - 1], vaddr + (last - m->start) - 1)))
		return 0;
	count = gr_u64map_get(&c->ended, (uintptr_t)m->file);
	if (count)
		(*count)++;
	else
		gr_u64map_put(&c->ended, (uintptr_t)m->file, 1);
	return 0;
}

/* By path: the summary reads the same in every run. */
static int cmp_path(const void *a, const void *b)
{
	const struct gr_file *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

/* Say which binaries' tables came on first need after stacks had ended in them. */
static void report_on_need(const struct gr_cfi *c, FILE *out)
{
	uint64_t stacks = 0;
	const char *sep = "";

	for (size_t i = 0; i < c->nfiles; i++)
		stacks += c->files[i].on_need ? c->files[i].before : 0;
	if (!stacks)
		return;
	fprintf(out,
		"gpurec record: %" PRIu64 " %s ended early in large binaries whose unwind tables "
		"are built when a stack first needs them, not before the code runs: ",
		stacks, stacks == 1 ? "stack" : "stacks");
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct cfi_file *cf = &c->files[i];

		if (!cf->on_need || !cf->before)
			continue;
		fprintf(out, "%s%s (%" PRIu64 ", %s)", sep, GR_TEXT(cf->file->path), cf->before,
			!cf->err		  ? "built after them"
			: cf->err == -EINPROGRESS ? "not built when the recording ended"
			: cf->err == -E2BIG	  ? "not built: the tables are full"
						  : "its table could not be built");
		sep = ", ";
	}
	fprintf(out, "\n");
}

int gr_cfi_report(const struct gr_cfi *c, FILE *out, int verbose)
{
	const struct gr_u64map *m = &c->ended;
	const struct gr_file **files;
	size_t n = 0, on_need = 0;

	for (size_t i = 0; i < c->nfiles; i++)
		on_need += c->files[i].on_need;
	if (verbose && c->nfiles)
		fprintf(
		    out,
		    "gpurec record: unwind tables of %zu binaries, %zu rows, built in %.1f ms "
		    "(longest %.1f ms: %s); %zu large %s left to first need, %zu of them built\n",
		    c->nfiles, rows_used(c), c->build_ns / 1e6, c->worst_ns / 1e6,
		    c->worst ? GR_TEXT(c->worst) : "-", on_need, on_need == 1 ? "one" : "ones",
		    c->on_need_built);
	report_on_need(c, out);
	if (!m->len || !(files = calloc(m->len, sizeof(*files))))
		return 0;
	for (size_t i = 0; i < m->cap && n < m->len; i++)
		if (m->keys && m->keys[i])
			files[n++] = (const struct gr_file *)(uintptr_t)m->keys[i];
	qsort(files, n, sizeof(*files), cmp_path);
	fprintf(out, "gpurec record: stacks end early in %zu %s without unwind tables: ", n,
		n == 1 ? "binary" : "binaries");
	for (size_t i = 0; i < n; i++) {
		const char *why;

		gr_cfi_covered(c, files[i], &why);
		fprintf(out, "%s%s (%s)", i ? ", " : "", GR_TEXT(files[i]->path), why);
	}
	fprintf(out, ": --call-graph dwarf unwinds those that carry DWARF CFI, "
		     "-fno-omit-frame-pointer the others\n");
	free(files);
	return (int)n;
}

void gr_cfi_free(struct gr_cfi *c)
{
	if (!c->ready)
		return;
	join_build(c);
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	pthread_mutex_destroy(&c->lock);
	free(c->files);
	gr_u64map_free(&c->by_file);
	gr_u64map_free(&c->ended);
	memset(c, 0, sizeof(*c));
}
