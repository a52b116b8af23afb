/* SPDX-License-Identifier: MIT */
/*
 * Report 1, launch frequency: launches per second overall and per process, thread and stream;
 * per kernel name its count, share, launch configs (with the waves estimate) and launch call
 * durations where the recording timed them (a sample by default, all with --launch-time); per
 * thread the inter-launch gaps; the launch cost (measured, or estimated from launch entry to the
 * thread's next call when no launch was timed); launch calls slower than the threshold, by
 * kernel and call site; and the verdict (launch-bound or not).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "report_sections.h"

static double rate(uint64_t count, uint64_t first, uint64_t last)
{
	return last > first ? (double)count * 1e9 / (double)(last - first) : 0;
}

static int cmp_rate(const void *a, const void *b)
{
	const struct gr_report_rate *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct gr_report_kernel *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_kconfig(const void *a, const void *b)
{
	const struct gr_report_kconfig *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->config < y->config ? -1 : x->config > y->config;
}

static int cmp_slow(const void *a, const void *b)
{
	const struct gr_report_slow *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

/* Launch rates of threads (what 0), processes (1) or streams (2), from the pre-pass. */
static int rates(struct rp_ctx *x, size_t nent, int what, struct gr_report_rate **out, size_t *nout)
{
	const struct gr_process *procs = gr_model_processes(x->m, NULL);
	const struct gr_stream *streams = gr_model_streams(x->m, NULL);
	struct gr_report_rate *all = calloc(nent + 1, sizeof(*all)), *res;
	size_t n = 0;

	if (!all)
		return -ENOMEM;
	if (what == 1) {
		/* a process: its threads together */
		for (size_t t = 0; t < x->nth; t++) {
			const struct rp_thread *th = &x->thr[t];
			struct gr_report_rate *r = &all[x->th[t].process];

			if (!th->launches)
				continue;
			if (!r->count || th->first_launch < r->first_ts)
				r->first_ts = th->first_launch;
			if (th->last_launch > r->last_ts)
				r->last_ts = th->last_launch;
			r->count += th->launches;
		}
	} else {
		for (size_t e = 0; e < nent; e++) {
			all[e].count = what ? x->strm[e].launches : x->thr[e].launches;
			all[e].first_ts = what ? x->strm[e].first_launch : x->thr[e].first_launch;
			all[e].last_ts = what ? x->strm[e].last_launch : x->thr[e].last_launch;
		}
	}
	for (size_t e = 0; e < nent; e++)
		n += all[e].count > 0;
	res = rp_alloc(x, n, sizeof(*res));
	if (!res) {
		free(all);
		return -ENOMEM;
	}
	n = 0;
	for (size_t e = 0; e < nent; e++) {
		struct gr_report_rate *r = &all[e];

		if (!r->count)
			continue;
		r->index = (uint32_t)e;
		if (what == 0) {
			r->pid = x->th[e].pid;
			r->tid = x->th[e].tid;
			r->comm = x->th[e].comm;
			r->nvtx_name = gr_nvtx_thread_name(x->nvtx, r->pid, r->tid);
		} else if (what == 1) {
			r->pid = procs[e].pid;
			r->comm = procs[e].comm;
		} else {
			r->pid = streams[e].pid;
			r->per_thread = streams[e].per_thread;
			r->tid = streams[e].tid;
			r->handle = r->per_thread ? 0 : streams[e].handle;
			r->comm = "";
			if (!r->per_thread)
				r->nvtx_name = gr_nvtx_stream_name(x->nvtx, r->pid, r->handle);
		}
		r->share = (double)r->count / (double)x->nl;
		r->per_second = rate(r->count, r->first_ts, r->last_ts);
		res[n++] = *r;
	}
	free(all);
	gr_qsort(res, n, sizeof(*res), cmp_rate);
	*out = res;
	*nout = n;
	return 0;
}

/*
 * Which launches the recording timed, from its SESSION fact; a trace older than the fact timed
 * them all (--launch-time) or none.
 */
