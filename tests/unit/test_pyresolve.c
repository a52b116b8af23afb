/* SPDX-License-Identifier: MIT */
/*
 * record/python/pylines and record/python/pyresolve: line tables decoded by hand from CPython's
 * format notes; code objects faked in this process's memory (every validation path); and each
 * CPython on this machine running tests/unit/pyresolve/workload.py, whose every code object at
 * every instruction must resolve to exactly the file, function and line that CPython itself prints,
 * through the build record/python/pybuild.c finds in the file that holds its _PyRuntime.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/elf.h"
#include "record/python/pybuild.h"
#include "record/python/pylines.h"
#include "record/python/pyresolve.h"
#include "test.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- line tables ---- */

static void check_lines(const struct gr_py_lines *l, const uint32_t *want, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (gr_py_lines_find(l, i) != want[i]) {
			printf("#   unit %u: line %u, want %u\n", i, gr_py_lines_find(l, i),
			       want[i]);
			CHECK(0);
		}
}

/* 3.11+: each entry form once, lines far up and back down (2-chunk svarints). */
static void test_lines_311(void)
{
	static const uint8_t t[] = {
	    0x80 | 13 << 3 | 0,
	    0x00, /* no columns, +0: unit 0 line 10 */
	    0x80 | 0 << 3 | 1,
	    0x12, /* short form, 2 units: line 10 */
	    0x80 | 11 << 3 | 0,
	    4,
	    7,			/* one-line form +1: unit 3 line 11 */
	    0x80 | 15 << 3 | 0, /* no location: unit 4 */
	    0x80 | 14 << 3 | 0,
	    0x58,
	    0x09,
	    0x00, /* long form +300 (svarint 600), end +0 */
	    0x01,
	    0x41,
	    0x00, /* columns 1 and 64: unit 5 line 311 */
	    0x80 | 13 << 3 | 2,
	    0x5b,
	    0x09, /* no columns -301 (svarint 603): units 6-8 */
	    0x80 | 9 << 3 | 7,
	    0x00, /* short form, 8 units: 9-16 line 10 */
	};
	static const uint32_t want[] = {10, 10, 10, 11, 0,  311, 10, 10, 10, 10,
					10, 10, 10, 10, 10, 10,	 10, 0,	 0};
	struct gr_py_lines l;

	CHECK_EQ_U64(gr_py_lines_decode(t, sizeof(t), 0x030c01f0, 10, &l), 0);
	check_lines(&l, want, sizeof(want) / sizeof(want[0]));
	CHECK_EQ_U64(gr_py_lines_find(&l, UINT32_MAX), 0);
	gr_py_lines_free(&l);
}

/* 3.10: byte deltas, -128 for no line, a large line delta split over two pairs. */
static void test_lines_310(void)
{
	static const uint8_t t[] = {
	    4,	 0,    /* bytes 0-3 (units 0-1): line 10 */
	    2,	 0x80, /* unit 2: no line */
	    6,	 5,    /* units 3-5: line 15 */
	    0,	 127,  /* empty run, line 142 */
	    2,	 73,   /* unit 6: line 215 */
	    254, 0,    /* units 7-133: line 215 still */
	    2,	 0xfe, /* unit 134: line 213 */
	};
	struct gr_py_lines l;
	uint32_t want[137] = {10, 10, 0, 15, 15, 15};

	for (int i = 6; i < 134; i++)
		want[i] = 215;
	want[134] = 213;
	CHECK_EQ_U64(gr_py_lines_decode(t, sizeof(t), 0x030a0df0, 10, &l), 0);
	check_lines(&l, want, 137);
	gr_py_lines_free(&l);
}

