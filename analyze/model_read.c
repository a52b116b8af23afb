/* SPDX-License-Identifier: MIT */
/*
 * One chunk's records into the model (see model.c for the whole load). Event columns are copied
 * into compact structs, with (pid, func), launch configs, threads and streams interned into dense
 * tables on the way: a one-entry cache in front of each hash table catches the common runs.
 * Metadata records go into keyed tables where the last record for a key wins.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "model_impl.h"

static int oom(struct loader *L, int err, const char *what)
{
	return gr_diag_set(L->diag, err, L->chunk_offset, "%s while loading %s",
			   err == GR_ERR_LIMIT ? "too many distinct keys" : "out of memory", what);
}

static const char *text_of(struct loader *L, const struct gr_bytes *b)
{
	return gr_strtab_intern(&L->strs, b->data ? (const void *)b->data : "",
				b->data ? b->len : 0);
}

/* ---- schema ---- */

/* Map this build's columns of every known kind to the file's columns, by name. */
int model_map_schema(struct loader *L, const struct gr_schema *fs)
{
	const struct gr_schema *ours = gr_events_schema();

	memset(L->col, 0xff, sizeof(L->col));
	for (uint16_t k = 0; k < ours->nkinds; k++) {
		const struct gr_kind_def *ok = &ours->kinds[k];
		const struct gr_kind_def *fk = gr_schema_kind(fs, ok->id);

		if (ok->id >= GR_K_COUNT || !fk)
			continue;
		if (!fk->name || strcmp(fk->name, ok->name))
			return gr_diag_set(L->diag, GR_ERR_SCHEMA, 0,
					   "record kind %u is '%s' in the file, expected '%s'",
					   ok->id, fk->name ? fk->name : "", ok->name);
		for (uint16_t c = 0; c < ok->ncols; c++) {
			int fc = gr_schema_column(fs, ok->id, ok->cols[c].name);
			int want_bytes = ok->cols[c].codec == GR_CODEC_BYTES;

			if (fc < 0 || fc >= fk->ncols)
				return gr_diag_set(L->diag, GR_ERR_SCHEMA, 0,
						   "record kind '%s' has no column '%s'", ok->name,
						   ok->cols[c].name);
			if ((fk->cols[fc].codec == GR_CODEC_BYTES) != want_bytes)
				return gr_diag_set(
				    L->diag, GR_ERR_SCHEMA, 0,
				    "column '%s' of '%s' is %s in the file, expected %s",
				    ok->cols[c].name, ok->name, want_bytes ? "numeric" : "bytes",
				    want_bytes ? "bytes" : "numeric");
			L->col[ok->id][c] = fc;
		}
		L->present[ok->id] = 1;
	}
	return 0;
}

/*
 * The columns of @kind in @c, in this build's order: numeric ones in @v, BYTES ones in @b (either
 * may be NULL when the kind has none of that sort).
 */
static int chunk_cols(struct loader *L, const struct gr_chunk *c, uint16_t kind, uint32_t n,
		      const uint64_t **v, const struct gr_bytes **b)
{
	const struct gr_kind_def *kd = gr_schema_kind(gr_events_schema(), kind);

	for (uint16_t i = 0; i < kd->ncols; i++) {
		const void *p;

		if (kd->cols[i].codec == GR_CODEC_BYTES)
			p = b[i] = gr_chunk_bytes(c, kind, L->col[kind][i]);
		else
			p = v[i] = gr_chunk_column(c, kind, L->col[kind][i]);
		if (!p && n)
			return gr_diag_set(L->diag, GR_ERR_CORRUPT, L->chunk_offset,
					   "chunk has %u '%s' records but no '%s' column", n,
					   kd->name, kd->cols[i].name);
	}
	return 0;
}

static inline void note_ts(struct loader *L, uint16_t kind, uint64_t ts)
{
	if (ts < L->prev_ts[kind])
		L->unsorted[kind] = 1;
	L->prev_ts[kind] = ts;
}

