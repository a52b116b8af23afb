/* SPDX-License-Identifier: MIT */
/* Names, symbols and mappings for what a recording referenced, as it is learned: symbols.h. */
#include <errno.h>
#include <string.h>

#include "analyze/util/progress.h"
#include "format/events.h"
#include "discover.h"
#include "elf.h"
#include "lines.h"
#include "symbols.h"
#include "translate.h"

void gr_symbols_init(struct gr_symbols *s, struct gr_trace_writer *w, struct gr_procs *procs)
{
	*s = (struct gr_symbols){.w = w, .procs = procs};
}

static int write_bytes_record(struct gr_symbols *s, uint16_t kind, uint64_t *v, const char *a,
			      const void *b, size_t blen)
{
	struct gr_bytes bytes[2] = {{(const uint8_t *)a, (uint32_t)strlen(a)},
				    {(const uint8_t *)b, (uint32_t)blen}};

	return gr_trace_writer_append(s->w, kind, v, bytes);
}

/* The MAPPING record of @m in @pid, unless one was written. */
static int write_mapping(struct gr_symbols *s, uint64_t ts, uint32_t pid,
			 const struct gr_mapping *m)
{
	uint64_t key = gr_u64_key2(gr_u64_key2(pid, m->start), m->end);
	uint64_t v[GR_MAP_NCOLS] = {ts, pid, m->start, m->end, m->pgoff, 0, 0};
	const uint8_t *id = NULL;
	size_t idlen = 0;
	int err;

	if (gr_u64map_get(&s->mapped, key))
		return 0;
	if (m->file->elf)
		idlen = gr_elf_build_id(m->file->elf, &id);
	err = write_bytes_record(s, GR_K_MAPPING, v, m->file->path, id, idlen);
	if (!err)
		err = gr_u64map_put(&s->mapped, key, 1);
	return err;
}

/*
 * Symbol containing runtime address @addr of @pid: 0 and the name, -ENOENT when there is none,
 * or the writer's error. The mapping it lies in is written (once) and its file remembered as
 * referenced, so that the end writes the other processes' mappings of it too.
 */
static int resolve(struct gr_symbols *s, uint64_t ts, uint32_t pid, uint64_t addr,
		   const char **name, uint64_t *start, uint64_t *size, struct gr_file **file,
		   uint64_t *link_addr)
{
	const struct gr_mapping *m = gr_discover_lookup(s->procs, pid, addr);
	uint64_t vaddr;
	int err;

	if (!m || !m->file->elf)
		return -ENOENT;
	err = gr_u64map_put(&s->referenced, (uintptr_t)m->file, 1);
	if (!err)
		err = write_mapping(s, ts, pid, m);
	if (err)
		return err;
	if (gr_elf_offset_to_vaddr(m->file->elf, addr - m->start + m->pgoff, &vaddr) ||
	    gr_elf_symbolize(m->file->elf, vaddr, name, start, size))
		return -ENOENT;
	/* back to the runtime address space: bias = runtime - link-time */
	*start += addr - vaddr;
	*file = m->file;
	*link_addr = vaddr;
	return 0;
}

/*
 * Code the user may have built with line tables: not one of the system's packaged libraries
 * (their tables, when shipped, are in separate debug files, which the recorder does not read)
 * and not a CUDA library proper (a probed file that is no program: a program with the static
 * runtime in it has an interpreter).
 */
static int user_code(const struct gr_file *f)
{
	static const char *const system[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"};

	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (!strncmp(f->path, system[i], strlen(system[i])))
			return 0;
	if (f->own_runtime || (f->probes && !gr_elf_has_section(f->elf, ".interp")))
		return 0;
	return 1;
}

/* The line tables of @f, opened at its first frame; NULL when it has none. */
static struct gr_lines *lines_of(struct gr_symbols *s, struct gr_file *f)
{
	uint64_t *v = gr_u64map_get(&s->lines, (uintptr_t)f);
	struct gr_lines *l = NULL;

	if (v)
		return *v == 1 ? NULL : (struct gr_lines *)(uintptr_t)*v;
	/* no line tables is an answer too, as is out of memory: the frame keeps its symbol */
	if (f->fd >= 0)
		gr_lines_open(&l, f->fd);
	if (gr_u64map_put(&s->lines, (uintptr_t)f, l ? (uintptr_t)l : 1) < 0) {
		gr_lines_free(l);
		return NULL;
	}
	return l;
}

int gr_symbols_function(struct gr_symbols *s, uint64_t ts, uint32_t pid, uint64_t func)
{
	uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_KERNEL, pid, func, 0};
	uint64_t start, size, vaddr;
	struct gr_file *file;
	const char *name;
	char buf[4096];
	int err = resolve(s, ts, pid, func, &name, &start, &size, &file, &vaddr);

	if (err)
		return err == -ENOENT ? 0 : err;
	err = write_bytes_record(s, GR_K_NAME, v, gr_demangle(name, buf, sizeof(buf)), NULL, 0);
	if (!err && strcmp(buf, name)) {
		v[GR_NAME_CLASS] = GR_NAME_KERNEL_RAW;
		err = write_bytes_record(s, GR_K_NAME, v, name, NULL, 0);
	}
	return err ? err : 1;
}

