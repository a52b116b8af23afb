/* SPDX-License-Identifier: MIT */
/*
 * The call stacks of an export (Chrome trace JSON): the "stackFrames" table, {id: {name,
 * parent}}, one node per distinct (parent, frame) so stacks share their outer frames, and the id
 * of each stack's innermost frame for the events' "sf". Frames are named as reports name them
 * (frames.h): "file:line function" for Python frames, "function (module)" for native ones.
 */
#ifndef GR_ANALYZE_EXPORT_STACKS_H
#define GR_ANALYZE_EXPORT_STACKS_H

#include <stdint.h>

#include "analyze/model/model.h"
#include "analyze/util/json.h"
#include "analyze/util/keymap.h"

struct ex_stacks {
	const struct gr_model *m;
	struct gr_keymap nodes; /* (parent node id, frame value, pid) -> node id - 1 */
	uint32_t *leaf;		/* per model stack: its innermost node id, 0 unknown yet */
	size_t nstacks;
};

/* Prepare for @m's stacks. Returns 0 or -ENOMEM. */
int ex_stacks_init(struct ex_stacks *s, const struct gr_model *m);

/* The node id of model stack @stack's innermost frame (ids from 1, in order of first use), 0
 * for no stack; -ENOMEM. */
int64_t ex_stacks_sf(struct ex_stacks *s, uint32_t stack);

/* The nodes used so far as the trace's top-level "stackFrames" key: writes
 * ',"stackFrames":{...}' raw into @out. */
void ex_stacks_write(const struct ex_stacks *s, struct gr_json_buf *out);

void ex_stacks_free(struct ex_stacks *s);

#endif
