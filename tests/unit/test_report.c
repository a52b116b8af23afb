/* SPDX-License-Identifier: MIT */
/*
 * analyze/report: every formula of the four reports on synthetic traces whose answers are known
 * exactly (docs/REPORTS.md has the definitions). Each scenario is written through the format
 * writer, loaded with the model, and checked field by field.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/info/info.h"
#include "analyze/model/model.h"
#include "analyze/report/report.h"
#include "analyze/report/report_sections.h"
#include "synth.h"
#include "test.h"

#define T0 SYNTH_T0

static char dir[] = "/tmp/gr_test_report.XXXXXX";

#define CHECK_NEAR(a, b)                                                                           \
	do {                                                                                       \
		double na_ = (a), nb_ = (b);                                                       \
		if (!(fabs(na_ - nb_) <= 1e-9 * (fabs(nb_) > 1 ? fabs(nb_) : 1))) {                \
			printf("#   %s:%d: %s == %s failed: %.12g != %.12g\n", __FILE__, __LINE__, \
			       #a, #b, na_, nb_);                                                  \
			test_failed_checks++;                                                      \
			test_case_failed = 1;                                                      \
		}                                                                                  \
	} while (0)

/* ---- a small trace builder over the format writer ---- */

struct tb {
	struct gr_trace_writer *w;
	char path[256];
	int err;
};

static void tb_open(struct tb *b, const char *name)
{
	snprintf(b->path, sizeof(b->path), "%s/%s", dir, name);
	b->err = synth_open(&b->w, b->path, 0) ? -1 : 0;
}

static void tb_launch(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t func,
		      uint32_t gx, uint32_t bx, uint64_t stream, uint64_t stack, uint64_t dur)
{
	const uint32_t grid[3] = {gx, 1, 1}, block[3] = {bx, 1, 1};

	b->err |= synth_launch(b->w, ts, pid, tid, func, grid, block, 0, stream, stack, dur);
}

static void tb_copy(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, unsigned kind,
		    uint64_t bytes, uint64_t src, uint64_t dst, int async, uint64_t dur,
		    uint64_t stack)
{
	uint64_t v[GR_COPY_NCOLS] = {
	    [GR_COPY_TS] = ts,
	    [GR_COPY_DUR] = dur,
	    [GR_COPY_PID] = pid,
	    [GR_COPY_TID] = tid,
	    [GR_COPY_API] = async ? GR_API_cudaMemcpyAsync : GR_API_cudaMemcpy,
	    [GR_COPY_DST] = dst,
	    [GR_COPY_SRC] = src,
	    [GR_COPY_BYTES] = bytes,
	    [GR_COPY_CKIND] = kind,
	    [GR_COPY_STREAM] = 0x5,
	    [GR_COPY_FLAGS] = async ? GR_COPY_F_ASYNC : 0,
	    [GR_COPY_STACK] = stack,
	};

	b->err |= gr_trace_writer_append(b->w, GR_K_COPY, v, NULL);
}

static void tb_sync(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, unsigned kind,
		    uint64_t dur)
{
	uint64_t v[GR_SYNC_NCOLS] = {
	    [GR_SYNC_TS] = ts,	 [GR_SYNC_DUR] = dur,	 [GR_SYNC_PID] = pid,
	    [GR_SYNC_TID] = tid, [GR_SYNC_SKIND] = kind, [GR_SYNC_HANDLE] = 0x5};

	b->err |= gr_trace_writer_append(b->w, GR_K_SYNC, v, NULL);
}

static void tb_memset(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t bytes)
{
	uint64_t v[GR_MEMSET_NCOLS] = {[GR_MEMSET_TS] = ts,
				       [GR_MEMSET_PID] = pid,
				       [GR_MEMSET_TID] = tid,
				       [GR_MEMSET_BYTES] = bytes};

	b->err |= gr_trace_writer_append(b->w, GR_K_MEMSET, v, NULL);
}

static void tb_alloc(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, unsigned kind,
		     uint64_t addr, uint64_t bytes)
{
	uint64_t v[GR_ALLOC_NCOLS] = {
	    [GR_ALLOC_TS] = ts,	    [GR_ALLOC_PID] = pid,     [GR_ALLOC_TID] = tid,
	    [GR_ALLOC_ADDR] = addr, [GR_ALLOC_BYTES] = bytes, [GR_ALLOC_AKIND] = kind};

	b->err |= gr_trace_writer_append(b->w, GR_K_ALLOC, v, NULL);
}

/* A device allocation by a thread whose current device is @device (the ALLOC device column). */
static void tb_alloc_on(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t device,
			uint64_t addr, uint64_t bytes)
{
	uint64_t v[GR_ALLOC_NCOLS] = {[GR_ALLOC_TS] = ts,
				      [GR_ALLOC_PID] = pid,
				      [GR_ALLOC_TID] = tid,
				      [GR_ALLOC_ADDR] = addr,
				      [GR_ALLOC_BYTES] = bytes,
				      [GR_ALLOC_AKIND] = GR_ALLOC_DEVICE,
				      [GR_ALLOC_DEVICE_ORD] = device};

	b->err |= gr_trace_writer_append(b->w, GR_K_ALLOC, v, NULL);
}

static void tb_free(struct tb *b, uint64_t ts, uint32_t pid, uint32_t tid, unsigned kind,
		    uint64_t addr)
{
	uint64_t v[GR_FREE_NCOLS] = {[GR_FREE_TS] = ts,
				     [GR_FREE_PID] = pid,
				     [GR_FREE_TID] = tid,
				     [GR_FREE_ADDR] = addr,
				     [GR_FREE_AKIND] = kind};

	b->err |= gr_trace_writer_append(b->w, GR_K_FREE, v, NULL);
}

static void tb_sched(struct tb *b, uint64_t ts, unsigned type, uint32_t prev, uint64_t state,
		     uint32_t next)
{
	/* tids equal pids here: single-threaded processes */
	uint64_t v[GR_SCHED_NCOLS] = {
	    [GR_SCHED_TS] = ts,		[GR_SCHED_CPU] = 0,	    [GR_SCHED_TYPE] = type,
	    [GR_SCHED_PREV_PID] = prev, [GR_SCHED_PREV_TID] = prev, [GR_SCHED_PREV_STATE] = state,
	    [GR_SCHED_NEXT_PID] = next, [GR_SCHED_NEXT_TID] = next};

	b->err |= gr_trace_writer_append(b->w, GR_K_SCHED, v, NULL);
}

static void tb_symbol(struct tb *b, uint64_t ts, uint32_t pid, uint64_t addr, uint64_t start,
		      const char *name)
{
	uint64_t v[GR_SYM_NCOLS] = {ts, pid, addr, start, 0x100, 0};
	struct gr_bytes n[2] = {{(const uint8_t *)name, (uint32_t)strlen(name)}, {NULL, 0}};

	b->err |= gr_trace_writer_append(b->w, GR_K_SYMBOL, v, n);
}

static void tb_stack(struct tb *b, uint64_t ts, uint32_t pid, uint64_t id, const uint64_t *fr,
		     uint32_t n)
{
	uint8_t bytes[64];
	uint64_t v[GR_STACK_NCOLS] = {ts, id, pid, 0};
	struct gr_bytes bb[1] = {{bytes, n * 8}};

	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			bytes[i * 8 + k] = (uint8_t)(fr[i] >> (8 * k));
	b->err |= gr_trace_writer_append(b->w, GR_K_STACK, v, bb);
}

/* A Python frame (PYFRAME) of key GR_FRAME_PYTHON | @n, as the recorder numbers them. */
static void tb_pyframe(struct tb *b, uint64_t ts, uint32_t pid, uint64_t n, const char *file,
		       uint32_t line, const char *function)
{
	uint64_t v[GR_PYF_NCOLS] = {ts, GR_FRAME_PYTHON | n, pid, 0, line, 0};
	/* one entry per BYTES column, in column order: file, function */
	struct gr_bytes bb[2] = {{(const uint8_t *)file, (uint32_t)strlen(file)},
				 {(const uint8_t *)function, (uint32_t)strlen(function)}};
	b->err |= gr_trace_writer_append(b->w, GR_K_PYFRAME, v, bb);
}

static void tb_mapping(struct tb *b, uint64_t ts, uint32_t pid, uint64_t start, uint64_t end,
		       const char *path)
{
	uint64_t v[GR_MAP_NCOLS] = {ts, pid, start, end, 0, 0, 0};
	struct gr_bytes bb[2] = {{(const uint8_t *)path, (uint32_t)strlen(path)}, {NULL, 0}};

	b->err |= gr_trace_writer_append(b->w, GR_K_MAPPING, v, bb);
}

/* Close, load and compute with @o; NULL on any failure (reported). */
static struct gr_model *tb_load(struct tb *b)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};

	if (gr_trace_writer_close(b->w))
		b->err = -1;
	CHECK(b->err == 0);
	CHECK(gr_model_load(&m, b->path, &diag) == 0);
	if (!m)
		printf("#   load %s: %s\n", b->path, diag.reason);
	return m;
}

static struct gr_report *compute(const struct gr_model *m, const struct gr_report_opts *o)
{
	struct gr_report *r = NULL;

	CHECK(gr_report_compute(m, o, &r) == 0);
	return r;
}

static const struct gr_report_kernel *kernel(const struct gr_report *r, const char *name)
{
	for (size_t i = 0; i < r->launches.nkernels; i++)
		if (!strcmp(r->launches.kernels[i].name, name))
			return &r->launches.kernels[i];
	return NULL;
}

static const struct gr_report_finding *finding(const struct gr_report *r, const char *rule)
{
	for (size_t i = 0; i < r->transfer.nfindings; i++)
		if (!strcmp(r->transfer.findings[i].rule, rule))
			return &r->transfer.findings[i];
	return NULL;
}

/* Render both ways: text lines fit in 100 columns, JSON is produced without error. Returns the
 * JSON text (malloc'd). */
static char *render(const struct gr_report *r, const struct gr_model *m)
{
	char *text = NULL, *json = NULL, *line, *save = NULL;
	size_t tn = 0, jn = 0;
	FILE *f = open_memstream(&text, &tn);

	CHECK(gr_report_write_text(f, r, m, 0) == 0);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > 100) {
			printf("#   line of %zu columns: %s\n", strlen(line), line);
			CHECK(strlen(line) <= 100);
		}
	free(text);
	f = open_memstream(&json, &jn);
	CHECK(gr_report_write_json(f, r, m, 0) == 0);
	fclose(f);
	return json;
}

/* The report's text, for wording checks (the caller frees it). */
static char *render_text(const struct gr_report *r, const struct gr_model *m)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	CHECK(gr_report_write_text(f, r, m, 0) == 0);
	fclose(f);
	return text;
}

/* ---- the quantile helper ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void test_dist(void)
{
	uint32_t v[1001], s[1001];
	struct gr_dist d;
	uint64_t seed = 42;

	gr_dist_u32(&d, v, 0);
	CHECK_EQ_U64(d.count, 0);
	CHECK_EQ_U64(d.median, 0);
	for (size_t n = 1; n <= 1001; n += 37) {
		uint64_t total = 0;

		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			v[i] = (uint32_t)(seed >> 40) % (n / 3 + 2); /* many duplicates */
			s[i] = v[i];
			total += v[i];
		}
		qsort(s, n, sizeof(s[0]), cmp_u32);
		gr_dist_u32(&d, v, n);
		CHECK_EQ_U64(d.count, n);
		CHECK_EQ_U64(d.total, total);
		CHECK_EQ_U64(d.min, s[0]);
		CHECK_EQ_U64(d.max, s[n - 1]);
		/* nearest rank: ceil(q n)-th smallest */
		CHECK_EQ_U64(d.median, s[(n + 1) / 2 - 1]);
		CHECK_EQ_U64(d.p99, s[(99 * n + 99) / 100 - 1]);
	}
	/* big arrays take the radix path: clustered small values, and the full 32-bit range */
	for (int pass = 0; pass < 2; pass++) {
		size_t n = pass ? 200003 : 70000;
		uint32_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));

		if (!a || !b) {
			free(a);
			free(b);
			CHECK(0);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			a[i] = pass ? (uint32_t)(seed >> 32) : 3000 + (uint32_t)(seed >> 58);
			b[i] = a[i];
		}
		qsort(b, n, sizeof(b[0]), cmp_u32);
		gr_dist_u32(&d, a, n);
		CHECK_EQ_U64(d.median, b[(n + 1) / 2 - 1]);
		CHECK_EQ_U64(d.p99, b[(99 * n + 99) / 100 - 1]);
		CHECK_EQ_U64(d.min, b[0]);
		CHECK_EQ_U64(d.max, b[n - 1]);
		free(a);
		free(b);
	}
	{
		uint32_t w[4] = {40, 10, 30, 20};

		gr_dist_u32(&d, w, 4);
		CHECK_EQ_U64(d.median, 20); /* the lower median */
		CHECK_EQ_U64(d.p99, 40);
	}
}

/*
 * gr_dist_split() against sorted copies: values below GR_DIST_SPLIT in 16 bits, the others apart,
 * with the median and p99 on either side (a few or most values big; few values and enough to
 * take the count per 16-bit value). The same values put one at a time into a struct
 * gr_dist_counts give the same distribution.
 */
static void test_dist_split(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 100, 1001, 70001};
	static const unsigned big_pct[] = {0, 1, 30, 50, 70, 100};
	uint64_t seed = 7;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t bi = 0; bi < sizeof(big_pct) / sizeof(big_pct[0]); bi++) {
			size_t n = sizes[si], nlo = 0, nhi = 0;
			uint16_t *lo = malloc((n + 1) * sizeof(*lo));
			uint32_t *hi = malloc((n + 1) * sizeof(*hi)), *all = malloc((n + 1) * 4);
			uint64_t total = 0;
			struct gr_dist d, dc;
			struct gr_dist_counts counts = {0};

			if (!lo || !hi || !all) {
				CHECK(0);
				free(lo);
				free(hi);
				free(all);
				return;
			}
			for (size_t i = 0; i < n; i++) {
				uint32_t v;

				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				if ((seed >> 33) % 100 < big_pct[bi])
					v = GR_DIST_SPLIT +
					    (uint32_t)(seed >> 50); /* the split too */
				else
					v = (uint32_t)(seed >> 40) % GR_DIST_SPLIT;
				if (v < GR_DIST_SPLIT)
					lo[nlo++] = (uint16_t)v;
				else
					hi[nhi++] = v;
				all[i] = v;
				total += v;
				CHECK(gr_dist_counts_put(&counts, v) == 0);
			}
			gr_dist_counts_get(&dc, &counts);
			gr_dist_counts_free(&counts);
			qsort(all, n, sizeof(all[0]), cmp_u32);
			CHECK(gr_dist_split(&d, lo, nlo, hi, nhi) == 0);
			CHECK_EQ_U64(d.count, n);
			CHECK_EQ_U64(d.total, total);
			if (n) {
				CHECK_EQ_U64(d.min, all[0]);
				CHECK_EQ_U64(d.max, all[n - 1]);
				CHECK_EQ_U64(d.median, all[(n + 1) / 2 - 1]);
				CHECK_EQ_U64(d.p99, all[(99 * n + 99) / 100 - 1]);
			} else {
				CHECK_EQ_U64(d.median, 0);
			}
			CHECK_EQ_U64(dc.count, d.count);
			CHECK_EQ_U64(dc.total, d.total);
			CHECK_EQ_U64(dc.min, d.min);
			CHECK_EQ_U64(dc.max, d.max);
			CHECK_EQ_U64(dc.median, d.median);
			CHECK_EQ_U64(dc.p99, d.p99);
			free(lo);
			free(hi);
			free(all);
		}
	}
}

/* ---- scenario A: a training loop, launch cost not measured ---- */

/*
 * pid 100 tid 101, stream 0x5. Setup: a synchronous 4096-byte H2D copy at T0+1000 (dur 500).
 * 10 iterations at base = T0 + 10000 + i * 100000: kernel a at base (grid 16 x 256 threads,
 * stack 1), b at +9000 (2000 x 128, stack 2), c at +24000 (10000 x 1024, stack 3), a stream sync
 * at +45000 (dur 45000). After the loop: a 4-byte async D2H copy at T0+1010000 (dur 100) into
 * pageable memory, then a stream sync at T0+1011000 (dur 500). The trace ends at T0+2000000.
 */
/* The loop scenario; @sms: the SM count the program got from the runtime (0: none recorded). */
static struct gr_model *scenario_loop_sms(uint32_t sms)
{
	const uint64_t frames[3][3] = {
	    {0x1010, 0x2010, 0x3010}, {0x1110, 0x2020, 0x3010}, {0x1210, 0x2030, 0x3010}};
	const uint64_t end = T0 + 2000000;
	struct tb b;

	tb_open(&b, "loop.trc");
	tb_copy(&b, T0 + 1000, 100, 101, GR_COPY_H2D, 4096, 0x7000, 0x9000, 0, 500, 0);
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t base = T0 + 10000 + i * 100000;

