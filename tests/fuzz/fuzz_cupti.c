/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the CUPTI pipe (cupti/wire.h) as record/cupti.c reads it. Every traced process
 * can write it, so its bytes are hostile. The input is what the pipe holds (at most PIPE_MAX
 * bytes: one drain): gr_cupti_drain() reads it into a trace writer, and each whole record also
 * goes through gr_cupti_row() alone.
 *
 * Invariants: a record gr_cupti_row() takes has a known type and kind, end >= start, and its name
 * inside the record's name field, its row the record's fields; every whole record is counted
 * once, as a row, a HELLO, a TOTALS or not valid, as a reference classification counts it; a
 * part record stays for the next read; the trace written reads back with as many GPU rows as the
 * drain says it wrote, with the same names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/events.h"
#include "format/trace.h"
#include "record/cupti.h"
#include "tests/fuzz/fuzz.h"

#define PIPE_MAX (60 * GR_CUPTI_REC_SIZE) /* under the pipe's default 64 KiB: one write */

/* What gr_cupti_row() made of @r, checked against the record's own fields. */
static void check_row(const struct gr_cupti_rec *r, const uint8_t *raw)
{
	uint64_t v[GR_GPU_NCOLS];
	struct gr_bytes name;
	int err = gr_cupti_row(r, v, &name);

	FUZZ_ASSERT(err == 0 || err == -EINVAL);
	if (err)
		return;
	FUZZ_ASSERT(r->magic == GR_CUPTI_MAGIC && r->type == GR_CUPTI_GPU);
	FUZZ_ASSERT(v[GR_GPU_KIND] <= GR_GPU_MEMSET && v[GR_GPU_KIND] == r->kind);
	FUZZ_ASSERT(v[GR_GPU_TS] == r->start && v[GR_GPU_TS] + v[GR_GPU_DUR] == r->end &&
		    v[GR_GPU_DUR] <= r->end);
	FUZZ_ASSERT(v[GR_GPU_PID] == r->pid && v[GR_GPU_BYTES] == r->bytes);
	/* the name lies in the record's name field, never past it */
	FUZZ_ASSERT(name.len <= GR_CUPTI_NAME_MAX && name.len == r->name_len);
	FUZZ_ASSERT(name.data == (const uint8_t *)r->name);
	FUZZ_ASSERT(!memcmp(name.data, raw + offsetof(struct gr_cupti_rec, name), name.len));
}

/* GPU rows in the trace image @p, @len bytes; their names' bytes summed into *@name_bytes. */
static uint64_t read_back(const uint8_t *p, size_t len, uint64_t *name_bytes)
{
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	struct gr_diag diag = {0};
	uint64_t rows = 0;
	int ncol;

	*name_bytes = 0;
	FUZZ_ASSERT(gr_trace_reader_open_mem(&r, p, len, &diag) == 0);
	ncol = gr_schema_column(gr_trace_reader_schema(r), GR_K_GPU, "name");
	FUZZ_ASSERT(ncol >= 0);
	while (gr_trace_reader_next_chunk(r, &c) == 1) {
		uint32_t n = gr_chunk_count(c, GR_K_GPU);
		const struct gr_bytes *b = gr_chunk_bytes(c, GR_K_GPU, (uint16_t)ncol);

		for (uint32_t i = 0; b && i < n; i++)
			*name_bytes += b[i].len;
		rows += n;
	}
	FUZZ_ASSERT(gr_trace_reader_integrity(r)->complete);
	gr_trace_reader_close(r);
	return rows;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct gr_trace_header hdr = {.host = "fuzz", .tool_version = "gpurec"};
	static struct gr_cupti c;
	uint64_t rows = 0, hello = 0, bad = 0, dropped = 0, names = 0, got_names;
	size_t whole;
	struct gr_trace_writer *w;
	struct stat st;
	uint8_t *img;
	int fds[2], fd, keep;

	if (size > PIPE_MAX)
		size = PIPE_MAX;
	whole = size / GR_CUPTI_REC_SIZE;
	for (size_t i = 0; i < whole; i++) {
		struct gr_cupti_rec r;
		uint64_t v[GR_GPU_NCOLS];
		struct gr_bytes name;

		memcpy(&r, data + i * GR_CUPTI_REC_SIZE, sizeof(r));
		check_row(&r, data + i * GR_CUPTI_REC_SIZE);
		/* the reference classification, from the wire format's words */
		if (r.magic == GR_CUPTI_MAGIC && r.type == GR_CUPTI_HELLO) {
			hello++;
		} else if (r.magic == GR_CUPTI_MAGIC && r.type == GR_CUPTI_TOTALS) {
			dropped += r.cupti_dropped;
		} else if (gr_cupti_row(&r, v, &name) == 0) {
			rows++;
			names += name.len;
		} else {
			bad++;
		}
	}

	memset(&c, 0, sizeof(c));
	FUZZ_ASSERT(pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0);
	FUZZ_ASSERT(write(fds[1], data, size) == (ssize_t)size || size == 0);
	close(fds[1]);
	c.rd = fds[0];
	c.wr = -1;
	fd = memfd_create("fuzz-cupti", MFD_CLOEXEC);
	keep = dup(fd);
	FUZZ_ASSERT(fd >= 0 && keep >= 0);
	FUZZ_ASSERT(gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL) == 0);
	FUZZ_ASSERT(gr_cupti_drain(&c, w) == 0);
	FUZZ_ASSERT(c.rows == rows && c.processes == hello && c.bad == bad);
	FUZZ_ASSERT(c.cupti_dropped == dropped);
	FUZZ_ASSERT(c.refused <= c.processes);
	/* a part record waits for the rest */
	FUZZ_ASSERT(c.have == size % GR_CUPTI_REC_SIZE);
	FUZZ_ASSERT(!memcmp(c.buf, data + whole * GR_CUPTI_REC_SIZE, c.have));
	FUZZ_ASSERT(strlen(c.refused_text) < sizeof(c.refused_text));
	gr_cupti_close(&c);
	FUZZ_ASSERT(gr_trace_writer_close(w) == 0);

	FUZZ_ASSERT(fstat(keep, &st) == 0);
	img = malloc((size_t)st.st_size);
	FUZZ_ASSERT(img && pread(keep, img, (size_t)st.st_size, 0) == st.st_size);
	FUZZ_ASSERT(read_back(img, (size_t)st.st_size, &got_names) == rows);
	FUZZ_ASSERT(got_names == names);
	free(img);
	close(keep);
	return 0;
}
