/* SPDX-License-Identifier: MIT */
/* analyze/util/syscalls.h: names and wait classes of x86-64 system calls. */
#include <inttypes.h>
#include <string.h>
#include <sys/syscall.h>

#include "analyze/util/syscalls.h"
#include "bpf/gpurec.h"
#include "test.h"

/* The calls the BPF side reads an fd kind for are the table's GR_WAIT_FD ones, same names. */
static void test_fd_calls_agree(void)
{
	unsigned bpf = 0, table = 0;

#define FD_CALL(nr, name)                                                                          \
	bpf++;                                                                                     \
	CHECK_EQ_U64(gr_syscall_class(nr), GR_WAIT_FD);                                            \
	CHECK_STR(gr_syscall_name(nr), #name);
	GR_FD_SYSCALLS(FD_CALL)
#undef FD_CALL
	for (int nr = 0; nr < 1024; nr++)
		table += gr_syscall_class(nr) == GR_WAIT_FD;
	CHECK_EQ_U64(table, bpf);
}

/* Numbers as the host's headers have them (x86-64), and the class each wait is. */
static void test_classes(void)
{
	CHECK_STR(gr_syscall_name(SYS_futex), "futex");
	CHECK_EQ_U64(gr_syscall_class(SYS_futex), GR_WAIT_FUTEX);
	CHECK_EQ_U64(gr_syscall_class(SYS_read), GR_WAIT_FD);
	CHECK_EQ_U64(gr_syscall_class(SYS_recvfrom), GR_WAIT_FD);
	CHECK_EQ_U64(gr_syscall_class(SYS_epoll_wait), GR_WAIT_POLL);
	CHECK_EQ_U64(gr_syscall_class(SYS_ppoll), GR_WAIT_POLL);
	CHECK_EQ_U64(gr_syscall_class(SYS_select), GR_WAIT_POLL);
	CHECK_EQ_U64(gr_syscall_class(SYS_clock_nanosleep), GR_WAIT_SLEEP);
	CHECK_EQ_U64(gr_syscall_class(SYS_nanosleep), GR_WAIT_SLEEP);
	CHECK_EQ_U64(gr_syscall_class(SYS_wait4), GR_WAIT_CHILD);
	CHECK_EQ_U64(gr_syscall_class(SYS_waitid), GR_WAIT_CHILD);
	CHECK_STR(gr_syscall_name(SYS_io_uring_enter), "io_uring_enter");
	CHECK_EQ_U64(gr_syscall_class(SYS_io_uring_enter), GR_WAIT_OTHER);
	CHECK_EQ_U64(gr_syscall_class(-1), GR_WAIT_NONE);
	CHECK(gr_syscall_name(-1) == NULL);
	/* a call the table does not know is still a call: "other", named by its number */
	CHECK(gr_syscall_name(999) == NULL);
	CHECK_EQ_U64(gr_syscall_class(999), GR_WAIT_OTHER);
	CHECK_STR(gr_wait_class_name(GR_WAIT_CHILD), "child");
	CHECK_STR(gr_wait_class_name(GR_WAIT_NCLASSES), "unknown");
}

/* The table is sorted by number (a binary search finds each) and names each number once. */
static void test_every_name_found(void)
{
	static const int nrs[] = {SYS_read,	   SYS_write,	     SYS_pread64, SYS_splice,
				  SYS_futex_waitv, SYS_epoll_pwait2, SYS_statx,	  SYS_exit_group};

	for (unsigned i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		CHECK(gr_syscall_name(nrs[i]) != NULL);
	CHECK(gr_sched_blocks(1));
	CHECK(!gr_sched_blocks(0));
	CHECK(!gr_sched_blocks(0x80)); /* TASK_DEAD: a thread's last switch */
}

int main(void)
{
	RUN_TEST(test_fd_calls_agree);
	RUN_TEST(test_classes);
	RUN_TEST(test_every_name_found);
	TEST_EXIT();
}
