/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the decoder of one decompressed chunk payload, behind zstd and the CRCs that
 * keep most mutations of a whole file from reaching it. The input is: u32 record count, u64
 * first ts, u64 last ts (the chunk header fields the payload must agree with), then the payload,
 * decoded against gpurec's own schema (events.c), which uses every codec. Invariants as in
 * fuzz_reader.c: counts consistent, columns present exactly for the kinds present, merge sorted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/events.h"
#include "format/internal.h"
#include "format/le.h"
#include "tests/fuzz/fuzz.h"

#define PREFIX 20

static struct gr_trace_reader *reader;
static uint64_t sink;

/* A reader with the events schema and no chunks: the state gr_chunk_decode_raw() works in. */
static struct gr_trace_reader *make_reader(void)
{
	static uint8_t image[1 << 16];
	struct gr_trace_writer *w;
	struct gr_trace_reader *r;
	int fd = memfd_create("hdr", 0), keep = dup(fd);
	ssize_t n;

	FUZZ_ASSERT(fd >= 0 && keep >= 0);
	FUZZ_ASSERT(gr_trace_writer_open(&w, fd, NULL, gr_events_schema(), NULL) == 0);
	FUZZ_ASSERT(gr_trace_writer_close(w) == 0);
	n = pread(keep, image, sizeof(image), 0);
	close(keep);
	FUZZ_ASSERT(n > 0);
	FUZZ_ASSERT(gr_trace_reader_open_mem(&r, image, (size_t)n, NULL) == 0);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct gr_schema *s = gr_events_schema();
	struct gr_chunk_hdr h = {0};
	struct gr_record_ref *refs;
	const struct gr_chunk *c;
	uint64_t total = 0;
	char why[200];
	uint8_t *raw;
	int err, n;

	if (!reader)
		reader = make_reader();
	if (size < PREFIX || size - PREFIX > GR_MAX_CHUNK_RAW)
		return 0;
	h.records = gr_get_le32(data);
	h.first_ts = gr_get_le64(data + 4);
	h.last_ts = gr_get_le64(data + 12);
	h.raw = (uint32_t)(size - PREFIX);
	/* an exact-size copy: reads past the payload are ASan errors */
	raw = malloc(h.raw ? h.raw : 1);
	FUZZ_ASSERT(raw);
	memcpy(raw, data + PREFIX, h.raw);
	err = gr_chunk_decode_raw(reader, 0, &h, raw, why, sizeof(why));
	FUZZ_ASSERT(err <= 0);
	c = &reader->dec.chunk;
	if (err) {
		FUZZ_ASSERT(why[0] && gr_chunk_total(c) == 0);
		for (uint16_t k = 0; k < GR_MAX_KINDS; k++)
			FUZZ_ASSERT(gr_chunk_count(c, k) == 0);
		free(raw);
		return 0;
	}
	for (uint16_t i = 0; i < s->nkinds; i++) {
		const struct gr_kind_def *k = &s->kinds[i];
		uint32_t cnt = gr_chunk_count(c, k->id);

		total += cnt;
		for (uint16_t col = 0; col < k->ncols && cnt; col++) {
			const uint64_t *v = gr_chunk_column(c, k->id, col);
			const struct gr_bytes *b = gr_chunk_bytes(c, k->id, col);

			if (k->cols[col].codec == GR_CODEC_BYTES) {
				FUZZ_ASSERT(!v && b);
				for (uint32_t j = 0; j < cnt; j++) {
					FUZZ_ASSERT(b[j].data >= raw &&
						    b[j].len <= GR_MAX_BYTES_VALUE);
					FUZZ_ASSERT(b[j].data + b[j].len <= raw + h.raw);
				}
			} else {
				FUZZ_ASSERT(v && !b);
				for (uint32_t j = 0; j < cnt; j++) {
					sink += v[j];
					if (!col)
						FUZZ_ASSERT(v[j] >= h.first_ts &&
							    v[j] <= h.last_ts);
				}
			}
		}
	}
	FUZZ_ASSERT(total == h.records && total == gr_chunk_total(c));
	refs = malloc(sizeof(*refs) * total);
	FUZZ_ASSERT(refs);
	n = gr_chunk_merge_by_time(c, refs, (uint32_t)total);
	FUZZ_ASSERT(n >= 0 && (uint64_t)n == total);
	for (int j = 1; j < n; j++)
		FUZZ_ASSERT(refs[j - 1].ts <= refs[j].ts);
	free(refs);
	free(raw);
	return 0;
}
