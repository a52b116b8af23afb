/* SPDX-License-Identifier: MIT */
/*
 * The traced program must never stay stopped because of us. The BPF side holds a process
 * (SIGSTOP) that maps an unknown executable file until the recorder has attached its probes
 * and resumed it; if the recorder dies (SIGKILL, OOM) in between, nobody would. A watchdog
 * process, forked after the BPF side is loaded, waits for the recorder to exit and then resumes
 * every traced process that is stopped. The recorder runs the same sweep itself at its end,
 * after its probes are gone.
 */
#ifndef GR_RECORD_WATCHDOG_H
#define GR_RECORD_WATCHDOG_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fork the watchdog. @traced_bits (@words u64, one bit per tgid) is the BPF side's traced set,
 * mapped shared, so the watchdog sees pids added later. Returns 0 or -errno.
 */
int gr_watchdog_start(const uint64_t *traced_bits, size_t words);

/*
 * Resume a process the BPF side held, once its probes are attached. GPUREC_TEST_NO_RESUME
 * (tests only) makes this a no-op, to show that the watchdog frees what a dead recorder held.
 */
void gr_resume(unsigned pid);

/* Send SIGCONT to every traced process that is stopped. Returns how many were resumed. */
int gr_resume_held(const uint64_t *traced_bits, size_t words);

#endif
