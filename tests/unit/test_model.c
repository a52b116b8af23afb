/* SPDX-License-Identifier: MIT */
/* analyze/model: loading synthetic traces with exactly known content. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/figures/frames.h"
#include "analyze/model/model.h"
#include "analyze/util/json.h"
#include "analyze/util/keymap.h"
#include "analyze/util/pool.h"
#include "analyze/util/strtab.h"
#include "format/layout.h"
#include "format/le.h"
#include "synth.h"
#include "test.h"

static char dir[] = "/tmp/gr_test_model.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static const struct gr_kernel *kernel_named(const struct gr_model *m, uint32_t pid,
					    const char *name)
{
	size_t n;
	const struct gr_kernel *k = gr_model_kernels(m, &n);

	for (size_t i = 0; i < n; i++)
		if (k[i].pid == pid && !strcmp(k[i].name, name))
			return &k[i];
	return NULL;
}

static const struct gr_thread *thread_of(const struct gr_model *m, uint32_t tid)
{
	size_t n;
	const struct gr_thread *t = gr_model_threads(m, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i].tid == tid)
			return &t[i];
	return NULL;
}

static void test_standard_trace(void)
{
	const char *path = tmp_path("std.trc");
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	size_t n, nk, nt, nc;

	/* small chunks: metadata and events spread over many chunks */
	CHECK(synth_write(path, 4096) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (!m) {
		printf("#   load: %s at %" PRIu64 "\n", diag.reason, diag.offset);
		return;
	}
	CHECK(gr_model_integrity(m)->complete);
	CHECK(gr_model_integrity(m)->chunks_ok > 1);
	CHECK_STR(gr_model_header(m)->host, "testhost");
	CHECK_STR(gr_model_header(m)->cmdline, "./train --steps 10");
	CHECK_EQ_U64(gr_model_header(m)->clock_monotonic_ns, SYNTH_T0);

	const struct gr_launch *l = gr_model_launches(m, &n);
	const struct gr_launch_key *lk = gr_model_launch_keys(m, NULL);
	const struct gr_kernel *k = gr_model_kernels(m, &nk);
	const struct gr_config *cfg = gr_model_configs(m, &nc);
	const struct gr_thread *t = gr_model_threads(m, &nt);
	const struct gr_stream *st = gr_model_streams(m, NULL);

	CHECK_EQ_U64(n, SYNTH_LAUNCHES);
	CHECK_EQ_U64(gr_model_record_count(m, GR_K_LAUNCH), SYNTH_LAUNCHES);
	for (size_t i = 1; i < n; i++)
		CHECK(l[i - 1].ts <= l[i].ts);
	/* the out-of-order launch i=50 (T0+49500) sits between i=48 and i=49 (indexes + 2: the
	 * two launches at T0+5001 come before them) */
	CHECK_EQ_U64(l[50].ts, SYNTH_T0 + 49000);
	CHECK_EQ_U64(l[51].ts, SYNTH_T0 + 49500);
	CHECK_EQ_U64(gr_launch_dur(&lk[l[51].key], &l[51]), 2050);
	CHECK_EQ_U64(l[52].ts, SYNTH_T0 + 50000);
	/* equal timestamps keep file order: scale_bias then gemm, right after i=4 */
	CHECK_EQ_U64(l[5].ts, SYNTH_T0 + 5001);
	CHECK_EQ_U64(l[6].ts, SYNTH_T0 + 5001);
	CHECK_STR(k[lk[l[5].key].kernel].name, "scale_bias(float*, float, int)");
	CHECK_STR(k[lk[l[6].key].kernel].name,
		  "gemm(float const*, float const*, float*, int, int, int)");

	CHECK_EQ_U64(nk, 5);
	const struct gr_kernel *sb = kernel_named(m, 100, "scale_bias(float*, float, int)");
	const struct gr_kernel *gemm =
	    kernel_named(m, 100, "gemm(float const*, float const*, float*, int, int, int)");
	const struct gr_kernel *unnamed = kernel_named(m, 100, "func 0xccc0");
	const struct gr_kernel *vadd = kernel_named(m, 100, "vecAdd(float*, float*, float*, int)");
	const struct gr_kernel *smax = kernel_named(m, 200, "softmax(float*)");

	CHECK(sb && gemm && unnamed && vadd && smax);
	if (!(sb && gemm && unnamed && vadd && smax))
		goto out;
	CHECK_EQ_U64(sb->func, 0xAAA0);
	CHECK_EQ_U64(smax->func, 0xAAA0);
	CHECK(sb->named && gemm->named && !unnamed->named && vadd->named);
	CHECK(sb->mangled == NULL);
	CHECK_STR(gemm->mangled, "_Z4gemmPKfS0_Pfiii");
	CHECK_STR(vadd->mangled, "_Z6vecAddPfS_S_i");
	CHECK(sb->name_id != smax->name_id);
	CHECK_EQ_U64(gr_model_kernel_names(m, NULL)[sb->name_id] == sb->name, 1);

	size_t nst;
	const struct gr_stack *st_tab = gr_model_stacks(m, &nst);
	uint64_t per_kernel[5] = {0}, big = 0, with_stack = 0, t101 = 0;

	/* entry 0 is "no stack"; the one stack of the trace is referenced by launches and copies */
	CHECK_EQ_U64(nst, 2);
	CHECK_EQ_U64(st_tab[0].id, 0);
	CHECK_EQ_U64(st_tab[0].nframes, 0);
	CHECK_EQ_U64(st_tab[1].id, 5);
	CHECK_EQ_U64(st_tab[1].nframes, 2);
	for (size_t i = 0; i < n; i++) {
		const struct gr_config *c = &cfg[lk[l[i].key].config];

		per_kernel[lk[l[i].key].kernel]++;
		if (c->grid[0] == 70000 && c->grid[1] == 3 && c->grid[2] == 2 &&
		    c->block[0] == 32 && c->block[1] == 4 && c->block[2] == 2 && c->shmem == 128) {
			big++;
			CHECK_EQ_U64(st[lk[l[i].key].stream].handle, 0x1234);
		}
		with_stack +=
		    st_tab[lk[l[i].key].stack].id == 5 && st_tab[lk[l[i].key].stack].pid == 100;
		CHECK(lk[l[i].key].stack < nst);
		CHECK((lk[l[i].key].stack != 0) == (st_tab[lk[l[i].key].stack].id != 0));
		t101 += t[lk[l[i].key].thread].tid == 101;
		CHECK_EQ_U64(lk[l[i].key].cpu, 3);
		CHECK_EQ_U64(lk[l[i].key].api, GR_API_cudaLaunchKernel);
	}
	CHECK_EQ_U64(per_kernel[sb - k], 601);
	CHECK_EQ_U64(per_kernel[gemm - k], 401);
	CHECK_EQ_U64(per_kernel[unnamed - k], 10);
	CHECK_EQ_U64(per_kernel[vadd - k], 5);
	CHECK_EQ_U64(per_kernel[smax - k], 7);
	CHECK_EQ_U64(big, 1002);
	CHECK_EQ_U64(with_stack, 100);
	CHECK_EQ_U64(t101, 512);
	CHECK_EQ_U64(nc, 4);

	/* threads and processes */
	CHECK_STR(thread_of(m, 101)->comm, "train"); /* the last COMM record wins */
	CHECK_STR(thread_of(m, 102)->comm, "loader");
	CHECK_STR(thread_of(m, 200)->comm, "worker");
	CHECK(thread_of(m, 100) != NULL); /* known from PROC records only */
	CHECK_EQ_U64(nt, 4);
	size_t np;
	const struct gr_process *p = gr_model_processes(m, &np);
	CHECK_EQ_U64(np, 2);
	CHECK_EQ_U64(p[0].pid, 100);
	CHECK_STR(p[0].comm, "train");
	CHECK_STR(p[0].exe, "/usr/bin/train");
	CHECK_EQ_U64(p[0].ppid, 1);
	CHECK(p[0].has_exit);
	CHECK_EQ_U64(p[0].exit_status, 256);
	CHECK_EQ_U64(p[1].pid, 200);
	CHECK_EQ_U64(p[1].ppid, 100);
	CHECK_STR(p[1].comm, "worker");
	CHECK_STR(p[1].exe, "/usr/bin/train"); /* forked, never exec'd: its parent's */
	CHECK_EQ_U64(p[thread_of(m, 200)->process].pid, 200);
	CHECK_EQ_U64(p[thread_of(m, 102)->process].pid, 100);

	/* copies and friends */
	const struct gr_copy *c = gr_model_copies(m, &n);
	uint64_t bytes[5] = {0}, cnt[5] = {0};
	CHECK_EQ_U64(n, 19);
	for (size_t i = 0; i < n; i++) {
		CHECK(c[i].kind <= GR_COPY_DEFAULT);
		if (c[i].kind <= GR_COPY_DEFAULT) {
			bytes[c[i].kind] += c[i].bytes;
			cnt[c[i].kind]++;
		}
		CHECK_EQ_U64(c[i].dur, 10000);
		CHECK_EQ_U64(c[i].dst, 0x7000000 + i);
	}
	CHECK_EQ_U64(cnt[GR_COPY_H2D], 12);
	CHECK_EQ_U64(bytes[GR_COPY_H2D], 50331648);
	CHECK_EQ_U64(bytes[GR_COPY_D2H], 3000);
	CHECK_EQ_U64(bytes[GR_COPY_D2D], 128);
	/* the default copy's addresses are in no recorded allocation: host to host */
	CHECK_EQ_U64(bytes[GR_COPY_H2H], 100 + 7);
	CHECK_EQ_U64(bytes[GR_COPY_DEFAULT], 0);
	gr_model_memsets(m, &n);
	CHECK_EQ_U64(n, 2);
	const struct gr_sync *sy = gr_model_syncs(m, &n);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(sy[3].kind, GR_SYNC_STREAM);
	CHECK_EQ_U64(sy[3].handle, 0x1234);
	const struct gr_alloc *a = gr_model_allocs(m, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(a[0].bytes, 1u << 20);
	CHECK_EQ_U64(a[1].kind, GR_ALLOC_HOST_PINNED);
	gr_model_frees(m, &n);
	CHECK_EQ_U64(n, 1);
	const struct gr_sched *sc = gr_model_scheds(m, &n);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(gr_model_sched_keys(m, NULL)[sc[0].key].prev_tid, 101);

	/* metadata */
	const struct gr_loss *lo = gr_model_losses(m, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(lo[0].count, 17);
	CHECK_EQ_U64(lo[0].ts_end, SYNTH_T0 + 400000);
	CHECK_EQ_U64(gr_model_lost_events(m), 17);
	const char *const *libs = gr_model_libraries(m, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_STR(libs[0], "/usr/local/cuda/lib64/libcudart.so.13");
	uint64_t v = 0;
	const char *text = NULL;
	CHECK(gr_model_session(m, GR_SESS_EXIT_STATUS, &v, NULL) == 1);
	CHECK_EQ_U64(v, 1);
	CHECK(gr_model_session(m, GR_SESS_CALL_GRAPH, NULL, &text) == 1);
	CHECK_STR(text, "fp");
	CHECK(gr_model_session(m, GR_SESS_ATTACHED, NULL, NULL) == 0);
	const struct gr_stack *s = gr_model_stack(m, 100, 5);
	CHECK(s && s->nframes == 2);
	if (s && s->nframes == 2) {
		CHECK_EQ_U64(s->frames[0], 0x401010);
		CHECK_EQ_U64(s->frames[1], 0x402020);
		CHECK_STR(gr_model_symbol(m, 100, s->frames[0])->name, "train_step()");
		CHECK_STR(gr_model_symbol(m, 100, s->frames[1])->name, "main");
	}
	CHECK(gr_model_stack(m, 100, 5) == &st_tab[1]);
	CHECK(gr_model_stack(m, 100, 6) == NULL);
	CHECK(gr_model_stack(m, 100, 0) == NULL);
	CHECK(gr_model_stack(m, 200, 5) == NULL);
	CHECK_STR(gr_model_symbol(m, 100, 0x4010ff)->name, "train_step()"); /* inside */
	CHECK(gr_model_symbol(m, 100, 0x401100) == NULL);
	const struct gr_mapping *mp = gr_model_mapping(m, 100, 0x401010);
	CHECK(mp != NULL);
	if (mp) {
		CHECK_STR(mp->path, "/usr/bin/train");
		CHECK_EQ_U64(mp->build_id_len, 4);
		CHECK_EQ_U64(mp->build_id[3], 0x78);
	}
	CHECK_STR(gr_model_comm(m, 102), "loader");
	CHECK(gr_model_comm(m, 999) == NULL);
	uint64_t first, last;
	gr_model_time_span(m, &first, &last);
	CHECK_EQ_U64(first, SYNTH_T0);
	CHECK_EQ_U64(last, SYNTH_T0 + 2000000);
out:
	gr_model_free(m);
}

/* The same content through the memory loader, and the record cap. */
static void test_load_mem(void)
{
	const char *path = tmp_path("mem.trc");
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct stat sb;
	char *buf = NULL;
	int fd;

	CHECK(synth_write(path, 0) == 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &sb) == 0);
	buf = malloc(sb.st_size);
	CHECK(buf && read(fd, buf, sb.st_size) == sb.st_size);
	close(fd);
	CHECK(gr_model_load_mem(&m, buf, sb.st_size, 0, &diag) == 0);
	CHECK(m && gr_model_record_count(m, GR_K_LAUNCH) == SYNTH_LAUNCHES);
	gr_model_free(m);
	m = NULL;
	CHECK(gr_model_load_mem(&m, buf, sb.st_size, 100, &diag) == GR_ERR_LIMIT);
	CHECK(m == NULL);
	CHECK(strstr(diag.reason, "more than 100 records") != NULL);
	free(buf);

	/* the limit is every record the chunks hold, checked against the index before any chunk
	 * is read: exactly the total loads, one less fails at offset 0 and says the total */
	{
		uint64_t total = 0, over = 0;
		struct gr_model_load_opts o = {.jobs = 1, .over_records = &over};

		CHECK(gr_model_load_opts(&m, path, &o, &diag) == 0);
		for (unsigned k = 1; m && k < GR_K_COUNT; k++)
			total += gr_model_record_count(m, k);
		gr_model_free(m);
		m = NULL;
		o.max_records = total;
		CHECK(gr_model_load_opts(&m, path, &o, &diag) == 0 && over == 0);
		gr_model_free(m);
		m = NULL;
		o.max_records = total - 1;
		memset(&diag, 0, sizeof(diag));
		CHECK(gr_model_load_opts(&m, path, &o, &diag) == GR_ERR_LIMIT && m == NULL);
		CHECK(over == total && diag.offset == 0);
	}
}

/* A file that is not a trace, and a missing file: errors with a reason, no model. */
static void test_not_a_trace(void)
{
	const char *path = tmp_path("junk.trc");
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs("this is not a gpurec trace, just some text\n", f);
		fclose(f);
	}
	CHECK(gr_model_load(&m, path, &diag) < 0);
	CHECK(m == NULL);
	CHECK(diag.err < 0);
	memset(&diag, 0, sizeof(diag));
	CHECK(gr_model_load(&m, tmp_path("missing.trc"), &diag) == -ENOENT);
	CHECK(m == NULL);
}

/* A truncated file loads what its complete chunks hold and says it is incomplete. */
static void test_truncated(void)
{
	const char *path = tmp_path("trunc.trc");
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct stat sb;

	CHECK(synth_write(path, 4096) == 0);
	CHECK(stat(path, &sb) == 0);
	CHECK(truncate(path, sb.st_size * 2 / 3) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	CHECK(m != NULL);
	if (!m)
		return;
	CHECK(!gr_model_integrity(m)->complete);
	CHECK(gr_model_integrity(m)->chunks_ok > 0);
	CHECK(gr_model_record_count(m, GR_K_LAUNCH) > 0);
	CHECK(gr_model_record_count(m, GR_K_LAUNCH) <= SYNTH_LAUNCHES);
	/* the names came after the cut: kernels fall back to their addresses */
	CHECK(strncmp(gr_model_kernels(m, NULL)[0].name, "func 0x", 7) == 0);
	gr_model_free(m);
}

/*
 * Columns are found by name: a launch kind with its columns in another order and an extra
 * column loads with the right values; a launch kind without grid_x fails with GR_ERR_SCHEMA.
 */
static const struct gr_column_def odd_launch_cols[] = {
    {"ts", GR_CODEC_DELTA, 0},	   {"extra", GR_CODEC_VARINT, 0}, {"func", GR_CODEC_DICT, 0},
    {"pid", GR_CODEC_DICT, 0},	   {"tid", GR_CODEC_DICT, 0},	  {"dur", GR_CODEC_VARINT, 0},
    {"cpu", GR_CODEC_DICT, 0},	   {"api", GR_CODEC_DICT, 0},	  {"grid_z", GR_CODEC_DICT, 0},
    {"grid_y", GR_CODEC_DICT, 0},  {"grid_x", GR_CODEC_DICT, 0},  {"block_x", GR_CODEC_DICT, 0},
    {"block_y", GR_CODEC_DICT, 0}, {"block_z", GR_CODEC_DICT, 0}, {"shmem", GR_CODEC_DICT, 0},
    {"stream", GR_CODEC_DICT, 0},  {"stack", GR_CODEC_DICT, 0},
};
static const struct gr_kind_def odd_kinds[] = {
    {GR_K_LAUNCH, "launch", sizeof(odd_launch_cols) / sizeof(odd_launch_cols[0]), odd_launch_cols},
};
static const struct gr_schema odd_schema = {1, odd_kinds};

static const struct gr_kind_def short_kinds[] = {
    {GR_K_LAUNCH, "launch", 10, odd_launch_cols}, /* up to grid_y: no grid_x */
};
static const struct gr_schema short_schema = {1, short_kinds};

static int write_with_schema(const char *path, const struct gr_schema *schema)
{
	struct gr_trace_writer *w = NULL;
	uint64_t v[17];
	int fd, err;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	err = gr_trace_writer_open(&w, fd, &synth_header, schema, NULL);
	if (err)
		return err;
	for (uint64_t i = 0; i < 3; i++) {
		/* ts extra func pid tid dur cpu api gz gy gx bx by bz shmem stream stack */
		uint64_t vals[17] = {SYNTH_T0 + i, 99, 0xF00, 7,  8,  5,  1,	1, 30,
				     20,	   10, 40,    50, 60, 70, 0x77, 0};

		memcpy(v, vals, sizeof(v));
		err = gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL);
		if (err)
			break;
	}
	return gr_trace_writer_close(w) ? -1 : err;
}

static void test_columns_by_name(void)
{
	const char *path = tmp_path("odd.trc");
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	size_t n;

	CHECK(write_with_schema(path, &odd_schema) == 0);
	CHECK(gr_model_load(&m, path, &diag) == 0);
	if (m) {
		const struct gr_launch *l = gr_model_launches(m, &n);
		const struct gr_launch_key *lk = gr_model_launch_keys(m, NULL);
		const struct gr_config *c = gr_model_configs(m, NULL);
		const struct gr_thread *t = gr_model_threads(m, NULL);
		const struct gr_kernel *k = gr_model_kernels(m, NULL);

		CHECK_EQ_U64(n, 3);
		CHECK_EQ_U64(c[lk[l[0].key].config].grid[0], 10);
		CHECK_EQ_U64(c[lk[l[0].key].config].grid[1], 20);
		CHECK_EQ_U64(c[lk[l[0].key].config].grid[2], 30);
		CHECK_EQ_U64(c[lk[l[0].key].config].block[2], 60);
		CHECK_EQ_U64(c[lk[l[0].key].config].shmem, 70);
		CHECK_EQ_U64(t[lk[l[0].key].thread].pid, 7);
		CHECK_EQ_U64(t[lk[l[0].key].thread].tid, 8);
		CHECK_EQ_U64(k[lk[l[0].key].kernel].func, 0xF00);
		CHECK_STR(k[lk[l[0].key].kernel].name, "func 0xf00");
		CHECK_EQ_U64(gr_launch_dur(&lk[l[2].key], &l[2]), 5);
		/* kinds absent from the file's schema just have no records */
		CHECK_EQ_U64(gr_model_record_count(m, GR_K_COPY), 0);
		CHECK(gr_model_copies(m, &n) == NULL || n == 0);
		CHECK_EQ_U64(n, 0);
		gr_model_free(m);
	}
	m = NULL;
	CHECK(write_with_schema(path, &short_schema) == 0);
	CHECK(gr_model_load(&m, path, &diag) == GR_ERR_SCHEMA);
	CHECK(m == NULL);
	CHECK(strstr(diag.reason, "grid_x") != NULL);
}

/* An empty trace (header only) loads with empty tables. */
static void test_empty(void)
{
	const char *path = tmp_path("empty.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	size_t n = 99;

	CHECK(synth_open(&w, path, 0) == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	CHECK(gr_model_integrity(m)->complete);
	gr_model_launches(m, &n);
	CHECK_EQ_U64(n, 0);
	gr_model_kernels(m, &n);
	CHECK_EQ_U64(n, 0);
	gr_model_processes(m, &n);
	CHECK_EQ_U64(n, 0);
	CHECK_EQ_U64(gr_model_lost_events(m), 0);
	gr_model_free(m);
}

/*
 * UNPROBED names (libraries with a CUDA runtime of their own): each path once, in the order
 * first found, a repeat in a later chunk included, and apart from the probed LIBRARY names.
 */
static void test_unprobed_libraries(void)
{
	const char *path = tmp_path("unprobed.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	const char *const *l;
	size_t n = 99;

	CHECK(synth_open(&w, path, 0) == 0);
	CHECK(synth_name(w, SYNTH_T0, GR_NAME_LIBRARY, 0, 1, "/cuda/libcudart.so.13") == 0);
	CHECK(synth_name(w, SYNTH_T0, GR_NAME_UNPROBED, 0, 0, "/cuda/libcublasLt.so.13") == 0);
	CHECK(gr_trace_writer_flush(w) == 0);
	CHECK(synth_name(w, SYNTH_T0 + 1, GR_NAME_UNPROBED, 0, 0, "/cuda/libcublas.so.13") == 0);
	CHECK(synth_name(w, SYNTH_T0 + 1, GR_NAME_UNPROBED, 0, 0, "/cuda/libcublasLt.so.13") == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	l = gr_model_unprobed_libraries(m, &n);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		CHECK_STR(l[0], "/cuda/libcublasLt.so.13");
		CHECK_STR(l[1], "/cuda/libcublas.so.13");
	}
	l = gr_model_libraries(m, &n);
	CHECK_EQ_U64(n, 1);
	if (n == 1)
		CHECK_STR(l[0], "/cuda/libcudart.so.13");
	gr_model_free(m);
	/* a trace without the class (every older one): none */
	CHECK(synth_write(tmp_path("std.trc"), 0) == 0);
	CHECK(gr_model_load(&m, tmp_path("std.trc"), NULL) == 0);
	if (m) {
		gr_model_unprobed_libraries(m, &n);
		CHECK_EQ_U64(n, 0);
		gr_model_free(m);
	}
}

static int put_mapping(struct gr_trace_writer *w, uint64_t pid, uint64_t start, uint64_t end,
		       const char *path)
{
	uint64_t v[GR_MAP_NCOLS] = {SYNTH_T0, pid, start, end, 0, 0, 0};
	struct gr_bytes b[2] = {{(const uint8_t *)path, (uint32_t)strlen(path)}, {NULL, 0}};

	return gr_trace_writer_append(w, GR_K_MAPPING, v, b);
}

static int put_symbol(struct gr_trace_writer *w, uint64_t pid, uint64_t addr, uint64_t start,
		      uint64_t size, const char *name)
{
	uint64_t v[GR_SYM_NCOLS] = {SYNTH_T0, pid, addr, start, size, 0};
	struct gr_bytes b[2] = {{(const uint8_t *)name, (uint32_t)strlen(name)}, {NULL, 0}};

	return gr_trace_writer_append(w, GR_K_SYMBOL, v, b);
}

/* Address lookups: mappings by (pid, range), symbols exact or by their function's range. */
static void test_lookups(void)
{
	const char *path = tmp_path("lookups.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	const struct gr_mapping *mp;
	const struct gr_symbol *sy;
	int err = 0;

	CHECK(synth_open(&w, path, 0) == 0);
	err |= put_mapping(w, 2, 0x1000, 0x2000, "/b/one");
	err |= put_mapping(w, 1, 0x1000, 0x2000, "/a/one");
	err |= put_mapping(w, 1, 0x3000, 0x5000, "/a/two");
	err |= put_mapping(w, 1, 0x3000, 0x5000, "/a/two"); /* repeated */
	err |= put_mapping(w, 3, 0x100000, 0x900000, "/c/big");
	err |= put_mapping(w, 3, 0x200000, 0x201000, "/c/small"); /* inside the big one */
	err |= put_symbol(w, 1, 0x1010, 0x1000, 0x100, "f");
	err |= put_symbol(w, 1, 0x1020, 0x1000, 0x100, "f");
	err |= put_symbol(w, 1, 0x1210, 0x1200, 0x10, "g");
	err |= put_symbol(w, 2, 0x1015, 0x1000, 0x100, "other");
	CHECK(err == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	CHECK_EQ_U64(gr_model_record_count(m, GR_K_MAPPING), 6);
	gr_model_mappings(m, NULL);
	mp = gr_model_mapping(m, 1, 0x1fff);
	CHECK(mp && !strcmp(mp->path, "/a/one"));
	mp = gr_model_mapping(m, 1, 0x3000);
	CHECK(mp && !strcmp(mp->path, "/a/two"));
	mp = gr_model_mapping(m, 2, 0x1000);
	CHECK(mp && !strcmp(mp->path, "/b/one"));
	CHECK(gr_model_mapping(m, 1, 0x2000) == NULL);
	CHECK(gr_model_mapping(m, 1, 0x0fff) == NULL);
	CHECK(gr_model_mapping(m, 1, 0x5000) == NULL);
	CHECK(gr_model_mapping(m, 4, 0x1000) == NULL);
	mp = gr_model_mapping(m, 3, 0x200800);
	CHECK(mp && !strcmp(mp->path, "/c/small"));
	mp = gr_model_mapping(m, 3, 0x300000);
	CHECK(mp && !strcmp(mp->path, "/c/big"));

	sy = gr_model_symbol(m, 1, 0x1020);
	CHECK(sy && sy->addr == 0x1020 && !strcmp(sy->name, "f"));
	sy = gr_model_symbol(m, 1, 0x1000); /* below every recorded address of f */
	CHECK(sy && !strcmp(sy->name, "f"));
	sy = gr_model_symbol(m, 1, 0x1018); /* between two */
	CHECK(sy && !strcmp(sy->name, "f"));
	sy = gr_model_symbol(m, 1, 0x10ff); /* after both */
	CHECK(sy && !strcmp(sy->name, "f"));
	sy = gr_model_symbol(m, 1, 0x120f);
	CHECK(sy && !strcmp(sy->name, "g"));
	CHECK(gr_model_symbol(m, 1, 0x1100) == NULL);
	CHECK(gr_model_symbol(m, 1, 0x1220) == NULL);
	sy = gr_model_symbol(m, 2, 0x1000);
	CHECK(sy && !strcmp(sy->name, "other"));
	CHECK(gr_model_symbol(m, 3, 0x1010) == NULL);
	gr_model_free(m);
}

/*
 * A SYMBOL's source line (its optional file and line columns) reaches the model and the frame
 * as reports name it: "chain.cu:57 train_step", the file's last component; JSON keeps the path.
 * A SYMBOL without one keeps "function (module)"; traces without the columns (the goldens, the
 * old traces) read the same way.
 */
static void test_symbol_lines(void)
{
	const char *path = tmp_path("symlines.trc");
	static const char *fn = "train_step", *src = "/build/src/chain.cu";
	uint64_t v[GR_SYM_NCOLS] = {SYNTH_T0, 1, 0x1010, 0x1000, 0x100, 0, 0, 57};
	struct gr_bytes b[2] = {{(const uint8_t *)fn, 10}, {(const uint8_t *)src, 19}};
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	const struct gr_symbol *sy;
	struct gr_frame f;
	char buf[GR_FRAME_TEXT];
	int err = 0;

	CHECK(synth_open(&w, path, 0) == 0);
	err |= put_mapping(w, 1, 0x1000, 0x2000, "/a/chain");
	err |= gr_trace_writer_append(w, GR_K_SYMBOL, v, b);
	err |= put_symbol(w, 1, 0x1210, 0x1200, 0x10, "g");
	CHECK(err == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	sy = gr_model_symbol(m, 1, 0x1010);
	CHECK(sy && !strcmp(sy->file, src) && sy->line == 57);
	gr_frame_describe(m, 1, 0x1010, &f);
	CHECK_STR(gr_frame_format(&f, buf, sizeof(buf)), "chain.cu:57 train_step");
	CHECK(f.file && !strcmp(f.file, src) && f.line == 57);
	sy = gr_model_symbol(m, 1, 0x1210);
	CHECK(sy && !strcmp(sy->file, "") && sy->line == 0);
	gr_frame_describe(m, 1, 0x1210, &f);
	CHECK_STR(gr_frame_format(&f, buf, sizeof(buf)), "g (chain)");
	CHECK(f.file == NULL && f.line == 0);
	gr_model_free(m);
}

/* A forked child's exe is its parent's as of the fork, until it execs its own. 10 execs /bin/a,
 * forks 11 and 12; 11 execs /bin/b; 10 execs /bin/c, then forks 13. 14's parent is untraced. */
static void test_fork_exe(void)
{
	const char *path = tmp_path("forks.trc");
	struct gr_trace_writer *w = NULL;
	struct gr_model *m = NULL;
	const struct gr_process *p;
	size_t np = 0;
	int err = 0;

	CHECK(synth_open(&w, path, 0) == 0);
	err |= synth_proc(w, SYNTH_T0 + 1, GR_PROC_START, 10, 10, 1, "");
	err |= synth_proc(w, SYNTH_T0 + 2, GR_PROC_EXEC, 10, 10, 0, "/bin/a");
	err |= synth_proc(w, SYNTH_T0 + 3, GR_PROC_START, 11, 11, 10, "");
	err |= synth_proc(w, SYNTH_T0 + 4, GR_PROC_START, 12, 12, 10, "");
	err |= synth_proc(w, SYNTH_T0 + 5, GR_PROC_EXEC, 11, 11, 0, "/bin/b");
	err |= synth_proc(w, SYNTH_T0 + 6, GR_PROC_EXEC, 10, 10, 0, "/bin/c");
	err |= synth_proc(w, SYNTH_T0 + 7, GR_PROC_START, 13, 13, 10, "");
	err |= synth_proc(w, SYNTH_T0 + 8, GR_PROC_START, 14, 14, 99, "");
	CHECK(err == 0);
	CHECK(gr_trace_writer_close(w) == 0);
	CHECK(gr_model_load(&m, path, NULL) == 0);
	if (!m)
		return;
	p = gr_model_processes(m, &np);
	CHECK_EQ_U64(np, 5);
	if (np == 5) {
		CHECK_STR(p[0].exe, "/bin/c");
		CHECK_STR(p[1].exe, "/bin/b");
		CHECK_STR(p[2].exe, "/bin/a");
		CHECK_STR(p[3].exe, "/bin/c");
		CHECK_STR(p[4].exe, "");
	}
	gr_model_free(m);
}

static void test_keymap(void)
{
	struct gr_keymap km;
	uint32_t idx = 99;

	gr_keymap_init(&km, 2);
	CHECK(gr_keymap_find(&km, (uint64_t[]){1, 2}) == -ENOENT);
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t k[2] = {i % 7, i};

		CHECK(gr_keymap_intern(&km, k, &idx) == 1);
		CHECK_EQ_U64(idx, i);
	}
	for (uint64_t i = 0; i < 10000; i += 97) {
		uint64_t k[2] = {i % 7, i};

		CHECK(gr_keymap_intern(&km, k, &idx) == 0);
		CHECK_EQ_U64(idx, i);
		CHECK_EQ_U64(gr_keymap_find(&km, k), i);
		CHECK_EQ_U64(gr_keymap_key(&km, idx)[1], i);
	}
	CHECK(gr_keymap_find(&km, (uint64_t[]){1, 2}) == -ENOENT);
	gr_keymap_free(&km);
}

static void test_strtab(void)
{
	struct gr_arena a = {0};
	struct gr_strtab t;
	char big[100000];
	const char *s1, *s2, *s3, *s4;

	gr_strtab_init(&t, &a);
	s1 = gr_strtab_intern_str(&t, "hello");
	s2 = gr_strtab_intern(&t, "hello world", 5);
	s3 = gr_strtab_intern_str(&t, "world");
	CHECK(s1 && s1 == s2 && s1 != s3);
	CHECK_STR(s2, "hello");
	memset(big, 'x', sizeof(big));
	s4 = gr_strtab_intern(&t, big, sizeof(big)); /* larger than an arena block */
	CHECK(s4 && strlen(s4) == sizeof(big));
	for (int i = 0; i < 5000; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "name%d", i);
		CHECK(gr_strtab_intern_str(&t, buf) != NULL);
	}
	CHECK(gr_strtab_intern_str(&t, "hello") == s1);
	CHECK_STR(s3, "world");
	gr_strtab_free(&t);
	gr_arena_free(&a);
}

static char *json_of(void (*emit)(struct gr_json *j), int indent, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct gr_json j;

	gr_json_begin(&j, f, indent);
	emit(&j);
	*err = gr_json_end(&j);
	fclose(f);
	return buf;
}

static void emit_sample(struct gr_json *j)
{
	gr_json_object(j);
	gr_json_kv_str(j, "s", "a\"b\\c\n\x01\xff\xc3\xa9");
	gr_json_kv_u64(j, "u", UINT64_MAX);
	gr_json_kv_i64(j, "i", INT64_MIN);
	gr_json_kv_double(j, "d", 0.1);
	gr_json_kv_double(j, "inf", 1.0 / 0.0);
	gr_json_kv_bool(j, "b", 1);
	gr_json_key(j, "flat");
	gr_json_array_flat(j);
	gr_json_u64(j, 1);
	gr_json_object(j);
	gr_json_kv_u64(j, "x", 2);
	gr_json_object_end(j);
	gr_json_array_end(j);
	gr_json_key(j, "empty");
	gr_json_array(j);
	gr_json_array_end(j);
	gr_json_object_end(j);
}

static void emit_bad(struct gr_json *j)
{
	gr_json_object(j);
	gr_json_u64(j, 1); /* a value where a key is due */
	gr_json_object_end(j);
}

static void test_json(void)
{
	int err = 1;
	char *s = json_of(emit_sample, 0, &err);

	CHECK_EQ_U64(err, 0);
	CHECK_STR(s,
		  "{\"s\": \"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\", \"u\": 18446744073709551615, "
		  "\"i\": -9223372036854775808, \"d\": 0.1, \"inf\": null, \"b\": true, "
		  "\"flat\": [1, {\"x\": 2}], \"empty\": []}\n");
	free(s);
	s = json_of(emit_sample, 2, &err);
	CHECK_EQ_U64(err, 0);
	CHECK(strstr(s, "{\n  \"s\": ") == s);
	CHECK(strstr(s, ",\n  \"flat\": [1, {\"x\": 2}],\n  \"empty\": []\n}\n") != NULL);
	free(s);
	s = json_of(emit_bad, 2, &err);
	CHECK_EQ_U64(err, GR_ERR_STATE);
	free(s);
}

/* ---- parallel loads: the same model whatever the jobs ---- */

static uint64_t mix_state;

static uint64_t mix(void)
{
	mix_state ^= mix_state << 13;
	mix_state ^= mix_state >> 7;
	mix_state ^= mix_state << 17;
	return mix_state;
}

static int put(struct gr_trace_writer *w, uint16_t kind, const uint64_t *v, const char *text,
	       size_t len)
{
	struct gr_bytes b[2] = {{(const uint8_t *)text, (uint32_t)len},
				{(const uint8_t *)text, (uint32_t)(len > 4 ? 4 : len)}};

	return gr_trace_writer_append(w, kind, v, text ? b : NULL);
}

/* One metadata record of a random sort, its values drawn from small sets so that later records
 * override earlier ones (names, comms, mappings, symbols, session facts) or repeat them (stacks,
 * whose first frames win; libraries, two of which differ only after a NUL byte). */
static int put_meta(struct gr_trace_writer *w, uint64_t ts)
{
	static const char *const names[] = {"_Z4gemmPKfS0_Pfiii", "scale(float*)", "softmax",
					    "_Z6vecAddPfS_S_i"};
	static const char libs[][8] = {"libA\0x", "libA\0y", "libB"};
	static const size_t lib_len[] = {6, 6, 4};
	uint64_t r = mix(), pid = 100 + 100 * (r >> 8 & 1), v[8] = {ts};
	char text[64], frames[40];

	switch (r % 9) {
	case 0: /* kernel names, mangled or not, in both classes */
	case 1:
		v[1] = r % 9 ? GR_NAME_KERNEL_RAW : GR_NAME_KERNEL;
		v[2] = pid;
		v[3] = 0x1000 + 0x10 * (r >> 12 & 31);
		snprintf(text, sizeof(text), "%s", names[r >> 20 & 3]);
		return put(w, GR_K_NAME, v, text, strlen(text));
	case 2:
		v[1] = GR_NAME_COMM;
		v[2] = r >> 9 & 1 ? pid : 0;
		v[3] = pid + (r >> 12 & 7);
		snprintf(text, sizeof(text), "comm-%u", (unsigned)(r >> 16 & 3));
		return put(w, GR_K_NAME, v, text, strlen(text));
	case 3:
		v[1] = GR_NAME_LIBRARY;
		v[2] = pid;
		return put(w, GR_K_NAME, v, libs[r >> 12 & 1 ? 2 - (r >> 13 & 1) : 0],
			   lib_len[r >> 12 & 1 ? 2 - (r >> 13 & 1) : 0]);
	case 4:
		v[1] = pid;
		v[2] = 0x400000 + 0x100000 * (r >> 12 & 3);
		v[3] = v[2] + 0x80000;
		v[4] = r >> 20 & 0xff;
		snprintf(text, sizeof(text), "/lib/m%u.so", (unsigned)(r >> 28 & 3));
		return put(w, GR_K_MAPPING, v, text, strlen(text));
	case 5:
		v[1] = pid;
		v[2] = 0x401000 + 0x10 * (r >> 12 & 15);
		v[3] = v[2] - (r >> 16 & 7);
		v[4] = 0x40;
		snprintf(text, sizeof(text), "%s", names[r >> 24 & 3]);
		return put(w, GR_K_SYMBOL, v, text, strlen(text));
	case 6: /* stacks: pid 0 ones stand for any process */
	case 7:
		v[1] = 1 + (r >> 12 & 15);
		v[2] = r >> 17 & 1 ? pid : 0;
		for (int i = 0; i < 40; i++)
			frames[i] = (char)(r >> (i % 8) * 3);
		return put(w, GR_K_STACK, v, frames, 8 * (r >> 20 & 3) + (r >> 22 & 1) * 40 / 5);
	default:
		v[1] = r >> 12 & 3;
		v[2] = r >> 16 & 0xff;
		snprintf(text, sizeof(text), "s%u", (unsigned)(r >> 24 & 7));
		return put(w, GR_K_SESSION, v, text, strlen(text));
	}
}

/*
 * Events of every kind from two processes, ten threads, 32 funcs, a few configs, streams and
 * stack ids, @step ns apart with some out of order, in chunks of @chunk_bytes; a metadata record
 * every @meta_every events (0: only at the start and at the end) and process events.
 */
static int write_mixed(const char *path, uint32_t chunk_bytes, uint64_t n, uint64_t step,
		       unsigned meta_every)
{
	struct gr_trace_writer *w = NULL;
	int err = 0;

	mix_state = 0x9e3779b97f4a7c15ull;
	if (synth_open(&w, path, chunk_bytes))
		return -1;
	for (int i = 0; i < 20 && !meta_every; i++)
		err |= put_meta(w, SYNTH_T0);
	err |= synth_proc(w, SYNTH_T0 + 1, GR_PROC_START, 100, 100, 1, "");
	err |= synth_proc(w, SYNTH_T0 + 2, GR_PROC_EXEC, 100, 100, 0, "/usr/bin/mixed");
	for (uint64_t i = 0; i < n && !err; i++) {
		uint64_t r = mix(), ts = SYNTH_T0 + 1000 + i * step - (r % 13 == 0 ? step * 3 : 0);
		uint64_t pid = 100 + 100 * (r >> 8 & 1), tid = pid + (r >> 9 & 7);
		uint64_t stack = r >> 12 & 1 ? 0 : 1 + (r >> 13 & 15), dur = r >> 40 & 0xffff;
		uint64_t stream = r >> 17 & 1 ? 0 : 0x7000 + (r >> 18 & 3), v[16] = {ts, dur};
		unsigned sort = r >> 30 & 15;

		/* process events are metadata for a window: none between the ends either */
		if (sort == 9 && !meta_every)
			sort = 10;
		switch (sort) {
		case 0:
			v[2] = pid;
			v[3] = tid;
			v[4] = r >> 20 & 3;
			v[5] = 1 + (r >> 22 & 3);
			v[6] = r >> 24 & 0xfff;
			v[7] = r >> 36 & 0xffff;
			v[8] = r >> 52 & 1;
			v[9] = GR_COPY_H2D + (r >> 53 & 3);
			v[10] = stream;
			v[11] = r >> 55 & 1;
			v[12] = stack;
			err |= put(w, GR_K_COPY, v, NULL, 0);
			break;
		case 1:
			v[2] = pid;
			v[3] = tid;
			v[4] = r >> 20 & 3;
			v[5] = 1;
			v[6] = r >> 24 & 0xfff;
			v[7] = r >> 36 & 0xff;
			v[8] = 4096;
			v[9] = stream;
			v[10] = r >> 55 & 1;
			v[11] = stack;
			err |= put(w, GR_K_MEMSET, v, NULL, 0);
			break;
		case 2:
			v[2] = pid;
			v[3] = tid;
			v[4] = 1;
			v[5] = r >> 20 & 3;
			v[6] = 0x10000 * (r >> 22 & 15);
			v[7] = 1 << (r >> 26 & 15);
			v[8] = stream;
			err |= put(w, GR_K_ALLOC, v, NULL, 0);
			break;
		case 3:
			v[2] = pid;
			v[3] = tid;
			v[4] = 1;
			v[5] = r >> 20 & 3;
			v[6] = 0x10000 * (r >> 22 & 15);
			err |= put(w, GR_K_FREE, v, NULL, 0);
			break;
		case 4:
			v[2] = pid;
			v[3] = tid;
			v[4] = r >> 20 & 3;
			v[5] = 1;
			v[6] = r >> 22 & 3;
			v[7] = stream;
			v[8] = r >> 24 & 1;
			v[9] = stack;
			err |= put(w, GR_K_SYNC, v, NULL, 0);
			break;
		case 5:
			v[2] = pid;
			v[3] = tid;
			v[4] = 1;
			v[5] = r >> 20 & 3;
			v[6] = stream;
			v[7] = 0x9000 + (r >> 22 & 3);
			v[8] = 0xa000 + (r >> 24 & 3);
			v[9] = stack;
			err |= put(w, GR_K_GRAPH, v, NULL, 0);
			break;
		case 6:
		case 7:
			v[1] = r >> 20 & 3;
			v[2] = r >> 22 & 1;
			v[3] = r >> 23 & 1 ? pid : 4000;
			v[4] = r >> 23 & 1 ? tid : 4001;
			v[5] = r >> 24 & 3;
			v[6] = r >> 23 & 1 ? 4000 : pid;
			v[7] = r >> 23 & 1 ? 4001 : tid;
			v[8] = r >> 26 & 3;
			err |= put(w, GR_K_SCHED, v, NULL, 0);
			break;
		case 8:
			v[1] = ts + (r >> 20 & 0xffff);
			v[2] = r >> 36 & 3;
			v[3] = 1 + (r >> 38 & 63);
			err |= put(w, GR_K_LOSS, v, NULL, 0);
			break;
		case 9:
			err |=
			    synth_proc(w, ts, GR_PROC_THREAD, pid, tid + 8 * (r >> 20 & 1), 0, "");
			break;
		default: {
			static const uint32_t grids[3][3] = {{1, 1, 1}, {4096, 2, 1}, {80, 1, 1}};
			uint64_t func = 0x1000 + 0x10 * (r >> 20 & 31);

			err |= synth_launch(w, ts, pid, tid, func, grids[r >> 25 & 1 ? 2 : 1],
					    grids[r >> 26 & 1], (r >> 27 & 1) * 1024, stream, stack,
					    dur);
			break;
		}
		}
		if (meta_every && i % meta_every == 0)
			err |= put_meta(w, ts);
	}
	err |= synth_proc(w, SYNTH_T0 + 1000 + n * step, GR_PROC_EXIT, 100, 100, 0, "");
	for (int i = 0; i < 20 && !meta_every; i++)
		err |= put_meta(w, SYNTH_T0 + 1000 + n * step);
	if (gr_trace_writer_close(w))
		err = -1;
	return err ? -1 : 0;
}

/* A window as gr_model_load_opts has it, for checking which events a windowed load keeps. */
struct win {
	int on;
	uint64_t from, to, lo;
};

static int win_call(const struct win *x, uint64_t ts, uint64_t dur)
{
	return !x || !x->on || (ts >= x->lo && ts <= x->to && ts + dur >= x->from);
}

static void put_str(FILE *f, const char *s)
{
	if (s)
		fprintf(f, "\"%s\"", s);
	else
		fputs("NULL", f);
}

static void put_stack(FILE *f, const struct gr_model *m, uint32_t idx)
{
	size_t n;
	const struct gr_stack *s = gr_model_stacks(m, &n);

	if (idx >= n) {
		fprintf(f, " stack ?%u", idx);
		return;
	}
	fprintf(f, " stack %" PRIu64 "/%u:", s[idx].id, s[idx].pid);
	for (uint32_t i = 0; i < s[idx].nframes; i++)
		fprintf(f, "%" PRIx64 ",", s[idx].frames[i]);
}

/*
 * The events of @m as text: with @x, by value (the tables they index written out) and only those
 * a window keeps, so that a windowed load compares with a whole one; else with the raw indexes.
 */
static void dump_events(FILE *f, const struct gr_model *m, const struct win *x)
{
	size_t n, nk, nt, ns, nc;
	const struct gr_kernel *k = gr_model_kernels(m, &nk);
	const struct gr_thread *t = gr_model_threads(m, &nt);
	const struct gr_stream *st = gr_model_streams(m, &ns);
	const struct gr_config *cf = gr_model_configs(m, &nc);
	const struct gr_launch *l = gr_model_launches(m, &n);
	const struct gr_launch_key *lk = gr_model_launch_keys(m, NULL);

#define THREAD(i)                                                                                  \
	do {                                                                                       \
		if (x && (i) < nt)                                                                 \
			fprintf(f, " thread %u/%u", t[i].pid, t[i].tid);                           \
		else                                                                               \
			fprintf(f, " thread %u", i);                                               \
	} while (0)
#define STREAM(i)                                                                                  \
	do {                                                                                       \
		if (x && (i) < ns)                                                                 \
			fprintf(f, " stream %u/%" PRIx64, st[i].pid, st[i].handle);                \
		else                                                                               \
			fprintf(f, " stream %u", i);                                               \
	} while (0)
#define STACK(i)                                                                                   \
	do {                                                                                       \
		if (x)                                                                             \
			put_stack(f, m, i);                                                        \
		else                                                                               \
			fprintf(f, " stack %u", i);                                                \
	} while (0)

	for (size_t i = 0; i < n; i++) {
		if (!win_call(x, l[i].ts, gr_launch_dur(&lk[l[i].key], &l[i])))
			continue;
		fprintf(f, "L %" PRIu64 " %" PRIu64 " %u %u", l[i].ts,
			gr_launch_dur(&lk[l[i].key], &l[i]), lk[l[i].key].cpu, lk[l[i].key].api);
		if (x && lk[l[i].key].kernel < nk && lk[l[i].key].config < nc) {
			const struct gr_config *c = &cf[lk[l[i].key].config];

			fprintf(f, " k %u/%" PRIx64 " ", k[lk[l[i].key].kernel].pid,
				k[lk[l[i].key].kernel].func);
			put_str(f, k[lk[l[i].key].kernel].name);
			fprintf(f, " c %u,%u,%u %u,%u,%u %u", c->grid[0], c->grid[1], c->grid[2],
				c->block[0], c->block[1], c->block[2], c->shmem);
		} else {
			fprintf(f, " k %u c %u", lk[l[i].key].kernel, lk[l[i].key].config);
		}
		THREAD(lk[l[i].key].thread);
		STREAM(lk[l[i].key].stream);
		STACK(lk[l[i].key].stack);
		fputc('\n', f);
	}
	{
		const struct gr_copy *e = gr_model_copies(m, &n);

		/* the kind as read: a windowed load lacks the allocations that resolve
		 * "default" copies (test_default_copies in test_report.c checks those) */
		for (size_t i = 0; i < n; i++) {
			if (!win_call(x, e[i].ts, e[i].dur))
				continue;
			fprintf(f,
				"C %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIx64 " %" PRIu64
				" %u %u %u %u",
				e[i].ts, e[i].dur, e[i].dst, e[i].src, e[i].bytes, e[i].cpu,
				e[i].api, e[i].flags, e[i].kind_recorded);
			THREAD(e[i].thread);
			STREAM(e[i].stream);
			STACK(e[i].stack);
			fputc('\n', f);
		}
	}
	{
		const struct gr_memset *e = gr_model_memsets(m, &n);

		for (size_t i = 0; i < n; i++) {
			if (!win_call(x, e[i].ts, e[i].dur))
				continue;
			fprintf(f, "M %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIu64 " %u %u %u %u",
				e[i].ts, e[i].dur, e[i].dst, e[i].bytes, e[i].value, e[i].cpu,
				e[i].api, e[i].flags);
			THREAD(e[i].thread);
			STREAM(e[i].stream);
			STACK(e[i].stack);
			fputc('\n', f);
		}
	}
	{
		const struct gr_alloc *e = gr_model_allocs(m, &n);

		for (size_t i = 0; i < n; i++) {
			if (!win_call(x, e[i].ts, e[i].dur))
				continue;
			fprintf(f, "A %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIu64 " %u %u",
				e[i].ts, e[i].dur, e[i].addr, e[i].bytes, e[i].api, e[i].kind);
			THREAD(e[i].thread);
			STREAM(e[i].stream);
			fputc('\n', f);
		}
	}
	{
		const struct gr_free *e = gr_model_frees(m, &n);

		for (size_t i = 0; i < n; i++) {
			if (!win_call(x, e[i].ts, e[i].dur))
				continue;
			fprintf(f, "F %" PRIu64 " %" PRIu64 " %" PRIx64 " %u %u", e[i].ts, e[i].dur,
				e[i].addr, e[i].api, e[i].kind);
			THREAD(e[i].thread);
			fputc('\n', f);
		}
	}
	{
		const struct gr_sync *e = gr_model_syncs(m, &n);

		for (size_t i = 0; i < n; i++) {
			if (!win_call(x, e[i].ts, e[i].dur))
				continue;
			fprintf(f, "S %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIx64 " %u %u %u",
				e[i].ts, e[i].dur, e[i].handle, e[i].handle2, e[i].cpu, e[i].api,
				e[i].kind);
			THREAD(e[i].thread);
			STACK(e[i].stack);
			fputc('\n', f);
		}
	}
	{
		const struct gr_graph *e = gr_model_graphs(m, &n);

		for (size_t i = 0; i < n; i++) {
			if (!win_call(x, e[i].ts, e[i].dur))
				continue;
			fprintf(f, "G %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIx64 " %u %u",
				e[i].ts, e[i].dur, e[i].graph, e[i].exec, e[i].api, e[i].kind);
			THREAD(e[i].thread);
			STREAM(e[i].stream);
			STACK(e[i].stack);
			fputc('\n', f);
		}
	}
	{
		const struct gr_sched *e = gr_model_scheds(m, &n);
		const struct gr_sched_key *sk = gr_model_sched_keys(m, NULL);

		for (size_t i = 0; i < n; i++) {
			const struct gr_sched_key *sk_e = &sk[e[i].key];

			if (x && x->on && (e[i].ts < x->lo || e[i].ts > x->to))
				continue;
			fprintf(f, "W %" PRIu64 " %" PRIx64 " %u %u %u %u %u %u %u\n", e[i].ts,
				sk_e->prev_state, sk_e->cpu, sk_e->target_cpu, sk_e->prev_pid,
				sk_e->prev_tid, sk_e->next_pid, sk_e->next_tid, sk_e->type);
		}
	}
	{
		const struct gr_proc_event *e = gr_model_proc_events(m, &n);

		for (size_t i = 0; i < n; i++) {
			fprintf(f, "P %" PRIu64 " %" PRIu64 " %u %u %u ", e[i].ts, e[i].value,
				e[i].pid, e[i].tid, e[i].type);
			put_str(f, e[i].text);
			fputc('\n', f);
		}
	}
	{
		const struct gr_loss *e = gr_model_losses(m, &n);

		for (size_t i = 0; i < n; i++) {
			uint64_t end = e[i].ts_end > e[i].ts ? e[i].ts_end : e[i].ts;

			if (!win_call(x, e[i].ts, end - e[i].ts))
				continue;
			fprintf(f, "X %" PRIu64 " %" PRIu64 " %" PRIu64 " %u\n", e[i].ts,
				e[i].ts_end, e[i].count, e[i].source);
		}
	}
#undef THREAD
#undef STREAM
#undef STACK
}

/* Everything the model's accessors and lookups say, as text (pointers as the strings). */
static void dump_model(FILE *f, const struct gr_model *m)
{
	const struct gr_trace_header *h = gr_model_header(m);
	const struct gr_integrity *in = gr_model_integrity(m);
	size_t n;
	uint64_t a, b;

	fprintf(f, "header %u.%u %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 " ", h->major,
		h->minor, h->required_features, h->optional_features, h->clock_monotonic_ns,
		h->clock_realtime_ns);
	for (int i = 0; i < 16; i++)
		fprintf(f, "%02x", h->session_id[i]);
	put_str(f, h->host);
	put_str(f, h->kernel);
	put_str(f, h->tool_version);
	put_str(f, h->cmdline);
	put_str(f, h->env);
	fprintf(f,
		"\nintegrity %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %" PRIu64
		" %s\n",
		in->complete, in->footer_present, in->file_bytes, in->chunks_ok, in->chunks_bad,
		in->bytes_unread, in->first_problem.err, in->first_problem.offset,
		in->first_problem.reason);
	a = 0;
	fprintf(f, "abrupt %d", gr_model_ended_abruptly(m, &a));
	fprintf(f, " %" PRIu64 "\ncounts", a);
	for (unsigned k = 0; k <= GR_K_COUNT; k++)
		fprintf(f, " %" PRIu64, gr_model_record_count(m, k));
	gr_model_time_span(m, &a, &b);
	fprintf(f, "\nlost %" PRIu64 " span %" PRIu64 " %" PRIu64 "\n", gr_model_lost_events(m), a,
		b);
	dump_events(f, m, NULL);
	{
		const struct gr_kernel *k = gr_model_kernels(m, &n);
		const char *const *kn;
		size_t nn;

		kn = gr_model_kernel_names(m, &nn);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "kernel %" PRIx64 " %u %u %d ", k[i].func, k[i].pid,
				k[i].name_id, k[i].named);
			put_str(f, k[i].name);
			put_str(f, k[i].mangled);
			fprintf(f, " same-name %d\n",
				k[i].name_id < nn && kn[k[i].name_id] == k[i].name);
		}
		for (size_t i = 0; i < nn; i++) {
			fputs("kname ", f);
			put_str(f, kn[i]);
			fputc('\n', f);
		}
	}
	{
		const struct gr_config *c = gr_model_configs(m, &n);

		for (size_t i = 0; i < n; i++)
			fprintf(f, "config %u %u %u %u %u %u %u\n", c[i].grid[0], c[i].grid[1],
				c[i].grid[2], c[i].block[0], c[i].block[1], c[i].block[2],
				c[i].shmem);
	}
	{
		const struct gr_thread *t = gr_model_threads(m, &n);

		for (size_t i = 0; i < n; i++) {
			fprintf(f, "thread %u %u %u ", t[i].pid, t[i].tid, t[i].process);
			put_str(f, t[i].comm);
			fputs(" comm ", f);
			put_str(f, gr_model_comm(m, t[i].tid));
			fputc('\n', f);
		}
	}
	{
		const struct gr_stream *s = gr_model_streams(m, &n);

		for (size_t i = 0; i < n; i++)
			fprintf(f, "stream %" PRIx64 " %u\n", s[i].handle, s[i].pid);
	}
	{
		const struct gr_process *p = gr_model_processes(m, &n);

		for (size_t i = 0; i < n; i++) {
			fprintf(f,
				"process %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
				" %d %d ",
				p[i].pid, p[i].ppid, p[i].start_ts, p[i].exec_ts, p[i].exit_ts,
				p[i].exit_status, p[i].has_exit, p[i].attached);
			put_str(f, p[i].comm);
			put_str(f, p[i].exe);
			fputc('\n', f);
		}
	}
	{
		const char *const *l = gr_model_libraries(m, &n);

		for (size_t i = 0; i < n; i++) {
			fputs("library ", f);
			put_str(f, l[i]);
			fputc('\n', f);
		}
	}
	{
		const struct gr_mapping *mp = gr_model_mappings(m, &n);

		for (size_t i = 0; i < n; i++) {
			const struct gr_mapping *at = gr_model_mapping(
			    m, mp[i].pid, mp[i].start + (mp[i].end - mp[i].start) / 2);

			fprintf(f, "mapping %" PRIx64 " %" PRIx64 " %" PRIx64 " %u ", mp[i].start,
				mp[i].end, mp[i].pgoff, mp[i].pid);
			put_str(f, mp[i].path);
			for (uint32_t j = 0; j < mp[i].build_id_len; j++)
				fprintf(f, "%02x", mp[i].build_id[j]);
			fprintf(f, " at %zd\n", at ? at - mp : -1);
		}
	}
	{
		const struct gr_symbol *sy = gr_model_symbols(m, &n);

		for (size_t i = 0; i < n; i++) {
			const struct gr_symbol *at = gr_model_symbol(m, sy[i].pid, sy[i].start + 1);

			fprintf(f, "symbol %" PRIx64 " %" PRIx64 " %" PRIx64 " %u ", sy[i].addr,
				sy[i].start, sy[i].size, sy[i].pid);
			put_str(f, sy[i].name);
			fprintf(f, " at %zd\n", at ? at - sy : -1);
		}
	}
	{
		const struct gr_stack *st = gr_model_stacks(m, &n);

		for (size_t i = 0; i < n; i++) {
			const struct gr_stack *any = gr_model_stack(m, 0, st[i].id);
			const struct gr_stack *mine = gr_model_stack(m, st[i].pid, st[i].id);

			fprintf(f, "stack %" PRIu64 " %u %u:", st[i].id, st[i].pid, st[i].nframes);
			for (uint32_t j = 0; j < st[i].nframes; j++)
				fprintf(f, " %" PRIx64, st[i].frames[j]);
			fprintf(f, " any %zd mine %zd\n", any ? any - st : -1,
				mine ? mine - st : -1);
		}
	}
	for (unsigned key = 0; key < 8; key++) {
		uint64_t value = 0;
		const char *text = NULL;
		int has = gr_model_session(m, key, &value, &text);

		fprintf(f, "session %u %d %" PRIu64 " ", key, has, value);
		put_str(f, text);
		fputc('\n', f);
	}
}

/* The dump of @path loaded with @jobs and @o's window, or of its error; malloc'ed. */
static char *dump_load(const char *path, unsigned jobs, const struct gr_model_load_opts *o,
		       int events_only, const struct win *x)
{
	struct gr_model_load_opts opts = o ? *o : (struct gr_model_load_opts){0};
	struct gr_model *m = NULL;
	struct gr_diag d = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	opts.jobs = jobs;
	err = gr_model_load_opts(&m, path, &opts, &d);
	fprintf(f, "load %d %d %" PRIu64 " %s\n", err, d.err, d.offset, d.reason);
	if (m && events_only)
		dump_events(f, m, x);
	else if (m)
		dump_model(f, m);
	gr_model_free(m);
	fclose(f);
	return buf;
}

/* The integrity line of dump_model() for a plain reader pass over @path ("" when it fails). */
static void reader_integrity(const char *path, char *line, size_t len)
{
	struct gr_trace_reader *r = NULL;
	const struct gr_integrity *in;
	const struct gr_chunk *c;

	line[0] = 0;
	if (gr_trace_reader_open(&r, path, NULL))
		return;
	while (gr_trace_reader_next_chunk(r, &c) == 1)
		;
	in = gr_trace_reader_integrity(r);
	snprintf(line, len,
		 "\nintegrity %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %" PRIu64
		 " %s\n",
		 in->complete, in->footer_present, in->file_bytes, in->chunks_ok, in->chunks_bad,
		 in->bytes_unread, in->first_problem.err, in->first_problem.offset,
		 in->first_problem.reason);
	gr_trace_reader_close(r);
}

/*
 * @path loads the same with 2, 3 and 8 jobs as with one, and its integrity is that of a plain
 * reader pass (the model reads chunks by rows). Returns the jobs=1 dump.
 */
static char *check_same(const char *path, const struct gr_model_load_opts *o)
{
	static const unsigned jobs[] = {2, 3, 8};
	char *want = dump_load(path, 1, o, 0, NULL), line[400];

	reader_integrity(path, line, sizeof(line));
	if (line[0] && !strncmp(want, "load 0 ", 7) && (!o || !o->has_window) &&
	    !strstr(want, line)) {
		printf("#   %s: reader says%s", path, line);
		CHECK(!"the model's integrity is the reader's");
	}

	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		char *got = dump_load(path, jobs[i], o, 0, NULL);

		if (strcmp(got, want)) {
			size_t at = 0;

			while (got[at] == want[at])
				at++;
			printf("#   %s, %u jobs: differs at byte %zu: \"%.60s\" vs \"%.60s\"\n",
			       path, jobs[i], at, got + (at > 20 ? at - 20 : 0),
			       want + (at > 20 ? at - 20 : 0));
			CHECK(!"same model whatever the jobs");
		}
		free(got);
	}
	return want;
}

/* Copy of @src with @edit applied to its bytes. */
static const char *edited_copy(const char *src, const char *name,
			       void (*edit)(uint8_t *p, size_t *len))
{
	const char *dst = tmp_path(name);
	struct stat sb;
	uint8_t *p;
	size_t len;
	int fd = open(src, O_RDONLY);

	CHECK(fd >= 0 && fstat(fd, &sb) == 0);
	len = (size_t)sb.st_size;
	p = malloc(len + 1);
	CHECK(p && read(fd, p, len) == (ssize_t)len);
	close(fd);
	edit(p, &len);
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, p, len) == (ssize_t)len);
	close(fd);
	free(p);
	return dst;
}

