/* SPDX-License-Identifier: MIT */
/* One chunk: zstd frame checks, payload decode into column arrays, accessors, merge by time. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "le.h"
#include "varint.h"

static int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	void *q;

	if (*cap >= need)
		return 0;
	if (need < 4096)
		need = 4096;
	q = realloc(*p, need * elem); /* need <= GR_MAX_CHUNK_VALUES: no overflow */
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = need;
	return 0;
}

/*
 * The payload must be exactly one zstd frame (RFC 8878) declaring our raw size, a content
 * checksum, no dictionary and a window of at most 8 MiB. The frame header is parsed here since
 * libzstd exposes its window and flags only through its unstable API.
 */
static int check_frame(const uint8_t *src, size_t len, uint32_t raw, char *why, size_t whylen)
{
	static const unsigned did_len[4] = {0, 1, 2, 4}, fcs_len[4] = {0, 2, 4, 8};
	const uint8_t *p = src + 5;
	unsigned fhd, single, fcs_size, wlog;
	uint64_t window = 0, content = 0;
	size_t r;

	if (len < 6 || gr_get_le32(src) != 0xFD2FB528u) {
		snprintf(why, whylen, "payload is not a zstd frame");
		return GR_ERR_COMPRESS;
	}
	fhd = src[4];
	single = fhd >> 5 & 1;
	fcs_size = fcs_len[fhd >> 6] ? fcs_len[fhd >> 6] : single;
	if (fhd & 0x08 || len < 5 + !single + did_len[fhd & 3] + fcs_size) {
		snprintf(why, whylen, "bad zstd frame header");
		return GR_ERR_COMPRESS;
	}
	if (!single) {
		wlog = 10 + (*p >> 3);
		window = (1ull << wlog) + ((1ull << wlog) / 8) * (*p & 7);
		p++;
	}
	if (fhd & 3) {
		snprintf(why, whylen, "zstd frame needs a dictionary");
		return GR_ERR_CORRUPT;
	}
	for (unsigned i = 0; i < fcs_size; i++)
		content |= (uint64_t)p[i] << (8 * i);
	if (fcs_size == 2)
		content += 256;
	if (!fcs_size || content != raw) {
		snprintf(why, whylen,
			 "zstd frame content size %" PRIu64 ", chunk header says %" PRIu32, content,
			 raw);
		return GR_ERR_CORRUPT;
	}
	if (single)
		window = content;
	if (window > (1ull << GR_MAX_WINDOW_LOG)) {
		snprintf(why, whylen, "zstd window of %" PRIu64 " bytes above the %u allowed",
			 window, 1u << GR_MAX_WINDOW_LOG);
		return GR_ERR_LIMIT;
	}
	if (!(fhd & 0x04)) {
		snprintf(why, whylen, "zstd frame without checksum");
		return GR_ERR_CORRUPT;
	}
	r = ZSTD_findFrameCompressedSize(src, len);
	if (ZSTD_isError(r) || r != len) {
		snprintf(why, whylen, "payload is not exactly one zstd frame");
		return GR_ERR_CORRUPT;
	}
	return 0;
}

