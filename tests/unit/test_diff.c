/* SPDX-License-Identifier: MIT */
/* analyze/diff: synthetic training loops compared, with exactly known deltas. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/diff/diff.h"
#include "analyze/diff/diff_common.h"
#include "analyze/diff/diff_parts.h"
#include "analyze/model/model.h"
#include "synth.h"
#include "test.h"

static char dir[] = "/tmp/gr_test_diff.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[8][256];
	static int n;
	char *p = buf[n++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

#define MAXK 8

/* A loop of @steps steps: each step launches the kernels in order, 5 us apart, on one stream,
 * then copies @d2h_bytes device to host (when not 0) and synchronises the stream. */
struct run {
	const char *host;
	unsigned steps;
	unsigned nk;
	const char *names[MAXK];
	uint64_t funcs[MAXK];  /* launch func values: any, names match */
	uint32_t grid_x[MAXK]; /* grid (x,1,1); 0 means 16 */
	uint32_t alt_grid_x;   /* when not 0: odd steps launch kernel 0 with this grid x */
	uint64_t d2h_bytes;
	int d2h_as_default; /* the copies are cudaMemcpyDefault from a recorded device buffer */
	uint64_t lost;
	int blocked; /* each step the loop thread sleeps 300 us after its sync, woken by tid 102 */
};

#define DEVICE_BUF 0x7f0000000000ull

static int write_run(const char *path, const struct run *r)
{
	static const uint32_t block[3] = {256, 1, 1};
	struct gr_trace_header h = synth_header;
	struct gr_writer_opts opts = {0};
	struct gr_trace_writer *w = NULL;
	uint64_t period = 5000 * (r->nk + 2), t;
	int fd, err = 0;

	h.host = r->host ? r->host : "testhost";
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || gr_trace_writer_open(&w, fd, &h, gr_events_schema(), &opts))
		return -1;
	err |= synth_proc(w, SYNTH_T0 + 10, GR_PROC_START, 100, 100, 1, "");
	if (r->d2h_as_default) {
		uint64_t v[GR_ALLOC_NCOLS] = {
		    [GR_ALLOC_TS] = SYNTH_T0 + 20, [GR_ALLOC_PID] = 100,
		    [GR_ALLOC_TID] = 101,	   [GR_ALLOC_ADDR] = DEVICE_BUF,
		    [GR_ALLOC_BYTES] = 1 << 20,	   [GR_ALLOC_AKIND] = GR_ALLOC_DEVICE};

		err |= gr_trace_writer_append(w, GR_K_ALLOC, v, NULL);
	}
	for (unsigned s = 0; s < r->steps; s++) {
		t = SYNTH_T0 + 10000 + s * period;
		for (unsigned k = 0; k < r->nk; k++, t += 5000) {
			uint32_t grid[3] = {r->grid_x[k] ? r->grid_x[k] : 16, 1, 1};

			if (k == 0 && r->alt_grid_x && s % 2)
				grid[0] = r->alt_grid_x;
			err |=
			    synth_launch(w, t, 100, 101, r->funcs[k], grid, block, 0, 0x5000, 0, 0);
		}
		if (r->d2h_bytes) {
			uint64_t v[GR_COPY_NCOLS] = {
			    [GR_COPY_TS] = t,
			    [GR_COPY_DUR] = 1000,
			    [GR_COPY_PID] = 100,
			    [GR_COPY_TID] = 101,
			    [GR_COPY_API] = GR_API_cudaMemcpyAsync,
			    [GR_COPY_BYTES] = r->d2h_bytes,
			    [GR_COPY_CKIND] = r->d2h_as_default ? GR_COPY_DEFAULT : GR_COPY_D2H,
			    [GR_COPY_SRC] = r->d2h_as_default ? DEVICE_BUF : 0,
			    [GR_COPY_DST] = 0x5000, /* pageable */
			    [GR_COPY_STREAM] = 0x5000,
			    [GR_COPY_FLAGS] = GR_COPY_F_ASYNC,
			};

			err |= gr_trace_writer_append(w, GR_K_COPY, v, NULL);
		}
		{
			uint64_t v[GR_SYNC_NCOLS] = {[GR_SYNC_TS] = t + 2000,
						     [GR_SYNC_DUR] = 2000,
						     [GR_SYNC_PID] = 100,
						     [GR_SYNC_TID] = 101,
						     [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
						     [GR_SYNC_SKIND] = GR_SYNC_STREAM,
						     [GR_SYNC_HANDLE] = 0x5000};

			err |= gr_trace_writer_append(w, GR_K_SYNC, v, NULL);
		}
		for (int e = 0; r->blocked && e < 3; e++) {
			/* out asleep, woken, in */
			static const uint64_t at[3] = {4100, 4400, 4500};
			uint64_t v[GR_SCHED_NCOLS] = {
			    [GR_SCHED_TS] = t + at[e],
			    [GR_SCHED_TYPE] = e == 1 ? GR_SCHED_WAKEUP : GR_SCHED_SWITCH,
			    [GR_SCHED_PREV_PID] = 100,
			    [GR_SCHED_PREV_TID] = e == 0   ? 101
						  : e == 1 ? 102
							   : 0,
			    [GR_SCHED_PREV_STATE] = e == 0,
			    [GR_SCHED_NEXT_PID] = e == 0 ? 0 : 100,
			    [GR_SCHED_NEXT_TID] = e == 0 ? 0 : 101,
			};

			err |= gr_trace_writer_append(w, GR_K_SCHED, v, NULL);
		}
	}
	if (r->lost) {
		uint64_t v[GR_LOSS_NCOLS] = {SYNTH_T0 + 20000, SYNTH_T0 + 30000, GR_LOSS_RINGBUF,
					     r->lost};

		err |= gr_trace_writer_append(w, GR_K_LOSS, v, NULL);
	}
	t = SYNTH_T0 + 10000 + r->steps * period;
	err |= synth_proc(w, t, GR_PROC_EXIT, 100, 100, 0, "");
	for (unsigned k = 0; k < r->nk; k++)
		err |= synth_name(w, t, GR_NAME_KERNEL, 100, r->funcs[k], r->names[k]);
	err |= synth_name(w, t, GR_NAME_COMM, 100, 101, "train");
	if (gr_trace_writer_close(w))
		err = -1;
	return err ? -1 : 0;
}

