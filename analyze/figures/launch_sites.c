/* SPDX-License-Identifier: MIT */
/*
 * Launches by call site (launch_sites.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/keymap.h"
#include "launch_sites.h"

/*
 * A site's identity: Python frames by (file, line, function), native ones by (symbol, module,
 * source line when the trace has one), or (module, offset) without a symbol, or the address: the
 * model interns its strings, so equal texts are equal pointers, and one function launched from
 * two processes is one site.
 */
static void site_key(const struct gr_frame *f, uint64_t k[4])
{
	k[0] = f->kind;
	if (f->kind == GR_FRAME_KIND_PYTHON && f->function) {
		k[1] = (uintptr_t)f->file;
		k[2] = f->line;
		k[3] = (uintptr_t)f->function;
	} else if (f->kind == GR_FRAME_KIND_PYTHON) {
		k[1] = k[2] = k[3] = 0; /* every "python:?" is one site */
	} else if (f->function) {
		/* with source lines, one site per line, as a Python frame's (0: none, as before) */
		k[1] = (uintptr_t)f->function;
		k[2] = (uintptr_t)f->module;
		k[3] = f->line;
	} else {
		k[1] = (uintptr_t)f->module;
		k[2] = f->module ? f->offset : f->value;
		k[3] = 1;
	}
}

struct sort_ctx {
	const char *const *names;
};

static int cmp_kernel(const void *a, const void *b, void *arg)
{
	const struct gr_launch_site_kernel *x = a, *y = b;
	const struct sort_ctx *c = arg;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(c->names[x->name_id], c->names[y->name_id]);
}

static int cmp_site(const void *a, const void *b)
{
	const struct gr_launch_site *x = a, *y = b;

	if (x->launches != y->launches)
		return x->launches > y->launches ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sites of each stack: the site index + 1, 0 for none. */
static int stack_sites(const struct gr_model *m, struct gr_keymap *km, struct gr_launch_sites *out,
		       uint32_t *of_stack)
{
	size_t nst;
	const struct gr_stack *st = gr_model_stacks(m, &nst);

	for (size_t s = 1; s < nst; s++) {
		int py = gr_frames_python(&st[s], st[s].nframes);
		int at = gr_frames_launcher(m, &st[s], py >= 0 ? (uint32_t)py : st[s].nframes);
		struct gr_frame f, launcher = {0};
		uint64_t k[4];
		uint32_t idx;
		int err;

		if (py < 0 && at < 0)
			continue;
		if (at >= 0)
			gr_frame_describe(m, st[s].pid, st[s].frames[at], &launcher);
		if (py >= 0)
			gr_frame_describe(m, st[s].pid, st[s].frames[py], &f);
		else
			f = launcher;
		site_key(&f, k);
		err = gr_keymap_intern(km, k, &idx);
		if (err < 0)
			return err;
		if (err == 1) {
			struct gr_launch_site *v = realloc(out->v, (idx + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			out->v = v;
			memset(&v[idx], 0, sizeof(v[idx]));
			v[idx].frame = f;
			v[idx].launcher = launcher;
			v[idx].pid = st[s].pid;
			v[idx].first = idx;
			out->n = idx + 1;
		}
		of_stack[s] = idx + 1;
	}
	return 0;
}

int gr_launch_sites_compute(const struct gr_model *m, struct gr_launch_sites *out)
{
	size_t nl, nk, nst, nkern, nnames;
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const struct gr_launch_key *lk = gr_model_launch_keys(m, &nk);
	const struct gr_kernel *kern = gr_model_kernels(m, &nkern);
	struct sort_ctx sc = {gr_model_kernel_names(m, &nnames)};
	struct gr_keymap sites, pairs;
	uint64_t *per_key = NULL, *pair_count = NULL;
	uint32_t *of_stack = NULL;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	gr_model_stacks(m, &nst);
	gr_keymap_init(&sites, 4);
	gr_keymap_init(&pairs, 2);
	per_key = calloc(nk + 1, sizeof(*per_key));
	of_stack = calloc(nst + 1, sizeof(*of_stack));
	if (!per_key || !of_stack)
		goto out;
	for (size_t i = 0; i < nl; i++)
		per_key[l[i].key]++;
	out->launches = nl;
	err = stack_sites(m, &sites, out, of_stack);
	if (err)
		goto out;
	/* (site, kernel name) pairs, counted */
	for (size_t k = 0; k < nk; k++) {
		uint32_t site = lk[k].stack < nst ? of_stack[lk[k].stack] : 0;
		uint64_t key[2];
		uint32_t idx;

		if (!per_key[k])
			continue;
		if (!site) {
			out->without_site += per_key[k];
			continue;
		}
		out->v[site - 1].launches += per_key[k];
		key[0] = site - 1;
		key[1] = lk[k].kernel < nkern ? kern[lk[k].kernel].name_id : 0;
		err = gr_keymap_intern(&pairs, key, &idx);
		if (err < 0)
			goto out;
		if (err == 1) {
			uint64_t *c = realloc(pair_count, (idx + 1) * sizeof(*c));

			err = -ENOMEM;
			if (!c)
				goto out;
			pair_count = c;
			pair_count[idx] = 0;
		}
		pair_count[idx] += per_key[k];
	}
	for (uint32_t p = 0; p < pairs.len; p++) {
		struct gr_launch_site *s = &out->v[gr_keymap_key(&pairs, p)[0]];
		struct gr_launch_site_kernel *v =
		    realloc(s->kernels, (s->nkernels + 1) * sizeof(*v));

		err = -ENOMEM;
		if (!v)
			goto out;
		s->kernels = v;
		v[s->nkernels].name_id = (uint32_t)gr_keymap_key(&pairs, p)[1];
		v[s->nkernels++].count = pair_count[p];
	}
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].nkernels > 1)
			gr_qsort_r(out->v[i].kernels, out->v[i].nkernels,
				   sizeof(*out->v[i].kernels), cmp_kernel, &sc);
	/* sites no kept launch used (only failed ones) are not sites */
	{
		size_t n = 0;

		for (size_t i = 0; i < out->n; i++) {
			if (out->v[i].launches)
				out->v[n++] = out->v[i];
			else
				free(out->v[i].kernels);
		}
		out->n = n;
	}
	/* equal counts keep the order of first stack use */
	if (out->n > 1)
		gr_qsort(out->v, out->n, sizeof(*out->v), cmp_site);
	err = 0;
out:
	gr_keymap_free(&sites);
	gr_keymap_free(&pairs);
	free(per_key);
	free(of_stack);
	free(pair_count);
	if (err)
		gr_launch_sites_free(out);
	return err;
}

void gr_launch_sites_free(struct gr_launch_sites *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].kernels);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
