/* SPDX-License-Identifier: MIT */
/*
 * format/: codecs, writer, reader, recovery, hostile input. Traces are written into memory files
 * (memfd) and read back with gr_trace_reader_open_mem(), or through a path where the file API
 * itself is under test. Every check compares against an exactly known value.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "format/column.h"
#include "format/events.h"
#include "format/layout.h"
#include "format/le.h"
#include "format/trace.h"
#include "format/varint.h"
#include "test.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- a test schema using every codec, with a gap in the kind ids ---- */

enum { K_ALPHA = 1, K_BETA = 2, K_GAMMA = 5 };
enum { A_TS, A_V, A_D, A_T, A_B, A_T2, A_NCOLS };
enum { B_TS, B_S, B_X, B_NCOLS };

static const struct gr_column_def alpha_cols[] = {
    {"ts", GR_CODEC_DELTA, 0}, {"v", GR_CODEC_VARINT, 0}, {"d", GR_CODEC_DELTA, 0},
    {"t", GR_CODEC_DICT, 0},   {"b", GR_CODEC_BYTES, 0},  {"t2", GR_CODEC_DICT, 0},
};
static const struct gr_column_def beta_cols[] = {
    {"ts", GR_CODEC_DELTA, 0},
    {"s", GR_CODEC_BYTES, 0},
    {"x", GR_CODEC_DICT, 0},
};
static const struct gr_column_def gamma_cols[] = {
    {"ts", GR_CODEC_DELTA, 0},
    {"v", GR_CODEC_VARINT, 0},
};
static const struct gr_kind_def test_kinds[] = {
    {K_ALPHA, "alpha", N(alpha_cols), alpha_cols},
    {K_BETA, "beta", N(beta_cols), beta_cols},
    {K_GAMMA, "gamma", N(gamma_cols), gamma_cols},
};
static const struct gr_schema test_schema = {N(test_kinds), test_kinds};

static const struct gr_trace_header test_header = {
    .required_features = 0,
    .optional_features = 0,
    .session_id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
    .host = "host-a",
    .kernel = "6.18.0",
    .tool_version = "gpurec 0.1.0",
    .cmdline = "python train.py --steps 3",
    .env = "CUDA_VISIBLE_DEVICES=0\n",
    .clock_monotonic_ns = 123456789,
    .clock_realtime_ns = 1700000000123456789ull,
};

/* The values of alpha record @i: edge values mixed with a pattern. */
static void alpha_values(uint32_t i, uint64_t *v, struct gr_bytes *b, uint8_t *buf)
{
	static const uint64_t edge[] = {
	    0, UINT64_MAX, 1, UINT64_MAX - 1, 0x8000000000000000ull, 127, 128, 16383, 16384};

	v[A_TS] = 1000000 + (uint64_t)i * 1000;
	v[A_V] = edge[i % N(edge)] ^ (i / N(edge));
	v[A_D] = UINT64_MAX - (uint64_t)i * 7919 * (i % 3); /* decreasing and jumping */
	v[A_T] = i % 4 == 3 ? UINT64_MAX : (uint64_t)(i % 3) * 0x7f0000001000ull;
	v[A_T2] = 42;
	b->len = i % 5 == 0 ? 0 : i % 37;
	for (uint32_t k = 0; k < b->len; k++)
		buf[k] = (uint8_t)(i + k);
	b->data = buf;
}

static void beta_values(uint32_t i, uint64_t *v, struct gr_bytes *b, uint8_t *buf)
{
	v[B_TS] = 1000000 + (uint64_t)i * 3000 + 500;
	v[B_X] = (uint64_t)(i % 200) << 40;
	b->len = (uint32_t)snprintf((char *)buf, 64, "name-%u", i);
	b->data = buf;
}

/* ---- writing into memory ---- */

struct mem {
	uint8_t *p;
	size_t len;
};

/* A writer on a memory file; *@keep gets a second descriptor to read the result back. */
static struct gr_trace_writer *mem_writer(const struct gr_schema *s,
					  const struct gr_trace_header *h,
					  const struct gr_writer_opts *o, int *keep)
{
	struct gr_trace_writer *w = NULL;
	int fd = memfd_create("trace", 0), err;

	*keep = dup(fd);
	err = gr_trace_writer_open(&w, fd, h, s, o);
	CHECK_EQ_U64(err, 0);
	return w;
}

static struct mem mem_finish(struct gr_trace_writer *w, int keep)
{
	struct mem m = {0};
	struct stat st;

	CHECK_EQ_U64(gr_trace_writer_close(w), 0);
	if (fstat(keep, &st))
		return m;
	m.len = (size_t)st.st_size;
	m.p = malloc(m.len ? m.len : 1);
	CHECK(pread(keep, m.p, m.len, 0) == (ssize_t)m.len);
	close(keep);
	return m;
}

/* alpha records 0..na-1, beta records 0..nb-1, interleaved by time. */
static struct mem write_ab(uint32_t na, uint32_t nb, const struct gr_writer_opts *o)
{
	uint64_t v[8] = {0};
	struct gr_bytes b;
	uint8_t buf[64];
	uint32_t i = 0, j = 0;
	int keep;
	struct gr_trace_writer *w = mem_writer(&test_schema, &test_header, o, &keep);

	while (i < na || j < nb) {
		uint64_t ta = 1000000 + (uint64_t)i * 1000, tb = 1000000 + (uint64_t)j * 3000 + 500;

		if (i < na && (j >= nb || ta <= tb)) {
			alpha_values(i++, v, &b, buf);
			CHECK_EQ_U64(gr_trace_writer_append(w, K_ALPHA, v, &b), 0);
		} else {
			beta_values(j++, v, &b, buf);
			CHECK_EQ_U64(gr_trace_writer_append(w, K_BETA, v, &b), 0);
		}
	}
	CHECK_EQ_U64(gr_trace_writer_records(w), na + nb);
	return mem_finish(w, keep);
}

/*
 * Reads every chunk and checks each record against alpha_values()/beta_values(), continuing the
 * numbering across chunks. Returns the records seen, per kind in @na/@nb.
 */
static uint64_t read_ab(struct gr_trace_reader *r, uint32_t *na, uint32_t *nb, uint32_t *chunks)
{
	const struct gr_chunk *c;
	uint64_t v[8], total = 0;
	struct gr_bytes b;
	uint8_t buf[64];
	int err;

	*na = *nb = 0;
	if (chunks)
		*chunks = 0;
	while ((err = gr_trace_reader_next_chunk(r, &c)) == 1) {
		uint32_t n = gr_chunk_count(c, K_ALPHA), m = gr_chunk_count(c, K_BETA);
		const uint64_t *ats = gr_chunk_column(c, K_ALPHA, A_TS);
		const uint64_t *av = gr_chunk_column(c, K_ALPHA, A_V);
		const uint64_t *ad = gr_chunk_column(c, K_ALPHA, A_D);
		const uint64_t *at = gr_chunk_column(c, K_ALPHA, A_T);
		const uint64_t *at2 = gr_chunk_column(c, K_ALPHA, A_T2);
		const struct gr_bytes *ab = gr_chunk_bytes(c, K_ALPHA, A_B);
		const uint64_t *bts = gr_chunk_column(c, K_BETA, B_TS);
		const uint64_t *bx = gr_chunk_column(c, K_BETA, B_X);
		const struct gr_bytes *bs = gr_chunk_bytes(c, K_BETA, B_S);
		int bad = 0;

		CHECK_EQ_U64(gr_chunk_total(c), n + m);
		CHECK(gr_chunk_count(c, K_GAMMA) == 0 && !gr_chunk_column(c, K_GAMMA, 0));
		CHECK(!gr_chunk_column(c, K_ALPHA, A_B) && !gr_chunk_bytes(c, K_ALPHA, A_V));
		CHECK(!n || (ats && av && ad && at && at2 && ab));
		CHECK(!m || (bts && bx && bs));
		for (uint32_t k = 0; k < n && ats; k++, (*na)++) {
			alpha_values(*na, v, &b, buf);
			bad |= ats[k] != v[A_TS] || av[k] != v[A_V] || ad[k] != v[A_D] ||
			       at[k] != v[A_T] || at2[k] != v[A_T2] || ab[k].len != b.len ||
			       (b.len && memcmp(ab[k].data, buf, b.len));
		}
		for (uint32_t k = 0; k < m && bts; k++, (*nb)++) {
			beta_values(*nb, v, &b, buf);
			bad |= bts[k] != v[B_TS] || bx[k] != v[B_X] || bs[k].len != b.len ||
			       memcmp(bs[k].data, buf, b.len);
		}
		CHECK(!bad);
		total += n + m;
		if (chunks)
			(*chunks)++;
	}
	CHECK_EQ_U64(err, 0);
	return total;
}

/* Records in the chunks still to read. */
static uint64_t count_records(struct gr_trace_reader *r)
{
	const struct gr_chunk *c;
	uint64_t total = 0;

	while (gr_trace_reader_next_chunk(r, &c) == 1)
		total += gr_chunk_total(c);
	return total;
}

static int contains(const char *s, const char *sub)
{
	if (strstr(s, sub))
		return 1;
	printf("#   \"%s\" does not contain \"%s\"\n", s, sub);
	return 0;
}

/* Patch the header's CRC after editing it. */
static void fix_header_crc(uint8_t *p)
{
	uint32_t hlen = gr_get_le32(p + GR_HDR_LEN);

	gr_put_le32(p + hlen - 4, gr_crc32(p, hlen - 4));
}

/* The chunk offsets of a complete trace, from its reader. */
static uint32_t chunk_offsets(const struct mem *m, uint64_t *off, uint32_t *records, uint32_t max)
{
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	uint32_t n = 0;

	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m->p, m->len, NULL), 0);
	while (n < max && gr_trace_reader_next_chunk(r, &c) == 1) {
		off[n] = gr_chunk_offset(c);
		records[n++] = gr_chunk_total(c);
	}
	gr_trace_reader_close(r);
	return n;
}

/* ---- LEB128, zigzag ---- */

static void test_leb128(void)
{
	static const struct {
		uint64_t v;
		unsigned len;
		uint8_t enc[10];
	} cases[] = {
	    {0, 1, {0x00}},
	    {1, 1, {0x01}},
	    {127, 1, {0x7f}},
	    {128, 2, {0x80, 0x01}},
	    {300, 2, {0xac, 0x02}},
	    {16383, 2, {0xff, 0x7f}},
	    {16384, 3, {0x80, 0x80, 0x01}},
	    {UINT32_MAX, 5, {0xff, 0xff, 0xff, 0xff, 0x0f}},
	    {UINT64_MAX, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	    {1ull << 63, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
	};
	uint8_t buf[16];

	for (size_t i = 0; i < N(cases); i++) {
		const uint8_t *p = buf;
		uint64_t v = 7;
		uint8_t *end = gr_leb_put(buf, cases[i].v);

		CHECK_EQ_U64(end - buf, cases[i].len);
		CHECK_EQ_U64(gr_leb_len(cases[i].v), cases[i].len);
		CHECK(!memcmp(buf, cases[i].enc, cases[i].len));
		CHECK_EQ_U64(gr_leb_get(&p, end, &v), 0);
		CHECK_EQ_U64(v, cases[i].v);
		CHECK(p == end);
		/* every strict prefix is truncated */
		p = buf;
		CHECK_EQ_U64(gr_leb_get(&p, end - 1, &v), (uint64_t)(int64_t)GR_ERR_TRUNCATED);
		CHECK(p == buf);
	}
	{
		/* 65 bits, an 11-byte encoding, and a redundant but valid 10-byte zero */
		static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0xff, 0xff, 0xff, 0x02};
		static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
						 0x80, 0x80, 0x80, 0x80, 0x00};
		static const uint8_t longzero[] = {0x80, 0x80, 0x80, 0x80, 0x80,
						   0x80, 0x80, 0x80, 0x80, 0x00};
		const uint8_t *p = over;
		uint64_t v = 5;

		CHECK_EQ_U64(gr_leb_get(&p, over + sizeof(over), &v),
			     (uint64_t)(int64_t)GR_ERR_CORRUPT);
		p = eleven;
		CHECK_EQ_U64(gr_leb_get(&p, eleven + sizeof(eleven), &v),
			     (uint64_t)(int64_t)GR_ERR_CORRUPT);
		p = longzero;
		CHECK_EQ_U64(gr_leb_get(&p, longzero + sizeof(longzero), &v), 0);
		CHECK_EQ_U64(v, 0);
		p = over;
		CHECK_EQ_U64(gr_leb_get(&p, over, &v), (uint64_t)(int64_t)GR_ERR_TRUNCATED);
	}
	CHECK_EQ_U64(gr_zigzag(0), 0);
	CHECK_EQ_U64(gr_zigzag((uint64_t)-1), 1);
	CHECK_EQ_U64(gr_zigzag(1), 2);
	CHECK_EQ_U64(gr_zigzag((uint64_t)-2), 3);
	CHECK_EQ_U64(gr_zigzag(INT64_MAX), UINT64_MAX - 1);
	CHECK_EQ_U64(gr_zigzag((uint64_t)INT64_MIN), UINT64_MAX);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rnd() >> (i % 64);

		CHECK_EQ_U64(gr_unzigzag(gr_zigzag(x)), x);
	}
}