/* ---- events ---- */

static inline int thread_of(struct loader *L, uint64_t pid, uint64_t tid, uint32_t *idx)
{
	uint64_t k[2] = {sat32(pid), sat32(tid)};

	return intern_cached(&L->threads, &L->thread_c, k, 2, idx);
}

static inline int stream_of(struct loader *L, uint64_t pid, uint64_t handle, uint32_t *idx)
{
	uint64_t k[2] = {sat32(pid), handle};

	return intern_cached(&L->streams, &L->stream_c, k, 2, idx);
}

/*
 * (pid, func, grid, block, shmem, stack id) -> (kernel, config, stack): launches repeat a few of
 * these, so one direct-mapped probe replaces three hash-table lookups for almost every launch.
 */
static int launch_ids(struct loader *L, const uint64_t key[6], struct gr_launch *o)
{
	uint64_t h = (key[0] ^ key[4] * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull ^
		     (key[1] + key[2] * 0x94d049bb133111ebull + key[3] + key[5]);
	struct launch_memo *e = &L->memo[(h ^ h >> 29) & (GR_LAUNCH_MEMO - 1)];
	uint64_t k[4];
	int err;

	if (e->valid && e->key[0] == key[0] && e->key[1] == key[1] && e->key[2] == key[2] &&
	    e->key[3] == key[3] && e->key[4] == key[4] && e->key[5] == key[5]) {
		o->kernel = e->kernel;
		o->config = e->config;
		o->stack = e->stack;
		return 0;
	}
	k[0] = key[4] >> 32;
	k[1] = key[0];
	err = gr_keymap_intern(&L->kernels, k, &o->kernel);
	if (err < 0)
		return err;
	memcpy(k, key + 1, 3 * sizeof(*k));
	k[3] = (uint32_t)key[4];
	err = gr_keymap_intern(&L->configs, k, &o->config);
	if (err < 0)
		return err;
	err = model_stack_index(L, key[4] >> 32, key[5], &o->stack);
	if (err < 0)
		return err;
	memcpy(e->key, key, sizeof(e->key));
	e->kernel = o->kernel;
	e->config = o->config;
	e->stack = o->stack;
	e->valid = 1;
	return 0;
}

int model_stack_index(struct loader *L, uint64_t pid, uint64_t id, uint32_t *idx)
{
	uint64_t k[2] = {id, sat32(pid)};
	struct gr_stack e = {.id = id, .pid = (uint32_t)k[1]};
	int err;

	if (!id) {
		*idx = 0;
		return 0;
	}
	err = gr_keymap_intern(&L->stack_k, k, idx);
	if (err == 1)
		err = SET_AT(L->m->stacks, *idx, &e);
	return err < 0 ? err : 0;
}

static inline int stack_of(struct loader *L, uint64_t pid, uint64_t id, uint32_t *idx)
{
	uint64_t k[2] = {id, sat32(pid)};
	int err;

	if (!id) {
		*idx = 0;
		return 0;
	}
	if (L->stack_c.valid && L->stack_c.key[0] == k[0] && L->stack_c.key[1] == k[1]) {
		*idx = L->stack_c.idx;
		return 0;
	}
	err = model_stack_index(L, pid, id, idx);
	if (err < 0)
		return err;
	memcpy(L->stack_c.key, k, sizeof(k));
	L->stack_c.idx = *idx;
	L->stack_c.valid = 1;
	return 0;
}

static int load_launches(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_launch *o;
	uint64_t prev;
	int err, unsorted = 0;

	err = chunk_cols(L, c, GR_K_LAUNCH, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->launches, n);
	if (err)
		return oom(L, err, "launches");
	o = m->launches.v + m->launches.n;
	prev = L->prev_ts[GR_K_LAUNCH];
	/* column pointers in locals: calls in the loop cannot change them */
	const uint64_t *ts = v[GR_LAUNCH_TS], *dur = v[GR_LAUNCH_DUR], *pid = v[GR_LAUNCH_PID];
	const uint64_t *tid = v[GR_LAUNCH_TID], *cpu = v[GR_LAUNCH_CPU], *api = v[GR_LAUNCH_API];
	const uint64_t *func = v[GR_LAUNCH_FUNC], *gx = v[GR_LAUNCH_GX], *gy = v[GR_LAUNCH_GY];
	const uint64_t *gz = v[GR_LAUNCH_GZ], *bx = v[GR_LAUNCH_BX], *by = v[GR_LAUNCH_BY];
	const uint64_t *bz = v[GR_LAUNCH_BZ], *shmem = v[GR_LAUNCH_SHMEM];
	const uint64_t *stream = v[GR_LAUNCH_STREAM], *stack = v[GR_LAUNCH_STACK];

	for (uint32_t i = 0; i < n; i++, o++) {
		uint64_t p = sat32(pid[i]), key[6];

		o->ts = ts[i];
		unsorted |= ts[i] < prev;
		prev = ts[i];
		o->dur = dur[i];
		o->cpu = sat16(cpu[i]);
		o->api = sat16(api[i]);
		key[0] = func[i];
		key[1] = sat32(gx[i]) | (uint64_t)sat32(gy[i]) << 32;
		key[2] = sat32(gz[i]) | (uint64_t)sat32(bx[i]) << 32;
		key[3] = sat32(by[i]) | (uint64_t)sat32(bz[i]) << 32;
		key[4] = p << 32 | sat32(shmem[i]);
		key[5] = stack[i];
		err = launch_ids(L, key, o);
		if (err < 0)
			break;
		err = thread_of(L, p, tid[i], &o->thread);
		if (err < 0)
			break;
		err = stream_of(L, p, stream[i], &o->stream);
		if (err < 0)
			break;
	}
	if (err < 0)
		return oom(L, err, "launches");
	L->prev_ts[GR_K_LAUNCH] = prev;
	L->unsorted[GR_K_LAUNCH] |= unsorted;
	m->launches.n += n;
	return 0;
}

static int load_copies(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_copy *o;
	int err;

	err = chunk_cols(L, c, GR_K_COPY, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->copies, n);
	if (err)
		return oom(L, err, "copies");
	o = m->copies.v + m->copies.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_COPY_TS][i];
		note_ts(L, GR_K_COPY, o->ts);
		o->dur = v[GR_COPY_DUR][i];
		o->dst = v[GR_COPY_DST][i];
		o->src = v[GR_COPY_SRC][i];
		o->bytes = v[GR_COPY_BYTES][i];
		o->cpu = sat16(v[GR_COPY_CPU][i]);
		o->api = sat16(v[GR_COPY_API][i]);
		o->flags = sat16(v[GR_COPY_FLAGS][i]);
		o->kind = v[GR_COPY_CKIND][i] > 255 ? 255 : (uint8_t)v[GR_COPY_CKIND][i];
		err = thread_of(L, v[GR_COPY_PID][i], v[GR_COPY_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(L, v[GR_COPY_PID][i], v[GR_COPY_STACK][i], &o->stack);
		if (err >= 0)
			err = stream_of(L, v[GR_COPY_PID][i], v[GR_COPY_STREAM][i], &o->stream);
		if (err < 0)
			return oom(L, err, "copies");
	}
	m->copies.n += n;
	return 0;
}

static int load_memsets(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_memset *o;
	int err;

	err = chunk_cols(L, c, GR_K_MEMSET, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->memsets, n);
	if (err)
		return oom(L, err, "memsets");
	o = m->memsets.v + m->memsets.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_MEMSET_TS][i];
		note_ts(L, GR_K_MEMSET, o->ts);
		o->dur = v[GR_MEMSET_DUR][i];
		o->dst = v[GR_MEMSET_DST][i];
		o->bytes = v[GR_MEMSET_BYTES][i];
		o->value = (uint32_t)v[GR_MEMSET_VALUE][i];
		o->cpu = sat16(v[GR_MEMSET_CPU][i]);
		o->api = sat16(v[GR_MEMSET_API][i]);
		o->flags = sat16(v[GR_MEMSET_FLAGS][i]);
		err = thread_of(L, v[GR_MEMSET_PID][i], v[GR_MEMSET_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(L, v[GR_MEMSET_PID][i], v[GR_MEMSET_STACK][i], &o->stack);
		if (err >= 0)
			err = stream_of(L, v[GR_MEMSET_PID][i], v[GR_MEMSET_STREAM][i], &o->stream);
		if (err < 0)
			return oom(L, err, "memsets");
	}
	m->memsets.n += n;
	return 0;
}

static int load_allocs(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_alloc *o;
	int err;

	err = chunk_cols(L, c, GR_K_ALLOC, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->allocs, n);
	if (err)
		return oom(L, err, "allocations");
	o = m->allocs.v + m->allocs.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_ALLOC_TS][i];
		note_ts(L, GR_K_ALLOC, o->ts);
		o->dur = v[GR_ALLOC_DUR][i];
		o->addr = v[GR_ALLOC_ADDR][i];
		o->bytes = v[GR_ALLOC_BYTES][i];
		o->api = sat16(v[GR_ALLOC_API][i]);
		o->kind = sat16(v[GR_ALLOC_AKIND][i]);
		err = thread_of(L, v[GR_ALLOC_PID][i], v[GR_ALLOC_TID][i], &o->thread);
		if (err >= 0)
			err = stream_of(L, v[GR_ALLOC_PID][i], v[GR_ALLOC_STREAM][i], &o->stream);
		if (err < 0)
			return oom(L, err, "allocations");
	}
	m->allocs.n += n;
	return 0;
}

