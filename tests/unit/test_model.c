/* SPDX-License-Identifier: MIT */
/* analyze/model: loading synthetic traces with exactly known content. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/json.h"
#include "analyze/keymap.h"
#include "analyze/model.h"
#include "analyze/strtab.h"
#include "test.h"
#include "synth.h"

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
	CHECK_EQ_U64(l[51].dur, 2050);
	CHECK_EQ_U64(l[52].ts, SYNTH_T0 + 50000);
	/* equal timestamps keep file order: scale_bias then gemm, right after i=4 */
	CHECK_EQ_U64(l[5].ts, SYNTH_T0 + 5001);
	CHECK_EQ_U64(l[6].ts, SYNTH_T0 + 5001);
	CHECK_STR(k[l[5].kernel].name, "scale_bias(float*, float, int)");
	CHECK_STR(k[l[6].kernel].name, "gemm(float const*, float const*, float*, int, int, int)");

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
		const struct gr_config *c = &cfg[l[i].config];

		per_kernel[l[i].kernel]++;
		if (c->grid[0] == 70000 && c->grid[1] == 3 && c->grid[2] == 2 &&
		    c->block[0] == 32 && c->block[1] == 4 && c->block[2] == 2 && c->shmem == 128) {
			big++;
			CHECK_EQ_U64(st[l[i].stream].handle, 0x1234);
		}
		with_stack += st_tab[l[i].stack].id == 5 && st_tab[l[i].stack].pid == 100;
		CHECK(l[i].stack < nst);
		CHECK((l[i].stack != 0) == (st_tab[l[i].stack].id != 0));
		t101 += t[l[i].thread].tid == 101;
		CHECK_EQ_U64(l[i].cpu, 3);
		CHECK_EQ_U64(l[i].api, GR_API_cudaLaunchKernel);
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
	CHECK_EQ_U64(bytes[GR_COPY_H2H], 100);
	CHECK_EQ_U64(bytes[GR_COPY_DEFAULT], 7);
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
	CHECK_EQ_U64(sc[0].prev_tid, 101);

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
    {"ts", GR_CODEC_DELTA},	{"extra", GR_CODEC_VARINT}, {"func", GR_CODEC_DICT},
    {"pid", GR_CODEC_DICT},	{"tid", GR_CODEC_DICT},	    {"dur", GR_CODEC_VARINT},
    {"cpu", GR_CODEC_DICT},	{"api", GR_CODEC_DICT},	    {"grid_z", GR_CODEC_DICT},
    {"grid_y", GR_CODEC_DICT},	{"grid_x", GR_CODEC_DICT},  {"block_x", GR_CODEC_DICT},
    {"block_y", GR_CODEC_DICT}, {"block_z", GR_CODEC_DICT}, {"shmem", GR_CODEC_DICT},
    {"stream", GR_CODEC_DICT},	{"stack", GR_CODEC_DICT},
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
		const struct gr_config *c = gr_model_configs(m, NULL);
		const struct gr_thread *t = gr_model_threads(m, NULL);
		const struct gr_kernel *k = gr_model_kernels(m, NULL);

		CHECK_EQ_U64(n, 3);
		CHECK_EQ_U64(c[l[0].config].grid[0], 10);
		CHECK_EQ_U64(c[l[0].config].grid[1], 20);
		CHECK_EQ_U64(c[l[0].config].grid[2], 30);
		CHECK_EQ_U64(c[l[0].config].block[2], 60);
		CHECK_EQ_U64(c[l[0].config].shmem, 70);
		CHECK_EQ_U64(t[l[0].thread].pid, 7);
		CHECK_EQ_U64(t[l[0].thread].tid, 8);
		CHECK_EQ_U64(k[l[0].kernel].func, 0xF00);
		CHECK_STR(k[l[0].kernel].name, "func 0xf00");
		CHECK_EQ_U64(l[2].dur, 5);
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
	struct gr_bytes b[1] = {{(const uint8_t *)name, (uint32_t)strlen(name)}};

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
	RUN_TEST(test_lookups);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	TEST_EXIT();
}
