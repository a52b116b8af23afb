/* SPDX-License-Identifier: MIT */
/* Column codecs: incremental encoders for the writer, one-call decoders for the reader. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "column.h"
#include "varint.h"

int gr_buf_reserve(struct gr_buf *b, size_t extra)
{
	size_t cap;
	uint8_t *p;

	if (b->cap - b->len >= extra)
		return 0;
	if (extra > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < extra)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void gr_buf_free(struct gr_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

const char *gr_codec_name(uint8_t codec)
{
	switch (codec) {
	case GR_CODEC_VARINT:
		return "VARINT";
	case GR_CODEC_DELTA:
		return "DELTA";
	case GR_CODEC_DICT:
		return "DICT";
	case GR_CODEC_BYTES:
		return "BYTES";
	}
	return "unknown";
}

/* ---- encoder ---- */

void gr_colenc_init(struct gr_colenc *e, uint8_t codec)
{
	memset(e, 0, sizeof(*e));
	e->codec = codec;
}

static inline uint32_t hash_slot(uint64_t v, uint32_t mask)
{
	return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static int dict_grow(struct gr_colenc *e)
{
	uint32_t cap = e->hmask ? (e->hmask + 1) * 2 : 64, mask = cap - 1;
	uint64_t *keys = malloc(sizeof(*keys) * cap);
	uint32_t *ids = calloc(cap, sizeof(*ids));

	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -ENOMEM;
	}
	for (uint32_t i = 0; e->hmask && i <= e->hmask; i++) {
		uint32_t s;

		if (!e->hids[i])
			continue;
		for (s = hash_slot(e->hkeys[i], mask); ids[s]; s = (s + 1) & mask)
			;
		keys[s] = e->hkeys[i];
		ids[s] = e->hids[i];
	}
	free(e->hkeys);
	free(e->hids);
	e->hkeys = keys;
	e->hids = ids;
	e->hmask = mask;
	return 0;
}

/* The dictionary id of @v, adding it (and its dictionary bytes, counted in *@added) if new. */
static int dict_id(struct gr_colenc *e, uint64_t v, uint32_t *id, int *added)
{
	uint32_t s;
	int err;

	if (e->nd && v == e->last_val) {
		*id = e->last_id;
		return 0;
	}
	if ((uint64_t)(e->nd + 1) * 2 > (uint64_t)e->hmask + 1 || !e->hmask) {
		err = dict_grow(e);
		if (err)
			return err;
	}
	for (s = hash_slot(v, e->hmask); e->hids[s]; s = (s + 1) & e->hmask) {
		if (e->hkeys[s] == v) {
			*id = e->hids[s] - 1;
			goto out;
		}
	}
	err = gr_buf_reserve(&e->dict, GR_LEB_MAX);
	if (err)
		return err;
	{
		uint8_t *p = e->dict.p + e->dict.len;
		uint8_t *q = gr_leb_put(p, gr_zigzag(v - e->dict_prev));

		e->dict.len += (size_t)(q - p);
		*added += (int)(q - p);
	}
	e->dict_prev = v;
	e->hkeys[s] = v;
	e->hids[s] = ++e->nd;
	*id = e->nd - 1;
out:
	e->last_val = v;
	e->last_id = *id;
	return 0;
}

int gr_colenc_add(struct gr_colenc *e, uint64_t v)
{
	int added = 0, err;
	uint32_t id;
	uint8_t *p, *q;

	err = gr_buf_reserve(&e->data, GR_LEB_MAX);
	if (err)
		return err;
	p = e->data.p + e->data.len;
	switch (e->codec) {
	case GR_CODEC_DELTA:
		q = gr_leb_put(p, gr_zigzag(v - e->prev));
		e->prev = v;
		break;
	case GR_CODEC_DICT:
		err = dict_id(e, v, &id, &added);
		if (err)
			return err;
		q = gr_leb_put(p, id);
		break;
	default:
		q = gr_leb_put(p, v);
		break;
	}
	e->data.len += (size_t)(q - p);
	e->n++;
	return added + (int)(q - p);
}

int gr_colenc_add_bytes(struct gr_colenc *e, const uint8_t *data, uint32_t len)
{
	uint8_t *p, *q;
	int err;

	if (len > GR_MAX_BYTES_VALUE)
		return GR_ERR_LIMIT;
	err = gr_buf_reserve(&e->data, GR_LEB_MAX + (size_t)len);
	if (err)
		return err;
	p = e->data.p + e->data.len;
	q = gr_leb_put(p, len);
	if (len)
		memcpy(q, data, len);
	q += len;
	e->data.len += (size_t)(q - p);
	e->n++;
	return (int)(q - p);
}

