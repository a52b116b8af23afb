/* SPDX-License-Identifier: MIT */
/*
 * Uprobes on the CUDA entry points of a file, gathered per BPF program so that each program
 * gets one multi link per file where the kernel has them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "analyze/util/text.h"
#include "bpf/gpurec.h"
#include "format/events.h"
#include "bpf/gpurec.skel.h"
#include "attach.h"
#include "elf.h"
#include "mmap_hook.h"
#include "uprobe_multi.h"

int gr_attach_sessions_setup(struct gpurec_bpf *skel, int wanted)
{
	int on = wanted && gr_uprobe_session_supported();

	skel->rodata->targ_launch_sample = on ? GR_LAUNCH_SAMPLE : 0;
	/*
	 * a session program uses the session kfuncs, which the kernel refuses to any other
	 * program: loaded as one, or left out
	 */
	if (on)
		bpf_program__set_expected_attach_type(skel->progs.launch_session,
						      GR_ATTACH_UPROBE_SESSION);
	else
		bpf_program__set_autoload(skel->progs.launch_session, false);
	return on;
}

void gr_attach_init(struct gr_attach *a, struct gpurec_bpf *skel, const struct gr_probe_opts *popts,
		    int verbose)
{
	*a = (struct gr_attach){.skel = skel, .popts = *popts, .verbose = verbose};
	/* one link per file and program when the kernel can: see record/uprobe_multi.h */
	a->multi = gr_uprobe_multi_supported();
	/* a sample of the launches timed, unless all are (--launch-time) */
	a->sessions = gr_attach_sessions_setup(skel, !popts->launch_time);
	a->popts.launch_sample = a->sessions ? GR_LAUNCH_SAMPLE : 0;
	if (a->multi) {
		bpf_program__set_expected_attach_type(skel->progs.api_entry,
						      GR_ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.api_return,
						      GR_ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.name_entry,
						      GR_ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.on_dl_debug_state,
						      GR_ATTACH_UPROBE_MULTI);
	}
}

static int add_link(struct gr_attach *a, struct bpf_link *link)
{
	if (a->nlinks == a->caplinks) {
		size_t cap = a->caplinks ? a->caplinks * 2 : 256;
		struct bpf_link **n = realloc(a->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		a->links = n;
		a->caplinks = cap;
	}
	a->links[a->nlinks++] = link;
	return 0;
}

static int attach_one(struct gr_attach *a, struct bpf_program *prog, const char *path, uint64_t off,
		      uint64_t cookie, int retprobe)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie, .retprobe = retprobe);
	struct bpf_link *link;

	link = bpf_program__attach_uprobe_opts(prog, -1, path, off, &opts);
	if (!link)
		return -errno;
	return add_link(a, link);
}

/*
 * Whether @spec in the file at @fd is a thunk that jumps to another probed entry point: the
 * toolkit's __cudaLaunchKernel is `push rbp; mov rbp, rsp; pop rbp; jmp cudaLaunchKernel`.
 * Probing both would count each launch twice; a runtime that implements it in full (the
 * simulator, a future release) gets it probed.
 */
