/* SPDX-License-Identifier: MIT */
/* C++ name demangling through the C++ ABI's __cxa_demangle (libstdc++). */
#ifndef GR_ANALYZE_DEMANGLE_H
#define GR_ANALYZE_DEMANGLE_H

/*
 * Demangle an Itanium-ABI name. Returns a malloc'd demangled copy (the caller frees it) when
 * @name starts with "_Z" and demangles, else NULL: the caller keeps @name as it is.
 */
char *gr_demangle_dup(const char *name);

#endif
