/* SPDX-License-Identifier: MIT */
/*
 * A protocol buffers wire-format writer, just what the Perfetto export needs: varint, fixed64,
 * double and length-delimited fields, and nested messages, appended to a growable byte buffer.
 * No schema, no reflection: the caller names each field by number (docs/EXPORT.md lists them).
 *
 * A nested message is opened with gr_pb_begin(), which leaves one byte for its length, and closed
 * with gr_pb_end(), which writes the length in its shortest form, moving the body on when that
 * takes more than the byte (a message of 128 bytes or more: rare, most are an event's fields):
 * the output is what any protobuf library would write, byte for byte, and no message is built
 * twice.
 *
 * Errors are sticky: the first failed allocation sets err (-ENOMEM) and every later call does
 * nothing, so a writer checks once, at the end.
 */
#ifndef GR_ANALYZE_EXPORT_PB_H
#define GR_ANALYZE_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>

struct gr_pb {
	uint8_t *p;
	size_t len, cap;
	int err; /* 0, or -ENOMEM since the first allocation that failed */
};

/* The wire types this writer uses (the protobuf encoding's numbers). */
enum { GR_PB_VARINT = 0, GR_PB_FIXED64 = 1, GR_PB_LEN = 2 };

/* The longest message gr_pb_begin() accepts (as it did when it left 4 bytes for the length). */
#define GR_PB_MAX_MESSAGE ((1u << 28) - 1)

void gr_pb_init(struct gr_pb *b);
void gr_pb_free(struct gr_pb *b);
/* Forget the bytes written, keep the memory. */
static inline void gr_pb_reset(struct gr_pb *b)
{
	b->len = 0;
}

/* The slow path of gr_pb_raw_varint(): room made first. */
void gr_pb_raw_varint_grow(struct gr_pb *b, uint64_t v);

/* Append @v as a varint, no tag: the building block of the others. Inline: an export writes
 * several per event. */
static inline void gr_pb_raw_varint(struct gr_pb *b, uint64_t v)
{
	uint8_t *p;

	if (b->len + 10 > b->cap) {
		gr_pb_raw_varint_grow(b, v);
		return;
	}
	p = b->p + b->len;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->p);
}
/* Append @n raw bytes. */
void gr_pb_raw(struct gr_pb *b, const void *p, size_t n);

/* Field @field as a varint (uint32/uint64/int32 >= 0/bool/enum). */
static inline void gr_pb_varint(struct gr_pb *b, uint32_t field, uint64_t v)
{
	gr_pb_raw_varint(b, (uint64_t)field << 3 | GR_PB_VARINT);
	gr_pb_raw_varint(b, v);
}
/* Field @field as 8 little-endian bytes (fixed64). */
void gr_pb_fixed64(struct gr_pb *b, uint32_t field, uint64_t v);
/* Field @field as an IEEE-754 double. */
void gr_pb_double(struct gr_pb *b, uint32_t field, double v);
/* Field @field as length-delimited bytes (string, bytes, or an already encoded message). */
void gr_pb_bytes(struct gr_pb *b, uint32_t field, const void *p, size_t n);
/* Same for a C string. */
void gr_pb_str(struct gr_pb *b, uint32_t field, const char *s);

/*
 * Open nested message @field: returns where its body starts, for gr_pb_end(). Messages nest to
 * any depth; each is closed in reverse order of opening.
 */
size_t gr_pb_begin(struct gr_pb *b, uint32_t field);
/* Close the message gr_pb_begin() returned @mark for; one over GR_PB_MAX_MESSAGE sets -E2BIG. */
void gr_pb_end(struct gr_pb *b, size_t mark);

#endif
