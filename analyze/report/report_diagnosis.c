/* SPDX-License-Identifier: MIT */
/*
 * The diagnosis of the step: what bounds it, decided once, from the step budget (budget.h) of the
 * median iteration, a real one. The parts are grouped as the verdicts read them (syncs and
 * copies that wait are the host waiting for the GPU; launch calls; host work; ...); the group
 * that takes more than half of the step bounds it, and no group may: then the step is "mixed".
 * Where the evidence is missing (launch calls not timed, no scheduler records), the bound the
 * missing evidence could change is "unknown", and the verdict says what recording settles it.
 * The sections read the bound instead of judging alone: the launch and fusion sections name a
 * problem only in a launch-bound step, the transfer section calls a step transfer-bound only
 * when this does. docs/REPORTS.md, "What bounds the step", has the rules and what refutes each.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/syscalls.h"
#include "report_sections.h"

/* Stacks ranked for the host sites before they are merged by the name shown: enough that the
 * GR_DIAG_SITES named survive the merging of stacks one name covers. */
#define SITE_CANDIDATES 10

const char *gr_step_bound_name(unsigned bound)
{
	static const char *const names[] = {
	    [GR_BOUND_NONE] = "none",	    [GR_BOUND_UNKNOWN] = "unknown",
	    [GR_BOUND_GPU] = "gpu",	    [GR_BOUND_LAUNCH] = "launch",
	    [GR_BOUND_HOST] = "host",	    [GR_BOUND_STARVED] = "starved",
	    [GR_BOUND_BLOCKED] = "blocked", [GR_BOUND_TRANSFER] = "transfer",
	    [GR_BOUND_ALLOC] = "alloc",	    [GR_BOUND_MIXED] = "mixed",
	};

	return bound < sizeof(names) / sizeof(names[0]) ? names[bound] : "none";
}

const char *gr_step_group_name(unsigned group)
{
	static const char *const names[GR_NGROUPS] = {
	    [GR_GROUP_WAIT] = "wait",	      [GR_GROUP_LAUNCH] = "launch",
	    [GR_GROUP_COPY] = "copy",	      [GR_GROUP_ALLOC] = "alloc",
	    [GR_GROUP_OTHER] = "other",	      [GR_GROUP_HOST] = "host",
	    [GR_GROUP_RUNNABLE] = "runnable", [GR_GROUP_BLOCKED] = "blocked",
	    [GR_GROUP_UNKNOWN] = "unknown",
	};

	return group < GR_NGROUPS ? names[group] : "?";
}

/* What each group is, in the verdict's words. */
static const char *group_words(unsigned group)
{
	static const char *const words[GR_NGROUPS] = {
	    [GR_GROUP_WAIT] = "waiting for the GPU",
	    [GR_GROUP_LAUNCH] = "launch calls",
	    [GR_GROUP_COPY] = "copies moving data",
	    [GR_GROUP_ALLOC] = "allocation calls",
	    [GR_GROUP_OTHER] = "other CUDA calls",
	    [GR_GROUP_HOST] = "host work",
	    [GR_GROUP_RUNNABLE] = "runnable, not running",
	    [GR_GROUP_BLOCKED] = "blocked outside CUDA",
	    [GR_GROUP_UNKNOWN] = "outside CUDA (state unknown)",
	};

	return group < GR_NGROUPS ? words[group] : "?";
}

/* Bytes/s the loop thread's synchronous copies moved while they blocked it (all of its copies
 * when none is synchronous); 0 without copies. Copies that move next to nothing while they block
 * wait for the GPU: a sync in disguise. */
static double copy_rate(const struct rp_ctx *x, const struct gr_report_iteration *it)
{
	uint64_t bytes[2] = {0}, ns[2] = {0};

	for (size_t i = 0; i < x->nc; i++) {
		const struct gr_copy *c = &x->c[i];
		int sync = !(c->flags & GR_COPY_F_ASYNC);

		if (c->thread != it->thread || c->ts < it->start_ts || c->ts > it->end_ts ||
		    gr_graphs_copy_is_node(x->ls.graphs, i))
			continue;
		bytes[sync] += c->bytes;
		ns[sync] += rp_dur(x, c->dur);
	}
	if (ns[1])
		return (double)bytes[1] * 1e9 / (double)ns[1];
	return ns[0] ? (double)bytes[0] * 1e9 / (double)ns[0] : 0;
}

