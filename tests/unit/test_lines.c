/* SPDX-License-Identifier: MIT */
/*
 * record/lines.c on the small binaries of tests/fuzz/corpus/lines (gen_lines_corpus.sh compiles
 * them from a source whose lines it fixes: stub, inlined always, on line 1; launch on line 2;
 * step's calls of launch on lines 5 and 6). Every address of launch reads line 2, the inlined
 * stub's code included (the call site of the inlined function, not its own line 1); step's
 * addresses read its own lines, 5 and 6 among them; the file without .debug_aranges answers
 * exactly as the one with it; DWARF 4 as DWARF 5; a file stripped of its DWARF has no tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/elf.h"
#include "record/lines.h"
#include "test.h"

#define CORPUS "tests/fuzz/corpus/lines/"

struct bin {
	int fd;
	struct gr_elf *elf;
	struct gr_lines *lines;
};

static int bin_open(struct bin *b, const char *name)
{
	memset(b, 0, sizeof(*b));
	b->fd = open(name, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0 || gr_elf_open(&b->elf, b->fd))
		return -1;
	return gr_lines_open(&b->lines, b->fd);
}

static void bin_close(struct bin *b)
{
	gr_lines_free(b->lines);
	gr_elf_free(b->elf);
	if (b->fd >= 0)
		close(b->fd);
}

/* The lines found over @fn's code, as a bit set (lines 1 .. 63); -1 when a file is not lines.c. */
static int64_t lines_of(struct bin *b, const char *fn)
{
	const char *name, *file;
	uint64_t start, size, at;
	uint32_t line;
	int64_t seen = 0;

	if (gr_elf_func_addr(b->elf, fn, &at) || gr_elf_symbolize(b->elf, at, &name, &start, &size))
		return -1;
	for (uint64_t a = start; a < start + size; a++) {
		if (gr_lines_find(b->lines, a, &file, &line))
			continue;
		if (strcmp(strrchr(file, '/') ? strrchr(file, '/') + 1 : file, "lines.c") ||
		    line > 63)
			return -1;
		seen |= 1ll << line;
	}
	return seen;
}

static void test_inlined_and_own_lines(void)
{
	struct bin b;

	CHECK(bin_open(&b, CORPUS "dwarf5.so") == 0);
	/* the inlined stub's instructions read the line that called it */
	CHECK_EQ_U64(lines_of(&b, "launch"), 1ull << 2);
	CHECK(lines_of(&b, "step") > 0);
	CHECK((lines_of(&b, "step") & (1ll << 5 | 1ll << 6)) == (1ll << 5 | 1ll << 6));
	CHECK((lines_of(&b, "step") & (1ll << 1 | 1ll << 2)) == 0);
	bin_close(&b);
}

static void test_same_without_aranges(void)
{
	struct bin a, b;
	uint64_t at, start, size;
	const char *name;

	CHECK(bin_open(&a, CORPUS "dwarf5.so") == 0);
	CHECK(bin_open(&b, CORPUS "no-aranges.so") == 0);
	CHECK(gr_elf_func_addr(a.elf, "launch", &at) == 0);
	CHECK(gr_elf_symbolize(a.elf, at, &name, &start, &size) == 0);
	for (uint64_t x = start; x < start + 64; x++) {
		const char *fa = NULL, *fb = NULL;
		uint32_t la = 0, lb = 0;
		int ea = gr_lines_find(a.lines, x, &fa, &la),
		    eb = gr_lines_find(b.lines, x, &fb, &lb);

		CHECK_EQ_U64(eb, ea);
		CHECK_EQ_U64(lb, la);
		if (!ea && !eb)
			CHECK_STR(fb, fa);
	}
	CHECK_EQ_U64(lines_of(&b, "step"), lines_of(&a, "step"));
	bin_close(&a);
	bin_close(&b);
}

static void test_dwarf4(void)
{
	struct bin b;

	CHECK(bin_open(&b, CORPUS "dwarf4.so") == 0);
	CHECK_EQ_U64(lines_of(&b, "launch"), 1ull << 2);
	bin_close(&b);
}

static void test_no_tables(void)
{
	struct bin b;

	CHECK(bin_open(&b, CORPUS "nodebug.so") == -ENOENT);
	CHECK(b.lines == NULL);
	/* a lookup without tables is a miss, not a crash */
	{
		const char *f;
		uint32_t l;

		CHECK(gr_lines_find(NULL, 0x1000, &f, &l) == -ENOENT);
	}
	bin_close(&b);
}

int main(void)
{
	RUN_TEST(test_inlined_and_own_lines);
	RUN_TEST(test_same_without_aranges);
	RUN_TEST(test_dwarf4);
	RUN_TEST(test_no_tables);
	TEST_EXIT();
}
