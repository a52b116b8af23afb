/* SPDX-License-Identifier: MIT */
/*
 * The trace writer: the header at open, records buffered column-wise per kind, one zstd frame
 * per chunk, the chunk index (footer) and trailer at close. docs/FORMAT.md has the layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "column.h"
#include "layout.h"
#include "le.h"
#include "varint.h"

#define DEFAULT_CHUNK_RAW (4u << 20)
#define DEFAULT_CHUNK_NS  1000000000ull
#define DEFAULT_LEVEL	  3

/*
 * Upper bounds of the framing around the columns in a chunk payload: the kind id (< 64) takes
 * one byte, a record count, a column length or a dictionary size (< 2^28) at most four.
 */
#define FRAME_BLOCKS   1
#define FRAME_KIND     (1 + 4)
#define FRAME_COLUMN   4
#define FRAME_DICT     4
#define VALUE_BOUND    GR_LEB_MAX
#define DICT_NEW_BOUND (2 * GR_LEB_MAX)

struct wkind {
	const struct gr_kind_def *def;
	uint32_t rows;
	uint32_t framing; /* bound of this kind's framing bytes in a chunk */
	struct gr_colenc *cols;
};

struct gr_trace_writer {
	int fd;
	int err; /* first error; once set, appends fail with GR_ERR_STATE */
	const struct gr_schema *schema;
	struct wkind kinds[GR_MAX_KINDS]; /* by kind id; def NULL when not in the schema */
	uint32_t chunk_raw;
	uint64_t chunk_ns;
	int level;
	ZSTD_CCtx *cctx;
	/* the pending chunk */
	uint64_t present; /* bit per kind id with rows */
	uint32_t pending; /* records */
	uint64_t values;  /* records x columns */
	size_t raw_bound; /* the payload is at most this many bytes */
	uint64_t first_ts, min_ts, max_ts;
	/* totals */
	uint32_t seq;
	uint64_t records;
	uint64_t file_bytes;
	struct gr_buf raw, out;
	struct gr_buf footer; /* fixed part + one entry per chunk written */
	uint64_t nchunks;
};

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Remember the first error; later appends see GR_ERR_STATE. */
static int fail(struct gr_trace_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return err;
}

static int put_str(struct gr_buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	int err;

	if (len > GR_MAX_HEADER)
		return GR_ERR_LIMIT;
	err = gr_buf_reserve(b, 4 + len);
	if (err)
		return err;
	gr_put_le32(b->p + b->len, (uint32_t)len);
	if (len)
		memcpy(b->p + b->len + 4, s, len);
	b->len += 4 + len;
	return 0;
}

static int put_name(struct gr_buf *b, const char *s)
{
	size_t len = strlen(s); /* 1..GR_MAX_NAME: gr_schema_check() */
	int err = gr_buf_reserve(b, 1 + len);

	if (err)
		return err;
	b->p[b->len] = (uint8_t)len;
	memcpy(b->p + b->len + 1, s, len);
	b->len += 1 + len;
	return 0;
}

static int put_u16(struct gr_buf *b, uint16_t v)
{
	int err = gr_buf_reserve(b, 2);

	if (err)
		return err;
	gr_put_le16(b->p + b->len, v);
	b->len += 2;
	return 0;
}

static int build_header(struct gr_buf *b, const struct gr_trace_header *hdr,
			const struct gr_schema *s)
{
	static const struct gr_trace_header none;
	const char *strs[GR_HDR_STRINGS];
	uint8_t *p;
	int err;

	if (!hdr)
		hdr = &none;
	err = gr_buf_reserve(b, GR_HDR_FIXED);
	if (err)
		return err;
	p = b->p;
	memset(p, 0, GR_HDR_FIXED);
	memcpy(p, GR_FILE_MAGIC, GR_MAGIC_LEN);
	gr_put_le16(p + GR_HDR_MAJOR, GR_FORMAT_MAJOR);
	gr_put_le16(p + GR_HDR_MINOR, GR_FORMAT_MINOR);
	gr_put_le64(p + GR_HDR_REQUIRED, hdr->required_features);
	gr_put_le64(p + GR_HDR_OPTIONAL, hdr->optional_features);
	memcpy(p + GR_HDR_SESSION, hdr->session_id, 16);
	gr_put_le64(p + GR_HDR_MONO, hdr->clock_monotonic_ns);
	gr_put_le64(p + GR_HDR_REAL, hdr->clock_realtime_ns);
	b->len = GR_HDR_FIXED;

	strs[0] = hdr->host;
	strs[1] = hdr->kernel;
	strs[2] = hdr->tool_version;
	strs[3] = hdr->cmdline;
	strs[4] = hdr->env;
	for (int i = 0; i < GR_HDR_STRINGS && !err; i++)
		err = put_str(b, strs[i]);
	if (!err)
		err = put_u16(b, s->nkinds);
	for (uint16_t i = 0; i < s->nkinds && !err; i++) {
		const struct gr_kind_def *k = &s->kinds[i];

		err = put_u16(b, k->id);
		if (!err)
			err = put_u16(b, k->ncols);
		if (!err)
			err = put_name(b, k->name);
		for (uint16_t c = 0; c < k->ncols && !err; c++) {
			err = gr_buf_reserve(b, 1);
			if (err)
				break;
			b->p[b->len++] = k->cols[c].codec;
			err = put_name(b, k->cols[c].name);
		}
	}
	if (err)
		return err;
	if (b->len + 4 > GR_MAX_HEADER)
		return GR_ERR_LIMIT;
	err = gr_buf_reserve(b, 4);
	if (err)
		return err;
	gr_put_le32(b->p + GR_HDR_LEN, (uint32_t)(b->len + 4));
	gr_put_le32(b->p + b->len, gr_crc32(b->p, b->len));
	b->len += 4;
	return 0;
}