/* A call of the loop thread: when it entered and returned, and its stack. */
struct tcall {
	uint64_t ts, end;
	uint32_t stack;
};

static int cmp_tcall(const void *a, const void *b)
{
	const struct tcall *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * The calls @thread made with an entry in [@lo, @hi), in time order, into *@out (the caller frees
 * it); how many into *@n. Returns 0 or -ENOMEM.
 */
static int thread_calls(const struct rp_ctx *x, uint32_t thread, uint64_t lo, uint64_t hi,
			struct tcall **out, size_t *n)
{
	size_t len[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr}, cap = 0;
	struct tcall *c = NULL;

	*out = NULL;
	*n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned k = 0; k < RP_NCALLS; k++)
			for (size_t i = 0; i < len[k]; i++) {
				uint64_t t = rp_call_ts(x, k, (uint32_t)i);

				if (t < lo || t >= hi || rp_call_thread(x, k, i) != thread)
					continue;
				if (pass)
					c[(*n)++] =
					    (struct tcall){t, rp_call_end(x, k, (uint32_t)i),
							   rp_call_stack(x, k, (uint32_t)i)};
				else
					cap++;
			}
		if (!pass && !(c = malloc((cap + 1) * sizeof(*c))))
			return -ENOMEM;
	}
	gr_qsort(c, *n, sizeof(*c), cmp_tcall);
	*out = c;
	return 0;
}

/*
 * The most the launches recorded at entry only can have taken in iteration @j of the loop: each
 * ended before the thread's next call began (or the iteration's end), so the time from its
 * entry to that next entry bounds it. Returns that sum; 0 when none or out of memory (then the
 * caller learns nothing from the bound, and says unknown).
 */
static uint64_t untimed_launch_bound(const struct rp_ctx *x, const struct gr_report_iteration *it,
				     uint64_t j)
{
	uint64_t lo = it->starts[j], hi = j + 1 < it->count ? it->starts[j + 1] : it->end_ts,
		 sum = 0;
	struct tcall *c;
	size_t nc;

	if (thread_calls(x, it->thread, lo, hi, &c, &nc))
		return 0;
	for (size_t i = 0; i < x->nl; i++) {
		uint64_t t = x->l[i].ts;
		size_t a = 0, b = nc;

		if (t < lo || t >= hi || rp_launch_raw(x, i) || rp_lkey(x, i)->thread != it->thread)
			continue;
		/* the thread's first call entry after t, else the window's end */
		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (c[mid].ts <= t)
				a = mid + 1;
			else
				b = mid;
		}
		sum += (a < nc ? c[a].ts : hi) - t;
	}
	free(c);
	return sum;
}

/*
 * The median iteration's parts, grouped, with @est ns of the untimed launches' time moved out of
 * the parts it fell in into launch. An entry-only launch's time lies in what follows it outside
 * calls: on a CPU (host), without scheduler records unknown, and, when the thread was preempted
 * or slept inside the call, runnable or blocked; a timed call owns all of that. It is taken from
 * them in that order: the time a thread waits inside a launch call is rarer than its work there.
 */
static void group(struct rp_ctx *x, struct gr_report_diagnosis *D, uint64_t est)
{
	static const unsigned from[] = {GR_GROUP_HOST, GR_GROUP_UNKNOWN, GR_GROUP_RUNNABLE,
					GR_GROUP_BLOCKED};
	const struct gr_budget *b = &x->r->budget.median;

	memset(D->group_ns, 0, sizeof(D->group_ns));
	D->iteration = b->index;
	D->total_ns = b->total_ns;
	D->group_ns[GR_GROUP_WAIT] = b->part_ns[GR_BUDGET_SYNC_DEVICE] +
				     b->part_ns[GR_BUDGET_SYNC_STREAM] +
				     b->part_ns[GR_BUDGET_SYNC_EVENT];
	D->group_ns[D->copy_rate >= RP_TRANSFER_RATE ? GR_GROUP_COPY : GR_GROUP_WAIT] +=
	    b->part_ns[GR_BUDGET_COPY];
	D->group_ns[GR_GROUP_LAUNCH] =
	    b->part_ns[GR_BUDGET_LAUNCH] + b->part_ns[GR_BUDGET_GRAPH_LAUNCH];
	D->group_ns[GR_GROUP_ALLOC] = b->part_ns[GR_BUDGET_ALLOC];
	D->group_ns[GR_GROUP_OTHER] = b->part_ns[GR_BUDGET_OTHER];
	D->group_ns[GR_GROUP_HOST] = b->part_ns[GR_BUDGET_HOST];
	D->group_ns[GR_GROUP_RUNNABLE] = b->part_ns[GR_BUDGET_RUNNABLE];
	D->group_ns[GR_GROUP_BLOCKED] = b->part_ns[GR_BUDGET_BLOCKED];
	D->group_ns[GR_GROUP_UNKNOWN] = b->part_ns[GR_BUDGET_OUTSIDE_UNKNOWN];
	D->launch_est_ns = 0;
	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		uint64_t take = est < D->group_ns[from[i]] ? est : D->group_ns[from[i]];

		D->group_ns[from[i]] -= take;
		D->launch_est_ns += take;
		est -= take;
	}
	D->group_ns[GR_GROUP_LAUNCH] += D->launch_est_ns;
}

