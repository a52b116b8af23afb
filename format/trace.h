/* SPDX-License-Identifier: MIT */
/*
 * The gpurec trace file: a generic, self-describing, columnar, chunked container.
 *
 * The container knows nothing about CUDA. A writer declares a schema: record kinds, each a list
 * of named columns with a codec. Every column holds unsigned 64-bit values, except BYTES columns
 * which hold byte strings. Column 0 of every kind is its timestamp (CLOCK_MONOTONIC ns), which
 * the writer uses to bound chunks in time. The vocabulary gpurec writes is in format/events.h.
 *
 * Byte-level specification: docs/FORMAT.md. Error convention: functions that can fail return
 * int, >= 0 on success, a negative GR_ERR_* code (format/error.h) on failure, with details in a
 * struct gr_diag when the caller passes one. Nothing here prints or exits.
 */
#ifndef GR_FORMAT_TRACE_H
#define GR_FORMAT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define GR_FORMAT_MAJOR 1
#define GR_FORMAT_MINOR 3

/* Hard caps a reader enforces before allocating anything (also the writer's limits). */
#define GR_MAX_KINDS	   64
#define GR_MAX_COLUMNS	   32
#define GR_MAX_CHUNK_RAW   (16u << 20) /* writer targets 4 MiB; reader accepts up to this */
#define GR_MAX_BYTES_VALUE (1u << 20)  /* a single BYTES value (a path, a stack copy) */
#define GR_MAX_HEADER	   (1u << 20)

enum gr_codec {
	GR_CODEC_VARINT = 1, /* LEB128 of the value */
	GR_CODEC_DELTA = 2,  /* zigzag LEB128 of (value - previous value in this chunk) */
	GR_CODEC_DICT = 3,   /* per-chunk dictionary of distinct values + LEB128 indexes */
	GR_CODEC_BYTES = 4,  /* LEB128 length + bytes; the column yields struct gr_bytes */
};

struct gr_column_def {
	const char *name;
	uint8_t codec; /* enum gr_codec */
	/*
	 * Added to its kind after the kind's first version: files from older writers lack it, and a
	 * reader takes 0 for every record there. Not written to the file (a reader's own schema
	 * says which of its columns it can do without).
	 */
	uint8_t optional;
};

struct gr_kind_def {
	uint16_t id; /* 1..GR_MAX_KINDS-1, unique in a schema */
	const char *name;
	uint16_t ncols; /* column 0 is the timestamp, codec DELTA */
	const struct gr_column_def *cols;
};

struct gr_schema {
	uint16_t nkinds;
	const struct gr_kind_def *kinds;
};

struct gr_bytes {
	const uint8_t *data;
	uint32_t len;
};

/* Static facts about a recording, written once at the start of the file. */
struct gr_trace_header {
	uint16_t major, minor;	    /* filled in by the writer / by the reader */
	uint64_t required_features; /* bits a reader must understand (none defined yet) */
	uint64_t optional_features; /* bits a reader may ignore */
	uint8_t session_id[16];
	const char *host;	     /* uname nodename */
	const char *kernel;	     /* uname release */
	const char *tool_version;    /* gpurec version that wrote the file */
	const char *cmdline;	     /* argv joined by single spaces */
	const char *env;	     /* "KEY=VALUE\n" lines: CUDA_* and a short allow-list */
	uint64_t clock_monotonic_ns; /* the two clocks read back to back at start, */
	uint64_t clock_realtime_ns;  /* so replay can print wall-clock times */
};

/* ---- writer ---- */

struct gr_trace_writer;

struct gr_writer_opts {
	uint32_t chunk_raw_bytes; /* flush a chunk past this many raw bytes; 0 = 4 MiB */
	uint64_t chunk_ns;	  /* flush a chunk spanning more than this; 0 = 1 s */
	int zstd_level;		  /* 0 = default (3) */
};

/*
 * Start a trace on @fd (a new, empty, writable file; the writer owns it from now on and closes it
 * in gr_trace_writer_close()). Writes the header at once. @schema must outlive the writer.
 * Returns 0 and sets *@out, or a negative error with *@out NULL.
 */
int gr_trace_writer_open(struct gr_trace_writer **out, int fd, const struct gr_trace_header *hdr,
			 const struct gr_schema *schema, const struct gr_writer_opts *opts);

/*
 * Append one record of @kind. @values has one entry per column of the kind (the BYTES columns'
 * entries are ignored); @bytes has one entry per BYTES column, in column order (NULL if none).
 * Column 0 (values[0]) is the timestamp. May flush a chunk. Returns 0 or a negative error; after
 * an I/O error the writer refuses further appends.
 */
int gr_trace_writer_append(struct gr_trace_writer *w, uint16_t kind, const uint64_t *values,
			   const struct gr_bytes *bytes);

/* Compress and write the pending records as one chunk (no-op when none). Returns 0 or < 0. */
int gr_trace_writer_flush(struct gr_trace_writer *w);

