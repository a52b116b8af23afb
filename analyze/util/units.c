/* SPDX-License-Identifier: MIT */
/* Figures for people (units.h): one rule per unit, shared by every command. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "units.h"

const char *gr_units_ns(char *buf, size_t n, double ns)
{
	double a = fabs(ns);

	if (ns == 0)
		snprintf(buf, n, "0 ns");
	else if (a < 10e3)
		snprintf(buf, n, "%.2f us", ns / 1e3);
	else if (a < 1e6)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else if (a < 10e9)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", ns / 1e9);
	return buf;
}

const char *gr_units_bytes(char *buf, size_t n, double bytes)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double a = fabs(bytes), v = bytes;
	unsigned u = 0;

	while (a >= 1024 && u < 5) {
		a /= 1024;
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, n, "%.0f B", v);
	else
		snprintf(buf, n, u < 3 ? "%.1f %s" : "%.2f %s", v, unit[u]);
	return buf;
}

const char *gr_units_rate(char *buf, size_t n, double bytes_per_s)
{
	double a = fabs(bytes_per_s);

	if (a >= 1e9)
		snprintf(buf, n, "%.2f GB/s", bytes_per_s / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%.1f MB/s", bytes_per_s / 1e6);
	else
		snprintf(buf, n, "%.1f kB/s", bytes_per_s / 1e3);
	return buf;
}

const char *gr_units_pct(char *buf, size_t n, double share)
{
	snprintf(buf, n, fabs(share) < 0.1 ? "%.1f%%" : "%.0f%%", share * 100);
	return buf;
}

const char *gr_units_s(char *buf, size_t n, double ns)
{
	snprintf(buf, n, "%.3f s", ns / 1e9);
	return buf;
}

const char *gr_units_count(char *buf, size_t n, uint64_t count, const char *one, const char *many)
{
	snprintf(buf, n, "%" PRIu64 " %s", count, count == 1 ? one : many);
	return buf;
}
