/* SPDX-License-Identifier: MIT */
/*
 * analyze/html/: the HTML report's views on synthetic traces whose every time the test sets
 * (iterations, windows, spans per type, flame weights, the caps), and the page's escaping.
 */
#include <stdlib.h>
#include <unistd.h>

#include "analyze/html/html.h"
#include "analyze/html/html_views.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "synth.h"
#include "synth_gpu_loop.h"
#include "test.h"

#define T0  SYNTH_T0
#define PID 100

static char dir[] = "/tmp/gr_test_html.XXXXXX";

struct tb {
	struct gr_trace_writer *w;
	char path[256];
	int err;
};

static void tb_open(struct tb *b, const char *name)
{
	snprintf(b->path, sizeof(b->path), "%s/%s", dir, name);
	b->err = synth_open(&b->w, b->path, 0) ? -1 : 0;
	b->err |= synth_name(b->w, T0, GR_NAME_KERNEL, PID, 0xA0, "kernA");
	b->err |= synth_name(b->w, T0, GR_NAME_KERNEL, PID, 0xB0, "kernB");
	b->err |= synth_name(b->w, T0, GR_NAME_KERNEL, PID, 0xC0, "kernC");
}

static void tb_launch(struct tb *b, uint64_t ts, uint64_t func, uint32_t gx)
{
	const uint32_t grid[3] = {gx, 1, 1}, block[3] = {128, 1, 1};

	b->err |= synth_launch(b->w, ts, PID, PID, func, grid, block, 0, 0x5, 0, 0);
}

