/* SPDX-License-Identifier: MIT */
/*
 * Library discovery. The BPF side holds a process (SIGSTOP) when it maps a file nobody
 * examined yet, or execs; we scan its /proc/PID/maps, examine the new files (attach.c probes
 * them and marks them known, so nobody is held for them again), and the caller resumes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "cfi.h"
#include "discover.h"
#include "elf.h"
#include "mapped_open.h"
#include "record/python/pybuild.h"

#define KERNEL_MKDEV(ma, mi) (((uint64_t)(ma) << 20) | (mi))

struct gr_proc *gr_discover_proc(struct gr_procs *procs, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&procs->by_pid, pid);
	struct gr_proc *p;

	if (v)
		return (struct gr_proc *)(uintptr_t)*v;
	p = calloc(1, sizeof(*p));
	if (!p || gr_u64map_put(&procs->by_pid, pid, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	return p;
}

/*
 * Whether a file that got no probes still runs CUDA code of its own, through a private copy of
 * the runtime we cannot probe (cuBLAS, cuBLASLt: their runtime exports no symbol). Device code
 * built by nvcc lies in a .nv_fatbin section and is registered through __cudaRegisterFatBinary;
 * a file that has the section but does not import that function from a shared libcudart
 * registers it itself. Section headers and the dynamic symbols only: libelf already has both
 * at hand, so this costs nothing next to probing, whatever the size of the file (libcublasLt
 * is 540 MB), and files without the section (libc, libz) stop at the headers.
 */
static int carries_own_runtime(const struct gr_elf *elf)
{
	return gr_elf_has_section(elf, ".nv_fatbin") &&
	       !gr_elf_imports(elf, "__cudaRegisterFatBinary");
}

/* The CPython build @elf is, NULL when it is none (or memory ran out: then no Python frames). */
static struct gr_py_build *examine_python(const struct gr_elf *elf, const char *path)
{
	struct gr_py_build *b = calloc(1, sizeof(*b));

	if (b && gr_py_build_examine(elf, path, b) == 1)
		return b;
	free(b);
	return NULL;
}

static struct gr_file *file_get(struct gr_procs *procs, uint32_t pid, uint64_t start, uint64_t end,
				uint64_t dev, uint64_t ino, const char *path)
{
	uint64_t key = gr_u64_key2(dev, ino), *idx = gr_u64map_get(&procs->file_index, key);
	struct gr_file *f, **files;

	if (idx)
		return procs->files[*idx - 1];
	f = calloc(1, sizeof(*f));
	files = realloc(procs->files, (procs->nfiles + 1) * sizeof(*files));
	if (!f || !files) {
		free(f);
		if (files)
			procs->files = files;
		return NULL;
	}
	procs->files = files;
	f->dev = dev;
	f->ino = ino;
	f->path = strdup(path);
	/* never by @path alone: the program chooses what it names by the time we open it */
	f->fd = gr_mapped_open(pid, start, end, dev, ino, path);
	if (f->fd < 0)
		f->fd = -1;
	else if (gr_elf_open(&f->elf, f->fd))
		f->elf = NULL;
	f->py = f->elf ? examine_python(f->elf, path) : NULL;
	procs->files[procs->nfiles++] = f;
	gr_u64map_put(&procs->file_index, key, procs->nfiles);
	if (procs->attach) {
		int probes = f->elf ? gr_attach_file(procs->attach, f->fd, f->elf, f->path) : 0;

		/* a dynamic loader: its debug hook shows what it maps later (mmap_hook.h) */
		if (f->elf)
			gr_attach_loader(procs->attach, f->fd, f->elf, f->path);
		if (probes > 0)
			f->probes = probes;
		else if (f->elf)
			f->own_runtime = carries_own_runtime(f->elf);
		/* examined: the BPF side no longer holds processes that map it */
		gr_attach_known(procs->attach, dev, ino);
	}
	return f;
}

