/* SPDX-License-Identifier: MIT */
/*
 * Many uprobes on one file as one BPF link (kernel 6.6+). Detaching a uprobe waits for a
 * tasks-trace RCU grace period; a link per probe made the end of a recording wait for one per
 * probe (seconds, up to a minute on a busy machine). A multi link waits once. libbpf 1.1 has
 * no API for it, so the link is created with the raw bpf(2) command.
 *
 * A uprobe session (6.12+) is such a link whose one program runs at entry and, for the calls
 * where its entry run returned 0, at the return too (bpf_session_is_return() tells which):
 * a return probe for a chosen subset of calls.
 */
#ifndef GR_RECORD_UPROBE_MULTI_H
#define GR_RECORD_UPROBE_MULTI_H

#include <stdint.h>

#define GR_ATTACH_UPROBE_MULTI	 48 /* BPF_TRACE_UPROBE_MULTI */
#define GR_ATTACH_UPROBE_SESSION 57 /* BPF_TRACE_UPROBE_SESSION (include/uapi/linux/bpf.h) */

/* Whether the running kernel has uprobe multi links. */
int gr_uprobe_multi_supported(void);

/*
 * Attach the loaded program @prog_fd (loaded with expected attach type
 * GR_ATTACH_UPROBE_MULTI) to @cnt file offsets of @path, each with its cookie, as entry or
 * return probes, for every process. Returns the link fd or -errno.
 */
int gr_uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			   const uint64_t *cookies, uint32_t cnt, int retprobe);

/*
 * Whether the running kernel has uprobe sessions (and multi links). The environment variable
 * GPUREC_TEST_NO_UPROBE_SESSION (a test hook) says no.
 */
int gr_uprobe_session_supported(void);

/*
 * Attach @prog_fd (loaded with expected attach type GR_ATTACH_UPROBE_SESSION) as a session to
 * @cnt file offsets of @path, each with its cookie, for every process. Returns the link fd or
 * -errno.
 */
int gr_uprobe_session_attach(int prog_fd, const char *path, const uint64_t *offsets,
			     const uint64_t *cookies, uint32_t cnt);

#endif
