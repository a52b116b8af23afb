/* SPDX-License-Identifier: MIT */
/*
 * Internals of the trace model shared by model_load.c (load driver, resolution, the passes in
 * order), model_read.c (records of one chunk into the model's arrays), the passes (model_comm.c,
 * memmap.c) and model.c (freeing, lookups). Not for other modules: they use model.h.
 */
#ifndef GR_ANALYZE_MODEL_IMPL_H
#define GR_ANALYZE_MODEL_IMPL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyze/util/keymap.h"
#include "analyze/util/pool.h"
#include "analyze/util/strtab.h"
#include "model.h"

#define ARRAY(type)                                                                                \
	struct {                                                                                   \
		type *v;                                                                           \
		size_t n, cap;                                                                     \
	}

struct comm_entry {
	uint32_t tid;
	const char *comm;
};

/* An NVTX row as loaded: its text is an interned pointer until finish() indexes the texts. */
struct gr_nvtx_raw {
	struct gr_nvtx e; /* first: ts leads, as the event sort wants */
	const char *text;
};

struct gr_model {
	struct gr_trace_header hdr;	     /* a set's: its first trace's */
	ARRAY(struct gr_model_trace) traces; /* a set's traces (gr_model_load_set); n 0 for one */
	struct gr_integrity integ;
	uint64_t counts[GR_K_COUNT];
	uint8_t kinds[GR_K_COUNT]; /* the file's schema declares the kind */
	uint64_t lost;		   /* events lost */
	uint64_t lost_stacks;	   /* events kept without their stack */
	uint64_t calls_ok; /* kept calls that returned success (GR_CALL_RETURNED, status 0) */
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
	ARRAY(struct gr_gpu) gpus;
	ARRAY(struct gr_meminfo) meminfos;
	ARRAY(struct gr_nvtx_raw) nvtx_raw; /* NVTX rows as loaded: finish() makes nvtx of them */
	ARRAY(struct gr_nvtx) nvtx;
	ARRAY(const char *) nvtx_texts;	       /* [0] = "" */
	ARRAY(struct gr_comm_call) comm_calls; /* every COMM row until finish(): then done ones */
	ARRAY(struct gr_comm_call) comm_asides;
	ARRAY(struct gr_aside) asides;

	ARRAY(struct gr_launch_key) launch_keys;
	ARRAY(struct gr_sched_key) sched_keys;
	ARRAY(struct gr_kernel) kernels;
	ARRAY(const char *) kernel_names;
	ARRAY(struct gr_config) configs;
	ARRAY(struct gr_thread) threads;
	ARRAY(struct gr_stream) streams;
	ARRAY(struct gr_process) processes;
	ARRAY(const char *) libraries;
	ARRAY(const char *) unprobed; /* NAME class UNPROBED: mapped CUDA code nobody probes */
	ARRAY(struct gr_mapping) mappings;
	ARRAY(struct gr_symbol) symbols;
	ARRAY(struct gr_stack) stacks;
	ARRAY(struct gr_pyframe) pyframes; /* sorted by key */
	ARRAY(struct gr_python) pythons;
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
	/* func, grid/block packed, pid << 32 | shmem, stack id, tid, stream, cpu | api << 16,
	 * dur >> 32 */
	uint64_t key[10];
	uint32_t lkey; /* the part's launch key index */
	int valid;
};

#define GR_SCHED_MEMO 256 /* entries, power of two */

struct sched_memo {
	uint64_t key[6]; /* sched_key_pack() */
	uint32_t skey;	 /* the part's scheduler key index */
	int valid;
};

/* What converting any chunk needs, fixed before the first one: read by every worker. */
struct load_ctx {
	struct gr_model *m; /* where copy_job() puts the events */
	/* file column of each column of this build's vocabulary; -1 when the kind is absent,
	 * COL_ZEROS for an optional column the file lacks */
	int col[GR_K_COUNT][GR_MAX_COLUMNS];
	uint8_t present[GR_K_COUNT];
	int window;		  /* keep only the events of [lo, to] that reach from */
	uint64_t from, to, lo;	  /* lo: from minus the margin */
	struct shared_strs *strs; /* the model's strings */
	/* several traces as one job (gr_model_load_set()): the trace being read. Its pids, tids
	 * and CPUs move up by id_base / cpu_base (0 stays 0: the idle task, no id), its GPU
	 * devices by gpu_base, its times by ts_shift onto the first trace's clock; remap is 0 for
	 * the first trace and a single one.
	 */
	int remap;
	uint32_t id_base, cpu_base, gpu_base;
	int64_t ts_shift;
};

