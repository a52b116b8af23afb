/* SPDX-License-Identifier: MIT */
/*
 * Whether this process may record: the capabilities the kernel asks of a BPF tracer, not uid 0.
 * Root has them; so has a copy of gpurec given them as file capabilities (setcap), which then
 * records as the user who runs it, with that user's rights for everything else (no sudo, so
 * nothing to drop: see identity.h). Used by `record` before anything runs and by `check`.
 */
#ifndef GR_RECORD_PRIVILEGE_H
#define GR_RECORD_PRIVILEGE_H

#include <stddef.h>

/* The file capabilities that let a user record, as setcap(8) takes them. */
#define GR_SETCAP_CAPS "cap_bpf,cap_perfmon+ep"

/*
 * 0 when the effective set holds every capability recording needs (CAP_BPF: BPF maps and
 * programs; CAP_PERFMON: tracing programs and uprobe perf events), else -EPERM with the missing
 * ones named in @missing ("CAP_BPF, CAP_PERFMON"). -errno when they cannot be read.
 */
int gr_privilege_check(char *missing, size_t size);

#endif
