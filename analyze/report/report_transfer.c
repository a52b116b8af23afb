/* SPDX-License-Identifier: MIT */
/*
 * Report 3, transfers: per direction the copies' count, bytes, call time and size histogram, and
 * the effective bandwidth of the copies whose call blocked until the data had moved; the share
 * of wall and iteration time the host spent blocked in copy calls; three findings over the loop
 * (pageable async copies, synchronous copies, tiny read-backs followed by a sync: .item()); and
 * the verdict. Pinned host memory is known from the recorded allocations (cudaHostAlloc,
 * cudaMallocHost, cudaHostRegister and the driver's equivalents) and their frees (memmap.h), as
 * is the direction of copies recorded as "default", which the model resolves at load.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/model/memmap.h"
#include "report_sections.h"

const uint64_t gr_report_size_edges[GR_REPORT_SIZE_BUCKETS - 1] = {
    1024, 65536, 1u << 20, 16u << 20, 256u << 20,
};

static unsigned dir_of(unsigned kind)
{
	return kind < GR_REPORT_NDIRS ? kind : GR_COPY_DEFAULT;
}

static unsigned size_bucket(uint64_t bytes)
{
	unsigned b = 0;

	while (b < GR_REPORT_SIZE_BUCKETS - 1 && bytes > gr_report_size_edges[b])
		b++;
	return b;
}

/* A finding under construction: counts per call site. */
struct fnd {
	const char *rule;
	uint64_t count, bytes, time_ns;
	struct gr_keymap sites;
	uint64_t *site_count;
	size_t cap;
};

static int fnd_add(struct fnd *f, uint32_t stack, uint64_t bytes, uint64_t ns)
{
	uint64_t key = stack;
	uint32_t idx;
	int err = gr_keymap_intern(&f->sites, &key, &idx);

	if (err < 0)
		return err;
	if (idx >= f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 8;
		uint64_t *v = realloc(f->site_count, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + f->cap, 0, (ncap - f->cap) * sizeof(*v));
		f->site_count = v;
		f->cap = ncap;
	}
	f->site_count[idx]++;
	f->count++;
	f->bytes += bytes;
	f->time_ns += ns;
	return 0;
}

static int fnd_emit(struct rp_ctx *x, struct fnd *f, struct gr_report_finding *out,
		    const char *detail)
{
	size_t n = f->sites.len;

	memset(out, 0, sizeof(*out));
	out->rule = f->rule;
	out->count = f->count;
	out->bytes = f->bytes;
	out->time_ns = f->time_ns;
	if (x->r->launches.iter.found)
		out->per_iteration = (double)f->count / (double)x->r->launches.iter.count;
	out->detail = rp_printf(x, "%s", detail);
	out->sites = rp_alloc(x, n, sizeof(*out->sites));
	out->site_counts = rp_alloc(x, n, sizeof(*out->site_counts));
	if (!out->detail || !out->sites || !out->site_counts)
		return -ENOMEM;
	/* sites by count, descending (selection: sites are few) */
	for (size_t i = 0; i < n; i++) {
		size_t best = n;
		int err;

		for (size_t j = 0; j < n; j++)
			if (f->site_count[j] &&
			    (best == n || f->site_count[j] > f->site_count[best]))
				best = j;
		if (best == n)
			break;
		err = rp_site(x, &out->sites[i],
			      (uint32_t)gr_keymap_key(&f->sites, (uint32_t)best)[0], 0);
		if (err)
			return err;
		out->site_counts[i] = f->site_count[best];
		f->site_count[best] = 0;
		out->nsites++;
	}
	return 0;
}

static int is_sync_call(const struct rp_ctx *x, const struct rp_next *nx)
{
	return nx->kind == RP_SYNC && x->sy[nx->idx].kind <= GR_SYNC_EVENT;
}