size_t gr_colenc_size(const struct gr_colenc *e)
{
	if (e->codec != GR_CODEC_DICT || !e->n)
		return e->data.len;
	return gr_leb_len(e->nd) + e->dict.len + (e->nd > 1 ? e->data.len : 0);
}

uint8_t *gr_colenc_emit(const struct gr_colenc *e, uint8_t *dst)
{
	if (e->codec == GR_CODEC_DICT && e->n) {
		dst = gr_leb_put(dst, e->nd);
		memcpy(dst, e->dict.p, e->dict.len);
		dst += e->dict.len;
		if (e->nd == 1)
			return dst; /* every index would be 0 */
	}
	if (e->data.len)
		memcpy(dst, e->data.p, e->data.len);
	return dst + e->data.len;
}

void gr_colenc_reset(struct gr_colenc *e)
{
	e->n = 0;
	e->data.len = 0;
	e->prev = 0;
	e->dict.len = 0;
	e->dict_prev = 0;
	if (e->nd)
		memset(e->hids, 0, sizeof(*e->hids) * ((size_t)e->hmask + 1));
	e->nd = 0;
}

void gr_colenc_free(struct gr_colenc *e)
{
	if (!e)
		return;
	gr_buf_free(&e->data);
	gr_buf_free(&e->dict);
	free(e->hkeys);
	free(e->hids);
	gr_colenc_init(e, e->codec);
}

/* ---- decoder ---- */

/*
 * One LEB128 value where at least GR_LEB_MAX bytes are readable: the one- and two-byte cases
 * (nearly every value in a trace) inline, the rest through the checked decoder.
 */
static inline int leb_fast(const uint8_t **pp, uint64_t *v)
{
	const uint8_t *p = *pp;

	if (p[0] < 0x80) {
		*v = p[0];
		*pp = p + 1;
		return 0;
	}
	if (p[1] < 0x80) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		*pp = p + 2;
		return 0;
	}
	return gr_leb_get(pp, p + GR_LEB_MAX, v);
}

static int decode_varint(const uint8_t *p, const uint8_t *end, uint32_t n, uint64_t *out, int delta,
			 const char **why)
{
	uint64_t prev = 0, v;
	uint32_t i = 0;
	int err;

	for (; i < n && end - p >= GR_LEB_MAX; i++) {
		err = leb_fast(&p, &v);
		if (err)
			goto bad;
		if (delta) {
			prev += gr_unzigzag(v);
			v = prev;
		}
		out[i] = v;
	}
	for (; i < n; i++) {
		err = gr_leb_get(&p, end, &v);
		if (err)
			goto bad;
		if (delta) {
			prev += gr_unzigzag(v);
			v = prev;
		}
		out[i] = v;
	}
	if (p != end) {
		*why = "bytes left after the last value";
		return GR_ERR_CORRUPT;
	}
	return 0;
bad:
	*why = err == GR_ERR_TRUNCATED ? "column ends inside a value" : "value above 64 bits";
	return GR_ERR_CORRUPT;
}

static int decode_dict(const uint8_t *p, const uint8_t *end, uint32_t n, uint64_t *out,
		       struct gr_coldec_scratch *s, const char **why)
{
	uint64_t nd, v, prev = 0, *dict;
	size_t need;
	uint32_t i;
	int bad = 0;

