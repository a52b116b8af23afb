/* SPDX-License-Identifier: MIT */
/*
 * The invoking user of `sudo gpurec record`: sudo grants the right to load BPF programs and
 * nothing else, so the traced command runs as that user and every path the user names (the
 * output, its .old, the command) is looked up, created and renamed with that user's rights, in a
 * child that dropped root for good. As plain root (no sudo) nothing is dropped.
 */
#ifndef GR_RECORD_IDENTITY_H
#define GR_RECORD_IDENTITY_H

#include <limits.h>
#include <sys/types.h>

struct gr_identity {
	int drop; /* 1: under sudo as root, act as the user below */
	uid_t uid;
	gid_t gid;
	gid_t groups[256];
	int ngroups;
	char name[256];	     /* USER and LOGNAME; empty when the passwd entry is unknown */
	char home[PATH_MAX]; /* HOME; empty when unknown */
};

/*
 * Fill @id from SUDO_UID/SUDO_GID when running as root, with the user's groups, name and home
 * from the user database. Call it before any traced process exists: the user database loads
 * NSS modules, which must not run in a child that the BPF side may hold (see child.c).
 */
void gr_identity_resolve(struct gr_identity *id);

/* In a child: take @id's groups, gid and uid, irreversibly. Returns 0 or -errno. */
int gr_identity_drop(const struct gr_identity *id);

/* In the command's child: HOME, USER and LOGNAME of @id (as sudo left them otherwise). */
int gr_identity_set_env(const struct gr_identity *id);

/* What a call made with the user's rights sends back. */
struct gr_as_user_reply {
	int ret;	     /* the call's result: >= 0, or -errno */
	int fd;		     /* a descriptor it opened, or -1 */
	char text[PATH_MAX]; /* a path it found (NUL-terminated), or empty */
};

/*
 * Run @fn(@arg, reply) with @id's rights: in a forked child that dropped root when @id->drop,
 * else in this process. The reply's descriptor, if any, is passed back (SCM_RIGHTS) and then
 * belongs to the caller. Returns @fn's ret, or -errno when the child could not be run.
 */
int gr_identity_call(const struct gr_identity *id,
		     void (*fn)(const void *arg, struct gr_as_user_reply *reply), const void *arg,
		     struct gr_as_user_reply *reply);

/*
 * Whether @id may look into process @pid as a debugger could read it (same user, not a setuid
 * program): 0, or -EACCES / -ESRCH. Tracing a process records its arguments and stacks, so
 * sudo must not open other users' processes to the invoking user.
 */
int gr_identity_may_trace(const struct gr_identity *id, pid_t pid);

#endif
