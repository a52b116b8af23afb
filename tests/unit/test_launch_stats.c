/* SPDX-License-Identifier: MIT */
/*
 * analyze/launch_stats: exact counts per kernel name, pair, thread, process and stream on a
 * synthetic trace whose launches are all known, the numbering of pairs (order of first launch),
 * the documented orders, and the per-key counts against a plain recount on a shuffled trace.
 */
#include <stdlib.h>
#include <unistd.h>

#include "analyze/figures/launch_stats.h"
#include "analyze/model/model.h"
#include "synth.h"
#include "test.h"

#define T0 SYNTH_T0

static char dir[] = "/tmp/gr_test_launch_stats.XXXXXX";

static const uint32_t c_grid[3][3] = {{1, 1, 1}, {2, 1, 1}, {4, 1, 1}};
static const uint32_t c_block[3][3] = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}};

/* The trace being written, and the pair each launch must get. */
struct tb {
	struct gr_trace_writer *w;
	char path[256];
	uint64_t ts;
	uint32_t pair[64];
	size_t n;
	int err;
};

static void launch(struct tb *b, uint32_t pid, uint32_t tid, uint64_t func, int cfg,
		   uint64_t stream, uint64_t stack, uint64_t dur, uint32_t pair)
{
	b->err |= synth_launch(b->w, b->ts++, pid, tid, func, c_grid[cfg], c_block[cfg], 0, stream,
			       stack, dur);
	if (b->n < sizeof(b->pair) / sizeof(b->pair[0]))
		b->pair[b->n++] = pair;
}

static struct gr_model *load(struct tb *b)
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

/*
 * Functions: 0xA0 in pid 100 and 0xA0 in pid 200 are both "k_same(int)" (one name), 0xB0
 * "k_other(float)" and 0xD0 "a_tied(int)" in pid 100, 0xC0 in pid 200 unnamed ("func 0xc0").
 * Configs 0, 1, 2 are first used in that order. Pairs, in order of first launch:
 *   p0 (k_same, 0)  6 + 4 = 10 launches, dur 6 * 10 + 4 * 40 = 220
 *   p1 (k_other, 1) 6, dur 120
 *   p2 (k_same, 1)  6, dur 180
 *   p3 (func, 2)    2, dur 0, one with a stack
 *   p4 (k_same, 2)  1, dur 50
 *   p5 (k_other, 0) 6, dur 6 (ties p1: config 0 lists first)
 *   p6 (a_tied, 2)  2, dur 10 (ties func 0xc0: "a_tied(int)" lists first)
 * Threads: 101 14 launches, 102 12, 201 7; processes 100 26, 200 7; streams (100, 0x10) 12,
 * (100, 0x20) 14, (200, 0x10) 7.
 */
static struct gr_model *scenario(struct tb *b)
{
	snprintf(b->path, sizeof(b->path), "%s/known.trc", dir);
	b->ts = T0 + 100;
	b->err = synth_open(&b->w, b->path, 0) ? -1 : 0;
	if (b->err)
		return NULL;
	/* A changes config at every launch: the memo misses and the map answers */
	for (int r = 0; r < 6; r++) {
		launch(b, 100, 101, 0xA0, 0, 0x10, 0, 10, 0);
		launch(b, 100, 102, 0xB0, 1, 0x20, 0, 20, 1);
		launch(b, 100, 101, 0xA0, 1, 0x10, 0, 30, 2);
	}
	for (int r = 0; r < 4; r++)
		launch(b, 200, 201, 0xA0, 0, 0x10, 0, 40, 0);
	launch(b, 200, 201, 0xC0, 2, 0x10, 7, 0, 3);
	launch(b, 200, 201, 0xC0, 2, 0x10, 0, 0, 3);
	launch(b, 200, 201, 0xA0, 2, 0x10, 0, 50, 4);
	for (int r = 0; r < 6; r++)
		launch(b, 100, 102, 0xB0, 0, 0x20, 0, 1, 5);
	for (int r = 0; r < 2; r++)
		launch(b, 100, 101, 0xD0, 2, 0x20, 0, 5, 6);
	b->err |= synth_name(b->w, b->ts, GR_NAME_KERNEL, 100, 0xA0, "k_same(int)");
	b->err |= synth_name(b->w, b->ts, GR_NAME_KERNEL, 200, 0xA0, "k_same(int)");
	b->err |= synth_name(b->w, b->ts, GR_NAME_KERNEL, 100, 0xB0, "k_other(float)");
	b->err |= synth_name(b->w, b->ts, GR_NAME_KERNEL, 100, 0xD0, "a_tied(int)");
	return load(b);
}