/* Tables cut short or otherwise malformed are refused, never read past. */
static void test_lines_malformed(void)
{
	static const struct {
		uint8_t t[8];
		size_t n;
		uint32_t hex;
	} bad[] = {
	    {{0x80 | 13 << 3, 0x40}, 2, 0x030b0000},		 /* svarint cut short */
	    {{0x80 | 14 << 3, 0x02, 0x00, 0x00}, 4, 0x030b0000}, /* long form, 1 column */
	    {{0x80 | 11 << 3, 0x01}, 2, 0x030b0000},		 /* one-line form, 1 column */
	    {{0x00}, 1, 0x030b0000},				 /* no entry header */
	    {{0x80 | 13 << 3, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x01}, 8, 0x030b0000},
	    {{0x80 | 14 << 3, 0x81}, 2, 0x030b0000}, /* next header inside a varint */
	    {{4}, 1, 0x030a0000},		     /* 3.10: half a pair */
	};
	struct gr_py_lines l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = gr_py_lines_decode(bad[i].t, bad[i].n, bad[i].hex, 1, &l);

		if (err != -EINVAL)
			printf("#   malformed table %zu: %d\n", i, err);
		CHECK_EQ_U64(err, -EINVAL);
	}
	CHECK_EQ_U64(gr_py_lines_decode(NULL, 0, 0x030c0000, 1, &l), 0);
	CHECK_EQ_U64(gr_py_lines_find(&l, 0), 0);
	gr_py_lines_free(&l);
}

/* ---- code objects faked in this process ---- */

/* CPython 3.12's offsets (as py_layout prints them): the fakes below are laid out by them. */
static const struct gr_py_layout layout_312 = {
    .hexversion = 0x030c01f0,
    .object_type = 8,
    .code_filename = 112,
    .code_name = 120,
    .code_qualname = 128,
    .code_linetable = 136,
    .code_firstlineno = 68,
    .bytes_size = 16,
    .bytes_data = 32,
    .str_length = 16,
    .str_state = 32,
    .str_ascii_size = 40,
    .str_compact_size = 56,
};

#define KIND(k) ((k) << 2)
#define COMPACT (1u << 5)
#define ASCII	(1u << 6)

struct fake {
	uint64_t code[32];
	uint64_t file[16], name[16], table[8];
};

static uint64_t code_type_dummy;

static void put64(void *obj, uint32_t at, uint64_t v)
{
	memcpy((char *)obj + at, &v, sizeof(v));
}

static void put32(void *obj, uint32_t at, uint32_t v)
{
	memcpy((char *)obj + at, &v, sizeof(v));
}

/* A well-formed fake: "a.py", function "x<U+8A08><lone surrogate>", one-entry line table. */
static void fake_init(struct fake *f)
{
	static const uint16_t name[] = {'x', 0x8a08, 0xdc80};
	static const uint8_t table[] = {0x80 | 13 << 3 | 3, 0x04}; /* 4 units, line +2 */

	memset(f, 0, sizeof(*f));
	put64(f->code, 8, (uintptr_t)&code_type_dummy);
	put64(f->code, 112, (uintptr_t)f->file);
	put64(f->code, 120, 0); /* co_name: 3.11+ reads co_qualname */
	put64(f->code, 128, (uintptr_t)f->name);
	put64(f->code, 136, (uintptr_t)f->table);
	put32(f->code, 68, 40);
	put64(f->file, 16, 4);
	put32(f->file, 32, KIND(1) | COMPACT | ASCII);
	memcpy((char *)f->file + 40, "a.py", 5);
	put64(f->name, 16, 3);
	put32(f->name, 32, KIND(2) | COMPACT);
	memcpy((char *)f->name + 56, name, sizeof(name));
	put64(f->table, 16, sizeof(table));
	memcpy((char *)f->table + 32, table, sizeof(table));
}

static int resolve_fake(struct gr_pyresolve *r, struct fake *f, uint32_t lasti,
			struct gr_py_site *s)
{
	struct gr_py_build b = {.layout = layout_312, .code_type = (uintptr_t)&code_type_dummy};

	gr_pyresolve_forget(r, (uint32_t)getpid());
	return gr_pyresolve_frame(r, (uint32_t)getpid(), &b, 0, (uintptr_t)f->code, lasti, s);
}

