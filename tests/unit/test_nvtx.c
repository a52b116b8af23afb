/* SPDX-License-Identifier: MIT */
/*
 * analyze/figures/nvtx: pairing NVTX calls into ranges on hand-built arrays (nesting per thread
 * and domain, cross-thread ends, unmatched pops and ends, domains, names, unclosed ranges), and
 * the per-name statistics over a trace whose launches are known, exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyze/figures/nvtx.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "analyze/report/report_sections.h"
#include "synth_gpu.h"
#include "test.h"

#define T0 SYNTH_T0

static char dir[] = "/tmp/gr_test_nvtx.XXXXXX";

static const char *const texts[] = {"",	    "step",   "forward", "backward", "mydomain",
				    "io",   "worker", "copies",	 "trainer",  "loader",
				    "main", "gpu0",   "phase",	 "fwd",	     "load"};

static const char *text_of(const void *ctx, uint32_t idx)
{
	return idx < sizeof(texts) / sizeof(texts[0]) ? texts[idx] : "";
}

/* An NVTX call: op, ts, thread, domain, id, text. */
static struct gr_nvtx ev(uint8_t op, uint64_t ts, uint32_t thread, uint64_t domain, uint64_t id,
			 uint32_t text)
{
	return (struct gr_nvtx){
	    .op = op, .ts = ts, .thread = thread, .domain = domain, .id = id, .text = text};
}

