/* SPDX-License-Identifier: MIT */
/*
 * The probes on the files of the traced processes. Owns the links of the BPF object's uprobe
 * programs (one per program and file with uprobe multi links, kernel 6.6+, else one per probe)
 * and the count of files probed. Uprobes are per file (inode), so a library is probed once for
 * every process that maps it, now or later, whatever its path or name.
 *
 * record.c sets it up around loading the BPF object and frees it at the end; discover.c hands
 * it each new file (record/discover.h).
 */
#ifndef GR_RECORD_ATTACH_H
#define GR_RECORD_ATTACH_H

#include <stddef.h>
#include <stdint.h>

#include "probes.h"

struct gpurec_bpf;
struct bpf_link;
struct gr_elf;

/* Set up by gr_attach_init(), changed only here; record.c reads cuda_files at the end. */
struct gr_attach {
	struct gpurec_bpf *skel;
	struct gr_probe_opts popts;
	int multi; /* the kernel has uprobe multi links */
	/* launches go to the session program (popts.launch_sample > 0): the kernel has uprobe
	 * sessions and --launch-time is off */
	int sessions;
	/* a file's session link failed: its launches are probed at entry only, untimed */
	int session_failed;
	int verbose; /* say which files are probed */

	struct bpf_link **links; /* per-probe links (kernels before 6.6) */
	size_t nlinks, caplinks;
	int *link_fds; /* uprobe multi links: one per program and file */
	size_t nlink_fds;
	int cuda_files; /* files with probes */
	/* set by record.c when new mappings are seen through the dynamic loaders' debug hook
	 * (record/mmap_hook.h): gr_attach_loader() then probes each loader found */
	int ldso_hook;
	int loaders; /* files whose debug hook is probed */
};

/*
 * Between gpurec_bpf__open() and __load() of @skel: load its launch session program (launch
 * sampling) when @wanted and the kernel has uprobe sessions, else leave it out. Returns 1 when
 * loaded so, 0 when left out. gr_attach_init() calls it; `check` loads the object as record does.
 */
int gr_attach_sessions_setup(struct gpurec_bpf *skel, int wanted);

/*
 * Between gpurec_bpf__open() and __load() of @skel: choose how its uprobe programs attach and
 * remember @skel (its programs, the known_files map) for later. Cannot fail.
 */
void gr_attach_init(struct gr_attach *a, struct gpurec_bpf *skel, const struct gr_probe_opts *popts,
		    int verbose);

/*
 * Attach every entry point of the capture surface that the ELF file @elf, open at @fd, defines.
 * @path names it in messages. Returns the number of probes attached (0: none defined), or a
 * negative error, said on stderr: the file's calls are not recorded.
 */
int gr_attach_file(struct gr_attach *a, int fd, const struct gr_elf *elf, const char *path);

/*
 * With @ldso_hook set: when the ELF file @elf, open at @fd, defines the dynamic loader's debug
 * hook (GR_LDSO_HOOK_FUNC: ld.so, musl's libc.so), attach the BPF program that holds a traced
 * process each time it is called. Once per file: a uprobe fires in every process that maps it.
 * Returns 1 when attached, 0 when not a loader (or no hook is wanted), or a negative error,
 * said on stderr: what that loader maps after the exec is not seen.
 */
int gr_attach_loader(struct gr_attach *a, int fd, const struct gr_elf *elf, const char *path);

/* The file (@dev, @ino) was examined: the BPF side no longer holds processes that map it. */
void gr_attach_known(struct gr_attach *a, uint64_t dev, uint64_t ino);

/*
 * Detach every probe, once no probe program runs any more (the kernel waits for those under
 * way): what the programs left behind is then final. cuda_files stays.
 */
void gr_attach_detach(struct gr_attach *a);

/* Detach everything; @a is zeroed. */
void gr_attach_free(struct gr_attach *a);

#endif