		tb_launch(&b, base, 100, 101, 0xA0, 16, 256, 0x5, 1, 0);
		tb_launch(&b, base + 9000, 100, 101, 0xB0, 2000, 128, 0x5, 2, 0);
		tb_launch(&b, base + 24000, 100, 101, 0xC0, 10000, 1024, 0x5, 3, 0);
		tb_sync(&b, base + 45000, 100, 101, GR_SYNC_STREAM, 45000);
	}
	tb_copy(&b, T0 + 1010000, 100, 101, GR_COPY_D2H, 4, 0x9000, 0x7000, 1, 100, 0);
	tb_sync(&b, T0 + 1011000, 100, 101, GR_SYNC_STREAM, 500);
	b.err |= synth_name(b.w, end, GR_NAME_KERNEL, 100, 0xA0, "a(float*)");
	b.err |= synth_name(b.w, end, GR_NAME_KERNEL, 100, 0xB0, "b(float*)");
	b.err |= synth_name(b.w, end, GR_NAME_KERNEL, 100, 0xC0, "c(float*)");
	b.err |= synth_name(b.w, end, GR_NAME_COMM, 100, 101, "train");
	b.err |= synth_name(b.w, end, GR_NAME_LIBRARY, 100, 0, "/usr/lib/libcudart.so.13");
	tb_mapping(&b, end, 100, 0x0, 0x10000, "/usr/bin/train");
	for (int s = 0; s < 3; s++) {
		tb_stack(&b, end, 100, (uint64_t)s + 1, frames[s], 3);
		tb_symbol(&b, end, 100, frames[s][0], frames[s][0] & ~0xffull,
			  s == 0   ? "__device_stub__a"
			  : s == 1 ? "__device_stub__b"
				   : "__device_stub__c");
		tb_symbol(&b, end, 100, frames[s][1], 0x2000, "train_step()");
	}
	tb_symbol(&b, end, 100, 0x3010, 0x3000, "main");
	if (sms)
		b.err |= synth_session(b.w, end, GR_SESS_DEVICE_SMS, sms, "");
	return tb_load(&b);
}

static struct gr_model *scenario_loop(void)
{
	return scenario_loop_sms(132);
}

/* The SM count: the recorded one (132 above), --sms over it, or unknown: then no waves and no
 * grid is small, and the text says so. */
static void test_sms_sources(void)
{
	struct gr_report_opts o = {.sms = 10};
	struct gr_model *m = scenario_loop_sms(132);
	struct gr_report *r = m ? compute(m, &o) : NULL;
	const struct gr_report_kernel *k;

	if (r) {
		CHECK_EQ_U64(r->sms, 10);
		CHECK_EQ_U64(r->sms_source, GR_REPORT_SMS_OPTION);
		k = kernel(r, "b(float*)");
		/* 2000 blocks over 10 SMs x 16 resident */
		CHECK(k && !k->configs[0].small);
		if (k)
			CHECK_NEAR(k->configs[0].waves, 2000.0 / (10 * 16));
	}
	gr_report_free(r);
	gr_model_free(m);

	m = scenario_loop_sms(0);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		char *text = render_text(r, m);

		CHECK_EQ_U64(r->sms, 0);
		CHECK_EQ_U64(r->sms_source, GR_REPORT_SMS_UNKNOWN);
		for (size_t i = 0; i < r->launches.nkernels; i++) {
			CHECK(isnan(r->launches.kernels[i].configs[0].waves));
			CHECK(!r->launches.kernels[i].configs[0].small);
		}
		CHECK(r->fusion.ncandidates == 1 && r->fusion.candidates[0].nsmall == 0);
		CHECK(text && strstr(text, "SM count unknown"));
		CHECK(text && strstr(text, "2000 blocks, waves unknown\n"));
		CHECK(text && !strstr(text, "unknown, small grid\n") &&
		      !strstr(text, "waves unknown small"));
		CHECK(text && strstr(text, "?/3"));
		free(text);
	}
	gr_report_free(r);
	gr_model_free(m);
}

static void test_launches(void)
{
	struct gr_model *m = scenario_loop();
	struct gr_report *r = m ? compute(m, NULL) : NULL;
	const struct gr_report_launches *L;
	const struct gr_report_kernel *k;

	if (!r)
		goto out;
	L = &r->launches;
	CHECK_EQ_U64(r->wall_ns, 2000000);
	CHECK_EQ_U64(r->sms, 132); /* recorded */
	CHECK_EQ_U64(r->sms_source, GR_REPORT_SMS_RECORDED);
	CHECK_EQ_U64(L->total, 30);
	CHECK_EQ_U64(L->first_ts, T0 + 10000);
	CHECK_EQ_U64(L->last_ts, T0 + 10000 + 900000 + 24000);
	CHECK_NEAR(L->per_second, 30 * 1e9 / 924000);
	CHECK_EQ_U64(L->nkernels, 3);
	k = kernel(r, "b(float*)");
	CHECK(k != NULL);
	if (k) {
		CHECK_EQ_U64(k->count, 10);
		CHECK_NEAR(k->share, 1.0 / 3);
		CHECK_EQ_U64(k->api.count, 0); /* not measured */
		CHECK_EQ_U64(k->nconfigs, 1);
		CHECK_EQ_U64(k->configs[0].blocks, 2000);
		/* 128 threads: min(32, 2048 / 128) = 16 resident blocks per SM */
		CHECK_NEAR(k->configs[0].waves, 2000.0 / (132 * 16));
		CHECK(k->configs[0].small); /* more blocks than SMs, but under 2 waves */
	}
	k = kernel(r, "a(float*)");
	CHECK(k && k->configs[0].small);
	if (k)
		CHECK_NEAR(k->configs[0].waves, 16.0 / (132 * 8));
	k = kernel(r, "c(float*)");
	CHECK(k && !k->configs[0].small);
	if (k)
		CHECK_NEAR(k->configs[0].waves, 10000.0 / (132 * 2));

	CHECK_EQ_U64(L->nthreads, 1);
	CHECK_EQ_U64(L->threads[0].tid, 101);
	CHECK_STR(L->threads[0].comm, "train");
	CHECK_EQ_U64(L->nprocesses, 1);
	CHECK_EQ_U64(L->processes[0].pid, 100);
	CHECK_EQ_U64(L->nstreams, 1);
	CHECK_EQ_U64(L->streams[0].handle, 0x5);
	CHECK_NEAR(L->streams[0].per_second, 30 * 1e9 / 924000);

	/* gaps: 10 x 9000 (a->b), 10 x 15000 (b->c), 9 x 76000 (c->next a) */
	CHECK_EQ_U64(L->ngaps, 1);
	CHECK_EQ_U64(L->gaps[0].gap.count, 29);
	CHECK_EQ_U64(L->gaps[0].gap.total, 90000 + 150000 + 9 * 76000);
	CHECK_EQ_U64(L->gaps[0].gap.min, 9000);
	CHECK_EQ_U64(L->gaps[0].gap.median, 15000);
	CHECK_EQ_U64(L->gaps[0].gap.p99, 76000);
	CHECK_EQ_U64(L->gaps[0].gap.max, 76000);
	CHECK_EQ_U64(L->gaps[0].hist[3], 10); /* [5, 10) us */
	CHECK_EQ_U64(L->gaps[0].hist[4], 10); /* [10, 20) us */
	CHECK_EQ_U64(L->gaps[0].hist[6], 9);  /* [50, 100) us */

	/* cost estimate: launch to next call 9000, 15000, 21000 (c -> sync), 10 each */
	CHECK(!L->api_measured);
	CHECK_EQ_U64(L->launch_cost_samples, 30);
	CHECK_EQ_U64(L->launch_cost_ns, 15000);
	CHECK_NEAR(L->launch_share, 3.0 * 15000 / 100000);
	CHECK_EQ_U64(L->slow_count, 0);
	CHECK_EQ_U64(L->verdict.level, GR_VERDICT_OK);
	/* an estimate from gaps decides nothing: the launch time is unknown */
	CHECK(strstr(L->verdict.text, "launch time unknown") != NULL);
	CHECK(strstr(L->verdict.text, "estimated") != NULL);

	free(render(r, m));
out:
	gr_report_free(r);
	gr_model_free(m);
}

static void test_iteration(void)
{
	struct gr_model *m = scenario_loop();
	struct gr_report *r = m ? compute(m, NULL) : NULL;
	const struct gr_report_iteration *it;

	if (!r)
		goto out;
	it = &r->launches.iter;
	CHECK(it->found);
	CHECK_EQ_U64(it->calls, 4);
	CHECK_EQ_U64(it->launches, 3);
	CHECK_EQ_U64(it->syncs, 1);
	CHECK_EQ_U64(it->copies, 0);
	/* the setup copy before and the read-back + sync after are not part of it */
	CHECK_EQ_U64(it->count, 10);
	CHECK_EQ_U64(it->period_ns, 100000);
	CHECK_EQ_U64(it->start_ts, T0 + 10000);
	CHECK_EQ_U64(it->end_ts, T0 + 10000 + 900000 + 90000);
	CHECK_EQ_U64(it->last_start_ts, T0 + 10000 + 900000);
	CHECK_NEAR(it->match, 1.0);
	CHECK_EQ_U64(gr_model_threads(m, NULL)[it->thread].tid, 101);
	/* one launching process: no ranks part */
	CHECK_EQ_U64(r->ranks.n, 0);
out:
	gr_report_free(r);
	gr_model_free(m);
}

/* A rank for the straggler decision: its median iteration and per-iteration parts. */
/* A rank whose figures are in us (the straggler rule has a floor in ns); one with a loop runs
 * alongside the others (concurrent) unless said otherwise. */
static struct gr_report_rank rank_of(int found, uint64_t period, uint64_t host, uint64_t sync,
				     uint64_t runnable)
{
	struct gr_report_rank k = {.rank = -1};

	k.iter.found = found;
	k.concurrent = found;
	k.iter.count = found ? 10 : 0;
	k.iter.period_ns = period * 1000;
	k.part_ns[GR_RANK_HOST] = host * 1000;
	k.part_ns[GR_RANK_SYNC] = sync * 1000;
	k.part_ns[GR_RANK_RUNNABLE] = runnable * 1000;
	return k;
}

/* The decision alone: the slowest by median iteration against the others' (lower) median, the
 * threshold, the cause as the part that passes the others' median of it the most. */
