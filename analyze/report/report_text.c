/* SPDX-License-Identifier: MIT */
/*
 * The report as aligned text for a 100-column terminal: a summary of the four verdicts first,
 * then one block per section. Ranked tables stop after @top rows and say how many were left out.
 * Every figure says whether it is measured on the host or estimated (docs/REPORTS.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyze/util/syscalls.h"
#include "analyze/util/text.h"
#include "report.h"
#include "report_sections.h"

#define WIDTH	   100
#define NAME_WIDTH 46

static const char *level_name(enum gr_verdict_level l)
{
	return l == GR_VERDICT_PROBLEM ? "PROBLEM" : l == GR_VERDICT_OK ? "ok" : "-";
}

/* Print @text wrapped at WIDTH, the first line after @first_indent columns already used, the
 * others indented by @indent. */
static void wrap(FILE *f, const char *text, int first_indent, int indent)
{
	gr_text_wrap(f, text, first_indent, indent, WIDTH);
}

/* A name from the trace, escaped, cut to @w columns with "..." when longer. */
static const char *cut(char *buf, size_t n, const char *s, size_t w)
{
	char esc[GR_TEXT_LEN];
	const char *e = gr_text_esc(esc, sizeof(esc), s);
	size_t len = strlen(e);

	if (len <= w && e == s)
		return s;
	if (len <= w)
		snprintf(buf, n, "%s", e);
	else
		snprintf(buf, n, "%.*s...", (int)(w - 3), e);
	return buf;
}

static void heading(FILE *f, const char *title)
{
	gr_text_heading(f, title, WIDTH);
}

/* "1.50 waves", or "waves unknown" without an SM count. */
static const char *waves_str(char *buf, size_t n, double waves)
{
	if (isnan(waves))
		snprintf(buf, n, "waves unknown");
	else
		snprintf(buf, n, "%.2f waves", waves);
	return buf;
}

static const char *dims(char *buf, size_t n, const uint32_t d[3])
{
	snprintf(buf, n, "(%u,%u,%u)", d[0], d[1], d[2]);
	return buf;
}

static const char *rate_str(char *buf, size_t n, double r)
{
	if (r >= 1e6)
		snprintf(buf, n, "%.2fM", r / 1e6);
	else if (r >= 1e4)
		snprintf(buf, n, "%.1fk", r / 1e3);
	else
		snprintf(buf, n, "%.1f", r);
	return buf;
}

static void more(FILE *f, size_t shown, size_t n, const char *what)
{
	if (n > shown)
		fprintf(f, "  ... %zu more %s (--top N to show more)\n", n - shown, what);
}

/*
 * The site @s after @label, caller first: its innermost @max frames from the outermost of them
 * down to the one that made the call, then @call (the CUDA call, when the line does not say
 * it already; NULL for none).
 */
static void site_line(FILE *f, const char *label, const struct gr_report_site *s, unsigned max,
		      const char *call)
{
	char line[4096];
	size_t at = 0;

	if (!s->nframes) {
		fprintf(f, "%s(no stack recorded)\n", label);
		return;
	}
	line[0] = 0;
	if (s->python >= 0) {
		/* caller first: the program's line, then the native call it made */
		snprintf(line, sizeof(line), "%s%s%s%s%s", s->frames[s->python],
			 s->launcher >= 0 ? " -> " : "",
			 s->launcher >= 0 ? s->frames[s->launcher] : "", call ? " -> " : "",
			 call ? call : "");
		fputs(label, f);
		wrap(f, line, (int)strlen(label), (int)strlen(label) + 2);
		return;
	}
	/* caller first: the outermost of the @max innermost frames, down to the call site */
	if (s->nframes > max)
		at = (size_t)snprintf(line, sizeof(line), "... -> ");
	for (uint32_t i = s->nframes < max ? s->nframes : max; i-- > 0 && at < sizeof(line) - 8;)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s", s->frames[i],
				       i ? " -> " : "");
	if (call && at < sizeof(line) - 8)
		snprintf(line + at, sizeof(line) - at, " -> %s", call);
	fputs(label, f);
	wrap(f, line, (int)strlen(label), (int)strlen(label) + 2);
}

static void dist_cols(FILE *f, const struct gr_dist *d)
{
	char b1[32], b2[32], b3[32];

	if (!d->count) {
		fprintf(f, " %10s %10s %10s", "-", "-", "-");
		return;
	}
	fprintf(f, " %10s %10s %10s", gr_units_ns(b1, sizeof(b1), d->median),
		gr_units_ns(b2, sizeof(b2), d->p99), gr_units_ns(b3, sizeof(b3), d->max));
}

/* At most this many kernels are named per launch site. */
#define SITE_KERNELS 3

static void launch_sites(FILE *f, const struct gr_report_launches *L, const struct gr_model *m,
			 unsigned top)
{
	const struct gr_launch_sites *S = &L->sites;
	const char *const *names = gr_model_kernel_names(m, NULL);
	char line[2 * GR_FRAME_TEXT + 8], fb[GR_FRAME_TEXT], lb[GR_FRAME_TEXT], pc[32];
	size_t i;

	fprintf(f,
		"\n  launch sites: %zu (the innermost Python frame, else the native frame that "
		"launched)\n",
		S->n);
	if (S->without_site)
		fprintf(f, "  %" PRIu64 " launches without a stack are in none\n", S->without_site);
	fprintf(f, "  %9s %7s  %s\n", "launches", "share", "site");
	for (i = 0; i < S->n && i < top; i++) {
		const struct gr_launch_site *s = &S->v[i];
		int at = 0;

		gr_frame_format(&s->frame, fb, sizeof(fb));
		if (s->frame.kind == GR_FRAME_KIND_PYTHON && s->launcher.value)
			snprintf(line, sizeof(line), "%s -> %s", fb,
				 gr_frame_format(&s->launcher, lb, sizeof(lb)));
		else
			snprintf(line, sizeof(line), "%s", fb);
		fprintf(f, "  %9" PRIu64 " %7s  ", s->launches,
			gr_units_pct(pc, sizeof(pc),
				     L->total ? (double)s->launches / (double)L->total : 0));
		wrap(f, line, 20, 22);
		fprintf(f, "  %9s %7s  kernels:", "", "");
		for (size_t k = 0; k < s->nkernels && k < SITE_KERNELS; k++, at++)
			fprintf(f, "%s %s %" PRIu64, at ? "," : "",
				GR_TEXT(names[s->kernels[k].name_id]), s->kernels[k].count);
		if (s->nkernels > SITE_KERNELS)
			fprintf(f, ", %zu more", s->nkernels - SITE_KERNELS);
		fputc('\n', f);
	}
	more(f, i, S->n, "launch sites");
}

/* The loops found beside the iteration, when there is more than one: each with its span from
 * the recording's start, and one line saying why the iteration is the one it is. */
