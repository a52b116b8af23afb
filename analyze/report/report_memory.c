/* SPDX-License-Identifier: MIT */
/*
 * The device memory section: the figures of analyze/figures/memory.h over the report's loop, its
 * verdict, and its text and JSON. Definitions: docs/REPORTS.md ("Device memory").
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze/util/json.h"
#include "analyze/util/text.h"
#include "analyze/util/units.h"
#include "report_sections.h"

/* The transfer section's pageable async copies: what pinned memory would make asynchronous. */
static void pageable(struct rp_ctx *x, struct gr_report_memory *M)
{
	const struct gr_report_transfer *T = &x->r->transfer;

	for (size_t i = 0; i < T->nfindings; i++)
		if (!strcmp(T->findings[i].rule, "pageable_async")) {
			M->pageable_copies = T->findings[i].count;
			M->pageable_bytes = T->findings[i].bytes;
		}
}

static const char *site(const struct gr_memory *mem, uint32_t s, char *buf, size_t len)
{
	return gr_memory_site_text(mem, s, buf, len);
}

int rp_memory(struct rp_ctx *x)
{
	struct gr_report_memory *M = &x->r->memory;
	const struct gr_report_iteration *it = &x->r->launches.iter;
	struct gr_memory *mem = &M->m;
	struct gr_memory_loop loop = {0};
	const struct gr_memory_proc *top;
	char b1[32], b2[32], b3[32], s1[GR_FRAME_TEXT];
	int err;

	if (it->found && it->count && it->starts) {
		loop.thread = it->thread;
		loop.starts = it->starts;
		loop.n = it->count;
		loop.end_ts = it->end_ts;
	}
	err = gr_memory_compute(x->m, loop.n ? &loop : NULL, mem);
	if (err)
		return err;
	pageable(x, M);
	if (!mem->any)
		return rp_verdict(x, &M->verdict, GR_VERDICT_NONE,
				  "no allocation or free call was recorded");
	if (!mem->judged)
		return rp_verdict(x, &M->verdict, GR_VERDICT_NONE,
				  "not judged: every one of the %" PRIu64
				  " allocation calls failed, so nothing was allocated and "
				  "nothing is counted as live",
				  mem->failures_total);
	if (mem->growth.found) {
		const struct gr_memory_growth *G = &mem->growth;
		const struct gr_memory_held *h = G->nsites ? &G->sites[0] : NULL;
		char from[GR_FRAME_TEXT + 96] = "", failed[64] = "";

		if (h)
			snprintf(from, sizeof(from), "; +%s per iteration from %s: %s by the end",
				 gr_units_bytes(b2, sizeof(b2),
						(double)h->bytes / (double)G->iterations),
				 site(mem, h->site, s1, sizeof(s1)),
				 gr_units_bytes(b3, sizeof(b3), (double)h->bytes));
		if (mem->failures_total)
			snprintf(failed, sizeof(failed), "; %" PRIu64 " allocation call%s failed",
				 mem->failures_total, mem->failures_total == 1 ? "" : "s");
		return rp_verdict(x, &M->verdict, GR_VERDICT_PROBLEM,
				  "leak: live device memory of pid %u grows %s per iteration over "
				  "%" PRIu64 " iterations (%" PRIu64 " grew)%s%s",
				  G->pid, gr_units_bytes(b1, sizeof(b1), (double)G->per_iteration),
				  G->iterations, G->grew, from, failed);
	}
	if (mem->failures_total) {
		const struct gr_memory_failure *F = &mem->failures[0];

		return rp_verdict(x, &M->verdict, GR_VERDICT_PROBLEM,
				  "%" PRIu64 " allocation call%s failed; the first asked for %s "
				  "while %s of device memory was live in pid %u (from %s)",
				  mem->failures_total, mem->failures_total == 1 ? "" : "s",
				  gr_units_bytes(b1, sizeof(b1), (double)F->bytes),
				  gr_units_bytes(b2, sizeof(b2), (double)F->live_bytes), F->pid,
				  site(mem, F->site, s1, sizeof(s1)));
	}
	top = gr_memory_top_proc(mem);
	return rp_verdict(
	    x, &M->verdict, GR_VERDICT_OK,
	    "no leak found and no allocation failed; peak %s of device memory "
	    "(pid %u)%s",
	    gr_units_bytes(b1, sizeof(b1), top ? (double)top->peak_bytes : 0), top ? top->pid : 0,
	    mem->caching ? ": segments a caching allocator reserved, not tensors" : "");
}

