/*
 * A job launcher as torchrun or mpirun is one: it starts COUNT ranks of a WORLD-rank job, from
 * FIRST on, each its own process running rank_step (next to this program) with the environment
 * a launcher sets: RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE.
 *   rank_launcher FIRST COUNT WORLD STEPS SLOW_RANK EXTRA_US
 * Every rank runs STEPS steps; rank SLOW_RANK (-1: none) does EXTRA_US of host work per step on
 * top. Exits 0 when every rank did.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void setenv_int(const char *name, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	setenv(name, buf, 1);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], prog[PATH_MAX + 16], *slash;
	long first, count, world, slow;
	ssize_t n;
	int status, failed = 0;

	if (argc != 7) {
		fprintf(stderr,
			"usage: rank_launcher FIRST COUNT WORLD STEPS SLOW_RANK EXTRA_US\n");
		return 2;
	}
	first = atol(argv[1]);
	count = atol(argv[2]);
	world = atol(argv[3]);
	slow = atol(argv[5]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(prog, sizeof(prog), "%s/rank_step", self);
	for (long r = first; r < first + count; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			setenv_int("RANK", r);
			setenv_int("LOCAL_RANK", r - first);
			setenv_int("WORLD_SIZE", world);
			setenv_int("LOCAL_WORLD_SIZE", count);
			execl(prog, prog, argv[4], r == slow ? argv[6] : "0", (char *)NULL);
			perror(prog);
			_exit(127);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	return failed;
}
