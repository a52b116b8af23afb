/* SPDX-License-Identifier: MIT */
/*
 * CPython builds, read from their ELF file (pybuild.h).
 *
 * 3.10 to 3.12 publish nothing about their layout: one table per minor version, the offsets
 * computed with offsetof() against that version's own headers (Include/, Include/internal/,
 * built with Py_BUILD_CORE) by tests/tools/py_offsets.c; tests/e2e/python_offsets.sh checks the
 * table against every CPython on the machine. Micro releases of a minor version keep these
 * structures (CPython changes them only between minor versions).
 *
 * 3.13 and later start _PyRuntime with _Py_DebugOffsets: a cookie, PY_VERSION_HEX, then the
 * offsets out-of-process tools need, as u64 in sections (runtime state, interpreter state,
 * thread state, interpreter frame, code object, ...). The sections grew between versions (3.14
 * added free_threaded after the version, a field to the interpreter state and to the frame),
 * so the sections past the interpreter state's first four fields are found by what they must
 * hold rather than at a fixed place: a PyThreadState starts with prev, next, interp (0, 8, 16); a
 * frame's section follows the thread state's nine fields; the code object's section names
 * co_filename, co_name, co_qualname and co_linetable, four pointers side by side. A layout that
 * does not check out makes the build unreadable, never a guess.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/gpurec.h"
#include "record/elf.h"
#include "pybuild.h"

#define PY_3(minor) (0x03000000u | (minor) << 16)

/* The structures of 3.10-3.12 (tests/tools/py_offsets.c against 3.10.13, 3.11.7, 3.12.1). */
static const struct gr_py_layout tables[] = {
    {
	.hexversion = PY_3(10),
	.chain = GR_PY_CHAIN_310,
	.interp_head = 32,
	.threads_head = 8,
	.tstate_next = 8,
	.tstate_pthread_id = 176,
	.tstate_frame = 24,
	.frame_previous = 24,
	.frame_code = 32,
	.frame_instr = 96,
	.object_type = 8,
	.code_filename = 104,
	.code_name = 112,
	.code_linetable = 120,
	.code_firstlineno = 40,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_size = 48,
	.str_compact_size = 72,
    },
    {
	.hexversion = PY_3(11),
	.chain = GR_PY_CHAIN_311,
	.interp_head = 40,
	.threads_head = 16,
	.tstate_next = 8,
	.tstate_native_tid = 160,
	.tstate_frame = 56,
	.cframe_current = 8,
	.frame_previous = 48,
	.frame_code = 32,
	.frame_instr = 56,
	.frame_owner = 68,
	.object_type = 8,
	.code_filename = 112,
	.code_name = 120,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_firstlineno = 72,
	.code_adaptive = 184,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_size = 48,
	.str_compact_size = 72,
    },
    {
	.hexversion = PY_3(12),
	.chain = GR_PY_CHAIN_312,
	.interp_head = 40,
	.threads_head = 72,
	.tstate_next = 8,
	.tstate_native_tid = 144,
	.tstate_frame = 56,
	.cframe_current = 0,
	.frame_previous = 8,
	.frame_code = 0,
	.frame_instr = 56,
	.frame_owner = 70,
	.object_type = 8,
	.code_filename = 112,
	.code_name = 120,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_firstlineno = 68,
	.code_adaptive = 192,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_size = 40,
	.str_compact_size = 56,
    },
};

/* What _Py_DebugOffsets may span: 3.14's is about 60 u64. */
#define DEBUG_WORDS  96
#define DEBUG_COOKIE "xdebugpy"

/* Index of the first word of the thread state's section: (size, prev 0, next 8, interp 16). */
static int find_thread_section(const uint64_t *w, int from, int to)
{
	for (int i = from; i + 3 < to; i++)
		if (w[i] > 64 && w[i] < 65536 && w[i + 1] == 0 && w[i + 2] == 8 && w[i + 3] == 16)
			return i;
	return -1;
}

