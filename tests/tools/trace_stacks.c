/* SPDX-License-Identifier: MIT */
/*
 * Test helper: what a trace says about call stacks, in lines a shell test can compare.
 *
 *   trace_stacks FILE        each distinct stack of API events, in order of first use (the
 *                            stacks of scheduler records alone are left out):
 *                            "COUNT: frame;frame;..." innermost first, each frame its symbol
 *                            name (gr_model_symbol), else 0xADDR, a Python frame
 *                            "file:line function"; COUNT is the events using it
 *   trace_stacks --raw FILE  the RAWSTACK records: "rawstack N regs R min A max B entry E"
 *                            (N records, R register bytes each or -1 when they differ, stack
 *                            bytes from A to B, E taken at a function's entry)
 *   trace_stacks --stored FILE the STACK records as written, before replay reads them:
 *                            "FRAMES: 0xADDR;0xADDR..." for each, in file order
 *   trace_stacks --launches FILE every kernel launch, done or set aside (failed, nested, in
 *                            flight), in order of entry time: one line of its Python frames,
 *                            innermost first, "file:line function;..." (empty: none)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/frames.h"
#include "analyze/model/model.h"
#include "format/events.h"
#include "format/trace.h"

static void count_stacks(const struct gr_model *m, uint64_t *uses)
{
	const struct gr_launch *l;
	const struct gr_copy *c;
	const struct gr_memset *ms;
	const struct gr_sync *sy;
	const struct gr_graph *g;
	const struct gr_alloc *al;
	const struct gr_meminfo *mi;
	size_t n;

	l = gr_model_launches(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[gr_model_launch_keys(m, NULL)[l[i].key].stack]++;
	c = gr_model_copies(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[c[i].stack]++;
	ms = gr_model_memsets(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[ms[i].stack]++;
	sy = gr_model_syncs(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[sy[i].stack]++;
	g = gr_model_graphs(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[g[i].stack]++;
	al = gr_model_allocs(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[al[i].stack]++;
	mi = gr_model_meminfos(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[mi[i].stack]++;
	/* calls that failed, nested or never returned carry their stacks too */
	const struct gr_aside *a = gr_model_asides(m, &n);
	for (size_t i = 0; i < n; i++)
		uses[gr_aside_stack(m, &a[i])]++;
}

static int print_stacks(const char *path)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	const struct gr_stack *st;
	uint64_t *uses;
	size_t n, nk;
	int err;

	err = gr_model_load(&m, path, &diag);
	if (err) {
		fprintf(stderr, "trace_stacks: %s: %s\n", path, gr_strerror(err));
		return 1;
	}
	st = gr_model_stacks(m, &n);
	uses = calloc(n, sizeof(*uses));
	if (!uses) {
		gr_model_free(m);
		return 1;
	}
	count_stacks(m, uses);
	/* a stack that only scheduler records use (a blocked thread's, a waker's:
	 * tool_trace_blocked) is no API event's: marked UINT64_MAX */
	const struct gr_sched_key *keys = gr_model_sched_keys(m, &nk);
	for (size_t k = 0; k < nk; k++)
		if (keys[k].stack && !uses[keys[k].stack])
			uses[keys[k].stack] = UINT64_MAX;
	/* entry 0 is "no stack" */
	for (size_t i = 1; i < n; i++) {
		if (uses[i] == UINT64_MAX)
			continue;
		printf("%" PRIu64 ":", uses[i]);
		for (uint32_t f = 0; f < st[i].nframes; f++) {
			const struct gr_symbol *sym =
			    gr_model_symbol(m, st[i].pid, st[i].frames[f]);
			struct gr_frame fr;
			char text[GR_FRAME_TEXT];

			gr_frame_describe(m, st[i].pid, st[i].frames[f], &fr);
			if (fr.kind == GR_FRAME_KIND_PYTHON)
				printf("%s%s", f ? ";" : " ",
				       gr_frame_format(&fr, text, sizeof(text)));
			else if (sym)
				printf("%s%s", f ? ";" : " ", sym->name);
			else
				printf("%s0x%" PRIx64, f ? ";" : " ", st[i].frames[f]);
		}
		printf("\n");
	}
	free(uses);
	gr_model_free(m);
	return 0;
}