static int is_thunk(int fd, const struct gr_elf *elf, const struct gr_probe_spec *spec,
		    uint64_t off)
{
	const struct gr_probe_spec *table;
	uint64_t vaddr, target;
	uint8_t code[16];
	size_t n;

	if (spec->api != GR_API___cudaLaunchKernel && spec->api != GR_API___cudaLaunchKernel_ptsz)
		return 0;
	if (pread(fd, code, sizeof(code), off) != sizeof(code) ||
	    gr_elf_func_addr(elf, spec->symbol, &vaddr))
		return 0;
	table = gr_probes_table(&n);
	for (size_t pos = 0; pos + 5 <= sizeof(code); pos++) {
		int32_t rel;

		if (code[pos] != 0xe9) /* jmp rel32 */
			continue;
		memcpy(&rel, code + pos + 1, sizeof(rel));
		target = vaddr + pos + 5 + (int64_t)rel;
		for (size_t i = 0; i < n; i++) {
			uint64_t addr;

			if (&table[i] != spec && table[i].layout == spec->layout &&
			    !gr_elf_func_addr(elf, table[i].symbol, &addr) && addr == target)
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

static int add_fd(struct gr_attach *a, int fd)
{
	int *n = realloc(a->link_fds, (a->nlink_fds + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	a->link_fds = n;
	a->link_fds[a->nlink_fds++] = fd;
	return 0;
}

static int attach_set(struct gr_attach *a, struct bpf_program *prog, const char *path,
		      const struct probe_set *set, int retprobe)
{
	int fd, err = 0;

	if (!set->n)
		return 0;
	if (a->multi) {
		fd = gr_uprobe_multi_attach(bpf_program__fd(prog), path, set->offsets, set->cookies,
					    set->n, retprobe);
		return fd < 0 ? fd : add_fd(a, fd);
	}
	for (uint32_t i = 0; i < set->n && !err; i++)
		err = attach_one(a, prog, path, set->offsets[i], set->cookies[i], retprobe);
	return err;
}

/*
 * The launches of one file as one session link (record/uprobe_multi.h). Should the kernel refuse
 * it, they are probed at entry only, as without sessions: recorded, none of them timed.
 */
static int attach_sampled(struct gr_attach *a, const char *path, const struct probe_set *set)
{
	int fd;

	if (!set->n)
		return 0;
	fd = gr_uprobe_session_attach(bpf_program__fd(a->skel->progs.launch_session), path,
				      set->offsets, set->cookies, set->n);
	if (fd >= 0)
		return add_fd(a, fd);
	if (!a->session_failed)
		fprintf(stderr,
			"gpurec: cannot time a sample of the launches (uprobe session: %s): "
			"launch cost not measured; record with --launch-time\n",
			strerror(-fd));
	a->session_failed = 1;
	return attach_set(a, a->skel->progs.api_entry, path, set, 0);
}

int gr_attach_file(struct gr_attach *a, int fd, const struct gr_elf *elf, const char *path)
{
	static struct probe_set entry, ret, name, sampled;
	const struct gr_probe_spec *table;
	char fdpath[64];
	size_t n;
	int err, probes = 0, driver = 0;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	entry.n = ret.n = name.n = sampled.n = 0;
	table = gr_probes_table(&n);
	for (size_t i = 0; i < n; i++) {
		const struct gr_probe_spec *spec = &table[i];
		uint64_t off, cookie = gr_probe_cookie(spec, &a->popts);

		if (gr_elf_func_offset(elf, spec->symbol, &off) || is_thunk(fd, elf, spec, off))
			continue;
		if (spec->name_probe)
			set_add(&name, off, cookie);
		if (gr_probe_sampled(spec, &a->popts))
			set_add(&sampled, off, cookie);
		else if (spec->layout != L_REGISTER_FUNCTION)
			set_add(&entry, off, cookie);
		if (gr_probe_has_return(spec, &a->popts))
			set_add(&ret, off, cookie);
		probes++;
		driver |= (spec->flags & GR_CF_DRIVER) != 0;
	}
	if (!probes)
		return 0;
	/* runtime launches now mark their thread, so driver launches are not doubled */
	if (driver)
		a->skel->bss->driver_probed = true;
	err = attach_set(a, a->skel->progs.name_entry, fdpath, &name, 0);
	if (!err)
		err = attach_set(a, a->skel->progs.api_entry, fdpath, &entry, 0);
	if (!err)
		err = attach_set(a, a->skel->progs.api_return, fdpath, &ret, 1);
	if (!err)
		err = attach_sampled(a, fdpath, &sampled);
	if (err) {
		fprintf(stderr, "gpurec: cannot probe %s: %s; its calls are not recorded\n",
			GR_TEXT(path), strerror(-err));
		return err;
	}
	a->cuda_files++;
	if (a->verbose)
		fprintf(stderr, "gpurec: probing %d CUDA entry points in %s\n", probes,
			GR_TEXT(path));
	return probes;
}

int gr_attach_loader(struct gr_attach *a, int fd, const struct gr_elf *elf, const char *path)
{
	struct probe_set hook = {.n = 1};
	uint64_t func, r_debug, size;
	char fdpath[64];
	int err;

	if (!a->ldso_hook || gr_elf_func_offset(elf, GR_LDSO_HOOK_FUNC, &hook.offsets[0]))
		return 0;
	/* where the program reads the loader's state (bpf/gpurec.h): both in this file */
	if (!gr_elf_func_addr(elf, GR_LDSO_HOOK_FUNC, &func) &&
	    !gr_elf_object(elf, "_r_debug", &r_debug, &size) && size >= GR_R_DEBUG_SIZE)
		hook.cookies[0] = r_debug + GR_R_DEBUG_STATE_OFFSET - func;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	/* a multi link where the kernel has them, as the API probes: here the kernel refused a
	 * perf event uprobe (EACCES) to a recorder with file capabilities (record_setcap.sh) */
	err = attach_set(a, a->skel->progs.on_dl_debug_state, fdpath, &hook, 0);
	if (err) {
		fprintf(stderr,
			"gpurec: cannot probe the dynamic loader %s: %s; the libraries it maps "
			"after the exec are not seen (--mmap-hook=sys_exit sees them)\n",
			GR_TEXT(path), strerror(-err));
		return err;
	}
	a->loaders++;
	if (a->verbose)
		fprintf(stderr, "gpurec: probing the loader's %s in %s\n", GR_LDSO_HOOK_FUNC,
			GR_TEXT(path));
	return 1;
}

void gr_attach_known(struct gr_attach *a, uint64_t dev, uint64_t ino)
{
	struct {
		uint64_t dev, ino;
	} key = {dev, ino};
	__u8 one = 1;

	bpf_map_update_elem(bpf_map__fd(a->skel->maps.known_files), &key, &one, BPF_ANY);
}

void gr_attach_detach(struct gr_attach *a)
{
	for (size_t i = 0; i < a->nlinks; i++)
		bpf_link__destroy(a->links[i]);
	for (size_t i = 0; i < a->nlink_fds; i++)
		close(a->link_fds[i]);
	a->nlinks = 0;
	a->nlink_fds = 0;
}

void gr_attach_free(struct gr_attach *a)
{
	gr_attach_detach(a);
	free(a->link_fds);
	free(a->links);
	*a = (struct gr_attach){0};
}
