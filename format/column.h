/* SPDX-License-Identifier: MIT */
/*
 * Column codecs (docs/FORMAT.md "Column codecs"): one column of one record kind in one chunk,
 * encoded value by value as the writer appends (so its exact size is always known), decoded in
 * one call per column by the reader.
 *
 *   VARINT  LEB128 of each value
 *   DELTA   zigzag LEB128 of (value - previous value), the first value against 0
 *   DICT    LEB128 count of distinct values, the distinct values in order of first appearance
 *           DELTA-coded, then one LEB128 index per value; no indexes when there is one value
 *   BYTES   per value: LEB128 length, then the bytes
 */
#ifndef GR_FORMAT_COLUMN_H
#define GR_FORMAT_COLUMN_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* A growable byte buffer. */
struct gr_buf {
	uint8_t *p;
	size_t len, cap;
};

/* Room for @extra more bytes after len. Returns 0 or -ENOMEM. */
int gr_buf_reserve(struct gr_buf *b, size_t extra);
void gr_buf_free(struct gr_buf *b);

struct gr_colenc {
	uint8_t codec;	    /* enum gr_codec */
	uint32_t n;	    /* values added since the last reset */
	struct gr_buf data; /* the encoded values (DICT: the indexes) */
	uint64_t prev;	    /* DELTA: previous value */
	/* DICT only */
	struct gr_buf dict; /* distinct values, DELTA-coded */
	uint64_t dict_prev;
	uint32_t nd; /* distinct values */
	uint64_t last_val;
	uint32_t last_id;
	uint64_t *hkeys;
	uint32_t *hids; /* id + 1, 0 = empty slot */
	uint32_t hmask;
};

void gr_colenc_init(struct gr_colenc *e, uint8_t codec);

/* Add one value (not BYTES). Returns the number of encoded bytes it added (>= 0) or -ENOMEM. */
int gr_colenc_add(struct gr_colenc *e, uint64_t v);

/* Add one BYTES value. Returns the bytes added, GR_ERR_LIMIT above GR_MAX_BYTES_VALUE, -ENOMEM. */
int gr_colenc_add_bytes(struct gr_colenc *e, const uint8_t *data, uint32_t len);

/* Exact size of the encoded column, and its encoding written at @dst (returns the end). */
size_t gr_colenc_size(const struct gr_colenc *e);
uint8_t *gr_colenc_emit(const struct gr_colenc *e, uint8_t *dst);

/* Forget the values (keep the memory) for the next chunk. */
void gr_colenc_reset(struct gr_colenc *e);
void gr_colenc_free(struct gr_colenc *e);

/* Grow-only dictionary space the DICT decoder reuses across calls. */
struct gr_coldec_scratch {
	uint64_t *dict;
	size_t cap;
};

/*
 * Decode @n values of @codec from exactly the @len bytes at @p: into @out (n entries) for the
 * numeric codecs, into @bout for BYTES (pointing into @p). Returns 0, or GR_ERR_CORRUPT /
 * GR_ERR_TRUNCATED / GR_ERR_LIMIT with a static reason in *@why, or -ENOMEM.
 */
int gr_col_decode(uint8_t codec, const uint8_t *p, size_t len, uint32_t n, uint64_t *out,
		  struct gr_bytes *bout, struct gr_coldec_scratch *s, const char **why);

/*
 * A column decoded a batch at a time, by the rules of gr_col_decode() (which one reports a
 * problem may differ: readers that need gr_col_decode()'s reason decode again with it).
 */
struct gr_col_cursor {
	uint8_t codec;
	uint8_t onebyte; /* DICT: one byte per index */
	const uint8_t *p, *end;
	uint32_t left; /* values still to read */
	uint64_t prev; /* DELTA */
	const uint64_t *dict;
	uint64_t nd;
};

/* Start on @n values of @codec in the @len bytes at @p; a DICT's dictionary goes to @s. */
int gr_col_cursor_init(struct gr_col_cursor *c, uint8_t codec, const uint8_t *p, size_t len,
		       uint32_t n, struct gr_coldec_scratch *s, const char **why);

/*
 * The next @n values into @out (numeric) or @bout (BYTES). After the last, checks the column
 * ends there. Returns 0, or a GR_ERR_* with a static reason in *@why.
 */
int gr_col_cursor_next(struct gr_col_cursor *c, uint32_t n, uint64_t *out, struct gr_bytes *bout,
		       const char **why);

const char *gr_codec_name(uint8_t codec);

#endif