/* ---- column codecs ---- */

/* Encode @n values with @codec, check the exact bytes when @want is given, decode, compare. */
static void roundtrip(uint8_t codec, const uint64_t *vals, uint32_t n, const uint8_t *want,
		      size_t wantlen)
{
	struct gr_colenc e;
	struct gr_coldec_scratch s = {0};
	uint64_t *out = calloc(n + 1, sizeof(*out));
	uint8_t *buf;
	size_t size, added = 0;
	const char *why;

	gr_colenc_init(&e, codec);
	for (uint32_t i = 0; i < n; i++) {
		int r = gr_colenc_add(&e, vals[i]);

		CHECK(r > 0);
		added += (size_t)r;
	}
	size = gr_colenc_size(&e);
	/* what add() reports is the size, except the dictionary count and omitted indexes */
	if (codec == GR_CODEC_DICT && n)
		CHECK(size <= added + gr_leb_len(e.nd));
	else
		CHECK_EQ_U64(size, added);
	buf = malloc(size + 1);
	CHECK(gr_colenc_emit(&e, buf) == buf + size);
	if (want) {
		CHECK_EQ_U64(size, wantlen);
		CHECK(size == wantlen && !memcmp(buf, want, wantlen));
	}
	CHECK_EQ_U64(gr_col_decode(codec, buf, size, n, out, NULL, &s, &why), 0);
	for (uint32_t i = 0; i < n; i++) {
		if (out[i] != vals[i]) {
			CHECK_EQ_U64(out[i], vals[i]);
			break;
		}
	}
	/* the same encoder again after a reset gives the same bytes */
	gr_colenc_reset(&e);
	for (uint32_t i = 0; i < n; i++)
		gr_colenc_add(&e, vals[i]);
	CHECK_EQ_U64(gr_colenc_size(&e), size);
	gr_colenc_free(&e);
	free(s.dict);
	free(buf);
	free(out);
}

static void test_codecs(void)
{
	static const uint64_t edge[] = {0, UINT64_MAX, 0, UINT64_MAX, 1, UINT64_MAX - 1, 5, 3, 0};
	static const uint64_t delta3[] = {5, 3, 10};
	static const uint8_t delta3_enc[] = {0x0a, 0x03, 0x0e};
	static const uint64_t varint3[] = {0, 300, UINT64_MAX};
	static const uint8_t varint3_enc[] = {0x00, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint64_t dict4[] = {7, 7, 9, 7};
	static const uint8_t dict4_enc[] = {0x02, 0x0e, 0x04, 0x00, 0x00, 0x01, 0x00};
	static const uint64_t dict1[] = {42, 42, 42};
	static const uint8_t dict1_enc[] = {0x01, 0x54};
	static const uint64_t dict_edge[] = {UINT64_MAX, 0, UINT64_MAX};
	static const uint8_t dict_edge_enc[] = {0x02, 0x01, 0x02, 0x00, 0x01, 0x00};
	static const uint64_t one_max[] = {UINT64_MAX};
	static const uint8_t one_max_delta[] = {0x01};
	static const uint8_t codecs[] = {GR_CODEC_VARINT, GR_CODEC_DELTA, GR_CODEC_DICT};
	uint32_t n = 20000;
	uint64_t *v = malloc(n * sizeof(*v));

	roundtrip(GR_CODEC_DELTA, delta3, 3, delta3_enc, sizeof(delta3_enc));
	roundtrip(GR_CODEC_VARINT, varint3, 3, varint3_enc, sizeof(varint3_enc));
	roundtrip(GR_CODEC_DICT, dict4, 4, dict4_enc, sizeof(dict4_enc));
	roundtrip(GR_CODEC_DICT, dict1, 3, dict1_enc, sizeof(dict1_enc));
	roundtrip(GR_CODEC_DICT, dict_edge, 3, dict_edge_enc, sizeof(dict_edge_enc));
	roundtrip(GR_CODEC_DELTA, one_max, 1, one_max_delta, sizeof(one_max_delta));
	for (size_t c = 0; c < N(codecs); c++) {
		roundtrip(codecs[c], NULL, 0, (const uint8_t *)"", 0);
		roundtrip(codecs[c], edge, N(edge), NULL, 0);
		roundtrip(codecs[c], one_max, 1, NULL, 0);
		/* decreasing */
		for (uint32_t i = 0; i < n; i++)
			v[i] = UINT64_MAX - (uint64_t)i * 1000003;
		roundtrip(codecs[c], v, n, NULL, 0);
		/* random, all widths */
		for (uint32_t i = 0; i < n; i++)
			v[i] = rnd() >> (rnd() % 64);
		roundtrip(codecs[c], v, n, NULL, 0);
		/* 128 and 129 distinct values: around the one-byte index fast path; then many */
		for (uint32_t d = 127; d <= 130; d++) {
			for (uint32_t i = 0; i < n; i++)
				v[i] = (uint64_t)(i * 7 % d) * 0x10001;
			roundtrip(codecs[c], v, n, NULL, 0);
		}
		for (uint32_t i = 0; i < n; i++)
			v[i] = i % 17000;
		roundtrip(codecs[c], v, n, NULL, 0);
	}
	free(v);
}

static void test_codec_bytes(void)
{
	static const uint8_t want[] = {0x00, 0x02, 'a', 'b', 0x00};
	struct gr_coldec_scratch s = {0};
	struct gr_bytes out[4];
	struct gr_colenc e;
	uint8_t *big = malloc(GR_MAX_BYTES_VALUE + 1), buf[16];
	const char *why;

	gr_colenc_init(&e, GR_CODEC_BYTES);
	CHECK_EQ_U64(gr_colenc_add_bytes(&e, NULL, 0), 1);
	CHECK_EQ_U64(gr_colenc_add_bytes(&e, (const uint8_t *)"ab", 2), 3);
	CHECK_EQ_U64(gr_colenc_add_bytes(&e, NULL, 0), 1);
	CHECK_EQ_U64(gr_colenc_size(&e), sizeof(want));
	CHECK(gr_colenc_emit(&e, buf) == buf + sizeof(want) && !memcmp(buf, want, sizeof(want)));
	CHECK_EQ_U64(gr_col_decode(GR_CODEC_BYTES, buf, sizeof(want), 3, NULL, out, &s, &why), 0);
	CHECK(out[0].len == 0 && out[1].len == 2 && !memcmp(out[1].data, "ab", 2) &&
	      out[2].len == 0);
	CHECK(out[1].data == buf + 2);
	/* the largest value, and one byte more */
	gr_colenc_reset(&e);
	memset(big, 0x5a, GR_MAX_BYTES_VALUE + 1);
	CHECK_EQ_U64(gr_colenc_add_bytes(&e, big, GR_MAX_BYTES_VALUE), GR_MAX_BYTES_VALUE + 3);
	CHECK_EQ_U64(gr_colenc_add_bytes(&e, big, GR_MAX_BYTES_VALUE + 1),
		     (uint64_t)(int64_t)GR_ERR_LIMIT);
	CHECK_EQ_U64(gr_col_decode(GR_CODEC_BYTES, e.data.p, e.data.len, 1, NULL, out, &s, &why),
		     0);
	CHECK(out[0].len == GR_MAX_BYTES_VALUE && !memcmp(out[0].data, big, GR_MAX_BYTES_VALUE));
	/* a length above the cap is refused even when the bytes are there */
	gr_colenc_reset(&e);
	{
		uint8_t *p = e.data.p, *q = gr_leb_put(p, GR_MAX_BYTES_VALUE + 1);

		memset(q, 0, GR_MAX_BYTES_VALUE + 1);
		CHECK_EQ_U64(gr_col_decode(GR_CODEC_BYTES, p,
					   (size_t)(q - p) + GR_MAX_BYTES_VALUE + 1, 1, NULL, out,
					   &s, &why),
			     (uint64_t)(int64_t)GR_ERR_LIMIT);
	}
	gr_colenc_free(&e);
	free(big);
}

static void test_codec_errors(void)
{
	static const struct {
		uint8_t codec;
		uint8_t bytes[8];
		size_t len;
		uint32_t n;
		int err;
		const char *why;
	} cases[] = {
	    {GR_CODEC_VARINT, {0x01, 0x02}, 2, 1, GR_ERR_CORRUPT, "bytes left"},
	    {GR_CODEC_VARINT, {0x81}, 1, 1, GR_ERR_CORRUPT, "ends inside"},
	    {GR_CODEC_DELTA, {0x01}, 1, 2, GR_ERR_CORRUPT, "ends inside"},
	    {GR_CODEC_VARINT, {0x01}, 1, 0, GR_ERR_CORRUPT, "without values"},
	    {GR_CODEC_DICT, {0x00}, 1, 1, GR_ERR_CORRUPT, "not in 1..values"},
	    {GR_CODEC_DICT, {0x03, 0x00, 0x02, 0x02}, 4, 2, GR_ERR_CORRUPT, "not in 1..values"},
	    {GR_CODEC_DICT, {0x02, 0x00, 0x02, 0x00, 0x02}, 5, 2, GR_ERR_CORRUPT, "outside"},
	    {GR_CODEC_DICT, {0x02, 0x00, 0x02, 0x00}, 4, 2, GR_ERR_CORRUPT, "ends inside"},
	    {GR_CODEC_DICT, {0x02, 0x00, 0x02, 0x00, 0x01, 0x00}, 6, 2, GR_ERR_CORRUPT, "left"},
	    {GR_CODEC_DICT, {0x01, 0x00, 0x00}, 3, 2, GR_ERR_CORRUPT, "one-value"},
	    {GR_CODEC_DICT, {0x02, 0x00}, 2, 2, GR_ERR_CORRUPT, "larger than"},
	    {GR_CODEC_BYTES, {0x03, 'a'}, 2, 1, GR_ERR_CORRUPT, "longer than"},
	    {GR_CODEC_BYTES, {0x01, 'a', 'b'}, 3, 1, GR_ERR_CORRUPT, "bytes left"},
	    {7, {0x00}, 1, 1, GR_ERR_SCHEMA, "unknown codec"},
	};
	struct gr_coldec_scratch s = {0};
	struct gr_bytes b[4];
	uint64_t out[4];
	const char *why;

	for (size_t i = 0; i < N(cases); i++) {
		int err = gr_col_decode(cases[i].codec, cases[i].bytes, cases[i].len, cases[i].n,
					out, b, &s, &why);

		CHECK_EQ_U64(err, (uint64_t)(int64_t)cases[i].err);
		CHECK(contains(why, cases[i].why));
	}
	free(s.dict);
}

/* A column read by rows: every one-byte index is checked, wherever it sits in the batch. */
static void test_cursor_dict_indexes(void)
{
	static const uint8_t badv[] = {3, 0x80, 0xff};
	struct gr_coldec_scratch s = {0};
	struct gr_col_cursor c;
	uint8_t col[4 + 20] = {0x03, 0x00, 0x02, 0x02}; /* values 0, 1, 2 */
	uint64_t out[20];
	const char *why;

	for (size_t v = 0; v < N(badv); v++) {
		for (int bad = -1; bad < 20; bad++) {
			int err;

			for (int j = 0; j < 20; j++)
				col[4 + j] = j == bad ? badv[v] : (uint8_t)(j % 3);
			CHECK_EQ_U64(
			    gr_col_cursor_init(&c, GR_CODEC_DICT, col, sizeof(col), 20, &s, &why),
			    0);
			err = gr_col_cursor_next(&c, 20, out, NULL, &why);
			if (bad >= 0) {
				CHECK_EQ_U64(err, (uint64_t)(int64_t)GR_ERR_CORRUPT);
				CHECK(contains(why, "outside"));
				continue;
			}
			CHECK_EQ_U64(err, 0);
			for (int j = 0; j < 20; j++)
				CHECK_EQ_U64(out[j], (uint64_t)(j % 3));
		}
	}
	free(s.dict);
}

/* ---- errors ---- */

static void test_strerror(void)
{
	struct gr_diag d = {0};

	CHECK_STR(gr_strerror(0), "success");
	CHECK_STR(gr_strerror(-ENOENT), "No such file or directory");
	CHECK_STR(gr_strerror(GR_ERR_VERSION),
		  "unsupported trace format version or required feature");
	CHECK_STR(gr_strerror(GR_ERR_LAST), "unknown error");
	CHECK_STR(gr_strerror(12345), "unknown error");
	for (int e = GR_ERR_FIRST; e < GR_ERR_LAST; e++) {
		CHECK(strlen(gr_strerror(e)) > 5);
		for (int f = GR_ERR_FIRST; f < e; f++)
			CHECK(strcmp(gr_strerror(e), gr_strerror(f)));
	}
	CHECK_EQ_U64(gr_diag_set(&d, GR_ERR_CORRUPT, 77, "chunk %d: %s", 3, "bad"),
		     (uint64_t)(int64_t)GR_ERR_CORRUPT);
	CHECK_EQ_U64(d.err, (uint64_t)(int64_t)GR_ERR_CORRUPT);
	CHECK_EQ_U64(d.offset, 77);
	CHECK_STR(d.reason, "chunk 3: bad");
	CHECK_EQ_U64(gr_diag_set(NULL, -EIO, 1, "x"), (uint64_t)(int64_t)-EIO);
}

/* ---- writer + reader ---- */

static void test_roundtrip(void)
{
	struct gr_writer_opts o = {0};
	struct mem m = write_ab(500, 200, &o);
	struct gr_trace_reader *r = NULL;
	const struct gr_trace_header *h;
	const struct gr_schema *s;
	const struct gr_integrity *in;
	struct gr_diag d = {0};
	uint32_t na, nb, chunks;

	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, &d), 0);
	if (!r)
		return;
	h = gr_trace_reader_header(r);
	CHECK_EQ_U64(h->major, GR_FORMAT_MAJOR);
	CHECK_EQ_U64(h->minor, GR_FORMAT_MINOR);
	CHECK_EQ_U64(h->required_features, 0);
	CHECK_EQ_U64(h->optional_features, 0);
	CHECK(!memcmp(h->session_id, test_header.session_id, 16));
	CHECK_STR(h->host, "host-a");
	CHECK_STR(h->kernel, "6.18.0");
	CHECK_STR(h->tool_version, "gpurec 0.1.0");
	CHECK_STR(h->cmdline, "python train.py --steps 3");
	CHECK_STR(h->env, "CUDA_VISIBLE_DEVICES=0\n");
	CHECK_EQ_U64(h->clock_monotonic_ns, 123456789);
	CHECK_EQ_U64(h->clock_realtime_ns, 1700000000123456789ull);
	s = gr_trace_reader_schema(r);
	CHECK_EQ_U64(s->nkinds, 3);
	for (uint16_t k = 0; k < 3 && s->nkinds == 3; k++) {
		CHECK_EQ_U64(s->kinds[k].id, test_kinds[k].id);
		CHECK_STR(s->kinds[k].name, test_kinds[k].name);
		CHECK_EQ_U64(s->kinds[k].ncols, test_kinds[k].ncols);
		for (uint16_t c = 0; c < test_kinds[k].ncols; c++) {
			CHECK_STR(s->kinds[k].cols[c].name, test_kinds[k].cols[c].name);
			CHECK_EQ_U64(s->kinds[k].cols[c].codec, test_kinds[k].cols[c].codec);
		}
	}
	CHECK_EQ_U64(gr_schema_column(s, K_ALPHA, "t2"), A_T2);
	CHECK_EQ_U64(gr_schema_column(s, K_BETA, "x"), B_X);
	CHECK_EQ_U64(gr_schema_column(s, K_BETA, "nope"), (uint64_t)(int64_t)GR_ERR_SCHEMA);
	CHECK_EQ_U64(gr_schema_column(s, 3, "ts"), (uint64_t)(int64_t)GR_ERR_SCHEMA);
	CHECK(gr_schema_kind(s, K_GAMMA) == &s->kinds[2]);
	CHECK(gr_schema_kind(s, 4) == NULL);
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), 1);

	CHECK_EQ_U64(read_ab(r, &na, &nb, &chunks), 700);
	CHECK_EQ_U64(na, 500);
	CHECK_EQ_U64(nb, 200);
	CHECK_EQ_U64(chunks, 1);
	in = gr_trace_reader_integrity(r);
	CHECK_EQ_U64(in->complete, 1);
	CHECK_EQ_U64(in->footer_present, 1);
	CHECK_EQ_U64(in->file_bytes, m.len);
	CHECK_EQ_U64(in->chunks_ok, 1);
	CHECK_EQ_U64(in->chunks_bad, 0);
	CHECK_EQ_U64(in->bytes_unread, 0);
	CHECK_EQ_U64(in->first_problem.err, 0);
	/* rewind reads it all again */
	gr_trace_reader_rewind(r);
	CHECK_EQ_U64(read_ab(r, &na, &nb, &chunks), 700);
	CHECK_EQ_U64(chunks, 1);
	gr_trace_reader_close(r);
	free(m.p);
}

