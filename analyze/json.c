/* SPDX-License-Identifier: MIT */
/* Streaming JSON writer (see json.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/error.h"
#include "json.h"

void gr_json_begin(struct gr_json *j, FILE *f, int indent)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->indent = indent < 0 ? 0 : indent;
}

static void newline(struct gr_json *j)
{
	if (!j->indent || j->flat_depth)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth * j->indent; i++)
		fputc(' ', j->f);
}

/* Separator and checks before any value or key at the current depth. */
static int before_item(struct gr_json *j, int is_key)
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
	if (j->count[j->depth])
		fputs(j->flat_depth || !j->indent ? ", " : ",", j->f);
	if (j->depth)
		newline(j);
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
	fputc(object ? '{' : '[', j->f);
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
	fputc(object ? '}' : ']', j->f);
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
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void write_string(struct gr_json *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	fputc('"', j->f);
	while (i < n) {
		size_t len;

		switch (s[i]) {
		case '"':
			fputs("\\\"", j->f);
			i++;
			continue;
		case '\\':
			fputs("\\\\", j->f);
			i++;
			continue;
		case '\n':
			fputs("\\n", j->f);
			i++;
			continue;
		case '\t':
			fputs("\\t", j->f);
			i++;
			continue;
		case '\r':
			fputs("\\r", j->f);
			i++;
			continue;
		default:
			break;
		}
		if (s[i] < 0x20 || s[i] == 0x7f) {
			fprintf(j->f, "\\u%04x", s[i]);
			i++;
			continue;
		}
		len = utf8_len(s + i, n - i);
		if (!len) {
			fputs("\\ufffd", j->f);
			i++;
			continue;
		}
		fwrite(s + i, 1, len, j->f);
		i += len;
	}
	fputc('"', j->f);
}

void gr_json_key(struct gr_json *j, const char *key)
{
	if (before_item(j, 1))
		return;
	write_string(j, key, strlen(key));
	fputs(": ", j->f);
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
	else
		gr_json_strn(j, s, strlen(s));
}

void gr_json_u64(struct gr_json *j, uint64_t v)
{
	if (!before_item(j, 0))
		fprintf(j->f, "%" PRIu64, v);
}

void gr_json_i64(struct gr_json *j, int64_t v)
{
	if (!before_item(j, 0))
		fprintf(j->f, "%" PRId64, v);
}

void gr_json_double(struct gr_json *j, double v)
{
	char buf[40];

	if (before_item(j, 0))
		return;
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	/* shortest of %.15g and %.17g that reads back exactly, so 0.1 prints as 0.1 */
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, j->f);
}

void gr_json_bool(struct gr_json *j, int v)
{
	if (!before_item(j, 0))
		fputs(v ? "true" : "false", j->f);
}

void gr_json_null(struct gr_json *j)
{
	if (!before_item(j, 0))
		fputs("null", j->f);
}

int gr_json_end(struct gr_json *j)
{
	if (!j->err && (j->depth || !j->count[0]))
		j->err = GR_ERR_STATE;
	if (!j->err)
		fputc('\n', j->f);
	if (!j->err && (fflush(j->f) || ferror(j->f)))
		j->err = -EIO;
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

void gr_json_kv_dim3(struct gr_json *j, const char *key, const uint32_t d[3])
{
	gr_json_key(j, key);
	gr_json_array_flat(j);
	for (int i = 0; i < 3; i++)
		gr_json_u64(j, d[i]);
	gr_json_array_end(j);
}
