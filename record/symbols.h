/* SPDX-License-Identifier: MIT */
/*
 * At the end of a recording, while the files are still open (even if deleted since), embed
 * what replay needs on a machine that never saw them: a name for every launched function that
 * no registration named, a symbol for every stack frame, and the path and build-id of every
 * mapping those point into. Owns nothing beyond the call: it reads what translate.c collected
 * (struct gr_refs) and discovery's tables, and writes through the trace writer.
 *
 * Called by record.c once, after the last drain and before the footer.
 */
#ifndef GR_RECORD_SYMBOLS_H
#define GR_RECORD_SYMBOLS_H

#include <stdint.h>

struct gr_trace_writer;
struct gr_procs;
struct gr_refs;

/*
 * Write NAME, SYMBOL and MAPPING records, stamped @ts, for what @refs references in the
 * processes of @procs, and a NAME for every probed library. Returns 0 or the writer's negative
 * error (GR_ERR_* or -errno) at the first record it could not write.
 */
int gr_symbols_embed(struct gr_trace_writer *w, struct gr_procs *procs, const struct gr_refs *refs,
		     uint64_t ts);

#endif
