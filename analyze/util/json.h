/* SPDX-License-Identifier: MIT */
/*
 * A tiny streaming JSON writer to a FILE*, for every --json output. The caller emits values in
 * document order; the writer places commas, colons, indentation and escapes. Containers opened
 * with the _flat variants print on one line ("grid": [1, 2, 3]) inside an indented document.
 *
 * Errors (nesting deeper than GR_JSON_MAX_DEPTH, a value where a key is due, unbalanced ends) are
 * latched: the first one is kept and everything after it is ignored, so callers check once, at
 * gr_json_end(). Strings are written as valid UTF-8: invalid bytes become U+FFFD. Doubles that
 * are not finite become null.
 */
#ifndef GR_ANALYZE_JSON_H
#define GR_ANALYZE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GR_JSON_MAX_DEPTH 256 /* the HTML report's flame graph nests two per frame */

struct gr_json_buf;

struct gr_json {
	FILE *f;
	struct gr_json_buf *buf; /* NULL: straight to f */
	int indent;		 /* spaces per level; 0 = the whole document on one line */
	int depth;
	int err;
	int want_key;	/* inside an object, the next item must be a key */
	int flat_depth; /* depth at which a flat container was opened, 0 = none */
	uint8_t count[GR_JSON_MAX_DEPTH + 1]; /* items so far at each depth (saturated at 1) */
	uint8_t is_object[GR_JSON_MAX_DEPTH + 1];
};

/* Start a document on @f, indenting nested containers by @indent spaces (0: one line). */
void gr_json_begin(struct gr_json *j, FILE *f, int indent);

/*
 * An output buffer in front of a FILE, for a long run of small documents (one event per line):
 * documents started with gr_json_begin_buf() and raw text from gr_json_buf_raw() are appended in
 * memory and written to the FILE in large blocks, never one write per document. A write error is
 * latched in err (-EIO) and what follows is dropped.
 */
struct gr_json_buf {
	FILE *f;
	char *data;
	size_t len, cap;
	int err;
};

/* A buffer of @cap bytes (at least 4 KiB) in front of @f. Returns 0 or -ENOMEM; the buffer is the
 * caller's, released by gr_json_buf_free(). */
int gr_json_buf_init(struct gr_json_buf *b, FILE *f, size_t cap);

/* Append @n bytes of @s as they are: the text between documents. */
void gr_json_buf_raw(struct gr_json_buf *b, const char *s, size_t n);

/* Write what is buffered and flush the FILE. Returns 0, or -EIO when any write failed. */
int gr_json_buf_flush(struct gr_json_buf *b);

/* Release the memory, writing nothing (flush first); accepts NULL and a zeroed buffer. */
void gr_json_buf_free(struct gr_json_buf *b);

/* Like gr_json_begin(), to @b: gr_json_end() then appends the final newline and returns -EIO for
 * a latched write error of @b, but flushes nothing. */
void gr_json_begin_buf(struct gr_json *j, struct gr_json_buf *b, int indent);

/* Finish the document (newline after the top value). Returns 0, GR_ERR_STATE for misuse, or
 * -EIO when the stream has an error. */
int gr_json_end(struct gr_json *j);

void gr_json_object(struct gr_json *j);
void gr_json_object_flat(struct gr_json *j);
void gr_json_object_end(struct gr_json *j);
void gr_json_array(struct gr_json *j);
void gr_json_array_flat(struct gr_json *j);
void gr_json_array_end(struct gr_json *j);

/* The key of the next member of the current object. */
void gr_json_key(struct gr_json *j, const char *key);

void gr_json_str(struct gr_json *j, const char *s); /* NULL writes null */
void gr_json_strn(struct gr_json *j, const char *s, size_t n);
void gr_json_u64(struct gr_json *j, uint64_t v);
void gr_json_i64(struct gr_json *j, int64_t v);
void gr_json_double(struct gr_json *j, double v);
void gr_json_bool(struct gr_json *j, int v);
void gr_json_null(struct gr_json *j);

/* key + value in one call */
void gr_json_kv_str(struct gr_json *j, const char *key, const char *s);
void gr_json_kv_u64(struct gr_json *j, const char *key, uint64_t v);
void gr_json_kv_i64(struct gr_json *j, const char *key, int64_t v);
void gr_json_kv_double(struct gr_json *j, const char *key, double v);
void gr_json_kv_bool(struct gr_json *j, const char *key, int v);
/* A CUDA dim3 (grid, block) as a one-line array: "grid": [70000, 3, 2]; gr_json_dim3 the
 * array alone, as a value after gr_json_key() */
void gr_json_dim3(struct gr_json *j, const uint32_t d[3]);
void gr_json_kv_dim3(struct gr_json *j, const char *key, const uint32_t d[3]);

#endif
