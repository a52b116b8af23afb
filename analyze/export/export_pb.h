/* SPDX-License-Identifier: MIT */
/*
 * A protocol buffers wire-format writer, just what the Perfetto export needs: varint, fixed64,
 * double and length-delimited fields, and nested messages, appended to a growable byte buffer.
 * No schema, no reflection: the caller names each field by number (docs/EXPORT.md lists them).
 *
 * A nested message is opened with gr_pb_begin(), which leaves room for the longest length varint
 * a message may need here, and closed with gr_pb_end(), which writes the length in its shortest
 * form and moves the body back over the room it did not use: the output is what any protobuf
 * library would write, byte for byte, and no message is built twice.
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

/* The longest message gr_pb_begin() accepts: its length fits a 4-byte varint. */
#define GR_PB_MAX_MESSAGE ((1u << 28) - 1)

void gr_pb_init(struct gr_pb *b);
void gr_pb_free(struct gr_pb *b);
/* Forget the bytes written, keep the memory. */
static inline void gr_pb_reset(struct gr_pb *b)
{
	b->len = 0;
}

/* Append @v as a varint, no tag: the building block of the others. */
void gr_pb_raw_varint(struct gr_pb *b, uint64_t v);
/* Append @n raw bytes. */
void gr_pb_raw(struct gr_pb *b, const void *p, size_t n);

/* Field @field as a varint (uint32/uint64/int32 >= 0/bool/enum). */
void gr_pb_varint(struct gr_pb *b, uint32_t field, uint64_t v);
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