static int load_frees(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_free *o;
	int err;

	err = chunk_cols(L, c, GR_K_FREE, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->frees, n);
	if (err)
		return oom(L, err, "frees");
	o = m->frees.v + m->frees.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_FREE_TS][i];
		note_ts(L, GR_K_FREE, o->ts);
		o->dur = v[GR_FREE_DUR][i];
		o->addr = v[GR_FREE_ADDR][i];
		o->api = sat16(v[GR_FREE_API][i]);
		o->kind = sat16(v[GR_FREE_AKIND][i]);
		err = thread_of(L, v[GR_FREE_PID][i], v[GR_FREE_TID][i], &o->thread);
		if (err < 0)
			return oom(L, err, "frees");
	}
	m->frees.n += n;
	return 0;
}

static int load_syncs(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_sync *o;
	int err;

	err = chunk_cols(L, c, GR_K_SYNC, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->syncs, n);
	if (err)
		return oom(L, err, "syncs");
	o = m->syncs.v + m->syncs.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_SYNC_TS][i];
		note_ts(L, GR_K_SYNC, o->ts);
		o->dur = v[GR_SYNC_DUR][i];
		o->handle = v[GR_SYNC_HANDLE][i];
		o->handle2 = v[GR_SYNC_HANDLE2][i];
		o->cpu = sat16(v[GR_SYNC_CPU][i]);
		o->api = sat16(v[GR_SYNC_API][i]);
		o->kind = sat16(v[GR_SYNC_SKIND][i]);
		err = thread_of(L, v[GR_SYNC_PID][i], v[GR_SYNC_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(L, v[GR_SYNC_PID][i], v[GR_SYNC_STACK][i], &o->stack);
		if (err < 0)
			return oom(L, err, "syncs");
	}
	m->syncs.n += n;
	return 0;
}

