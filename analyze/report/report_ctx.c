/* SPDX-License-Identifier: MIT */
/*
 * The helpers the report's passes and sections share over the computation context: memory and
 * strings in the report's arena, verdicts, call sites as "function (module)" frames, the entry
 * and return time of any API call, and the waves estimate of a launch config.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_ctx.h"

void *rp_alloc(struct rp_ctx *x, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		return NULL;
	return gr_arena_alloc(x->arena, n ? n * size : 1);
}

char *rp_printf(struct rp_ctx *x, const char *fmt, ...)
{
	va_list ap;
	char small[256], *p;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	p = gr_arena_alloc(x->arena, (size_t)len + 1);
	if (!p)
		return NULL;
	if ((size_t)len < sizeof(small)) {
		memcpy(p, small, (size_t)len + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)len + 1, fmt, ap);
		va_end(ap);
	}
	return p;
}

int rp_verdict(struct rp_ctx *x, struct gr_verdict *v, enum gr_verdict_level level, const char *fmt,
	       ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v->level = level;
	v->text = gr_arena_strndup(x->arena, buf, strlen(buf));
	return v->text ? 0 : -ENOMEM;
}

double rp_waves(const struct rp_ctx *x, const struct gr_config *c, uint64_t *blocks)
{
	uint64_t b = (uint64_t)c->grid[0] * c->grid[1] * c->grid[2];
	uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
	uint64_t resident = RP_RESIDENT_BLOCKS;

	if (threads && RP_RESIDENT_THREADS / threads < resident)
		resident = RP_RESIDENT_THREADS / threads;
	if (c->shmem && RP_SHMEM_PER_SM / c->shmem < resident)
		resident = RP_SHMEM_PER_SM / c->shmem;
	if (!resident)
		resident = 1;
	if (blocks)
		*blocks = b;
	if (!x->sms)
		return NAN;
	return (double)b / ((double)x->sms * (double)resident);
}

int rp_small(const struct rp_ctx *x, const struct gr_config *c)
{
	uint64_t blocks;
	double waves = rp_waves(x, c, &blocks);

	/* without an SM count nothing is known to be small */
	return x->sms && (blocks < x->sms || waves < RP_SMALL_WAVES);
}

uint32_t rp_call_stack(const struct rp_ctx *x, unsigned kind, uint32_t idx)
{
	switch (kind) {
	case RP_LAUNCH:
		return rp_lkey(x, idx)->stack;
	case RP_COPY:
		return x->c[idx].stack;
	case RP_MEMSET:
		return x->ms[idx].stack;
	case RP_SYNC:
		return x->sy[idx].stack;
	case RP_GRAPH:
		return x->g[idx].stack;
	}
	return 0;
}

int rp_site(struct rp_ctx *x, struct gr_report_site *s, uint32_t stack, uint32_t keep_outer)
{
	const struct gr_stack *st = stack < x->nst ? &x->st[stack] : NULL;
	uint32_t n = st ? st->nframes : 0, skip;
	struct gr_frame *desc;
	char buf[GR_FRAME_TEXT];

	memset(s, 0, sizeof(*s));
	s->stack = stack;
	s->python = s->launcher = -1;
	if (keep_outer && keep_outer < n)
		n = keep_outer;
	if (!n)
		return 0;
	skip = st->nframes - n;
	s->frames = rp_alloc(x, n, sizeof(*s->frames));
	desc = rp_alloc(x, n, sizeof(*desc));
	if (!s->frames || !desc)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		gr_frame_describe(x->m, st->pid, st->frames[skip + i], &desc[i]);
		s->frames[i] = rp_printf(x, "%s", gr_frame_format(&desc[i], buf, sizeof(buf)));
		if (!s->frames[i])
			return -ENOMEM;
	}
	s->desc = desc;
	s->nframes = n;
	{
		struct gr_stack kept = {.pid = st->pid, .nframes = n, .frames = st->frames + skip};

		s->python = gr_frames_python(&kept, n);
		/* the native code the Python frame called into, not the interpreter around it */
		s->launcher =
		    gr_frames_launcher(x->m, &kept, s->python >= 0 ? (uint32_t)s->python : n);
	}
	return 0;
}

const char *rp_site_lead(const struct gr_report_site *s)
{
	if (!s->nframes)
		return "";
	return s->frames[s->python >= 0 ? s->python : 0];
}
