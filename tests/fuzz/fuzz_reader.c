/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the trace reader over arbitrary bytes. Opens the input with
 * gr_trace_reader_open_mem(), reads every chunk, every column and the merge, and asserts the
 * invariants the API promises (counts consistent, timestamps inside the chunk's range, merge
 * sorted and complete, integrity coherent). Each input is read twice: as given, and with its
 * CRCs recomputed, so mutations also reach the zstd and column decoders behind the checksums.
 * A second reader reads the chunks by rows (gr_chunk_decode_lazy) and must find the same good
 * chunks, the same values and the same integrity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/layout.h"
#include "format/le.h"
#include "format/trace.h"
#include "tests/fuzz/fuzz.h"

static uint64_t sink;

static void check_chunk(const struct gr_schema *s, const struct gr_chunk *c, uint64_t size)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0;
	struct gr_record_ref *refs;
	int n;

	FUZZ_ASSERT(gr_chunk_offset(c) < size);
	FUZZ_ASSERT(gr_chunk_first_ts(c) <= gr_chunk_last_ts(c));
	FUZZ_ASSERT(gr_chunk_count(c, 0) == 0 && gr_chunk_count(c, GR_MAX_KINDS) == 0);
	for (uint16_t i = 0; i < s->nkinds; i++) {
		const struct gr_kind_def *k = &s->kinds[i];
		uint32_t cnt = gr_chunk_count(c, k->id);

		total += cnt;
		if (!cnt) {
			FUZZ_ASSERT(!gr_chunk_column(c, k->id, 0));
			continue;
		}
		for (uint16_t col = 0; col < k->ncols; col++) {
			const uint64_t *v = gr_chunk_column(c, k->id, col);
			const struct gr_bytes *b = gr_chunk_bytes(c, k->id, col);

			if (k->cols[col].codec == GR_CODEC_BYTES) {
				FUZZ_ASSERT(!v && b);
				for (uint32_t j = 0; j < cnt; j++) {
					FUZZ_ASSERT(b[j].len <= GR_MAX_BYTES_VALUE);
					for (uint32_t x = 0; x < b[j].len; x++)
						sink += b[j].data[x];
				}
			} else {
				FUZZ_ASSERT(v && !b);
				for (uint32_t j = 0; j < cnt; j++)
					sink += v[j];
			}
		}
		FUZZ_ASSERT(!gr_chunk_column(c, k->id, k->ncols));
		for (uint32_t j = 0; j < cnt; j++) {
			uint64_t ts = gr_chunk_column(c, k->id, 0)[j];

			lo = ts < lo ? ts : lo;
			hi = ts > hi ? ts : hi;
		}
	}
	FUZZ_ASSERT(total == gr_chunk_total(c) && total >= 1);
	FUZZ_ASSERT(lo == gr_chunk_first_ts(c) && hi == gr_chunk_last_ts(c));

	refs = malloc(sizeof(*refs) * total);
	FUZZ_ASSERT(refs);
	if (total > 1)
		FUZZ_ASSERT(gr_chunk_merge_by_time(c, refs, (uint32_t)total - 1) < 0);
	n = gr_chunk_merge_by_time(c, refs, (uint32_t)total);
	FUZZ_ASSERT(n >= 0 && (uint64_t)n == total);
	for (int j = 0; j < n; j++) {
		FUZZ_ASSERT(refs[j].index < gr_chunk_count(c, refs[j].kind));
		FUZZ_ASSERT(refs[j].ts == gr_chunk_column(c, refs[j].kind, 0)[refs[j].index]);
		if (j) {
			const struct gr_record_ref *a = &refs[j - 1], *b = &refs[j];

			FUZZ_ASSERT(a->ts <= b->ts);
			if (a->ts == b->ts)
				FUZZ_ASSERT(a->kind < b->kind ||
					    (a->kind == b->kind && a->index < b->index));
		}
	}
	free(refs);
}