static const struct run chain = {
    .steps = 20,
    .nk = 5,
    .names = {"bias_add(float*, float const*, int)", "gelu(float*, int)",
	      "scale(float*, float, int)", "residual_add(float*, float const*, int)",
	      "dropout_mask(float*, unsigned int, int)"},
    .funcs = {0x401000, 0x401100, 0x401200, 0x401300, 0x401400},
};

static const struct run fused = {
    .steps = 20,
    .nk = 1,
    .names = {"fused_elementwise(float*, float const*, float const*, float, unsigned int, int)"},
    .funcs = {0x401000},
};

/* Load two runs and diff them; NULL on any failure (a CHECK says which). */
static struct gr_diff *diff_runs(const struct run *a, const struct run *b,
				 const struct gr_diff_opts *o, struct gr_model *m[2])
{
	const char *path[2] = {tmp_path("a.trc"), tmp_path("b.trc")};
	const struct run *r[2] = {a, b};
	struct gr_diff *d = NULL;

	m[0] = m[1] = NULL;
	for (int s = 0; s < 2; s++) {
		CHECK(write_run(path[s], r[s]) == 0);
		CHECK(gr_model_load(&m[s], path[s], NULL) == 0);
		if (!m[s])
			return NULL;
	}
	CHECK(gr_diff_compute(m[0], m[1], o, &d) == 0);
	return d;
}

static void done(struct gr_diff *d, struct gr_model *m[2])
{
	gr_diff_free(d);
	gr_model_free(m[0]);
	gr_model_free(m[1]);
}

static const struct gr_diff_kernel *kernel(const struct gr_diff *d, const char *prefix,
					   uint32_t grid_x)
{
	for (size_t i = 0; i < d->nkernels; i++)
		if (!strncmp(d->kernels[i].name, prefix, strlen(prefix)) &&
		    (!grid_x || d->kernels[i].grid[0] == grid_x))
			return &d->kernels[i];
	return NULL;
}

static double metric_v(const struct gr_diff *d, const char *id, int side)
{
	const struct gr_diff_metric *mt = gr_diff_metric(d, id);

	return mt ? mt->v[side] : -1;
}

static int summary_has(const struct gr_diff *d, const char *text)
{
	for (size_t i = 0; i < d->nsummary; i++)
		if (strstr(d->summary[i], text))
			return 1;
	return 0;
}