/* Index of the code object's section: its size, then filename, name, qualname, linetable. */
static int find_code_section(const uint64_t *w, int from, int to)
{
	for (int i = from; i + 5 < to; i++)
		if (w[i] > w[i + 4] && w[i + 1] >= 16 && w[i + 2] == w[i + 1] + 8 &&
		    w[i + 3] == w[i + 2] + 8 && w[i + 4] == w[i + 3] + 8 && w[i + 5] < w[i])
			return i;
	return -1;
}

/*
 * The layout from _Py_DebugOffsets (3.13+), the first @n words of _PyRuntime as the file
 * initialises them. Returns NULL or why it cannot be used.
 */
static const char *from_debug_offsets(const uint64_t *w, int n, struct gr_py_layout *L)
{
	unsigned minor = (unsigned)(w[1] >> 16) & 0xff;
	/* the cookie, the version, free_threaded, then the runtime state's section */
	int rt = 3, ts, fr, co;

	if (memcmp(w, DEBUG_COOKIE, 8))
		return "no _Py_DebugOffsets at the start of _PyRuntime";
	if (w[2])
		return "a free-threaded build (its frames are not read)";
	L->hexversion = (uint32_t)w[1];
	L->chain = minor >= 14 ? GR_PY_CHAIN_314 : GR_PY_CHAIN_313;
	/* runtime state: size, finalizing, interpreters_head; then the interpreter state's
	 * size, id, next, threads_head */
	L->interp_head = (uint32_t)w[rt + 2];
	L->threads_head = (uint32_t)w[rt + 3 + 3];
	ts = find_thread_section(w, rt + 3 + 4, n);
	if (ts < 0)
		return "its _Py_DebugOffsets has no thread state section gpurec recognises";
	/* the frame's section follows the thread state's nine words: size, previous,
	 * executable, instr_ptr, localsplus, owner; then the code object's ten words, all of
	 * them in the @n words read (a section found near the end has its words past them) */
	fr = ts + 9;
	co = fr + 6 <= n ? find_code_section(w, fr + 6, n) : -1;
	if (co < 0 || co > fr + 10 || co + 10 > n)
		return "its _Py_DebugOffsets has no frame or code section gpurec recognises";
	/* size, prev, next, interp, current_frame, thread_id, native_thread_id */
	L->tstate_next = (uint32_t)w[ts + 2];
	L->tstate_frame = (uint32_t)w[ts + 4];
	L->tstate_native_tid = (uint32_t)w[ts + 6];
	L->frame_previous = (uint32_t)w[fr + 1];
	L->frame_code = (uint32_t)w[fr + 2];
	L->frame_instr = (uint32_t)w[fr + 3];
	L->frame_owner = (uint32_t)w[fr + 5];
	/* size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames,
	 * localspluskinds, co_code_adaptive */
	L->code_filename = (uint32_t)w[co + 1];
	L->code_name = (uint32_t)w[co + 2];
	L->code_qualname = (uint32_t)w[co + 3];
	L->code_linetable = (uint32_t)w[co + 4];
	L->code_firstlineno = (uint32_t)w[co + 5];
	L->code_adaptive = (uint32_t)w[co + 9];
	/* the object headers did not change from 3.12 (PyObject, PyBytesObject, PyASCIIObject) */
	L->object_type = 8;
	L->bytes_size = 16;
	L->bytes_data = 32;
	L->str_length = 16;
	L->str_state = 32;
	L->str_ascii_size = 40;
	L->str_compact_size = 56;
	/* every offset inside the structure the build says it has (the u32 copies included:
	 * an offset of 2^32 + 8 is not 8) */
	if (w[fr] >= GR_PY_OFFSET_MAX || w[co] >= GR_PY_OFFSET_MAX || w[fr + 5] >= w[fr] ||
	    w[fr + 3] >= w[fr] || w[fr + 2] >= w[fr] || w[fr + 1] >= w[fr] || w[co + 9] >= w[co] ||
	    w[ts + 2] >= w[ts] || w[ts + 6] >= w[ts] || w[ts + 4] >= w[ts])
		return "its _Py_DebugOffsets does not check out";
	return NULL;
}

