/* SPDX-License-Identifier: MIT */
/*
 * The stackFrames table of an export (export_stacks.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/frames.h"
#include "export_stacks.h"

int ex_stacks_init(struct ex_stacks *s, const struct gr_model *m)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	gr_model_stacks(m, &s->nstacks);
	gr_keymap_init(&s->nodes, 3);
	s->leaf = calloc(s->nstacks + 1, sizeof(*s->leaf));
	return s->leaf ? 0 : -ENOMEM;
}

int64_t ex_stacks_sf(struct ex_stacks *s, uint32_t stack)
{
	const struct gr_stack *st;
	uint64_t parent = 0;

	if (!stack || stack >= s->nstacks)
		return 0;
	if (s->leaf[stack])
		return s->leaf[stack];
	st = &gr_model_stacks(s->m, NULL)[stack];
	/* outermost first: each frame's parent is the one that called it */
	for (uint32_t i = st->nframes; i-- > 0;) {
		uint64_t key[3] = {parent, st->frames[i], st->pid};
		uint32_t idx;
		int err = gr_keymap_intern(&s->nodes, key, &idx);

		if (err < 0)
			return err;
		parent = (uint64_t)idx + 1;
	}
	s->leaf[stack] = (uint32_t)parent;
	return (int64_t)parent;
}

void ex_stacks_write(const struct ex_stacks *s, struct gr_json_buf *out)
{
	static const char head[] = ",\"stackFrames\":";
	char name[GR_FRAME_TEXT], id[24];
	struct gr_json j;

	gr_json_buf_raw(out, head, sizeof(head) - 1);
	gr_json_begin_buf(&j, out, 0);
	gr_json_object(&j);
	for (uint32_t n = 0; n < s->nodes.len; n++) {
		const uint64_t *k = gr_keymap_key(&s->nodes, n);
		struct gr_frame f;

		gr_frame_describe(s->m, (uint32_t)k[2], k[1], &f);
		snprintf(id, sizeof(id), "%" PRIu32, n + 1);
		gr_json_key(&j, id);
		gr_json_object_flat(&j);
		gr_json_kv_str(&j, "name", gr_frame_format(&f, name, sizeof(name)));
		gr_json_kv_str(&j, "category",
			       f.kind == GR_FRAME_KIND_PYTHON ? "python" : "native");
		if (k[0]) {
			snprintf(id, sizeof(id), "%" PRIu64, k[0]);
			gr_json_kv_str(&j, "parent", id);
		}
		gr_json_object_end(&j);
	}
	gr_json_object_end(&j);
	gr_json_end(&j);
}

void ex_stacks_free(struct ex_stacks *s)
{
	gr_keymap_free(&s->nodes);
	free(s->leaf);
	memset(s, 0, sizeof(*s));
}
