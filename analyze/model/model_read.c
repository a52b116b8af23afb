/* SPDX-License-Identifier: MIT */
/*
 * One chunk's records into a part (see struct part in model_impl.h, model_load.c for the whole
 * load), on any worker thread. Event columns are copied into compact structs, with (pid, func),
 * launch configs, threads, streams and stacks interned into the part's dense tables on the way: a
 * one-entry cache in front of each hash table catches the common runs. Metadata records go into
 * keyed tables where the last record for a key wins. A windowed load keeps only the events that
 * reach into the window (load_ctx).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "model_impl.h"

static int oom(struct part *P, int err, const char *what)
{
	if (err == -EOVERFLOW)
		return err; /* not an error: the load goes on another way (model_load.c) */
	return gr_diag_set(&P->diag, err, P->offset, "%s while loading %s",
			   err == GR_ERR_LIMIT ? "too many distinct keys" : "out of memory", what);
}

const char *shared_intern(struct shared_strs *s, const void *p, size_t n)
{
	const char *r;

	pthread_mutex_lock(&s->lock);
	r = gr_strtab_intern(&s->t, p, n);
	pthread_mutex_unlock(&s->lock);
	return r;
}

static const char *text_of(struct part *P, const struct gr_bytes *b)
{
	return shared_intern(P->ctx->strs, b->data ? (const void *)b->data : "",
			     b->data ? b->len : 0);
}

/* ---- the window ---- */

/* An API call [ts, ts + dur] reaching into the window (everything without one). */
static inline int keep_call(const struct load_ctx *x, uint64_t ts, uint64_t dur)
{
	uint64_t end = ts + dur < ts ? UINT64_MAX : ts + dur;

	return !x->window || (ts >= x->lo && ts <= x->to && end >= x->from);
}

/* A scheduler event: the margin before the window too, for the states running into it. */
static inline int keep_instant(const struct load_ctx *x, uint64_t ts)
{
	return !x->window || (ts >= x->lo && ts <= x->to);
}

/* ---- schema ---- */

/* Map this build's columns of every known kind to the file's columns, by name. */
int model_map_schema(struct load_ctx *L, const struct gr_schema *fs, struct gr_diag *diag)
{
	const struct gr_schema *ours = gr_events_schema();

	memset(L->col, 0xff, sizeof(L->col));
	for (uint16_t k = 0; k < ours->nkinds; k++) {
		const struct gr_kind_def *ok = &ours->kinds[k];
		const struct gr_kind_def *fk = gr_schema_kind(fs, ok->id);

		if (ok->id >= GR_K_COUNT || !fk)
			continue;
		if (!fk->name || strcmp(fk->name, ok->name))
			return gr_diag_set(diag, GR_ERR_SCHEMA, 0,
					   "record kind %u is '%s' in the file, expected '%s'",
					   ok->id, fk->name ? fk->name : "", ok->name);
		for (uint16_t c = 0; c < ok->ncols; c++) {
			int fc = gr_schema_column(fs, ok->id, ok->cols[c].name);
			int want_bytes = ok->cols[c].codec == GR_CODEC_BYTES;

			if ((fc < 0 || fc >= fk->ncols) && ok->cols[c].optional) {
				L->col[ok->id][c] = COL_ZEROS;
				continue;
			}
			if (fc < 0 || fc >= fk->ncols)
				return gr_diag_set(diag, GR_ERR_SCHEMA, 0,
						   "record kind '%s' has no column '%s'", ok->name,
						   ok->cols[c].name);
			if ((fk->cols[fc].codec == GR_CODEC_BYTES) != want_bytes)
				return gr_diag_set(
				    diag, GR_ERR_SCHEMA, 0,
				    "column '%s' of '%s' is %s in the file, expected %s",
				    ok->cols[c].name, ok->name, want_bytes ? "numeric" : "bytes",
				    want_bytes ? "bytes" : "numeric");
			L->col[ok->id][c] = fc;
		}
		L->present[ok->id] = 1;
	}
	return 0;
}

enum adj_what {
	ADJ_TS = 1,
	ADJ_ID,
	ADJ_CPU,
	ADJ_GPU,
	ADJ_NAME_KEY,
	ADJ_PROC_VALUE,
	ADJ_SESS_VALUE,
	ADJ_NVTX_ID
};

/* What a column of a trace of a set needs to join the first trace's clock and ids. */
static enum adj_what adj_of(uint16_t kind, uint16_t col)
{
	if (col == 0)
		return ADJ_TS; /* every kind's first column is its time */
	switch (kind) {
	case GR_K_LAUNCH:
		return col == GR_LAUNCH_PID || col == GR_LAUNCH_TID ? ADJ_ID
		       : col == GR_LAUNCH_CPU			    ? ADJ_CPU
								    : 0;
	case GR_K_COPY:
		return col == GR_COPY_PID || col == GR_COPY_TID ? ADJ_ID : 0;
	case GR_K_MEMSET:
		return col == GR_MEMSET_PID || col == GR_MEMSET_TID ? ADJ_ID : 0;
	case GR_K_ALLOC:
		return col == GR_ALLOC_PID || col == GR_ALLOC_TID ? ADJ_ID : 0;
	case GR_K_FREE:
		return col == GR_FREE_PID || col == GR_FREE_TID ? ADJ_ID : 0;
	case GR_K_SYNC:
		return col == GR_SYNC_PID || col == GR_SYNC_TID ? ADJ_ID : 0;
	case GR_K_GRAPH:
		return col == GR_GRAPH_PID || col == GR_GRAPH_TID ? ADJ_ID : 0;
	case GR_K_MEMINFO:
		return col == GR_MEMINFO_PID || col == GR_MEMINFO_TID ? ADJ_ID : 0;
	case GR_K_SCHED:
		if (col == GR_SCHED_CPU || col == GR_SCHED_TARGET_CPU)
			return ADJ_CPU;
		return col == GR_SCHED_PREV_PID || col == GR_SCHED_PREV_TID ||
			       col == GR_SCHED_NEXT_PID || col == GR_SCHED_NEXT_TID
			   ? ADJ_ID
			   : 0;
	case GR_K_PROC:
		return col == GR_PROC_PID || col == GR_PROC_TID ? ADJ_ID
		       : col == GR_PROC_VALUE			? ADJ_PROC_VALUE
								: 0;
	case GR_K_NAME:
		return col == GR_NAME_PID ? ADJ_ID : col == GR_NAME_KEY ? ADJ_NAME_KEY : 0;
	case GR_K_MAPPING:
		return col == GR_MAP_PID ? ADJ_ID : 0;
	case GR_K_SYMBOL:
		return col == GR_SYM_PID ? ADJ_ID : 0;
	case GR_K_STACK:
		return col == GR_STACK_PID ? ADJ_ID : 0;
	case GR_K_PYFRAME:
		return col == GR_PYF_PID ? ADJ_ID : 0;
	case GR_K_LOSS:
		return col == GR_LOSS_TS_END ? ADJ_TS : 0;
	case GR_K_SESSION:
		return col == GR_SESS_VALUE ? ADJ_SESS_VALUE : 0;
	case GR_K_GPU:
		/* host_ts is a time of the same clock; a device is the trace's own, like a CPU
		 * (two nodes' GPU 0 are two GPUs); a stream is already told apart by its pid */
		return col == GR_GPU_PID || col == GR_GPU_HOST_TID ? ADJ_ID
		       : col == GR_GPU_HOST_TS			   ? ADJ_TS
		       : col == GR_GPU_DEVICE			   ? ADJ_GPU
								   : 0;
	case GR_K_NVTX:
		/* a domain handle is its process's; the id of a thread's name is its tid */
		return col == GR_NVTX_PID || col == GR_NVTX_TID ? ADJ_ID
		       : col == GR_NVTX_ID			? ADJ_NVTX_ID
								: 0;
	case GR_K_COMM:
		/* the communicator's identity (GR_COMM_ID) is the job's, shared by every trace */
		return col == GR_COMM_PID || col == GR_COMM_TID ? ADJ_ID
		       : col == GR_COMM_CPU			? ADJ_CPU
								: 0;
	}
	return 0;
}

