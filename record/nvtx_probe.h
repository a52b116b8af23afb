/* SPDX-License-Identifier: MIT */
/*
 * NVTX: the recorder's probe on libgpurec_nvtx.so's tap (nvtx/tap.h). The probe sits on the
 * library file (an inode), so every traced process that loads it, whatever its NVTX build (the
 * header-only v3, or a v2 libnvToolsExt.so: both load the library NVTX_INJECTION64_PATH names),
 * sends each NVTX call as one EV_NVTX event: one probe hit per call.
 */
#ifndef GR_RECORD_NVTX_PROBE_H
#define GR_RECORD_NVTX_PROBE_H

#include <limits.h>
#include <stddef.h>

struct gpurec_bpf;
struct bpf_link;

struct gr_nvtx_probe {
	struct bpf_link *link;	/* NULL: not probed */
	char library[PATH_MAX]; /* the library's real path, when probed */
};

/*
 * Find our library and probe its tap. 0, or a negative errno with why in @why (the recording
 * goes on without NVTX: the caller says so and gives the command no injection library).
 */
int gr_nvtx_probe_attach(struct gr_nvtx_probe *p, struct gpurec_bpf *skel, char *why, size_t size);
void gr_nvtx_probe_detach(struct gr_nvtx_probe *p);

#endif