static void free_kinds(struct gr_trace_writer *w)
{
	for (int i = 0; i < GR_MAX_KINDS; i++) {
		struct wkind *k = &w->kinds[i];

		if (!k->cols)
			continue;
		for (uint16_t c = 0; c < k->def->ncols; c++)
			gr_colenc_free(&k->cols[c]);
		free(k->cols);
	}
}

/* On failure the writer does not exist and @fd stays the caller's, open. */
int gr_trace_writer_open(struct gr_trace_writer **out, int fd, const struct gr_trace_header *hdr,
			 const struct gr_schema *schema, const struct gr_writer_opts *opts)
{
	struct gr_trace_writer *w = NULL;
	struct gr_buf hb = {0};
	char why[160];
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (fd < 0)
		return -EBADF;
	err = gr_schema_check(schema, why, sizeof(why));
	if (err)
		return err;
	if (hdr && (hdr->required_features & ~GR_FEATURES_REQUIRED_KNOWN))
		return GR_ERR_VERSION;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->schema = schema;
	w->chunk_raw = opts && opts->chunk_raw_bytes ? opts->chunk_raw_bytes : DEFAULT_CHUNK_RAW;
	w->chunk_ns = opts && opts->chunk_ns ? opts->chunk_ns : DEFAULT_CHUNK_NS;
	w->level = opts && opts->zstd_level ? opts->zstd_level : DEFAULT_LEVEL;
	err = GR_ERR_LIMIT;
	if (w->chunk_raw > GR_MAX_CHUNK_RAW / 2)
		goto err;
	err = -EINVAL;
	if (w->level < ZSTD_minCLevel() || w->level > ZSTD_maxCLevel())
		goto err;

	for (uint16_t i = 0; i < schema->nkinds; i++) {
		const struct gr_kind_def *d = &schema->kinds[i];
		struct wkind *k = &w->kinds[d->id];

		k->cols = calloc(d->ncols, sizeof(*k->cols));
		err = -ENOMEM;
		if (!k->cols)
			goto err;
		k->def = d;
		k->framing = FRAME_KIND + (uint32_t)d->ncols * FRAME_COLUMN;
		for (uint16_t c = 0; c < d->ncols; c++) {
			gr_colenc_init(&k->cols[c], d->cols[c].codec);
			if (d->cols[c].codec == GR_CODEC_DICT)
				k->framing += FRAME_DICT;
		}
	}
	err = -ENOMEM;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx)
		goto err;
	err = gr_buf_reserve(&w->footer, GR_FOOTER_FIXED);
	if (err)
		goto err;
	memcpy(w->footer.p, GR_FOOTER_MAGIC, 4);
	memset(w->footer.p + 4, 0, GR_FOOTER_FIXED - 4);
	w->footer.len = GR_FOOTER_FIXED;

	err = build_header(&hb, hdr, schema);
	if (err)
		goto err;
	err = write_all(fd, hb.p, hb.len);
	if (err)
		goto err;
	w->file_bytes = hb.len;
	gr_buf_free(&hb);
	*out = w;
	return 0;
err:
	gr_buf_free(&hb);
	free_kinds(w);
	ZSTD_freeCCtx(w->cctx);
	gr_buf_free(&w->footer);
	free(w);
	return err;
}

/*
 * One frame with its content size and checksum. The window is capped at 8 MiB so that any
 * reader can decode it with bounded memory; zstd shrinks it further for smaller chunks.
 */
