/* SPDX-License-Identifier: MIT */
/*
 * tests/e2e/record_blocked.sh's program: a loop thread (main: it makes a CUDA call, so the
 * recorder walks its stacks when it blocks) that blocks in known ways, each a known number of
 * times, in functions of its own:
 *   wait_for_lock()  ROUNDS times on a pthread mutex that the thread holder_main() holds and
 *                    releases in holder_release() only once main sleeps (futex);
 *   consume()        ROUNDS times reading a pipe that a child, producer(), feeds one byte at a
 *                    time in produce_one(), only once main sleeps (read, pipe);
 *   read_disk()      ROUNDS times reading a file of @dir with O_DIRECT (pread64, file): each
 *                    read goes to the disk, which may or may not make the thread sleep (a
 *                    host that serves it before the guest waits for it: none does);
 *   nap()            ROUNDS times for 1 ms (clock_nanosleep);
 *   reap()           once, waiting for that child, which exits only once main sleeps (wait4).
 * It prints "loop TID", "holder TID", "child PID" and, last, "window T0 T1 BEFORE AFTER": the
 * CLOCK_MONOTONIC span (ns) of all that, and the thread's voluntary_ctxt_switches from
 * /proc/self/task/TID/status read just before T0 and just after T1, the kernel's own count of
 * its sleeps in the window; then "disk BEFORE AFTER": that count around the O_DIRECT reads.
 * usage: blocked ROUNDS DIR
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "task_switches.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int held = -1;  /* the round for which the holder holds the lock */
static atomic_int taken = -1; /* the last round main took the lock */
static pid_t loop_tid;
static atomic_int holder_tid;
static int rounds;
/*
 * The bytes main has read, shared with the child: the child's next byte waits for the last one
 * to be read, since /proc says "in read" also while main, woken by the last byte, waits for a CPU
 * to return from that read (a busy machine): a byte written then would be there before main's
 * next read, which would not sleep.
 */
static atomic_int *consumed;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/*
 * Spin (never sleep: this thread's sleeps are not the test's) until @tid of @pid sleeps in
 * system call @nr (/proc/PID/task/TID/syscall: "NR ARGS... SP PC" while it is in one).
 */
static void until_blocked(pid_t pid, pid_t tid, int nr)
{
	char path[64], buf[256];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			exit(3);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		if (n > 0 && atoi(buf) == nr && strchr(buf, ' '))
			return;
	}
}

__attribute__((noinline)) static void holder_release(void)
{
	pthread_mutex_unlock(&lock);
}

static void *holder_main(void *arg)
{
	(void)arg;
	atomic_store(&holder_tid, gettid());
	for (int i = 0; i < rounds; i++) {
		while (atomic_load(&taken) != i - 1)
			;
		pthread_mutex_lock(&lock);
		atomic_store(&held, i);
		until_blocked(getpid(), loop_tid, SYS_futex);
		holder_release();
	}
	return NULL;
}

__attribute__((noinline)) static void wait_for_lock(void)
{
	pthread_mutex_lock(&lock);
}

__attribute__((noinline)) static void produce_one(int fd)
{
	if (write(fd, "x", 1) != 1)
		_exit(4);
}

/* The child: a byte each time main sleeps reading, then exit once it waits for it (reap()). */
__attribute__((noinline)) static void producer(int fd, pid_t parent)
{
	for (int i = 0; i < rounds; i++) {
		while (atomic_load(consumed) != i)
			;
		until_blocked(parent, loop_tid, SYS_read);
		produce_one(fd);
	}
	until_blocked(parent, loop_tid, SYS_wait4);
	_exit(0);
}

__attribute__((noinline)) static void consume(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(5);
}

__attribute__((noinline)) static void read_disk(int fd, void *buf, int i)
{
	if (pread(fd, buf, 4096, (off_t)i * 4096 * 16) != 4096)
		exit(6);
}

__attribute__((noinline)) static void nap(void)
{
	struct timespec t = {0, 1000000};

	nanosleep(&t, NULL);
}

__attribute__((noinline)) static void reap(pid_t child)
{
	int status;

	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		exit(7);
}

int main(int argc, char **argv)
{
	char path[4096];
	int p[2], fd;
	pthread_t holder;
	sigset_t chld;
	uint64_t t0, t1;
	long before, after, disk_before, disk_after;
	void *buf;
	pid_t child;

	if (argc != 3 || (rounds = atoi(argv[1])) < 1)
		return 2;
	/* a pending SIGCHLD would end a sleep before it starts: the kernel would count it a sleep
	 * whose switch says "runnable" */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, NULL);
	loop_tid = gettid();
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 8;
	/* the file: written and synced now, read back past the page cache in the window */
	snprintf(path, sizeof(path), "%s/blocked.dat", argv[2]);
	if (posix_memalign(&buf, 4096, 4096))
		return 9;
	memset(buf, 'd', 4096);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; fd >= 0 && i < rounds; i++)
		if (pwrite(fd, buf, 4096, (off_t)i * 4096 * 16) != 4096)
			return 10;
	if (fd < 0 || fsync(fd) || close(fd))
		return 10;
	fd = open(path, O_RDONLY | O_DIRECT);
	consumed = mmap(NULL, sizeof(*consumed), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (fd < 0 || pipe(p) || consumed == MAP_FAILED)
		return 11;
	printf("loop %d\n", loop_tid);
	fflush(stdout);

	before = task_nvcsw(loop_tid);
	t0 = now_ns();
	if (pthread_create(&holder, NULL, holder_main, NULL))
		return 12;
	for (int i = 0; i < rounds; i++) {
		while (atomic_load(&held) != i)
			;
		wait_for_lock();
		pthread_mutex_unlock(&lock);
		atomic_store(&taken, i);
	}
	child = fork();
	if (child < 0)
		return 13;
	if (!child)
		producer(p[1], getppid());
	for (int i = 0; i < rounds; i++) {
		consume(p[0]);
		atomic_store(consumed, i + 1);
	}
	disk_before = task_nvcsw(loop_tid);
	for (int i = 0; i < rounds; i++)
		read_disk(fd, buf, i);
	disk_after = task_nvcsw(loop_tid);
	for (int i = 0; i < rounds; i++)
		nap();
	reap(child);
	t1 = now_ns();
	after = task_nvcsw(loop_tid);

	pthread_join(holder, NULL);
	printf("holder %d\nchild %d\nwindow %llu %llu %ld %ld\ndisk %ld %ld\n",
	       atomic_load(&holder_tid), child, (unsigned long long)t0, (unsigned long long)t1,
	       before, after, disk_before, disk_after);
	close(fd);
	unlink(path);
	return 0;
}
