/* SPDX-License-Identifier: MIT */
/* Streaming JSON writer (see json.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/error.h"
#include "json.h"
#include "utf8.h"

#define BUF_MIN 4096

int gr_json_buf_init(struct gr_json_buf *b, FILE *f, size_t cap)
{
	memset(b, 0, sizeof(*b));
	if (cap < BUF_MIN)
		cap = BUF_MIN;
	b->data = malloc(cap);
	if (!b->data)
		return -ENOMEM;
	b->f = f;
	b->cap = cap;
	return 0;
}

void gr_json_buf_free(struct gr_json_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static void buf_write_out(struct gr_json_buf *b)
{
	if (b->len && !b->err && fwrite(b->data, 1, b->len, b->f) != b->len)
		b->err = -EIO;
	b->len = 0;
}

int gr_json_buf_flush(struct gr_json_buf *b)
{
	buf_write_out(b);
	if (!b->err && (fflush(b->f) || ferror(b->f)))
		b->err = -EIO;
	return b->err;
}

/* What does not fit: the buffer goes out first, then @s is buffered or, if larger, written. */
static void buf_put_slow(struct gr_json_buf *b, const char *s, size_t n)
{
	buf_write_out(b);
	if (b->err)
		return;
	if (n < b->cap) {
		memcpy(b->data, s, n);
		b->len = n;
	} else if (fwrite(s, 1, n, b->f) != n) {
		b->err = -EIO;
	}
}

static inline void buf_put(struct gr_json_buf *b, const char *s, size_t n)
{
	if (n <= b->cap - b->len) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
	} else {
		buf_put_slow(b, s, n);
	}
}

void gr_json_buf_raw(struct gr_json_buf *b, const char *s, size_t n)
{
	buf_put(b, s, n);
}

/* Every byte of the document goes out through these two. */
static inline void put(struct gr_json *j, const char *s, size_t n)
{
	if (j->buf)
		buf_put(j->buf, s, n);
	else
		fwrite(s, 1, n, j->f);
}

static inline void put_c(struct gr_json *j, char c)
{
	struct gr_json_buf *b = j->buf;

	if (b && b->len < b->cap)
		b->data[b->len++] = c;
	else if (b)
		buf_put_slow(b, &c, 1);
	else
		fputc(c, j->f);
}

/* Room for @n more bytes in the buffer, or NULL (no buffer, or a write error): then put(). */
static inline char *room(struct gr_json *j, size_t n)
{
	struct gr_json_buf *b = j->buf;

	if (!b || b->err)
		return NULL;
	if (n > b->cap - b->len) {
		buf_write_out(b);
		if (b->err || n > b->cap)
			return NULL;
	}
	return b->data + b->len;
}

void gr_json_begin(struct gr_json *j, FILE *f, int indent)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->indent = indent < 0 ? 0 : indent;
}

void gr_json_begin_buf(struct gr_json *j, struct gr_json_buf *b, int indent)
{
	gr_json_begin(j, b->f, indent);
	j->buf = b;
}

static void newline(struct gr_json *j)
{
	static const char spaces[] = "                                ";
	int n;

	if (!j->indent || j->flat_depth)
		return;
	put_c(j, '\n');
	for (n = j->depth * j->indent; n > 0; n -= (int)sizeof(spaces) - 1)
		put(j, spaces, n < (int)sizeof(spaces) - 1 ? (size_t)n : sizeof(spaces) - 1);
}

/* Separator and checks before any value or key at the current depth. */
static int before_item_slow(struct gr_json *j, int is_key)
{
	if (j->err)
		return -1;
	if (j->depth == 0 && j->count[0]) {
		j->err = GR_ERR_STATE; /* a second top-level value */
		return -1;
	}
	if (j->depth && j->is_object[j->depth] && j->want_key != is_key) {
		j->err = GR_ERR_STATE;
		return -1;
	}
	if (!is_key && j->depth && j->is_object[j->depth]) {
		j->want_key = 1; /* value after its key: no separator */
		return 0;
	}
	if (j->count[j->depth]) {
		if (j->flat_depth || !j->indent)
			put(j, ", ", 2);
		else
			put_c(j, ',');
	}
	if (j->depth)
		newline(j);
	j->count[j->depth] = 1;
	return 0;
}

/* The same, with the two most common items first: a value right after its key, and a key in an
 * object on one line (a comma and a space before it when it is not the first). */
static inline int before_item(struct gr_json *j, int is_key)
{
	if (j->err || !j->depth || !j->is_object[j->depth] || j->want_key != is_key)
		return before_item_slow(j, is_key);
	if (!is_key) {
		j->want_key = 1;
		return 0;
	}
	if (j->indent)
		return before_item_slow(j, is_key);
	if (j->count[j->depth])
		put(j, ", ", 2);
	j->count[j->depth] = 1;
	return 0;
}