/* The minor version and free-threading from a name like python3.13t or libpython3.10.so.1.0. */
static int version_from_name(const char *name, unsigned *minor, int *free_threaded)
{
	const char *base = strrchr(name, '/'), *p;
	char *end;

	base = base ? base + 1 : name;
	p = strstr(base, "python3.");
	if (!p)
		return -ENOENT;
	*minor = (unsigned)strtoul(p + 8, &end, 10);
	if (end == p + 8)
		return -ENOENT;
	*free_threaded = *end == 't';
	return 0;
}

static void set_version_text(struct gr_py_build *b, uint32_t hex, int micro_known)
{
	if (micro_known)
		snprintf(b->version, sizeof(b->version), "%u.%u.%u", hex >> 24, (hex >> 16) & 0xff,
			 (hex >> 8) & 0xff);
	else
		snprintf(b->version, sizeof(b->version), "%u.%u", hex >> 24, (hex >> 16) & 0xff);
}

/* The layout of build @b, whose version @hex is known; sets b->unreadable when none fits. */
static void find_layout(const struct gr_elf *e, struct gr_py_build *b, uint32_t hex,
			uint64_t runtime_size)
{
	unsigned minor = (hex >> 16) & 0xff;
	uint64_t w[DEBUG_WORDS];
	int n;

	if (hex >> 24 != 3 || minor < 10) {
		b->unreadable = "older than 3.10, the first version gpurec reads";
		return;
	}
	if (minor <= 12) {
		b->layout = tables[minor - 10];
		b->layout.hexversion = hex;
		return;
	}
	if (minor > 14) {
		b->unreadable = "newer than 3.14, the last version gpurec knows";
		return;
	}
	n = runtime_size / 8 < DEBUG_WORDS ? (int)(runtime_size / 8) : DEBUG_WORDS;
	if (n < 16 || gr_elf_read(e, b->runtime, w, n * 8ull)) {
		b->unreadable = "its _PyRuntime is not in the file";
		return;
	}
	b->unreadable = from_debug_offsets(w, n, &b->layout);
	if (!b->unreadable && (b->layout.hexversion >> 16) != (hex >> 16))
		b->unreadable = "its _Py_DebugOffsets name another version";
}

int gr_py_build_examine(const struct gr_elf *e, const char *name, struct gr_py_build *b)
{
	uint64_t runtime_size, addr, size, version = 0;
	const char *sym;
	unsigned minor = 0;
	int free_threaded = 0, named;

	memset(b, 0, sizeof(*b));
	if (gr_elf_object(e, "_PyRuntime", &b->runtime, &runtime_size))
		return 0;
	named = !version_from_name(name, &minor, &free_threaded);
	/* 3.11+ export their PY_VERSION_HEX; 3.10 says it only in its file name */
	if (!gr_elf_object(e, "Py_Version", &addr, &size) && size >= 4 &&
	    !gr_elf_read(e, addr, &version, size < 8 ? size : 8)) {
		version &= 0xffffffffu;
		set_version_text(b, (uint32_t)version, 1);
	} else if (named) {
		version = PY_3(minor);
		set_version_text(b, (uint32_t)version, 0);
	} else {
		snprintf(b->version, sizeof(b->version), "3");
		b->unreadable = "its version is not known (no Py_Version, a file name without it)";
		return 1;
	}
	if (free_threaded) {
		b->unreadable = "a free-threaded build (its frames are not read)";
		return 1;
	}
	find_layout(e, b, (uint32_t)version, runtime_size);
	if (b->unreadable)
		return 1;
	if (gr_elf_object(e, "PyCode_Type", &b->code_type, &size) ||
	    gr_elf_func_addr(e, "_PyEval_EvalFrameDefault", &addr) ||
	    gr_elf_symbolize(e, addr, &sym, &b->eval_start, &b->eval_size) || !b->eval_size) {
		b->unreadable = "PyCode_Type or _PyEval_EvalFrameDefault is not in its symbols";
		return 1;
	}
	return 1;
}

const char *gr_py_build_name(const struct gr_py_build *b, char *buf, unsigned n)
{
	snprintf(buf, n, "CPython %s", b->version);
	return buf;
}
