/* SPDX-License-Identifier: MIT */
/*
 * The traced program must never stay stopped because of us. The BPF side holds a process
 * (SIGSTOP) that maps an unknown executable file until the recorder has attached its probes
 * and resumed it; if the recorder dies (SIGKILL, OOM) in between, nobody would. A watchdog
 * process, forked after the BPF side is loaded, waits for the recorder to exit (or to say that
 * its BPF objects are closed) and then resumes every held traced process until no BPF program
 * of ours can hold one again: closing a dying recorder's links takes a while, and a program
 * already running may still stop a process after the first resume.
 */
#ifndef GR_RECORD_WATCHDOG_H
#define GR_RECORD_WATCHDOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gr_watchdog {
	pid_t pid;
	int fd; /* the recorder's end of the pipe: closed, it sets the watchdog going */
};

/*
 * Fork the watchdog. @traced_bits (@words u64, one bit per tgid) is the BPF side's traced set,
 * mapped shared, so the watchdog sees pids added later. @holder_map_id is the id of a BPF map
 * that every program able to hold a process uses and that nothing else keeps open once the
 * recorder is gone: the kernel frees it only after the last such program was freed, and frees
 * a program only after every run of it has ended. Returns 0 or -errno.
 */
int gr_watchdog_start(struct gr_watchdog *wd, const uint64_t *traced_bits, size_t words,
		      uint32_t holder_map_id);

/* The recorder closed its BPF objects: let the watchdog make sure nothing stays held. */
void gr_watchdog_release(struct gr_watchdog *wd);

/*
 * Resume a process the BPF side held, once its probes are attached. GPUREC_TEST_NO_RESUME
 * (tests only) makes this a no-op, to show that the watchdog frees what a dead recorder held.
 */
void gr_resume(unsigned pid);

#endif
