/* SPDX-License-Identifier: MIT */
/* The probe on libgpurec_nvtx.so's tap (nvtx_probe.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/gpurec.skel.h"
#include "nvtx/tap.h"
#include "nvtx_probe.h"
#include "own_library.h"

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
	p->link = bpf_program__attach_uprobe_opts(skel->progs.nvtx_tap, -1, p->library, 0, &o);
	if (!p->link) {
		err = -errno;
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
}
