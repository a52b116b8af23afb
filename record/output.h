/* SPDX-License-Identifier: MIT */
/*
 * The trace file a user names with -o, created with that user's rights (identity.h): under
 * sudo, root never creates, renames or opens it on the user's behalf.
 *
 * The trace is written from the start into a new file beside PATH, and put in place only once
 * the command runs (gr_output_commit()): a command that could not be started leaves PATH and
 * PATH.old exactly as they were (gr_output_discard()), so two failed starts never cost a trace.
 */
#ifndef GR_RECORD_OUTPUT_H
#define GR_RECORD_OUTPUT_H

#include <stddef.h>

struct gr_identity;

/*
 * Check that @path can take a trace, and create the file the trace is written into until
 * gr_output_commit(): PATH.tmp-XXXXXXXX, a new regular file, mode 0600, owned by @id, never
 * reached through a symbolic link; its name in @tmp (@size bytes). Nothing at @path or PATH.old
 * changes. Returns the descriptor (O_CLOEXEC), or -errno: -EISDIR (@path is a directory), -ELOOP
 * (a symbolic link), -EINVAL (another kind of file), -ENOTEMPTY (PATH.old is a directory while
 * @path exists); -ENAMETOOLONG; or what open(2) said, such as -EACCES where @id may not write.
 */
int gr_output_create(const struct gr_identity *id, const char *path, char *tmp, size_t size);

/*
 * Put the trace in place, as @id: an existing regular file at @path is renamed to PATH.old, then
 * @tmp to @path. Returns 0, or the errors of gr_output_create() for what is at @path now, or
 * what rename(2) said; @tmp then still holds the trace.
 */
int gr_output_commit(const struct gr_identity *id, const char *path, const char *tmp);

/* Remove @tmp, as @id: the command never ran. 0 or -errno. */
int gr_output_discard(const struct gr_identity *id, const char *tmp);

/* What went wrong, for an error gr_output_create() or gr_output_commit() returned. */
const char *gr_output_strerror(int err);

#endif