/*
 * How a host site is named: its innermost Python frame and the Python frame that called it,
 * caller first ("train.py:12 step -> model.py:40 forward": the innermost alone is often a helper
 * every call goes through); without Python, the native frame that launched, past nvcc's launch
 * stubs and the runtime header's cudaLaunchKernel<T>, which sit between the code and the runtime;
 * else the innermost frame. NULL when out of memory; "" without frames.
 */
static const char *site_name(struct rp_ctx *x, const struct gr_report_site *s)
{
	int i;

	if (!s->nframes)
		return "";
	if (s->python >= 0) {
		for (i = s->python + 1; i < (int)s->nframes; i++)
			if (s->desc[i].kind == GR_FRAME_KIND_PYTHON)
				return rp_printf(x, "%s -> %s", s->frames[i], s->frames[s->python]);
		return s->frames[s->python];
	}
	if (s->launcher < 0)
		return s->frames[0];
	for (i = s->launcher; i < (int)s->nframes; i++) {
		const char *fn = s->desc[i].function;

		if (!fn ||
		    (strncmp(fn, "__device_stub__", 15) && strncmp(fn, "cudaLaunchKernel", 16)))
			return s->frames[i];
	}
	return s->frames[s->launcher];
}

/*
 * Where a host-bound step's host work is: no sample of the CPU says, but each stretch of the
 * loop thread's time outside calls ends with the call it made next, whose stack names the code
 * that was running (the Python line, the native function). Each stretch over the loop goes to
 * that call's site; the sites named alike are one; the largest GR_DIAG_SITES, per iteration.
 * Returns 0 or -ENOMEM; none without stacks.
 */
static int host_sites(struct rp_ctx *x, struct gr_report_diagnosis *D)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	size_t nc = 0, top[SITE_CANDIDATES], ntop = 0;
	uint64_t *per = calloc(x->nst + 1, sizeof(*per)), reach = it->start_ts;
	/* the loop opens with its first call: the host work before it is no iteration's, and
	 * the stretches inside fill its count - 1 whole periods */
	uint64_t periods = it->count > 1 ? it->count - 1 : 1;
	struct tcall *c = NULL;
	int err = -ENOMEM;

	if (!per)
		return -ENOMEM;
	/* the loop's end is the return of its last call: the entries up to it */
	if (thread_calls(x, it->thread, it->start_ts, it->end_ts + 1, &c, &nc))
		goto out;
	/* reach: the latest return so far (a nested call ends inside its outer one) */
	for (size_t i = 0; i < nc; i++) {
		if (c[i].ts > reach && c[i].stack < x->nst)
			per[c[i].stack] += c[i].ts - reach;
		if (c[i].end > reach)
			reach = c[i].end;
	}
	/* the largest stacks (0: no stack, named nothing), then merged by the name shown */
	for (uint32_t s = 1; s < x->nst; s++) {
		size_t at;

		if (!per[s] || (ntop == SITE_CANDIDATES && per[s] <= per[top[SITE_CANDIDATES - 1]]))
			continue;
		at = ntop < SITE_CANDIDATES ? ntop++ : SITE_CANDIDATES - 1;
		while (at > 0 && per[top[at - 1]] < per[s]) {
			top[at] = top[at - 1];
			at--;
		}
		top[at] = s;
	}
	for (size_t i = 0; i < ntop && per[top[i]]; i++) {
		struct gr_report_site site;
		const char *name;
		size_t k;

		err = rp_site(x, &site, top[i], 0);
		if (err)
			goto out;
		name = site_name(x, &site);
		err = -ENOMEM;
		if (!name)
			goto out;
		for (k = 0; k < D->nhost_sites; k++)
			if (!strcmp(D->host_sites[k], name))
				break;
		if (k < D->nhost_sites) {
			D->host_site_ns[k] += per[top[i]] / periods;
			continue;
		}
		if (D->nhost_sites == GR_DIAG_SITES)
			continue;
		D->host_sites[D->nhost_sites] = name;
		D->host_site_ns[D->nhost_sites++] = per[top[i]] / periods;
	}
	/* merging can reorder them */
	for (size_t i = 1; i < D->nhost_sites; i++)
		for (size_t k = i; k > 0 && D->host_site_ns[k] > D->host_site_ns[k - 1]; k--) {
			const char *s = D->host_sites[k];
			uint64_t v = D->host_site_ns[k];

			D->host_sites[k] = D->host_sites[k - 1];
			D->host_site_ns[k] = D->host_site_ns[k - 1];
			D->host_sites[k - 1] = s;
			D->host_site_ns[k - 1] = v;
		}
	err = 0;
