/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"
#include "output.h"

/* Runs with the user's rights: every check and change below is one the user could make. */
static void create(const void *arg, struct gr_as_user_reply *reply)
{
	const char *path = arg;
	char old[PATH_MAX];
	struct stat st;
	int fd;

	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old)) {
		reply->ret = -ENAMETOOLONG;
		return;
	}
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			reply->ret = -EISDIR;
		else if (S_ISLNK(st.st_mode))
			reply->ret = -ELOOP;
		else if (!S_ISREG(st.st_mode))
			reply->ret = -EINVAL;
		else if (rename(path, old))
			/* rename(2) says EISDIR or ENOTEMPTY when PATH.old is a directory */
			reply->ret = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST
					 ? -ENOTEMPTY
					 : -errno;
		if (reply->ret)
			return;
	} else if (errno != ENOENT) {
		reply->ret = -errno;
		return;
	}
	/* O_EXCL|O_NOFOLLOW: whatever appeared at the path since, it is not ours to open */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		reply->ret = -errno;
		return;
	}
	reply->fd = fd;
}

int gr_output_create(const struct gr_identity *id, const char *path)
{
	struct gr_as_user_reply reply;
	int err = gr_identity_call(id, create, path, &reply);

	if (err < 0)
		return err;
	return reply.fd >= 0 ? reply.fd : -EIO;
}

const char *gr_output_strerror(int err)
{
	switch (err) {
	case -EISDIR:
		return "it is a directory; name a file";
	case -ELOOP:
		return "it is a symbolic link; gpurec neither follows nor replaces one";
	case -EINVAL:
		return "it exists and is not a regular file";
	case -EEXIST:
		return "it appeared while being created; try again";
	case -ENOTEMPTY:
		return "its .old, where the previous trace is kept, is a directory";
	default:
		return strerror(-err);
	}
}