/* Whether row @i's value in an ADJ_NAME_KEY / ADJ_PROC_VALUE / ADJ_SESS_VALUE column is an id:
 * a COMM name's tid, a RANK name's pid; a START's parent pid, a THREAD's creating tid; the
 * recorder's and its watchdog's pids. */
static int row_is_id(enum adj_what w, const uint64_t *const *v, uint32_t i)
{
	switch (w) {
	case ADJ_NAME_KEY:
		return v[GR_NAME_CLASS][i] == GR_NAME_COMM || v[GR_NAME_CLASS][i] == GR_NAME_RANK;
	case ADJ_PROC_VALUE:
		return v[GR_PROC_TYPE][i] == GR_PROC_START || v[GR_PROC_TYPE][i] == GR_PROC_THREAD;
	case ADJ_SESS_VALUE:
		return v[GR_SESS_KEY][i] == GR_SESS_RECORDER_PID ||
		       v[GR_SESS_KEY][i] == GR_SESS_WATCHDOG_PID;
	case ADJ_NVTX_ID:
		return v[GR_NVTX_OP][i] == GR_NVTX_NAME_THREAD;
	default:
		return 1;
	}
}

/* The columns of a batch of a set's later trace, moved onto the first trace's clock and ids. */
static int adjust_cols(struct part *P, uint16_t kind, uint32_t n, const uint64_t **v)
{
	const struct gr_kind_def *kd = gr_schema_kind(gr_events_schema(), kind);
	const struct load_ctx *L = P->ctx;

	for (uint16_t c = 0; c < kd->ncols; c++) {
		enum adj_what w = kd->cols[c].codec == GR_CODEC_BYTES ? 0 : adj_of(kind, c);
		uint64_t *o;

		if (!w || !n)
			continue;
		if (P->nadj[c] < n) {
			free(P->adj[c]);
			P->nadj[c] = 0;
			P->adj[c] = malloc(n * sizeof(*P->adj[c]));
			if (!P->adj[c])
				return oom(P, -ENOMEM, "chunks");
			P->nadj[c] = n;
		}
		o = P->adj[c];
		for (uint32_t i = 0; i < n; i++) {
			uint64_t x = v[c][i];

			if (w == ADJ_TS)
				x = x ? x + (uint64_t)L->ts_shift : 0;
			else if (w == ADJ_CPU)
				x = x < 65536 ? x + L->cpu_base : x;
			else if (w == ADJ_GPU)
				x += L->gpu_base;
			else if (x && row_is_id(w, v, i))
				x += L->id_base;
			o[i] = x;
		}
		v[c] = o;
	}
	return 0;
}

/*
 * The columns of @kind in a batch of the file's columns @fv/@fb, in this build's order: numeric
 * ones in @v, BYTES ones in @b.
 */
static int batch_cols(struct part *P, uint16_t kind, uint32_t n, const uint64_t *const *fv,
		      const struct gr_bytes *const *fb, const uint64_t **v,
		      const struct gr_bytes **b)
{
	const struct gr_kind_def *kd = gr_schema_kind(gr_events_schema(), kind);
	const struct load_ctx *L = P->ctx;

	for (uint16_t i = 0; i < kd->ncols; i++) {
		const void *p;

		if (L->col[kind][i] == COL_ZEROS) {
			if (P->nzeros < n) {
				free(P->zeros);
				free(P->empties);
				P->nzeros = 0;
				P->zeros = calloc(n, sizeof(*P->zeros));
				P->empties = calloc(n, sizeof(*P->empties));
				if (!P->zeros || !P->empties)
					return oom(P, -ENOMEM, "chunks");
				P->nzeros = n;
			}
			if (kd->cols[i].codec == GR_CODEC_BYTES)
				b[i] = P->empties;
			else
				v[i] = P->zeros;
			continue;
		}
		if (kd->cols[i].codec == GR_CODEC_BYTES)
			p = b[i] = fb[L->col[kind][i]];
		else
			p = v[i] = fv[L->col[kind][i]];
		if (!p && n)
			return gr_diag_set(&P->diag, GR_ERR_CORRUPT, P->offset,
					   "chunk has %u '%s' records but no '%s' column", n,
					   kd->name, kd->cols[i].name);
	}
	return L->remap ? adjust_cols(P, kind, n, v) : 0;
}

/*
 * Room for @k more events in a part's event array: where it is the chunk's place in the model's
 * array, the footer's count is all there is (-EOVERFLOW past it).
 */
static inline int room(struct part *P, void **v, size_t *cap, size_t n, size_t k, size_t esz)
{
	if (P->views)
		return n + k <= *cap ? 0 : -EOVERFLOW;
	return reserve(v, cap, n, k, esz);
}

#define ROOM(P, arr, k) room(P, (void **)&(arr).v, &(arr).cap, (arr).n, (k), sizeof(*(arr).v))

/* A kept event of @kind at @ts, in append order. */
static inline void note_ts(struct part *P, uint16_t kind, uint64_t ts, size_t nkept)
{
	if (!nkept)
		P->first_ev[kind] = ts;
	else if (ts < P->last_ev[kind])
		P->unsorted[kind] = 1;
	P->last_ev[kind] = ts;
}

/* ---- events ---- */

/*
 * A call the reports must not count (GR_CALL_ASIDE) goes to the part's asides, with the event
 * @ev of @kind that the loader built for it, instead of the event array. 1 when it did, 0 when
 * the call belongs in the event array, or < 0.
 */
static int aside(struct part *P, uint16_t kind, uint64_t api, uint64_t status, uint64_t call,
		 uint64_t dur, const void *ev, size_t size)
{
	struct gr_aside *a;
	int err;

	if (!call)
		return 0;
	if (!GR_CALL_ASIDE((unsigned)api, call, (uint32_t)status)) {
		P->calls_ok += (call & GR_CALL_RETURNED) != 0;
		return 0;
	}
	err = RESERVE(P->asides, 1);
	if (err)
		return err;
	a = &P->asides.v[P->asides.n++];
	memset(a, 0, sizeof(*a));
	memcpy(&a->u, ev, size);
	a->kind = kind;
	a->call = (uint16_t)call;
	a->status = (uint32_t)status;
	a->dur = dur;
	memcpy(&a->ts, ev, sizeof(a->ts)); /* every call kind starts with it */
	return 1;
}

static inline int thread_of(struct part *P, uint64_t pid, uint64_t tid, uint32_t *idx)
{
	uint64_t k[2] = {sat32(pid), sat32(tid)};

	return intern_cached(&P->tab[T_THREAD], &P->thread_c, k, 2, idx);
}

/*
 * The stream table's key for a call of @api by (@pid, @tid) on @handle: cudaStreamPerThread, and
 * 0 through a per-thread entry point, are the thread's own default stream (GR_STREAM_PER_THREAD |
 * tid); cudaStreamLegacy is the legacy default stream 0.
 */
static inline int stream_of(struct part *P, uint64_t pid, uint64_t tid, uint64_t api,
			    uint64_t handle, uint32_t *idx)
{
	uint64_t k[2] = {sat32(pid), gr_stream_key((uint32_t)sat32(tid), api, handle)};

	return intern_cached(&P->tab[T_STREAM], &P->stream_c, k, 2, idx);
}

/* Index of the stack (@pid, @id) in the part's stack table, adding a frameless entry for a new
 * one; 0 for id 0. Returns 0 or a negative error. */
