/* SPDX-License-Identifier: MIT */
/*
 * Device memory from the recorded allocations and frees, for every command that shows it (report,
 * info, diff, export, the HTML page): live bytes over time per process, the peak and who held it,
 * what was never freed (leaks), steady growth over the iterations of a loop, failed allocations
 * with what was live at them, the allocator calls inside the loop (churn), pinned host memory, and
 * whether the figures are a caching allocator's segments. Definitions: docs/REPORTS.md ("Device
 * memory").
 *
 * Replay: the model's ALLOC and FREE rows in time order (an allocation before a free at the same
 * ts); each free is matched to the live allocation of its process at its address (a free of an
 * address that is not live is counted as unmatched and changes nothing). Failed calls allocate
 * nothing: they are in the model's asides (and rows with addr 0, from older files), never live.
 * Device bytes: device, device-async (pools) and managed allocations; pinned host bytes: pinned
 * and registered host memory, apart. Figures are per (process, device): an allocation's device is
 * the one its thread had current (the ALLOC row's device, by the runtime's rule: the thread's
 * last successful cudaSetDevice, 0 before any; driver context calls are not followed); a free
 * counts on its allocation's device. Pinned host memory counts on the allocating thread's device.
 *
 * Ownership: gr_memory_compute() fills a caller's struct with arrays it allocates;
 * gr_memory_free() releases them. Frames' strings point into the model.
 */
#ifndef GR_ANALYZE_MEMORY_H
#define GR_ANALYZE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"
#include "frames.h"

/* Sites kept per list (live set at the peak, leaks, holders at a failure, growth). */
#define GR_MEMORY_TOP 8
/* Failed allocations described one by one (the others are counted). */
#define GR_MEMORY_FAILURES 16
/* A finding of steady growth needs this many iterations, at least 3 in 4 of them growing. */
#define GR_MEMORY_GROWTH_MIN_ITERS 3

/* A call site (frames.h): the innermost Python frame of the allocation's stack, else the native
 * frame that made the call. Site 0 is "no stack recorded". */
struct gr_memory_site {
	struct gr_frame frame; /* kind NATIVE, value 0 for site 0 */
	uint32_t stack;	       /* the first stack seen at the site (gr_model_stacks() index) */
	uint32_t pid;
};

/* Bytes of a stack (gr_model_stacks() index, 0 = none) in the live set at a peak. */
struct gr_memory_stack_bytes {
	uint32_t stack;
	uint64_t bytes;
};

/* Bytes of a site in some set of allocations (live at the peak, outstanding at the end...). */
struct gr_memory_held {
	uint32_t site; /* gr_memory.sites index */
	uint64_t bytes;
	uint64_t count; /* allocations */
};

struct gr_memory_point {
	uint64_t ts;
	uint64_t bytes; /* live device bytes from ts on */
};

struct gr_memory_proc {
	uint32_t pid;
	uint32_t device;	       /* ordinal (runtime rule, see above) */
	uint64_t allocs, frees;	       /* device allocations and frees that succeeded */
	uint64_t alloc_bytes;	       /* bytes those allocations asked for */
	uint64_t failed;	       /* device allocation calls that failed */
	uint64_t unmatched_frees;      /* frees of addresses not live in the recording */
	uint64_t peak_bytes, peak_ts;  /* the first time the live bytes reached their peak */
	int64_t peak_iteration;	       /* in the loop given; -1: outside it, or no loop */
	uint64_t end_bytes, end_count; /* live at the end of the recording: outstanding */
	/* by bytes desc (then site); the first GR_MEMORY_TOP; *_sites_n counts them all */
	struct gr_memory_held peak_sites[GR_MEMORY_TOP], end_sites[GR_MEMORY_TOP];
	size_t npeak_sites, nend_sites, peak_sites_n, end_sites_n;
	/* the live set at the peak by whole stack, every stack, by stack index (a flame graph) */
	struct gr_memory_stack_bytes *peak_stacks;
	size_t npeak_stacks;
	/* pinned host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister) */
	uint64_t pinned_allocs, pinned_peak_bytes, pinned_peak_ts, pinned_end_bytes;
	/* live device bytes after each change (0 before the first), in time order; none when
	 * nothing was allocated */
	struct gr_memory_point *series;
	size_t nseries;
};

