/* SPDX-License-Identifier: MIT */
/*
 * Report 2, fusion opportunities. A run is a maximal sequence of launches by one thread onto one
 * stream with no copy, memset, sync, graph call or free by that thread between them; a run also
 * ends where an iteration of the loop begins. Runs of at least 3 launches are grouped by their
 * exact sequence of (kernel name, launch config) within a process; a group seen at least twice is
 * a candidate, ranked by the host time fusing it would save: occurrences x (length - 1) x the
 * launch cost. Each candidate carries the frames that every launch of every occurrence shares
 * (compared by function, outermost first): the code to change.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "report_sections.h"

struct run {
	uint32_t stream;
	uint32_t len, cap;
	uint32_t *launch; /* launch indexes */
	uint64_t hash;
};

struct tstate {
	struct run *runs;
	uint32_t nruns, cap;
};

struct group {
	uint32_t *seq; /* kc ids */
	uint32_t len;
	uint32_t pid;
	uint64_t occurrences;
	uint64_t first_ts;
	uint32_t first_launch;
	uint32_t stream;
	uint32_t ref_stack; /* a stack with frames, 0 = none yet */
	uint32_t common;    /* outer frames of ref_stack shared by every launch so far */
	uint32_t last_stack;
};

struct fctx {
	struct rp_ctx *x;
	uint32_t *merged; /* per stack: group index + 1 it was last merged into */
	uint64_t *
	    *stack_fn; /* per stack, per frame: a function identity (symbol start or address) */
	struct gr_keymap km; /* (hash, len, pid, salt) -> group */
	struct group *groups;
	size_t ngroups, cap;
	uint64_t runs;
};

static const uint64_t *stack_fn(struct fctx *f, uint32_t s)
{
	struct rp_ctx *x = f->x;
	const struct gr_stack *st = &x->st[s];

	if (!f->stack_fn[s] && st->nframes) {
		uint64_t *fn = malloc(st->nframes * sizeof(*fn));

		if (!fn)
			return NULL;
		for (uint32_t i = 0; i < st->nframes; i++) {
			const struct gr_symbol *sym = gr_model_symbol(x->m, st->pid, st->frames[i]);

			fn[i] = sym && sym->start ? sym->start : st->frames[i];
		}
		f->stack_fn[s] = fn;
	}
	return f->stack_fn[s];
}

/* Narrow the group's shared outer frames to those stack @s also has. */
static int common_frames(struct fctx *f, struct group *g, uint32_t s)
{
	struct rp_ctx *x = f->x;
	const uint64_t *a, *b;
	uint32_t na, nb, m = 0;

	if (s == g->last_stack || s >= x->nst || !x->st[s].nframes ||
	    f->merged[s] == (uint32_t)(g - f->groups) + 1)
		return 0;
	g->last_stack = s;
	f->merged[s] = (uint32_t)(g - f->groups) + 1;
	if (!g->ref_stack) {
		g->ref_stack = s;
		g->common = x->st[s].nframes;
		return stack_fn(f, s) ? 0 : -ENOMEM;
	}
	a = stack_fn(f, g->ref_stack);
	b = stack_fn(f, s);
	if (!a || !b)
		return -ENOMEM;
	na = x->st[g->ref_stack].nframes;
	nb = x->st[s].nframes;
	while (m < g->common && m < nb && a[na - 1 - m] == b[nb - 1 - m])
		m++;
	g->common = m;
	return 0;
}