static int load_graphs(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_graph *o;
	int err;

	err = chunk_cols(L, c, GR_K_GRAPH, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->graphs, n);
	if (err)
		return oom(L, err, "graph calls");
	o = m->graphs.v + m->graphs.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_GRAPH_TS][i];
		note_ts(L, GR_K_GRAPH, o->ts);
		o->dur = v[GR_GRAPH_DUR][i];
		o->graph = v[GR_GRAPH_GRAPH][i];
		o->exec = v[GR_GRAPH_EXEC][i];
		o->api = sat16(v[GR_GRAPH_API][i]);
		o->kind = sat16(v[GR_GRAPH_GKIND][i]);
		err = thread_of(L, v[GR_GRAPH_PID][i], v[GR_GRAPH_TID][i], &o->thread);
		if (err >= 0)
			err = stack_of(L, v[GR_GRAPH_PID][i], v[GR_GRAPH_STACK][i], &o->stack);
		if (err >= 0)
			err = stream_of(L, v[GR_GRAPH_PID][i], v[GR_GRAPH_STREAM][i], &o->stream);
		if (err < 0)
			return oom(L, err, "graph calls");
	}
	m->graphs.n += n;
	return 0;
}

static int load_scheds(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_sched *o;
	int err;

	err = chunk_cols(L, c, GR_K_SCHED, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->scheds, n);
	if (err)
		return oom(L, err, "scheduler events");
	o = m->scheds.v + m->scheds.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_SCHED_TS][i];
		note_ts(L, GR_K_SCHED, o->ts);
		o->prev_state = v[GR_SCHED_PREV_STATE][i];
		o->cpu = sat32(v[GR_SCHED_CPU][i]);
		o->target_cpu = sat32(v[GR_SCHED_TARGET_CPU][i]);
		o->prev_pid = sat32(v[GR_SCHED_PREV_PID][i]);
		o->prev_tid = sat32(v[GR_SCHED_PREV_TID][i]);
		o->next_pid = sat32(v[GR_SCHED_NEXT_PID][i]);
		o->next_tid = sat32(v[GR_SCHED_NEXT_TID][i]);
		o->type = v[GR_SCHED_TYPE][i] > 255 ? 255 : (uint8_t)v[GR_SCHED_TYPE][i];
	}
	m->scheds.n += n;
	return 0;
}

