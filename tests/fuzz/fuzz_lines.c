/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a file the traced program maps, through record/lines.h as the
 * recorder runs it (as root): gr_lines_open() on a memfd holding the bytes, then source lines of
 * every function symbol's first bytes and of addresses from nowhere.
 *
 * Invariants: an open fails with -ENOENT or -ENOMEM and no object; a line found has a non-empty
 * file name and a line above 0; a lookup that fails says -ENOENT and leaves its outputs alone;
 * the same address gives the same answer twice.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/elf.h"
#include "record/lines.h"
#include "tests/fuzz/fuzz.h"

#define MAX_FUNCS 64 /* functions looked up per input */

static int fd = -1;

struct funcs {
	const struct gr_elf *e;
	uint64_t v[MAX_FUNCS];
	size_t n;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fd = memfd_create("fuzz-lines", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	return 0;
}

static void on_func(const char *name, void *arg)
{
	struct funcs *f = arg;
	uint64_t v;

	if (f->n < MAX_FUNCS && !gr_elf_func_addr(f->e, name, &v))
		f->v[f->n++] = v;
}

static void check_find(struct gr_lines *l, uint64_t vaddr)
{
	const char *file = NULL, *again = NULL;
	uint32_t line = 0, line2 = 0;
	int err = gr_lines_find(l, vaddr, &file, &line);

	if (err) {
		FUZZ_ASSERT(err == -ENOENT && file == NULL && line == 0);
		FUZZ_ASSERT(gr_lines_find(l, vaddr, &again, &line2) == -ENOENT);
		return;
	}
	FUZZ_ASSERT(file && file[0] && line > 0);
	FUZZ_ASSERT(gr_lines_find(l, vaddr, &again, &line2) == 0);
	FUZZ_ASSERT(line2 == line && !strcmp(again, file));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_lines *l = NULL;
	struct gr_elf *e = NULL;
	struct funcs f = {0};
	int err;

	FUZZ_ASSERT(ftruncate(fd, 0) == 0);
	FUZZ_ASSERT(pwrite(fd, data, size, 0) == (ssize_t)size);
	err = gr_lines_open(&l, fd);
	if (err) {
		FUZZ_ASSERT((err == -ENOENT || err == -ENOMEM) && l == NULL);
		return 0;
	}
	FUZZ_ASSERT(l != NULL);
	/* the recorder asks at return addresses less one inside the file's functions */
	if (!gr_elf_open(&e, fd)) {
		f.e = e;
		gr_elf_for_each_func(e, on_func, &f);
		for (size_t i = 0; i < f.n; i++) {
			check_find(l, f.v[i]);
			check_find(l, f.v[i] + 3);
		}
		gr_elf_free(e);
	}
	check_find(l, 0);
	check_find(l, UINT64_MAX);
	for (size_t i = 0; i + 8 <= size && i < 64; i += 8) {
		uint64_t x;

		memcpy(&x, data + size - 8 - i, 8);
		check_find(l, x);
	}
	gr_lines_free(l);
	return 0;
}
