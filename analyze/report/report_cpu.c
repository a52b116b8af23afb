/* SPDX-License-Identifier: MIT */
/*
 * Report 4, CPU starvation. Replays the scheduler events of every thread that made CUDA calls
 * into a state timeline (on CPU, runnable but waiting, blocked), counts involuntary switches and
 * who took the CPU, attributes each runnable wait to the tasks that held the CPU meanwhile
 * (exactly, from the timeline's pieces, when the trace has wait windows; else estimated), and
 * reports how much of that waiting fell inside the thread's inter-launch gaps (the call-sequence
 * pass measures them against the waits this replay gives it): GPU feed lost to the scheduler.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/figures/timeline.h"
#include "report_sections.h"

struct culprit {
	const char *comm;
	uint64_t ns, preemptions;
	int recorder;
};

struct cstate {
	uint32_t preemptor; /* tid + 1 of the task that preempted it, 0 = none */
	struct rp_wait *iv; /* in time order */
	size_t niv, civ;
	struct culprit *cul;
	size_t ncul, ccul;
	struct gr_report_cpu_thread out;
};

struct rp_cpu {
	struct rp_ctx *x;
	struct cstate *cs; /* one per CUDA-calling thread, in model thread order */
	size_t n;
	uint32_t *slot;		/* model thread -> cs index */
	struct rp_waits *waits; /* per model thread */
	int exact;		/* culprits from the timeline's pieces (wait windows) */
	uint64_t missed;	/* spans unknown for a switch the recording lost (timeline.h) */
};

/* The name a task is charged under: its comm, the recorder's own name, idle. */
static const char *comm_of(struct rp_ctx *x, uint32_t pid, uint32_t tid)
{
	const char *c;

	if (!tid)
		return "idle (wakeup latency)";
	if (gr_model_is_recorder(x->m, pid))
		return GR_RECORDER_NAME;
	c = gr_model_comm(x->m, tid);
	return c && *c ? c : rp_printf(x, "tid %u", tid);
}

static struct culprit *culprit(struct cstate *s, const char *comm)
{
	for (size_t i = 0; i < s->ncul; i++)
		if (s->cul[i].comm == comm || !strcmp(s->cul[i].comm, comm))
			return &s->cul[i];
	if (s->ncul == s->ccul) {
		size_t ncap = s->ccul ? s->ccul * 2 : 4;
		struct culprit *v = realloc(s->cul, ncap * sizeof(*v));

		if (!v)
			return NULL;
		s->cul = v;
		s->ccul = ncap;
	}
	s->cul[s->ncul] = (struct culprit){comm, 0, 0, !strcmp(comm, GR_RECORDER_NAME)};
	return &s->cul[s->ncul++];
}

/* Time the thread spent in a state. */
static void account(struct cstate *s, const struct gr_state_span *sp)
{
	uint64_t d = sp->end - sp->start;

	switch (sp->state) {
	case GR_STATE_RUN:
		s->out.oncpu_ns += d;
		break;
	case GR_STATE_RUNNABLE:
		s->out.runnable_wait_ns += d;
		break;
	case GR_STATE_BLOCKED:
		s->out.blocked_ns += d;
		break;
	default:
		s->out.unknown_ns += d;
	}
}

