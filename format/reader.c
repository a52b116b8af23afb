/* SPDX-License-Identifier: MIT */
/*
 * The trace reader: header and schema validation, the chunk index from the footer or, without a
 * usable footer, from a scan of the chunks (recovery), and iteration over the good chunks.
 * Every length read from the file is checked against the bytes present and the hard caps before
 * it is used to allocate or index. docs/FORMAT.md describes the layout and the recovery rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "le.h"

#define MAX_PAYLOAD (ZSTD_COMPRESSBOUND(GR_MAX_CHUNK_RAW))
#define SCAN_BLOCK  (1u << 20)

int gr_reader_read_into(const struct gr_trace_reader *r, struct gr_buf *io, uint64_t off,
			size_t len, const uint8_t **p)
{
	size_t got = 0;
	int err;

	if (off > r->size || len > r->size - off)
		return GR_ERR_TRUNCATED;
	if (r->fd < 0) {
		*p = r->mem + off;
		return 0;
	}
	err = gr_buf_reserve(io, len);
	if (err)
		return err;
	while (got < len) {
		ssize_t n = pread(r->fd, io->p + got, len - got, (off_t)(off + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return GR_ERR_TRUNCATED; /* the file shrank since open */
		got += (size_t)n;
	}
	*p = io->p;
	return 0;
}

int gr_reader_read(struct gr_trace_reader *r, uint64_t off, size_t len, const uint8_t **p)
{
	return gr_reader_read_into(r, &r->io, off, len, p);
}

/* Like gr_reader_read(), into caller memory (small fixed-size fields). */
static int read_copy(struct gr_trace_reader *r, uint64_t off, size_t len, void *dst)
{
	const uint8_t *p;
	int err = gr_reader_read(r, off, len, &p);

	if (!err)
		memcpy(dst, p, len);
	return err;
}

