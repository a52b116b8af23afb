/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "watchdog.h"

/* State letter of /proc/PID/stat ('T' stopped), 0 when the process is gone. */
static char proc_state(unsigned pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* the comm may hold spaces and parentheses: the state follows the last ')' */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

void gr_resume(unsigned pid)
{
	static int never = -1;

	if (never < 0)
		never = getenv("GPUREC_TEST_NO_RESUME") != NULL;
	if (!never)
		kill(pid, SIGCONT);
}

int gr_resume_held(const uint64_t *traced_bits, size_t words)
{
	int resumed = 0;

	for (size_t w = 0; w < words; w++) {
		uint64_t bits = __atomic_load_n(&traced_bits[w], __ATOMIC_RELAXED);

		while (bits) {
			unsigned pid = w * 64 + __builtin_ctzll(bits);

			bits &= bits - 1;
			if (proc_state(pid) == 'T' && !kill(pid, SIGCONT))
				resumed++;
		}
	}
	return resumed;
}

int gr_watchdog_start(const uint64_t *traced_bits, size_t words)
{
	int fds[2];
	pid_t pid;
	char byte;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid > 0) {
		/* the write end stays open in the recorder until it exits, whichever way */
		close(fds[0]);
		return 0;
	}
	/*
	 * The watchdog must not keep the BPF links alive (they are fds): close everything but
	 * the read end; the traced set stays readable through the shared mapping.
	 */
	if (fds[0] > 3)
		close_range(3, fds[0] - 1, 0);
	close_range(fds[0] + 1, ~0u, 0);
	prctl(PR_SET_NAME, "gpurec-watchdog");
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	while (read(fds[0], &byte, 1) < 0 && errno == EINTR)
		;
	/* the recorder is gone, and its probes with it: nothing will stop these again */
	gr_resume_held(traced_bits, words);
	_exit(0);
}
