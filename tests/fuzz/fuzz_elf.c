/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a file the traced program maps, through record/elf.h as the recorder
 * runs it (as root): gr_elf_open() on a memfd holding the bytes, then every query. Input that is
 * not an ELF file is also demangled as a symbol name.
 *
 * Invariants: an open fails with a negative error and no object; the build-id fits its buffer;
 * every name gr_elf_for_each_func() gives is non-empty, shorter than the file and found by
 * gr_elf_func_addr() at an address that symbolizes to a symbol starting there; a symbol found for
 * an address starts at or before it and, when sized, holds it; a function's file offset maps
 * back into a segment of the file; gr_demangle() always returns its buffer, NUL-terminated.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/elf.h"
#include "tests/fuzz/fuzz.h"

#define MAX_NAMES 256 /* names checked one by one per input */

static int fd = -1;

/* What gr_elf_for_each_func() gave. */
struct names {
	const char *v[MAX_NAMES];
	size_t n, total, file_size;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	return 0;
}

static void check_demangle(const char *name)
{
	char buf[256], tiny[4];

	FUZZ_ASSERT(gr_demangle(name, buf, sizeof(buf)) == buf);
	FUZZ_ASSERT(memchr(buf, 0, sizeof(buf)));
	FUZZ_ASSERT(gr_demangle(name, tiny, sizeof(tiny)) == tiny);
	FUZZ_ASSERT(memchr(tiny, 0, sizeof(tiny)));
}

static void on_func(const char *name, void *arg)
{
	struct names *n = arg;

	FUZZ_ASSERT(name && name[0]);
	/* a string of the file: its NUL is in the file too */
	FUZZ_ASSERT(strnlen(name, n->file_size) < n->file_size);
	if (n->n < MAX_NAMES)
		n->v[n->n++] = name;
	n->total++;
}

/* A symbol found for @vaddr holds it; its name is a function name of the file. */
static void check_symbolize(const struct gr_elf *e, uint64_t vaddr)
{
	const char *name = NULL;
	uint64_t start = 0, size = 0, a;

	if (gr_elf_symbolize(e, vaddr, &name, &start, &size))
		return;
	FUZZ_ASSERT(name && name[0]);
	FUZZ_ASSERT(start <= vaddr);
	FUZZ_ASSERT(!size || vaddr - start < size);
	FUZZ_ASSERT(gr_elf_func_addr(e, name, &a) == 0);
}

static void check_name(const struct gr_elf *e, const char *name, size_t file_size)
{
	const char *sym = NULL;
	uint64_t vaddr, off, v2, start, size;

	FUZZ_ASSERT(gr_elf_func_addr(e, name, &vaddr) == 0);
	/* symbols at address 0 are not functions the recorder can place */
	FUZZ_ASSERT(vaddr != 0);
	FUZZ_ASSERT(gr_elf_symbolize(e, vaddr, &sym, &start, &size) == 0);
	FUZZ_ASSERT(start == vaddr);
	check_symbolize(e, vaddr - 1);
	check_symbolize(e, vaddr + 1);
	if (size)
		check_symbolize(e, vaddr + size - 1);
	/* a function's offset is in the file, inside a segment */
	if (!gr_elf_func_offset(e, name, &off))
		FUZZ_ASSERT(off < file_size && gr_elf_offset_to_vaddr(e, off, &v2) == 0);
	check_demangle(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const probes[] = {
	    "cudaLaunchKernel", "__cudaLaunchKernel", "main", "_start", "", "_Z1fv"};
	struct gr_elf *e = NULL;
	struct names n = {.file_size = size};
	const uint8_t *id = NULL;
	uint64_t v, off;
	size_t idlen;
	int err;

	FUZZ_ASSERT(ftruncate(fd, 0) == 0);
	FUZZ_ASSERT(pwrite(fd, data, size, 0) == (ssize_t)size);
	err = gr_elf_open(&e, fd);
	if (err) {
		char name[128];

		FUZZ_ASSERT(err < 0 && e == NULL);
		/* anything else is a symbol name from some file: demangle it */
		snprintf(name, sizeof(name), "%.*s", (int)(size < 127 ? size : 127), data);
		check_demangle(name);
		return 0;
	}
	FUZZ_ASSERT(e != NULL);
	FUZZ_ASSERT(gr_elf_is_dyn(e) == 0 || gr_elf_is_dyn(e) == 1);
	idlen = gr_elf_build_id(e, &id);
	FUZZ_ASSERT(idlen <= 64 && (!idlen || id));

	gr_elf_for_each_func(e, on_func, &n);
	for (size_t i = 0; i < n.n; i++)
		check_name(e, n.v[i], size);

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (!gr_elf_func_addr(e, probes[i], &v))
			FUZZ_ASSERT(probes[i][0] && v);
		if (!gr_elf_func_offset(e, probes[i], &off))
			FUZZ_ASSERT(off < size && gr_elf_offset_to_vaddr(e, off, &v) == 0);
	}
	/* addresses and offsets from nowhere, and from the file's last bytes */
	check_symbolize(e, 0);
	check_symbolize(e, 1);
	check_symbolize(e, UINT64_MAX);
	gr_elf_offset_to_vaddr(e, 0, &v);
	gr_elf_offset_to_vaddr(e, UINT64_MAX, &v);
	for (size_t i = 0; i + 8 <= size && i < 64; i += 8) {
		uint64_t x;

		memcpy(&x, data + size - 8 - i, 8);
		check_symbolize(e, x);
		if (!gr_elf_offset_to_vaddr(e, x, &v))
			check_symbolize(e, v);
	}
	gr_elf_free(e);
	return 0;
}