static int compress(struct gr_trace_writer *w, size_t raw_len, size_t *clen)
{
	size_t bound = ZSTD_compressBound(raw_len), r;
	int err;

	err = gr_buf_reserve(&w->out, GR_CHUNK_HDR + bound);
	if (err)
		return err;
	ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_and_parameters);
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, GR_MAX_WINDOW_LOG)))
		return GR_ERR_COMPRESS;
	r = ZSTD_compress2(w->cctx, w->out.p + GR_CHUNK_HDR, bound, w->raw.p, raw_len);
	if (ZSTD_isError(r))
		return GR_ERR_COMPRESS;
	*clen = r;
	return 0;
}

static int add_index_entry(struct gr_trace_writer *w, uint64_t offset, uint32_t size)
{
	uint8_t *p;
	int err;

	err = gr_buf_reserve(&w->footer, GR_FOOTER_ENTRY + 4 * GR_MAX_KINDS);
	if (err)
		return err;
	p = w->footer.p + w->footer.len;
	gr_put_le64(p, offset);
	gr_put_le32(p + 8, size);
	gr_put_le32(p + 12, w->pending);
	gr_put_le64(p + 16, w->min_ts);
	gr_put_le64(p + 24, w->max_ts);
	gr_put_le64(p + 32, w->present);
	p += GR_FOOTER_ENTRY;
	for (int id = 1; id < GR_MAX_KINDS; id++) {
		if (w->present >> id & 1) {
			gr_put_le32(p, w->kinds[id].rows);
			p += 4;
		}
	}
	w->footer.len = (size_t)(p - w->footer.p);
	w->nchunks++;
	return 0;
}

int gr_trace_writer_flush(struct gr_trace_writer *w)
{
	struct gr_chunk_hdr h = {0};
	size_t clen = 0;
	uint8_t *p;
	int err;

	if (!w)
		return -EINVAL;
	if (w->err)
		return GR_ERR_STATE;
	if (!w->pending)
		return 0;
	err = gr_buf_reserve(&w->raw, w->raw_bound);
	if (err)
		return fail(w, err);
	p = gr_leb_put(w->raw.p, (uint64_t)__builtin_popcountll(w->present));
	for (int id = 1; id < GR_MAX_KINDS; id++) {
		struct wkind *k = &w->kinds[id];

		if (!(w->present >> id & 1))
			continue;
		p = gr_leb_put(p, (uint64_t)id);
		p = gr_leb_put(p, k->rows);
		for (uint16_t c = 0; c < k->def->ncols; c++) {
			p = gr_leb_put(p, gr_colenc_size(&k->cols[c]));
			p = gr_colenc_emit(&k->cols[c], p);
		}
	}
	h.raw = (uint32_t)(p - w->raw.p);
	if ((size_t)h.raw > w->raw_bound || h.raw > GR_MAX_CHUNK_RAW)
		return fail(w, GR_ERR_LIMIT); /* cannot happen: the bound is an upper bound */
	err = compress(w, h.raw, &clen);
	if (err)
		return fail(w, err);
	h.seq = w->seq;
	h.payload = (uint32_t)clen;
	h.records = w->pending;
	h.payload_crc = gr_crc32(w->out.p + GR_CHUNK_HDR, clen);
	h.first_ts = w->min_ts;
	h.last_ts = w->max_ts;
	gr_chunk_hdr_put(w->out.p, &h);
	err = write_all(w->fd, w->out.p, GR_CHUNK_HDR + clen);
	if (err)
		return fail(w, err);
	err = add_index_entry(w, w->file_bytes, (uint32_t)(GR_CHUNK_HDR + clen));
	if (err)
		return fail(w, err);
	w->file_bytes += GR_CHUNK_HDR + clen;
	w->seq++;

	for (int id = 1; id < GR_MAX_KINDS; id++) {
		struct wkind *k = &w->kinds[id];

		if (!(w->present >> id & 1))
			continue;
		for (uint16_t c = 0; c < k->def->ncols; c++)
			gr_colenc_reset(&k->cols[c]);
		k->rows = 0;
	}
	w->present = 0;
	w->pending = 0;
	w->values = 0;
	w->raw_bound = 0;
	return 0;
}

