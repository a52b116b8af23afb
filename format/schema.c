/* SPDX-License-Identifier: MIT */
/* Schema lookups and rules, chunk header (de)serialization and the CRC both halves use. */
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "layout.h"
#include "le.h"

uint32_t gr_crc32(const void *p, size_t len)
{
	return (uint32_t)crc32_z(0, p, len);
}

const struct gr_kind_def *gr_schema_kind(const struct gr_schema *s, uint16_t kind)
{
	if (!s)
		return NULL;
	for (uint16_t i = 0; i < s->nkinds; i++)
		if (s->kinds[i].id == kind)
			return &s->kinds[i];
	return NULL;
}

int gr_schema_column(const struct gr_schema *s, uint16_t kind, const char *name)
{
	const struct gr_kind_def *k = gr_schema_kind(s, kind);

	if (!k || !name)
		return GR_ERR_SCHEMA;
	for (uint16_t i = 0; i < k->ncols; i++)
		if (!strcmp(k->cols[i].name, name))
			return i;
	return GR_ERR_SCHEMA;
}

static int name_ok(const char *n)
{
	size_t len;

	if (!n)
		return 0;
	len = strlen(n);
	return len >= 1 && len <= GR_MAX_NAME;
}

int gr_schema_check(const struct gr_schema *s, char *why, size_t whylen)
{
	uint64_t seen = 0;

	if (!s || !s->kinds || s->nkinds < 1 || s->nkinds >= GR_MAX_KINDS) {
		snprintf(why, whylen, "schema must have 1..%d record kinds", GR_MAX_KINDS - 1);
		return GR_ERR_SCHEMA;
	}
	for (uint16_t i = 0; i < s->nkinds; i++) {
		const struct gr_kind_def *k = &s->kinds[i];

		if (k->id < 1 || k->id >= GR_MAX_KINDS || (seen >> k->id & 1)) {
			snprintf(why, whylen, "record kind id %u invalid or repeated", k->id);
			return GR_ERR_SCHEMA;
		}
		seen |= 1ull << k->id;
		if (!name_ok(k->name)) {
			snprintf(why, whylen, "record kind %u: name empty or longer than %d", k->id,
				 GR_MAX_NAME);
			return GR_ERR_SCHEMA;
		}
		for (uint16_t j = 0; j < i; j++) {
			if (!strcmp(s->kinds[j].name, k->name)) {
				snprintf(why, whylen, "record kind name '%s' repeated", k->name);
				return GR_ERR_SCHEMA;
			}
		}
		if (!k->cols || k->ncols < 1 || k->ncols > GR_MAX_COLUMNS) {
			snprintf(why, whylen, "record kind '%s': %u columns, not 1..%d", k->name,
				 k->ncols, GR_MAX_COLUMNS);
			return GR_ERR_SCHEMA;
		}
		if (k->cols[0].codec != GR_CODEC_DELTA) {
			snprintf(why, whylen,
				 "record kind '%s': column 0 (the timestamp) must be DELTA",
				 k->name);
			return GR_ERR_SCHEMA;
		}
		for (uint16_t c = 0; c < k->ncols; c++) {
			const struct gr_column_def *col = &k->cols[c];

			if (!name_ok(col->name)) {
				snprintf(why, whylen,
					 "record kind '%s': column %u name empty or too long",
					 k->name, c);
				return GR_ERR_SCHEMA;
			}
			if (col->codec < GR_CODEC_VARINT || col->codec > GR_CODEC_BYTES) {
				snprintf(why, whylen,
					 "record kind '%s' column '%s': unknown codec %u", k->name,
					 col->name, col->codec);
				return GR_ERR_SCHEMA;
			}
			for (uint16_t d = 0; d < c; d++) {
				if (!strcmp(k->cols[d].name, col->name)) {
					snprintf(why, whylen,
						 "record kind '%s': column '%s' repeated", k->name,
						 col->name);
					return GR_ERR_SCHEMA;
				}
			}
		}
	}
	return 0;
}

void gr_chunk_hdr_put(uint8_t *p, const struct gr_chunk_hdr *h)
{
	memcpy(p, GR_CHUNK_MAGIC, 4);
	gr_put_le32(p + GR_CK_SEQ, h->seq);
	gr_put_le32(p + GR_CK_PAYLOAD, h->payload);
	gr_put_le32(p + GR_CK_RAW, h->raw);
	gr_put_le32(p + GR_CK_RECORDS, h->records);
	gr_put_le32(p + GR_CK_PAYLOAD_CRC, h->payload_crc);
	gr_put_le64(p + GR_CK_FIRST_TS, h->first_ts);
	gr_put_le64(p + GR_CK_LAST_TS, h->last_ts);
	gr_put_le32(p + GR_CK_FLAGS, h->flags);
	gr_put_le32(p + GR_CK_HDR_CRC, gr_crc32(p, GR_CK_HDR_CRC));
}

int gr_chunk_hdr_get(const uint8_t *p, struct gr_chunk_hdr *h)
{
	if (memcmp(p, GR_CHUNK_MAGIC, 4))
		return GR_ERR_MAGIC;
	if (gr_get_le32(p + GR_CK_HDR_CRC) != gr_crc32(p, GR_CK_HDR_CRC))
		return GR_ERR_CHECKSUM;
	h->seq = gr_get_le32(p + GR_CK_SEQ);
	h->payload = gr_get_le32(p + GR_CK_PAYLOAD);
	h->raw = gr_get_le32(p + GR_CK_RAW);
	h->records = gr_get_le32(p + GR_CK_RECORDS);
	h->payload_crc = gr_get_le32(p + GR_CK_PAYLOAD_CRC);
	h->first_ts = gr_get_le64(p + GR_CK_FIRST_TS);
	h->last_ts = gr_get_le64(p + GR_CK_LAST_TS);
	h->flags = gr_get_le32(p + GR_CK_FLAGS);
	return 0;
}
