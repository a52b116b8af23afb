/* SPDX-License-Identifier: MIT */
/* Names, symbols and mappings for what a recording referenced: see symbols.h. */
#include <errno.h>
#include <string.h>

#include "format/events.h"
#include "discover.h"
#include "elf.h"
#include "symbols.h"
#include "translate.h"

/* What one embedding reads, and the files events point into: their mappings are embedded. */
struct embed {
	struct gr_trace_writer *w;
	struct gr_procs *procs;
	const struct gr_refs *refs;
	struct gr_u64map referenced; /* struct gr_file * -> 1 */
};

/* Symbol containing runtime address @addr of @pid: 0 and the name, or a negative error. */
static int resolve(struct embed *e, uint32_t pid, uint64_t addr, const char **name, uint64_t *start,
		   uint64_t *size)
{
	const struct gr_mapping *m = gr_discover_lookup(e->procs, pid, addr);
	uint64_t vaddr;

	if (!m || !m->file->elf)
		return -ENOENT;
	gr_u64map_put(&e->referenced, (uintptr_t)m->file, 1);
	if (gr_elf_offset_to_vaddr(m->file->elf, addr - m->start + m->pgoff, &vaddr) ||
	    gr_elf_symbolize(m->file->elf, vaddr, name, start, size))
		return -ENOENT;
	/* back to the runtime address space: bias = runtime - link-time */
	*start += addr - vaddr;
	return 0;
}

static int write_bytes_record(struct embed *e, uint16_t kind, uint64_t *v, const char *a,
			      const void *b, size_t blen)
{
	struct gr_bytes bytes[2] = {{(const uint8_t *)a, (uint32_t)strlen(a)},
				    {(const uint8_t *)b, (uint32_t)blen}};

	return gr_trace_writer_append(e->w, kind, v, bytes);
}

static int name_functions(struct embed *e, uint64_t ts)
{
	char buf[4096];

	for (size_t i = 0; i < e->refs->funcs.len; i++) {
		uint32_t pid = e->refs->funcs.items[i].pid;
		uint64_t addr = e->refs->funcs.items[i].addr, start, size;
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_KERNEL, pid, addr, 0};
		const char *name;
		int err;

		if (gr_u64map_get(&e->refs->named, gr_u64_key2(pid, addr)) ||
		    resolve(e, pid, addr, &name, &start, &size))
			continue;
		err = write_bytes_record(e, GR_K_NAME, v, gr_demangle(name, buf, sizeof(buf)), NULL,
					 0);
		if (!err && strcmp(buf, name)) {
			v[GR_NAME_CLASS] = GR_NAME_KERNEL_RAW;
			err = write_bytes_record(e, GR_K_NAME, v, name, NULL, 0);
		}
		if (err)
			return err;
	}
	return 0;
}

static int symbolize_frames(struct embed *e, uint64_t ts)
{
	char buf[4096];

	for (size_t i = 0; i < e->refs->frames.len; i++) {
		uint32_t pid = e->refs->frames.items[i].pid;
		uint64_t addr = e->refs->frames.items[i].addr, start, size;
		uint64_t v[GR_SYM_NCOLS] = {ts, pid, addr, 0, 0, 0};
		const char *name;
		int err;

		if (resolve(e, pid, addr, &name, &start, &size))
			continue;
		v[GR_SYM_START] = start;
		v[GR_SYM_SIZE] = size;
		err = write_bytes_record(e, GR_K_SYMBOL, v, gr_demangle(name, buf, sizeof(buf)),
					 NULL, 0);
		if (err)
			return err;
	}
	return 0;
}

static int write_mappings(struct embed *e, uint64_t ts)
{
	const struct gr_u64map *procs = &e->procs->by_pid;

	for (size_t i = 0; i < procs->cap; i++) {
		const struct gr_proc *p;

		if (!procs->keys || !procs->keys[i])
			continue;
		p = (const struct gr_proc *)(uintptr_t)procs->vals[i];
		for (size_t j = 0; j < p->nmaps; j++) {
			const struct gr_mapping *m = &p->maps[j];
			uint64_t v[GR_MAP_NCOLS] = {ts, p->pid, m->start, m->end, m->pgoff, 0, 0};
			const uint8_t *id = NULL;
			size_t idlen = 0;
			int err;

			if (!gr_u64map_get(&e->referenced, (uintptr_t)m->file) && !m->file->probes)
				continue;
			if (m->file->elf)
				idlen = gr_elf_build_id(m->file->elf, &id);
			err = write_bytes_record(e, GR_K_MAPPING, v, m->file->path, id, idlen);
			if (err)
				return err;
		}
	}
	return 0;
}

static int write_libraries(struct embed *e, uint64_t ts)
{
	for (size_t i = 0; i < e->procs->nfiles; i++) {
		const struct gr_file *f = e->procs->files[i];
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_LIBRARY, 0, i + 1, 0};
		int err;

		if (!f->probes)
			continue;
		err = write_bytes_record(e, GR_K_NAME, v, f->path, NULL, 0);
		if (err)
			return err;
	}
	return 0;
}

int gr_symbols_embed(struct gr_trace_writer *w, struct gr_procs *procs, const struct gr_refs *refs,
		     uint64_t ts)
{
	struct embed e = {.w = w, .procs = procs, .refs = refs};
	int err;

	err = name_functions(&e, ts);
	if (!err)
		err = symbolize_frames(&e, ts);
	if (!err)
		err = write_mappings(&e, ts);
	if (!err)
		err = write_libraries(&e, ts);
	gr_u64map_free(&e.referenced);
	return err;
}
