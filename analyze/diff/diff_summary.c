/* SPDX-License-Identifier: MIT */
/*
 * The diff's summary: at most GR_DIFF_SUMMARY_MAX sentences, most important first
 * (docs/REPORTS.md, "Summary"), written from the computed rows and figures. A figure is found by
 * its id, from df_summary_ids[]: never by the words the text shows, so rewording a figure's
 * name cannot drop a sentence, and test_diff checks every id here against real diffs.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/units.h"
#include "diff_common.h"
#include "diff_parts.h"

/* The figures the summary reads; the order is that of df_summary_ids[]. */
enum {
	S_ITERATION_LAUNCHES,
	S_ITERATION_PERIOD,
	S_RUN_DURATION,
	S_RUN_LAUNCHES,
	S_RUN_LAUNCH_RATE,
	S_ITERATION_DIR_BYTES,
	S_ITERATION_DIR_COPY_TIME,
	S_TRANSFER_DIR_BYTES,
	S_TRANSFER_DIR_COPY_TIME,
	S_ITERATION_SYNCS,
	S_ITERATION_SYNC_TIME,
	S_ITERATION_RUNNABLE_WAIT,
	S_TRANSFER_SYNCS,
	S_TRANSFER_SYNC_TIME,
	S_CPU_GAP_WAIT,
	S_BUDGET_TOTAL,
	S_BUDGET_PART,
	S_BUDGET_REASON,
	S_NIDS
};

const char *const df_summary_ids[] = {
    [S_ITERATION_LAUNCHES] = "iteration.launches",
    [S_ITERATION_PERIOD] = "iteration.period",
    [S_RUN_DURATION] = "run.duration",
    [S_RUN_LAUNCHES] = "run.launches",
    [S_RUN_LAUNCH_RATE] = "run.launch_rate",
    [S_ITERATION_DIR_BYTES] = "iteration.<dir>.bytes",
    [S_ITERATION_DIR_COPY_TIME] = "iteration.<dir>.copy_time",
    [S_TRANSFER_DIR_BYTES] = "transfer.<dir>.bytes",
    [S_TRANSFER_DIR_COPY_TIME] = "transfer.<dir>.copy_time",
    [S_ITERATION_SYNCS] = "iteration.syncs",
    [S_ITERATION_SYNC_TIME] = "iteration.sync_time",
    [S_ITERATION_RUNNABLE_WAIT] = "iteration.runnable_wait",
    [S_TRANSFER_SYNCS] = "transfer.syncs",
    [S_TRANSFER_SYNC_TIME] = "transfer.sync_time",
    [S_CPU_GAP_WAIT] = "cpu.gap_wait",
    [S_BUDGET_TOTAL] = "budget.total",
    [S_BUDGET_PART] = "budget.<part>",
    [S_BUDGET_REASON] = "budget.blocked.<reason>",
    [S_NIDS] = NULL,
};

struct summary {
	struct gr_diff *d;
	int changes; /* sentences that report a change */
	int err;
};

/* Figure @s of df_summary_ids[], for direction @dir where its id has one; NULL when the diff
 * does not have it (no iteration, no copies that way, no scheduler events). */
static const struct gr_diff_metric *fig(const struct gr_diff *d, int s, unsigned dir)
{
	char id[GR_DIFF_ID_LEN];

	return gr_diff_metric(d, df_id(id, sizeof(id), df_summary_ids[s], df_dir_id(dir)));
}

static void say(struct summary *c, int change, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(struct summary *c, int change, const char *fmt, ...)
{
	struct gr_diff *d = c->d;
	va_list ap;
	char *s = NULL;

	if (c->err || d->nsummary == GR_DIFF_SUMMARY_MAX)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		c->err = -ENOMEM;
		return;
	}
	d->summary[d->nsummary++] = s;
	c->changes += change;
}

void gr_diff_format(char *buf, size_t len, const char *unit, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "ns"))
		gr_units_ns(buf, len, v);
	else if (!strcmp(unit, "B"))
		gr_units_bytes(buf, len, v);
	else if (!strcmp(unit, "/s"))
		snprintf(buf, len, "%.0f/s", v);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/* "A -> B" of a metric, in its unit. */
static const char *arrow(const struct gr_diff_metric *mt, char *buf, size_t len)
{
	char a[32], b[32];

	gr_diff_format(a, sizeof(a), mt->unit, mt->v[0]);
	gr_diff_format(b, sizeof(b), mt->unit, mt->v[1]);
	snprintf(buf, len, "%s -> %s", a, b);
	return buf;
}

