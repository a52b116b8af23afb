/* SPDX-License-Identifier: MIT */
/*
 * Figures for people: the one place that decides how a time, a size, a rate or a share reads, so
 * that report, info, diff and export print the same figure the same way. Each writes into @buf
 * (at most @n bytes, always terminated) and returns it. Negative values (diff's deltas) keep
 * their sign and are scaled by their magnitude. Machine-readable output (--json) never uses
 * these: it carries raw ns, bytes and ratios.
 */
#ifndef GR_ANALYZE_UNITS_H
#define GR_ANALYZE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define GR_UNITS_LEN 32 /* enough for any of them */

/* "0.50 us", "12.3 us", "4.57 ms", "12.00 s": three significant digits or so, from the us;
 * exactly 0 is "0 ns". */
const char *gr_units_ns(char *buf, size_t n, double ns);
/* "512 B", "4.0 KiB", "16.0 MiB", "1.50 GiB" (powers of 1024, up to PiB). */
const char *gr_units_bytes(char *buf, size_t n, double bytes);
/* A rate in bytes/s: "7.90 GB/s", "86.4 MB/s", "12.0 kB/s" (powers of 1000, as links are sold). */
const char *gr_units_rate(char *buf, size_t n, double bytes_per_s);
/* A share as a percentage: one decimal under 10%, none from there ("0.3%", "58%"). */
const char *gr_units_pct(char *buf, size_t n, double share);
/* Seconds with ms resolution, for positions in a recording: "12.345 s". */
const char *gr_units_s(char *buf, size_t n, double ns);
/* A count and its noun in agreement: "1 launch", "0 launches", "2 copies". @one is the singular,
 * @many the plural. */
const char *gr_units_count(char *buf, size_t n, uint64_t count, const char *one, const char *many);

#endif