static void timing(struct rp_ctx *x)
{
	struct gr_report_launches *L = &x->r->launches;
	const char *why = NULL;
	uint64_t v;

	if (!gr_model_session(x->m, GR_SESS_LAUNCH_SAMPLE, &v, &why)) {
		L->timing = x->nmeasured ? GR_REPORT_TIMED_ALL : GR_REPORT_TIMED_NONE;
		L->timing_why = x->nmeasured ? "" : "recorded by an older gpurec";
		return;
	}
	L->timing_known = 1;
	L->timing = v == 1 ? GR_REPORT_TIMED_ALL
		    : v	   ? GR_REPORT_TIMED_SAMPLE
			   : GR_REPORT_TIMED_NONE;
	L->sample_period = v > 1 ? v : 0;
	L->timing_why = L->timing == GR_REPORT_TIMED_NONE && why ? why : "";
}

static int kernels(struct rp_ctx *x)
{
	struct gr_report_launches *L = &x->r->launches;
	size_t nnames;
	const char *const *names = gr_model_kernel_names(x->m, &nnames);
	const uint64_t *kc_count = x->kc_count;
	uint64_t *name_count = calloc(nnames + 1, sizeof(*name_count));
	size_t *nconf = calloc(nnames + 1, sizeof(*nconf)), *api_off = NULL;
	uint32_t *api = NULL;
	size_t nk = 0, nmeasured = x->nmeasured;
	int err = -ENOMEM;

	if (!name_count || !nconf)
		goto out;
	for (uint32_t p = 0; p < x->nkc; p++) {
		uint32_t name = (uint32_t)(x->kc_key[p] >> 32);

		name_count[name] += kc_count[p];
		nconf[name]++;
	}
	for (size_t i = 0; i < nnames; i++)
		nk += name_count[i] > 0;
	L->kernels = rp_alloc(x, nk, sizeof(*L->kernels));
	if (!L->kernels)
		goto out;
	/* kernels[] in name order first (slot per name), sorted at the end */
	{
		size_t *slot = nconf; /* reuse: name -> kernels index, after taking counts */
		size_t at = 0;

		for (size_t i = 0; i < nnames; i++) {
			struct gr_report_kernel *k = &L->kernels[at];
			size_t nc = nconf[i];

			if (!name_count[i]) {
				slot[i] = SIZE_MAX;
				continue;
			}
			k->name_id = (uint32_t)i;
			k->name = names[i];
			k->count = name_count[i];
			k->executed = x->ls.kernels[i].executed;
			k->share = (double)k->count / (double)x->nl;
			k->configs = rp_alloc(x, nc, sizeof(*k->configs));
			if (!k->configs)
				goto out;
			slot[i] = at++;
		}
		for (uint32_t p = 0; p < x->nkc; p++) {
			struct gr_report_kernel *k = &L->kernels[slot[x->kc_key[p] >> 32]];
			struct gr_report_kconfig *c = &k->configs[k->nconfigs++];

			c->config = (uint32_t)x->kc_key[p];
			c->cfg = x->cfg[c->config];
			c->count = kc_count[p];
			c->waves = rp_waves(x, &c->cfg, &c->blocks);
			c->small = rp_small(x, &c->cfg);
		}
		/* launch call durations per name, when measured */
		if (nmeasured) {
			size_t *cur;

			api_off = calloc(nk + 1, sizeof(*api_off));
			api = malloc(nmeasured * sizeof(*api));
			cur = calloc(nk + 1, sizeof(*cur));
			if (!api_off || !api || !cur) {
				free(cur);
				goto out;
			}
			for (size_t i = 0; i < x->nl; i++)
				if (rp_launch_call_raw(x, i))
					api_off[slot[x->k[rp_lkey(x, i)->kernel].name_id] + 1]++;
			for (size_t i = 0; i < nk; i++) {
				api_off[i + 1] += api_off[i];
				cur[i] = api_off[i];
			}
			for (size_t i = 0; i < x->nl; i++)
				if (rp_launch_call_raw(x, i))
					api[cur[slot[x->k[rp_lkey(x, i)->kernel].name_id]]++] =
					    rp_sat32(rp_launch_dur(x, i));
			free(cur);
			for (size_t i = 0; i < nk; i++)
				gr_dist_u32(&L->kernels[i].api, api + api_off[i],
					    api_off[i + 1] - api_off[i]);
		}
	}
	/* the launch cost: median over every measured launch call (sampled or all), graph
	 * launches included; node-building calls are none (rp_launch_call_raw) */
	{
		size_t ng = 0, at = 0;
		uint32_t *all = malloc((nmeasured + x->ng + 1) * sizeof(*all));

		if (!all)
			goto out;
		for (size_t i = 0; i < x->nl && nmeasured; i++)
			if (rp_launch_call_raw(x, i))
				all[at++] = rp_sat32(rp_launch_dur(x, i));
		for (size_t i = 0; i < x->ng; i++)
			if (x->g[i].kind == GR_GRAPH_LAUNCH && x->g[i].dur) {
				all[at++] = rp_sat32(rp_dur(x, x->g[i].dur));
				ng++;
			}
		if (at) {
			struct gr_dist d;

			gr_dist_u32(&d, all, at);
			L->launch_cost_ns = d.median;
			L->launch_cost_samples = d.count;
			L->graph_launch_cost_samples = ng;
			L->api_measured = 1;
		}
		free(all);
	}
	L->nkernels = nk;
	for (size_t i = 0; i < nk; i++)
		gr_qsort(L->kernels[i].configs, L->kernels[i].nconfigs,
			 sizeof(*L->kernels[i].configs), cmp_kconfig);
	gr_qsort(L->kernels, nk, sizeof(*L->kernels), cmp_kernel);
	err = 0;
out:
	free(name_count);
	free(nconf);
	free(api_off);
	free(api);
	return err;
}

