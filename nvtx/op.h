/* SPDX-License-Identifier: MIT */
/*
 * The NVTX operations the tap reports (contract32.md's enum gr_nvtx_op). The library's own
 * copy, with the same numbers, until format/events.h carries the enum: then this header
 * includes that one instead.
 */
#ifndef GR_NVTX_OP_H
#define GR_NVTX_OP_H

enum gr_nvtx_op {
	GR_NVTX_PUSH = 1,
	GR_NVTX_POP,
	GR_NVTX_START,
	GR_NVTX_END,
	GR_NVTX_MARK,
	GR_NVTX_NAME_DOMAIN,
	GR_NVTX_NAME_CATEGORY,
	GR_NVTX_NAME_THREAD,
	GR_NVTX_NAME_STREAM,
	GR_NVTX_NAME_DEVICE,
};

#endif