static uint32_t name_id(const struct gr_model *m, const char *name)
{
	size_t n;
	const char *const *names = gr_model_kernel_names(m, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (uint32_t)i;
	printf("#   no kernel named %s\n", name);
	return UINT32_MAX;
}

static uint32_t config_of(const struct gr_model *m, int cfg)
{
	size_t n;
	const struct gr_config *c = gr_model_configs(m, &n);

	for (size_t i = 0; i < n; i++)
		if (!memcmp(c[i].grid, c_grid[cfg], sizeof(c_grid[cfg])) &&
		    !memcmp(c[i].block, c_block[cfg], sizeof(c_block[cfg])))
			return (uint32_t)i;
	return UINT32_MAX;
}

static uint64_t thread_count(const struct gr_model *m, const struct gr_launch_stats *s,
			     uint32_t pid, uint32_t tid)
{
	size_t n;
	const struct gr_thread *t = gr_model_threads(m, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i].pid == pid && t[i].tid == tid)
			return s->thread_launches[i];
	return UINT64_MAX;
}

static uint64_t process_count(const struct gr_model *m, const struct gr_launch_stats *s,
			      uint32_t pid)
{
	size_t n;
	const struct gr_process *p = gr_model_processes(m, &n);

	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return s->process_launches[i];
	return UINT64_MAX;
}

static uint64_t stream_count(const struct gr_model *m, const struct gr_launch_stats *s,
			     uint32_t pid, uint64_t handle)
{
	size_t n;
	const struct gr_stream *st = gr_model_streams(m, &n);

	for (size_t i = 0; i < n; i++)
		if (st[i].pid == pid && st[i].handle == handle)
			return s->stream_launches[i];
	return UINT64_MAX;
}

static void check_pair(const struct gr_launch_stats *s, uint32_t id, uint32_t name, uint32_t cfg,
		       uint64_t count, uint64_t dur)
{
	if (id >= s->npairs) {
		CHECK(id < s->npairs);
		return;
	}
	CHECK_EQ_U64(s->pairs[id].name_id, name);
	CHECK_EQ_U64(s->pairs[id].config, cfg);
	CHECK_EQ_U64(s->pairs[id].count, count);
	CHECK_EQ_U64(s->pairs[id].dur, dur);
}

static void check_kernel(const struct gr_launch_stats *s, uint32_t name, uint64_t count,
			 uint64_t dur, const uint32_t *pairs, uint32_t npairs)
{
	const struct gr_launch_kernel *k;

	if (name >= s->nkernels) {
		CHECK(name < s->nkernels);
		return;
	}
	k = &s->kernels[name];
	CHECK_EQ_U64(k->count, count);
	CHECK_EQ_U64(k->dur, dur);
	CHECK_EQ_U64(k->npairs, npairs);
	for (uint32_t i = 0; i < npairs && i < k->npairs; i++)
		CHECK_EQ_U64(gr_launch_stats_kernel_pairs(s, name)[i], pairs[i]);
}

