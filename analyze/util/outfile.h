/* SPDX-License-Identifier: MIT */
/*
 * A file a command writes whole (an export, an HTML page): written beside its destination and
 * renamed over it once complete, so that a failed run leaves the old file, or nothing.
 */
#ifndef GR_ANALYZE_OUTFILE_H
#define GR_ANALYZE_OUTFILE_H

#include <stddef.h>

/*
 * Create the new file beside @path (same directory, so the rename stays in one file system);
 * its name goes to @tmp (@len bytes). Created by this process with O_EXCL and mode 0666 less
 * the umask: with the caller's rights, as fopen() would (under sudo, gpurec has already taken
 * the invoking user's). Returns its descriptor (the caller closes it), or -errno.
 */
int gr_outfile_begin(const char *path, char *tmp, size_t len);

/* @err 0: rename @tmp over @path; otherwise, or when that fails, remove @tmp. Returns @err, or
 * -errno of the failed rename. */
int gr_outfile_end(const char *tmp, const char *path, int err);

#endif