static int load_procs(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_proc_event *o;
	int err;

	err = chunk_cols(L, c, GR_K_PROC, n, v, b);
	if (err)
		return err;
	err = RESERVE(m->procs, n);
	if (err)
		return oom(L, err, "process events");
	o = m->procs.v + m->procs.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_PROC_TS][i];
		note_ts(L, GR_K_PROC, o->ts);
		o->type = v[GR_PROC_TYPE][i] > 255 ? 255 : (uint8_t)v[GR_PROC_TYPE][i];
		o->pid = sat32(v[GR_PROC_PID][i]);
		o->tid = sat32(v[GR_PROC_TID][i]);
		o->value = v[GR_PROC_VALUE][i];
		o->text = text_of(L, &b[GR_PROC_TEXT][i]);
		if (!o->text)
			return oom(L, -ENOMEM, "process events");
	}
	m->procs.n += n;
	return 0;
}

static int load_losses(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	struct gr_loss *o;
	int err;

	err = chunk_cols(L, c, GR_K_LOSS, n, v, NULL);
	if (err)
		return err;
	err = RESERVE(m->losses, n);
	if (err)
		return oom(L, err, "losses");
	o = m->losses.v + m->losses.n;
	for (uint32_t i = 0; i < n; i++, o++) {
		memset(o, 0, sizeof(*o));
		o->ts = v[GR_LOSS_TS][i];
		note_ts(L, GR_K_LOSS, o->ts);
		o->ts_end = v[GR_LOSS_TS_END][i];
		o->count = v[GR_LOSS_COUNT][i];
		o->source = sat32(v[GR_LOSS_SOURCE][i]);
		m->lost = o->count > UINT64_MAX - m->lost ? UINT64_MAX : m->lost + o->count;
	}
	m->losses.n += n;
	return 0;
}

/* ---- metadata: keyed, last record wins ---- */

