/* SPDX-License-Identifier: MIT */
/*
 * One UTF-8 decoder for the writers that must tell valid text from bytes: JSON (json.c writes an
 * invalid byte as U+FFFD) and terminal text (text.c escapes it).
 */
#ifndef GR_ANALYZE_UTF8_H
#define GR_ANALYZE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length of the valid multi-byte UTF-8 sequence at @s (2 to 4 bytes, at most @n looked at), its
 * code point in *@cp; 0 when @s[0] starts none (ASCII included) or the sequence is invalid:
 * overlong, a surrogate, past U+10FFFF, or cut short (a NUL is no continuation byte, so a C
 * string needs no length: pass SIZE_MAX).
 */
static inline size_t gr_utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], v, min;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, v = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, v = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, v = c & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

#endif
