/* SPDX-License-Identifier: MIT */
/* The probe on libgpurec_nvtx.so's tap (nvtx_probe.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/gpurec.skel.h"
#include "nvtx/tap.h"
#include "nvtx_probe.h"
#include "elf.h"
#include "own_library.h"
#include "uprobe_multi.h"

void gr_nvtx_probe_prepare(struct gr_nvtx_probe *p, struct gpurec_bpf *skel)
{
	p->fd = -1;
	p->multi = gr_uprobe_multi_supported();
	if (p->multi)
		bpf_program__set_expected_attach_type(skel->progs.nvtx_tap, GR_ATTACH_UPROBE_MULTI);
}

int gr_nvtx_probed(const struct gr_nvtx_probe *p)
{
	return p->link || p->fd >= 0;
}

/* the tap as a one-probe multi link: 0 with p->fd, or -errno */
static int attach_multi(struct gr_nvtx_probe *p, struct gpurec_bpf *skel)
{
	struct gr_elf *e = NULL;
	uint64_t off, cookie = 0;
	int fd = open(p->library, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = gr_elf_open(&e, fd);
	if (!err)
		err = gr_elf_func_offset(e, GR_NVTX_TAP_SYMBOL, &off);
	gr_elf_free(e);
	close(fd);
	if (err)
		return err;
	fd = gr_uprobe_multi_attach(bpf_program__fd(skel->progs.nvtx_tap), p->library, &off,
				    &cookie, 1, 0);
	if (fd < 0)
		return fd;
	p->fd = fd;
	return 0;
}

int gr_nvtx_probe_attach(struct gr_nvtx_probe *p, struct gpurec_bpf *skel, char *why, size_t size)
{
	/* every process (-1): the BPF program keeps the traced ones */
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = GR_NVTX_TAP_SYMBOL);
	int err;

	p->link = NULL;
	err = gr_own_library(GR_NVTX_LIBRARY, p->library, sizeof(p->library));
	if (err) {
		snprintf(why, size, "no " GR_NVTX_LIBRARY " (looked for %s)", p->library);
		return err;
	}
	if (p->multi)
		err = attach_multi(p, skel);
	else if (!(p->link = bpf_program__attach_uprobe_opts(skel->progs.nvtx_tap, -1, p->library,
							     0, &o)))
		err = -errno;
	if (err) {
		snprintf(why, size, "cannot probe %s in %s: %s", GR_NVTX_TAP_SYMBOL, p->library,
			 strerror(-err));
		return err;
	}
	return 0;
}

void gr_nvtx_probe_detach(struct gr_nvtx_probe *p)
{
	bpf_link__destroy(p->link);
	p->link = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
