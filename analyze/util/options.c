/* SPDX-License-Identifier: MIT */
/* Shared parts of the commands' option parsing (options.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

void gr_opt_begin(void)
{
	optind = 0; /* glibc: 0 re-initialises, including its permutation state */
	opterr = 0;
}

void gr_opt_error(const char *cmd, int c, char **argv)
{
	/* getopt leaves optind past the offending word (and past a long option's missing value) */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	char name[3] = {'-', (char)optopt, 0};
	const char *opt = strncmp(word, "--", 2) && optopt ? name : word;

	if (c == ':')
		fprintf(stderr, "gpurec %s: option '%s' needs a value\n", cmd, opt);
	else
		fprintf(stderr, "gpurec %s: unknown option '%s'\n", cmd, opt);
}

int gr_opt_count(const char *cmd, const char *opt, const char *arg, unsigned long max,
		 unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !*v || *v > max || arg[0] == '-') {
		fprintf(stderr, "gpurec %s: %s '%s': a number from 1 to %lu is needed\n", cmd, opt,
			arg, max);
		return -EINVAL;
	}
	return 0;
}

int gr_opt_paths(const char *cmd, int argc, char **argv, const char **paths, int have, int max)
{
	for (; optind < argc; optind++) {
		if (have == max) {
			if (max == 1)
				fprintf(stderr, "gpurec %s: one trace file at a time ('%s')\n", cmd,
					argv[optind]);
			else
				fprintf(stderr, "gpurec %s: %d traces at most ('%s')\n", cmd, max,
					argv[optind]);
			return -EINVAL;
		}
		paths[have++] = argv[optind];
	}
	return have;
}

int gr_opt_jobs(const char *cmd, const char *arg, unsigned *jobs)
{
	unsigned long v;

	if (gr_opt_count(cmd, "--jobs", arg, 1024, &v))
		return -EINVAL;
	*jobs = (unsigned)v;
	return 0;
}

int gr_opt_max_events(const char *cmd, const char *arg, uint64_t *max)
{
	static const struct {
		char suffix;
		unsigned long long mult;
	} units[] = {{'k', 1000ull}, {'K', 1000ull}, {'M', 1000000ull}, {'G', 1000000000ull}};
	unsigned long long v, mult = 1;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	for (size_t i = 0; end != arg && *end && i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].suffix) {
			mult = units[i].mult;
			end++;
			break;
		}
	if (errno || !isdigit((unsigned char)arg[0]) || *end || v > UINT64_MAX / mult) {
		fprintf(stderr,
			"gpurec %s: --max-events '%s': a number of events is needed (0 = no limit; "
			"200M = 200 million)\n",
			cmd, arg);
		return -EINVAL;
	}
	*max = v * mult;
	return 0;
}

int gr_opt_html(const char *cmd, int html, int json, const char *out)
{
	if (html && json)
		fprintf(stderr, "gpurec %s: --html and --json: give one of them\n", cmd);
	else if (html && !out)
		fprintf(stderr,
			"gpurec %s: --html needs -o PAGE, the file to write (a page on a terminal "
			"is of no use)\n",
			cmd);
	else if (!html && out)
		fprintf(stderr,
			"gpurec %s: -o is for --html: text and --json go to standard output\n",
			cmd);
	else
		return 0;
	return -EINVAL;
}
