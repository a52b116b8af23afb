/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 system calls a traced thread can be blocked in (SCHED rows' syscall, docs/
 * FORMAT.md), by number: their names, and the class of wait each one is, the one place that
 * decides both for info, report and export. The fd-taking calls (class GR_WAIT_FD) are those of
 * bpf/gpurec.h's GR_FD_SYSCALLS, for which the recorder gives the fd's kind of file
 * (tests/unit/test_syscalls.c keeps the two lists the same).
 */
#ifndef GR_ANALYZE_SYSCALLS_H
#define GR_ANALYZE_SYSCALLS_H

enum gr_wait_class {
	GR_WAIT_NONE,  /* not in a system call: a page fault, or not known (older traces) */
	GR_WAIT_FUTEX, /* futex, futex_wait, futex_waitv: a lock, condition variable, the GIL */
	GR_WAIT_FD,    /* an fd-taking call (read*, recv*, write*, send*, ...): by the fd's kind */
	GR_WAIT_POLL,  /* poll, ppoll, select, pselect6, epoll_wait, epoll_pwait(2) */
	GR_WAIT_SLEEP, /* nanosleep, clock_nanosleep */
	GR_WAIT_CHILD, /* wait4, waitid */
	GR_WAIT_OTHER, /* any other call: named by gr_syscall_name() */
	GR_WAIT_NCLASSES
};

/*
 * Whether a switch-out with @prev_state (SCHED prev_state: the kernel's task state bits, 0 when
 * preempted) begins a blocked span: the thread sleeps, and is not dying (TASK_DEAD, 0x80: a
 * thread's last switch, which no wakeup ends).
 */
static inline int gr_sched_blocks(unsigned long long prev_state)
{
	return prev_state && !(prev_state & 0x80);
}

/* The name of x86-64 system call @nr ("futex", "read"), NULL for one the table does not know. */
const char *gr_syscall_name(int nr);
/* The wait class of a thread blocked in system call @nr; GR_WAIT_NONE for nr < 0. */
enum gr_wait_class gr_syscall_class(int nr);
/* "none", "futex", "fd", "poll", "sleep", "child", "other"; "unknown" otherwise. Stable: JSON
 * keys. */
const char *gr_wait_class_name(unsigned cls);

#endif