/* A trace like tb_open()'s with its own clock anchor and host. */
static void tb_open_clock(struct tb *b, const char *name, uint64_t mono, uint64_t real,
			  const char *host)
{
	struct gr_trace_header h = synth_header;
	int fd;

	h.clock_monotonic_ns = mono;
	h.clock_realtime_ns = real;
	h.host = host;
	snprintf(b->path, sizeof(b->path), "%s/%s", dir, name);
	unlink(b->path);
	fd = open(b->path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	b->err = fd < 0 || gr_trace_writer_open(&b->w, fd, &h, gr_events_schema(), NULL) ? -1 : 0;
}

/* The shift between two clocks: the difference of their (realtime - monotonic) offsets; none
 * without both anchors. */
static void test_clock_shift(void)
{
	struct gr_trace_header a = {.clock_monotonic_ns = 1000, .clock_realtime_ns = 5000000};
	struct gr_trace_header b = {.clock_monotonic_ns = 9000000, .clock_realtime_ns = 5000700};
	int anchored;

	/* b's monotonic 9000000 is the wall time 5000700, which a's clock reads as 1700 */
	CHECK(gr_model_clock_shift(&a, &b, &anchored) == 1700 - 9000000);
	CHECK(anchored);
	CHECK(gr_model_clock_shift(&b, &a, &anchored) == 9000000 - 1700);
	CHECK(gr_model_clock_shift(&a, &a, &anchored) == 0 && anchored);
	b.clock_realtime_ns = 0;
	CHECK(gr_model_clock_shift(&a, &b, &anchored) == 0 && !anchored);
	CHECK(gr_model_clock_shift(&b, &a, &anchored) == 0 && !anchored);
}

/*
 * Two traces of one job, from two nodes whose monotonic clocks began 5 s apart, each with a pid
 * 100: trace A (node-a) 10 iterations every 100 us from T0 + 10 us; trace B (node-b, monotonic
 * T0 + 5 s at the wall time of A's T0 + 1 us) 10 every 300 us from its own T0 + 5 s + 20 us. As
 * one job: two distinct processes, B's times on A's clock (T0 + 21 us on), and B's pid 100 the
 * straggler at 3x.
 */
static void test_ranks_set(void)
{
	const uint64_t R = 1700000000000000000ull, S = 5000000000ull;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_diag diag = {0};
	struct tb a, b;
	const char *paths[2];
	const struct gr_process *p;
	const struct gr_model_trace *t;
	const struct gr_launch *l;
	size_t np, nt, nl, failed = 9;

	tb_open_clock(&a, "set_a.trc", T0, R, "node-a");
	tb_open_clock(&b, "set_b.trc", T0 + S, R + 1000, "node-b");
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t pa = T0 + 10000 + i * 100000, pb = T0 + S + 20000 + i * 300000;

		tb_launch(&a, pa, 100, 100, 0xA0, 16, 256, 0x5, 0, 5000);
		tb_sync(&a, pa + 5000, 100, 100, GR_SYNC_STREAM, 90000);
		tb_launch(&b, pb, 100, 100, 0xA0, 16, 256, 0x5, 0, 5000);
		tb_sync(&b, pb + 5000, 100, 100, GR_SYNC_STREAM, 90000);
	}
	a.err |= synth_name(a.w, T0, GR_NAME_RANK, 100, 100, "RANK=0 WORLD_SIZE=2");
	b.err |= synth_name(b.w, T0 + S, GR_NAME_RANK, 100, 100, "RANK=1 WORLD_SIZE=2");
	b.err |= synth_name(b.w, T0 + S, GR_NAME_COMM, 100, 100, "trainer-b");
	/* each recording numbers its Python frames from 1: key 1 is a different line in each */
	tb_pyframe(&a, T0, 100, 1, "a.py", 10, "step_a");
	tb_pyframe(&b, T0 + S, 100, 1, "b.py", 20, "step_b");
	tb_stack(&a, T0, 100, 7, (const uint64_t[]){GR_FRAME_PYTHON | 1}, 1);
	tb_stack(&b, T0 + S, 100, 7, (const uint64_t[]){GR_FRAME_PYTHON | 1}, 1);
	CHECK(gr_trace_writer_close(a.w) == 0 && a.err == 0);
	CHECK(gr_trace_writer_close(b.w) == 0 && b.err == 0);
	paths[0] = a.path;
	paths[1] = b.path;
	CHECK(gr_model_load_set(&m, paths, 2, NULL, &diag, &failed) == 0);
	if (!m) {
		printf("#   load set: %s\n", diag.reason);
		return;
	}
	t = gr_model_traces(m, &nt);
	CHECK_EQ_U64(nt, 2);
	if (nt == 2) {
		CHECK_STR(t[1].host, "node-b");
		CHECK(t[0].shift_ns == 0 && t[1].shift_ns == 1000 - (int64_t)S && t[1].anchored);
	}
	p = gr_model_processes(m, &np);
	CHECK_EQ_U64(np, 2);
	if (np == 2) {
		CHECK(p[0].pid == 100 && p[0].trace == 0 && p[0].trace_pid == 100);
		CHECK(p[1].pid == 100 + GR_MODEL_SET_PIDS && p[1].trace == 1 &&
		      p[1].trace_pid == 100);
		CHECK(p[0].rank == 0 && p[1].rank == 1);
		/* a COMM name of B names B's thread only */
		CHECK_STR(p[1].comm, "trainer-b");
		CHECK(strcmp(p[0].comm, "trainer-b") != 0);
	}
	/* stack 7 of each trace reads its own trace's frame */
	{
		const struct gr_stack *st = gr_model_stacks(m, &nt);
		int seen = 0;

		for (size_t i = 0; i < nt; i++) {
			const struct gr_pyframe *pf;

			if (st[i].id != 7 || st[i].nframes != 1)
				continue;
			pf = gr_model_pyframe(m, st[i].frames[0]);
			CHECK(pf != NULL);
			if (!pf)
				continue;
			seen++;
			CHECK_STR(pf->file, (st[i].pid == 100 ? "a.py" : "b.py"));
			CHECK_STR(pf->function, (st[i].pid == 100 ? "step_a" : "step_b"));
		}
		CHECK_EQ_U64(seen, 2);
	}
	l = gr_model_launches(m, &nl);
	CHECK_EQ_U64(nl, 20);
	/* in time order on A's clock: B's first launch at its T0 + S + 20 us is A's T0 + 21 us */
	if (nl == 20) {
		CHECK_EQ_U64(l[0].ts, T0 + 10000);
		CHECK_EQ_U64(l[1].ts, T0 + 21000);
	}
	r = compute(m, NULL);
	if (r && r->ranks.n == 2) {
		CHECK(r->ranks.v[1].trace == 1 && r->ranks.v[1].pid == 100);
		CHECK_STR(r->ranks.v[1].host, "node-b");
		CHECK(r->ranks.straggler.found && r->ranks.straggler.index == 1);
		CHECK_NEAR(r->ranks.straggler.ratio, 3.0);
		/* no scheduler records: the time outside calls is of unknown state, not host */
		CHECK_EQ_U64(r->ranks.v[1].part_ns[GR_RANK_UNKNOWN], 205000);
		CHECK_EQ_U64(r->ranks.v[1].part_ns[GR_RANK_HOST], 0);
		CHECK(!r->ranks.v[1].has_states);
		CHECK_EQ_U64(r->ranks.straggler.cause, GR_RANK_UNKNOWN);
		CHECK_STR(gr_rank_part_name(r->ranks.straggler.cause), "unknown");
	} else {
		CHECK(r && r->ranks.n == 2);
	}
	/* a missing trace: the error names it */
	paths[1] = "/nonexistent/set_c.trc";
	gr_model_free(m);
	m = NULL;
	CHECK(gr_model_load_set(&m, paths, 2, NULL, &diag, &failed) < 0);
	CHECK(m == NULL && failed == 1);
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * A set whose first trace holds more events than the second: trace A 3000 launches and 400
 * scheduler switches, B (recorded after it) 5 and 3. Every event of both is there, in time
 * order, as written: B's arrays were sized to B's counts alone and shrank the model's arrays
 * under A's events (a second trace smaller than the first read garbage or crashed).
 */
static void test_set_first_larger(void)
{
	const uint64_t R = 1700000000000000000ull, S = 1000000000ull;
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct tb a, b;
	const char *paths[2];
	const struct gr_launch *l;
	const struct gr_sched *sc;
	size_t nl, ns, failed = 9, bad = 0;

	tb_open_clock(&a, "big_a.trc", T0, R, "node-a");
	tb_open_clock(&b, "small_b.trc", T0, R, "node-b");
	for (uint64_t i = 0; i < 3000; i++)
		tb_launch(&a, T0 + 1000 + i * 100, 100, 100, 0xA0, 16, 256, 0x5, 0, 50);
	for (uint64_t i = 0; i < 400; i++)
		tb_sched(&a, T0 + 1050 + i * 100, GR_SCHED_SWITCH, 100, 1, 0);
	for (uint64_t i = 0; i < 5; i++)
		tb_launch(&b, T0 + S + i * 100, 100, 100, 0xA0, 16, 256, 0x5, 0, 50);
	for (uint64_t i = 0; i < 3; i++)
		tb_sched(&b, T0 + S + 50 + i * 100, GR_SCHED_SWITCH, 100, 1, 0);
	CHECK(gr_trace_writer_close(a.w) == 0 && a.err == 0);
	CHECK(gr_trace_writer_close(b.w) == 0 && b.err == 0);
	paths[0] = a.path;
	paths[1] = b.path;
	CHECK(gr_model_load_set(&m, paths, 2, NULL, &diag, &failed) == 0);
	if (!m) {
		printf("#   load set: %s\n", diag.reason);
		return;
	}
	l = gr_model_launches(m, &nl);
	sc = gr_model_scheds(m, &ns);
	CHECK_EQ_U64(nl, 3005);
	CHECK_EQ_U64(ns, 403);
	for (size_t i = 0; i < nl && nl == 3005; i++)
		bad += l[i].ts != (i < 3000 ? T0 + 1000 + i * 100 : T0 + S + (i - 3000) * 100);
	for (size_t i = 0; i < ns && ns == 403; i++)
		bad += sc[i].ts != (i < 400 ? T0 + 1050 + i * 100 : T0 + S + 50 + (i - 400) * 100);
	CHECK_EQ_U64(bad, 0);
	gr_model_free(m);
}

static void test_straggler_decision(void)
{
	struct gr_report_rank v[5];
	struct gr_report_straggler s;

	v[0] = rank_of(1, 1000, 10, 990, 0);
	v[1] = rank_of(1, 1000, 10, 990, 0);
	v[2] = rank_of(1, 1050, 10, 1040, 0);
	v[3] = rank_of(1, 3000, 2000, 1000, 500);
	v[4] = rank_of(0, 0, 0, 0, 0); /* no loop: takes no part */
	gr_report_straggler_find(v, 5, &s);
	CHECK(s.found);
	CHECK_EQ_U64(s.index, 3);
	CHECK_EQ_U64(s.others_ns, 1000000); /* of 1000, 1000, 1050 us */
	CHECK_NEAR(s.ratio, 3.0);
	CHECK_EQ_U64(s.cause, GR_RANK_HOST);
	CHECK_EQ_U64(s.excess_ns, 1990000); /* host 2000 - 10 us; runnable passes by 500, sync 10 */
	CHECK_STR(gr_rank_part_name(s.cause), "host");

	/* the runnable wait the larger excess: it is the cause */
	v[3] = rank_of(1, 3000, 300, 1000, 2000);
	gr_report_straggler_find(v, 5, &s);
	CHECK(s.found && s.cause == GR_RANK_RUNNABLE && s.excess_ns == 2000000);

	/* every part can be the cause: off CPU between calls, other calls */
	v[3] = rank_of(1, 3000, 10, 990, 0);
	v[3].part_ns[GR_RANK_BLOCKED] = 1500000;
	v[3].part_ns[GR_RANK_OTHER] = 1000000;
	gr_report_straggler_find(v, 5, &s);
	CHECK(s.found && s.cause == GR_RANK_BLOCKED && s.excess_ns == 1500000);
	CHECK_STR(gr_rank_part_name(s.cause), "blocked");

	/* at the threshold a straggler, under it none (the slowest still named, with its ratio) */
	v[3] = rank_of(1, 1100, 10, 1090, 0);
	gr_report_straggler_find(v, 5, &s);
	CHECK(s.found && s.index == 3);
	CHECK_NEAR(s.ratio, 1.1);
	v[3] = rank_of(1, 1099, 10, 1089, 0);
	gr_report_straggler_find(v, 5, &s);
	CHECK(!s.found);
	CHECK_EQ_U64(s.index, 3);
	CHECK_NEAR(s.ratio, 1.099);

	/* slower, but no part passes the others': the cause is unexplained */
	v[3] = rank_of(1, 2000, 10, 990, 0);
	gr_report_straggler_find(v, 5, &s);
	CHECK(s.found && s.cause == GR_RANK_NPARTS && s.excess_ns == 0);
	CHECK_STR(gr_rank_part_name(s.cause), "unexplained");

	/* a loop that ran while no other did (a launcher's, before the job) is not compared,
	 * however slow */
	v[3] = rank_of(1, 9000, 8000, 1000, 0);
	v[3].concurrent = 0;
	gr_report_straggler_find(v, 5, &s);
	CHECK(!s.found);
	CHECK_EQ_U64(s.index, 2);
	CHECK_NEAR(s.ratio, 1.05);

	/* 1.5x, but 10 us more: under the floor, no straggler; 20 us more: one */
	v[0] = rank_of(1, 20, 10, 10, 0);
	v[1] = rank_of(1, 20, 10, 10, 0);
	v[2] = rank_of(1, 20, 10, 10, 0);
	v[3] = rank_of(1, 30, 20, 10, 0);
	gr_report_straggler_find(v, 5, &s);
	CHECK(!s.found && s.index == 3);
	CHECK_NEAR(s.ratio, 1.5);
	v[3] = rank_of(1, 40, 30, 10, 0);
	gr_report_straggler_find(v, 5, &s);
	CHECK(s.found && s.index == 3 && s.cause == GR_RANK_HOST && s.excess_ns == 20000);

	/* one rank with a loop: nothing to compare */
	v[0] = rank_of(1, 1000, 10, 990, 0);
	v[1] = rank_of(0, 0, 0, 0, 0);
	gr_report_straggler_find(v, 2, &s);
	CHECK(!s.found);
	gr_report_straggler_find(v, 0, &s);
	CHECK(!s.found);
}

/* A switch on CPU @cpu from thread @ptid of @ppid (leaving in @state) to @ntid of @npid. */
static void tb_switch(struct tb *b, uint64_t ts, uint64_t cpu, uint32_t ppid, uint32_t ptid,
		      uint64_t state, uint32_t npid, uint32_t ntid)
{
	uint64_t v[GR_SCHED_NCOLS] = {[GR_SCHED_TS] = ts,
				      [GR_SCHED_CPU] = cpu,
				      [GR_SCHED_TYPE] = GR_SCHED_SWITCH,
				      [GR_SCHED_PREV_PID] = ppid,
				      [GR_SCHED_PREV_TID] = ptid,
				      [GR_SCHED_PREV_STATE] = state,
				      [GR_SCHED_NEXT_PID] = npid,
				      [GR_SCHED_NEXT_TID] = ntid};

	b->err |= gr_trace_writer_append(b->w, GR_K_SCHED, v, NULL);
}

/*
 * Two processes, each 10 iterations of a launch (5 us) and a stream sync (90 us) on its thread:
 * pid 100 every 100 us, pid 200 every 300 us (200 us more host work). Each process gets its own
 * iteration; per iteration (the median of the 10: the last ends at its last call's return),
 * host time is the period less the 95 us of calls: 5 us and 205 us, on CPU (each thread is
 * switched in before its loop, and never out). pid 200 is the straggler, 3x, host.
 */
static void test_ranks(void)
{
	const uint64_t end = T0 + 5000000;
	const struct gr_report_rank *a, *c;
	struct gr_model *m;
	struct gr_report *r = NULL;
	struct tb b;
	char *text;

	tb_open(&b, "ranks.trc");
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t p = T0 + 10000 + i * 100000, q = T0 + 20000 + i * 300000;

		tb_launch(&b, p, 100, 101, 0xA0, 16, 256, 0x5, 0, 5000);
		tb_sync(&b, p + 5000, 100, 101, GR_SYNC_STREAM, 90000);
		tb_launch(&b, q, 200, 201, 0xA0, 16, 256, 0x5, 0, 5000);
		tb_sync(&b, q + 5000, 200, 201, GR_SYNC_STREAM, 90000);
	}
	tb_switch(&b, T0 + 1000, 0, 0, 0, 0, 100, 101);
	tb_switch(&b, T0 + 1000, 1, 0, 0, 0, 200, 201);
	b.err |= synth_name(b.w, end, GR_NAME_KERNEL, 100, 0xA0, "a(float*)");
	b.err |= synth_name(b.w, end, GR_NAME_KERNEL, 200, 0xA0, "a(float*)");
	/* the ranks the launchers set: torchrun's for pid 100; Open MPI's (first in the list
	 * after RANK) over Slurm's for pid 200, whose LOCAL_RANK is no number */
	b.err |= synth_name(b.w, T0, GR_NAME_RANK, 100, 100,
			    "RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2");
	b.err |= synth_name(b.w, T0, GR_NAME_RANK, 200, 200,
			    "LOCAL_RANK=x OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 "
			    "SLURM_PROCID=7");
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (!r)
		goto out;
	{
		size_t np;
		const struct gr_process *p = gr_model_processes(m, &np);

		CHECK_EQ_U64(np, 2);
		if (np == 2) {
			CHECK(p[0].pid == 100 && p[0].rank == 1 && p[0].local_rank == 1 &&
			      p[0].world_size == 2);
			CHECK(p[1].pid == 200 && p[1].rank == 0 && p[1].local_rank == -1 &&
			      p[1].world_size == 2);
			CHECK_STR(p[0].rank_env,
				  "RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2");
		}
	}
	CHECK_EQ_U64(r->ranks.n, 2);
	if (r->ranks.n != 2)
		goto out;
	/* by rank: pid 200 (rank 0) first */
	a = &r->ranks.v[1];
	c = &r->ranks.v[0];
	CHECK_EQ_U64(a->pid, 100);
	CHECK_EQ_U64(c->pid, 200);
	CHECK(a->rank == 1 && c->rank == 0);
	CHECK(a->iter.found && c->iter.found);
	CHECK_EQ_U64(a->iter.count, 10);
	CHECK_EQ_U64(c->iter.count, 10);
	CHECK_EQ_U64(a->iter.period_ns, 100000);
	CHECK_EQ_U64(c->iter.period_ns, 300000);
	CHECK_EQ_U64(a->iter.launches, 1);
	CHECK_EQ_U64(a->part_ns[GR_RANK_HOST], 5000);
	CHECK_EQ_U64(c->part_ns[GR_RANK_HOST], 205000);
	CHECK_EQ_U64(a->part_ns[GR_RANK_LAUNCH], 5000);
	CHECK_EQ_U64(c->part_ns[GR_RANK_SYNC], 90000);
	CHECK_EQ_U64(c->part_ns[GR_RANK_COPY], 0);
	/* on CPU the whole loop: no wait, nothing unknown */
	CHECK(a->has_states && c->has_states);
	CHECK_EQ_U64(c->part_ns[GR_RANK_RUNNABLE] + c->part_ns[GR_RANK_BLOCKED], 0);
	CHECK_EQ_U64(c->part_ns[GR_RANK_UNKNOWN], 0);
	CHECK_EQ_U64(c->part_ns[GR_RANK_OTHER], 0);
	CHECK_NEAR(c->blocked_share, 90000.0 / 300000);
	/* each loop's sums hold its own process's calls only */
	CHECK_EQ_U64(a->iter.loop.launches, 10);
	CHECK_EQ_U64(c->iter.loop.syncs, 10);
	CHECK(r->ranks.straggler.found);
	CHECK_EQ_U64(r->ranks.straggler.index, 0);
	CHECK_NEAR(r->ranks.straggler.ratio, 3.0);
	CHECK_EQ_U64(r->ranks.straggler.cause, GR_RANK_HOST);
	CHECK_EQ_U64(r->ranks.straggler.excess_ns, 200000);
	CHECK_EQ_U64(r->ranks.verdict.level, GR_VERDICT_PROBLEM);
	text = render_text(r, m);
	CHECK(text &&
	      strstr(text, "rank 0 (pid 200) is the straggler: 300.0 us per iteration, 3.00x"));
	CHECK(text && strstr(text, "== 6. Ranks"));
	free(text);
out:
	gr_report_free(r);
	gr_model_free(m);
}

/* One kernel 20 times, then a sync, 8 times: the sequence alone has period 1; the syncs make it
 * 21 calls. A sequence without repetition has no iteration. */
static void test_iteration_sync_marker(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "ticks.trc");
	for (uint64_t i = 0; i < 8; i++) {
		uint64_t base = T0 + 1000 + i * 300000;

		for (uint64_t j = 0; j < 20; j++)
			tb_launch(&b, base + j * 6000, 7, 7, 0x10, 264, 256, 0x5, 0, 0);
		tb_sync(&b, base + 120000, 7, 7, GR_SYNC_STREAM, 1000 + i);
	}
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found);
		CHECK_EQ_U64(it->calls, 21);
		CHECK_EQ_U64(it->launches, 20);
		CHECK_EQ_U64(it->syncs, 1);
		CHECK_EQ_U64(it->count, 8);
		CHECK_EQ_U64(it->period_ns, 300000);
		CHECK_EQ_U64(it->end_ts, T0 + 1000 + 7 * 300000 + 120000 + 1007);
		/* one run of 20 per iteration: 8 occurrences, 19 launches saved each time */
		CHECK_EQ_U64(r->fusion.ncandidates, 1);
		if (r->fusion.ncandidates) {
			CHECK_EQ_U64(r->fusion.candidates[0].len, 20);
			CHECK_EQ_U64(r->fusion.candidates[0].occurrences, 8);
			CHECK_EQ_U64(r->fusion.candidates[0].est_saving_ns, 8 * 19 * 6000);
		}
	}
	gr_report_free(r);
	gr_model_free(m);

	/* the loop ends at the first call that breaks the pattern, even if a later call happens
	 * to equal the one a period before it: (a b sync) x 5, then c c c c */
	tb_open(&b, "tail.trc");
	for (uint64_t i = 0; i < 5; i++) {
		uint64_t base = T0 + 1000 + i * 10000;

		tb_launch(&b, base, 7, 7, 0x1, 1, 32, 0, 0, 0);
		tb_launch(&b, base + 1000, 7, 7, 0x2, 1, 32, 0, 0, 0);
		tb_sync(&b, base + 2000, 7, 7, GR_SYNC_DEVICE, 3000);
	}
	for (uint64_t i = 0; i < 4; i++)
		tb_launch(&b, T0 + 60000 + i * 1000, 7, 7, 0x3, 1, 32, 0, 0, 0);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		CHECK(r->launches.iter.found);
		CHECK_EQ_U64(r->launches.iter.calls, 3);
		CHECK_EQ_U64(r->launches.iter.count, 5);
		CHECK_EQ_U64(r->launches.iter.end_ts, T0 + 1000 + 40000 + 5000);
	}
	gr_report_free(r);
	gr_model_free(m);

	/* no period: kernels in an order that never repeats */
	tb_open(&b, "noiter.trc");
	for (uint64_t i = 0; i < 40; i++)
		tb_launch(&b, T0 + 1000 + i * 1000, 7, 7, 0x10 + (i * i * 7 + i / 3) % 11, 1, 32, 0,
			  0, 0);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		CHECK(!r->launches.iter.found);
		CHECK_EQ_U64(r->launches.iter.count, 0);
		/* without an iteration the share is over the launch window: 40 x 1000 / 39000,
		 * but a share never passes 1; and an estimated cost judges nothing */
		CHECK_EQ_U64(r->launches.launch_cost_ns, 1000);
		CHECK_NEAR(r->launches.launch_share, 1.0);
		CHECK_EQ_U64(r->launches.verdict.level, GR_VERDICT_OK);
		CHECK(strstr(r->launches.verdict.text, "no repeating iteration") != NULL);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* A copy or a sync on stream (or of event) @handle, for traces with several streams. */