/* ---- text ---- */

static void held_text(FILE *f, const struct gr_memory *mem, const struct gr_memory_held *h,
		      size_t n, size_t total_n, uint64_t total)
{
	char b1[32], b2[32], s1[GR_FRAME_TEXT];

	for (size_t i = 0; i < n; i++)
		fprintf(f, "      %10s %7s %6" PRIu64 "x  %s\n",
			gr_units_bytes(b1, sizeof(b1), (double)h[i].bytes),
			gr_units_pct(b2, sizeof(b2), total ? (double)h[i].bytes / total : 0),
			h[i].count, GR_TEXT(site(mem, h[i].site, s1, sizeof(s1))));
	if (total_n > n)
		fprintf(f, "      (%zu more sites)\n", total_n - n);
}

/* "X of Y at T s": the free memory a failure's process was last told. */
static const char *told_text(char *buf, size_t len, const struct gr_memory_failure *F,
			     uint64_t first_ts)
{
	char a[32], b[32];

	snprintf(buf, len, "%s of %s at %.3f s",
		 gr_units_bytes(a, sizeof(a), (double)F->free_bytes),
		 gr_units_bytes(b, sizeof(b), (double)F->total_bytes),
		 F->told_ts > first_ts ? (F->told_ts - first_ts) / 1e9 : 0.0);
	return buf;
}

static void iter_text(char *buf, size_t len, int64_t iteration)
{
	if (iteration >= 0)
		snprintf(buf, len, " (iteration #%" PRId64 ")", iteration);
	else
		snprintf(buf, len, " (outside the loop)");
}

