/* SPDX-License-Identifier: MIT */
/*
 * --call-graph dwarf: turn the registers and stack bytes the BPF side copied at an event into
 * return addresses, with the DWARF CFI (.eh_frame) of the files the process maps, while the
 * recorder still holds those files open. Owns one libdwfl session per traced process, built
 * from the discovery table (record/discover.h) and cached.
 *
 * record.c creates it for --call-graph dwarf and reports its cost at the end; translate.c
 * unwinds each raw stack and drops a process when it exits.
 */
#ifndef GR_RECORD_UNWIND_H
#define GR_RECORD_UNWIND_H

#include <stdint.h>

struct gr_unwind;
struct gr_procs;
struct gr_ev_rawstack;

/* What unwinding cost so far. */
struct gr_unwind_stats {
	uint64_t stacks;   /* raw stacks unwound */
	uint64_t frames;   /* frames found in them */
	uint64_t ns;	   /* CLOCK_MONOTONIC time spent, reporting modules included */
	uint64_t sessions; /* per-process libdwfl sessions built (a process, or its new layout) */
};

/* A new unwinder, no process known yet. Returns 0 or -ENOMEM. */
int gr_unwind_new(struct gr_unwind **out);

/* Free it with every cached process and the files it opened (NULL is accepted). */
void gr_unwind_free(struct gr_unwind *u);

/*
 * Unwind the raw stack @r, whose r->size stack bytes follow it, of thread @tid in @pid, with the
 * files of @pid in the discovery table @procs (record/discover.h). Writes at most @max return
 * addresses to @frames, innermost first, as the frame-pointer walk does: when @r was taken at a
 * function's entry, the called function itself is left out. Returns the number written; 0 when
 * nothing could be unwound (no mapping, no CFI). *@needed: how many of the stack bytes an
 * unwinder with the same files needs, those up to the last one read when the walk reached the
 * outermost frame, else all r->size. Per-process libdwfl sessions are cached and extended as
 * the process maps new files.
 */
unsigned gr_unwind_stack(struct gr_unwind *u, struct gr_procs *procs, uint32_t pid, uint32_t tid,
			 const struct gr_ev_rawstack *r, uint64_t *frames, unsigned max,
			 uint32_t *needed);

/* Drop what is cached for @pid (it exited): its files are closed. */
void gr_unwind_forget(struct gr_unwind *u, uint32_t pid);

void gr_unwind_get_stats(const struct gr_unwind *u, struct gr_unwind_stats *st);

#endif
