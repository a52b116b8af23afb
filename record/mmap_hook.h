/* SPDX-License-Identifier: MIT */
/*
 * Which BPF program sees the traced processes' new mappings (a library dlopen'ed late, under
 * any name), so that the process is held until its probes are attached. fexit on the mmap
 * system call's body runs only when some process maps something; the fallback, tp_btf/sys_exit,
 * runs at every system call of every process on the machine, and is used only where the kernel
 * cannot attach fexit there (no BTF for the function, no fexit trampolines: before 5.5, or a
 * kernel built without direct calls). Either sees every mmap: discovery is complete both ways.
 *
 * record.c chooses between opening and loading the BPF object, says a fallback on stderr and
 * writes the choice as a SESSION fact (GR_SESS_MMAP_HOOK) for `info`.
 *
 * Test hook: GPUREC_TEST_MMAP_HOOK=sys_exit takes the fallback on any kernel.
 */
#ifndef GR_RECORD_MMAP_HOOK_H
#define GR_RECORD_MMAP_HOOK_H

struct gpurec_bpf;

enum gr_mmap_hook {
	GR_MMAP_HOOK_FEXIT = 0, /* fexit/ksys_mmap_pgoff */
	GR_MMAP_HOOK_SYS_EXIT,	/* tp_btf/sys_exit, every system call of the machine */
};

/*
 * Between gpurec_bpf__open() and __load() of @skel: try whether an fexit program attaches to
 * ksys_mmap_pgoff on this kernel (a trial program, loaded, attached and closed), and leave only
 * the program of the hook that works to be loaded. Returns the hook; for the fallback, *@why
 * says why fexit could not be used (a static string). Cannot fail.
 */
enum gr_mmap_hook gr_mmap_hook_choose(struct gpurec_bpf *skel, const char **why);

/* "fexit ksys_mmap_pgoff" or "tp_btf sys_exit": as the SESSION fact's text and `info` say it. */
const char *gr_mmap_hook_name(enum gr_mmap_hook hook);

#endif