static void test_known(void)
{
	struct tb b = {0};
	struct gr_model *m = scenario(&b);
	struct gr_launch_stats s;
	uint32_t same, other, func, tied, c0, c1, c2;
	size_t nk;

	if (!m)
		return;
	CHECK_EQ_U64(gr_launch_stats_compute(m, &s), 0);
	same = name_id(m, "k_same(int)");
	other = name_id(m, "k_other(float)");
	func = name_id(m, "func 0xc0");
	tied = name_id(m, "a_tied(int)");
	c0 = config_of(m, 0);
	c1 = config_of(m, 1);
	c2 = config_of(m, 2);

	CHECK_EQ_U64(s.nlaunches, 33);
	CHECK_EQ_U64(s.with_stack, 1);
	CHECK_EQ_U64(s.measured, 31);
	/* one name for 0xA0 in both processes */
	CHECK_EQ_U64(s.nkernels, 4);
	gr_model_kernels(m, &nk);
	CHECK_EQ_U64(nk, 5);
	check_kernel(&s, same, 17, 450, (const uint32_t[]){0, 2, 4}, 3);
	check_kernel(&s, other, 12, 126, (const uint32_t[]){5, 1}, 2);
	check_kernel(&s, func, 2, 0, (const uint32_t[]){3}, 1);
	check_kernel(&s, tied, 2, 10, (const uint32_t[]){6}, 1);
	/* by count, ties by name */
	CHECK_EQ_U64(s.kernel_order[0], same);
	CHECK_EQ_U64(s.kernel_order[1], other);
	CHECK_EQ_U64(s.kernel_order[2], tied);
	CHECK_EQ_U64(s.kernel_order[3], func);
	/* pairs numbered in order of first launch */
	CHECK_EQ_U64(s.npairs, 7);
	check_pair(&s, 0, same, c0, 10, 220);
	check_pair(&s, 1, other, c1, 6, 120);
	check_pair(&s, 2, same, c1, 6, 180);
	check_pair(&s, 3, func, c2, 2, 0);
	check_pair(&s, 4, same, c2, 1, 50);
	check_pair(&s, 5, other, c0, 6, 6);
	check_pair(&s, 6, tied, c2, 2, 10);
	/* pair_by_name: grouped by name_id ascending */
	for (uint32_t n = 0, at = 0; n < s.nkernels; n++) {
		CHECK_EQ_U64(s.kernels[n].first, at);
		for (uint32_t i = 0; i < s.kernels[n].npairs; i++)
			CHECK_EQ_U64(s.pairs[s.pair_by_name[at + i]].name_id, n);
		at += s.kernels[n].npairs;
	}
	/* every launch's key carries its pair */
	CHECK_EQ_U64(b.n, 33);
	{
		size_t nl;
		const struct gr_launch *l = gr_model_launches(m, &nl);

		CHECK_EQ_U64(nl, b.n);
		for (size_t i = 0; i < b.n && i < nl; i++)
			CHECK_EQ_U64(s.pair_of_key[l[i].key], b.pair[i]);
	}

	CHECK_EQ_U64(s.nthreads, 3);
	CHECK_EQ_U64(thread_count(m, &s, 100, 101), 14);
	CHECK_EQ_U64(thread_count(m, &s, 100, 102), 12);
	CHECK_EQ_U64(thread_count(m, &s, 200, 201), 7);
	CHECK_EQ_U64(s.nprocesses, 2);
	CHECK_EQ_U64(process_count(m, &s, 100), 26);
	CHECK_EQ_U64(process_count(m, &s, 200), 7);
	CHECK_EQ_U64(s.nstreams, 3);
	CHECK_EQ_U64(stream_count(m, &s, 100, 0x10), 12);
	CHECK_EQ_U64(stream_count(m, &s, 100, 0x20), 14);
	CHECK_EQ_U64(stream_count(m, &s, 200, 0x10), 7);

	gr_launch_stats_free(&s);
	CHECK(s.kernels == NULL && s.pairs == NULL && s.npairs == 0);
	gr_launch_stats_free(&s); /* twice, and NULL: accepted */
	gr_launch_stats_free(NULL);
	gr_model_free(m);
}

/* A trace without launches: every count 0, every array there. */
static void test_empty(void)
{
	struct tb b = {0};
	struct gr_model *m;
	struct gr_launch_stats s;

	snprintf(b.path, sizeof(b.path), "%s/empty.trc", dir);
	b.err = synth_open(&b.w, b.path, 0) ? -1 : 0;
	if (b.err) {
		CHECK(0);
		return;
	}
	m = load(&b);
	if (!m)
		return;
	CHECK_EQ_U64(gr_launch_stats_compute(m, &s), 0);
	CHECK_EQ_U64(s.nlaunches, 0);
	CHECK_EQ_U64(s.nkernels, 0);
	CHECK_EQ_U64(s.npairs, 0);
	CHECK(s.kernels && s.kernel_order && s.pairs && s.pair_by_name && s.pair_of_key);
	CHECK(s.thread_launches && s.process_launches && s.stream_launches);
	gr_launch_stats_free(&s);
	gr_model_free(m);
}

/*
 * Many kernels, configs, threads and streams in a pseudo-random order: the memo and the map
 * give what counting each launch by a linear search gives, pair ids included.
 */
