/* SPDX-License-Identifier: MIT */
/*
 * The model in memory (see model.h): what the loader (model_load.c) built, freed and looked up.
 * Lookups by id or address are binary searches over the tables the loader sorted.
 */
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "model_impl.h"

void gr_model_free(struct gr_model *m)
{
	if (!m)
		return;
	RELEASE(m->launches);
	RELEASE(m->launch_keys);
	RELEASE(m->sched_keys);
	RELEASE(m->copies);
	RELEASE(m->memsets);
	RELEASE(m->allocs);
	RELEASE(m->frees);
	RELEASE(m->syncs);
	RELEASE(m->graphs);
	RELEASE(m->scheds);
	RELEASE(m->procs);
	RELEASE(m->traces);
	RELEASE(m->losses);
	RELEASE(m->gpus);
	RELEASE(m->meminfos);
	RELEASE(m->nvtx_raw);
	RELEASE(m->nvtx);
	RELEASE(m->nvtx_texts);
	RELEASE(m->asides);
	RELEASE(m->comm_calls);
	RELEASE(m->comm_asides);
	RELEASE(m->kernels);
	RELEASE(m->kernel_names);
	RELEASE(m->configs);
	RELEASE(m->threads);
	RELEASE(m->streams);
	RELEASE(m->processes);
	RELEASE(m->libraries);
	RELEASE(m->unprobed);
	RELEASE(m->mappings);
	RELEASE(m->symbols);
	RELEASE(m->stacks);
	RELEASE(m->pyframes);
	RELEASE(m->pythons);
	free(m->stacks_by_id);
	RELEASE(m->comms);
	RELEASE(m->session);
	gr_arena_free(&m->arena);
	free(m);
}

/* ---- accessors ---- */

const struct gr_trace_header *gr_model_header(const struct gr_model *m)
{
	return &m->hdr;
}

const struct gr_integrity *gr_model_integrity(const struct gr_model *m)
{
	return &m->integ;
}

int gr_model_ended_abruptly(const struct gr_model *m, uint64_t *last_ts)
{
	if (m->integ.footer_present)
		return 0;
	gr_model_time_span(m, NULL, last_ts);
	return 1;
}

int gr_model_has_kind(const struct gr_model *m, unsigned kind)
{
	return kind < GR_K_COUNT && m->kinds[kind];
}

uint64_t gr_model_record_count(const struct gr_model *m, unsigned kind)
{
	return kind < GR_K_COUNT ? m->counts[kind] : 0;
}

#define ACCESSOR(fn, type, field)                                                                  \
	const type *fn(const struct gr_model *m, size_t *n)                                        \
	{                                                                                          \
		if (n)                                                                             \
			*n = m->field.n;                                                           \
		return m->field.v;                                                                 \
	}

ACCESSOR(gr_model_launches, struct gr_launch, launches)
ACCESSOR(gr_model_launch_keys, struct gr_launch_key, launch_keys)
ACCESSOR(gr_model_sched_keys, struct gr_sched_key, sched_keys)
ACCESSOR(gr_model_copies, struct gr_copy, copies)
ACCESSOR(gr_model_memsets, struct gr_memset, memsets)
ACCESSOR(gr_model_allocs, struct gr_alloc, allocs)
ACCESSOR(gr_model_frees, struct gr_free, frees)
ACCESSOR(gr_model_meminfos, struct gr_meminfo, meminfos)
ACCESSOR(gr_model_nvtx, struct gr_nvtx, nvtx)
ACCESSOR(gr_model_syncs, struct gr_sync, syncs)
ACCESSOR(gr_model_graphs, struct gr_graph, graphs)
ACCESSOR(gr_model_comm_calls, struct gr_comm_call, comm_calls)
ACCESSOR(gr_model_comm_asides, struct gr_comm_call, comm_asides)
ACCESSOR(gr_model_asides, struct gr_aside, asides)