static void tb_copy_on(struct tb *b, uint64_t ts, uint32_t tid, unsigned kind, uint64_t bytes,
		       int async, uint64_t stream)
{
	uint64_t v[GR_COPY_NCOLS] = {
	    [GR_COPY_TS] = ts,
	    [GR_COPY_DUR] = 100,
	    [GR_COPY_PID] = tid,
	    [GR_COPY_TID] = tid,
	    [GR_COPY_API] = async ? GR_API_cudaMemcpyAsync : GR_API_cudaMemcpy,
	    [GR_COPY_BYTES] = bytes,
	    [GR_COPY_CKIND] = kind,
	    [GR_COPY_STREAM] = stream,
	    [GR_COPY_FLAGS] = async ? GR_COPY_F_ASYNC : 0,
	};

	b->err |= gr_trace_writer_append(b->w, GR_K_COPY, v, NULL);
}

static void tb_sync_on(struct tb *b, uint64_t ts, uint32_t tid, unsigned kind, uint64_t handle)
{
	uint64_t v[GR_SYNC_NCOLS] = {
	    [GR_SYNC_TS] = ts,	 [GR_SYNC_DUR] = 100,	 [GR_SYNC_PID] = tid,
	    [GR_SYNC_TID] = tid, [GR_SYNC_SKIND] = kind, [GR_SYNC_HANDLE] = handle};

	b->err |= gr_trace_writer_append(b->w, GR_K_SYNC, v, NULL);
}

/* The breakdown of an iteration adds up to its calls. */
static void check_breakdown(const struct gr_report_iteration *it)
{
	CHECK_EQ_U64(it->launches + it->copies + it->syncs + it->allocs + it->other, it->calls);
}

/* A warm-up launch, a device sync and an event record, then 300 launches of the same kernel,
 * an event record and an event sync (a timed loop): 300 iterations of 1 launch. The warm-up
 * launch repeats the loop's call but is no iteration: calls other than the loop's lie between. */
static void test_iteration_warmup(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "warmup.trc");
	tb_launch(&b, T0 + 1000, 7, 7, 0x10, 1, 32, 0, 0, 0);
	tb_sync_on(&b, T0 + 2000, 7, GR_SYNC_DEVICE, 0);
	tb_sync_on(&b, T0 + 3000, 7, GR_SYNC_EVENT_RECORD, 0);
	for (uint64_t i = 0; i < 300; i++)
		tb_launch(&b, T0 + 10000 + i * 1000, 7, 7, 0x10, 1, 32, 0, 0, 0);
	tb_sync_on(&b, T0 + 400000, 7, GR_SYNC_EVENT_RECORD, 0);
	tb_sync_on(&b, T0 + 401000, 7, GR_SYNC_EVENT, 0xE0);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found);
		CHECK_EQ_U64(it->calls, 1);
		CHECK_EQ_U64(it->launches, 1);
		CHECK_EQ_U64(it->other, 0);
		check_breakdown(it);
		CHECK_EQ_U64(it->count, 300);
		CHECK_EQ_U64(it->period_ns, 1000);
		CHECK_EQ_U64(it->start_ts, T0 + 10000);
		CHECK_EQ_U64(it->loop.launches, 300);
		/* the match is over the anchor's calls, warm-up to last: 3 of 302 differ */
		CHECK_NEAR(it->match, 299.0 / 302);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* Every step allocates a temporary, launches one kernel 3 times and frees it: 100 iterations
 * of 5 calls (3 launches, 2 allocs), not 300 of 1 launch. */
static void test_iteration_allocs(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "allocs.trc");
	for (uint64_t i = 0; i < 100; i++) {
		uint64_t ts = T0 + 1000 + i * 10000, addr = 0x100000 + i * 0x1000;

		tb_alloc(&b, ts, 7, 7, GR_ALLOC_DEVICE, addr, 1 << 20);
		for (uint64_t j = 0; j < 3; j++)
			tb_launch(&b, ts + 1000 + j * 1000, 7, 7, 0x10, 1, 32, 0, 0, 0);
		tb_free(&b, ts + 5000, 7, 7, GR_ALLOC_DEVICE, addr);
	}
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found);
		CHECK_EQ_U64(it->count, 100);
		CHECK_EQ_U64(it->calls, 5);
		CHECK_EQ_U64(it->launches, 3);
		CHECK_EQ_U64(it->allocs, 2);
		check_breakdown(it);
		CHECK_EQ_U64(it->period_ns, 10000);
		CHECK_EQ_U64(it->nphases, 1);
		CHECK_EQ_U64(it->why, GR_PHASE_ONLY);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* Three loops of period 2: a setup (50 x memset, init), the training (300 x step, device sync),
 * an eval (20 x eval, event record). The rarest anchors are the eval's, then the setup's: their
 * period must not hide the training's loop, the one holding the most calls. */
static void test_iteration_phases(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;
	uint64_t ts = T0 + 1000;

	tb_open(&b, "phases.trc");
	for (uint64_t i = 0; i < 50; i++) {
		tb_memset(&b, ts += 1000, 7, 7, 4096);
		tb_launch(&b, ts += 1000, 7, 7, 0x20, 1, 32, 0, 0, 0);
	}
	for (uint64_t i = 0; i < 300; i++) {
		tb_launch(&b, ts += 1000, 7, 7, 0x10, 1, 32, 0, 0, 0);
		tb_sync_on(&b, ts += 1000, 7, GR_SYNC_DEVICE, 0);
	}
	for (uint64_t i = 0; i < 20; i++) {
		tb_launch(&b, ts += 1000, 7, 7, 0x30, 1, 32, 0, 0, 0);
		tb_sync_on(&b, ts += 1000, 7, GR_SYNC_EVENT_RECORD, 0);
	}
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;
		const uint64_t count[3] = {50, 300, 20};

		CHECK(it->found);
		CHECK_EQ_U64(it->count, 300);
		CHECK_EQ_U64(it->calls, 2);
		CHECK_EQ_U64(it->syncs, 1);
		check_breakdown(it);
		CHECK_EQ_U64(it->start_ts, T0 + 1000 + 100 * 1000 + 1000);
		CHECK_EQ_U64(it->why, GR_PHASE_MOST_CALLS);
		CHECK_EQ_U64(it->nphases_found, 3);
		CHECK_EQ_U64(it->nphases, 3);
		for (size_t i = 0; i < 3 && i < it->nphases; i++) {
			CHECK_EQ_U64(it->phases[i].count, count[i]);
			CHECK_EQ_U64(it->phases[i].calls, 2);
			CHECK_EQ_U64(it->phases[i].launches, 1);
			CHECK_EQ_U64(it->phases[i].chosen, i == 1);
		}
		if (it->nphases == 3)
			CHECK_EQ_U64(it->phases[1].start_ts, it->start_ts);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* Four streams; setup: per stream a copy and an event record. Then per stream, 20 times: event
 * synchronize, launch, async H2D, async D2H, event record, on that stream (stream after stream,
 * or each round over the four). */
static void streams_trace(struct tb *b, const char *name, int stream_major)
{
	uint64_t ts = T0 + 1000;

	tb_open(b, name);
	for (uint64_t s = 0; s < 4; s++) {
		tb_copy_on(b, ts += 1000, 7, GR_COPY_H2D, 65536, 0, 0);
		tb_sync_on(b, ts += 1000, 7, GR_SYNC_EVENT_RECORD, 0xA0 + s);
	}
	for (uint64_t a = 0; a < (stream_major ? 4 : 20); a++)
		for (uint64_t c = 0; c < (stream_major ? 20 : 4); c++) {
			uint64_t s = stream_major ? a : c;

			tb_sync_on(b, ts += 1000, 7, GR_SYNC_EVENT, 0xE0 + s);
			tb_launch(b, ts += 1000, 7, 7, 0x10, 1, 32, 0xA0 + s, 0, 0);
			tb_copy_on(b, ts += 1000, 7, GR_COPY_H2D, 65536, 1, 0xA0 + s);
			tb_copy_on(b, ts += 1000, 7, GR_COPY_D2H, 65536, 1, 0xA0 + s);
			tb_sync_on(b, ts += 1000, 7, GR_SYNC_EVENT_RECORD, 0xA0 + s);
		}
}

static void test_iteration_streams(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	/* stream after stream: each stream's loop is 20 iterations of the 5 calls; the first wins
	 * (a call on another stream is another call) */
	streams_trace(&b, "streams_major.trc", 1);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found);
		CHECK_EQ_U64(it->calls, 5);
		CHECK_EQ_U64(it->launches, 1);
		CHECK_EQ_U64(it->copies, 2);
		CHECK_EQ_U64(it->syncs, 1);
		CHECK_EQ_U64(it->other, 1);
		check_breakdown(it);
		CHECK_EQ_U64(it->count, 20);
		CHECK_EQ_U64(it->period_ns, 5000);
		/* the setup's 8 calls, then the first stream's first event sync */
		CHECK_EQ_U64(it->start_ts, T0 + 1000 + 9000);
		CHECK_EQ_U64(it->loop.launches, 20);
	}
	gr_report_free(r);
	gr_model_free(m);

	/* a round over the four streams is the iteration: 20 of 20 calls */
	streams_trace(&b, "streams_rounds.trc", 0);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		const struct gr_report_iteration *it = &r->launches.iter;

		CHECK(it->found);
		CHECK_EQ_U64(it->calls, 20);
		CHECK_EQ_U64(it->launches, 4);
		CHECK_EQ_U64(it->copies, 8);
		CHECK_EQ_U64(it->syncs, 4);
		CHECK_EQ_U64(it->other, 4);
		check_breakdown(it);
		CHECK_EQ_U64(it->count, 20);
		CHECK_EQ_U64(it->period_ns, 20000);
		/* the setup's last call, the last stream's event record, repeats as the end of
		 * every round: the loop starts there, and its 20th iteration ends before the last
		 * round's last call */
		CHECK_EQ_U64(it->start_ts, T0 + 1000 + 8000);
		CHECK_EQ_U64(it->end_ts, T0 + 1000 + 8000 + 20 * 20000 - 1000 + 100);
		CHECK_EQ_U64(it->loop.launches, 80);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* No loop, no loop wording: kernels that never repeat in order, with 4 synchronous 1 MiB H2D
 * copies among them (a sync_copy_in_loop finding over the whole recording). */
static void test_no_loop_wording(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "noloop.trc");
	for (uint64_t i = 0; i < 40; i++)
		tb_launch(&b, T0 + 1000 + i * 1000, 7, 7, 0x10 + (i * i * 7 + i / 3) % 11, 1, 32, 0,
			  0, 0);
	for (uint64_t i = 0; i < 4; i++)
		tb_copy(&b, T0 + 1500 + i * 9000, 7, 7, GR_COPY_H2D, 1u << 20, 0x100, 0x200, 0, 400,
			0);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		char *text = render_text(r, m);
		const struct gr_report_finding *f = finding(r, "sync_copy_in_loop");

		CHECK(!r->launches.iter.found);
		CHECK(f && f->count == 4);
		CHECK(text && !strstr(text, "in the loop") && !strstr(text, "per iteration") &&
		      !strstr(text, "of the loop") && !strstr(text, "out of the loop"));
		CHECK(text && strstr(text, "4 synchronous copies (4.0 MiB) in the recording"));
		free(text);
	}
	gr_report_free(r);
	gr_model_free(m);
}