static void test_events_schema(void)
{
	const struct gr_schema *s = gr_events_schema();
	int keep;
	struct gr_trace_writer *w = mem_writer(s, &test_header, NULL, &keep);
	uint64_t v[GR_LAUNCH_NCOLS] = {0};
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	struct mem m;

	CHECK_EQ_U64(gr_schema_column(s, GR_K_LAUNCH, "func"), GR_LAUNCH_FUNC);
	CHECK_EQ_U64(gr_schema_column(s, GR_K_SCHED, "target_cpu"), GR_SCHED_TARGET_CPU);
	CHECK_STR(gr_schema_kind(s, GR_K_SESSION)->name, "session");
	for (uint16_t i = 0; i < GR_LAUNCH_NCOLS; i++)
		v[i] = 1000 + i;
	CHECK_EQ_U64(gr_trace_writer_append(w, GR_K_LAUNCH, v, NULL), 0);
	m = mem_finish(w, keep);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_schema(r)->nkinds, s->nkinds);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 1);
	for (uint16_t i = 0; i < GR_LAUNCH_NCOLS; i++)
		CHECK_EQ_U64(gr_chunk_column(c, GR_K_LAUNCH, i)[0], 1000 + i);
	CHECK_EQ_U64(gr_chunk_first_ts(c), 1000);
	CHECK_EQ_U64(gr_chunk_last_ts(c), 1000);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 0);
	gr_trace_reader_close(r);
	free(m.p);
}

static void test_empty_and_single(void)
{
	struct gr_trace_reader *r;
	const struct gr_chunk *c = (const struct gr_chunk *)1;
	const struct gr_integrity *in;
	struct gr_trace_writer *w;
	uint64_t before, v[8] = {0};
	struct gr_bytes b[1] = {{NULL, 0}};
	struct mem m;
	int keep;

	/* no records: flush is a no-op, the file is header + empty footer + trailer */
	w = mem_writer(&test_schema, NULL, NULL, &keep);
	before = gr_trace_writer_file_bytes(w);
	CHECK_EQ_U64(gr_trace_writer_flush(w), 0);
	CHECK_EQ_U64(gr_trace_writer_flush(w), 0);
	CHECK_EQ_U64(gr_trace_writer_file_bytes(w), before);
	CHECK_EQ_U64(gr_trace_writer_records(w), 0);
	m = mem_finish(w, keep);
	CHECK_EQ_U64(m.len, before + GR_FOOTER_FIXED + GR_TRAILER);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_STR(gr_trace_reader_header(r)->host, "");
	CHECK_STR(gr_trace_reader_header(r)->env, "");
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), 0);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 0);
	CHECK(c == NULL);
	in = gr_trace_reader_integrity(r);
	CHECK(in->complete == 1 && in->footer_present == 1 && in->chunks_ok == 0);
	gr_trace_reader_close(r);
	free(m.p);

	/* one record with the extreme values; BYTES of length 0 */
	w = mem_writer(&test_schema, &test_header, NULL, &keep);
	v[A_TS] = UINT64_MAX;
	v[A_V] = UINT64_MAX;
	v[A_D] = 0;
	v[A_T] = UINT64_MAX;
	v[A_T2] = 0;
	CHECK_EQ_U64(gr_trace_writer_append(w, K_ALPHA, v, b), 0);
	CHECK_EQ_U64(gr_trace_writer_flush(w), 0);
	before = gr_trace_writer_file_bytes(w);
	CHECK_EQ_U64(gr_trace_writer_flush(w), 0);
	CHECK_EQ_U64(gr_trace_writer_file_bytes(w), before);
	m = mem_finish(w, keep);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 1);
	CHECK_EQ_U64(gr_chunk_total(c), 1);
	CHECK_EQ_U64(gr_chunk_count(c, K_ALPHA), 1);
	CHECK_EQ_U64(gr_chunk_column(c, K_ALPHA, A_TS)[0], UINT64_MAX);
	CHECK_EQ_U64(gr_chunk_column(c, K_ALPHA, A_V)[0], UINT64_MAX);
	CHECK_EQ_U64(gr_chunk_column(c, K_ALPHA, A_D)[0], 0);
	CHECK_EQ_U64(gr_chunk_column(c, K_ALPHA, A_T)[0], UINT64_MAX);
	CHECK_EQ_U64(gr_chunk_column(c, K_ALPHA, A_T2)[0], 0);
	CHECK_EQ_U64(gr_chunk_bytes(c, K_ALPHA, A_B)[0].len, 0);
	CHECK_EQ_U64(gr_chunk_first_ts(c), UINT64_MAX);
	CHECK_EQ_U64(gr_chunk_last_ts(c), UINT64_MAX);
	CHECK_EQ_U64(gr_chunk_offset(c), gr_get_le32(m.p + GR_HDR_LEN));
	CHECK(gr_chunk_column(c, K_ALPHA, A_NCOLS) == NULL);
	CHECK(gr_chunk_column(c, GR_MAX_KINDS, 0) == NULL);
	CHECK(gr_chunk_column(c, K_ALPHA, GR_MAX_COLUMNS) == NULL);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 0);
	gr_trace_reader_close(r);
	free(m.p);
}

static void test_large_bytes(void)
{
	uint8_t *big = malloc(GR_MAX_BYTES_VALUE);
	struct gr_bytes b[1] = {{big, GR_MAX_BYTES_VALUE}};
	uint64_t v[4] = {10, 0, 0, 0};
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	struct gr_trace_writer *w;
	struct mem m;
	int keep;

	for (uint32_t i = 0; i < GR_MAX_BYTES_VALUE; i++)
		big[i] = (uint8_t)(i * 31 + (i >> 8));
	w = mem_writer(&test_schema, NULL, NULL, &keep);
	CHECK_EQ_U64(gr_trace_writer_append(w, K_BETA, v, b), 0);
	b[0].len = GR_MAX_BYTES_VALUE + 1;
	CHECK_EQ_U64(gr_trace_writer_append(w, K_BETA, v, b), (uint64_t)(int64_t)GR_ERR_LIMIT);
	b[0].len = 0;
	v[0] = 11;
	CHECK_EQ_U64(gr_trace_writer_append(w, K_BETA, v, b), 0);
	m = mem_finish(w, keep);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 1);
	CHECK_EQ_U64(gr_chunk_count(c, K_BETA), 2);
	CHECK_EQ_U64(gr_chunk_bytes(c, K_BETA, B_S)[0].len, GR_MAX_BYTES_VALUE);
	CHECK(!memcmp(gr_chunk_bytes(c, K_BETA, B_S)[0].data, big, GR_MAX_BYTES_VALUE));
	CHECK_EQ_U64(gr_chunk_bytes(c, K_BETA, B_S)[1].len, 0);
	CHECK_EQ_U64(gr_chunk_column(c, K_BETA, B_TS)[1], 11);
	gr_trace_reader_close(r);
	free(m.p);
	free(big);
}

static void test_many_chunks(void)
{
	struct gr_writer_opts one = {.chunk_raw_bytes = 1}, small = {.chunk_raw_bytes = 2000};
	struct gr_trace_reader *r;
	uint32_t na, nb, chunks;
	struct mem m;

	/* a chunk per record */
	m = write_ab(30, 10, &one);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), 40);
	CHECK_EQ_U64(read_ab(r, &na, &nb, &chunks), 40);
	CHECK(na == 30 && nb == 10 && chunks == 40);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->complete, 1);
	gr_trace_reader_close(r);
	free(m.p);

	/* bounded by size: every chunk holds the records that took it past 2000 bytes */
	m = write_ab(5000, 2000, &small);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK(gr_trace_reader_chunk_count(r) > 20);
	CHECK_EQ_U64(read_ab(r, &na, &nb, &chunks), 7000);
	CHECK(na == 5000 && nb == 2000);
	CHECK_EQ_U64(chunks, gr_trace_reader_chunk_count(r));
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->complete, 1);
	gr_trace_reader_close(r);
	free(m.p);

	/* a raw size limit beyond what a reader accepts is refused */
	{
		struct gr_writer_opts big = {.chunk_raw_bytes = GR_MAX_CHUNK_RAW};
		struct gr_trace_writer *w = (struct gr_trace_writer *)1;
		int fd = memfd_create("t", 0);

		CHECK_EQ_U64(gr_trace_writer_open(&w, fd, NULL, &test_schema, &big),
			     (uint64_t)(int64_t)GR_ERR_LIMIT);
		CHECK(w == NULL);
		close(fd);
	}
}

