/* SPDX-License-Identifier: MIT */
/* Draining the BPF ring buffer with one consumer-position update per batch. */
#ifndef GR_RECORD_RINGBUF_H
#define GR_RECORD_RINGBUF_H

#include <stddef.h>
#include <stdint.h>

struct gr_ringbuf;

/* Called for each record; data is valid only during the call. */
typedef int (*gr_ringbuf_fn)(void *ctx, void *data, size_t size);

/* Map the ring buffer of BPF map @map_fd. Returns 0 or -errno. */
int gr_ringbuf_open(struct gr_ringbuf **out, int map_fd);
void gr_ringbuf_free(struct gr_ringbuf *rb);

/* Also wake gr_ringbuf_wait() when @fd is readable (a pidfd: a process ended). 0 or -errno. */
int gr_ringbuf_watch(struct gr_ringbuf *rb, int fd);

/* Sleep until the BPF side forces a wakeup, a watched fd is readable or @timeout_ms pass.
 * Returns 0 or -errno. */
int gr_ringbuf_wait(struct gr_ringbuf *rb, int timeout_ms);

/* Hand every submitted record to @fn, in order. Returns the number of records. */
int64_t gr_ringbuf_consume(struct gr_ringbuf *rb, gr_ringbuf_fn fn, void *ctx);

/*
 * Bytes the producers have written that the consumer has not released: what the BPF side sees
 * as BPF_RB_AVAIL_DATA. Inside gr_ringbuf_consume() it lags the records handed out by up to
 * the publishing step (256 KiB). Its capacity: gr_ringbuf_size().
 */
uint64_t gr_ringbuf_backlog(const struct gr_ringbuf *rb);
uint64_t gr_ringbuf_size(const struct gr_ringbuf *rb);

#endif