static int close_run(struct fctx *f, uint32_t thread, struct run *run)
{
	struct rp_ctx *x = f->x;
	uint32_t pid = x->th[thread].pid, idx;
	struct group *g = NULL;
	int err;

	if (run->len < RP_MIN_RUN) {
		run->len = 0;
		return 0;
	}
	f->runs++;
	for (uint64_t salt = 0;; salt++) {
		uint64_t key[4] = {run->hash, run->len, pid, salt};
		int added = gr_keymap_intern(&f->km, key, &idx);

		if (added < 0)
			return added;
		if (added) {
			if (idx >= f->cap) {
				size_t ncap = f->cap ? f->cap * 2 : 64;
				struct group *ng = realloc(f->groups, ncap * sizeof(*ng));

				if (!ng)
					return -ENOMEM;
				f->groups = ng;
				f->cap = ncap;
			}
			g = &f->groups[idx];
			memset(g, 0, sizeof(*g));
			f->ngroups = idx + 1;
			g->seq = malloc(run->len * sizeof(*g->seq));
			if (!g->seq)
				return -ENOMEM;
			for (uint32_t i = 0; i < run->len; i++)
				g->seq[i] = rp_pair(x, run->launch[i]);
			g->len = run->len;
			g->pid = pid;
			g->first_launch = run->launch[0];
			g->first_ts = x->l[run->launch[0]].ts;
			g->stream = run->stream;
			g->last_stack = UINT32_MAX;
			break;
		}
		g = &f->groups[idx];
		{
			uint32_t i = 0;

			while (i < run->len && g->seq[i] == rp_pair(x, run->launch[i]))
				i++;
			if (i == run->len)
				break;
		}
		/* a 64-bit hash collision: try the next salt */
	}
	g->occurrences++;
	for (uint32_t i = 0; i < run->len; i++) {
		err = common_frames(f, g, rp_lkey(x, run->launch[i])->stack);
		if (err)
			return err;
	}
	run->len = 0;
	return 0;
}

