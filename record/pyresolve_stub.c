/* SPDX-License-Identifier: MIT */
/*
 * Stand-in for record/pyresolve.c (branch pyres) until it is merged: definitions that
 * resolve nothing, so Python frames read "<unknown>". Delete this file when the real ones land
 * (the link fails on the duplicates until then).
 */
#include <errno.h>
#include <stdlib.h>

#include "pyresolve.h"

struct gr_pyresolve {
	int unused;
};

int gr_pyresolve_new(struct gr_pyresolve **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void gr_pyresolve_free(struct gr_pyresolve *r)
{
	free(r);
}

int gr_pyresolve_frame(struct gr_pyresolve *r, uint32_t pid, const struct gr_py_build *b,
		       uint64_t bias, uint64_t code, uint32_t lasti, struct gr_py_site *out)
{
	(void)r, (void)pid, (void)b, (void)bias, (void)code, (void)lasti, (void)out;
	return -ENOENT;
}

void gr_pyresolve_forget(struct gr_pyresolve *r, uint32_t pid)
{
	(void)r, (void)pid;
}
