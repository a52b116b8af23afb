/* SPDX-License-Identifier: MIT */
/* Whether this process may record: see privilege.h. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privilege.h"

int gr_privilege_check(char *missing, size_t size)
{
	static const struct {
		int cap;
		const char *name;
	} need[] = {{CAP_BPF, "CAP_BPF"}, {CAP_PERFMON, "CAP_PERFMON"}};
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	size_t len = 0;

	missing[0] = 0;
	/* glibc has no capget() wrapper, and libcap is not worth a dependency for two bits */
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int c = need[i].cap;

		if (data[c / 32].effective & (1u << (c % 32)))
			continue;
		len += snprintf(missing + len, len < size ? size - len : 0, "%s%s", len ? ", " : "",
				need[i].name);
	}
	return len ? -EPERM : 0;
}