static void test_pairing(void)
{
	static const struct gr_thread th[] = {
	    {.pid = 10, .tid = 11}, {.pid = 10, .tid = 12}, {.pid = 20, .tid = 21}};
	const struct gr_nvtx e[] = {
	    ev(GR_NVTX_NAME_THREAD, 10, 0, 0, 11, 8),
	    ev(GR_NVTX_NAME_THREAD, 20, 0, 0, 12, 9),
	    ev(GR_NVTX_NAME_THREAD, 30, 0, 0, 11, 10), /* renamed: the last name wins */
	    ev(GR_NVTX_NAME_STREAM, 31, 2, 0, 0x5000, 7),
	    ev(GR_NVTX_NAME_DEVICE, 32, 0, 0, 0, 11),
	    ev(GR_NVTX_NAME_CATEGORY, 33, 0, 0xD0, 3, 12),
	    ev(GR_NVTX_NAME_DOMAIN, 50, 0, 0xD0, 0, 4),
	    ev(GR_NVTX_PUSH, 100, 0, 0, 1, 1),	  /* A: step */
	    ev(GR_NVTX_PUSH, 110, 0, 0, 2, 2),	  /* B: forward in A */
	    ev(GR_NVTX_PUSH, 120, 0, 0xD0, 1, 5), /* E: io, its own domain's stack */
	    ev(GR_NVTX_POP, 130, 1, 0xD0, 0, 0),  /* another thread: nothing open there */
	    ev(GR_NVTX_POP, 140, 0, 0xD0, 0, 0),  /* closes E, not B */
	    ev(GR_NVTX_POP, 150, 0, 0, 0, 0),	  /* closes B */
	    ev(GR_NVTX_PUSH, 160, 0, 0, 2, 3),	  /* C: backward in A */
	    ev(GR_NVTX_POP, 200, 0, 0, 0, 0),
	    ev(GR_NVTX_POP, 210, 0, 0, 0, 0),	/* closes A */
	    ev(GR_NVTX_POP, 220, 0, 0, 0, 0),	/* unmatched */
	    ev(GR_NVTX_PUSH, 230, 1, 0, 1, 1),	/* D: never popped */
	    ev(GR_NVTX_START, 300, 0, 0, 7, 6), /* F: id 7 in pid 10 */
	    ev(GR_NVTX_END, 400, 1, 0, 7, 0),	/* ... ended by another thread */
	    ev(GR_NVTX_END, 410, 0, 0, 7, 0),	/* ended already: unmatched */
	    ev(GR_NVTX_END, 420, 2, 0, 99, 0),	/* never started: unmatched */
	    ev(GR_NVTX_START, 430, 2, 0, 7, 6), /* G: id 7 again, in pid 20: its own */
	    ev(GR_NVTX_MARK, 500, 0, 0, 0, 2),
	};
	struct gr_nvtx_set s;
	const struct gr_nvtx_range *r;

	CHECK(gr_nvtx_build_events(e, sizeof(e) / sizeof(e[0]), th, 3, text_of, NULL, 1000, &s) ==
	      0);
	CHECK_EQ_U64(s.nranges, 7);
	CHECK_EQ_U64(s.unmatched_pops, 2);
	CHECK_EQ_U64(s.unmatched_ends, 2);
	CHECK_EQ_U64(s.nmarks, 1);
	CHECK(s.nmarks == 1 && s.marks[0]->ts == 500 && s.marks[0]->text == 2);
	CHECK_EQ_U64(s.ndomains, 2);
	CHECK_STR(s.domains[0].name, "");
	CHECK_STR(s.domains[1].name, "mydomain");
	CHECK_EQ_U64(s.domains[1].pid, 10);
	CHECK_EQ_U64(s.domains[1].handle, 0xD0);
	if (s.nranges != 7)
		goto out;
	/* by start, then depth: A B E C D F G */
	r = s.ranges;
	CHECK(r[0].start == 100 && r[0].end == 210 && r[0].name == 1 && r[0].depth == 0);
	CHECK(r[0].parent == UINT32_MAX && r[0].closed && r[0].kind == GR_NVTX_RANGE_PUSHPOP);
	CHECK(r[1].start == 110 && r[1].end == 150 && r[1].name == 2 && r[1].depth == 1);
	CHECK_EQ_U64(r[1].parent, 0);
	CHECK(r[2].start == 120 && r[2].end == 140 && r[2].name == 5 && r[2].domain == 1);
	CHECK(r[2].depth == 0 && r[2].parent == UINT32_MAX);
	CHECK(r[3].start == 160 && r[3].end == 200 && r[3].name == 3 && r[3].parent == 0);
	CHECK(r[4].start == 230 && r[4].end == 1000 && !r[4].closed && r[4].thread == 1);
	CHECK(r[5].start == 300 && r[5].end == 400 && r[5].closed);
	CHECK(r[5].thread == 0 && r[5].end_thread == 1 && r[5].kind == GR_NVTX_RANGE_STARTEND);
	CHECK(r[6].start == 430 && r[6].end == 1000 && !r[6].closed && r[6].thread == 2);
	CHECK(r[6].end_thread == 2);

	CHECK_STR(gr_nvtx_thread_name(&s, 10, 11), "main");
	CHECK_STR(gr_nvtx_thread_name(&s, 10, 12), "loader");
	CHECK(!gr_nvtx_thread_name(&s, 20, 11));
	CHECK_STR(gr_nvtx_stream_name(&s, 20, 0x5000), "copies");
	CHECK(!gr_nvtx_stream_name(&s, 10, 0x5000));
	CHECK_STR(gr_nvtx_device_name(&s, 10, 0), "gpu0");
	CHECK_STR(gr_nvtx_category_name(&s, 10, 0xD0, 3), "phase");
	CHECK(!gr_nvtx_category_name(&s, 10, 0, 3));

	CHECK(gr_nvtx_range_named(&s, &r[2], "io"));
	CHECK(gr_nvtx_range_named(&s, &r[2], "mydomain:io"));
	CHECK(!gr_nvtx_range_named(&s, &r[2], "other:io"));
	CHECK(!gr_nvtx_range_named(&s, &r[2], ":io"));
	CHECK(gr_nvtx_range_named(&s, &r[0], ":step"));
	CHECK(!gr_nvtx_range_named(&s, &r[0], "mydomain:step"));
	CHECK_STR(gr_nvtx_text(&s, 6), "worker");
out:
	gr_nvtx_free(&s);
	CHECK(s.nranges == 0 && !s.ranges);
	gr_nvtx_free(NULL);
}

/* Nothing recorded (a trace from before NVTX, hand-built calls none): an empty set, no names,
 * no statistics. */