static int stack_index(struct part *P, uint64_t pid, uint64_t id, uint32_t *idx)
{
	uint64_t k[2] = {id, sat32(pid)};
	struct gr_stack e = {.id = id, .pid = (uint32_t)k[1]};
	int err;

	if (!id) {
		*idx = 0;
		return 0;
	}
	err = gr_keymap_intern(&P->tab[T_STACK], k, idx);
	if (err == 1)
		err = SET_AT(P->stacks, *idx, &e);
	return err < 0 ? err : 0;
}

static inline int stack_of(struct part *P, uint64_t pid, uint64_t id, uint32_t *idx)
{
	uint64_t k[2] = {id, sat32(pid)};
	int err;

	if (!id) {
		*idx = 0;
		return 0;
	}
	if (P->stack_c.valid && P->stack_c.key[0] == k[0] && P->stack_c.key[1] == k[1]) {
		*idx = P->stack_c.idx;
		return 0;
	}
	err = stack_index(P, pid, id, idx);
	if (err < 0)
		return err;
	memcpy(P->stack_c.key, k, sizeof(k));
	P->stack_c.idx = *idx;
	P->stack_c.valid = 1;
	return 0;
}

/*
 * The part's launch key for the launch described by @key (struct launch_memo): launches repeat a
 * few of these, so one direct-mapped probe replaces five hash-table lookups for almost every
 * launch.
 */
/* Cluster dimensions in 30 bits, 10 a dimension (hardware allows 16 blocks a cluster). */
static inline uint32_t cluster_pack(uint64_t x, uint64_t y, uint64_t z)
{
	uint64_t m = GR_CLUSTER_DIM_MAX;

	return (uint32_t)((x < m ? x : m) | (y < m ? y : m) << 10 | (z < m ? z : m) << 20);
}

/* Whether two memo keys are equal: inline, where memcmp() was a library call per launch. */
static inline int memo_eq(const uint64_t a[10], const uint64_t b[10])
{
	uint64_t d = 0;

	for (int i = 0; i < 10; i++)
		d |= a[i] ^ b[i];
	return !d;
}

static int launch_key_of(struct part *P, const uint64_t key[10], uint32_t *lkey)
{
	uint64_t h =
	    (key[0] ^ key[4] * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull ^
	    (key[1] + key[2] * 0x94d049bb133111ebull + key[3] + key[5]) ^
	    (key[6] + key[7] * 0x9e3779b97f4a7c15ull + key[8] * 0x94d049bb133111ebull + key[9]);
	struct launch_memo *e = &P->memo[(h ^ h >> 29) & (GR_LAUNCH_MEMO - 1)];
	uint64_t pid = key[4] >> 32, k[4];
	struct gr_launch_key lk;
	int err;

	if (e->valid && memo_eq(e->key, key)) {
		*lkey = e->lkey;
		return 0;
	}
	k[0] = pid;
	k[1] = key[0];
	err = gr_keymap_intern(&P->tab[T_KERNEL], k, &lk.kernel);
	if (err < 0)
		return err;
	memcpy(k, key + 1, 3 * sizeof(*k));
	k[3] = (uint32_t)key[4] | (key[9] >> 32) << 32; /* shared memory, cluster */
	err = gr_keymap_intern(&P->tab[T_CONFIG], k, &lk.config);
	if (err < 0)
		return err;
	err = stack_index(P, pid, key[5], &lk.stack);
	if (err < 0)
		return err;
	err = thread_of(P, pid, key[6], &lk.thread);
	if (err < 0)
		return err;
	err = stream_of(P, pid, key[6], (uint16_t)(key[8] >> 16), key[7], &lk.stream);
	if (err < 0)
		return err;
	lk.cpu = (uint16_t)key[8];
	lk.api = (uint16_t)(key[8] >> 16);
	lk.dur_hi = (uint32_t)key[9];
	launch_key_pack(&lk, k);
	err = gr_keymap_intern(&P->tab[T_LKEY], k, lkey);
	if (err < 0)
		return err;
	memcpy(e->key, key, sizeof(e->key));
	e->lkey = *lkey;
	e->valid = 1;
	return 0;
}

/* Rows of launches whose memo keys load_launches() builds at a time, column by column. */
#define LAUNCH_STEP 256

/*
 * The memo keys (struct launch_memo) of rows [@at, @at + @m) of a launch batch into @kb, a key
 * word at a time: each pass reads a column or two in a tight loop, where building a row's key at
 * once read twenty columns a row and kept none of their pointers in registers.
 */
/* Key word @w of @m rows: column @a as it is. */
static inline void key_word(uint64_t kb[][10], unsigned w, const uint64_t *a, uint32_t m)
{
	for (uint32_t i = 0; i < m; i++)
		kb[i][w] = a[i];
}

/* Key word @w of @m rows: columns @lo and @hi, each saturated to 32 bits, in its half. */
static inline void key_halves(uint64_t kb[][10], unsigned w, const uint64_t *lo, const uint64_t *hi,
			      uint32_t m)
{
	for (uint32_t i = 0; i < m; i++)
		kb[i][w] = sat32(lo[i]) | (uint64_t)sat32(hi[i]) << 32;
}

static void launch_keys(const uint64_t *const *v, uint32_t at, uint32_t m, uint64_t kb[][10])
{
	const uint64_t *a, *b, *c;

	key_word(kb, 0, v[GR_LAUNCH_FUNC] + at, m);
	key_halves(kb, 1, v[GR_LAUNCH_GX] + at, v[GR_LAUNCH_GY] + at, m);
	key_halves(kb, 2, v[GR_LAUNCH_GZ] + at, v[GR_LAUNCH_BX] + at, m);
	key_halves(kb, 3, v[GR_LAUNCH_BY] + at, v[GR_LAUNCH_BZ] + at, m);
	key_halves(kb, 4, v[GR_LAUNCH_SHMEM] + at, v[GR_LAUNCH_PID] + at, m);
	key_word(kb, 5, v[GR_LAUNCH_STACK] + at, m);
	key_word(kb, 6, v[GR_LAUNCH_TID] + at, m);
	key_word(kb, 7, v[GR_LAUNCH_STREAM] + at, m);
	a = v[GR_LAUNCH_CPU] + at;
	b = v[GR_LAUNCH_API] + at;
	for (uint32_t i = 0; i < m; i++)
		kb[i][8] = sat16(a[i]) | (uint64_t)sat16(b[i]) << 16;
	/* the duration's high half takes 32 bits: the cluster rides above it */
	a = v[GR_LAUNCH_CLUSTER_X] + at;
	b = v[GR_LAUNCH_CLUSTER_Y] + at;
	c = v[GR_LAUNCH_CLUSTER_Z] + at;
	for (uint32_t i = 0; i < m; i++)
		kb[i][9] = (uint64_t)cluster_pack(a[i], b[i], c[i]) << 32;
	a = v[GR_LAUNCH_DUR] + at;
	for (uint32_t i = 0; i < m; i++)
		kb[i][9] |= a[i] >> 32;
}

static int load_launches(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			 uint32_t n)
{
	const struct load_ctx *x = P->ctx;
	struct gr_launch *o, *start;
	uint64_t prev, kb[LAUNCH_STEP][10];
	int err = 0, unsorted = 0;

	err = ROOM(P, P->launches, n);
	if (err)
		return oom(P, err, "launches");
	o = start = P->launches.v + P->launches.n;
	prev = P->launches.n ? P->last_ev[GR_K_LAUNCH] : 0;
	/* column pointers in locals: calls in the loop cannot change them */
	const uint64_t *ts = v[GR_LAUNCH_TS], *dur = v[GR_LAUNCH_DUR], *api = v[GR_LAUNCH_API];
	const uint64_t *status = v[GR_LAUNCH_STATUS], *call = v[GR_LAUNCH_CALL];

	for (uint32_t at = 0; at < n && err >= 0; at += LAUNCH_STEP) {
		uint32_t m = n - at < LAUNCH_STEP ? n - at : LAUNCH_STEP;

		launch_keys(v, at, m, kb);
		for (uint32_t j = 0, i = at; j < m; j++, i++) {
			if (x->window && !keep_call(x, ts[i], dur[i]))
				continue;
			o->ts = ts[i];
			unsorted |= ts[i] < prev;
			prev = ts[i];
			o->dur_lo = (uint32_t)dur[i];
			err = launch_key_of(P, kb[j], &o->key);
			if (err >= 0 && call[i])
				err = aside(P, GR_K_LAUNCH, api[i], status[i], call[i], dur[i], o,
					    sizeof(*o));
			if (err < 0)
				break;
			if (err)
				continue;
			o++;
		}
	}
	if (err < 0)
		return oom(P, err, "launches");
	if (o > start) {
		if (!P->launches.n)
			P->first_ev[GR_K_LAUNCH] = start->ts;
		P->last_ev[GR_K_LAUNCH] = prev;
		P->unsorted[GR_K_LAUNCH] |= unsorted;
		P->launches.n += (size_t)(o - start);
	}
	return 0;
}

static int load_copies(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n)
{
	struct gr_copy *o;
	int err;

	err = ROOM(P, P->copies, n);
	if (err)
		return oom(P, err, "copies");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_COPY_TS][i], v[GR_COPY_DUR][i]))
			continue;
		o = &P->copies.v[P->copies.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_COPY_TS][i];
		o->dur = v[GR_COPY_DUR][i];
		o->dst = v[GR_COPY_DST][i];
		o->src = v[GR_COPY_SRC][i];
		o->bytes = v[GR_COPY_BYTES][i];
		o->cpu = sat16(v[GR_COPY_CPU][i]);
		o->api = sat16(v[GR_COPY_API][i]);
		o->flags = sat16(v[GR_COPY_FLAGS][i]);
		o->kind = v[GR_COPY_CKIND][i] > 255 ? 255 : (uint8_t)v[GR_COPY_CKIND][i];
		o->kind_recorded = o->kind; /* memmap.c may resolve a default one's kind */
		err = thread_of(P, v[GR_COPY_PID][i], v[GR_COPY_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(P, v[GR_COPY_PID][i], v[GR_COPY_STACK][i], &o->stack);
		if (err >= 0)
			err = stream_of(P, v[GR_COPY_PID][i], v[GR_COPY_TID][i], v[GR_COPY_API][i],
					v[GR_COPY_STREAM][i], &o->stream);
		if (err >= 0)
			err = aside(P, GR_K_COPY, v[GR_COPY_API][i], v[GR_COPY_STATUS][i],
				    v[GR_COPY_CALL][i], o->dur, o, sizeof(*o));
		if (err < 0)
			return oom(P, err, "copies");
		if (!err)
			note_ts(P, GR_K_COPY, o->ts, P->copies.n++);
	}
	return 0;
}