static int load_names(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	int err;

	err = chunk_cols(L, c, GR_K_NAME, n, v, b);
	if (err)
		return err;
	for (uint32_t i = 0; i < n && err >= 0; i++) {
		const char *text = text_of(L, &b[GR_NAME_TEXT][i]);
		uint64_t k[2] = {sat32(v[GR_NAME_PID][i]), v[GR_NAME_KEY][i]};
		uint32_t idx;

		if (!text)
			return oom(L, -ENOMEM, "names");
		if (!*text)
			continue;
		switch (v[GR_NAME_CLASS][i]) {
		case GR_NAME_KERNEL:
			err = gr_keymap_intern(&L->kname_k, k, &idx);
			if (err >= 0)
				err = SET_AT(L->kname, idx, &text);
			break;
		case GR_NAME_KERNEL_RAW:
			err = gr_keymap_intern(&L->kraw_k, k, &idx);
			if (err >= 0)
				err = SET_AT(L->kraw, idx, &text);
			break;
		case GR_NAME_COMM:
			k[0] = sat32(v[GR_NAME_KEY][i]);
			err = gr_keymap_intern(&L->comm_k, k, &idx);
			if (err >= 0)
				err = SET_AT(L->comm, idx, &text);
			break;
		case GR_NAME_LIBRARY:
			k[0] = (uintptr_t)text;
			err = gr_keymap_intern(&L->lib_k, k, &idx);
			if (err == 1) {
				err = RESERVE(m->libraries, 1);
				if (!err)
					m->libraries.v[m->libraries.n++] = text;
			}
			break;
		default: /* a class from a newer build */
			break;
		}
	}
	return err < 0 ? oom(L, err, "names") : 0;
}

static int load_mappings(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	int err;

	err = chunk_cols(L, c, GR_K_MAPPING, n, v, b);
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		const struct gr_bytes *bid = &b[GR_MAP_BUILDID][i];
		uint64_t k[3] = {sat32(v[GR_MAP_PID][i]), v[GR_MAP_START][i], v[GR_MAP_END][i]};
		struct gr_mapping e = {
		    .start = k[1],
		    .end = k[2],
		    .pgoff = v[GR_MAP_PGOFF][i],
		    .pid = (uint32_t)k[0],
		    .path = text_of(L, &b[GR_MAP_PATH][i]),
		    .build_id_len = bid->data ? bid->len : 0,
		};
		uint32_t idx;

		e.build_id =
		    (const uint8_t *)gr_arena_strndup(&m->arena, bid->data, e.build_id_len);
		if (!e.path || !e.build_id)
			return oom(L, -ENOMEM, "mappings");
		err = gr_keymap_intern(&L->map_k, k, &idx);
		if (err >= 0)
			err = SET_AT(m->mappings, idx, &e);
		if (err < 0)
			return oom(L, err, "mappings");
	}
	return 0;
}

static int load_symbols(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	int err;

	err = chunk_cols(L, c, GR_K_SYMBOL, n, v, b);
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k[2] = {sat32(v[GR_SYM_PID][i]), v[GR_SYM_ADDR][i]};
		struct gr_symbol e = {
		    .addr = k[1],
		    .start = v[GR_SYM_START][i],
		    .size = v[GR_SYM_SIZE][i],
		    .pid = (uint32_t)k[0],
		    .name = text_of(L, &b[GR_SYM_NAME][i]),
		};
		uint32_t idx;

		if (!e.name)
			return oom(L, -ENOMEM, "symbols");
		err = gr_keymap_intern(&L->sym_k, k, &idx);
		if (err >= 0)
			err = SET_AT(m->symbols, idx, &e);
		if (err < 0)
			return oom(L, err, "symbols");
	}
	return 0;
}