#define COL_ZEROS (-2)

/* The model's string table, shared by the workers (strings are metadata: rare, so one lock). */
struct shared_strs {
	pthread_mutex_t lock; /* also guards the model's arena */
	struct gr_strtab t;
};

/*
 * The dense tables an event indexes, in struct part and in the loader alike. A launch key's key
 * holds indexes of the tables before it (launch_key_pack()), so T_LKEY comes last: the merge maps
 * them first. A scheduler key holds raw ids and a stack index (sched_key_pack()): T_SKEY comes
 * after T_STACK, so the merge has mapped the stacks when it maps the scheduler keys.
 */
enum { T_KERNEL, T_CONFIG, T_THREAD, T_STREAM, T_STACK, T_SKEY, T_LKEY, T_COUNT };

/* Key words of each table's keymap. */
static const uint32_t table_words[T_COUNT] = {2, 4, 2, 2, 2, 6, 4};

/* A scheduler key as its keymap's key (6 words), and back. */
static inline void sched_key_pack(const struct gr_sched_key *k, uint64_t w[6])
{
	w[0] = k->prev_state;
	w[1] = k->cpu | (uint64_t)k->target_cpu << 32;
	w[2] = k->prev_pid | (uint64_t)k->prev_tid << 32;
	w[3] = k->next_pid | (uint64_t)k->next_tid << 32;
	w[4] = k->type | (uint64_t)k->fd_kind << 8;
	w[5] = k->stack | (uint64_t)(uint32_t)k->syscall << 32;
}

static inline void sched_key_unpack(const uint64_t w[6], struct gr_sched_key *k)
{
	memset(k, 0, sizeof(*k));
	k->prev_state = w[0];
	k->cpu = (uint32_t)w[1];
	k->target_cpu = (uint32_t)(w[1] >> 32);
	k->prev_pid = (uint32_t)w[2];
	k->prev_tid = (uint32_t)(w[2] >> 32);
	k->next_pid = (uint32_t)w[3];
	k->next_tid = (uint32_t)(w[3] >> 32);
	k->type = (uint8_t)w[4];
	k->fd_kind = (uint8_t)(w[4] >> 8);
	k->stack = (uint32_t)w[5];
	k->syscall = (int32_t)(uint32_t)(w[5] >> 32);
}

/* A launch key as its keymap's key (4 words), and back. */
static inline void launch_key_pack(const struct gr_launch_key *k, uint64_t w[4])
{
	w[0] = k->kernel | (uint64_t)k->config << 32;
	w[1] = k->thread | (uint64_t)k->stream << 32;
	w[2] = k->stack | (uint64_t)k->dur_hi << 32;
	w[3] = k->cpu | (uint64_t)k->api << 16;
}

static inline void launch_key_unpack(const uint64_t w[4], struct gr_launch_key *k)
{
	k->kernel = (uint32_t)w[0];
	k->config = (uint32_t)(w[0] >> 32);
	k->thread = (uint32_t)w[1];
	k->stream = (uint32_t)(w[1] >> 32);
	k->stack = (uint32_t)w[2];
	k->dur_hi = (uint32_t)(w[2] >> 32);
	k->cpu = (uint16_t)w[3];
	k->api = (uint16_t)(w[3] >> 16);
}

/*
 * One chunk's records, converted on a worker (model_read.c) exactly as a sequential pass over the
 * chunk would convert them, but with the dense indexes (kernels, configs, threads, streams,
 * stacks) local to the chunk, numbered in order of first use in it, and the keyed metadata
 * (last record wins) local too. The merge (model_load.c) takes the parts in chunk order: interning
 * a part's local keys in local order into the model's tables gives every key the index a sequential
 * load gives it, and replaying its metadata in order keeps "last record wins". A part's arrays are
 * reused for the next chunk it carries.
 */
