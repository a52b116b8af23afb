/* SPDX-License-Identifier: MIT */
/*
 * Writing records to the recorder's pipe (wire.h): batches of up to four records, each batch
 * one write of at most PIPE_BUF bytes, so it lands whole or not at all. The descriptor is
 * non-blocking: what a full pipe refuses is counted, never waited for.
 */
#ifndef GR_CUPTI_SEND_H
#define GR_CUPTI_SEND_H

#include <stdint.h>

#include "wire.h"

#define GR_CUPTI_BATCH 4

struct gr_cupti_sender {
	int fd;
	unsigned n;
	uint64_t sent, unwritten; /* records */
	struct gr_cupti_rec batch[GR_CUPTI_BATCH];
};

/* Queue @rec (copied); a full batch is written. */
void gr_cupti_send(struct gr_cupti_sender *s, const struct gr_cupti_rec *rec);

/* Write what is queued. */
void gr_cupti_send_flush(struct gr_cupti_sender *s);

/*
 * Write @rec alone, waiting up to @wait_ms for room: for the records that must arrive (the
 * totals at exit). Returns 0, or -1 when it could not be written (counted as unwritten).
 */
int gr_cupti_send_now(struct gr_cupti_sender *s, const struct gr_cupti_rec *rec, int wait_ms);

#endif
