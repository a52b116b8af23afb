/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"
#include "output.h"

struct paths {
	const char *path;
	const char *tmp;
};

/* What is at @path may be replaced by a trace: nothing, or a regular file. 0 or -errno. */
static int replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	return S_ISREG(st.st_mode) ? 1 : -EINVAL;
}

/* PATH.old, where the previous trace goes, in @old (PATH_MAX). 0 or -ENAMETOOLONG. */
static int old_name(const char *path, char *old)
{
	return (size_t)snprintf(old, PATH_MAX, "%s.old", path) >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * Runs with the user's rights: every check and change below is one the user could make. The
 * checks that commit() repeats are made here too, so that a path that cannot take the trace is
 * refused before the command runs.
 */
static void create(const void *arg, struct gr_as_user_reply *reply)
{
	const char *path = arg;
	char old[PATH_MAX];
	struct stat st;
	int ret, fd = -1;

	ret = old_name(path, old);
	if (!ret)
		ret = replaceable(path);
	/* rename(2) would refuse: PATH.old is a directory */
	if (ret == 1 && !lstat(old, &st) && S_ISDIR(st.st_mode))
		ret = -ENOTEMPTY;
	if (ret < 0) {
		reply->ret = ret;
		return;
	}
	for (int i = 0; i < 16 && fd < 0; i++) {
		unsigned r;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (unsigned)getpid() * 2654435761u + (unsigned)i;
		if ((size_t)snprintf(reply->text, sizeof(reply->text), "%s.tmp-%08x", path, r) >=
		    sizeof(reply->text)) {
			reply->ret = -ENAMETOOLONG;
			return;
		}
		/* O_EXCL|O_NOFOLLOW: whatever is at the name, it is not ours to open */
		fd = open(reply->text, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		reply->ret = -errno;
		reply->text[0] = 0;
		return;
	}
	reply->fd = fd;
}

int gr_output_create(const struct gr_identity *id, const char *path, char *tmp, size_t size)
{
	struct gr_as_user_reply reply;
	int err = gr_identity_call(id, create, path, &reply);

	if (err < 0)
		return err;
	if (reply.fd < 0)
		return -EIO;
	if ((size_t)snprintf(tmp, size, "%s", reply.text) >= size) {
		close(reply.fd);
		return -ENAMETOOLONG;
	}
	return reply.fd;
}

/* With the user's rights: the previous trace to PATH.old, the new one to PATH. */
static void commit(const void *arg, struct gr_as_user_reply *reply)
{
	const struct paths *p = arg;
	char old[PATH_MAX];
	int ret = old_name(p->path, old);

	if (!ret)
		ret = replaceable(p->path);
	/* rename(2) says EISDIR or ENOTEMPTY when PATH.old is a directory */
	if (ret == 1 && rename(p->path, old))
		ret =
		    errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST ? -ENOTEMPTY : -errno;
	/* rename(2) replaces whatever came to PATH since, a symbolic link included, never its
	 * target */
	if (ret >= 0 && rename(p->tmp, p->path))
		ret = -errno;
	reply->ret = ret < 0 ? ret : 0;
}

int gr_output_commit(const struct gr_identity *id, const char *path, const char *tmp)
{
	struct paths p = {path, tmp};
	struct gr_as_user_reply reply;

	return gr_identity_call(id, commit, &p, &reply);
}

static void discard(const void *arg, struct gr_as_user_reply *reply)
{
	reply->ret = unlink(arg) ? -errno : 0;
}

int gr_output_discard(const struct gr_identity *id, const char *tmp)
{
	struct gr_as_user_reply reply;

	return gr_identity_call(id, discard, tmp, &reply);
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