/* Pass 1: the block structure of the payload, every length checked, nothing decoded. */
static int parse_blocks(struct gr_chunk_decoder *d, const struct gr_trace_reader *r,
			const uint8_t *p, const uint8_t *end, const struct gr_chunk_hdr *h,
			uint32_t *nblocks, size_t *nvals, size_t *nbvals, char *why, size_t whylen)
{
	uint64_t n, id, count, len, records = 0, values = 0;
	int prev = 0;

	if (gr_leb_get(&p, end, &n) || n < 1 || n > r->schema.nkinds) {
		snprintf(why, whylen, "bad number of record kinds");
		return GR_ERR_CORRUPT;
	}
	*nvals = *nbvals = 0;
	for (uint32_t b = 0; b < n; b++) {
		struct block *blk = &d->blocks[b];
		const struct gr_kind_def *k;

		if (gr_leb_get(&p, end, &id)) {
			snprintf(why, whylen, "block %u: bad record kind", b);
			return GR_ERR_CORRUPT;
		}
		if (id >= GR_MAX_KINDS || r->kind_index[id] < 0) {
			snprintf(why, whylen, "unknown record kind %" PRIu64 " (not in the schema)",
				 id);
			return GR_ERR_SCHEMA;
		}
		if ((int)id <= prev) {
			snprintf(why, whylen, "record kind %" PRIu64 " out of order", id);
			return GR_ERR_CORRUPT;
		}
		prev = (int)id;
		k = &r->kinds[r->kind_index[id]];
		/* the timestamp column takes at least one byte per record */
		if (gr_leb_get(&p, end, &count) || count < 1 || count > (uint64_t)(end - p) ||
		    count > h->records - records) {
			snprintf(why, whylen, "kind '%s': bad record count", k->name);
			return GR_ERR_CORRUPT;
		}
		records += count;
		values += count * k->ncols;
		if (values > GR_MAX_CHUNK_VALUES) {
			snprintf(why, whylen, "more than %u values", GR_MAX_CHUNK_VALUES);
			return GR_ERR_LIMIT;
		}
		blk->kind = (uint16_t)id;
		blk->count = (uint32_t)count;
		for (uint16_t c = 0; c < k->ncols; c++) {
			if (gr_leb_get(&p, end, &len) || len > (uint64_t)(end - p)) {
				snprintf(why, whylen,
					 "kind '%s' column '%s': length beyond the chunk", k->name,
					 k->cols[c].name);
				return GR_ERR_CORRUPT;
			}
			blk->col[c] = p;
			blk->len[c] = (size_t)len;
			p += len;
			if (k->cols[c].codec == GR_CODEC_BYTES)
				*nbvals += (size_t)count;
			else
				*nvals += (size_t)count;
		}
	}
	if (p != end) {
		snprintf(why, whylen, "%zu bytes after the last record kind", (size_t)(end - p));
		return GR_ERR_CORRUPT;
	}
	if (records != h->records) {
		snprintf(why, whylen, "%" PRIu64 " records, chunk header says %" PRIu32, records,
			 h->records);
		return GR_ERR_CORRUPT;
	}
	*nblocks = (uint32_t)n;
	return 0;
}

int gr_decoder_init(struct gr_chunk_decoder *d)
{
	memset(d, 0, sizeof(*d));
	d->dctx = ZSTD_createDCtx();
	return d->dctx ? 0 : -ENOMEM;
}

void gr_decoder_release(struct gr_chunk_decoder *d)
{
	ZSTD_freeDCtx(d->dctx);
	gr_buf_free(&d->io);
	gr_buf_free(&d->raw);
	free(d->vals);
	free(d->bvals);
	free(d->scratch.dict);
	for (int i = 0; i < GR_MAX_COLUMNS; i++)
		free(d->dicts[i].dict);
	free(d->batch);
	free(d->bbatch);
	memset(d, 0, sizeof(*d));
}

int gr_chunk_decoder_new(struct gr_chunk_decoder **out)
{
	struct gr_chunk_decoder *d;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	d = malloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	err = gr_decoder_init(d);
	if (err) {
		gr_decoder_release(d);
		free(d);
		return err;
	}
	*out = d;
	return 0;
}

void gr_chunk_decoder_free(struct gr_chunk_decoder *d)
{
	if (!d)
		return;
	gr_decoder_release(d);
	free(d);
}

/* Forget the decoder's chunk: on failure nothing of the previous one may remain visible. */
static void forget_chunk(struct gr_chunk *c)
{
	for (uint32_t i = 0; i < c->nkinds; i++)
		c->count[c->kind_ids[i]] = 0;
	c->nkinds = 0;
	c->total = 0;
}

/* Check the frame and decompress it into d->raw. 0 or a GR_ERR_* (reason in @why) or -ENOMEM. */
static int decompress(struct gr_chunk_decoder *d, const struct gr_chunk_hdr *h,
		      const uint8_t *payload, char *why, size_t whylen)
{
	size_t n;
	int err;

	if (h->raw < 1 || h->raw > GR_MAX_CHUNK_RAW) {
		snprintf(why, whylen, "raw size %" PRIu32 " not in 1..%u", h->raw,
			 GR_MAX_CHUNK_RAW);
		return GR_ERR_LIMIT;
	}
	err = check_frame(payload, h->payload, h->raw, why, whylen);
	if (err)
		return err;
	err = gr_buf_reserve(&d->raw, h->raw);
	if (err)
		return err;
	n = ZSTD_decompressDCtx(d->dctx, d->raw.p, h->raw, payload, h->payload);
	if (ZSTD_isError(n)) {
		snprintf(why, whylen, "zstd: %s", ZSTD_getErrorName(n));
		return GR_ERR_COMPRESS;
	}
	if (n != h->raw) {
		snprintf(why, whylen, "decompressed %zu bytes, chunk header says %" PRIu32, n,
			 h->raw);
		return GR_ERR_CORRUPT;
	}
	return 0;
}