static void test_time_bound(void)
{
	/* chunk_ns 100: a record more than 100 ns after its chunk's first record starts another */
	static const uint64_t ts[] = {1000, 1050, 1100, 1101, 1150, 1201, 1202, 990, 1302, 5000};
	static const uint32_t want_n[] = {3, 3, 3, 1};
	static const uint64_t want_first[] = {1000, 1101, 990, 5000};
	static const uint64_t want_last[] = {1100, 1201, 1302, 5000};
	struct gr_writer_opts o = {.chunk_ns = 100};
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	uint64_t v[4] = {0};
	struct mem m;
	uint32_t i = 0;
	int keep;
	struct gr_trace_writer *w = mem_writer(&test_schema, NULL, &o, &keep);

	for (size_t k = 0; k < N(ts); k++) {
		v[0] = ts[k];
		v[1] = k;
		CHECK_EQ_U64(gr_trace_writer_append(w, K_GAMMA, v, NULL), 0);
	}
	m = mem_finish(w, keep);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), N(want_n));
	while (gr_trace_reader_next_chunk(r, &c) == 1 && i < N(want_n)) {
		CHECK_EQ_U64(gr_chunk_count(c, K_GAMMA), want_n[i]);
		CHECK_EQ_U64(gr_chunk_first_ts(c), want_first[i]);
		CHECK_EQ_U64(gr_chunk_last_ts(c), want_last[i]);
		i++;
	}
	CHECK_EQ_U64(i, N(want_n));
	gr_trace_reader_close(r);
	free(m.p);
}

static void test_merge(void)
{
	/* kind, ts in append order: equal timestamps across kinds go by kind id, then row */
	static const struct {
		uint16_t kind;
		uint64_t ts;
	} in[] = {
	    {K_GAMMA, 10}, {K_ALPHA, 10}, {K_BETA, 5},	{K_ALPHA, 10}, {K_GAMMA, 20},
	    {K_BETA, 10},  {K_ALPHA, 30}, {K_BETA, 30}, {K_GAMMA, 30},
	};
	static const struct gr_record_ref want[] = {
	    {K_BETA, 0, 5},   {K_ALPHA, 0, 10}, {K_ALPHA, 1, 10},
	    {K_BETA, 1, 10},  {K_GAMMA, 0, 10}, {K_GAMMA, 1, 20},
	    {K_ALPHA, 2, 30}, {K_BETA, 2, 30},	{K_GAMMA, 2, 30},
	};
	/* gamma out of order inside its kind: the stable sort path */
	static const uint64_t unsorted[] = {50, 40, 40, 60, 10};
	static const uint32_t unsorted_rows[] = {4, 1, 2, 0, 3};
	struct gr_record_ref out[16];
	uint64_t v[8] = {0};
	struct gr_bytes b[1] = {{NULL, 0}};
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	struct gr_trace_writer *w;
	struct mem m;
	int keep;

	w = mem_writer(&test_schema, NULL, NULL, &keep);
	for (size_t i = 0; i < N(in); i++) {
		v[0] = in[i].ts;
		CHECK_EQ_U64(gr_trace_writer_append(w, in[i].kind, v, b), 0);
	}
	CHECK_EQ_U64(gr_trace_writer_flush(w), 0);
	for (size_t i = 0; i < N(unsorted); i++) {
		v[0] = unsorted[i];
		CHECK_EQ_U64(gr_trace_writer_append(w, K_GAMMA, v, b), 0);
	}
	m = mem_finish(w, keep);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 1);
	CHECK_EQ_U64(gr_chunk_total(c), N(in));
	CHECK_EQ_U64(gr_chunk_merge_by_time(c, out, N(in) - 1), (uint64_t)(int64_t)-ENOSPC);
	CHECK_EQ_U64(gr_chunk_merge_by_time(c, out, N(out)), N(in));
	for (size_t i = 0; i < N(want); i++) {
		CHECK_EQ_U64(out[i].kind, want[i].kind);
		CHECK_EQ_U64(out[i].index, want[i].index);
		CHECK_EQ_U64(out[i].ts, want[i].ts);
	}
	CHECK_EQ_U64(gr_trace_reader_next_chunk(r, &c), 1);
	CHECK_EQ_U64(gr_chunk_merge_by_time(c, out, N(out)), N(unsorted));
	for (size_t i = 0; i < N(unsorted); i++) {
		CHECK_EQ_U64(out[i].kind, K_GAMMA);
		CHECK_EQ_U64(out[i].index, unsorted_rows[i]);
		CHECK_EQ_U64(out[i].ts, unsorted[unsorted_rows[i]]);
	}
	CHECK_EQ_U64(gr_chunk_first_ts(c), 10);
	CHECK_EQ_U64(gr_chunk_last_ts(c), 60);
	gr_trace_reader_close(r);
	free(m.p);
}

/* ---- damage ---- */

#define NCHUNK 12

static struct mem chunked_trace(uint64_t *off, uint32_t *recs, uint32_t *n)
{
	struct gr_writer_opts o = {.chunk_raw_bytes = 3000};
	struct mem m = write_ab(1000, 300, &o);

	*n = chunk_offsets(&m, off, recs, NCHUNK + 1);
	return m;
}

/*
 * A file cut at any byte after its header keeps exactly the chunks that end at or before the cut,
 * with all their records, none counted bad, and the bytes after them unread: what a recorder
 * killed at any instant, or a copy cut short, leaves.
 */
static void test_truncated_everywhere(void)
{
	uint64_t off[NCHUNK + 1];
	uint32_t recs[NCHUNK + 1], n, na, nb;
	struct mem m = chunked_trace(off, recs, &n);
	uint64_t footer = gr_get_le64(m.p + m.len - GR_TRAILER + GR_TR_FOOTER_OFF);

	CHECK(n >= 5 && n <= NCHUNK);
	if (n < 5 || n > NCHUNK)
		return;
	off[n] = footer;
	for (uint64_t cut = off[0]; cut < m.len; cut++) {
		struct gr_trace_reader *r;
		const struct gr_integrity *in;
		uint64_t want = 0;
		uint32_t k = 0;

		while (k < n && off[k + 1] <= cut)
			want += recs[k++];
		if (gr_trace_reader_open_mem(&r, m.p, cut, NULL)) {
			CHECK(!"a cut file opens");
			continue;
		}
		in = gr_trace_reader_integrity(r);
		if (in->chunks_ok != k || in->chunks_bad || in->bytes_unread != cut - off[k] ||
		    in->complete || read_ab(r, &na, &nb, NULL) != want || in->chunks_ok != k) {
			CHECK_EQ_U64(cut, 0); /* names the first failing cut */
			gr_trace_reader_close(r);
			break;
		}
		gr_trace_reader_close(r);
	}
	free(m.p);
}

static void test_truncated(void)
{
	uint64_t off[NCHUNK + 1];
	uint32_t recs[NCHUNK + 1], n, na, nb;
	struct mem m = chunked_trace(off, recs, &n);
	uint64_t footer = gr_get_le64(m.p + m.len - GR_TRAILER + GR_TR_FOOTER_OFF);

	CHECK(n >= 5 && n <= NCHUNK);
	if (n < 5 || n > NCHUNK)
		return;
	off[n] = footer;
	/* cut at every chunk boundary, including right after the header and before the footer */
	for (uint32_t k = 0; k <= n; k++) {
		struct gr_trace_reader *r;
		const struct gr_integrity *in;
		uint64_t want = 0;

		for (uint32_t i = 0; i < k; i++)
			want += recs[i];
		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, off[k], NULL), 0);
		if (!r)
			continue;
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->chunks_ok, k);
		CHECK_EQ_U64(in->chunks_bad, 0);
		CHECK_EQ_U64(in->bytes_unread, 0);
		CHECK_EQ_U64(in->footer_present, 0);
		CHECK_EQ_U64(in->complete, 0);
		CHECK_EQ_U64(in->file_bytes, off[k]);
		CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_TRUNCATED);
		CHECK(contains(in->first_problem.reason, "no footer"));
		CHECK_EQ_U64(gr_trace_reader_chunk_count(r), k);
		CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), want);
		CHECK_EQ_U64(in->chunks_ok, k);
		gr_trace_reader_close(r);
	}
	/* cut inside a chunk: the chunks before it, the rest unread */
	for (uint32_t k = 0; k < n; k++) {
		struct gr_trace_reader *r;
		const struct gr_integrity *in;
		uint64_t cut = off[k] + (k % 2 ? 10 : (off[k + 1] - off[k]) - 1), want = 0;
		char where[64];

		for (uint32_t i = 0; i < k; i++)
			want += recs[i];
		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, cut, NULL), 0);
		if (!r)
			continue;
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->chunks_ok, k);
		CHECK_EQ_U64(in->chunks_bad, 0);
		CHECK_EQ_U64(in->bytes_unread, cut - off[k]);
		CHECK_EQ_U64(in->complete, 0);
		CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_TRUNCATED);
		CHECK_EQ_U64(in->first_problem.offset, off[k]);
		snprintf(where, sizeof(where), "chunk at offset %" PRIu64 " is cut short", off[k]);
		CHECK(contains(in->first_problem.reason, where));
		CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), want);
		gr_trace_reader_close(r);
	}
	/* cut inside the footer and inside the trailer: every chunk, the rest unread */
	for (uint64_t cut = footer + 3; cut < m.len; cut += m.len - footer - 5) {
		struct gr_trace_reader *r;
		const struct gr_integrity *in;

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, cut, NULL), 0);
		if (!r)
			continue;
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->chunks_ok, n);
		CHECK_EQ_U64(in->bytes_unread, cut - footer);
		CHECK_EQ_U64(in->complete, 0);
		CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), 1300);
		gr_trace_reader_close(r);
	}
	/* cut inside the header: nothing to read */
	for (uint64_t cut = 1; cut < off[0]; cut += 7) {
		struct gr_trace_reader *r = (struct gr_trace_reader *)1;
		struct gr_diag d = {0};

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, cut, &d),
			     (uint64_t)(int64_t)GR_ERR_TRUNCATED);
		CHECK(r == NULL);
		CHECK(contains(d.reason, cut < GR_HDR_FROZEN ? "shorter than a trace header"
							     : "header needs"));
	}
	free(m.p);
}

static void test_flipped_byte(void)
{
	uint64_t off[NCHUNK + 1];
	uint32_t recs[NCHUNK + 1], n, na, nb;
	struct mem m = chunked_trace(off, recs, &n);
	uint64_t footer = gr_get_le64(m.p + m.len - GR_TRAILER + GR_TR_FOOTER_OFF);
	uint64_t bad = 2, want = 0;
	char reason[200];

	if (n < 5)
		return;
	for (uint32_t i = 0; i < n; i++)
		want += i == bad ? 0 : recs[i];
	m.p[off[bad] + GR_CHUNK_HDR + 20] ^= 0x40;
	snprintf(reason, sizeof(reason), "chunk at offset %" PRIu64 ": payload CRC32 0x", off[bad]);
	/* with the footer, then without it (recovery scan): the same verdict */
	for (int cut = 0; cut < 2; cut++) {
		struct gr_trace_reader *r;
		const struct gr_integrity *in;

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, cut ? footer : m.len, NULL), 0);
		if (!r)
			continue;
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->footer_present, !cut);
		CHECK_EQ_U64(in->chunks_ok, n - 1);
		CHECK_EQ_U64(in->chunks_bad, 1);
		CHECK_EQ_U64(in->bytes_unread, 0);
		CHECK_EQ_U64(in->complete, 0);
		CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_CHECKSUM);
		CHECK_EQ_U64(in->first_problem.offset, off[bad]);
		CHECK(contains(in->first_problem.reason, reason));
		CHECK(contains(in->first_problem.reason, " expected 0x"));
		CHECK_EQ_U64(gr_trace_reader_chunk_count(r), n - 1);
		/* the records of the other chunks: alpha/beta numbering skips the lost chunk */
		{
			const struct gr_chunk *c;
			uint64_t total = 0;
			uint32_t seen = 0;

			while (gr_trace_reader_next_chunk(r, &c) == 1) {
				CHECK(gr_chunk_offset(c) != off[bad]);
				total += gr_chunk_total(c);
				seen++;
			}
			CHECK_EQ_U64(total, want);
			CHECK_EQ_U64(seen, n - 1);
		}
		gr_trace_reader_close(r);
	}
	m.p[off[bad] + GR_CHUNK_HDR + 20] ^= 0x40;

	/* a damaged chunk header: skipped with the footer, resynchronised without it */
	m.p[off[bad] + GR_CK_RECORDS] ^= 1;
	for (int cut = 0; cut < 2; cut++) {
		struct gr_trace_reader *r;
		const struct gr_integrity *in;

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, cut ? footer : m.len, NULL), 0);
		if (!r)
			continue;
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->chunks_ok, n - 1);
		CHECK_EQ_U64(in->chunks_bad, 1);
		CHECK_EQ_U64(in->bytes_unread, 0);
		CHECK_EQ_U64(in->first_problem.offset, off[bad]);
		CHECK(contains(in->first_problem.reason,
			       cut ? "hold no valid chunk header (skipped)" : "bad chunk header"));
		gr_trace_reader_close(r);
	}
	/* two damaged headers in a row, no footer: the sequence numbers count both */
	m.p[off[bad + 1] + GR_CK_RECORDS] ^= 1;
	{
		struct gr_trace_reader *r;
		const struct gr_integrity *in;

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, footer, NULL), 0);
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->chunks_ok, n - 2);
		CHECK_EQ_U64(in->chunks_bad, 2);
		gr_trace_reader_close(r);
	}
	m.p[off[bad + 1] + GR_CK_RECORDS] ^= 1;
	m.p[off[bad] + GR_CK_RECORDS] ^= 1;

	/* damage the trailer: recovery finds everything, says the footer was unusable */
	m.p[m.len - GR_TRAILER] ^= 1;
	{
		struct gr_trace_reader *r;
		const struct gr_integrity *in;

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->footer_present, 0);
		CHECK_EQ_U64(in->chunks_ok, n);
		CHECK_EQ_U64(in->bytes_unread, m.len - footer);
		CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_CHECKSUM);
		CHECK(contains(in->first_problem.reason, "trailer at offset"));
		CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), 1300);
		gr_trace_reader_close(r);
	}
	m.p[m.len - GR_TRAILER] ^= 1;
	free(m.p);
}

