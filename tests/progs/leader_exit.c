/* SPDX-License-Identifier: MIT */
/*
 * A process whose main thread exits first, for tests/e2e/record_leader_exit.sh: the recorder
 * must keep the process's unwinding state until its last thread is gone, not drop it when the
 * leader goes. With a libcuda.so.1 found at run time (tests/progs/fake_libcuda.c):
 *   main launches once, starts a worker, and calls pthread_exit();
 *   the worker waits until the main thread is a zombie (its exit is in the trace before any of
 *   the worker's launches), then launches N times from worker_launches() and exits: 0, or 3
 *   when the main thread was still there after 10 s.
 *
 *   leader_exit LIBCUDA N
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			     unsigned, void *, void **, void **);
static int nlaunches;

/* 1 when the main thread has exited: /proc/self/task/PID/stat says Z (or X, being reaped). */
static int leader_gone(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	/* the comm is in parentheses and may hold spaces: the state follows the last ')' */
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z' || state == 'X';
}

static __attribute__((noinline)) void worker_launches(void)
{
	for (int i = 0; i < nlaunches; i++)
		cuLaunchKernel((void *)0x2000, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
}

static void *worker(void *arg)
{
	pid_t leader = (pid_t)(long)arg;
	struct timespec pause = {0, 1000000};

	int gone = 0;

	/* at most 10 s: a test that cannot set its scene fails (exit status 3), it does not hang */
	for (int i = 0; i < 10000 && !(gone = leader_gone(leader)); i++)
		nanosleep(&pause, NULL);
	worker_launches();
	exit(gone ? 0 : 3);
}

int main(int argc, char **argv)
{
	void *lib;
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: leader_exit LIBCUDA N\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "leader_exit: %s\n", dlerror());
		return 1;
	}
	*(void **)&cuLaunchKernel = dlsym(lib, "cuLaunchKernel");
	if (!cuLaunchKernel) {
		fprintf(stderr, "leader_exit: no cuLaunchKernel\n");
		return 1;
	}
	nlaunches = atoi(argv[2]);
	cuLaunchKernel((void *)0x1000, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	if (pthread_create(&t, NULL, worker, (void *)(long)getpid()))
		return 1;
	pthread_exit(NULL);
}