static int add_launch(struct run *run, uint32_t i, uint32_t kc)
{
	if (run->len == run->cap) {
		uint32_t ncap = run->cap ? run->cap * 2 : 16;
		uint32_t *v = realloc(run->launch, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		run->launch = v;
		run->cap = ncap;
	}
	if (!run->len)
		run->hash = 0x51ed270b27u;
	run->launch[run->len++] = i;
	run->hash = (run->hash ^ (kc + 1)) * 0x100000001b3ull;
	run->hash ^= run->hash >> 29;
	return 0;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct gr_report_candidate *x = a, *y = b;

	if (x->est_saving_ns != y->est_saving_ns)
		return x->est_saving_ns > y->est_saving_ns ? -1 : 1;
	if (x->occurrences != y->occurrences)
		return x->occurrences > y->occurrences ? -1 : 1;
	return x->first_ts < y->first_ts ? -1 : x->first_ts > y->first_ts;
}

static int candidates(struct fctx *f)
{
	struct rp_ctx *x = f->x;
	struct gr_report_fusion *F = &x->r->fusion;
	const struct gr_stream *streams = gr_model_streams(x->m, NULL);
	size_t n = 0;
	int err;

	for (size_t i = 0; i < f->ngroups; i++)
		n += f->groups[i].occurrences >= RP_MIN_OCCURRENCES;
	F->candidates = rp_alloc(x, n, sizeof(*F->candidates));
	if (!F->candidates)
		return -ENOMEM;
	for (size_t i = 0; i < f->ngroups; i++) {
		const struct group *g = &f->groups[i];
		struct gr_report_candidate *c = &F->candidates[F->ncandidates];

		if (g->occurrences < RP_MIN_OCCURRENCES)
			continue;
		F->ncandidates++;
		c->len = g->len;
		c->occurrences = g->occurrences;
		c->est_saving_ns = g->occurrences * (g->len - 1) * F->launch_cost_ns;
		c->pid = g->pid;
		c->per_thread = streams[g->stream].per_thread;
		c->stream_tid = streams[g->stream].tid;
		c->stream = c->per_thread ? 0 : streams[g->stream].handle;
		c->first_ts = g->first_ts;
		c->kernels = rp_alloc(x, g->len, sizeof(*c->kernels));
		if (!c->kernels)
			return -ENOMEM;
		for (uint32_t j = 0; j < g->len; j++) {
			struct gr_report_fkernel *k = &c->kernels[j];
			uint64_t key = x->kc_key[g->seq[j]];
			size_t nnames;
			const char *const *names = gr_model_kernel_names(x->m, &nnames);

			k->name_id = (uint32_t)(key >> 32);
			k->name = names[k->name_id];
			k->config = (uint32_t)key;
			k->cfg = x->cfg[k->config];
			k->waves = rp_waves(x, &k->cfg, NULL);
			k->small = rp_small(x, &k->cfg);
			c->nsmall += (uint32_t)k->small;
		}
		if (g->ref_stack && g->common) {
			const struct gr_stack *st = &x->st[g->ref_stack];
			uint32_t keep = g->common;

			/* nvcc's generated launch stubs are not code the user can change */
			while (keep > 1) {
				const struct gr_symbol *sym =
				    gr_model_symbol(x->m, st->pid, st->frames[st->nframes - keep]);

				if (!sym || strncmp(sym->name, "__device_stub__", 15))
					break;
				keep--;
			}
			err = rp_site(x, &c->stack, g->ref_stack, keep);
			if (err)
				return err;
		}
		F->total_saving_ns += c->est_saving_ns;
	}
	gr_qsort(F->candidates, F->ncandidates, sizeof(*F->candidates), cmp_cand);
	return 0;
}

static int verdict(struct rp_ctx *x)
{
	struct gr_report_fusion *F = &x->r->fusion;
	const struct gr_report_iteration *it = &x->r->launches.iter;
	const struct gr_report_candidate *c = F->ncandidates ? &F->candidates[0] : NULL;
	char b1[32], pc[16], small[48], top[600];

	if (!x->nl)
		return rp_verdict(x, &F->verdict, GR_VERDICT_NONE,
				  "no kernel launches: nothing "
				  "to fuse");
	if (!c)
		return rp_verdict(x, &F->verdict, GR_VERDICT_OK,
				  "nothing to fuse: no run of %d or more launches on one stream, "
				  "without a sync or copy between them, repeats",
				  RP_MIN_RUN);
	if (F->saving_share < RP_FUSION_SHARE)
		return rp_verdict(x, &F->verdict, GR_VERDICT_OK,
				  "little to gain: fusing every candidate would save about %s, "
				  "%s of the %s",
				  gr_units_ns(b1, sizeof(b1), F->total_saving_ns),
				  gr_units_pct(pc, sizeof(pc), F->saving_share),
				  it->found ? "loop" : "time between the first and last launch");
	if (x->sms)
		snprintf(small, sizeof(small), "%u of them small grids", c->nsmall);
	else
		snprintf(small, sizeof(small), "small grids unknown (no SM count)");
	snprintf(top, sizeof(top),
		 "the top candidate is %u kernels (%s ... %s) run %" PRIu64 " times%s%s, %s%s",
		 c->len, c->kernels[0].name, c->kernels[c->len - 1].name, c->occurrences,
		 c->stack.nframes ? " from " : "", rp_site_lead(&c->stack), small,
		 c->len > 32 ? "; a run this long is a CUDA graph candidate" : "");
	gr_units_ns(b1, sizeof(b1), F->total_saving_ns);
	gr_units_pct(pc, sizeof(pc), F->saving_share);
	/* host launch time saved shortens a step the host limits, not one that waits for the
	 * GPU; and a saving from a launch cost inferred from gaps is no finding */
	if (x->r->diagnosis.bound == GR_BOUND_GPU)
		return rp_verdict(
		    x, &F->verdict, GR_VERDICT_OK,
		    "not the limit: fusing would save about %s of host launch time "
		    "(%s of the %s), but the step is GPU-bound: the host waits for the "
		    "GPU, and fewer launches do not shorten that wait; %s",
		    b1, pc, it->found ? "loop" : "launch window", top);
	if (!x->r->launches.api_measured)
		return rp_verdict(
		    x, &F->verdict, GR_VERDICT_OK,
		    "unknown: fusing would save about %s (%s of the %s) at a launch "
		    "cost estimated from gaps, an upper bound (record with --launch-time "
		    "to time the launch calls); %s",
		    b1, pc, it->found ? "loop" : "launch window", top);
	return rp_verdict(x, &F->verdict, GR_VERDICT_PROBLEM,
			  "fusion would save about %s of host launch time (%s of the %s): %s", b1,
			  pc, it->found ? "loop" : "launch window", top);
}

int rp_fusion(struct rp_ctx *x)
{
	struct gr_report_fusion *F = &x->r->fusion;
	const struct gr_report_launches *L = &x->r->launches;
	struct tstate *ts = calloc(x->nth + 1, sizeof(*ts));
	struct fctx f = {.x = x};
	const uint64_t *nodes = gr_graphs_launch_bits(x->ls.graphs);
	int err = -ENOMEM;

	F->launch_cost_ns = L->launch_cost_ns;
	F->cost_measured = L->api_measured;
	gr_keymap_init(&f.km, 4);
	f.stack_fn = calloc(x->nst + 1, sizeof(*f.stack_fn));
	f.merged = calloc(x->nst + 1, sizeof(*f.merged));
	if (!ts || !f.stack_fn || !f.merged)
		goto out;
	for (size_t i = 0; i < x->nl; i++) {
		const struct gr_launch_key *l = rp_lkey(x, i);
		struct tstate *t = &ts[l->thread];
		struct run *run = NULL;

		/* a graph node (captured or added) executed nothing when called, and kernels
		 * inside one graph already cost one launch: never part of a run, and no run spans
		 * it */
		if (gr_graphs_bit(nodes, i)) {
			for (uint32_t j = 0; j < t->nruns; j++) {
				err = close_run(&f, l->thread, &t->runs[j]);
				if (err)
					goto out;
			}
			continue;
		}
		if (rp_run_break(x, i))
			for (uint32_t j = 0; j < t->nruns; j++) {
				err = close_run(&f, l->thread, &t->runs[j]);
				if (err)
					goto out;
			}
		for (uint32_t j = 0; j < t->nruns; j++)
			if (t->runs[j].stream == l->stream) {
				run = &t->runs[j];
				break;
			}
		if (!run) {
			if (t->nruns == t->cap) {
				uint32_t ncap = t->cap ? t->cap * 2 : 2;
				struct run *nr = realloc(t->runs, ncap * sizeof(*nr));

				if (!nr)
					goto out;
				t->runs = nr;
				t->cap = ncap;
			}
			run = &t->runs[t->nruns++];
			memset(run, 0, sizeof(*run));
			run->stream = l->stream;
		}
		err = add_launch(run, (uint32_t)i, rp_pair(x, i));
		if (err)
			goto out;
	}
	for (size_t t = 0; t < x->nth; t++)
		for (uint32_t j = 0; j < ts[t].nruns; j++) {
			err = close_run(&f, (uint32_t)t, &ts[t].runs[j]);
			if (err)
				goto out;
		}
	F->runs = f.runs;
	err = candidates(&f);
	if (err)
		goto out;
	{
		const struct gr_report_iteration *it = &L->iter;
		uint64_t span = it->found ? it->end_ts - it->start_ts : L->last_ts - L->first_ts;

		F->saving_share = span ? (double)F->total_saving_ns / (double)span : 0;
	}
	err = verdict(x);
out:
	if (ts) {
		for (size_t t = 0; t < x->nth; t++) {
			for (uint32_t j = 0; j < ts[t].nruns; j++)
				free(ts[t].runs[j].launch);
			free(ts[t].runs);
		}
		free(ts);
	}
	for (size_t i = 0; i < f.ngroups; i++)
		free(f.groups[i].seq);
	free(f.groups);
	free(f.merged);
	if (f.stack_fn) {
		for (size_t i = 0; i < x->nst; i++)
			free(f.stack_fn[i]);
		free(f.stack_fn);
	}
	gr_keymap_free(&f.km);
	return err;
}
