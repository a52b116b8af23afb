/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a code object's line table, as record/python/pyresolve.c reads it from a traced
 * process (hostile: the object may be freed or rewritten while it is read), through
 * gr_py_lines_decode() and gr_py_lines_find().
 *
 * Input: byte 0 bit 0: the 3.10 format (else 3.11+); bytes 1..4 co_firstlineno (little-endian
 * int32); the rest the table.
 *
 * Invariants: a table decodes or is -EINVAL, nothing else; decoded, the ranges are sorted, not
 * empty, not overlapping, with lines from 1, and end no further than the table can reach (3.11+:
 * 8 code units per byte; 3.10: 255 bytes per pair); gr_py_lines_find() gives every code unit
 * the line of the range that holds it, 0 outside them; decoding twice gives the same ranges.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "record/python/pylines.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t hex, reach, unit = 0;
	struct gr_py_lines l, again;
	int32_t first = 0;
	int err;

	if (size < 5)
		return 0;
	hex = data[0] & 1 ? 0x030a0df0 : 0x030c01f0;
	memcpy(&first, data + 1, sizeof(first));
	data += 5;
	size -= 5;
	err = gr_py_lines_decode(data, size, hex, first, &l);
	FUZZ_ASSERT(err == 0 || err == -EINVAL);
	if (err)
		return 0;
	reach = hex < 0x030b0000 ? (uint32_t)(size / 2 * 255 + 1) / 2 : (uint32_t)size * 8;
	for (uint32_t i = 0; i < l.n; i++) {
		const struct gr_py_line_range *r = &l.ranges[i];

		FUZZ_ASSERT(r->start < r->end && r->end <= reach && r->line >= 1);
		FUZZ_ASSERT(i == 0 || l.ranges[i - 1].end <= r->start);
		for (; unit < r->start; unit++)
			FUZZ_ASSERT(gr_py_lines_find(&l, unit) == 0);
		for (; unit < r->end && unit < r->start + 64; unit++)
			FUZZ_ASSERT(gr_py_lines_find(&l, unit) == r->line);
		unit = r->end;
		FUZZ_ASSERT(gr_py_lines_find(&l, r->end - 1) == r->line);
	}
	FUZZ_ASSERT(gr_py_lines_find(&l, unit) == 0 && gr_py_lines_find(&l, UINT32_MAX) == 0);
	FUZZ_ASSERT(gr_py_lines_decode(data, size, hex, first, &again) == 0);
	FUZZ_ASSERT(again.n == l.n &&
		    (!l.n || !memcmp(again.ranges, l.ranges, l.n * sizeof(*l.ranges))));
	gr_py_lines_free(&again);
	gr_py_lines_free(&l);
	return 0;
}
