/* SPDX-License-Identifier: MIT */
/*
 * What every part of the diff uses (see diff_common.h): change in percent, metric ids, short
 * kernel names, and a figure looked up by its id.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_common.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *df_short_name(const char *name, char *buf, size_t len)
{
	size_t n = strcspn(name, "(");

	if (!n || n >= len)
		n = strnlen(name, len - 1);
	memcpy(buf, name, n);
	buf[n] = 0;
	return buf;
}

double df_change_pct(double a, double b)
{
	if (isnan(a) || isnan(b))
		return INFINITY;
	if (a == b)
		return 0;
	if (a == 0)
		return INFINITY;
	return fabs(b - a) / fabs(a) * 100.0;
}

const char *df_dir_id(unsigned k)
{
	/* enum gr_copy_kind order, as gr_copy_kind_name() */
	static const char *const dirs[] = {"h2h", "h2d", "d2h", "d2d", "default"};

	return k < N(dirs) ? dirs[k] : "unknown";
}

const char *df_budget_words(unsigned part)
{
	/* enum gr_budget_part order; the diff's own words, since a diff line reads "<words> per
	 * step A -> B" where budget.c's words label a chart */
	static const char *const words[] = {
	    "launch calls",	"graph launch calls", "copies",
	    "device syncs",	"stream syncs",	      "event syncs",
	    "alloc/free calls", "other calls",	      "host work",
	    "runnable wait",	"blocked time",	      "time outside CUDA (state unknown)",
	};

	_Static_assert(N(words) == GR_BUDGET_NPARTS, "a word per budget part");
	return part < N(words) ? words[part] : "unknown part";
}

const char *df_bound_words(unsigned bound)
{
	/* enum gr_step_bound order, as gr_step_bound_name() */
	static const char *const words[] = {
	    "not judged",
	    "bound unknown",
	    "GPU-bound",
	    "launch-bound",
	    "host-bound",
	    "CPU-starved",
	    "blocked outside CUDA",
	    "transfer-bound",
	    "allocation-bound",
	    "mixed (no part takes half)",
	};

	_Static_assert(N(words) == GR_BOUND_MIXED + 1, "words per step bound");
	return bound < N(words) ? words[bound] : "not judged";
}

const char *df_id(char *buf, size_t len, const char *tmpl, const char *part)
{
	const char *lt = strchr(tmpl, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (!gt)
		snprintf(buf, len, "%s", tmpl);
	else
		snprintf(buf, len, "%.*s%s%s", (int)(lt - tmpl), tmpl, part, gt + 1);
	return buf;
}

const struct gr_diff_metric *gr_diff_metric(const struct gr_diff *d, const char *id)
{
	for (size_t i = 0; i < d->nmetrics; i++)
		if (!strcmp(d->metrics[i].id, id))
			return &d->metrics[i];
	return NULL;
}