static void test_empty(void)
{
	char path[256];
	struct gr_model *m = NULL;
	struct gr_nvtx_set s;
	struct gr_nvtx_stats st;

	snprintf(path, sizeof(path), "%s/old.trc", dir);
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	CHECK(gr_nvtx_build(m, &s) == 0);
	CHECK(s.nranges == 0 && s.nmarks == 0 && s.ndomains == 1);
	CHECK(!gr_nvtx_thread_name(&s, 100, 101));
	CHECK(gr_nvtx_stats_compute(m, &s, NULL, NULL, NULL, &st) == 0);
	CHECK_EQ_U64(st.n, 0);
	gr_nvtx_stats_free(&st);
	gr_nvtx_free(&s);
	gr_model_free(m);

	CHECK(gr_nvtx_build_events(NULL, 0, NULL, 0, text_of, NULL, 0, &s) == 0);
	CHECK_EQ_U64(s.nranges, 0);
	CHECK_EQ_U64(s.ndomains, 1);
	CHECK(!gr_nvtx_thread_name(&s, 1, 1));
	gr_nvtx_free(&s);
}

/* The step: 4 ranges "step" on tid 101, each with a nested "fwd" of 2000 + 100 j ns; a
 * start/end range "load" from tid 101 to tid 102. Launches every 1000 ns on 101 (100 ns
 * each), 500 ns later on 102. */
static int write_trace(const char *path)
{
	static const uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
	struct gr_trace_writer *w = NULL;
	int err = 0;

	if (synth_open(&w, path, 0))
		return -1;
	for (uint64_t k = 1; k <= 20; k++) {
		err |= synth_launch(w, T0 + 1000 * k, 100, 101, 0xAAA0, g, b, 0, 0, 0, 100);
		err |= synth_launch(w, T0 + 1000 * k + 500, 100, 102, 0xAAA0, g, b, 0, 0, 0, 100);
	}
	err |= gr_trace_writer_close(w);
	return err;
}

/* The section's text over test_stats()'s figures: the table depth first, and the step budget per
 * range over the push/pop ranges of the default domain (the start/end range "load" overlaps
 * them: it splits nothing). */
static void render(const struct gr_model *m, const struct gr_nvtx_set *s,
		   const struct gr_nvtx_stats *st, uint32_t thread, uint64_t *starts,
		   uint64_t *durs)
{
	static struct gr_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&r, 0, sizeof(r));
	r.nvtx.set = *s;
	r.nvtx.stats = *st;
	r.launches.iter.found = 1;
	r.launches.iter.thread = thread;
	r.launches.iter.count = 3;
	r.launches.iter.starts = starts;
	r.launches.iter.durs = durs;
	if (!f)
		return;
	rp_nvtx_text(f, &r, m, 20);
	fclose(f);
	CHECK(strstr(buf, "  9 ranges of 3 names (host time: push to pop, start to end); 0 marks; "
			  "0 pops and 0 ends unmatched\n"));
	CHECK(strstr(buf, "\n  step                      4 "));
	CHECK(strstr(buf, "\n    fwd                     4 "));
	CHECK(strstr(buf, "\n  load                      1 "));
	CHECK(strstr(buf, "  GPU time: -, no --cupti"));
	CHECK(strstr(buf,
		     "\n  step budget per range (3 steps, 5.00 us each on average, on tid 101): "
		     "step 96% (4.80 us); outside\n    them 4%\n"));
	if (test_case_failed)
		printf("# %s", buf);
	free(buf);
}

