/* SPDX-License-Identifier: MIT */
/*
 * The libraries gpurec puts into traced programs (libgpurec_cupti.so, libgpurec_nvtx.so) are
 * found beside its own binary, never at a path the user or the program names: the recorder runs
 * as root and hands the path on.
 */
#ifndef GR_RECORD_OWN_LIB_H
#define GR_RECORD_OWN_LIB_H

#include <stddef.h>

/*
 * Find library @name next to the gpurec binary, else in ../lib/gpurec/ beside its directory.
 * Returns 0 with the real path in @out, or -ENOENT with the places looked in, in @out.
 */
int gr_own_library(const char *name, char *out, size_t size);

#endif
