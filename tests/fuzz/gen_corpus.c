/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpora of the format fuzz targets and the hostile files of tests/data/bad.
 * Not part of the build; run it again after a format change:
 *
 *   make build/libgrformat.a
 *   cc -O2 -D_GNU_SOURCE -I. -o build/gen_corpus tests/fuzz/gen_corpus.c build/libgrformat.a \
 *      -lzstd -lz
 *   build/gen_corpus tests/fuzz/corpus tests/data/bad
 *
 * corpus/reader: small valid traces and damaged copies (cut, flipped, reordered).
 * corpus/chunk: decompressed chunk payloads with the fuzz_chunk prefix (records, ts range).
 * data/bad: one file per hostile case; EXPECTED names the error each must produce.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "format/events.h"
#include "format/layout.h"
#include "format/le.h"
#include "format/varint.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

struct img {
	uint8_t *p;
	size_t len;
};

static const char *corpus_dir, *bad_dir;
static FILE *expected;

static void die(const char *what)
{
	fprintf(stderr, "gen_corpus: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put_file(const char *dir, const char *name, const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(p, 1, len, f) != len) || fclose(f))
		die(path);
	if (len > 20000)
		fprintf(stderr, "gen_corpus: warning: %s is %zu bytes\n", path, len);
}

static void seed(const char *name, const void *p, size_t len)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/reader", corpus_dir);
	put_file(dir, name, p, len);
}

static void bad(const char *name, const void *p, size_t len, const char *want)
{
	put_file(bad_dir, name, p, len);
	fprintf(expected, "%s %s\n", name, want);
}

/* ---- traces through the writer ---- */

typedef void (*fill_fn)(struct gr_trace_writer *w);

static struct img write_img(const struct gr_schema *s, uint32_t chunk_raw, fill_fn fill)
{
	static const struct gr_trace_header hdr = {
	    .session_id = {0x5e, 0x55, 0x10, 0x4},
	    .host = "fuzzhost",
	    .kernel = "6.18.0",
	    .tool_version = "gpurec 0.1.0",
	    .cmdline = "./train",
	    .env = "CUDA_VISIBLE_DEVICES=0\n",
	    .clock_monotonic_ns = 1000000000,
	    .clock_realtime_ns = 1700000000000000000ull,
	};
	struct gr_writer_opts o = {.chunk_raw_bytes = chunk_raw};
	struct gr_trace_writer *w;
	struct img m;
	struct stat st;
	int fd = memfd_create("img", 0), keep = dup(fd);

	if (fd < 0 || keep < 0 || gr_trace_writer_open(&w, fd, &hdr, s, &o))
		die("writer");
	if (fill)
		fill(w);
	if (gr_trace_writer_close(w) || fstat(keep, &st))
		die("close");
	m.len = (size_t)st.st_size;
	m.p = malloc(m.len);
	if (!m.p || pread(keep, m.p, m.len, 0) != (ssize_t)m.len)
		die("read back");
	close(keep);
	return m;
}

static void append(struct gr_trace_writer *w, uint16_t kind, const uint64_t *v,
		   const struct gr_bytes *b)
{
	if (gr_trace_writer_append(w, kind, v, b))
		die("append");
}

