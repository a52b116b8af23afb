/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a code object as record/python/pyresolve.c reads it out of a traced CPython
 * process (its memory is the program's: any pointer or length in it is hostile), through
 * gr_pyresolve_frame() with a reader over the input instead of process_vm_readv.
 *
 * Input: byte 0 bit 0 the 3.10 line table format (else 3.12); then the layout's twelve object
 * offsets (little-endian u16: object_type, code_filename, code_name, code_qualname,
 * code_linetable, code_firstlineno, bytes_size, bytes_data, str_length, str_state,
 * str_ascii_size, str_compact_size), lasti (u32), the code object's offset in the image (u16);
 * the rest is the process's memory from BASE. PyCode_Type is at CODE_TYPE (bias 0).
 *
 * Invariants: every read asked for lies in a buffer of its length, and one outside the image
 * fails rather than being served; a frame resolves or is -EFAULT (or -EINVAL for a layout the
 * reader refuses), nothing else; resolved, the file and function names are NUL-terminated
 * UTF-8 no longer than 4 bytes a code point of the 4 KiB the reader takes, and the line is 0
 * (unknown) or the one the code object's own line table, decoded apart from the reader, gives
 * lasti; a second resolution of the same object comes from the cache, the same answer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "record/python/pylines.h"
#include "record/python/pyresolve.h"
#include "tests/fuzz/fuzz.h"

#define BASE	  0x7f0000001000ull
#define CODE_TYPE 0x5000ull
#define PID	  4242
#define HEAD	  (1 + 12 * 2 + 4 + 2)
#define MAX_NAME  (4 * (4u << 10)) /* 4 KiB of code points, 4 UTF-8 bytes each */

struct image {
	const uint8_t *p;
	size_t len;
	unsigned reads;
};

static int read_image(void *ctx, uint32_t pid, const struct iovec *local,
		      const struct iovec *remote, unsigned n)
{
	struct image *m = ctx;

	FUZZ_ASSERT(pid == PID && n <= 3);
	m->reads++;
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = (uintptr_t)remote[i].iov_base, len = remote[i].iov_len;

		FUZZ_ASSERT(local[i].iov_len == len);
		if (at < BASE || at - BASE > m->len || len > m->len - (at - BASE))
			return -EFAULT;
		/* ASan sees a local buffer shorter than the read asked of it */
		memcpy(local[i].iov_base, m->p + (at - BASE), len);
	}
	return 0;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t image_u64(const struct image *m, uint64_t at, int *ok)
{
	uint64_t v = 0;

	if (at < BASE || at - BASE > m->len || 8 > m->len - (at - BASE)) {
		*ok = 0;
		return 0;
	}
	memcpy(&v, m->p + (at - BASE), 8);
	return v;
}

/* The line the code object's table gives @lasti, read and decoded apart from the reader. */
static int reference_line(const struct image *m, const struct gr_py_layout *L, uint64_t code,
			  uint32_t lasti, uint32_t *line)
{
	uint64_t table, size;
	uint32_t first = 0;
	struct gr_py_lines l;
	int ok = 1;

	table = image_u64(m, code + L->code_linetable, &ok);
	size = image_u64(m, table + L->bytes_size, &ok);
	if (!ok || table + L->bytes_data < BASE || table + L->bytes_data - BASE > m->len ||
	    size > m->len - (table + L->bytes_data - BASE) ||
	    code + L->code_firstlineno + 4 - BASE > m->len)
		return -1;
	memcpy(&first, m->p + (code + L->code_firstlineno - BASE), 4);
	if (gr_py_lines_decode(m->p + (table + L->bytes_data - BASE), size, L->hexversion,
			       (int32_t)first, &l))
		return -1;
	*line = gr_py_lines_find(&l, lasti);
	gr_py_lines_free(&l);
	return 0;
}

static void check_name(const char *s)
{
	size_t n;

	FUZZ_ASSERT(s);
	n = strnlen(s, MAX_NAME + 1);
	FUZZ_ASSERT(n <= MAX_NAME);
	/* UTF-8 as put_utf8() writes it: lead bytes and their continuations */
	for (size_t i = 0; i < n;) {
		uint8_t c = (uint8_t)s[i];
		size_t k = c < 0x80 ? 1 : c >> 5 == 6 ? 2 : c >> 4 == 14 ? 3 : c >> 3 == 30 ? 4 : 0;

		FUZZ_ASSERT(k && i + k <= n);
		for (size_t j = 1; j < k; j++)
			FUZZ_ASSERT(((uint8_t)s[i + j] & 0xc0) == 0x80);
		i += k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_py_build b = {0};
	struct gr_py_layout *L = &b.layout;
	uint32_t *field[] = {&L->object_type,	&L->code_filename,  &L->code_name,
			     &L->code_qualname, &L->code_linetable, &L->code_firstlineno,
			     &L->bytes_size,	&L->bytes_data,	    &L->str_length,
			     &L->str_state,	&L->str_ascii_size, &L->str_compact_size};
	struct gr_py_site site, again;
	struct gr_pyresolve *r;
	struct image m;
	uint32_t lasti, line;
	uint64_t code;
	unsigned reads;
	int err;

	if (size < HEAD)
		return 0;
	L->hexversion = data[0] & 1 ? 0x030a0df0 : 0x030c01f0;
	L->chain = data[0] & 1 ? 1 : 3;
	for (size_t i = 0; i < 12; i++)
		*field[i] = le16(data + 1 + 2 * i);
	memcpy(&lasti, data + 25, 4);
	code = BASE + le16(data + 29);
	b.code_type = CODE_TYPE;
	m = (struct image){data + HEAD, size - HEAD, 0};

	FUZZ_ASSERT(gr_pyresolve_new_reader(&r, read_image, &m) == 0);
	err = gr_pyresolve_frame(r, PID, &b, 0, code, lasti, &site);
	FUZZ_ASSERT(err == 0 || err == -EFAULT || err == -EINVAL);
	/* a code object costs at most three reads: the object, three headers, their data */
	FUZZ_ASSERT(m.reads <= 3);
	if (!err) {
		check_name(site.file);
		check_name(site.function);
		FUZZ_ASSERT(reference_line(&m, L, code, lasti, &line) == 0);
		FUZZ_ASSERT(site.line == line);
		reads = m.reads;
		FUZZ_ASSERT(gr_pyresolve_frame(r, PID, &b, 0, code, lasti, &again) == 0);
		FUZZ_ASSERT(m.reads == reads);
		FUZZ_ASSERT(again.file == site.file && again.function == site.function &&
			    again.line == site.line);
		FUZZ_ASSERT(gr_pyresolve_frame(r, PID, &b, 0, code, lasti + 1, &again) == 0);
		FUZZ_ASSERT(reference_line(&m, L, code, lasti + 1, &line) == 0);
		FUZZ_ASSERT(again.line == line && m.reads == reads);
	}
	gr_pyresolve_forget(r, PID);
	gr_pyresolve_free(r);
	return 0;
}
