/* SPDX-License-Identifier: MIT */
/*
 * gr_report_compute(): the report's orchestrator. It reads the model into the computation context
 * (report_ctx.h), runs the passes over the API calls that every section reads (report_calls.c),
 * then the sections in the order their inputs need, and hands back the report. The computation
 * lives in those files; their shared helpers in report_ctx.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/util/pool.h"
#include "report.h"
#include "report_sections.h"

struct report_priv {
	struct gr_arena arena;
};

/*
 * The call-sequence pass, beside the token and iteration passes when two workers or more are
 * given: they read the same model and the per-thread pass, and write apart. It runs on a copy of
 * the context: what it writes there (the launch costs, the copies' next calls, the gap waits) is
 * taken back at the join; the per-thread figures it writes (gaps) are fields the other passes
 * never read. Two things both write get one each, merged at the join: the probe cost's clamp
 * count and the fusion run breaks (the iteration marks its own starts in x->run_break).
 */
struct seq_job {
	struct gr_pool_job job; /* first: the pool hands back this pointer */
	struct rp_ctx x;
	struct gr_probe_cost pc;
	const struct rp_waits *waits;
	int err;
};

static void seq_run(struct gr_pool_job *job)
{
	struct seq_job *s = (struct seq_job *)job;

	s->err = rp_calls_sequence(&s->x, s->waits);
}

/* Start the pass in @s (on a worker of *@pool when it has one; at once when not). Returns 0 or
 * -ENOMEM (then nothing was started). */
static int seq_start(struct rp_ctx *x, const struct rp_waits *waits, struct seq_job *s,
		     struct gr_pool **pool)
{
	*pool = NULL;
	x->run_break = calloc(rp_run_break_words(x), sizeof(*x->run_break));
	if (!x->run_break)
		return -ENOMEM;
	s->x = *x;
	s->pc = *x->pc;
	s->pc.clamped = 0;
	s->x.pc = &s->pc;
	s->x.run_break = NULL;
	s->waits = waits;
	s->job.fn = seq_run;
	/* no second thread (one job asked, or none could start): the pass runs here */
	if (x->jobs < 2 || gr_pool_new(pool, 2))
		seq_run(&s->job);
	else
		gr_pool_submit(*pool, &s->job);
	return 0;
}

/* Wait for the pass and take what it found into @x; returns its result. */
static int seq_join(struct rp_ctx *x, struct seq_job *s, struct gr_pool *pool)
{
	if (pool) {
		gr_pool_wait(pool, &s->job);
		gr_pool_free(pool);
	}
	x->pc->clamped += s->pc.clamped;
	x->cost = s->x.cost;
	x->copy_next = s->x.copy_next;
	x->gap_wait = s->x.gap_wait;
	if (s->x.run_break)
		for (size_t i = 0; i < rp_run_break_words(x); i++)
			x->run_break[i] |= s->x.run_break[i];
	free(s->x.run_break);
	return s->err;
}

/*
 * The finder's own choice of an NVTX range: when a push/pop range starts once an iteration of the
 * loop it found, the steps are that range's, as --step nvtx:NAME would make them (the report's
 * iteration only: the ranks keep their finder's). Its loop stays when the range's steps are
 * not found.
 */
static int nvtx_step(struct rp_ctx *x)
{
	struct gr_report_iteration found = x->r->launches.iter;
	const char *spec = rp_step_nvtx_choice(x);
	int err;

	if (!spec)
		return 0;
	err = rp_step_parse(x, spec, &x->step);
	if (!err)
		err = rp_step_find(x, &x->r->launches.iter, 1);
	rp_step_free(x->step);
	x->step = NULL;
	if (err)
		return err == -ENOMEM ? err : 0;
	if (!x->r->launches.iter.found) {
		x->r->launches.iter = found;
		x->r->nvtx.step_range = NULL;
		return 0;
	}
	x->r->launches.iter.why = GR_PHASE_NVTX;
	return 0;
}

int gr_report_compute(const struct gr_model *m, const struct gr_report_opts *o,
		      struct gr_report **out)
{
	struct gr_report_opts def = {0};
	struct report_priv *priv = NULL;
	struct gr_report *r = NULL;
	struct rp_ctx x = {0};
	struct rp_cpu *cpu = NULL;
	struct seq_job seq;
	struct gr_pool *pool = NULL;
	uint32_t step_thread = UINT32_MAX;
	int started = 0, joined;
	size_t nlibs;
	uint64_t v;
	int err = -ENOMEM;

	*out = NULL;
	if (!m)
		return -EINVAL;
	if (!o)
		o = &def;
	r = calloc(1, sizeof(*r));
	priv = calloc(1, sizeof(*priv));
	if (!r || !priv) {
		free(r);
		free(priv);
		return -ENOMEM;
	}
	r->priv = priv;
	r->sections = o->sections ? o->sections & GR_REPORT_ALL : GR_REPORT_ALL;
	r->python = gr_frames_any_python(m);
	/* no assumed GPU: the SM count is the one asked for, or the one the program got */
	if (o->sms) {
		r->sms = o->sms;
		r->sms_source = GR_REPORT_SMS_OPTION;
	} else if (gr_model_session(m, GR_SESS_DEVICE_SMS, &v, NULL) && v && v <= UINT32_MAX) {
		r->sms = (uint32_t)v;
		r->sms_source = GR_REPORT_SMS_RECORDED;
	}
	gr_model_time_span(m, &r->first_ts, &r->last_ts);
	r->wall_ns = r->last_ts > r->first_ts ? r->last_ts - r->first_ts : 0;
	gr_model_libraries(m, &nlibs);
	r->cuda_libraries = nlibs;
	if (!r->cuda_libraries && gr_model_session(m, GR_SESS_CUDA_SEEN, &v, NULL))
		r->cuda_libraries = v;
	r->lost_events = gr_model_lost_events(m);
	r->ended_abruptly = gr_model_ended_abruptly(m, NULL);
	gr_damage_of(m, &r->damage);
	gr_probe_cost_init(&r->probe, m, !o->no_compensate);

