/* SPDX-License-Identifier: MIT */
/*
 * Which BPF program sees the traced processes' new mappings (a library dlopen'ed late, under
 * any name), so that the process is held until its probes are attached. In order of choice:
 *
 * - fexit on the mmap system call's body (ksys_mmap_pgoff): runs only when some process maps
 *   something, and sees every mmap. Used wherever the kernel lets it attach.
 * - the dynamic loader's debug hook: a uprobe on _dl_debug_state, which ld.so (glibc, musl)
 *   calls after it maps the program's objects at startup and those of each dlopen, before
 *   their constructors run. Runs only when a loader changes what is mapped. Attached per loader
 *   file, as discovery finds the loaders of the traced processes (record/attach.h). It does not
 *   see code mapped without the loader: a static executable that dlopens, or a program that
 *   maps code itself with mmap(PROT_EXEC).
 * - tp_btf/sys_exit: runs at every system call of every process on the machine and sees every
 *   mmap. Only when asked for (--mmap-hook=sys_exit), never by default.
 *
 * record.c chooses between opening and loading the BPF object and writes the choice as a
 * SESSION fact (GR_SESS_MMAP_HOOK) for `info`; check shows what record would choose.
 *
 * Test hook: GPUREC_TEST_MMAP_HOOK=sys_exit asks for sys_exit as --mmap-hook=sys_exit does.
 */
#ifndef GR_RECORD_MMAP_HOOK_H
#define GR_RECORD_MMAP_HOOK_H

struct gpurec_bpf;

/* The values of the SESSION fact GR_SESS_MMAP_HOOK (format/events.h). */
enum gr_mmap_hook {
	GR_MMAP_HOOK_FEXIT = 0, /* fexit/ksys_mmap_pgoff */
	GR_MMAP_HOOK_SYS_EXIT,	/* tp_btf/sys_exit, every system call of the machine */
	GR_MMAP_HOOK_LDSO,	/* uprobe on the dynamic loaders' _dl_debug_state */
};

/* What --mmap-hook asks for. */
enum gr_mmap_hook_ask {
	GR_MMAP_ASK_AUTO = 0, /* fexit where it attaches, else the loader's hook */
	GR_MMAP_ASK_LDSO,     /* the loader's hook even where fexit would attach */
	GR_MMAP_ASK_SYS_EXIT,
};

/* --mmap-hook MODE ("auto", "ldso", "sys_exit") into *@ask: 0, or -1 for another word. */
int gr_mmap_hook_parse(const char *mode, enum gr_mmap_hook_ask *ask);

/*
 * Between gpurec_bpf__open() and __load() of @skel: choose the hook, trying whether an fexit
 * program attaches to ksys_mmap_pgoff on this kernel (a trial program, loaded, attached and
 * closed) when @ask allows it, and leave only the program of that hook to be loaded. Returns
 * the hook; *@why says why fexit is not used (a static string), NULL when it is. Cannot fail.
 */
enum gr_mmap_hook gr_mmap_hook_choose(struct gpurec_bpf *skel, enum gr_mmap_hook_ask ask,
				      const char **why);

/* "fexit ksys_mmap_pgoff", "tp_btf sys_exit" or "uprobe ld.so _dl_debug_state": as the
 * SESSION fact's text and `info` say it. */
const char *gr_mmap_hook_name(enum gr_mmap_hook hook);

/* The function of the dynamic loader that the ld.so hook probes. */
#define GR_LDSO_HOOK_FUNC "_dl_debug_state"

#endif