static int gaps(struct rp_ctx *x)
{
	struct gr_report_launches *L = &x->r->launches;

	L->gaps = rp_alloc(x, L->nthreads, sizeof(*L->gaps));
	if (!L->gaps)
		return -ENOMEM;
	for (size_t i = 0; i < L->nthreads; i++) {
		struct gr_report_gaps *g = &L->gaps[i];
		uint32_t t = L->threads[i].index;

		g->thread = t;
		g->pid = x->th[t].pid;
		g->tid = x->th[t].tid;
		g->comm = x->th[t].comm;
		g->nvtx_name = gr_nvtx_thread_name(x->nvtx, g->pid, g->tid);
		memcpy(g->hist, x->thr[t].gap_hist, sizeof(g->hist));
		g->gap = x->thr[t].gap;
	}
	L->ngaps = L->nthreads;
	return 0;
}

static int slow_calls(struct rp_ctx *x)
{
	struct gr_report_launches *L = &x->r->launches;
	const struct gr_report_iteration *it = &L->iter;
	struct gr_keymap km;
	struct gr_report_slow *acc = NULL;
	uint8_t *seen; /* by kernel: launched before */
	size_t cap = 0;
	int err = 0;

	L->slow_threshold_ns = x->slow_ns;
	if (!L->api_measured)
		return 0;
	seen = calloc(x->nk + 1, 1);
	if (!seen)
		return -ENOMEM;
	gr_keymap_init(&km, 2);
	for (size_t i = 0; i < x->nl; i++) {
		const struct gr_launch_key *l = rp_lkey(x, i);
		uint64_t dur = rp_launch_call_raw(x, i) ? rp_launch_dur(x, i) : 0;
		uint64_t key[2] = {x->k[l->kernel].name_id, l->stack};
		int first = !seen[l->kernel];
		uint32_t idx;

		seen[l->kernel] = 1;
		if (dur <= x->slow_ns)
			continue;
		L->slow_count++;
		if (first) {
			L->slow_first++;
		} else if (!it->found || (x->l[i].ts >= it->start_ts && x->l[i].ts < it->end_ts)) {
			L->slow_loop_count++;
			L->slow_loop_ns += dur;
		}
		err = gr_keymap_intern(&km, key, &idx);
		if (err < 0)
			goto out;
		if (idx >= cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct gr_report_slow *a = realloc(acc, ncap * sizeof(*a));

			if (!a) {
				err = -ENOMEM;
				goto out;
			}
			memset(a + cap, 0, (ncap - cap) * sizeof(*a));
			acc = a;
			cap = ncap;
		}
		acc[idx].name_id = (uint32_t)key[0];
		acc[idx].name = x->k[l->kernel].name;
		acc[idx].site.stack = l->stack;
		acc[idx].count++;
		acc[idx].total_ns += dur;
		if (dur > acc[idx].max_ns)
			acc[idx].max_ns = dur;
	}
	L->nslow = km.len;
	L->slow = rp_alloc(x, km.len, sizeof(*L->slow));
	if (!L->slow) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < km.len; i++) {
		L->slow[i] = acc[i];
		err = rp_site(x, &L->slow[i].site, acc[i].site.stack, 0);
		if (err)
			goto out;
	}
	gr_qsort(L->slow, L->nslow, sizeof(*L->slow), cmp_slow);
	err = 0;
