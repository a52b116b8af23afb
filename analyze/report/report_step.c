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
 *   SPEC          FILE:LINE when it ends in ":digits"; else an API when one has that name;
 *                 else a kernel when one matches; else a Python function
 *
 * The step's thread is the one making the most matching calls. A kernel or API call starts a
 * step each time it is made; a Python line or function each time the thread's calls come back
 * to where its first call under it was made (python_starts()). Step j runs from its start to
 * the next start: N starts make N - 1 steps.
 * The iteration's calls per kind are the middle step's, its match the share of steps making the
 * calls of the step before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/frames.h"
#include "report_sections.h"

struct rp_step {
	enum { STEP_KERNEL, STEP_API, STEP_PYLINE, STEP_PYFUNC } kind;
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
	} else if (!strncmp(v, "py:", 3)) {
		v += 3;
		s->kind = pyline_of(v, &s->name_len, &s->line) ? STEP_PYLINE : STEP_PYFUNC;
	} else if (pyline_of(v, &s->name_len, &s->line))
		s->kind = STEP_PYLINE;
	else if (api_of(v, strlen(v), &s->api))
		s->kind = STEP_API;
	else if (any_kernel(x, v, strlen(v)))
		s->kind = STEP_KERNEL;
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
	if (!s->kernel_match && !s->stack_match && s->kind != STEP_API) {
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
	for (unsigned k = 0; k < RP_NCALLS; k++)
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
		unsigned kind = rp_ref_kind(x->tok_ref[i]);
		uint32_t idx = rp_ref_idx(x->tok_ref[i]);

		if (matches(x, s, kind, idx))
			site = rp_call_stack(x, kind, idx);
	}
	if (!site)
		return 0;
	for (i = 0; i < x->ntok; i++) {
		uint32_t st =
		    rp_call_stack(x, rp_ref_kind(x->tok_ref[i]), rp_ref_idx(x->tok_ref[i]));

		if (st == site && prev != site)
			at[nat++] = i;
		prev = st;
	}
	if (nat >= 3)
		return nat;
	nat = 0;
	for (i = 0; i < x->ntok; i++)
		if (rp_call_stack(x, rp_ref_kind(x->tok_ref[i]), rp_ref_idx(x->tok_ref[i])) == site)
			at[nat++] = i;
	return nat;
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
	if (s->kind == STEP_KERNEL || s->kind == STEP_API) {
		for (size_t i = 0; i < x->ntok; i++)
			if (matches(x, s, rp_ref_kind(x->tok_ref[i]), rp_ref_idx(x->tok_ref[i])))
				at[nat++] = i;
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
				(double)repeats / (double)(nat - 2), main);
	free(at);
	return err;
}
