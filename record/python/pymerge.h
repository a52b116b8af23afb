/* SPDX-License-Identifier: MIT */
/*
 * One stack from the native frames and the Python frames of one event: the Python frames take
 * the place of the interpreter's evaluation loop. Each native frame inside the loop
 * (_PyEval_EvalFrameDefault) ran the Python frames from the next one up to and including the
 * next one the loop was entered for (GR_PYF_ENTRY); Python frames left when the native walk
 * ends (it often stops in code without frame pointers before the interpreter) go outermost.
 *
 * Pure: translate.c calls it with the frames of an event and turns each Python frame into its
 * PYFRAME key; tests/unit/test_pymerge.c checks it.
 */
#ifndef GR_RECORD_PYMERGE_H
#define GR_RECORD_PYMERGE_H

#include <stdint.h>

#include "bpf/gpurec.h"

/*
 * Merge @native (@nnative return addresses, innermost first) with @py (@npy frames, innermost
 * first) into @out, room for @nnative + @npy frames. The evaluation loop's code is
 * [@eval_lo, @eval_hi) in the process. A Python frame i is written as GR_FRAME_PYTHON | i
 * (format/events.h); a native one as itself. A native frame of the loop with no Python frame
 * left for it stays. Returns the frames written.
 */
unsigned gr_pymerge(const uint64_t *native, unsigned nnative, const struct gr_py_frame *py,
		    unsigned npy, uint64_t eval_lo, uint64_t eval_hi, uint64_t *out);

#endif
