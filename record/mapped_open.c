/* SPDX-License-Identifier: MIT */
/* Opening the files traced processes map, only the very file mapped: mapped_open.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mapped_open.h"

/* Whether @st is a regular file, the one of @dev (the kernel's MKDEV encoding) and @ino. */
static int is_mapped_file(const struct stat *st, uint64_t dev, uint64_t ino)
{
	return S_ISREG(st->st_mode) && major(st->st_dev) == (dev >> 20) &&
	       minor(st->st_dev) == (dev & 0xfffff) && (uint64_t)st->st_ino == ino;
}

/*
 * Open @path, following a symbolic link in its last component only when @follow (the kernel's
 * own links of /proc/PID/map_files), and keep it only when it is the mapped file. The lookup
 * is O_PATH: it runs no driver's open, does not wait on a FIFO and reads nothing; only once
 * fstat says it is the mapped regular file is it opened for reading, through /proc/self/fd,
 * which reaches that same inode whatever the path names by now.
 */
static int open_checked(const char *path, int follow, uint64_t dev, uint64_t ino)
{
	char self[32];
	struct stat st;
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		fd = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fd = -EINVAL;
		goto out;
	}
	if (!is_mapped_file(&st, dev, ino)) {
		fd = -ESTALE;
		goto out;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	/* O_NONBLOCK and O_NOCTTY cost nothing on a regular file and matter on anything else */
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		goto out;
	}
	if (fstat(fd, &st) || !is_mapped_file(&st, dev, ino)) {
		close(fd);
		fd = -ESTALE;
	}
out:
	close(pfd);
	return fd;
}

int gr_mapped_open_path(uint32_t pid, const char *path, uint64_t dev, uint64_t ino)
{
	char full[PATH_MAX];
	int n;

	if (path[0] != '/')
		return -EINVAL;
	/* its root, not ours: maps shows a container's files by the paths of its own namespace */
	n = snprintf(full, sizeof(full), "/proc/%u/root%s", pid, path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -ENAMETOOLONG;
	return open_checked(full, 0, dev, ino);
}

int gr_mapped_open(uint32_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
		   const char *path)
{
	char mf[96];
	int fd;

	/* map_files reaches the mapped file even when deleted or in another mount namespace */
	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	fd = open_checked(mf, 1, dev, ino);
	/* refused without CAP_SYS_ADMIN, gone when the mapping changed since maps was read */
	if (fd < 0)
		fd = gr_mapped_open_path(pid, path, dev, ino);
	return fd;
}