static void test_fake_code_objects(void)
{
	struct gr_py_build b = {.layout = layout_312, .code_type = (uintptr_t)&code_type_dummy};
	struct gr_pyresolve *r;
	struct gr_py_site s;
	struct fake f;
	uint32_t pid = (uint32_t)getpid();

	CHECK_EQ_U64(gr_pyresolve_new(&r), 0);
	fake_init(&f);
	CHECK_EQ_U64(resolve_fake(r, &f, 3, &s), 0);
	CHECK_STR(s.file, "a.py");
	CHECK_STR(s.function, "x\xe8\xa8\x88\xef\xbf\xbd"); /* U+8A08, then U+FFFD */
	CHECK_EQ_U64(s.line, 42);
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, (uintptr_t)f.code, 4, &s), 0);
	CHECK_EQ_U64(s.line, 0);

	/* cached per (pid, code): a rewritten object is not read again until forgotten */
	memcpy((char *)f.file + 40, "b.py", 5);
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, (uintptr_t)f.code, 0, &s), 0);
	CHECK_STR(s.file, "a.py");
	gr_pyresolve_forget(r, pid);
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, (uintptr_t)f.code, 0, &s), 0);
	CHECK_STR(s.file, "b.py");

	/* a load bias moves PyCode_Type: the fake's type matches only with the right one */
	gr_pyresolve_forget(r, pid);
	CHECK_EQ_U64(gr_pyresolve_frame(
			 r, pid, &(struct gr_py_build){.layout = layout_312, .code_type = 4096},
			 (uintptr_t)&code_type_dummy - 4096, (uintptr_t)f.code, 0, &s),
		     0);

	/* each way a code object can be garbage: -EFAULT, no crash, no huge allocation */
	fake_init(&f);
	put64(f.code, 8, (uintptr_t)&code_type_dummy + 8);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* not a code object */
	fake_init(&f);
	put64(f.file, 16, 1ull << 40);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* 1 Ti characters */
	fake_init(&f);
	put64(f.file, 16, 4097);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* over the 4 KiB cap */
	fake_init(&f);
	put64(f.name, 16, 2049);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* kind 2: over 4 KiB of data */
	fake_init(&f);
	put32(f.file, 32, KIND(1) | ASCII);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* legacy (not compact) */
	fake_init(&f);
	put32(f.name, 32, KIND(3) | COMPACT);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* no such kind */
	fake_init(&f);
	memcpy((char *)f.file + 40, "\xe9.py", 5);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* "ASCII" with a byte over 127 */
	fake_init(&f);
	put32(f.name, 32, KIND(4) | COMPACT);
	put32(f.name, 56, 0x110000);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* past U+10FFFF */
	fake_init(&f);
	put64(f.table, 16, (64u << 10) + 1);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* line table over 64 KiB */
	fake_init(&f);
	put64(f.table, 16, UINT64_MAX);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* negative ob_size */
	fake_init(&f);
	put64(f.code, 136, 4096);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* line table at an unmapped address */
	fake_init(&f);
	*((uint8_t *)f.table + 32) = 0x13;
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* a table that does not decode */
	fake_init(&f);
	put64(f.code, 112, 16);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* file name at an unmapped address */
	fake_init(&f);
	put64(f.code, 136, UINT64_MAX - 8);
	CHECK_EQ_U64(resolve_fake(r, &f, 0, &s), -EFAULT); /* an address range that wraps */
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, 4096, 0, &s), -EFAULT);
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, 0, 0, &s), -EFAULT);

	b.unreadable = "free-threaded";
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, (uintptr_t)f.code, 0, &s), -EINVAL);
	b.unreadable = NULL;
	b.layout.code_linetable = 1u << 20;
	CHECK_EQ_U64(gr_pyresolve_frame(r, pid, &b, 0, (uintptr_t)f.code, 0, &s), -EINVAL);
	gr_pyresolve_free(r);
	gr_pyresolve_free(NULL);
}