/* The offset of the @k-th chunk (0: the first), from the chunk headers; 0 when none. */
static uint64_t nth_chunk(const uint8_t *p, size_t len, unsigned k)
{
	uint64_t off = gr_get_le32(p + GR_HDR_LEN);

	while (off + GR_CHUNK_HDR <= len && !memcmp(p + off, GR_CHUNK_MAGIC, 4)) {
		if (!k--)
			return off;
		off += GR_CHUNK_HDR + gr_get_le32(p + off + GR_CK_PAYLOAD);
	}
	return 0;
}

/*
 * Damage the payload of chunk @k so that it still passes every checksum (its CRCs recomputed)
 * but fails to decode: only reading it finds out.
 */
static void break_chunk(uint8_t *p, size_t len, unsigned k)
{
	uint64_t off = nth_chunk(p, len, k);
	uint32_t plen;

	CHECK(off != 0);
	if (!off)
		return;
	plen = gr_get_le32(p + off + GR_CK_PAYLOAD);
	p[off + GR_CHUNK_HDR + plen / 2] ^= 0x5a;
	gr_put_le32(p + off + GR_CK_PAYLOAD_CRC, gr_crc32(p + off + GR_CHUNK_HDR, plen));
	gr_put_le32(p + off + GR_CK_HDR_CRC, gr_crc32(p + off, GR_CK_HDR_CRC));
}

