/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: /proc/PID/maps as record/discover.c reads it, as root, from a traced process that
 * names the paths in it (a directory may be called "400000-401000 r-xp 0 08:01 12 /x"). The input
 * is the file: it is cut into lines as getline() cuts them, each parsed by
 * gr_discover_parse_line() from a buffer of its own exact size.
 *
 * Invariants: the parser says 1 or 0; for 1, start <= end, the inode is not 0 and the path is an
 * absolute one inside the line, NUL-terminated inside it, with no newline. Printed back in the
 * kernel's format, the mapping parses again to the same fields (when its device number fits the
 * format's two fields).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/discover.h"
#include "tests/fuzz/fuzz.h"

static void check_line(const uint8_t *p, size_t len)
{
	char *line = malloc(len + 1), *again = NULL;
	struct gr_maps_line ml, ml2;
	size_t plen;
	int r;

	FUZZ_ASSERT(line);
	memcpy(line, p, len);
	line[len] = 0;
	r = gr_discover_parse_line(line, &ml);
	FUZZ_ASSERT(r == 0 || r == 1);
	if (r == 0)
		goto out;
	FUZZ_ASSERT(ml.start <= ml.end);
	FUZZ_ASSERT(ml.ino != 0);
	FUZZ_ASSERT(ml.path > line && ml.path < line + len);
	plen = strlen(ml.path);
	FUZZ_ASSERT(ml.path + plen <= line + len);
	FUZZ_ASSERT(ml.path[0] == '/' && !memchr(ml.path, '\n', plen));
	if (ml.dev >> 20 > UINT32_MAX)
		goto out;
	FUZZ_ASSERT(asprintf(&again,
			     "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " %02" PRIx64 ":%02" PRIx64
			     " %" PRIu64 "    %s\n",
			     ml.start, ml.end, ml.pgoff, ml.dev >> 20, ml.dev & 0xfffff, ml.ino,
			     ml.path) > 0);
	FUZZ_ASSERT(gr_discover_parse_line(again, &ml2) == 1);
	FUZZ_ASSERT(ml2.start == ml.start && ml2.end == ml.end && ml2.pgoff == ml.pgoff);
	FUZZ_ASSERT(ml2.dev == ml.dev && ml2.ino == ml.ino && !strcmp(ml2.path, ml.path));
out:
	free(again);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* getline(): each line with its newline; the last may lack one */
	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) + 1 : size - at;

		check_line(data + at, len);
		at += len;
	}
	return 0;
}