static void test_stats(void)
{
	char path[256];
	struct gr_model *m = NULL;
	const struct gr_thread *th;
	size_t nth;
	uint32_t t101 = UINT32_MAX, t102 = UINT32_MAX;
	struct gr_nvtx e[32];
	size_t ne = 0;
	struct gr_nvtx_set s;
	struct gr_nvtx_stats st;
	uint64_t starts[3], durs[3];
	struct gr_nvtx_step step = {.starts = starts, .durs = durs, .n = 3};
	const struct gr_nvtx_stat *v;

	snprintf(path, sizeof(path), "%s/stats.trc", dir);
	CHECK(write_trace(path) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	th = gr_model_threads(m, &nth);
	for (uint32_t i = 0; i < nth; i++) {
		if (th[i].tid == 101)
			t101 = i;
		if (th[i].tid == 102)
			t102 = i;
	}
	CHECK(t101 != UINT32_MAX && t102 != UINT32_MAX);
	if (t101 == UINT32_MAX || t102 == UINT32_MAX)
		goto out;
	for (uint64_t j = 0; j < 4; j++) {
		uint64_t sj = T0 + 5000 * j + 500;

		e[ne++] = ev(GR_NVTX_PUSH, sj, t101, 0, 1, 1);
		e[ne++] = ev(GR_NVTX_PUSH, sj + 100, t101, 0, 2, 13);
		if (!j)
			e[ne++] = ev(GR_NVTX_START, T0 + 1200, t101, 0, 1, 14);
		e[ne++] = ev(GR_NVTX_POP, sj + 2100 + 100 * j, t101, 0, 0, 0);
		if (!j)
			e[ne++] = ev(GR_NVTX_END, T0 + 3600, t102, 0, 1, 0);
		e[ne++] = ev(GR_NVTX_POP, sj + 4800, t101, 0, 0, 0);
	}
	CHECK(gr_nvtx_build_events(e, ne, th, nth, text_of, NULL, T0 + 30000, &s) == 0);
	CHECK_EQ_U64(s.nranges, 9);
	for (int j = 0; j < 3; j++) {
		starts[j] = T0 + 5000 * (uint64_t)j + 500;
		durs[j] = 5000;
	}
	step.thread = t101;
	CHECK(gr_nvtx_stats_compute(m, &s, NULL, NULL, &step, &st) == 0);
	CHECK_EQ_U64(st.n, 3);
	CHECK_EQ_U64(st.steps, 3);
	CHECK_EQ_U64(st.step_ns, 15000);
	CHECK(!st.has_gpu);
	if (st.n != 3)
		goto free_set;
	v = st.v;
	/* depth first, by total: step, fwd inside it, then load */
	CHECK_EQ_U64(v[0].name, 1);
	CHECK_EQ_U64(v[0].count, 4);
	CHECK_EQ_U64(v[0].total_ns, 4 * 4800);
	CHECK_EQ_U64(v[0].median_ns, 4800);
	CHECK_EQ_U64(v[0].launches, 20);
	CHECK_EQ_U64(v[0].kernels, 20);
	CHECK_EQ_U64(v[0].api_calls, 20);
	CHECK_EQ_U64(v[0].api_ns, 2000);
	CHECK_EQ_U64(v[0].step_count, 3);
	CHECK_EQ_U64(v[0].step_ns, 3 * 4800);
	CHECK(fabs(v[0].step_share - 0.96) < 1e-9);
	CHECK_EQ_U64(v[0].parent, UINT32_MAX);
	CHECK_EQ_U64(v[0].depth, 0);

	CHECK_EQ_U64(v[1].name, 13);
	CHECK_EQ_U64(v[1].parent, 0);
	CHECK_EQ_U64(v[1].depth, 1);
	CHECK_EQ_U64(v[1].count, 4);
	CHECK_EQ_U64(v[1].total_ns, 2000 + 2100 + 2200 + 2300);
	CHECK_EQ_U64(v[1].median_ns, 2100); /* the lower median */
	CHECK_EQ_U64(v[1].p90_ns, 2300);
	CHECK_EQ_U64(v[1].max_ns, 2300);
	CHECK_EQ_U64(v[1].launches, 8);
	CHECK_EQ_U64(v[1].step_ns, 2000 + 2100 + 2200);
	CHECK(fabs(v[1].step_share - 0.42) < 1e-9);

	/* start/end: every thread of the process, [1200, 3600) */
	CHECK_EQ_U64(v[2].name, 14);
	CHECK_EQ_U64(v[2].kind, GR_NVTX_RANGE_STARTEND);
	CHECK_EQ_U64(v[2].count, 1);
	CHECK_EQ_U64(v[2].launches, 5);
	CHECK_EQ_U64(v[2].parent, UINT32_MAX);
	CHECK_EQ_U64(v[2].step_ns, 2400);
	render(m, &s, &st, t101, starts, durs);
	gr_nvtx_stats_free(&st);

	/* no step: nothing per step */
	CHECK(gr_nvtx_stats_compute(m, &s, NULL, NULL, NULL, &st) == 0);
	CHECK(st.n == 3 && st.steps == 0 && st.v[0].step_ns == 0 && st.v[0].step_share == 0);
	gr_nvtx_stats_free(&st);
	gr_nvtx_stats_free(NULL);
free_set:
	gr_nvtx_free(&s);
out:
	gr_model_free(m);
}

/*
 * Ranges as steps: 6 "step" ranges a period of 1000 ns on thread 0 (one holding a "step" of its
 * own), each with two "fwd" ranges, a "forward" in steps 0 and 3 only, and 2 "step" ranges on
 * thread 1. The finder's choice is "step" for a loop of an iteration a step, in either phase and
 * whatever the iterations' times; no range for a loop of two steps an iteration or of half
 * steps (nothing starts once an iteration).
 */
static void test_steps(void)
{
	static const struct gr_thread th[] = {{.pid = 10, .tid = 11}, {.pid = 10, .tid = 12}};
	struct gr_nvtx e[96];
	size_t ne = 0, n;
	struct gr_nvtx_set s;
	uint64_t bounds[64], iter[6];
	uint32_t r = UINT32_MAX;

	for (uint64_t j = 0; j < 6; j++) {
		uint64_t t = 100 + 1000 * j;

		e[ne++] = ev(GR_NVTX_PUSH, t, 0, 0, 0, 1);
		if (j == 0 || j == 3)
			e[ne++] = ev(GR_NVTX_PUSH, t + 50, 1, 0, 0, 1);
		e[ne++] = ev(GR_NVTX_PUSH, t + 100, 0, 0, 0, 13);
		if (j == 2) {
			e[ne++] = ev(GR_NVTX_PUSH, t + 200, 0, 0, 0, 1);
			e[ne++] = ev(GR_NVTX_POP, t + 300, 0, 0, 0, 0);
		}
		e[ne++] = ev(GR_NVTX_POP, t + 400, 0, 0, 0, 0);
		if (j == 0 || j == 3) {
			e[ne++] = ev(GR_NVTX_POP, t + 450, 1, 0, 0, 0);
			e[ne++] = ev(GR_NVTX_PUSH, t + 460, 0, 0, 0, 2);
			e[ne++] = ev(GR_NVTX_POP, t + 480, 0, 0, 0, 0);
		}
		e[ne++] = ev(GR_NVTX_PUSH, t + 500, 0, 0, 0, 13);
		e[ne++] = ev(GR_NVTX_POP, t + 700, 0, 0, 0, 0);
		e[ne++] = ev(GR_NVTX_POP, t + 900, 0, 0, 0, 0);
	}
	CHECK(gr_nvtx_build_events(e, ne, th, 2, text_of, NULL, 10000, &s) == 0);
	n = gr_nvtx_step_bounds(&s, 0, "step", bounds);
	CHECK_EQ_U64(n, 6);
	for (size_t j = 0; j < 6 && n == 6; j++)
		CHECK_EQ_U64(bounds[j], 100 + 1000 * j);
	CHECK_EQ_U64(bounds[6], 5100 + 900);
	CHECK_EQ_U64(gr_nvtx_step_bounds(&s, 0, "fwd", bounds), 12);
	CHECK_EQ_U64(gr_nvtx_step_bounds(&s, 1, "step", bounds), 2);
	CHECK_EQ_U64(gr_nvtx_step_bounds(&s, 0, "nothing", bounds), 0);

	/* a loop whose iterations start with a call 50 ns into each step */
	for (size_t j = 0; j < 6; j++)
		iter[j] = 150 + 1000 * j;
	CHECK(gr_nvtx_step_choice(&s, 0, iter, 6, 6000, &r) == 1);
	CHECK(r < s.nranges && s.ranges[r].name == 1 && s.ranges[r].depth == 0);
	/* the other phase (the first call before the push), one iteration fewer: still "step" */
	for (size_t j = 0; j < 5; j++)
		iter[j] = 1050 + 1000 * j;
	CHECK(gr_nvtx_step_choice(&s, 0, iter, 5, 6000, &r) == 1);
	CHECK(r < s.nranges && s.ranges[r].name == 1);
	/* times do not decide: the same ranges, iterations of 100 ns to 5 us between them, are
	 * still one step each (a warm-up or a busy machine); "fwd" twice an iteration is not */
	CHECK(gr_nvtx_step_choice(&s, 0, (const uint64_t[]){150, 1140, 2150, 3190, 5050, 5150}, 6,
				  6000, &r) == 1);
	CHECK(r < s.nranges && s.ranges[r].name == 1);
	/* a loop of two steps an iteration: "step" starts twice in one, "fwd" four times;
	 * "forward" once in each of the first two but not in the third */
	CHECK(gr_nvtx_step_choice(&s, 0, (const uint64_t[]){150, 2150, 4150}, 3, 6000, &r) == 0);
	/* a loop of iterations split inside a step: some hold no start of "step" */
	CHECK(gr_nvtx_step_choice(&s, 0, (const uint64_t[]){150, 650, 1150, 1650, 2150}, 5, 2500,
				  &r) == 0);
	/* two iterations are too few to say */
	CHECK(gr_nvtx_step_choice(&s, 0, iter, 2, 6000, &r) == 0);
	/* a thread whose loop its ranges do not follow */
	CHECK(gr_nvtx_step_choice(&s, 1, iter, 5, 6000, &r) == 0);
	gr_nvtx_free(&s);
}

/* A hostile nesting: 70000 pushes of as many names, never popped, on one thread of the standard
 * trace. Depth saturates; each name is nested in the one before, a chain the order keeps. */
static void test_deep(void)
{
	enum { N = 70000 };
	char path[256];
	struct gr_model *m = NULL;
	struct gr_nvtx *e = calloc(N, sizeof(*e));
	struct gr_nvtx_set s;
	struct gr_nvtx_stats st;
	const struct gr_thread *th;
	size_t nth, chain = 0;

	snprintf(path, sizeof(path), "%s/deep.trc", dir);
	CHECK(e && synth_write(path, 0) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!e || !m)
		goto out;
	th = gr_model_threads(m, &nth);
	for (uint32_t i = 0; i < N; i++)
		e[i] = ev(GR_NVTX_PUSH, T0 + i, 0, 0, 0, 100 + i);
	CHECK(gr_nvtx_build_events(e, N, th, nth, text_of, NULL, T0 + 2000000, &s) == 0);
	CHECK_EQ_U64(s.nranges, N);
	CHECK_EQ_U64(s.ranges[N - 1].depth, UINT16_MAX);
	CHECK_EQ_U64(s.ranges[N - 1].parent, N - 2);
	CHECK(gr_nvtx_stats_compute(m, &s, NULL, NULL, NULL, &st) == 0);
	CHECK_EQ_U64(st.n, N);
	for (size_t i = 1; i < st.n; i++)
		chain += st.v[i].parent == i - 1 && st.v[i].name == 100 + i;
	CHECK_EQ_U64(chain, N - 1);
	CHECK(st.n && st.v[0].parent == UINT32_MAX && st.v[N - 1].unclosed == 1);
	gr_nvtx_stats_free(&st);
	gr_nvtx_free(&s);
out:
	free(e);
	gr_model_free(m);
}

/* One NVTX row of pid 100. */
static int nvtx_row(struct gr_trace_writer *w, uint64_t ts, uint64_t tid, unsigned op, uint64_t id,
		    const char *text)
{
	uint64_t v[GR_NVTX_NCOLS] = {[GR_NVTX_TS] = ts,
				     [GR_NVTX_PID] = 100,
				     [GR_NVTX_TID] = tid,
				     [GR_NVTX_OP] = op,
				     [GR_NVTX_ID] = id};
	struct gr_bytes b[1] = {{(const uint8_t *)text, (uint32_t)strlen(text)}};

	return gr_trace_writer_append(w, GR_K_NVTX, v, b);
}

/*
 * The report over NVTX rows: 10 "step" ranges on tid 101 (named "trainer"), each holding three
 * launches of three kernels (a loop of 3 calls the finder finds) and a "fwd" range around the
 * first. --step nvtx:step makes 10 steps of 3 launches; so does the finder's own choice, for
 * "step" starts once a period ("fwd" too, but it is nested: the outer range wins); a name no
 * range has is an error.
 */
static void test_report(void)
{
	static const uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
	char path[256];
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_report_opts o = {0};
	int err = 0;

	snprintf(path, sizeof(path), "%s/report.trc", dir);
	CHECK(synth_open(&w, path, 0) == 0);
	if (!w)
		return;
	err |= nvtx_row(w, T0 + 10, 101, GR_NVTX_NAME_THREAD, 101, "trainer");
	for (uint64_t j = 0; j < 10; j++) {
		uint64_t sj = T0 + 10000 * j + 100;

		err |= nvtx_row(w, sj, 101, GR_NVTX_PUSH, 0, "step");
		err |= nvtx_row(w, sj + 900, 101, GR_NVTX_PUSH, 1, "fwd");
		for (uint64_t k = 0; k < 3; k++)
			err |= synth_launch(w, sj + 1000 * (k + 1), 100, 101, 0xA0 + 0x10 * k, g, b,
					    0, 0, 0, 500);
		err |= nvtx_row(w, sj + 1600, 101, GR_NVTX_POP, 0, "");
		err |= nvtx_row(w, sj + 5000, 101, GR_NVTX_POP, 0, "");
	}
	err |= gr_trace_writer_close(w);
	CHECK(!err);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;

	o.step = "nvtx:step";
	CHECK(gr_report_compute(m, &o, &r) == 0);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found && it->why == GR_PHASE_STEP);
		CHECK_EQ_U64(it->step_starts, 10);
		CHECK_EQ_U64(it->count, 10);
		CHECK_EQ_U64(it->launches, 3);
		/* a step starts where its range does: [start_j, start_j+1), the last to its end */
		CHECK_EQ_U64(it->start_ts, T0 + 100);
		CHECK_EQ_U64(it->end_ts, T0 + 90100 + 5000);
		CHECK_STR(r->nvtx.step_range, "step");
		CHECK_EQ_U64(r->nvtx.stats.steps, 10);
		CHECK(r->launches.nthreads == 1 && r->launches.threads[0].nvtx_name &&
		      !strcmp(r->launches.threads[0].nvtx_name, "trainer"));
	}
	gr_report_free(r);
	r = NULL;

	/* the finder's loop (3 launches a period) and the range that starts once a period */
	o.step = NULL;
	CHECK(gr_report_compute(m, &o, &r) == 0);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found && it->why == GR_PHASE_NVTX);
		CHECK_EQ_U64(it->count, 10);
		CHECK_EQ_U64(it->start_ts, T0 + 100);
		CHECK_STR(r->nvtx.step_range, "step");
	}
	gr_report_free(r);
	r = NULL;

	o.step = "nvtx:nosuch";
	CHECK(gr_report_compute(m, &o, &r) == -ENOENT && !r);
	gr_model_free(m);
}

