/* SPDX-License-Identifier: MIT */
/*
 * Opening the files traced processes map. The recorder runs as root (or with CAP_BPF and
 * CAP_PERFMON) and reads what a traced program maps, so a path from /proc/PID/maps is the
 * program's to choose: between the mapping and our open it can put a FIFO there (an open that
 * never returns), a device (a driver's open run as root) or a symbolic link to a file only
 * root may read. Every open of a mapped file goes through here, and only ever yields the
 * regular file with the mapping's device and inode (docs/SECURITY.md).
 */
#ifndef GR_RECORD_MAPPED_OPEN_H
#define GR_RECORD_MAPPED_OPEN_H

#include <stdint.h>

/*
 * The file @pid maps at [@start, @end), device @dev (in the kernel's encoding, MKDEV, as
 * /proc/PID/maps gives it as major:minor) and inode @ino, opened read-only and close-on-exec:
 * through /proc/@pid/map_files (the kernel's own reference: it needs CAP_SYS_ADMIN, and reaches
 * a deleted file), else as gr_mapped_open_path() does with @path. Returns the descriptor, or
 * -errno of the last way tried: -EINVAL when what was found is not a regular file, -ESTALE when
 * it is another file than the one mapped. The caller owns the descriptor.
 */
int gr_mapped_open(uint32_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
		   const char *path);

/*
 * @path (absolute, as /proc/@pid/maps shows it) looked up in @pid's root directory
 * (/proc/@pid/root), a symbolic link in its last component not followed, and opened only when it
 * is the regular file of @dev and @ino: never a FIFO's or a device's open, never a wait. Returns
 * the descriptor (the caller owns it) or -errno: -EINVAL for a relative @path or anything but a
 * regular file (a symbolic link included), -ESTALE for another file, -ENAMETOOLONG.
 */
int gr_mapped_open_path(uint32_t pid, const char *path, uint64_t dev, uint64_t ino);

#endif