static void phases(FILE *f, const struct gr_report *r, const struct gr_report_iteration *it)
{
	static const char *const why[] = {
	    [GR_PHASE_ONLY] = "the only loop",
	    [GR_PHASE_MOST_CALLS] = "the loop holding the most calls",
	    [GR_PHASE_SHORTER_PERIOD] = "tied on calls, the loop with the shorter period",
	    [GR_PHASE_RARER_ANCHOR] = "tied on calls and period, the loop found first",
	    [GR_PHASE_STEP] = "",
	    [GR_PHASE_NVTX] = "",
	};
	char b1[GR_UNITS_LEN], b2[GR_UNITS_LEN], c1[GR_UNITS_LEN], c2[GR_UNITS_LEN];

	if (it->why == GR_PHASE_NVTX) {
		fprintf(
		    f,
		    "  step: the NVTX range '%s' starts once an iteration of the loop found: the "
		    "steps are its %" PRIu64 " ranges, %" PRIu64 " whole steps\n",
		    GR_TEXT(r->nvtx.step_range), it->step_starts, it->count);
		return;
	}
	if (it->step) {
		fprintf(f,
			"  step: --step %s starts %" PRIu64 " on the thread: %" PRIu64
			" whole steps, %.0f%% repeating the step before\n",
			GR_TEXT(it->step), it->step_starts, it->count, it->match * 100);
		/* a kernel launched three times a step starts three "steps" a step */
		if (it->match < RP_ITER_MATCH)
			fprintf(f,
				"    the steps differ: if the call named is made more than once a "
				"step, name one made once\n");
		return;
	}
	/* why this loop, in one line, even when it was the only one */
	if (it->nphases_found < 2) {
		fprintf(f, "  loops: 1 found on the thread; the iteration is the only loop\n");
		return;
	}
	fprintf(f, "  loops: %zu found on the thread; the iteration is %s (%" PRIu64 " calls)\n",
		it->nphases_found, why[it->why], it->count * it->calls);
	for (size_t i = 0; i < it->nphases; i++) {
		const struct gr_report_phase *ph = &it->phases[i];

		fprintf(f, "    %s x %s (%u launch%s), %s to %s%s\n",
			gr_units_count(c1, sizeof(c1), ph->count, "iteration", "iterations"),
			gr_units_count(c2, sizeof(c2), ph->calls, "call", "calls"), ph->launches,
			ph->launches == 1 ? "" : "es",
			gr_units_ns(b1, sizeof(b1), (double)(ph->start_ts - r->first_ts)),
			gr_units_ns(b2, sizeof(b2), (double)(ph->end_ts - r->first_ts)),
			ph->chosen ? "  <- the iteration" : "");
	}
	if (it->nphases_found > it->nphases)
		fprintf(f, "    %zu smaller loops not shown\n", it->nphases_found - it->nphases);
}

/* The name the program gave @t with NVTX, else its comm. */
static const char *thread_name(const struct gr_report *r, const struct gr_thread *t)
{
	const char *n = gr_nvtx_thread_name(&r->nvtx.set, t->pid, t->tid);

	return n ? n : t->comm;
}

