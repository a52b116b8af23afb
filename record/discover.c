/* SPDX-License-Identifier: MIT */
/*
 * Library discovery: which executable files each traced process maps, which of them hold CUDA
 * entry points, and the probes on those. The BPF side holds a process (SIGSTOP) when it maps a
 * file nobody examined yet, or execs; we scan its /proc/PID/maps, attach, mark the files known
 * (so nobody is held for them again) and resume it. Uprobes are per file (inode), so a library
 * is probed once for every process that maps it, now or later, whatever its path or name.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/gpurec.h"
#include "format/events.h"
#include "bpf/gpurec.skel.h"
#include "elf.h"
#include "session.h"
#include "uprobe_multi.h"

#define KERNEL_MKDEV(ma, mi) (((uint64_t)(ma) << 20) | (mi))

struct gr_proc *gr_discover_proc(struct gr_session *s, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&s->procs, pid);
	struct gr_proc *p;

	if (v)
		return (struct gr_proc *)(uintptr_t)*v;
	p = calloc(1, sizeof(*p));
	if (!p || gr_u64map_put(&s->procs, pid, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	return p;
}

static int add_link(struct gr_session *s, struct bpf_link *link)
{
	if (s->nlinks == s->caplinks) {
		size_t cap = s->caplinks ? s->caplinks * 2 : 256;
		struct bpf_link **n = realloc(s->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->links = n;
		s->caplinks = cap;
	}
	s->links[s->nlinks++] = link;
	return 0;
}

static int attach_one(struct gr_session *s, struct bpf_program *prog, const char *path,
		      uint64_t off, uint64_t cookie, int retprobe)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie, .retprobe = retprobe);
	struct bpf_link *link;

	link = bpf_program__attach_uprobe_opts(prog, -1, path, off, &opts);
	if (!link)
		return -errno;
	return add_link(s, link);
}

/*
 * Whether @spec in @f is a thunk that jumps to another probed entry point: the toolkit's
 * __cudaLaunchKernel is `push rbp; mov rbp, rsp; pop rbp; jmp cudaLaunchKernel`. Probing both
 * would count each launch twice; a runtime that implements it in full (the simulator, a
 * future release) gets it probed.
 */
static int is_thunk(const struct gr_file *f, const struct gr_probe_spec *spec, uint64_t off)
{
	const struct gr_probe_spec *table;
	uint64_t vaddr, target;
	uint8_t code[16];
	size_t n;

	if (spec->api != GR_API___cudaLaunchKernel && spec->api != GR_API___cudaLaunchKernel_ptsz)
		return 0;
	if (pread(f->fd, code, sizeof(code), off) != sizeof(code) ||
	    gr_elf_func_addr(f->elf, spec->symbol, &vaddr))
		return 0;
	table = gr_probes_table(&n);
	for (size_t pos = 0; pos + 5 <= sizeof(code); pos++) {
		int32_t rel;

		if (code[pos] != 0xe9) /* jmp rel32 */
			continue;
		memcpy(&rel, code + pos + 1, sizeof(rel));
		target = vaddr + pos + 5 + (int64_t)rel;
		for (size_t i = 0; i < n; i++) {
			uint64_t a;

			if (&table[i] != spec && table[i].layout == spec->layout &&
			    !gr_elf_func_addr(f->elf, table[i].symbol, &a) && a == target)
				return 1;
		}
	}
	return 0;
}

/* The probes of one file, gathered per BPF program so each becomes one multi link. */
struct probe_set {
	uint64_t offsets[256], cookies[256];
	uint32_t n;
};

static void set_add(struct probe_set *set, uint64_t off, uint64_t cookie)
{
	if (set->n < sizeof(set->offsets) / sizeof(set->offsets[0])) {
		set->offsets[set->n] = off;
		set->cookies[set->n] = cookie;
		set->n++;
	}
}