int gr_decoder_payload(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint64_t off,
		       const struct gr_chunk_hdr *h, const uint8_t *payload, char *why,
		       size_t whylen)
{
	int err;

	forget_chunk(&d->chunk);
	d->lazy = 0;
	err = decompress(d, h, payload, why, whylen);
	if (err)
		return err;
	return gr_decoder_raw(d, r, off, h, d->raw.p, why, whylen);
}

int gr_decoder_layout(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint64_t off,
		      const struct gr_chunk_hdr *h, const uint8_t *payload, char *why,
		      size_t whylen)
{
	struct gr_chunk *c = &d->chunk;
	size_t nvals, nbvals;
	int err;

	forget_chunk(c);
	d->lazy = 0;
	err = decompress(d, h, payload, why, whylen);
	if (!err)
		err = parse_blocks(d, r, d->raw.p, d->raw.p + h->raw, h, &d->nblocks, &nvals,
				   &nbvals, why, whylen);
	if (err)
		return err;
	if (!d->batch) {
		d->batch = malloc((size_t)GR_MAX_COLUMNS * GR_ROW_BATCH * sizeof(*d->batch));
		d->bbatch = malloc((size_t)GR_MAX_COLUMNS * GR_ROW_BATCH * sizeof(*d->bbatch));
		if (!d->batch || !d->bbatch)
			return -ENOMEM;
	}
	for (uint32_t b = 0; b < d->nblocks; b++) {
		c->kind_ids[b] = d->blocks[b].kind;
		c->count[d->blocks[b].kind] = d->blocks[b].count;
		for (int col = 0; col < GR_MAX_COLUMNS; col++) {
			c->v[d->blocks[b].kind][col] = NULL;
			c->b[d->blocks[b].kind][col] = NULL;
		}
	}
	c->nkinds = d->nblocks;
	c->total = h->records;
	c->offset = off;
	c->first_ts = h->first_ts;
	c->last_ts = h->last_ts;
	d->hdr = *h;
	d->lazy = 1;
	d->lo = UINT64_MAX;
	d->hi = 0;
	d->read = 0;
	d->rb = -1;
	d->rleft = 0;
	return 0;
}

int gr_chunk_decode_raw(struct gr_trace_reader *r, uint64_t off, const struct gr_chunk_hdr *h,
			const uint8_t *raw, char *why, size_t whylen)
{
	return gr_decoder_raw(&r->dec, r, off, h, raw, why, whylen);
}

int gr_decoder_raw(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint64_t off,
		   const struct gr_chunk_hdr *h, const uint8_t *raw, char *why, size_t whylen)
{
	struct gr_chunk *c = &d->chunk;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t nvals, nbvals;
	uint64_t *vp;
	struct gr_bytes *bp;
	uint32_t nblocks;
	int err;

	forget_chunk(c);
	err = parse_blocks(d, r, raw, raw + h->raw, h, &nblocks, &nvals, &nbvals, why, whylen);
	if (err)
		return err;
	err = grow_array((void **)&d->vals, &d->vals_cap, nvals, sizeof(*d->vals));
	if (!err)
		err = grow_array((void **)&d->bvals, &d->bvals_cap, nbvals, sizeof(*d->bvals));
	if (err)
		return err;

	vp = d->vals;
	bp = d->bvals;
	for (uint32_t b = 0; b < nblocks; b++) {
		const struct block *blk = &d->blocks[b];
		const struct gr_kind_def *k = &r->kinds[r->kind_index[blk->kind]];
		const uint64_t *ts = vp;
		const char *cwhy;

		for (uint16_t col = 0; col < k->ncols; col++) {
			uint8_t codec = k->cols[col].codec;

			err = gr_col_decode(codec, blk->col[col], blk->len[col], blk->count, vp, bp,
					    &d->scratch, &cwhy);
			if (err == -ENOMEM)
				return err;
			if (err) {
				snprintf(why, whylen, "kind '%s' column '%s' (%s): %s", k->name,
					 k->cols[col].name, gr_codec_name(codec), cwhy);
				return err;
			}
			if (codec == GR_CODEC_BYTES) {
				c->v[blk->kind][col] = NULL;
				c->b[blk->kind][col] = bp;
				bp += blk->count;
			} else {
				c->v[blk->kind][col] = vp;
				c->b[blk->kind][col] = NULL;
				vp += blk->count;
			}
		}
		for (uint16_t col = k->ncols; col < GR_MAX_COLUMNS; col++) {
			c->v[blk->kind][col] = NULL;
			c->b[blk->kind][col] = NULL;
		}
		for (uint32_t i = 0; i < blk->count; i++) {
			lo = ts[i] < lo ? ts[i] : lo;
			hi = ts[i] > hi ? ts[i] : hi;
		}
	}
	if (lo != h->first_ts || hi != h->last_ts) {
		snprintf(why, whylen,
			 "timestamps span %" PRIu64 "..%" PRIu64 ", chunk header says %" PRIu64
			 "..%" PRIu64,
			 lo, hi, h->first_ts, h->last_ts);
		return GR_ERR_CORRUPT;
	}
	for (uint32_t b = 0; b < nblocks; b++) {
		c->kind_ids[b] = d->blocks[b].kind;
		c->count[d->blocks[b].kind] = d->blocks[b].count;
	}
	c->nkinds = nblocks;
	c->total = h->records;
	c->offset = off;
	c->first_ts = h->first_ts;
	c->last_ts = h->last_ts;
	return 0;
}