static void launches(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top)
{
	const struct gr_report_launches *L = &r->launches;
	const struct gr_report_iteration *it = &L->iter;
	const struct gr_thread *th = gr_model_threads(m, NULL);
	char b1[64], b2[64], b3[64], nb[NAME_WIDTH + 8], wb[32];
	size_t i;

	heading(f, "1. Launch frequency");
	if (!L->total) {
		fprintf(f, "  %s\n", GR_TEXT(L->verdict.text));
		return;
	}
	fprintf(f, "  %s in %s (first to last launch): %s launches/s\n",
		gr_units_count(b3, sizeof(b3), L->total, "launch", "launches"),
		gr_units_ns(b1, sizeof(b1), L->last_ts - L->first_ts),
		rate_str(b2, sizeof(b2), L->per_second));
	if (L->graph_launches || L->node_launches)
		fprintf(f,
			"  graphs: %" PRIu64 " kernels executed = %" PRIu64
			" direct launches + %" PRIu64 " through %" PRIu64
			" graph launches; %" PRIu64
			" launches were graph nodes (captured or added), not executions\n",
			L->executed, L->total - L->node_launches,
			L->executed - (L->total - L->node_launches), L->graph_launches,
			L->node_launches);
	if (it->found && it->graph_launches)
		fprintf(f,
			"  iteration: %u launch call%s per iteration, %u of them graph launches, "
			"executing %" PRIu64 " kernels\n",
			it->launches, it->launches == 1 ? "" : "s", it->graph_launches,
			it->kernels);
	if (it->found) {
		char c1[GR_UNITS_LEN], c2[GR_UNITS_LEN], c3[GR_UNITS_LEN], c4[GR_UNITS_LEN],
		    c5[GR_UNITS_LEN], c6[GR_UNITS_LEN];

		/* the breakdown adds up to the calls: what neither launches, copies, blocks nor
		 * allocates (an event record, a stream wait) is "other"; the percentage is the
		 * match: of the calls, those equal to the call one period earlier */
		fprintf(f,
			"  iteration: %s per iteration, %s of %s (median), on %s (tid %u)\n"
			"             %s: %s, %s, %s, %u alloc/free, %u other; %.0f%% repeat\n",
			gr_units_count(c1, sizeof(c1), it->launches, "launch", "launches"),
			gr_units_count(c6, sizeof(c6), it->count, "iteration", "iterations"),
			gr_units_ns(b1, sizeof(b1), it->period_ns),
			cut(nb, sizeof(nb), thread_name(r, &th[it->thread]), 16),
			th[it->thread].tid,
			gr_units_count(c2, sizeof(c2), it->calls, "call", "calls"),
			gr_units_count(c3, sizeof(c3), it->launches, "launch", "launches"),
			gr_units_count(c4, sizeof(c4), it->copies, "copy", "copies"),
			gr_units_count(c5, sizeof(c5), it->syncs, "sync", "syncs"), it->allocs,
			it->other, it->match * 100);
		phases(f, r, it);
	} else if (it->step && r->nvtx.step_range)
		fprintf(f,
			"  iteration: --step %s: %" PRIu64 " range%s on the thread: two steps need "
			"two\n",
			GR_TEXT(it->step), it->step_starts, it->step_starts == 1 ? "" : "s");
	else if (it->step)
		fprintf(f,
			"  iteration: --step %s starts %" PRIu64 " step%s on the thread: two whole "
			"steps need three\n",
			GR_TEXT(it->step), it->step_starts, it->step_starts == 1 ? "" : "s");
	else
		fprintf(f, "  iteration: no repeating sequence of calls found\n");
	if (L->api_measured && L->timing == GR_REPORT_TIMED_SAMPLE)
		fprintf(f,
			"  launch cost: %s median launch call (measured on %" PRIu64
			" sampled launches,\n               1 in %" PRIu64
			" per thread; --launch-time measures all)\n",
			gr_units_ns(b1, sizeof(b1), L->launch_cost_ns), L->launch_cost_samples,
			L->sample_period);
	else if (L->api_measured)
		fprintf(f, "  launch cost: %s median launch call (measured, %" PRIu64 " calls)\n",
			gr_units_ns(b1, sizeof(b1), L->launch_cost_ns), L->launch_cost_samples);
	if (L->api_measured && L->graph_launch_cost_samples)
		fprintf(f, "               (%" PRIu64 " of them graph launches)\n",
			L->graph_launch_cost_samples);
	/* only when no launch was timed: beside a measured cost it contradicted it */
	if (!L->api_measured)
		fprintf(
		    f,
		    "  launch cost: %s, an ESTIMATE: median of launch entry to the thread's next "
		    "call\n               (%" PRIu64 " samples); launch API time is not measured: "
		    "record with --launch-time\n",
		    gr_units_ns(b1, sizeof(b1), L->launch_cost_ns), L->launch_cost_samples);
	/* a recording that timed none, or whose sample caught none: why (older traces: none) */
	if (!L->api_measured && L->timing_known)
		fprintf(f, "               (no launch was timed: %s)\n",
			L->timing == GR_REPORT_TIMED_NONE
			    ? GR_TEXT(L->timing_why)
			    : "too few launches per thread to sample");
	if (it->found)
		fprintf(f, "  launch share of the iteration: %.1f%%\n", L->launch_share * 100);

	if (r->sms)
		fprintf(f, "  waves over %u SMs (%s)\n", r->sms,
			r->sms_source == GR_REPORT_SMS_OPTION
			    ? "--sms"
			    : "the count the program got from the runtime");
	else
		fprintf(f,
			"  SM count unknown (the program asked the runtime for none, or the call "
			"failed; give --sms N):\n  no waves, no grid marked small\n");
	fprintf(f, "\n  %-*s %9s %6s %10s %10s %10s\n", NAME_WIDTH,
		"kernel / grid block shmem [cluster]", "launches", "share", "API med", "API p99",
		"API max");
	for (i = 0; i < L->nkernels && i < top; i++) {
		const struct gr_report_kernel *k = &L->kernels[i];

		fprintf(f, "  %-*s %9" PRIu64 " %5.1f%%", NAME_WIDTH,
			cut(nb, sizeof(nb), k->name, NAME_WIDTH), k->count, k->share * 100);
		dist_cols(f, &k->api);
		if (L->graph_launches || L->node_launches)
			fprintf(f, "  executed %" PRIu64, k->executed);
		fputc('\n', f);
		for (size_t j = 0; j < k->nconfigs && j < 4; j++) {
			const struct gr_report_kconfig *c = &k->configs[j];

			char cl[80] = "";

			if (gr_config_has_cluster(&c->cfg))
				snprintf(cl, sizeof(cl), " cluster %s",
					 dims(b3, sizeof(b3), c->cfg.cluster));
			fprintf(f, "      %s %s %u%s: %" PRIu64 ", %s, %s%s\n",
				dims(b1, sizeof(b1), c->cfg.grid),
				dims(b2, sizeof(b2), c->cfg.block), c->cfg.shmem, cl, c->count,
				gr_units_count(b3, sizeof(b3), c->blocks, "block", "blocks"),
				waves_str(wb, sizeof(wb), c->waves),
				c->small ? ", small grid" : "");
		}
		if (k->nconfigs > 4)
			fprintf(f, "      ... %zu more configs\n", k->nconfigs - 4);
	}
	more(f, i, L->nkernels, "kernels");

	fprintf(f, "\n  %-8s %8s %18s %-18s %9s %6s %11s\n", "", "pid", "tid / stream", "comm",
		"launches", "share", "launches/s");
	for (i = 0; i < L->nprocesses && i < top; i++) {
		const struct gr_report_rate *p = &L->processes[i];

		fprintf(f, "  %-8s %8u %18s %-18s %9" PRIu64 " %5.1f%% %11s\n", "process", p->pid,
			"", cut(nb, sizeof(nb), p->comm, 18), p->count, p->share * 100,
			rate_str(b1, sizeof(b1), p->per_second));
	}
	more(f, i, L->nprocesses, "processes");
	for (i = 0; i < L->nthreads && i < top; i++) {
		const struct gr_report_rate *t = &L->threads[i];

		fprintf(f, "  %-8s %8u %18u %-18s %9" PRIu64 " %5.1f%% %11s\n", "thread", t->pid,
			t->tid, cut(nb, sizeof(nb), t->nvtx_name ? t->nvtx_name : t->comm, 18),
			t->count, t->share * 100, rate_str(b1, sizeof(b1), t->per_second));
	}
	more(f, i, L->nthreads, "threads");
	for (i = 0; i < L->nstreams && i < top; i++) {
		const struct gr_report_rate *s = &L->streams[i];

		if (s->per_thread) {
			/* a name wider than the handle column: it takes the comm column too */
			snprintf(nb, sizeof(nb), "per-thread default stream (tid %" PRIu32 ")",
				 s->tid);
			fprintf(f, "  %-8s %8u %-37s %9" PRIu64 " %5.1f%% %11s\n", "stream", s->pid,
				nb, s->count, s->share * 100,
				rate_str(b1, sizeof(b1), s->per_second));
			continue;
		}
		snprintf(b2, sizeof(b2), "0x%" PRIx64, s->handle);
		fprintf(f, "  %-8s %8u %18s %-18s %9" PRIu64 " %5.1f%% %11s\n", "stream", s->pid,
			s->handle ? b2 : "0 (default)",
			s->nvtx_name ? cut(nb, sizeof(nb), s->nvtx_name, 18) : "", s->count,
			s->share * 100, rate_str(b1, sizeof(b1), s->per_second));
	}
	more(f, i, L->nstreams, "streams");

	fprintf(f,
		"\n  inter-launch gaps (a launch to the same thread's next launch, host-side)\n");
	fprintf(f, "  %10s %-18s %9s %10s %10s %10s\n", "tid", "comm", "gaps", "median", "p99",
		"max");
	for (i = 0; i < L->ngaps && i < top; i++) {
		const struct gr_report_gaps *g = &L->gaps[i];
		static const char *const lab[GR_REPORT_GAP_BUCKETS] = {
		    "<1us",   "<2us",	"<5us", "<10us", "<20us", "<50us",
		    "<100us", "<500us", "<1ms", "<10ms", ">=10ms"};

		fprintf(f, "  %10u %-18s %9" PRIu64, g->tid,
			cut(nb, sizeof(nb), g->nvtx_name ? g->nvtx_name : g->comm, 18),
			g->gap.count);
		dist_cols(f, &g->gap);
		fprintf(f, "\n  %10s", "");
		for (int b = 0; b < GR_REPORT_GAP_BUCKETS; b++)
			fprintf(f, " %7s", lab[b]);
		fprintf(f, "\n  %10s", "");
		for (int b = 0; b < GR_REPORT_GAP_BUCKETS; b++)
			fprintf(f, " %7" PRIu64, g->hist[b]);
		fputc('\n', f);
	}
	more(f, i, L->ngaps, "threads");
	if (r->python)
		launch_sites(f, L, m, top);

	if (!L->api_measured) {
		fprintf(f,
			"\n  launch calls slower than %s: not measured (record with "
			"--launch-time)\n",
			gr_units_ns(b1, sizeof(b1), L->slow_threshold_ns));
	} else if (!L->slow_count) {
		fprintf(f, "\n  launch calls slower than %s: none%s\n",
			gr_units_ns(b1, sizeof(b1), L->slow_threshold_ns),
			L->timing == GR_REPORT_TIMED_SAMPLE ? " of the sampled ones" : "");
	} else {
		fprintf(f, "\n  launch calls slower than %s: %" PRIu64 "%s\n",
			gr_units_ns(b1, sizeof(b1), L->slow_threshold_ns), L->slow_count,
			L->timing == GR_REPORT_TIMED_SAMPLE ? " of the sampled ones" : "");
		fprintf(f, "  %-*s %9s %10s %10s\n", NAME_WIDTH, "kernel", "calls", "total", "max");
		for (i = 0; i < L->nslow && i < top; i++) {
			const struct gr_report_slow *s = &L->slow[i];

			fprintf(f, "  %-*s %9" PRIu64 " %10s %10s\n", NAME_WIDTH,
				cut(nb, sizeof(nb), s->name, NAME_WIDTH), s->count,
				gr_units_ns(b1, sizeof(b1), s->total_ns),
				gr_units_ns(b3, sizeof(b3), s->max_ns));
			site_line(f, "      at ", &s->site, 4, NULL);
		}
		more(f, i, L->nslow, "call sites");
	}
}