/*
 * A chunk whose CRCs hold but whose zstd frame is damaged (a writer bug, or a flip before the
 * CRC was computed): found at decode time, counted then.
 */
static void test_bad_frame(void)
{
	uint64_t off[NCHUNK + 1];
	uint32_t recs[NCHUNK + 1], n;
	struct mem m = chunked_trace(off, recs, &n);
	struct gr_trace_reader *r;
	const struct gr_integrity *in;
	struct gr_chunk_hdr h;
	uint8_t *ck;

	if (n < 5)
		return;
	ck = m.p + off[1];
	CHECK_EQ_U64(gr_chunk_hdr_get(ck, &h), 0);
	ck[GR_CHUNK_HDR + h.payload - 1] ^= 0xff; /* inside the zstd content checksum */
	h.payload_crc = gr_crc32(ck + GR_CHUNK_HDR, h.payload);
	gr_chunk_hdr_put(ck, &h);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	in = gr_trace_reader_integrity(r);
	CHECK_EQ_U64(in->chunks_ok, n);
	CHECK_EQ_U64(in->complete, 1);
	CHECK_EQ_U64(count_records(r), 1300 - recs[1]);
	CHECK_EQ_U64(in->chunks_ok, n - 1);
	CHECK_EQ_U64(in->chunks_bad, 1);
	CHECK_EQ_U64(in->complete, 0);
	CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_COMPRESS);
	CHECK_EQ_U64(in->first_problem.offset, off[1]);
	CHECK(contains(in->first_problem.reason, "zstd: "));
	/* counted once, however often it is read */
	gr_trace_reader_rewind(r);
	CHECK_EQ_U64(count_records(r), 1300 - recs[1]);
	CHECK_EQ_U64(in->chunks_bad, 1);
	gr_trace_reader_close(r);
	free(m.p);
}

/* A chunk holding a kind the file's schema does not have: that chunk is bad, the others read. */
static void test_unknown_kind(void)
{
	struct gr_writer_opts o = {.chunk_raw_bytes = 1};
	struct gr_trace_reader *r;
	const struct gr_integrity *in;
	const struct gr_chunk *c;
	uint64_t v[8] = {0};
	struct gr_bytes b[1] = {{NULL, 0}};
	uint32_t hlen, got = 0;
	struct mem m;
	int keep, seen_gamma = 0;
	struct gr_trace_writer *w = mem_writer(&test_schema, NULL, &o, &keep);

	for (int i = 0; i < 3; i++) {
		v[0] = 100 + i;
		CHECK_EQ_U64(gr_trace_writer_append(w, i == 1 ? K_GAMMA : K_BETA, v, b), 0);
	}
	m = mem_finish(w, keep);
	/* rename kind 5 (gamma) to 6 in the header's schema */
	hlen = gr_get_le32(m.p + GR_HDR_LEN);
	for (uint32_t p = GR_HDR_FIXED; p + 11 <= hlen; p++) {
		if (!memcmp(m.p + p + 4, "\x05gamma", 6) && gr_get_le16(m.p + p) == K_GAMMA) {
			gr_put_le16(m.p + p, 6);
			seen_gamma = 1;
			break;
		}
	}
	CHECK(seen_gamma);
	fix_header_crc(m.p);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK(gr_schema_kind(gr_trace_reader_schema(r), 6) != NULL);
	while (gr_trace_reader_next_chunk(r, &c) == 1) {
		CHECK_EQ_U64(gr_chunk_count(c, K_BETA), 1);
		got++;
	}
	CHECK_EQ_U64(got, 2);
	in = gr_trace_reader_integrity(r);
	CHECK_EQ_U64(in->chunks_ok, 2);
	CHECK_EQ_U64(in->chunks_bad, 1);
	CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_SCHEMA);
	CHECK(contains(in->first_problem.reason, "unknown record kind 5"));
	gr_trace_reader_close(r);
	free(m.p);
}

static void test_versions(void)
{
	struct mem m = write_ab(10, 10, NULL);
	struct gr_trace_reader *r = NULL;
	struct gr_diag d = {0};
	uint32_t na, nb;
	uint8_t *x = malloc(m.len + 8);

	/* a newer major version is refused, naming both versions */
	memcpy(x, m.p, m.len);
	gr_put_le16(x + GR_HDR_MAJOR, GR_FORMAT_MAJOR + 1);
	gr_put_le16(x + GR_HDR_MINOR, 3);
	fix_header_crc(x);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x, m.len, &d), (uint64_t)(int64_t)GR_ERR_VERSION);
	CHECK(r == NULL);
	CHECK_EQ_U64(d.err, (uint64_t)(int64_t)GR_ERR_VERSION);
	CHECK(contains(d.reason, "version 2.3 is newer than this gpurec reads (1.3)"));
	/* even with a header this reader cannot check (the layout may differ) */
	gr_put_le32(x + GR_HDR_LEN, 0xffffffff);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x, m.len, &d), (uint64_t)(int64_t)GR_ERR_VERSION);

	/* an unknown required feature is refused */
	memcpy(x, m.p, m.len);
	gr_put_le64(x + GR_HDR_REQUIRED, 1ull << 17);
	fix_header_crc(x);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x, m.len, &d), (uint64_t)(int64_t)GR_ERR_VERSION);
	CHECK(contains(d.reason, "requires features 0x20000"));

	/* unknown optional features are ignored (and reported) */
	memcpy(x, m.p, m.len);
	gr_put_le64(x + GR_HDR_OPTIONAL, 0xff00000000000001ull);
	fix_header_crc(x);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x, m.len, &d), 0);
	CHECK_EQ_U64(gr_trace_reader_header(r)->optional_features, 0xff00000000000001ull);
	CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), 20);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->complete, 1);
	gr_trace_reader_close(r);

	/* the writer refuses to set required features it does not know */
	{
		struct gr_trace_header h = test_header;
		struct gr_trace_writer *w;
		int fd = memfd_create("t", 0);

		h.required_features = 1;
		CHECK_EQ_U64(gr_trace_writer_open(&w, fd, &h, &test_schema, NULL),
			     (uint64_t)(int64_t)GR_ERR_VERSION);
		h.required_features = 0;
		h.optional_features = 1ull << 40;
		CHECK_EQ_U64(gr_trace_writer_open(&w, fd, &h, &test_schema, NULL), 0);
		CHECK_EQ_U64(gr_trace_writer_close(w), 0);
	}

	/* a newer minor version may add header bytes after the schema: skipped */
	{
		uint32_t hlen = gr_get_le32(m.p + GR_HDR_LEN);
		uint64_t chunk;

		memcpy(x, m.p, hlen - 4);
		memcpy(x + hlen - 4, "EXT!", 4);
		memcpy(x + hlen + 4, m.p + hlen, m.len - hlen);
		gr_put_le32(x + GR_HDR_LEN, hlen + 4);
		fix_header_crc(x);
		/* the chunk offsets moved by 4 bytes: only the recovery scan applies */
		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x, m.len + 4, &d),
			     (uint64_t)(int64_t)GR_ERR_CORRUPT);
		CHECK(contains(d.reason, "4 unexplained bytes after the header schema"));
		gr_put_le16(x + GR_HDR_MINOR, GR_FORMAT_MINOR + 1);
		fix_header_crc(x);
		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x, m.len + 4, &d), 0);
		CHECK_EQ_U64(gr_trace_reader_header(r)->minor, GR_FORMAT_MINOR + 1);
		CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), 20);
		chunk = gr_trace_reader_integrity(r)->chunks_ok;
		CHECK_EQ_U64(chunk, 1);
		gr_trace_reader_close(r);
	}
	free(x);
	free(m.p);
}

static void test_garbage(void)
{
	static const struct {
		const char *bytes;
		size_t len;
		int err;
		const char *reason;
	} cases[] = {
	    {"", 0, GR_ERR_TRUNCATED, "empty file (0 bytes)"},
	    {"\x89GRT", 4, GR_ERR_TRUNCATED, "file is 4 bytes, shorter than a trace header"},
	    {"\x89GRTRLE\n\x01", 9, GR_ERR_TRUNCATED, "file is 9 bytes"},
	    {"hello", 5, GR_ERR_MAGIC, "not a gpurec trace: file starts with 68 65 6c 6c 6f"},
	    {"PERFILE2 and more bytes here", 28, GR_ERR_MAGIC,
	     "file starts with 50 45 52 46 49 4c 45 32 (expected 89 47 52 54 52 4c 45 0a)"},
	    {"\x89GRTRBE\n\x00\x01\x00\x00\x00\x10\x00\x00", 16, GR_ERR_MAGIC, "big-endian"},
	    {"\x89GRTRLE\n\x01\x00\x00\x00\x10\x00\x00\x00", 16, GR_ERR_CORRUPT,
	     "header length 16 is below the minimum 90"},
	    {"\x89GRTRLE\n\x01\x00\x00\x00\x01\x00\x10\x00", 16, GR_ERR_LIMIT,
	     "header length 1048577 is above the limit 1048576"},
	    {"\x89GRTRLE\n\x01\x00\x00\x00\x00\x01\x00\x00", 16, GR_ERR_TRUNCATED,
	     "header needs 256 bytes, file has 16"},
	    {"\x89GRTRLE\n\x00\x00\x00\x00\x00\x01\x00\x00", 16, GR_ERR_VERSION,
	     "version 0.0 is not supported"},
	};
	uint8_t rnd_bytes[4096];
	struct mem m = write_ab(3, 3, NULL);

	for (size_t i = 0; i < N(cases); i++) {
		struct gr_trace_reader *r = (struct gr_trace_reader *)1;
		struct gr_diag d = {0};

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, cases[i].bytes, cases[i].len, &d),
			     (uint64_t)(int64_t)cases[i].err);
		CHECK(r == NULL);
		CHECK_EQ_U64(d.err, (uint64_t)(int64_t)cases[i].err);
		CHECK(contains(d.reason, cases[i].reason));
	}
	for (size_t i = 0; i < sizeof(rnd_bytes); i++)
		rnd_bytes[i] = (uint8_t)rnd();
	{
		struct gr_trace_reader *r;

		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, rnd_bytes, sizeof(rnd_bytes), NULL),
			     (uint64_t)(int64_t)GR_ERR_MAGIC);
	}
	/* one flipped bit anywhere in the header: the header CRC */
	for (uint32_t at = GR_HDR_FROZEN; at < gr_get_le32(m.p + GR_HDR_LEN); at += 13) {
		struct gr_trace_reader *r;
		struct gr_diag d = {0};

		m.p[at] ^= 4;
		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, &d),
			     (uint64_t)(int64_t)GR_ERR_CHECKSUM);
		CHECK(contains(d.reason, "header CRC32 0x"));
		m.p[at] ^= 4;
	}
	free(m.p);
}

