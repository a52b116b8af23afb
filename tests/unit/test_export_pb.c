/* SPDX-License-Identifier: MIT */
/*
 * The protobuf wire writer (analyze/export/export_pb.h): every encoding checked against bytes
 * worked out from the protobuf encoding rules by hand, and nested lengths at the sizes where their
 * varint grows. tests/e2e/export_perfetto.sh decodes whole exports with protoc.
 */
#include "../../analyze/export/export_pb.h"
#include "test.h"

static int bytes_are(const struct gr_pb *b, const uint8_t *want, size_t n)
{
	return !b->err && b->len == n && !memcmp(b->p, want, n);
}

static void test_scalars(void)
{
	struct gr_pb b;
	/* field 1 varint 150: the encoding guide's own example */
	static const uint8_t v150[] = {0x08, 0x96, 0x01};
	/* field 47 fixed64 1: tag (47 << 3 | 1) = 377 = 0xf9 0x02 */
	static const uint8_t f47[] = {0xf9, 0x02, 1, 0, 0, 0, 0, 0, 0, 0};
	/* field 5 double 1.0: 0x3ff0000000000000 little-endian */
	static const uint8_t d5[] = {0x29, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
	/* field 2 string "testing" */
	static const uint8_t s2[] = {0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'};
	/* field 3 UINT64_MAX: ten bytes */
	static const uint8_t max[] = {0x18, 0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0x01};

	gr_pb_init(&b);
	gr_pb_varint(&b, 1, 150);
	CHECK(bytes_are(&b, v150, sizeof(v150)));
	gr_pb_reset(&b);
	gr_pb_fixed64(&b, 47, 1);
	CHECK(bytes_are(&b, f47, sizeof(f47)));
	gr_pb_reset(&b);
	gr_pb_double(&b, 5, 1.0);
	CHECK(bytes_are(&b, d5, sizeof(d5)));
	gr_pb_reset(&b);
	gr_pb_str(&b, 2, "testing");
	CHECK(bytes_are(&b, s2, sizeof(s2)));
	gr_pb_reset(&b);
	gr_pb_varint(&b, 3, UINT64_MAX);
	CHECK(bytes_are(&b, max, sizeof(max)));
	gr_pb_free(&b);
}

/* A nested message's length is written in its shortest form, whatever room was left for it. */
static void test_nested(void)
{
	struct gr_pb b;
	/* field 3 { field 1 varint 150 }: the encoding guide's embedded-message example */
	static const uint8_t emb[] = {0x1a, 0x03, 0x08, 0x96, 0x01};
	/* field 1 { field 2 { } field 3 varint 1 } */
	static const uint8_t two[] = {0x0a, 0x04, 0x12, 0x00, 0x18, 0x01};
	size_t m, inner;

	gr_pb_init(&b);
	m = gr_pb_begin(&b, 3);
	gr_pb_varint(&b, 1, 150);
	gr_pb_end(&b, m);
	CHECK(bytes_are(&b, emb, sizeof(emb)));
	gr_pb_reset(&b);
	m = gr_pb_begin(&b, 1);
	inner = gr_pb_begin(&b, 2);
	gr_pb_end(&b, inner);
	gr_pb_varint(&b, 3, 1);
	gr_pb_end(&b, m);
	CHECK(bytes_are(&b, two, sizeof(two)));
	gr_pb_free(&b);
}

/* Bodies of 127, 128 and 16384 bytes: lengths of one, two and three varint bytes. */
static void test_nested_lengths(void)
{
	static const size_t sizes[] = {127, 128, 16383, 16384, 300000};
	static const size_t len_bytes[] = {1, 2, 2, 3, 3};
	char *body = malloc(300000);
	struct gr_pb b;

	CHECK(body != NULL);
	if (!body)
		return;
	for (size_t i = 0; i < 300000; i++)
		body[i] = (char)('a' + i % 26);
	gr_pb_init(&b);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t m;
		uint64_t len = 0;
		unsigned shift = 0;
		size_t k = 1;

		gr_pb_reset(&b);
		m = gr_pb_begin(&b, 9);
		gr_pb_raw(&b, body, sizes[i]);
		gr_pb_end(&b, m);
		CHECK_EQ_U64(b.err, 0);
		CHECK_EQ_U64(b.p[0], 9 << 3 | 2);
		while (k < b.len && b.p[k] & 0x80) {
			len |= (uint64_t)(b.p[k] & 0x7f) << shift;
			shift += 7;
			k++;
		}
		len |= (uint64_t)(b.p[k] & 0x7f) << shift;
		k++;
		CHECK_EQ_U64(k - 1, len_bytes[i]);
		CHECK_EQ_U64(len, sizes[i]);
		CHECK_EQ_U64(b.len, 1 + len_bytes[i] + sizes[i]);
		CHECK(!memcmp(b.p + k, body, sizes[i]));
	}
	gr_pb_free(&b);
	free(body);
}

/* An inner message whose length takes two bytes moves on while its outer one is open: both
 * lengths and every byte after them still come out as a protobuf library writes them. */
static void test_nested_grow(void)
{
	uint8_t want[3 + 3 + 3 + 200 + 2];
	uint8_t text[200];
	struct gr_pb b;
	size_t m, inner;

	memset(text, 'x', sizeof(text));
	/* field 1 (208 bytes) { field 2 (203 bytes) { field 4 "x" * 200 } field 3 varint 1 } */
	memcpy(want, "\x0a\xd0\x01\x12\xcb\x01\x22\xc8\x01", 9);
	memcpy(want + 9, text, sizeof(text));
	want[209] = 0x18;
	want[210] = 0x01;
	gr_pb_init(&b);
	m = gr_pb_begin(&b, 1);
	inner = gr_pb_begin(&b, 2);
	gr_pb_bytes(&b, 4, text, sizeof(text));
	gr_pb_end(&b, inner);
	gr_pb_varint(&b, 3, 1);
	gr_pb_end(&b, m);
	CHECK_EQ_U64(b.err, 0);
	CHECK(bytes_are(&b, want, sizeof(want)));
	gr_pb_free(&b);
}

int main(void)
{
	RUN_TEST(test_scalars);
	RUN_TEST(test_nested);
	RUN_TEST(test_nested_lengths);
	RUN_TEST(test_nested_grow);
	TEST_EXIT();
}
