/* SPDX-License-Identifier: MIT */
/*
 * Starting the traced command: resolved before any BPF work (so "command not found" is said at
 * once) with the invoking user's rights, started held on a pipe until its pid is in the traced
 * set, then exec'ed as the user who ran sudo (identity.h), never as root by accident. The
 * identity is resolved before the fork: a traced process that maps code is held until the
 * recorder resumes it, which the recorder cannot do while it waits for the exec, so the child
 * only makes system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "forward.h"
#include "identity.h"

struct resolve_arg {
	const char *cmd;
	const char *path; /* $PATH */
};

/* Like execvp's search, with the rights of whoever runs it (see gr_identity_call). */
static void resolve(const void *arg, struct gr_as_user_reply *reply)
{
	const struct resolve_arg *a = arg;
	const char *path = a->path ? a->path : "/usr/local/bin:/usr/bin:/bin";
	char *out = reply->text;
	size_t size = sizeof(reply->text);
	struct stat st;
	int denied = 0;

	if (strchr(a->cmd, '/')) {
		if (stat(a->cmd, &st))
			reply->ret = -errno;
		else if (!S_ISREG(st.st_mode) || access(a->cmd, X_OK))
			reply->ret = -EACCES;
		else
			snprintf(out, size, "%s", a->cmd);
		return;
	}
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(out, size, "%.*s/%s", (int)len, len ? path : ".", a->cmd);
		if (!stat(out, &st) && S_ISREG(st.st_mode)) {
			if (!access(out, X_OK))
				return;
			/* found, not executable: a shell's 126, unless a later one runs */
			denied = 1;
		}
		path += len + (path[len] == ':');
	}
	out[0] = 0;
	reply->ret = denied ? -EACCES : -ENOENT;
}

int gr_child_resolve(const struct gr_identity *id, const char *cmd, char *out, size_t size)
{
	struct resolve_arg arg = {cmd, getenv("PATH")};
	struct gr_as_user_reply reply;
	int err = gr_identity_call(id, resolve, &arg, &reply);

	if (err)
		return err;
	if (strlen(reply.text) >= size)
		return -ENAMETOOLONG;
	snprintf(out, size, "%s", reply.text);
	return 0;
}

int gr_child_start(struct gr_child *c, const struct gr_identity *id, const char *path, char **argv)
{
	int go[2], report[2];
	pid_t pid;

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
		err = gr_identity_drop(id);
		if (!err)
			err = gr_identity_set_env(id);
		for (char *const *e = c->env; !err && e && *e; e++)
			if (putenv(*e))
				err = -errno;
		if (!err) {
			/* what nohup or the shell set, not the recorder's handlers */
			gr_forward_restore();
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

void gr_child_abandon(struct gr_child *c, int *status)
{
	/* closed first: a child still waiting for the go-ahead would otherwise never exit */
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->report_fd >= 0)
		close(c->report_fd);
	c->go_fd = c->report_fd = -1;
	if (c->pid > 0)
		waitpid(c->pid, status, 0);
}
