/* SPDX-License-Identifier: MIT */
/* record -o's pattern (output_name.h): expanded once, before anything runs or is created. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_name.h"

/* Append @n bytes of @s to @out at *@len; -1 when it would not fit with its NUL. */
static int put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (n >= size - *len)
		return -1;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
	return 0;
}

/* The host name up to its first '.', each byte that could be read as a path made '_'. */
static size_t short_host(const char *host, char *out, size_t size)
{
	size_t n = 0;

	for (; host[n] && host[n] != '.' && n + 1 < size; n++) {
		char c = host[n];

		out[n] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
				 (c >= 'A' && c <= 'Z') || c == '-' || c == '_'
			     ? c
			     : '_';
	}
	out[n] = 0;
	return n;
}

int gr_output_name_expand(const char *pattern, const char *host, const char *rank, long pid,
			  char *out, size_t size, char *why)
{
	char buf[256];
	size_t len = 0, n;

	if (!size)
		return -1;
	out[0] = 0;
	for (const char *p = pattern; *p; p++) {
		const char *s = p;

		n = 1;
		if (*p == '%') {
			switch (*++p) {
			case '%':
				s = "%";
				break;
			case 'h':
				n = short_host(host, buf, sizeof(buf));
				s = buf;
				if (!n) {
					snprintf(why, 128, "%%h: the host name is empty");
					return -1;
				}
				break;
			case 'r':
				if (!rank) {
					snprintf(why, 128,
						 "%%r: no rank in the environment (RANK, "
						 "OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID)");
					return -1;
				}
				s = rank;
				n = strlen(rank);
				break;
			case 'p':
				n = (size_t)snprintf(buf, sizeof(buf), "%ld", pid);
				s = buf;
				break;
			case 0:
				snprintf(why, 128, "a '%%' ends the name (a literal '%%' is %%%%)");
				return -1;
			default:
				snprintf(why, 128,
					 "unknown escape '%%%c' (%%h host, %%r rank, %%p pid, %%%% "
					 "a '%%')",
					 *p >= 0x20 && *p < 0x7f ? *p : '?');
				return -1;
			}
		}
		if (put(out, size, &len, s, n)) {
			snprintf(why, 128, "the name is longer than %zu bytes", size - 1);
			return -1;
		}
	}
	if (!len) {
		snprintf(why, 128, "the name is empty");
		return -1;
	}
	return 0;
}

const char *gr_output_name_rank(void)
{
	static const char *const names[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
					    "SLURM_PROCID"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = getenv(names[i]);
		size_t n = v ? strspn(v, "0123456789") : 0;

		if (v && n && n <= 10 && !v[n])
			return v;
	}
	return NULL;
}
