/* SPDX-License-Identifier: MIT */
/* Native and Python frames into one stack: see pymerge.h. */
#include "format/events.h"
#include "pymerge.h"

unsigned gr_pymerge(const uint64_t *native, unsigned nnative, const struct gr_py_frame *py,
		    unsigned npy, uint64_t eval_lo, uint64_t eval_hi, uint64_t *out)
{
	unsigned n = 0, next = 0;

	for (unsigned i = 0; i < nnative; i++) {
		uint64_t f = native[i];

		if (f < eval_lo || f >= eval_hi || next == npy) {
			out[n++] = f;
			continue;
		}
		/* this run of the loop: Python frames up to the one it was entered for */
		while (next < npy) {
			out[n++] = GR_FRAME_PYTHON | next;
			if (py[next++].flags & GR_PYF_ENTRY)
				break;
		}
	}
	while (next < npy)
		out[n++] = GR_FRAME_PYTHON | next++;
	return n;
}