/* Read every chunk of a fresh reader by rows: the records of the good ones, and its integrity. */
static uint64_t read_by_rows(const uint8_t *data, size_t size, uint64_t *sum,
			     struct gr_integrity *out)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_trace_reader *r;
	struct gr_chunk_decoder *d;
	const struct gr_schema *s;
	uint64_t records = 0;

	FUZZ_ASSERT(gr_trace_reader_open_mem(&r, data, size, NULL) == 0);
	FUZZ_ASSERT(gr_chunk_decoder_new(&d) == 0);
	s = gr_trace_reader_schema(r);
	*sum = 0;
	for (uint64_t i = 0; i < gr_trace_reader_index_len(r); i++) {
		const struct gr_chunk *c;
		uint64_t part = 0;
		int n = gr_chunk_decode_lazy(d, r, i, &c);

		FUZZ_ASSERT(n == 0 || n == 1);
		if (!n)
			continue;
		for (uint16_t k = 0; k < s->nkinds && n >= 0; k++) {
			const struct gr_kind_def *kd = &s->kinds[k];

			n = gr_chunk_rows_begin(d, r, kd->id);
			FUZZ_ASSERT(n < 0 || (uint32_t)n == gr_chunk_count(c, kd->id));
			while (n > 0 && (n = gr_chunk_rows_next(d, r, v, b)) > 0) {
				FUZZ_ASSERT(n <= GR_ROW_BATCH);
				for (uint16_t col = 0; col < kd->ncols; col++)
					for (int j = 0; j < n; j++)
						part += v[col] ? v[col][j] : b[col][j].len;
			}
		}
		n = gr_chunk_rows_end(d, r);
		FUZZ_ASSERT(n == 0 || n == 1);
		if (n) {
			records += gr_chunk_total(c);
			*sum += part;
		}
	}
	*out = *gr_trace_reader_integrity(r);
	gr_chunk_decoder_free(d);
	gr_trace_reader_close(r);
	return records;
}

/* The same values as the whole-chunk decoder's, in the same order as read_by_rows() sums them. */
static uint64_t sum_chunk(const struct gr_schema *s, const struct gr_chunk *c)
{
	uint64_t sum = 0;

	for (uint16_t k = 0; k < s->nkinds; k++) {
		const struct gr_kind_def *kd = &s->kinds[k];
		uint32_t cnt = gr_chunk_count(c, kd->id);

		for (uint16_t col = 0; col < kd->ncols && cnt; col++) {
			const uint64_t *v = gr_chunk_column(c, kd->id, col);
			const struct gr_bytes *b = gr_chunk_bytes(c, kd->id, col);

			for (uint32_t j = 0; j < cnt; j++)
				sum += v ? v[j] : b[j].len;
		}
	}
	return sum;
}

