/* SPDX-License-Identifier: MIT */
/* Frame-pointer stacks cut at the first frame that is no code: see stack_cut.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/text.h"
#include "format/events.h"
#include "cfi.h"
#include "discover.h"
#include "stack_cut.h"

unsigned gr_stack_cut(struct gr_stack_cuts *c, struct gr_procs *procs, uint32_t pid,
		      const uint64_t *frames, unsigned n)
{
	const struct gr_mapping *last;
	unsigned kept = 1;
	uint64_t *count;

	if (n <= 1) {
		if (n)
			gr_cfi_note_end(procs->cfi, procs, pid, frames[0]);
		return n;
	}
	/* a Python frame (merged in by pymerge.h) is no address: it never ends a stack */
	while (kept < n &&
	       (GR_FRAME_IS_PYTHON(frames[kept]) || gr_discover_lookup(procs, pid, frames[kept])))
		kept++;
	/* where a walk by unwind tables stopped: in a binary without one, it stopped early (and
	 * one whose table waits for first need is no binary without frame pointers to name) */
	if (gr_cfi_note_end(procs->cfi, procs, pid, frames[kept - 1]) || kept == n)
		return kept;
	last = gr_discover_lookup(procs, pid, frames[kept - 1]);
	if (last) {
		count = gr_u64map_get(&c->by_file, (uintptr_t)last->file);
		if (count)
			(*count)++;
		else
			gr_u64map_put(&c->by_file, (uintptr_t)last->file, 1);
	}
	return kept;
}

/* By path: the summary reads the same in every run. */
static int cmp_path(const void *a, const void *b)
{
	const struct gr_file *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

int gr_stack_cuts_report(const struct gr_stack_cuts *c, FILE *f)
{
	const struct gr_u64map *m = &c->by_file;
	const struct gr_file **files;
	size_t n = 0;

	if (!m->len)
		return 0;
	files = calloc(m->len, sizeof(*files));
	if (!files)
		return 0;
	for (size_t i = 0; i < m->cap && n < m->len; i++)
		if (m->keys && m->keys[i])
			files[n++] = (const struct gr_file *)(uintptr_t)m->keys[i];
	qsort(files, n, sizeof(*files), cmp_path);
	fprintf(f, "gpurec record: stacks end early in %zu %s without frame pointers: ", n,
		n == 1 ? "binary" : "binaries");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", GR_TEXT(files[i]->path));
	fprintf(f, ": --call-graph dwarf gives their full stacks\n");
	free(files);
	return (int)n;
}

void gr_stack_cuts_free(struct gr_stack_cuts *c)
{
	gr_u64map_free(&c->by_file);
	memset(c, 0, sizeof(*c));
}
