/* SPDX-License-Identifier: MIT */
/*
 * Test helper: every API call the recorder captured, whatever became of it (done, failed, nested,
 * in flight), summed per kind as JSON, so that a test checks the capture of arguments on the
 * real runtime, where every call fails without a driver and the reports set the calls aside.
 *
 *   trace_calls FILE   {"copies": [[kind, count, bytes], ...], "allocations": [[kind, count,
 *                      bytes], ...], "memsets": [count, bytes], "syncs": [[kind, count], ...],
 *                      "graphs": [[kind, count], ...], "launches": count,
 *                      "launch_configs": {"api gx,gy,gz bx,by,bz shmem": count, ...},
 *                      "frees": count,
 *                      "status": {"api status call-flags": count, ...},
 *                      "copy_dur_ns": [least, most], "inner": [[api, count, in_copy], ...],
 *                      "in_flight": [[api, handle, "frame;frame..."], ...]}
 *                      kinds in their enum order, only those seen; status: every call with its
 *                      api name, status name (or number, or "-" when not returned) and the
 *                      GR_CALL_* flags as a number; copy_dur_ns: over the copies in the figures
 *                      ([0, 0] when none); inner: calls made inside another call, by api in
 *                      order of first use, in_copy of them lying wholly inside the time of a
 *                      recorded copy of their thread; in_flight: each call that never returned,
 *                      by entry time, with its stream or event handle (syncs; null for other
 *                      kinds) and its stack innermost first (symbol names, else 0xADDR)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/model/model.h"
#include "format/events.h"

#define NK 16 /* above every kind enum (gr_graph_kind reaches 9) */

struct sums {
	uint64_t copy_n[NK], copy_b[NK], alloc_n[NK], alloc_b[NK], sync_n[NK], graph_n[NK];
	uint64_t memset_n, memset_b, launches, frees;
};

static unsigned kind_index(unsigned v)
{
	return v < NK ? v : NK - 1;
}

static void add_copy(struct sums *s, const struct gr_copy *c)
{
	s->copy_n[kind_index(c->kind)]++;
	s->copy_b[kind_index(c->kind)] += c->bytes;
}

static void add_alloc(struct sums *s, const struct gr_alloc *a)
{
	s->alloc_n[kind_index(a->kind)]++;
	s->alloc_b[kind_index(a->kind)] += a->bytes;
}

static void pairs(const char *key, const uint64_t *n, const uint64_t *b,
		  const char *(*name)(unsigned), int last)
{
	int first = 1;

	printf("\"%s\": [", key);
	for (unsigned k = 0; k < NK; k++) {
		if (!n[k])
			continue;
		printf("%s[\"%s\", %" PRIu64, first ? "" : ", ", name(k), n[k]);
		if (b)
			printf(", %" PRIu64, b[k]);
		printf("]");
		first = 0;
	}
	printf("]%s", last ? "" : ", ");
}

struct status_count {
	char key[128];
	uint64_t n;
};

static void count_status(struct status_count *t, size_t *nt, size_t cap, unsigned api,
			 const struct gr_aside *a)
{
	char key[128], num[16];
	const char *name = "-";

	if (a && (a->call & GR_CALL_RETURNED)) {
		name = gr_status_name(api, a->status);
		if (!name) {
			snprintf(num, sizeof(num), "%u", a->status);
			name = num;
		}
	}
	snprintf(key, sizeof(key), "%s %s %u", gr_api_name(api), name, a ? a->call : 0);
	for (size_t i = 0; i < *nt; i++) {
		if (!strcmp(t[i].key, key)) {
			t[i].n++;
			return;
		}
	}
	if (*nt < cap) {
		snprintf(t[*nt].key, sizeof(t[*nt].key), "%s", key);
		t[(*nt)++].n = 1;
	}
}