struct part {
	struct gr_pool_job job;
	const struct load_ctx *ctx;
	struct decoders *decs;
	struct gr_trace_reader *r;
	uint64_t index; /* the chunk's index entry */
	int state;	/* what the slot holds: enum in model_load.c */
	/*
	 * Set before the conversion: the tables start as copies of the model's (indexes below
	 * snap[] are the model's own, so most events need no mapping), and with @views the event
	 * arrays are the chunk's place in the model's arrays, as many as the footer counts.
	 */
	uint32_t snap[T_COUNT];
	int views;

	/* results of the conversion */
	int status; /* 1 converted, 0 bad chunk (skipped), < 0 error: read error or diag */
	struct gr_diag diag;
	uint64_t offset, first_ts, last_ts, total;
	uint64_t counts[GR_K_COUNT];
	uint64_t lost, lost_stacks;
	uint64_t calls_ok; /* as the model's */
	uint8_t unsorted[GR_K_COUNT];
	uint64_t first_ev[GR_K_COUNT],
	    last_ev[GR_K_COUNT]; /* ts of its first and last kept event */

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
	ARRAY(struct gr_gpu) gpus;
	ARRAY(struct gr_meminfo) meminfos;
	ARRAY(struct gr_nvtx_raw) nvtx_raw;
	ARRAY(struct gr_comm_call) comm_calls;
	ARRAY(struct gr_aside) asides; /* never in place: the merge appends them */
	uint64_t *zeros;	       /* an optional column the file lacks: all 0 */
	struct gr_bytes *empties;      /* an optional BYTES column the file lacks: all empty */
	size_t nzeros;
	uint64_t *adj[GR_MAX_COLUMNS]; /* columns adjusted for a trace of a set (load_ctx.remap) */
	size_t nadj[GR_MAX_COLUMNS];

	struct gr_keymap tab[T_COUNT]; /* local dense tables; T_STACK's index 0 is "no stack" */
	struct cache thread_c, stream_c, stack_c;
	struct launch_memo memo[GR_LAUNCH_MEMO];
	struct sched_memo smemo[GR_SCHED_MEMO];
	ARRAY(struct gr_stack) stacks; /* by local stack index; frames in @arena */

	/* metadata, keyed: the value arrays are indexed by the keymap index */
	struct gr_keymap kname_k, kraw_k, comm_k, lib_k, unprobed_k, sym_k, map_k, sess_k;
	struct gr_keymap pyf_k, py_k;
	struct gr_keymap rankenv_k; /* pid: the RANK name's text (rankenv) */
	ARRAY(const char *) rankenv;
	ARRAY(const char *) kname;
	ARRAY(const char *) kraw;
	ARRAY(const char *) comm;
	ARRAY(const char *) libs;
	ARRAY(const char *) unprobed;
	ARRAY(struct gr_mapping) mappings; /* build ids in @arena */
	ARRAY(struct gr_symbol) symbols;
	ARRAY(struct gr_pyframe) pyframes;
	ARRAY(struct gr_python) pythons;
	ARRAY(struct gr_session_fact) session;
	struct gr_arena arena;

	/* set by the merge for the copy into the model */
	ARRAY(uint32_t) map[T_COUNT]; /* local index -> model index */
	size_t at[GR_K_COUNT];	      /* where its events go in the model's arrays */
	int mapped;		      /* some local index is not the model's */
};

/* part_read_chunk(): more events than the footer counts, where the part writes in place */
#define PART_MISMATCH 2

/* The load driver's state (model_load.c): the merged tables and metadata. */
struct loader {
	struct gr_model *m;
	struct shared_strs strs;
	struct load_ctx ctx;
	struct gr_diag *diag;
	uint64_t max_records, nrecords;
	uint64_t *over_records; /* the caller's, or NULL */
	uint64_t chunk_offset;	/* of the last chunk merged */

	uint8_t unsorted[GR_K_COUNT];
	uint64_t prev_ts[GR_K_COUNT];