static void test_fusion(void)
{
	struct gr_model *m = scenario_loop();
	struct gr_report *r = m ? compute(m, NULL) : NULL;
	const struct gr_report_fusion *F;
	const struct gr_report_candidate *c;
	char *json;

	if (!r)
		goto out;
	F = &r->fusion;
	CHECK_EQ_U64(F->runs, 10);
	CHECK_EQ_U64(F->ncandidates, 1);
	CHECK_EQ_U64(F->launch_cost_ns, 15000);
	CHECK(!F->cost_measured);
	if (!F->ncandidates)
		goto out;
	c = &F->candidates[0];
	CHECK_EQ_U64(c->len, 3);
	CHECK_EQ_U64(c->occurrences, 10);
	/* occurrences x (length - 1) x launch cost */
	CHECK_EQ_U64(c->est_saving_ns, 10 * 2 * 15000);
	CHECK_EQ_U64(F->total_saving_ns, 300000);
	CHECK_NEAR(F->saving_share, 300000.0 / 990000);
	CHECK_STR(c->kernels[0].name, "a(float*)");
	CHECK_STR(c->kernels[1].name, "b(float*)");
	CHECK_STR(c->kernels[2].name, "c(float*)");
	CHECK_EQ_U64(c->nsmall, 2);
	CHECK(c->kernels[0].small && c->kernels[1].small && !c->kernels[2].small);
	CHECK_EQ_U64(c->pid, 100);
	CHECK_EQ_U64(c->stream, 0x5);
	CHECK_EQ_U64(c->first_ts, T0 + 10000);
	/* frames shared by function (the return addresses differ), the stubs dropped */
	CHECK_EQ_U64(c->stack.nframes, 2);
	if (c->stack.nframes == 2) {
		CHECK_STR(c->stack.frames[0], "train_step() (train)");
		CHECK_STR(c->stack.frames[1], "main (train)");
	}
	/* the launch cost is an estimate from gaps: the saving is no finding, only said */
	CHECK_EQ_U64(F->verdict.level, GR_VERDICT_OK);
	CHECK(strstr(F->verdict.text, "unknown: fusing would save about") != NULL);
	CHECK(strstr(F->verdict.text, "from train_step() (train)") != NULL);
	json = render(r, m);
	CHECK(json && strstr(json, "\"est_saving_ns\": 300000") != NULL);
	CHECK(json && strstr(json, "\"stack\": [\n") != NULL);
	free(json);
out:
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * Runs on two streams of one thread, interleaved, cut by a memset; a run of 2 and a run seen
 * once are not candidates. Calls 1000 ns apart: launch cost 1000.
 */
static void test_fusion_streams(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;
	uint64_t t = T0 + 1000;
	/* X Y Z W V U on streams 0x11 0x12 0x11 0x11 0x12 0x12 (1 and 2 are the default
	 * streams' special handles) */
	const uint64_t funcs[6] = {0x1, 0x2, 0x3, 0x4, 0x5, 0x6},
		       streams[6] = {0x11, 0x12, 0x11, 0x11, 0x12, 0x12};

	tb_open(&b, "streams.trc");
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 6; j++, t += 1000)
			tb_launch(&b, t, 9, 9, funcs[j], 4, 64, streams[j], 0, 0);
		tb_memset(&b, t, 9, 9, 64);
		t += 1000;
		tb_launch(&b, t, 9, 9, 0x1, 4, 64, 0x11, 0, 0);
		t += 1000;
		tb_launch(&b, t, 9, 9, 0x2, 4, 64, 0x11, 0, 0);
		t += 1000;
		tb_sync(&b, t, 9, 9, GR_SYNC_DEVICE, 0);
		t += 1000;
	}
	/* once: X Z W Y on stream 0x11 */
	for (int j = 0; j < 4; j++, t += 1000)
		tb_launch(&b, t, 9, 9, j == 3 ? 0x2 : funcs[j == 0 ? 0 : j + 1], 4, 64, 0x11, 0, 0);
	m = tb_load(&b);
	r = m ? compute(m, &(struct gr_report_opts){.sections = GR_REPORT_FUSION}) : NULL;
	if (r) {
		const struct gr_report_fusion *F = &r->fusion;

		CHECK_EQ_U64(r->sections, GR_REPORT_FUSION);
		CHECK_EQ_U64(F->launch_cost_ns, 1000);
		CHECK_EQ_U64(F->runs, 7); /* 3 x 2 runs of 3, one of 4 */
		CHECK_EQ_U64(F->ncandidates, 2);
		if (F->ncandidates == 2) {
			const struct gr_report_candidate *c0 = &F->candidates[0],
							 *c1 = &F->candidates[1];

			/* equal savings: the earlier first */
			CHECK_EQ_U64(c0->occurrences, 3);
			CHECK_EQ_U64(c0->est_saving_ns, 3 * 2 * 1000);
			CHECK_EQ_U64(c0->stream, 0x11);
			CHECK_EQ_U64(c1->stream, 0x12);
			CHECK_EQ_U64(c0->len, 3);
			CHECK(strstr(c0->kernels[1].name, "0x3") != NULL); /* Z, unnamed */
			CHECK(strstr(c1->kernels[2].name, "0x6") != NULL); /* U */
			CHECK_EQ_U64(c0->stack.nframes, 0);
		}
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* ---- scenario B: transfers ---- */

/*
 * pid 200 tid 201. Pinned: [0x10000, +64 KiB) (cudaHostAlloc at T0+100, freed at T0+500000),
 * registered [0x40000, +4 KiB); a failed pinned alloc (addr 0). 5 iterations at
 * base = T0 + 1000 + i * 50000: launch; H2D async 1 MiB from pinned (dur 2000); H2D async 2 MiB
 * from pageable 0x90000 (dur 20000); H2D sync 1000 B (dur 3000, exempt); D2D sync 100 MiB (dur
 * 1000, exempt); D2H sync 100000 B into registered memory (dur 4000); D2H async 8 B into
 * registered memory (dur 100) then a stream sync (dur 5000). After the free: H2D async 1 MiB from
 * the freed range (pageable now), dur 7000.
 */
static struct gr_model *scenario_transfer(void)
{
	struct tb b;
	const uint64_t end = T0 + 1000000;

	tb_open(&b, "transfer.trc");
	tb_alloc(&b, T0 + 100, 200, 201, GR_ALLOC_HOST_PINNED, 0x10000, 0x10000);
	tb_alloc(&b, T0 + 200, 200, 201, GR_ALLOC_HOST_REGISTERED, 0x40000, 0x1000);
	tb_alloc(&b, T0 + 300, 200, 201, GR_ALLOC_HOST_PINNED, 0, 100);
	for (uint64_t i = 0; i < 5; i++) {
		uint64_t base = T0 + 1000 + i * 50000;

		tb_launch(&b, base, 200, 201, 0xF0, 1024, 256, 0x5, 0, 0);
		tb_copy(&b, base + 1000, 200, 201, GR_COPY_H2D, 1 << 20, 0x10040, 0xD000000, 1,
			2000, 0);
		tb_copy(&b, base + 4000, 200, 201, GR_COPY_H2D, 2 << 20, 0x90000, 0xD000000, 1,
			20000, 7);
		tb_copy(&b, base + 25000, 200, 201, GR_COPY_H2D, 1000, 0x90000, 0xD000000, 0, 3000,
			0);
		tb_copy(&b, base + 29000, 200, 201, GR_COPY_D2D, 100 << 20, 0xD000000, 0xE000000, 0,
			1000, 0);
		tb_copy(&b, base + 31000, 200, 201, GR_COPY_D2H, 100000, 0xD000000, 0x40010, 0,
			4000, 0);
		tb_copy(&b, base + 36000, 200, 201, GR_COPY_D2H, 8, 0xD000000, 0x40020, 1, 100, 8);
		tb_sync(&b, base + 37000, 200, 201, GR_SYNC_STREAM, 5000);
	}
	tb_free(&b, T0 + 500000, 200, 201, GR_ALLOC_HOST_PINNED, 0x10000);
	tb_copy(&b, T0 + 600000, 200, 201, GR_COPY_H2D, 1 << 20, 0x10040, 0xD000000, 1, 7000, 0);
	b.err |= synth_name(b.w, end, GR_NAME_KERNEL, 200, 0xF0, "step(float*)");
	b.err |= synth_name(b.w, end, GR_NAME_COMM, 200, 201, "mover");
	b.err |= synth_name(b.w, end, GR_NAME_LIBRARY, 200, 0, "/usr/lib/libcudart.so.13");
	return tb_load(&b);
}

static void test_transfer(void)
{
	struct gr_model *m = scenario_transfer();
	struct gr_report *r = m ? compute(m, NULL) : NULL;
	const struct gr_report_transfer *T;
	const struct gr_report_direction *D;
	const struct gr_report_finding *f;
	const uint64_t MiB = 1 << 20;

	if (!r)
		goto out;
	T = &r->transfer;
	CHECK(r->launches.iter.found);
	CHECK_EQ_U64(r->launches.iter.count, 5);
	CHECK_EQ_U64(r->launches.iter.calls, 8);
	CHECK_EQ_U64(r->launches.iter.copies, 6);
	CHECK_EQ_U64(r->launches.iter.start_ts, T0 + 1000);
	CHECK_EQ_U64(r->launches.iter.end_ts, T0 + 1000 + 200000 + 42000);

	CHECK_EQ_U64(T->copies, 31);
	D = &T->dirs[GR_COPY_H2D];
	CHECK_STR(D->name, "H2D");
	CHECK_EQ_U64(D->count, 16);
	CHECK_EQ_U64(D->bytes, 5 * MiB + 5 * 2 * MiB + 5 * 1000 + MiB);
	CHECK_EQ_U64(D->time_ns, 5 * 2000 + 5 * 20000 + 5 * 3000 + 7000);
	CHECK_EQ_U64(D->async_count, 11);
	/* blocking: pageable async (5 + the one after the free) and the sync ones */
	CHECK_EQ_U64(D->blocking_count, 11);
	CHECK_EQ_U64(D->blocking_bytes, 10 * MiB + 5000 + MiB);
	CHECK_EQ_U64(D->blocking_ns, 100000 + 15000 + 7000);
	CHECK_NEAR(D->bandwidth, (10.0 * MiB + 5000 + MiB) * 1e9 / 122000);
	CHECK_EQ_U64(D->hist_count[0], 5); /* <= 1 KiB */
	CHECK_EQ_U64(D->hist_count[1], 0);
	CHECK_EQ_U64(D->hist_count[2], 6); /* <= 1 MiB: 1 MiB itself */
	CHECK_EQ_U64(D->hist_count[3], 5);
	CHECK_EQ_U64(D->hist_bytes[3], 10 * MiB);
	D = &T->dirs[GR_COPY_D2D];
	CHECK_EQ_U64(D->count, 5);
	CHECK_EQ_U64(D->bytes, 500 * MiB);
	CHECK_EQ_U64(D->blocking_count, 0); /* cudaMemcpy D2D does not wait */
	CHECK(D->bandwidth == 0);
	D = &T->dirs[GR_COPY_D2H];
	CHECK_EQ_U64(D->count, 10);
	CHECK_EQ_U64(D->bytes, 500000 + 40);
	CHECK_EQ_U64(D->async_count, 5);
	CHECK_EQ_U64(D->blocking_count, 5); /* the async read-back targets registered memory */
	CHECK_NEAR(D->bandwidth, 500000 * 1e9 / 20000);
	CHECK_EQ_U64(T->syncs, 5);
	CHECK_EQ_U64(T->sync_ns, 25000);

	/* the loop: its thread copies 30100 ns per iteration of 48400 (start to end / 5) */
	CHECK_EQ_U64(T->iter_copy_ns, 5 * 30100);
	CHECK_NEAR(T->iter_share, 150500.0 / 242000);
	CHECK_EQ_U64(T->busiest_copy_ns, 150500 + 7000);
	CHECK_NEAR(T->wall_share, 157500.0 / 1000000);

	/* blocking copies in the loop, any thread: pageable 2 MiB, sync 1000 B, sync D2H 100000 B
	 */
	CHECK_EQ_U64(T->loop_blocking_bytes, 10 * MiB + 5000 + 500000);
	CHECK_EQ_U64(T->loop_blocking_ns, 100000 + 15000 + 20000);
	CHECK_EQ_U64(T->nfindings, 3);
	f = finding(r, "pageable_async");
	CHECK(f && f->count == 5 && f->bytes == 10 * MiB && f->time_ns == 100000);
	/* one call site: stack id 7, which the trace lacks (no frames) */
	CHECK(f && f->per_iteration == 1.0 && f->nsites == 1 && f->sites[0].stack != 0);
	CHECK(f && f->nsites == 1 && f->sites[0].nframes == 0);
	f = finding(r, "sync_copy_in_loop");
	CHECK(f && f->count == 5 && f->bytes == 500000 && f->time_ns == 20000);
	f = finding(r, "item_pattern");
	CHECK(f && f->count == 5 && f->bytes == 40 && f->time_ns == 5 * (100 + 5000));
	CHECK(f && f->nsites == 1 && f->site_counts[0] == 5);
	CHECK_EQ_U64(T->verdict.level, GR_VERDICT_PROBLEM);
	CHECK(strncmp(T->verdict.text, "transfer-bound: 5 async copies from pageable", 44) == 0);
	free(render(r, m));
out:
	gr_report_free(r);
	gr_model_free(m);
}

static void tb_launch_api(struct tb *b, uint64_t ts, uint32_t tid, unsigned api, uint64_t stream)
{
	uint64_t v[GR_LAUNCH_NCOLS] = {
	    [GR_LAUNCH_TS] = ts,   [GR_LAUNCH_PID] = 100,     [GR_LAUNCH_TID] = tid,
	    [GR_LAUNCH_API] = api, [GR_LAUNCH_FUNC] = 0xAAA0, [GR_LAUNCH_GX] = 1,
	    [GR_LAUNCH_GY] = 1,	   [GR_LAUNCH_GZ] = 1,	      [GR_LAUNCH_BX] = 32,
	    [GR_LAUNCH_BY] = 1,	   [GR_LAUNCH_BZ] = 1,	      [GR_LAUNCH_STREAM] = stream,
	    [GR_LAUNCH_DUR] = 100,
	};

	b->err |= gr_trace_writer_append(b->w, GR_K_LAUNCH, v, NULL);
}

/*
 * Default streams: stream 0 through cudaLaunchKernel and cudaStreamLegacy (0x1) are the legacy
 * stream; stream 0 through cudaLaunchKernel_ptsz and cudaStreamPerThread (0x2) are the calling
 * thread's own per-thread default stream. Pid 100: thread 101 launches 3 on 0 and 1 on 0x1
 * (legacy: 4), 2 on 0 by _ptsz and 1 on 0x2 (its own: 3); thread 102 launches 5 on 0 by _ptsz.
 */
static void test_per_thread_streams(void)
{
	const struct gr_stream *st;
	struct gr_info in = {0};
	struct gr_report *r = NULL;
	struct gr_model *m;
	size_t ns;
	uint64_t ts = T0;
	struct tb b;
	char *text;

	tb_open(&b, "per_thread_streams.gr");
	for (int i = 0; i < 3; i++)
		tb_launch_api(&b, ts += 1000, 101, GR_API_cudaLaunchKernel, 0);
	tb_launch_api(&b, ts += 1000, 101, GR_API_cudaLaunchKernel, GR_STREAM_HANDLE_LEGACY);
	for (int i = 0; i < 2; i++)
		tb_launch_api(&b, ts += 1000, 101, GR_API_cudaLaunchKernel_ptsz, 0);
	tb_launch_api(&b, ts += 1000, 101, GR_API_cudaLaunchKernel, GR_STREAM_HANDLE_PER_THREAD);
	for (int i = 0; i < 5; i++)
		tb_launch_api(&b, ts += 1000, 102, GR_API_cudaLaunchKernel_ptsz, 0);
	m = tb_load(&b);
	if (!m)
		return;
	st = gr_model_streams(m, &ns);
	CHECK_EQ_U64(ns, 3);
	CHECK(gr_info_compute(m, &in) == 0);
	if (ns == 3 && in.launches.stream_launches) {
		/* in order of first use */
		CHECK(!st[0].per_thread && st[0].handle == 0 && st[0].pid == 100);
		CHECK_EQ_U64(in.launches.stream_launches[0], 4);
		CHECK(st[1].per_thread && st[1].tid == 101 && st[1].pid == 100);
		CHECK_EQ_U64(in.launches.stream_launches[1], 3);
		CHECK(st[2].per_thread && st[2].tid == 102 && st[2].pid == 100);
		CHECK_EQ_U64(in.launches.stream_launches[2], 5);
	}
	gr_info_free(&in);

	r = compute(m, NULL);
	if (r) {
		const struct gr_report_rate *s = r->launches.streams;

		CHECK_EQ_U64(r->launches.nstreams, 3);
		/* by count desc: thread 102's 5, legacy 4, thread 101's 3 */
		if (r->launches.nstreams == 3) {
			CHECK(s[0].per_thread && s[0].tid == 102 && s[0].count == 5);
			CHECK(!s[1].per_thread && s[1].handle == 0 && s[1].count == 4);
			CHECK(s[2].per_thread && s[2].tid == 101 && s[2].count == 3);
		}
		text = render_text(r, m);
		CHECK(strstr(text, "per-thread default stream (tid 102)") != NULL);
		CHECK(strstr(text, "per-thread default stream (tid 101)") != NULL);
		CHECK(strstr(text, "0 (default)") != NULL);
		free(text);
		free(render(r, m));
	}
	gr_report_free(r);
	gr_model_free(m);
}

/*
 * Copies recorded as "default" (cudaMemcpyDefault, cuMemcpy) take the direction the recorded
 * allocations live at the copy give their addresses: pid 100 has device memory [D, D + 1 MiB)
 * from T0+100 to its free at T0+10000 and pinned memory [P, P + 64 KiB); H is pageable. Pid 200
 * made no device allocation and pid 300 was attached to: their default copies stay default.
 */
static void test_default_copies(void)
{
	const uint64_t D = 0x7f0000000000ull, P = 0x200000000ull, H = 0x5000, MiB = 1 << 20;
	const struct gr_report_transfer *T;
	struct gr_info in = {0};
	struct gr_report *r = NULL;
	struct gr_model *m;
	const struct gr_copy *c;
	size_t nc;
	struct tb b;

	tb_open(&b, "default_copies.gr");
	b.err |= synth_proc(b.w, T0, GR_PROC_ATTACH, 300, 300, 0, "");
	tb_copy(&b, T0 + 50, 100, 100, GR_COPY_DEFAULT, 500, H, D, 0, 10, 0); /* before: H2H */
	tb_alloc(&b, T0 + 100, 100, 100, GR_ALLOC_DEVICE, D, MiB);
	tb_alloc(&b, T0 + 110, 100, 100, GR_ALLOC_HOST_PINNED, P, 65536);
	tb_alloc(&b, T0 + 120, 300, 300, GR_ALLOC_DEVICE, D, MiB);
	tb_copy(&b, T0 + 1000, 100, 100, GR_COPY_DEFAULT, 100, H, D + 16, 0, 10, 0);	  /* H2D */
	tb_copy(&b, T0 + 2000, 100, 100, GR_COPY_DEFAULT, 200, D, P, 0, 10, 0);		  /* D2H */
	tb_copy(&b, T0 + 3000, 100, 100, GR_COPY_DEFAULT, 300, D, D + MiB / 2, 0, 10, 0); /* D2D */
	tb_copy(&b, T0 + 4000, 100, 100, GR_COPY_DEFAULT, 400, H, P, 0, 10, 0);		  /* H2H */
	tb_copy(&b, T0 + 5000, 100, 100, GR_COPY_H2D, 700, H, D, 0, 10, 0);	/* recorded H2D */
	tb_copy(&b, T0 + 6000, 200, 200, GR_COPY_DEFAULT, 800, H, D, 0, 10, 0); /* no device */
	tb_copy(&b, T0 + 7000, 300, 300, GR_COPY_DEFAULT, 900, H, D, 0, 10, 0); /* attached */
	tb_free(&b, T0 + 10000, 100, 100, GR_ALLOC_DEVICE, D);
	tb_copy(&b, T0 + 20000, 100, 100, GR_COPY_DEFAULT, 600, D, H, 0, 10, 0); /* after: H2H */
	m = tb_load(&b);
	if (!m)
		return;
	c = gr_model_copies(m, &nc);
	CHECK_EQ_U64(nc, 9);
	if (nc == 9) {
		const unsigned want[9] = {GR_COPY_H2H,	   GR_COPY_H2D,	    GR_COPY_D2H,
					  GR_COPY_D2D,	   GR_COPY_H2H,	    GR_COPY_H2D,
					  GR_COPY_DEFAULT, GR_COPY_DEFAULT, GR_COPY_H2H};

		for (size_t i = 0; i < nc; i++) {
			CHECK_EQ_U64(c[i].kind, want[i]);
			CHECK_EQ_U64(c[i].kind_recorded, i == 5 ? GR_COPY_H2D : GR_COPY_DEFAULT);
		}
	}

	CHECK(gr_info_compute(m, &in) == 0);
	CHECK_EQ_U64(in.copies[GR_COPY_H2H].count, 3);
	CHECK_EQ_U64(in.copies[GR_COPY_H2H].bytes, 500 + 400 + 600);
	CHECK_EQ_U64(in.copies[GR_COPY_H2D].count, 2);
	CHECK_EQ_U64(in.copies[GR_COPY_H2D].bytes, 100 + 700);
	CHECK_EQ_U64(in.copies[GR_COPY_D2H].count, 1);
	CHECK_EQ_U64(in.copies[GR_COPY_D2H].bytes, 200);
	CHECK_EQ_U64(in.copies[GR_COPY_D2D].count, 1);
	CHECK_EQ_U64(in.copies[GR_COPY_D2D].bytes, 300);
	CHECK_EQ_U64(in.copies[GR_COPY_DEFAULT].count, 2);
	CHECK_EQ_U64(in.copies[GR_COPY_DEFAULT].bytes, 800 + 900);
	gr_info_free(&in);

	r = compute(m, NULL);
	if (r) {
		T = &r->transfer;
		CHECK_EQ_U64(T->copies, 9);
		CHECK_EQ_U64(T->dirs[GR_COPY_H2H].count, 3);
		CHECK_EQ_U64(T->dirs[GR_COPY_H2D].count, 2);
		CHECK_EQ_U64(T->dirs[GR_COPY_H2D].bytes, 800);
		CHECK_EQ_U64(T->dirs[GR_COPY_D2H].count, 1);
		CHECK_EQ_U64(T->dirs[GR_COPY_D2D].count, 1);
		CHECK_EQ_U64(T->dirs[GR_COPY_DEFAULT].count, 2);
		CHECK_EQ_U64(T->dirs[GR_COPY_DEFAULT].bytes, 1700);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* Blocked in copies that move next to nothing: waiting for the GPU, not transfer-bound. */
static void test_transfer_waiting(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "waiting.trc");
	for (uint64_t i = 0; i < 6; i++) {
		uint64_t base = T0 + 1000 + i * 50000;

		tb_launch(&b, base, 6, 6, 0xF0, 26400, 256, 0x5, 0, 0);
		tb_copy(&b, base + 5000, 6, 6, GR_COPY_D2H, 8, 0xD000000, 0x7ffd0000, 0, 40000, 0);
	}
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		const struct gr_report_transfer *T = &r->transfer;
		const struct gr_report_finding *f = finding(r, "item_pattern");

		CHECK(r->launches.iter.found);
		CHECK_EQ_U64(r->launches.iter.count, 6);
		CHECK_EQ_U64(T->loop_blocking_bytes, 6 * 8);
		CHECK_EQ_U64(T->loop_blocking_ns, 6 * 40000);
		CHECK_NEAR(T->iter_share, 240000.0 / (250000 + 45000));
		/* synchronous tiny reads are the .item() pattern, not synchronous copies */
		CHECK(f && f->count == 6 && f->time_ns == 240000);
		CHECK(finding(r, "sync_copy_in_loop") == NULL);
		CHECK_EQ_U64(T->verdict.level, GR_VERDICT_PROBLEM);
		CHECK(strncmp(T->verdict.text, "the .item() pattern", 19) == 0);
		CHECK(strstr(T->verdict.text, "waiting for the GPU, not moving data") != NULL);
		CHECK(strstr(T->verdict.text, "transfer-bound") == NULL);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* The healthy twin: pinned async copies only; then no copies at all. */
static void test_transfer_healthy(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "pinned.trc");
	tb_alloc(&b, T0 + 100, 5, 5, GR_ALLOC_HOST_PINNED, 0x10000, 0x100000);
	for (uint64_t i = 0; i < 4; i++) {
		uint64_t base = T0 + 1000 + i * 100000;

		tb_copy(&b, base, 5, 5, GR_COPY_H2D, 1 << 20, 0x10000, 0xD000000, 1, 1000, 0);
		tb_launch(&b, base + 2000, 5, 5, 0xF0, 16384, 256, 0x5, 0, 0);
		tb_sync(&b, base + 4000, 5, 5, GR_SYNC_STREAM, 90000);
	}
	b.err |= synth_name(b.w, T0 + 500000, GR_NAME_LIBRARY, 5, 0, "libcudart.so.13");
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		CHECK(r->launches.iter.found);
		CHECK_EQ_U64(r->transfer.nfindings, 0);
		CHECK_EQ_U64(r->transfer.dirs[GR_COPY_H2D].blocking_count, 0);
		CHECK_EQ_U64(r->transfer.iter_copy_ns, 4000);
		CHECK_NEAR(r->transfer.iter_share, 4000.0 / (300000 + 94000));
		CHECK_EQ_U64(r->transfer.verdict.level, GR_VERDICT_OK);
		CHECK(strncmp(r->transfer.verdict.text, "not transfer-bound", 18) == 0);
		/* no scheduler events: says so */
		CHECK_EQ_U64(r->cpu.verdict.level, GR_VERDICT_NONE);
		CHECK(strstr(r->cpu.verdict.text, "no scheduler events") != NULL);
		CHECK(!r->cpu.has_sched);
	}
	gr_report_free(r);
	gr_model_free(m);

	/* nothing at all: no CUDA library, no events */
	tb_open(&b, "empty.trc");
	b.err |= synth_name(b.w, T0 + 10, GR_NAME_COMM, 1, 1, "sh");
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		CHECK_EQ_U64(r->cuda_libraries, 0);
		CHECK_EQ_U64(r->launches.verdict.level, GR_VERDICT_NONE);
		CHECK(strstr(r->launches.verdict.text, "no CUDA library") != NULL);
		CHECK_EQ_U64(r->fusion.verdict.level, GR_VERDICT_NONE);
		CHECK_EQ_U64(r->transfer.verdict.level, GR_VERDICT_NONE);
		CHECK(strstr(r->transfer.verdict.text, "no CUDA library") != NULL);
		CHECK_EQ_U64(r->cpu.verdict.level, GR_VERDICT_NONE);
		CHECK(!r->launches.iter.found);
		free(render(r, m));
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* Four single-threaded processes (pids 601..604) each launch at +1000 and +11000 and wait
 * runnable over [+2000, +10000) inside that gap, all at once: 32000 ns of waiting in gaps over
 * 40000 ns of the threads' time (80%), where over the ~10000 ns recording it read 320%. The
 * table's starved column and the summary both give the active share: 8000 / 10000. */
static void test_cpu_shares(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "four.trc");
	for (uint32_t p = 601; p <= 604; p++) {
		tb_launch(&b, T0 + 1000, p, p, 0xA, 1, 32, 0, 0, 0);
		tb_launch(&b, T0 + 11000, p, p, 0xA, 1, 32, 0, 0, 0);
	}
	for (uint32_t p = 601; p <= 604; p++) {
		tb_sched(&b, T0 + 2000 + p - 601, GR_SCHED_SWITCH, p, 0, 0);
		tb_sched(&b, T0 + 10000 + p - 601, GR_SCHED_SWITCH, 0, 0, p);
	}
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		const struct gr_report_cpu *C = &r->cpu;
		char *text = render_text(r, m);

		CHECK_EQ_U64(C->nthreads, 4);
		CHECK_EQ_U64(C->starved_gap_ns, 4 * 8000);
		CHECK_EQ_U64(C->active_ns, 4 * 10000);
		CHECK_NEAR(C->gap_share, 0.8);
		CHECK(C->gap_share <= 1.0);
		for (size_t i = 0; i < C->nthreads; i++)
			CHECK_NEAR(C->threads[i].active_share, 0.8);
		CHECK(text && strstr(text, "= 80.0% of their time making CUDA calls"));
		CHECK(text && strstr(text, "  80.0%"));
		CHECK(strstr(C->verdict.text, "was runnable but not running 80% of the time"));
		free(text);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* One launch reads "1 launch", in the section and in the verdict. */
static void test_one_launch_wording(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;

	tb_open(&b, "one.trc");
	tb_launch(&b, T0 + 1000, 7, 7, 0x10, 1, 32, 0, 0, 0);
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	CHECK(r != NULL);
	if (r) {
		char *text = render_text(r, m);

		CHECK(text && strstr(text, "  1 launch in ") && !strstr(text, "1 launches"));
		CHECK(strstr(r->launches.verdict.text, "no repeating iteration; 1 launch at "));
		free(text);
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* ---- the step's bound when no launch was timed ---- */

/*
 * Eleven 1 ms iterations of tid 600 on the scheduler's record, no launch timed (dur 0), each:
 * three launches, then a 300 us stream sync that returned. The thread waits 600 us for a CPU each
 * iteration: @inside, between the first and second launch (t+10 to t+610 us: inside that launch
 * call or after it, only its end would say); else after the sync (t+370 to t+970 us), outside
 * every launch.
 */
static struct gr_model *scenario_untimed_wait(int inside)
{
	const uint64_t us = 1000;
	const uint64_t at[3] = {0, inside ? 620 * us : 20 * us, inside ? 640 * us : 40 * us};
	const uint64_t sync_at = inside ? 700 * us : 60 * us,
		       out = inside ? 10 * us : sync_at + 310 * us;
	struct tb b;

	tb_open(&b, inside ? "untimed_inside.trc" : "untimed_after.trc");
	tb_sched(&b, T0 - 100 * us, GR_SCHED_SWITCH, 0, 0, 600);
	for (uint64_t k = 0; k < 11; k++) {
		uint64_t t = T0 + k * 1000 * us;
		uint64_t v[GR_SYNC_NCOLS] = {[GR_SYNC_TS] = t + sync_at,
					     [GR_SYNC_DUR] = 300 * us,
					     [GR_SYNC_PID] = 600,
					     [GR_SYNC_TID] = 600,
					     [GR_SYNC_API] = GR_API_cudaStreamSynchronize,
					     [GR_SYNC_SKIND] = GR_SYNC_STREAM,
					     [GR_SYNC_HANDLE] = 0x5,
					     [GR_SYNC_CALL] = GR_CALL_RETURNED};

		for (int i = 0; i < 3; i++)
			tb_launch(&b, t + at[i], 600, 600, 0xA, 1, 32, 0x5, 0, 0);
		b.err |= gr_trace_writer_append(b.w, GR_K_SYNC, v, NULL);
		tb_sched(&b, t + out, GR_SCHED_SWITCH, 600, 0, 0);
		tb_sched(&b, t + out + 600 * us, GR_SCHED_SWITCH, 0, 0, 600);
	}
	tb_launch(&b, T0 + 11000 * us, 600, 600, 0xA, 1, 32, 0x5, 0, 0);
	return tb_load(&b);
}

/*
 * A wait for a CPU in the gap after an untimed launch may have been inside the call, which a
 * timed recording would count as launch time: the bound is unknown, not starved (a busy CI
 * machine made exactly this step of tests/progs/bound.cu "starved"). The same wait after the
 * sync is outside every launch: starved whatever the launches took.
 */
static void test_untimed_bound(void)
{
	const uint64_t us = 1000;

	for (int inside = 1; inside >= 0; inside--) {
		struct gr_model *m = scenario_untimed_wait(inside);
		struct gr_report *r =
		    m ? compute(m, &(struct gr_report_opts){.no_compensate = 1}) : NULL;
		const struct gr_report_diagnosis *D;

		if (!r)
			goto next;
		D = &r->diagnosis;
		CHECK(r->budget.found);
		CHECK_EQ_U64(r->launches.api_measured, 0);
		CHECK_EQ_U64(D->launch_timed, 0);
		CHECK_EQ_U64(D->total_ns, 1000 * us);
		/* the groups as measured: the untimed launches counted as nothing */
		CHECK_EQ_U64(D->group_ns[GR_GROUP_WAIT], 300 * us);
		CHECK_EQ_U64(D->group_ns[GR_GROUP_RUNNABLE], 600 * us);
		CHECK_EQ_U64(D->group_ns[GR_GROUP_HOST], 100 * us);
		CHECK_EQ_U64(D->group_ns[GR_GROUP_LAUNCH], 0);
		if (inside) {
			CHECK_EQ_U64(D->bound, GR_BOUND_UNKNOWN);
			CHECK(strstr(D->verdict.text, "3 launch calls of the 1.00 ms step") !=
			      NULL);
			CHECK(strstr(D->verdict.text, "(700.0 us at most, by the gaps after them); "
						      "record with --launch-time") != NULL);
		} else {
			CHECK_EQ_U64(D->bound, GR_BOUND_STARVED);
			CHECK_EQ_U64(D->verdict.level, GR_VERDICT_PROBLEM);
		}
		if (D->bound != (inside ? GR_BOUND_UNKNOWN : GR_BOUND_STARVED) ||
		    (inside && !strstr(D->verdict.text, "700.0 us at most")))
			printf("#   verdict: %s\n", D->verdict.text);
	next:
		gr_report_free(r);
		gr_model_free(m);
	}
}

/* ---- scenario C: the scheduler ---- */

/*
 * feeder (pid/tid 301) launches at +1000, +7500, +14000, +21001 and syncs at +22000 (dur 1000).
 * Scheduler: +2000 preempted by hog (401); +6000 other (501) hands it the CPU; +8000 blocks;
 * +10000 woken by hog; +13000 hog hands it the CPU; +15000 preempted by hog; +20000 hog hands it
 * the CPU. loader (302, same process) makes one sync and has no scheduler events.
 */
static struct gr_model *scenario_cpu(void)
{
	struct tb b;
	const uint64_t end = T0 + 100000;
	const uint64_t launches[4] = {1000, 7500, 14000, 21001};

	tb_open(&b, "cpu.trc");
	for (int i = 0; i < 4; i++)
		tb_launch(&b, T0 + launches[i], 301, 301, 0xA, 1, 32, 0, 0, 0);
	tb_sync(&b, T0 + 22000, 301, 301, GR_SYNC_DEVICE, 1000);
	tb_sync(&b, T0 + 50000, 301, 302, GR_SYNC_DEVICE, 3000);
	tb_sched(&b, T0 + 2000, GR_SCHED_SWITCH, 301, 0, 401);
	tb_sched(&b, T0 + 6000, GR_SCHED_SWITCH, 501, 0, 301);
	tb_sched(&b, T0 + 8000, GR_SCHED_SWITCH, 301, 1, 0);
	tb_sched(&b, T0 + 10000, GR_SCHED_WAKEUP, 401, 0, 301);
	tb_sched(&b, T0 + 13000, GR_SCHED_SWITCH, 401, 0, 301);
	tb_sched(&b, T0 + 15000, GR_SCHED_SWITCH, 301, 0, 401);
	tb_sched(&b, T0 + 20000, GR_SCHED_SWITCH, 401, 0, 301);
	/* a switch between two untraced tasks touches no CUDA thread */
	tb_sched(&b, T0 + 30000, GR_SCHED_SWITCH, 401, 0, 501);
	b.err |= synth_name(b.w, end, GR_NAME_COMM, 301, 301, "feeder");
	b.err |= synth_name(b.w, end, GR_NAME_COMM, 301, 302, "loader");
	b.err |= synth_name(b.w, end, GR_NAME_COMM, 401, 401, "hog");
	b.err |= synth_name(b.w, end, GR_NAME_COMM, 501, 501, "other");
	b.err |= synth_name(b.w, end, GR_NAME_LIBRARY, 301, 0, "libcudart.so.13");
	return tb_load(&b);
}

/*
 * A recording that lost two switches of a CUDA thread: asleep at +2000 and asleep again at +4000
 * (its switch-in lost), on a CPU at +6000 and again at +7000 (its switch-out lost). The time
 * before each is unknown, not blocked or on a CPU, and the CPU section says how many.
 */
static void test_cpu_switches_missing(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r;
	const struct gr_report_cpu_thread *t;
	char *text;

	tb_open(&b, "missing.trc");
	tb_launch(&b, T0 + 1000, 301, 301, 0xA, 1, 32, 0, 0, 0);
	tb_launch(&b, T0 + 9000, 301, 301, 0xA, 1, 32, 0, 0, 0);
	tb_sched(&b, T0 + 2000, GR_SCHED_SWITCH, 301, 1, 0);
	tb_sched(&b, T0 + 4000, GR_SCHED_SWITCH, 301, 1, 0);
	tb_sched(&b, T0 + 5000, GR_SCHED_WAKEUP, 401, 0, 301);
	tb_sched(&b, T0 + 6000, GR_SCHED_SWITCH, 0, 0, 301);
	tb_sched(&b, T0 + 7000, GR_SCHED_SWITCH, 401, 0, 301);
	tb_sched(&b, T0 + 8000, GR_SCHED_SWITCH, 301, 0, 401);
	tb_sched(&b, T0 + 8500, GR_SCHED_SWITCH, 401, 0, 301);
	b.err |= synth_name(b.w, T0 + 9500, GR_NAME_COMM, 401, 401, "hog");
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r && r->cpu.nthreads == 1) {
		t = &r->cpu.threads[0];
		CHECK_EQ_U64(r->cpu.switches_missing, 2);
		CHECK_EQ_U64(t->lifetime_ns, 8000);
		CHECK_EQ_U64(t->unknown_ns, 2000 + 1000);
		CHECK_EQ_U64(t->blocked_ns, 1000);
		CHECK_EQ_U64(t->runnable_wait_ns, 1000 + 500);
		CHECK_EQ_U64(t->oncpu_ns, 1000 + 1000 + 500);
		text = render_text(r, m);
		CHECK(text && strstr(text, "  2 switches of these threads were not recorded (their "
					   "own sequences say so):\n  their states before them are "
					   "unknown\n"));
		free(text);
	} else {
		CHECK(r && r->cpu.nthreads == 1);
	}
	gr_report_free(r);
	gr_model_free(m);
}

static void test_cpu(void)
{
	struct gr_model *m = scenario_cpu();
	struct gr_report *r = m ? compute(m, NULL) : NULL;
	const struct gr_report_cpu *C;
	const struct gr_report_cpu_thread *t;

	if (!r)
		goto out;
	CHECK_EQ_U64(r->launches.first_ts, T0 + 1000);
	CHECK_EQ_U64(r->launches.last_ts, T0 + 21001);
	C = &r->cpu;
	CHECK(C->has_sched);
	CHECK_EQ_U64(C->sched_events, 8);
	CHECK_EQ_U64(C->nthreads, 2);
	t = &C->threads[0];
	CHECK_EQ_U64(t->tid, 301);
	CHECK_STR(t->comm, "feeder");
	/* from its first call (+1000) to its last return (+23000) */
	CHECK_EQ_U64(t->lifetime_ns, 22000);
	CHECK_EQ_U64(t->oncpu_ns, 1000 + 2000 + 2000 + 3000);
	CHECK_EQ_U64(t->runnable_wait_ns, 4000 + 3000 + 5000);
	CHECK_EQ_U64(t->blocked_ns, 2000);
	CHECK_EQ_U64(t->unknown_ns, 0);
	CHECK_EQ_U64(t->involuntary, 2);
	CHECK_EQ_U64(t->voluntary, 1);
	CHECK_NEAR(t->starved_share, 12000.0 / 22000);
	CHECK_EQ_U64(t->active_ns, 22000);
	CHECK_EQ_U64(t->active_wait_ns, 12000);
	/* gaps [1000, 7500) [7500, 14000) [14000, 21001): 4000 + 3000 + 5000 of waiting inside */
	CHECK_EQ_U64(t->gaps, 3);
	CHECK_EQ_U64(t->starved_gaps, 3);
	CHECK_EQ_U64(t->starved_gap_ns, 12000);
	/* the first wait splits between the preemptor and the task that ran last */
	CHECK_EQ_U64(t->nculprits, 2);
	if (t->nculprits == 2) {
		CHECK_STR(t->culprits[0].comm, "hog");
		CHECK_EQ_U64(t->culprits[0].ns, 2000 + 3000 + 5000);
		CHECK_EQ_U64(t->culprits[0].preemptions, 2);
		CHECK_STR(t->culprits[1].comm, "other");
		CHECK_EQ_U64(t->culprits[1].ns, 2000);
		CHECK_EQ_U64(t->culprits[1].preemptions, 0);
	}
	t = &C->threads[1];
	CHECK_EQ_U64(t->tid, 302);
	CHECK_EQ_U64(t->lifetime_ns, 3000);
	CHECK_EQ_U64(t->unknown_ns, 3000);
	CHECK_EQ_U64(t->runnable_wait_ns, 0);
	CHECK_EQ_U64(C->starved_gap_ns, 12000);
	/* over the two threads' active windows (22000 + 3000), not the 100000 ns recording */
	CHECK_EQ_U64(C->active_ns, 22000 + 3000);
	CHECK_NEAR(C->gap_share, 12000.0 / 25000);
	CHECK_EQ_U64(C->verdict.level, GR_VERDICT_PROBLEM);
	CHECK(strstr(C->verdict.text, "CPU-starved: feeder (tid 301)") != NULL);
	CHECK(strstr(C->verdict.text, "hog") != NULL);
	free(render(r, m));
out:
	gr_report_free(r);
	gr_model_free(m);

	/* a wait before the thread's first CUDA call counts in its life, not against anyone */
	{
		struct tb b;

		tb_open(&b, "startup.trc");
		tb_sched(&b, T0 + 100, GR_SCHED_SWITCH, 77, 0, 401);
		tb_sched(&b, T0 + 500, GR_SCHED_SWITCH, 401, 0, 77);
		tb_launch(&b, T0 + 1000, 77, 77, 0xA, 1, 32, 0, 0, 0);
		tb_launch(&b, T0 + 2000, 77, 77, 0xA, 1, 32, 0, 0, 0);
		b.err |= synth_name(b.w, T0 + 3000, GR_NAME_COMM, 401, 401, "hog");
		m = tb_load(&b);
		r = m ? compute(m, NULL) : NULL;
		if (r && r->cpu.nthreads == 1) {
			t = &r->cpu.threads[0];
			CHECK_EQ_U64(t->lifetime_ns, 1900);
			CHECK_EQ_U64(t->runnable_wait_ns, 400);
			CHECK_EQ_U64(t->involuntary, 1);
			CHECK_EQ_U64(t->active_ns, 1000);
			CHECK_EQ_U64(t->active_wait_ns, 0);
			CHECK_EQ_U64(t->nculprits, 0);
			CHECK_EQ_U64(r->cpu.verdict.level, GR_VERDICT_OK);
		} else {
			CHECK(0);
		}
		gr_report_free(r);
		gr_model_free(m);
	}
}

/* ---- probe cost compensation (analyze/figures/probe_cost.h) ---- */

/*
 * A loop whose host times are known without probes: 10 iterations of 3 launches (entry only),
 * 5000 ns of host time each, then a sync of 2000 ns, then 0 ns to the next iteration; after it a
 * 100 ns copy. The probes cost entry 100 + 200 (before + after the timestamp), timed call
 * 150 + 300 + 50 (before, inside its duration, after its return). So the trace holds launch
 * gaps of 5000 + 200 + 100, launch-to-sync 5000 + 200 + 150, syncs of 2000 + 300, and
 * 0 + 50 + 100 from a sync's return to the next launch.
 */
static void probe_trace(struct tb *b, const char *name, int with_facts)
{
	const uint64_t facts[5] = {100, 200, 150, 300, 50};
	uint64_t t = T0 + 1000;

	tb_open(b, name);
	if (with_facts)
		for (unsigned k = 0; k < 5; k++)
			b->err |=
			    synth_session(b->w, T0, GR_SESS_PROBE_ENTRY_PRE + k, facts[k], "fp");
	for (int it = 0; it < 10; it++) {
		for (int i = 0; i < 3; i++) {
			tb_launch(b, t, 3, 3, 0x10 + i, 1, 32, 0, 0, 0);
			t += i < 2 ? 5300 : 5350;
		}
		tb_sync(b, t, 3, 3, GR_SYNC_STREAM, 2300);
		t += 2300 + 150;
	}
	tb_copy(b, t, 3, 3, GR_COPY_D2H, 4, 0xd000, 0x7000, 0, 100, 0);
}

static void test_probe_cost(void)
{
	const struct gr_report_opts off = {.no_compensate = 1};
	struct gr_report *r = NULL, *raw = NULL, *old = NULL;
	struct gr_model *m, *mo;
	struct tb b, bo;
	char line[256];

	probe_trace(&b, "probe.trc", 1);
	probe_trace(&bo, "probe_old.trc", 0);
	m = tb_load(&b);
	mo = tb_load(&bo);
	r = m ? compute(m, NULL) : NULL;
	raw = m ? compute(m, &off) : NULL;
	old = mo ? compute(mo, NULL) : NULL;
	if (r && raw && old) {
		const struct gr_report_gaps *g = &r->launches.gaps[0];

		CHECK(r->probe.known && r->probe.applied);
		CHECK_STR(r->probe.mode, "fp");
		CHECK_EQ_U64(gr_probe_cost_per_call(&r->probe, 0), 300);
		CHECK_EQ_U64(gr_probe_cost_per_call(&r->probe, 1), 500);
		/* launch to next launch 5300 - 300, launch to sync 5350 - (200 + 150) */
		CHECK_EQ_U64(r->launches.launch_cost_ns, 5000);
		CHECK_EQ_U64(raw->launches.launch_cost_ns, 5300);
		/* across iterations: 5350 + 2300 + 150 - (200 + 500 + 100) = 5000 + 2000 */
		CHECK_EQ_U64(g->gap.count, 29);
		CHECK_EQ_U64(g->gap.median, 5000);
		CHECK_EQ_U64(g->gap.max, 7000);
		CHECK_EQ_U64(raw->launches.gaps[0].gap.max, 7800);
		/* an iteration: 3 x 5000 + 2000, its probes 3 x 300 + 500 */
		CHECK(r->launches.iter.found && r->launches.iter.calls == 4);
		CHECK_EQ_U64(r->launches.iter.period_ns, 17000);
		CHECK_EQ_U64(raw->launches.iter.period_ns, 18400);
		CHECK_EQ_U64(r->transfer.sync_ns, 10 * 2000);
		CHECK_EQ_U64(raw->transfer.sync_ns, 10 * 2300);
		/* the 100 ns copy is shorter than the 300 ns inside a duration: 0, counted */
		CHECK_EQ_U64(r->transfer.copy_ns, 0);
		CHECK_EQ_U64(r->probe.clamped, 1);
		CHECK_EQ_U64(raw->transfer.copy_ns, 100);
		CHECK_EQ_U64(raw->probe.clamped, 0);
		CHECK(raw->probe.known && !raw->probe.applied);
		gr_probe_cost_describe(&r->probe, line, sizeof(line));
		CHECK(!strncmp(line, "compensated for 300 ns of probe cost per call", 45));
		/* a trace from an older recorder: nothing subtracted, and said */
		CHECK(!old->probe.known && !old->probe.applied);
		CHECK_EQ_U64(old->launches.launch_cost_ns, 5300);
		CHECK_EQ_U64(old->launches.iter.period_ns, 18400);
		gr_probe_cost_describe(&old->probe, line, sizeof(line));
		CHECK(strstr(line, "probe cost unknown (recorded by an older gpurec)") == line);
	} else {
		CHECK(0);
	}
	gr_report_free(r);
	gr_report_free(raw);
	gr_report_free(old);
	gr_model_free(m);
	gr_model_free(mo);
}

/* ---- measured launch calls ---- */

static void test_slow_launches(void)
{
	struct tb b;
	struct gr_model *m;
	struct gr_report *r = NULL;
	/* k2's first launch is slow: paid once, it does not make the verdict */
	const uint64_t k1[5] = {1000, 2000, 3000, 60000, 70000}, k2[2] = {51000, 4000};
	uint64_t t = T0 + 1000;

	tb_open(&b, "slow.trc");
	for (int i = 0; i < 5; i++, t += 100000)
		tb_launch(&b, t, 3, 3, 0x1, 1, 32, 0, i == 4 ? 2 : 1, k1[i]);
	for (int i = 0; i < 2; i++, t += 100000)
		tb_launch(&b, t, 3, 3, 0x2, 1, 32, 0, 0, k2[i]);
	b.err |= synth_name(b.w, t, GR_NAME_KERNEL, 3, 0x1, "k1");
	b.err |= synth_name(b.w, t, GR_NAME_KERNEL, 3, 0x2, "k2");
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		const struct gr_report_launches *L = &r->launches;
		const struct gr_report_kernel *k = kernel(r, "k1");

		CHECK(L->api_measured);
		CHECK_EQ_U64(L->launch_cost_ns, 4000); /* median of all 7 */
		CHECK_EQ_U64(L->launch_cost_samples, 7);
		CHECK(k && k->api.count == 5 && k->api.median == 3000 && k->api.p99 == 70000);
		CHECK(k && k->api.min == 1000 && k->api.max == 70000 && k->api.total == 136000);
		k = kernel(r, "k2");
		CHECK(k && k->api.count == 2 && k->api.median == 4000 && k->api.p99 == 51000);
		CHECK_EQ_U64(L->slow_threshold_ns, 50000);
		CHECK_EQ_U64(L->slow_count, 3);
		CHECK_EQ_U64(L->nslow, 3);
		if (L->nslow == 3) {
			CHECK_STR(L->slow[0].name, "k1");
			CHECK_EQ_U64(L->slow[0].max_ns, 70000);
			CHECK(L->slow[0].site.stack != L->slow[1].site.stack);
			CHECK_EQ_U64(L->slow[1].total_ns, 60000);
			CHECK_STR(L->slow[2].name, "k2");
			CHECK_EQ_U64(L->slow[2].count, 1);
		}
		CHECK_EQ_U64(L->verdict.level, GR_VERDICT_PROBLEM);
		/* 130 us of slow calls (k2's first launch aside) in the loop of k1 */
		CHECK(strstr(L->verdict.text,
			     "; 3 launch calls took longer than 50.0 us, 181.0 us in all: 2 in the "
			     "loop, 130.0 us (28% of it); 1 was a kernel's first launch "
			     "(paid once): look for") != NULL);
		CHECK(strstr(L->verdict.text, "; the most in k1 (up to 70.0 us)") != NULL);
	}
	gr_report_free(r);
	r = m ? compute(m, &(struct gr_report_opts){.slow_launch_ns = 65000, .sms = 10}) : NULL;
	if (r) {
		CHECK_EQ_U64(r->launches.slow_count, 1);
		CHECK_EQ_U64(r->sms, 10);
	}
	gr_report_free(r);
	gr_model_free(m);

	/* slow first launches only (module loading, once): noted, not a problem */
	tb_open(&b, "slow_first.trc");
	t = T0 + 1000;
	tb_launch(&b, t, 3, 3, 0x1, 1, 32, 0, 1, 900000);
	for (int i = 0; i < 4; i++)
		tb_launch(&b, t += 100000, 3, 3, 0x1, 1, 32, 0, 1, 2000);
	tb_launch(&b, t += 100000, 3, 3, 0x2, 1, 32, 0, 1, 80000);
	b.err |= synth_name(b.w, t, GR_NAME_KERNEL, 3, 0x1, "k1");
	b.err |= synth_name(b.w, t, GR_NAME_KERNEL, 3, 0x2, "k2");
	m = tb_load(&b);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		CHECK_EQ_U64(r->launches.slow_count, 2);
		CHECK_EQ_U64(r->launches.verdict.level, GR_VERDICT_OK);
		CHECK(strstr(r->launches.verdict.text,
			     "; 2 launch calls took longer than 50.0 us, 980.0 us in all: 0 in the "
			     "loop, 0 ns (0.0% of it); 2 were a kernel's first launch (paid "
			     "once); the most in k1 (up to 900.0 us)") != NULL);
	}
	gr_report_free(r);
	gr_model_free(m);
}

static const char *pace_text(const void *ctx, uint32_t idx)
{
	static const char *const t[] = {"", "step", "fwd", "io"};

	return idx < 4 ? t[idx] : "";
}

/*
 * The pace by NVTX range over three ranks: "step" 10/20/30, 20/22/24 and 50/60 ns with a third
 * still open on rank 2 (unclosed ranges do not count; medians 20, 22, 50: rank 2 is 50 / 22 of the
 * median rank); "fwd" inside each step, 5 ns on rank 0 and 15 on rank 1, on rank 2 only open:
 * 15 / 5 = 3x, first; "io" on rank 0 alone: no row.
 */
static void test_nvtx_pace(void)
{
	static const struct gr_thread th[] = {{.pid = 100, .tid = 101, .process = 0},
					      {.pid = 200, .tid = 201, .process = 1},
					      {.pid = 300, .tid = 301, .process = 2}};
	static const uint64_t step[3][3] = {{10, 20, 30}, {20, 22, 24}, {50, 60, 70}};
	static const uint64_t fwd[2] = {5, 15};
	struct gr_report_rank v[3] = {{.process = 0, .pid = 100, .rank = 0},
				      {.process = 1, .pid = 200, .rank = 1},
				      {.process = 2, .pid = 300, .rank = 2}};
	struct gr_nvtx e[64];
	struct gr_arena arena = {0};
	struct gr_report r = {0};
	struct rp_ctx x = {.r = &r, .th = th, .nth = 3, .arena = &arena};
	size_t k = 0;

	for (uint32_t t = 0; t < 3; t++) {
		for (int j = 0; j < 3; j++) {
			uint64_t a = 1000 * (t + 1) + 100 * (uint64_t)j;

			e[k++] =
			    (struct gr_nvtx){.op = GR_NVTX_PUSH, .ts = a, .thread = t, .text = 1};
			if (t == 2 && j == 2) {
				/* rank 2's last step, and a fwd in it, stay open */
				e[k++] = (struct gr_nvtx){
				    .op = GR_NVTX_PUSH, .ts = a + 1, .thread = t, .text = 2};
				break;
			}
			if (t < 2) {
				e[k++] = (struct gr_nvtx){
				    .op = GR_NVTX_PUSH, .ts = a + 1, .thread = t, .text = 2};
				e[k++] = (struct gr_nvtx){
				    .op = GR_NVTX_POP, .ts = a + 1 + fwd[t], .thread = t};
			}
			e[k++] =
			    (struct gr_nvtx){.op = GR_NVTX_POP, .ts = a + step[t][j], .thread = t};
		}
		if (!t) {
			e[k++] = (struct gr_nvtx){
			    .op = GR_NVTX_PUSH, .ts = 1900, .thread = 0, .text = 3};
			e[k++] = (struct gr_nvtx){.op = GR_NVTX_POP, .ts = 1950, .thread = 0};
		}
	}
	CHECK(gr_nvtx_build_events(e, k, th, 3, pace_text, NULL, 5000, &r.nvtx.set) == 0);
	r.ranks.v = v;
	r.ranks.n = 3;
	CHECK(rp_nvtx_pace(&x, 3) == 0);
	CHECK_EQ_U64(r.ranks.nranges, 2);
	if (r.ranks.nranges == 2) {
		const struct gr_report_rank_range *f = &r.ranks.ranges[0], *s = &r.ranks.ranges[1];

		CHECK_STR(f->name, "fwd");
		CHECK_EQ_U64(f->median_ns[0], 5);
		CHECK_EQ_U64(f->median_ns[1], 15);
		CHECK_EQ_U64(f->count[2], 0);
		CHECK_EQ_U64(f->slowest, 1);
		CHECK_EQ_U64(f->median_rank_ns, 5);
		CHECK_NEAR(f->ratio, 3.0);
		CHECK_STR(s->name, "step");
		CHECK_STR(s->domain, "");
		CHECK_EQ_U64(s->median_ns[0], 20);
		CHECK_EQ_U64(s->median_ns[1], 22);
		/* rank 2: 50 and 60 closed, the third open: the lower median of two */
		CHECK_EQ_U64(s->median_ns[2], 50);
		CHECK_EQ_U64(s->count[2], 2);
		CHECK_EQ_U64(s->slowest, 2);
		CHECK_EQ_U64(s->median_rank_ns, 22);
		CHECK_NEAR(s->ratio, 50.0 / 22);
	}
	gr_nvtx_free(&r.nvtx.set);
	gr_arena_free(&arena);
}

/* --sms: 200 blocks of 1024 threads are 0.76 waves on 132 SMs, 10 waves on 10 */
static void test_sms(void)
{
	struct rp_ctx x = {.sms = 132};
	struct gr_config c = {.grid = {200, 1, 1}, .block = {1024, 1, 1}};
	uint64_t blocks;

	CHECK_NEAR(rp_waves(&x, &c, &blocks), 200.0 / 264);
	CHECK_EQ_U64(blocks, 200);
	CHECK(rp_small(&x, &c));
	x.sms = 10;
	CHECK_NEAR(rp_waves(&x, &c, NULL), 10.0);
	CHECK(!rp_small(&x, &c));
	/* shared memory bounds residency: 100 KiB -> 2 blocks per SM */
	c = (struct gr_config){.grid = {20, 1, 1}, .block = {32, 1, 1}, .shmem = 100 * 1024};
	CHECK_NEAR(rp_waves(&x, &c, NULL), 20.0 / (10 * 2));
	CHECK(rp_small(&x, &c)); /* 20 blocks >= 10 SMs but 1 wave < 2 */
}

/* The model tests' standard trace (synth.h): counts match what it documents. */
static void test_standard_trace(void)
{
	char path[256];
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	struct gr_diag diag = {0};

	snprintf(path, sizeof(path), "%s/std.trc", dir);
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	r = m ? compute(m, NULL) : NULL;
	if (r) {
		const struct gr_report_kernel *k = kernel(r, "scale_bias(float*, float, int)");

		CHECK_EQ_U64(r->lost_events, 17);
		CHECK_EQ_U64(r->cuda_libraries, 1);
		CHECK_EQ_U64(r->launches.total, SYNTH_LAUNCHES);
		CHECK_EQ_U64(r->launches.nkernels, 5);
		CHECK(k && k->count == 601 && k->nconfigs == 1);
		CHECK_STR(r->launches.kernels[0].name, "scale_bias(float*, float, int)");
		CHECK_EQ_U64(r->launches.nprocesses, 2);
		CHECK_EQ_U64(r->launches.nthreads, 3);
		CHECK_EQ_U64(r->transfer.copies, 19);
		CHECK_EQ_U64(r->transfer.dirs[GR_COPY_H2D].count, 12);
		CHECK_EQ_U64(r->transfer.dirs[GR_COPY_H2D].bytes, 12 * (4u << 20));
		/* the default copy resolves to H2H: its addresses are in no allocation */
		CHECK_EQ_U64(r->transfer.dirs[GR_COPY_DEFAULT].count, 0);
		CHECK_EQ_U64(r->transfer.dirs[GR_COPY_H2H].count, 2);
		CHECK_EQ_U64(r->transfer.memsets, 2);
		CHECK_EQ_U64(r->transfer.syncs, 4);
		CHECK_EQ_U64(r->transfer.sync_ns, 3500);
		free(render(r, m));
	}
	gr_report_free(r);
	gr_model_free(m);
}

/* The model thread index of @tid. */
static uint32_t thread_of(const struct gr_model *m, uint32_t tid)
{
	size_t n;
	const struct gr_thread *t = gr_model_threads(m, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i].tid == tid)
			return (uint32_t)i;
	return UINT32_MAX;
}

