/* SPDX-License-Identifier: MIT */
/*
 * The HTML page's device memory view (docs/HTML.md, "MEMORY"): from the report's memory figures
 * (memory.h), each process's live device bytes over time, cut to GR_HTML_MEMORY_POINTS points
 * per process (each bin keeps its largest value, so the peak stays), and the live set at the
 * peak of the process with the highest one as a flame graph by whole stack.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/figures/frames.h"
#include "analyze/figures/memory.h"
#include "analyze/util/json.h"
#include "analyze/util/strtab.h"
#include "html_memory.h"

struct node {
	const char *name;
	uint64_t bytes;
	int32_t first_child, next;
};

struct tree {
	struct node *v;
	size_t n, cap;
	struct gr_arena arena;
	struct gr_strtab names;
	int err;
};

static int32_t child(struct tree *t, int32_t parent, const char *name)
{
	int32_t c;

	for (c = t->v[parent].first_child; c >= 0; c = t->v[c].next)
		if (t->v[c].name == name)
			return c;
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64;
		struct node *v = realloc(t->v, nc * sizeof(*v));

		if (!v) {
			t->err = -ENOMEM;
			return -1;
		}
		t->v = v;
		t->cap = nc;
	}
	c = (int32_t)t->n++;
	t->v[c] = (struct node){name, 0, -1, t->v[parent].first_child};
	t->v[parent].first_child = c;
	return c;
}

/* Stack @stack's @bytes along its frames, the outermost first (a flame graph's root at top). */
static void add_stack(struct tree *t, const struct gr_model *m, uint32_t stack, uint64_t bytes)
{
	size_t nst;
	const struct gr_stack *st = gr_model_stacks(m, &nst);
	char buf[GR_FRAME_TEXT];
	int32_t node = 0;

	t->v[0].bytes += bytes;
	if (!stack || stack >= nst || !st[stack].nframes) {
		node = child(t, 0, gr_strtab_intern_str(&t->names, "(no stack recorded)"));
		if (node >= 0)
			t->v[node].bytes += bytes;
		return;
	}
	for (uint32_t i = st[stack].nframes; i-- > 0 && node >= 0;) {
		struct gr_frame f;
		const char *name;

		gr_frame_describe(m, st[stack].pid, st[stack].frames[i], &f);
		name = gr_strtab_intern_str(&t->names, gr_frame_format(&f, buf, sizeof(buf)));
		if (!name) {
			t->err = -ENOMEM;
			return;
		}
		node = child(t, node, name);
		if (node >= 0)
			t->v[node].bytes += bytes;
	}
}

static void tree_json(struct gr_json *j, const struct tree *t, int32_t n)
{
	gr_json_object_flat(j);
	gr_json_kv_str(j, "name", t->v[n].name);
	gr_json_key(j, "v");
	gr_json_array_flat(j);
	gr_json_u64(j, t->v[n].bytes);
	gr_json_array_end(j);
	gr_json_key(j, "children");
	gr_json_array_flat(j);
	for (int32_t c = t->v[n].first_child; c >= 0; c = t->v[c].next)
		tree_json(j, t, c);
	gr_json_array_end(j);
	gr_json_object_end(j);
}

/* The points of @p, at most GR_HTML_MEMORY_POINTS: each bin of consecutive changes as its
 * largest value at its first time. */
static void series_json(struct gr_json *j, const struct gr_memory_proc *p, uint64_t t0)
{
	size_t per = (p->nseries + GR_HTML_MEMORY_POINTS - 1) / GR_HTML_MEMORY_POINTS;

	if (!per)
		per = 1;
	gr_json_kv_bool(j, "binned", per > 1);
	gr_json_key(j, "points");
	gr_json_array_flat(j);
	for (size_t i = 0; i < p->nseries; i += per) {
		uint64_t most = 0;

		for (size_t k = i; k < i + per && k < p->nseries; k++)
			if (p->series[k].bytes > most)
				most = p->series[k].bytes;
		gr_json_array_flat(j);
		gr_json_u64(j, p->series[i].ts > t0 ? p->series[i].ts - t0 : 0);
		gr_json_u64(j, most);
		gr_json_array_end(j);
	}
	gr_json_array_end(j);
}

int gr_html_memory_json(struct gr_json *j, const struct gr_model *m, const struct gr_memory *mem,
			uint64_t t0)
{
	const struct gr_memory_proc *top = gr_memory_top_proc(mem);
	struct tree t = {0};
	int err = 0;

	gr_json_key(j, "memory");
	if (!mem->any || !mem->judged || !top || !top->peak_bytes) {
		gr_json_null(j);
		return 0;
	}
	gr_strtab_init(&t.names, &t.arena);
	t.cap = 64;
	t.v = malloc(t.cap * sizeof(*t.v));
	if (!t.v) {
		err = -ENOMEM;
		goto out;
	}
	t.v[0] = (struct node){gr_strtab_intern_str(&t.names, "all"), 0, -1, -1};
	t.n = 1;
	for (size_t i = 0; i < top->npeak_stacks && !t.err; i++)
		add_stack(&t, m, top->peak_stacks[i].stack, top->peak_stacks[i].bytes);
	if (t.err || !t.v[0].name) {
		err = t.err ? t.err : -ENOMEM;
		goto out;
	}
	gr_json_object(j);
	gr_json_key(j, "processes");
	gr_json_array(j);
	for (size_t k = 0, shown = 0; k < mem->nprocs && shown < GR_HTML_MEMORY_PROCS; k++) {
		const struct gr_memory_proc *p = &mem->procs[k];

		if (!p->nseries)
			continue;
		shown++;
		gr_json_object(j);
		gr_json_kv_u64(j, "pid", p->pid);
		gr_json_kv_u64(j, "device", p->device);
		gr_json_kv_u64(j, "peak_bytes", p->peak_bytes);
		gr_json_kv_u64(j, "peak_ns", p->peak_ts > t0 ? p->peak_ts - t0 : 0);
		gr_json_key(j, "peak_iteration");
		if (p->peak_iteration >= 0)
			gr_json_i64(j, p->peak_iteration);
		else
			gr_json_null(j);
		gr_json_kv_u64(j, "outstanding_bytes", p->end_bytes);
		series_json(j, p, t0);
		gr_json_object_end(j);
	}
	gr_json_array_end(j);
	gr_json_key(j, "flame");
	gr_json_object(j);
	gr_json_kv_u64(j, "pid", top->pid);
	gr_json_key(j, "weights");
	gr_json_array_flat(j);
	gr_json_str(j, "bytes");
	gr_json_array_end(j);
	gr_json_kv_u64(j, "merged", 0);
	gr_json_key(j, "root");
	tree_json(j, &t, 0);
	gr_json_object_end(j);
	gr_json_object_end(j);
out:
	free(t.v);
	gr_strtab_free(&t.names);
	gr_arena_free(&t.arena);
	if (err)
		gr_json_null(j);
	return err;
}
