/* SPDX-License-Identifier: MIT */
/*
 * --step SPEC: the step the user names, instead of the one the finder (report_iter.c) infers.
 * SPEC is a kernel, a CUDA API or a Python line or function (docs/REPORTS.md, "Naming the
 * step"):
 *
 *   kernel:NAME   a launch of kernel NAME: its name as reports show it, the same without its
 *                 arguments ("gelu" for "gelu(float*, int)"), its last "::" part, or mangled
 *   api:NAME      a call of that CUDA API ("cudaStreamSynchronize", "cudaGraphLaunch", ...)
 *   py:FILE:LINE  a call made under that Python line (FILE: the path, or its last parts)
 *   py:FUNC       a call made under that Python function (its qualified name, or its last part)
 *   nvtx:NAME     a push/pop NVTX range of that name ("DOMAIN:NAME": of that domain too)
 *   SPEC          FILE:LINE when it ends in ":digits"; else an API when one has that name;
 *                 else a kernel when one matches; else an NVTX range when one has that name;
 *                 else a Python function
 *
 * The step's thread is the one making the most matching calls. A kernel or API call starts a
 * step each time it is made; a Python line or function each time the thread's calls come back
 * to where its first call under it was made (python_starts()). Step j runs from its start to
 * the next start: N starts make N - 1 steps. An NVTX range starts a step where it starts, and
 * the last one ends where it ends: N ranges make N steps, each from its start to the next one's
 * start, so a step holds what its thread did between the ranges too.
 * The iteration's calls per kind are the middle step's, its match the share of steps making the
 * calls of the step before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/frames.h"
#include "report_sections.h"

struct rp_step {
	enum { STEP_KERNEL, STEP_API, STEP_PYLINE, STEP_PYFUNC, STEP_NVTX } kind;
	const char *spec; /* as given */
	const char *name; /* kernel, API, function or file, without the prefix */
	size_t name_len;
	unsigned api;
	uint32_t line;
	int8_t *stack_match;   /* per model stack: -1 not yet known, 0 or 1 (Python kinds) */
	uint8_t *kernel_match; /* per model kernel (STEP_KERNEL) */
};

/* Whether @s (@len bytes) equals @name (NUL-terminated). */
static int same(const char *s, size_t len, const char *name)
{
	return name && strlen(name) == len && !memcmp(s, name, len);
}

/* Whether @path is @file, or ends with "/" @file. */
static int path_is(const char *path, const char *file, size_t len)
{
	size_t n = path ? strlen(path) : 0;

	return n >= len && !memcmp(path + n - len, file, len) &&
	       (n == len || path[n - len - 1] == '/');
}

/* Whether @k's name matches: whole, without its arguments (and a leading return type), its
 * last "::" part, or mangled. */
static int kernel_is(const struct gr_kernel *k, const char *name, size_t len)
{
	const char *full = k->name, *paren, *start, *colon;

	if (same(name, len, full) || same(name, len, k->mangled))
		return 1;
	paren = strchr(full, '(');
	if (!paren)
		return 0;
	start = full;
	/* "void foo<int>(...)": templates are demangled with their return type */
	for (const char *c = full; c < paren; c++)
		if (*c == ' ' && !memchr(full, '<', (size_t)(c - full)))
			start = c + 1;
	if ((size_t)(paren - start) == len && !memcmp(start, name, len))
		return 1;
	colon = NULL;
	for (const char *c = start; c + 1 < paren; c++)
		if (c[0] == ':' && c[1] == ':')
			colon = c + 2;
	return colon && (size_t)(paren - colon) == len && !memcmp(colon, name, len);
}

static int any_kernel(const struct rp_ctx *x, const char *name, size_t len)
{
	for (size_t i = 0; i < x->nk; i++)
		if (kernel_is(&x->k[i], name, len))
			return 1;
	return 0;
}

/* Whether range @r is a push/pop range @name names. */
static int nvtx_is(const struct rp_ctx *x, const struct gr_nvtx_range *r, const char *name)
{
	return r->kind == GR_NVTX_RANGE_PUSHPOP && gr_nvtx_range_named(x->nvtx, r, name);
}

static int any_nvtx(const struct rp_ctx *x, const char *name)
{
	for (size_t i = 0; x->nvtx && i < x->nvtx->nranges; i++)
		if (nvtx_is(x, &x->nvtx->ranges[i], name))
			return 1;
	return 0;
}