/* A little of everything gpurec writes. */
static void fill_events(struct gr_trace_writer *w)
{
	static const char *const names[] = {"gemm_kernel", "softmax", "layernorm_fwd"};
	uint64_t v[GR_MAX_COLUMNS] = {0}, t = 5000000;
	struct gr_bytes b[2];
	uint64_t frames[3] = {0x401000, 0x401234, 0x7f0000112233ull};

	for (int i = 0; i < 3; i++) {
		v[GR_NAME_TS] = t;
		v[GR_NAME_CLASS] = GR_NAME_KERNEL;
		v[GR_NAME_PID] = 100;
		v[GR_NAME_KEY] = 0x401000 + 0x100 * i;
		b[0].data = (const uint8_t *)names[i];
		b[0].len = (uint32_t)strlen(names[i]);
		append(w, GR_K_NAME, v, b);
	}
	memset(v, 0, sizeof(v));
	v[GR_STACK_TS] = t;
	v[GR_STACK_ID] = 1;
	v[GR_STACK_PID] = 100;
	b[0].data = (const uint8_t *)frames;
	b[0].len = sizeof(frames);
	append(w, GR_K_STACK, v, b);
	for (int i = 0; i < 24; i++) {
		memset(v, 0, sizeof(v));
		t += 5000 + (uint64_t)(i * 37 % 900);
		v[GR_LAUNCH_TS] = t;
		v[GR_LAUNCH_PID] = 100;
		v[GR_LAUNCH_TID] = 101 + i % 2;
		v[GR_LAUNCH_CPU] = 3;
		v[GR_LAUNCH_API] = GR_API_cudaLaunchKernel;
		v[GR_LAUNCH_FUNC] = 0x401000 + 0x100 * (uint64_t)(i % 3);
		v[GR_LAUNCH_GX] = 128 << (i % 3);
		v[GR_LAUNCH_GY] = 1;
		v[GR_LAUNCH_GZ] = 1;
		v[GR_LAUNCH_BX] = 256;
		v[GR_LAUNCH_BY] = 1;
		v[GR_LAUNCH_BZ] = 1;
		v[GR_LAUNCH_STREAM] = 0x7f00dead0000ull;
		v[GR_LAUNCH_STACK] = 1;
		append(w, GR_K_LAUNCH, v, NULL);
		if (i % 8 == 7) {
			memset(v, 0, sizeof(v));
			v[GR_COPY_TS] = t + 100;
			v[GR_COPY_DUR] = 12000 + (uint64_t)i;
			v[GR_COPY_PID] = 100;
			v[GR_COPY_TID] = 101;
			v[GR_COPY_API] = GR_API_cudaMemcpy;
			v[GR_COPY_DST] = 0x7f0000001000ull;
			v[GR_COPY_SRC] = 0x5555000000ull;
			v[GR_COPY_BYTES] = 4 << 20;
			v[GR_COPY_CKIND] = GR_COPY_D2H;
			append(w, GR_K_COPY, v, NULL);
			memset(v, 0, sizeof(v));
			v[GR_SCHED_TS] = t + 200;
			v[GR_SCHED_CPU] = 3;
			v[GR_SCHED_PREV_PID] = 100;
			v[GR_SCHED_PREV_TID] = 101;
			v[GR_SCHED_PREV_STATE] = 1;
			v[GR_SCHED_NEXT_PID] = 0;
			append(w, GR_K_SCHED, v, NULL);
		}
	}
	memset(v, 0, sizeof(v));
	v[GR_LOSS_TS] = t;
	v[GR_LOSS_TS_END] = t + 1000;
	v[GR_LOSS_SOURCE] = GR_LOSS_RINGBUF;
	v[GR_LOSS_COUNT] = 17;
	append(w, GR_K_LOSS, v, NULL);
	memset(v, 0, sizeof(v));
	v[GR_SESS_TS] = t + 1;
	v[GR_SESS_KEY] = GR_SESS_CALL_GRAPH;
	b[0].data = (const uint8_t *)"fp";
	b[0].len = 2;
	append(w, GR_K_SESSION, v, b);
}

/* Out-of-order timestamps, extreme values, a dictionary past one-byte indexes. */
static void fill_edges(struct gr_trace_writer *w)
{
	uint64_t v[GR_MAX_COLUMNS] = {0};
	struct gr_bytes b[1] = {{(const uint8_t *)"", 0}};

	for (int i = 0; i < 300; i++) {
		memset(v, 0, sizeof(v));
		v[GR_ALLOC_TS] = i % 7 == 3 ? UINT64_MAX - (uint64_t)i : 1000 + (uint64_t)i * 3;
		v[GR_ALLOC_DUR] = i % 5 ? (uint64_t)i : UINT64_MAX;
		v[GR_ALLOC_PID] = 7;
		v[GR_ALLOC_ADDR] = 0x7f0000000000ull + (uint64_t)i * 4096;
		v[GR_ALLOC_BYTES] = (uint64_t)(i % 150) * 512; /* 150 distinct values */
		append(w, GR_K_ALLOC, v, NULL);
	}
	memset(v, 0, sizeof(v));
	v[GR_PROC_TS] = 500;
	v[GR_PROC_TYPE] = GR_PROC_EXIT;
	v[GR_PROC_PID] = 7;
	v[GR_PROC_VALUE] = 256;
	append(w, GR_K_PROC, v, b);
}

