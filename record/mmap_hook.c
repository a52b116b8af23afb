/* SPDX-License-Identifier: MIT */
/* The hook that sees new mappings: fexit where the kernel can, else ld.so's (mmap_hook.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/gpurec.skel.h"
#include "mmap_hook.h"

#define MMAP_FUNC "ksys_mmap_pgoff"

/*
 * Load "return 0" as an fexit program on MMAP_FUNC and attach it, as the real one will be: the
 * kernel may have the function's BTF and still refuse the trampoline. Returns 0 when both
 * worked, else a reason. The trial is detached and unloaded before returning.
 */
static const char *try_fexit(void)
{
	const struct bpf_insn ret0[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	int btf_id = libbpf_find_vmlinux_btf_id(MMAP_FUNC, BPF_TRACE_FEXIT);
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FEXIT);
	int prog, link;

	if (btf_id < 0)
		return "the kernel's BTF has no " MMAP_FUNC;
	opts.attach_btf_id = btf_id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "gr_mmap_trial", "GPL", ret0, 2, &opts);
	if (prog < 0)
		return "the kernel refused an fexit program on " MMAP_FUNC;
	link = bpf_link_create(prog, 0, BPF_TRACE_FEXIT, NULL);
	close(prog);
	if (link < 0)
		return "the kernel cannot attach fexit to " MMAP_FUNC;
	close(link);
	return NULL;
}

int gr_mmap_hook_parse(const char *mode, enum gr_mmap_hook_ask *ask)
{
	if (!strcmp(mode, "auto"))
		*ask = GR_MMAP_ASK_AUTO;
	else if (!strcmp(mode, "ldso"))
		*ask = GR_MMAP_ASK_LDSO;
	else if (!strcmp(mode, "sys_exit"))
		*ask = GR_MMAP_ASK_SYS_EXIT;
	else
		return -1;
	return 0;
}

enum gr_mmap_hook gr_mmap_hook_choose(struct gpurec_bpf *skel, enum gr_mmap_hook_ask ask,
				      const char **why)
{
	const char *forced = getenv("GPUREC_TEST_MMAP_HOOK");
	enum gr_mmap_hook hook = GR_MMAP_HOOK_LDSO;

	if (forced && !strcmp(forced, "sys_exit"))
		ask = GR_MMAP_ASK_SYS_EXIT;
	if (ask == GR_MMAP_ASK_SYS_EXIT) {
		*why = "--mmap-hook=sys_exit";
		hook = GR_MMAP_HOOK_SYS_EXIT;
	} else if (ask == GR_MMAP_ASK_LDSO) {
		*why = "--mmap-hook=ldso";
	} else {
		*why = try_fexit();
		if (!*why)
			hook = GR_MMAP_HOOK_FEXIT;
	}
	bpf_program__set_autoload(skel->progs.on_mmap_return, hook == GR_MMAP_HOOK_FEXIT);
	bpf_program__set_autoload(skel->progs.on_sys_exit, hook == GR_MMAP_HOOK_SYS_EXIT);
	bpf_program__set_autoload(skel->progs.on_dl_debug_state, hook == GR_MMAP_HOOK_LDSO);
	return hook;
}

const char *gr_mmap_hook_name(enum gr_mmap_hook hook)
{
	switch (hook) {
	case GR_MMAP_HOOK_FEXIT:
		return "fexit " MMAP_FUNC;
	case GR_MMAP_HOOK_SYS_EXIT:
		return "tp_btf sys_exit";
	case GR_MMAP_HOOK_LDSO:
		break;
	}
	return "uprobe ld.so " GR_LDSO_HOOK_FUNC;
}
