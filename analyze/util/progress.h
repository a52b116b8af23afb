/* SPDX-License-Identifier: MIT */
/*
 * Progress of long work on stderr, as perf and zstd show it: "gpurec CMD: WHAT: 45.2M of 100M
 * events (45%), 12.3M/s, about 4 s left", redrawn in place a few times a second by a thread of
 * its own once the work has run GR_PROGRESS_AFTER_MS. Only when stderr is a terminal and the
 * command was not given -q: never a byte otherwise, so a pipe or a log file reads as before.
 *
 * One piece of work at a time per process: begin() names it (a new begin() replaces the last),
 * add() counts what is done, from any thread, and end() clears the line. Whatever a command
 * prints on a terminal (its output, an error, a warning) goes after end(), or the line is
 * overwritten by it midway: gr_progress_end() before each such print.
 */
#ifndef GR_ANALYZE_PROGRESS_H
#define GR_ANALYZE_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

/* How long work runs before its progress shows; GPUREC_PROGRESS_AFTER_MS sets it (tests). */
#define GR_PROGRESS_AFTER_MS 2000

/*
 * Whether this command shows progress at all: @cmd names it in the line ("report"); @quiet is
 * -q. Call once, before the first begin(); without it nothing is ever shown.
 */
void gr_progress_init(const char *cmd, int quiet);

/*
 * Start (or move on to) the work @what, of @total units (0: not known ahead; the line then says
 * how long it has run), named @unit ("events", "traces").
 */
void gr_progress_begin(const char *what, uint64_t total, const char *unit);

/* While @quiet, this thread's begin(), add() and end() do nothing: a worker of work that counts
 * its own pieces (a job's traces), whose loads would otherwise replace its line. */
void gr_progress_quiet_thread(int quiet);

/* @n more units done. Cheap: one atomic add. */
void gr_progress_add(uint64_t n);

/* The work is over: the line, if one is shown, is cleared. */
void gr_progress_end(void);

/*
 * The line for @what after @elapsed_ns with @done of @total @unit done, into @out (@size bytes):
 * apart from the clock and the terminal, for tests.
 */
void gr_progress_format(char *out, size_t size, const char *cmd, const char *what, uint64_t done,
			uint64_t total, const char *unit, uint64_t elapsed_ns);

#endif