static int verdict(struct rp_ctx *x, const uint64_t *dir_iter_bytes)
{
	struct gr_report_transfer *T = &x->r->transfer;
	const struct gr_report_iteration *it = &x->r->launches.iter;
	const struct gr_report_finding *top = NULL;
	double share = it->found ? T->iter_share : T->wall_share;
	double rate = T->loop_blocking_ns
			  ? (double)T->loop_blocking_bytes * 1e9 / (double)T->loop_blocking_ns
			  : 0;
	/* blocked in copies, and moving data while blocked: transfer-bound, as the step's
	 * diagnosis decides when there is a step (without one, over the recording); blocked but
	 * moving next to nothing: the copies wait for the GPU (a sync in disguise) */
	enum gr_step_bound step = x->r->diagnosis.bound;
	int blocked = share >= RP_TRANSFER_BOUND;
	int bound =
	    step == GR_BOUND_NONE ? blocked && rate >= RP_TRANSFER_RATE : step == GR_BOUND_TRANSFER;
	char b1[32], b2[32], head[512] = "", tail[600];
	unsigned maxdir = GR_COPY_H2D;
	double span = it->found ? (double)(it->end_ts - it->start_ts) : (double)x->r->wall_ns;

	if (!T->copies && !T->memsets && T->graph_launches)
		return rp_verdict(x, &T->verdict, GR_VERDICT_OK,
				  "no copy or memset call blocked the host: %" PRIu64
				  " graph launches executed %" PRIu64 " copies (%s) and %" PRIu64
				  " memsets (%s) on the GPU",
				  T->graph_launches, T->graph_copies,
				  gr_units_bytes(b1, sizeof(b1), T->graph_bytes), T->graph_memsets,
				  gr_units_bytes(b2, sizeof(b2), T->graph_memset_bytes));
	if (!T->copies && !T->memsets)
		return rp_verdict(x, &T->verdict, GR_VERDICT_NONE, "%s",
				  x->r->damage.damaged ? "no copies or memsets in the part of the "
							 "damaged trace that was kept"
				  : x->r->cuda_libraries ? "no copies or memsets were recorded"
							 : "no CUDA library was loaded: no copies");
	for (size_t i = 0; i < T->nfindings; i++)
		if (!top || T->findings[i].time_ns > top->time_ns)
			top = &T->findings[i];
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++)
		if (dir_iter_bytes[d] > dir_iter_bytes[maxdir])
			maxdir = d;
	if (it->found && !T->iter_copy_ns && !dir_iter_bytes[maxdir])
		snprintf(tail, sizeof(tail), "no copy in the loop (%" PRIu64 " outside it)",
			 T->copies);
	else if (it->found)
		snprintf(tail, sizeof(tail),
			 "copies block the loop thread %.1f%% of the iteration (%s per iteration; "
			 "%s %s per iteration)",
			 T->iter_share * 100,
			 gr_units_ns(b1, sizeof(b1), T->iter_copy_ns / it->count),
			 gr_copy_kind_name(maxdir),
			 gr_units_bytes(b2, sizeof(b2), dir_iter_bytes[maxdir] / it->count));
	else
		snprintf(tail, sizeof(tail),
			 "copies block the busiest thread %.1f%% of the recording (%s)",
			 T->wall_share * 100, gr_units_ns(b1, sizeof(b1), T->busiest_copy_ns));
	if (blocked && !bound) {
		size_t at = strlen(tail);

		snprintf(tail + at, sizeof(tail) - at,
			 ", moving %s while blocked: the time is spent waiting for the GPU, not "
			 "moving data",
			 gr_units_rate(b1, sizeof(b1), rate));
	}
	if (top) {
		if (!strcmp(top->rule, "pageable_async"))
			snprintf(head, sizeof(head),
				 "%" PRIu64 " async copies from pageable memory ran synchronously "
				 "(%s blocked): pin the host buffers",
				 top->count, gr_units_ns(b1, sizeof(b1), top->time_ns));
		else if (!strcmp(top->rule, "item_pattern"))
			snprintf(head, sizeof(head),
				 "the .item() pattern: %" PRIu64 " tiny device-to-host reads, each "
				 "followed by a sync, stalled the host %s: read values less often",
				 top->count, gr_units_ns(b1, sizeof(b1), top->time_ns));
		else
			snprintf(head, sizeof(head),
				 "%s in the %s blocked the host %s: use async copies from pinned "
				 "memory",
				 gr_units_count(b2, sizeof(b2), top->count, "synchronous copy",
						"synchronous copies"),
				 it->found ? "loop" : "recording",
				 gr_units_ns(b1, sizeof(b1), top->time_ns));
		/* a pattern that cost next to nothing is worth a mention, not a problem: one
		 * read-back of a scalar at the end of a run is no reason to change the program */
		if (!bound && !blocked && span > 0 && top->time_ns < span * RP_FINDING_SHARE)
			return rp_verdict(x, &T->verdict, GR_VERDICT_OK,
					  "not transfer-bound: %s; note: %s, %.2f%% of the %s "
					  "(a problem from %.0f%%)",
					  tail, head, top->time_ns * 100 / span,
					  it->found ? "loop" : "recording", RP_FINDING_SHARE * 100);
		return rp_verdict(x, &T->verdict, GR_VERDICT_PROBLEM, "%s%s; %s",
				  bound ? "transfer-bound: " : "", head, tail);
	}
	if (bound)
		return rp_verdict(x, &T->verdict, GR_VERDICT_PROBLEM,
				  "transfer-bound: %s; move less data or overlap it with compute",
				  tail);
	if (blocked)
		return rp_verdict(x, &T->verdict, GR_VERDICT_PROBLEM,
				  "%s; synchronise less often (copies that wait are syncs)", tail);
	return rp_verdict(x, &T->verdict, GR_VERDICT_OK,
			  "not transfer-bound: %s; no pageable async copy, synchronous copy or "
			  "tiny read-back in the %s",
			  tail, it->found ? "loop" : "recording");
}