/* The same loop at 20 and 32 steps, different builds (func values) and hosts. */
static void test_two_sizes(void)
{
	struct run b = chain;
	struct gr_model *m[2];
	struct gr_diff *d;

	b.steps = 32;
	b.host = "otherhost";
	for (unsigned k = 0; k < b.nk; k++)
		b.funcs[k] = 0x7f0000 + 0x40 * k; /* another build: other addresses */
	d = diff_runs(&chain, &b, NULL, m);
	if (!d)
		goto out;
	CHECK(d->comparable);
	CHECK_EQ_U64(d->ncommon, 5);
	CHECK_EQ_U64(d->nadded, 0);
	CHECK_EQ_U64(d->nremoved, 0);
	CHECK_EQ_U64(d->nkernels, 5);
	for (size_t i = 0; i < d->nkernels; i++) {
		const struct gr_diff_kernel *k = &d->kernels[i];

		CHECK_EQ_U64(k->count[0], 20);
		CHECK_EQ_U64(k->count[1], 32);
		CHECK(k->delta == 12);
		CHECK(fabs(k->ratio - 1.6) < 1e-12);
		CHECK(k->status == GR_DIFF_COMMON);
		CHECK(!k->hidden);
	}
	/* equal impact: ordered by name */
	CHECK_STR(d->kernels[0].name, "bias_add(float*, float const*, int)");
	CHECK_STR(d->kernels[4].name, "scale(float*, float, int)");
	CHECK(metric_v(d, "run.launches", 0) == 100);
	CHECK(metric_v(d, "run.launches", 1) == 160);
	CHECK(gr_diff_metric(d, "run.launches")->delta == 60);
	CHECK(metric_v(d, "transfer.syncs", 0) == 20);
	CHECK(metric_v(d, "transfer.syncs", 1) == 32);
	CHECK(metric_v(d, "transfer.sync_time", 1) == 32 * 2000);
	CHECK(!d->same_host);
	CHECK(summary_has(d, "launches 100 -> 160 (+60, x1.60)"));
	CHECK(summary_has(d, "recorded on different hosts (testhost, otherhost)"));
	CHECK(d->iter_found[0] && d->iter_found[1]);
	if (d->iter_found[0] && d->iter_found[1]) {
		CHECK(metric_v(d, "iteration.launches", 0) == 5);
		CHECK(metric_v(d, "iteration.launches", 1) == 5);
		CHECK(summary_has(d, "launches per iteration unchanged (5)"));
		CHECK(fabs(d->kernels[0].per_iter[0] - 20.0 / (double)d->iterations[0]) < 1e-12);
	}
out:
	done(d, m);
}

static void test_self_all_zero(void)
{
	struct run a = chain;
	struct gr_model *m[2];
	struct gr_diff *d;

	a.d2h_bytes = 4;
	d = diff_runs(&a, &a, NULL, m);
	if (!d)
		goto out;
	CHECK(d->comparable);
	CHECK(d->same_host);
	CHECK_EQ_U64(d->nkernels, 5);
	for (size_t i = 0; i < d->nkernels; i++) {
		CHECK(d->kernels[i].delta == 0);
		CHECK(d->kernels[i].ratio == 1);
	}
	CHECK(d->nmetrics > 10);
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct gr_diff_metric *mt = &d->metrics[i];

		if (!(isnan(mt->v[0]) && isnan(mt->v[1])))
			CHECK(mt->delta == 0);
		if (mt->delta != 0 && !(isnan(mt->v[0]) && isnan(mt->v[1])))
			printf("#   %s: %g -> %g\n", mt->id, mt->v[0], mt->v[1]);
	}
	CHECK(metric_v(d, "transfer.d2h.bytes", 0) == 80);
	CHECK_EQ_U64(d->nfusion, 1);
	CHECK(d->nfusion == 1 && d->fusion[0].status == GR_DIFF_COMMON);
	CHECK(d->nsummary >= 1);
	CHECK(d->nsummary && !strcmp(d->summary[0], "no differences in what was recorded"));
out:
	done(d, m);
}

static void test_fused_twin(void)
{
	struct gr_model *m[2];
	struct gr_diff *d = diff_runs(&chain, &fused, NULL, m);

	if (!d)
		goto out;
	CHECK(!d->comparable);
	CHECK_EQ_U64(d->nadded, 1);
	CHECK_EQ_U64(d->nremoved, 5);
	CHECK(d->nkernels == 6 && d->kernels[0].status == GR_DIFF_ADDED);
	CHECK(kernel(d, "fused_elementwise", 0) &&
	      kernel(d, "fused_elementwise", 0)->count[1] == 20);
	CHECK(kernel(d, "gelu", 0) && kernel(d, "gelu", 0)->count[0] == 20 &&
	      kernel(d, "gelu", 0)->status == GR_DIFF_REMOVED &&
	      kernel(d, "gelu", 0)->delta == -20 && kernel(d, "gelu", 0)->ratio == 0);
	CHECK(kernel(d, "fused", 0) && isnan(kernel(d, "fused", 0)->ratio));
	CHECK(metric_v(d, "run.launches", 0) == 100);
	CHECK(metric_v(d, "run.launches", 1) == 20);
	CHECK(metric_v(d, "iteration.launches", 0) == 5);
	CHECK(metric_v(d, "iteration.launches", 1) == 1);
	CHECK(d->nsummary > 3);
	if (d->nsummary > 3) {
		CHECK_STR(d->summary[0], "no kernel in common (BASE 5, NEW 1 kernels): the kernel "
					 "rows do not compare; the whole-run figures still do");
		CHECK_STR(d->summary[1], "launches per iteration 5 -> 1");
		CHECK_STR(d->summary[2],
			  "fusion candidate bias_add..dropout_mask (5 kernels) gone");
		CHECK_STR(d->summary[3], "kernels: 1 added (fused_elementwise), 5 removed "
					 "(bias_add, dropout_mask, gelu, ...)");
	}
	/* the step, one fused launch instead of five: the time outside calls (no scheduler
	 * records) per step is what moved, said after the kernels that moved it */
	CHECK(d->nsummary > 4);
	if (d->nsummary > 4)
		CHECK_STR(d->summary[4],
			  "time outside CUDA (state unknown) per step 33.0 us -> 13.0 us");
	CHECK(summary_has(d, "syncs per iteration unchanged (1)"));
	CHECK_EQ_U64(d->nfusion, 1);
	if (d->nfusion == 1) {
		CHECK(d->fusion[0].status == GR_DIFF_REMOVED);
		CHECK_EQ_U64(d->fusion[0].len, 5);
		CHECK(d->fusion[0].occurrences[0] > 0 && d->fusion[0].occurrences[1] == 0);
		CHECK_STR(d->fusion[0].sequence,
			  "bias_add(float*, float const*, int) -> gelu(float*, int) -> "
			  "scale(float*, float, int) -> residual_add(float*, float const*, int) -> "
			  "dropout_mask(float*, unsigned int, int)");
	}
out:
	done(d, m);
}