static void fusion(FILE *f, const struct gr_report *r, unsigned top)
{
	const struct gr_report_fusion *F = &r->fusion;
	char b1[64], b2[64], b3[64], nb[NAME_WIDTH + 8], line[512], wb[32];
	size_t i;

	heading(f, "2. Fusion opportunities");
	if (!r->launches.total) {
		fprintf(f, "  %s\n", GR_TEXT(F->verdict.text));
		return;
	}
	snprintf(line, sizeof(line),
		 "launch cost %s (%s); %" PRIu64 " runs of >= %d launches on one stream with no "
		 "sync or copy between them; %zu repeat%s",
		 gr_units_ns(b1, sizeof(b1), F->launch_cost_ns),
		 F->cost_measured ? "measured" : "an ESTIMATE from launch-to-next-call gaps",
		 F->runs, RP_MIN_RUN, F->ncandidates,
		 F->ncandidates ? "; est. saving = occurrences x (length - 1) x launch cost, an "
				  "ESTIMATE of host time"
				: ": nothing to fuse");
	fputs("  ", f);
	wrap(f, line, 2, 2);
	if (!F->ncandidates)
		return;
	fprintf(f, "\n  %3s %6s %11s %12s %7s %18s %8s\n", "#", "length", "occurrences",
		"est. saving", "small", "stream", "pid");
	for (i = 0; i < F->ncandidates && i < top; i++) {
		const struct gr_report_candidate *c = &F->candidates[i];

		if (c->per_thread)
			snprintf(b2, sizeof(b2), "per-thread default stream (tid %" PRIu32 ")",
				 c->stream_tid);
		else
			snprintf(b2, sizeof(b2), "0x%" PRIx64, c->stream);
		if (r->sms)
			snprintf(b3, sizeof(b3), "%u/%u", c->nsmall, c->len);
		else
			snprintf(b3, sizeof(b3), "?/%u", c->len);
		fprintf(f, "  %3zu %6u %11" PRIu64 " %12s %7s %18s %8u\n", i + 1, c->len,
			c->occurrences, gr_units_ns(b1, sizeof(b1), c->est_saving_ns), b3,
			c->stream || c->per_thread ? b2 : "0 (default)", c->pid);
		/* the run in order, repeats of one kernel and config folded into "xN" */
		uint32_t j = 0, rows = 0;

		while (j < c->len && rows < 12) {
			const struct gr_report_fkernel *k = &c->kernels[j];
			uint32_t rep = 1;

			while (j + rep < c->len && c->kernels[j + rep].name_id == k->name_id &&
			       c->kernels[j + rep].config == k->config)
				rep++;
			snprintf(b3, sizeof(b3), "x%u", rep);
			fprintf(f, "        %-*s %4s %s %s %s%s\n", NAME_WIDTH,
				cut(nb, sizeof(nb), k->name, NAME_WIDTH), rep > 1 ? b3 : "",
				dims(b1, sizeof(b1), k->cfg.grid),
				dims(b2, sizeof(b2), k->cfg.block),
				waves_str(wb, sizeof(wb), k->waves), k->small ? " small" : "");
			j += rep;
			rows++;
		}
		if (j < c->len)
			fprintf(f, "        ... %u more launches\n", c->len - j);
		site_line(f, "        shared stack: ", &c->stack, 6, NULL);
	}
	more(f, i, F->ncandidates, "candidates");
}

/* The copies and memsets graph launches executed: in no call figure, said apart. */
static void graph_executed(FILE *f, const struct gr_report_transfer *T)
{
	uint64_t n = T->graph_launches;
	char b1[64], b2[64];

	if (!n)
		return;
	fprintf(f, "  graph-executed (by %" PRIu64 " graph launches; no call of their own):\n", n);
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++) {
		const struct gr_report_direction *D = &T->dirs[d];

		if (D->graph_count)
			fprintf(
			    f, "    %-9s %8" PRIu64 " copies %11s   per launch %.4g copies %s\n",
			    D->name, D->graph_count, gr_units_bytes(b1, sizeof(b1), D->graph_bytes),
			    (double)D->graph_count / (double)n,
			    gr_units_bytes(b2, sizeof(b2), D->graph_bytes / n));
	}
	if (T->graph_memsets)
		fprintf(f, "    %-9s %8" PRIu64 " memsets %10s   per launch %.4g memsets %s\n",
			"memset", T->graph_memsets,
			gr_units_bytes(b1, sizeof(b1), T->graph_memset_bytes),
			(double)T->graph_memsets / (double)n,
			gr_units_bytes(b2, sizeof(b2), T->graph_memset_bytes / n));
}

static void transfer(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top)
{
	const struct gr_report_transfer *T = &r->transfer;
	const struct gr_report_iteration *it = &r->launches.iter;
	const struct gr_thread *th = gr_model_threads(m, NULL);
	static const char *const lab[GR_REPORT_SIZE_BUCKETS] = {"<=1KiB",  "<=64KiB",  "<=1MiB",
								"<=16MiB", "<=256MiB", ">256MiB"};
	char b1[64], b2[64], b3[64];

	heading(f, "3. Transfers");
	if (!T->copies && !T->memsets) {
		fprintf(f, "  %s\n", GR_TEXT(T->verdict.text));
		graph_executed(f, T);
		if (T->syncs)
			fprintf(f, "  syncs: %" PRIu64 " calls, %s in the API (host-side)\n",
				T->syncs, gr_units_ns(b1, sizeof(b1), T->sync_ns));
		return;
	}
	fprintf(f, "  %-9s %8s %11s %11s %8s %8s %13s\n", "direction", "copies", "bytes",
		"call time", "async", "blocking", "bandwidth");
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++) {
		const struct gr_report_direction *D = &T->dirs[d];

		if (!D->count)
			continue;
		if (D->bandwidth)
			gr_units_rate(b3, sizeof(b3), D->bandwidth);
		fprintf(f, "  %-9s %8" PRIu64 " %11s %11s %8" PRIu64 " %8" PRIu64 " %13s\n",
			D->name, D->count, gr_units_bytes(b1, sizeof(b1), D->bytes),
			gr_units_ns(b2, sizeof(b2), D->time_ns), D->async_count, D->blocking_count,
			D->bandwidth ? b3 : "-");
	}
	fprintf(f, "  (call time is host-side; bandwidth = bytes / call time of the copies whose "
		   "call blocked\n  until the data moved: sync copies and async copies through "
		   "pageable memory)\n");
	if (T->memsets)
		fprintf(f, "  memsets: %" PRIu64 " calls, %s, %s in the API\n", T->memsets,
			gr_units_bytes(b1, sizeof(b1), T->memset_bytes),
			gr_units_ns(b2, sizeof(b2), T->memset_ns));
	graph_executed(f, T);
	fprintf(f, "  syncs: %" PRIu64 " calls, %s in the API\n", T->syncs,
		gr_units_ns(b1, sizeof(b1), T->sync_ns));

	fprintf(f, "\n  %-9s", "sizes");
	for (int b = 0; b < GR_REPORT_SIZE_BUCKETS; b++)
		fprintf(f, " %9s", lab[b]);
	fputc('\n', f);
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++) {
		const struct gr_report_direction *D = &T->dirs[d];

		if (!D->count)
			continue;
		fprintf(f, "  %-9s", D->name);
		for (int b = 0; b < GR_REPORT_SIZE_BUCKETS; b++)
			fprintf(f, " %9" PRIu64, D->hist_count[b]);
		fputc('\n', f);
	}

	fputc('\n', f);
	if (it->found)
		fprintf(
		    f, "  blocked in copies: %.1f%% of the loop on %s (tid %u), %s per iteration\n",
		    T->iter_share * 100, GR_TEXT(th[it->thread].comm), th[it->thread].tid,
		    gr_units_ns(b1, sizeof(b1), T->iter_copy_ns / it->count));
	fprintf(f, "  blocked in copies: %.1f%% of wall time on the busiest thread, %s (tid %u)\n",
		T->wall_share * 100, GR_TEXT(th[T->busiest_thread].comm),
		th[T->busiest_thread].tid);

	fprintf(f, "\n  findings (%s):%s\n",
		it->found ? "in the loop" : "whole recording: no loop found",
		T->nfindings ? "" : " none");
	for (size_t i = 0; i < T->nfindings; i++) {
		const struct gr_report_finding *x = &T->findings[i];
		size_t j;

		fprintf(f, "  %-18s %8" PRIu64 " calls %11s blocked %11s", x->rule, x->count,
			gr_units_bytes(b1, sizeof(b1), x->bytes),
			gr_units_ns(b2, sizeof(b2), x->time_ns));
		if (it->found)
			fprintf(f, "  %.2f per iteration", x->per_iteration);
		fputc('\n', f);
		fputs("      ", f);
		wrap(f, x->detail, 6, 6);
		for (j = 0; j < x->nsites && j < top && j < 5; j++) {
			snprintf(b3, sizeof(b3), "      %" PRIu64 "x at ", x->site_counts[j]);
			site_line(f, b3, &x->sites[j], 4, NULL);
		}
		if (x->nsites > j)
			fprintf(f, "      ... %zu more call sites\n", x->nsites - j);
	}
}