/* A time or rate metric matters when it moved by the summary threshold (or the tolerance). */
static int matters(const struct gr_diff *d, const struct gr_diff_metric *mt)
{
	double pct = d->tolerance > GR_DIFF_SUMMARY_PCT ? d->tolerance : GR_DIFF_SUMMARY_PCT;

	return mt && !isnan(mt->delta) && df_change_pct(mt->v[0], mt->v[1]) >= pct;
}

/* A count metric matters on any change beyond the tolerance. */
static int count_changed(const struct gr_diff_metric *mt)
{
	return mt && !isnan(mt->delta) && mt->delta != 0 && !mt->hidden;
}

/* A side's value of @mt is above @share of its value of @of (both present). */
static int above(const struct gr_diff_metric *mt, const struct gr_diff_metric *of, double share)
{
	return mt && of && (mt->v[0] > share * of->v[0] || mt->v[1] > share * of->v[1]);
}

static void names_list(const struct gr_diff *d, enum gr_diff_status st, char *buf, size_t len)
{
	size_t at = 0, shown = 0, total = 0;
	char nm[128];

	buf[0] = 0;
	for (size_t i = 0; i < d->nkernels; i++) {
		if (d->kernels[i].status != st)
			continue;
		if (shown < 3 && at < len) {
			at += (size_t)snprintf(buf + at, len - at, "%s%s", shown ? ", " : "",
					       df_short_name(d->kernels[i].name, nm, sizeof(nm)));
			shown++;
		}
		total++;
	}
	if (total > shown && at < len)
		snprintf(buf + at, len - at, ", ...");
}

/* One side's launches per iteration: "40", or with graph launches "1 graph launch (40 kernels)"
 * or "3 (1 graph launch, 42 kernels)". */
static void iter_launches(const struct gr_report_iteration *it, char *buf, size_t len)
{
	if (!it->graph_launches)
		snprintf(buf, len, "%u", it->launches);
	else if (it->graph_launches == it->launches)
		snprintf(buf, len, "%u graph launch%s (%" PRIu64 " kernels)", it->launches,
			 it->launches == 1 ? "" : "es", it->kernels);
	else
		snprintf(buf, len, "%u (%u graph launch%s, %" PRIu64 " kernels)", it->launches,
			 it->graph_launches, it->graph_launches == 1 ? "" : "es", it->kernels);
}

/* Two runs without a kernel in common: what every kernel line below is worth. */
static void say_comparable(struct summary *c)
{
	struct gr_diff *d = c->d;

	if (!d->comparable)
		say(c, 0,
		    "no kernel in common (BASE %zu, NEW %zu kernels): the kernel rows do not "
		    "compare; the whole-run figures still do",
		    d->nremoved, d->nadded);
}

/* Kernel rows and fusion rows: what a change of the program shows first. */
static void say_kernels(struct summary *c)
{
	struct gr_diff *d = c->d;
	const struct gr_diff_metric *mt = fig(d, S_ITERATION_LAUNCHES, 0);
	int both = d->iter_found[0] && d->iter_found[1];
	char buf[160], list[256];

	/* launches per iteration: the figure a fusion or a batching change moves */
	if (both && mt) {
		const struct gr_report_iteration *it0 = &d->rep[0]->launches.iter,
						 *it1 = &d->rep[1]->launches.iter;

		if (it0->graph_launches || it1->graph_launches) {
			char a[64], b[64];

			iter_launches(it0, a, sizeof(a));
			iter_launches(it1, b, sizeof(b));
			if (strcmp(a, b))
				say(c, 1, "launches per iteration %s -> %s", a, b);
			else
				say(c, 0, "launches per iteration unchanged (%s)", a);
		} else if (mt->delta != 0)
			say(c, 1, "launches per iteration %s", arrow(mt, buf, sizeof(buf)));
		else
			say(c, 0, "launches per iteration unchanged (%.0f)", mt->v[0]);
	} else if (d->iter_found[0] != d->iter_found[1] && mt) {
		say(c, 1, "an iteration was detected only in %s (%.0f launches per iteration)",
		    d->iter_found[0] ? "BASE" : "NEW", mt->v[d->iter_found[0] ? 0 : 1]);
	}
	for (size_t i = 0; i < d->nfusion; i++) {
		const struct gr_diff_fusion *f = &d->fusion[i];

		if (f->status == GR_DIFF_REMOVED)
			say(c, 1, "fusion candidate %s gone", f->label);
		else if (f->status == GR_DIFF_ADDED)
			say(c, 1, "new fusion candidate %s", f->label);
	}
	if (d->nadded || d->nremoved) {
		char added[300] = "", removed[300] = "";

		if (d->nadded) {
			names_list(d, GR_DIFF_ADDED, list, sizeof(list));
			snprintf(added, sizeof(added), "%zu added (%s)", d->nadded, list);
		}
		if (d->nremoved) {
			names_list(d, GR_DIFF_REMOVED, list, sizeof(list));
			snprintf(removed, sizeof(removed), "%zu removed (%s)", d->nremoved, list);
		}
		say(c, 1, "kernels: %s%s%s", added, d->nadded && d->nremoved ? ", " : "", removed);
	}
}