static void cut_two_thirds(uint8_t *p, size_t *len)
{
	(void)p;
	*len = *len * 2 / 3;
}

static void break_third(uint8_t *p, size_t *len)
{
	break_chunk(p, *len, 3);
}

static void flip_payload(uint8_t *p, size_t *len)
{
	uint64_t off = nth_chunk(p, *len, 5);

	if (off)
		p[off + GR_CHUNK_HDR + 3] ^= 1; /* payload CRC fails: bad at open */
}

/* The events of @path as loaded with @jobs, raw indexes and all (malloc'ed). */
static char *events_of(const char *path, unsigned jobs)
{
	return dump_load(path, jobs, NULL, 1, NULL);
}

/* Without the footer (the scan finds the same chunks). */
static void drop_footer(uint8_t *p, size_t *len)
{
	*len = gr_get_le64(p + *len - GR_TRAILER + GR_TR_FOOTER_OFF);
}

/*
 * A footer that counts one chunk's kinds wrong (one record moved from one kind to another, the
 * total right), its CRCs made to hold: the events cannot go where it says.
 */
static void miscount(uint8_t *p, size_t *len)
{
	uint8_t *tr = p + *len - GR_TRAILER;
	uint64_t foff = gr_get_le64(tr + GR_TR_FOOTER_OFF), n = gr_get_le64(p + foff + 8);
	uint8_t *e = p + foff + GR_FOOTER_FIXED;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t kinds = gr_get_le64(e + 32);
		int nk = __builtin_popcountll(kinds);
		uint8_t *c = e + GR_FOOTER_ENTRY;

		if (i >= n / 2 && nk >= 2 && gr_get_le32(c) >= 2) {
			gr_put_le32(c, gr_get_le32(c) - 1);
			gr_put_le32(c + 4, gr_get_le32(c + 4) + 1);
			break;
		}
		e += GR_FOOTER_ENTRY + 4 * nk;
	}
	gr_put_le32(tr + GR_TR_FOOTER_CRC, gr_crc32(p + foff, *len - GR_TRAILER - foff));
	gr_put_le32(tr + GR_TR_CRC, gr_crc32(tr, GR_TR_CRC));
}