/* ---- hand-made chunks ---- */

/* A chunk around @raw (a payload the writer would never make), appended to @m. */
static void add_chunk(struct img *m, uint32_t seq, const uint8_t *raw, size_t raw_len,
		      uint32_t records, uint64_t first, uint64_t last)
{
	size_t bound = ZSTD_compressBound(raw_len), clen;
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	struct gr_chunk_hdr h = {0};
	uint8_t *p;

	m->p = realloc(m->p, m->len + GR_CHUNK_HDR + bound);
	if (!m->p || !cctx)
		die("chunk");
	p = m->p + m->len;
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	clen = ZSTD_compress2(cctx, p + GR_CHUNK_HDR, bound, raw, raw_len);
	if (ZSTD_isError(clen))
		die("zstd");
	ZSTD_freeCCtx(cctx);
	h.seq = seq;
	h.payload = (uint32_t)clen;
	h.raw = (uint32_t)raw_len;
	h.records = records;
	h.payload_crc = gr_crc32(p + GR_CHUNK_HDR, clen);
	h.first_ts = first;
	h.last_ts = last;
	gr_chunk_hdr_put(p, &h);
	m->len += GR_CHUNK_HDR + clen;
}

/* A header-only image of the events schema, without footer. */
static struct img bare_header(void)
{
	struct img m = write_img(gr_events_schema(), 0, NULL);

	m.len = gr_get_le32(m.p + GR_HDR_LEN);
	return m;
}

/* One launch block: @count records, every column a single zero byte except @col = @enc. */
static size_t launch_block(uint8_t *p, uint64_t kind, uint64_t count, int col, const uint8_t *enc,
			   size_t enc_len)
{
	uint8_t *q = p;

	q = gr_leb_put(q, 1);
	q = gr_leb_put(q, kind);
	q = gr_leb_put(q, count);
	for (int c = 0; c < GR_LAUNCH_NCOLS; c++) {
		if (c == col) {
			q = gr_leb_put(q, enc_len);
			memcpy(q, enc, enc_len);
			q += enc_len;
		} else {
			/* one zero value: DELTA/VARINT "00", DICT "01 00" (one entry, 0) */
			int dict = gr_events_schema()->kinds[0].cols[c].codec == GR_CODEC_DICT;

			q = gr_leb_put(q, dict ? 2 : 1);
			if (dict)
				*q++ = 1;
			*q++ = 0;
		}
	}
	return (size_t)(q - p);
}

static void fix_header_crc(uint8_t *p)
{
	uint32_t hlen = gr_get_le32(p + GR_HDR_LEN);

	gr_put_le32(p + hlen - 4, gr_crc32(p, hlen - 4));
}

static void fix_chunk(uint8_t *ck)
{
	uint32_t payload = gr_get_le32(ck + GR_CK_PAYLOAD);

	gr_put_le32(ck + GR_CK_PAYLOAD_CRC, gr_crc32(ck + GR_CHUNK_HDR, payload));
	gr_put_le32(ck + GR_CK_HDR_CRC, gr_crc32(ck, GR_CK_HDR_CRC));
}

static void fix_footer(struct img *m)
{
	uint8_t *tr = m->p + m->len - GR_TRAILER;
	uint64_t foff = gr_get_le64(tr + GR_TR_FOOTER_OFF);

	gr_put_le32(tr + GR_TR_FOOTER_CRC, gr_crc32(m->p + foff, m->len - GR_TRAILER - foff));
	gr_put_le32(tr + GR_TR_CRC, gr_crc32(tr, GR_TR_CRC));
}

static struct img dup_img(const struct img *m)
{
	struct img d = {malloc(m->len), m->len};

	if (!d.p)
		die("malloc");
	memcpy(d.p, m->p, m->len);
	return d;
}