/* The file API: a real path, read with pread(). */
static void test_file_api(void)
{
	char path[] = "/tmp/test_format.XXXXXX";
	uint64_t off[NCHUNK + 1];
	uint32_t recs[NCHUNK + 1], n, na, nb;
	struct mem m = chunked_trace(off, recs, &n);
	struct gr_trace_reader *r = (struct gr_trace_reader *)1;
	struct gr_diag d = {0};
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(write(fd, m.p, m.len) == (ssize_t)m.len);
	CHECK_EQ_U64(gr_trace_reader_open(&r, path, &d), 0);
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), n);
	CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), 1300);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->complete, 1);
	/* the file changes under an open reader: a rewritten chunk header, then a cut */
	{
		uint8_t hb[GR_CHUNK_HDR];
		char want[100];

		memcpy(hb, m.p + off[1], GR_CHUNK_HDR);
		gr_put_le32(hb + GR_CK_PAYLOAD, gr_get_le32(hb + GR_CK_PAYLOAD) + 1000);
		gr_put_le32(hb + GR_CK_HDR_CRC, gr_crc32(hb, GR_CK_HDR_CRC));
		CHECK(pwrite(fd, hb, sizeof(hb), (off_t)off[1]) == (ssize_t)sizeof(hb));
		CHECK(ftruncate(fd, (off_t)off[4]) == 0);
		gr_trace_reader_rewind(r);
		CHECK_EQ_U64(count_records(r), recs[0] + recs[2] + recs[3]);
		CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_ok, 3);
		CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_bad, n - 3);
		snprintf(want, sizeof(want), "chunk at offset %" PRIu64 ": changed since", off[1]);
		CHECK(contains(gr_trace_reader_integrity(r)->first_problem.reason, want));
		CHECK(pwrite(fd, m.p, m.len, 0) == (ssize_t)m.len);
	}
	gr_trace_reader_close(r);
	/* the same file cut in its fourth chunk, and with a flipped byte in its second */
	m.p[off[1] + GR_CHUNK_HDR + 5] ^= 1;
	CHECK(pwrite(fd, m.p, m.len, 0) == (ssize_t)m.len);
	CHECK(ftruncate(fd, (off_t)off[3] + 100) == 0);
	CHECK_EQ_U64(gr_trace_reader_open(&r, path, &d), 0);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_ok, 2);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_bad, 1);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->bytes_unread, 100);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->first_problem.offset, off[1]);
	CHECK_EQ_U64(count_records(r), recs[0] + recs[2]);
	gr_trace_reader_close(r);
	close(fd);
	unlink(path);
	CHECK_EQ_U64(gr_trace_reader_open(&r, path, &d), (uint64_t)(int64_t)-ENOENT);
	CHECK(r == NULL);
	CHECK(contains(d.reason, "No such file or directory"));
	CHECK_EQ_U64(gr_trace_reader_open(&r, "/tmp", &d), (uint64_t)(int64_t)-EINVAL);
	free(m.p);
}

static void test_writer_errors(void)
{
	static const struct gr_column_def bad_ts[] = {{"ts", GR_CODEC_VARINT, 0}};
	static const struct gr_column_def dup_cols[] = {{"ts", GR_CODEC_DELTA, 0},
							{"ts", GR_CODEC_DICT, 0}};
	static const struct gr_kind_def bad1[] = {{1, "k", 1, bad_ts}};
	static const struct gr_kind_def bad2[] = {{1, "k", 2, dup_cols}};
	static const struct gr_kind_def bad3[] = {{0, "k", 1, alpha_cols}};
	static const struct gr_kind_def bad4[] = {{1, "k", 1, alpha_cols}, {1, "l", 1, alpha_cols}};
	static const struct gr_schema bads[] = {
	    {1, bad1}, {1, bad2}, {1, bad3}, {2, bad4}, {0, NULL}};
	uint64_t v[8] = {0};
	struct gr_bytes b[1] = {{NULL, 0}};
	struct gr_trace_writer *w;
	int p[2], keep, err;
	struct mem m;

	for (size_t i = 0; i < N(bads); i++) {
		int fd = memfd_create("t", 0);

		w = (struct gr_trace_writer *)1;
		CHECK_EQ_U64(gr_trace_writer_open(&w, fd, NULL, &bads[i], NULL),
			     (uint64_t)(int64_t)GR_ERR_SCHEMA);
		CHECK(w == NULL);
		close(fd);
	}
	CHECK_EQ_U64(gr_trace_writer_open(&w, -1, NULL, &test_schema, NULL),
		     (uint64_t)(int64_t)-EBADF);

	/* argument errors reject the record and nothing else */
	w = mem_writer(&test_schema, NULL, NULL, &keep);
	CHECK_EQ_U64(gr_trace_writer_append(w, 3, v, b), (uint64_t)(int64_t)GR_ERR_SCHEMA);
	CHECK_EQ_U64(gr_trace_writer_append(w, 99, v, b), (uint64_t)(int64_t)GR_ERR_SCHEMA);
	CHECK_EQ_U64(gr_trace_writer_append(w, K_BETA, v, NULL), (uint64_t)(int64_t)-EINVAL);
	CHECK_EQ_U64(gr_trace_writer_append(w, K_GAMMA, v, NULL), 0);
	CHECK_EQ_U64(gr_trace_writer_records(w), 1);
	m = mem_finish(w, keep);
	free(m.p);

	/* an I/O error: later appends refused, close returns the first error */
	signal(SIGPIPE, SIG_IGN);
	CHECK(pipe(p) == 0);
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 1 << 20) > 0);
	CHECK_EQ_U64(gr_trace_writer_open(&w, p[1], NULL, &test_schema, NULL), 0);
	close(p[0]);
	CHECK_EQ_U64(gr_trace_writer_append(w, K_GAMMA, v, NULL), 0);
	CHECK_EQ_U64(gr_trace_writer_flush(w), (uint64_t)(int64_t)-EPIPE);
	CHECK_EQ_U64(gr_trace_writer_append(w, K_GAMMA, v, NULL), (uint64_t)(int64_t)GR_ERR_STATE);
	CHECK_EQ_U64(gr_trace_writer_flush(w), (uint64_t)(int64_t)GR_ERR_STATE);
	err = gr_trace_writer_close(w);
	CHECK_EQ_U64(err, (uint64_t)(int64_t)-EPIPE);
	CHECK_EQ_U64(gr_trace_writer_close(NULL), 0);
	signal(SIGPIPE, SIG_DFL);
}

/* ---- chunk sequence numbers: repeated, reordered and missing chunks ---- */

/*
 * A copy of the complete trace @m holding its chunks in the order @order (@k entries, indexes
 * into its chunk list: repeats and moves), every checksum valid, with a footer that indexes
 * them when @footer, else none: what a hostile or mistaken rewrite of a file leaves.
 */
static struct mem rearranged(const struct mem *m, const uint32_t *order, uint32_t k, int footer)
{
	uint64_t foff = gr_get_le64(m->p + m->len - GR_TRAILER + GR_TR_FOOTER_OFF);
	uint32_t hlen = gr_get_le32(m->p + GR_HDR_LEN);
	uint64_t n = gr_get_le64(m->p + foff + 8), coff[NCHUNK + 1], at = hlen;
	const uint8_t *ent[NCHUNK + 1], *e = m->p + foff + GR_FOOTER_FIXED;
	size_t elen[NCHUNK + 1];
	struct mem x = {0};
	uint8_t *q;

	CHECK(n <= NCHUNK);
	for (uint64_t i = 0; i < n && i <= NCHUNK; i++) {
		ent[i] = e;
		elen[i] = GR_FOOTER_ENTRY + 4 * (size_t)__builtin_popcountll(gr_get_le64(e + 32));
		coff[i] = gr_get_le64(e);
		e += elen[i];
	}
	x.p = malloc(m->len * (k / (n ? n : 1) + 2));
	memcpy(x.p, m->p, hlen);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t size = gr_get_le32(ent[order[i]] + 8);

		memcpy(x.p + at, m->p + coff[order[i]], size);
		at += size;
	}
	x.len = at;
	if (!footer)
		return x;
	q = x.p + at;
	memcpy(q, GR_FOOTER_MAGIC, 4);
	gr_put_le32(q + 4, 0);
	gr_put_le64(q + 8, k);
	q += GR_FOOTER_FIXED;
	at = hlen;
	for (uint32_t i = 0; i < k; i++) {
		memcpy(q, ent[order[i]], elen[order[i]]);
		gr_put_le64(q, at);
		at += gr_get_le32(q + 8);
		q += elen[order[i]];
	}
	gr_put_le64(q + GR_TR_FOOTER_OFF, x.len);
	gr_put_le64(q + GR_TR_FOOTER_LEN, (uint64_t)(q - (x.p + x.len)));
	gr_put_le32(q + GR_TR_FOOTER_CRC, gr_crc32(x.p + x.len, (size_t)(q - (x.p + x.len))));
	gr_put_le32(q + GR_TR_CRC, gr_crc32(q, GR_TR_CRC));
	memcpy(q + GR_TR_MAGIC, GR_TRAILER_MAGIC, GR_MAGIC_LEN);
	x.len = (size_t)(q - x.p) + GR_TRAILER;
	return x;
}

/* Where chunk number @pos of rearranged(@order) starts. */
static uint64_t rearranged_off(const uint64_t *off, uint32_t n, const uint32_t *order, uint32_t pos,
			       uint64_t end)
{
	uint64_t at = off[0];

	for (uint32_t i = 0; i < pos; i++)
		at += (order[i] + 1 < n ? off[order[i] + 1] : end) - off[order[i]];
	return at;
}

struct seq_want {
	uint64_t ok, bad, repeated, out_of_order;
	uint64_t problem_at; /* position in the order of the chunk first_problem names */
	const char *what;    /* "repeated at", "out of order at", "missing before" */
	uint32_t seq;	     /* the sequence number the reason names */
};

/*
 * Reads rearranged(@order) with and without its footer: the integrity @w says, the first problem
 * named exactly, and every record of the original read once: 1000 alpha, 300 beta (@whole), in
 * their original numbering when @in_order.
 */
static void check_rearranged(const struct mem *m, const uint64_t *off, uint32_t n,
			     const uint32_t *order, uint32_t k, const struct seq_want *w, int whole,
			     int in_order)
{
	uint64_t end = gr_get_le64(m->p + m->len - GR_TRAILER + GR_TR_FOOTER_OFF);

	for (int footer = 1; footer >= 0; footer--) {
		struct mem x = rearranged(m, order, k, footer);
		struct gr_trace_reader *r = NULL;
		const struct gr_integrity *in;
		const struct gr_chunk *c;
		uint64_t at = rearranged_off(off, n, order, (uint32_t)w->problem_at, end);
		uint32_t na = 0, nb = 0;
		char reason[200];

		snprintf(reason, sizeof(reason), "chunk %" PRIu32 " %s offset %" PRIu64, w->seq,
			 w->what, at);
		CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x.p, x.len, NULL), 0);
		if (!r) {
			free(x.p);
			continue;
		}
		in = gr_trace_reader_integrity(r);
		CHECK_EQ_U64(in->footer_present, footer);
		CHECK_EQ_U64(gr_trace_reader_index_len(r), k);
		CHECK_EQ_U64(in->chunks_ok, w->ok);
		CHECK_EQ_U64(in->chunks_bad, w->bad);
		CHECK_EQ_U64(in->chunks_repeated, w->repeated);
		CHECK_EQ_U64(in->chunks_out_of_order, w->out_of_order);
		CHECK_EQ_U64(in->bytes_unread, 0);
		CHECK_EQ_U64(in->complete, 0);
		CHECK_EQ_U64(in->first_problem.err, (uint64_t)(int64_t)GR_ERR_CORRUPT);
		CHECK_EQ_U64(in->first_problem.offset, at);
		if (strcmp(in->first_problem.reason, reason)) {
			printf("#   footer %d: \"%s\", expected \"%s\"\n", footer,
			       in->first_problem.reason, reason);
			CHECK(!"first problem");
		}
		if (in_order) {
			CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), whole ? 1300 : na + nb);
		} else {
			while (gr_trace_reader_next_chunk(r, &c) == 1) {
				na += gr_chunk_count(c, K_ALPHA);
				nb += gr_chunk_count(c, K_BETA);
			}
		}
		if (whole) {
			CHECK_EQ_U64(na, 1000);
			CHECK_EQ_U64(nb, 300);
		}
		/* reading every chunk changes none of it */
		CHECK_EQ_U64(in->chunks_ok, w->ok);
		CHECK_EQ_U64(in->chunks_bad, w->bad);
		gr_trace_reader_close(r);
		free(x.p);
	}
}

