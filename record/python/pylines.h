/* SPDX-License-Identifier: MIT */
/*
 * CPython's line tables (a code object's co_linetable) decoded into the line of each
 * instruction: 3.10's PEP 626 table of (byte delta, line delta) pairs, and 3.11+'s PEP 657
 * location table of variable-length entries counted in code units. Pure decoding, no process:
 * record/python/pyresolve.c reads the table, this says which line an instruction is on.
 */
#ifndef GR_RECORD_PYLINES_H
#define GR_RECORD_PYLINES_H

#include <stddef.h>
#include <stdint.h>

/* One run of instructions on one line: code units [start, end). */
struct gr_py_line_range {
	uint32_t start, end, line;
};

/* A decoded table: ranges sorted by start, not overlapping, only those with a line. */
struct gr_py_lines {
	struct gr_py_line_range *ranges;
	uint32_t n;
};

/*
 * Decodes the line table @table (@size bytes) of a code object whose first line is
 * @firstlineno, in the format of CPython @hexversion (PY_VERSION_HEX). Returns 0 and @out
 * (free with gr_py_lines_free()), -EINVAL when the table is malformed (an entry cut short, a
 * varint too long, a line out of range), or -ENOMEM.
 */
int gr_py_lines_decode(const uint8_t *table, size_t size, uint32_t hexversion, int32_t firstlineno,
		       struct gr_py_lines *out);

/* The line of the instruction at @lasti (code units from the first), or 0 when it has none. */
uint32_t gr_py_lines_find(const struct gr_py_lines *l, uint32_t lasti);

void gr_py_lines_free(struct gr_py_lines *l);

#endif
