/* SPDX-License-Identifier: MIT */
/*
 * When to resume a process the BPF side held (SIGSTOP: a new executable mapping, an exec, a new
 * Python stack). Stops do not nest: two threads that each hold the process before it stops make
 * one stop, and the SIGCONT sent for the first held event would resume it while the second's
 * event is still on its way (its stack then resolved after the process ended, its probes
 * attached late). So the BPF side counts the holds it sends per process (the holds map, before
 * each SIGSTOP), and the recorder resumes a process only once it has handled as many held
 * events as were sent. A hold that comes between that check and the SIGCONT may have had its
 * SIGSTOP undone by it: the count is read again after the SIGCONT, and a process held since is
 * stopped again, to be resumed by that hold's own event.
 */
#ifndef GR_RECORD_HOLD_H
#define GR_RECORD_HOLD_H

#include <stdint.h>

#include "u64map.h"

/* The holds the BPF side sent to process @pid so far (0 when none). */
typedef uint64_t (*gr_holds_sent_fn)(void *ctx, uint32_t pid);
/* Send @sig to process @pid. */
typedef void (*gr_holds_signal_fn)(void *ctx, uint32_t pid, int sig);

struct gr_holds {
	gr_holds_sent_fn sent; /* NULL: holds are not counted, every release resumes */
	gr_holds_signal_fn signal;
	void *ctx;
	struct gr_u64map handled; /* pid -> held events handled since its last forget */
};

/* Counted from the BPF map @holds_fd (key u32 tgid, value u64), signalled with kill(2). */
void gr_holds_init(struct gr_holds *h, int holds_fd);

/* Counted and signalled through @sent and @signal (tests). */
void gr_holds_init_with(struct gr_holds *h, gr_holds_sent_fn sent, gr_holds_signal_fn signal,
			void *ctx);

/*
 * A held event of @pid is handled: resume it when it was the last hold sent. Returns 1 when it
 * was resumed, 0 when another held event is still to come (the process stays stopped).
 */
int gr_holds_release(struct gr_holds *h, uint32_t pid);

/* The last thread of @pid exited: the BPF side forgot its count, and its pid may be reused. */
void gr_holds_forget(struct gr_holds *h, uint32_t pid);

void gr_holds_free(struct gr_holds *h);

/*
 * Tests: wait GPUREC_TEST_HOLD_DELAY_MS milliseconds (none when unset), called before a held
 * event is handled, so that a test sees what a recorder slowed by a busy machine does.
 */
void gr_holds_test_delay(void);

#endif
