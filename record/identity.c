/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "identity.h"

/* SUDO_UID/SUDO_GID as ids, only when we are root: 1 when they name a user to act as. */
static int sudo_ids(uid_t *uid, gid_t *gid)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	char *end;
	long u, g;

	if (geteuid() != 0 || !su || !sg)
		return 0;
	errno = 0;
	u = strtol(su, &end, 10);
	if (*end || errno || u <= 0 || u != (long)(uid_t)u)
		return 0;
	g = strtol(sg, &end, 10);
	if (*end || errno || g < 0 || g != (long)(gid_t)g)
		return 0;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 1;
}

void gr_identity_resolve(struct gr_identity *id)
{
	struct passwd *pw;

	memset(id, 0, sizeof(*id));
	id->drop = sudo_ids(&id->uid, &id->gid);
	if (!id->drop)
		return;
	pw = getpwuid(id->uid);
	id->ngroups = sizeof(id->groups) / sizeof(id->groups[0]);
	if (!pw || getgrouplist(pw->pw_name, id->gid, id->groups, &id->ngroups) < 0) {
		/* unknown to the user database, or too many groups: the primary group only */
		id->groups[0] = id->gid;
		id->ngroups = 1;
	}
	if (pw) {
		snprintf(id->name, sizeof(id->name), "%s", pw->pw_name);
		snprintf(id->home, sizeof(id->home), "%s", pw->pw_dir);
	}
}

int gr_identity_drop(const struct gr_identity *id)
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

int gr_identity_set_env(const struct gr_identity *id)
{
	if (!id->drop)
		return 0;
	if (id->home[0] && setenv("HOME", id->home, 1))
		return -errno;
	if (id->name[0] && (setenv("USER", id->name, 1) || setenv("LOGNAME", id->name, 1)))
		return -errno;
	return 0;
}

static void send_reply(int sock, const struct gr_as_user_reply *reply)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {(void *)reply, sizeof(*reply)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;

	if (reply->fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &reply->fd, sizeof(int));
	}
	/* nothing to do on failure: the parent reads EOF and reports it */
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* 0 with @reply filled (its fd ours, or -1), or -EIO when the child sent nothing whole. */
static int recv_reply(int sock, struct gr_as_user_reply *reply)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {reply, sizeof(*reply)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	int fd = -1;
	ssize_t n;

	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	for (cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (n != (ssize_t)sizeof(*reply) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (fd >= 0)
			close(fd);
		reply->fd = -1;
		return -EIO;
	}
	reply->fd = fd;
	reply->text[sizeof(reply->text) - 1] = 0;
	return 0;
}

int gr_identity_call(const struct gr_identity *id,
		     void (*fn)(const void *arg, struct gr_as_user_reply *reply), const void *arg,
		     struct gr_as_user_reply *reply)
{
	int sv[2], err;
	pid_t pid;

	memset(reply, 0, sizeof(*reply));
	reply->fd = -1;
	if (!id->drop) {
		fn(arg, reply);
		return reply->ret;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		close(sv[0]);
		err = gr_identity_drop(id);
		if (err)
			reply->ret = err;
		else
			fn(arg, reply);
		send_reply(sv[1], reply);
		_exit(0);
	}
	close(sv[1]);
	err = recv_reply(sv[0], reply);
	close(sv[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return err ? err : reply->ret;
}

/* /proc/PID/environ opens where ptrace's read mode allows it: the kernel's own rule. */
static void may_trace(const void *arg, struct gr_as_user_reply *reply)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", *(const pid_t *)arg);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		reply->ret = errno == ENOENT ? -ESRCH : -EACCES;
	else
		close(fd);
}

int gr_identity_may_trace(const struct gr_identity *id, pid_t pid)
{
	struct gr_as_user_reply reply;

	return gr_identity_call(id, may_trace, &pid, &reply);
}