static void cpu(FILE *f, const struct gr_report *r, unsigned top)
{
	const struct gr_report_cpu *C = &r->cpu;
	char b[8][32], nb[32];
	size_t i;

	heading(f, "4. CPU starvation");
	if (!C->has_sched || !C->nthreads) {
		fprintf(f, "  %s\n", GR_TEXT(C->verdict.text));
		return;
	}
	fprintf(f,
		"  per CUDA-calling thread, from %" PRIu64 " scheduler events (host-side);\n"
		"  starved: runnable wait over the time the thread made CUDA calls (first call to "
		"last return),\n  the share the summary gives; life also holds start-up\n"
		"  CPU taken: %s\n",
		C->sched_events,
		C->exact_culprits
		    ? "what each task ran on the waited-on CPU (every switch recorded)"
		    : "estimated (older trace: only switches of traced threads)");
	if (C->switches_missing)
		fprintf(f,
			"  %" PRIu64 " switches of these threads were not recorded (their own "
			"sequences say so):\n  their states before them are unknown\n",
			C->switches_missing);
	fprintf(f, "  %8s %-14s %9s %9s %9s %9s %6s %6s %7s %9s\n", "tid", "comm", "life", "on-CPU",
		"runnable", "blocked", "invol", "vol", "starved", "in gaps");
	for (i = 0; i < C->nthreads && i < top; i++) {
		const struct gr_report_cpu_thread *t = &C->threads[i];

		fprintf(f, "  %8u %-14s %9s %9s %9s %9s %6" PRIu64 " %6" PRIu64 " %6.1f%% %9s\n",
			t->tid, cut(nb, sizeof(nb), t->nvtx_name ? t->nvtx_name : t->comm, 14),
			gr_units_ns(b[0], sizeof(b[0]), t->lifetime_ns),
			gr_units_ns(b[1], sizeof(b[1]), t->oncpu_ns),
			gr_units_ns(b[2], sizeof(b[2]), t->runnable_wait_ns),
			gr_units_ns(b[3], sizeof(b[3]), t->blocked_ns), t->involuntary,
			t->voluntary, t->active_share * 100,
			gr_units_ns(b[4], sizeof(b[4]), t->starved_gap_ns));
		if (t->unknown_ns)
			fprintf(f,
				"  %8s %s of its life has no scheduler events to tell its state\n",
				"", gr_units_ns(b[5], sizeof(b[5]), t->unknown_ns));
		if (t->gaps)
			fprintf(f,
				"  %8s %" PRIu64 " of %" PRIu64 " launch gaps overlap a runnable "
				"wait\n",
				"", t->starved_gaps, t->gaps);
		for (size_t j = 0; j < t->nculprits && j < 5; j++)
			fprintf(
			    f, "  %8s %s %-20s %9s of its runnable wait, %" PRIu64 " preemptions\n",
			    "", j ? "          " : "CPU taken:", GR_TEXT(t->culprits[j].comm),
			    gr_units_ns(b[6], sizeof(b[6]), t->culprits[j].ns),
			    t->culprits[j].preemptions);
	}
	more(f, i, C->nthreads, "threads");
	fprintf(f,
		"  runnable wait inside launch gaps, all threads: %s = %.1f%% of their time making "
		"CUDA calls\n",
		gr_units_ns(b[7], sizeof(b[7]), C->starved_gap_ns), C->gap_share * 100);
}