/* What graph launches executed: the nodes' bytes, once per launch that ran them. */
static void graph_executed(struct gr_report_transfer *T, const struct gr_graphs_summary *s)
{
	T->graph_launches = s->mem_launches;
	T->graph_memsets = s->memsets_executed;
	T->graph_memset_bytes = s->memset_bytes_executed;
	for (unsigned d = 0; d < GR_REPORT_NDIRS && d < GR_GRAPHS_COPY_KINDS; d++) {
		T->dirs[d].graph_count = s->copies_executed[d];
		T->dirs[d].graph_bytes = s->copy_bytes_executed[d];
		T->graph_copies += s->copies_executed[d];
		T->graph_bytes += s->copy_bytes_executed[d];
	}
}

int rp_transfer(struct rp_ctx *x)
{
	struct gr_report_transfer *T = &x->r->transfer;
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_memmap *mem = NULL;
	struct fnd f[3] = {
	    {.rule = "pageable_async"}, {.rule = "sync_copy_in_loop"}, {.rule = "item_pattern"}};
	uint64_t *per_thread = calloc(x->nth + 1, sizeof(uint64_t));
	uint64_t lo = it->found ? it->start_ts : 0, hi = it->found ? it->end_ts : UINT64_MAX;
	uint64_t dir_iter_bytes[GR_REPORT_NDIRS] = {0};
	char b1[32], b2[32], b3[32], detail[512];
	int err = -ENOMEM;

	for (int i = 0; i < 3; i++)
		gr_keymap_init(&f[i].sites, 1);
	if (!per_thread)
		goto out;
	err = gr_memmap_build(&mem, x->m);
	if (err)
		goto out;
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++) {
		T->dirs[d].kind = d;
		T->dirs[d].name = gr_copy_kind_name(d);
	}
	for (size_t i = 0; i < x->nc; i++) {
		const struct gr_copy *c = &x->c[i];
		struct gr_report_direction *D = &T->dirs[dir_of(c->kind)];
		uint32_t pid = x->th[c->thread].pid;
		int async = !!(c->flags & GR_COPY_F_ASYNC), pageable = 0, blocking, in_loop;
		unsigned b = size_bucket(c->bytes);
		uint64_t dur;

		/* a copy captured or added to a graph copied nothing then: graph launches do */
		if (gr_graphs_copy_is_node(x->ls.graphs, i))
			continue;
		dur = rp_dur(x, c->dur); /* counted once: rp_dur() counts clamps */
		if (c->kind == GR_COPY_H2D)
			pageable = !gr_memmap_pinned_at(mem, pid, c->src, c->ts);
		else if (c->kind == GR_COPY_D2H)
			pageable = !gr_memmap_pinned_at(mem, pid, c->dst, c->ts);
		blocking = async ? (pageable || c->kind == GR_COPY_H2H) : c->kind != GR_COPY_D2D;
		T->copies++;
		T->bytes += c->bytes;
		T->copy_ns += dur;
		D->count++;
		D->bytes += c->bytes;
		D->time_ns += dur;
		D->async_count += (uint64_t)async;
		D->hist_count[b]++;
		D->hist_bytes[b] += c->bytes;
		if (blocking) {
			D->blocking_count++;
			D->blocking_bytes += c->bytes;
			D->blocking_ns += dur;
		}
		per_thread[c->thread] += dur;
		in_loop = c->ts >= lo && c->ts <= hi;
		if (!in_loop)
			continue;
		if (blocking) {
			T->loop_blocking_bytes += c->bytes;
			T->loop_blocking_ns += dur;
		}
		if (it->found && c->thread == it->thread) {
			T->iter_copy_ns += dur;
			dir_iter_bytes[dir_of(c->kind)] += c->bytes;
		}
		if (async && pageable)
			err = fnd_add(&f[0], c->stack, c->bytes, dur);
		if (!err && c->kind == GR_COPY_D2H && c->bytes <= RP_TINY_D2H) {
			const struct rp_next *nx = &x->copy_next[i];

			if (!async)
				err = fnd_add(&f[2], c->stack, c->bytes, dur);
			else if (is_sync_call(x, nx))
				err = fnd_add(&f[2], c->stack, c->bytes,
					      dur + rp_dur(x, x->sy[nx->idx].dur));
		} else if (!err && !async && c->kind != GR_COPY_D2D &&
			   !(c->kind == GR_COPY_H2D && c->bytes <= RP_SMALL_H2D)) {
			err = fnd_add(&f[1], c->stack, c->bytes, dur);
		}
		if (err)
			goto out;
	}
	for (unsigned d = 0; d < GR_REPORT_NDIRS; d++)
		if (T->dirs[d].blocking_ns)
			T->dirs[d].bandwidth = (double)T->dirs[d].blocking_bytes * 1e9 /
					       (double)T->dirs[d].blocking_ns;
	for (size_t i = 0; i < x->nms; i++) {
		if (gr_graphs_memset_is_node(x->ls.graphs, i))
			continue;
		T->memsets++;
		T->memset_bytes += x->ms[i].bytes;
		T->memset_ns += rp_dur(x, x->ms[i].dur);
	}
	graph_executed(T, gr_graphs_summary(x->ls.graphs));
	for (size_t i = 0; i < x->nsy; i++)
		if (x->sy[i].kind <= GR_SYNC_EVENT) {
			T->syncs++;
			T->sync_ns += rp_dur(x, x->sy[i].dur);
		}
	for (size_t t = 0; t < x->nth; t++)
		if (per_thread[t] > T->busiest_copy_ns) {
			T->busiest_copy_ns = per_thread[t];
			T->busiest_thread = (uint32_t)t;
		}
	if (x->r->wall_ns)
		T->wall_share = (double)T->busiest_copy_ns / (double)x->r->wall_ns;
	if (it->found && it->end_ts > it->start_ts)
		T->iter_share = (double)T->iter_copy_ns / (double)(it->end_ts - it->start_ts);

	T->findings = rp_alloc(x, 3, sizeof(*T->findings));
	if (!T->findings)
		goto oom;
	if (f[0].count) {
		snprintf(
		    detail, sizeof(detail),
		    "%" PRIu64 " cudaMemcpyAsync calls (%s) used pageable host memory: each "
		    "ran synchronously, blocking the thread %s in all; allocate the host buffer "
		    "pinned (cudaMallocHost / cudaHostAlloc / pin_memory=True)",
		    f[0].count, gr_units_bytes(b1, sizeof(b1), f[0].bytes),
		    gr_units_ns(b2, sizeof(b2), f[0].time_ns));
		err = fnd_emit(x, &f[0], &T->findings[T->nfindings++], detail);
		if (err)
			goto out;
	}
	if (f[2].count) {
		snprintf(detail, sizeof(detail),
			 "%" PRIu64 " device-to-host reads of at most %d bytes (%s) were each "
			 "followed by a sync (or were synchronous): the host waited %s for the GPU "
			 "(%s per read); keep the value on the GPU and read it every N steps",
			 f[2].count, RP_TINY_D2H, gr_units_bytes(b1, sizeof(b1), f[2].bytes),
			 gr_units_ns(b2, sizeof(b2), f[2].time_ns),
			 gr_units_ns(b3, sizeof(b3), f[2].time_ns / f[2].count));
		err = fnd_emit(x, &f[2], &T->findings[T->nfindings++], detail);
		if (err)
			goto out;
	}
	if (f[1].count) {
		snprintf(detail, sizeof(detail),
			 "%s (%s) in the %s blocked the thread %s; use cudaMemcpyAsync from "
			 "pinned memory and sync once%s",
			 gr_units_count(b3, sizeof(b3), f[1].count, "synchronous copy",
					"synchronous copies"),
			 gr_units_bytes(b1, sizeof(b1), f[1].bytes),
			 it->found ? "loop" : "recording",
			 gr_units_ns(b2, sizeof(b2), f[1].time_ns),
			 it->found ? ", or move them out of the loop" : "");
		err = fnd_emit(x, &f[1], &T->findings[T->nfindings++], detail);
		if (err)
			goto out;
	}
	err = verdict(x, dir_iter_bytes);
	goto out;
oom:
	err = -ENOMEM;
out:
	for (int i = 0; i < 3; i++) {
		gr_keymap_free(&f[i].sites);
		free(f[i].site_count);
	}
	gr_memmap_free(mem);
	free(per_thread);
	return err;
}