/* @a and @b load the same events with every number of jobs. */
static void check_same_events(const char *a, const char *b)
{
	char *want = events_of(b, 1);

	for (unsigned jobs = 1; jobs <= 3; jobs++) {
		char *got = events_of(a, jobs);

		if (strcmp(got, want)) {
			printf("#   %s and %s, %u jobs: not the same events\n", a, b, jobs);
			CHECK(!"the same events");
		}
		free(got);
	}
	free(want);
}

static void check_dir(const char *dirname)
{
	DIR *d = opendir(dirname);
	struct dirent *e;
	int files = 0;

	CHECK(d != NULL);
	if (!d) {
		printf("#   run from the repository root: %s not found\n", dirname);
		return;
	}
	while ((e = readdir(d))) {
		char path[512];
		size_t len = strlen(e->d_name);

		if (len < 4 || strcmp(e->d_name + len - 4, ".trc"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dirname, e->d_name);
		free(check_same(path, NULL));
		files++;
	}
	closedir(d);
	CHECK(files > 5);
}

static void test_parallel_same(void)
{
	char std[256], mixed[256], nofooter[256], *dump;

	/* tmp_path() reuses its buffers: keep copies */
	snprintf(std, sizeof(std), "%s", tmp_path("par_std.trc"));
	snprintf(mixed, sizeof(mixed), "%s", tmp_path("par_mixed.trc"));

	CHECK(synth_write(std, 1024) == 0);
	free(check_same(std, NULL));
	CHECK(write_mixed(mixed, 1500, 30000, 1000, 7) == 0);
	dump = check_same(mixed, NULL);
	/* the trace is what it should be for the test to mean something */
	CHECK(strstr(dump, "integrity 1 1 ") != NULL);
	CHECK(strstr(dump, "library \"libA\"\nlibrary \"libB\"\nlibrary \"libA\"") != NULL);
	free(dump);
	{
		struct gr_model *m = NULL;

		CHECK(gr_model_load(&m, mixed, NULL) == 0);
		CHECK(m && gr_model_integrity(m)->chunks_ok > 100);
		CHECK(m && gr_model_record_count(m, GR_K_LAUNCH) > 10000);
		gr_model_free(m);
	}
	/* damaged: no footer (recovered by scan), a chunk bad at open, one that fails to decode */
	free(check_same(edited_copy(mixed, "par_cut.trc", cut_two_thirds), NULL));
	free(check_same(edited_copy(mixed, "par_flip.trc", flip_payload), NULL));
	dump = check_same(edited_copy(mixed, "par_broken.trc", break_third), NULL);
	CHECK(strstr(dump, "integrity 0 1 ") != NULL);
	free(dump);
	/*
	 * With the footer the events go straight to their place in the model; without, through the
	 * parts; with a footer that counts wrong, the first way fails and the load starts over the
	 * second: the same events every way.
	 */
	snprintf(nofooter, sizeof(nofooter), "%s",
		 edited_copy(mixed, "par_nofooter.trc", drop_footer));
	{
		const char *wrong = edited_copy(mixed, "par_miscount.trc", miscount);

		check_same_events(mixed, nofooter);
		check_same_events(wrong, nofooter);
		free(check_same(wrong, NULL));
		dump = events_of(wrong, 1);
		CHECK(strncmp(dump, "load 0 ", 7) == 0);
		free(dump);
		check_same_events(edited_copy(mixed, "par_broken2.trc", break_third),
				  edited_copy(nofooter, "par_broken3.trc", break_third));
	}
	/* the record cap fails at the same chunk */
	{
		struct gr_model_load_opts o = {.max_records = 5000};

		dump = check_same(mixed, &o);
		CHECK(strstr(dump, "more than 5000 records") != NULL);
		free(dump);
	}
	check_dir("tests/data/golden");
	check_dir("tests/data/bad");
}

/* ---- windowed loads ---- */

/* @path loaded with window @o keeps exactly the events of the whole load that @o selects. */
static void check_window(const char *path, const struct gr_model_load_opts *o)
{
	struct win x = {1, o->from_ts, o->to_ts, o->from_ts - o->margin_ns};
	char *want = dump_load(path, 1, NULL, 1, &x), *got;

	for (unsigned jobs = 1; jobs <= 3; jobs++) {
		got = dump_load(path, jobs, o, 1, NULL);
		/* the windowed load's events, by value, without a filter of their own */
		free(got);
		got = NULL;
		{
			struct gr_model_load_opts oo = *o;
			struct gr_model *m = NULL;
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);

			oo.jobs = jobs;
			fprintf(f, "load %d 0 0 \n", gr_model_load_opts(&m, path, &oo, NULL));
			if (m)
				dump_events(f, m, &(struct win){0});
			gr_model_free(m);
			fclose(f);
			got = buf;
		}
		if (strcmp(got, want)) {
			size_t at = 0;

			while (got[at] == want[at])
				at++;
			printf("#   %s, %u jobs: differs at byte %zu: \"%.80s\" vs \"%.80s\"\n",
			       path, jobs, at, got + (at > 30 ? at - 30 : 0),
			       want + (at > 30 ? at - 30 : 0));
			CHECK(!"the window keeps what it should");
		}
		free(got);
	}
	free(want);
	free(check_same(path, o));
}