static void test_tolerance(void)
{
	struct run b = chain;
	struct gr_diff_opts o = {.tolerance = 15};
	struct gr_model *m[2];
	struct gr_diff *d;

	b.steps = 22; /* +10% */
	d = diff_runs(&chain, &b, &o, m);
	if (!d)
		goto out;
	for (size_t i = 0; i < d->nkernels; i++)
		CHECK(d->kernels[i].hidden && d->kernels[i].delta == 2);
	CHECK(gr_diff_metric(d, "run.launches")->hidden);
	CHECK(!summary_has(d, "launches 100 -> 110"));
	gr_diff_free(d);
	d = NULL;
	o.tolerance = 9.99;
	CHECK(gr_diff_compute(m[0], m[1], &o, &d) == 0);
	if (!d)
		goto out;
	for (size_t i = 0; i < d->nkernels; i++)
		CHECK(!d->kernels[i].hidden);
	CHECK(!gr_diff_metric(d, "run.launches")->hidden);
	CHECK(summary_has(d, "launches 100 -> 110 (+10, x1.10)"));
	/* a negative tolerance is invalid */
	gr_diff_free(d);
	d = NULL;
	o.tolerance = -1;
	CHECK(gr_diff_compute(m[0], m[1], &o, &d) == -EINVAL && !d);
out:
	done(d, m);
}

/* Kernel 0 with grid 16 on even steps, 64 on odd ones in BASE; always 16 in NEW. */
static void test_key_grid(void)
{
	struct run a = chain;
	struct gr_diff_opts o = {.key = GR_DIFF_KEY_GRID | GR_DIFF_KEY_BLOCK};
	struct gr_model *m[2];
	struct gr_diff *d;
	const struct gr_diff_kernel *k;

	a.alt_grid_x = 64;
	d = diff_runs(&a, &chain, NULL, m);
	if (!d)
		goto out;
	/* by name only: bias_add 20 -> 20 */
	CHECK_EQ_U64(d->nkernels, 5);
	k = kernel(d, "bias_add", 0);
	CHECK(k && k->count[0] == 20 && k->count[1] == 20 && k->delta == 0);
	gr_diff_free(d);
	d = NULL;
	CHECK(gr_diff_compute(m[0], m[1], &o, &d) == 0);
	if (!d)
		goto out;
	CHECK_EQ_U64(d->nkernels, 6);
	CHECK_EQ_U64(d->ncommon, 5);
	CHECK_EQ_U64(d->nremoved, 1);
	k = kernel(d, "bias_add", 16);
	CHECK(k && k->count[0] == 10 && k->count[1] == 20 && k->delta == 10 && k->ratio == 2 &&
	      k->block[0] == 256 && k->status == GR_DIFF_COMMON);
	k = kernel(d, "bias_add", 64);
	CHECK(k && k->count[0] == 10 && k->count[1] == 0 && k->status == GR_DIFF_REMOVED);
	/* the largest change leads */
	CHECK(d->kernels[0].grid[0] == 16 && !strncmp(d->kernels[0].name, "bias_add", 8));
out:
	done(d, m);
}

static void test_transfers_and_losses(void)
{
	struct run a = chain, b = chain;
	struct gr_model *m[2];
	struct gr_diff *d;

	a.d2h_bytes = 4;
	b.lost = 17;
	d = diff_runs(&a, &b, NULL, m);
	if (!d)
		goto out;
	CHECK(metric_v(d, "transfer.d2h.copies", 0) == 20);
	CHECK(metric_v(d, "transfer.d2h.copies", 1) == 0);
	CHECK(metric_v(d, "transfer.d2h.bytes", 0) == 80);
	CHECK(metric_v(d, "transfer.d2h.copy_time", 0) == 20000);
	CHECK(metric_v(d, "losses.lost_events", 0) == 0);
	CHECK(metric_v(d, "losses.lost_events", 1) == 17);
	CHECK(summary_has(d, "NEW lost 17 events while recording"));
	if (d->iter_found[0] && d->iter_found[1]) {
		CHECK(metric_v(d, "iteration.d2h.bytes", 1) == 0);
		CHECK(summary_has(d, "D2H bytes per iteration 4 B -> 0 B"));
	}
out:
	done(d, m);
}

