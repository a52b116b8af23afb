/* SPDX-License-Identifier: MIT */
/*
 * At the end of a recording, while the files are still open (even if deleted since), embed
 * what replay needs on a machine that never saw them: a name for every launched function that
 * no registration named, a symbol for every stack frame, and the path and build-id of every
 * mapping those point into.
 */
#include <errno.h>
#include <string.h>

#include "format/events.h"
#include "elf.h"
#include "session.h"

/* Symbol containing runtime address @addr of @pid: 0 and the name, or a negative error. */
static int resolve(struct gr_session *s, uint32_t pid, uint64_t addr, const char **name,
		   uint64_t *start, uint64_t *size)
{
	const struct gr_mapping *m = gr_discover_lookup(s, pid, addr);
	uint64_t vaddr;

	if (!m || !m->file->elf)
		return -ENOENT;
	m->file->referenced = 1;
	if (gr_elf_offset_to_vaddr(m->file->elf, addr - m->start + m->pgoff, &vaddr) ||
	    gr_elf_symbolize(m->file->elf, vaddr, name, start, size))
		return -ENOENT;
	/* back to the runtime address space: bias = runtime - link-time */
	*start += addr - vaddr;
	return 0;
}

static int write_bytes_record(struct gr_session *s, uint16_t kind, uint64_t *v, const char *a,
			      const void *b, size_t blen)
{
	struct gr_bytes bytes[2] = {{(const uint8_t *)a, (uint32_t)strlen(a)},
				    {(const uint8_t *)b, (uint32_t)blen}};

	return gr_trace_writer_append(s->w, kind, v, bytes);
}

static int name_functions(struct gr_session *s, uint64_t ts)
{
	char buf[4096];

	for (size_t i = 0; i < s->funcs.len; i++) {
		uint32_t pid = s->funcs.items[i].pid;
		uint64_t addr = s->funcs.items[i].addr, start, size;
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_KERNEL, pid, addr, 0};
		const char *name;
		int err;

		if (gr_u64map_get(&s->named, gr_u64_key2(pid, addr)) ||
		    resolve(s, pid, addr, &name, &start, &size))
			continue;
		err = write_bytes_record(s, GR_K_NAME, v, gr_demangle(name, buf, sizeof(buf)), NULL,
					 0);
		if (!err && strcmp(buf, name)) {
			v[GR_NAME_CLASS] = GR_NAME_KERNEL_RAW;
			err = write_bytes_record(s, GR_K_NAME, v, name, NULL, 0);
		}
		if (err)
			return err;
	}
	return 0;
}

static int symbolize_frames(struct gr_session *s, uint64_t ts)
{
	char buf[4096];

	for (size_t i = 0; i < s->frames.len; i++) {
		uint32_t pid = s->frames.items[i].pid;
		uint64_t addr = s->frames.items[i].addr, start, size;
		uint64_t v[GR_SYM_NCOLS] = {ts, pid, addr, 0, 0, 0};
		const char *name;
		int err;

		if (resolve(s, pid, addr, &name, &start, &size))
			continue;
		v[GR_SYM_START] = start;
		v[GR_SYM_SIZE] = size;
		err = write_bytes_record(s, GR_K_SYMBOL, v, gr_demangle(name, buf, sizeof(buf)),
					 NULL, 0);
		if (err)
			return err;
	}
	return 0;
}

static int write_mappings(struct gr_session *s, uint64_t ts)
{
	for (size_t i = 0; i < s->procs.cap; i++) {
		const struct gr_proc *p;

		if (!s->procs.keys || !s->procs.keys[i])
			continue;
		p = (const struct gr_proc *)(uintptr_t)s->procs.vals[i];
		for (size_t j = 0; j < p->nmaps; j++) {
			const struct gr_mapping *m = &p->maps[j];
			uint64_t v[GR_MAP_NCOLS] = {ts, p->pid, m->start, m->end, m->pgoff, 0, 0};
			const uint8_t *id = NULL;
			size_t idlen = 0;
			int err;

			if (!m->file->referenced && !m->file->probes)
				continue;
			if (m->file->elf)
				idlen = gr_elf_build_id(m->file->elf, &id);
			err = write_bytes_record(s, GR_K_MAPPING, v, m->file->path, id, idlen);
			if (err)
				return err;
		}
	}
	return 0;
}

static int write_libraries(struct gr_session *s, uint64_t ts)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_LIBRARY, 0, i + 1, 0};
		int err;

		if (!s->files[i]->probes)
			continue;
		err = write_bytes_record(s, GR_K_NAME, v, s->files[i]->path, NULL, 0);
		if (err)
			return err;
	}
	return 0;
}

int gr_symbols_embed(struct gr_session *s)
{
	uint64_t ts = s->last_drain_ns;
	int err;

	err = name_functions(s, ts);
	if (!err)
		err = symbolize_frames(s, ts);
	if (!err)
		err = write_mappings(s, ts);
	if (!err)
		err = write_libraries(s, ts);
	return err;
}