out:
	free(per);
	free(c);
	return err;
}

/* "; the host work ends at: train.py:42 step 812 us an iteration, ..." */
static void host_sites_text(const struct gr_report_diagnosis *D, char *buf, size_t len)
{
	size_t at;

	if (!D->nhost_sites) {
		snprintf(buf, len, "; no stack says where (record with stacks to name it)");
		return;
	}
	at = (size_t)snprintf(buf, len, "; the host work ends at");
	for (size_t i = 0; i < D->nhost_sites && at < len; i++) {
		char b1[32];

		at += (size_t)snprintf(buf + at, len - at, "%s %s (%s an iteration)", i ? "," : "",
				       D->host_sites[i],
				       gr_units_ns(b1, sizeof(b1), D->host_site_ns[i]));
	}
}

/* The largest group, and whether it takes more than RP_BOUND_SHARE of the step. */
static unsigned top_group(const struct gr_report_diagnosis *D, int *bounds)
{
	unsigned top = GR_GROUP_WAIT;

	for (unsigned g = 1; g < GR_NGROUPS; g++)
		if (D->group_ns[g] > D->group_ns[top])
			top = g;
	*bounds = (double)D->group_ns[top] >= RP_BOUND_SHARE * (double)D->total_ns;
	return top;
}

/* "sync and waits 81% 1.2 ms, host work 10% 150 us" : the groups over 5% of the step, largest
 * first, at most 3. */
static void evidence(const struct gr_report_diagnosis *D, char *buf, size_t len)
{
	int used[GR_NGROUPS] = {0};
	size_t at = 0;

	buf[0] = 0;
	for (int n = 0; n < 3; n++) {
		unsigned best = GR_NGROUPS;
		char b1[32], pc[16];

		for (unsigned g = 0; g < GR_NGROUPS; g++)
			if (!used[g] && (best == GR_NGROUPS || D->group_ns[g] > D->group_ns[best]))
				best = g;
		if (best == GR_NGROUPS || !D->total_ns ||
		    (n && (double)D->group_ns[best] < 0.05 * (double)D->total_ns))
			break;
		used[best] = 1;
		at += (size_t)snprintf(
		    buf + at, len > at ? len - at : 0, "%s%s %s %s", n ? ", " : "",
		    group_words(best),
		    gr_units_pct(pc, sizeof(pc), (double)D->group_ns[best] / (double)D->total_ns),
		    gr_units_ns(b1, sizeof(b1), D->group_ns[best]));
	}
}

/* "thread NAME (tid N) at SITE" for culprit @c: who ended the wait and where; report-owned,
 * NULL when out of memory. */
static const char *culprit_text(struct rp_ctx *x, const struct gr_block_culprit *c)
{
	char site[GR_FRAME_TEXT];
	const char *comm = gr_budget_culprit_name(x->m, x->nvtx, c);

	if (!c->woken)
		return "an unknown task (no wakeup recorded)";
	if (!c->tid)
		return "an interrupt (a timer or a device)";
	gr_block_site(x->m, c->waker_stack, site, sizeof(site));
	return rp_printf(x, "thread %s (tid %" PRIu32 ")%s%s", *comm ? comm : "?", c->tid,
			 *site ? " at " : " at an unknown site (no stack)", site);
}