/* Default copies from a recorded device buffer to pageable memory count as D2H, as the same
 * copies recorded as D2H do: the diff sees no transfer change. */
static void test_default_copies_as_d2h(void)
{
	struct run a = chain, b = chain;
	struct gr_model *m[2];
	struct gr_diff *d;

	a.d2h_bytes = b.d2h_bytes = 4;
	b.d2h_as_default = 1;
	d = diff_runs(&a, &b, NULL, m);
	if (!d)
		goto out;
	for (int i = 0; i < 2; i++) {
		CHECK(metric_v(d, "transfer.d2h.copies", i) == 20);
		CHECK(metric_v(d, "transfer.d2h.bytes", i) == 80);
	}
	/* a metric both sides lack is not listed: no default copy on either side */
	CHECK(gr_diff_metric(d, "transfer.default.copies") == NULL);
out:
	done(d, m);
}

/* The standard synthetic trace (two processes, copies of every kind, a loss) against itself. */
static void test_self_standard(void)
{
	struct gr_model *m = NULL;
	struct gr_diff *d = NULL;

	CHECK(synth_write(tmp_path("std.trc"), 4096) == 0);
	CHECK(gr_model_load(&m, tmp_path("std.trc"), NULL) == 0);
	if (!m)
		return;
	CHECK(gr_diff_compute(m, m, NULL, &d) == 0);
	if (d) {
		/* scale_bias (600 + 1 in pid 100), gemm, softmax, vecAdd, func 0xccc0 */
		CHECK_EQ_U64(d->nkernels, 5);
		CHECK_EQ_U64(d->ncommon, 5);
		for (size_t i = 0; i < d->nkernels; i++)
			CHECK(d->kernels[i].delta == 0 && d->kernels[i].count[0] > 0);
		CHECK_EQ_U64(kernel(d, "scale_bias", 0)->count[0], 601);
		for (size_t i = 0; i < d->nmetrics; i++)
			CHECK(isnan(d->metrics[i].v[0]) || d->metrics[i].delta == 0);
		CHECK(metric_v(d, "transfer.h2d.bytes", 1) == 12 * 4194304.0);
		CHECK(metric_v(d, "losses.lost_events", 0) == 17);
		CHECK_STR(d->summary[0], "no differences in what was recorded");
		CHECK(summary_has(d, "BASE lost 17 events"));
	}
	gr_diff_free(d);
	gr_model_free(m);
}

/* Traces without launches: nothing to match, nothing to crash on. */
static void test_empty(void)
{
	static const struct run none = {.steps = 0};
	struct gr_model *m[2];
	struct gr_diff *d = diff_runs(&none, &none, NULL, m);

	if (d) {
		CHECK(d->comparable);
		CHECK_EQ_U64(d->nkernels, 0);
		CHECK_EQ_U64(d->nfusion, 0);
		CHECK(!d->iter_found[0] && !d->iter_found[1]);
		CHECK(!gr_diff_metric(d, "iteration.launches"));
		CHECK(metric_v(d, "run.launches", 0) == 0);
		CHECK(d->nsummary >= 1 &&
		      !strcmp(d->summary[0], "no differences in what was recorded"));
	}
	done(d, m);
	/* against a loop: everything added */
	d = diff_runs(&none, &chain, NULL, m);
	if (d) {
		CHECK(!d->comparable);
		CHECK_EQ_U64(d->nadded, 5);
		CHECK(d->iter_found[1] && !d->iter_found[0]);
		CHECK(isnan(metric_v(d, "iteration.launches", 0)));
		CHECK(metric_v(d, "iteration.launches", 1) == 5);
		CHECK(summary_has(
		    d, "an iteration was detected only in NEW (5 launches per iteration)"));
		CHECK(summary_has(d, "new fusion candidate bias_add..dropout_mask (5 kernels)"));
	}
	done(d, m);
}