static int add_fd(struct gr_session *s, int fd)
{
	int *n = realloc(s->link_fds, (s->nlink_fds + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->link_fds = n;
	s->link_fds[s->nlink_fds++] = fd;
	return 0;
}

static int attach_set(struct gr_session *s, struct bpf_program *prog, const char *path,
		      const struct probe_set *set, int retprobe)
{
	int fd, err = 0;

	if (!set->n)
		return 0;
	if (s->multi) {
		fd = gr_uprobe_multi_attach(bpf_program__fd(prog), path, set->offsets, set->cookies,
					    set->n, retprobe);
		return fd < 0 ? fd : add_fd(s, fd);
	}
	for (uint32_t i = 0; i < set->n && !err; i++)
		err = attach_one(s, prog, path, set->offsets[i], set->cookies[i], retprobe);
	return err;
}

/* Attach every entry point of the capture surface that @f defines. */
static void attach_file(struct gr_session *s, struct gr_file *f)
{
	static struct probe_set entry, ret, name;
	const struct gr_probe_spec *table;
	char path[64];
	size_t n;
	int err, probes = 0, driver = 0;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	entry.n = ret.n = name.n = 0;
	table = gr_probes_table(&n);
	for (size_t i = 0; i < n; i++) {
		const struct gr_probe_spec *spec = &table[i];
		uint64_t off, cookie = gr_probe_cookie(spec, &s->popts);

		if (gr_elf_func_offset(f->elf, spec->symbol, &off) || is_thunk(f, spec, off))
			continue;
		if (spec->name_probe)
			set_add(&name, off, cookie);
		if (spec->layout != L_REGISTER_FUNCTION)
			set_add(&entry, off, cookie);
		if (gr_probe_has_return(spec, &s->popts))
			set_add(&ret, off, cookie);
		probes++;
		driver |= (spec->flags & GR_CF_DRIVER) != 0;
	}
	if (!probes)
		return;
	/* runtime launches now mark their thread, so driver launches are not doubled */
	if (driver)
		s->skel->bss->driver_probed = true;
	err = attach_set(s, s->skel->progs.name_entry, path, &name, 0);
	if (!err)
		err = attach_set(s, s->skel->progs.api_entry, path, &entry, 0);
	if (!err)
		err = attach_set(s, s->skel->progs.api_return, path, &ret, 1);
	if (err) {
		s->attach_failures++;
		fprintf(stderr, "gpurec: cannot probe %s: %s; its calls are not recorded\n",
			f->path, strerror(-err));
		return;
	}
	f->probes = probes;
	s->cuda_files++;
	if (s->verbose)
		fprintf(stderr, "gpurec: probing %d CUDA entry points in %s\n", probes, f->path);
}

static struct gr_file *file_get(struct gr_session *s, uint32_t pid, uint64_t start, uint64_t end,
				uint64_t dev, uint64_t ino, const char *path)
{
	uint64_t key = gr_u64_key2(dev, ino), *idx = gr_u64map_get(&s->file_index, key);
	struct {
		uint64_t dev, ino;
	} bkey = {dev, ino};
	struct gr_file *f, **files;
	char mf[96];
	__u8 one = 1;

	if (idx)
		return s->files[*idx - 1];
	f = calloc(1, sizeof(*f));
	files = realloc(s->files, (s->nfiles + 1) * sizeof(*files));
	if (!f || !files) {
		free(f);
		if (files)
			s->files = files;
		return NULL;
	}
	s->files = files;
	f->dev = dev;
	f->ino = ino;
	f->path = strdup(path);
	/* map_files reaches the mapped file even when deleted or in another mount namespace */
	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	f->fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd >= 0 && gr_elf_open(&f->elf, f->fd))
		f->elf = NULL;
	s->files[s->nfiles++] = f;
	gr_u64map_put(&s->file_index, key, s->nfiles);
	if (f->elf)
		attach_file(s, f);
	/* examined: the BPF side no longer holds processes that map it */
	bpf_map_update_elem(bpf_map__fd(s->skel->maps.known_files), &bkey, &one, BPF_ANY);
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

int gr_discover_scan(struct gr_session *s, uint32_t pid)
{
	struct gr_proc *p = gr_discover_proc(s, pid);
	char path[64], line[4096 + 256];
	FILE *maps;

	if (!p)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	maps = fopen(path, "re");
	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps)) {
		uint64_t start, end, pgoff, ino;
		unsigned int major, minor;
		char perms[8];
		int pos = 0;
		struct gr_file *f;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &major, &minor, &ino, &pos) < 7)
			continue;
		if (!ino || perms[2] != 'x' || !pos || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		f = file_get(s, pid, start, end, KERNEL_MKDEV(major, minor), ino, line + pos);
		if (f)
			add_mapping(p, start, end, pgoff, f);
	}
	fclose(maps);
	return 0;
}

/* A forked child maps what its parent mapped. */
void gr_discover_fork(struct gr_session *s, uint32_t parent, uint32_t child)
{
	struct gr_proc *pp = gr_discover_proc(s, parent), *cp = gr_discover_proc(s, child);

	if (!pp || !cp || pp == cp)
		return;
	for (size_t i = 0; i < pp->nmaps; i++)
		add_mapping(cp, pp->maps[i].start, pp->maps[i].end, pp->maps[i].pgoff,
			    pp->maps[i].file);
}

const struct gr_mapping *gr_discover_lookup(struct gr_session *s, uint32_t pid, uint64_t addr)
{
	struct gr_proc *p = gr_discover_proc(s, pid);

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

void gr_discover_free(struct gr_session *s)
{
	for (size_t i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	for (size_t i = 0; i < s->nlink_fds; i++)
		close(s->link_fds[i]);
	free(s->link_fds);
	s->link_fds = NULL;
	s->nlink_fds = 0;
	free(s->links);
	s->links = NULL;
	s->nlinks = 0;
	for (size_t i = 0; i < s->nfiles; i++) {
		struct gr_file *f = s->files[i];

		gr_elf_free(f->elf);
		if (f->fd >= 0)
			close(f->fd);
		free(f->path);
		free(f);
	}
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
	for (size_t i = 0; i < s->procs.cap; i++) {
		if (s->procs.keys && s->procs.keys[i]) {
			struct gr_proc *p = (struct gr_proc *)(uintptr_t)s->procs.vals[i];

			free(p->maps);
			free(p);
		}
	}
	gr_u64map_free(&s->procs);
	gr_u64map_free(&s->file_index);
}
