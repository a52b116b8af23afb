/* SPDX-License-Identifier: MIT */
/* C++ name demangling (see demangle.h). */
#include <stddef.h>
#include <string.h>

#include "demangle.h"

/* libstdc++'s abi::__cxa_demangle, extern "C" by the C++ ABI. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *gr_demangle_dup(const char *name)
{
	int status = -1;
	char *d;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	return status == 0 ? d : NULL;
}