/* Every id diff.h lists; <dir> and <n> as it says. */
static const char *const documented_ids[] = {
    "run.duration",
    "run.launches",
    "run.launch_rate",
    "run.kernels",
    "run.launch_api_time",
    "run.launch_cost",
    "run.fusion_candidates",
    "run.fusion_saving",
    "iteration.count",
    "iteration.period",
    "iteration.launches",
    "iteration.calls",
    "iteration.syncs",
    "iteration.sync_time",
    "iteration.launch_api_time",
    "iteration.<dir>.copies",
    "iteration.<dir>.bytes",
    "iteration.<dir>.copy_time",
    "iteration.runnable_wait",
    "budget.total",
    "budget.<part>",
    "budget.blocked.<reason>",
    "transfer.<dir>.copies",
    "transfer.<dir>.bytes",
    "transfer.<dir>.copy_time",
    "transfer.memsets",
    "transfer.memset_bytes",
    "transfer.syncs",
    "transfer.sync_time",
    "cpu.gap_wait",
    "cpu.gap_share",
    "cpu.thread.<n>.runnable_wait",
    "cpu.thread.<n>.on_cpu",
    "cpu.thread.<n>.preemptions",
    "losses.lost_events",
    "losses.damaged",
    "calls.failed",
    "calls.in_flight",
    "calls.inner",
    "memory.peak",
    "memory.outstanding",
    "memory.failed",
    "memory.growth",
    "memory.churn_allocations",
    "memory.churn_frees",
    "memory.churn_time",
};

/* @id fits template @tmpl: <dir> a direction, <n> a row number from 1. */
static int id_fits(const char *id, const char *tmpl)
{
	const char *lt = strchr(tmpl, '<');
	size_t n;

	if (!lt)
		return !strcmp(id, tmpl);
	n = (size_t)(lt - tmpl);
	if (strncmp(id, tmpl, n))
		return 0;
	id += n;
	tmpl = strchr(lt, '>') + 1;
	if (!strncmp(lt, "<n>", 3)) {
		if (*id < '1' || *id > '9')
			return 0;
		while (*id >= '0' && *id <= '9')
			id++;
		return !strcmp(id, tmpl);
	}
	if (!strncmp(lt, "<reason>", 8)) {
		for (unsigned r = 0; r < GR_BLOCK_NREASONS; r++)
			if (!strcmp(id, gr_block_reason_name(r)) && !*tmpl)
				return 1;
		return 0;
	}
	if (!strncmp(lt, "<part>", 6)) {
		for (unsigned p = 0; p < GR_BUDGET_NPARTS; p++)
			if (!strcmp(id, gr_budget_part_name(p)) && !*tmpl)
				return 1;
		return 0;
	}
	for (unsigned k = 0; k < GR_REPORT_NDIRS; k++) {
		size_t len = strlen(df_dir_id(k));

		if (!strncmp(id, df_dir_id(k), len) && !strcmp(id + len, tmpl))
			return 1;
	}
	return 0;
}

/* Every figure has an id from diff.h's list, unique, starting with its group; the lookup finds
 * it by id and never by its display name. */
static void check_ids(const struct gr_diff *d)
{
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct gr_diff_metric *mt = &d->metrics[i];
		size_t g = strlen(mt->group);
		int listed = 0;

		for (size_t t = 0; t < sizeof(documented_ids) / sizeof(documented_ids[0]); t++)
			listed |= id_fits(mt->id, documented_ids[t]);
		if (!listed)
			printf("#   id %s is not in diff.h's list\n", mt->id);
		CHECK(listed);
		CHECK(!strncmp(mt->id, mt->group, g) && mt->id[g] == '.');
		CHECK(gr_diff_metric(d, mt->id) == mt); /* the first with that id: unique */
		CHECK(!gr_diff_metric(d, mt->name));
	}
}

/* The chain with a D2H copy per step against itself at another length, and the standard trace
 * against itself: between them every figure the summary reads exists under its id, so no
 * summary rule can look up an id that is never made. */
static void test_ids(void)
{
	struct run a = chain, b = chain;
	struct gr_model *m[2], *std = NULL;
	struct gr_diff *d, *s = NULL;
	char id[GR_DIFF_ID_LEN];
	size_t n = 0;

	a.d2h_bytes = b.d2h_bytes = 4;
	a.blocked = b.blocked = 1;
	b.steps = 32;
	d = diff_runs(&a, &b, NULL, m);
	CHECK(synth_write(tmp_path("std.trc"), 4096) == 0);
	CHECK(gr_model_load(&std, tmp_path("std.trc"), NULL) == 0);
	if (std)
		CHECK(gr_diff_compute(std, std, NULL, &s) == 0);
	if (!d || !s)
		goto out;
	check_ids(d);
	check_ids(s);
	CHECK(d->iter_found[0] && d->iter_found[1]);
	CHECK(s->rep[0]->cpu.has_sched);
	for (const char *const *t = df_summary_ids; *t; t++, n++) {
		df_id(id, sizeof(id), *t, df_dir_id(GR_COPY_D2H));
		/* a budget part: any part will do, the summary reads them all */
		for (unsigned p = 0; strstr(*t, "<part>") && p < GR_BUDGET_NPARTS; p++) {
			df_id(id, sizeof(id), *t, gr_budget_part_name(p));
			if (gr_diff_metric(d, id) || gr_diff_metric(s, id))
				break;
		}
		/* a blocked reason: any will do */
		for (unsigned r = 0; strstr(*t, "<reason>") && r < GR_BLOCK_NREASONS; r++) {
			df_id(id, sizeof(id), *t, gr_block_reason_name(r));
			if (gr_diff_metric(d, id) || gr_diff_metric(s, id))
				break;
		}
		if (!gr_diff_metric(d, id) && !gr_diff_metric(s, id))
			printf("#   the summary reads %s, which no diff has\n", id);
		CHECK(gr_diff_metric(d, id) || gr_diff_metric(s, id));
	}
	CHECK(n >= 10);
	/* the id stays when the display name changes with the trace */
	CHECK_STR(gr_diff_metric(d, "run.launch_cost")->name, "launch cost (median, estimate)");
	/* per direction and per thread */
	CHECK(metric_v(s, "transfer.h2d.copies", 0) > 0);
	CHECK(gr_diff_metric(s, "cpu.thread.1.runnable_wait"));
	CHECK(!gr_diff_metric(s, "cpu.thread.0.runnable_wait"));
out:
	gr_diff_free(s);
	gr_model_free(std);
	done(d, m);
}