static int add_mapping(struct gr_proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		       struct gr_file *f)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		struct gr_mapping *m = &p->maps[i];

		if (m->start == start && m->end == end && m->file == f && m->pgoff == pgoff)
			return 0;
	}
	if (p->nmaps == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct gr_mapping *n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap = cap;
	}
	p->maps[p->nmaps++] = (struct gr_mapping){start, end, pgoff, f};
	return 0;
}

int gr_discover_parse_line(char *line, struct gr_maps_line *out)
{
	uint64_t start, end, pgoff, ino;
	unsigned int major, minor;
	/* zeroed: "%7s" may match fewer than the three bytes looked at */
	char perms[8] = "";
	int pos = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start,
		   &end, perms, &pgoff, &major, &minor, &ino, &pos) < 7)
		return 0;
	/* the kernel never writes start > end: a line that does is not one of its own */
	if (!ino || perms[2] != 'x' || !pos || line[pos] != '/' || start > end)
		return 0;
	line[strcspn(line, "\n")] = 0;
	out->start = start;
	out->end = end;
	out->pgoff = pgoff;
	out->dev = KERNEL_MKDEV(major, minor);
	out->ino = ino;
	out->path = line + pos;
	return 1;
}

int gr_discover_scan(struct gr_procs *procs, uint32_t pid)
{
	struct gr_proc *p = gr_discover_proc(procs, pid);
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *maps;

	if (!p)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	maps = fopen(path, "re");
	if (!maps)
		return -errno;
	/*
	 * Whole lines, however long: a path has no length limit here, and the rest of a line cut
	 * at a buffer's end would read as a line of its own, mapping and device and inode the
	 * program spelled out in its directory names.
	 */
	while (getline(&line, &cap, maps) > 0) {
		struct gr_maps_line ml;
		struct gr_file *f;

		if (gr_discover_parse_line(line, &ml) != 1)
			continue;
		f = file_get(procs, pid, ml.start, ml.end, ml.dev, ml.ino, ml.path);
		if (f)
			add_mapping(p, ml.start, ml.end, ml.pgoff, f);
	}
	free(line);
	fclose(maps);
	gr_cfi_sync(procs->cfi, procs, pid);
	return 0;
}

void gr_discover_fork(struct gr_procs *procs, uint32_t parent, uint32_t child)
{
	struct gr_proc *pp = gr_discover_proc(procs, parent), *cp = gr_discover_proc(procs, child);

	if (!pp || !cp || pp == cp)
		return;
	for (size_t i = 0; i < pp->nmaps; i++)
		add_mapping(cp, pp->maps[i].start, pp->maps[i].end, pp->maps[i].pgoff,
			    pp->maps[i].file);
	gr_cfi_sync(procs->cfi, procs, child);
}

const struct gr_mapping *gr_discover_lookup(struct gr_procs *procs, uint32_t pid, uint64_t addr)
{
	struct gr_proc *p = gr_discover_proc(procs, pid);

	if (!p)
		return NULL;
	/* the newest mapping wins: an address can be reused after dlclose or exec */
	for (size_t i = p->nmaps; i > 0; i--) {
		const struct gr_mapping *m = &p->maps[i - 1];

		if (addr >= m->start && addr < m->end)
			return m;
	}
	return NULL;
}

int gr_discover_alive(const struct gr_procs *procs)
{
	const struct gr_u64map *m = &procs->by_pid;

	for (size_t i = 0; i < m->cap; i++)
		if (m->keys && m->keys[i] && !kill(m->keys[i], 0))
			return 1;
	return 0;
}

void gr_discover_free(struct gr_procs *procs)
{
	const struct gr_u64map *m = &procs->by_pid;

	for (size_t i = 0; i < procs->nfiles; i++) {
		struct gr_file *f = procs->files[i];

		gr_elf_free(f->elf);
		free(f->py);
		if (f->fd >= 0)
			close(f->fd);
		free(f->path);
		free(f);
	}
	free(procs->files);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys && m->keys[i]) {
			struct gr_proc *p = (struct gr_proc *)(uintptr_t)m->vals[i];

			free(p->maps);
			free(p);
		}
	}
	gr_u64map_free(&procs->by_pid);
	gr_u64map_free(&procs->file_index);
	*procs = (struct gr_procs){0};
}