/*
 * Records waiting for the next chunk (0: none), and the smallest timestamp among them in
 * *@oldest_ts: a recorder flushes them by age, so that a kill loses at most that much.
 */
uint64_t gr_trace_writer_pending(const struct gr_trace_writer *w, uint64_t *oldest_ts);

/* Records appended so far, and bytes written to the file so far. */
uint64_t gr_trace_writer_records(const struct gr_trace_writer *w);
uint64_t gr_trace_writer_file_bytes(const struct gr_trace_writer *w);

/*
 * Flush, write the footer index, fsync and close the file. Frees @w (NULL is accepted).
 * Returns 0 or the first error seen during the writer's life.
 */
int gr_trace_writer_close(struct gr_trace_writer *w);

/* ---- reader ---- */

struct gr_trace_reader;

/* How much of the file could be read. */
struct gr_integrity {
	int complete; /* footer present, every chunk valid and in order, no trailing garbage */
	int footer_present;
	uint64_t file_bytes;
	uint64_t chunks_ok;	      /* chunks that decoded */
	uint64_t chunks_bad;	      /* chunks skipped (checksum, decode error, repeated, lost) */
	uint64_t bytes_unread;	      /* bytes after the last good chunk that are not a footer */
	struct gr_diag first_problem; /* err == 0 when there was none */
	/*
	 * Chunks whose sequence numbers (docs/FORMAT.md, 4.1) disagree with their place in the
	 * file, each also named in first_problem when it is the first: a copy of a chunk already in
	 * the file is skipped (counted in chunks_bad too), so that no record is read twice; a good
	 * chunk after one written later is read where it lies (counted in chunks_ok at open).
	 */
	uint64_t chunks_repeated;
	uint64_t chunks_out_of_order;
};

/*
 * Open @path for reading. Validates the header (magic, version, schema) and the footer; without
 * a usable footer it scans the chunks from the start (recovery). Returns 0 and sets *@out, or a
 * negative error with details in @diag (may be NULL). A newer major version fails with
 * GR_ERR_VERSION.
 */
int gr_trace_reader_open(struct gr_trace_reader **out, const char *path, struct gr_diag *diag);

/* Same, over a buffer the caller keeps alive while the reader lives (fuzzing, tests). */
int gr_trace_reader_open_mem(struct gr_trace_reader **out, const void *buf, size_t len,
			     struct gr_diag *diag);

void gr_trace_reader_close(struct gr_trace_reader *r);

/* Valid while the reader lives. Strings point into the reader. */
const struct gr_trace_header *gr_trace_reader_header(const struct gr_trace_reader *r);
const struct gr_schema *gr_trace_reader_schema(const struct gr_trace_reader *r);

/* Index of the column named @name in kind @kind, or a negative error when absent. */
int gr_schema_column(const struct gr_schema *s, uint16_t kind, const char *name);
const struct gr_kind_def *gr_schema_kind(const struct gr_schema *s, uint16_t kind);

/* Integrity so far; final once gr_trace_reader_next_chunk() has returned 0 (or every chunk went
 * through gr_chunk_decode()). */
const struct gr_integrity *gr_trace_reader_integrity(const struct gr_trace_reader *r);

/* Number of good chunks (known after open: from the footer or the recovery scan). */
uint64_t gr_trace_reader_chunk_count(const struct gr_trace_reader *r);

/* One decoded chunk. Valid until the next gr_trace_reader_next_chunk() or close. */
struct gr_chunk;

/*
 * Decode the next good chunk. Returns 1 and sets *@chunk, 0 at the end, or a negative error for
 * a failure that stops reading (out of memory). A chunk that fails its checksum or does not
 * decode is skipped and counted in the integrity, never returned.
 */
int gr_trace_reader_next_chunk(struct gr_trace_reader *r, const struct gr_chunk **chunk);

/* Restart iteration at the first chunk. */
void gr_trace_reader_rewind(struct gr_trace_reader *r);

/* ---- random access: the chunk index, and decoding chunks on several threads at once ---- */

/* One entry of the chunk index: from the footer, or from the recovery scan without one. */
struct gr_chunk_info {
	uint64_t offset;   /* of the chunk header */
	uint32_t size;	   /* chunk header + payload */
	uint32_t records;  /* all kinds */
	uint64_t first_ts; /* smallest and largest timestamp of any record */
	uint64_t last_ts;
	uint64_t kinds;	 /* bit k: kind id k has records; bits 1..63 all set when unknown */
	int kinds_known; /* 1 when kinds and count[] come from the footer */
	int bad;	 /* skipped (counted in chunks_bad): decoding it yields nothing */
	uint32_t count[GR_MAX_KINDS]; /* records by kind id, when kinds_known; else 0 */
};

/*
 * Entries in the chunk index: every chunk the footer lists, or every chunk header the recovery
 * scan found (good and bad ones; a damaged region without a chunk header has no entry). Fixed
 * once open returns; gr_trace_reader_chunk_count() is the number of good ones.
 */