/* The model thread of (@pid, @tid), UINT32_MAX when none. */
static uint32_t thread_of(const struct gr_model *m, uint32_t pid, uint32_t tid)
{
	size_t n;
	const struct gr_thread *th = gr_model_threads(m, &n);

	for (uint32_t i = 0; i < n; i++)
		if (th[i].pid == pid && th[i].tid == tid)
			return i;
	return UINT32_MAX;
}

/* What is inside ranges over synth_gpu.h's trace: calls of every kind, a captured launch (no
 * kernel), a graph launch (one kernel node), and GPU rows projected by their calls' thread and
 * time (nsys's rule): the untied row and the other process's are in no range. */
static void test_inside(void)
{
	char path[256];
	struct gr_model *m = NULL;
	struct gr_graphs *g = NULL;
	struct gr_nvtx_set s;
	struct gr_nvtx_stats st;
	const struct gr_thread *th;
	size_t nth;
	uint32_t t101, t102;

	snprintf(path, sizeof(path), "%s/gpu.trc", dir);
	CHECK(synth_gpu_write(path) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	CHECK(gr_graphs_build(m, &g) == 0);
	th = gr_model_threads(m, &nth);
	t101 = thread_of(m, 100, 101);
	t102 = thread_of(m, 100, 102);
	CHECK(t101 != UINT32_MAX && t102 != UINT32_MAX);
	if (t101 == UINT32_MAX || t102 == UINT32_MAX)
		goto out;
	{
		const struct gr_nvtx e[] = {
		    ev(GR_NVTX_PUSH, T0 + 500, t101, 0, 1, 1),	  /* step: [500, 8000) */
		    ev(GR_NVTX_PUSH, T0 + 1000, t102, 0, 1, 2),	  /* forward: [1000, 2000) */
		    ev(GR_NVTX_START, T0 + 1400, t102, 0, 5, 14), /* load: [1400, 2600) */
		    ev(GR_NVTX_PUSH, T0 + 1500, t101, 0, 2, 13),  /* fwd: [1500, 3500) */
		    ev(GR_NVTX_POP, T0 + 2000, t102, 0, 0, 0),	  /* */
		    ev(GR_NVTX_END, T0 + 2600, t101, 0, 5, 0),	  /* */
		    ev(GR_NVTX_POP, T0 + 3500, t101, 0, 0, 0),	  /* */
		    ev(GR_NVTX_POP, T0 + 8000, t101, 0, 0, 0),	  /* */
		};
		const struct gr_nvtx_stat *step = NULL, *fwd = NULL, *forward = NULL, *load = NULL;

		CHECK(gr_nvtx_build_events(e, sizeof(e) / sizeof(e[0]), th, nth, text_of, NULL,
					   T0 + 50000, &s) == 0);
		CHECK(gr_nvtx_stats_compute(m, &s, g, NULL, NULL, &st) == 0);
		CHECK(st.has_gpu);
		for (size_t i = 0; i < st.n; i++) {
			const struct gr_nvtx_stat *v = &st.v[i];

			if (v->name == 1)
				step = v;
			else if (v->name == 13)
				fwd = v;
			else if (v->name == 2)
				forward = v;
			else if (v->name == 14)
				load = v;
		}
		CHECK(step && fwd && forward && load && st.n == 4);
		if (step) {
			/* launches at 1000, 2000, 3000, the captured one at 6100 and the graph
			 * launch at 7000; kernels: not the captured one, the graph's one node */
			CHECK_EQ_U64(step->launches, 5);
			CHECK_EQ_U64(step->kernels, 4);
			/* 4 launches (500 ns), the copy and the memset (500), 4 graph calls (100)
			 */
			CHECK_EQ_U64(step->api_calls, 10);
			CHECK_EQ_U64(step->api_ns, 3400);
			/* r0 r1 r3 r4 r5 r6 r7 */
			CHECK_EQ_U64(step->gpu_ops, 7);
			CHECK_EQ_U64(step->gpu_ns, 9100);
		}
		if (fwd) {
			CHECK_EQ_U64(fwd->launches, 2);
			CHECK_EQ_U64(fwd->kernels, 2);
			CHECK_EQ_U64(fwd->api_ns, 1000);
			CHECK_EQ_U64(fwd->gpu_ops, 2);
			CHECK_EQ_U64(fwd->gpu_ns, 2000);
			CHECK(step && fwd->parent == (uint32_t)(step - st.v));
		}
		if (forward) {
			CHECK_EQ_U64(forward->launches, 1);
			CHECK_EQ_U64(forward->gpu_ns, 500);
		}
		/* every thread of pid 100 in [1400, 2600): the launches at 1500 (102) and 2000
		 * (101), their rows r2 and r1; not pid 200's launch at 2500 */
		if (load) {
			CHECK_EQ_U64(load->launches, 2);
			CHECK_EQ_U64(load->gpu_ops, 2);
			CHECK_EQ_U64(load->gpu_ns, 1500);
		}
		gr_nvtx_stats_free(&st);
		gr_nvtx_free(&s);
	}
out:
	gr_graphs_free(g);
	gr_model_free(m);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_pairing);
	RUN_TEST(test_empty);
	RUN_TEST(test_stats);
	RUN_TEST(test_inside);
	RUN_TEST(test_steps);
	RUN_TEST(test_deep);
	RUN_TEST(test_report);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