/*
 * The verdict of a blocked-bound step: the reason that took most of the blocked part (blocked.h)
 * and its culprit in the median iteration (over the loop when no wakeup ended it there), with
 * the advice that fits the reason.
 */
static int blocked_verdict(struct rp_ctx *x, struct gr_report_diagnosis *D, const char *step,
			   const char *ev)
{
	const struct gr_budget *b = &x->r->budget.median;
	const struct gr_block_culprit *c;
	const char *who, *sc;
	char pc[16], at[GR_FRAME_TEXT], scname[40];
	unsigned r = GR_BLOCK_UNKNOWN;

	for (unsigned k = 0; k < GR_BLOCK_NREASONS; k++)
		if (b->blocked_ns[k] > b->blocked_ns[r])
			r = k;
	D->blocked_reason = (int)r;
	D->blocked_reason_ns = b->blocked_ns[r];
	c = &b->culprit[r];
	if (!c->woken && x->r->budget.mean.culprit[r].woken)
		c = &x->r->budget.mean.culprit[r];
	who = culprit_text(x, c);
	if (!who)
		return -ENOMEM;
	gr_units_pct(pc, sizeof(pc), D->total_ns ? (double)b->blocked_ns[r] / D->total_ns : 0);
	gr_block_site(x->m, c->stack, at, sizeof(at));
	if (!*at)
		snprintf(at, sizeof(at), "an unknown site (no stack)");
	sc = gr_syscall_name(c->syscall);
	if (!sc && c->syscall >= 0)
		sc = scname;
	snprintf(scname, sizeof(scname), "system call %" PRId32, c->syscall);
	switch (r) {
	case GR_BLOCK_GIL:
		return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
				  "GIL-bound: the loop thread waited for the GIL %s of the %s step "
				  "(iteration #%" PRIu64 ": %s), held by %s; move that work to a "
				  "process, or release the GIL in the extension that holds it",
				  pc, step, D->iteration, ev, who);
	case GR_BLOCK_LOCK:
		D->blocked_condvar = gr_block_condvar(x->m, c->stack, c->waker_stack);
		if (D->blocked_condvar)
			return rp_verdict(
			    x, &D->verdict, GR_VERDICT_PROBLEM,
			    "hand-off-bound: the loop thread waited %s of the %s step (iteration "
			    "#%" PRIu64 ": %s) at %s for a signal from %s (a condition variable: "
			    "no lock held long, the step's work runs on that thread meanwhile); "
			    "the step's time is that thread's work before it signals",
			    pc, step, D->iteration, ev, at, who);
		return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
				  "lock-bound: the loop thread waited on a lock %s of the %s step "
				  "(iteration #%" PRIu64 ": %s) at %s, held by %s; shorten the "
				  "critical section or take the lock off the step's thread",
				  pc, step, D->iteration, ev, at, who);
	case GR_BLOCK_INPUT: {
		const char *comm = gr_budget_culprit_name(x->m, x->nvtx, c);
		uint64_t cpu = x->r->budget.mean.culprit[r].worker_cpu_ns;
		char each[64] = "", t[32];

		/* what a worker spends on a step's data: a slow producer burns it, one that waits
		 * on something else does not */
		if (cpu)
			snprintf(each, sizeof(each), ", %s of CPU each per step",
				 gr_units_ns(t, sizeof(t), (double)cpu));
		return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
				  "input-bound: the step waits %s for data from %" PRIu32
				  " worker process%s (%s)%s, at %s (iteration #%" PRIu64
				  " of %s: %s); the most from %s: more workers, prefetch, or a "
				  "faster producer",
				  pc, c->wakers, c->wakers == 1 ? "" : "es", *comm ? comm : "?",
				  each, at, D->iteration, step, ev, who);
	}
	case GR_BLOCK_DISK:
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "disk-bound: the loop thread waits for disk I/O %s of the %s step "
		    "(iteration #%" PRIu64 ": %s) at %s; read ahead, cache, or move the "
		    "reads off the step's thread",
		    pc, step, D->iteration, ev, at);
	case GR_BLOCK_SLEEP:
		return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
				  "sleep-bound: the loop thread sleeps (%s) %s of the %s step "
				  "(iteration #%" PRIu64
				  ": %s) at %s; the sleep is the step's limit",
				  sc ? sc : "unknown call", pc, step, D->iteration, ev, at);
	case GR_BLOCK_CHILD:
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "child-bound: the loop thread waits (%s) for a child process %s of "
		    "the %s step (iteration #%" PRIu64 ": %s) at %s, ended by %s; run "
		    "the child alongside the step instead of waiting for it",
		    sc ? sc : "unknown call", pc, step, D->iteration, ev, at, who);
	case GR_BLOCK_STOPPED:
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "stopped: the loop thread was stopped (a signal or a tracer) %s of "
		    "the %s step (iteration #%" PRIu64 ": %s), continued by %s",
		    pc, step, D->iteration, ev, who);
	case GR_BLOCK_OTHER:
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "blocked in %s: the loop thread waits in that system call %s of the "
		    "%s step (iteration #%" PRIu64 ": %s) at %s, woken by %s",
		    sc ? sc : "an unknown system call", pc, step, D->iteration, ev, at, who);
	}
	/* a trace that records reasons but not these: page faults, sleeps it began before */
	return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
			  "blocked (reason unknown: %s): the thread sleeps outside CUDA calls for "
			  "most of the %s step (iteration #%" PRIu64 ": %s)",
			  x->r->budget.has_reasons
			      ? "no system call recorded for these sleeps"
			      : "record with a gpurec that records blocked reasons",
			  step, D->iteration, ev);
}