int gr_trace_writer_append(struct gr_trace_writer *w, uint16_t kind, const uint64_t *values,
			   const struct gr_bytes *bytes)
{
	const struct gr_kind_def *d;
	struct wkind *k;
	size_t bound = 0;
	unsigned nb = 0;
	uint64_t ts;
	int err, first;

	if (!w || !values)
		return -EINVAL;
	if (w->err)
		return GR_ERR_STATE;
	if (kind >= GR_MAX_KINDS || !w->kinds[kind].def)
		return GR_ERR_SCHEMA;
	k = &w->kinds[kind];
	d = k->def;
	for (uint16_t c = 0; c < d->ncols; c++) {
		switch (d->cols[c].codec) {
		case GR_CODEC_BYTES:
			if (!bytes || (bytes[nb].len && !bytes[nb].data))
				return -EINVAL;
			if (bytes[nb].len > GR_MAX_BYTES_VALUE)
				return GR_ERR_LIMIT;
			bound += VALUE_BOUND + bytes[nb++].len;
			break;
		case GR_CODEC_DICT:
			bound += DICT_NEW_BOUND;
			break;
		default:
			bound += VALUE_BOUND;
		}
	}
	if (!k->rows)
		bound += k->framing;
	if (bound > GR_MAX_CHUNK_RAW / 2 - FRAME_BLOCKS)
		return GR_ERR_LIMIT;

	ts = values[0];
	if (w->pending &&
	    ((ts > w->first_ts && ts - w->first_ts > w->chunk_ns) ||
	     w->raw_bound + bound > GR_MAX_CHUNK_RAW ||
	     w->values + d->ncols > GR_MAX_CHUNK_VALUES || k->rows == UINT32_MAX / 2)) {
		err = gr_trace_writer_flush(w);
		if (err)
			return err;
	}
	first = !k->rows;
	if (!w->pending) {
		w->first_ts = w->min_ts = w->max_ts = ts;
		w->raw_bound = FRAME_BLOCKS;
	}
	if (first)
		w->raw_bound += k->framing;
	nb = 0;
	for (uint16_t c = 0; c < d->ncols; c++) {
		if (d->cols[c].codec == GR_CODEC_BYTES) {
			err = gr_colenc_add_bytes(&k->cols[c], bytes[nb].data, bytes[nb].len);
			nb++;
		} else {
			err = gr_colenc_add(&k->cols[c], values[c]);
		}
		if (err < 0)
			return fail(w, err); /* the pending chunk is now inconsistent: stop */
		w->raw_bound += (size_t)err;
	}
	if (first)
		w->present |= 1ull << kind;
	k->rows++;
	w->pending++;
	w->records++;
	w->values += d->ncols;
	if (ts < w->min_ts)
		w->min_ts = ts;
	if (ts > w->max_ts)
		w->max_ts = ts;
	if (w->raw_bound >= w->chunk_raw)
		return gr_trace_writer_flush(w);
	return 0;
}

uint64_t gr_trace_writer_pending(const struct gr_trace_writer *w, uint64_t *oldest_ts)
{
	if (!w || !w->pending)
		return 0;
	*oldest_ts = w->min_ts;
	return w->pending;
}

uint64_t gr_trace_writer_records(const struct gr_trace_writer *w)
{
	return w ? w->records : 0;
}

uint64_t gr_trace_writer_file_bytes(const struct gr_trace_writer *w)
{
	return w ? w->file_bytes : 0;
}

static int write_footer(struct gr_trace_writer *w)
{
	uint8_t tr[GR_TRAILER];
	int err;

	gr_put_le64(w->footer.p + 8, w->nchunks);
	gr_put_le64(tr + GR_TR_FOOTER_OFF, w->file_bytes);
	gr_put_le64(tr + GR_TR_FOOTER_LEN, w->footer.len);
	gr_put_le32(tr + GR_TR_FOOTER_CRC, gr_crc32(w->footer.p, w->footer.len));
	gr_put_le32(tr + GR_TR_CRC, gr_crc32(tr, GR_TR_CRC));
	memcpy(tr + GR_TR_MAGIC, GR_TRAILER_MAGIC, GR_MAGIC_LEN);
	err = write_all(w->fd, w->footer.p, w->footer.len);
	if (!err)
		err = write_all(w->fd, tr, sizeof(tr));
	if (err)
		return fail(w, err);
	w->file_bytes += w->footer.len + sizeof(tr);
	return 0;
}

int gr_trace_writer_close(struct gr_trace_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = gr_trace_writer_flush(w);
	if (!err)
		err = write_footer(w);
	/* fsync of a pipe or a character device is EINVAL: nothing to make durable there */
	if (!err && fsync(w->fd) && errno != EINVAL)
		err = fail(w, -errno);
	if (close(w->fd) && !err && errno != EINTR)
		err = fail(w, -errno);
	if (w->err)
		err = w->err;
	free_kinds(w);
	ZSTD_freeCCtx(w->cctx);
	gr_buf_free(&w->raw);
	gr_buf_free(&w->out);
	gr_buf_free(&w->footer);
	free(w);
	return err;
}
