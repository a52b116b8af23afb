/* SPDX-License-Identifier: MIT */
/* Files written beside their destination and renamed into place (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "outfile.h"

int gr_outfile_begin(const char *path, char *tmp, size_t len)
{
	int fd;

	if ((size_t)snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid()) >= len)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	return fd < 0 ? -errno : fd;
}

int gr_outfile_end(const char *tmp, const char *path, int err)
{
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