/* Every chunk of @m, decompressed, as a fuzz_chunk input. */
static void chunk_seeds(const struct img *m, const char *prefix)
{
	uint64_t off = gr_get_le32(m->p + GR_HDR_LEN);
	char dir[512], name[128];
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/chunk", corpus_dir);
	while (off + GR_CHUNK_HDR <= m->len && !memcmp(m->p + off, GR_CHUNK_MAGIC, 4)) {
		struct gr_chunk_hdr h;
		uint8_t *in;

		if (gr_chunk_hdr_get(m->p + off, &h))
			die("chunk header");
		in = malloc(20 + h.raw);
		if (!in ||
		    ZSTD_decompress(in + 20, h.raw, m->p + off + GR_CHUNK_HDR, h.payload) != h.raw)
			die("decompress");
		gr_put_le32(in, h.records);
		gr_put_le64(in + 4, h.first_ts);
		gr_put_le64(in + 12, h.last_ts);
		snprintf(name, sizeof(name), "%s-%d", prefix, n++);
		put_file(dir, name, in, 20 + h.raw);
		free(in);
		off += GR_CHUNK_HDR + h.payload;
	}
}

static uint64_t first_chunk(const struct img *m)
{
	return gr_get_le32(m->p + GR_HDR_LEN);
}

static uint64_t footer_off(const struct img *m)
{
	return gr_get_le64(m->p + m->len - GR_TRAILER + GR_TR_FOOTER_OFF);
}

static void gen_seeds(void)
{
	struct img empty = write_img(gr_events_schema(), 0, NULL);
	struct img one = write_img(gr_events_schema(), 0, fill_events);
	struct img many = write_img(gr_events_schema(), 300, fill_events);
	struct img edges = write_img(gr_events_schema(), 2000, fill_edges);
	uint64_t c0 = first_chunk(&many), c1, foot = footer_off(&many);
	struct img x;

	c1 = c0 + GR_CHUNK_HDR + gr_get_le32(many.p + c0 + GR_CK_PAYLOAD);
	seed("empty.trc", empty.p, empty.len);
	seed("events-one-chunk.trc", one.p, one.len);
	seed("events-chunks.trc", many.p, many.len);
	seed("edges.trc", edges.p, edges.len);
	seed("no-footer.trc", many.p, foot);
	seed("cut-mid-chunk.trc", many.p, c1 + 30);
	seed("cut-in-trailer.trc", many.p, many.len - 5);
	x = dup_img(&many);
	x.p[c1 + GR_CHUNK_HDR + 9] ^= 0x20;
	seed("flipped-payload.trc", x.p, x.len);
	x.p[c1 + GR_CHUNK_HDR + 9] ^= 0x20;
	x.p[c1 + GR_CK_RAW] ^= 1;
	seed("flipped-chunk-header.trc", x.p, foot);
	x.p[c1 + GR_CK_RAW] ^= 1;
	/* a chunk with good CRCs and a broken zstd frame */
	x.p[c1 + GR_CHUNK_HDR + 12] ^= 0x55;
	fix_chunk(x.p + c1);
	seed("bad-frame.trc", x.p, x.len);
	free(x.p);
	x = dup_img(&one);
	gr_put_le16(x.p + GR_HDR_MINOR, GR_FORMAT_MINOR + 1);
	gr_put_le64(x.p + GR_HDR_OPTIONAL, 0x8000000000000001ull);
	fix_header_crc(x.p);
	seed("newer-minor-optional-features.trc", x.p, x.len);
	free(x.p);

	chunk_seeds(&one, "events");
	chunk_seeds(&many, "events-small");
	chunk_seeds(&edges, "edges");
	free(empty.p);
	free(one.p);
	free(many.p);
	free(edges.p);
}

/*
 * A copy of the complete trace @m with its chunks in the order @order (@k indexes into its chunk
 * list: repeats and moves allowed), every checksum valid, and a footer indexing them when
 * @footer: what a hostile or careless rewrite of a file leaves, only sequence numbers tell.
 */
static struct img rearranged(const struct img *m, const uint32_t *order, uint32_t k, int footer)
{
	uint64_t foff = footer_off(m), n = gr_get_le64(m->p + foff + 8), at = first_chunk(m);
	const uint8_t *e = m->p + foff + GR_FOOTER_FIXED, **ent = malloc(n * sizeof(*ent));
	struct img x = {malloc(m->len * (k / n + 2)), 0};
	uint8_t *q;

