/* SPDX-License-Identifier: MIT */
/*
 * make bench's blocked-switch load: two threads that each make a CUDA call (so the recorder
 * walks their stacks when they block) hand a token back and forth ROUNDS times, alternately
 * through a pipe pair (read/write) and a semaphore pair (futex), so that each thread blocks at
 * two call sites in turn and no walk is skipped by the per-site rate bound. Prints
 * "switches N cpu_ns_per_switch X": the process's voluntary context switches and its CPU time
 * (user + system, where the scheduler's BPF programs run) per switch.
 * usage: pingpong ROUNDS
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static sem_t sab, sba;
static long rounds;

static void pass(int wfd, sem_t *post, long i)
{
	if (i & 1)
		sem_post(post);
	else if (write(wfd, "x", 1) != 1)
		exit(3);
}

static void take(int rfd, sem_t *wait, long i)
{
	char c;

	if (i & 1)
		sem_wait(wait);
	else if (read(rfd, &c, 1) != 1)
		exit(4);
}

static void *other(void *arg)
{
	(void)arg;
	cudaDeviceSynchronize();
	for (long i = 0; i < rounds; i++) {
		take(ab[0], &sab, i);
		pass(ba[1], &sba, i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec c0, c1;
	struct rusage ru;
	pthread_t t;
	double ns;

	if (argc != 2 || (rounds = atol(argv[1])) < 1)
		return 2;
	if (pipe(ab) || pipe(ba) || sem_init(&sab, 0, 0) || sem_init(&sba, 0, 0))
		return 5;
	/* its status does not matter: the call makes this a thread of CUDA calls */
	cudaDeviceSynchronize();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	if (pthread_create(&t, NULL, other, NULL))
		return 6;
	for (long i = 0; i < rounds; i++) {
		pass(ab[1], &sab, i);
		take(ba[0], &sba, i);
	}
	pthread_join(t, NULL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	getrusage(RUSAGE_SELF, &ru);
	ns = (c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec);
	printf("switches %ld cpu_ns_per_switch %.1f\n", ru.ru_nvcsw,
	       ru.ru_nvcsw ? ns / ru.ru_nvcsw : 0.0);
	return 0;
}