/* The summary again after every figure got another display name: the same sentences, since it
 * finds its figures by id and writes its own words. */
static void test_summary_ignores_names(void)
{
	struct run b = chain;
	struct gr_model *m[2];
	struct gr_diff *d;
	char *before[GR_DIFF_SUMMARY_MAX];
	size_t n;

	b.steps = 32;
	b.d2h_bytes = 4;
	d = diff_runs(&chain, &b, NULL, m);
	if (!d)
		goto out;
	n = d->nsummary;
	CHECK(n > 2);
	for (size_t i = 0; i < n; i++)
		before[i] = d->summary[i];
	free(d->summary);
	d->summary = NULL;
	d->nsummary = 0;
	for (size_t i = 0; i < d->nmetrics; i++) {
		free(d->metrics[i].name);
		d->metrics[i].name = strdup("reworded");
	}
	CHECK(df_summarize(d, (const struct gr_model *const *)m) == 0);
	CHECK_EQ_U64(d->nsummary, n);
	for (size_t i = 0; i < n; i++) {
		if (i < d->nsummary)
			CHECK_STR(d->summary[i], before[i]);
		free(before[i]);
	}
out:
	done(d, m);
}

static void test_format(void)
{
	char buf[32];

	gr_diff_format(buf, sizeof(buf), "ns", 1500);
	CHECK_STR(buf, "1.50 us");
	gr_diff_format(buf, sizeof(buf), "ns", 2.5e6);
	CHECK_STR(buf, "2.50 ms");
	gr_diff_format(buf, sizeof(buf), "B", 16777216);
	CHECK_STR(buf, "16.0 MiB");
	gr_diff_format(buf, sizeof(buf), "", 5);
	CHECK_STR(buf, "5");
	gr_diff_format(buf, sizeof(buf), "", 2.5);
	CHECK_STR(buf, "2.50");
	gr_diff_format(buf, sizeof(buf), "", NAN);
	CHECK_STR(buf, "-");
}

/* NVTX texts of the hand-built calls below */
static const char *const nvtx_texts[] = {"", "step", "forward", "backward", "mydomain", "io"};

static const char *nvtx_text(const void *ctx, uint32_t idx)
{
	return idx < sizeof(nvtx_texts) / sizeof(nvtx_texts[0]) ? nvtx_texts[idx] : "";
}

/* One side's NVTX set from hand-built calls: a push/pop per name given (default domain), and one
 * "io" range in domain "mydomain" when @io. Returns the index of "mydomain" in the set's domains
 * (0 when none). */
static uint32_t nvtx_side(struct gr_report *r, const uint32_t *names, size_t n, int io)
{
	static const struct gr_thread th[] = {{.pid = 10, .tid = 11}};
	struct gr_nvtx e[16];
	size_t k = 0;
	uint32_t dom = 0;

	if (io)
		e[k++] =
		    (struct gr_nvtx){.op = GR_NVTX_NAME_DOMAIN, .ts = 1, .domain = 0xD0, .text = 4};
	for (size_t i = 0; i < n; i++) {
		e[k++] = (struct gr_nvtx){.op = GR_NVTX_PUSH, .ts = 10 + 10 * i, .text = names[i]};
		e[k++] = (struct gr_nvtx){.op = GR_NVTX_POP, .ts = 15 + 10 * i};
	}
	if (io) {
		e[k++] = (struct gr_nvtx){.op = GR_NVTX_PUSH, .ts = 500, .domain = 0xD0, .text = 5};
		e[k++] = (struct gr_nvtx){.op = GR_NVTX_POP, .ts = 600, .domain = 0xD0};
	}
	CHECK(gr_nvtx_build_events(e, k, th, 1, nvtx_text, NULL, 1000, &r->nvtx.set) == 0);
	for (uint32_t d = 1; d < r->nvtx.set.ndomains; d++)
		if (!strcmp(r->nvtx.set.domains[d].name, "mydomain"))
			dom = d;
	return dom;
}