/*
 * Device memory (memory.h) over hand-made rows: a free matches its allocation within its family (a
 * VMM physical handle equal to a pointer is another allocation; a mapping and a reservation hold
 * no bytes), an unmatched free changes nothing, a failed row is never live, pinned memory is
 * apart; growth needs most iterations to grow (a one-off does not), and the peak is placed in its
 * iteration.
 */
static void test_memory_figures(void)
{
	const uint64_t MiB = 1u << 20, starts[5] = {10000, 20000, 30000, 40000, 50000};
	struct gr_memory_loop loop = {.starts = starts, .n = 5, .end_ts = 60000};
	struct gr_memory mem;
	const struct gr_memory_proc *p;
	struct gr_model *m;
	struct tb b;

	tb_open(&b, "memory.trc");
	tb_alloc(&b, 1000, 100, 100, GR_ALLOC_DEVICE, 0x1000, 100);
	tb_alloc(&b, 2000, 100, 100, GR_ALLOC_VMM_PHYSICAL, 0x1000, 1000);
	tb_alloc(&b, 3000, 100, 100, GR_ALLOC_VMM_MAP, 0x9000, 1000);
	tb_alloc(&b, 3500, 100, 100, GR_ALLOC_VMM_RESERVE, 0x9000, 4096);
	tb_free(&b, 4000, 100, 100, GR_ALLOC_DEVICE, 0x1000);
	tb_free(&b, 5000, 100, 100, GR_ALLOC_DEVICE, 0x7777);
	tb_alloc(&b, 6000, 100, 100, GR_ALLOC_HOST_PINNED, 0x5000, 50);
	tb_alloc(&b, 7000, 100, 100, GR_ALLOC_ARRAY, 0x1000, 10);
	tb_free(&b, 8000, 100, 100, GR_ALLOC_VMM_MAP, 0x9000);
	tb_alloc(&b, 8500, 100, 100, GR_ALLOC_DEVICE, 0, 1ull << 40);
	tb_free(&b, 9000, 100, 100, GR_ALLOC_VMM_PHYSICAL, 0x1000);
	/* the loop: pid 100 keeps 1 MiB an iteration (and frees a temporary in each); pid 200
	 * allocates once, in iteration 2, and keeps it */
	for (int j = 0; j < 5; j++) {
		tb_alloc(&b, starts[j] + 1, 100, 100, GR_ALLOC_DEVICE, 0x100000 + j, MiB);
		tb_alloc(&b, starts[j] + 2, 100, 100, GR_ALLOC_DEVICE, 0x200000, 4 * MiB);
		tb_free(&b, starts[j] + 3, 100, 100, GR_ALLOC_DEVICE, 0x200000);
		tb_alloc(&b, starts[j] + 4, 200, 200, GR_ALLOC_DEVICE, 0x300000 + j, 8);
		tb_free(&b, starts[j] + 5, 200, 200, GR_ALLOC_DEVICE, 0x300000 + j);
	}
	tb_alloc(&b, starts[2] + 6, 200, 200, GR_ALLOC_DEVICE, 0x400000, 3 * MiB);
	m = tb_load(&b);
	if (!m)
		return;

	loop.thread = thread_of(m, 100);
	CHECK(gr_memory_compute(m, &loop, &mem) == 0);
	CHECK(mem.any && mem.judged && mem.nprocs == 2);
	p = gr_memory_proc(&mem, 100);
	CHECK(p != NULL);
	if (p) {
		/* 100 + 1000 at 2000; the loop's peak: 10 + 5 MiB kept + the 4 MiB temporary */
		CHECK_EQ_U64(p->peak_bytes, 10 + 5 * MiB + 4 * MiB);
		CHECK_EQ_U64(p->peak_ts, starts[4] + 2);
		CHECK(p->peak_iteration == 4);
		CHECK_EQ_U64(p->end_bytes, 10 + 5 * MiB); /* the array and the kept MiBs */
		CHECK_EQ_U64(p->end_count, 6);
		CHECK_EQ_U64(p->unmatched_frees, 1);
		CHECK_EQ_U64(p->allocs, 3 + 10);
		CHECK_EQ_U64(p->frees, 2 + 5);
		CHECK_EQ_U64(p->failed, 1);
		CHECK_EQ_U64(p->pinned_peak_bytes, 50);
		CHECK_EQ_U64(p->pinned_end_bytes, 50);
		/* the series: 100, 1100, 1000, 1010, 10, then the loop's */
		CHECK(p->nseries >= 5 && p->series[1].bytes == 1100 && p->series[3].bytes == 1010 &&
		      p->series[4].ts == 9000 && p->series[4].bytes == 10);
		/* the peak's live set, by stack (none recorded: one entry) */
		CHECK(p->npeak_stacks == 1 && p->peak_stacks[0].bytes == p->peak_bytes);
	}
	CHECK_EQ_U64(mem.failures_total, 1);
	CHECK(mem.nfailures == 1 && mem.failures[0].bytes == 1ull << 40 &&
	      mem.failures[0].live_bytes == 1010 && !mem.failures[0].free_known &&
	      mem.failures[0].iteration == -1);
	CHECK(mem.growth.found && mem.growth.pid == 100 && mem.growth.per_iteration == MiB &&
	      mem.growth.grew == 5);
	CHECK(mem.growth.sites_n == 1 && mem.growth.sites[0].bytes == 5 * MiB &&
	      mem.growth.sites[0].count == 5);
	CHECK(mem.churn.found && mem.churn.median_allocs == 2 && mem.churn.median_frees == 1 &&
	      mem.churn.median_bytes == 5 * MiB && mem.churn.allocs == 10);
	CHECK(mem.caching == GR_MEMORY_CACHING_NONE);
	gr_memory_free(&mem);

	/* pid 200's loop: one allocation that stays is no growth */
	loop.thread = thread_of(m, 200);
	CHECK(gr_memory_compute(m, &loop, &mem) == 0);
	CHECK(!mem.growth.found && mem.growth.grew == 1);
	p = gr_memory_proc(&mem, 200);
	/* its peak: the 3 MiB and the next iteration's 8-byte temporary */
	CHECK(p && p->end_bytes == 3 * MiB && p->peak_bytes == 3 * MiB + 8 &&
	      p->peak_ts == starts[3] + 4 && p->peak_iteration == 3);
	gr_memory_free(&mem);
	gr_model_free(m);
}