static int load_memsets(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			uint32_t n)
{
	struct gr_memset *o;
	int err;

	err = ROOM(P, P->memsets, n);
	if (err)
		return oom(P, err, "memsets");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_MEMSET_TS][i], v[GR_MEMSET_DUR][i]))
			continue;
		o = &P->memsets.v[P->memsets.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_MEMSET_TS][i];
		o->dur = v[GR_MEMSET_DUR][i];
		o->dst = v[GR_MEMSET_DST][i];
		o->bytes = v[GR_MEMSET_BYTES][i];
		o->value = (uint32_t)v[GR_MEMSET_VALUE][i];
		o->cpu = sat16(v[GR_MEMSET_CPU][i]);
		o->api = sat16(v[GR_MEMSET_API][i]);
		o->flags = sat16(v[GR_MEMSET_FLAGS][i]);
		err = thread_of(P, v[GR_MEMSET_PID][i], v[GR_MEMSET_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(P, v[GR_MEMSET_PID][i], v[GR_MEMSET_STACK][i], &o->stack);
		if (err >= 0)
			err = stream_of(P, v[GR_MEMSET_PID][i], v[GR_MEMSET_TID][i],
					v[GR_MEMSET_API][i], v[GR_MEMSET_STREAM][i], &o->stream);
		if (err >= 0)
			err = aside(P, GR_K_MEMSET, v[GR_MEMSET_API][i], v[GR_MEMSET_STATUS][i],
				    v[GR_MEMSET_CALL][i], o->dur, o, sizeof(*o));
		if (err < 0)
			return oom(P, err, "memsets");
		if (!err)
			note_ts(P, GR_K_MEMSET, o->ts, P->memsets.n++);
	}
	return 0;
}

static int load_allocs(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n)
{
	struct gr_alloc *o;
	int err;

	err = ROOM(P, P->allocs, n);
	if (err)
		return oom(P, err, "allocations");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_ALLOC_TS][i], v[GR_ALLOC_DUR][i]))
			continue;
		o = &P->allocs.v[P->allocs.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_ALLOC_TS][i];
		o->dur = v[GR_ALLOC_DUR][i];
		o->addr = v[GR_ALLOC_ADDR][i];
		o->bytes = v[GR_ALLOC_BYTES][i];
		o->api = sat16(v[GR_ALLOC_API][i]);
		o->kind = sat16(v[GR_ALLOC_AKIND][i]);
		o->handle = v[GR_ALLOC_HANDLE][i];
		o->device = (uint32_t)v[GR_ALLOC_DEVICE_ORD][i];
		err = thread_of(P, v[GR_ALLOC_PID][i], v[GR_ALLOC_TID][i], &o->thread);
		if (err >= 0)
			err = stream_of(P, v[GR_ALLOC_PID][i], v[GR_ALLOC_TID][i],
					v[GR_ALLOC_API][i], v[GR_ALLOC_STREAM][i], &o->stream);
		if (err >= 0)
			err = stack_of(P, v[GR_ALLOC_PID][i], v[GR_ALLOC_STACK][i], &o->stack);
		if (err >= 0)
			err = aside(P, GR_K_ALLOC, v[GR_ALLOC_API][i], v[GR_ALLOC_STATUS][i],
				    v[GR_ALLOC_CALL][i], o->dur, o, sizeof(*o));
		if (err < 0)
			return oom(P, err, "allocations");
		if (!err)
			note_ts(P, GR_K_ALLOC, o->ts, P->allocs.n++);
	}
	return 0;
}

static int load_frees(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		      uint32_t n)
{
	struct gr_free *o;
	int err;

	err = ROOM(P, P->frees, n);
	if (err)
		return oom(P, err, "frees");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_FREE_TS][i], v[GR_FREE_DUR][i]))
			continue;
		o = &P->frees.v[P->frees.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_FREE_TS][i];
		o->dur = v[GR_FREE_DUR][i];
		o->addr = v[GR_FREE_ADDR][i];
		o->api = sat16(v[GR_FREE_API][i]);
		o->kind = sat16(v[GR_FREE_AKIND][i]);
		err = thread_of(P, v[GR_FREE_PID][i], v[GR_FREE_TID][i], &o->thread);
		if (err >= 0)
			err = aside(P, GR_K_FREE, v[GR_FREE_API][i], v[GR_FREE_STATUS][i],
				    v[GR_FREE_CALL][i], o->dur, o, sizeof(*o));
		if (err < 0)
			return oom(P, err, "frees");
		if (!err)
			note_ts(P, GR_K_FREE, o->ts, P->frees.n++);
	}
	return 0;
}

