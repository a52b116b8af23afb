/* SPDX-License-Identifier: MIT */
/*
 * What a damaged trace lost, said the same way by every command: one line on stderr when a
 * trace is loaded (load.c), the `integrity` object of every --json output, and the facts the
 * text outputs need to mark their figures as lower bounds and to not claim what the damage hid
 * ("no CUDA library was loaded" when the library names were in the part that is gone).
 *
 * Damage is what the reader found (docs/FORMAT.md, section 7): no footer (the recording did not
 * finish: recorder killed, disk full, machine lost, file cut), bad chunks, bytes after the last
 * good chunk (a partial chunk, dropped). A file with its footer and every chunk good is whole,
 * with or without a session-end fact (test generators write none; gpurec record always does).
 */
#ifndef GR_ANALYZE_DAMAGE_H
#define GR_ANALYZE_DAMAGE_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/util/json.h"
#include "model.h"

struct gr_damage {
	int damaged;	     /* any of the below: figures are lower bounds */
	int truncated;	     /* no footer: the file ends where the recording was cut short */
	int session_end;     /* the recorder's closing facts are in the file */
	uint64_t file_bytes; /* where the file ends (the cut, when truncated) */
	uint64_t chunks_kept;
	uint64_t chunks_bad;
	uint64_t chunks_repeated;     /* of chunks_bad: copies of a chunk already read */
	uint64_t chunks_out_of_order; /* read where they lie, after a later one */
	uint64_t partial_offset;      /* where the dropped partial chunk starts; 0 when none */
	uint64_t partial_bytes;	      /* its bytes present (bytes_unread) */
	/* names the damage took: events kept whose names were in the part that is gone */
	uint64_t unnamed_kernels; /* kernels launched with no name in the trace */
	int libraries_lost;	  /* CUDA calls kept, but no CUDA library named */
	int lower_bounds;	  /* damaged, or events lost while recording */
};

/* The damage of the trace @m was loaded from. Cannot fail. */
void gr_damage_of(const struct gr_model *m, struct gr_damage *d);

/*
 * When @d is damaged, one line on @f: "gpurec CMD: PATH: damaged: ...; N chunks kept ...;
 * figures are lower bounds". Nothing for a whole trace.
 */
void gr_damage_warn(FILE *f, const char *cmd, const char *path, const struct gr_damage *d);

/*
 * The "integrity" member (key and object) of the JSON object open in @j: the reader's
 * integrity (complete, footer_present, file_bytes, chunks_ok, chunks_bad, bytes_unread,
 * first_problem) and what gr_damage_of() makes of it. Schema: docs/REPORTS.md.
 */
void gr_damage_json(struct gr_json *j, const struct gr_model *m);

#endif