static int add_interval(struct cstate *s, uint64_t start, uint64_t end)
{
	if (s->niv == s->civ) {
		size_t ncap = s->civ ? s->civ * 2 : 16;
		struct rp_wait *v = realloc(s->iv, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->iv = v;
		s->civ = ncap;
	}
	s->iv[s->niv++] = (struct rp_wait){start, end};
	return 0;
}

/* The runnable wait [since, ts), ended when task @prev_tid gave the CPU to the thread. */
static int end_wait(struct rp_ctx *x, struct cstate *s, uint64_t since, uint64_t ts,
		    uint32_t prev_tid)
{
	/* culprits are charged for the wait while the thread made CUDA calls, as the verdict's
	 * share is: start-up waits are not the GPU feed */
	const struct rp_thread *t = &x->thr[s->out.thread];
	uint64_t lo = since > t->first ? since : t->first, hi = ts < t->last ? ts : t->last;
	uint64_t d = hi > lo ? hi - lo : 0;
	const char *pc = comm_of(x, 0, prev_tid), *ac;
	struct culprit *a, *b;

	if (!pc || add_interval(s, since, ts))
		return -ENOMEM;
	/* the preemptor and the task that ran last share the wait; either alone takes it all */
	if (s->preemptor && s->preemptor != prev_tid + 1) {
		ac = comm_of(x, 0, s->preemptor - 1);
		a = ac ? culprit(s, ac) : NULL;
		if (!a)
			return -ENOMEM;
		a->ns += d / 2;
		b = culprit(s, pc); /* after a: adding a may move the array */
		if (!b)
			return -ENOMEM;
		b->ns += d - d / 2;
	} else {
		b = culprit(s, pc);
		if (!b)
			return -ENOMEM;
		b->ns += d;
	}
	s->preemptor = 0;
	return 0;
}

/*
 * Who held the CPU for a piece of a thread's wait (timeline.h), charged for the part inside the
 * time the thread made CUDA calls (as end_wait() does): the culprits of a wait sum to it.
 */
static int on_piece(void *ctx, const struct gr_wait_piece *p)
{
	struct rp_cpu *c = ctx;
	struct rp_ctx *x = c->x;
	struct cstate *s = &c->cs[p->thread];
	const struct rp_thread *t = &x->thr[s->out.thread];
	uint64_t lo = p->start > t->first ? p->start : t->first;
	uint64_t hi = p->end < t->last ? p->end : t->last;
	const char *comm;
	struct culprit *cu;

	if (hi <= lo)
		return 0;
	comm = p->known ? comm_of(x, p->pid, p->tid) : "unknown";
	cu = comm ? culprit(s, comm) : NULL;
	if (!cu)
		return -ENOMEM;
	cu->ns += hi - lo;
	return 0;
}

/* Whether span @sp began as a wait for a CPU: woken, or preempted. */
static int began_waiting(const struct gr_state_span *sp)
{
	return sp->begin.cause == GR_SPAN_WAKEUP ||
	       (sp->begin.cause == GR_SPAN_SWITCH_OUT && !sp->begin.prev_state);
}

/* A state the thread left (timeline.h): account for it, count the switch, charge the wait. */
static int on_span(void *ctx, const struct gr_state_span *sp)
{
	struct rp_cpu *c = ctx;
	struct rp_ctx *x = c->x;
	struct cstate *s = &c->cs[sp->thread];
	const struct rp_thread *t = &x->thr[s->out.thread];

	account(s, sp);
	c->missed += sp->missed;
	/* a wait whose switch-in was lost (timeline.h: the span is unknown, ended by the switch
	 * out): its pieces were charged, the last to nobody, so its time counts as waiting too */
	if (c->exact && sp->missed && began_waiting(sp) && add_interval(s, sp->start, sp->end))
		return -ENOMEM;
	switch (sp->cause) {
	case GR_SPAN_SWITCH_OUT:
		if (sp->next == GR_STATE_RUNNABLE) {
			const char *comm = comm_of(x, sp->other_pid, sp->other_tid);
			struct culprit *cu = comm ? culprit(s, comm) : NULL;

			if (!cu)
				return -ENOMEM;
			if (sp->end >= t->first && sp->end <= t->last)
				cu->preemptions++;
			s->out.involuntary++;
			s->preemptor = sp->other_tid + 1;
		} else {
			s->out.voluntary++;
		}
		return 0;
	case GR_SPAN_SWITCH_IN:
		if (sp->state != GR_STATE_RUNNABLE)
			return 0;
		/* exact: the pieces charged the wait already */
		return c->exact ? add_interval(s, sp->start, sp->end)
				: end_wait(x, s, sp->start, sp->end, sp->other_tid);
	case GR_SPAN_WAKEUP:
		s->preemptor = 0;
		return 0;
	default: /* the end of the replay: a wait cut off there has no one to blame */
		return sp->state == GR_STATE_RUNNABLE ? add_interval(s, sp->start, sp->end) : 0;
	}
}

/* Runnable wait while the thread was making CUDA calls: start-up (library loading, the
 * recorder attaching its probes) is not GPU feed. */
static void active_window(struct rp_ctx *x, struct cstate *s)
{
	uint64_t lo = x->thr[s->out.thread].first, hi = x->thr[s->out.thread].last;

	if (hi <= lo)
		return;
	s->out.active_ns = hi - lo;
	for (size_t i = 0; i < s->niv; i++) {
		uint64_t a = s->iv[i].start > lo ? s->iv[i].start : lo;
		uint64_t b = s->iv[i].end < hi ? s->iv[i].end : hi;

		if (b > a)
			s->out.active_wait_ns += b - a;
	}
	s->out.active_share = (double)s->out.active_wait_ns / (double)s->out.active_ns;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct gr_report_cpu_thread *x = a, *y = b;

	if (x->runnable_wait_ns != y->runnable_wait_ns)
		return x->runnable_wait_ns > y->runnable_wait_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_culprit(const void *a, const void *b)
{
	const struct gr_report_culprit *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

static int verdict(struct rp_ctx *x)
{
	struct gr_report_cpu *C = &x->r->cpu;
	const struct gr_outcome *o = &x->r->outcome.o;
	const struct gr_report_cpu_thread *w = NULL;
	char b1[32], b2[32], b3[32], b4[32], p1[16], p2[16], who[400] = "", advice[200];
	uint64_t own = 0;
	size_t at = 0;

	/* calls that failed or never returned did no work, but a thread made them */
	if (!C->nthreads && (o->failed || o->nin_flight))
		return rp_verdict(x, &C->verdict, GR_VERDICT_NONE,
				  "no CUDA call did work: %" PRIu64 " failed and %zu never "
				  "returned (see above); no thread to judge",
				  o->failed, o->nin_flight);
	if (!C->nthreads)
		return rp_verdict(x, &C->verdict, GR_VERDICT_NONE, "%s",
				  x->r->damage.damaged ? "no thread made CUDA calls in the part of "
							 "the damaged trace that was kept"
				  : x->r->cuda_libraries
				      ? "no thread made CUDA calls"
				      : "no CUDA library was loaded: no CUDA threads");
	if (!C->has_sched)
		return rp_verdict(x, &C->verdict, GR_VERDICT_NONE,
				  "no scheduler events in the trace (recorded with --no-sched?): "
				  "CPU starvation cannot be measured");
	/* the thread that waited most, for its share of the time it made CUDA calls */
	for (size_t i = 0; i < C->nthreads; i++)
		if (!w || C->threads[i].active_share > w->active_share)
			w = &C->threads[i];
	for (size_t i = 0; i < w->nculprits && i < 3 && at < sizeof(who) - 1; i++)
		at += (size_t)snprintf(who + at, sizeof(who) - at, "%s%s %s", i ? ", " : "",
				       w->culprits[i].comm,
				       gr_units_ns(b1, sizeof(b1), w->culprits[i].ns));
	for (size_t i = 0; i < w->nculprits; i++)
		if (w->culprits[i].recorder)
			own = w->culprits[i].ns;
	/* the profiler's own CPU time is never advice against the user's machine */
	if (own && w->nculprits && w->culprits[0].recorder)
		snprintf(advice, sizeof(advice),
			 "the profiler itself (" GR_RECORDER_NAME ") took most of it: without "
			 "the recording it would wait less; record with a core left free for "
			 "gpurec");
	else if (own)
		snprintf(advice, sizeof(advice),
			 "give the launching thread a core of its own (%s of the wait was the "
			 "profiler itself, " GR_RECORDER_NAME ")",
			 gr_units_ns(b4, sizeof(b4), own));
	else
		snprintf(advice, sizeof(advice), "give the launching thread a core of its own");
	if (w->active_share >= RP_STARVED_SHARE)
		return rp_verdict(
		    x, &C->verdict, GR_VERDICT_PROBLEM,
		    "CPU-starved: %s (tid %u) was runnable but not running %s of "
		    "the time it made CUDA calls (%s; %" PRIu64 " involuntary switches); "
		    "%s of it inside launch gaps (all threads: %s of their time making CUDA "
		    "calls); the CPU went to "
		    "%s: %s",
		    w->comm[0] ? w->comm : "?", w->tid,
		    gr_units_pct(p1, sizeof(p1), w->active_share),
		    gr_units_ns(b2, sizeof(b2), w->active_wait_ns), w->involuntary,
		    gr_units_ns(b3, sizeof(b3), w->starved_gap_ns),
		    gr_units_pct(p2, sizeof(p2), C->gap_share), who[0] ? who : "(unknown)", advice);
	return rp_verdict(x, &C->verdict, GR_VERDICT_OK,
			  "not CPU-starved: the most waiting thread, %s (tid %u), was runnable but "
			  "not running %s of the time it made CUDA calls (%s; threshold %.0f%%); "
			  "%s inside launch gaps",
			  w->comm[0] ? w->comm : "?", w->tid,
			  gr_units_pct(p1, sizeof(p1), w->active_share),
			  gr_units_ns(b1, sizeof(b1), w->active_wait_ns), RP_STARVED_SHARE * 100,
			  gr_units_ns(b3, sizeof(b3), w->starved_gap_ns));
}

void rp_cpu_free(struct rp_cpu *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->cs[i].iv);
		free(c->cs[i].cul);
	}
	free(c->cs);
	free(c->slot);
	free(c->waits);
	free(c);
}

const struct rp_waits *rp_cpu_waits(const struct rp_cpu *c)
{
	return c ? c->waits : NULL;
}

int rp_cpu_replay(struct rp_ctx *x, struct rp_cpu **out)
{
	struct rp_cpu *c = calloc(1, sizeof(*c));
	size_t nsched, nct = 0;
	const struct gr_sched *ev = gr_model_scheds(x->m, &nsched);
	const struct gr_sched_key *keys = gr_model_sched_keys(x->m, NULL);
	struct gr_timeline tl = {0};
	uint32_t *tids = NULL;
	uint64_t *first = NULL, *last = NULL, windows = 0;
	struct cstate *cs;
	int err = -ENOMEM;

	*out = NULL;
	if (!c)
		goto out;
	c->x = x;
	c->waits = calloc(x->nth + 1, sizeof(*c->waits));
	if (!c->waits)
		goto out;
	for (size_t t = 0; t < x->nth; t++)
		nct += (size_t)x->thr[t].cuda;
	c->cs = cs = calloc(nct + 1, sizeof(*cs));
	c->slot = calloc(x->nth + 1, sizeof(*c->slot));
	tids = calloc(nct + 1, sizeof(*tids));
	first = calloc(nct + 1, sizeof(*first));
	last = calloc(nct + 1, sizeof(*last));
	if (!cs || !c->slot || !tids || !first || !last)
		goto out;
	for (size_t t = 0; t < x->nth; t++) {
		if (!x->thr[t].cuda)
			continue;
		c->slot[t] = (uint32_t)c->n;
		cs[c->n].out.thread = (uint32_t)t;
		cs[c->n].out.pid = x->th[t].pid;
		cs[c->n].out.tid = x->th[t].tid;
		cs[c->n].out.comm = x->th[t].comm;
		cs[c->n].out.nvtx_name = gr_nvtx_thread_name(x->nvtx, x->th[t].pid, x->th[t].tid);
		tids[c->n] = x->th[t].tid;
		first[c->n] = x->thr[t].first;
		last[c->n] = x->thr[t].last;
		c->n++;
	}
	err = gr_timeline_init(&tl, tids, first, c->n, on_span, c);
	c->exact = gr_model_session(x->m, GR_SESS_SCHED_WINDOWS, &windows, NULL) && windows;
	if (!err && c->exact)
		err = gr_timeline_pieces(&tl, on_piece);
	for (size_t i = 0; !err && i < nsched; i++)
		err = gr_timeline_feed(&tl, ev[i].ts, &keys[ev[i].key]);
	/* close each timeline at the thread's last event */
	if (!err)
		err = gr_timeline_finish(&tl, last);
	if (err)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		struct cstate *s = &cs[i];
		const struct rp_thread *t = &x->thr[s->out.thread];

		if (tl.t[i].seen) {
			s->out.lifetime_ns = s->out.oncpu_ns + s->out.runnable_wait_ns +
					     s->out.blocked_ns + s->out.unknown_ns;
		} else {
			s->out.lifetime_ns = t->last > t->first ? t->last - t->first : 0;
			s->out.unknown_ns = s->out.lifetime_ns;
		}
		if (s->out.lifetime_ns)
			s->out.starved_share =
			    (double)s->out.runnable_wait_ns / (double)s->out.lifetime_ns;
		active_window(x, s);
		c->waits[s->out.thread] = (struct rp_waits){s->iv, s->niv};
	}
	*out = c;
	c = NULL;
out:
	rp_cpu_free(c);
	gr_timeline_free(&tl);
	free(tids);
	free(first);
	free(last);
	return err;
}