/* printf @fmt as a paragraph indented by @indent, wrapped to the page. */
static void para(FILE *f, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void para(FILE *f, int indent, const char *fmt, ...)
{
	char buf[GR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "%*s", indent, "");
	gr_text_wrap(f, buf, indent, indent + 2, 100);
}

void rp_memory_text(FILE *f, const struct gr_report *r, const struct gr_model *m)
{
	const struct gr_report_memory *M = &r->memory;
	const struct gr_memory *mem = &M->m;
	char b1[32], b2[32], b3[96], b4[32], s1[GR_FRAME_TEXT], in[48], dev[32];

	(void)m;
	gr_text_heading(f, "7. Device memory", 100);
	if (!mem->any || !mem->judged) {
		para(f, 2, "%s", M->verdict.text);
		return;
	}
	if (mem->caching == GR_MEMORY_CACHING_LIBRARY)
		para(
		    f, 2,
		    "a caching allocator (%s) is mapped: the figures are the segments it reserved, "
		    "not the tensors in them",
		    mem->caching_library);
	else if (mem->caching == GR_MEMORY_CACHING_SEGMENTS)
		para(f, 2,
		     "the allocations look like a caching allocator's segments (2 MiB multiples, "
		     "none in the loop): the figures are segments reserved, not tensors");
	fprintf(f, "  %-8s %7s %7s %7s %11s %10s %11s %11s\n", "pid", "allocs", "frees", "failed",
		"peak", "at", "outstanding", "pinned peak");
	for (size_t k = 0; k < mem->nprocs; k++) {
		const struct gr_memory_proc *p = &mem->procs[k];

		fprintf(f, "  %-8u %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %11s %9.3fs %11s %11s\n",
			p->pid, p->allocs, p->frees, p->failed,
			gr_units_bytes(b1, sizeof(b1), (double)p->peak_bytes),
			p->peak_bytes ? (p->peak_ts - r->first_ts) / 1e9 : 0.0,
			gr_units_bytes(b2, sizeof(b2), (double)p->end_bytes),
			gr_units_bytes(b3, sizeof(b3), (double)p->pinned_peak_bytes));
	}
	para(
	    f, 2,
	    "(device bytes: device, async-pool and managed allocations, per process: the recording "
	    "names no device; outstanding: live at the end of the recording)");
	for (size_t k = 0; k < mem->nprocs; k++) {
		const struct gr_memory_proc *p = &mem->procs[k];

		if (!p->peak_bytes)
			continue;
		iter_text(in, sizeof(in), p->peak_iteration);
		/* the device is named only where the process used more than one */
		if ((k && mem->procs[k - 1].pid == p->pid) ||
		    (k + 1 < mem->nprocs && mem->procs[k + 1].pid == p->pid))
			snprintf(dev, sizeof(dev), " device %u", p->device);
		else
			dev[0] = 0;
		fprintf(f, "\n  peak of pid %u%s: %s at %.3f s%s; live then by call site:\n",
			p->pid, dev, gr_units_bytes(b1, sizeof(b1), (double)p->peak_bytes),
			(p->peak_ts - r->first_ts) / 1e9, in);
		held_text(f, mem, p->peak_sites, p->npeak_sites, p->peak_sites_n, p->peak_bytes);
		if (p->end_bytes) {
			fprintf(f, "    outstanding at the end: %s in %" PRIu64 " allocation%s:\n",
				gr_units_bytes(b1, sizeof(b1), (double)p->end_bytes), p->end_count,
				p->end_count == 1 ? "" : "s");
			held_text(f, mem, p->end_sites, p->nend_sites, p->end_sites_n,
				  p->end_bytes);
		}
	}
	if (mem->growth.found) {
		const struct gr_memory_growth *G = &mem->growth;

		fputc('\n', f);
		para(f, 2,
		     "growth: pid %u's live device bytes grow %s per iteration (%" PRIu64
		     " of %" PRIu64 " iterations grew; %s live at the loop's start, %s at its end)",
		     G->pid, gr_units_bytes(b1, sizeof(b1), (double)G->per_iteration), G->grew,
		     G->iterations, gr_units_bytes(b2, sizeof(b2), (double)G->start_bytes),
		     gr_units_bytes(b3, sizeof(b3), (double)G->end_bytes));
		for (size_t i = 0; i < G->nsites; i++)
			para(f, 4, "+%s per iteration from %s: %s by the end",
			     gr_units_bytes(b1, sizeof(b1),
					    (double)G->sites[i].bytes / (double)G->iterations),
			     site(mem, G->sites[i].site, s1, sizeof(s1)),
			     gr_units_bytes(b2, sizeof(b2), (double)G->sites[i].bytes));
	}
	if (mem->failures_total) {
		fprintf(f, "\n  failed allocations: %" PRIu64 "\n", mem->failures_total);
		for (size_t i = 0; i < mem->nfailures; i++) {
			const struct gr_memory_failure *F = &mem->failures[i];

			iter_text(in, sizeof(in), F->iteration);
			para(f, 4,
			     "%.3f s%s pid %u: %s (%s) asked for %s and returned error %u, with %s "
			     "live; free memory last told: %s; from %s; held then by:",
			     (F->ts - r->first_ts) / 1e9, in, F->pid, gr_api_name(F->api),
			     gr_alloc_kind_name(F->kind),
			     gr_units_bytes(b1, sizeof(b1), (double)F->bytes), F->status,
			     gr_units_bytes(b2, sizeof(b2), (double)F->live_bytes),
			     F->free_known ? told_text(b3, sizeof(b3), F, r->first_ts)
					   : "unknown (no cudaMemGetInfo recorded)",
			     site(mem, F->site, s1, sizeof(s1)));
			held_text(f, mem, F->holders, F->nholders, F->holders_n, F->live_bytes);
		}
		if (mem->failures_total > mem->nfailures)
			fprintf(f, "    (%" PRIu64 " more)\n",
				mem->failures_total - mem->nfailures);
	}
	if (mem->churn.found && !mem->churn.allocs && !mem->churn.frees && !mem->churn.failed) {
		fprintf(f, "\n  churn in the loop: no allocation or free call inside it\n");
	} else if (mem->churn.found) {
		const struct gr_memory_churn *C = &mem->churn;
		const struct gr_budget *b = &r->budget.median;
		char share[96] = "";

		if (r->budget.found && b->total_ns)
			snprintf(share, sizeof(share),
				 " (the step budget's alloc/free part: %s of the "
				 "median step)",
				 gr_units_pct(b3, sizeof(b3),
					      (double)b->part_ns[GR_BUDGET_ALLOC] / b->total_ns));
		fputc('\n', f);
		para(f, 2,
		     "churn in the loop, per iteration (median): %" PRIu64
		     " allocations (%s), %" PRIu64 " frees, %s in their calls%s",
		     C->median_allocs, gr_units_bytes(b1, sizeof(b1), (double)C->median_bytes),
		     C->median_frees, gr_units_ns(b2, sizeof(b2), (double)C->median_ns), share);
		para(f, 4,
		     "over the loop: %" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64
		     " failed; %s allocating, %s freeing%s%s",
		     C->allocs, C->frees, C->failed,
		     gr_units_ns(b1, sizeof(b1), (double)C->alloc_ns),
		     gr_units_ns(b4, sizeof(b4), (double)C->free_ns),
		     C->top_site_allocs ? "; most from " : "",
		     C->top_site_allocs ? site(mem, C->top_site, s1, sizeof(s1)) : "");
	}
	if (mem->pinned_allocs || M->pageable_copies) {
		uint64_t peak = 0, end = 0;
		char pg[160] = "";

		for (size_t k = 0; k < mem->nprocs; k++) {
			peak += mem->procs[k].pinned_peak_bytes;
			end += mem->procs[k].pinned_end_bytes;
		}
		if (M->pageable_copies)
			snprintf(pg, sizeof(pg),
				 "; %" PRIu64
				 " async copies of %s went through pageable memory, which "
				 "pinned memory would make async (transfers: pageable_async)",
				 M->pageable_copies,
				 gr_units_bytes(b3, sizeof(b3), (double)M->pageable_bytes));
		fputc('\n', f);
		para(f, 2,
		     "pinned host memory: %" PRIu64
		     " allocation%s, peak %s (summed over processes), "
		     "%s at the end%s",
		     mem->pinned_allocs, mem->pinned_allocs == 1 ? "" : "s",
		     gr_units_bytes(b1, sizeof(b1), (double)peak),
		     gr_units_bytes(b2, sizeof(b2), (double)end), pg);
	}
}

/* ---- JSON ---- */

static void held_json(struct gr_json *j, const char *key, const struct gr_memory *mem,
		      const struct gr_memory_held *h, size_t n, size_t total_n)
{
	char s1[GR_FRAME_TEXT];

	gr_json_key(j, key);
	gr_json_array(j);
	for (size_t i = 0; i < n; i++) {
		gr_json_object_flat(j);
		gr_json_kv_str(j, "site", site(mem, h[i].site, s1, sizeof(s1)));
		gr_json_kv_u64(j, "stack", h[i].site ? mem->sites[h[i].site].stack : 0);
		gr_json_kv_u64(j, "bytes", h[i].bytes);
		gr_json_kv_u64(j, "allocations", h[i].count);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_kv_u64(j, "sites", total_n);
}

static void iter_json(struct gr_json *j, const char *key, int64_t iteration)
{
	gr_json_key(j, key);
	if (iteration >= 0)
		gr_json_i64(j, iteration);
	else
		gr_json_null(j);
}

void rp_memory_json(struct gr_json *j, const struct gr_report *r)
{
	const struct gr_report_memory *M = &r->memory;
	const struct gr_memory *mem = &M->m;
	char s1[GR_FRAME_TEXT];

	gr_json_key(j, "memory");
	gr_json_object(j);
	gr_json_kv_str(j, "level",
		       M->verdict.level == GR_VERDICT_PROBLEM ? "problem"
		       : M->verdict.level == GR_VERDICT_OK    ? "ok"
							      : "none");
	gr_json_kv_str(j, "verdict", M->verdict.text);
	gr_json_kv_bool(j, "judged", mem->any && mem->judged);
	gr_json_kv_u64(j, "device_allocations", mem->device_allocs);
	gr_json_kv_u64(j, "async_allocations", mem->async_allocs);
	gr_json_kv_u64(j, "frees", mem->frees);
	gr_json_kv_u64(j, "failed", mem->failures_total);
	gr_json_kv_u64(j, "device_failed", mem->device_failed);
	gr_json_kv_u64(j, "pinned_allocations", mem->pinned_allocs);
	gr_json_kv_str(j, "caching", gr_memory_caching_name(mem->caching));
	gr_json_kv_str(j, "caching_library", mem->caching_library);
	gr_json_key(j, "processes");
	gr_json_array(j);
	for (size_t k = 0; k < mem->nprocs; k++) {
		const struct gr_memory_proc *p = &mem->procs[k];

		gr_json_object(j);
		gr_json_kv_u64(j, "pid", p->pid);
		gr_json_kv_u64(j, "device", p->device);
		gr_json_kv_u64(j, "allocations", p->allocs);
		gr_json_kv_u64(j, "allocated_bytes", p->alloc_bytes);
		gr_json_kv_u64(j, "frees", p->frees);
		gr_json_kv_u64(j, "failed", p->failed);
		gr_json_kv_u64(j, "unmatched_frees", p->unmatched_frees);
		gr_json_kv_u64(j, "peak_bytes", p->peak_bytes);
		gr_json_kv_u64(j, "peak_ts", p->peak_ts);
		iter_json(j, "peak_iteration", p->peak_iteration);
		held_json(j, "peak_live", mem, p->peak_sites, p->npeak_sites, p->peak_sites_n);
		gr_json_kv_u64(j, "outstanding_bytes", p->end_bytes);
		gr_json_kv_u64(j, "outstanding_allocations", p->end_count);
		held_json(j, "outstanding", mem, p->end_sites, p->nend_sites, p->end_sites_n);
		gr_json_kv_u64(j, "pinned_allocations", p->pinned_allocs);
		gr_json_kv_u64(j, "pinned_peak_bytes", p->pinned_peak_bytes);
		gr_json_kv_u64(j, "pinned_outstanding_bytes", p->pinned_end_bytes);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "growth");
	if (mem->growth.found) {
		const struct gr_memory_growth *G = &mem->growth;

		gr_json_object(j);
		gr_json_kv_u64(j, "pid", G->pid);
		gr_json_kv_u64(j, "iterations", G->iterations);
		gr_json_kv_u64(j, "grew", G->grew);
		gr_json_kv_u64(j, "start_bytes", G->start_bytes);
		gr_json_kv_u64(j, "end_bytes", G->end_bytes);
		gr_json_kv_u64(j, "per_iteration_bytes", G->per_iteration);
		held_json(j, "by_site", mem, G->sites, G->nsites, G->sites_n);
		gr_json_object_end(j);
	} else {
		gr_json_null(j);
	}
	gr_json_key(j, "failures");
	gr_json_array(j);
	for (size_t i = 0; i < mem->nfailures; i++) {
		const struct gr_memory_failure *F = &mem->failures[i];

		gr_json_object(j);
		gr_json_kv_u64(j, "ts", F->ts);
		iter_json(j, "iteration", F->iteration);
		gr_json_kv_u64(j, "pid", F->pid);
		gr_json_kv_str(j, "api", gr_api_name(F->api));
		gr_json_kv_str(j, "kind", gr_alloc_kind_name(F->kind));
		gr_json_kv_u64(j, "bytes", F->bytes);
		gr_json_kv_u64(j, "status", F->status);
		gr_json_kv_u64(j, "live_bytes", F->live_bytes);
		gr_json_key(j, "free_bytes_told");
		if (F->free_known)
			gr_json_u64(j, F->free_bytes);
		else
			gr_json_null(j);
		gr_json_key(j, "total_bytes_told");
		if (F->free_known)
			gr_json_u64(j, F->total_bytes);
		else
			gr_json_null(j);
		gr_json_kv_str(j, "site", site(mem, F->site, s1, sizeof(s1)));
		held_json(j, "holders", mem, F->holders, F->nholders, F->holders_n);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "churn");
	if (mem->churn.found) {
		const struct gr_memory_churn *C = &mem->churn;

		gr_json_object(j);
		gr_json_kv_u64(j, "iterations", C->iterations);
		gr_json_kv_u64(j, "allocations", C->allocs);
		gr_json_kv_u64(j, "frees", C->frees);
		gr_json_kv_u64(j, "allocated_bytes", C->alloc_bytes);
		gr_json_kv_u64(j, "alloc_ns", C->alloc_ns);
		gr_json_kv_u64(j, "free_ns", C->free_ns);
		gr_json_kv_u64(j, "failed", C->failed);
		gr_json_kv_u64(j, "median_allocations", C->median_allocs);
		gr_json_kv_u64(j, "median_frees", C->median_frees);
		gr_json_kv_u64(j, "median_bytes", C->median_bytes);
		gr_json_kv_u64(j, "median_ns", C->median_ns);
		gr_json_kv_str(j, "top_site",
			       C->top_site_allocs ? site(mem, C->top_site, s1, sizeof(s1)) : NULL);
		gr_json_kv_u64(j, "top_site_allocations", C->top_site_allocs);
		gr_json_object_end(j);
	} else {
		gr_json_null(j);
	}
	gr_json_kv_u64(j, "pageable_async_copies", M->pageable_copies);
	gr_json_kv_u64(j, "pageable_async_bytes", M->pageable_bytes);
	gr_json_object_end(j);
}