static void open_container(struct gr_json *j, int object, int flat)
{
	if (before_item(j, 0))
		return;
	if (j->depth == GR_JSON_MAX_DEPTH) {
		j->err = GR_ERR_STATE;
		return;
	}
	put_c(j, object ? '{' : '[');
	j->depth++;
	j->count[j->depth] = 0;
	j->is_object[j->depth] = (uint8_t)object;
	j->want_key = object;
	if (flat && !j->flat_depth)
		j->flat_depth = j->depth;
}

static void close_container(struct gr_json *j, int object)
{
	if (j->err)
		return;
	if (!j->depth || j->is_object[j->depth] != object || (object && !j->want_key)) {
		j->err = GR_ERR_STATE;
		return;
	}
	j->depth--;
	if (j->count[j->depth + 1])
		newline(j);
	put_c(j, object ? '}' : ']');
	if (j->flat_depth == j->depth + 1)
		j->flat_depth = 0;
	j->want_key = j->depth && j->is_object[j->depth];
}

void gr_json_object(struct gr_json *j)
{
	open_container(j, 1, 0);
}

void gr_json_object_flat(struct gr_json *j)
{
	open_container(j, 1, 1);
}

void gr_json_object_end(struct gr_json *j)
{
	close_container(j, 1);
}

void gr_json_array(struct gr_json *j)
{
	open_container(j, 0, 0);
}

void gr_json_array_flat(struct gr_json *j)
{
	open_container(j, 0, 1);
}

void gr_json_array_end(struct gr_json *j)
{
	close_container(j, 0);
}

/* Length of the valid UTF-8 sequence at @s (n bytes left), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;

	return s[0] < 0x80 ? 1 : gr_utf8_len(s, n, &cp);
}

/* Bytes that go out as they are: printable ASCII but the quote (0x22) and the backslash (0x5c).
 * NUL is not one of them, so a scan for plain bytes also stops at the end of a C string. */
static const uint8_t plain[256] = {[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7e] = 1};

/* Strings up to this long are copied in one pass, escapes aside, with no strlen() first. */
#define CSTR_FAST 128

static void write_string_slow(struct gr_json *j, const char *str, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	put_c(j, '"');
	while (i < n) {
		size_t run = i, len;

		/* most strings are plain all along: one copy for the whole run */
		while (run < n && plain[s[run]])
			run++;
		if (run > i) {
			put(j, str + i, run - i);
			i = run;
			continue;
		}
		switch (s[i]) {
		case '"':
			put(j, "\\\"", 2);
			i++;
			continue;
		case '\\':
			put(j, "\\\\", 2);
			i++;
			continue;
		case '\n':
			put(j, "\\n", 2);
			i++;
			continue;
		case '\t':
			put(j, "\\t", 2);
			i++;
			continue;
		case '\r':
			put(j, "\\r", 2);
			i++;
			continue;
		default:
			break;
		}
		if (s[i] < 0x20 || s[i] == 0x7f) {
			char u[6] = {'\\', 'u', '0', '0', hexd[s[i] >> 4], hexd[s[i] & 15]};

			put(j, u, sizeof(u));
			i++;
			continue;
		}
		len = utf8_len(s + i, n - i);
		if (!len) {
			put(j, "\\ufffd", 6);
			i++;
			continue;
		}
		put(j, str + i, len);
		i += len;
	}
	put_c(j, '"');
}

static void write_string(struct gr_json *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char *p = room(j, n + 2);
	size_t i = 0;

	if (p) {
		/* short, mostly: copied while checked, one pass */
		while (i < n && plain[s[i]]) {
			p[i + 1] = (char)s[i];
			i++;
		}
		if (i == n) {
			p[0] = '"';
			p[n + 1] = '"';
			j->buf->len += n + 2;
			return;
		}
	}
	write_string_slow(j, str, n);
}

/* A NUL-terminated string: short plain ones in one pass, with no strlen(). */
static void write_cstr(struct gr_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char *p = room(j, CSTR_FAST + 2);
	size_t i = 0;

	if (p) {
		/* NUL is not plain: the copy stops at the end too */
		while (i < CSTR_FAST && plain[s[i]]) {
			p[i + 1] = (char)s[i];
			i++;
		}
		if (!s[i]) {
			p[0] = '"';
			p[i + 1] = '"';
			j->buf->len += i + 2;
			return;
		}
	}
	write_string_slow(j, str, i + strlen(str + i));
}

void gr_json_key(struct gr_json *j, const char *key)
{
	if (before_item(j, 1))
		return;
	write_cstr(j, key);
	put(j, ": ", 2);
	j->want_key = 0;
}

void gr_json_strn(struct gr_json *j, const char *s, size_t n)
{
	if (!before_item(j, 0))
		write_string(j, s, n);
}

void gr_json_str(struct gr_json *j, const char *s)
{
	if (!s)
		gr_json_null(j);
	else if (!before_item(j, 0))
		write_cstr(j, s);
}

/* @v in decimal at @p, no terminator; returns the length (at most 20). Two digits a step,
 * straight into place: no copy afterwards. */