static void tb_sync(struct tb *b, uint64_t ts, uint64_t dur)
{
	uint64_t v[GR_SYNC_NCOLS] = {[GR_SYNC_TS] = ts,
				     [GR_SYNC_DUR] = dur,
				     [GR_SYNC_PID] = PID,
				     [GR_SYNC_TID] = PID,
				     [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
				     [GR_SYNC_SKIND] = GR_SYNC_STREAM,
				     [GR_SYNC_HANDLE] = 0x5};

	b->err |= gr_trace_writer_append(b->w, GR_K_SYNC, v, NULL);
}

/* Close, load, report and compute the views; NULL views on any failure (reported). */
static struct gr_html_views *tb_views(struct tb *b, struct gr_model **m, struct gr_report **r)
{
	struct gr_html_views *v = NULL;
	struct gr_diag diag = {0};

	*m = NULL;
	*r = NULL;
	if (gr_trace_writer_close(b->w))
		b->err = -1;
	CHECK(b->err == 0);
	CHECK(gr_model_load(m, b->path, &diag) == 0);
	if (!*m)
		return NULL;
	CHECK(gr_report_compute(*m, NULL, r) == 0);
	if (*r)
		CHECK(gr_html_views_compute(*m, *r, &v) == 0);
	return v;
}

static uint64_t count_type(const struct gr_html_views *v, size_t w, unsigned type)
{
	uint64_t n = 0, from = 0;

	for (size_t i = 0; i < w; i++)
		from += v->window_spans[i];
	for (uint64_t i = from; i < from + v->window_spans[w]; i++)
		n += v->spans[i].type == type;
	return n;
}

static const struct gr_html_flame_node *child(const struct gr_html_views *v, int32_t n,
					      const char *name)
{
	for (int32_t c = v->flame[n].first_child; c >= 0; c = v->flame[c].next)
		if (!strcmp(v->flame[c].name, name))
			return &v->flame[c];
	return NULL;
}

/* The budget bars of @v: @per iterations each (the last may hold fewer), 0..@K-1 in order, each
 * total its parts' sum exactly; the marks are the report's. */
static void check_bars(const struct gr_html_views *v, const struct gr_report *r, uint64_t K,
		       uint64_t per)
{
	uint64_t next = 0, sum;

	CHECK(v->budget_found);
	CHECK_EQ_U64(v->budget_per, per);
	CHECK_EQ_U64(v->nbars, (K + per - 1) / per);
	CHECK(v->nbars <= GR_HTML_BUDGET_BARS);
	for (size_t i = 0; i < v->nbars; i++) {
		const struct gr_html_budget_bar *b = &v->bars[i];

		CHECK_EQ_U64(b->first, next);
		CHECK_EQ_U64(b->last, (next + per < K ? next + per : K) - 1);
		next = b->last + 1;
		sum = 0;
		for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
			sum += b->part_ns[p];
		CHECK_EQ_U64(sum, b->total_ns);
	}
	CHECK_EQ_U64(next, K);
	CHECK_EQ_U64(v->marks[GR_HTML_MARK_MEDIAN].index, r->budget.median.index);
	CHECK_EQ_U64(v->marks[GR_HTML_MARK_P90].index, r->budget.p90.index);
	CHECK_EQ_U64(v->marks[GR_HTML_MARK_SLOWEST].total_ns, r->budget.slowest.total_ns);
}

/*
 * 12 iterations of (kernA, kernB, a 300 ns sync) on one thread, their start-to-start times
 * set: a 3000 ns warm-up, then 1100, 1000, ..., one of 1200 and one of 2500; the last one's
 * time is its first call to its sync's end, 500 ns. Median 1000: iteration 2 (the first of
 * 1000); first steady: 1 (1100 <= 1.5 x 1000); slowest: 0.
 */
static void test_iterations_windows_flame(void)
{
	static const uint64_t durs[12] = {3000, 1100, 1000, 1000, 1000, 1200,
					  1000, 1000, 2500, 1000, 1000, 500};
	uint64_t starts[12], ts = T0 + 1000;
	struct gr_model *m;
	struct gr_report *r;
	struct gr_html_views *v;
	struct tb b;

	tb_open(&b, "iter.trc");
	for (int j = 0; j < 12; j++) {
		starts[j] = ts;
		tb_launch(&b, ts, 0xA0, 64);
		tb_launch(&b, ts + 100, 0xB0, 64);
		tb_sync(&b, ts + 200, 300);
		ts += durs[j];
	}
	v = tb_views(&b, &m, &r);
	CHECK(v != NULL);
	if (!v)
		goto out;
	CHECK_EQ_U64(v->t0, r->first_ts);
	CHECK(v->iter_found);
	CHECK_EQ_U64(v->iter_count, 12);
	CHECK(!v->binned);
	CHECK_EQ_U64(v->npoints, 12);
	for (int j = 0; j < 12 && v->npoints == 12; j++) {
		CHECK_EQ_U64(v->points[j].start, starts[j]);
		CHECK_EQ_U64(v->points[j].median, durs[j]);
		CHECK_EQ_U64(v->points[j].n, 1);
	}
	CHECK_EQ_U64(v->nwindows, 3);
	CHECK(v->windows[0].label == GR_HTML_FIRST && v->windows[0].index == 1);
	CHECK(v->windows[1].label == GR_HTML_MEDIAN && v->windows[1].index == 2);
	CHECK(v->windows[2].label == GR_HTML_SLOWEST && v->windows[2].index == 0);
	CHECK_EQ_U64(v->windows[0].start, starts[1]);
	CHECK_EQ_U64(v->windows[0].end, starts[2]);
	/* each window: its two launches, their two kernel instants on the stream, one sync */
	for (size_t w = 0; w < v->nwindows; w++) {
		CHECK_EQ_U64(v->window_spans[w], 5);
		CHECK_EQ_U64(count_type(v, w, GR_HTML_LAUNCH), 2);
		CHECK_EQ_U64(count_type(v, w, GR_HTML_KERNEL), 2);
		CHECK_EQ_U64(count_type(v, w, GR_HTML_SYNC), 1);
	}
	CHECK_EQ_U64(v->nspans, 15);
	CHECK_EQ_U64(v->truncated, 0);
	CHECK_EQ_U64(v->ntracks, 2); /* the thread, the stream */
	/* flame: executed launches at the root, host time in the syncs */
	CHECK_EQ_U64(v->flame[0].launches, r->launches.executed);
	CHECK_EQ_U64(v->flame[0].launches, 24);
	CHECK_EQ_U64(v->flame[0].host_ns, 12 * 300);
	CHECK(child(v, 0, "kernA") && child(v, 0, "kernA")->launches == 12);
	CHECK(child(v, 0, "cudaStreamSynchronize") &&
	      child(v, 0, "cudaStreamSynchronize")->host_ns == 3600);
	CHECK_EQ_U64(v->flame_merged, 0);
	/* a bar per iteration, each the budget the report computes: its median's, its slowest's */
	check_bars(v, r, 12, 1);
	for (unsigned p = 0; p < GR_BUDGET_NPARTS && v->nbars == 12; p++) {
		CHECK_EQ_U64(v->bars[r->budget.median.index].part_ns[p],
			     r->budget.median.part_ns[p]);
		CHECK_EQ_U64(v->bars[r->budget.slowest.index].part_ns[p],
			     r->budget.slowest.part_ns[p]);
	}
	CHECK_EQ_U64(r->budget.slowest.index, 0);
	CHECK(v->nbars == 12 && v->bars[3].part_ns[GR_BUDGET_SYNC_STREAM] > 0);
out:
	gr_html_views_free(v);
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * 4500 iterations: binned by 3 into 1500 points; one kernC launch after the loop, 1 of 9001
 * launches (under 0.1%) and no host time: folded into "(other)".
 */
static void test_binning_and_pruning(void)
{
	uint64_t ts = T0 + 1000;
	struct gr_model *m;
	struct gr_report *r;
	struct gr_html_views *v;
	struct tb b;

	tb_open(&b, "bins.trc");
	for (int j = 0; j < 4500; j++) {
		tb_launch(&b, ts, 0xA0, 64);
		tb_launch(&b, ts + 100, 0xB0, 64);
		tb_sync(&b, ts + 200, 300);
		ts += 1000 + (j % 3) * 10; /* 1000, 1010, 1020 in every bin of 3 */
	}
	tb_launch(&b, ts + 5000, 0xC0, 1);
	v = tb_views(&b, &m, &r);
	CHECK(v != NULL);
	if (!v)
		goto out;
	CHECK_EQ_U64(v->iter_count, 4500);
	CHECK(v->binned);
	CHECK_EQ_U64(v->npoints, 1500);
	CHECK_EQ_U64(v->points[0].n, 3);
	CHECK_EQ_U64(v->points[0].min, 1000);
	CHECK_EQ_U64(v->points[0].median, 1010);
	CHECK_EQ_U64(v->points[0].max, 1020);
	CHECK_EQ_U64(v->flame[0].launches, 9001);
	CHECK(child(v, 0, "kernC") == NULL);
	CHECK(child(v, 0, "(other)") && child(v, 0, "(other)")->launches == 1 &&
	      child(v, 0, "(other)")->host_ns == 0);
	CHECK_EQ_U64(v->flame_merged, 1);
	/* 4500 iterations in bars of ceil(4500 / 600) = 8: 563 bars, the last of 4 */
	check_bars(v, r, 4500, 8);
	CHECK(v->nbars == 563 && v->bars[562].first == 4496 && v->bars[562].last == 4499);
out:
	gr_html_views_free(v);
	gr_report_free(r);
	gr_model_free(m);
}

/* 3 iterations of 12000 launches of kernA, each with its own grid (12000 configs, 10 ns apart):
 * the one window holds 24000 spans (launch + instant), keeps what its caps allow, counts the
 * rest as left out. */
static void test_span_cap(void)
{
	uint64_t ts = T0 + 1000;
	struct gr_model *m;
	struct gr_report *r;
	struct gr_html_views *v;
	struct tb b;

	tb_open(&b, "cap.trc");
	for (int j = 0; j < 3; j++)
		for (uint32_t k = 1; k <= 12000; k++, ts += 10)
			tb_launch(&b, ts, 0xA0, k);
	v = tb_views(&b, &m, &r);
	CHECK(v != NULL);
	if (!v)
		goto out;
	CHECK_EQ_U64(v->iter_count, 3);
	CHECK_EQ_U64(v->nwindows, 1);
	/* 24000 candidates (a launch and its kernel instant each), each launch with a detail of
	 * its own (grid (k,1,1)): the byte budget binds before the count; every candidate is kept
	 * or counted as left out, and what is kept is within both caps */
	CHECK(v->window_spans[0] > 1000 && v->window_spans[0] < GR_HTML_WINDOW_SPANS);
	CHECK_EQ_U64(v->truncated, 24000 - v->window_spans[0]);
	CHECK_EQ_U64(v->nspans, v->window_spans[0]);
	{
		size_t bytes = v->nspans * GR_HTML_SPAN_ROW_BYTES;

		for (size_t i = 0; i < v->nnames; i++)
			bytes += strlen(v->names[i]) + 4;
		CHECK(bytes <= GR_HTML_WINDOW_BYTES);
		/* only the names of kept spans: a detail per kept launch at most, and kernA */
		CHECK(v->nnames <= v->nspans + 2);
	}
out:
	gr_html_views_free(v);
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * 20000 distinct kernels (torch.compile makes thousands; a name of 120 bytes each), each
 * launched 3 times with 3 grid sizes: the page's data stays under 2 MB by carrying the first
 * GR_HTML_REPORT_ROWS rows of each ranked table, with the totals that say how many there are.
 */
static void test_many_kernels_size(void)
{
	uint64_t ts = T0 + 1000;
	struct gr_model *m;
	struct gr_report *r;
	struct gr_html_views *v;
	struct tb b;
	char *data = NULL;
	size_t len = 0;
	FILE *f;

	tb_open(&b, "kernels.trc");
	for (uint32_t k = 0; k < 20000; k++) {
		char name[160];

		snprintf(name, sizeof(name),
			 "triton_poi_fused__to_copy_add_clone_convolution_backward_mul_native_"
			 "batch_norm_backward_relu_threshold_backward_sum_%05u",
			 k);
		b.err |= synth_name(b.w, T0, GR_NAME_KERNEL, PID, 0x100000 + k, name);
	}
	for (int rep = 0; rep < 3; rep++)
		for (uint32_t k = 0; k < 20000; k++, ts += 10)
			tb_launch(&b, ts, 0x100000 + k, 1 + (uint32_t)rep);
	v = tb_views(&b, &m, &r);
	if (!v)
		goto out;
	f = open_memstream(&data, &len);
	CHECK(f != NULL);
	if (!f)
		goto out;
	CHECK_EQ_U64(gr_html_report_data(f, m, r, (const char *const[]){"kernels.trc"}, 1, "t"), 0);
	fclose(f);
	CHECK(len < 2000000);
	CHECK(data && strstr(data, "\"kernels_total\": 20000"));
out:
	free(data);
	gr_html_views_free(v);
	gr_report_free(r);
	gr_model_free(m);
}

/* The standard synthetic trace (synth.h: launches on several threads and streams, named and
 * not): the flame graph's root holds every executed launch the report counts. */
static void test_standard_trace(void)
{
	char path[300];
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_html_views *v = NULL;

	snprintf(path, sizeof(path), "%s/std.trc", dir);
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (m)
		CHECK(gr_report_compute(m, NULL, &r) == 0);
	if (r)
		CHECK(gr_html_views_compute(m, r, &v) == 0);
	if (v) {
		CHECK_EQ_U64(v->flame[0].launches, r->launches.executed);
		CHECK_EQ_U64(v->flame[0].launches, SYNTH_LAUNCHES);
	}
	gr_html_views_free(v);
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * GPU rows (--cupti): synth_gpu_loop.h's loop, whose every iteration runs kernels a and b on the
 * GPU inside its own sync. Each window drawn holds its iteration's two GPU rows, on one track
 * (pid 100, device 0, stream 7), at their GPU times: a at S + 2100 for 1000 ns, then b.
 */
static void test_gpu_tracks(void)
{
	char path[300];
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_html_views *v = NULL;
	size_t gpu_tracks = 0, a_at = 0;

	snprintf(path, sizeof(path), "%s/gpu.trc", dir);
	CHECK(synth_gpu_loop(path, 10, 1000, 3000, 0) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (m)
		CHECK(gr_report_compute(m, NULL, &r) == 0);
	if (r)
		CHECK(gr_html_views_compute(m, r, &v) == 0);
	if (!v)
		goto out;
	CHECK(v->nwindows >= 1 && v->windows[0].label != GR_HTML_WHOLE);
	for (size_t t = 0; t < v->ntracks; t++)
		if (v->tracks[t].kind == GR_HTML_TRACK_GPU) {
			gpu_tracks++;
			CHECK(v->tracks[t].pid == SYNTH_GPU_PID && v->tracks[t].device == 0 &&
			      v->tracks[t].stream == 7);
		}
	CHECK_EQ_U64(gpu_tracks, 1);
	for (size_t w = 0; w < v->nwindows; w++) {
		CHECK_EQ_U64(count_type(v, w, GR_HTML_GPU_KERNEL), 2);
		CHECK_EQ_U64(count_type(v, w, GR_HTML_GPU_MEMCPY), 0);
	}
	for (size_t i = 0; i < v->nspans; i++) {
		const struct gr_html_span *sp = &v->spans[i];

		if (sp->type != GR_HTML_GPU_KERNEL)
			continue;
		CHECK(v->tracks[sp->track].kind == GR_HTML_TRACK_GPU);
		a_at += sp->dur == 1000 &&
			(sp->start - (SYNTH_T0 + 1000 + 2100)) % SYNTH_GPU_PERIOD == 0;
	}
	CHECK_EQ_U64(a_at, v->nwindows);
out:
	gr_html_views_free(v);
	gr_report_free(r);
	gr_model_free(m);
}

/* A kernel named "</script>" in the data cannot end the data's script; the title is text. */
static void test_escaping(void)
{
	static const char data[] = "{\"k\":\"</script><b>&\xe2\x80\xa8\xe2\x80\xa9\"}";
	char *buf = NULL, *p;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(gr_html_write_page(f, "a<b & \"c\"", data, sizeof(data) - 1) == 0);
	fclose(f);
	CHECK(
	    strstr(buf, "{\"k\":\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\u2028\\u2029\"}") !=
	    NULL);
	CHECK(strstr(buf, "a&lt;b &amp; &quot;c&quot;") != NULL);
	/* the template's own two script elements end, nothing else does */
	for (p = buf; (p = strstr(p, "</script>")); p++)
		n++;
	CHECK_EQ_U64(n, 2);
	CHECK(strstr(buf, "\xe2\x80\xa8") == NULL);
	free(buf);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_iterations_windows_flame);
	RUN_TEST(test_binning_and_pruning);
	RUN_TEST(test_span_cap);
	RUN_TEST(test_many_kernels_size);
	RUN_TEST(test_standard_trace);
	RUN_TEST(test_gpu_tracks);
	RUN_TEST(test_escaping);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
