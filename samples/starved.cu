/* SPDX-License-Identifier: MIT */
/*
 * starved, alone (-DALONE): the CPU-starvation pair.
 *
 * starved (pathology): the launcher is pinned to CPU 0 with sched_setaffinity and shares it with
 * busy child processes (fork, then prctl(PR_SET_NAME, "hog")), 2 by default (argv[2]). Each hog
 * spins forever; the launcher is runnable but not running for about hogs/(hogs+1) of the loop,
 * and the GPU starves between its launches.
 * alone (healthy twin): the same launcher on CPU 0, no hogs.
 *
 * Host side, both: sched_setaffinity(0, {CPU 0}); starved forks the hogs (they inherit the
 * affinity); then both sleep 20 ms (usleep), so that hogs are spinning before the first launch.
 * At the end starved sends each hog SIGKILL and reaps it (waitpid). A machine where CPU 0 is not
 * allowed gets a warning on stderr and an unpinned run.
 *
 * Calls, in this order, each made exactly once where counted, whatever CUDA returns:
 *   setup     cudaStreamCreate(&S)                                         1
 *             cudaMalloc(270336)                                           1
 *   per step  tick<<<(264,1,1), (256,1,1), 0, S>>>                         20 launches
 *             cudaStreamSynchronize(S)                                     1
 *   teardown  cudaFree                                                     1
 *             cudaStreamDestroy(S)                                         1
 * argv[1] = steps (default 50): 20 x steps launches, steps stream syncs, no copies, all from
 * the main thread (comm "starved" or "alone"); hogs make no CUDA call.
 * Kernel (demangled): tick(float*, int, int).
 */
#include <csignal>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sample.h"

#ifdef ALONE
#define NAME	     "alone"
#define DEFAULT_HOGS 0
#else
#define NAME	     "starved"
#define DEFAULT_HOGS 2
#endif

#define LAUNCHES_PER_STEP 20
#define BLOCK		  256
#define GRID		  264 /* two blocks per SM on a 132-SM GPU */
#define N		  (GRID * BLOCK)
#define MAX_HOGS	  64

__global__ void tick(float *x, int step, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.999f + (float)step;
}

static void hog(pid_t parent)
{
	volatile unsigned long spin = 0;

	prctl(PR_SET_NAME, "hog", 0, 0, 0);
	/* die with the launcher, even if it is killed before it can reap us */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(0);
	for (;;)
		spin++;
}

int main(int argc, char **argv)
{
	long steps = sample_steps(argc, argv, 50);
	int hogs = argc > 2 ? atoi(argv[2]) : DEFAULT_HOGS;
	pid_t pids[MAX_HOGS];
	cudaStream_t s = 0;
	float *x = nullptr;
	cpu_set_t cpu0;

	if (hogs < 0)
		hogs = 0;
	if (hogs > MAX_HOGS)
		hogs = MAX_HOGS;
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		perror(NAME ": sched_setaffinity(CPU 0)");
	for (int i = 0; i < hogs; i++) {
		pid_t parent = getpid();

		pids[i] = fork();
		if (pids[i] == 0)
			hog(parent);
		if (pids[i] < 0)
			perror(NAME ": fork");
	}
	usleep(20000);

	ck(cudaStreamCreate(&s));
	ck(cudaMalloc((void **)&x, N * sizeof(float)));

	sample_loop_start();
	for (long step = 0; step < steps; step++) {
		for (int k = 0; k < LAUNCHES_PER_STEP; k++)
			tick<<<GRID, BLOCK, 0, s>>>(x, (int)step, N);
		tally.launches += LAUNCHES_PER_STEP;
		ck(cudaStreamSynchronize(s));
		tally.syncs++;
	}
	sample_summary(NAME, steps);

	ck(cudaFree(x));
	ck(cudaStreamDestroy(s));
	for (int i = 0; i < hogs; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], nullptr, 0);
		}
	}
	return 0;
}