/* A process that exited, reaped or still a zombie: -ESRCH. */
static void test_dead_process(void)
{
	struct gr_py_build b = {.layout = layout_312, .code_type = (uintptr_t)&code_type_dummy};
	struct gr_pyresolve *r;
	struct gr_py_site s;
	struct fake f;
	siginfo_t si;
	pid_t child;

	fake_init(&f);
	CHECK_EQ_U64(gr_pyresolve_new(&r), 0);
	child = fork();
	if (!child)
		_exit(0);
	CHECK(child > 0);
	CHECK_EQ_U64(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	CHECK_EQ_U64(gr_pyresolve_frame(r, (uint32_t)child, &b, 0, (uintptr_t)f.code, 0, &s),
		     -ESRCH); /* a zombie */
	CHECK_EQ_U64(waitpid(child, NULL, 0), child);
	CHECK_EQ_U64(gr_pyresolve_frame(r, (uint32_t)child, &b, 0, (uintptr_t)f.code, 0, &s),
		     -ESRCH);
	gr_pyresolve_free(r);
}

/* ---- real CPythons ---- */

#define WORKLOAD    "tests/unit/pyresolve/workload.py"
#define LAYOUT_TOOL "tests/unit/pyresolve/py_layout.c"

static const char *const pythons[] = {
    "/usr/bin/python3",
    "/root/.pyenv/versions/3.10.13/bin/python3",
    "/root/.pyenv/versions/3.11.7/bin/python3",
    "/root/.pyenv/versions/3.12.1/bin/python3",
    "/root/.pyenv/versions/3.13.0/bin/python3",
};

static char tmpdir[64];

/*
 * The build of the CPython running as @pid, as the recorder finds it: the file that holds
 * _PyRuntime (libpython3.X.so when the executable links it, else the executable), examined by
 * gr_py_build_examine(), and its load bias from where the file is mapped. 0, or -1.
 */
static int build_of(pid_t pid, struct gr_py_build *b, uint64_t *bias)
{
	char maps[64], line[1024], path[512], best[512] = "";
	uint64_t start, offset, best_start = 0, best_offset = 0, vaddr;
	struct gr_elf *e = NULL;
	int fd = -1, err = -1;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	if (!f)
		return -1;
	/* the first mapping of libpython if there is one, else of the executable (the first line)
	 */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%*x %*s %" SCNx64 " %*s %*u %511s", &start, &offset,
			   path) == 3 &&
		    (!best[0] || (strstr(path, "/libpython3") && !strstr(best, "/libpython3")))) {
			snprintf(best, sizeof(best), "%s", path);
			best_start = start;
			best_offset = offset;
		}
	fclose(f);
	fd = open(best, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || gr_elf_open(&e, fd))
		goto out;
	if (gr_py_build_examine(e, best, b) != 1 || b->unreadable) {
		printf("#   %s: not a readable CPython (%s)\n", best,
		       b->unreadable ? b->unreadable : "?");
		goto out;
	}
	*bias = 0;
	if (gr_elf_is_dyn(e)) {
		if (gr_elf_offset_to_vaddr(e, best_offset, &vaddr))
			goto out;
		*bias = best_start - vaddr;
	}
	printf("# %s: CPython %s, bias 0x%" PRIx64 "\n", best, b->version, *bias);
	err = 0;
out:
	gr_elf_free(e);
	if (fd >= 0)
		close(fd);
	return err;
}

struct expected_code {
	uint64_t id;
	char *file, *function;
	uint32_t *lines, n;
};

struct workload {
	pid_t pid;
	FILE *out;
	int in;
	uint64_t code_type, notcode;
	struct expected_code *codes;
	unsigned ncodes;
};