/* Count launch @l (made or set aside) under its api and launch configuration. */
static void count_config(struct status_count *t, size_t *nt, size_t cap, const struct gr_model *m,
			 const struct gr_launch *l)
{
	const struct gr_launch_key *k = &gr_model_launch_keys(m, NULL)[l->key];
	const struct gr_config *c = &gr_model_configs(m, NULL)[k->config];
	char key[128];

	snprintf(key, sizeof(key), "%s %u,%u,%u %u,%u,%u %u", gr_api_name(k->api), c->grid[0],
		 c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], c->shmem);
	for (size_t i = 0; i < *nt; i++) {
		if (!strcmp(t[i].key, key)) {
			t[i].n++;
			return;
		}
	}
	if (*nt < cap) {
		snprintf(t[*nt].key, sizeof(t[*nt].key), "%s", key);
		t[(*nt)++].n = 1;
	}
}

/* 1 when [ts, ts + dur) of thread lies inside one of the n copies (sorted by ts). */
static int inside_copy(const struct gr_copy *c, size_t n, uint32_t thread, uint64_t ts,
		       uint64_t dur)
{
	for (size_t i = 0; i < n && c[i].ts <= ts; i++)
		if (c[i].thread == thread && ts + dur <= c[i].ts + c[i].dur)
			return 1;
	return 0;
}

struct inner_count {
	unsigned api;
	uint64_t n, in_copy;
};

/* "copy_dur_ns" and "inner": whether a nested call's time is part of its outer copy's. */
static void print_nesting(const struct gr_model *m)
{
	static struct inner_count in[64];
	size_t n, nc, nin = 0;
	const struct gr_copy *c = gr_model_copies(m, &nc);
	const struct gr_aside *a = gr_model_asides(m, &n);
	uint64_t least = nc ? UINT64_MAX : 0, most = 0;

	for (size_t i = 0; i < nc; i++) {
		least = c[i].dur < least ? c[i].dur : least;
		most = c[i].dur > most ? c[i].dur : most;
	}
	printf("\"copy_dur_ns\": [%" PRIu64 ", %" PRIu64 "], \"inner\": [", least, most);
	for (size_t i = 0; i < n; i++) {
		unsigned api = gr_aside_api(m, &a[i]);
		size_t k = 0;

		if (!GR_CALL_DEPTH(a[i].call) || (a[i].call & GR_CALL_IN_FLIGHT))
			continue;
		while (k < nin && in[k].api != api)
			k++;
		if (k == nin) {
			if (nin == 64)
				continue;
			in[nin++] = (struct inner_count){.api = api};
		}
		in[k].n++;
		in[k].in_copy += inside_copy(c, nc, gr_aside_thread(m, &a[i]), a[i].ts, a[i].dur);
	}
	for (size_t k = 0; k < nin; k++)
		printf("%s[\"%s\", %" PRIu64 ", %" PRIu64 "]", k ? ", " : "",
		       gr_api_name(in[k].api), in[k].n, in[k].in_copy);
	printf("], ");
}

/* "in_flight": what a call that never returned still tells: its arguments and its stack. */
static void print_in_flight(const struct gr_model *m)
{
	size_t n, nst;
	const struct gr_aside *a = gr_model_asides(m, &n);
	const struct gr_stack *st = gr_model_stacks(m, &nst);
	int first = 1;

	printf("\"in_flight\": [");
	for (size_t i = 0; i < n; i++) {
		uint32_t s = gr_aside_stack(m, &a[i]);

		if (!(a[i].call & GR_CALL_IN_FLIGHT))
			continue;
		printf("%s[\"%s\", ", first ? "" : ", ", gr_api_name(gr_aside_api(m, &a[i])));
		if (a[i].kind == GR_K_SYNC)
			printf("%" PRIu64 ", \"", a[i].u.sync.handle);
		else
			printf("null, \"");
		for (uint32_t f = 0; s < nst && f < st[s].nframes; f++) {
			const struct gr_symbol *sym =
			    gr_model_symbol(m, st[s].pid, st[s].frames[f]);

			if (sym)
				printf("%s%s", f ? ";" : "", sym->name);
			else
				printf("%s0x%" PRIx64, f ? ";" : "", st[s].frames[f]);
		}
		printf("\"]");
		first = 0;
	}
	printf("]");
}