/*
 * NVTX ranges matched by (domain, name) across two reports (diff_nvtx.c), on hand-made
 * statistics: per-step time = step_ns / steps; common rows by the size of that change, then the
 * added, then the removed; a name only in one domain keyed "DOMAIN:NAME".
 */
static void test_nvtx_match(void)
{
	static const uint32_t n0[] = {1, 2}, n1[] = {1, 2, 3};
	struct gr_report *r[2] = {calloc(1, sizeof(struct gr_report)),
				  calloc(1, sizeof(struct gr_report))};
	struct gr_nvtx_stat v0[3] = {0}, v1[3] = {0};
	struct gr_diff d = {0};
	uint32_t dom;

	CHECK(r[0] && r[1]);
	if (!r[0] || !r[1])
		goto out;
	dom = nvtx_side(r[0], n0, 2, 1);
	CHECK(dom != 0);
	nvtx_side(r[1], n1, 3, 0);
	/* BASE: step 4 x 100 ns a step, forward 40 a step, mydomain:io once, in no step */
	v0[0] = (struct gr_nvtx_stat){
	    .name = 1, .count = 4, .total_ns = 400, .median_ns = 100, .step_ns = 400};
	v0[1] = (struct gr_nvtx_stat){
	    .name = 2, .count = 4, .total_ns = 160, .median_ns = 40, .step_ns = 160};
	v0[2] = (struct gr_nvtx_stat){
	    .name = 5, .domain = dom, .count = 1, .total_ns = 100, .median_ns = 100};
	/* NEW: step 80 a step, forward unchanged, backward new */
	v1[0] = (struct gr_nvtx_stat){
	    .name = 1, .count = 4, .total_ns = 320, .median_ns = 80, .step_ns = 320};
	v1[1] = v0[1];
	v1[2] = (struct gr_nvtx_stat){
	    .name = 3, .count = 2, .total_ns = 60, .median_ns = 30, .step_ns = 60};
	r[0]->nvtx.stats = (struct gr_nvtx_stats){.v = v0, .n = 3, .steps = 4, .step_ns = 400};
	r[1]->nvtx.stats = (struct gr_nvtx_stats){.v = v1, .n = 3, .steps = 4, .step_ns = 320};
	d.rep[0] = r[0];
	d.rep[1] = r[1];
	CHECK(df_match_nvtx(&d) == 0);
	CHECK_EQ_U64(d.nnvtx, 4);
	if (d.nnvtx != 4)
		goto out;
	CHECK_STR(d.nvtx[0].name, "step");
	CHECK(d.nvtx[0].status == GR_DIFF_COMMON);
	CHECK(d.nvtx[0].per_step[0] == 100 && d.nvtx[0].per_step[1] == 80);
	CHECK(d.nvtx[0].per_step_delta == -20);
	CHECK_EQ_U64(d.nvtx[0].count[1], 4);
	CHECK_STR(d.nvtx[1].name, "forward");
	CHECK(d.nvtx[1].per_step[0] == 40 && d.nvtx[1].per_step_delta == 0);
	CHECK_STR(d.nvtx[2].name, "backward");
	CHECK(d.nvtx[2].status == GR_DIFF_ADDED);
	CHECK(isnan(d.nvtx[2].per_step[0]) && d.nvtx[2].per_step[1] == 15);
	CHECK_EQ_U64(d.nvtx[2].count[0], 0);
	CHECK_STR(d.nvtx[3].name, "mydomain:io");
	CHECK(d.nvtx[3].status == GR_DIFF_REMOVED);
	CHECK(isnan(d.nvtx[3].per_step[0]) && isnan(d.nvtx[3].per_step_delta));
	CHECK_EQ_U64(d.nvtx[3].total_ns[0], 100);
	/* a tolerance hides the unchanged common row only */
	df_free_nvtx(&d);
	d.nvtx = NULL;
	d.nnvtx = 0;
	d.tolerance = 5;
	CHECK(df_match_nvtx(&d) == 0);
	for (size_t i = 0; i < d.nnvtx; i++)
		CHECK(d.nvtx[i].hidden == !strcmp(d.nvtx[i].name, "forward"));
out:
	df_free_nvtx(&d);
	for (int s = 0; s < 2; s++) {
		if (r[s])
			gr_nvtx_free(&r[s]->nvtx.set);
		free(r[s]);
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_format);
	RUN_TEST(test_two_sizes);
	RUN_TEST(test_self_all_zero);
	RUN_TEST(test_self_standard);
	RUN_TEST(test_fused_twin);
	RUN_TEST(test_tolerance);
	RUN_TEST(test_key_grid);
	RUN_TEST(test_transfers_and_losses);
	RUN_TEST(test_default_copies_as_d2h);
	RUN_TEST(test_empty);
	RUN_TEST(test_ids);
	RUN_TEST(test_summary_ignores_names);
	RUN_TEST(test_nvtx_match);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