static void test_chunk_sequence(void)
{
	uint64_t off[NCHUNK + 1];
	uint32_t recs[NCHUNK + 1], n, order[2 * NCHUNK + 2], k;
	struct mem m = chunked_trace(off, recs, &n);

	if (n < 6) {
		CHECK(!"chunked_trace() gives 6 chunks at least");
		free(m.p);
		return;
	}
	/* chunk 2 twice in a row: the copy is skipped, its records read once */
	k = 0;
	for (uint32_t i = 0; i < n; i++) {
		order[k++] = i;
		if (i == 2)
			order[k++] = i;
	}
	check_rearranged(&m, off, n, order, k, &(struct seq_want){n, 1, 1, 0, 3, "repeated at", 2},
			 1, 1);

	/* every chunk twice: the file's chunks, then all of them again */
	k = 0;
	for (uint32_t i = 0; i < 2 * n; i++)
		order[k++] = i % n;
	check_rearranged(&m, off, n, order, k, &(struct seq_want){n, n, n, 0, n, "repeated at", 0},
			 1, 1);

	/* in reverse: every record read once, every chunk but the first out of order */
	k = 0;
	for (uint32_t i = 0; i < n; i++)
		order[k++] = n - 1 - i;
	check_rearranged(&m, off, n, order, k,
			 &(struct seq_want){n, 0, 0, n - 1, 1, "out of order at", n - 2}, 1, 0);

	/* chunks 2 and 3 swapped, then 3 again: one move, one repeat, nothing lost */
	k = 0;
	for (uint32_t i = 0; i < n; i++) {
		order[k++] = i == 2 ? 3 : i == 3 ? 2 : i;
		if (i == 3)
			order[k++] = 3;
	}
	check_rearranged(&m, off, n, order, k,
			 &(struct seq_want){n, 1, 1, 1, 3, "out of order at", 2}, 1, 0);

	/* chunk 3 cut out with its checksums rebuilt: lost, named by its number */
	k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (i != 3)
			order[k++] = i;
	check_rearranged(&m, off, n, order, k,
			 &(struct seq_want){n - 1, 1, 0, 0, 3, "missing before", 3}, 0, 0);

	/* in reverse, the second chunk bad: bad once, not lost too, and not out of order */
	k = 0;
	for (uint32_t i = 0; i < n; i++)
		order[k++] = n - 1 - i;
	{
		uint64_t end = gr_get_le64(m.p + m.len - GR_TRAILER + GR_TR_FOOTER_OFF);

		for (int footer = 1; footer >= 0; footer--) {
			struct mem x = rearranged(&m, order, k, footer);
			uint64_t at = rearranged_off(off, n, order, 1, end);
			struct gr_trace_reader *r = NULL;
			const struct gr_integrity *in;

			x.p[at + GR_CHUNK_HDR + 20] ^= 0x40;
			CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x.p, x.len, NULL), 0);
			if (r) {
				in = gr_trace_reader_integrity(r);
				CHECK_EQ_U64(in->chunks_ok, n - 1);
				CHECK_EQ_U64(in->chunks_bad, 1);
				CHECK_EQ_U64(in->chunks_repeated, 0);
				CHECK_EQ_U64(in->chunks_out_of_order, n - 2);
				CHECK_EQ_U64(in->first_problem.err,
					     (uint64_t)(int64_t)GR_ERR_CHECKSUM);
				CHECK_EQ_U64(in->first_problem.offset, at);
				CHECK_EQ_U64(count_records(r), 1300 - recs[n - 2]);
			}
			gr_trace_reader_close(r);
			free(x.p);
		}
	}

	/* the first copy of a repeated chunk bad: the good copy is read, nothing counted twice */
	k = 0;
	for (uint32_t i = 0; i < n; i++) {
		order[k++] = i;
		if (i == 2)
			order[k++] = i;
	}
	{
		uint64_t end = gr_get_le64(m.p + m.len - GR_TRAILER + GR_TR_FOOTER_OFF);

		for (int footer = 1; footer >= 0; footer--) {
			struct mem x = rearranged(&m, order, k, footer);
			uint64_t at = rearranged_off(off, n, order, 2, end);
			struct gr_trace_reader *r = NULL;
			const struct gr_integrity *in;
			uint32_t na, nb;

			x.p[at + GR_CHUNK_HDR + 20] ^= 0x40;
			CHECK_EQ_U64(gr_trace_reader_open_mem(&r, x.p, x.len, NULL), 0);
			if (r) {
				in = gr_trace_reader_integrity(r);
				CHECK_EQ_U64(in->chunks_ok, n);
				CHECK_EQ_U64(in->chunks_bad, 1);
				CHECK_EQ_U64(in->chunks_repeated, 0);
				CHECK_EQ_U64(in->chunks_out_of_order, 0);
				CHECK_EQ_U64(in->first_problem.err,
					     (uint64_t)(int64_t)GR_ERR_CHECKSUM);
				CHECK_EQ_U64(in->first_problem.offset, at);
				CHECK_EQ_U64(read_ab(r, &na, &nb, NULL), 1300);
				CHECK_EQ_U64(na, 1000);
				CHECK_EQ_U64(nb, 300);
			}
			gr_trace_reader_close(r);
			free(x.p);
		}
	}
	free(m.p);
}

/* ---- tests/data/bad: hostile files and the error each must give ---- */

static void test_bad_files(void)
{
	FILE *f = fopen("tests/data/bad/EXPECTED", "r");
	char line[512];
	int files = 0;

	CHECK(f != NULL);
	if (!f) {
		printf("#   run from the repository root: tests/data/bad/EXPECTED not found\n");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *name = line, *want, path[600], got[800];
		struct gr_trace_reader *r;
		struct gr_diag d = {0};
		int err;

		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		want = strchr(line, ' ');
		CHECK(want != NULL);
		if (!want)
			continue;
		*want++ = 0;
		snprintf(path, sizeof(path), "tests/data/bad/%s", name);
		err = gr_trace_reader_open(&r, path, &d);
		if (!err) {
			const struct gr_chunk *c;

			while (gr_trace_reader_next_chunk(r, &c) == 1)
				;
			d = gr_trace_reader_integrity(r)->first_problem;
			gr_trace_reader_close(r);
		}
		snprintf(got, sizeof(got), "%s: %s", gr_strerror(d.err), d.reason);
		if (!strstr(got, want)) {
			printf("#   %s: \"%s\" does not contain \"%s\"\n", name, got, want);
			CHECK(!"bad file message");
		}
		files++;
	}
	fclose(f);
	CHECK(files >= 8);
}

/* Records of each kind id in the good chunks of @path, into @count; 0 or the open error. */
static int kind_counts(const char *path, uint64_t *count, struct gr_integrity *in)
{
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	int err = gr_trace_reader_open(&r, path, NULL);

	memset(count, 0, GR_MAX_KINDS * sizeof(*count));
	if (err)
		return err;
	while (gr_trace_reader_next_chunk(r, &c) == 1)
		for (uint16_t k = 1; k < GR_MAX_KINDS; k++)
			count[k] += gr_chunk_count(c, k);
	*in = *gr_trace_reader_integrity(r);
	gr_trace_reader_close(r);
	return 0;
}

/*
 * The chunks of a good trace (tests/fuzz/corpus/reader/events-chunks.trc: 7 chunks, 24 launches)
 * repeated or reordered with their checksums rebuilt (tests/data/bad, tests/fuzz/gen_corpus.c):
 * every record read exactly once, the damage counted exactly.
 */
static void test_bad_sequence_files(void)
{
	static const struct {
		const char *name;
		uint64_t ok, bad, repeated, out_of_order;
		int footer;
	} files[] = {
	    {"chunk-repeated.trc", 7, 1, 1, 0, 1},
	    {"chunks-twice-no-footer.trc", 7, 7, 7, 0, 0},
	    {"chunks-reversed.trc", 7, 0, 0, 6, 1},
	};
	uint64_t want[GR_MAX_KINDS], got[GR_MAX_KINDS];
	struct gr_integrity in;
	char path[256];

	CHECK_EQ_U64(kind_counts("tests/fuzz/corpus/reader/events-chunks.trc", want, &in), 0);
	CHECK_EQ_U64(in.complete, 1);
	CHECK_EQ_U64(in.chunks_ok, 7);
	CHECK_EQ_U64(want[GR_K_LAUNCH], 24);
	CHECK_EQ_U64(want[GR_K_COPY], 3);
	for (size_t i = 0; i < N(files); i++) {
		snprintf(path, sizeof(path), "tests/data/bad/%s", files[i].name);
		CHECK_EQ_U64(kind_counts(path, got, &in), 0);
		printf("#   %s\n", files[i].name);
		CHECK_EQ_U64(got[GR_K_LAUNCH], 24);
		CHECK(!memcmp(got, want, sizeof(got)));
		CHECK_EQ_U64(in.complete, 0);
		CHECK_EQ_U64(in.footer_present, files[i].footer);
		CHECK_EQ_U64(in.chunks_ok, files[i].ok);
		CHECK_EQ_U64(in.chunks_bad, files[i].bad);
		CHECK_EQ_U64(in.chunks_repeated, files[i].repeated);
		CHECK_EQ_U64(in.chunks_out_of_order, files[i].out_of_order);
		CHECK_EQ_U64(in.bytes_unread, 0);
	}
}

/* ---- the chunk index and decoding on several threads ---- */

/* A sum of every value of a decoded chunk (BYTES: lengths and bytes), 0 for none. */
static uint64_t chunk_digest(const struct gr_chunk *c)
{
	uint64_t h = 0;

	for (size_t k = 0; c && k < N(test_kinds); k++) {
		const struct gr_kind_def *kd = &test_kinds[k];
		uint32_t n = gr_chunk_count(c, kd->id);

		for (uint16_t col = 0; col < kd->ncols && n; col++) {
			const uint64_t *v = gr_chunk_column(c, kd->id, col);
			const struct gr_bytes *b = gr_chunk_bytes(c, kd->id, col);
			uint64_t hc = 0;

			for (uint32_t i = 0; i < n; i++) {
				hc = hc * 31 + (v ? v[i] : b[i].len);
				for (uint32_t j = 0; !v && j < b[i].len; j++)
					hc = hc * 31 + b[i].data[j];
			}
			h = h * 37 + hc;
		}
	}
	return h * 31 + gr_chunk_total(c);
}

#define MAX_IDX 256

struct decode_job {
	struct gr_trace_reader *r;
	uint64_t first, step, n;
	uint64_t digest[MAX_IDX];
	int ret[MAX_IDX];
	int err;
};

static void *decode_some(void *arg)
{
	struct decode_job *j = arg;
	struct gr_chunk_decoder *d;
	const struct gr_chunk *c;

	j->err = gr_chunk_decoder_new(&d);
	for (uint64_t i = j->first; !j->err && i < j->n; i += j->step) {
		j->ret[i] = gr_chunk_decode(d, j->r, i, &c);
		j->digest[i] = chunk_digest(c);
	}
	gr_chunk_decoder_free(d);
	return NULL;
}

/* Decode every index entry on @nthreads threads (entry i on thread i % nthreads). */
static void decode_threads(struct gr_trace_reader *r, unsigned nthreads, uint64_t *digest, int *ret)
{
	struct decode_job jobs[4];
	pthread_t th[4];
	uint64_t n = gr_trace_reader_index_len(r);

	CHECK(n <= MAX_IDX && nthreads <= 4);
	for (unsigned t = 0; t < nthreads; t++) {
		jobs[t] = (struct decode_job){.r = r, .first = t, .step = nthreads, .n = n};
		CHECK_EQ_U64(pthread_create(&th[t], NULL, decode_some, &jobs[t]), 0);
	}
	for (unsigned t = 0; t < nthreads; t++) {
		pthread_join(th[t], NULL);
		CHECK_EQ_U64(jobs[t].err, 0);
		for (uint64_t i = t; i < n; i += nthreads) {
			digest[i] = jobs[t].digest[i];
			ret[i] = jobs[t].ret[i];
		}
	}
}

/* The digest of chunk @i read by rows, reading only @kinds (a mask) and the first rows of the
 * rest; *@ok gets gr_chunk_rows_end(). */