/* The ranks of the job: one row per launching process, then the straggler. */
void gr_report_ranks_text(FILE *f, const struct gr_report_ranks *R, const struct gr_model_trace *t,
			  size_t nt, unsigned top)
{
	char b[8][32], nb[32], rk[16], pid[24];
	size_t i;
	int w = nt ? 9 : 7;

	top = top ? top : 20;

	heading(f, "6. Ranks");
	/* several traces: where each process came from, as TRACE:PID */
	for (size_t k = 0; k < nt; k++)
		fprintf(f, "  trace %zu: %s (host %s, clock %+.3f ms%s)\n", k, GR_TEXT(t[k].path),
			GR_TEXT(t[k].host), t[k].shift_ns / 1e6,
			t[k].anchored || !k ? "" : ", not aligned");
	fprintf(f,
		"  per launching process, its own iteration on its busiest launching thread;\n"
		"  per iteration, each part's median (step budget parts, disjoint): host = on CPU\n"
		"  outside the thread's API calls; ? no scheduler records: host is all the time\n"
		"  outside calls, its state unknown; * the straggler; ~ not compared (its loop\n"
		"  ran while no other's did)\n");
	/* 100 columns with TRACE:PID (two more than a pid): launches per iteration and the other
	 * calls' part are in JSON only */
	fprintf(f, "  %*s %4s %-10s %5s %9s %9s %8s %8s %8s %8s %8s\n", w, nt ? "trace:pid" : "pid",
		"rank", "comm", "iters", "iteration", "host", "launch", "copy", "sync", "runnable",
		"blocked");
	for (i = 0; i < R->n && i < top; i++) {
		const struct gr_report_rank *k = &R->v[i];
		char host[40];

		if (k->rank >= 0)
			snprintf(rk, sizeof(rk), "%d", k->rank);
		else
			snprintf(rk, sizeof(rk), "-");
		if (nt)
			snprintf(pid, sizeof(pid), "%u:%u", k->trace, k->pid);
		else
			snprintf(pid, sizeof(pid), "%u", k->pid);
		if (!k->iter.found) {
			fprintf(f, "  %*s %4s %-10s %5s no repeating loop found\n", w, pid, rk,
				cut(nb, sizeof(nb), k->comm, 10), "-");
			continue;
		}
		/* without scheduler records nothing says whether the time outside calls ran: the
		 * host column shows it, marked unknown, and the waits are unknown too */
		gr_units_ns(b[1], sizeof(b[1]),
			    (double)k->part_ns[k->has_states ? GR_RANK_HOST : GR_RANK_UNKNOWN]);
		snprintf(host, sizeof(host), "%s%s", b[1], k->has_states ? "" : "?");
		fprintf(f, "  %*s %4s %-10s %5" PRIu64 " %9s %9s %8s %8s %8s %8s %8s%s\n", w, pid,
			rk, cut(nb, sizeof(nb), k->comm, 10), k->iter.count,
			gr_units_ns(b[0], sizeof(b[0]), (double)k->iter.period_ns), host,
			gr_units_ns(b[2], sizeof(b[2]), (double)k->part_ns[GR_RANK_LAUNCH]),
			gr_units_ns(b[3], sizeof(b[3]), (double)k->part_ns[GR_RANK_COPY]),
			gr_units_ns(b[4], sizeof(b[4]), (double)k->part_ns[GR_RANK_SYNC]),
			k->has_states
			    ? gr_units_ns(b[5], sizeof(b[5]), (double)k->part_ns[GR_RANK_RUNNABLE])
			    : "?",
			k->has_states
			    ? gr_units_ns(b[6], sizeof(b[6]), (double)k->part_ns[GR_RANK_BLOCKED])
			    : "?",
			R->straggler.found && R->straggler.index == i ? " *"
			: k->concurrent				      ? ""
								      : " ~");
	}
	more(f, i, R->n, "processes");
	if (R->nranges) {
		fprintf(f, "  NVTX ranges by rank (each rank's median range time; the slowest rank "
			   "against the median rank)\n");
		fprintf(f, "  %9s %9s %6s %*s %4s  %s\n", "slowest", "median", "ratio", w,
			nt ? "trace:pid" : "pid", "rank", "range");
	}
	for (i = 0; i < R->nranges && i < top; i++) {
		const struct gr_report_rank_range *g = &R->ranges[i];
		const struct gr_report_rank *k = &R->v[g->slowest];

		if (k->rank >= 0)
			snprintf(rk, sizeof(rk), "%d", k->rank);
		else
			snprintf(rk, sizeof(rk), "-");
		if (nt)
			snprintf(pid, sizeof(pid), "%u:%u", k->trace, k->pid);
		else
			snprintf(pid, sizeof(pid), "%u", k->pid);
		fprintf(f, "  %9s %9s %5.2fx %*s %4s  %s%s%s\n",
			gr_units_ns(b[0], sizeof(b[0]), (double)g->median_ns[g->slowest]),
			gr_units_ns(b[1], sizeof(b[1]), (double)g->median_rank_ns), g->ratio, w,
			pid, rk, GR_TEXT(g->domain), g->domain[0] ? ":" : "", GR_TEXT(g->name));
	}
	if (R->nranges)
		more(f, i, R->nranges, "range names");
	fprintf(f, "  ");
	wrap(f, R->verdict.text ? R->verdict.text : "", 2, 2);
}

/* Calls still inside when their thread exited or the recording stopped, before anything else:
 * the call a user with a hung job needs. */
static void in_flight(FILE *f, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_report_outcome *ro = &r->outcome;
	char line[256];

	for (size_t i = 0; i < ro->o.nin_flight; i++) {
		fprintf(
		    f, "IN FLIGHT: %s\n",
		    GR_TEXT(gr_outcome_in_flight_text(m, ro->o.in_flight[i], line, sizeof(line))));
		site_line(f, "  called from: ", &ro->in_flight_sites[i], 8,
			  gr_api_name(gr_aside_api(m, ro->o.in_flight[i])));
	}
	if (ro->o.nin_flight)
		fprintf(f, "\n");
}

/* The blocked part's reasons that hold time, " (GIL wait 520 us, lock wait 8 us)", into @buf at
 * @at (blocked.h). */
static size_t blocked_reasons(char *buf, size_t size, size_t at, const struct gr_budget *b)
{
	int first = 1;

	for (unsigned r = 0; r < GR_BUDGET_NREASONS && at < size; r++) {
		char t[32];

		if (!b->blocked_ns[r])
			continue;
		at += (size_t)snprintf(buf + at, size - at, "%s%s %s", first ? " (" : ", ",
				       gr_block_reason_words(r),
				       gr_units_ns(t, sizeof(t), (double)b->blocked_ns[r]));
		first = 0;
	}
	if (!first && at < size)
		at += (size_t)snprintf(buf + at, size - at, ")");
	return at;
}

/* One budget's parts that hold time, "launch 12% 150 us, ...", into @buf at @at. */
static size_t budget_parts(char *buf, size_t size, size_t at, const struct gr_budget *b)
{
	int first = 1;

	for (unsigned p = 0; p < GR_BUDGET_NPARTS && at < size; p++) {
		double share = b->total_ns ? (double)b->part_ns[p] * 100 / (double)b->total_ns : 0;
		char pct[16], t[32];

		if (!b->part_ns[p])
			continue;
		if (share < 0.5)
			snprintf(pct, sizeof(pct), "<1%%");
		else
			snprintf(pct, sizeof(pct), "%.0f%%", share);
		at += (size_t)snprintf(buf + at, size - at, "%s%s %s %s", first ? "" : ", ",
				       gr_budget_part_words(p), pct,
				       gr_units_ns(t, sizeof(t), (double)b->part_ns[p]));
		first = 0;
		if (p == GR_BUDGET_BLOCKED && b->blocked_ns[GR_BLOCK_UNKNOWN] < b->part_ns[p])
			at = blocked_reasons(buf, size, at, b);
	}
	if (first && at < size)
		at += (size_t)snprintf(buf + at, size - at, "no time");
	return at;
}

