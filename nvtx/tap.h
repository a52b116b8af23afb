/* SPDX-License-Identifier: MIT */
/* The one call of libgpurec_nvtx.so that the recorder probes: what an NVTX call said. */
#ifndef GR_NVTX_TAP_H
#define GR_NVTX_TAP_H
#include <stdint.h>
/* the library's file name, next to gpurec as libgpurec_cupti.so is */
#define GR_NVTX_LIBRARY "libgpurec_nvtx.so"
/* the tap's symbol, which the recorder looks up in the library's .dynsym */
#define GR_NVTX_TAP_SYMBOL "gpurec_nvtx_tap"
struct gr_nvtx_tap {
	uint64_t domain;  /* the domain handle, 0 = the default domain */
	uint64_t id;	  /* as contract32.md's GR_NVTX_ID column */
	uint64_t payload; /* the payload's 64 bits as given */
	uint32_t op;	  /* enum gr_nvtx_op (contract32.md) */
	uint32_t category;
	uint32_t color;	       /* ARGB, 0 none */
	uint32_t payload_type; /* nvtxPayloadType_t, 0 none */
	const char *text;      /* UTF-8, NUL-terminated; NULL: none */
};
#endif
