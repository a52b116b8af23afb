/* SPDX-License-Identifier: MIT */
/*
 * What every command's getopt_long loop shares: one spelling for usage errors, starting with
 * "gpurec CMD:" whatever argv[0] is (tests call the commands directly), and the parsers of the
 * values several commands take. Everything here prints its own message to stderr.
 */
#ifndef GR_ANALYZE_OPTIONS_H
#define GR_ANALYZE_OPTIONS_H

#include <stdint.h>

#include <getopt.h>

/*
 * Start a getopt_long() parse: resets getopt's state (commands run more than once in a process
 * in tests) and silences its messages, which gr_opt_error() writes instead.
 */
void gr_opt_begin(void);

/*
 * Explain the '?' or ':' getopt_long() just returned (@optstring must start with ':', after any
 * '+'): "gpurec CMD: unknown option '--x'" or "gpurec CMD: option '--x' needs a value".
 */
void gr_opt_error(const char *cmd, int c, char **argv);

/*
 * @arg as a positive integer no larger than @max, into *@v. Returns 0, or -EINVAL after
 * "gpurec CMD: OPT 'ARG': a number from 1 to MAX is needed".
 */
int gr_opt_count(const char *cmd, const char *opt, const char *arg, unsigned long max,
		 unsigned long *v);

/*
 * The trace files left after the options (argv[optind..]) into @paths (at most @max; a file
 * named with -i already in paths[0] counts). Returns how many, or -EINVAL after "gpurec CMD: one
 * trace file at a time ('x')" / "... two traces at most ('x')".
 */
int gr_opt_paths(const char *cmd, int argc, char **argv, const char **paths, int have, int max);

/* -j N / --jobs N: worker threads for loading, 1..1024, into *@jobs. Returns 0 or -EINVAL after
 * the message. */
int gr_opt_jobs(const char *cmd, const char *arg, unsigned *jobs);

/*
 * --max-events N: a number >= 0, with an optional k, M or G (x 1000, x 10^6, x 10^9), into
 * *@max; 0 means no limit. Returns 0, or -EINVAL after "gpurec CMD: --max-events 'ARG': a
 * number of events is needed (0 = no limit; 200M = 200 million)".
 */
int gr_opt_max_events(const char *cmd, const char *arg, uint64_t *max);

/*
 * The output options of report and diff: --html needs -o PAGE (a page on a terminal is of no use),
 * never goes with --json, and -o is for --html alone. Prints the error; returns 0 or -EINVAL.
 */
int gr_opt_html(const char *cmd, int html, int json, const char *out);

#endif