unsigned gr_aside_api(const struct gr_model *m, const struct gr_aside *a)
{
	switch (a->kind) {
	case GR_K_LAUNCH:
		return m->launch_keys.v[a->u.launch.key].api;
	case GR_K_COPY:
		return a->u.copy.api;
	case GR_K_MEMSET:
		return a->u.memset.api;
	case GR_K_ALLOC:
		return a->u.alloc.api;
	case GR_K_FREE:
		return a->u.free.api;
	case GR_K_SYNC:
		return a->u.sync.api;
	default:
		return a->u.graph.api;
	}
}

uint32_t gr_aside_thread(const struct gr_model *m, const struct gr_aside *a)
{
	switch (a->kind) {
	case GR_K_LAUNCH:
		return m->launch_keys.v[a->u.launch.key].thread;
	case GR_K_COPY:
		return a->u.copy.thread;
	case GR_K_MEMSET:
		return a->u.memset.thread;
	case GR_K_ALLOC:
		return a->u.alloc.thread;
	case GR_K_FREE:
		return a->u.free.thread;
	case GR_K_SYNC:
		return a->u.sync.thread;
	default:
		return a->u.graph.thread;
	}
}

uint32_t gr_aside_stack(const struct gr_model *m, const struct gr_aside *a)
{
	switch (a->kind) {
	case GR_K_LAUNCH:
		return m->launch_keys.v[a->u.launch.key].stack;
	case GR_K_COPY:
		return a->u.copy.stack;
	case GR_K_MEMSET:
		return a->u.memset.stack;
	case GR_K_SYNC:
		return a->u.sync.stack;
	case GR_K_GRAPH:
		return a->u.graph.stack;
	case GR_K_ALLOC:
		return a->u.alloc.stack;
	default:
		return 0;
	}
}

uint32_t gr_aside_stream(const struct gr_model *m, const struct gr_aside *a)
{
	switch (a->kind) {
	case GR_K_LAUNCH:
		return m->launch_keys.v[a->u.launch.key].stream;
	case GR_K_COPY:
		return a->u.copy.stream;
	case GR_K_MEMSET:
		return a->u.memset.stream;
	case GR_K_ALLOC:
		return a->u.alloc.stream;
	case GR_K_GRAPH:
		return a->u.graph.stream;
	default:
		return UINT32_MAX;
	}
}
ACCESSOR(gr_model_scheds, struct gr_sched, scheds)
ACCESSOR(gr_model_proc_events, struct gr_proc_event, procs)
ACCESSOR(gr_model_losses, struct gr_loss, losses)
ACCESSOR(gr_model_gpus, struct gr_gpu, gpus)
ACCESSOR(gr_model_kernels, struct gr_kernel, kernels)
ACCESSOR(gr_model_configs, struct gr_config, configs)
ACCESSOR(gr_model_threads, struct gr_thread, threads)
ACCESSOR(gr_model_streams, struct gr_stream, streams)
ACCESSOR(gr_model_processes, struct gr_process, processes)
ACCESSOR(gr_model_mappings, struct gr_mapping, mappings)
ACCESSOR(gr_model_symbols, struct gr_symbol, symbols)
ACCESSOR(gr_model_stacks, struct gr_stack, stacks)
ACCESSOR(gr_model_pyframes, struct gr_pyframe, pyframes)
ACCESSOR(gr_model_pythons, struct gr_python, pythons)
ACCESSOR(gr_model_traces, struct gr_model_trace, traces)

const struct gr_pyframe *gr_model_pyframe(const struct gr_model *m, uint64_t frame)
{
	struct gr_pyframe key = {.key = frame};

	if (!GR_FRAME_IS_PYTHON(frame) || !m->pyframes.n)
		return NULL;
	return gr_bsearch(&key, m->pyframes.v, m->pyframes.n, sizeof(key), cmp_pyframe);
}

const char *const *gr_model_kernel_names(const struct gr_model *m, size_t *n)
{
	if (n)
		*n = m->kernel_names.n;
	return m->kernel_names.v;
}

const char *const *gr_model_libraries(const struct gr_model *m, size_t *n)
{
	if (n)
		*n = m->libraries.n;
	return m->libraries.v;
}

