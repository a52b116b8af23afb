/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "watchdog.h"

#define SIGSTOP_BIT (1ull << (SIGSTOP - 1))
#define POLL_MAX_MS 50
/* without CAP_SYS_ADMIN: how long after the recorder's end to keep resuming (holder_alive) */
#define UNKNOWN_HOLDER_MS 1000

/* State letter of /proc/PID[/task/TID]/stat ('T' stopped), 0 when it is gone. */
static char stat_state(const char *path)
{
	char buf[512], *p;
	ssize_t n;
	int fd;

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

/* A SIGSTOP pending for the process or its main thread (/proc/PID/status reads them locked). */
static int stop_pending(unsigned pid)
{
	char path[64], line[256];
	unsigned long long mask;
	int pending = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if ((sscanf(line, "ShdPnd: %llx", &mask) == 1 ||
		     sscanf(line, "SigPnd: %llx", &mask) == 1) &&
		    (mask & SIGSTOP_BIT))
			pending = 1;
	fclose(f);
	return pending;
}

/* Any thread of @pid stopped (a group stop has begun in the thread that took the SIGSTOP). */
static int thread_stopped(unsigned pid)
{
	char path[96];
	struct dirent *d;
	int stopped = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!stopped && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%.16s/stat", pid, d->d_name);
		stopped = stat_state(path) == 'T';
	}
	closedir(dir);
	return stopped;
}

void gr_resume(unsigned pid)
{
	static int never = -1;

	if (never < 0)
		never = getenv("GPUREC_TEST_NO_RESUME") != NULL;
	if (!never)
		kill(pid, SIGCONT);
}

/*
 * Resume every traced process that is held: stopped, or about to be. Pending signals are read
 * before thread states: the kernel dequeues a SIGSTOP and stops the thread under one lock, the
 * one /proc/PID/status takes, so a stop is never missed between the two reads. Returns how many
 * traced processes are alive.
 */
static int resume_held(const uint64_t *traced_bits, size_t words)
{
	int alive = 0;

	for (size_t w = 0; w < words; w++) {
		uint64_t bits = __atomic_load_n(&traced_bits[w], __ATOMIC_RELAXED);

		while (bits) {
			unsigned pid = w * 64 + __builtin_ctzll(bits);

			bits &= bits - 1;
			if (kill(pid, 0) && errno == ESRCH)
				continue;
			alive++;
			if (stop_pending(pid) || thread_stopped(pid))
				kill(pid, SIGCONT);
		}
	}
	return alive;
}

/*
 * The map still exists: some program of ours may still run and hold a process. Looking a map
 * up by id takes CAP_SYS_ADMIN, which a copy of gpurec with only CAP_BPF and CAP_PERFMON (see
 * privilege.h) lacks: then the recorder's exit closed the links, no program of ours starts any
 * more, and those running end within microseconds; sweep a while after it anyway.
 */
static int holder_alive(uint32_t map_id, const struct timespec *since)
{
	int fd = bpf_map_get_fd_by_id(map_id);
	struct timespec now;

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno != EPERM)
		return errno != ENOENT;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000 <
	       UNKNOWN_HOLDER_MS;
}

static void watch(int fd, const uint64_t *traced_bits, size_t words, uint32_t holder_map_id)
{
	struct timespec delay = {0, 1000000}, released;
	char byte;

	prctl(PR_SET_NAME, "gpurec-watchdog");
	/* what stops the recorder must not stop the one process that resumes after it */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (read(fd, &byte, 1) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &released);
	/*
	 * Until the map is freed a program of ours may run and stop a process, even after the
	 * last link is gone; resume what it holds as it goes, polling faster than anyone notices.
	 * Nothing left alive to protect ends the watch too.
	 */
	while (resume_held(traced_bits, words) && holder_alive(holder_map_id, &released)) {
		nanosleep(&delay, NULL);
		if (delay.tv_nsec < POLL_MAX_MS * 1000000L)
			delay.tv_nsec *= 2;
	}
	/* no program of ours exists any more: this sweep is the last one needed */
	resume_held(traced_bits, words);
}

int gr_watchdog_start(struct gr_watchdog *wd, const uint64_t *traced_bits, size_t words,
		      uint32_t holder_map_id)
{
	int fds[2];
	pid_t pid;

	wd->pid = 0;
	wd->fd = -1;
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
		wd->pid = pid;
		wd->fd = fds[1];
		return 0;
	}
	/*
	 * The watchdog must not keep the BPF links, programs or maps alive (they are fds): close
	 * everything but the read end; the traced set stays readable through the shared mapping.
	 */
	if (fds[0] > 3)
		close_range(3, fds[0] - 1, 0);
	close_range(fds[0] + 1, ~0u, 0);
	watch(fds[0], traced_bits, words, holder_map_id);
	_exit(0);
}

void gr_watchdog_release(struct gr_watchdog *wd)
{
	if (wd->fd >= 0)
		close(wd->fd);
	wd->fd = -1;
}