uint64_t gr_trace_reader_index_len(const struct gr_trace_reader *r);

/*
 * Entry @i (< gr_trace_reader_index_len()) of the index into *@out. Returns 0, -ERANGE past the
 * end, -EINVAL for a NULL argument. A chunk that fails to decode later turns bad.
 */
int gr_trace_reader_chunk_info(const struct gr_trace_reader *r, uint64_t i,
			       struct gr_chunk_info *out);

/*
 * What one thread needs to decode chunks: its own zstd context and buffers. Any number of
 * threads may decode chunks of one reader at once, each with its own decoder; the reader itself
 * must not be iterated (gr_trace_reader_next_chunk) or closed meanwhile.
 */
struct gr_chunk_decoder;

/* A new decoder in *@out. Returns 0 or -ENOMEM (*@out NULL). */
int gr_chunk_decoder_new(struct gr_chunk_decoder **out);

/* Frees @d and its last chunk (NULL is accepted). */
void gr_chunk_decoder_free(struct gr_chunk_decoder *d);

/*
 * Decode index entry @i of @r with @d. Returns 1 and sets *@chunk (valid until the next decode
 * with @d or its free); 0 when the chunk is bad: bad since open, or it fails now (re-read, CRC,
 * decode), in which case it is marked bad and counted in the integrity exactly as
 * gr_trace_reader_next_chunk() would; or a negative error that stops reading (-ENOMEM, an I/O
 * error, -ERANGE past the index). Thread-safe as said above; the integrity is final once every
 * chunk was decoded and the threads are done.
 */
int gr_chunk_decode(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
		    const struct gr_chunk **chunk);

/*
 * Reading a chunk by rows, for readers that convert records as they go: memory for a batch of
 * rows instead of every value of the chunk (gr_chunk_decode() holds 8 bytes per value, tens of
 * MiB for a chunk of launches).
 *
 * gr_chunk_decode_lazy() reads, checks and decompresses index entry @i as gr_chunk_decode()
 * does and checks its layout, but decodes no column: *@chunk has the counts and the times, and
 * gr_chunk_column()/gr_chunk_bytes() return NULL. Same returns as gr_chunk_decode(). Then, for the
 * kinds wanted, gr_chunk_rows_begin() (the kind's record count, 0 when none) and
 * gr_chunk_rows_next() until it returns 0: each call sets @v (numeric columns) and @b (BYTES
 * columns), arrays of GR_MAX_COLUMNS pointers indexed by the file's column, to the values of
 * up to GR_ROW_BATCH next rows, valid until the next call; it returns how many. Last,
 * gr_chunk_rows_end() checks what was not read and the chunk's time span, and says whether
 * the chunk is good (1) or bad (0: marked and counted exactly as gr_chunk_decode() would, with its
 * reason; the caller drops what it made of the chunk), or a negative error that stops reading.
 * A column that does not decode makes begin/next return a GR_ERR_* (the chunk is bad, say so with
 * gr_chunk_rows_end()).
 */
#define GR_ROW_BATCH 1024

int gr_chunk_decode_lazy(struct gr_chunk_decoder *d, struct gr_trace_reader *r, uint64_t i,
			 const struct gr_chunk **chunk);
int gr_chunk_rows_begin(struct gr_chunk_decoder *d, const struct gr_trace_reader *r, uint16_t kind);
int gr_chunk_rows_next(struct gr_chunk_decoder *d, const struct gr_trace_reader *r,
		       const uint64_t **v, const struct gr_bytes **b);
int gr_chunk_rows_end(struct gr_chunk_decoder *d, struct gr_trace_reader *r);

uint64_t gr_chunk_offset(const struct gr_chunk *c); /* file offset of the chunk */
uint64_t gr_chunk_first_ts(const struct gr_chunk *c);
uint64_t gr_chunk_last_ts(const struct gr_chunk *c);

/* Records of @kind in this chunk (0 when the chunk has none). */
uint32_t gr_chunk_count(const struct gr_chunk *c, uint16_t kind);

/* The decoded values of a non-BYTES column: gr_chunk_count() entries; NULL when empty. */
const uint64_t *gr_chunk_column(const struct gr_chunk *c, uint16_t kind, uint16_t col);

/* The values of a BYTES column; NULL when empty. Data points into the chunk. */
const struct gr_bytes *gr_chunk_bytes(const struct gr_chunk *c, uint16_t kind, uint16_t col);

/*
 * Record-at-a-time view, for code that wants time order across kinds: the records of one chunk
 * merged by timestamp (stable: equal timestamps keep kind order, then append order).
 */
struct gr_record_ref {
	uint16_t kind;
	uint32_t index; /* row in gr_chunk_column(c, kind, ...) */
	uint64_t ts;
};

/* Fills @out (gr_chunk_total()) entries. Returns the number written or a negative error. */
uint32_t gr_chunk_total(const struct gr_chunk *c);
int gr_chunk_merge_by_time(const struct gr_chunk *c, struct gr_record_ref *out, uint32_t n);

#endif
