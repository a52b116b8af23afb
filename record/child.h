/* SPDX-License-Identifier: MIT */
/* Starting the traced command under the invoking user's identity. */
#ifndef GR_RECORD_CHILD_H
#define GR_RECORD_CHILD_H

#include <stddef.h>
#include <sys/types.h>

struct gr_child {
	pid_t pid;
	int go_fd, report_fd;
};

/* Find @cmd like execvp would: 0 and the path in @out, or -ENOENT / -EACCES. */
int gr_child_resolve(const char *cmd, char *out, size_t size);

/* Under sudo as root: 1 and the invoking user's ids; 0 otherwise. */
int gr_child_sudo_ids(uid_t *uid, gid_t *gid);

/* Fork the command, held before exec until gr_child_release(). */
int gr_child_start(struct gr_child *c, const char *path, char **argv);

/* Let it exec. Returns 0, or the negative errno of a failed exec / privilege drop. */
int gr_child_release(struct gr_child *c);

#endif
