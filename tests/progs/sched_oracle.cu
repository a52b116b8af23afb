// Scheduler oracle for the CPU report's culprits: the launcher pins itself to CPU 0, forks two
// CPU hogs ("hog_a", "hog_b") pinned there too and, with TICKER 1, a task ("ticker") that wakes
// every 0.7 ms and runs about 60 us; then it launches a kernel in a loop for SECONDS without
// ever blocking, so whenever one of them runs on CPU 0 the launcher is runnable and waiting.
// Around the loop (after its first and before its last call's neighbours) it reads each
// child's /proc/PID/schedstat (ns on CPU, the kernel's own accounting) and prints
//   ran NAME PID NS      (what the child ran between the two reads)
//   calls N
// Run on the real libcudart without a GPU: each launch is a real call that fails fast.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void tiny(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void hog(void)
{
	for (;;)
		asm volatile("");
}

static void ticker(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	for (;;) {
		t.tv_nsec += 700000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_nsec -= 1000000000;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		for (uint64_t s = now_ns(); now_ns() - s < 60000;)
			;
	}
}

static pid_t child(const char *name, void (*body)(void))
{
	pid_t p = fork();

	if (p == 0) {
		prctl(PR_SET_NAME, name);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		body();
		_exit(0);
	}
	return p;
}

static uint64_t ran_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	if (f)
		fclose(f);
	return ns;
}

/*
 * CPU 0's steal time so far (ns, in clock ticks' steps): the host ran someone else while the
 * guest thought a task ran. The switch records count it in that task's time, schedstat does not
 * (paravirt steal accounting).
 */
static uint64_t cpu0_steal_ns(void)
{
	unsigned long long v[8] = {0};
	char line[512];
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu0 ", 5)) {
			sscanf(line + 5, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			       &v[3], &v[4], &v[5], &v[6], &v[7]);
			break;
		}
	if (f)
		fclose(f);
	return v[7] * (1000000000ull / sysconf(_SC_CLK_TCK));
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	int with_ticker = argc > 2 && atoi(argv[2]);
	const char *names[3] = {"hog_a", "hog_b", "ticker"};
	char comms[3][16];
	pid_t kids[3];
	uint64_t before[3], after[3], end, steal;
	int nkids = with_ticker ? 3 : 2;
	long calls = 0;
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		perror("sched_setaffinity");
		return 1;
	}
	/* comms of this run's own (culprits are named by comm: another run's hog_a is not ours) */
	for (int i = 0; i < nkids; i++)
		snprintf(comms[i], sizeof(comms[i]), "%s.%d", names[i], (int)(getpid() % 100000));
	for (int i = 0; i < nkids; i++)
		kids[i] = child(comms[i], i < 2 ? hog : ticker);
	for (int i = 0; i < nkids; i++)
		before[i] = ran_ns(kids[i]);
	steal = cpu0_steal_ns();
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		tiny<<<1, 32>>>(nullptr);
		calls++;
	}
	for (int i = 0; i < nkids; i++)
		after[i] = ran_ns(kids[i]);
	steal = cpu0_steal_ns() - steal;
	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	for (int i = 0; i < nkids; i++)
		printf("ran %s %d %llu %s\n", names[i], (int)kids[i],
		       (unsigned long long)(after[i] - before[i]), comms[i]);
	printf("steal_ns %llu\n", (unsigned long long)steal);
	printf("calls %ld\n", calls);
	return 0;
}