static int load_stacks(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	int err;

	err = chunk_cols(L, c, GR_K_STACK, n, v, b);
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		const struct gr_bytes *fb = &b[GR_STACK_FRAMES][i];
		uint64_t k[2] = {v[GR_STACK_ID][i], sat32(v[GR_STACK_PID][i])};
		struct gr_stack e = {.id = k[0], .pid = (uint32_t)k[1]};
		uint64_t *frames;
		uint32_t idx;

		if (!e.id)
			continue; /* id 0 means "no stack" */
		err = model_stack_index(L, e.pid, e.id, &idx);
		if (err < 0)
			return oom(L, err, "stacks");
		if (m->stacks.v[idx].frames)
			continue; /* a repeat: the frames of an id never change */
		e.nframes = fb->data ? fb->len / 8 : 0;
		if (!e.nframes)
			continue;
		frames = gr_arena_alloc(&m->arena, (size_t)e.nframes * 8);
		if (!frames)
			return oom(L, -ENOMEM, "stacks");
		for (uint32_t f = 0; f < e.nframes; f++) {
			const uint8_t *p = fb->data + (size_t)f * 8;

			frames[f] = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
				    (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
				    (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
				    (uint64_t)p[7] << 56;
		}
		e.frames = frames;
		m->stacks.v[idx] = e;
	}
	return 0;
}

static int load_session(struct loader *L, const struct gr_chunk *c, uint32_t n)
{
	const uint64_t *v[GR_MAX_COLUMNS];
	const struct gr_bytes *b[GR_MAX_COLUMNS];
	struct gr_model *m = L->m;
	int err;

	err = chunk_cols(L, c, GR_K_SESSION, n, v, b);
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k[1] = {sat32(v[GR_SESS_KEY][i])};
		struct gr_session_fact e = {
		    .key = (uint32_t)k[0],
		    .value = v[GR_SESS_VALUE][i],
		    .text = text_of(L, &b[GR_SESS_TEXT][i]),
		};
		uint32_t idx;

		if (!e.text)
			return oom(L, -ENOMEM, "session facts");
		err = gr_keymap_intern(&L->sess_k, k, &idx);
		if (err >= 0)
			err = SET_AT(m->session, idx, &e);
		if (err < 0)
			return oom(L, err, "session facts");
	}
	return 0;
}

typedef int (*load_fn)(struct loader *L, const struct gr_chunk *c, uint32_t n);

static const load_fn loaders[GR_K_COUNT] = {
    [GR_K_LAUNCH] = load_launches, [GR_K_COPY] = load_copies,	   [GR_K_MEMSET] = load_memsets,
    [GR_K_ALLOC] = load_allocs,	   [GR_K_FREE] = load_frees,	   [GR_K_SYNC] = load_syncs,
    [GR_K_GRAPH] = load_graphs,	   [GR_K_SCHED] = load_scheds,	   [GR_K_PROC] = load_procs,
    [GR_K_NAME] = load_names,	   [GR_K_MAPPING] = load_mappings, [GR_K_SYMBOL] = load_symbols,
    [GR_K_STACK] = load_stacks,	   [GR_K_LOSS] = load_losses,	   [GR_K_SESSION] = load_session,
};

int model_read_chunk(struct loader *L, const struct gr_chunk *c)
{
	struct gr_model *m = L->m;
	uint64_t total = gr_chunk_total(c);
	int err = 0;

	L->chunk_offset = gr_chunk_offset(c);
	if (L->max_records && total > L->max_records - L->nrecords)
		return gr_diag_set(L->diag, GR_ERR_LIMIT, L->chunk_offset,
				   "more than %" PRIu64 " records", L->max_records);
	L->nrecords += total;
	if (total) {
		uint64_t first = gr_chunk_first_ts(c), last = gr_chunk_last_ts(c);

		if (first < m->first_ts)
			m->first_ts = first;
		if (last > m->last_ts)
			m->last_ts = last;
	}
	for (uint16_t k = 1; k < GR_K_COUNT && !err; k++) {
		uint32_t n;

		if (!L->present[k])
			continue;
		n = gr_chunk_count(c, k);
		if (!n)
			continue;
		m->counts[k] += n;
		if (loaders[k])
			err = loaders[k](L, c, n);
	}
	return err;
}
