/* SPDX-License-Identifier: MIT */
/*
 * The passes over the calls (report_calls.c) and the sections (report_*.c), in the order report.c
 * runs them; each fills its part of the report through the context (report_ctx.h).
 */
#ifndef GR_ANALYZE_REPORT_SECTIONS_H
#define GR_ANALYZE_REPORT_SECTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "report_ctx.h"

/* ---- the passes over the calls (report_calls.c) ---- */
/* Launches per thread and stream, thread spans, the main thread, the (kernel name, config)
 * pairs; then the call sequence, which needs them. @waits (per model thread, or NULL): runnable
 * waits to measure the launch gaps against, into x->gap_wait. The sequence pass keeps no
 * per-launch array but run_break: it reduces the gaps and costs to their distributions before it
 * returns. The token pass, run after it so that their arrays are never alive together, fills
 * x->tok in the same call order, for the calls of @thread, and rp_tok_ref() gives the call of a
 * token. Each returns 0 or -errno. rp_calls_free_tokens() releases the tokens (once the
 * iteration has them), rp_calls_free() everything the passes allocated. */
int rp_calls_per_thread(struct rp_ctx *x);
int rp_calls_sequence(struct rp_ctx *x, const struct rp_waits *waits);
int rp_calls_tokens(struct rp_ctx *x, uint32_t thread);
void rp_calls_free_tokens(struct rp_ctx *x);
/*
 * The call of token @i (< x->ntok) as a reference (rp_ref_kind(), rp_ref_idx()): the token pass
 * walked the calls again from the nearest of the marks it left every RP_TOK_EVERY tokens, where
 * an array was 4 bytes a call. In order is cheapest: the walk goes on from the last token asked.
 */
uint32_t rp_tok_ref(const struct rp_ctx *x, size_t i);
void rp_calls_free(struct rp_ctx *x);

/* ---- the sections (each fills its part of ctx->r) ---- */
int rp_launches(struct rp_ctx *x);
/* The iteration of the thread the tokens are of (x->tok_thread) into @it. @main: the report's
 * own (launches.iter), which breaks fusion runs at each iteration and sums the loop over every
 * process; else the loop sums cover the thread's process only. rp_iteration() is the main one. */
int rp_iteration_find(struct rp_ctx *x, struct gr_report_iteration *it, int main);
int rp_iteration(struct rp_ctx *x);
/* report_step.c: --step SPEC parsed against the model into *@out (rp_step_free() releases it;
 * accepts NULL): 0, -EINVAL (names nothing: an unknown api:NAME, an empty name) or -ENOMEM. */
struct rp_step;
int rp_step_parse(struct rp_ctx *x, const char *spec, struct rp_step **out);
void rp_step_free(struct rp_step *s);
/* The thread of @process (UINT32_MAX: of any) making the most calls @s names; UINT32_MAX when
 * none does (or out of memory). */
uint32_t rp_step_thread(const struct rp_ctx *x, const struct rp_step *s, uint32_t process);
/* The iteration as the steps x->step names on the token thread, in place of
 * rp_iteration_find() when x->step is set. 0 or -ENOMEM. */
int rp_step_find(struct rp_ctx *x, struct gr_report_iteration *it, int main);
/* The spec of the NVTX push/pop range that starts once an iteration of the finder's loop
 * (x->r->launches.iter) on its thread, report-owned; NULL when none does (or out of memory). */
const char *rp_step_nvtx_choice(struct rp_ctx *x);
/* report_nvtx.c: the NVTX section's figures (x->r->nvtx.stats), after the iteration. 0 or
 * -ENOMEM. Its text and JSON. */
int rp_nvtx(struct rp_ctx *x);
void rp_nvtx_text(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top);
void rp_nvtx_json(struct gr_json *j, const struct gr_report *r, const struct gr_model *m);
/* report_diagnosis.c: what bounds the step (x->r->diagnosis), from the budget and the launch
 * cost; after rp_launches(), before every verdict that names a bound. 0 or -ENOMEM. */