static int load_syncs(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		      uint32_t n)
{
	struct gr_sync *o;
	int err;

	err = ROOM(P, P->syncs, n);
	if (err)
		return oom(P, err, "syncs");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_SYNC_TS][i], v[GR_SYNC_DUR][i]))
			continue;
		o = &P->syncs.v[P->syncs.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_SYNC_TS][i];
		o->dur = v[GR_SYNC_DUR][i];
		o->handle = v[GR_SYNC_HANDLE][i];
		o->handle2 = v[GR_SYNC_HANDLE2][i];
		o->cpu = sat16(v[GR_SYNC_CPU][i]);
		o->api = sat16(v[GR_SYNC_API][i]);
		o->kind = sat16(v[GR_SYNC_SKIND][i]);
		err = thread_of(P, v[GR_SYNC_PID][i], v[GR_SYNC_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(P, v[GR_SYNC_PID][i], v[GR_SYNC_STACK][i], &o->stack);
		if (err >= 0)
			err = aside(P, GR_K_SYNC, v[GR_SYNC_API][i], v[GR_SYNC_STATUS][i],
				    v[GR_SYNC_CALL][i], o->dur, o, sizeof(*o));
		if (err < 0)
			return oom(P, err, "syncs");
		if (!err)
			note_ts(P, GR_K_SYNC, o->ts, P->syncs.n++);
	}
	return 0;
}

static int load_graphs(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n)
{
	struct gr_graph *o;
	int err;

	err = ROOM(P, P->graphs, n);
	if (err)
		return oom(P, err, "graph calls");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_GRAPH_TS][i], v[GR_GRAPH_DUR][i]))
			continue;
		o = &P->graphs.v[P->graphs.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_GRAPH_TS][i];
		o->dur = v[GR_GRAPH_DUR][i];
		o->graph = v[GR_GRAPH_GRAPH][i];
		o->exec = v[GR_GRAPH_EXEC][i];
		o->api = sat16(v[GR_GRAPH_API][i]);
		o->kind = sat16(v[GR_GRAPH_GKIND][i]);
		err = thread_of(P, v[GR_GRAPH_PID][i], v[GR_GRAPH_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(P, v[GR_GRAPH_PID][i], v[GR_GRAPH_STACK][i], &o->stack);
		if (err >= 0)
			err = stream_of(P, v[GR_GRAPH_PID][i], v[GR_GRAPH_TID][i],
					v[GR_GRAPH_API][i], v[GR_GRAPH_STREAM][i], &o->stream);
		/*
		 * A node call's GRAPH row is the second row of one call whose work row counts it
		 * (gr_api_graph_node_work): kept for the graph replay when the call did
		 * something, else dropped, so a failed call is named once, by its work row.
		 */
		if (err >= 0 && gr_api_graph_node_work((unsigned)v[GR_GRAPH_API][i])) {
			if (GR_CALL_ASIDE((unsigned)v[GR_GRAPH_API][i], v[GR_GRAPH_CALL][i],
					  (uint32_t)v[GR_GRAPH_STATUS][i]))
				continue;
		} else if (err >= 0) {
			err = aside(P, GR_K_GRAPH, v[GR_GRAPH_API][i], v[GR_GRAPH_STATUS][i],
				    v[GR_GRAPH_CALL][i], o->dur, o, sizeof(*o));
		}
		if (err < 0)
			return oom(P, err, "graph calls");
		if (!err)
			note_ts(P, GR_K_GRAPH, o->ts, P->graphs.n++);
	}
	return 0;
}

/* MEMINFO: every call, failed ones too (their status says), kept like an API call in a window. */
static int load_meminfos(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			 uint32_t n)
{
	struct gr_meminfo *o;
	int err;

	err = ROOM(P, P->meminfos, n);
	if (err)
		return oom(P, err, "memory queries");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_MEMINFO_TS][i], v[GR_MEMINFO_DUR][i]))
			continue;
		o = &P->meminfos.v[P->meminfos.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_MEMINFO_TS][i];
		o->dur = v[GR_MEMINFO_DUR][i];
		o->free = v[GR_MEMINFO_FREE][i];
		o->total = v[GR_MEMINFO_TOTAL][i];
		o->status = (uint32_t)v[GR_MEMINFO_STATUS][i];
		o->api = sat16(v[GR_MEMINFO_API][i]);
		o->call = sat16(v[GR_MEMINFO_CALL][i]);
		err = thread_of(P, v[GR_MEMINFO_PID][i], v[GR_MEMINFO_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(P, v[GR_MEMINFO_PID][i], v[GR_MEMINFO_STACK][i], &o->stack);
		if (err < 0)
			return oom(P, err, "memory queries");
		note_ts(P, GR_K_MEMINFO, o->ts, P->meminfos.n++);
	}
	return 0;
}

/* NVTX rows: every call in the window, its text interned (finish() indexes the texts). */
static int load_nvtx(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		     uint32_t n)
{
	struct gr_nvtx_raw *o;
	int err;

	err = ROOM(P, P->nvtx_raw, n);
	if (err)
		return oom(P, err, "NVTX rows");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_NVTX_TS][i], 0))
			continue;
		o = &P->nvtx_raw.v[P->nvtx_raw.n];
		memset(o, 0, sizeof(*o));
		o->e.ts = v[GR_NVTX_TS][i];
		o->e.id = v[GR_NVTX_ID][i];
		o->e.payload = v[GR_NVTX_PAYLOAD][i];
		o->e.domain = v[GR_NVTX_DOMAIN][i];
		o->e.category = sat32(v[GR_NVTX_CATEGORY][i]);
		o->e.color = sat32(v[GR_NVTX_COLOR][i]);
		o->e.op = v[GR_NVTX_OP][i] > 255 ? 255 : (uint8_t)v[GR_NVTX_OP][i];
		o->e.payload_type =
		    v[GR_NVTX_PAYLOAD_TYPE][i] > 255 ? 255 : (uint8_t)v[GR_NVTX_PAYLOAD_TYPE][i];
		o->text = text_of(P, &b[GR_NVTX_TEXT][i]);
		err = o->text ? thread_of(P, v[GR_NVTX_PID][i], v[GR_NVTX_TID][i], &o->e.thread)
			      : -ENOMEM;
		if (err < 0)
			return oom(P, err, "NVTX rows");
		note_ts(P, GR_K_NVTX, o->e.ts, P->nvtx_raw.n++);
	}
	return 0;
}

/* GPU rows (--cupti): the GPU's times, kept like an API call's in a window. */
static int load_gpus(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		     uint32_t n)
{
	struct gr_gpu *o;
	int err;

	err = ROOM(P, P->gpus, n);
	if (err)
		return oom(P, err, "GPU rows");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_GPU_TS][i], v[GR_GPU_DUR][i]))
			continue;
		o = &P->gpus.v[P->gpus.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_GPU_TS][i];
		o->dur = v[GR_GPU_DUR][i];
		o->host_ts = v[GR_GPU_HOST_TS][i];
		o->bytes = v[GR_GPU_BYTES][i];
		o->correlation = v[GR_GPU_CORRELATION][i];
		o->graph = v[GR_GPU_GRAPH][i];
		o->graph_node = v[GR_GPU_GRAPH_NODE][i];
		o->pid = sat32(v[GR_GPU_PID][i]);
		o->host_tid = sat32(v[GR_GPU_HOST_TID][i]);
		o->device = sat32(v[GR_GPU_DEVICE][i]);
		o->context = sat32(v[GR_GPU_CONTEXT][i]);
		o->stream = sat32(v[GR_GPU_STREAM][i]);
		for (int d = 0; d < 3; d++) {
			o->grid[d] = sat32(v[GR_GPU_GRID_X + d][i]);
			o->block[d] = sat32(v[GR_GPU_BLOCK_X + d][i]);
		}
		o->shared = sat32(v[GR_GPU_SHARED][i]);
		o->kind = v[GR_GPU_KIND][i] > 255 ? 255 : (uint8_t)v[GR_GPU_KIND][i];
		o->copy_kind = v[GR_GPU_COPY_KIND][i] > 255 ? 255 : (uint8_t)v[GR_GPU_COPY_KIND][i];
		/* the model demangles once per distinct name when the load is done (finish()) */
		o->mangled = text_of(P, &b[GR_GPU_NAME][i]);
		if (!o->mangled)
			return oom(P, -ENOMEM, "GPU rows");
		o->name = o->mangled;
		note_ts(P, GR_K_GPU, o->ts, P->gpus.n++);
	}
	return 0;
}