/* The step budget (docs/REPORTS.md): first in the report, as every verdict reads it. */
static void budget(FILE *f, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_budgets *B = &r->budget;
	const struct gr_budget *rows[] = {&B->median, &B->p90, &B->slowest, &B->mean};
	static const char *const labels[] = {"median", "p90", "slowest"};
	const struct gr_thread *th;
	size_t nth, at;
	char line[1024], t[32];

	if (!B->found)
		return;
	th = gr_model_threads(m, &nth);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct gr_budget *b = rows[i];

		gr_units_ns(t, sizeof(t), (double)b->total_ns);
		if (!i)
			at = (size_t)snprintf(
			    line, sizeof(line),
			    "step budget (thread %s tid %u, median iteration #%" PRIu64 " %s): ",
			    B->thread < nth && *thread_name(r, &th[B->thread])
				? thread_name(r, &th[B->thread])
				: "?",
			    B->thread < nth ? th[B->thread].tid : 0, b->index, t);
		else if (b == &B->mean)
			at = (size_t)snprintf(line, sizeof(line),
					      "mean of %" PRIu64 " iterations %s: ", b->index, t);
		else
			at = (size_t)snprintf(line, sizeof(line),
					      "%s iteration #%" PRIu64 " %s: ", labels[i], b->index,
					      t);
		if (at < sizeof(line))
			budget_parts(line, sizeof(line), at, b);
		/* wrap() drops leading blanks: the indent goes first */
		wrap(f, line, i ? fprintf(f, "  ") : 0, 4);
	}
	if (B->mean.unmeasured) {
		snprintf(line, sizeof(line),
			 "%" PRIu64 " of %" PRIu64 " calls were recorded at entry only (launches "
			 "without --launch-time): their time is in the parts outside calls",
			 B->mean.unmeasured, B->mean.calls);
		wrap(f, line, fprintf(f, "  "), 4);
	}
	if (!B->has_states)
		wrap(f,
		     "no scheduler records (recorded with --no-sched?): the time outside calls is "
		     "not split into host work, runnable and blocked",
		     fprintf(f, "  "), 4);
	fprintf(f, "\n");
}

/*
 * Reason @k of budget @b as one line into @line (@len bytes): its time (then @per), its share
 * of the blocked part, where the loop thread waited, who woke it with its share and site, the
 * number of waker processes and (input over the loop) each one's CPU time per step.
 */
static void reason_line(char *line, size_t len, const char *per, const struct gr_model *m,
			const struct gr_nvtx_set *nv, const struct gr_budget *b, unsigned k)
{
	const struct gr_block_culprit *c = &b->culprit[k];
	const char *sc = gr_syscall_name(c->syscall), *comm;
	char t[32], pc[16], site[GR_FRAME_TEXT], wsite[GR_FRAME_TEXT];
	size_t at;

	gr_units_ns(t, sizeof(t), (double)b->blocked_ns[k]);
	gr_units_pct(pc, sizeof(pc),
		     (double)b->blocked_ns[k] / (double)b->part_ns[GR_BUDGET_BLOCKED]);
	at = (size_t)snprintf(line, len, "%s %s%s (%s of blocked)", gr_block_reason_words(k), t,
			      per, pc);
	gr_block_site(m, c->stack, site, sizeof(site));
	if (at < len && (sc || *site))
		at += (size_t)snprintf(line + at, len - at, ", waiting in %s%s%s", sc ? sc : "?",
				       *site ? " at " : "", site);
	comm = gr_budget_culprit_name(m, nv, c);
	gr_units_pct(pc, sizeof(pc), c->of_ns ? (double)c->ns / (double)c->of_ns : 0);
	gr_block_site(m, c->waker_stack, wsite, sizeof(wsite));
	if (at < len && c->woken && !c->tid)
		at += (size_t)snprintf(line + at, len - at,
				       "; woken from an interrupt (a timer or a device) %s of it",
				       pc);
	else if (at < len && c->woken)
		at += (size_t)snprintf(
		    line + at, len - at,
		    "; woken by %s (tid %" PRIu32 ", pid %" PRIu32 ") %s of it%s%s",
		    *comm ? comm : "?", c->tid, c->pid, pc, *wsite ? " at " : "", wsite);
	if (at < len && k == GR_BLOCK_LOCK && gr_block_condvar(m, c->stack, c->waker_stack))
		at += (size_t)snprintf(line + at, len - at,
				       "; a condition variable: it waited for that thread's "
				       "signal, not for a lock's release");
	if (at < len && c->wakers > 1)
		at += (size_t)snprintf(line + at, len - at, "; %" PRIu32 " waker processes",
				       c->wakers);
	if (at < len && c->worker_cpu_ns)
		snprintf(line + at, len - at, "; %s of CPU each per step",
			 gr_units_ns(t, sizeof(t), (double)c->worker_cpu_ns));
}

/*
 * Why the host waited (docs/REPORTS.md): per reason of the loop thread's blocked time, its time
 * per iteration (the mean), its culprit over the loop with that culprit's share, where the loop
 * thread waited, and the culprit's stack when it woke the thread (innermost frames first); then
 * the same for the median iteration alone (the one the diagnosis judges), without the stacks.
 */
static void why_waited(FILE *f, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_budgets *B = &r->budget;
	const struct gr_budget *b = &B->mean, *md = &B->median;
	const struct gr_stack *st;
	size_t nst;
	char line[1024], site[GR_FRAME_TEXT];

	if (!B->found || !B->has_reasons || !b->part_ns[GR_BUDGET_BLOCKED])
		return;
	st = gr_model_stacks(m, &nst);
	fprintf(f, "why the host waited (loop thread blocked outside CUDA, per iteration)\n");
	for (unsigned k = 0; k < GR_BUDGET_NREASONS; k++) {
		const struct gr_block_culprit *c = &b->culprit[k];

		if (!b->blocked_ns[k])
			continue;
		reason_line(line, sizeof(line), " per step", m, &r->nvtx.set, b, k);
		wrap(f, line, fprintf(f, "  "), 4);
		/* the culprit's stack when it woke the loop thread: its innermost frames */
		for (uint32_t i = 0;
		     c->waker_stack < nst && i < st[c->waker_stack].nframes && i < 4; i++) {
			struct gr_frame fr;

			gr_frame_describe(m, st[c->waker_stack].pid, st[c->waker_stack].frames[i],
					  &fr);
			fprintf(f, "      %s\n", gr_frame_format(&fr, site, sizeof(site)));
		}
	}
	if (md->part_ns[GR_BUDGET_BLOCKED]) {
		fprintf(f, "  median iteration #%" PRIu64 ":\n", md->index);
		for (unsigned k = 0; k < GR_BUDGET_NREASONS; k++) {
			if (!md->blocked_ns[k])
				continue;
			reason_line(line, sizeof(line), "", m, &r->nvtx.set, md, k);
			wrap(f, line, fprintf(f, "    "), 6);
		}
	}
	fprintf(f, "\n");
}

/* The summary's word on failures: first, and loud, when most calls failed. */
static void failed_summary(FILE *f, const struct gr_report *r)
{
	const struct gr_outcome *o = &r->outcome.o;
	char buf[512];

	if (!gr_outcome_banner(o, buf, sizeof(buf)))
		return;
	fputs("  ", f);
	wrap(f, buf, 2, 2);
	if (o->unknown && r->launches.total)
		fprintf(f, "  launches were recorded at entry: their status is unknown "
			   "(--launch-time records it)\n");
}

/* Failing calls by API and error, with the call site of the first. */
static void failed_calls(FILE *f, const struct gr_report *r, unsigned top)
{
	const struct gr_report_outcome *ro = &r->outcome;
	char num[64], a[32];
	size_t i;

	if (!ro->o.nerrors)
		return;
	fprintf(f, "\nfailed calls\n  %-28s %-34s %8s %10s\n", "api", "error", "calls", "first at");
	for (i = 0; i < ro->o.nerrors && i < top; i++) {
		const struct gr_outcome_error *e = &ro->o.errors[i];

		fprintf(f, "  %-28s %-34s %8" PRIu64 " %10s\n", gr_api_name(e->api),
			gr_outcome_error_text(e, num, sizeof(num)), e->count,
			gr_units_ns(a, sizeof(a), (double)(e->first_ts - r->first_ts)));
		site_line(f, "    first from: ", &ro->error_sites[i], 6, gr_api_name(e->api));
	}
	more(f, i, ro->o.nerrors, "failing calls");
}