static size_t fmt_u64(char *p, uint64_t v)
{
	static const char pairs[] = "00010203040506070809"
				    "10111213141516171819"
				    "20212223242526272829"
				    "30313233343536373839"
				    "40414243444546474849"
				    "50515253545556575859"
				    "60616263646566676869"
				    "70717273747576777879"
				    "80818283848586878889"
				    "90919293949596979899";
	size_t n = 1;
	char *q;

	for (uint64_t t = v; t >= 10 && n < 20; t /= 10)
		n++;
	q = p + n;
	while (v >= 100) {
		q -= 2;
		q[0] = pairs[2 * (v % 100)];
		q[1] = pairs[2 * (v % 100) + 1];
		v /= 100;
	}
	if (v >= 10) {
		q[-2] = pairs[2 * v];
		q[-1] = pairs[2 * v + 1];
	} else {
		q[-1] = (char)('0' + v);
	}
	return n;
}

void gr_json_u64(struct gr_json *j, uint64_t v)
{
	char buf[20], *p;

	if (before_item(j, 0))
		return;
	p = room(j, sizeof(buf));
	if (p)
		j->buf->len += fmt_u64(p, v);
	else
		put(j, buf, fmt_u64(buf, v));
}

void gr_json_i64(struct gr_json *j, int64_t v)
{
	char buf[21];
	size_t n = 0;

	if (before_item(j, 0))
		return;
	if (v < 0)
		buf[n++] = '-';
	n += fmt_u64(buf + n, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	put(j, buf, n);
}

/*
 * @v as "%.15g" prints it, when @v is the double nearest to a whole number of thousandths n/1000
 * below 1e12 (microseconds from nanoseconds, mostly); 0 when it is not. Such an n/1000 has at most
 * 15 significant digits and @v is within half an ulp of it, far less than half a unit of the 15th
 * digit, so %.15g rounds back to exactly that decimal (fixed notation, as n/1000 >= 0.001, trailing
 * zeros and a bare point dropped), and it reads back as @v: the %.17g fallback is never taken.
 */
static size_t fmt_milli(char *buf, double v)
{
	double a = fabs(v);
	uint64_t n, frac;
	size_t len = 0;

	if (!(a < 1e12))
		return 0;
	n = (uint64_t)(a * 1000.0 + 0.5);
	if ((double)n / 1000.0 != a)
		return 0;
	if (signbit(v))
		buf[len++] = '-';
	len += fmt_u64(buf + len, n / 1000);
	frac = n % 1000;
	if (frac) {
		buf[len++] = '.';
		buf[len++] = (char)('0' + frac / 100);
		if (frac % 100)
			buf[len++] = (char)('0' + frac / 10 % 10);
		if (frac % 10)
			buf[len++] = (char)('0' + frac % 10);
	}
	return len;
}

void gr_json_double(struct gr_json *j, double v)
{
	char buf[40];
	size_t n;

	if (before_item(j, 0))
		return;
	if (!isfinite(v)) {
		put(j, "null", 4);
		return;
	}
	n = fmt_milli(buf, v);
	if (!n) {
		/* shortest of %.15g and %.17g that reads back exactly, so 0.1 prints as 0.1 */
		snprintf(buf, sizeof(buf), "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, sizeof(buf), "%.17g", v);
		n = strlen(buf);
	}
	put(j, buf, n);
}

void gr_json_bool(struct gr_json *j, int v)
{
	if (!before_item(j, 0))
		put(j, v ? "true" : "false", v ? 4 : 5);
}

void gr_json_null(struct gr_json *j)
{
	if (!before_item(j, 0))
		put(j, "null", 4);
}

int gr_json_end(struct gr_json *j)
{
	if (!j->err && (j->depth || !j->count[0]))
		j->err = GR_ERR_STATE;
	if (j->err)
		return j->err;
	put_c(j, '\n');
	if (j->buf) {
		if (j->buf->err)
			j->err = -EIO;
	} else if (fflush(j->f) || ferror(j->f)) {
		j->err = -EIO;
	}
	return j->err;
}

void gr_json_kv_str(struct gr_json *j, const char *key, const char *s)
{
	gr_json_key(j, key);
	gr_json_str(j, s);
}

void gr_json_kv_u64(struct gr_json *j, const char *key, uint64_t v)
{
	gr_json_key(j, key);
	gr_json_u64(j, v);
}

void gr_json_kv_i64(struct gr_json *j, const char *key, int64_t v)
{
	gr_json_key(j, key);
	gr_json_i64(j, v);
}

void gr_json_kv_double(struct gr_json *j, const char *key, double v)
{
	gr_json_key(j, key);
	gr_json_double(j, v);
}

void gr_json_kv_bool(struct gr_json *j, const char *key, int v)
{
	gr_json_key(j, key);
	gr_json_bool(j, v);
}

void gr_json_dim3(struct gr_json *j, const uint32_t d[3])
{
	gr_json_array_flat(j);
	for (int i = 0; i < 3; i++)
		gr_json_u64(j, d[i]);
	gr_json_array_end(j);
}

void gr_json_kv_dim3(struct gr_json *j, const char *key, const uint32_t d[3])
{
	gr_json_key(j, key);
	gr_json_dim3(j, d);
}