struct gr_memory_failure {
	uint64_t ts, dur;
	uint64_t bytes; /* requested */
	uint32_t pid, thread, site;
	uint32_t
	    status; /* the error the call returned (0: recorded with addr 0, status not kept) */
	uint16_t api, kind;
	int64_t iteration;   /* in the loop given; -1: outside it, or no loop */
	uint64_t live_bytes; /* the process's live device bytes when it was asked */
	struct gr_memory_held holders[GR_MEMORY_TOP];
	size_t nholders, holders_n;
	/* the free memory its process was last told before it (cudaMemGetInfo, cuMemGetInfo: the
	 * last such call that succeeded, outermost); free_known 0 when none was recorded */
	int free_known;
	uint64_t free_bytes, total_bytes, told_ts;
};

/* A loop to judge growth and churn over (the report's iteration). */
struct gr_memory_loop {
	uint32_t thread; /* gr_model_threads() index */
	const uint64_t *starts;
	size_t n; /* iterations, >= 1 */
	uint64_t end_ts;
};

/* Live device bytes of the loop's process growing iteration after iteration. */
struct gr_memory_growth {
	int found;
	uint32_t pid;
	uint64_t iterations;
	uint64_t grew; /* iterations that ended with more live bytes than they began */
	uint64_t start_bytes, end_bytes; /* live at the loop's start and its end */
	uint64_t per_iteration;		 /* the lower median of the iterations' changes */
	/* what allocations made inside the loop and never freed hold at the end, by site */
	struct gr_memory_held sites[GR_MEMORY_TOP];
	size_t nsites, sites_n;
};

/* The loop thread's allocator calls inside the loop (every kind, failed ones apart). */
struct gr_memory_churn {
	int found; /* a loop was given */
	uint64_t iterations;
	uint64_t allocs, frees, alloc_bytes; /* succeeded, over the loop */
	uint64_t alloc_ns, free_ns;	     /* their call time: the host waited in them */
	uint64_t failed;		     /* failed allocation calls in the loop */
	/* per iteration, each its own lower median over the iterations: allocations, frees, the
	 * bytes allocated, the time in allocation and free calls */
	uint64_t median_allocs, median_frees, median_bytes, median_ns;
	uint32_t top_site; /* the site allocating most often in the loop */
	uint64_t top_site_allocs;
};

/* Why the figures look like a caching allocator's segments, not the program's buffers. */
enum gr_memory_caching {
	GR_MEMORY_CACHING_NONE = 0,
	GR_MEMORY_CACHING_LIBRARY,  /* a process mapped PyTorch's or CuPy's CUDA library */
	GR_MEMORY_CACHING_SEGMENTS, /* few large segments, none allocated in the loop */
};

struct gr_memory {
	int any;    /* the trace holds an allocation or free call (failed ones too) */
	int judged; /* 0: no allocation is known to have succeeded (every one failed) */
	uint64_t device_allocs, device_failed, frees, pinned_allocs, async_allocs;
	struct gr_memory_site *sites; /* [0] = no stack */
	size_t nsites;
	struct gr_memory_proc *procs; /* by (pid, device), those with any allocation call */
	size_t nprocs;
	struct gr_memory_failure *failures; /* the first GR_MEMORY_FAILURES, in time order */
	size_t nfailures;
	uint64_t failures_total;
	struct gr_memory_growth growth;
	struct gr_memory_churn churn;
	enum gr_memory_caching caching;
	const char *caching_library; /* the library's path (model), for _LIBRARY */
};

/*
 * Compute @out from @m; @loop (NULL: none) is the loop to place the peak and failures in and to
 * judge growth and churn over. Returns 0 or -ENOMEM (@out then empty).
 */
int gr_memory_compute(const struct gr_model *m, const struct gr_memory_loop *loop,
		      struct gr_memory *out);

/* Release what compute allocated (a zeroed struct is accepted). */
void gr_memory_free(struct gr_memory *mem);

/* Site @site of @mem as text into @buf: "(no stack recorded)" for site 0. Returns @buf. */
const char *gr_memory_site_text(const struct gr_memory *mem, uint32_t site, char *buf, size_t len);

/* The process entry of @pid, or NULL. */
const struct gr_memory_proc *gr_memory_proc(const struct gr_memory *mem, uint32_t pid);

/* The process with the highest peak (the first by pid on ties), or NULL when none. */
const struct gr_memory_proc *gr_memory_top_proc(const struct gr_memory *mem);

/* "not recorded", "library", "segments": the JSON words of enum gr_memory_caching */
const char *gr_memory_caching_name(enum gr_memory_caching c);

#endif