uint64_t gr_chunk_offset(const struct gr_chunk *c)
{
	return c ? c->offset : 0;
}

uint64_t gr_chunk_first_ts(const struct gr_chunk *c)
{
	return c ? c->first_ts : 0;
}

uint64_t gr_chunk_last_ts(const struct gr_chunk *c)
{
	return c ? c->last_ts : 0;
}

uint32_t gr_chunk_count(const struct gr_chunk *c, uint16_t kind)
{
	return c && kind < GR_MAX_KINDS ? c->count[kind] : 0;
}

const uint64_t *gr_chunk_column(const struct gr_chunk *c, uint16_t kind, uint16_t col)
{
	if (!c || kind >= GR_MAX_KINDS || col >= GR_MAX_COLUMNS || !c->count[kind])
		return NULL;
	return c->v[kind][col];
}

const struct gr_bytes *gr_chunk_bytes(const struct gr_chunk *c, uint16_t kind, uint16_t col)
{
	if (!c || kind >= GR_MAX_KINDS || col >= GR_MAX_COLUMNS || !c->count[kind])
		return NULL;
	return c->b[kind][col];
}

uint32_t gr_chunk_total(const struct gr_chunk *c)
{
	return c ? c->total : 0;
}

/* Stable bottom-up merge sort by ts, for kinds whose records were appended out of order. */
static int sort_refs(struct gr_record_ref *a, uint32_t n)
{
	struct gr_record_ref *tmp = malloc(sizeof(*tmp) * (n ? n : 1)), *src = a, *dst = tmp;

	if (!tmp)
		return -ENOMEM;
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n;
			uint32_t hi = mid + w < n ? mid + w : n;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = src[j].ts < src[i].ts ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct gr_record_ref *t = src;

		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof(*a) * n);
	free(tmp);
	return 0;
}

int gr_chunk_merge_by_time(const struct gr_chunk *c, struct gr_record_ref *out, uint32_t n)
{
	uint32_t pos[GR_MAX_KINDS] = {0}, nk, k, total;
	int sorted = 1;

	if (!c || (!out && c->total))
		return -EINVAL;
	total = c->total;
	if (n < total)
		return -ENOSPC;
	if (total > INT32_MAX)
		return GR_ERR_LIMIT;
	nk = c->nkinds;
	for (k = 0; k < nk && sorted; k++) {
		uint16_t id = c->kind_ids[k];
		const uint64_t *ts = c->v[id][0];

		for (uint32_t i = 1; i < c->count[id]; i++) {
			if (ts[i] < ts[i - 1]) {
				sorted = 0;
				break;
			}
		}
	}
	if (!sorted) {
		uint32_t o = 0;

		for (k = 0; k < nk; k++) {
			uint16_t id = c->kind_ids[k];

			for (uint32_t i = 0; i < c->count[id]; i++)
				out[o++] = (struct gr_record_ref){id, i, c->v[id][0][i]};
		}
		int err = sort_refs(out, total);

		return err ? err : (int)total;
	}
	/* k-way merge of sorted runs; ties go to the lower kind id (the earlier run) */
	for (uint32_t o = 0; o < total; o++) {
		uint32_t best = UINT32_MAX;
		uint64_t best_ts = 0;

		for (k = 0; k < nk; k++) {
			uint16_t id = c->kind_ids[k];

			if (pos[k] < c->count[id] &&
			    (best == UINT32_MAX || c->v[id][0][pos[k]] < best_ts)) {
				best = k;
				best_ts = c->v[id][0][pos[k]];
			}
		}
		out[o].kind = c->kind_ids[best];
		out[o].index = pos[best]++;
		out[o].ts = best_ts;
	}
	return (int)total;
}
