/* SPDX-License-Identifier: MIT */
/*
 * Recorded memory over time, per process: the address ranges of the allocations that succeeded
 * (device, managed, pinned host, registered host), each live from its allocation to the first free
 * of its address after it. An address in no live range is pageable host memory as far as the
 * trace can tell.
 *
 * The model uses it once at load to resolve the direction of copies recorded as "default"
 * (cudaMemcpyDefault, cuMemcpy): gr_memmap_resolve_copies(). The transfer report asks it whether
 * a host address is pinned.
 */
#ifndef GR_ANALYZE_MEMMAP_H
#define GR_ANALYZE_MEMMAP_H

#include <stdint.h>

#include "model.h"

struct gr_memmap;

/* Build the map of @m's allocations and frees. 0, or -ENOMEM. */
int gr_memmap_build(struct gr_memmap **out, const struct gr_model *m);
void gr_memmap_free(struct gr_memmap *mm);

/*
 * The enum gr_alloc_kind of the allocation of @pid that holds @addr at @ts, or -1 when none does
 * (pageable host memory, or memory the trace did not see allocated).
 */
int gr_memmap_kind_at(const struct gr_memmap *mm, uint32_t pid, uint64_t addr, uint64_t ts);

/* 1 when the allocation holding @addr at @ts is page-locked host memory (pinned, registered). */
int gr_memmap_pinned_at(const struct gr_memmap *mm, uint32_t pid, uint64_t addr, uint64_t ts);

/*
 * Give every copy of @m recorded as GR_COPY_DEFAULT the direction its addresses say: an address in
 * a live device or managed allocation is device memory (managed counts as device: the direction a
 * profiler would name when the pages are resident on the GPU), any other is host memory. A copy
 * stays GR_COPY_DEFAULT when its process made no successful device or managed allocation, or was
 * attached to (-p: allocations before the attach are missing), or when @whole_trace is 0 (a
 * windowed load lacks the allocations made before the window). The kind in the file stays in
 * gr_copy.kind_recorded. 0, or -ENOMEM.
 */
int gr_memmap_resolve_copies(struct gr_model *m, int whole_trace);

#endif