/*
 * NCCL calls: every row, done or not (finish() sets the others aside: the model's calls are
 * matched across processes by their sequence, which needs them in time order first).
 */
static int load_comm_calls(struct part *P, const uint64_t *const *v,
			   const struct gr_bytes *const *b, uint32_t n)
{
	struct gr_comm_call *o;
	int err;

	err = ROOM(P, P->comm_calls, n);
	if (err)
		return oom(P, err, "NCCL calls");
	for (uint32_t i = 0; i < n; i++) {
		if (!keep_call(P->ctx, v[GR_COMM_TS][i], v[GR_COMM_DUR][i]))
			continue;
		o = &P->comm_calls.v[P->comm_calls.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_COMM_TS][i];
		o->dur = v[GR_COMM_DUR][i];
		o->comm = v[GR_COMM_COMM][i];
		o->stream = v[GR_COMM_STREAM][i];
		o->count = v[GR_COMM_COUNT][i];
		o->bytes = o->count * gr_comm_dtype_size(v[GR_COMM_DTYPE][i]);
		o->id = v[GR_COMM_ID][i];
		o->nranks = sat32(v[GR_COMM_NRANKS][i]);
		o->rank = sat32(v[GR_COMM_RANK][i]);
		o->peer = sat32(v[GR_COMM_PEER][i]);
		o->status = (uint32_t)v[GR_COMM_STATUS][i];
		o->api = sat16(v[GR_COMM_API][i]);
		o->call = sat16(v[GR_COMM_CALL][i]);
		o->redop = sat16(v[GR_COMM_REDOP][i]);
		o->kind = v[GR_COMM_KIND][i] > 255 ? 255 : v[GR_COMM_KIND][i];
		o->dtype = v[GR_COMM_DTYPE][i] > 255 ? 255 : v[GR_COMM_DTYPE][i];
		err = thread_of(P, v[GR_COMM_PID][i], v[GR_COMM_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(P, v[GR_COMM_PID][i], v[GR_COMM_STACK][i], &o->stack);
		if (err < 0)
			return oom(P, err, "NCCL calls");
		note_ts(P, GR_K_COMM, o->ts, P->comm_calls.n++);
	}
	return 0;
}

/* The part's scheduler key for @k (6 words, sched_key_pack()), through a direct-mapped memo. */
static int sched_key_of(struct part *P, const uint64_t k[6], uint32_t *skey)
{
	uint64_t h = (k[0] + k[1] * 0x9e3779b97f4a7c15ull + k[4] + k[5]) * 0xbf58476d1ce4e5b9ull ^
		     (k[2] + k[3] * 0x94d049bb133111ebull);
	struct sched_memo *e = &P->smemo[(h ^ h >> 29) & (GR_SCHED_MEMO - 1)];
	int err;

	if (e->valid && !memcmp(e->key, k, sizeof(e->key))) {
		*skey = e->skey;
		return 0;
	}
	err = gr_keymap_intern(&P->tab[T_SKEY], k, skey);
	if (err < 0)
		return err;
	memcpy(e->key, k, sizeof(e->key));
	e->skey = *skey;
	e->valid = 1;
	return 0;
}

static int load_scheds(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n)
{
	struct gr_sched *o;
	int err;

	err = ROOM(P, P->scheds, n);
	if (err)
		return oom(P, err, "scheduler events");
	for (uint32_t i = 0; i < n; i++) {
		struct gr_sched_key k;
		uint64_t w[6], sc;

		if (!keep_instant(P->ctx, v[GR_SCHED_TS][i]))
			continue;
		memset(&k, 0, sizeof(k));
		k.prev_state = v[GR_SCHED_PREV_STATE][i];
		k.cpu = sat32(v[GR_SCHED_CPU][i]);
		k.target_cpu = sat32(v[GR_SCHED_TARGET_CPU][i]);
		k.prev_pid = sat32(v[GR_SCHED_PREV_PID][i]);
		k.prev_tid = sat32(v[GR_SCHED_PREV_TID][i]);
		k.next_pid = sat32(v[GR_SCHED_NEXT_PID][i]);
		k.next_tid = sat32(v[GR_SCHED_NEXT_TID][i]);
		k.type = v[GR_SCHED_TYPE][i] > 255 ? 255 : (uint8_t)v[GR_SCHED_TYPE][i];
		/* the file's syscall is the number + 1, 0 none (also a file without the column) */
		sc = v[GR_SCHED_SYSCALL][i];
		k.syscall = sc && sc <= 0x7fffffffull ? (int32_t)(sc - 1) : -1;
		k.fd_kind = v[GR_SCHED_FD_KIND][i] <= GR_FD_OTHER ? (uint8_t)v[GR_SCHED_FD_KIND][i]
								  : GR_FD_OTHER;
		/* the stack is the thread's whose it is: prev at a switch, the waker at a wakeup */
		err = stack_of(P, v[GR_SCHED_PREV_PID][i], v[GR_SCHED_STACK][i], &k.stack);
		if (err < 0)
			return oom(P, err, "scheduler events");
		sched_key_pack(&k, w);
		o = &P->scheds.v[P->scheds.n];
		memset(o, 0, sizeof(*o));
		err = sched_key_of(P, w, &o->key);
		if (err < 0)
			return oom(P, err, "scheduler events");
		o->ts = v[GR_SCHED_TS][i];
		note_ts(P, GR_K_SCHED, o->ts, P->scheds.n++);
	}
	return 0;
}

/* Process events are metadata too (they make the process table): a window keeps them all. */
static int load_procs(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		      uint32_t n)
{
	struct gr_proc_event *o;
	int err;

	err = ROOM(P, P->procs, n);
	if (err)
		return oom(P, err, "process events");
	for (uint32_t i = 0; i < n; i++) {
		o = &P->procs.v[P->procs.n];
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_PROC_TS][i];
		note_ts(P, GR_K_PROC, o->ts, P->procs.n++);
		o->type = v[GR_PROC_TYPE][i] > 255 ? 255 : (uint8_t)v[GR_PROC_TYPE][i];
		o->pid = sat32(v[GR_PROC_PID][i]);
		o->tid = sat32(v[GR_PROC_TID][i]);
		o->value = v[GR_PROC_VALUE][i];
		o->text = text_of(P, &b[GR_PROC_TEXT][i]);
		if (!o->text)
			return oom(P, -ENOMEM, "process events");
	}
	return 0;
}

static int load_losses(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n)
{
	struct gr_loss *o;
	int err;

	err = ROOM(P, P->losses, n);
	if (err)
		return oom(P, err, "losses");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ts = v[GR_LOSS_TS][i], end = v[GR_LOSS_TS_END][i];

		if (!keep_call(P->ctx, ts, end > ts ? end - ts : 0))
			continue;
		o = &P->losses.v[P->losses.n];
		memset(o, 0, sizeof(*o));
		o->ts = ts;
		note_ts(P, GR_K_LOSS, o->ts, P->losses.n++);
		o->ts_end = end;
		o->count = v[GR_LOSS_COUNT][i];
		o->source = sat32(v[GR_LOSS_SOURCE][i]);
		if (gr_loss_stack_only(o->source))
			P->lost_stacks = sat_add(P->lost_stacks, o->count);
		else
			P->lost = sat_add(P->lost, o->count);
	}
	return 0;
}

