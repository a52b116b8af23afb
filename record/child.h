/* SPDX-License-Identifier: MIT */
/* Starting the traced command under the invoking user's identity. */
#ifndef GR_RECORD_CHILD_H
#define GR_RECORD_CHILD_H

#include <stddef.h>
#include <sys/types.h>

struct gr_child {
	pid_t pid;
	int go_fd, report_fd;
	char *const *env; /* "NAME=value" strings added to the command's environment, or NULL */
};

struct gr_identity;

/*
 * Find @cmd like execvp would, with @id's rights (a path the user cannot see is not found):
 * 0 and the path in @out, or -ENOENT, -EACCES (found, and not executable), -ENAMETOOLONG.
 */
int gr_child_resolve(const struct gr_identity *id, const char *cmd, char *out, size_t size);

/*
 * Fork the command, held before exec until gr_child_release(); it then runs as @id with @id's
 * HOME, USER and LOGNAME, and c->env added (the recorder's own environment is left as is).
 */
int gr_child_start(struct gr_child *c, const struct gr_identity *id, const char *path, char **argv);

/* Let it exec. Returns 0, or the negative errno of a failed exec / privilege drop. */
int gr_child_release(struct gr_child *c);

/*
 * Give up on a command not yet released: it exits 127 without running (it reads EOF where it
 * waits for the go-ahead), and is reaped into *@status. Accepts a child never started.
 */
void gr_child_abandon(struct gr_child *c, int *status);

#endif