static int print_raw(const char *path)
{
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	const struct gr_chunk *c;
	uint64_t records = 0, entry = 0, min = UINT64_MAX, max = 0;
	int64_t regs_len = -2;
	int regs_col, stack_col, err;

	err = gr_trace_reader_open(&r, path, &diag);
	if (err) {
		fprintf(stderr, "trace_stacks: %s: %s\n", path, gr_strerror(err));
		return 1;
	}
	regs_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_RAWSTACK, "regs");
	stack_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_RAWSTACK, "stack");
	while (regs_col >= 0 && stack_col >= 0 && (err = gr_trace_reader_next_chunk(r, &c)) > 0) {
		uint32_t n = gr_chunk_count(c, GR_K_RAWSTACK);
		const struct gr_bytes *regs = gr_chunk_bytes(c, GR_K_RAWSTACK, regs_col);
		const struct gr_bytes *stack = gr_chunk_bytes(c, GR_K_RAWSTACK, stack_col);

		for (uint32_t i = 0; i < n; i++) {
			uint64_t flags = 0;

			if (regs_len == -2 || regs_len == (int64_t)regs[i].len)
				regs_len = regs[i].len;
			else
				regs_len = -1;
			/* the last register word holds the flags */
			if (regs[i].len >= 8)
				memcpy(&flags, regs[i].data + regs[i].len - 8, 8);
			entry += flags & 1;
			min = stack[i].len < min ? stack[i].len : min;
			max = stack[i].len > max ? stack[i].len : max;
			records++;
		}
	}
	gr_trace_reader_close(r);
	if (err < 0) {
		fprintf(stderr, "trace_stacks: %s: %s\n", path, gr_strerror(err));
		return 1;
	}
	printf("rawstack %" PRIu64 " regs %" PRId64 " min %" PRIu64 " max %" PRIu64
	       " entry %" PRIu64 "\n",
	       records, records ? regs_len : 0, records ? min : 0, max, entry);
	return 0;
}

static int print_stored(const char *path)
{
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	const struct gr_chunk *c;
	int frames_col, err;

	err = gr_trace_reader_open(&r, path, &diag);
	if (err) {
		fprintf(stderr, "trace_stacks: %s: %s\n", path, gr_strerror(err));
		return 1;
	}
	frames_col = gr_schema_column(gr_trace_reader_schema(r), GR_K_STACK, "frames");
	while (frames_col >= 0 && (err = gr_trace_reader_next_chunk(r, &c)) > 0) {
		uint32_t n = gr_chunk_count(c, GR_K_STACK);
		const struct gr_bytes *frames = gr_chunk_bytes(c, GR_K_STACK, frames_col);

		for (uint32_t i = 0; i < n; i++) {
			printf("%u:", frames[i].len / 8);
			for (uint32_t f = 0; f < frames[i].len / 8; f++) {
				uint64_t addr;

				memcpy(&addr, frames[i].data + f * 8, 8);
				printf("%s0x%" PRIx64, f ? ";" : " ", addr);
			}
			printf("\n");
		}
	}
	gr_trace_reader_close(r);
	if (err < 0) {
		fprintf(stderr, "trace_stacks: %s: %s\n", path, gr_strerror(err));
		return 1;
	}
	return 0;
}

struct launch_at {
	uint64_t ts;
	uint32_t stack, order;
};

static int cmp_launch_at(const void *a, const void *b)
{
	const struct launch_at *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int print_launches(const char *path)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	const struct gr_launch_key *keys;
	const struct gr_launch *l;
	const struct gr_aside *a;
	const struct gr_stack *st;
	struct launch_at *at;
	size_t nl, na, ns, n = 0;
	int err;

	err = gr_model_load(&m, path, &diag);
	if (err) {
		fprintf(stderr, "trace_stacks: %s: %s\n", path, gr_strerror(err));
		return 1;
	}
	keys = gr_model_launch_keys(m, NULL);
	l = gr_model_launches(m, &nl);
	a = gr_model_asides(m, &na);
	st = gr_model_stacks(m, &ns);
	at = calloc(nl + na + 1, sizeof(*at));
	if (!at) {
		gr_model_free(m);
		return 1;
	}
	for (size_t i = 0; i < nl; i++, n++)
		at[n] = (struct launch_at){l[i].ts, keys[l[i].key].stack, (uint32_t)n};
	for (size_t i = 0; i < na; i++)
		if (a[i].kind == GR_K_LAUNCH)
			at[n] = (struct launch_at){a[i].ts, gr_aside_stack(m, &a[i]), (uint32_t)n},
			n++;
	qsort(at, n, sizeof(*at), cmp_launch_at);
	for (size_t i = 0; i < n; i++) {
		const struct gr_stack *s = at[i].stack < ns ? &st[at[i].stack] : NULL;
		int printed = 0;

		for (uint32_t f = 0; s && f < s->nframes; f++) {
			struct gr_frame fr;
			char text[GR_FRAME_TEXT];

			gr_frame_describe(m, s->pid, s->frames[f], &fr);
			if (fr.kind == GR_FRAME_KIND_PYTHON)
				printf("%s%s", printed++ ? ";" : "",
				       gr_frame_format(&fr, text, sizeof(text)));
		}
		printf("\n");
	}
	free(at);
	gr_model_free(m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--launches"))
		return print_launches(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--stored"))
		return print_stored(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--raw"))
		return print_raw(argv[2]);
	if (argc == 2)
		return print_stacks(argv[1]);
	fprintf(stderr, "usage: trace_stacks [--raw|--stored|--launches] FILE\n");
	return 2;
}