/*
 * Figures per (process, device): pid 300's thread 300 allocates on device 0, its thread 301 on
 * device 2, and each frees the other's block (a free counts on its allocation's device); an
 * unmatched free counts on the process's first device. Pid 400 allocates only on device 1 (its
 * unmatched free makes no device 0 entry); pid 500 only frees (one entry, device 0).
 */
static void test_memory_devices(void)
{
	struct gr_memory mem;
	struct gr_model *m;
	struct tb b;

	tb_open(&b, "memory_devices.trc");
	tb_alloc_on(&b, 1000, 300, 300, 0, 0x1000, 100);
	tb_alloc_on(&b, 2000, 300, 301, 2, 0x2000, 400);
	tb_alloc_on(&b, 2500, 300, 301, 2, 0x3000, 50);
	tb_free(&b, 3000, 300, 300, GR_ALLOC_DEVICE, 0x2000);
	tb_free(&b, 4000, 300, 301, GR_ALLOC_DEVICE, 0x1000);
	tb_free(&b, 4500, 300, 301, GR_ALLOC_DEVICE, 0xdead);
	tb_alloc_on(&b, 5000, 400, 400, 1, 0x1000, 7);
	tb_free(&b, 5500, 400, 400, GR_ALLOC_DEVICE, 0xbeef);
	tb_free(&b, 6000, 500, 500, GR_ALLOC_DEVICE, 0x1000);
	m = tb_load(&b);
	if (!m)
		return;
	CHECK(gr_memory_compute(m, NULL, &mem) == 0);
	CHECK(mem.nprocs == 4);
	if (mem.nprocs == 4) {
		const struct gr_memory_proc *p = mem.procs;

		CHECK(p[0].pid == 300 && p[0].device == 0 && p[0].peak_bytes == 100 &&
		      p[0].peak_ts == 1000 && p[0].allocs == 1 && p[0].frees == 1 &&
		      p[0].end_bytes == 0 && p[0].unmatched_frees == 1);
		CHECK(p[1].pid == 300 && p[1].device == 2 && p[1].peak_bytes == 450 &&
		      p[1].peak_ts == 2500 && p[1].allocs == 2 && p[1].frees == 1 &&
		      p[1].end_bytes == 50 && p[1].unmatched_frees == 0);
		CHECK(p[1].npeak_sites == 1 && p[1].peak_sites[0].bytes == 450);
		CHECK(p[2].pid == 400 && p[2].device == 1 && p[2].peak_bytes == 7 &&
		      p[2].unmatched_frees == 1);
		CHECK(p[3].pid == 500 && p[3].device == 0 && p[3].peak_bytes == 0 &&
		      p[3].unmatched_frees == 1);
	}
	gr_memory_free(&mem);
	gr_model_free(m);
}