static uint64_t rows_digest(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
			    uint64_t kinds, int *ok)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	const struct gr_chunk *c;
	uint64_t h = 0;
	int n;

	*ok = gr_chunk_decode_lazy(d, r, i, &c);
	if (*ok != 1)
		return 0;
	CHECK(!gr_chunk_column(c, K_ALPHA, A_TS));
	for (size_t k = 0; k < N(test_kinds); k++) {
		const struct gr_kind_def *kd = &test_kinds[k];
		uint64_t hc[GR_MAX_COLUMNS] = {0};
		uint32_t seen = 0;

		/* a column that does not decode fails begin or next: the chunk is bad */
		n = gr_chunk_rows_begin(d, r, kd->id);
		if (n >= 0)
			CHECK_EQ_U64(n, gr_chunk_count(c, kd->id));
		while (n > 0 && (n = gr_chunk_rows_next(d, r, v, b)) > 0) {
			CHECK(n <= GR_ROW_BATCH);
			seen += (uint32_t)n;
			if (!(kinds >> kd->id & 1))
				break; /* left for gr_chunk_rows_end() to check */
			for (uint16_t col = 0; col < kd->ncols; col++) {
				for (int j = 0; j < n; j++) {
					hc[col] =
					    hc[col] * 31 + (v[col] ? v[col][j] : b[col][j].len);
					for (uint32_t x = 0; !v[col] && x < b[col][j].len; x++)
						hc[col] = hc[col] * 31 + b[col][j].data[x];
				}
			}
		}
		for (uint16_t col = 0; seen && col < kd->ncols; col++)
			h = h * 37 + hc[col];
		if (n >= 0 && kinds >> kd->id & 1)
			CHECK_EQ_U64(seen, gr_chunk_count(c, kd->id));
	}
	*ok = gr_chunk_rows_end(d, r);
	return h * 31 + gr_chunk_total(c);
}

/* Damage the payload of the chunk at @off so that its CRCs still hold but it does not decompress.
 */
static void break_frame(struct mem *m, uint64_t off)
{
	uint32_t plen = gr_get_le32(m->p + off + GR_CK_PAYLOAD);

	m->p[off + GR_CHUNK_HDR + plen / 2] ^= 0x21;
	gr_put_le32(m->p + off + GR_CK_PAYLOAD_CRC, gr_crc32(m->p + off + GR_CHUNK_HDR, plen));
	gr_put_le32(m->p + off + GR_CK_HDR_CRC, gr_crc32(m->p + off, GR_CK_HDR_CRC));
}

/*
 * @m without its footer, chunk @k's last payload byte (a value of its last column) set to 0xff
 * and the chunk compressed again: its frame and CRCs hold, one column does not decode.
 */
static struct mem bad_column(const struct mem *m, const uint64_t *off, uint32_t n, uint32_t k)
{
	uint32_t raw_len = gr_get_le32(m->p + off[k] + GR_CK_RAW);
	uint32_t plen = gr_get_le32(m->p + off[k] + GR_CK_PAYLOAD);
	size_t bound = ZSTD_compressBound(raw_len), clen, at = 0;
	uint64_t end = gr_get_le64(m->p + m->len - GR_TRAILER + GR_TR_FOOTER_OFF);
	uint8_t *raw = malloc(raw_len), *z = malloc(bound);
	struct mem out = {malloc(m->len + bound), 0};
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	CHECK(k + 1 < n);
	CHECK(ZSTD_decompress(raw, raw_len, m->p + off[k] + GR_CHUNK_HDR, plen) == raw_len);
	raw[raw_len - 1] = 0xff;
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	clen = ZSTD_compress2(cc, z, bound, raw, raw_len);
	CHECK(!ZSTD_isError(clen));
	memcpy(out.p, m->p, off[k]);
	at = off[k];
	memcpy(out.p + at, m->p + off[k], GR_CHUNK_HDR);
	gr_put_le32(out.p + at + GR_CK_PAYLOAD, (uint32_t)clen);
	gr_put_le32(out.p + at + GR_CK_PAYLOAD_CRC, gr_crc32(z, clen));
	gr_put_le32(out.p + at + GR_CK_HDR_CRC, gr_crc32(out.p + at, GR_CK_HDR_CRC));
	memcpy(out.p + at + GR_CHUNK_HDR, z, clen);
	at += GR_CHUNK_HDR + clen;
	memcpy(out.p + at, m->p + off[k + 1], end - off[k + 1]);
	out.len = at + (end - off[k + 1]);
	ZSTD_freeCCtx(cc);
	free(raw);
	free(z);
	return out;
}

static void test_chunk_rows(void)
{
	struct gr_writer_opts o = {.chunk_raw_bytes = 60000};
	struct gr_trace_reader *r, *r2;
	struct gr_chunk_decoder *d;
	uint64_t off[MAX_IDX];
	uint32_t recs[MAX_IDX], n;
	struct mem m = write_ab(20000, 7000, &o);
	int ok;

	n = chunk_offsets(&m, off, recs, MAX_IDX);
	CHECK(n > 3);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_chunk_decoder_new(&d), 0);
	for (uint32_t i = 0; i < n; i++) {
		const struct gr_chunk *c;
		uint64_t want, got;

		CHECK_EQ_U64(gr_chunk_decode(d, r, i, &c), 1);
		want = chunk_digest(c);
		got = rows_digest(d, r, i, ~0ull, &ok);
		CHECK_EQ_U64(ok, 1);
		CHECK_EQ_U64(got, want);
		/* reading some kinds, or none, still checks the whole chunk */
		rows_digest(d, r, i, 1u << K_BETA, &ok);
		CHECK_EQ_U64(ok, 1);
		rows_digest(d, r, i, 0, &ok);
		CHECK_EQ_U64(ok, 1);
	}
	gr_chunk_decoder_free(d);
	gr_trace_reader_close(r);

	/*
	 * A chunk that does not decompress, and one whose column does not decode: bad, with
	 * gr_chunk_decode()'s reason, whatever kinds were read of it.
	 */
	for (int sort = 0; sort < 2; sort++) {
		struct mem b =
		    sort ? bad_column(&m, off, n, 1) : (struct mem){malloc(m.len), m.len};

		if (!sort) {
			memcpy(b.p, m.p, m.len);
			break_frame(&b, off[1]);
		}
		for (uint64_t kinds = 0; kinds < 4; kinds++) {
			CHECK_EQ_U64(gr_trace_reader_open_mem(&r, b.p, b.len, NULL), 0);
			CHECK_EQ_U64(gr_trace_reader_open_mem(&r2, b.p, b.len, NULL), 0);
			CHECK_EQ_U64(count_records(r2), 27000 - recs[1]);
			CHECK_EQ_U64(gr_chunk_decoder_new(&d), 0);
			rows_digest(d, r, 1, kinds == 3 ? ~0ull : kinds << K_ALPHA, &ok);
			CHECK_EQ_U64(ok, 0);
			CHECK_EQ_U64(rows_digest(d, r, 1, ~0ull, &ok), 0);
			CHECK_EQ_U64(ok, 0); /* bad from now on */
			rows_digest(d, r, 2, ~0ull, &ok);
			CHECK_EQ_U64(ok, 1);
			gr_chunk_decoder_free(d);
			CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_bad, 1);
			CHECK_STR(gr_trace_reader_integrity(r)->first_problem.reason,
				  gr_trace_reader_integrity(r2)->first_problem.reason);
			CHECK_EQ_U64(gr_trace_reader_integrity(r)->first_problem.err,
				     gr_trace_reader_integrity(r2)->first_problem.err);
			if (sort && !kinds)
				CHECK(contains(gr_trace_reader_integrity(r)->first_problem.reason,
					       "column"));
			gr_trace_reader_close(r);
			gr_trace_reader_close(r2);
		}
		free(b.p);
	}
	free(m.p);
}

static void test_chunk_index(void)
{
	struct gr_writer_opts small = {.chunk_raw_bytes = 2000};
	uint64_t want[MAX_IDX], got[MAX_IDX], off[MAX_IDX], footer;
	int ret[MAX_IDX];
	struct gr_trace_reader *r;
	struct gr_chunk_info ci;
	const struct gr_chunk *c;
	uint32_t recs[MAX_IDX], n, i = 0;
	struct mem m = write_ab(5000, 2000, &small);

	n = chunk_offsets(&m, off, recs, MAX_IDX);
	CHECK(n > 20 && n < MAX_IDX);
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, m.len, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_index_len(r), n);
	while (gr_trace_reader_next_chunk(r, &c) == 1 && i < n) {
		CHECK_EQ_U64(gr_trace_reader_chunk_info(r, i, &ci), 0);
		CHECK_EQ_U64(ci.offset, gr_chunk_offset(c));
		CHECK_EQ_U64(ci.records, gr_chunk_total(c));
		CHECK_EQ_U64(ci.first_ts, gr_chunk_first_ts(c));
		CHECK_EQ_U64(ci.last_ts, gr_chunk_last_ts(c));
		CHECK(ci.kinds_known && !ci.bad);
		CHECK_EQ_U64(ci.size, (i + 1 < n ? off[i + 1] : ci.offset + ci.size) - ci.offset);
		for (uint16_t k = 0; k < GR_MAX_KINDS; k++) {
			CHECK_EQ_U64(ci.count[k], gr_chunk_count(c, k));
			CHECK_EQ_U64(ci.kinds >> k & 1, gr_chunk_count(c, k) != 0);
		}
		want[i++] = chunk_digest(c);
	}
	CHECK_EQ_U64(i, n);
	CHECK_EQ_U64(gr_trace_reader_chunk_info(r, n, &ci), (uint64_t)(int64_t)-ERANGE);
	CHECK_EQ_U64(gr_trace_reader_chunk_info(r, 0, NULL), (uint64_t)(int64_t)-EINVAL);

	/* any thread decodes any chunk, in any order, with the same result */
	for (unsigned t = 1; t <= 3; t++) {
		decode_threads(r, t, got, ret);
		for (i = 0; i < n; i++) {
			CHECK_EQ_U64(ret[i], 1);
			CHECK_EQ_U64(got[i], want[i]);
		}
	}
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->complete, 1);

	/* a chunk that changes after open fails on both threads decoding it, counted once */
	m.p[off[3] + GR_CHUNK_HDR + 5] ^= 0x40;
	{
		struct decode_job a = {.r = r, .first = 3, .step = 100, .n = 4}, b = a;
		pthread_t ta, tb;

		CHECK_EQ_U64(pthread_create(&ta, NULL, decode_some, &a), 0);
		CHECK_EQ_U64(pthread_create(&tb, NULL, decode_some, &b), 0);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		CHECK(a.ret[3] == 0 && b.ret[3] == 0);
	}
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_ok, n - 1);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_bad, 1);
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->first_problem.offset, off[3]);
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), n - 1);
	CHECK_EQ_U64(gr_trace_reader_chunk_info(r, 3, &ci), 0);
	CHECK_EQ_U64(ci.bad, 1);
	gr_trace_reader_rewind(r);
	CHECK_EQ_U64(count_records(r), 7000 - recs[3]);
	gr_trace_reader_close(r);
	m.p[off[3] + GR_CHUNK_HDR + 5] ^= 0x40;

	/* without the footer: the scan's index, kinds unknown; a bad chunk is in it, marked */
	footer = gr_get_le64(m.p + m.len - GR_TRAILER + GR_TR_FOOTER_OFF);
	m.p[off[5] + GR_CHUNK_HDR + 7] ^= 1;
	CHECK_EQ_U64(gr_trace_reader_open_mem(&r, m.p, footer, NULL), 0);
	CHECK_EQ_U64(gr_trace_reader_index_len(r), n);
	CHECK_EQ_U64(gr_trace_reader_chunk_count(r), n - 1);
	decode_threads(r, 2, got, ret);
	for (i = 0; i < n; i++) {
		CHECK_EQ_U64(gr_trace_reader_chunk_info(r, i, &ci), 0);
		CHECK(!ci.kinds_known && ci.kinds == ~1ull && ci.count[1] == 0);
		CHECK_EQ_U64(ci.offset, off[i]);
		CHECK_EQ_U64(ci.bad, i == 5);
		CHECK_EQ_U64(ret[i], i != 5);
		if (i != 5)
			CHECK_EQ_U64(got[i], want[i]);
	}
	CHECK_EQ_U64(gr_trace_reader_integrity(r)->chunks_bad, 1);
	gr_trace_reader_close(r);
	free(m.p);
}

int main(void)
{
	RUN_TEST(test_leb128);
	RUN_TEST(test_codecs);
	RUN_TEST(test_codec_bytes);
	RUN_TEST(test_codec_errors);
	RUN_TEST(test_cursor_dict_indexes);
	RUN_TEST(test_strerror);
	RUN_TEST(test_roundtrip);
	RUN_TEST(test_events_schema);
	RUN_TEST(test_empty_and_single);
	RUN_TEST(test_large_bytes);
	RUN_TEST(test_many_chunks);
	RUN_TEST(test_time_bound);
	RUN_TEST(test_merge);
	RUN_TEST(test_truncated);
	RUN_TEST(test_truncated_everywhere);
	RUN_TEST(test_flipped_byte);
	RUN_TEST(test_bad_frame);
	RUN_TEST(test_unknown_kind);
	RUN_TEST(test_versions);
	RUN_TEST(test_garbage);
	RUN_TEST(test_chunk_sequence);
	RUN_TEST(test_file_api);
	RUN_TEST(test_writer_errors);
	RUN_TEST(test_bad_files);
	RUN_TEST(test_bad_sequence_files);
	RUN_TEST(test_chunk_index);
	RUN_TEST(test_chunk_rows);
	TEST_EXIT();
}