/* The runnable wait of the iteration's thread inside the loop. */
static void loop_wait(struct rp_ctx *x, const struct rp_cpu *c)
{
	struct gr_report_iteration *it = &x->r->launches.iter;
	const struct cstate *s;

	if (!it->found || !it->count || it->thread >= x->nth || !x->thr[it->thread].cuda)
		return;
	s = &c->cs[c->slot[it->thread]];
	for (size_t i = 0; i < s->niv; i++) {
		uint64_t a = s->iv[i].start > it->start_ts ? s->iv[i].start : it->start_ts;
		uint64_t b = s->iv[i].end < it->end_ts ? s->iv[i].end : it->end_ts;

		if (b > a)
			it->loop.runnable_ns += b - a;
	}
}

int rp_cpu(struct rp_ctx *x, const struct rp_cpu *c)
{
	struct gr_report_cpu *C = &x->r->cpu;
	size_t nsched;

	gr_model_scheds(x->m, &nsched);
	C->sched_events = nsched;
	C->has_sched = nsched > 0;
	C->exact_culprits = c->exact;
	C->switches_missing = c->missed;
	C->threads = rp_alloc(x, c->n, sizeof(*C->threads));
	if (!C->threads)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		struct gr_report_cpu_thread *o = &C->threads[i];
		const struct cstate *s = &c->cs[i];

		*o = s->out;
		if (x->gap_wait) {
			const struct rp_gap_wait *g = &x->gap_wait[s->out.thread];

			o->gaps = g->gaps;
			o->starved_gaps = g->starved_gaps;
			o->starved_gap_ns = g->starved_gap_ns;
		}
		o->culprits = rp_alloc(x, s->ncul, sizeof(*o->culprits));
		if (!o->culprits)
			return -ENOMEM;
		for (size_t j = 0; j < s->ncul; j++)
			if (s->cul[j].ns || s->cul[j].preemptions)
				o->culprits[o->nculprits++] = (struct gr_report_culprit){
				    s->cul[j].comm, s->cul[j].ns, s->cul[j].preemptions,
				    s->cul[j].recorder};
		gr_qsort(o->culprits, o->nculprits, sizeof(*o->culprits), cmp_culprit);
		C->starved_gap_ns += o->starved_gap_ns;
		C->active_ns += o->active_ns;
	}
	C->nthreads = c->n;
	loop_wait(x, c);
	gr_qsort(C->threads, c->n, sizeof(*C->threads), cmp_thread);
	/* over the threads' summed time, not wall time: threads of several processes wait at once,
	 * and their sum over one wall clock would pass 100% */
	if (C->active_ns)
		C->gap_share = (double)C->starved_gap_ns / (double)C->active_ns;
	return verdict(x);
}
