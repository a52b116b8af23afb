/* SPDX-License-Identifier: MIT */
/*
 * Test helper: runs CMD as its child and, once the child has exited but before reaping it,
 * writes the kernel's own accounting of the child's main thread to OUT, one line:
 *
 *   tid oncpu_ns run_delay_ns timeslices
 *
 * from /proc/PID/task/TID/schedstat, which a zombie still shows. run_delay_ns is all the time
 * the thread spent runnable on a run queue without the CPU over its whole life: the oracle for
 * the runnable wait gpurec's CPU report gives the same thread, read in the same run however
 * busy the machine is. Exits with CMD's status (128 + signal if a signal ended it).
 *
 * usage: tool_schedstat_exit OUT CMD [ARG...]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[64], stat[256];
	siginfo_t si;
	FILE *f;
	size_t n = 0;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: tool_schedstat_exit OUT CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("tool_schedstat_exit: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "tool_schedstat_exit: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	/* WNOWAIT: the child stays a zombie, its task and its schedstat still there */
	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			perror("tool_schedstat_exit: waitid");
			return 1;
		}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, pid);
	f = fopen(path, "r");
	if (f) {
		n = fread(stat, 1, sizeof(stat) - 1, f);
		fclose(f);
	}
	stat[n] = 0;
	if (!n)
		fprintf(stderr, "tool_schedstat_exit: %s: %s\n", path,
			f ? "empty" : strerror(errno));
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d %s", pid, stat) < 0 || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("tool_schedstat_exit: waitpid");
			return 1;
		}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