/* ---- metadata: keyed, last record wins ---- */

static int load_names(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		      uint32_t n)
{
	int err = 0;

	for (uint32_t i = 0; i < n && err >= 0; i++) {
		const char *text = text_of(P, &b[GR_NAME_TEXT][i]);
		uint64_t k[2] = {sat32(v[GR_NAME_PID][i]), v[GR_NAME_KEY][i]};
		uint32_t idx;

		if (!text)
			return oom(P, -ENOMEM, "names");
		if (!*text)
			continue;
		switch (v[GR_NAME_CLASS][i]) {
		case GR_NAME_KERNEL:
			err = gr_keymap_intern(&P->kname_k, k, &idx);
			if (err >= 0)
				err = SET_AT(P->kname, idx, &text);
			break;
		case GR_NAME_KERNEL_RAW:
			err = gr_keymap_intern(&P->kraw_k, k, &idx);
			if (err >= 0)
				err = SET_AT(P->kraw, idx, &text);
			break;
		case GR_NAME_COMM:
			k[0] = sat32(v[GR_NAME_KEY][i]);
			err = gr_keymap_intern(&P->comm_k, k, &idx);
			if (err >= 0)
				err = SET_AT(P->comm, idx, &text);
			break;
		case GR_NAME_LIBRARY:
			/* texts are interned in the model: equal texts, equal pointers */
			k[0] = (uintptr_t)text;
			err = gr_keymap_intern(&P->lib_k, k, &idx);
			if (err == 1)
				err = SET_AT(P->libs, idx, &text);
			break;
		case GR_NAME_UNPROBED:
			k[0] = (uintptr_t)text;
			err = gr_keymap_intern(&P->unprobed_k, k, &idx);
			if (err == 1)
				err = SET_AT(P->unprobed, idx, &text);
			break;
		case GR_NAME_PYTHON: {
			struct gr_python e = {(uint32_t)k[0], sat32(k[1]), text};

			err = gr_keymap_intern(&P->py_k, k, &idx);
			if (err >= 0)
				err = SET_AT(P->pythons, idx, &e);
			break;
		}
		case GR_NAME_RANK:
			k[1] = 0;
			err = gr_keymap_intern(&P->rankenv_k, k, &idx);
			if (err >= 0)
				err = SET_AT(P->rankenv, idx, &text);
			break;
		default: /* a class from a newer build */
			break;
		}
	}
	return err < 0 ? oom(P, err, "names") : 0;
}

static int load_mappings(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			 uint32_t n)
{
	int err;

	for (uint32_t i = 0; i < n; i++) {
		const struct gr_bytes *bid = &b[GR_MAP_BUILDID][i];
		uint64_t k[3] = {sat32(v[GR_MAP_PID][i]), v[GR_MAP_START][i], v[GR_MAP_END][i]};
		struct gr_mapping e = {
		    .start = k[1],
		    .end = k[2],
		    .pgoff = v[GR_MAP_PGOFF][i],
		    .pid = (uint32_t)k[0],
		    .path = text_of(P, &b[GR_MAP_PATH][i]),
		    .build_id_len = bid->data ? bid->len : 0,
		};
		uint32_t idx;

		e.build_id =
		    (const uint8_t *)gr_arena_strndup(&P->arena, bid->data, e.build_id_len);
		if (!e.path || !e.build_id)
			return oom(P, -ENOMEM, "mappings");
		err = gr_keymap_intern(&P->map_k, k, &idx);
		if (err >= 0)
			err = SET_AT(P->mappings, idx, &e);
		if (err < 0)
			return oom(P, err, "mappings");
	}
	return 0;
}

static int load_symbols(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			uint32_t n)
{
	int err;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t k[2] = {sat32(v[GR_SYM_PID][i]), v[GR_SYM_ADDR][i]};
		struct gr_symbol e = {
		    .addr = k[1],
		    .start = v[GR_SYM_START][i],
		    .size = v[GR_SYM_SIZE][i],
		    .pid = (uint32_t)k[0],
		    .name = text_of(P, &b[GR_SYM_NAME][i]),
		    .file = text_of(P, &b[GR_SYM_FILE][i]),
		    .line = sat32(v[GR_SYM_LINE][i]),
		};
		uint32_t idx;

		if (!e.name || !e.file)
			return oom(P, -ENOMEM, "symbols");
		err = gr_keymap_intern(&P->sym_k, k, &idx);
		if (err >= 0)
			err = SET_AT(P->symbols, idx, &e);
		if (err < 0)
			return oom(P, err, "symbols");
	}
	return 0;
}

/*
 * A Python frame of a set's later trace, made that trace's own: each recording numbers its
 * PYFRAME keys from 1 (GR_FRAME_PYTHON | n), so the trace's index goes into bits 48-62, which
 * no count reaches. Native frames and the first trace's stay as recorded.
 */
static uint64_t own_pyframe(const struct load_ctx *L, uint64_t frame)
{
	if (!(frame & GR_FRAME_PYTHON) || !L->id_base)
		return frame;
	return frame ^ (uint64_t)(L->id_base / GR_MODEL_SET_PIDS) << 48;
}

