/* SPDX-License-Identifier: MIT */
/*
 * LEB128 (unsigned, 7 bits per byte, least significant group first, high bit = more bytes
 * follow) and zigzag (signed -> unsigned: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...). A u64 takes at
 * most GR_LEB_MAX bytes; the decoder accepts over-long encodings up to that length but never a
 * value that does not fit 64 bits.
 */
#ifndef GR_FORMAT_VARINT_H
#define GR_FORMAT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define GR_LEB_MAX 10

static inline unsigned gr_leb_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes the encoding of @v at @p (room for GR_LEB_MAX bytes); returns the end. */
static inline uint8_t *gr_leb_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * Reads one value from [*@pp, @end) into *@v and advances *@pp. Returns 0, GR_ERR_TRUNCATED
 * when the bytes end inside the value, or GR_ERR_CORRUPT when it has more than 64 bits.
 */
static inline int gr_leb_get(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	unsigned shift = 0;
	uint8_t b;

	for (;;) {
		if (p >= end)
			return GR_ERR_TRUNCATED;
		b = *p++;
		if (shift == 63 && b > 1)
			return GR_ERR_CORRUPT;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80)
			break;
		shift += 7;
	}
	*pp = p;
	*v = r;
	return 0;
}

static inline uint64_t gr_zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t gr_unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

#endif