int gr_symbols_frame(struct gr_symbols *s, uint64_t ts, uint32_t pid, uint64_t addr)
{
	int leaf = !!(addr & GR_SYM_LEAF_PC);
	uint64_t v[GR_SYM_NCOLS] = {ts, pid, addr & ~GR_SYM_LEAF_PC, 0, 0, 0, 0, 0}, vaddr;
	uint64_t key = gr_u64_key2(pid, v[GR_SYM_ADDR]);
	struct gr_bytes b[2] = {{0}};
	struct gr_file *file;
	struct gr_lines *lines;
	const char *name, *src = "";
	uint32_t line = 0;
	char buf[4096];
	int err;

	if (gr_u64map_get(&s->symbolized, key) || !v[GR_SYM_ADDR])
		return 0;
	/* a return address follows its call: the function and line are the call's */
	err = resolve(s, ts, pid, v[GR_SYM_ADDR] - !leaf, &name, &v[GR_SYM_START], &v[GR_SYM_SIZE],
		      &file, &vaddr);
	if (err)
		return err == -ENOENT ? 0 : err;
	lines = lines_of(s, file);
	if (lines && gr_lines_find(lines, vaddr, &src, &line) == 0 && strlen(src) < GR_SYM_FILE_MAX)
		v[GR_SYM_LINE] = line;
	else
		src = "";
	gr_demangle(name, buf, sizeof(buf));
	b[0] = (struct gr_bytes){(const uint8_t *)buf, (uint32_t)strlen(buf)};
	b[1] = (struct gr_bytes){(const uint8_t *)src, (uint32_t)strlen(src)};
	err = gr_trace_writer_append(s->w, GR_K_SYMBOL, v, b);
	if (!err)
		err = gr_u64map_put(&s->symbolized, key, 1);
	return err;
}

/* The table entry of @pid, NULL when discovery has none (never creates one). */
static const struct gr_proc *proc_of(const struct gr_procs *procs, uint32_t pid)
{
	const uint64_t *v = pid ? gr_u64map_get(&procs->by_pid, pid) : NULL;

	return v ? (const struct gr_proc *)(uintptr_t)*v : NULL;
}

int gr_symbols_libraries(struct gr_symbols *s, uint64_t ts, uint32_t pid)
{
	for (; s->files_seen < s->procs->nfiles; s->files_seen++) {
		const struct gr_file *f = s->procs->files[s->files_seen];
		/* the key is the file's place in discovery's order, as it always was */
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_LIBRARY, 0, s->files_seen + 1, 0};
		uint64_t u[GR_NAME_NCOLS] = {ts, GR_NAME_UNPROBED, 0, 0, 0};
		const struct gr_proc *p;
		int err;

		/* named once, when found: info says whose CUDA calls the trace cannot hold */
		if (f->own_runtime && (err = write_bytes_record(s, GR_K_NAME, u, f->path, NULL, 0)))
			return err;
		if (!f->probes)
			continue;
		err = write_bytes_record(s, GR_K_NAME, v, f->path, NULL, 0);
		if (err)
			return err;
		p = proc_of(s->procs, pid);
		for (size_t j = 0; p && j < p->nmaps; j++)
			if (p->maps[j].file == f && (err = write_mapping(s, ts, pid, &p->maps[j])))
				return err;
	}
	return 0;
}

/* Every process's mappings of the files events pointed into or that were probed. */
static int write_mappings(struct gr_symbols *s, uint64_t ts)
{
	const struct gr_u64map *procs = &s->procs->by_pid;

	for (size_t i = 0; i < procs->cap; i++) {
		const struct gr_proc *p;

		if (!procs->keys || !procs->keys[i])
			continue;
		p = (const struct gr_proc *)(uintptr_t)procs->vals[i];
		for (size_t j = 0; j < p->nmaps; j++) {
			const struct gr_mapping *m = &p->maps[j];
			int err;

			if (!gr_u64map_get(&s->referenced, (uintptr_t)m->file) && !m->file->probes)
				continue;
			err = write_mapping(s, ts, p->pid, m);
			if (err)
				return err;
		}
	}
	return 0;
}

int gr_symbols_finish(struct gr_symbols *s, const struct gr_refs *refs, uint64_t ts)
{
	int err = gr_symbols_libraries(s, ts, 0);

	for (size_t i = 0; !err && i < refs->funcs.len; i++) {
		uint32_t pid = refs->funcs.items[i].pid;
		uint64_t addr = refs->funcs.items[i].addr;

		if (!gr_u64map_get(&refs->named, gr_u64_key2(pid, addr)))
			err = gr_symbols_function(s, ts, pid, addr);
		err = err > 0 ? 0 : err;
		gr_progress_add(1);
	}
	for (size_t i = 0; !err && i < refs->frames.len; i++) {
		err =
		    gr_symbols_frame(s, ts, refs->frames.items[i].pid, refs->frames.items[i].addr);
		gr_progress_add(1);
	}
	if (!err)
		err = write_mappings(s, ts);
	return err;
}

size_t gr_symbols_lineless(const struct gr_symbols *s, const char **paths, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; s->lines.keys && i < s->lines.cap; i++) {
		const struct gr_file *f = (const struct gr_file *)(uintptr_t)s->lines.keys[i];

		if (!s->lines.keys[i] || s->lines.vals[i] != 1 || !user_code(f))
			continue;
		if (n < max)
			paths[n] = f->path;
		n++;
	}
	return n;
}

void gr_symbols_free(struct gr_symbols *s)
{
	for (size_t i = 0; s->lines.keys && i < s->lines.cap; i++)
		if (s->lines.keys[i] && s->lines.vals[i] != 1)
			gr_lines_free((struct gr_lines *)(uintptr_t)s->lines.vals[i]);
	gr_u64map_free(&s->lines);
	gr_u64map_free(&s->mapped);
	gr_u64map_free(&s->symbolized);
	gr_u64map_free(&s->referenced);
	*s = (struct gr_symbols){0};
}
