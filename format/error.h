/* SPDX-License-Identifier: MIT */
/*
 * One error convention for all of gpurec: functions return int, >= 0 on success, negative on
 * failure: either -errno or one of the GR_ERR_* codes below (all below -4095, so they never
 * collide with errno values). gr_strerror() names both.
 */
#ifndef GR_FORMAT_ERROR_H
#define GR_FORMAT_ERROR_H

#include <stdint.h>

enum gr_err {
	GR_ERR_FIRST = -10000,
	GR_ERR_MAGIC = GR_ERR_FIRST, /* not a gpurec trace */
	GR_ERR_VERSION,		     /* newer major version or unknown required feature */
	GR_ERR_TRUNCATED,	     /* fewer bytes than a length field promises */
	GR_ERR_CHECKSUM,	     /* a CRC or zstd checksum does not match */
	GR_ERR_CORRUPT,		     /* a field holds an impossible value */
	GR_ERR_LIMIT,		     /* a count or size is above a hard cap */
	GR_ERR_SCHEMA,		     /* record kind or column unknown, or schema invalid */
	GR_ERR_COMPRESS,	     /* zstd failed */
	GR_ERR_STATE,		     /* call not valid in this state (writer after an error) */
	GR_ERR_LAST,
};

/* Static string for any error returned by gpurec code (-errno or GR_ERR_*). */
const char *gr_strerror(int err);

/* Where and why reading failed: the cause a command prints once, with the file name. */
struct gr_diag {
	int err;	  /* 0, -errno or GR_ERR_* */
	uint64_t offset;  /* byte offset in the file the problem is at */
	char reason[200]; /* e.g. "chunk 3: payload checksum 0x1234abcd, expected 0x..." */
};

/* Fill @d (may be NULL) and return @err, so callers can write `return gr_diag_set(...)`. */
int gr_diag_set(struct gr_diag *d, int err, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
