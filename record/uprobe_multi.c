/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "uprobe_multi.h"

#define BPF_LINK_CREATE_CMD 28
#define UPROBE_MULTI_RETURN 1 /* BPF_F_UPROBE_MULTI_RETURN */

/* The link_create part of union bpf_attr for uprobe multi, as in the kernel's uapi (6.6+). */
struct link_create_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad;
};

/* Whether the running kernel is at least @want_major.@want_minor. */
static int kernel_at_least(int want_major, int want_minor)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > want_major || (major == want_major && minor >= want_minor);
}

int gr_uprobe_multi_supported(void)
{
	return kernel_at_least(6, 6);
}

int gr_uprobe_session_supported(void)
{
	/* a test hook, as GPUREC_TEST_MMAP_HOOK: the fallback of kernels before 6.12, here */
	if (getenv("GPUREC_TEST_NO_UPROBE_SESSION"))
		return 0;
	return gr_uprobe_multi_supported() && kernel_at_least(6, 12);
}

static int link_create(int prog_fd, uint32_t attach_type, const char *path, const uint64_t *offsets,
		       const uint64_t *cookies, uint32_t cnt, uint32_t multi_flags)
{
	union {
		struct link_create_uprobe_multi lc;
		uint8_t attr[144]; /* sizeof(union bpf_attr) in 6.x: the rest must be zero */
	} u;
	long fd;

	memset(&u, 0, sizeof(u));
	u.lc.prog_fd = prog_fd;
	u.lc.attach_type = attach_type;
	u.lc.path = (uintptr_t)path;
	u.lc.offsets = (uintptr_t)offsets;
	u.lc.cookies = (uintptr_t)cookies;
	u.lc.cnt = cnt;
	u.lc.multi_flags = multi_flags;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE_CMD, &u, sizeof(u));
	return fd < 0 ? -errno : (int)fd;
}

int gr_uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			   const uint64_t *cookies, uint32_t cnt, int retprobe)
{
	return link_create(prog_fd, GR_ATTACH_UPROBE_MULTI, path, offsets, cookies, cnt,
			   retprobe ? UPROBE_MULTI_RETURN : 0);
}

int gr_uprobe_session_attach(int prog_fd, const char *path, const uint64_t *offsets,
			     const uint64_t *cookies, uint32_t cnt)
{
	/* the same uprobe_multi attributes; a session takes no return flag */
	return link_create(prog_fd, GR_ATTACH_UPROBE_SESSION, path, offsets, cookies, cnt, 0);
}
