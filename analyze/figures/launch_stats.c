/* SPDX-License-Identifier: MIT */
/*
 * gr_launch_stats_compute(): one pass over the launches for the counts per pair, thread and
 * stream, then the small tables (names, processes) derived from those.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/keymap.h"
#include "launch_stats.h"

static int cmp_kernel(const void *a, const void *b, void *arg)
{
	const struct gr_launch_stats *s = ((void *const *)arg)[0];
	const char *const *names = ((void *const *)arg)[1];
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (s->kernels[x].count != s->kernels[y].count)
		return s->kernels[x].count > s->kernels[y].count ? -1 : 1;
	return strcmp(names[x], names[y]);
}

static int cmp_pair(const void *a, const void *b, void *pairs)
{
	const struct gr_launch_pair *p = pairs;
	const struct gr_launch_pair *x = &p[*(const uint32_t *)a], *y = &p[*(const uint32_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->config < y->config ? -1 : x->config > y->config;
}

/* Room for pair id @id in *@pairs (zeroed past the old end). */
static int reserve_pair(struct gr_launch_pair **pairs, size_t *cap, uint32_t id)
{
	struct gr_launch_pair *p;
	size_t ncap;

	if (id < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(*pairs, ncap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + *cap, 0, (ncap - *cap) * sizeof(*p));
	*pairs = p;
	*cap = ncap;
	return 0;
}

/*
 * Launches sharing a launch key (struct gr_launch_key) share their pair, thread and stream, so
 * the per-launch pass only counts launches and call time per key, and lists the keys in order of
 * first launch; the keys, taken in that order, then make the pairs.
 */
static int count_launches(const struct gr_model *m, struct gr_launch_stats *s, size_t *pair_cap)
{
	size_t nl, nk, nkeys;
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const struct gr_launch_key *keys = gr_model_launch_keys(m, &nkeys);
	const struct gr_kernel *k = gr_model_kernels(m, &nk);
	const uint64_t *executed = gr_graphs_executed_by_key(s->graphs);
	struct gr_launch_pair *pairs = s->pairs;
	struct gr_keymap map;
	struct key_total {
		uint64_t count, dur, measured;
	} *tot = calloc(nkeys + 1, sizeof(*tot));
	uint32_t *order = malloc((nkeys + 1) * sizeof(*order));
	size_t nused = 0;
	int err = -ENOMEM;

	gr_keymap_init(&map, 1);
	if (!tot || !order)
		goto out;
	for (size_t i = 0; i < nl; i++) {
		struct key_total *t = &tot[l[i].key];
		uint64_t dur = gr_launch_dur(&keys[l[i].key], &l[i]);

		/* a node-building call is no launch call: its time is no launch cost */
		if (gr_graphs_api_is_node(keys[l[i].key].api))
			dur = 0;
		if (!t->count++)
			order[nused++] = l[i].key; /* the keys in order of first launch */
		t->dur += dur;
		t->measured += dur != 0;
	}
	for (size_t j = 0; j < nused; j++) {
		const struct gr_launch_key *lk = &keys[order[j]];
		const struct key_total *t = &tot[order[j]];
		uint64_t key = (uint64_t)k[lk->kernel].name_id << 32 | lk->config;
		uint32_t id;

		err = gr_keymap_intern(&map, &key, &id);
		if (err < 0)
			goto out;
		if (err == 1) {
			err = reserve_pair(&pairs, pair_cap, id);
			if (err)
				goto out;
			pairs[id].name_id = k[lk->kernel].name_id;
			pairs[id].config = lk->config;
		}
		pairs[id].count += t->count;
		pairs[id].executed += executed ? executed[order[j]] : t->count;
		pairs[id].dur += t->dur;
		s->pair_of_key[order[j]] = id;
		s->thread_launches[lk->thread] += t->count;
		s->stream_launches[lk->stream] += t->count;
		s->with_stack += lk->stack ? t->count : 0;
		s->measured += t->measured;
	}
	s->npairs = map.len;
	s->nlaunches = nl;
	err = 0;
out:
	s->pairs = pairs;
	gr_keymap_free(&map);
	free(tot);
	free(order);
	return err;
}

/* Kernel totals from the pairs, pairs grouped by name (a counting sort), then the orders. */
static int by_name(const struct gr_model *m, struct gr_launch_stats *s)
{
	const char *const *names = gr_model_kernel_names(m, NULL);
	void *arg[2] = {s, (void *)names};
	uint32_t at = 0;

	s->pair_by_name = malloc((s->npairs + 1) * sizeof(*s->pair_by_name));
	if (!s->pair_by_name)
		return -ENOMEM;
	for (size_t p = 0; p < s->npairs; p++) {
		struct gr_launch_kernel *kn = &s->kernels[s->pairs[p].name_id];

		kn->count += s->pairs[p].count;
		kn->executed += s->pairs[p].executed;
		kn->dur += s->pairs[p].dur;
		s->executed += s->pairs[p].executed;
		kn->npairs++;
	}
	for (size_t i = 0; i < s->nkernels; i++) {
		s->kernels[i].first = at;
		at += s->kernels[i].npairs;
		s->kernels[i].npairs = 0;
	}
	for (size_t p = 0; p < s->npairs; p++) {
		struct gr_launch_kernel *kn = &s->kernels[s->pairs[p].name_id];

		s->pair_by_name[kn->first + kn->npairs++] = (uint32_t)p;
	}
	for (size_t i = 0; i < s->nkernels; i++) {
		gr_qsort_r(s->pair_by_name + s->kernels[i].first, s->kernels[i].npairs,
			   sizeof(*s->pair_by_name), cmp_pair, s->pairs);
		s->kernel_order[i] = (uint32_t)i;
	}
	gr_qsort_r(s->kernel_order, s->nkernels, sizeof(*s->kernel_order), cmp_kernel, arg);
	return 0;
}

int gr_launch_stats_compute(const struct gr_model *m, struct gr_launch_stats *out)
{
	struct gr_launch_stats s = {0};
	const struct gr_thread *threads;
	size_t nkeys, pair_cap = 0;
	int err = -ENOMEM;

	gr_model_launch_keys(m, &nkeys);
	gr_model_kernel_names(m, &s.nkernels);
	threads = gr_model_threads(m, &s.nthreads);
	gr_model_processes(m, &s.nprocesses);
	gr_model_streams(m, &s.nstreams);
	/* +1: a valid pointer for an empty table, as the header promises */
	s.kernels = calloc(s.nkernels + 1, sizeof(*s.kernels));
	s.kernel_order = calloc(s.nkernels + 1, sizeof(*s.kernel_order));
	s.thread_launches = calloc(s.nthreads + 1, sizeof(*s.thread_launches));
	s.process_launches = calloc(s.nprocesses + 1, sizeof(*s.process_launches));
	s.stream_launches = calloc(s.nstreams + 1, sizeof(*s.stream_launches));
	s.pair_of_key = calloc(nkeys + 1, sizeof(*s.pair_of_key));
	if (!s.kernels || !s.kernel_order || !s.thread_launches || !s.process_launches ||
	    !s.stream_launches || !s.pair_of_key)
		goto out;
	err = gr_graphs_build(m, &s.graphs);
	if (err)
		goto out;
	err = reserve_pair(&s.pairs, &pair_cap, 0);
	if (err)
		goto out;
	err = count_launches(m, &s, &pair_cap);
	if (err)
		goto out;
	for (size_t t = 0; t < s.nthreads; t++)
		s.process_launches[threads[t].process] += s.thread_launches[t];
	err = by_name(m, &s);
out:
	if (err) {
		gr_launch_stats_free(&s);
		memset(out, 0, sizeof(*out));
		return err;
	}
	*out = s;
	return 0;
}

void gr_launch_stats_free(struct gr_launch_stats *s)
{
	if (!s)
		return;
	free(s->kernels);
	free(s->kernel_order);
	free(s->pairs);
	free(s->pair_by_name);
	free(s->pair_of_key);
	free(s->thread_launches);
	free(s->process_launches);
	free(s->stream_launches);
	gr_graphs_free(s->graphs);
	memset(s, 0, sizeof(*s));
}
