/* SPDX-License-Identifier: MIT */
/*
 * Which file, function and line a Python frame is: the BPF side keeps per frame only the code
 * object's address and the instruction offset; this reads the code object (its file name,
 * qualified name, first line and line table) out of the live process and decodes the line
 * table, with one cache per recording so each code object is read once per process.
 *
 * The process is read with process_vm_readv (or /proc/PID/mem): every pointer and length in it
 * is untrusted, since an object can be freed or rewritten while it is read.
 */
#ifndef GR_RECORD_PYRESOLVE_H
#define GR_RECORD_PYRESOLVE_H

#include <stdint.h>
#include <sys/uio.h>

#include "pybuild.h"

/* Per-recording cache of code objects and their (code, lasti) -> line answers. */
struct gr_pyresolve;

/* Where a Python frame is; the strings are UTF-8 and owned by the cache. */
struct gr_py_site {
	const char *file, *function; /* co_filename; co_qualname (3.11+) or co_name (3.10) */
	uint32_t line;		     /* 0 when the instruction has no line */
};

/*
 * How process memory is read: @n pieces of process @pid, remote[i] into local[i] (the same
 * lengths, at most what the local buffer holds). Returns 0 when all of every piece was read,
 * -ESRCH when the process is gone, -EFAULT otherwise.
 */
typedef int (*gr_pyresolve_read_fn)(void *ctx, uint32_t pid, const struct iovec *local,
				    const struct iovec *remote, unsigned n);

/* 0 and a new empty cache in @out that reads live processes (process_vm_readv), or -ENOMEM. */
int gr_pyresolve_new(struct gr_pyresolve **out);
/* The same, reading memory through @read (given @ctx): tests/fuzz/fuzz_pyresolve.c. */
int gr_pyresolve_new_reader(struct gr_pyresolve **out, gr_pyresolve_read_fn read, void *ctx);
/* Frees the cache and every string it gave; NULL is fine. */
void gr_pyresolve_free(struct gr_pyresolve *r);

/*
 * Resolves the code object at @code (an address in process @pid, whose CPython is @b loaded
 * with bias @bias) at instruction offset @lasti (in code units: 2-byte words). Returns 0 and
 * @out (strings valid until gr_pyresolve_forget() of @pid or gr_pyresolve_free()); -ESRCH when
 * the process is gone; -EFAULT when the memory is unreadable or is not a code object (its
 * ob_type is not PyCode_Type + @bias) or holds strings gpurec does not read; -EINVAL when @b
 * is a build gpurec cannot read (b->unreadable, offsets out of range); -ENOMEM. Not thread-safe.
 */
int gr_pyresolve_frame(struct gr_pyresolve *r, uint32_t pid, const struct gr_py_build *b,
		       uint64_t bias, uint64_t code, uint32_t lasti, struct gr_py_site *out);

/* The process exec'ed or exited: its code addresses mean nothing now; drops what it cached. */
void gr_pyresolve_forget(struct gr_pyresolve *r, uint32_t pid);

#endif