out:
	gr_keymap_free(&km);
	free(acc);
	free(seen);
	return err;
}

static int verdict(struct rp_ctx *x)
{
	struct gr_report_launches *L = &x->r->launches;
	const struct gr_report_iteration *it = &L->iter;
	const struct gr_report_diagnosis *D = &x->r->diagnosis;
	const char *how = !L->api_measured ? "launch cost estimated from gaps, an upper bound"
			  : L->timing == GR_REPORT_TIMED_SAMPLE ? "launch cost measured on a sample"
								: "measured launch cost";
	char b1[32], b2[32], b3[32], b4[32], pc[16], head[600], slow[800] = "", graphs[96] = "";
	char first[96] = "";
	uint64_t span = it->found ? it->end_ts - it->start_ts : L->last_ts - L->first_ts;
	uint64_t slow_ns = 0;
	/* the step's diagnosis decides; a launch cost inferred from gaps decides nothing */
	int bound = D->bound == GR_BOUND_LAUNCH, slow_problem;
	const char *word = bound		      ? "launch-bound"
			   : L->api_measured	      ? "not launch-bound"
			   : D->bound == GR_BOUND_GPU ? "not launch-bound"
						      : "launch time unknown";
	const char *why = bound ? "; the GPU waits for the host: fewer, larger kernels (see "
				  "fusion) or CUDA graphs"
			  : D->bound == GR_BOUND_GPU
			      ? "; the step is GPU-bound: the host waits for the GPU, launches are "
				"not its limit"
			  : !L->api_measured
			      ? "; record with --launch-time to time the launch calls"
			      : "";

	if (!L->total)
		return rp_verdict(x, &L->verdict, GR_VERDICT_NONE, "%s",
				  x->r->damage.damaged ? "no kernel launches in the part of the "
							 "damaged trace that was kept"
				  : x->r->cuda_libraries
				      ? "no kernel launches were recorded"
				      : "no CUDA library was loaded: no launches");
	if (it->found && it->graph_launches)
		snprintf(graphs, sizeof(graphs),
			 " (%u graph launch%s executing %" PRIu64 " kernels)", it->graph_launches,
			 it->graph_launches == 1 ? "" : "es", it->kernels);
	/* an iteration whose time our probes' cost swallows is still the iteration: saying
	 * "no repeating iteration" then contradicted the JSON, which has one */
	if (it->found && !it->period_ns)
		snprintf(head, sizeof(head),
			 "%s: %u launch%s%s per iteration at %s each (%s); the iteration takes no "
			 "more than our probes cost (see --no-compensate)%s",
			 word, it->launches, it->launches == 1 ? "" : "es", graphs,
			 gr_units_ns(b1, sizeof(b1), L->launch_cost_ns), how, why);
	else if (it->found)
		snprintf(head, sizeof(head),
			 "%s: %u launch%s%s per iteration at %s each (%s): %s of the %s "
			 "iteration%s",
			 word, it->launches, it->launches == 1 ? "" : "es", graphs,
			 gr_units_ns(b1, sizeof(b1), L->launch_cost_ns), how,
			 gr_units_pct(pc, sizeof(pc), L->launch_share),
			 gr_units_ns(b2, sizeof(b2), it->period_ns), why);
	else
		snprintf(head, sizeof(head),
			 "%s: no repeating iteration; %s at %s each (%s): %s of the %s between the "
			 "first and last launch",
			 L->api_measured ? "not judged without a step" : "launch time unknown",
			 gr_units_count(b3, sizeof(b3), L->total, "launch", "launches"),
			 gr_units_ns(b1, sizeof(b1), L->launch_cost_ns), how,
			 gr_units_pct(pc, sizeof(pc), L->launch_share),
			 gr_units_ns(b2, sizeof(b2), L->last_ts - L->first_ts));
	for (size_t i = 0; i < L->nslow; i++)
		slow_ns += L->slow[i].total_ns;
	/* a few slow calls (a page fault, a preemption) are noted; many in the loop are a
	 * problem. Those before or after it (warm-up) and a kernel's first launch are paid once. */
	slow_problem =
	    L->slow_loop_count && (double)L->slow_loop_ns >= RP_SLOW_SHARE * (double)span;
	if (L->slow_first)
		snprintf(first, sizeof(first),
			 "; %" PRIu64 " %s a kernel's first launch (paid once)", L->slow_first,
			 L->slow_first == 1 ? "was" : "were");
	if (L->slow_count)
		snprintf(
		    slow, sizeof(slow),
		    "; %" PRIu64 " launch call%s took longer than %s, %s in all: %" PRIu64
		    " in the %s, %s (%s of it)%s%s; the most in %s (up to %s)",
		    L->slow_count, L->slow_count == 1 ? "" : "s",
		    gr_units_ns(b1, sizeof(b1), L->slow_threshold_ns),
		    gr_units_ns(b2, sizeof(b2), slow_ns), L->slow_loop_count,
		    it->found ? "loop" : "launch window",
		    gr_units_ns(b4, sizeof(b4), L->slow_loop_ns),
		    gr_units_pct(pc, sizeof(pc), span ? (double)L->slow_loop_ns / (double)span : 0),
		    first,
		    slow_problem ? ": look for implicit synchronisation, module loading or a "
				   "full launch queue at those call sites"
				 : "",
		    L->slow[0].name, gr_units_ns(b3, sizeof(b3), L->slow[0].max_ns));
	return rp_verdict(x, &L->verdict,
			  bound || slow_problem ? GR_VERDICT_PROBLEM : GR_VERDICT_OK, "%s%s", head,
			  slow);
}