	if (gr_leb_get(&p, end, &nd)) {
		*why = "bad dictionary size";
		return GR_ERR_CORRUPT;
	}
	if (nd < 1 || nd > n) {
		*why = "dictionary size not in 1..values";
		return GR_ERR_CORRUPT;
	}
	/* each entry takes at least one byte */
	if (nd > (uint64_t)(end - p)) {
		*why = "dictionary larger than the column";
		return GR_ERR_CORRUPT;
	}
	need = nd < 128 ? 128 : (size_t)nd;
	if (s->cap < need) {
		dict = realloc(s->dict, need * sizeof(*dict));
		if (!dict)
			return -ENOMEM;
		s->dict = dict;
		s->cap = need;
	}
	dict = s->dict;
	for (i = 0; i < nd; i++) {
		if (gr_leb_get(&p, end, &v)) {
			*why = "bad dictionary entry";
			return GR_ERR_CORRUPT;
		}
		prev += gr_unzigzag(v);
		dict[i] = prev;
	}
	if (nd == 1) {
		v = dict[0];
		for (i = 0; i < n; i++)
			out[i] = v;
		if (p != end) {
			*why = "indexes present with a one-value dictionary";
			return GR_ERR_CORRUPT;
		}
		return 0;
	}
	if (nd <= 128 && (size_t)(end - p) == n) {
		for (i = nd; i < 128; i++)
			dict[i] = 0;
		for (i = 0; i < n; i++) {
			uint8_t b = p[i];

			bad |= b >= nd;
			out[i] = dict[b & 0x7f];
		}
		if (!bad)
			return 0;
	}
	for (i = 0; i < n; i++) {
		if (gr_leb_get(&p, end, &v)) {
			*why = "column ends inside an index";
			return GR_ERR_CORRUPT;
		}
		if (v >= nd) {
			*why = "index outside the dictionary";
			return GR_ERR_CORRUPT;
		}
		out[i] = dict[v];
	}
	if (p != end) {
		*why = "bytes left after the last index";
		return GR_ERR_CORRUPT;
	}
	return 0;
}

static int decode_bytes(const uint8_t *p, const uint8_t *end, uint32_t n, struct gr_bytes *out,
			const char **why)
{
	uint64_t len;

	for (uint32_t i = 0; i < n; i++) {
		if (gr_leb_get(&p, end, &len)) {
			*why = "column ends inside a length";
			return GR_ERR_CORRUPT;
		}
		if (len > GR_MAX_BYTES_VALUE) {
			*why = "byte string above GR_MAX_BYTES_VALUE";
			return GR_ERR_LIMIT;
		}
		if (len > (uint64_t)(end - p)) {
			*why = "byte string longer than the column";
			return GR_ERR_CORRUPT;
		}
		out[i].data = p;
		out[i].len = (uint32_t)len;
		p += len;
	}
	if (p != end) {
		*why = "bytes left after the last value";
		return GR_ERR_CORRUPT;
	}
	return 0;
}

int gr_col_decode(uint8_t codec, const uint8_t *p, size_t len, uint32_t n, uint64_t *out,
		  struct gr_bytes *bout, struct gr_coldec_scratch *s, const char **why)
{
	const uint8_t *end = p + len;

	*why = "";
	if (!n) {
		if (len) {
			*why = "bytes in a column without values";
			return GR_ERR_CORRUPT;
		}
		return 0;
	}
	switch (codec) {
	case GR_CODEC_VARINT:
		return decode_varint(p, end, n, out, 0, why);
	case GR_CODEC_DELTA:
		return decode_varint(p, end, n, out, 1, why);
	case GR_CODEC_DICT:
		return decode_dict(p, end, n, out, s, why);
	case GR_CODEC_BYTES:
		return decode_bytes(p, end, n, bout, why);
	}
	*why = "unknown codec";
	return GR_ERR_SCHEMA;
}

/* ---- decoding a column in steps: the same rules, a batch of values at a time ---- */

int gr_col_cursor_init(struct gr_col_cursor *c, uint8_t codec, const uint8_t *p, size_t len,
		       uint32_t n, struct gr_coldec_scratch *s, const char **why)
{
	const uint8_t *end = p + len;
	uint64_t nd, v, prev = 0;

	memset(c, 0, sizeof(*c));
	*why = "";
	c->codec = codec;
	c->p = p;
	c->end = end;
	c->left = n;
	if (!n) {
		if (len) {
			*why = "bytes in a column without values";
			return GR_ERR_CORRUPT;
		}
		return 0;
	}
	switch (codec) {
	case GR_CODEC_VARINT:
	case GR_CODEC_DELTA:
	case GR_CODEC_BYTES:
		return 0;
	case GR_CODEC_DICT:
		break;
	default:
		*why = "unknown codec";
		return GR_ERR_SCHEMA;
	}
	if (gr_leb_get(&p, end, &nd) || nd < 1 || nd > n || nd > (uint64_t)(end - p)) {
		*why = "bad dictionary";
		return GR_ERR_CORRUPT;
	}
	if (s->cap < nd) {
		uint64_t *dict = realloc(s->dict, (size_t)nd * sizeof(*dict));

		if (!dict)
			return -ENOMEM;
		s->dict = dict;
		s->cap = (size_t)nd;
	}
	for (uint64_t i = 0; i < nd; i++) {
		if (gr_leb_get(&p, end, &v)) {
			*why = "bad dictionary entry";
			return GR_ERR_CORRUPT;
		}
		prev += gr_unzigzag(v);
		s->dict[i] = prev;
	}
	c->dict = s->dict;
	c->nd = nd;
	c->p = p;
	if (nd == 1 && p != end) {
		*why = "indexes present with a one-value dictionary";
		return GR_ERR_CORRUPT;
	}
	/* every index one byte: no LEB128 to parse */
	c->onebyte = (size_t)(end - p) == n;
	return 0;
}

