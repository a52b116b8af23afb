/* SPDX-License-Identifier: MIT */
/* Unwind tables for the BPF walk, per file and per process: see cfi.h. */
#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/util/text.h"
#include "cfi.h"
#include "cfi_table.h"
#include "clock.h"
#include "discover.h"
#include "elf.h"

struct cfi_file {
	const struct gr_file *file;
	uint32_t first, rows;
	uint32_t base, bucket, nbuckets, shift; /* as struct gr_cfi_map's */
	int err; /* 0: the table is rows from first; else why there is none */
};

void gr_cfi_init(struct gr_cfi *c, int rows_fd, size_t cap, int buckets_fd, size_t bcap,
		 int procs_fd)
{
	memset(c, 0, sizeof(*c));
	c->rows_fd = rows_fd;
	c->buckets_fd = buckets_fd;
	c->procs_fd = procs_fd;
	c->cap = cap;
	c->bcap = bcap;
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
 * The buckets of @t (struct gr_cfi_map): a width of 2^shift bytes that gives about one bucket
 * per 4 rows, so the BPF walk searches a few rows, not the whole table. -E2BIG when the buckets
 * left cannot hold them.
 */
static int make_buckets(struct gr_cfi *c, const struct gr_cfi_table *t, struct cfi_file *cf)
{
	uint64_t span = t->rows[t->n - 1].pc - t->rows[0].pc, nb, *b;
	unsigned shift = 4;
	size_t r = 0;
	int err;

	while (shift < 31 && (span >> shift) + 1 > t->n / 4 + 1)
		shift++;
	nb = (span >> shift) + 1;
	if (nb > c->bcap - c->bused)
		return -E2BIG;
	b = malloc(nb * sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (uint64_t k = 0; k < nb; k++) {
		uint64_t at = t->rows[0].pc + (k << shift), next;

		while (r + 1 < t->n && t->rows[r + 1].pc <= at)
			r++;
		/* the last bucket's rows end with the table */
		next = r;
		while (k + 1 == nb
			   ? next + 1 < t->n
			   : next + 1 < t->n && t->rows[next + 1].pc <= at + (1ull << shift))
			next++;
		b[k] = (uint64_t)next << 32 | r;
	}
	err = write_array(c->buckets_fd, c->bused, b, nb, sizeof(*b));
	free(b);
	if (err)
		return err;
	cf->base = t->rows[0].pc;
	cf->bucket = (uint32_t)c->bused;
	cf->nbuckets = (uint32_t)nb;
	cf->shift = shift;
	c->bused += nb;
	return 0;
}

/* @f's table, built the first time any process maps it; NULL when out of memory. */
static const struct cfi_file *file_table(struct gr_cfi *c, const struct gr_file *f)
{
	uint64_t *idx = gr_u64map_get(&c->by_file, (uintptr_t)f), t0, ns;
	struct gr_cfi_table t = {0};
	struct cfi_file *files, *cf;

	if (idx)
		return &c->files[*idx - 1];
	files = realloc(c->files, (c->nfiles + 1) * sizeof(*files));
	if (!files)
		return NULL;
	c->files = files;
	cf = &files[c->nfiles];
	*cf = (struct cfi_file){.file = f, .err = -ENOENT};
	t0 = gr_clock_ns(CLOCK_MONOTONIC);
	if (f->elf && f->fd >= 0)
		cf->err = gr_cfi_table_build(f->fd, c->cap - c->used, &t);
	ns = gr_clock_ns(CLOCK_MONOTONIC) - t0;
	c->build_ns += ns;
	if (ns > c->worst_ns) {
		c->worst_ns = ns;
		c->worst = f->path;
	}
	if (!cf->err && !t.n)
		cf->err = -ENOENT;
	if (!cf->err)
		cf->err = make_buckets(c, &t, cf);
	/* written before any process's entry names them: the walk never sees them half */
	if (!cf->err)
		cf->err = write_array(c->rows_fd, c->used, t.rows, t.n, sizeof(*t.rows));
	if (!cf->err) {
		cf->first = (uint32_t)c->used;
		cf->rows = (uint32_t)t.n;
		c->used += t.n;
	}
	gr_cfi_table_free(&t);
	if (gr_u64map_put(&c->by_file, (uintptr_t)f, c->nfiles + 1))
		return NULL;
	return &c->files[c->nfiles++];
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
						      .first = cf->first,
						      .rows = cf->rows,
						      .base = cf->base,
						      .bucket = cf->bucket,
						      .nbuckets = cf->nbuckets,
						      .shift = cf->shift};
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
		*why = !err		? "code its .eh_frame does not describe"
		       : err == -ENOENT ? "no .eh_frame"
		       : err == -E2BIG	? "the tables are full"
		       : err == -EAGAIN ? "past the mappings a process's tables hold"
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
	size_t lo = 0, hi = cf->rows;
	uint32_t key;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		key = cf->first + (uint32_t)mid;
		if (bpf_map_lookup_elem(c->rows_fd, &key, &row))
			return 1; /* unknown: say nothing */
		if (row.pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	key = cf->first + (uint32_t)lo - 1;
	return lo && !bpf_map_lookup_elem(c->rows_fd, &key, &row) &&
	       (row.kind & GR_CFI_CFA_MASK) != GR_CFI_NONE;
}

void gr_cfi_note_end(struct gr_cfi *c, struct gr_procs *procs, uint32_t pid, uint64_t last)
{
	const struct gr_mapping *m;
	const uint64_t *idx;
	uint64_t *count, vaddr;

	if (!c || !c->ready || !(m = gr_discover_lookup(procs, pid, last)))
		return;
	/* a frame is a return address: its call is the byte before */
	idx = gr_u64map_get(&c->by_file, (uintptr_t)m->file);
	if (idx && !c->files[*idx - 1].err &&
	    (gr_elf_offset_to_vaddr(m->file->elf, m->pgoff, &vaddr) ||
	     has_rule(c, &c->files[*idx - 1], vaddr + (last - m->start) - 1)))
		return;
	count = gr_u64map_get(&c->ended, (uintptr_t)m->file);
	if (count)
		(*count)++;
	else
		gr_u64map_put(&c->ended, (uintptr_t)m->file, 1);
}

/* By path: the summary reads the same in every run. */
static int cmp_path(const void *a, const void *b)
{
	const struct gr_file *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

int gr_cfi_report(const struct gr_cfi *c, FILE *out, int verbose)
{
	const struct gr_u64map *m = &c->ended;
	const struct gr_file **files;
	size_t n = 0;

	if (verbose && c->nfiles)
		fprintf(out,
			"gpurec record: unwind tables of %zu binaries, %zu rows, built in %.1f ms "
			"(longest %.1f ms: %s)\n",
			c->nfiles, c->used, c->build_ns / 1e6, c->worst_ns / 1e6,
			c->worst ? GR_TEXT(c->worst) : "-");
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
	free(c->files);
	gr_u64map_free(&c->by_file);
	gr_u64map_free(&c->ended);
	memset(c, 0, sizeof(*c));
}