static int api_of(const char *name, size_t len, unsigned *api)
{
	for (unsigned a = 0; a < GR_API_COUNT; a++)
		if (same(name, len, gr_api_name(a)) && strcmp(gr_api_name(a), "unknown")) {
			*api = a;
			return 1;
		}
	return 0;
}

/* FILE:LINE when @s ends in ":digits" after something. */
static int pyline_of(const char *s, size_t *file_len, uint32_t *line)
{
	const char *colon = strrchr(s, ':');
	char *end;
	unsigned long v;

	if (!colon || colon == s || !colon[1] || colon[1] < '0' || colon[1] > '9')
		return 0;
	v = strtoul(colon + 1, &end, 10);
	if (*end || v > UINT32_MAX)
		return 0;
	*file_len = (size_t)(colon - s);
	*line = (uint32_t)v;
	return 1;
}

int rp_step_parse(struct rp_ctx *x, const char *spec, struct rp_step **out)
{
	struct rp_step *s = calloc(1, sizeof(*s));
	const char *v = spec;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->spec = spec;
	if (!strncmp(v, "kernel:", 7)) {
		s->kind = STEP_KERNEL;
		v += 7;
	} else if (!strncmp(v, "api:", 4)) {
		s->kind = STEP_API;
		v += 4;
	} else if (!strncmp(v, "nvtx:", 5)) {
		s->kind = STEP_NVTX;
		v += 5;
	} else if (!strncmp(v, "py:", 3)) {
		v += 3;
		s->kind = pyline_of(v, &s->name_len, &s->line) ? STEP_PYLINE : STEP_PYFUNC;
	} else if (pyline_of(v, &s->name_len, &s->line))
		s->kind = STEP_PYLINE;
	else if (api_of(v, strlen(v), &s->api))
		s->kind = STEP_API;
	else if (any_kernel(x, v, strlen(v)))
		s->kind = STEP_KERNEL;
	else if (any_nvtx(x, v))
		s->kind = STEP_NVTX;
	else
		s->kind = STEP_PYFUNC;
	s->name = v;
	if (s->kind != STEP_PYLINE)
		s->name_len = strlen(v);
	if (!s->name_len || (s->kind == STEP_API && !api_of(v, s->name_len, &s->api))) {
		free(s);
		return -EINVAL;
	}
	if (s->kind == STEP_KERNEL) {
		s->kernel_match = calloc(x->nk + 1, 1);
		for (size_t i = 0; s->kernel_match && i < x->nk; i++)
			s->kernel_match[i] = (uint8_t)kernel_is(&x->k[i], s->name, s->name_len);
	} else if (s->kind != STEP_API) {
		s->stack_match = malloc(x->nst + 1);
		if (s->stack_match)
			memset(s->stack_match, -1, x->nst + 1);
	}
	if (!s->kernel_match && !s->stack_match && s->kind != STEP_API && s->kind != STEP_NVTX) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void rp_step_free(struct rp_step *s)
{
	if (!s)
		return;
	free(s->stack_match);
	free(s->kernel_match);
	free(s);
}

const char *rp_step_spec(const struct rp_step *s)
{
	return s->spec;
}

/* Whether a Python frame of stack @stack is the step's line or function. */
static int stack_matches(const struct rp_ctx *x, const struct rp_step *s, uint32_t stack)
{
	const struct gr_stack *st;

	if (!stack || stack >= x->nst)
		return 0;
	if (s->stack_match[stack] >= 0)
		return s->stack_match[stack];
	st = &x->st[stack];
	s->stack_match[stack] = 0;
	for (uint32_t i = 0; i < st->nframes; i++) {
		const struct gr_pyframe *pf;
		const char *fn, *dot;

		if (!(st->frames[i] & GR_FRAME_PYTHON))
			continue;
		pf = gr_model_pyframe(x->m, st->frames[i]);
		if (!pf)
			continue;
		fn = pf->function;
		dot = fn ? strrchr(fn, '.') : NULL;
		if (s->kind == STEP_PYLINE
			? pf->line == s->line && path_is(pf->file, s->name, s->name_len)
			: same(s->name, s->name_len, fn) ||
			      (dot && same(s->name, s->name_len, dot + 1))) {
			s->stack_match[stack] = 1;
			break;
		}
	}
	return s->stack_match[stack];
}

static unsigned call_api(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	switch (kind) {
	case RP_LAUNCH:
		return rp_lkey(x, idx)->api;
	case RP_COPY:
		return x->c[idx].api;
	case RP_MEMSET:
		return x->ms[idx].api;
	case RP_SYNC:
		return x->sy[idx].api;
	case RP_GRAPH:
		return x->g[idx].api;
	case RP_ALLOC:
		return x->al[idx].api;
	}
	return x->fr[idx].api;
}

/* Whether call @idx of @kind is one the step names. */
static int matches(const struct rp_ctx *x, const struct rp_step *s, unsigned kind, uint32_t idx)
{
	switch (s->kind) {
	case STEP_KERNEL:
		return kind == RP_LAUNCH && s->kernel_match[rp_lkey(x, idx)->kernel];
	case STEP_API:
		return call_api(x, kind, idx) == s->api;
	default:
		return stack_matches(x, s, rp_call_stack(x, kind, idx));
	}
}

uint32_t rp_step_thread(const struct rp_ctx *x, const struct rp_step *s, uint32_t process)
{
	size_t n[RP_NCALLS] = {x->nl, x->nc, x->nms, x->nsy, x->ng, x->nal, x->nfr};
	uint64_t *count = calloc(x->nth + 1, sizeof(*count));
	uint32_t best = UINT32_MAX;

	if (!count)
		return UINT32_MAX;
	/* the thread that has most of the ranges, whether it makes CUDA calls or not */
	for (size_t i = 0; s->kind == STEP_NVTX && i < x->nvtx->nranges; i++) {
		const struct gr_nvtx_range *r = &x->nvtx->ranges[i];

		if (r->thread < x->nth &&
		    (process == UINT32_MAX || x->th[r->thread].process == process) &&
		    nvtx_is(x, r, s->name))
			count[r->thread]++;
	}
	for (unsigned k = 0; k < RP_NCALLS && s->kind != STEP_NVTX; k++)
		for (size_t i = 0; i < n[k]; i++) {
			uint32_t t = rp_call_thread(x, k, i);

			if (t < x->nth && (process == UINT32_MAX || x->th[t].process == process) &&
			    matches(x, s, k, (uint32_t)i))
				count[t]++;
		}
	for (uint32_t t = 0; t < x->nth; t++)
		if (count[t] && (best == UINT32_MAX || count[t] > count[best]))
			best = t;
	free(count);
	return best;
}

/* Whether steps [a[0], a[1]) and [b[0], b[1]) are the same calls. */
static int same_step(const uint32_t *tok, const size_t *a, const size_t *b)
{
	return a[1] - a[0] == b[1] - b[0] &&
	       !memcmp(tok + a[0], tok + b[0], (a[1] - a[0]) * sizeof(*tok));
}

/*
 * Where a Python line or function starts a step, into @at; returns how many. Every execution of
 * the line makes its calls under it, one execution after another, and the stacks say only where
 * a call was made, not in which execution: a step starts where the calls come back to the call
 * site the first call under it was made from (the same stack), at the first call of each run of
 * calls from there (a loop of launches at that site is one step's). Should that give fewer than
 * three starts (a step of one call site), every call from that site starts one.
 */
static size_t python_starts(const struct rp_ctx *x, const struct rp_step *s, size_t *at)
{
	uint32_t site = 0, prev = 0;
	size_t nat = 0, i;

	for (i = 0; i < x->ntok && !site; i++) {
		uint32_t ref = rp_tok_ref(x, i);
		unsigned kind = rp_ref_kind(ref);
		uint32_t idx = rp_ref_idx(ref);

		if (matches(x, s, kind, idx))
			site = rp_call_stack(x, kind, idx);
	}
	if (!site)
		return 0;
	for (i = 0; i < x->ntok; i++) {
		uint32_t ref = rp_tok_ref(x, i);
		uint32_t st = rp_call_stack(x, rp_ref_kind(ref), rp_ref_idx(ref));

		if (st == site && prev != site)
			at[nat++] = i;
		prev = st;
	}
	if (nat >= 3)
		return nat;
	nat = 0;
	for (i = 0; i < x->ntok; i++) {
		uint32_t ref = rp_tok_ref(x, i);

		if (rp_call_stack(x, rp_ref_kind(ref), rp_ref_idx(ref)) == site)
			at[nat++] = i;
	}
	return nat;
}

/*
 * The steps of an NVTX range on the token thread (gr_nvtx_step_bounds()), into @bounds; @at[j]
 * the first call at or after step j's start, @at[n] the first after the last range's end.
 * Returns n, the steps.
 */
static size_t nvtx_starts(const struct rp_ctx *x, const struct rp_step *s, size_t *at,
			  uint64_t *bounds)
{
	size_t n = gr_nvtx_step_bounds(x->nvtx, x->tok_thread, s->name, bounds), tok = 0;

	for (size_t j = 0; n && j <= n; j++) {
		while (tok < x->ntok) {
			uint32_t ref = rp_tok_ref(x, tok);

			if (rp_call_ts(x, rp_ref_kind(ref), rp_ref_idx(ref)) >= bounds[j])
				break;
			tok++;
		}
		at[j] = tok;
	}
	return n;
}

/* The steps as NVTX ranges: rp_step_find() for STEP_NVTX. */
static int nvtx_find(struct rp_ctx *x, struct gr_report_iteration *it, int main)
{
	size_t nr = x->nvtx->nranges;
	size_t *at = malloc((nr + 2) * sizeof(*at)), n, repeats = 0;
	uint64_t *bounds = malloc((nr + 2) * sizeof(*bounds));
	int err = 0;

	if (!at || !bounds) {
		err = -ENOMEM;
		goto out;
	}
	n = nvtx_starts(x, x->step, at, bounds);
	it->step_starts = n;
	if (n < 2)
		goto out;
	for (size_t j = 1; j < n; j++)
		repeats += same_step(x->tok, &at[j - 1], &at[j]);
	it->why = GR_PHASE_STEP;
	err =
	    rp_iteration_loop(x, it, at, n, n / 2, (double)repeats / (double)(n - 1), main, bounds);
out:
	free(at);
	free(bounds);
	return err;
}

int rp_step_find(struct rp_ctx *x, struct gr_report_iteration *it, int main)
{
	const struct rp_step *s = x->step;
	size_t *at = malloc((x->ntok + 1) * sizeof(*at)), nat = 0, repeats = 0;
	int err;

	memset(it, 0, sizeof(*it));
	it->step = s->spec;
	if (!at)
		return -ENOMEM;
	if (x->tok_thread < x->nth)
		it->thread = x->tok_thread;
	if (s->kind == STEP_NVTX) {
		free(at);
		x->r->nvtx.step_range = s->name;
		return nvtx_find(x, it, main);
	}
	if (s->kind == STEP_KERNEL || s->kind == STEP_API) {
		for (size_t i = 0; i < x->ntok; i++) {
			uint32_t ref = rp_tok_ref(x, i);

			if (matches(x, s, rp_ref_kind(ref), rp_ref_idx(ref)))
				at[nat++] = i;
		}
	} else
		nat = python_starts(x, s, at);
	it->step_starts = nat;
	/* two whole steps at least: a period needs two starts, the last step its end */
	if (nat < 3) {
		free(at);
		return 0;
	}
	/* steps differ where the program changes phase (a warm-up's grids, an eval): the share
	 * of steps that repeat the step before says how steady the loop is; the calls are
	 * counted in the middle step, past any warm-up */
	for (size_t j = 1; j + 1 < nat; j++)
		repeats += same_step(x->tok, &at[j - 1], &at[j]);
	it->why = GR_PHASE_STEP;
	err = rp_iteration_loop(x, it, at, nat - 1, (nat - 1) / 2,
				(double)repeats / (double)(nat - 2), main, NULL);
	free(at);
	return err;
}

const char *rp_step_nvtx_choice(struct rp_ctx *x)
{
	const struct gr_report_iteration *it = &x->r->launches.iter;
	const struct gr_nvtx_set *set = x->nvtx;
	const struct gr_nvtx_range *r;
	uint32_t idx;

	if (!it->found || !set || !it->starts ||
	    gr_nvtx_step_choice(set, it->thread, it->starts, it->count, it->end_ts, &idx) <= 0)
		return NULL;
	r = &set->ranges[idx];
	if (r->domain && r->domain < set->ndomains)
		return rp_printf(x, "nvtx:%s:%s", set->domains[r->domain].name,
				 gr_nvtx_text(set, r->name));
	return rp_printf(x, "nvtx:%s", gr_nvtx_text(set, r->name));
}
