/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for NVTX v2's libnvToolsExt.so.1, built from the NVTX v3 headers as they offer
 * (NVTX_EXPORT_API: the API exported as plain C functions). Like the real one it loads the tool
 * NVTX_INJECTION64_PATH names at the first call.
 */
#define NVTX_EXPORT_API
#include <nvtx3/nvToolsExt.h>