void gr_reader_problem(struct gr_trace_reader *r, int err, uint64_t off, const char *fmt, ...)
{
	struct gr_diag *d = &r->integ.first_problem;
	va_list ap;

	/* the problem nearest the start of the file wins, whenever it is found */
	if (d->err && d->offset <= off)
		return;
	d->err = err;
	d->offset = off;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

/* ---- header ---- */

struct cursor {
	const uint8_t *p, *end, *base;
};

static uint64_t cur_off(const struct cursor *c)
{
	return (uint64_t)(c->p - c->base);
}

/* A string of the header (u32 length) or a name (u8 length), copied NUL-terminated. */
static int take_str(struct cursor *c, char **arena, int name, const char **out)
{
	size_t w = name ? 1 : 4, len;

	if ((size_t)(c->end - c->p) < w)
		return GR_ERR_TRUNCATED;
	len = name ? c->p[0] : gr_get_le32(c->p);
	c->p += w;
	if (len > (size_t)(c->end - c->p))
		return GR_ERR_TRUNCATED;
	if (memchr(c->p, 0, len))
		return GR_ERR_CORRUPT;
	memcpy(*arena, c->p, len);
	(*arena)[len] = 0;
	*out = *arena;
	*arena += len + 1;
	c->p += len;
	return 0;
}

static int take_u16(struct cursor *c, uint16_t *v)
{
	if (c->end - c->p < 2)
		return GR_ERR_TRUNCATED;
	*v = gr_get_le16(c->p);
	c->p += 2;
	return 0;
}

static int parse_schema(struct gr_trace_reader *r, struct cursor *c, char **arena,
			struct gr_diag *diag)
{
	static const char *const what = "header schema";
	uint16_t nk, id, ncols;
	size_t ncols_total = 0;
	uint64_t at;
	int err;

	at = cur_off(c);
	if (take_u16(c, &nk))
		return gr_diag_set(diag, GR_ERR_CORRUPT, at, "%s: ends before the kind count",
				   what);
	if (nk < 1 || nk >= GR_MAX_KINDS)
		return gr_diag_set(diag, GR_ERR_LIMIT, at, "%s: %u record kinds, allowed 1..%d",
				   what, nk, GR_MAX_KINDS - 1);
	r->cols = calloc((size_t)nk * GR_MAX_COLUMNS, sizeof(*r->cols));
	if (!r->cols)
		return -ENOMEM;
	for (uint16_t i = 0; i < nk; i++) {
		struct gr_kind_def *k = &r->kinds[i];
		struct gr_column_def *cols = r->cols + ncols_total;

		at = cur_off(c);
		if (take_u16(c, &id) || take_u16(c, &ncols))
			return gr_diag_set(diag, GR_ERR_CORRUPT, at, "%s: kind %u cut short", what,
					   i);
		if (ncols < 1 || ncols > GR_MAX_COLUMNS)
			return gr_diag_set(diag, GR_ERR_LIMIT, at,
					   "%s: kind %u has %u columns, allowed 1..%d", what, id,
					   ncols, GR_MAX_COLUMNS);
		err = take_str(c, arena, 1, &k->name);
		if (err)
			return gr_diag_set(diag, GR_ERR_CORRUPT, at, "%s: kind %u: bad name", what,
					   id);
		k->id = id;
		k->ncols = ncols;
		k->cols = cols;
		for (uint16_t j = 0; j < ncols; j++) {
			at = cur_off(c);
			if (c->p >= c->end)
				return gr_diag_set(diag, GR_ERR_CORRUPT, at,
						   "%s: kind '%s' column %u cut short", what,
						   k->name, j);
			cols[j].codec = *c->p++;
			err = take_str(c, arena, 1, &cols[j].name);
			if (err)
				return gr_diag_set(diag, GR_ERR_CORRUPT, at,
						   "%s: kind '%s' column %u: bad name", what,
						   k->name, j);
		}
		ncols_total += ncols;
	}
	r->schema.nkinds = nk;
	r->schema.kinds = r->kinds;
	return 0;
}

static int parse_header(struct gr_trace_reader *r, struct gr_diag *diag)
{
	uint8_t fixed[GR_HDR_FROZEN];
	const char **strs[GR_HDR_STRINGS] = {&r->hdr.host, &r->hdr.kernel, &r->hdr.tool_version,
					     &r->hdr.cmdline, &r->hdr.env};
	static const char *const str_names[GR_HDR_STRINGS] = {"host", "kernel", "tool version",
							      "command line", "environment"};
	const uint8_t *p;
	struct cursor c;
	uint32_t hlen, crc, want;
	uint64_t unknown;
	char why[160], *arena;
	int err;

	if (r->size == 0)
		return gr_diag_set(diag, GR_ERR_TRUNCATED, 0, "empty file (0 bytes)");
	err = read_copy(r, 0, r->size < GR_HDR_FROZEN ? r->size : GR_HDR_FROZEN, fixed);
	if (err)
		return gr_diag_set(diag, err, 0, "cannot read the header: %s", gr_strerror(err));
	if (r->size < GR_MAGIC_LEN && !memcmp(fixed, GR_FILE_MAGIC, r->size))
		return gr_diag_set(diag, GR_ERR_TRUNCATED, 0,
				   "file is %" PRIu64 " bytes, shorter than a trace header",
				   r->size);
	if (r->size >= GR_MAGIC_LEN && !memcmp(fixed, GR_FILE_MAGIC_BE, GR_MAGIC_LEN))
		return gr_diag_set(diag, GR_ERR_MAGIC, 0,
				   "big-endian gpurec trace: this reader reads little-endian only");
	if (r->size < GR_MAGIC_LEN || memcmp(fixed, GR_FILE_MAGIC, GR_MAGIC_LEN)) {
		char hex[3 * GR_MAGIC_LEN + 1] = "";

		for (unsigned i = 0; i < GR_MAGIC_LEN && i < r->size; i++)
			snprintf(hex + 3 * i, 4, "%02x ", fixed[i]);
		return gr_diag_set(
		    diag, GR_ERR_MAGIC, 0,
		    "not a gpurec trace: file starts with %s(expected 89 47 52 54 52 "
		    "4c 45 0a)",
		    hex);
	}
	if (r->size < GR_HDR_FROZEN)
		return gr_diag_set(diag, GR_ERR_TRUNCATED, 0,
				   "file is %" PRIu64 " bytes, shorter than a trace header",
				   r->size);
	r->hdr.major = gr_get_le16(fixed + GR_HDR_MAJOR);
	r->hdr.minor = gr_get_le16(fixed + GR_HDR_MINOR);
	hlen = gr_get_le32(fixed + GR_HDR_LEN);
	if (r->hdr.major > GR_FORMAT_MAJOR)
		return gr_diag_set(diag, GR_ERR_VERSION, GR_HDR_MAJOR,
				   "trace format version %u.%u is newer than this gpurec reads "
				   "(%u.%u): upgrade gpurec",
				   r->hdr.major, r->hdr.minor, GR_FORMAT_MAJOR, GR_FORMAT_MINOR);
	if (r->hdr.major < 1)
		return gr_diag_set(diag, GR_ERR_VERSION, GR_HDR_MAJOR,
				   "trace format version %u.%u is not supported (this gpurec reads "
				   "%u.x)",
				   r->hdr.major, r->hdr.minor, GR_FORMAT_MAJOR);
	if (hlen < GR_HDR_FIXED + 4 * GR_HDR_STRINGS + 2 + 4)
		return gr_diag_set(diag, GR_ERR_CORRUPT, GR_HDR_LEN,
				   "header length %" PRIu32 " is below the minimum %d", hlen,
				   GR_HDR_FIXED + 4 * GR_HDR_STRINGS + 2 + 4);
	if (hlen > GR_MAX_HEADER)
		return gr_diag_set(diag, GR_ERR_LIMIT, GR_HDR_LEN,
				   "header length %" PRIu32 " is above the limit %u", hlen,
				   GR_MAX_HEADER);
	if (hlen > r->size)
		return gr_diag_set(diag, GR_ERR_TRUNCATED, r->size,
				   "header needs %" PRIu32 " bytes, file has %" PRIu64, hlen,
				   r->size);
	err = gr_reader_read(r, 0, hlen, &p);
	if (err)
		return gr_diag_set(diag, err, 0, "cannot read the header: %s", gr_strerror(err));
	crc = gr_crc32(p, hlen - 4);
	want = gr_get_le32(p + hlen - 4);
	if (crc != want)
		return gr_diag_set(diag, GR_ERR_CHECKSUM, hlen - 4,
				   "header CRC32 0x%08" PRIx32 ", expected 0x%08" PRIx32, crc,
				   want);
	r->hdr.required_features = gr_get_le64(p + GR_HDR_REQUIRED);
	r->hdr.optional_features = gr_get_le64(p + GR_HDR_OPTIONAL);
	unknown = r->hdr.required_features & ~GR_FEATURES_REQUIRED_KNOWN;
	if (unknown)
		return gr_diag_set(diag, GR_ERR_VERSION, GR_HDR_REQUIRED,
				   "trace requires features 0x%" PRIx64
				   " that this gpurec does not know: upgrade gpurec",
				   unknown);
	memcpy(r->hdr.session_id, p + GR_HDR_SESSION, 16);
	r->hdr.clock_monotonic_ns = gr_get_le64(p + GR_HDR_MONO);
	r->hdr.clock_realtime_ns = gr_get_le64(p + GR_HDR_REAL);
	r->header_len = hlen;

	/* every string has a length prefix of at least one byte: room for its NUL */
	r->strings = arena = malloc(2 * (size_t)hlen);
	if (!arena)
		return -ENOMEM;
	c.base = p;
	c.p = p + GR_HDR_FIXED;
	c.end = p + hlen - 4;
	for (int i = 0; i < GR_HDR_STRINGS; i++) {
		uint64_t at = cur_off(&c);

		err = take_str(&c, &arena, 0, strs[i]);
		if (err)
			return gr_diag_set(diag, GR_ERR_CORRUPT, at, "header %s: %s", str_names[i],
					   err == GR_ERR_TRUNCATED ? "length beyond the header"
								   : "contains a NUL byte");
	}
	err = parse_schema(r, &c, &arena, diag);
	if (err)
		return err;
	err = gr_schema_check(&r->schema, why, sizeof(why));
	if (err)
		return gr_diag_set(diag, err, GR_HDR_FIXED, "header schema: %s", why);
	if (c.p != c.end && r->hdr.minor <= GR_FORMAT_MINOR)
		return gr_diag_set(diag, GR_ERR_CORRUPT, cur_off(&c),
				   "%zu unexplained bytes after the header schema",
				   (size_t)(c.end - c.p));
	/* a newer minor version may add fields there: skipped */
	memset(r->kind_index, -1, sizeof(r->kind_index));
	for (uint16_t i = 0; i < r->schema.nkinds; i++)
		r->kind_index[r->kinds[i].id] = (int8_t)i;
	return 0;
}

/* ---- the chunk list ---- */

static int add_chunk(struct gr_trace_reader *r, uint64_t off, const struct gr_chunk_hdr *h, int bad)
{
	struct chunk_ent *e;

	if (r->nchunks == r->chunks_cap) {
		uint64_t cap = r->chunks_cap ? r->chunks_cap * 2 : 64;

		e = realloc(r->chunks, sizeof(*e) * cap);
		if (!e)
			return -ENOMEM;
		r->chunks = e;
		r->chunks_cap = cap;
	}
	e = &r->chunks[r->nchunks++];
	e->offset = off;
	e->size = GR_CHUNK_HDR + h->payload;
	e->records = h->records;
	e->first_ts = h->first_ts;
	e->last_ts = h->last_ts;
	e->kinds = 0;
	e->counts = 0;
	e->bad = bad;
	e->seq = h->seq;
	e->seq_known = 1;
	e->after_skip = 0;
	e->repeated = 0;
	if (bad)
		r->integ.chunks_bad++;
	else
		r->integ.chunks_ok++;
	return 0;
}

/*
 * NULL when the header's fields are ones a writer could have produced (its CRC already held),
 * else why not, in @buf.
 */
static const char *implausible(const struct gr_chunk_hdr *h, char *buf, size_t len)
{
	if (h->payload < 1 || h->payload > MAX_PAYLOAD)
		snprintf(buf, len, "payload of %" PRIu32 " bytes not in 1..%zu", h->payload,
			 (size_t)MAX_PAYLOAD);
	else if (h->raw < 1 || h->raw > GR_MAX_CHUNK_RAW)
		snprintf(buf, len, "raw size %" PRIu32 " not in 1..%u", h->raw, GR_MAX_CHUNK_RAW);
	else if (h->records < 1 || h->records > h->raw)
		snprintf(buf, len, "%" PRIu32 " records in %" PRIu32 " raw bytes", h->records,
			 h->raw);
	else if (h->first_ts > h->last_ts)
		snprintf(buf, len, "first timestamp %" PRIu64 " after the last %" PRIu64,
			 h->first_ts, h->last_ts);
	else
		return NULL;
	return buf;
}

static int hdr_plausible(const struct gr_chunk_hdr *h)
{
	char buf[96];

	return !implausible(h, buf, sizeof(buf));
}

/* Checks the payload CRC of the chunk at @off; 0 or GR_ERR_CHECKSUM (problem recorded). */
static int check_payload(struct gr_trace_reader *r, uint64_t off, const struct gr_chunk_hdr *h)
{
	const uint8_t *p;
	uint32_t crc;
	int err = gr_reader_read(r, off + GR_CHUNK_HDR, h->payload, &p);

	if (err)
		return err;
	crc = gr_crc32(p, h->payload);
	if (crc != h->payload_crc) {
		gr_reader_problem(r, GR_ERR_CHECKSUM, off,
				  "chunk at offset %" PRIu64 ": payload CRC32 0x%08" PRIx32
				  " expected 0x%08" PRIx32,
				  off, crc, h->payload_crc);
		return GR_ERR_CHECKSUM;
	}
	return 0;
}

/* ---- footer ---- */

/*
 * Reads the trailer and the footer and builds the chunk list from it. Returns 0, a GR_ERR_* when
 * there is no usable footer (reason in @why; nothing kept), or -errno / -ENOMEM.
 */
static int load_footer(struct gr_trace_reader *r, struct gr_diag *why)
{
	uint8_t tr[GR_TRAILER];
	const uint8_t *p, *end;
	uint64_t foff, flen, n, expect, tr_off;
	int err;

	if (r->size < (uint64_t)r->header_len + GR_TRAILER)
		return gr_diag_set(why, GR_ERR_TRUNCATED, r->size,
				   "no footer: file ends at %" PRIu64
				   " (the recorder did not finish it)",
				   r->size);
	tr_off = r->size - GR_TRAILER;
	err = read_copy(r, tr_off, GR_TRAILER, tr);
	if (err)
		return err;
	if (memcmp(tr + GR_TR_MAGIC, GR_TRAILER_MAGIC, GR_MAGIC_LEN))
		return gr_diag_set(why, GR_ERR_TRUNCATED, r->size,
				   "no footer: no trailer at the end of the file (the recorder did "
				   "not finish it)");
	if (gr_get_le32(tr + GR_TR_CRC) != gr_crc32(tr, GR_TR_CRC))
		return gr_diag_set(why, GR_ERR_CHECKSUM, tr_off,
				   "trailer at offset %" PRIu64 ": CRC32 mismatch", tr_off);
	foff = gr_get_le64(tr + GR_TR_FOOTER_OFF);
	flen = gr_get_le64(tr + GR_TR_FOOTER_LEN);
	if (foff < r->header_len || foff > tr_off || flen != tr_off - foff ||
	    flen < GR_FOOTER_FIXED || flen > GR_MAX_FOOTER)
		return gr_diag_set(why, GR_ERR_CORRUPT, tr_off,
				   "trailer points to a footer at %" PRIu64 "+%" PRIu64
				   ", not between the header and the trailer",
				   foff, flen);
	err = gr_reader_read(r, foff, (size_t)flen, &p);
	if (err)
		return err;
	if (gr_crc32(p, (size_t)flen) != gr_get_le32(tr + GR_TR_FOOTER_CRC))
		return gr_diag_set(why, GR_ERR_CHECKSUM, foff,
				   "footer at offset %" PRIu64 ": CRC32 mismatch", foff);
	if (memcmp(p, GR_FOOTER_MAGIC, 4))
		return gr_diag_set(why, GR_ERR_CORRUPT, foff,
				   "footer at offset %" PRIu64 ": bad magic", foff);
	n = gr_get_le64(p + 8);
	if (n > (flen - GR_FOOTER_FIXED) / GR_FOOTER_ENTRY)
		return gr_diag_set(why, GR_ERR_CORRUPT, foff,
				   "footer at offset %" PRIu64 ": %" PRIu64
				   " chunks do not fit its %" PRIu64 " bytes",
				   foff, n, flen);
	r->chunks = calloc(n ? n : 1, sizeof(*r->chunks));
	/* counts take 4 bytes of the footer each: its length bounds them */
	r->kcounts = malloc((size_t)(flen - GR_FOOTER_FIXED) + 4);
	if (!r->chunks || !r->kcounts) {
		free(r->chunks);
		free(r->kcounts);
		r->chunks = NULL;
		r->kcounts = NULL;
		return -ENOMEM;
	}
	r->chunks_cap = n ? n : 1;
	end = p + flen;
	expect = r->header_len;
	{
		const uint8_t *e = p + GR_FOOTER_FIXED;
		uint64_t ncounts = 0;

		for (uint64_t i = 0; i < n; i++) {
			struct chunk_ent *c = &r->chunks[i];
			uint64_t mask, sum = 0;
			int nk;

			if (end - e < GR_FOOTER_ENTRY)
				goto bad;
			c->offset = gr_get_le64(e);
			c->size = gr_get_le32(e + 8);
			c->records = gr_get_le32(e + 12);
			c->first_ts = gr_get_le64(e + 16);
			c->last_ts = gr_get_le64(e + 24);
			mask = gr_get_le64(e + 32);
			e += GR_FOOTER_ENTRY;
			nk = __builtin_popcountll(mask);
			if (end - e < 4 * nk || !nk || (mask & 1))
				goto bad;
			c->kinds = mask;
			c->counts = ncounts;
			for (int id = 1; id < GR_MAX_KINDS; id++) {
				uint32_t cnt;

				if (!(mask >> id & 1))
					continue;
				cnt = gr_get_le32(e);
				e += 4;
				if (!cnt)
					goto bad;
				sum += cnt;
				r->kcounts[ncounts++] = cnt;
			}
			if (c->offset != expect || c->size <= GR_CHUNK_HDR ||
			    c->size > GR_CHUNK_HDR + MAX_PAYLOAD || c->records != sum ||
			    c->first_ts > c->last_ts)
				goto bad;
			expect += c->size;
		}
		if (e != end || expect != foff)
			goto bad;
	}
	r->nchunks = n;
	return 0;
bad:
	free(r->chunks);
	free(r->kcounts);
	r->chunks = NULL;
	r->kcounts = NULL;
	r->chunks_cap = 0;
	return gr_diag_set(why, GR_ERR_CORRUPT, foff,
			   "footer at offset %" PRIu64 ": chunk index inconsistent", foff);
}

/* With a footer: check every indexed chunk's header against its entry and its payload CRC. */
static int check_indexed(struct gr_trace_reader *r)
{
	for (uint64_t i = 0; i < r->nchunks; i++) {
		struct chunk_ent *c = &r->chunks[i];
		uint8_t hb[GR_CHUNK_HDR];
		struct gr_chunk_hdr h;
		char why[96];
		int err;

		err = read_copy(r, c->offset, GR_CHUNK_HDR, hb);
		if (err)
			return err;
		err = gr_chunk_hdr_get(hb, &h);
		c->seq_known = !err;
		c->seq = err ? 0 : h.seq;
		if (err) {
			gr_reader_problem(r, err, c->offset,
					  "chunk at offset %" PRIu64 ": bad chunk header (%s)",
					  c->offset, err == GR_ERR_MAGIC ? "magic" : "CRC32");
		} else if (implausible(&h, why, sizeof(why))) {
			err = GR_ERR_CORRUPT;
			gr_reader_problem(r, err, c->offset, "chunk at offset %" PRIu64 ": %s",
					  c->offset, why);
		} else if (GR_CHUNK_HDR + (uint64_t)h.payload != c->size ||
			   h.records != c->records || h.first_ts != c->first_ts ||
			   h.last_ts != c->last_ts) {
			err = GR_ERR_CORRUPT;
			gr_reader_problem(r, err, c->offset,
					  "chunk at offset %" PRIu64
					  ": header does not match the footer index",
					  c->offset);
		} else {
			err = check_payload(r, c->offset, &h);
			if (err && err != GR_ERR_CHECKSUM)
				return err;
		}
		c->bad = err != 0;
		if (c->bad)
			r->integ.chunks_bad++;
		else
			r->integ.chunks_ok++;
	}
	return 0;
}

/* ---- recovery scan ---- */

/* The next offset >= @from holding a valid chunk header, or r->size. */
static int find_chunk(struct gr_trace_reader *r, uint64_t from, uint64_t *found)
{
	uint64_t off = from;

	while (off + GR_CHUNK_HDR <= r->size) {
		size_t len = r->size - off < SCAN_BLOCK ? (size_t)(r->size - off) : SCAN_BLOCK;
		const uint8_t *p, *q;
		int err = gr_reader_read(r, off, len, &p);

		if (err)
			return err;
		for (q = p; (q = memmem(q, len - (size_t)(q - p), GR_CHUNK_MAGIC, 4)); q++) {
			uint64_t at = off + (uint64_t)(q - p);
			uint8_t hb[GR_CHUNK_HDR];
			struct gr_chunk_hdr h;

			if (at + GR_CHUNK_HDR > r->size)
				break;
			if ((size_t)(q - p) + GR_CHUNK_HDR <= len)
				memcpy(hb, q, GR_CHUNK_HDR);
			else if ((err = read_copy(r, at, GR_CHUNK_HDR, hb)) != 0)
				return err;
			if (!gr_chunk_hdr_get(hb, &h) && hdr_plausible(&h)) {
				*found = at;
				return 0;
			}
			if (r->fd >= 0 && (size_t)(q - p) + GR_CHUNK_HDR > len) {
				/* read_copy() replaced the block: read it again */
				err = gr_reader_read(r, off, len, &p);
				if (err)
					return err;
				q = p + (at - off);
			}
		}
		if (len < SCAN_BLOCK)
			break;
		off += len - 3; /* a magic may straddle the blocks */
	}
	*found = r->size;
	return 0;
}

/* The first @left (< GR_CHUNK_HDR) bytes at @off copied into @hb, zeroed when unreadable. */
static const uint8_t *hb_prefix(struct gr_trace_reader *r, uint64_t off, uint64_t left, uint8_t *hb)
{
	memset(hb, 0, GR_CHUNK_HDR);
	if (read_copy(r, off, (size_t)left, hb))
		memset(hb, 0, GR_CHUNK_HDR);
	return hb;
}

static int scan(struct gr_trace_reader *r)
{
	uint64_t off = r->header_len, next;
	int skipped = 0, err;

	while (off < r->size) {
		uint8_t hb[GR_CHUNK_HDR];
		struct gr_chunk_hdr h;
		uint64_t left = r->size - off;
		char why[96];

		if (left < GR_CHUNK_HDR) {
			if (!memcmp(hb_prefix(r, off, left, hb), GR_CHUNK_MAGIC,
				    left < 4 ? left : 4))
				gr_reader_problem(r, GR_ERR_TRUNCATED, off,
						  "chunk at offset %" PRIu64
						  " is cut short: %" PRIu64
						  " bytes of its header present",
						  off, left);
			else
				gr_reader_problem(r, GR_ERR_TRUNCATED, off,
						  "%" PRIu64 " bytes at offset %" PRIu64
						  " are too few for a chunk header",
						  left, off);
			r->integ.bytes_unread = left;
			return 0;
		}
		err = read_copy(r, off, GR_CHUNK_HDR, hb);
		if (err)
			return err;
		if (!gr_chunk_hdr_get(hb, &h) && hdr_plausible(&h)) {
			if (GR_CHUNK_HDR + (uint64_t)h.payload > left) {
				gr_reader_problem(r, GR_ERR_TRUNCATED, off,
						  "chunk at offset %" PRIu64
						  " is cut short: %" PRIu64 " of its %" PRIu64
						  " bytes present",
						  off, left, GR_CHUNK_HDR + (uint64_t)h.payload);
				r->integ.bytes_unread = left;
				return 0;
			}
			err = check_payload(r, off, &h);
			if (err && err != GR_ERR_CHECKSUM)
				return err;
			err = add_chunk(r, off, &h, err != 0);
			if (err)
				return err;
			/* the chunks lost with those bytes are counted by their numbers later */
			r->chunks[r->nchunks - 1].after_skip = (uint8_t)skipped;
			skipped = 0;
			off += GR_CHUNK_HDR + h.payload;
			continue;
		}
		if (!gr_chunk_hdr_get(hb, &h) && implausible(&h, why, sizeof(why)))
			gr_reader_problem(r, GR_ERR_CORRUPT, off, "chunk at offset %" PRIu64 ": %s",
					  off, why);
		if (!memcmp(hb, GR_FOOTER_MAGIC, 4)) {
			/* a footer without a usable trailer: nothing after it is a chunk */
			r->integ.bytes_unread = left;
			return 0;
		}
		err = find_chunk(r, off + 1, &next);
		if (err)
			return err;
		if (next == r->size) {
			gr_reader_problem(r, GR_ERR_CORRUPT, off,
					  "bytes %" PRIu64 "..%" PRIu64
					  " hold no valid chunk header (not read)",
					  off, r->size);
			r->integ.bytes_unread = left;
			return 0;
		}
		gr_reader_problem(r, GR_ERR_CORRUPT, off,
				  "bytes %" PRIu64 "..%" PRIu64
				  " hold no valid chunk header (skipped)",
				  off, next);
		r->integ.chunks_bad++;
		skipped = 1;
		off = next;
	}
	return 0;
}

/* ---- sequence numbers ---- */

/* Sequence numbers [lo, hi) no chunk before the one at @offset holds; @found of them came later. */
struct seq_gap {
	uint64_t lo, hi, found, offset;
};

struct seq_ref {
	uint32_t seq;
	uint64_t i; /* index entry */
};

static int seq_ref_cmp(const void *a, const void *b)
{
	const struct seq_ref *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Of the chunks with the same sequence number, the first good one in the file is read; every
 * other good one is a repeat, skipped so that its records are not counted twice. Returns 0 or
 * -ENOMEM.
 */
static int mark_repeats(struct gr_trace_reader *r)
{
	struct seq_ref *by;
	uint64_t n = 0;

	for (uint64_t i = 0; i < r->nchunks; i++)
		n += r->chunks[i].seq_known;
	by = malloc((n ? n : 1) * sizeof(*by));
	if (!by)
		return -ENOMEM;
	n = 0;
	for (uint64_t i = 0; i < r->nchunks; i++)
		if (r->chunks[i].seq_known)
			by[n++] = (struct seq_ref){r->chunks[i].seq, i};
	qsort(by, n, sizeof(*by), seq_ref_cmp);
	for (uint64_t a = 0, b; a < n; a = b) {
		uint64_t keep = by[a].i; /* when every copy is bad, the first stands for them */

		for (b = a; b < n && by[b].seq == by[a].seq; b++)
			;
		for (uint64_t k = a; k < b; k++) {
			if (!r->chunks[by[k].i].bad) {
				keep = by[k].i;
				break;
			}
		}
		for (uint64_t k = a; k < b; k++) {
			struct chunk_ent *c = &r->chunks[by[k].i];

			if (by[k].i == keep)
				continue;
			c->repeated = 1;
			if (c->bad)
				continue; /* skipped already, for a reason of its own */
			c->bad = 1;
			r->integ.chunks_ok--;
			r->integ.chunks_bad++;
			r->integ.chunks_repeated++;
			gr_reader_problem(r, GR_ERR_CORRUPT, c->offset,
					  "chunk %" PRIu32 " repeated at offset %" PRIu64, c->seq,
					  c->offset);
		}
	}
	free(by);
	return 0;
}

/* The gap of @gaps (ascending, disjoint) that holds @seq, or NULL. */
static struct seq_gap *gap_of(struct seq_gap *gaps, uint64_t n, uint64_t seq)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (gaps[mid].hi <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && gaps[lo].lo <= seq ? &gaps[lo] : NULL;
}

/*
 * The chunks' sequence numbers against their order in the file (docs/FORMAT.md, section 7):
 * numbers no chunk holds are chunks lost (bad), a number seen before is a repeated chunk
 * (skipped), and a number below one seen before is a chunk out of order (read where it lies, and
 * not lost after all). A hostile file can rebuild every checksum around a copied or moved chunk:
 * only the numbers tell. Returns 0 or -ENOMEM.
 */
static int check_sequence(struct gr_trace_reader *r)
{
	struct seq_gap *gaps = NULL, *g;
	uint64_t ngaps = 0, cap = 0, next = 0;
	int credit = 0, err = 0;

	/* in the usual file every number is above the one before: nothing to sort */
	for (uint64_t i = 0; i < r->nchunks; i++) {
		const struct chunk_ent *c = &r->chunks[i];

		if (!c->seq_known)
			continue;
		if (c->seq < next) {
			err = mark_repeats(r);
			if (err)
				return err;
			break;
		}
		next = (uint64_t)c->seq + 1;
	}
	next = 0;
	for (uint64_t i = 0; i < r->nchunks; i++) {
		struct chunk_ent *c = &r->chunks[i];
		uint64_t lo;

		/* skipped bytes, or a chunk whose header does not read, held the next number */
		credit |= c->after_skip || !c->seq_known;
		if (!c->seq_known || c->repeated)
			continue;
		if (c->seq < next) {
			g = gap_of(gaps, ngaps, c->seq);
			if (g) {
				g->found++;
				r->integ.chunks_bad--;
			}
			if (c->bad)
				continue; /* counted and named for a reason of its own */
			r->integ.chunks_out_of_order++;
			gr_reader_problem(r, GR_ERR_CORRUPT, c->offset,
					  "chunk %" PRIu32 " out of order at offset %" PRIu64,
					  c->seq, c->offset);
			continue;
		}
		lo = next + (credit && c->seq > next);
		credit = 0;
		if (c->seq > lo) {
			if (ngaps == cap) {
				cap = cap ? 2 * cap : 8;
				g = realloc(gaps, cap * sizeof(*gaps));
				if (!g) {
					err = -ENOMEM;
					goto out;
				}
				gaps = g;
			}
			gaps[ngaps++] = (struct seq_gap){lo, c->seq, 0, c->offset};
			r->integ.chunks_bad += c->seq - lo;
		}
		next = (uint64_t)c->seq + 1;
	}
	for (uint64_t i = 0; i < ngaps; i++) {
		g = &gaps[i];
		if (g->found == g->hi - g->lo)
			continue;
		if (g->hi - g->lo == 1)
			gr_reader_problem(r, GR_ERR_CORRUPT, g->offset,
					  "chunk %" PRIu64 " missing before offset %" PRIu64, g->lo,
					  g->offset);
		else
			gr_reader_problem(r, GR_ERR_CORRUPT, g->offset,
					  "%" PRIu64 " of chunks %" PRIu64 "..%" PRIu64
					  " missing before offset %" PRIu64,
					  g->hi - g->lo - g->found, g->lo, g->hi - 1, g->offset);
	}
out:
	free(gaps);
	return err;
}

/* ---- open / close ---- */

static int open_common(struct gr_trace_reader *r, struct gr_diag *diag)
{
	struct gr_diag footer_problem = {0};
	int err;

	r->integ.file_bytes = r->size;
	err = parse_header(r, diag);
	if (err)
		return err;
	if (gr_decoder_init(&r->dec))
		return gr_diag_set(diag, -ENOMEM, 0, "out of memory");
	err = load_footer(r, &footer_problem);
	if (err == 0) {
		r->integ.footer_present = 1;
		err = check_indexed(r);
	} else if (err >= GR_ERR_FIRST && err < GR_ERR_LAST) {
		/* no usable footer: scan; a problem the scan finds comes first in the file */
		err = scan(r);
		if (!err)
			gr_reader_problem(r, footer_problem.err, footer_problem.offset, "%s",
					  footer_problem.reason);
	}
	if (!err)
		err = check_sequence(r);
	if (err)
		return gr_diag_set(diag, err, 0, "cannot read the chunk index: %s",
				   gr_strerror(err));
	r->integ.complete = r->integ.footer_present && !r->integ.chunks_bad &&
			    !r->integ.bytes_unread && !r->integ.chunks_out_of_order;
	return 0;
}

static int new_reader(struct gr_trace_reader **r)
{
	*r = calloc(1, sizeof(**r));
	if (!*r)
		return -ENOMEM;
	(*r)->fd = -1;
	pthread_mutex_init(&(*r)->lock, NULL);
	return 0;
}

int gr_trace_reader_open_mem(struct gr_trace_reader **out, const void *buf, size_t len,
			     struct gr_diag *diag)
{
	struct gr_trace_reader *r;
	int err;

	if (!out)
		return gr_diag_set(diag, -EINVAL, 0, "no output pointer");
	*out = NULL;
	if (!buf && len)
		return gr_diag_set(diag, -EINVAL, 0, "no buffer");
	err = new_reader(&r);
	if (err)
		return gr_diag_set(diag, err, 0, "out of memory");
	r->mem = buf;
	r->size = len;
	err = open_common(r, diag);
	if (err) {
		gr_trace_reader_close(r);
		return err;
	}
	*out = r;
	return 0;
}

int gr_trace_reader_open(struct gr_trace_reader **out, const char *path, struct gr_diag *diag)
{
	struct gr_trace_reader *r;
	struct stat st;
	int err;

	if (!out || !path)
		return gr_diag_set(diag, -EINVAL, 0, "no path");
	*out = NULL;
	err = new_reader(&r);
	if (err)
		return gr_diag_set(diag, err, 0, "out of memory");
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = -errno;
		gr_diag_set(diag, err, 0, "cannot open: %s", gr_strerror(err));
		goto err;
	}
	if (fstat(r->fd, &st)) {
		err = -errno;
		gr_diag_set(diag, err, 0, "cannot stat: %s", gr_strerror(err));
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		gr_diag_set(diag, err, 0, "not a regular file");
		goto err;
	}
	r->size = (uint64_t)st.st_size;
	err = open_common(r, diag);
	if (err)
		goto err;
	*out = r;
	return 0;
err:
	gr_trace_reader_close(r);
	return err;
}

void gr_trace_reader_close(struct gr_trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	gr_buf_free(&r->io);
	free(r->cols);
	free(r->strings);
	free(r->chunks);
	free(r->kcounts);
	gr_decoder_release(&r->dec);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

const struct gr_trace_header *gr_trace_reader_header(const struct gr_trace_reader *r)
{
	return r ? &r->hdr : NULL;
}

const struct gr_schema *gr_trace_reader_schema(const struct gr_trace_reader *r)
{
	return r ? &r->schema : NULL;
}

const struct gr_integrity *gr_trace_reader_integrity(const struct gr_trace_reader *r)
{
	return r ? &r->integ : NULL;
}

uint64_t gr_trace_reader_chunk_count(const struct gr_trace_reader *r)
{
	return r ? r->integ.chunks_ok : 0;
}

void gr_trace_reader_rewind(struct gr_trace_reader *r)
{
	if (r)
		r->next = 0;
}

uint64_t gr_trace_reader_index_len(const struct gr_trace_reader *r)
{
	return r ? r->nchunks : 0;
}

int gr_trace_reader_chunk_info(const struct gr_trace_reader *r, uint64_t i,
			       struct gr_chunk_info *out)
{
	const struct chunk_ent *c;
	uint64_t at;

	if (!r || !out)
		return -EINVAL;
	if (i >= r->nchunks)
		return -ERANGE;
	c = &r->chunks[i];
	memset(out, 0, sizeof(*out));
	out->offset = c->offset;
	out->size = c->size;
	out->records = c->records;
	out->first_ts = c->first_ts;
	out->last_ts = c->last_ts;
	out->kinds_known = c->kinds != 0;
	out->kinds = c->kinds ? c->kinds : ~1ull;
	out->bad = __atomic_load_n(&c->bad, __ATOMIC_ACQUIRE);
	at = c->counts;
	for (int id = 1; c->kinds && id < GR_MAX_KINDS; id++)
		if (c->kinds >> id & 1)
			out->count[id] = r->kcounts[at++];
	return 0;
}

/* A chunk that passed the index checks but does not decode: counted as bad from now on. */
static void mark_bad(struct gr_trace_reader *r, struct chunk_ent *c, int err, const char *why)
{
	pthread_mutex_lock(&r->lock);
	if (!c->bad) {
		gr_reader_problem(r, err, c->offset, "chunk at offset %" PRIu64 ": %s", c->offset,
				  why);
		__atomic_store_n(&c->bad, 1, __ATOMIC_RELEASE);
		r->integ.chunks_ok--;
		r->integ.chunks_bad++;
		r->integ.complete = 0;
	}
	pthread_mutex_unlock(&r->lock);
}

/*
 * Read index entry @i into d->io and check it again (the file may have changed since open; the
 * index bounds the read). Returns 1 with its header in *@h and its payload in *@payload, 0 when
 * it is bad (marked), or a negative error that stops reading.
 */
static int read_chunk(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
		      struct gr_chunk_hdr *h, const uint8_t **payload)
{
	struct chunk_ent *c;
	const uint8_t *p;
	int err;

	if (i >= r->nchunks)
		return -ERANGE;
	c = &r->chunks[i];
	if (__atomic_load_n(&c->bad, __ATOMIC_ACQUIRE))
		return 0;
	err = gr_reader_read_into(r, &d->io, c->offset, c->size, &p);
	if (err == GR_ERR_TRUNCATED) {
		mark_bad(r, c, err, "file shrank since it was opened");
		return 0;
	}
	if (err)
		return err;
	err = gr_chunk_hdr_get(p, h);
	if (!err && GR_CHUNK_HDR + (uint64_t)h->payload != c->size)
		err = GR_ERR_CORRUPT;
	if (!err && gr_crc32(p + GR_CHUNK_HDR, h->payload) != h->payload_crc)
		err = GR_ERR_CHECKSUM;
	if (err) {
		mark_bad(r, c, err, "changed since the file was opened");
		return 0;
	}
	*payload = p + GR_CHUNK_HDR;
	return 1;
}

/*
 * Read chunk @i into @d: every column decoded (@lazy 0), or only its layout, for reading by rows
 * (@lazy 1). Returns like gr_chunk_decode().
 */
static int decode_chunk(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
			const struct gr_chunk **chunk, int lazy)
{
	struct gr_chunk_hdr h;
	const uint8_t *payload = NULL; /* set when read_chunk() returns 1 */
	char why[160];
	int err;

	if (!d || !r || !chunk)
		return -EINVAL;
	*chunk = NULL;
	d->lazy = 0;
	err = read_chunk(d, r, i, &h, &payload);
	if (err <= 0)
		return err;
	if (lazy)
		err = gr_decoder_layout(d, r, r->chunks[i].offset, &h, payload, why, sizeof(why));
	else
		err = gr_decoder_payload(d, r, r->chunks[i].offset, &h, payload, why, sizeof(why));
	if (err == -ENOMEM)
		return err;
	if (err) {
		mark_bad(r, &r->chunks[i], err, why);
		return 0;
	}
	d->index = i;
	*chunk = &d->chunk;
	return 1;
}

int gr_chunk_decode(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
		    const struct gr_chunk **chunk)
{
	return decode_chunk(d, r, i, chunk, 0);
}

/* ---- reading a chunk by rows ---- */

int gr_chunk_decode_lazy(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
			 const struct gr_chunk **chunk)
{
	return decode_chunk(d, r, i, chunk, 1);
}

/* Start reading block @b by rows: one cursor per column. */
static int begin_block(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint32_t b)
{
	const struct block *blk = &d->blocks[b];
	const struct gr_kind_def *k = &r->kinds[r->kind_index[blk->kind]];
	const char *why;
	int err;

	d->rb = (int)b;
	d->rleft = blk->count;
	for (uint16_t col = 0; col < k->ncols; col++) {
		err = gr_col_cursor_init(&d->cur[col], k->cols[col].codec, blk->col[col],
					 blk->len[col], blk->count, &d->dicts[col], &why);
		if (err) {
			d->lazy = err == -ENOMEM ? d->lazy : -1;
			return err;
		}
	}
	return 0;
}

/*
 * The next @n values of column @col into its batch slot. A column of one value (a dictionary of
 * one entry) leaves the slot as it is when the slot holds that value already: a kind's constant
 * columns are filled once, not every batch.
 */
static int next_col(struct gr_chunk_decoder *d, uint16_t col, uint32_t n, const char **why)
{
	struct gr_col_cursor *c = &d->cur[col];
	int one = c->codec == GR_CODEC_DICT && c->nd == 1;
	int err;

	if (one && n <= c->left && d->fill_n[col] >= n && d->fill_v[col] == c->dict[0]) {
		*why = "";
		c->left -= n; /* no bytes to move past: the cursor checked none are left */
		return 0;
	}
	err = gr_col_cursor_next(c, n, d->batch + (size_t)col * GR_ROW_BATCH,
				 d->bbatch + (size_t)col * GR_ROW_BATCH, why);
	d->fill_n[col] = one && !err ? n : 0;
	d->fill_v[col] = one ? c->dict[0] : 0;
	return err;
}

/* The next rows of the block being read into the batch buffers: their number, or < 0. */
static int next_rows(struct gr_chunk_decoder *d, const struct gr_trace_reader *r)
{
	const struct block *blk = &d->blocks[d->rb];
	const struct gr_kind_def *k = &r->kinds[r->kind_index[blk->kind]];
	uint32_t n = d->rleft < GR_ROW_BATCH ? d->rleft : GR_ROW_BATCH;
	const uint64_t *ts = d->batch;
	const char *why;
	int err;

	for (uint16_t col = 0; col < k->ncols; col++) {
		err = next_col(d, col, n, &why);
		if (err) {
			d->lazy = -1;
			return err;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		d->lo = ts[i] < d->lo ? ts[i] : d->lo;
		d->hi = ts[i] > d->hi ? ts[i] : d->hi;
	}
	d->rleft -= n;
	if (!d->rleft)
		d->read |= 1ull << d->rb;
	return (int)n;
}

int gr_chunk_rows_begin(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint16_t kind)
{
	if (!d || !r)
		return -EINVAL;
	if (d->lazy != 1)
		return d->lazy ? GR_ERR_CORRUPT : -EINVAL;
	d->rb = -1;
	d->rleft = 0;
	for (uint32_t b = 0; b < d->nblocks; b++) {
		if (d->blocks[b].kind == kind) {
			int err = begin_block(d, r, b);

			return err ? err : (int)d->blocks[b].count;
		}
	}
	return 0;
}

int gr_chunk_rows_next(struct gr_chunk_decoder *d, const struct gr_trace_reader *r,
		       const uint64_t **v, const struct gr_bytes **b)
{
	const struct gr_kind_def *k;
	int n;

	if (!d || !r || !v || !b)
		return -EINVAL;
	if (d->lazy != 1)
		return d->lazy ? GR_ERR_CORRUPT : -EINVAL;
	if (d->rb < 0 || !d->rleft)
		return 0;
	n = next_rows(d, r);
	if (n < 0)
		return n;
	k = &r->kinds[r->kind_index[d->blocks[d->rb].kind]];
	for (uint16_t col = 0; col < k->ncols; col++) {
		int bytes = k->cols[col].codec == GR_CODEC_BYTES;

		v[col] = bytes ? NULL : d->batch + (size_t)col * GR_ROW_BATCH;
		b[col] = bytes ? d->bbatch + (size_t)col * GR_ROW_BATCH : NULL;
	}
	return n;
}

int gr_chunk_rows_end(struct gr_chunk_decoder *d, struct gr_trace_reader *r)
{
	struct chunk_ent *c;
	char why[160];
	int err = 0;

	if (!d || !r || !d->lazy || d->index >= r->nchunks)
		return -EINVAL;
	c = &r->chunks[d->index];
	/* what the caller did not read is checked all the same */
	for (uint32_t b = 0; b < d->nblocks && d->lazy == 1; b++) {
		if (d->read >> b & 1)
			continue;
		err = begin_block(d, r, b);
		while (!err && d->rleft)
			err = next_rows(d, r) < 0;
	}
	if (err == -ENOMEM)
		return err;
	if (d->lazy == 1 && (d->lo != d->hdr.first_ts || d->hi != d->hdr.last_ts))
		d->lazy = -1;
	if (d->lazy == 1) {
		d->lazy = 0;
		return 1;
	}
	/* bad: decode it whole for gr_chunk_decode()'s own reason, which the integrity keeps */
	d->lazy = 0;
	err = gr_decoder_raw(d, r, c->offset, &d->hdr, d->raw.p, why, sizeof(why));
	if (err == -ENOMEM)
		return err;
	mark_bad(r, c, err ? err : GR_ERR_CORRUPT, err ? why : "columns do not decode");
	return 0;
}

int gr_trace_reader_next_chunk(struct gr_trace_reader *r, const struct gr_chunk **chunk)
{
	int err;

	if (!r || !chunk)
		return -EINVAL;
	*chunk = NULL;
	while (r->next < r->nchunks) {
		err = gr_chunk_decode(&r->dec, r, r->next++, chunk);
		if (err)
			return err;
	}
	return 0;
}
