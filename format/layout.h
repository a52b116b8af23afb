/* SPDX-License-Identifier: MIT */
/*
 * The byte layout of a trace file shared by the writer and the reader; docs/FORMAT.md is the
 * specification, this is its transcription. All fields little-endian.
 *
 *   file    = header, chunk*, [footer, trailer]
 *   header  = 64 fixed bytes, strings, schema, [extension], CRC32
 *   chunk   = 48-byte chunk header, one zstd frame (the payload)
 *   footer  = chunk index; trailer = the last 32 bytes, locating the footer
 */
#ifndef GR_FORMAT_LAYOUT_H
#define GR_FORMAT_LAYOUT_H

#include <stdint.h>

#include "trace.h"

#define GR_MAGIC_LEN	 8
#define GR_FILE_MAGIC	 "\x89GRTRLE\n" /* LE: little-endian; a big-endian file would say BE */
#define GR_FILE_MAGIC_BE "\x89GRTRBE\n"

/* Header: fixed part. */
#define GR_HDR_MAJOR	8
#define GR_HDR_MINOR	10
#define GR_HDR_LEN	12 /* u32: whole header including its CRC */
#define GR_HDR_REQUIRED 16
#define GR_HDR_OPTIONAL 24
#define GR_HDR_SESSION	32
#define GR_HDR_MONO	48
#define GR_HDR_REAL	56
#define GR_HDR_FIXED	64
#define GR_HDR_FROZEN	16  /* magic, major, minor, header length: the same in every version */
#define GR_HDR_STRINGS	5   /* host, kernel, tool_version, cmdline, env */
#define GR_MAX_NAME	255 /* kind and column names */

/* Feature bits this build understands. */
#define GR_FEATURES_REQUIRED_KNOWN 0ull
#define GR_FEATURES_OPTIONAL_KNOWN 0ull

/* Chunk header. */
#define GR_CHUNK_MAGIC	    "GRCK"
#define GR_CHUNK_HDR	    48
#define GR_CK_SEQ	    4
#define GR_CK_PAYLOAD	    8
#define GR_CK_RAW	    12
#define GR_CK_RECORDS	    16
#define GR_CK_PAYLOAD_CRC   20
#define GR_CK_FIRST_TS	    24
#define GR_CK_LAST_TS	    32
#define GR_CK_FLAGS	    40
#define GR_CK_HDR_CRC	    44
#define GR_MAX_WINDOW_LOG   23	       /* zstd window <= 8 MiB */
#define GR_MAX_CHUNK_VALUES (1u << 23) /* sum over kinds of records x columns in one chunk */

/* Footer and trailer. */
#define GR_FOOTER_MAGIC	 "GRFT"
#define GR_FOOTER_FIXED	 16
#define GR_FOOTER_ENTRY	 40 /* + 4 bytes per kind present */
#define GR_MAX_FOOTER	 (256u << 20)
#define GR_TRAILER	 32
#define GR_TRAILER_MAGIC "GRTREND\n"
#define GR_TR_FOOTER_OFF 0
#define GR_TR_FOOTER_LEN 8
#define GR_TR_FOOTER_CRC 16
#define GR_TR_CRC	 20
#define GR_TR_MAGIC	 24

/* A chunk header, decoded. */
struct gr_chunk_hdr {
	uint32_t seq;
	uint32_t payload; /* compressed bytes after the header */
	uint32_t raw;	  /* decompressed bytes */
	uint32_t records;
	uint32_t payload_crc;
	uint64_t first_ts, last_ts;
	uint32_t flags;
};

void gr_chunk_hdr_put(uint8_t *p, const struct gr_chunk_hdr *h);

/* Returns 0 when the magic and CRC hold (fields decoded into @h), else GR_ERR_MAGIC / _CHECKSUM. */
int gr_chunk_hdr_get(const uint8_t *p, struct gr_chunk_hdr *h);

uint32_t gr_crc32(const void *p, size_t len);

/* Schema rules shared by writer and reader; 0 or GR_ERR_SCHEMA with a reason in @why. */
int gr_schema_check(const struct gr_schema *s, char *why, size_t whylen);

#endif
