/* SPDX-License-Identifier: MIT */
/*
 * Launch sites of two traces side by side (diff.h, struct gr_diff_site): each trace's sites come
 * from the shared computation (launch_sites.h); matching is by what survives an edit of the
 * program, the file and function of a Python frame, not its line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/figures/launch_sites.h"
#include "diff_common.h"
#include "diff_parts.h"

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* One key for both traces: their strings live in different models, so compare the texts. */
static int same_site(const struct gr_frame *a, const struct gr_frame *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == GR_FRAME_KIND_PYTHON)
		return same_str(a->file, b->file) && same_str(a->function, b->function);
	if (a->function || b->function)
		return same_str(a->function, b->function) && same_str(a->module, b->module);
	if (a->module || b->module)
		return same_str(a->module, b->module) && a->offset == b->offset;
	return a->value == b->value;
}

static int cmp_row(const void *a, const void *b)
{
	const struct gr_diff_site *x = a, *y = b;
	uint64_t tx = x->launches[0] + x->launches[1], ty = y->launches[0] + y->launches[1];

	const struct gr_frame *fx = x->frame[0].value ? &x->frame[0] : &x->frame[1];
	const struct gr_frame *fy = y->frame[0].value ? &y->frame[0] : &y->frame[1];
	int c;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	/* equal totals: a fixed order, whatever the sort */
	c = strcmp(fx->file ? fx->file : "", fy->file ? fy->file : "");
	if (!c)
		c = strcmp(fx->function ? fx->function : "", fy->function ? fy->function : "");
	if (!c)
		c = strcmp(fx->module ? fx->module : "", fy->module ? fy->module : "");
	return c ? c : (fx->value > fy->value) - (fx->value < fy->value);
}

static int add_side(struct gr_diff *d, int side, const struct gr_launch_sites *S, size_t *cap)
{
	for (size_t i = 0; i < S->n; i++) {
		const struct gr_launch_site *s = &S->v[i];
		struct gr_diff_site *row = NULL;

		for (size_t r = 0; r < d->nsites && !row; r++) {
			const struct gr_diff_site *x = &d->sites[r];

			if (same_site(x->frame[0].value ? &x->frame[0] : &x->frame[1], &s->frame))
				row = &d->sites[r];
		}
		if (!row) {
			if (d->nsites == *cap) {
				size_t n = *cap ? 2 * *cap : 16;
				struct gr_diff_site *v = realloc(d->sites, n * sizeof(*v));

				if (!v)
					return -ENOMEM;
				d->sites = v;
				*cap = n;
			}
			row = &d->sites[d->nsites++];
			memset(row, 0, sizeof(*row));
		}
		/* sites come by launches, descending: the first of a key is its main line */
		if (!row->frame[side].value)
			row->frame[side] = s->frame;
		row->launches[side] += s->launches;
	}
	return 0;
}

int df_match_sites(struct gr_diff *d, const struct gr_model *const m[2])
{
	struct gr_launch_sites S[2] = {{0}};
	size_t cap = 0;
	int err = 0;

	d->python = gr_frames_any_python(m[0]) || gr_frames_any_python(m[1]);
	if (!d->python)
		return 0;
	for (int s = 0; s < 2 && !err; s++)
		err = gr_launch_sites_compute(m[s], &S[s]);
	for (int s = 0; s < 2 && !err; s++)
		err = add_side(d, s, &S[s], &cap);
	for (size_t r = 0; r < d->nsites && !err; r++) {
		struct gr_diff_site *x = &d->sites[r];

		x->delta = (int64_t)x->launches[1] - (int64_t)x->launches[0];
		x->status = !x->launches[0]   ? GR_DIFF_ADDED
			    : !x->launches[1] ? GR_DIFF_REMOVED
					      : GR_DIFF_COMMON;
	}
	if (!err && d->nsites > 1)
		gr_qsort(d->sites, d->nsites, sizeof(*d->sites), cmp_row);
	gr_launch_sites_free(&S[0]);
	gr_launch_sites_free(&S[1]);
	return err;
}

const char *df_site_label(const struct gr_diff_site *s, char *buf, size_t len)
{
	const struct gr_frame *a = &s->frame[0], *b = &s->frame[1];

	if (!a->value)
		return gr_frame_format(b, buf, len);
	if (b->value && a->kind == GR_FRAME_KIND_PYTHON && a->function && a->line != b->line)
		snprintf(buf, len, "%s:%" PRIu32 "->%" PRIu32 " %s", a->file, a->line, b->line,
			 a->function);
	else if (b->value && a->kind == GR_FRAME_KIND_NATIVE && a->function && a->file && b->file &&
		 a->line != b->line)
		/* a native frame with source lines names its file as gr_frame_format() does */
		snprintf(buf, len, "%s:%" PRIu32 "->%" PRIu32 " %s",
			 strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file, a->line,
			 b->line, a->function);
	else
		gr_frame_format(a, buf, len);
	return buf;
}
