/* SPDX-License-Identifier: MIT */
/* Is there a CUDA driver here? What `gpurec check` says and `record --cupti` needs. */
#ifndef GR_RECORD_DRIVER_H
#define GR_RECORD_DRIVER_H

#include <stddef.h>

struct gr_identity;

/*
 * A loadable libcuda.so.1 that is not the toolkit's link-time stub (stubs/libcuda.so carries
 * the same soname but every call fails), and the device nodes. libcuda.so.1 is loaded in a
 * child, as @id when given (the user's rights: the loader's search path is theirs), since a real
 * driver's constructors may open the device or start threads. Returns 1 with what was found in
 * @detail, or 0 with why not.
 */
int gr_driver_probe(const struct gr_identity *id, char *detail, size_t size);

#endif
