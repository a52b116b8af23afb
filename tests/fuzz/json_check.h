/* SPDX-License-Identifier: MIT */
/*
 * A strict JSON checker for the fuzz targets of the JSON writers (export, diff --json): RFC 8259
 * syntax, strings of valid UTF-8 without raw control characters, one value then only whitespace.
 * It also counts the elements of the array that a top-level key names ("traceEvents",
 * "kernels"), so a target can compare what was written with what the writer says it wrote.
 * Header-only: each target includes it once.
 */
#ifndef GR_FUZZ_JSON_CHECK_H
#define GR_FUZZ_JSON_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JSON_CHECK_MAX_DEPTH 64

struct json_check {
	const uint8_t *p, *end;
	const char *count_key; /* top-level key whose array is counted, NULL = none */
	long count;	       /* its elements; -1 when the key is absent or not an array */
};

static int jc_value(struct json_check *c, int depth, int counted);

static void jc_ws(struct json_check *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static int jc_hex4(struct json_check *c, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, c->p++) {
		unsigned d;

		if (c->p >= c->end)
			return -1;
		if (*c->p >= '0' && *c->p <= '9')
			d = *c->p - '0';
		else if ((*c->p | 0x20) >= 'a' && (*c->p | 0x20) <= 'f')
			d = (*c->p | 0x20) - 'a' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* One UTF-8 sequence starting at c->p (a byte >= 0x80): well-formed, shortest, no surrogate. */
static int jc_utf8(struct json_check *c)
{
	uint8_t b = *c->p++;
	unsigned cp, n, min;

	if (b >= 0xc2 && b <= 0xdf)
		n = 1, cp = b & 0x1f, min = 0x80;
	else if (b >= 0xe0 && b <= 0xef)
		n = 2, cp = b & 0x0f, min = 0x800;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 3, cp = b & 0x07, min = 0x10000;
	else
		return -1;
	for (unsigned i = 0; i < n; i++, c->p++) {
		if (c->p >= c->end || (*c->p & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (*c->p & 0x3f);
	}
	return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? -1 : 0;
}

/* A string at c->p (the opening quote); its bytes in [*s, *s + *len) when s is not NULL. */
static int jc_string(struct json_check *c, const uint8_t **s, size_t *len)
{
	const uint8_t *start;

	if (c->p >= c->end || *c->p != '"')
		return -1;
	start = ++c->p;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p < 0x20) {
			return -1;
		} else if (*c->p == '\\') {
			unsigned v;

			if (++c->p >= c->end)
				return -1;
			if (*c->p == 'u') {
				c->p++;
				if (jc_hex4(c, &v))
					return -1;
			} else if (*c->p && strchr("\"\\/bfnrt", *c->p)) {
				c->p++;
			} else {
				return -1;
			}
		} else if (*c->p >= 0x80) {
			if (jc_utf8(c))
				return -1;
		} else {
			c->p++;
		}
	}
	if (c->p >= c->end)
		return -1;
	if (s) {
		*s = start;
		*len = (size_t)(c->p - start);
	}
	c->p++;
	return 0;
}

static int jc_digits(struct json_check *c)
{
	const uint8_t *start = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > start ? 0 : -1;
}

static int jc_number(struct json_check *c)
{
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (jc_digits(c))
		return -1;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (jc_digits(c))
			return -1;
	}
	if (c->p < c->end && (*c->p | 0x20) == 'e') {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (jc_digits(c))
			return -1;
	}
	return 0;
}

static int jc_literal(struct json_check *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return -1;
	c->p += n;
	return 0;
}

/* An array; @counted: it is the value of count_key, so its elements are counted. */
static int jc_array(struct json_check *c, int depth, int counted)
{
	long n = 0;

	c->p++;
	jc_ws(c);
	if (c->p < c->end && *c->p == ']') {
		c->p++;
		goto done;
	}
	for (;;) {
		if (jc_value(c, depth + 1, 0))
			return -1;
		n++;
		jc_ws(c);
		if (c->p >= c->end)
			return -1;
		if (*c->p == ']') {
			c->p++;
			break;
		}
		if (*c->p++ != ',')
			return -1;
	}
done:
	if (counted)
		c->count = n;
	return 0;
}

static int jc_object(struct json_check *c, int depth)
{
	c->p++;
	jc_ws(c);
	if (c->p < c->end && *c->p == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		const uint8_t *key;
		size_t len;
		int counted;

		jc_ws(c);
		if (jc_string(c, &key, &len))
			return -1;
		counted = depth == 0 && c->count_key && len == strlen(c->count_key) &&
			  !memcmp(key, c->count_key, len);
		jc_ws(c);
		if (c->p >= c->end || *c->p++ != ':')
			return -1;
		if (jc_value(c, depth + 1, counted))
			return -1;
		jc_ws(c);
		if (c->p >= c->end)
			return -1;
		if (*c->p == '}') {
			c->p++;
			return 0;
		}
		if (*c->p++ != ',')
			return -1;
	}
}

static int jc_value(struct json_check *c, int depth, int counted)
{
	if (depth > JSON_CHECK_MAX_DEPTH)
		return -1;
	jc_ws(c);
	if (c->p >= c->end)
		return -1;
	switch (*c->p) {
	case '{':
		return jc_object(c, depth);
	case '[':
		return jc_array(c, depth, counted);
	case '"':
		return jc_string(c, NULL, NULL);
	case 't':
		return jc_literal(c, "true");
	case 'f':
		return jc_literal(c, "false");
	case 'n':
		return jc_literal(c, "null");
	default:
		return jc_number(c);
	}
}

/*
 * Whether @buf holds exactly one JSON value (0) or not (-1). *@count: the elements of the array
 * under the top-level key @count_key, -1 when there is none.
 */
static inline int json_check(const void *buf, size_t len, const char *count_key, long *count)
{
	struct json_check c = {buf, (const uint8_t *)buf + len, count_key, -1};
	int err = jc_value(&c, 0, 0);

	jc_ws(&c);
	if (!err && c.p != c.end)
		err = -1;
	if (count)
		*count = c.count;
	return err;
}

#endif