	if (!ent || !x.p)
		die("malloc");
	for (uint64_t i = 0; i < n; i++) {
		ent[i] = e;
		e += GR_FOOTER_ENTRY + 4 * __builtin_popcountll(gr_get_le64(e + 32));
	}
	memcpy(x.p, m->p, at);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t size = gr_get_le32(ent[order[i]] + 8);

		memcpy(x.p + at, m->p + gr_get_le64(ent[order[i]]), size);
		at += size;
	}
	x.len = at;
	if (footer) {
		q = x.p + at;
		memcpy(q, GR_FOOTER_MAGIC, 4);
		gr_put_le32(q + 4, 0);
		gr_put_le64(q + 8, k);
		q += GR_FOOTER_FIXED;
		at = first_chunk(m);
		for (uint32_t i = 0; i < k; i++) {
			const uint8_t *y = ent[order[i]];
			size_t len =
			    GR_FOOTER_ENTRY + 4 * __builtin_popcountll(gr_get_le64(y + 32));

			memcpy(q, y, len);
			gr_put_le64(q, at);
			at += gr_get_le32(y + 8);
			q += len;
		}
		gr_put_le64(q + GR_TR_FOOTER_OFF, x.len);
		gr_put_le64(q + GR_TR_FOOTER_LEN, (uint64_t)(q - (x.p + x.len)));
		gr_put_le32(q + GR_TR_FOOTER_CRC,
			    gr_crc32(x.p + x.len, (size_t)(q - (x.p + x.len))));
		gr_put_le32(q + GR_TR_CRC, gr_crc32(q, GR_TR_CRC));
		memcpy(q + GR_TR_MAGIC, GR_TRAILER_MAGIC, GR_MAGIC_LEN);
		x.len = (size_t)(q - x.p) + GR_TRAILER;
	}
	free(ent);
	return x;
}

/* Where position @pos of rearranged(@m, @order) starts. */
static uint64_t rearranged_at(const struct img *m, const uint32_t *order, uint32_t pos)
{
	uint64_t foff = footer_off(m), at = first_chunk(m);
	const uint8_t *e = m->p + foff + GR_FOOTER_FIXED;
	uint32_t size[64];

	for (uint64_t i = 0; i < gr_get_le64(m->p + foff + 8) && i < 64; i++) {
		size[i] = gr_get_le32(e + 8);
		e += GR_FOOTER_ENTRY + 4 * __builtin_popcountll(gr_get_le64(e + 32));
	}
	for (uint32_t i = 0; i < pos; i++)
		at += size[order[i]];
	return at;
}

/*
 * Chunks repeated or moved, checksums rebuilt: each is named with its sequence number and offset,
 * and its launches are read once (tests/unit/test_format.c counts them).
 */
static void gen_sequence(const struct img *good)
{
	uint64_t n = gr_get_le64(good->p + footer_off(good) + 8);
	uint32_t order[128], k = 0;
	char want[128];
	struct img x;

	if (n < 4 || n > 60) {
		fprintf(stderr, "gen_corpus: %llu chunks, expected 4..60\n", (unsigned long long)n);
		exit(1);
	}
	/* chunk 1 twice in a row, with a footer indexing both */
	for (uint32_t i = 0; i < n; i++) {
		order[k++] = i;
		if (i == 1)
			order[k++] = i;
	}
	x = rearranged(good, order, k, 1);
	snprintf(want, sizeof(want), "corrupt trace data: chunk 1 repeated at offset %llu",
		 (unsigned long long)rearranged_at(good, order, 2));
	bad("chunk-repeated.trc", x.p, x.len, want);
	free(x.p);

	/* the whole sequence twice, no footer (a recovery scan reads it) */
	for (k = 0; k < 2 * n; k++)
		order[k] = k % (uint32_t)n;
	x = rearranged(good, order, k, 0);
	snprintf(want, sizeof(want), "corrupt trace data: chunk 0 repeated at offset %llu",
		 (unsigned long long)rearranged_at(good, order, (uint32_t)n));
	bad("chunks-twice-no-footer.trc", x.p, x.len, want);
	free(x.p);

	/* in reverse, with a footer indexing them so */
	for (k = 0; k < n; k++)
		order[k] = (uint32_t)n - 1 - k;
	x = rearranged(good, order, k, 1);
	snprintf(want, sizeof(want), "corrupt trace data: chunk %llu out of order at offset %llu",
		 (unsigned long long)n - 2, (unsigned long long)rearranged_at(good, order, 1));
	bad("chunks-reversed.trc", x.p, x.len, want);
	free(x.p);
}