static void break_outside(uint8_t *p, size_t *len)
{
	break_chunk(p, *len, 2);
}

static void test_window(void)
{
	char mixed[256], plain[256];
	uint64_t t1 = SYNTH_T0 + 1000;
	struct gr_model_load_opts o = {
	    .has_window = 1,
	    .from_ts = t1 + 12000 * 1000,
	    .to_ts = t1 + 15000 * 1000,
	    .margin_ns = 200 * 1000,
	};
	struct gr_model *m = NULL, *w = NULL;
	size_t n, nw;

	snprintf(mixed, sizeof(mixed), "%s", tmp_path("win_mixed.trc"));
	snprintf(plain, sizeof(plain), "%s", tmp_path("win_plain.trc"));
	/* metadata everywhere: every chunk is read, the events outside are dropped */
	CHECK(write_mixed(mixed, 1500, 30000, 1000, 7) == 0);
	check_window(mixed, &o);
	o.margin_ns = 0;
	check_window(mixed, &o);
	o.margin_ns = GR_MODEL_MARGIN_NS; /* reaches before the first event */
	check_window(mixed, &o);

	/* metadata at both ends only: the chunks between that miss the window are not read */
	CHECK(write_mixed(plain, 1500, 30000, 1000, 0) == 0);
	o.margin_ns = 300 * 1000;
	check_window(plain, &o);
	CHECK(gr_model_load(&m, plain, NULL) == 0);
	CHECK(gr_model_load_opts(&w, plain, &o, NULL) == 0);
	if (m && w) {
		gr_model_launches(m, &n);
		gr_model_launches(w, &nw);
		CHECK(nw > 0 && nw * 5 < n);
		/* the whole file's counts and span, and all its metadata */
		for (unsigned k = 0; k < GR_K_COUNT; k++)
			CHECK_EQ_U64(gr_model_record_count(w, k), gr_model_record_count(m, k));
		{
			uint64_t a, b, c, d;

			/* the end may be the end of a loss the window dropped */
			gr_model_time_span(m, &a, &b);
			gr_model_time_span(w, &c, &d);
			CHECK(a == c && d <= b && d >= SYNTH_T0 + 1000 + 30000 * 1000);
		}
		gr_model_stacks(m, &n);
		gr_model_stacks(w, &nw);
		CHECK_EQ_U64(nw, n);
		gr_model_proc_events(m, &n);
		gr_model_proc_events(w, &nw);
		CHECK_EQ_U64(nw, n);
	}
	gr_model_free(m);
	gr_model_free(w);
	m = w = NULL;

	/* a chunk outside the window that fails to decode: never read, so never found bad */
	{
		const char *broken = edited_copy(plain, "win_broken.trc", break_outside);

		CHECK(gr_model_load(&m, broken, NULL) == 0);
		CHECK(gr_model_load_opts(&w, broken, &o, NULL) == 0);
		CHECK(m && gr_model_integrity(m)->chunks_bad == 1);
		CHECK(w && gr_model_integrity(w)->chunks_bad == 0);
		gr_model_free(m);
		gr_model_free(w);
		m = w = NULL;
		check_window(broken, &o);
		/* inside the window: found bad in both */
		o.from_ts = t1;
		o.to_ts = t1 + 3000 * 1000;
		CHECK(gr_model_load_opts(&w, broken, &o, NULL) == 0);
		CHECK(w && gr_model_integrity(w)->chunks_bad == 1);
		gr_model_free(w);
	}
}