int rp_launches(struct rp_ctx *x)
{
	struct gr_report_launches *L = &x->r->launches;
	size_t nprocs;
	int err;

	gr_model_processes(x->m, &nprocs);
	L->total = x->nl;
	L->executed = x->ls.executed;
	L->graph_launches = gr_graphs_summary(x->ls.graphs)->graph_launches;
	L->node_launches = gr_graphs_summary(x->ls.graphs)->node_launches;
	if (x->nl) {
		L->first_ts = x->l[0].ts;
		L->last_ts = x->l[x->nl - 1].ts;
		L->per_second = rate(x->nl, L->first_ts, L->last_ts);
	}
	timing(x);
	err = kernels(x);
	if (!err)
		err = rates(x, x->nth, 0, &L->threads, &L->nthreads);
	if (!err)
		err = rates(x, nprocs, 1, &L->processes, &L->nprocesses);
	if (!err)
		err = rates(x, x->nstreams, 2, &L->streams, &L->nstreams);
	if (!err)
		err = gaps(x);
	if (!err)
		err = slow_calls(x);
	if (!err && x->r->python)
		err = gr_launch_sites_compute(x->m, &L->sites);
	if (err)
		return err;
	if (!L->api_measured && x->cost.count) {
		L->launch_cost_ns = x->cost.median;
		L->launch_cost_samples = x->cost.count;
	}
	if (L->iter.found && L->iter.period_ns)
		L->launch_share = (double)L->iter.launches * (double)L->launch_cost_ns /
				  (double)L->iter.period_ns;
	else if (L->last_ts > L->first_ts)
		L->launch_share = (double)L->total * (double)L->launch_cost_ns /
				  (double)(L->last_ts - L->first_ts);
	/* a cost inferred from gaps can exceed the time it is a share of: a share cannot */
	if (L->launch_share > 1)
		L->launch_share = 1;
	return 0;
}

int rp_launches_judge(struct rp_ctx *x)
{
	const struct gr_report_diagnosis *D = &x->r->diagnosis;
	struct gr_report_launches *L = &x->r->launches;

	/* a sample timed: the loop's untimed launches at the cost measured on it, as the
	 * budget's diagnosis counts them */
	if (L->timing == GR_REPORT_TIMED_SAMPLE && L->api_measured)
		L->iter.loop.launch_ns += L->iter.loop.launches_untimed * L->launch_cost_ns;
	/* the budget's launch share when it has one: launch calls measured (or counted at the
	 * measured cost) in the median iteration */
	if (D->total_ns && D->launch_timed)
		L->launch_share = (double)D->group_ns[GR_GROUP_LAUNCH] / (double)D->total_ns;
	return verdict(x);
}
