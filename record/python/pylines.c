/* SPDX-License-Identifier: MIT */
/*
 * Decoders written from CPython's own descriptions of its formats: Objects/lnotab_notes.txt
 * (3.10) and Objects/locations.md (3.11+). Every count and byte is bounds-checked: the table
 * comes from another process's memory and may be garbage.
 */
#include <errno.h>
#include <stdlib.h>

#include "pylines.h"

/* Lines beyond this are taken as a corrupt table (CPython's are C ints; no source is longer). */
#define MAX_LINE 100000000

/* Collects ranges, joining a run to the previous one when it continues it on the same line. */
struct builder {
	struct gr_py_lines *l;
	uint32_t cap;
};

static int add(struct builder *b, uint64_t start, uint64_t end, int64_t line)
{
	struct gr_py_lines *l = b->l;
	struct gr_py_line_range *last = l->n ? &l->ranges[l->n - 1] : NULL;

	if (line <= 0 || start == end) /* no line (or none a report can show), or empty */
		return 0;
	if (line > MAX_LINE || end > UINT32_MAX)
		return -EINVAL;
	if (last && last->end == start && last->line == line) {
		last->end = end;
		return 0;
	}
	if (l->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 16;
		struct gr_py_line_range *r = realloc(l->ranges, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		l->ranges = r;
		b->cap = cap;
	}
	l->ranges[l->n++] =
	    (struct gr_py_line_range){(uint32_t)start, (uint32_t)end, (uint32_t)line};
	return 0;
}

/*
 * 3.10 (PEP 626): pairs of (unsigned byte: bytes of code covered, signed byte: line delta),
 * -128 meaning the bytes have no line. A pair with delta 0 continues the previous line; long
 * runs and large deltas are split over several pairs. Offsets are in bytes, two per code unit.
 */
static int decode_310(const uint8_t *t, size_t size, int64_t line, struct builder *b)
{
	uint64_t end = 0;
	int err = 0;

	if (size % 2)
		return -EINVAL;
	for (size_t i = 0; i < size && !err; i += 2) {
		uint64_t start = end;
		int8_t delta = (int8_t)t[i + 1];
		int64_t here = -1;

		end += t[i];
		if (delta != -128) {
			line += delta;
			here = line;
		}
		/* a run's byte bounds are even; a code unit is on the line of its first byte */
		err = add(b, (start + 1) / 2, (end + 1) / 2, here);
	}
	return err;
}

/* An unsigned varint: 6-bit chunks, least significant first, bit 6 set on all but the last. */
static int varint(const uint8_t *t, size_t size, size_t *i, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 36; shift += 6) {
		if (*i >= size || t[*i] & 0x80) /* cut short, or the next entry began */
			return -EINVAL;
		v |= (uint64_t)(t[*i] & 0x3f) << shift;
		if (!(t[(*i)++] & 0x40)) {
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

/* A signed varint: the unsigned one's bit 0 is the sign, the rest the magnitude. */
static int svarint(const uint8_t *t, size_t size, size_t *i, int64_t *out)
{
	uint64_t v;
	int err = varint(t, size, i, &v);

	if (!err)
		*out = v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
	return err;
}

/* Skips @n bytes that belong to the current entry (columns the line does not need). */
static int skip(const uint8_t *t, size_t size, size_t *i, unsigned n)
{
	for (; n; n--, (*i)++)
		if (*i >= size || t[*i] & 0x80)
			return -EINVAL;
	return 0;
}

/*
 * 3.11+ (PEP 657): entries of one header byte (bit 7 set, a 4-bit code, the code units covered
 * minus one) then the code's bytes. The start line is a delta from the last entry that had one
 * (co_firstlineno at first); columns are skipped.
 */
static int decode_311(const uint8_t *t, size_t size, int64_t line, struct builder *b)
{
	uint64_t unit = 0;
	size_t i = 0;
	int err = 0;

	while (i < size && !err) {
		uint8_t head = t[i++];
		unsigned code = head >> 3 & 15, units = (head & 7) + 1;
		int64_t here = -1, delta = 0;
		uint64_t ignored;

		if (!(head & 0x80))
			return -EINVAL;
		if (code <= 9) { /* short form: same line, one byte of columns */
			err = skip(t, size, &i, 1);
			here = line;
		} else if (code <= 12) { /* one-line form: delta in the code, two column bytes */
			err = skip(t, size, &i, 2);
			line += code - 10;
			here = line;
		} else if (code == 13) { /* no columns */
			err = svarint(t, size, &i, &delta);
			line += delta;
			here = line;
		} else if (code == 14) { /* long form: line delta, end line delta, two columns */
			err = svarint(t, size, &i, &delta);
			for (int k = 0; k < 3 && !err; k++)
				err = varint(t, size, &i, &ignored);
			line += delta;
			here = line;
		} /* 15: no location */
		if (line < -MAX_LINE || line > MAX_LINE)
			return -EINVAL;
		if (!err)
			err = add(b, unit, unit + units, here);
		unit += units;
	}
	return err;
}

int gr_py_lines_decode(const uint8_t *table, size_t size, uint32_t hexversion, int32_t firstlineno,
		       struct gr_py_lines *out)
{
	struct builder b = {.l = out};
	int err;

	*out = (struct gr_py_lines){0};
	if (hexversion < 0x030b0000)
		err = decode_310(table, size, firstlineno, &b);
	else
		err = decode_311(table, size, firstlineno, &b);
	if (err)
		gr_py_lines_free(out);
	return err;
}

uint32_t gr_py_lines_find(const struct gr_py_lines *l, uint32_t lasti)
{
	uint32_t lo = 0, hi = l->n;

	while (lo < hi) { /* the first range that ends after lasti */
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->ranges[mid].end <= lasti)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->ranges[lo].start <= lasti ? l->ranges[lo].line : 0;
}

void gr_py_lines_free(struct gr_py_lines *l)
{
	free(l->ranges);
	*l = (struct gr_py_lines){0};
}
