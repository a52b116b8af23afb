/* SPDX-License-Identifier: MIT */
/*
 * The trace file a user names with -o, created with that user's rights (identity.h): under
 * sudo, root never creates, renames or opens it on the user's behalf.
 */
#ifndef GR_RECORD_OUTPUT_H
#define GR_RECORD_OUTPUT_H

struct gr_identity;

/*
 * Create @path for writing as @id: a new regular file, mode 0600, owned by @id, never reached
 * through a symbolic link; an existing regular file is first renamed to PATH.old. Returns the
 * descriptor (O_CLOEXEC), or -errno: -EISDIR (a directory), -ELOOP (a symbolic link), -EINVAL
 * (another kind of file), none of which is renamed; -ENOTEMPTY (PATH.old is a directory);
 * -ENAMETOOLONG; or what rename(2) or open(2) said, such as -EACCES where @id may not write.
 */
int gr_output_create(const struct gr_identity *id, const char *path);

/* What went wrong, for an error gr_output_create() returned. */
const char *gr_output_strerror(int err);

#endif