/* What a damaged file kept, under the summary line (the stderr line names the damage). */
static void damage(FILE *f, const struct gr_damage *d)
{
	if (!d->damaged)
		return;
	if (!d->chunks_kept) {
		fprintf(
		    f, "  damaged trace: no complete chunk survived; nothing below was measured\n");
		return;
	}
	fprintf(f,
		"  damaged trace: %" PRIu64 " complete chunk%s kept%s; what follows covers only "
		"them\n",
		d->chunks_kept, d->chunks_kept == 1 ? "" : "s",
		d->truncated ? ", the rest was cut off" : ", bad ones skipped");
	if (d->libraries_lost)
		fprintf(f, "  the CUDA library names were lost with the damage\n");
	if (d->unnamed_kernels)
		fprintf(f,
			"  %" PRIu64 " kernel%s unnamed: their names were lost with the damage\n",
			d->unnamed_kernels, d->unnamed_kernels == 1 ? "" : "s");
}

static void comm(FILE *f, const struct gr_report *r)
{
	const struct gr_report_comm *C = &r->comm;
	char b1[32], b2[32];

	if (!C->collectives && !C->p2p && !C->aside)
		return;
	heading(f, "5. Communication (NCCL, host side)");
	fprintf(f, "  %" PRIu64 " collectives, %" PRIu64 " point-to-point calls", C->collectives,
		C->p2p);
	if (C->per_iteration > 0)
		fprintf(f, ", %.1f collectives per iteration", C->per_iteration);
	else
		fprintf(f, ", %.1f collectives/s", C->per_second);
	fprintf(f, "; %s in the calls, %.1f%% of wall time\n",
		gr_units_ns(b1, sizeof(b1), C->host_ns), 100.0 * C->wall_share);
	if (C->aside)
		fprintf(f, "  %" PRIu64 " NCCL calls failed, nested or unfinished: not counted\n",
			C->aside);
	fprintf(f, "  %-16s %10s %14s %12s\n", "kind", "calls", "bytes", "host time");
	for (unsigned k = 0; k < GR_REPORT_COMM_KINDS; k++)
		if (C->kinds[k].calls)
			fprintf(f, "  %-16s %10" PRIu64 " %14" PRIu64 " %12s\n",
				gr_comm_kind_name(k), C->kinds[k].calls, C->kinds[k].bytes,
				gr_units_ns(b2, sizeof(b2), C->kinds[k].host_ns));
	if (!C->nranks)
		return;
	fprintf(f, "  last to enter, over %" PRIu64 " collectives seen in every rank:\n",
		C->matched);
	fprintf(f, "  %-18s %6s %8s %8s %14s\n", "communicator", "rank", "pid", "last",
		"mean wait");
	for (size_t i = 0; i < C->nranks; i++) {
		const struct gr_report_comm_rank *k = &C->ranks[i];

		fprintf(f, "  %016" PRIx64 "   %6" PRIu32 " %8" PRIu32 " %8" PRIu64 " %14s\n",
			k->id, k->rank, k->pid, k->last,
			gr_units_ns(b1, sizeof(b1), k->last ? k->wait_ns / k->last : 0));
	}
}

int gr_report_write_text(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top)
{
	static const struct {
		unsigned bit;
		const char *name;
		size_t off;
	} sect[] = {
	    {GR_REPORT_LAUNCHES, "launches", offsetof(struct gr_report, launches.verdict)},
	    {GR_REPORT_FUSION, "fusion", offsetof(struct gr_report, fusion.verdict)},
	    {GR_REPORT_TRANSFER, "transfer", offsetof(struct gr_report, transfer.verdict)},
	    {GR_REPORT_CPU, "cpu", offsetof(struct gr_report, cpu.verdict)},
	    {GR_REPORT_MEMORY, "memory", offsetof(struct gr_report, memory.verdict)},
	};
	char b1[32];

	if (!top)
		top = 20;
	in_flight(f, r, m);
	budget(f, r, m);
	why_waited(f, r, m);
	fprintf(f, "summary (%s recorded", gr_units_ns(b1, sizeof(b1), r->wall_ns));
	if (r->damage.damaged)
		fprintf(f, "; DAMAGED TRACE");
	if (r->lost_events)
		fprintf(f, "; %" PRIu64 " EVENTS LOST", r->lost_events);
	if (r->damage.lower_bounds)
		fprintf(f, ": figures are lower bounds");
	fprintf(f, ")\n");
	if (r->ended_abruptly)
		fprintf(f,
			"  recording ended abruptly at %.3f s: events after %.3f s are not in the "
			"file\n",
			(r->last_ts - r->first_ts) / 1e9, (r->last_ts - r->first_ts) / 1e9);
	damage(f, &r->damage);
	if (r->cuda_libraries) {
		char probe[256];

		gr_probe_cost_describe(&r->probe, probe, sizeof(probe));
		fprintf(f, "  host times: ");
		wrap(f, probe, 14, 14);
	}
	if (!r->cuda_libraries && !r->damage.damaged)
		fprintf(f, "  no CUDA library was loaded by the traced command: nothing was "
			   "recorded to report on\n");
	failed_summary(f, r);
	if (gr_model_session(m, GR_SESS_ATTACHED, NULL, NULL))
		fprintf(f,
			"  attached with -p: calls and kernel registrations made before the attach "
			"were missed;\n  kernel names come from the programs' symbols\n");
	/* what bounds the step first: every other verdict reads it */
	{
		int n = fprintf(f, "  %-9s %-8s", "step", level_name(r->diagnosis.verdict.level));

		wrap(f, r->diagnosis.verdict.text ? r->diagnosis.verdict.text : "", n, n);
	}
	for (size_t i = 0; i < sizeof(sect) / sizeof(sect[0]); i++) {
		const struct gr_verdict *v = (const void *)((const char *)r + sect[i].off);
		int n;

		if (!(r->sections & sect[i].bit))
			continue;
		n = fprintf(f, "  %-9s %-8s", sect[i].name, level_name(v->level));
		wrap(f, v->text ? v->text : "", n, n);
	}
	if (r->ranks.n) {
		int n = fprintf(f, "  %-9s %-8s", "ranks", level_name(r->ranks.verdict.level));

		wrap(f, r->ranks.verdict.text ? r->ranks.verdict.text : "", n, n);
	}
	failed_calls(f, r, top);
	if (r->sections & GR_REPORT_LAUNCHES)
		launches(f, r, m, top);
	if (r->sections & GR_REPORT_FUSION)
		fusion(f, r, top);
	if (r->sections & GR_REPORT_TRANSFER)
		transfer(f, r, m, top);
	if (r->sections & GR_REPORT_CPU)
		cpu(f, r, top);
	if (r->sections & GR_REPORT_COMM)
		comm(f, r);
	if (r->ranks.n) {
		size_t nt;
		const struct gr_model_trace *t = gr_model_traces(m, &nt);

		gr_report_ranks_text(f, &r->ranks, t, nt, top);
	}
	if (r->sections & GR_REPORT_MEMORY)
		rp_memory_text(f, r, m);
	rp_gpu_text(f, r, m, top);
	if (r->sections & GR_REPORT_NVTX)
		rp_nvtx_text(f, r, m, top);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