const char *const *gr_model_unprobed_libraries(const struct gr_model *m, size_t *n)
{
	if (n)
		*n = m->unprobed.n;
	return m->unprobed.v;
}

const char *gr_model_comm(const struct gr_model *m, uint32_t tid)
{
	struct comm_entry key = {.tid = tid}, *e;

	e = m->comms.n ? gr_bsearch(&key, m->comms.v, m->comms.n, sizeof(key), cmp_comm) : NULL;
	return e ? e->comm : NULL;
}

/* First position in stacks_by_id of a stack with @id. */
static size_t stack_lower_bound(const struct gr_model *m, uint64_t id)
{
	size_t lo = 0, hi = m->stacks.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->stacks.v[m->stacks_by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct gr_stack *gr_model_stack(const struct gr_model *m, uint32_t pid, uint64_t id)
{
	const struct gr_stack *any = NULL;

	if (!id)
		return NULL;
	for (size_t i = stack_lower_bound(m, id); i < m->stacks.n; i++) {
		const struct gr_stack *s = &m->stacks.v[m->stacks_by_id[i]];

		if (s->id != id)
			break;
		if (s->pid == pid)
			return s;
		if (s->pid == 0)
			any = s;
	}
	return any;
}

/* Index of the first symbol at or after (@pid, @addr). */
static size_t symbol_lower_bound(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = m->symbols.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gr_symbol *s = &m->symbols.v[mid];

		if (s->pid < pid || (s->pid == pid && s->addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int symbol_holds(const struct gr_symbol *s, uint32_t pid, uint64_t addr)
{
	return s->pid == pid && s->start <= addr && addr - s->start < s->size;
}

const struct gr_symbol *gr_model_symbol(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	size_t i = symbol_lower_bound(m, pid, addr);

	if (i < m->symbols.n && m->symbols.v[i].pid == pid && m->symbols.v[i].addr == addr)
		return &m->symbols.v[i];
	/*
	 * Functions do not overlap, so the recorded addresses of the function holding @addr are
	 * contiguous in (pid, addr) order: if any exists, one of the two neighbours is one.
	 */
	if (i < m->symbols.n && symbol_holds(&m->symbols.v[i], pid, addr))
		return &m->symbols.v[i];
	if (i > 0 && symbol_holds(&m->symbols.v[i - 1], pid, addr))
		return &m->symbols.v[i - 1];
	return NULL;
}

const struct gr_mapping *gr_model_mapping(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = m->mappings.n;

	/* first mapping after (pid, addr) by (pid, start) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gr_mapping *e = &m->mappings.v[mid];

		if (e->pid < pid || (e->pid == pid && e->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* mappings of one pid rarely overlap (a re-map after exec): look back a little */
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++) {
		const struct gr_mapping *e = &m->mappings.v[i - 1];

		if (e->pid != pid)
			break;
		if (addr < e->end)
			return e;
	}
	return NULL;
}

int gr_model_session(const struct gr_model *m, unsigned key, uint64_t *value, const char **text)
{
	for (size_t i = 0; i < m->session.n; i++) {
		if (m->session.v[i].key != key || !m->session.v[i].text)
			continue;
		if (value)
			*value = m->session.v[i].value;
		if (text)
			*text = m->session.v[i].text;
		return 1;
	}
	return 0;
}

int gr_model_session_min(const struct gr_model *m, unsigned key, uint64_t *min, int *differs)
{
	int n = 0;

	*differs = 0;
	for (size_t i = 0; i < m->session.n; i++) {
		uint64_t v = m->session.v[i].value;

		if (m->session.v[i].key != key || !m->session.v[i].text)
			continue;
		if (n && v != *min)
			*differs = 1;
		if (!n++ || v < *min)
			*min = v;
	}
	return n;
}

uint64_t gr_model_session_sum(const struct gr_model *m, unsigned key)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < m->session.n; i++)
		if (m->session.v[i].key == key && m->session.v[i].text)
			sum += m->session.v[i].value;
	return sum;
}

int gr_model_is_recorder(const struct gr_model *m, uint32_t pid)
{
	for (size_t i = 0; i < m->session.n; i++)
		if ((m->session.v[i].key == GR_SESS_RECORDER_PID ||
		     m->session.v[i].key == GR_SESS_WATCHDOG_PID) &&
		    m->session.v[i].value == pid && pid)
			return 1;
	return 0;
}

uint64_t gr_model_lost_events(const struct gr_model *m)
{
	return m->lost;
}

uint64_t gr_model_lost_stacks(const struct gr_model *m)
{
	return m->lost_stacks;
}

uint64_t gr_model_calls_ok(const struct gr_model *m)
{
	return m->calls_ok;
}

/* 1 for the per-thread default stream entry points (nvcc --default-stream per-thread): with
 * stream 0 they run on the calling thread's own default stream. */
static int per_thread_api(uint64_t api)
{
	switch (api) {
	case GR_API___cudaLaunchKernel_ptsz:
	case GR_API_cudaLaunchKernel_ptsz:
	case GR_API_cudaLaunchKernelExC_ptsz:
	case GR_API_cudaLaunchCooperativeKernel_ptsz:
	case GR_API_cudaGraphLaunch_ptsz:
	case GR_API_cuLaunchKernel_ptsz:
	case GR_API_cuLaunchKernelEx_ptsz:
	case GR_API_cuLaunchCooperativeKernel_ptsz:
	case GR_API_cuGraphLaunch_ptsz:
	case GR_API_cudaMemcpy_ptds:
	case GR_API_cudaMemcpyAsync_ptsz:
	case GR_API_cudaMemcpy2D_ptds:
	case GR_API_cudaMemcpy2DAsync_ptsz:
	case GR_API_cudaMemcpy3D_ptds:
	case GR_API_cudaMemcpy3DAsync_ptsz:
	case GR_API_cudaMemcpyToSymbol_ptds:
	case GR_API_cudaMemcpyFromSymbol_ptds:
	case GR_API_cudaMemcpyToSymbolAsync_ptsz:
	case GR_API_cudaMemcpyFromSymbolAsync_ptsz:
	case GR_API_cudaMemset_ptds:
	case GR_API_cudaMemsetAsync_ptsz:
	case GR_API_cudaMallocAsync_ptsz:
	case GR_API_cudaMallocFromPoolAsync_ptsz:
	case GR_API_cuMemAllocAsync_ptsz:
	case GR_API_cuMemAllocFromPoolAsync_ptsz:
	case GR_API_cudaFreeAsync_ptsz:
	case GR_API_cuMemFreeAsync_ptsz:
	case GR_API_cudaStreamSynchronize_ptsz:
	case GR_API_cudaStreamWaitEvent_ptsz:
	case GR_API_cudaEventRecord_ptsz:
	case GR_API_cudaStreamBeginCapture_ptsz:
	case GR_API_cudaStreamEndCapture_ptsz:
		return 1;
	default:
		return 0;
	}
}

uint64_t gr_stream_key(uint32_t tid, uint64_t api, uint64_t handle)
{
	if (handle == GR_STREAM_HANDLE_PER_THREAD || (handle == 0 && per_thread_api(api)))
		return GR_STREAM_PER_THREAD | tid;
	if (handle == GR_STREAM_HANDLE_LEGACY)
		return 0;
	return handle;
}

const char *gr_stream_name(const struct gr_stream *s, char *buf, size_t len)
{
	if (s->per_thread)
		snprintf(buf, len, "per-thread default stream (tid %" PRIu32 ")", s->tid);
	else if (!s->handle)
		snprintf(buf, len, "legacy default stream");
	else
		snprintf(buf, len, "stream 0x%" PRIx64, s->handle);
	return buf;
}

void gr_model_time_span(const struct gr_model *m, uint64_t *first, uint64_t *last)
{
	if (first)
		*first = m->first_ts;
	if (last)
		*last = m->last_ts < m->first_ts ? m->first_ts : m->last_ts;
}

const char *gr_model_nvtx_text(const struct gr_model *m, uint32_t idx)
{
	return idx < m->nvtx_texts.n ? m->nvtx_texts.v[idx] : "";
}
