/* SPDX-License-Identifier: MIT */
/*
 * The ring buffer's records as events. The BPF side sends a thread's call events in batches
 * (struct gr_ev_batch in bpf/gpurec.h); every other record is one event.
 */
#ifndef GR_RECORD_BATCH_H
#define GR_RECORD_BATCH_H

#include <stddef.h>

#include "ringbuf.h"

/*
 * Hand each event of the record @data (@size bytes) to @fn, in order: the events of a batch one
 * by one, any other record whole. A batch the BPF side could not have written ends at its first
 * malformed event: the events before it are handed on and -EINVAL is returned, for the caller
 * to count. Returns the first error @fn returned, else -EINVAL for a malformed batch, else 0.
 */
int gr_batch_each(void *data, size_t size, gr_ringbuf_fn fn, void *ctx);

#endif