/* The figures that moved: launches, rate, iteration time, copies, syncs, runnable wait. */
static void say_figures(struct summary *c)
{
	struct gr_diff *d = c->d;
	const struct gr_diff_metric *mt;
	int both = d->iter_found[0] && d->iter_found[1];
	char buf[160];

	mt = fig(d, S_RUN_LAUNCHES, 0);
	if (count_changed(mt))
		say(c, 1, "launches %s (%+.0f, x%.2f)", arrow(mt, buf, sizeof(buf)), mt->delta,
		    mt->ratio);
	mt = fig(d, S_RUN_LAUNCH_RATE, 0);
	if (matters(d, mt))
		say(c, 1, "launches/s %s (%+.0f%%)", arrow(mt, buf, sizeof(buf)),
		    100 * (mt->ratio - 1));
	mt = fig(d, S_ITERATION_PERIOD, 0);
	if (matters(d, mt))
		say(c, 1, "iteration time %s (%+.0f%%)", arrow(mt, buf, sizeof(buf)),
		    100 * (mt->ratio - 1));
	/* copies: per iteration when both have one, else over the run */
	for (unsigned k = 0; k < GR_REPORT_NDIRS; k++) {
		const char *dir = gr_copy_kind_name(k);

		mt = fig(d, both ? S_ITERATION_DIR_BYTES : S_TRANSFER_DIR_BYTES, k);
		if (mt && (matters(d, mt) || (mt->v[0] == 0) != (mt->v[1] == 0)))
			say(c, 1, "%s bytes%s %s", dir, both ? " per iteration" : "",
			    arrow(mt, buf, sizeof(buf)));
		mt = fig(d, both ? S_ITERATION_DIR_COPY_TIME : S_TRANSFER_DIR_COPY_TIME, k);
		if (mt && matters(d, mt) && mt->v[0] > 0 && mt->v[1] > 0)
			say(c, 1, "%s copy time%s %s", dir, both ? " per iteration" : "",
			    arrow(mt, buf, sizeof(buf)));
	}
	if (both) {
		mt = fig(d, S_ITERATION_SYNCS, 0);
		if (mt && mt->delta != 0)
			say(c, 1, "syncs per iteration %s", arrow(mt, buf, sizeof(buf)));
		else if (mt)
			say(c, 0, "syncs per iteration unchanged (%s)",
			    (gr_diff_format(buf, sizeof(buf), "", mt->v[0]), buf));
		mt = fig(d, S_ITERATION_SYNC_TIME, 0);
		if (matters(d, mt))
			say(c, 1, "sync time per iteration %s", arrow(mt, buf, sizeof(buf)));
		/* a wait under 1% of the iteration is noise, however much it moved */
		mt = fig(d, S_ITERATION_RUNNABLE_WAIT, 0);
		if (matters(d, mt) && above(mt, fig(d, S_ITERATION_PERIOD, 0), 0.01))
			say(c, 1, "runnable wait per iteration %s", arrow(mt, buf, sizeof(buf)));
	} else {
		mt = fig(d, S_TRANSFER_SYNCS, 0);
		if (count_changed(mt))
			say(c, 1, "syncs %s", arrow(mt, buf, sizeof(buf)));
		mt = fig(d, S_TRANSFER_SYNC_TIME, 0);
		if (matters(d, mt))
			say(c, 1, "sync time %s", arrow(mt, buf, sizeof(buf)));
	}
	mt = fig(d, S_CPU_GAP_WAIT, 0);
	if (matters(d, mt) && above(mt, fig(d, S_RUN_DURATION, 0), 0.01))
		say(c, 1, "runnable wait in launch gaps %s", arrow(mt, buf, sizeof(buf)));
}

