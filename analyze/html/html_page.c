/* SPDX-License-Identifier: MIT */
/*
 * The HTML page from its template (html.h): markers replaced by text, the data escaped so that
 * nothing in it (a kernel named "</script>") can end its script element, the file written
 * beside its destination and renamed into place.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/util/outfile.h"
#include "html.h"
#include "html_assets.h"

int gr_html_write_json_escaped(FILE *f, const char *s, size_t n)
{
	size_t from = 0;

	for (size_t i = 0; i < n; i++) {
		const char *esc = NULL;
		size_t skip = 1;

		if (s[i] == '<')
			esc = "\\u003c";
		else if (s[i] == '>')
			esc = "\\u003e";
		else if (s[i] == '&')
			esc = "\\u0026";
		else if ((unsigned char)s[i] == 0xe2 && i + 2 < n &&
			 (unsigned char)s[i + 1] == 0x80 &&
			 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
			/* JavaScript before ES2019 ends a string literal at these */
			esc = (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
			skip = 3;
		}
		if (!esc)
			continue;
		fwrite(s + from, 1, i - from, f);
		fputs(esc, f);
		from = i + skip;
		i += skip - 1;
	}
	fwrite(s + from, 1, n - from, f);
	return ferror(f) ? -EIO : 0;
}

int gr_html_write_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && !strcmp(s + n - e, end);
}

/* Every asset whose name ends with @ext, in file-name order (the table's). */
static void write_assets(FILE *f, const char *ext)
{
	for (const struct gr_html_asset *a = gr_html_assets; a->name; a++)
		if (ends_with(a->name, ext)) {
			fwrite(a->data, 1, a->len, f);
			if (a->len && a->data[a->len - 1] != '\n')
				fputc('\n', f);
		}
}

/* The marker a template line is, alone but for blanks: 1..4, else 0. */
static int marker(const char *line, size_t n)
{
	static const char *const names[] = {"@@TITLE@@", "@@STYLE@@", "@@SCRIPT@@", "@@DATA@@"};

	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	while (n && (*line == ' ' || *line == '\t')) {
		line++;
		n--;
	}
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == n && !memcmp(line, names[i], n))
			return i + 1;
	return 0;
}

int gr_html_write_page(FILE *f, const char *title, const char *data, size_t len)
{
	const struct gr_html_asset *page = NULL;
	unsigned seen = 0;

	for (const struct gr_html_asset *a = gr_html_assets; a->name; a++)
		if (!strcmp(a->name, "page.html"))
			page = a;
	if (!page)
		return -EINVAL;
	for (size_t at = 0; at < page->len;) {
		const char *line = (const char *)page->data + at;
		const char *nl = memchr(line, '\n', page->len - at);
		size_t n = nl ? (size_t)(nl - line) : page->len - at;

		switch (marker(line, n)) {
		case 1:
			gr_html_write_text(f, title);
			fputc('\n', f);
			break;
		case 2:
			write_assets(f, ".css");
			break;
		case 3:
			write_assets(f, ".js");
			break;
		case 4:
			gr_html_write_json_escaped(f, data, len);
			if (!len || data[len - 1] != '\n')
				fputc('\n', f);
			break;
		default:
			fwrite(line, 1, n + (nl != NULL), f);
		}
		seen |= 1u << marker(line, n);
		at += n + 1;
	}
	if ((seen & 0x1e) != 0x1e)
		return -EINVAL;
	return ferror(f) ? -EIO : 0;
}

int gr_html_save(const char *path, const char *title, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, err;

	fd = gr_outfile_begin(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return gr_outfile_end(tmp, path, err);
	}
	err = gr_html_write_page(f, title, data, len);
	if (fflush(f) && !err)
		err = -EIO;
	if (fclose(f) && !err)
		err = -EIO;
	return gr_outfile_end(tmp, path, err);
}