static int load_stacks(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n)
{
	int err;

	for (uint32_t i = 0; i < n; i++) {
		const struct gr_bytes *fb = &b[GR_STACK_FRAMES][i];
		uint64_t k[2] = {v[GR_STACK_ID][i], sat32(v[GR_STACK_PID][i])};
		struct gr_stack e = {.id = k[0], .pid = (uint32_t)k[1]};
		uint64_t *frames;
		uint32_t idx;

		if (!e.id)
			continue; /* id 0 means "no stack" */
		err = stack_index(P, e.pid, e.id, &idx);
		if (err < 0)
			return oom(P, err, "stacks");
		if (P->stacks.v[idx].frames)
			continue; /* a repeat: the frames of an id never change */
		e.nframes = fb->data ? fb->len / 8 : 0;
		if (!e.nframes)
			continue;
		frames = gr_arena_alloc(&P->arena, (size_t)e.nframes * 8);
		if (!frames)
			return oom(P, -ENOMEM, "stacks");
		for (uint32_t f = 0; f < e.nframes; f++) {
			const uint8_t *p = fb->data + (size_t)f * 8;

			frames[f] =
			    own_pyframe(P->ctx, (uint64_t)p[0] | (uint64_t)p[1] << 8 |
						    (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
						    (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
						    (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56);
		}
		e.frames = frames;
		P->stacks.v[idx] = e;
	}
	return 0;
}

static int load_pyframes(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			 uint32_t n)
{
	int err;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t k[1] = {own_pyframe(P->ctx, v[GR_PYF_KEY][i])};
		struct gr_pyframe e = {
		    .key = k[0],
		    .pid = sat32(v[GR_PYF_PID][i]),
		    .line = sat32(v[GR_PYF_LINE][i]),
		    .file = text_of(P, &b[GR_PYF_FILE][i]),
		    .function = text_of(P, &b[GR_PYF_FUNCTION][i]),
		};
		uint32_t idx;

		if (!e.file || !e.function)
			return oom(P, -ENOMEM, "python frames");
		err = gr_keymap_intern(&P->pyf_k, k, &idx);
		if (err >= 0)
			err = SET_AT(P->pyframes, idx, &e);
		if (err < 0)
			return oom(P, err, "python frames");
	}
	return 0;
}

static int load_session(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
			uint32_t n)
{
	int err;

	for (uint32_t i = 0; i < n; i++) {
		/* keyed by fact and trace: a set keeps each trace's facts (its probe cost) */
		uint64_t k[1] = {sat32(v[GR_SESS_KEY][i]) |
				 (uint64_t)(P->ctx->id_base / GR_MODEL_SET_PIDS) << 32};
		struct gr_session_fact e = {
		    .key = (uint32_t)k[0],
		    .value = v[GR_SESS_VALUE][i],
		    .text = text_of(P, &b[GR_SESS_TEXT][i]),
		};
		uint32_t idx;

		if (!e.text)
			return oom(P, -ENOMEM, "session facts");
		err = gr_keymap_intern(&P->sess_k, k, &idx);
		if (err >= 0)
			err = SET_AT(P->session, idx, &e);
		if (err < 0)
			return oom(P, err, "session facts");
	}
	return 0;
}

typedef int (*load_fn)(struct part *P, const uint64_t *const *v, const struct gr_bytes *const *b,
		       uint32_t n);

static const load_fn loaders[GR_K_COUNT] = {
    [GR_K_LAUNCH] = load_launches,  [GR_K_COPY] = load_copies,	    [GR_K_MEMSET] = load_memsets,
    [GR_K_ALLOC] = load_allocs,	    [GR_K_FREE] = load_frees,	    [GR_K_SYNC] = load_syncs,
    [GR_K_COMM] = load_comm_calls,  [GR_K_GRAPH] = load_graphs,	    [GR_K_SCHED] = load_scheds,
    [GR_K_PROC] = load_procs,	    [GR_K_NAME] = load_names,	    [GR_K_MAPPING] = load_mappings,
    [GR_K_SYMBOL] = load_symbols,   [GR_K_STACK] = load_stacks,	    [GR_K_LOSS] = load_losses,
    [GR_K_SESSION] = load_session,  [GR_K_PYFRAME] = load_pyframes, [GR_K_GPU] = load_gpus,
    [GR_K_MEMINFO] = load_meminfos, [GR_K_NVTX] = load_nvtx,
};

/* The records of @kind, a batch of rows at a time. 0, 1 when a column does not decode, or < 0. */
static int read_kind(struct part *P, struct gr_chunk_decoder *d, uint16_t kind)
{
	const uint64_t *fv[GR_MAX_COLUMNS], *v[GR_MAX_COLUMNS];
	const struct gr_bytes *fb[GR_MAX_COLUMNS], *b[GR_MAX_COLUMNS];
	int n, err = 0;

	n = gr_chunk_rows_begin(d, P->r, kind);
	while (n > 0 && !err) {
		n = gr_chunk_rows_next(d, P->r, fv, fb);
		if (n > 0)
			err = batch_cols(P, kind, (uint32_t)n, fv, fb, v, b);
		if (n > 0 && !err)
			err = loaders[kind](P, v, b, (uint32_t)n);
	}
	if (n == -ENOMEM)
		return oom(P, n, "chunks");
	return err ? err : n < 0;
}

int part_read_chunk(struct part *P, struct gr_chunk_decoder *d, const struct gr_chunk *c)
{
	int err = 0, ok;

	P->offset = gr_chunk_offset(c);
	P->total = gr_chunk_total(c);
	P->first_ts = gr_chunk_first_ts(c);
	P->last_ts = gr_chunk_last_ts(c);
	if (P->ctx->remap) {
		P->first_ts += (uint64_t)P->ctx->ts_shift;
		P->last_ts += (uint64_t)P->ctx->ts_shift;
	}
	for (uint16_t k = 1; k < GR_K_COUNT && !err; k++) {
		uint32_t n;

		if (!P->ctx->present[k])
			continue;
		n = gr_chunk_count(c, k);
		if (!n)
			continue;
		P->counts[k] += n;
		if (loaders[k])
			err = read_kind(P, d, k);
	}
	/* a chunk that turns out bad is skipped, whatever its records did here */
	ok = gr_chunk_rows_end(d, P->r);
	if (ok < 0)
		return gr_diag_set(&P->diag, ok, P->offset, "reading chunks: %s", gr_strerror(ok));
	if (ok && err == -EOVERFLOW)
		return PART_MISMATCH;
	return ok ? (err < 0 ? err : 1) : 0;
}

void part_reset(struct part *P)
{
	struct gr_keymap *maps[] = {&P->kname_k,    &P->kraw_k, &P->comm_k,   &P->lib_k,
				    &P->unprobed_k, &P->sym_k,	&P->map_k,    &P->sess_k,
				    &P->pyf_k,	    &P->py_k,	&P->rankenv_k};
	static const uint32_t map_words[] = {2, 2, 2, 1, 1, 2, 3, 1, 1, 2, 2};

	P->status = 0;
	memset(&P->diag, 0, sizeof(P->diag));
	P->offset = P->first_ts = P->last_ts = P->total = P->lost = P->lost_stacks = P->calls_ok =
	    0;
	memset(P->counts, 0, sizeof(P->counts));
	memset(P->unsorted, 0, sizeof(P->unsorted));
	P->launches.n = P->copies.n = P->memsets.n = P->allocs.n = P->frees.n = 0;
	P->syncs.n = P->graphs.n = P->scheds.n = P->procs.n = P->losses.n = 0;
	P->asides.n = P->comm_calls.n = P->gpus.n = P->meminfos.n = P->nvtx_raw.n = 0;
	for (int t = 0; t < T_COUNT; t++)
		P->map[t].n = 0;
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		gr_keymap_free(maps[i]);
		gr_keymap_init(maps[i], map_words[i]);
	}
	P->thread_c.valid = P->stream_c.valid = P->stack_c.valid = 0;
	for (int i = 0; i < GR_LAUNCH_MEMO; i++)
		P->memo[i].valid = 0;
	for (int i = 0; i < GR_SCHED_MEMO; i++)
		P->smemo[i].valid = 0;
	P->kname.n = P->kraw.n = P->comm.n = P->libs.n = P->unprobed.n = P->rankenv.n = 0;
	P->mappings.n = P->symbols.n = P->session.n = P->pyframes.n = P->pythons.n = 0;
	gr_arena_free(&P->arena);
}

void part_free(struct part *P)
{
	struct gr_keymap *maps[] = {&P->kname_k,    &P->kraw_k, &P->comm_k,   &P->lib_k,
				    &P->unprobed_k, &P->sym_k,	&P->map_k,    &P->sess_k,
				    &P->pyf_k,	    &P->py_k,	&P->rankenv_k};

	if (!P->views) { /* else they are the model's */
		RELEASE(P->launches);
		RELEASE(P->copies);
		RELEASE(P->memsets);
		RELEASE(P->allocs);
		RELEASE(P->frees);
		RELEASE(P->syncs);
		RELEASE(P->graphs);
		RELEASE(P->scheds);
		RELEASE(P->procs);
		RELEASE(P->losses);
		RELEASE(P->comm_calls);
		RELEASE(P->gpus);
		RELEASE(P->meminfos);
		RELEASE(P->nvtx_raw);
	}
	for (int t = 0; t < T_COUNT; t++) {
		gr_keymap_free(&P->tab[t]);
		RELEASE(P->map[t]);
	}
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		gr_keymap_free(maps[i]);
	RELEASE(P->asides);
	free(P->zeros);
	free(P->empties);
	for (int c = 0; c < GR_MAX_COLUMNS; c++)
		free(P->adj[c]);
	RELEASE(P->stacks);
	RELEASE(P->kname);
	RELEASE(P->kraw);
	RELEASE(P->comm);
	RELEASE(P->libs);
	RELEASE(P->unprobed);
	RELEASE(P->rankenv);
	RELEASE(P->mappings);
	RELEASE(P->symbols);
	RELEASE(P->pyframes);
	RELEASE(P->pythons);
	RELEASE(P->session);
	gr_arena_free(&P->arena);
	memset(P, 0, sizeof(*P));
}