/* Device memory: growth (a leak) that appeared or went, the peak and what was left at the end
 * when they moved by the summary threshold. */
static void say_memory(struct summary *c)
{
	const struct gr_diff_metric *mt = gr_diff_metric(c->d, "memory.growth");
	char buf[160];

	if (mt && !isnan(mt->delta) && mt->delta != 0)
		say(c, 1, "device memory growth per iteration (a leak) %s",
		    arrow(mt, buf, sizeof(buf)));
	mt = gr_diff_metric(c->d, "memory.peak");
	if (matters(c->d, mt))
		say(c, 1, "device memory peak %s", arrow(mt, buf, sizeof(buf)));
	mt = gr_diff_metric(c->d, "memory.outstanding");
	if (matters(c->d, mt) || (mt && !isnan(mt->delta) && (mt->v[0] == 0) != (mt->v[1] == 0)))
		say(c, 1, "device memory outstanding at the end %s", arrow(mt, buf, sizeof(buf)));
}

/* A budget part whose median moved, for ordering. */
struct moved {
	const struct gr_diff_metric *mt;
	unsigned part;
};

/* The largest move first; ties in part order. */
static int cmp_moved(const void *pa, const void *pb)
{
	const struct moved *x = pa, *y = pb;
	double dx = fabs(x->mt->delta), dy = fabs(y->mt->delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->part < y->part ? -1 : x->part > y->part;
}

/*
 * What bounds the step on each side, as each report's one diagnosis names it (report_types.h),
 * never judged again here: the diff and the reports cannot disagree.
 */
static void say_bound(struct summary *c)
{
	enum gr_step_bound b0 = c->d->rep[0]->diagnosis.bound, b1 = c->d->rep[1]->diagnosis.bound;

	if (b0 != b1)
		say(c, 1, "step: %s -> %s", df_bound_words(b0), df_bound_words(b1));
	else if (b0 != GR_BOUND_NONE)
		say(c, 0, "step: %s on both sides", df_bound_words(b0));
}

/*
 * The parts of the step budget whose median moved the most (GR_DIFF_SUMMARY_STEP_PCT), in the
 * words of the budget group: "host work per step 20.0 us -> 180 us". After the kernel lines:
 * those say what the program changed, these what it cost the step.
 */
static void say_budget(struct summary *c)
{
	struct gr_diff *d = c->d;
	const struct gr_diff_metric *tot = fig(d, S_BUDGET_TOTAL, 0);
	struct moved moved[GR_BUDGET_NPARTS];
	size_t n = 0;
	char id[GR_DIFF_ID_LEN], buf[160];
	double step;

	/* a budget on one side only moves nothing: the bound line says what changed */
	if (!tot || isnan(tot->delta))
		return;
	step = tot->v[0] > tot->v[1] ? tot->v[0] : tot->v[1];
	for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++) {
		const struct gr_diff_metric *mt =
		    gr_diff_metric(d, df_id(id, sizeof(id), df_summary_ids[S_BUDGET_PART],
					    gr_budget_part_name(p)));

		if (matters(d, mt) && fabs(mt->delta) >= GR_DIFF_SUMMARY_STEP_PCT / 100 * step)
			moved[n++] = (struct moved){mt, p};
	}
	gr_qsort(moved, n, sizeof(*moved), cmp_moved);
	for (size_t i = 0; i < n && i < GR_DIFF_SUMMARY_PARTS; i++)
		say(c, 1, "%s per step %s", df_budget_words(moved[i].part),
		    arrow(moved[i].mt, buf, sizeof(buf)));
	/* why the blocked part moved: one line per reason that changed as much ("GIL wait per
	 * step 540 us -> 12 us") */
	for (unsigned r = 0; r < GR_BUDGET_NREASONS; r++) {
		const struct gr_diff_metric *mt =
		    gr_diff_metric(d, df_id(id, sizeof(id), df_summary_ids[S_BUDGET_REASON],
					    gr_block_reason_name(r)));

		if (matters(d, mt) && fabs(mt->delta) >= GR_DIFF_SUMMARY_STEP_PCT / 100 * step)
			say(c, 1, "%s per step %s", gr_block_reason_words(r),
			    arrow(mt, buf, sizeof(buf)));
	}
}

/* The failures of one (api, error) in trace @s: 0 when it has none. */
static uint64_t failures(const struct gr_outcome *o, unsigned api, uint32_t status)
{
	for (size_t i = 0; i < o->nerrors; i++)
		if (o->errors[i].api == api && o->errors[i].status == status)
			return o->errors[i].count;
	return 0;
}