int rp_diagnosis(struct rp_ctx *x)
{
	struct gr_report_diagnosis *D = &x->r->diagnosis;
	const struct gr_budgets *B = &x->r->budget;
	const struct gr_outcome *o = &x->r->outcome.o;
	char ev[400], b1[32], pc[32];
	unsigned top;
	int bounds;
	double share;

	D->bound = GR_BOUND_NONE;
	D->blocked_reason = -1;
	D->blocked_reason_ns = 0;
	D->blocked_condvar = 0;
	D->refute = "";
	if (!o->ok)
		return rp_verdict(x, &D->verdict, GR_VERDICT_NONE,
				  "not judged: no call is known to have succeeded%s",
				  o->unknown
				      ? " (the calls have no recorded status: launches recorded "
					"without --launch-time, or a trace from an older gpurec)"
				      : "");
	if (!B->found || !B->median.total_ns)
		return rp_verdict(x, &D->verdict, GR_VERDICT_NONE,
				  "not judged: no repeating step was found to account for; name it "
				  "with --step (a kernel, an API, a Python line or function)");
	D->copy_rate = copy_rate(x, &x->r->launches.iter);
	D->launch_timed = !B->median.unmeasured || x->r->launches.api_measured;
	if (D->launch_timed) {
		/* untimed launches counted at the cost measured on the others */
		group(x, D, B->median.unmeasured * x->r->launches.launch_cost_ns);
		top = top_group(D, &bounds);
	} else {
		/* each untimed launch took between nothing and the time to the thread's next
		 * call: a bound that holds at both ends holds */
		uint64_t most = untimed_launch_bound(x, &x->r->launches.iter, B->median.index);
		int bounds_lo, bounds_hi;
		unsigned top_lo, top_hi;

		group(x, D, most);
		top_hi = top_group(D, &bounds_hi);
		group(x, D, 0);
		top_lo = top_group(D, &bounds_lo);
		top = top_lo;
		bounds = bounds_lo;
		if (top_lo != top_hi || bounds_lo != bounds_hi) {
			evidence(D, ev, sizeof(ev));
			D->bound = GR_BOUND_UNKNOWN;
			D->refute = "a recording that times the launch calls (--launch-time)";
			return rp_verdict(
			    x, &D->verdict, GR_VERDICT_NONE,
			    "unknown: %" PRIu64 " launch calls of the %s step (iteration #%" PRIu64
			    ") were not timed, and what bounds it depends on how long they took "
			    "(%s at most, by the gaps after them); record with --launch-time to "
			    "tell (untimed launches counted as 0: %s)",
			    B->median.unmeasured, gr_units_ns(b1, sizeof(b1), D->total_ns),
			    D->iteration, gr_units_ns(pc, sizeof(pc), most), ev);
		}
	}
	share = (double)D->group_ns[top] / (double)D->total_ns;
	evidence(D, ev, sizeof(ev));
	gr_units_ns(b1, sizeof(b1), D->total_ns);
	gr_units_pct(pc, sizeof(pc), share);
	if (top == GR_GROUP_UNKNOWN && bounds) {
		D->bound = GR_BOUND_UNKNOWN;
		D->refute = "a recording with scheduler events (without --no-sched)";
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_NONE,
		    "unknown: %s of the %s step (iteration #%" PRIu64 ") is outside "
		    "CUDA calls, and no scheduler record says whether the thread ran, "
		    "waited for a CPU or slept: record without --no-sched to tell (%s)",
		    pc, b1, D->iteration, ev);
	}
	if (!bounds) {
		D->bound = GR_BOUND_MIXED;
		D->refute = "one part taking more than half of the step in another recording";
		return rp_verdict(x, &D->verdict, GR_VERDICT_OK,
				  "no single bound: no part takes half of the %s step (iteration "
				  "#%" PRIu64 "): %s",
				  b1, D->iteration, ev);
	}
	switch (top) {
	case GR_GROUP_WAIT:
		D->bound = GR_BOUND_GPU;
		D->refute = "the host waiting less than half of the step in syncs and copies that "
			    "wait (faster kernels move the bound to the host)";
		return rp_verdict(x, &D->verdict, GR_VERDICT_OK,
				  "GPU-bound: the host waits for the GPU for most of the %s step "
				  "(iteration #%" PRIu64
				  ": %s); launch overhead and fusion are not "
				  "its limit, the GPU's work is",
				  b1, D->iteration, ev);
	case GR_GROUP_LAUNCH:
		D->bound = GR_BOUND_LAUNCH;
		D->refute = "launch calls taking less than half of the step when timed "
			    "(--launch-time)";
		return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
				  "launch-bound: launch calls take most of the %s step (iteration "
				  "#%" PRIu64 ": %s%s); the GPU waits for the host: fewer, larger "
				  "kernels (see fusion) or CUDA graphs",
				  b1, D->iteration, ev,
				  D->launch_est_ns ? "; launches not timed counted at the measured "
						     "launch cost"
						   : "");
	case GR_GROUP_HOST: {
		char sites[GR_DIAG_SITES * 200 + 64];
		int err = host_sites(x, D);

		if (err)
			return err;
		host_sites_text(D, sites, sizeof(sites));
		D->bound = GR_BOUND_HOST;
		D->refute = "host work outside CUDA calls taking less than half of the step";
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "host-bound: the thread works on its CPU outside CUDA calls for most "
		    "of the %s step (iteration #%" PRIu64 ": %s)%s; the GPU waits for "
		    "it: move that work off the step's thread or overlap it",
		    b1, D->iteration, ev, sites);
	}
	case GR_GROUP_RUNNABLE:
		D->bound = GR_BOUND_STARVED;
		D->refute = "the thread runnable but not running less than half of the step";
		return rp_verdict(x, &D->verdict, GR_VERDICT_PROBLEM,
				  "CPU-starved: the thread waits for a CPU for most of the %s step "
				  "(iteration #%" PRIu64
				  ": %s); see the CPU section for who held it",
				  b1, D->iteration, ev);
	case GR_GROUP_BLOCKED:
		D->bound = GR_BOUND_BLOCKED;
		D->refute = "the thread blocked outside CUDA calls less than half of the step";
		return blocked_verdict(x, D, b1, ev);
	case GR_GROUP_COPY:
		D->bound = GR_BOUND_TRANSFER;
		D->refute = "copies taking less than half of the step, or moving under 1 GB/s "
			    "(then they wait for the GPU)";
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "transfer-bound: copies moving data at %.1f GB/s take most of the %s "
		    "step (iteration #%" PRIu64 ": %s); move less data or overlap it",
		    D->copy_rate / 1e9, b1, D->iteration, ev);
	case GR_GROUP_ALLOC:
		D->bound = GR_BOUND_ALLOC;
		D->refute = "allocation calls taking less than half of the step";
		return rp_verdict(
		    x, &D->verdict, GR_VERDICT_PROBLEM,
		    "allocation-bound: allocation and free calls take most of the %s step "
		    "(iteration #%" PRIu64 ": %s); cudaFree waits for the device: keep "
		    "buffers across steps or use cudaMallocAsync",
		    b1, D->iteration, ev);
	}
	D->bound = GR_BOUND_MIXED;
	D->refute = "one part taking more than half of the step in another recording";
	return rp_verdict(x, &D->verdict, GR_VERDICT_OK,
			  "no single bound: other CUDA calls take most of the %s step (iteration "
			  "#%" PRIu64 ": %s)",
			  b1, D->iteration, ev);
}