/* Caching allocators: PyTorch's CUDA library mapped, or a loop over 2 MiB-multiple segments
 * that allocates nothing; a program's own 16 MiB buffer is neither. */
static void test_memory_caching(void)
{
	const uint64_t MiB = 1u << 20, starts[3] = {10000, 20000, 30000};
	struct gr_memory_loop loop = {.starts = starts, .n = 3, .end_ts = 40000};
	const char *lib = "/venv/lib/python3.12/site-packages/torch/lib/libc10_cuda.so";
	struct gr_memory mem;
	struct gr_model *m;
	struct tb b;

	for (int c = 0; c < 3; c++) {
		tb_open(&b, "caching.trc");
		if (c == 0)
			tb_mapping(&b, 10, 100, 0x7f0000000000, 0x7f0000100000, lib);
		tb_alloc(&b, 1000, 100, 100, GR_ALLOC_DEVICE, 0x1000, c == 2 ? 16 * MiB : 2 * MiB);
		tb_alloc(&b, 2000, 100, 100, GR_ALLOC_DEVICE, 0x9000000,
			 c == 2 ? 8 * MiB : 20 * MiB);
		for (int j = 0; j < 3; j++)
			tb_launch(&b, starts[j], 100, 100, 0x400000, 1, 32, 0, 0, 1000);
		m = tb_load(&b);
		if (!m)
			return;
		loop.thread = thread_of(m, 100);
		CHECK(gr_memory_compute(m, &loop, &mem) == 0);
		if (c == 0)
			CHECK(mem.caching == GR_MEMORY_CACHING_LIBRARY && mem.caching_library &&
			      !strcmp(mem.caching_library, lib));
		else
			CHECK(mem.caching ==
			      (c == 1 ? GR_MEMORY_CACHING_SEGMENTS : GR_MEMORY_CACHING_NONE));
		gr_memory_free(&mem);
		gr_model_free(m);
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_dist);
	RUN_TEST(test_dist_split);
	RUN_TEST(test_launches);
	RUN_TEST(test_sms_sources);
	RUN_TEST(test_iteration);
	RUN_TEST(test_straggler_decision);
	RUN_TEST(test_ranks);
	RUN_TEST(test_clock_shift);
	RUN_TEST(test_ranks_set);
	RUN_TEST(test_set_first_larger);
	RUN_TEST(test_iteration_sync_marker);
	RUN_TEST(test_iteration_warmup);
	RUN_TEST(test_iteration_allocs);
	RUN_TEST(test_iteration_phases);
	RUN_TEST(test_iteration_streams);
	RUN_TEST(test_no_loop_wording);
	RUN_TEST(test_fusion);
	RUN_TEST(test_fusion_streams);
	RUN_TEST(test_transfer);
	RUN_TEST(test_default_copies);
	RUN_TEST(test_per_thread_streams);
	RUN_TEST(test_transfer_waiting);
	RUN_TEST(test_transfer_healthy);
	RUN_TEST(test_cpu);
	RUN_TEST(test_cpu_switches_missing);
	RUN_TEST(test_cpu_shares);
	RUN_TEST(test_untimed_bound);
	RUN_TEST(test_one_launch_wording);
	RUN_TEST(test_slow_launches);
	RUN_TEST(test_probe_cost);
	RUN_TEST(test_sms);
	RUN_TEST(test_nvtx_pace);
	RUN_TEST(test_standard_trace);
	RUN_TEST(test_memory_figures);
	RUN_TEST(test_memory_caching);
	RUN_TEST(test_memory_devices);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