struct pool_item {
	struct gr_pool_job job; /* first: the job is the item */
	int v, out;
};

static void pool_square(struct gr_pool_job *job)
{
	struct pool_item *it = (struct pool_item *)job;

	it->out = it->v * it->v;
}

static void test_pool(void)
{
	struct gr_pool *p = NULL;

	CHECK(gr_pool_cpus() >= 1);
	for (unsigned jobs = 1; jobs <= 4; jobs++) {
		struct pool_item items[50];

		CHECK_EQ_U64(gr_pool_new(&p, jobs), 0);
		if (!p)
			return;
		CHECK_EQ_U64(gr_pool_size(p), jobs);
		for (int i = 0; i < 50; i++) {
			items[i].v = i;
			items[i].job.fn = pool_square;
			if (i % 7)
				gr_pool_submit(p, &items[i].job);
			else
				gr_pool_submit_first(p, &items[i].job);
		}
		for (int i = 49; i >= 0; i--) {
			gr_pool_wait(p, &items[i].job);
			CHECK_EQ_U64(items[i].out, i * i);
		}
		gr_pool_free(p);
	}
	CHECK_EQ_U64(gr_pool_new(&p, 0), 0);
	CHECK(p && gr_pool_size(p) == gr_pool_cpus());
	gr_pool_free(p);
	gr_pool_free(NULL);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_keymap);
	RUN_TEST(test_strtab);
	RUN_TEST(test_json);
	RUN_TEST(test_standard_trace);
	RUN_TEST(test_load_mem);
	RUN_TEST(test_not_a_trace);
	RUN_TEST(test_truncated);
	RUN_TEST(test_columns_by_name);
	RUN_TEST(test_empty);
	RUN_TEST(test_unprobed_libraries);
	RUN_TEST(test_lookups);
	RUN_TEST(test_symbol_lines);
	RUN_TEST(test_fork_exe);
	RUN_TEST(test_pool);
	RUN_TEST(test_parallel_same);
	RUN_TEST(test_window);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