/*
 * Failed calls compared by API and error (BASE's errors, then those only NEW has), and a trace
 * where most calls failed: its figures judge nothing.
 */
static void say_failures(struct summary *c)
{
	const struct gr_outcome *o[2] = {&c->d->rep[0]->outcome.o, &c->d->rep[1]->outcome.o};
	char num[64];

	for (int s = 0; s < 2; s++)
		if (o[s]->most_failed)
			say(c, 1,
			    "%s: most calls failed (%" PRIu64 " of %" PRIu64 ")%s%s: its figures "
			    "are not judged",
			    s ? "NEW" : "BASE", o[s]->failed, o[s]->failed + o[s]->ok,
			    o[s]->cause ? ", likely " : "", o[s]->cause ? o[s]->cause : "");
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < o[s]->nerrors; i++) {
			const struct gr_outcome_error *e = &o[s]->errors[i];
			uint64_t n[2];

			n[s] = e->count;
			n[!s] = failures(o[!s], e->api, e->status);
			/* a pair both traces have is said once, from BASE's side */
			if ((s && n[0]) || n[0] == n[1])
				continue;
			say(c, 1, "failed %s calls (%s): %" PRIu64 " -> %" PRIu64,
			    gr_api_name(e->api), gr_outcome_error_text(e, num, sizeof(num)), n[0],
			    n[1]);
		}
	}
}

/* What limits the comparison: losses, damage, two hosts. */
static void say_caveats(struct summary *c, const struct gr_model *const m[2])
{
	for (int s = 0; s < 2; s++) {
		uint64_t lost = gr_model_lost_events(m[s]);

		if (lost)
			say(c, 0, "%s lost %" PRIu64 " events while recording: its counts are low",
			    s ? "NEW" : "BASE", lost);
		if (!gr_model_integrity(m[s])->complete)
			say(c, 0,
			    "%s is damaged: its figures cover the part that could be read and are "
			    "lower bounds",
			    s ? "NEW" : "BASE");
	}
	if (!c->d->same_host)
		say(c, 0, "recorded on different hosts (%s, %s): kernels matched by name",
		    gr_model_header(m[0])->host, gr_model_header(m[1])->host);
}

/* The NVTX ranges whose time per step moved most (rows are by the size of the change): "backward
 * 12.1 ms -> 9.4 ms per step", and a count that changed. */
static void say_nvtx(struct summary *c)
{
	const struct gr_diff *d = c->d;
	double least = d->tolerance > GR_DIFF_SUMMARY_PCT ? d->tolerance : GR_DIFF_SUMMARY_PCT;
	int said = 0;

	for (size_t i = 0; i < d->nnvtx && said < GR_DIFF_SUMMARY_PARTS; i++) {
		const struct gr_diff_nvtx *r = &d->nvtx[i];
		char a[32], b[32];

		if (r->status != GR_DIFF_COMMON || isnan(r->per_step_delta) || !r->per_step[0] ||
		    100 * fabs(r->per_step_delta) / r->per_step[0] < least)
			continue;
		gr_diff_format(a, sizeof(a), "ns", r->per_step[0]);
		gr_diff_format(b, sizeof(b), "ns", r->per_step[1]);
		say(c, 1, "NVTX range %s: %s -> %s per step", r->name, a, b);
		said++;
	}
}

int df_summarize(struct gr_diff *d, const struct gr_model *const m[2])
{
	struct summary c = {.d = d};

	d->summary = calloc(GR_DIFF_SUMMARY_MAX, sizeof(*d->summary));
	if (!d->summary)
		return -ENOMEM;
	say_failures(&c);
	say_comparable(&c);
	say_bound(&c);
	say_kernels(&c);
	say_budget(&c);
	say_nvtx(&c);
	say_figures(&c);
	say_memory(&c);
	say_caveats(&c, m);
	if (!c.changes && !c.err) {
		/* first: it is the answer */
		if (d->nsummary == GR_DIFF_SUMMARY_MAX)
			free(d->summary[--d->nsummary]);
		say(&c, 0, "no differences%s",
		    d->tolerance > 0 ? " beyond the tolerance" : " in what was recorded");
		if (!c.err) {
			char *first = d->summary[d->nsummary - 1];

			memmove(d->summary + 1, d->summary, (d->nsummary - 1) * sizeof(char *));
			d->summary[0] = first;
		}
	}
	return c.err;
}
