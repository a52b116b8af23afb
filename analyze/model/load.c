/* SPDX-License-Identifier: MIT */
/* Load a trace or say why not (load.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "damage.h"
#include "load.h"

/* Says why @path could not be read, in one line; @o the options of the load that failed. */
static void say(const char *cmd, const char *path, int err, const struct gr_diag *diag,
		const struct gr_model_load_opts *o)
{
	gr_progress_end();
	if (err == GR_ERR_LIMIT && o->max_records && *o->over_records)
		fprintf(
		    stderr,
		    "gpurec %s: %s: holds %" PRIu64 " events, more than --max-events %" PRIu64
		    " (about %.1f GiB to load); raise --max-events or use export --from/--to for "
		    "a window\n",
		    cmd, GR_TEXT(path), *o->over_records, o->max_records,
		    (double)*o->over_records * GR_MODEL_RECORD_BYTES / (1024.0 * 1024 * 1024));
	else if (err == -ENOENT)
		fprintf(stderr, "gpurec %s: %s: %s (record one with: sudo gpurec record -- CMD)\n",
			cmd, GR_TEXT(path), gr_strerror(err));
	else if (diag->reason[0])
		fprintf(stderr, "gpurec %s: %s: %s (offset %" PRIu64 ")\n", cmd, GR_TEXT(path),
			GR_TEXT(diag->reason), diag->offset);
	else
		fprintf(stderr, "gpurec %s: %s: %s\n", cmd, GR_TEXT(path), gr_strerror(err));
}

/* @o (or the defaults), with its out-pointer on *@over: the count a failed limit says. */
static struct gr_model_load_opts with_over(const struct gr_model_load_opts *o, uint64_t *over)
{
	struct gr_model_load_opts c = {0};

	if (o)
		c = *o;
	*over = 0;
	c.over_records = over;
	return c;
}

int gr_load_trace(const char *cmd, const char *path, const struct gr_model_load_opts *o,
		  struct gr_model **out)
{
	struct gr_diag diag = {0};
	struct gr_damage damage;
	uint64_t over;
	struct gr_model_load_opts lo = with_over(o, &over);
	int err = gr_model_load_opts(out, path, &lo, &diag);

	if (err) {
		say(cmd, path, err, &diag, &lo);
		return err;
	}
	gr_damage_of(*out, &damage);
	gr_progress_end(); /* before a warning: it would overwrite the line midway */
	gr_damage_warn(stderr, cmd, path, &damage);
	return 0;
}

int gr_load_start(const char *cmd, const char *path, uint64_t *start)
{
	struct gr_diag diag = {0};
	struct gr_trace_reader *r = NULL;
	struct gr_chunk_info ci;
	uint64_t first = UINT64_MAX, over;
	struct gr_model_load_opts none = with_over(NULL, &over);
	int err = gr_trace_reader_open(&r, path, &diag);

	if (err) {
		say(cmd, path, err, &diag, &none);
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
	uint64_t over;
	struct gr_model_load_opts lo = with_over(o, &over);
	int err;

	if (n == 1)
		return gr_load_trace(cmd, paths[0], o, out);
	err = gr_model_load_set(out, paths, n, &lo, &diag, &failed);
	if (err) {
		say(cmd, failed < n ? paths[failed] : paths[0], err, &diag, &lo);
		return err;
	}
	t = gr_model_traces(*out, &nt);
	gr_progress_end();
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

/* A number read from @path, or 0 when it cannot be read or is not one ("max"). */
static uint64_t read_u64(const char *path)
{
	uint64_t v = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	if (fscanf(f, "%" SCNu64, &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/*
 * The memory cap of this process's cgroup, or 0 when none can be read: cgroup v2's memory.max
 * (a "0::PATH" line in /proc/self/cgroup) or v1's memory.limit_in_bytes (a "N:memory:PATH"
 * line), the smaller when both are there. An unlimited v1 cap reads as about 2^63: no cap.
 */
static uint64_t cgroup_memory_max(void)
{
	char line[512], path[700];
	uint64_t cap = 0, v;
	FILE *f = fopen("/proc/self/cgroup", "re");
	const char *p;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0::", 3)) {
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", line + 3);
		} else if ((p = strstr(line, ":memory:"))) {
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", p + 8);
		} else {
			continue;
		}
		v = read_u64(path);
		if (v && (!cap || v < cap))
			cap = v;
	}
	if (f)
		fclose(f);
	return cap;
}

/* The memory this process may use: the machine's, or less where its cgroup caps it. */
static uint64_t usable_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	uint64_t cap = cgroup_memory_max();

	return cap && (!mem || cap < mem) ? cap : mem;
}

uint64_t gr_load_max_events(void)
{
	uint64_t n = usable_memory() / 2 / GR_MODEL_RECORD_BYTES;

	return n < GR_LOAD_MIN_EVENTS ? GR_LOAD_MIN_EVENTS : n;
}
