/* SPDX-License-Identifier: MIT */
/*
 * SIGINT, SIGTERM and SIGHUP sent to the recorder, and which of them the traced command must
 * get from us: only what it would not get by itself. A terminal's Ctrl-C reaches the whole
 * foreground process group, the command included; a kill of the process group (kill -INT -PGID,
 * job schedulers) too; coreutils timeout kills us, then the group. What was sent to the
 * recorder alone is passed on, once.
 *
 * A signal ignored by whoever started gpurec (nohup's SIGHUP, SIGINT in a shell's background
 * job) stays ignored by the recorder, as by the command: the recording goes on, as the command
 * does, and nothing is passed on. The command starts with the dispositions and signal mask gpurec
 * was started with, as it would without gpurec.
 */
#ifndef GR_RECORD_FORWARD_H
#define GR_RECORD_FORWARD_H

#include <stdint.h>
#include <sys/types.h>

/*
 * How long after the recorder got a signal the command may still get the same one from the
 * same sender by itself (timeout's second kill follows its first within microseconds): a signal
 * for the recorder alone is passed on this late.
 */
#define GR_FORWARD_WINDOW_NS 200000000ull

struct gr_forward;

/*
 * First thing of a recording: remember the dispositions of SIGINT, SIGTERM and SIGHUP and the
 * signal mask, and catch those three signals unless they were ignored. From then on a stop
 * signal ends nothing by itself: the recorder asks gr_forward_stop_signal() when to stop.
 */
void gr_forward_init(void);

/* In the command's child, just before its exec: the dispositions and mask gr_forward_init() saw. */
void gr_forward_restore(void);

/*
 * Hold the three signals back (blocked) while the trace is created and the command started, so
 * that one arriving then is handled with the command running, never between the two. Returns
 * the stop signal received before the hold (0: none): the caller then stops, having created
 * nothing. gr_forward_unhold() delivers what came meanwhile.
 */
int gr_forward_hold(void);
void gr_forward_unhold(void);

/* "SIGINT", "SIGTERM" or "SIGHUP". */
const char *gr_forward_signal_name(int sig);

/*
 * Load the BPF side that sees which signals reach the command. Returns 0 and sets *@out, or a
 * negative error (no BPF: *@out is still set, and every signal sent by a process is passed on,
 * as it could not be told apart).
 */
int gr_forward_open(struct gr_forward **out);

/* The command's pid, once forked (before it runs). */
void gr_forward_set_command(struct gr_forward *f, pid_t pid);

/* The last of SIGINT, SIGTERM and SIGHUP received (0: none): with -p, these end the recording. */
int gr_forward_stop_signal(void);

/* Pass on to the command what is due at @now_ns (CLOCK_MONOTONIC); call it from the loop. */
void gr_forward_due(struct gr_forward *f, uint64_t now_ns);

/* Nanoseconds until the next pass-on is due, or 0 when none is pending. */
uint64_t gr_forward_next_ns(const struct gr_forward *f, uint64_t now_ns);

void gr_forward_close(struct gr_forward *f);

#endif
