/* SPDX-License-Identifier: MIT */
/*
 * Starting the traced command: resolved before any BPF work (so "command not found" is said at
 * once), started held on a pipe until its pid is in the traced set, then exec'ed as the user who
 * ran sudo (SUDO_UID/SUDO_GID with that user's groups), never as root by accident.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"

int gr_child_resolve(const char *cmd, char *out, size_t size)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st))
			return -errno;
		if (!S_ISREG(st.st_mode) || access(cmd, X_OK))
			return -EACCES;
		snprintf(out, size, "%s", cmd);
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(out, size, "%.*s/%s", (int)len, len ? path : ".", cmd);
		if (!stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

int gr_child_sudo_ids(uid_t *uid, gid_t *gid)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	char *end;
	long u, g;

	if (geteuid() != 0 || !su || !sg)
		return 0;
	u = strtol(su, &end, 10);
	if (*end || u <= 0)
		return 0;
	g = strtol(sg, &end, 10);
	if (*end || g < 0)
		return 0;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 1;
}

/* The invoking user's identity, resolved in the recorder before fork (see below). */
struct identity {
	int drop;
	uid_t uid;
	gid_t gid;
	gid_t groups[256];
	int ngroups;
};

/*
 * Resolved in the parent: getgrouplist() loads NSS modules, and a traced process that maps
 * code is held until the recorder resumes it, which the recorder cannot do while it waits for
 * the exec. The child then only makes system calls.
 */
static void identity_resolve(struct identity *id)
{
	struct passwd *pw;

	id->ngroups = 0;
	id->drop = gr_child_sudo_ids(&id->uid, &id->gid);
	if (!id->drop)
		return;
	pw = getpwuid(id->uid);
	id->ngroups = sizeof(id->groups) / sizeof(id->groups[0]);
	if (!pw || getgrouplist(pw->pw_name, id->gid, id->groups, &id->ngroups) < 0) {
		id->groups[0] = id->gid;
		id->ngroups = 1;
	}
}

static int drop_privileges(const struct identity *id)
{
	if (!id->drop)
		return 0;
	if (setgroups(id->ngroups, id->groups) || setgid(id->gid) || setuid(id->uid))
		return -errno;
	/* setuid to a non-root uid must be irreversible */
	if (setuid(0) == 0)
		return -EPERM;
	return 0;
}

int gr_child_start(struct gr_child *c, const char *path, char **argv)
{
	struct identity id;
	int go[2], report[2];
	pid_t pid;

	identity_resolve(&id);
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(report, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(report[0]);
		close(report[1]);
		return err;
	}
	if (pid == 0) {
		char byte;
		int err;

		close(go[1]);
		close(report[0]);
		/* wait until the recorder traces this pid; EOF means it gave up */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		err = drop_privileges(&id);
		if (!err) {
			execv(path, argv);
			err = -errno;
		}
		if (write(report[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(report[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->report_fd = report[0];
	return 0;
}

int gr_child_release(struct gr_child *c)
{
	int err = 0;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1)
		err = -errno;
	close(c->go_fd);
	c->go_fd = -1;
	/* exec closes the report pipe: EOF means it succeeded */
	n = read(c->report_fd, &err, sizeof(err));
	close(c->report_fd);
	c->report_fd = -1;
	return n == sizeof(err) ? err : 0;
}