/*
 * Whether each of the @n bytes at @p is below @nd and below 0x80 (a byte of 0x80 or more would
 * start a longer index), eight bytes at a time: with t = min(@nd, 128), a byte x below 0x80 plus
 * 128 - t carries into no other byte and has its top bit set exactly when x >= t; a byte of 0x80
 * or more has its own top bit set, whatever its sum carries into the next byte.
 */
static int indexes_below(const uint8_t *p, uint32_t n, uint64_t nd)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t t = nd < 0x80 ? nd : 0x80, k = (0x80 - t) * ones, acc = 0, x;
	uint32_t j = 0;

	for (; j + 8 <= n; j += 8) {
		memcpy(&x, p + j, sizeof(x));
		acc |= x | (x + k);
	}
	for (; j < n; j++)
		acc |= (uint64_t)(p[j] | (p[j] + (0x80 - t)));
	return !(acc & 0x80 * ones);
}

int gr_col_cursor_next(struct gr_col_cursor *c, uint32_t n, uint64_t *out, struct gr_bytes *bout,
		       const char **why)
{
	const uint8_t *p = c->p, *end = c->end;
	uint64_t v, prev = c->prev;
	uint32_t i = 0;
	int err = 0;

	*why = "";
	if (n > c->left) {
		*why = "read past the last value";
		return GR_ERR_CORRUPT;
	}
	switch (c->codec) {
	case GR_CODEC_VARINT:
	case GR_CODEC_DELTA: {
		int delta = c->codec == GR_CODEC_DELTA;

		for (; i < n && end - p >= GR_LEB_MAX; i++) {
			err = leb_fast(&p, &v);
			if (err)
				break;
			if (delta) {
				prev += gr_unzigzag(v);
				v = prev;
			}
			out[i] = v;
		}
		for (; i < n && !err; i++) {
			err = gr_leb_get(&p, end, &v);
			if (err)
				break;
			if (delta) {
				prev += gr_unzigzag(v);
				v = prev;
			}
			out[i] = v;
		}
		if (err) {
			*why = "bad value";
			return GR_ERR_CORRUPT;
		}
		break;
	}
	case GR_CODEC_DICT:
		if (c->nd == 1) {
			/* in locals: @out could alias the dictionary for all the compiler knows */
			uint64_t d0 = c->dict[0];

			for (; i < n; i++)
				out[i] = d0;
		} else if (c->onebyte) {
			const uint64_t *dict = c->dict;

			/* checked first, so the copy below has no branch */
			if (!indexes_below(p, n, c->nd)) {
				*why = "index outside the dictionary";
				return GR_ERR_CORRUPT;
			}
			for (; i < n; i++)
				out[i] = dict[p[i]];
			p += n;
		} else {
			for (; i < n; i++) {
				if (gr_leb_get(&p, end, &v) || v >= c->nd) {
					*why = "bad index";
					return GR_ERR_CORRUPT;
				}
				out[i] = c->dict[v];
			}
		}
		break;
	case GR_CODEC_BYTES:
		for (; i < n; i++) {
			if (gr_leb_get(&p, end, &v) || v > GR_MAX_BYTES_VALUE ||
			    v > (uint64_t)(end - p)) {
				*why = "bad byte string";
				return GR_ERR_CORRUPT;
			}
			bout[i].data = p;
			bout[i].len = (uint32_t)v;
			p += v;
		}
		break;
	}
	c->p = p;
	c->prev = prev;
	c->left -= n;
	if (!c->left && p != end) {
		*why = "bytes left after the last value";
		return GR_ERR_CORRUPT;
	}
	return 0;
}
