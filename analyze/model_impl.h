/* SPDX-License-Identifier: MIT */
/*
 * Internals of the trace model shared by model.c (load driver, resolution, accessors) and
 * model_read.c (records of one chunk into the model's arrays). Not for other modules: they use
 * model.h.
 */
#ifndef GR_ANALYZE_MODEL_IMPL_H
#define GR_ANALYZE_MODEL_IMPL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "keymap.h"
#include "model.h"
#include "strtab.h"

#define ARRAY(type)                                                                                \
	struct {                                                                                   \
		type *v;                                                                           \
		size_t n, cap;                                                                     \
	}

struct comm_entry {
	uint32_t tid;
	const char *comm;
};

struct gr_model {
	struct gr_trace_header hdr;
	struct gr_integrity integ;
	uint64_t counts[GR_K_COUNT];
	uint64_t lost;
	uint64_t first_ts, last_ts;

	ARRAY(struct gr_launch) launches;
	ARRAY(struct gr_copy) copies;
	ARRAY(struct gr_memset) memsets;
	ARRAY(struct gr_alloc) allocs;
	ARRAY(struct gr_free) frees;
	ARRAY(struct gr_sync) syncs;
	ARRAY(struct gr_graph) graphs;
	ARRAY(struct gr_sched) scheds;
	ARRAY(struct gr_proc_event) procs;
	ARRAY(struct gr_loss) losses;

	ARRAY(struct gr_kernel) kernels;
	ARRAY(const char *) kernel_names;
	ARRAY(struct gr_config) configs;
	ARRAY(struct gr_thread) threads;
	ARRAY(struct gr_stream) streams;
	ARRAY(struct gr_process) processes;
	ARRAY(const char *) libraries;
	ARRAY(struct gr_mapping) mappings;
	ARRAY(struct gr_symbol) symbols;
	ARRAY(struct gr_stack) stacks;
	uint32_t *stacks_by_id; /* stacks indexes sorted by (id, pid) */
	ARRAY(struct comm_entry) comms;
	ARRAY(struct gr_session_fact) session;

	struct gr_arena arena;
};

/* A one-entry cache in front of a keymap. */
struct cache {
	uint64_t key[4];
	uint32_t idx;
	int valid;
};

#define GR_LAUNCH_MEMO 1024 /* entries, power of two */

struct launch_memo {
	uint64_t key[6]; /* func, grid/block packed, pid << 32 | shmem, stack id */
	uint32_t kernel, config, stack;
	int valid;
};

struct loader {
	struct gr_model *m;
	struct gr_strtab strs;
	struct gr_diag *diag;
	uint64_t max_records, nrecords;
	uint64_t chunk_offset;

	/* file column of each column of this build's vocabulary; -1 when the kind is absent */
	int col[GR_K_COUNT][GR_MAX_COLUMNS];
	uint8_t present[GR_K_COUNT];
	uint8_t unsorted[GR_K_COUNT];
	uint64_t prev_ts[GR_K_COUNT];

	struct gr_keymap kernels, configs, threads, streams;
	struct cache thread_c, stream_c, stack_c;
	struct launch_memo memo[GR_LAUNCH_MEMO];

	/* metadata, keyed: the value arrays are indexed by the keymap index */
	struct gr_keymap kname_k, kraw_k, comm_k, lib_k, sym_k, stack_k, map_k, sess_k;
	ARRAY(const char *) kname;
	ARRAY(const char *) kraw;
	ARRAY(const char *) comm;
};

static inline uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static inline uint16_t sat16(uint64_t v)
{
	return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

/*
 * Event arrays reach hundreds of MiB, and faulting in fresh memory costs as much as loading the
 * events. From BIG_ARRAY bytes on, arrays are mapped by hand, 2 MiB aligned, with transparent huge
 * pages requested (3x faster to fault in here), and grow with mremap (no copy).
 */
#define BIG_ARRAY (4u << 20)
#define HUGE_PAGE (2u << 20)

static inline size_t huge_round(size_t bytes)
{
	return (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

static inline void advise_huge(void *p, size_t bytes)
{
	uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);

	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/* A mapping of huge_round(@bytes), 2 MiB aligned; NULL on failure. */
static inline void *big_alloc(size_t bytes)
{
	size_t len = huge_round(bytes), head;
	char *p =
	    mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	head = (HUGE_PAGE - ((uintptr_t)p & (HUGE_PAGE - 1))) & (HUGE_PAGE - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + len, HUGE_PAGE - head);
	advise_huge(p + head, len);
	return p + head;
}

/* Free an array of @bytes (its capacity in bytes) made by reserve(). */
static inline void array_release(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes >= BIG_ARRAY)
		munmap(p, huge_round(bytes));
	else
		free(p);
}

/* Make room for @k more entries of @esz bytes in a growable array. */
static inline int reserve(void **v, size_t *cap, size_t n, size_t k, size_t esz)
{
	size_t ncap, old, new;
	void *p;

	if (n + k <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < n + k) {
		if (ncap > SIZE_MAX / 4 / esz)
			return -ENOMEM;
		ncap *= 2;
	}
	old = *cap * esz;
	new = ncap *esz;
	if (new < BIG_ARRAY) {
		p = realloc(*v, new);
	} else if (old < BIG_ARRAY) {
		p = big_alloc(new);
		if (p && n)
			memcpy(p, *v, n * esz);
		if (p)
			free(*v);
	} else {
		p = mremap(*v, huge_round(old), huge_round(new), MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			p = NULL;
		else
			advise_huge(p, huge_round(new));
	}
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

#define RELEASE(arr)	array_release((arr).v, (arr).cap * sizeof(*(arr).v))
#define RESERVE(arr, k) reserve((void **)&(arr).v, &(arr).cap, (arr).n, (k), sizeof(*(arr).v))

/* Set entry @idx of a keyed value array, growing it (new entries zeroed). */
static inline int set_at(void **v, size_t *n, size_t *cap, size_t idx, size_t esz, const void *val)
{
	int err;

	if (idx >= *n) {
		err = reserve(v, cap, *n, idx + 1 - *n, esz);
		if (err)
			return err;
		memset((char *)*v + *n * esz, 0, (idx + 1 - *n) * esz);
		*n = idx + 1;
	}
	memcpy((char *)*v + idx * esz, val, esz);
	return 0;
}

#define SET_AT(arr, idx, val)                                                                      \
	set_at((void **)&(arr).v, &(arr).n, &(arr).cap, (idx), sizeof(*(arr).v), (val))

static inline int intern_cached(struct gr_keymap *map, struct cache *c, const uint64_t *key,
				uint32_t nw, uint32_t *idx)
{
	int err;

	if (c->valid && !memcmp(c->key, key, nw * sizeof(*key))) {
		*idx = c->idx;
		return 0;
	}
	err = gr_keymap_intern(map, key, idx);
	if (err < 0)
		return err;
	memcpy(c->key, key, nw * sizeof(*key));
	c->idx = *idx;
	c->valid = 1;
	return 0;
}

/* Index of the stack (@pid, @id) in the model's stack table, adding a frameless entry for a new
 * one; 0 for id 0. Returns 0 or a negative error. */
int model_stack_index(struct loader *L, uint64_t pid, uint64_t id, uint32_t *idx);

/* Map this build's columns of every known kind to the file schema's columns, by name. */
int model_map_schema(struct loader *L, const struct gr_schema *fs);

/* Copy the records of chunk @c into the model. Returns 0 or a negative error (diag set). */
int model_read_chunk(struct loader *L, const struct gr_chunk *c);

#endif
