/* SPDX-License-Identifier: MIT */
/*
 * The libraries gpurec puts into the traced program (libgpurec_cupti.so, libgpurec_nvtx.so) are
 * found next to the gpurec binary that runs, or in ../lib/gpurec/ from it (an installed tree):
 * never a path the user or the program names, so what runs in the program is what was installed
 * with the recorder.
 */
#ifndef GR_RECORD_OWN_LIBRARY_H
#define GR_RECORD_OWN_LIBRARY_H

#include <stddef.h>

/*
 * The real path of our library @name into @out: 0, or -ENOENT with the places looked at in
 * @out instead.
 */
int gr_own_library(const char *name, char *out, size_t size);

#endif