int rp_diagnosis(struct rp_ctx *x);
/* report_launch.c: the launch section's verdict, once the diagnosis is made. */
int rp_launches_judge(struct rp_ctx *x);
/* report_budget.c: the step budget (x->r->budget) of the report's iteration, its thread's
 * scheduler states replayed over the loop; nothing without an iteration. 0 or -ENOMEM. */
int rp_budget(struct rp_ctx *x);
/* The iteration (@it) as the loop of @K >= 2 iterations of the tokens: iteration j is the tokens
 * [@at[j], @at[j + 1]); its calls counted by kind in iteration @ref_iter; @match as struct
 * gr_report_iteration says; @main as above. 0 or -ENOMEM. The finder's loops come this way, and
 * so do the steps --step names (report_step.c). @bounds (K + 1 times, or NULL: the calls' own):
 * where the iterations start and the last one ends, for steps that are NVTX ranges. */
int rp_iteration_loop(struct rp_ctx *x, struct gr_report_iteration *it, const size_t *at,
		      uint64_t K, uint64_t ref_iter, double match, int main,
		      const uint64_t *bounds);
/* report_ranks.c: every launching process's iteration and where its time goes (its step
 * budget), and the straggler; only when two or more processes launch. Runs after the launch
 * section (its measured launch cost), with the per-thread pass's arrays still alive. */
int rp_ranks(struct rp_ctx *x);
/* report_ranks.c: the pace by NVTX range (nsys's nvtx_pace) into x->r->ranks.ranges, from the
 * report's NVTX set and its ranks (x->r->ranks.v, in their final order) over @nprocs processes:
 * per closed range name and domain that two or more ranks have, each rank's median time and the
 * slowest against the median rank. Needs x->r, x->th, x->nth, x->arena. Returns 0 or -ENOMEM. */
int rp_nvtx_pace(struct rp_ctx *x, size_t nprocs);
int rp_fusion(struct rp_ctx *x);
int rp_transfer(struct rp_ctx *x);
/* report_memory.c: the device memory section (x->r->memory), after rp_transfer(); its text and
 * JSON. 0 or -ENOMEM. */
int rp_memory(struct rp_ctx *x);
void rp_memory_text(FILE *f, const struct gr_report *r, const struct gr_model *m);
struct gr_json;
void rp_memory_json(struct gr_json *j, const struct gr_report *r);
/* The communication finding (report_comm.c). 0 or -ENOMEM. */
int rp_comm(struct rp_ctx *x);
/* report_gpu.c: the GPU rows' figures (x->r->gpu), over the iteration when one was found */
int rp_gpu(struct rp_ctx *x);
/* report_gpu.c: the "measured on the GPU (CUPTI)" section, text and JSON; nothing when
 * r->gpu is NULL */
void rp_gpu_text(FILE *f, const struct gr_report *r, const struct gr_model *m, unsigned top);
struct gr_json;
void rp_gpu_json(struct gr_json *j, const struct gr_report *r, const struct gr_model *m,
		 unsigned top);
/* The CPU section is two steps. rp_cpu_replay() replays the scheduler events of the threads the
 * per-thread pass found (0, or -errno and *out NULL); rp_cpu_waits() gives its runnable waits
 * per model thread (NULL for a NULL replay), valid until rp_cpu_free(), which accepts NULL.
 * rp_cpu() makes the section from the replay and the gaps measured against its waits. */
struct rp_cpu;
/* report_outcome.c: failed and in-flight calls; then, once the sections have judged, their
 * verdicts withdrawn when most calls failed. */
int rp_outcome(struct rp_ctx *x);
int rp_outcome_judge(struct rp_ctx *x);

int rp_cpu_replay(struct rp_ctx *x, struct rp_cpu **out);
const struct rp_waits *rp_cpu_waits(const struct rp_cpu *c);
int rp_cpu(struct rp_ctx *x, const struct rp_cpu *c);
void rp_cpu_free(struct rp_cpu *c);

#endif
