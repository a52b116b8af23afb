/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a file a traced program maps, as record/python/pybuild.c examines it for a
 * CPython (as root, for every file discovery meets): gr_elf_open() on a memfd holding the
 * bytes, then gr_py_build_examine() under one of a few names (the name tells 3.10's version and
 * free-threaded builds).
 *
 * Input: byte 0 picks the name (NAMES); the rest is the file.
 *
 * Invariants: a file is a CPython (1) or not (0, nothing filled); the version text is
 * NUL-terminated in its field, and "3." and its minor for a build it can read; a build it can read
 * has a version from 3.10 to 3.14, the frame chain of that version, every thread state, frame and
 * code object offset below GR_PY_OFFSET_MAX (3.13+: the code object's four pointers in their
 * order), and an evaluation loop of some size; gr_py_build_name() fits any buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "record/elf.h"
#include "record/python/pybuild.h"
#include "tests/fuzz/fuzz.h"

static const char *const NAMES[] = {
    "/usr/lib/libpython3.12.so.1.0", "/usr/lib/libpython3.10.so.1.0",
    "/usr/bin/python3.13t",	     "/usr/bin/python3",
    "/opt/python3.x/bin/python",
};

static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fd = memfd_create("fuzz-pybuild", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	return 0;
}

static void check_readable(const struct gr_py_build *b)
{
	const struct gr_py_layout *L = &b->layout;
	unsigned minor = L->hexversion >> 16 & 0xff;
	const uint32_t offsets[] = {
	    L->tstate_next,    L->tstate_native_tid, L->tstate_pthread_id, L->tstate_frame,
	    L->cframe_current, L->frame_previous,    L->frame_code,	   L->frame_instr,
	    L->frame_owner,    L->object_type,	     L->code_filename,	   L->code_name,
	    L->code_qualname,  L->code_linetable,    L->code_firstlineno,  L->code_adaptive,
	    L->bytes_size,     L->bytes_data,	     L->str_length,	   L->str_state,
	    L->str_ascii_size, L->str_compact_size,
	};
	char want[8];

	FUZZ_ASSERT(L->hexversion >> 24 == 3 && minor >= 10 && minor <= 14);
	FUZZ_ASSERT(L->chain == GR_PY_CHAIN_310 + (minor - 10));
	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++)
		FUZZ_ASSERT(offsets[i] < GR_PY_OFFSET_MAX);
	if (minor >= 13)
		FUZZ_ASSERT(L->code_filename < L->code_name && L->code_name < L->code_qualname &&
			    L->code_qualname < L->code_linetable);
	snprintf(want, sizeof(want), "3.%u", minor);
	FUZZ_ASSERT(!strncmp(b->version, want, strlen(want)));
	FUZZ_ASSERT(b->eval_size > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_py_build b;
	struct gr_elf *e = NULL;
	const char *name;
	char buf[64], tiny[4];
	int ret;

	if (size < 1)
		return 0;
	name = NAMES[data[0] % (sizeof(NAMES) / sizeof(NAMES[0]))];
	FUZZ_ASSERT(ftruncate(fd, 0) == 0);
	FUZZ_ASSERT(pwrite(fd, data + 1, size - 1, 0) == (ssize_t)(size - 1));
	if (gr_elf_open(&e, fd)) {
		FUZZ_ASSERT(e == NULL);
		return 0;
	}
	memset(&b, 0xa5, sizeof(b));
	ret = gr_py_build_examine(e, name, &b);
	FUZZ_ASSERT(ret == 0 || ret == 1);
	FUZZ_ASSERT(memchr(b.version, 0, sizeof(b.version)));
	if (ret == 0) {
		FUZZ_ASSERT(!b.unreadable && !b.version[0]);
	} else {
		FUZZ_ASSERT(b.version[0]);
		if (!b.unreadable)
			check_readable(&b);
		FUZZ_ASSERT(gr_py_build_name(&b, buf, sizeof(buf)) == buf);
		FUZZ_ASSERT(!strncmp(buf, "CPython ", 8) && !strcmp(buf + 8, b.version));
		FUZZ_ASSERT(gr_py_build_name(&b, tiny, sizeof(tiny)) == tiny);
		FUZZ_ASSERT(memchr(tiny, 0, sizeof(tiny)));
	}
	gr_elf_free(e);
	return 0;
}
