/* SPDX-License-Identifier: MIT */
#include "syscalls.h"

#include <stddef.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct syscall_def {
	short nr;
	unsigned char cls; /* enum gr_wait_class */
	const char *name;
};

#define FT GR_WAIT_FUTEX
#define FD GR_WAIT_FD
#define PL GR_WAIT_POLL
#define SL GR_WAIT_SLEEP
#define CH GR_WAIT_CHILD
#define OT GR_WAIT_OTHER

/* By number (arch/x86/entry/syscalls/syscall_64.tbl): the calls a thread blocks in, and the
 * common others, so that "other" names them. */
static const struct syscall_def defs[] = {
    {0, FD, "read"},
    {1, FD, "write"},
    {2, OT, "open"},
    {3, OT, "close"},
    {4, OT, "stat"},
    {5, OT, "fstat"},
    {6, OT, "lstat"},
    {7, PL, "poll"},
    {8, OT, "lseek"},
    {9, OT, "mmap"},
    {10, OT, "mprotect"},
    {11, OT, "munmap"},
    {12, OT, "brk"},
    {13, OT, "rt_sigaction"},
    {14, OT, "rt_sigprocmask"},
    {16, OT, "ioctl"},
    {17, FD, "pread64"},
    {18, FD, "pwrite64"},
    {19, FD, "readv"},
    {20, FD, "writev"},
    {21, OT, "access"},
    {22, OT, "pipe"},
    {23, PL, "select"},
    {24, OT, "sched_yield"},
    {25, OT, "mremap"},
    {26, OT, "msync"},
    {28, OT, "madvise"},
    {32, OT, "dup"},
    {33, OT, "dup2"},
    {34, OT, "pause"},
    {35, SL, "nanosleep"},
    {37, OT, "alarm"},
    {39, OT, "getpid"},
    {40, FD, "sendfile"},
    {41, OT, "socket"},
    {42, FD, "connect"},
    {43, FD, "accept"},
    {44, FD, "sendto"},
    {45, FD, "recvfrom"},
    {46, FD, "sendmsg"},
    {47, FD, "recvmsg"},
    {48, OT, "shutdown"},
    {49, OT, "bind"},
    {50, OT, "listen"},
    {56, OT, "clone"},
    {57, OT, "fork"},
    {58, OT, "vfork"},
    {59, OT, "execve"},
    {60, OT, "exit"},
    {61, CH, "wait4"},
    {62, OT, "kill"},
    {65, OT, "semop"},
    {69, OT, "msgsnd"},
    {70, OT, "msgrcv"},
    {72, FD, "fcntl"},
    {73, FD, "flock"},
    {74, FD, "fsync"},
    {75, FD, "fdatasync"},
    {76, OT, "truncate"},
    {77, OT, "ftruncate"},
    {78, OT, "getdents"},
    {82, OT, "rename"},
    {83, OT, "mkdir"},
    {87, OT, "unlink"},
    {89, OT, "readlink"},
    {128, OT, "rt_sigtimedwait"},
    {130, OT, "rt_sigsuspend"},
    {149, OT, "mlock"},
    {162, OT, "sync"},
    {165, OT, "mount"},
    {187, OT, "readahead"},
    {202, FT, "futex"},
    {203, OT, "sched_setaffinity"},
    {206, OT, "io_setup"},
    {208, OT, "io_getevents"},
    {209, OT, "io_submit"},
    {217, OT, "getdents64"},
    {220, OT, "semtimedop"},
    {230, SL, "clock_nanosleep"},
    {231, OT, "exit_group"},
    {232, PL, "epoll_wait"},
    {233, OT, "epoll_ctl"},
    {247, CH, "waitid"},
    {257, OT, "openat"},
    {262, OT, "newfstatat"},
    {263, OT, "unlinkat"},
    {270, PL, "pselect6"},
    {271, PL, "ppoll"},
    {275, FD, "splice"},
    {276, FD, "tee"},
    {277, OT, "sync_file_range"},
    {278, FD, "vmsplice"},
    {281, PL, "epoll_pwait"},
    {285, OT, "fallocate"},
    {288, FD, "accept4"},
    {293, OT, "pipe2"},
    {295, FD, "preadv"},
    {296, FD, "pwritev"},
    {299, FD, "recvmmsg"},
    {307, FD, "sendmmsg"},
    {310, OT, "process_vm_readv"},
    {313, OT, "finit_module"},
    {318, OT, "getrandom"},
    {321, OT, "bpf"},
    {324, OT, "membarrier"},
    {326, FD, "copy_file_range"},
    {327, FD, "preadv2"},
    {328, FD, "pwritev2"},
    {332, OT, "statx"},
    {333, OT, "io_pgetevents"},
    {426, OT, "io_uring_enter"},
    {435, OT, "clone3"},
    {437, OT, "openat2"},
    {441, PL, "epoll_pwait2"},
    {449, FT, "futex_waitv"},
    {454, FT, "futex_wake"},
    {455, FT, "futex_wait"},
    {456, FT, "futex_requeue"},
};

static const struct syscall_def *find(int nr)
{
	size_t lo = 0, hi = N(defs);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (defs[mid].nr == nr)
			return &defs[mid];
		if (defs[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *gr_syscall_name(int nr)
{
	const struct syscall_def *d = nr >= 0 ? find(nr) : NULL;

	return d ? d->name : NULL;
}

enum gr_wait_class gr_syscall_class(int nr)
{
	const struct syscall_def *d;

	if (nr < 0)
		return GR_WAIT_NONE;
	d = find(nr);
	return d ? (enum gr_wait_class)d->cls : GR_WAIT_OTHER;
}

const char *gr_wait_class_name(unsigned cls)
{
	static const char *const names[] = {"none",  "futex", "fd",   "poll",
					    "sleep", "child", "other"};

	return cls < N(names) ? names[cls] : "unknown";
}