static int parse_code(char *line, struct expected_code *c)
{
	char *file, *function, *lines, *end;

	c->id = strtoull(line + 5, &end, 10);
	if (*end != '\t')
		return -1;
	file = end + 1;
	function = strchr(file, '\t');
	if (!function)
		return -1;
	*function++ = 0;
	lines = strchr(function, '\t');
	if (!lines)
		return -1;
	*lines++ = 0;
	c->file = strdup(file);
	c->function = strdup(function);
	c->lines = malloc((strlen(lines) / 2 + 1) * sizeof(*c->lines));
	c->n = 0;
	if (!c->file || !c->function || !c->lines)
		return -1;
	for (char *p = lines; *p && *p != '\n';) {
		c->lines[c->n++] = (uint32_t)strtoul(p, &end, 10);
		if (end == p)
			return -1;
		p = end + (*end == ' ');
	}
	return 0;
}

/* Starts @python on the workload and reads what it prints up to "ready". 0 or -1. */
static int workload_start(const char *python, struct workload *w)
{
	int in[2], out[2];
	char *line = NULL;
	size_t cap = 0;
	int err = -1;

	memset(w, 0, sizeof(*w));
	if (pipe(in) || pipe(out))
		return -1;
	w->pid = fork();
	if (!w->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(python, python, WORKLOAD, tmpdir, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	w->in = in[1];
	w->out = fdopen(out[0], "r");
	if (w->pid < 0 || !w->out)
		return -1;
	while (getline(&line, &cap, w->out) > 0) {
		if (!strcmp(line, "ready\n")) {
			err = 0;
			break;
		}
		if (sscanf(line, "codetype %" SCNu64, &w->code_type) == 1 ||
		    sscanf(line, "notcode %" SCNu64, &w->notcode) == 1)
			continue;
		if (strncmp(line, "code ", 5))
			break;
		w->codes = realloc(w->codes, (w->ncodes + 1) * sizeof(*w->codes));
		if (!w->codes || parse_code(line, &w->codes[w->ncodes++]))
			break;
	}
	free(line);
	return err;
}

/* Closes its stdin: it returns from main and exits 0. */
static int workload_stop(struct workload *w)
{
	int status = -1;

	close(w->in);
	if (w->pid > 0)
		waitpid(w->pid, &status, 0);
	if (w->out)
		fclose(w->out);
	for (unsigned i = 0; i < w->ncodes; i++) {
		free(w->codes[i].file);
		free(w->codes[i].function);
		free(w->codes[i].lines);
	}
	free(w->codes);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Every code object of @w at every instruction, then one past its last: exactly CPython's. */
static void resolve_all(const char *python, struct gr_pyresolve *r, const struct gr_py_build *b,
			uint64_t bias, struct workload *w)
{
	uint64_t cold_ns = 0, warm_ns = 0, t;
	unsigned resolved = 0, wrong = 0, warm = 0;
	struct gr_py_site s, again;

	for (unsigned i = 0; i < w->ncodes; i++) {
		const struct expected_code *c = &w->codes[i];

		for (uint32_t lasti = 0; lasti <= c->n; lasti++) {
			uint32_t want = lasti < c->n ? c->lines[lasti] : 0;
			int err;

			t = now_ns();
			err = gr_pyresolve_frame(r, (uint32_t)w->pid, b, bias, c->id, lasti, &s);
			t = now_ns() - t;
			if (lasti == 0) {
				cold_ns += t;
			} else {
				warm_ns += t;
				warm++;
			}
			resolved++;
			if (err || strcmp(s.file, c->file) || strcmp(s.function, c->function) ||
			    s.line != want) {
				if (wrong++ < 5)
					printf("#   %s: %s %s @%u: %d %s %s %u\n", python, c->file,
					       c->function, lasti, err, err ? "" : s.file,
					       err ? "" : s.function, err ? 0 : s.line);
			}
		}
		/* cached: the same strings, not copies */
		CHECK_EQ_U64(gr_pyresolve_frame(r, (uint32_t)w->pid, b, bias, c->id, 0, &again), 0);
		CHECK(again.file == s.file && again.function == s.function);
	}
	CHECK_EQ_U64(wrong, 0);
	/* main, Outer, method, Inner, deep, größe, 計算, nested, inner, combine, multiline_call,
	 * load_far, code_objects, lines_of, main's genexpr, far, U+20000; and 3 list
	 * comprehensions, inlined from 3.12 (PEP 709) */
	CHECK_EQ_U64(w->ncodes, b->layout.hexversion >= 0x030c0000 ? 18 : 21);
	printf("# %s (%x): %u code objects, %u (code, lasti) resolved, %u wrong; cold %.1f us, "
	       "cached %.0f ns per resolution\n",
	       python, b->layout.hexversion, w->ncodes, resolved, wrong,
	       w->ncodes ? cold_ns / 1e3 / w->ncodes : 0, warm ? (double)warm_ns / warm : 0);
}

/* The functions the workload defines are all there, under the names CPython gives. */
static void check_names(const struct gr_py_build *b, const struct workload *w)
{
	static const char *const want[] = {
	    "größe", "計算",   "\xf0\xa0\x80\x80" /* U+20000 */, "far", "multiline_call", "inner",
	    "deep",  "method",
	};
	int qual = b->layout.hexversion >= 0x030b0000;
	unsigned far_file = 0;

	for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		int found = 0;

		for (unsigned i = 0; i < w->ncodes; i++) {
			const char *f = w->codes[i].function, *dot = strrchr(f, '.');

			found |= !strcmp(qual && dot ? dot + 1 : f, want[k]);
		}
		if (!found)
			printf("#   no code object named %s\n", want[k]);
		CHECK(found);
	}
	for (unsigned i = 0; i < w->ncodes; i++)
		far_file += strstr(w->codes[i].file, "/donn\xc3\xa9"
						     "es_\xf0\x9d\x84\x9e.py") != NULL;
	CHECK_EQ_U64(far_file, 2);
}

static void test_pythons(void)
{
	struct gr_pyresolve *r;
	unsigned ran = 0;
	char cmd[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_pyresolve.XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	CHECK_EQ_U64(gr_pyresolve_new(&r), 0);
	for (unsigned i = 0; i < sizeof(pythons) / sizeof(pythons[0]); i++) {
		struct gr_py_build b = {0};
		struct gr_py_site s;
		struct workload w;
		uint64_t bias = 0;

		if (access(pythons[i], X_OK)) {
			printf("# skip %s: missing\n", pythons[i]);
			continue;
		}
		if (workload_start(pythons[i], &w)) {
			printf("#   %s: the workload did not start\n", pythons[i]);
			CHECK(0);
			workload_stop(&w);
			continue;
		}
		CHECK_EQ_U64(build_of(w.pid, &b, &bias), 0);
		/* the build's PyCode_Type, moved by the bias, is the type CPython itself reports */
		CHECK_EQ_U64(b.code_type + bias, w.code_type);
		check_names(&b, &w);
		resolve_all(pythons[i], r, &b, bias, &w);
		CHECK_EQ_U64(gr_pyresolve_frame(r, (uint32_t)w.pid, &b, bias, w.notcode, 0, &s),
			     -EFAULT);
		CHECK_EQ_U64(
		    gr_pyresolve_frame(r, (uint32_t)w.pid, &b, bias, w.codes[0].id + 8, 0, &s),
		    -EFAULT);
		CHECK_EQ_U64(workload_stop(&w), 0);
		/* gone: once forgotten, its code objects are read again, and cannot be */
		gr_pyresolve_forget(r, (uint32_t)w.pid);
		CHECK_EQ_U64(gr_pyresolve_frame(r, (uint32_t)w.pid, &b, bias, w.code_type, 0, &s),
			     -ESRCH);
		ran++;
	}
	printf("# %u CPython builds resolved\n", ran);
	gr_pyresolve_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	CHECK_EQ_U64(system(cmd), 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN_TEST(test_lines_311);
	RUN_TEST(test_lines_310);
	RUN_TEST(test_lines_malformed);
	RUN_TEST(test_fake_code_objects);
	RUN_TEST(test_dead_process);
	RUN_TEST(test_pythons);
	TEST_EXIT();
}
