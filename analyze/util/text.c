/* SPDX-License-Identifier: MIT */
/* Text from a trace made safe for a terminal: the one escaping rule (text.h). */
#include <stdint.h>
#include <string.h>

#include "text.h"
#include "utf8.h"

/* Length of the valid UTF-8 character at @s (2 to 4 bytes) that is not a C1 control, else 0. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n = gr_utf8_len(s, SIZE_MAX, &cp);

	return n && cp > 0x9f ? n : 0;
}

/* How byte @c is written when it is not part of a character that passes: into @out, its length. */
static size_t escape_byte(unsigned char c, char out[5])
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = {
	    ['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\v'] = 'v',
	    ['\f'] = 'f', ['\r'] = 'r', [0x1b] = 'e', ['\\'] = '\\'};

	if (c < sizeof(named) && named[c]) {
		out[0] = '\\';
		out[1] = named[c];
		return 2;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

/*
 * The piece of @s at @s[i]: 1 to 4 bytes that pass as they are (returned, *@esc = 0), or one byte
 * escaped into @out (its length returned, *@esc = 1, *@used = 1).
 */
static size_t piece(const unsigned char *s, size_t i, char out[5], size_t *used, int *esc)
{
	unsigned char c = s[i];
	size_t n;

	*esc = 0;
	if (c >= 0x20 && c < 0x7f && c != '\\') {
		*used = 1;
		return 1;
	}
	if (c >= 0x80 && (n = utf8_len(s + i))) {
		*used = n;
		return n;
	}
	*esc = 1;
	*used = 1;
	return escape_byte(c, out);
}

int gr_text_unsafe(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t used;
	char out[5];
	int esc;

	if (!s)
		return 0;
	for (size_t i = 0; u[i]; i += used) {
		piece(u, i, out, &used, &esc);
		if (esc)
			return 1;
	}
	return 0;
}

size_t gr_text_escape(char *buf, size_t size, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t len = 0, used;
	int full = 0;

	for (size_t i = 0; u[i]; i += used) {
		char out[5];
		int esc;
		size_t n = piece(u, i, out, &used, &esc);

		/* a piece that does not fit ends the text: never half an escape or a character */
		if (!full && len + n < size)
			memcpy(buf + len, esc ? out : (const char *)u + i, n);
		else if (!full && size)
			full = 1, buf[len] = '\0';
		len += n;
	}
	if (!full && size)
		buf[len] = '\0';
	return len;
}

const char *gr_text_esc(char *buf, size_t size, const char *s)
{
	if (!s || !gr_text_unsafe(s))
		return s;
	gr_text_escape(buf, size, s);
	return buf;
}

int gr_text_fputs(const char *s, FILE *f)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t used;

	for (size_t i = 0; u[i]; i += used) {
		char out[5];
		int esc;
		size_t n = piece(u, i, out, &used, &esc);

		if (fwrite(esc ? out : (const char *)u + i, 1, n, f) != n)
			return EOF;
	}
	return 0;
}

void gr_text_wrap(FILE *f, const char *text, int first_indent, int indent, int width)
{
	char esc[GR_TEXT_LEN];
	int col = first_indent, fresh = 1;
	/* the text may quote names from the trace: escaped before it is measured */
	const char *p = gr_text_esc(esc, sizeof(esc), text);

	while (*p == ' ')
		p++;
	while (*p) {
		const char *sp = strchr(p, ' ');
		int wl = sp ? (int)(sp - p) : (int)strlen(p);

		if (!fresh && col + 1 + wl > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			fresh = 1;
		}
		if (!fresh) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", wl, p);
		col += wl;
		fresh = 0;
		p += wl;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void gr_text_heading(FILE *f, const char *title, int width)
{
	int n = fprintf(f, "\n== %s ", title);

	for (; n < width; n++)
		fputc('=', f);
	fputc('\n', f);
}