static void test_shuffled(void)
{
	enum { N = 20000, MAXP = 64 };
	static const uint64_t funcs[] = {0xA0, 0xB0, 0xC0, 0xD0, 0xE0};
	struct tb b = {0};
	struct gr_model *m;
	struct gr_launch_stats s;
	struct gr_launch_pair want[MAXP];
	uint64_t *thr = NULL, *strm = NULL;
	uint32_t nwant = 0, seed = 12345, *of = NULL;
	size_t nl, nth, nst;
	const struct gr_launch *l;
	const struct gr_launch_key *lk;
	const struct gr_kernel *k;

	snprintf(b.path, sizeof(b.path), "%s/shuffled.trc", dir);
	b.ts = T0;
	b.err = synth_open(&b.w, b.path, 0) ? -1 : 0;
	for (int i = 0; !b.err && i < N; i++) {
		uint32_t r, pid, c;

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		pid = r % 7 < 5 ? 100 : 200;
		/* runs of one kernel and config, as real programs launch, and changes of both */
		c = r % 11 < 8 ? (uint32_t)(r >> 12) % 2 : 2;
		b.err |=
		    synth_launch(b.w, b.ts++, pid, pid + 1 + (r >> 4) % 3, funcs[(r >> 7) % 5],
				 c_grid[c], c_block[c], 0, 0x10 * ((r >> 9) % 3), 0, (r >> 3) % 4);
	}
	b.err |= synth_name(b.w, b.ts, GR_NAME_KERNEL, 100, 0xA0, "same(int)");
	b.err |= synth_name(b.w, b.ts, GR_NAME_KERNEL, 200, 0xB0, "same(int)");
	m = load(&b);
	if (!m)
		return;
	l = gr_model_launches(m, &nl);
	lk = gr_model_launch_keys(m, NULL);
	k = gr_model_kernels(m, NULL);
	gr_model_threads(m, &nth);
	gr_model_streams(m, &nst);
	thr = calloc(nth + 1, sizeof(*thr));
	strm = calloc(nst + 1, sizeof(*strm));
	of = calloc(nl + 1, sizeof(*of));
	CHECK_EQ_U64(nl, N);
	if (!thr || !strm || !of)
		goto out;
	for (size_t i = 0; i < nl; i++) {
		uint32_t p = 0;

		while (p < nwant && !(want[p].name_id == k[lk[l[i].key].kernel].name_id &&
				      want[p].config == lk[l[i].key].config))
			p++;
		if (p == nwant) {
			if (nwant == MAXP) {
				CHECK(nwant < MAXP);
				goto out;
			}
			want[nwant++] =
			    (struct gr_launch_pair){.name_id = k[lk[l[i].key].kernel].name_id,
						    .config = lk[l[i].key].config};
		}
		want[p].count++;
		want[p].executed++; /* no graphs: every launch executed */
		want[p].dur += gr_launch_dur(&lk[l[i].key], &l[i]);
		of[i] = p;
		thr[lk[l[i].key].thread]++;
		strm[lk[l[i].key].stream]++;
	}
	CHECK_EQ_U64(gr_launch_stats_compute(m, &s), 0);
	CHECK_EQ_U64(s.npairs, nwant);
	CHECK(s.npairs == nwant && !memcmp(s.pairs, want, nwant * sizeof(*want)));
	for (size_t i = 0; i < nl; i++)
		CHECK_EQ_U64(s.pair_of_key[l[i].key], of[i]);
	CHECK(!memcmp(s.thread_launches, thr, nth * sizeof(*thr)));
	CHECK(!memcmp(s.stream_launches, strm, nst * sizeof(*strm)));
	/* "same(int)" and each "func 0x..." of both processes: one name each */
	CHECK_EQ_U64(s.nkernels, 6);
	gr_launch_stats_free(&s);
out:
	free(thr);
	free(strm);
	free(of);
	gr_model_free(m);
}

/* The standard trace of synth.h: the figures test_info.c reads in info's output. */
static void test_standard(void)
{
	char path[300];
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct gr_launch_stats s;

	snprintf(path, sizeof(path), "%s/std.trc", dir);
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (!m)
		return;
	CHECK_EQ_U64(gr_launch_stats_compute(m, &s), 0);
	CHECK_EQ_U64(s.nlaunches, SYNTH_LAUNCHES);
	CHECK_EQ_U64(s.with_stack, 100);
	CHECK_EQ_U64(s.measured, SYNTH_LAUNCHES);
	CHECK_EQ_U64(s.nkernels, 5);
	CHECK_EQ_U64(s.npairs, 5);
	CHECK_EQ_U64(s.kernels[name_id(m, "scale_bias(float*, float, int)")].count, 601);
	CHECK_EQ_U64(
	    s.kernels[name_id(m, "gemm(float const*, float const*, float*, int, int, int)")].count,
	    401);
	CHECK_EQ_U64(s.kernels[name_id(m, "softmax(float*)")].count, 7);
	CHECK_EQ_U64(s.kernel_order[0], name_id(m, "scale_bias(float*, float, int)"));
	CHECK_EQ_U64(s.kernel_order[4], name_id(m, "vecAdd(float*, float*, float*, int)"));
	CHECK_EQ_U64(thread_count(m, &s, 100, 100), 0);
	CHECK_EQ_U64(thread_count(m, &s, 100, 101), 512);
	CHECK_EQ_U64(thread_count(m, &s, 100, 102), 505);
	CHECK_EQ_U64(thread_count(m, &s, 200, 200), 7);
	CHECK_EQ_U64(process_count(m, &s, 100), 1017);
	CHECK_EQ_U64(process_count(m, &s, 200), 7);
	CHECK_EQ_U64(stream_count(m, &s, 100, 0x1234), 1012);
	CHECK_EQ_U64(stream_count(m, &s, 100, 0), 5);
	CHECK_EQ_U64(stream_count(m, &s, 200, 0x9999), 7);
	gr_launch_stats_free(&s);
	gr_model_free(m);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_known);
	RUN_TEST(test_empty);
	RUN_TEST(test_shuffled);
	RUN_TEST(test_standard);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	TEST_EXIT();
}
