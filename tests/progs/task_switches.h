/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own count of a thread's sleeps, for test programs that prove a sleep happened
 * (blocked.c, fault_stack.c) rather than hope it did.
 */
#ifndef GR_TESTS_PROGS_TASK_SWITCHES_H
#define GR_TESTS_PROGS_TASK_SWITCHES_H

#include <stdio.h>
#include <sys/types.h>

/* voluntary_ctxt_switches of thread @tid of this process (/proc/self/task/TID/status); -1 when
 * it cannot be read. */
static inline long task_nvcsw(pid_t tid)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

#endif
