/* SPDX-License-Identifier: MIT */
/* The reader's state, shared by reader.c (open, index, recovery) and chunk.c (decode, access). */
#ifndef GR_FORMAT_INTERNAL_H
#define GR_FORMAT_INTERNAL_H

#include <pthread.h>
#include <zstd.h>

#include "column.h"
#include "layout.h"

struct gr_chunk {
	uint64_t offset, first_ts, last_ts;
	uint32_t total;
	uint32_t nkinds;					/* kinds present */
	uint16_t kind_ids[GR_MAX_KINDS];			/* present kinds, ascending id */
	uint32_t count[GR_MAX_KINDS];				/* by kind id */
	const uint64_t *v[GR_MAX_KINDS][GR_MAX_COLUMNS];	/* numeric columns */
	const struct gr_bytes *b[GR_MAX_KINDS][GR_MAX_COLUMNS]; /* BYTES columns */
};

/* One chunk the index or the recovery scan found. */
struct chunk_ent {
	uint64_t offset;
	uint32_t size; /* chunk header + payload */
	uint32_t records;
	uint64_t first_ts, last_ts;
	uint64_t kinds;	    /* from the footer: bit k when kind k has records; 0 = unknown (scan) */
	uint64_t counts;    /* where its per-kind counts start in r->kcounts (footer only) */
	int bad;	    /* skipped, counted in chunks_bad; read and set with __atomic */
	uint32_t seq;	    /* the chunk header's sequence number, when seq_known */
	uint8_t seq_known;  /* its chunk header's magic and CRC held */
	uint8_t after_skip; /* the scan skipped bytes without a chunk header just before it */
	uint8_t repeated;   /* a later copy of a chunk with the same seq: never read */
};

/* Where the encoded columns of one kind sit in the decompressed payload. */
struct block {
	uint16_t kind;
	uint32_t count;
	const uint8_t *col[GR_MAX_COLUMNS];
	size_t len[GR_MAX_COLUMNS];
};

/*
 * Everything decoding one chunk needs besides the reader's read-only state (schema, index): one
 * per thread that decodes (struct gr_chunk_decoder of trace.h).
 */
struct gr_chunk_decoder {
	ZSTD_DCtx *dctx;
	struct gr_buf io;  /* pread() target for the chunk's bytes */
	struct gr_buf raw; /* decompressed payload of the current chunk */
	uint64_t *vals;
	size_t vals_cap;
	struct gr_bytes *bvals;
	size_t bvals_cap;
	struct gr_coldec_scratch scratch;
	struct block blocks[GR_MAX_KINDS];
	struct gr_chunk chunk;

	/* a chunk read by rows (gr_chunk_decode_lazy): its layout is in blocks[] */
	struct gr_chunk_hdr hdr;
	uint64_t index;
	uint32_t nblocks;
	int lazy;	 /* 1 reading by rows, -1 a column failed, 0 not reading by rows */
	uint64_t lo, hi; /* timestamps seen */
	uint64_t read;	 /* bit b: block b was read to its end */
	int rb;		 /* the block being read, -1 none */
	uint32_t rleft;	 /* its rows still to read */
	struct gr_col_cursor cur[GR_MAX_COLUMNS];
	struct gr_coldec_scratch dicts[GR_MAX_COLUMNS];
	uint64_t *batch;	 /* GR_MAX_COLUMNS x GR_ROW_BATCH values */
	struct gr_bytes *bbatch; /* the same for BYTES columns */
	/* batch slot c holds fill_v[c] in its first fill_n[c] rows (next_rows) */
	uint32_t fill_n[GR_MAX_COLUMNS];
	uint64_t fill_v[GR_MAX_COLUMNS];
};

struct gr_trace_reader {
	int fd; /* -1: reading @mem */
	const uint8_t *mem;
	uint64_t size;
	struct gr_buf io; /* pread() target of open-time reads (header, footer, scan) */
	uint32_t header_len;

	struct gr_trace_header hdr;
	struct gr_schema schema;
	struct gr_kind_def kinds[GR_MAX_KINDS];
	struct gr_column_def *cols;	 /* all kinds' columns */
	char *strings;			 /* header strings and names, NUL-terminated */
	int8_t kind_index[GR_MAX_KINDS]; /* schema index by kind id, -1 when absent */

	struct chunk_ent *chunks;
	uint64_t nchunks, chunks_cap;
	uint32_t *kcounts; /* the footer's per-kind record counts, all chunks in a row */
	uint64_t next;	   /* iteration position in chunks[] */

	/* once open returns, chunks[].bad and integ change only under the lock (decoders) */
	pthread_mutex_t lock;
	struct gr_integrity integ;

	struct gr_chunk_decoder dec; /* gr_trace_reader_next_chunk()'s */
};

/*
 * Read @len bytes at @off: *@p points into the file image or into @io (valid until the next read
 * into it). Thread-safe when each thread has its own @io. Returns 0, GR_ERR_TRUNCATED past the end
 * of the file, or -errno.
 */
int gr_reader_read_into(const struct gr_trace_reader *r, struct gr_buf *io, uint64_t off,
			size_t len, const uint8_t **p);

/* gr_reader_read_into() r->io: for the open-time reads, on the opening thread. */
int gr_reader_read(struct gr_trace_reader *r, uint64_t off, size_t len, const uint8_t **p);

/* Record a problem in the integrity unless one at a lower offset is there already. */
void gr_reader_problem(struct gr_trace_reader *r, int err, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Decompress and decode the chunk whose header @h and payload @payload were read at @off into
 * d->chunk, against @r's schema (only read). Returns 0, a GR_ERR_* for a bad chunk (reason in
 * @why), or -ENOMEM.
 */
int gr_decoder_payload(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint64_t off,
		       const struct gr_chunk_hdr *h, const uint8_t *payload, char *why,
		       size_t whylen);

/* The decoding half of gr_decoder_payload(): @raw holds the h->raw decompressed bytes. */
int gr_decoder_raw(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint64_t off,
		   const struct gr_chunk_hdr *h, const uint8_t *raw, char *why, size_t whylen);

/* gr_decoder_raw() into the reader's own decoder (r->dec.chunk), for the chunk fuzzer. */
int gr_chunk_decode_raw(struct gr_trace_reader *r, uint64_t off, const struct gr_chunk_hdr *h,
			const uint8_t *raw, char *why, size_t whylen);

/* The layout of the chunk at @off into d->blocks (no column decoded). 0 or a GR_ERR_*. */
int gr_decoder_layout(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint64_t off,
		      const struct gr_chunk_hdr *h, const uint8_t *payload, char *why,
		      size_t whylen);

/* Set up / release the buffers of a decoder that lives inside another struct. */
int gr_decoder_init(struct gr_chunk_decoder *d);
void gr_decoder_release(struct gr_chunk_decoder *d);

#endif
