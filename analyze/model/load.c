/* SPDX-License-Identifier: MIT */
/* Load a trace or say why not (load.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "analyze/util/text.h"
#include "damage.h"
#include "load.h"

/* Says why @path could not be read, in one line. */
static void say(const char *cmd, const char *path, int err, const struct gr_diag *diag)
{
	if (err == -ENOENT)
		fprintf(stderr, "gpurec %s: %s: %s (record one with: sudo gpurec record -- CMD)\n",
			cmd, GR_TEXT(path), gr_strerror(err));
	else if (diag->reason[0])
		fprintf(stderr, "gpurec %s: %s: %s (offset %" PRIu64 ")\n", cmd, GR_TEXT(path),
			GR_TEXT(diag->reason), diag->offset);
	else
		fprintf(stderr, "gpurec %s: %s: %s\n", cmd, GR_TEXT(path), gr_strerror(err));
}

int gr_load_trace(const char *cmd, const char *path, const struct gr_model_load_opts *o,
		  struct gr_model **out)
{
	struct gr_diag diag = {0};
	struct gr_damage damage;
	int err = gr_model_load_opts(out, path, o, &diag);

	if (err) {
		say(cmd, path, err, &diag);
		return err;
	}
	gr_damage_of(*out, &damage);
	gr_damage_warn(stderr, cmd, path, &damage);
	return 0;
}

int gr_load_start(const char *cmd, const char *path, uint64_t *start)
{
	struct gr_diag diag = {0};
	struct gr_trace_reader *r = NULL;
	struct gr_chunk_info ci;
	uint64_t first = UINT64_MAX;
	int err = gr_trace_reader_open(&r, path, &diag);

	if (err) {
		say(cmd, path, err, &diag);
		return err;
	}
	*start = gr_trace_reader_header(r)->clock_monotonic_ns;
	if (!*start) {
		/* the chunks a load reads: the good ones (an empty trace starts at 0) */
		for (uint64_t i = 0; i < gr_trace_reader_index_len(r); i++)
			if (!gr_trace_reader_chunk_info(r, i, &ci) && !ci.bad &&
			    ci.first_ts < first)
				first = ci.first_ts;
		*start = first == UINT64_MAX ? 0 : first;
	}
	gr_trace_reader_close(r);
	return 0;
}

int gr_load_set(const char *cmd, const char *const *paths, size_t n,
		const struct gr_model_load_opts *o, struct gr_model **out)
{
	struct gr_diag diag = {0};
	struct gr_damage damage;
	const struct gr_model_trace *t;
	size_t failed = 0, nt;
	int err;

	if (n == 1)
		return gr_load_trace(cmd, paths[0], o, out);
	err = gr_model_load_set(out, paths, n, o, &diag, &failed);
	if (err) {
		say(cmd, failed < n ? paths[failed] : paths[0], err, &diag);
		return err;
	}
	t = gr_model_traces(*out, &nt);
	for (size_t i = 1; i < nt; i++)
		if (!t[i].anchored)
			fprintf(
			    stderr,
			    "gpurec %s: %s: its header or the first trace's has no clock anchor: "
			    "its times are its own, not aligned with %s\n",
			    cmd, GR_TEXT(t[i].path), GR_TEXT(t[0].path));
	gr_damage_of(*out, &damage);
	gr_damage_warn(stderr, cmd, paths[0], &damage);
	return 0;
}
