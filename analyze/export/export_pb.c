/* SPDX-License-Identifier: MIT */
/* Protocol buffers wire-format writer (see export_pb.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export_pb.h"

/* Room left for a nested message's length: one byte, enough for most (< 128 bytes). */
#define LEN_ROOM 1

void gr_pb_init(struct gr_pb *b)
{
	memset(b, 0, sizeof(*b));
}

void gr_pb_free(struct gr_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Room for @n more bytes; 0 or the sticky error. */
static int reserve(struct gr_pb *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (b->len + n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void gr_pb_raw_varint_grow(struct gr_pb *b, uint64_t v)
{
	if (reserve(b, 10))
		return;
	b->len += put_varint(b->p + b->len, v);
}

void gr_pb_raw(struct gr_pb *b, const void *p, size_t n)
{
	if (!n || reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void tag(struct gr_pb *b, uint32_t field, unsigned wire)
{
	gr_pb_raw_varint(b, (uint64_t)field << 3 | wire);
}

void gr_pb_fixed64(struct gr_pb *b, uint32_t field, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> 8 * i);
	tag(b, field, GR_PB_FIXED64);
	gr_pb_raw(b, le, sizeof(le));
}

void gr_pb_double(struct gr_pb *b, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	gr_pb_fixed64(b, field, bits);
}

void gr_pb_bytes(struct gr_pb *b, uint32_t field, const void *p, size_t n)
{
	tag(b, field, GR_PB_LEN);
	gr_pb_raw_varint(b, n);
	gr_pb_raw(b, p, n);
}

void gr_pb_str(struct gr_pb *b, uint32_t field, const char *s)
{
	gr_pb_bytes(b, field, s, strlen(s));
}

size_t gr_pb_begin(struct gr_pb *b, uint32_t field)
{
	tag(b, field, GR_PB_LEN);
	if (reserve(b, LEN_ROOM))
		return b->len;
	b->len += LEN_ROOM;
	return b->len;
}

void gr_pb_end(struct gr_pb *b, size_t mark)
{
	uint8_t len[10];
	size_t body, n;

	if (b->err)
		return;
	body = b->len - mark;
	if (body > GR_PB_MAX_MESSAGE) {
		b->err = -E2BIG;
		return;
	}
	n = put_varint(len, body);
	/* a longer length moves the body on: once per message of 128 bytes or more */
	if (n > LEN_ROOM) {
		if (reserve(b, n - LEN_ROOM))
			return;
		memmove(b->p + mark + n - LEN_ROOM, b->p + mark, body);
		b->len += n - LEN_ROOM;
	}
	memcpy(b->p + mark - LEN_ROOM, len, n);
}