	x.m = m;
	x.r = r;
	x.arena = &priv->arena;
	x.pc = &r->probe;
	x.sms = r->sms;
	x.slow_ns = o->slow_launch_ns ? o->slow_launch_ns : GR_REPORT_SLOW_LAUNCH_NS;
	x.all_ranks = o->all_ranks;
	x.jobs = o->jobs;
	x.l = gr_model_launches(m, &x.nl);
	x.lk = gr_model_launch_keys(m, NULL);
	x.c = gr_model_copies(m, &x.nc);
	x.ms = gr_model_memsets(m, &x.nms);
	x.sy = gr_model_syncs(m, &x.nsy);
	x.g = gr_model_graphs(m, &x.ng);
	x.al = gr_model_allocs(m, &x.nal);
	x.fr = gr_model_frees(m, &x.nfr);
	x.k = gr_model_kernels(m, &x.nk);
	x.cfg = gr_model_configs(m, &x.ncfg);
	x.th = gr_model_threads(m, &x.nth);
	x.st = gr_model_stacks(m, &x.nst);
	gr_model_streams(m, &x.nstreams);

	/* token references keep the index in 29 bits */
	if (x.nl >= RP_REF_MAX || x.nc >= RP_REF_MAX || x.nms >= RP_REF_MAX ||
	    x.nsy >= RP_REF_MAX) {
		gr_report_free(r);
		return -E2BIG;
	}
	/* the program's NVTX ranges: a step may be one */
	err = gr_nvtx_build(m, &r->nvtx.set);
	x.nvtx = &r->nvtx.set;
	if (!err && o->step)
		err = rp_step_parse(&x, o->step, &x.step);
	if (!err)
		err = rp_outcome(&x);
	if (!err)
		err = rp_calls_per_thread(&x);
	/* the step's thread is the one making the calls it names, launches or not */
	if (!err && x.step) {
		step_thread = rp_step_thread(&x, x.step, UINT32_MAX);
		if (step_thread == UINT32_MAX)
			err = -ENOENT;
	}
	/* the CPU section's runnable waits; the ranks split their time by the step budget, which
	 * replays each rank's thread itself */
	if (!err && (r->sections & GR_REPORT_CPU))
		err = rp_cpu_replay(&x, &cpu);
	if (!err) {
		err = seq_start(&x, rp_cpu_waits(cpu), &seq, &pool);
		started = !err;
	}
	/* the launch report and the iteration feed every other section; the tokens, the largest
	 * array left, go as soon as the iteration has them */
	if (!err)
		err = rp_calls_tokens(&x, x.step ? step_thread : x.main_thread);
	if (!err)
		err = x.step ? rp_step_find(&x, &r->launches.iter, 1) : rp_iteration(&x);
	if (!err && !x.step)
		err = nvtx_step(&x);
	rp_calls_free_tokens(&x);
	if (started) {
		joined = seq_join(&x, &seq, pool);
		if (!err)
			err = joined;
	}
	if (!err)
		err = rp_budget(&x);
	if (!err)
		err = rp_launches(&x);
	/* one diagnosis of the step; the sections' verdicts read it */
	if (!err)
		err = rp_diagnosis(&x);
	if (!err)
		err = rp_launches_judge(&x);
	if (!err)
		err = rp_gpu(&x);
	if (!err && (r->sections & GR_REPORT_FUSION))
		err = rp_fusion(&x);
	if (!err && (r->sections & GR_REPORT_TRANSFER))
		err = rp_transfer(&x);
	if (!err && cpu && (r->sections & GR_REPORT_CPU))
		err = rp_cpu(&x, cpu);
	/* after the transfers: it links their pageable copies */
	if (!err && (r->sections & GR_REPORT_MEMORY))
		err = rp_memory(&x);
	if (!err && (r->sections & GR_REPORT_COMM))
		err = rp_comm(&x);
	if (!err && (r->sections & GR_REPORT_NVTX))
		err = rp_nvtx(&x);
	if (!err && (r->sections & GR_REPORT_RANKS))
		err = rp_ranks(&x);
	if (!err)
		err = rp_outcome_judge(&x);
	rp_cpu_free(cpu);
	rp_calls_free(&x);
	rp_step_free(x.step);
	if (err) {
		gr_report_free(r);
		return err;
	}
	*out = r;
	return 0;
}

const char *gr_report_step_error(int err)
{
	if (err == -ENOENT)
		return "no call in the trace matches it (a kernel, a CUDA API, a Python FILE:LINE "
		       "or function, an NVTX range; kernel:, api:, py:, nvtx: to say which)";
	if (err == -EINVAL)
		return "it names nothing: api:NAME needs a CUDA API's name, such as "
		       "cudaStreamSynchronize, and every kind a name";
	return NULL;
}

void gr_report_free(struct gr_report *r)
{
	struct report_priv *priv;

	if (!r)
		return;
	priv = r->priv;
	if (priv) {
		gr_arena_free(&priv->arena);
		free(priv);
	}
	gr_outcome_free(&r->outcome.o);
	gr_gpu_free(r->gpu);
	gr_memory_free(&r->memory.m);
	gr_launch_sites_free(&r->launches.sites);
	gr_nvtx_stats_free(&r->nvtx.stats);
	gr_nvtx_free(&r->nvtx.set);
	free(r);
}
