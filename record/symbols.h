/* SPDX-License-Identifier: MIT */
/*
 * What names the events, written as it is learned: the path of every CUDA library as soon as it
 * is probed, the symbol of every stack frame and the name of every launched function that no
 * registration named when the event that references it is first translated, and the path and
 * build-id of each mapping those point into. A record that names something is appended before
 * the first record that needs it, so it lies in the same chunk or an earlier one: a file cut
 * anywhere keeps, for every complete chunk, the names that explain it (docs/FORMAT.md, 10).
 * At the end of the recording, while the files are still open (even if deleted since), one
 * pass adds only what is still missing: names that could not be resolved when first seen, and
 * the mappings of every process that maps a referenced or probed file.
 *
 * Owns what it has written (so nothing is written twice). Reads discovery's tables
 * (record/discover.h) and writes through the trace writer. translate.c holds one (struct
 * gr_translate) and calls it as events arrive; record.c calls it after a -p attach and at the end.
 *
 * Cost: a hash lookup per new (pid, address); symbol lookups happen once per distinct frame or
 * function, never per event; so do source line lookups (record/lines.h), whose line tables are
 * opened at a file's first frame.
 */
#ifndef GR_RECORD_SYMBOLS_H
#define GR_RECORD_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct gr_trace_writer;
struct gr_procs;
struct gr_refs;

struct gr_symbols {
	/* the caller's, given to gr_symbols_init() */
	struct gr_trace_writer *w;
	struct gr_procs *procs;

	struct gr_u64map mapped;     /* key(pid, start, end) -> 1 once its MAPPING is written */
	struct gr_u64map symbolized; /* key(pid, frame) -> 1 once its SYMBOL is written */
	struct gr_u64map referenced; /* struct gr_file * -> 1: an event points into it */
	size_t files_seen;	     /* discovery's files examined for library names so far */
	/* struct gr_file * -> its struct gr_lines *, or 1: it has no line tables */
	struct gr_u64map lines;
};

/* Longest source path a SYMBOL carries: a longer one is left out (the frame keeps its symbol). */
#define GR_SYM_FILE_MAX 4096

/* Start with nothing written. Cannot fail. */
void gr_symbols_init(struct gr_symbols *s, struct gr_trace_writer *w, struct gr_procs *procs);

/*
 * After discovery examined new files (a scan of @pid): a NAME (class LIBRARY) for each file
 * found since the last call that got probes, with @pid's mappings of it, and a NAME (class
 * UNPROBED) for each that runs CUDA code through a runtime of its own, stamped @ts. Returns 0
 * or the writer's negative error.
 */
int gr_symbols_libraries(struct gr_symbols *s, uint64_t ts, uint32_t pid);

/*
 * A stack frame seen for the first time: its SYMBOL and the MAPPING it lies in, stamped @ts.
 * A frame is a return address, named by the byte before it (in its call: a call to a function
 * that never returns can be the last instruction of its function, and the address after it the
 * next function's first), unless @addr has GR_SYM_LEAF_PC set: the innermost frame of a
 * scheduler stack, where the thread stopped, named as it is. The SYMBOL's address is @addr
 * without the flag. Returns 0 (written, or not resolvable now: the end retries), or the
 * writer's negative error.
 */
#define GR_SYM_LEAF_PC (1ull << 62) /* no user address reaches it; bit 63 is GR_FRAME_PYTHON */
int gr_symbols_frame(struct gr_symbols *s, uint64_t ts, uint32_t pid, uint64_t addr);

/*
 * A launched function no registration named: a NAME (class KERNEL, and KERNEL_RAW when the
 * demangled name differs) from the symbol at @func, and its MAPPING, stamped @ts. Returns 1
 * when named, 0 when it cannot be resolved now (the end retries), or the writer's negative
 * error.
 */
int gr_symbols_function(struct gr_symbols *s, uint64_t ts, uint32_t pid, uint64_t func);

/*
 * The end of the recording: what @refs references and is still unnamed (functions not in
 * @refs->named, frames without a SYMBOL), the MAPPING of every process's mapping of a
 * referenced or probed file, and a NAME for every probed library, each written once, stamped
 * @ts. Counts each function and frame it names as progress (analyze/util/progress.h: the
 * caller begins and ends it). Returns 0 or the writer's negative error at the first record it
 * could not write.
 */
int gr_symbols_finish(struct gr_symbols *s, const struct gr_refs *refs, uint64_t ts);

/*
 * Files of the user's code (not the system's libraries, not CUDA's) that held a symbolised
 * frame and have no line tables (host code built without -g, or stripped): their frames
 * read function+offset. Returns how many; the first @max paths go to @paths (owned by
 * discovery). `record` names them once, at the end.
 */
size_t gr_symbols_lineless(const struct gr_symbols *s, const char **paths, size_t max);

/* Free what it remembers; @s is zeroed. */
void gr_symbols_free(struct gr_symbols *s);

#endif