	struct gr_keymap tab[T_COUNT];
	/* metadata, keyed: the value arrays are indexed by the keymap index */
	struct gr_keymap kname_k, kraw_k, comm_k, lib_k, unprobed_k, sym_k, map_k, sess_k;
	struct gr_keymap pyf_k, py_k;
	struct gr_keymap rankenv_k; /* pid: the RANK name's text (rankenv) */
	ARRAY(const char *) rankenv;
	ARRAY(const char *) kname;
	ARRAY(const char *) kraw;
	ARRAY(const char *) comm;
};

/* @a + @b, UINT64_MAX when it would overflow. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

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

/* Give a growable array room for @ncap (> its capacity) entries of @esz bytes. */
static inline int reserve_to(void **v, size_t *cap, size_t n, size_t ncap, size_t esz)
{
	size_t old = *cap * esz, new;
	void *p;

	if (ncap > SIZE_MAX / 4 / esz)
		return -ENOMEM;
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

/* Make room for @k more entries of @esz bytes in a growable array. */
static inline int reserve(void **v, size_t *cap, size_t n, size_t k, size_t esz)
{
	size_t ncap;

	if (n + k <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < n + k) {
		if (ncap > SIZE_MAX / 4 / esz)
			return -ENOMEM;
		ncap *= 2;
	}
	return reserve_to(v, cap, n, ncap, esz);
}

/*
 * Shrink a growable array's capacity to its @n entries: what the growth left unused goes back
 * (address space for mapped arrays, heap for small ones). Keeps the array as it is when memory
 * is short.
 */
static inline void array_fit(void **v, size_t *cap, size_t n, size_t esz)
{
	size_t old = *cap * esz, new = n *esz;
	void *p;

	if (n >= *cap)
		return;
	if (!n) {
		array_release(*v, old);
		*v = NULL;
		*cap = 0;
		return;
	}
	if (old < BIG_ARRAY) {
		p = realloc(*v, new);
	} else if (new < BIG_ARRAY) {
		p = malloc(new);
		if (p) {
			memcpy(p, *v, new);
			munmap(*v, huge_round(old));
		}
	} else {
		p = *v;
		if (huge_round(new) < huge_round(old) &&
		    mremap(p, huge_round(old), huge_round(new), 0) == MAP_FAILED)
			return;
	}
	if (!p)
		return;
	*v = p;
	*cap = n;
}

#define RELEASE(arr)	   array_release((arr).v, (arr).cap * sizeof(*(arr).v))
#define RESERVE(arr, k)	   reserve((void **)&(arr).v, &(arr).cap, (arr).n, (k), sizeof(*(arr).v))
#define RESERVE_TO(arr, c) reserve_to((void **)&(arr).v, &(arr).cap, (arr).n, (c), sizeof(*(arr).v))
#define FIT(arr)	   array_fit((void **)&(arr).v, &(arr).cap, (arr).n, sizeof(*(arr).v))

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

/* The model's interned copy of @n bytes at @p (NUL-terminated), or NULL when out of memory. */
const char *shared_intern(struct shared_strs *s, const void *p, size_t n);

/* Map this build's columns of every known kind to the file schema's columns, by name. */
int model_map_schema(struct load_ctx *x, const struct gr_schema *fs, struct gr_diag *diag);

/* Ready @P (new: zeroed) for its next chunk, keeping the memory of its arrays; its tables and
 * stacks are the seed's (model_load.c). */
void part_reset(struct part *P);
void part_free(struct part *P);

/*
 * Convert chunk @c, decoded lazily by @d (gr_chunk_decode_lazy), into @P. Returns 1, 0 when the
 * chunk turns out bad (skipped, as a sequential pass skips it), PART_MISMATCH, or a negative
 * error (P->diag set).
 */
int part_read_chunk(struct part *P, struct gr_chunk_decoder *d, const struct gr_chunk *c);

/*
 * After the load, with every event array in time order (analyze/model/model_comm.c): the NCCL
 * calls' communicator identities and sequence numbers, and the calls that did nothing moved from
 * comm_calls to comm_asides. 0, or -ENOMEM.
 */
int gr_model_comm_resolve(struct gr_model *m);

/* The orders the loader sorts these tables in, and the lookups (model.c) search them by. */
static inline int cmp_pyframe(const void *a, const void *b)
{
	const struct gr_pyframe *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static inline int cmp_comm(const void *a, const void *b)
{
	const struct comm_entry *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

#endif
