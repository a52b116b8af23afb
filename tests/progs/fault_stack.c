/* SPDX-License-Identifier: MIT */
/*
 * tests/e2e/record_fault_stack.sh's program: a thread that sleeps in a page fault at an
 * instruction whose unwind rule is not the rule of the byte before it, so that its switch-out's
 * stack is whole only when the walk takes the rule of the instruction the thread stopped at,
 * not of a return address's call.
 *
 * fault_after_push() (assembly, below) pushes rbx and then loads from its argument: the load's
 * rule says the return address is 16 bytes up, the push's 8. main (which first makes a CUDA
 * call, so the recorder walks its stacks when it blocks) calls outer() -> middle() ->
 * fault_after_push() ROUNDS times, each on a page of a mapping registered with userfaultfd that
 * nothing has touched: the load faults and the thread sleeps in the fault, with its ip on the
 * load, until the handler thread fills the page. The handler fills it only once the kernel has
 * counted the sleep (voluntary_ctxt_switches in /proc/self/task/TID/status went up), so each
 * round is exactly one sleeping switch-out at the load. Built without frame pointers: only the
 * unwind tables find the callers.
 *
 * Prints "loop TID" and, last, "faults N" (rounds whose sleep the kernel counted: all of them,
 * or it exits 1). usage: fault_stack ROUNDS
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "task_switches.h"

int fault_after_push(const int *p);
__asm__(".text\n"
	".globl fault_after_push\n"
	".type fault_after_push, @function\n"
	"fault_after_push:\n"
	"	.cfi_startproc\n"
	"	pushq %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	movl (%rdi), %eax\n" /* faults here: the return address is at rsp + 8 */
	"	popq %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size fault_after_push, .-fault_after_push\n");

static pid_t loop_tid;
static long page;
static int uffd;

__attribute__((noinline)) int middle(const int *p)
{
	int v = fault_after_push(p);

	__asm__ volatile("" ::: "memory"); /* a call, not a jump: middle stays on the stack */
	return v + 1;
}

__attribute__((noinline)) int outer(const int *p)
{
	int v = middle(p);

	__asm__ volatile("" ::: "memory");
	return v + 1;
}

/* The loop thread's own count of sleeps (voluntary switches): a call that never sleeps. */
static long own_nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

/* The loop thread's count before its fault, and the faults whose sleep the kernel counted. */
static long armed;
static int slept;

/*
 * Each fault: wait until the kernel counted the loop thread's sleep in it, then fill the page.
 * A fault whose wait a signal cut short comes again for the same page: the page is filled
 * once (EEXIST after that) and counted once.
 */
static void *handler(void *arg)
{
	uint64_t counted = 0; /* the last page counted */

	(void)arg;
	for (;;) {
		struct uffd_msg msg;
		struct uffdio_zeropage zero;
		struct pollfd pfd = {.fd = uffd, .events = POLLIN};
		long before;
		int seen = 0;

		if (poll(&pfd, 1, -1) < 0 || read(uffd, &msg, sizeof(msg)) != sizeof(msg)) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return NULL;
		}
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		/* armed before the fault, whose message is queued just before the thread sleeps:
		 * wait for the switch */
		before = __atomic_load_n(&armed, __ATOMIC_ACQUIRE);
		for (int i = 0; i < 100000 && !(seen = task_nvcsw(loop_tid) > before); i++)
			usleep(100);
		zero.range.start = msg.arg.pagefault.address & ~(uint64_t)(page - 1);
		zero.range.len = page;
		zero.mode = 0;
		/* counted before the fill: the loop reads the count as soon as its last page is in
		 */
		if (seen && zero.range.start != counted) {
			counted = zero.range.start;
			__atomic_add_fetch(&slept, 1, __ATOMIC_RELEASE);
		}
		if (ioctl(uffd, UFFDIO_ZEROPAGE, &zero) && errno != EEXIST)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, devices, sum = 0;
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg;
	pthread_t h;
	char *mem;

	page = sysconf(_SC_PAGESIZE);
	loop_tid = (pid_t)syscall(SYS_gettid);
	(void)cudaGetDeviceCount(&devices); /* fails without a GPU: the call is what counts */
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		fprintf(stderr, "fault_stack: userfaultfd: %s\n", strerror(errno));
		return 2;
	}
	mem = mmap(NULL, rounds * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 2;
	reg.range.start = (uintptr_t)mem;
	reg.range.len = rounds * page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return 2;
	if (pthread_create(&h, NULL, handler, NULL))
		return 2;
	printf("loop %d\n", loop_tid);
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		__atomic_store_n(&armed, own_nvcsw(), __ATOMIC_RELEASE);
		sum += outer((const int *)(mem + r * page));
	}
	printf("faults %d\n", __atomic_load_n(&slept, __ATOMIC_ACQUIRE));
	return __atomic_load_n(&slept, __ATOMIC_ACQUIRE) == rounds && sum == 2 * rounds ? 0 : 1;
}
