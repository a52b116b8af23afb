// A training step that blocks outside CUDA calls in one known way, for the blocked reasons of
// the step budget (tests/e2e/report_blocked.sh), on the simulator. ITERATIONS times: block
// (as MODE says), launch one kernel on a created stream, cudaStreamSynchronize it.
//   lock    wait_for_lock(): a pthread mutex the thread holder_main() holds for HOLD_US
//           (holder_work() sleeps) each round, taken by main only once the holder has it
//           (semaphores, both ways: neither thread spins, so main only ever sleeps on the
//           holder, and the holder sleeps until main has taken the lock);
//   input   consume(): read one byte of a pipe that a child process, producer(), writes one
//           byte into every HOLD_US (it sleeps in between), each after HOLD_US / 5 of its own
//           CPU time (make_item()); it prints each item's CPU time and time on a CPU;
//   handoff wait_for_worker(): hand the round's work to the thread worker_main() and wait on a
//           condition variable until it signals it done, after HOLD_US (worker_work() sleeps):
//           the shape of PyTorch's backward, run by its autograd thread while the step's
//           thread waits;
//   sleep   nap(): clock_nanosleep of HOLD_US;
//   child   reap(): fork a child that sleeps HOLD_US (child_work()) and exits; waitpid it;
//   disk    sync_data(): write 1 MiB into a file (in $TMPDIR, else /tmp) and fsync it, again
//           until the kernel's count of the thread's voluntary switches (getrusage
//           RUSAGE_THREAD: /proc/thread-self/status's voluntary_ctxt_switches) says it slept
//           SLEEPS (4) times;
//   NAME-healthy  the same program without the wait: the mutex uncontended, the pipe filled
//           before the loop, no sleep, no child, no I/O.
// The main thread measures each block itself: wall time, and its own run and run-queue time
// from /proc/thread-self/schedstat (the kernel's accounting), so blocked = wall - run - queue.
// Prints "loop TID", "culprit TID" (holder or worker thread, producer or last child; 0 for
// sleep), then
// per block "block START_NS WALL_NS BLOCKED_NS SLEEPS" (CLOCK_MONOTONIC; SLEEPS: the kernel's
// count of the thread's voluntary switches in the block, getrusage RUSAGE_THREAD).
// usage: blockstep MODE [ITERATIONS [HOLD_US]] (30 and 5000 by default)
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <cuda_runtime.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void step(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

static unsigned hold_us = 5000;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t holding; // posted each round once the holder holds the lock
static sem_t taken;   // posted each round main took the lock: the holder sleeps until then
static std::atomic<int> holder_tid(0);
static int iterations = 30;
static char disk_path[4096]; // disk mode's file

static unsigned long long now_ns()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

// run and run-queue ns of the calling thread, from the kernel's accounting: the CPU time from
// the thread's CPU clock (schedstat's first field lags by up to a tick for a running thread),
// the run-queue wait from schedstat (complete whenever the thread runs)
static void schedstat(unsigned long long *run, unsigned long long *queue)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long stale;
	struct timespec t;

	*run = *queue = 0;
	if (!f || fscanf(f, "%llu %llu", &stale, queue) != 2) {
		fprintf(stderr, "blockstep: no schedstat\n");
		exit(2);
	}
	fclose(f);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	*run = (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

// the critical section sleeps: a holder busy on the CPU would keep main, just woken, off a
// loaded machine's CPUs, and the step would be CPU-starved rather than lock-bound
__attribute__((noinline)) static void holder_work(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void *holder_main(void *arg)
{
	(void)arg;
	holder_tid = (int)syscall(SYS_gettid);
	for (int r = 0; r < iterations; r++) {
		pthread_mutex_lock(&lock);
		sem_post(&holding);
		holder_work(hold_us);
		pthread_mutex_unlock(&lock);
		sem_wait(&taken);
	}
	return NULL;
}

__attribute__((noinline)) static void wait_for_lock(int r, int contended)
{
	(void)r;
	if (contended)
		sem_wait(&holding);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	if (contended)
		sem_post(&taken);
}

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_asked = PTHREAD_COND_INITIALIZER, work_done = PTHREAD_COND_INITIALIZER;
static int asked, done; // rounds handed to the worker, and rounds it finished (work_lock)
static std::atomic<int> worker_tid;

// the worker's part of a round: it sleeps, so main waits on the worker rather than for a CPU
__attribute__((noinline)) static void worker_work(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void *worker_main(void *arg)
{
	(void)arg;
	worker_tid = (int)syscall(SYS_gettid);
	for (int r = 0; r < iterations; r++) {
		pthread_mutex_lock(&work_lock);
		while (asked <= r)
			pthread_cond_wait(&work_asked, &work_lock);
		pthread_mutex_unlock(&work_lock);
		worker_work(hold_us);
		pthread_mutex_lock(&work_lock);
		done = r + 1;
		pthread_cond_signal(&work_done);
		pthread_mutex_unlock(&work_lock);
	}
	return NULL;
}

__attribute__((noinline)) static void wait_for_worker(int r)
{
	pthread_mutex_lock(&work_lock);
	asked = r + 1;
	pthread_cond_signal(&work_asked);
	while (done <= r)
		pthread_cond_wait(&work_done, &work_lock);
	pthread_mutex_unlock(&work_lock);
}

static unsigned long long cpu_ns()
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

// the producer's own work on an item: on the CPU until its thread has used @ns more of it
__attribute__((noinline)) static void make_item(unsigned long long ns)
{
	unsigned long long end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

// the producer's run-queue wait so far, from its schedstat (@fd, open on
// /proc/thread-self/schedstat): the kernel adds each wait when the thread is back on a CPU, so a
// read made while running is complete. One pread, no stdio: the reads outside an item's window
// are time on a CPU that the trace counts and the item does not, so they must be short.
static unsigned long long queue_ns(int fd)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;

	if (n <= 0) {
		fprintf(stderr, "blockstep: no schedstat\n");
		_exit(2);
	}
	buf[n] = 0;
	strtoull(buf, &end, 10);
	return strtoull(end, NULL, 10);
}

// each item: sleep HOLD_US, make it (HOLD_US / 5 of CPU), write it; prints "item START_NS CPU_NS
// MIN_NS MAX_NS" per item: CLOCK_MONOTONIC at its start, the thread's CPU time from then to its
// write's return, and the bounds of its time on a CPU by the wall clock in that window (its wall
// time less its run-queue waits: a wait that straddles a read of the wait counter falls between
// the bounds). The CPU clock leaves out time the hypervisor took the CPU (steal) and the wall
// clock counts it, as the trace's switches do. Between one item's window and the next the thread
// does as little as it can on a CPU (two reads of the wait counter, the loop, the sleep's entry
// and exit): the lines are printed once the loop is over, not one write each.
__attribute__((noinline)) static void producer(int fd, int healthy)
{
	struct timespec ts = {0, (long)hold_us * 1000};
	struct pollfd pfd;
	unsigned long long(*item)[4] = (unsigned long long(*)[4])calloc(iterations, sizeof(*item));
	int stat = open("/proc/thread-self/schedstat", O_RDONLY);

	if (!item || stat < 0)
		_exit(2);
	for (int i = 0; i < iterations; i++) {
		unsigned long long t0, t1, c0, c1, q0a, q0b, q1a, q1b;

		if (!healthy)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		q0a = queue_ns(stat);
		t0 = now_ns();
		q0b = queue_ns(stat);
		c0 = cpu_ns();
		if (!healthy)
			make_item(hold_us * 200ull);
		if (write(fd, "x", 1) != 1)
			_exit(1);
		c1 = cpu_ns();
		q1a = queue_ns(stat);
		t1 = now_ns();
		q1b = queue_ns(stat);
		item[i][0] = t0;
		item[i][1] = c1 - c0;
		item[i][2] = (t1 - t0) - (q1b - q0a);
		item[i][3] = (t1 - t0) - (q1a - q0b);
	}
	// exit once the loop is over (the reader closes its end: POLLERR), so that the exit's own
	// CPU time falls outside the loop, as no step's data costs it
	pfd.fd = fd;
	pfd.events = 0;
	poll(&pfd, 1, -1);
	for (int i = 0; i < iterations; i++)
		printf("item %llu %llu %llu %llu\n", item[i][0], item[i][1], item[i][2], item[i][3]);
	_exit(0);
}

__attribute__((noinline)) static void consume(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1) {
		fprintf(stderr, "blockstep: pipe closed\n");
		exit(2);
	}
}

__attribute__((noinline)) static void nap()
{
	struct timespec ts = {0, (long)hold_us * 1000};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

// sleeps: a child busy on the CPU can keep its parent off it (CFS runs the new task first)
__attribute__((noinline)) static void child_work(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

__attribute__((noinline)) static int reap()
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		child_work(hold_us);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	return pid;
}

static long voluntary_switches()
{
	struct rusage u;

	getrusage(RUSAGE_THREAD, &u);
	return u.ru_nvcsw;
}

#define SLEEPS 4

// the data written is dirty in the page cache: fsync waits for the disk (on this VM's ext4, a
// few sleeps of some 300 us per MiB); whether a call slept is the kernel's to say, so calls are
// made until it has said so SLEEPS times. Long sleeps keep the step mostly the wait for the disk,
// and few wakeups: each costs the thread a wakeup latency the kernel's run-queue accounting
// (schedstat) and the trace's runnable time count differently, a few us.
__attribute__((noinline)) static void sync_data(int fd)
{
	static char buf[1 << 20];
	long before = voluntary_switches();

	do {
		if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || fsync(fd)) {
			perror("blockstep: disk");
			exit(2);
		}
	} while (voluntary_switches() - before < SLEEPS);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "lock";
	int healthy = strstr(mode, "-healthy") != NULL;
	int fds[2] = {-1, -1}, culprit = 0;
	pthread_t th;
	cudaStream_t s;
	float *buf = NULL;

	if (argc > 2)
		iterations = atoi(argv[2]);
	if (argc > 3)
		hold_us = (unsigned)atoi(argv[3]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (cudaStreamCreate(&s) != cudaSuccess) {
		fprintf(stderr, "blockstep: no stream\n");
		return 2;
	}
	printf("loop %ld\n", (long)syscall(SYS_gettid));
	if (!strncmp(mode, "lock", 4) && !healthy) {
		sem_init(&taken, 0, 0);
		sem_init(&holding, 0, 0);
		pthread_create(&th, NULL, holder_main, NULL);
		while (!holder_tid)
			sched_yield();
		culprit = holder_tid;
	} else if (!strncmp(mode, "handoff", 7) && !healthy) {
		pthread_create(&th, NULL, worker_main, NULL);
		while (!worker_tid)
			sched_yield();
		culprit = worker_tid;
	} else if (!strncmp(mode, "input", 5)) {
		pid_t pid;

		if (pipe(fds))
			return 2;
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			producer(fds[1], healthy);
		}
		close(fds[1]);
		culprit = pid;
		if (healthy) // every byte is there before the loop
			usleep(100000);
	}
	if (!strncmp(mode, "disk", 4)) {
		const char *dir = getenv("TMPDIR");

		snprintf(disk_path, sizeof(disk_path), "%s/blockstep.XXXXXX",
			 dir && *dir ? dir : "/tmp");
		fds[1] = mkstemp(disk_path);
		if (fds[1] < 0) {
			perror("blockstep: mkstemp");
			return 2;
		}
	}
	if (strncmp(mode, "child", 5))
		printf("culprit %d\n", culprit);
	for (int r = 0; r < iterations; r++) {
		unsigned long long t0 = now_ns(), run0, q0, run1, q1, t1;
		long sleeps = voluntary_switches();

		schedstat(&run0, &q0);
		if (!strncmp(mode, "lock", 4))
			wait_for_lock(r, !healthy);
		else if (!strncmp(mode, "handoff", 7) && !healthy)
			wait_for_worker(r);
		else if (!strncmp(mode, "input", 5))
			consume(fds[0]);
		else if (!strncmp(mode, "sleep", 5) && !healthy)
			nap();
		else if (!strncmp(mode, "child", 5) && !healthy)
			culprit = reap();
		else if (!strncmp(mode, "disk", 4) && !healthy)
			sync_data(fds[1]);
		schedstat(&run1, &q1);
		sleeps = voluntary_switches() - sleeps;
		t1 = now_ns();
		printf("block %llu %llu %llu %ld\n", t0, t1 - t0,
		       (t1 - t0) - (run1 - run0) - (q1 - q0), sleeps);
		step<<<1, 32, 0, s>>>(buf);
		cudaStreamSynchronize(s);
	}
	if (!strncmp(mode, "child", 5))
		printf("culprit %d\n", culprit);
	if ((!strncmp(mode, "lock", 4) || !strncmp(mode, "handoff", 7)) && !healthy)
		pthread_join(th, NULL);
	if (fds[0] >= 0) {
		close(fds[0]);
		wait(NULL);
	}
	if (*disk_path)
		unlink(disk_path);
	cudaStreamDestroy(s);
	return 0;
}
