/* SPDX-License-Identifier: MIT */
/*
 * Progress on a terminal (progress.h). A ticker thread draws, so that work that counts nothing
 * (a sort, the report's figures) still shows it is alive, and the workers pay one atomic add per
 * call. The thread starts with the first begin() of a command that shows progress at all.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define TICK_NS	 250000000ull /* redraws a second: 4 */
#define WHAT_MAX 160

static struct {
	int enabled;
	const char *cmd;
	uint64_t after_ns;
	pthread_t ticker;
	int ticking;
	pthread_mutex_t lock; /* what, unit, total, start, shown; the terminal's line */
	pthread_cond_t wake;
	char what[WHAT_MAX];
	const char *unit;
	uint64_t total;
	uint64_t first_ns; /* the first begin(): the command's work has run since */
	uint64_t start_ns; /* this piece of work's begin(): its rate and what is left */
	int active, shown, stop;
	_Atomic uint64_t done;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static _Thread_local int quiet_thread;

void gr_progress_quiet_thread(int quiet)
{
	quiet_thread = quiet;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* @v with a k/M/G suffix, 3 significant digits or so: 45.2M */
static void scaled(char *out, size_t size, double v)
{
	if (v >= 1e9)
		snprintf(out, size, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(out, size, "%.1fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(out, size, "%.0fk", v / 1e3);
	else
		snprintf(out, size, "%.0f", v);
}

/* @s seconds as "4 s", "3 min 20 s", "1 h 5 min" */
static void duration(char *out, size_t size, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	if (t < 60)
		snprintf(out, size, "%lu s", t);
	else if (t < 3600)
		snprintf(out, size, "%lu min %lu s", t / 60, t % 60);
	else
		snprintf(out, size, "%lu h %lu min", t / 3600, t / 60 % 60);
}

void gr_progress_format(char *out, size_t size, const char *cmd, const char *what, uint64_t done,
			uint64_t total, const char *unit, uint64_t elapsed_ns)
{
	double secs = (double)elapsed_ns / 1e9;
	char a[32], b[32], rate[32], rest[48];

	if (!unit)
		unit = "";

	if (!total) {
		duration(rest, sizeof(rest), secs);
		if (done) {
			scaled(a, sizeof(a), (double)done);
			snprintf(out, size, "gpurec %s: %s: %s %s, %s", cmd, what, a, unit, rest);
		} else {
			snprintf(out, size, "gpurec %s: %s (%s)", cmd, what, rest);
		}
		return;
	}
	if (done > total)
		done = total;
	scaled(a, sizeof(a), (double)done);
	scaled(b, sizeof(b), (double)total);
	if (secs > 0 && done) {
		scaled(rate, sizeof(rate), (double)done / secs);
		duration(rest, sizeof(rest), secs * (double)(total - done) / (double)done);
		snprintf(out, size, "gpurec %s: %s: %s of %s %s (%.0f%%), %s/s, about %s left", cmd,
			 what, a, b, unit, 100.0 * (double)done / (double)total, rate, rest);
	} else {
		snprintf(out, size, "gpurec %s: %s: %s of %s %s (%.0f%%)", cmd, what, a, b, unit,
			 100.0 * (double)done / (double)total);
	}
}

/* Draw the line now, with P.lock held. */
static void draw(uint64_t now)
{
	char line[320];

	gr_progress_format(line, sizeof(line), P.cmd, P.what, atomic_load(&P.done), P.total, P.unit,
			   now - P.start_ns);
	/* one write: the line, the rest of the last one erased */
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	P.shown = 1;
}

static void *tick(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&P.lock);
	while (!P.stop) {
		struct timespec until;
		uint64_t now = now_ns();

		/* the delay counts from the command's first work: a second piece of it shows at
		 * once when the first took that long */
		if (P.active && now - P.first_ns >= P.after_ns)
			draw(now);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_NS;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&P.wake, &P.lock, &until);
	}
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

/* Clear the line, with P.lock held. */
static void clear(void)
{
	if (P.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		P.shown = 0;
	}
}

static void stop_ticker(void)
{
	pthread_mutex_lock(&P.lock);
	P.stop = 1;
	P.active = 0;
	clear();
	pthread_cond_signal(&P.wake);
	pthread_mutex_unlock(&P.lock);
	if (P.ticking)
		pthread_join(P.ticker, NULL);
	P.ticking = 0;
}

void gr_progress_init(const char *cmd, int quiet)
{
	const char *after = getenv("GPUREC_PROGRESS_AFTER_MS");

	P.cmd = cmd;
	P.enabled = !quiet && isatty(STDERR_FILENO);
	P.after_ns =
	    (after && *after ? strtoull(after, NULL, 10) : GR_PROGRESS_AFTER_MS) * 1000000ull;
}

void gr_progress_begin(const char *what, uint64_t total, const char *unit)
{
	if (!P.enabled || quiet_thread)
		return;
	pthread_mutex_lock(&P.lock);
	snprintf(P.what, sizeof(P.what), "%s", what);
	P.unit = unit ? unit : "";
	P.total = total;
	atomic_store(&P.done, 0);
	P.start_ns = now_ns();
	if (!P.first_ns)
		P.first_ns = P.start_ns;
	P.active = 1;
	/* past the delay already: the new work shows at once, not at the next tick */
	if (P.start_ns - P.first_ns >= P.after_ns)
		draw(P.start_ns);
	if (!P.ticking && !P.stop) {
		if (!pthread_create(&P.ticker, NULL, tick, NULL)) {
			P.ticking = 1;
			atexit(stop_ticker);
		}
	}
	pthread_mutex_unlock(&P.lock);
}

void gr_progress_add(uint64_t n)
{
	if (P.enabled && !quiet_thread)
		atomic_fetch_add_explicit(&P.done, n, memory_order_relaxed);
}

void gr_progress_end(void)
{
	if (!P.enabled || quiet_thread)
		return;
	pthread_mutex_lock(&P.lock);
	P.active = 0;
	clear();
	pthread_mutex_unlock(&P.lock);
}
