/* SPDX-License-Identifier: MIT */
/* Splitting the BPF side's batched call events (batch.h). */
#include <errno.h>
#include <stdint.h>

#include "bpf/gpurec.h"
#include "batch.h"

int gr_batch_each(void *data, size_t size, gr_ringbuf_fn fn, void *ctx)
{
	const struct gr_ev_batch *b = data;
	size_t off = sizeof(*b), end;
	int err;

	if (size < sizeof(*b) || b->type != EV_BATCH)
		return fn(ctx, data, size);
	/* the BPF side sends a batch's bytes exactly (batch_flush()) */
	if (b->bytes != size - sizeof(*b))
		return -EINVAL;
	end = sizeof(*b) + b->bytes;
	while (off < end) {
		struct gr_ev_call *c = (void *)((uint8_t *)data + off);
		size_t bytes;

		if (end - off < sizeof(*c))
			return -EINVAL;
		bytes = sizeof(*c) + c->h.stack_len * 8ull;
		/* batches hold call events with frames, never raw stacks or other batches */
		if (bytes > end - off || c->h.type == EV_BATCH || (c->h.flags & GR_EVF_RAWSTACK))
			return -EINVAL;
		err = fn(ctx, c, bytes);
		if (err)
			return err;
		off += bytes;
	}
	return 0;
}