static void check_reader(const uint8_t *data, size_t size)
{
	struct gr_trace_reader *r = (struct gr_trace_reader *)1;
	const struct gr_integrity *in;
	const struct gr_trace_header *h;
	const struct gr_schema *s;
	const struct gr_chunk *c;
	struct gr_diag d = {0};
	uint64_t chunks = 0, records = 0, again = 0, sum = 0;
	char why[160];
	int err = gr_trace_reader_open_mem(&r, data, size, &d);

	if (err) {
		FUZZ_ASSERT(err < 0 && d.err == err && !r && d.reason[0]);
		return;
	}
	h = gr_trace_reader_header(r);
	s = gr_trace_reader_schema(r);
	in = gr_trace_reader_integrity(r);
	FUZZ_ASSERT(h->major == GR_FORMAT_MAJOR);
	FUZZ_ASSERT(h->host && h->kernel && h->tool_version && h->cmdline && h->env);
	FUZZ_ASSERT(gr_schema_check(s, why, sizeof(why)) == 0);
	FUZZ_ASSERT(in->file_bytes == size && in->bytes_unread <= size);
	FUZZ_ASSERT(gr_trace_reader_chunk_count(r) == in->chunks_ok);
	for (int pass = 0; pass < 2; pass++) {
		while ((err = gr_trace_reader_next_chunk(r, &c)) == 1) {
			check_chunk(s, c, size);
			if (pass) {
				again += gr_chunk_total(c);
			} else {
				records += gr_chunk_total(c);
				sum += sum_chunk(s, c);
			}
			chunks += !pass;
		}
		FUZZ_ASSERT(err == 0 && !c);
		gr_trace_reader_rewind(r);
	}
	FUZZ_ASSERT(chunks == in->chunks_ok && records == again);
	FUZZ_ASSERT(in->complete == (in->footer_present && !in->chunks_bad && !in->bytes_unread &&
				     !in->chunks_out_of_order));
	/* a repeated chunk is one skipped; one out of order was good at open (it may fail later) */
	FUZZ_ASSERT(in->chunks_repeated <= in->chunks_bad);
	FUZZ_ASSERT(in->chunks_out_of_order + in->chunks_repeated <= gr_trace_reader_index_len(r));
	FUZZ_ASSERT(in->complete == !in->first_problem.err);
	{
		struct gr_integrity lazy;
		uint64_t lazy_sum, lazy_records = read_by_rows(data, size, &lazy_sum, &lazy);

		FUZZ_ASSERT(lazy_records == records && lazy_sum == sum);
		FUZZ_ASSERT(lazy.chunks_ok == in->chunks_ok && lazy.chunks_bad == in->chunks_bad);
		FUZZ_ASSERT(lazy.chunks_repeated == in->chunks_repeated &&
			    lazy.chunks_out_of_order == in->chunks_out_of_order);
		FUZZ_ASSERT(lazy.complete == in->complete);
		FUZZ_ASSERT(lazy.first_problem.err == in->first_problem.err);
		FUZZ_ASSERT(lazy.first_problem.offset == in->first_problem.offset);
		FUZZ_ASSERT(!strcmp(lazy.first_problem.reason, in->first_problem.reason));
	}
	gr_trace_reader_close(r);
}

/* Recompute every CRC the layout lets us find. */
static void repair(uint8_t *p, size_t size)
{
	uint64_t off, hlen;

	if (size < GR_HDR_FROZEN || memcmp(p, GR_FILE_MAGIC, GR_MAGIC_LEN))
		return;
	hlen = gr_get_le32(p + GR_HDR_LEN);
	if (hlen < 8 || hlen > size)
		return;
	gr_put_le32(p + hlen - 4, gr_crc32(p, hlen - 4));
	for (off = hlen; off + GR_CHUNK_HDR <= size;) {
		uint64_t payload = gr_get_le32(p + off + GR_CK_PAYLOAD);

		if (memcmp(p + off, GR_CHUNK_MAGIC, 4) || off + GR_CHUNK_HDR + payload > size)
			break;
		gr_put_le32(p + off + GR_CK_PAYLOAD_CRC, gr_crc32(p + off + GR_CHUNK_HDR, payload));
		gr_put_le32(p + off + GR_CK_HDR_CRC, gr_crc32(p + off, GR_CK_HDR_CRC));
		off += GR_CHUNK_HDR + payload;
	}
	if (size >= (uint64_t)hlen + GR_TRAILER &&
	    !memcmp(p + size - GR_MAGIC_LEN, GR_TRAILER_MAGIC, GR_MAGIC_LEN)) {
		uint8_t *tr = p + size - GR_TRAILER;
		uint64_t foff = gr_get_le64(tr + GR_TR_FOOTER_OFF);
		uint64_t flen = gr_get_le64(tr + GR_TR_FOOTER_LEN);

		if (foff <= size - GR_TRAILER && flen == size - GR_TRAILER - foff)
			gr_put_le32(tr + GR_TR_FOOTER_CRC, gr_crc32(p + foff, (size_t)flen));
		gr_put_le32(tr + GR_TR_CRC, gr_crc32(tr, GR_TR_CRC));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	check_reader(data, size);
	copy = malloc(size ? size : 1);
	FUZZ_ASSERT(copy);
	memcpy(copy, data, size);
	repair(copy, size);
	if (memcmp(copy, data, size))
		check_reader(copy, size);
	free(copy);
	return 0;
}
