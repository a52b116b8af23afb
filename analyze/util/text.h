/* SPDX-License-Identifier: MIT */
/*
 * Text from a trace made safe for a terminal. Names in a trace (command lines, host names,
 * library and source paths, thread names, kernel and frame names) are whatever the traced
 * program made them: an ESC or BEL among them would drive the terminal of whoever reads the
 * report. Every text output escapes them here, one rule, as `ls -b` does (docs/REPORTS.md):
 *
 *   \a \b \t \n \v \f \r \e   for BEL, BS, TAB, LF, VT, FF, CR and ESC
 *   \\                        for the backslash itself, so that an escape reads one way only
 *   \xHH                      for every other byte below 0x20, DEL (0x7f), a byte that is not
 *                             part of valid UTF-8, and each byte of a C1 control (U+0080 to
 *                             U+009F) encoded in UTF-8, which some terminals obey
 *
 * Valid UTF-8 otherwise passes unchanged. JSON, HTML, CSV, SQLite and Perfetto outputs escape
 * by their own rules and never use this.
 */
#ifndef GR_ANALYZE_TEXT_H
#define GR_ANALYZE_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Room for one escaped name in a caller's buffer; a longer one is cut at a whole character. */
#define GR_TEXT_LEN 4096

/* 1 when @s holds something the rule above escapes, else 0; NULL is clean. */
int gr_text_unsafe(const char *s);

/*
 * @s escaped into @buf (at most @size bytes, always terminated when @size > 0, cut only between
 * escapes or characters). Returns the length the whole escaped text has, as snprintf does.
 */
size_t gr_text_escape(char *buf, size_t size, const char *s);

/*
 * For printf's %s: @s itself when it is clean (no copy, never cut), else @s escaped into @buf
 * (cut to @size as gr_text_escape() cuts). NULL stays NULL. The result is valid while @s and
 * @buf are.
 */
const char *gr_text_esc(char *buf, size_t size, const char *s);

/* The same inside one printf's arguments: a buffer of the caller's block, one per use. */
#define GR_TEXT(s) gr_text_esc((char[GR_TEXT_LEN]){0}, GR_TEXT_LEN, (s))

/*
 * Print @text escaped and wrapped at @width columns, the first line after @first_indent columns
 * already used, the others indented by @indent; a newline at the end.
 */
void gr_text_wrap(FILE *f, const char *text, int first_indent, int indent, int width);

/* A section's heading: "\n== @title ====...", @width columns. */
void gr_text_heading(FILE *f, const char *title, int width);

/* Write @s escaped to @f, however long. Returns 0, or EOF when the write failed. */
int gr_text_fputs(const char *s, FILE *f);

#endif