int main(int argc, char **argv)
{
	static struct status_count st[512], configs[512];
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct sums s = {0};
	size_t n, nst = 0, nconfigs = 0;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_calls FILE\n");
		return 2;
	}
	err = gr_model_load(&m, argv[1], &diag);
	if (err) {
		fprintf(stderr, "trace_calls: %s: %s\n", argv[1], gr_strerror(err));
		return 1;
	}
	const struct gr_launch_key *keys = gr_model_launch_keys(m, NULL);
	const struct gr_launch *l = gr_model_launches(m, &n);
	for (size_t i = 0; i < n; i++, s.launches++) {
		count_status(st, &nst, 512, keys[l[i].key].api, NULL);
		count_config(configs, &nconfigs, 512, m, &l[i]);
	}
	const struct gr_copy *c = gr_model_copies(m, &n);
	for (size_t i = 0; i < n; i++) {
		add_copy(&s, &c[i]);
		count_status(st, &nst, 512, c[i].api, NULL);
	}
	const struct gr_memset *ms = gr_model_memsets(m, &n);
	for (size_t i = 0; i < n; i++, s.memset_n++) {
		s.memset_b += ms[i].bytes;
		count_status(st, &nst, 512, ms[i].api, NULL);
	}
	const struct gr_alloc *al = gr_model_allocs(m, &n);
	for (size_t i = 0; i < n; i++) {
		add_alloc(&s, &al[i]);
		count_status(st, &nst, 512, al[i].api, NULL);
	}
	const struct gr_free *f = gr_model_frees(m, &n);
	for (size_t i = 0; i < n; i++, s.frees++)
		count_status(st, &nst, 512, f[i].api, NULL);
	const struct gr_sync *sy = gr_model_syncs(m, &n);
	for (size_t i = 0; i < n; i++) {
		s.sync_n[kind_index(sy[i].kind)]++;
		count_status(st, &nst, 512, sy[i].api, NULL);
	}
	const struct gr_graph *g = gr_model_graphs(m, &n);
	for (size_t i = 0; i < n; i++) {
		s.graph_n[kind_index(g[i].kind)]++;
		count_status(st, &nst, 512, g[i].api, NULL);
	}
	const struct gr_aside *a = gr_model_asides(m, &n);
	for (size_t i = 0; i < n; i++) {
		switch (a[i].kind) {
		case GR_K_LAUNCH:
			s.launches++;
			count_config(configs, &nconfigs, 512, m, &a[i].u.launch);
			break;
		case GR_K_COPY:
			add_copy(&s, &a[i].u.copy);
			break;
		case GR_K_MEMSET:
			s.memset_n++;
			s.memset_b += a[i].u.memset.bytes;
			break;
		case GR_K_ALLOC:
			add_alloc(&s, &a[i].u.alloc);
			break;
		case GR_K_FREE:
			s.frees++;
			break;
		case GR_K_SYNC:
			s.sync_n[kind_index(a[i].u.sync.kind)]++;
			break;
		case GR_K_GRAPH:
			s.graph_n[kind_index(a[i].u.graph.kind)]++;
			break;
		}
		count_status(st, &nst, 512, gr_aside_api(m, &a[i]), &a[i]);
	}
	printf("{");
	pairs("copies", s.copy_n, s.copy_b, gr_copy_kind_name, 0);
	pairs("allocations", s.alloc_n, s.alloc_b, gr_alloc_kind_name, 0);
	printf("\"memsets\": [%" PRIu64 ", %" PRIu64 "], ", s.memset_n, s.memset_b);
	pairs("syncs", s.sync_n, NULL, gr_sync_kind_name, 0);
	pairs("graphs", s.graph_n, NULL, gr_graph_kind_name, 0);
	printf("\"launches\": %" PRIu64 ", \"launch_configs\": {", s.launches);
	for (size_t i = 0; i < nconfigs; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", configs[i].key, configs[i].n);
	printf("}, \"frees\": %" PRIu64 ", \"status\": {", s.frees);
	for (size_t i = 0; i < nst; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", st[i].key, st[i].n);
	printf("}, ");
	print_nesting(m);
	print_in_flight(m);
	printf("}\n");
	gr_model_free(m);
	return 0;
}
