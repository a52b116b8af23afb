/* SPDX-License-Identifier: MIT */
/* Where gpurec's own injected libraries are (own_library.h). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "own_library.h"

static int usable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int gr_own_library(const char *name, char *out, size_t size)
{
	char self[PATH_MAX], a[PATH_MAX + 64], b[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *dir;

	if (n <= 0) {
		snprintf(out, size, "/proc/self/exe: %s", strerror(errno));
		return -ENOENT;
	}
	self[n] = 0;
	dir = dirname(self);
	snprintf(a, sizeof(a), "%s/%s", dir, name);
	snprintf(b, sizeof(b), "%s/../lib/gpurec/%s", dir, name);
	for (int i = 0; i < 2; i++)
		if (usable(i ? b : a) && realpath(i ? b : a, self) && strlen(self) < size) {
			snprintf(out, size, "%s", self);
			return 0;
		}
	snprintf(out, size, "%s nor %s", a, b);
	return -ENOENT;
}
