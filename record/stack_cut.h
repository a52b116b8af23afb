/* SPDX-License-Identifier: MIT */
/*
 * Frame-pointer stacks through code built without frame pointers: the BPF walk follows rbp
 * wherever it points and takes the words it finds there for return addresses. A frame outside
 * every executable mapping of its process is such a word: the stack ends before it. Counts, per
 * binary that held the last good frame, how many stacks ended that way, so `record` can say once
 * which binaries lack frame pointers.
 *
 * translate.c cuts every new stack before it is written; record.c prints the summary at the end.
 * The replay side applies the same rule to traces recorded before it (analyze/model/model.c).
 */
#ifndef GR_RECORD_STACK_CUT_H
#define GR_RECORD_STACK_CUT_H

#include <stdint.h>
#include <stdio.h>

#include "u64map.h"

struct gr_procs;

struct gr_stack_cuts {
	struct gr_u64map by_file; /* struct gr_file * -> stacks cut after a frame in it */
};

/*
 * How many of @frames (innermost first) of @pid to keep: up to the first frame past the
 * innermost that no executable file mapping of @pid holds (the innermost is the probed
 * function's own address or its return address, always code). Counts the cut against the file
 * of the last kept frame. Cannot fail.
 */
unsigned gr_stack_cut(struct gr_stack_cuts *c, struct gr_procs *procs, uint32_t pid,
		      const uint64_t *frames, unsigned n);

/*
 * Say once on @f which binaries' stacks ended early, and that --call-graph dwarf gives their
 * full stacks; nothing when none did. Returns the number of binaries named.
 */
int gr_stack_cuts_report(const struct gr_stack_cuts *c, FILE *f);

/* Free what it holds; @c is zeroed. */
void gr_stack_cuts_free(struct gr_stack_cuts *c);

#endif