static void gen_bad(void)
{
	struct img good = write_img(gr_events_schema(), 300, fill_events);
	uint64_t c0 = first_chunk(&good), foot = footer_off(&good);
	uint32_t hlen = (uint32_t)c0;
	struct img x;
	uint8_t raw[512], enc[32], *q;
	size_t n;

	bad("empty.trc", "", 0, "trace truncated: empty file (0 bytes)");
	bad("truncated-header.trc", good.p, 40, "trace truncated: header needs");
	bad("elf.trc",
	    "\x7f"
	    "ELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	    16, "not a gpurec trace: file starts with 7f 45 4c 46 02 01 01 00");
	bad("big-endian.trc", "\x89GRTRBE\n\x00\x01\x00\x00\x00\x00\x00\x80", 16,
	    "big-endian gpurec trace");

	x = dup_img(&good);
	gr_put_le16(x.p + GR_HDR_MAJOR, 2);
	fix_header_crc(x.p);
	bad("newer-major.trc", x.p, x.len,
	    "trace format version 2.0 is newer than this gpurec reads (1.3): upgrade gpurec");
	gr_put_le16(x.p + GR_HDR_MAJOR, 1);
	gr_put_le64(x.p + GR_HDR_REQUIRED, 4);
	fix_header_crc(x.p);
	bad("required-feature.trc", x.p, x.len, "trace requires features 0x4");
	gr_put_le64(x.p + GR_HDR_REQUIRED, 0);
	gr_put_le32(x.p + GR_HDR_LEN, 0xfffffff0);
	bad("huge-header-length.trc", x.p, hlen, "header length 4294967280 is above the limit");
	gr_put_le32(x.p + GR_HDR_LEN, hlen);
	gr_put_le32(x.p + GR_HDR_FIXED, 0x7fffffff); /* the host string */
	fix_header_crc(x.p);
	bad("huge-string-length.trc", x.p, x.len, "header host: length beyond the header");
	free(x.p);

	/* the kind count sits after the five strings */
	x = dup_img(&good);
	{
		uint32_t at = GR_HDR_FIXED;

		for (int i = 0; i < GR_HDR_STRINGS; i++)
			at += 4 + gr_get_le32(x.p + at);
		gr_put_le16(x.p + at, 0xffff);
	}
	fix_header_crc(x.p);
	bad("huge-kind-count.trc", x.p, x.len, "65535 record kinds, allowed 1..63");
	free(x.p);

	x = dup_img(&good);
	gr_put_le64(x.p + foot + 8, 1ull << 60);
	fix_footer(&x);
	bad("huge-footer-count.trc", x.p, x.len, "1152921504606846976 chunks do not fit");
	free(x.p);

	x = dup_img(&good);
	gr_put_le32(x.p + c0 + GR_CK_PAYLOAD, 0xfffffff0);
	gr_put_le32(x.p + c0 + GR_CK_HDR_CRC, gr_crc32(x.p + c0, GR_CK_HDR_CRC));
	{
		char want[128];

		snprintf(want, sizeof(want),
			 "corrupt trace data: chunk at offset %u: payload of 4294967280 bytes not "
			 "in 1..",
			 hlen);
		bad("huge-chunk-payload.trc", x.p, foot, want);
	}
	free(x.p);

	/* a frame declaring more content than the chunk header */
	x = dup_img(&good);
	{
		uint8_t *f = x.p + c0 + GR_CHUNK_HDR, fhd = f[4];
		unsigned at = 5 + !(fhd >> 5 & 1) + (unsigned[]){0, 1, 2, 4}[fhd & 3];
		char want[128];

		if ((fhd >> 6) == 0 && (fhd >> 5 & 1)) {
			f[at] = 0xff; /* a one-byte field */
			snprintf(want, sizeof(want),
				 "zstd frame content size 255, chunk header says");
		} else if ((fhd >> 6) == 1) {
			gr_put_le16(f + at, 0xffff); /* two bytes, plus 256 */
			snprintf(want, sizeof(want),
				 "zstd frame content size 65791, chunk header says");
		} else {
			fprintf(stderr, "gen_corpus: unexpected frame header %02x\n", fhd);
			exit(1);
		}
		fix_chunk(x.p + c0);
		fix_footer(&x);
		bad("frame-content-size.trc", x.p, x.len, want);
	}
	free(x.p);

	/* hand-made payloads behind a valid header and valid CRCs, no footer */
	x = bare_header();
	q = gr_leb_put(enc, 1ull << 40); /* a dictionary of 2^40 entries */
	*q++ = 0;
	n = launch_block(raw, GR_K_LAUNCH, 1, GR_LAUNCH_PID, enc, (size_t)(q - enc));
	add_chunk(&x, 0, raw, n, 1, 0, 0);
	bad("huge-dictionary.trc", x.p, x.len,
	    "kind 'launch' column 'pid' (DICT): dictionary size not in 1..values");
	free(x.p);

	x = bare_header();
	n = launch_block(raw, GR_K_LAUNCH, 1ull << 50, -1, NULL, 0);
	add_chunk(&x, 0, raw, n, 1, 0, 0);
	bad("huge-record-count.trc", x.p, x.len, "kind 'launch': bad record count");
	free(x.p);

	x = bare_header();
	n = launch_block(raw, 60, 1, -1, NULL, 0);
	add_chunk(&x, 0, raw, n, 1, 0, 0);
	bad("unknown-kind.trc", x.p, x.len, "unknown record kind 60 (not in the schema)");
	free(x.p);

	x = bare_header();
	q = raw;
	q = gr_leb_put(q, 1);
	q = gr_leb_put(q, GR_K_NAME);
	q = gr_leb_put(q, 1);
	for (int c = 0; c < GR_NAME_NCOLS; c++) {
		if (c == GR_NAME_TEXT) {
			uint8_t *e = gr_leb_put(enc, 1ull << 31);

			q = gr_leb_put(q, (size_t)(e - enc) + 4);
			memcpy(q, enc, (size_t)(e - enc));
			q += e - enc;
			memcpy(q, "abcd", 4);
			q += 4;
		} else if (c == GR_NAME_CLASS || c == GR_NAME_PID) {
			q = gr_leb_put(q, 2);
			*q++ = 1;
			*q++ = 0;
		} else {
			q = gr_leb_put(q, 1);
			*q++ = 0;
		}
	}
	add_chunk(&x, 0, raw, (size_t)(q - raw), 1, 0, 0);
	bad("huge-bytes-length.trc", x.p, x.len,
	    "kind 'name' column 'text' (BYTES): byte string above GR_MAX_BYTES_VALUE");
	free(x.p);

	/* ts column claims 2 records, holds 1: the chunk-level record count disagrees */
	x = bare_header();
	n = launch_block(raw, GR_K_LAUNCH, 2, -1, NULL, 0);
	add_chunk(&x, 0, raw, n, 2, 0, 0);
	bad("short-column.trc", x.p, x.len,
	    "kind 'launch' column 'ts' (DELTA): column ends inside");
	free(x.p);
	gen_sequence(&good);
	free(good.p);
}

int main(int argc, char **argv)
{
	char path[512];

	if (argc != 3) {
		fprintf(stderr, "usage: gen_corpus CORPUS_DIR BAD_DIR\n");
		return 2;
	}
	corpus_dir = argv[1];
	bad_dir = argv[2];
	snprintf(path, sizeof(path), "%s/reader", corpus_dir);
	mkdir(corpus_dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/chunk", corpus_dir);
	mkdir(path, 0755);
	mkdir(bad_dir, 0755);
	gen_seeds();
	snprintf(path, sizeof(path), "%s/EXPECTED", bad_dir);
	expected = fopen(path, "w");
	if (!expected)
		die(path);
	fprintf(expected,
		"# file, then the text its error or first integrity problem contains\n"
		"# (\"<gr_strerror>: <reason>\"); tests/unit/test_format.c checks them.\n");
	gen_bad();
	if (fclose(expected))
		die(path);
	return 0;
}
