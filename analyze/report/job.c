/* SPDX-License-Identifier: MIT */
/*
 * A job reported per trace (job.h): a trace's summary written as text, summaries read back and
 * merged into the ranks section. The in-memory route writes and reads the same text, so the two
 * routes cannot drift apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/json.h"
#include "analyze/util/text.h"
#include "analyze/util/units.h"
#include "job.h"
#include "report.h"

/* ---- writing ---- */

/* @s with tab, newline and backslash escaped, as one field */
static void put_str(FILE *f, const char *s)
{
	fputc('\t', f);
	for (; s && *s; s++) {
		if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else
			fputc(*s, f);
	}
}

/* The "range" lines of process @proc: per name and domain its closed ranges' lower median and
 * count, as the merged route's pace by range takes them (report_ranks.c). */
static int put_ranges(FILE *f, const struct gr_model *m, const struct gr_report *r, uint32_t proc)
{
	const struct gr_nvtx_set *s = &r->nvtx.set;
	size_t nth, n = 0;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	struct gr_rank_range *v = malloc((s->nranges + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nranges; i++) {
		const struct gr_nvtx_range *g = &s->ranges[i];

		if (!g->closed || g->thread >= nth || th[g->thread].process != proc)
			continue;
		v[n++] = (struct gr_rank_range){gr_nvtx_text(s, g->name),
						g->domain < s->ndomains ? s->domains[g->domain].name
									: "",
						0, g->end - g->start, 0};
	}
	n = gr_rank_range_medians(v, n);
	for (size_t i = 0; i < n; i++) {
		fputs("range", f);
		put_str(f, v[i].name);
		put_str(f, v[i].domain);
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\n", v[i].ns, v[i].count);
	}
	free(v);
	return 0;
}

/* The "coll" lines: the done collectives of communicators of 2 or more ranks, whose last rank to
 * enter only all the traces together can tell. */
static void put_collectives(FILE *f, const struct gr_model *m)
{
	size_t n, nth;
	const struct gr_comm_call *c = gr_model_comm_calls(m, &n);
	const struct gr_thread *th = gr_model_threads(m, &nth);

	for (size_t i = 0; i < n; i++)
		if (GR_COMM_IS_COLLECTIVE(c[i].kind) && c[i].id && c[i].nranks >= 2 &&
		    c[i].thread < nth)
			fprintf(f,
				"coll\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32
				"\t%" PRIu64 "\n",
				c[i].id, c[i].seq, c[i].rank, c[i].nranks, th[c[i].thread].pid,
				c[i].ts);
}

int gr_job_summarise(const char *path, const struct gr_model *m, const struct gr_report *r,
		     char **text)
{
	const struct gr_trace_header *h = gr_model_header(m);
	const struct gr_report_ranks *R = &r->ranks;
	uint64_t events = 0;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	int err = 0;

	if (!f)
		return -ENOMEM;
	for (unsigned k = 0; k < GR_K_COUNT; k++)
		events += gr_model_record_count(m, k);
	fprintf(f, "%s\ntrace", GR_JOB_MAGIC);
	put_str(f, path);
	put_str(f, h->host);
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", h->clock_monotonic_ns,
		h->clock_realtime_ns, events);
	for (size_t i = 0; i < R->n && !err; i++) {
		const struct gr_report_rank *k = &R->v[i];
		int found = k->iter.found && k->iter.count;

		fprintf(f, "process\t%" PRIu32 "\t%" PRId32, k->pid, k->rank);
		put_str(f, k->comm);
		fprintf(f,
			"\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64
			"\t%" PRIu64 "\t%d",
			found ? k->iter.count : 0, found ? k->iter.period_ns : 0, k->iter.calls,
			k->iter.launches, k->iter.start_ts, k->iter.end_ts, k->has_states);
		for (unsigned p = 0; p < GR_RANK_NPARTS; p++)
			fprintf(f, "\t%" PRIu64, k->part_ns[p]);
		/* exactly, so that the merge computes what the summary's writer would */
		fprintf(f, "\t%a\n", k->blocked_share);
		err = put_ranges(f, m, r, k->process);
	}
	put_collectives(f, m);
	if (fclose(f) || err) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* ---- reading ---- */

#define MAX_FIELDS 24

/* Split @line (NUL-ended, modified) at tabs, unescaping each field; returns the count, or -1
 * for a bad escape. */
static int split(char *line, char **field)
{
	int n = 0;
	char *w = line;

	field[n++] = w;
	for (char *p = line; *p; p++) {
		if (*p == '\t') {
			*w++ = 0;
			if (n == MAX_FIELDS)
				return -1;
			field[n++] = w;
		} else if (*p == '\\') {
			p++;
			if (*p == 't')
				*w++ = '\t';
			else if (*p == 'n')
				*w++ = '\n';
			else if (*p == '\\')
				*w++ = '\\';
			else
				return -1;
		} else {
			*w++ = *p;
		}
	}
	*w = 0;
	return n;
}

static int num(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int grow(void **p, size_t n, size_t size)
{
	void *q;

	/* 4 first, then double each time the count reaches a power of two */
	if (n && (n < 4 || (n & (n - 1))))
		return 0;
	n = n ? 2 * n : 4;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

/* A "trace" line's fields. */
static int add_trace(struct gr_job *j, char **fl, int nf, const char **bad)
{
	size_t n = j->ntraces;
	uint64_t mono, real, events;

	if (nf != 6 || num(fl[3], &mono) || num(fl[4], &real) || num(fl[5], &events)) {
		*bad = "a trace line has 6 fields: trace PATH HOST MONOTONIC REALTIME EVENTS";
		return -EINVAL;
	}
	if (grow((void **)&j->traces, n, sizeof(*j->traces)) ||
	    grow((void **)&j->mono, n, sizeof(*j->mono)) ||
	    grow((void **)&j->real, n, sizeof(*j->real)) ||
	    grow((void **)&j->events, n, sizeof(*j->events)))
		return -ENOMEM;
	j->traces[n] = (struct gr_model_trace){strdup(fl[1]), strdup(fl[2]), 0, 0};
	j->mono[n] = mono;
	j->real[n] = real;
	j->events[n] = events;
	j->ntraces++;
	return j->traces[n].path && j->traces[n].host ? 0 : -ENOMEM;
}

/* A "process" line's fields. */
static int add_process(struct gr_job *j, char **fl, int nf, const char **bad)
{
	struct gr_job_process *p;
	struct gr_report_rank *k;
	uint64_t v[19];
	char *end;
	long rank;

	*bad = "a process line has 20 fields: process PID RANK COMM ITERATIONS ITERATION_NS "
	       "CALLS LAUNCHES START END SCHEDULER, 8 parts, BLOCKED_SHARE";
	if (!j->ntraces) {
		*bad = "a process line before any trace line";
		return -EINVAL;
	}
	if (nf != 20)
		return -EINVAL;
	errno = 0;
	rank = strtol(fl[2], &end, 10);
	if (errno || *end || end == fl[2] || rank < -1 || rank > INT32_MAX || num(fl[1], &v[0]))
		return -EINVAL;
	for (int i = 4; i < 19; i++)
		if (num(fl[i], &v[i]))
			return -EINVAL;
	if (v[0] > UINT32_MAX || v[6] > UINT32_MAX || v[7] > UINT32_MAX || v[10] > 1)
		return -EINVAL;
	if (grow((void **)&j->procs, j->nprocs, sizeof(*j->procs)))
		return -ENOMEM;
	p = &j->procs[j->nprocs];
	memset(p, 0, sizeof(*p));
	k = &p->rank;
	k->pid = (uint32_t)v[0];
	k->rank = (int32_t)rank;
	k->trace = (uint32_t)(j->ntraces - 1);
	k->comm = strdup(fl[3]);
	if (!k->comm)
		return -ENOMEM;
	j->nprocs++;
	k->iter.found = v[4] > 0;
	k->iter.count = v[4];
	k->iter.period_ns = v[5];
	k->iter.calls = (uint32_t)v[6];
	k->iter.launches = (uint32_t)v[7];
	k->iter.start_ts = v[8];
	k->iter.end_ts = v[9];
	k->has_states = (int)v[10];
	for (unsigned i = 0; i < GR_RANK_NPARTS; i++)
		k->part_ns[i] = v[11 + i];
	k->blocked_share = strtod(fl[19], &end);
	if (*end || end == fl[19])
		return -EINVAL;
	return 0;
}

/* A "range" line's fields. */
static int add_range(struct gr_job *j, char **fl, int nf, const char **bad)
{
	struct gr_job_process *p;
	uint64_t med, count;

	*bad = "a range line has 5 fields: range NAME DOMAIN MEDIAN_NS COUNT, after a process line";
	if (nf != 5 || !j->nprocs || num(fl[3], &med) || num(fl[4], &count) || !count)
		return -EINVAL;
	p = &j->procs[j->nprocs - 1];
	if (p->rank.trace != j->ntraces - 1)
		return -EINVAL;
	if (grow((void **)&p->ranges, p->nranges, sizeof(*p->ranges)))
		return -ENOMEM;
	p->ranges[p->nranges] = (struct gr_job_range){strdup(fl[1]), strdup(fl[2]), med, count};
	p->nranges++;
	return p->ranges[p->nranges - 1].name && p->ranges[p->nranges - 1].domain ? 0 : -ENOMEM;
}

/* A "coll" line's fields. */
static int add_coll(struct gr_job *j, char **fl, int nf, const char **bad)
{
	uint64_t v[7];

	*bad = "a coll line has 7 fields: coll COMM_ID SEQ RANK NRANKS PID TS, after a trace line";
	if (nf != 7 || !j->ntraces)
		return -EINVAL;
	for (int i = 1; i < 7; i++)
		if (num(fl[i], &v[i]))
			return -EINVAL;
	if (v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[4] > UINT32_MAX || v[5] > UINT32_MAX ||
	    v[4] < 2 || v[3] >= v[4] || !v[1])
		return -EINVAL;
	if (grow((void **)&j->colls, j->ncolls, sizeof(*j->colls)) ||
	    grow((void **)&j->coll_pid, j->ncolls, sizeof(*j->coll_pid)))
		return -ENOMEM;
	j->colls[j->ncolls] = (struct gr_comm_call){.ts = v[6],
						    .id = v[1],
						    .seq = (uint32_t)v[2],
						    .rank = (uint32_t)v[3],
						    .nranks = (uint32_t)v[4],
						    .thread = (uint32_t)(j->ntraces - 1)};
	j->coll_pid[j->ncolls++] = (uint32_t)v[5];
	return 0;
}

int gr_job_parse(struct gr_job *job, const char *name, const char *text, size_t len, char *why)
{
	const char *bad = NULL;
	char *copy = malloc(len + 1), *line, *fl[MAX_FIELDS];
	size_t at = 0, lineno = 0;
	int err = 0, nf;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = 0;
	if (strlen(copy) != len) {
		snprintf(why, 256, "%s: holds a NUL byte: not a job summary", name);
		free(copy);
		return -EINVAL;
	}
	while (at < len && !err) {
		size_t n = strcspn(copy + at, "\n");

		line = copy + at;
		line[n] = 0;
		at += n + 1;
		lineno++;
		if (lineno == 1 && strcmp(line, GR_JOB_MAGIC)) {
			snprintf(why, 256,
				 "%s: not a gpurec job summary (its first line is not "
				 "'gpurec-job-summary<TAB>1')",
				 name);
			err = -EINVAL;
			break;
		}
		nf = split(line, fl);
		bad = "a bad escape (\\t, \\n and \\\\ are the escapes) or too many fields";
		if (nf < 0)
			err = -EINVAL;
		else if (!strcmp(fl[0], "gpurec-job-summary") && nf == 2 && !strcmp(fl[1], "1"))
			continue;
		else if (!strcmp(fl[0], "trace"))
			err = add_trace(job, fl, nf, &bad);
		else if (!strcmp(fl[0], "process"))
			err = add_process(job, fl, nf, &bad);
		else if (!strcmp(fl[0], "range"))
			err = add_range(job, fl, nf, &bad);
		else if (!strcmp(fl[0], "coll"))
			err = add_coll(job, fl, nf, &bad);
		else if (!(nf == 1 && !*fl[0]))
			err = -EINVAL,
			bad = "unknown record (trace, process, range and coll are known)";
		if (err == -EINVAL)
			snprintf(why, 256, "%s: line %zu: %s", name, lineno, bad);
	}
	if (!err && !lineno) {
		snprintf(why, 256, "%s: empty: not a job summary", name);
		err = -EINVAL;
	}
	free(copy);
	return err;
}

int gr_job_is_summary(const char *path)
{
	char head[sizeof(GR_JOB_MAGIC)] = "";
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = 0;
	return !strcmp(head, GR_JOB_MAGIC);
}

/* ---- merging ---- */

static void *zeroed(void *ctx, size_t count, size_t size)
{
	(void)ctx;
	return calloc(count + 1, size);
}

/* The pace by range from each process's medians: the same figures as one model's (a rank's
 * median is its own ranges'), through the same code (report_ranks.c). */
static int pace(struct gr_job *j)
{
	struct gr_report_ranks *R = &j->ranks;
	struct gr_rank_range *m;
	size_t n = 0;
	int err;

	for (size_t i = 0; i < R->n; i++)
		n += j->procs[R->v[i].process].nranges;
	m = malloc((n + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < R->n; i++) {
		const struct gr_job_process *jp = &j->procs[R->v[i].process];

		for (size_t g = 0; g < jp->nranges; g++)
			m[n++] =
			    (struct gr_rank_range){jp->ranges[g].name, jp->ranges[g].domain, i,
						   jp->ranges[g].median_ns, jp->ranges[g].count};
	}
	err = gr_report_ranks_pace(R, m, n, zeroed, NULL);
	free(m);
	return err;
}

/* Who entered each collective last, over every trace (report_comm.c's rule). */
static int last_to_enter(struct gr_job *j)
{
	const struct gr_comm_call **g = malloc((j->ncolls + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	j->last = calloc(j->ncolls + 1, sizeof(*j->last));
	if (!j->last) {
		free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < j->ncolls; i++) {
		struct gr_comm_call *c = &j->colls[i];

		c->ts += (uint64_t)j->traces[c->thread].shift_ns;
		g[i] = c;
	}
	gr_comm_sort_collectives(g, j->ncolls);
	for (size_t a = 0, b; a < j->ncolls; a = b) {
		const struct gr_comm_call *w;
		struct gr_job_last *l = NULL;
		uint64_t wait;
		long last;

		for (b = a + 1; b < j->ncolls && g[b]->id == g[a]->id && g[b]->seq == g[a]->seq;
		     b++)
			;
		last = gr_comm_last_to_enter(g + a, b - a, &wait);
		if (last < 0)
			continue;
		w = g[a + (size_t)last];
		for (size_t k = 0; k < j->nlast && !l; k++)
			if (j->last[k].id == w->id && j->last[k].rank == w->rank)
				l = &j->last[k];
		if (!l) {
			l = &j->last[j->nlast++];
			*l = (struct gr_job_last){
			    w->id, w->nranks, w->rank, w->thread, j->coll_pid[w - j->colls], 0, 0};
		}
		l->last++;
		l->wait_ns += wait;
		j->matched++;
	}
	free(g);
	return 0;
}

int gr_job_finish(struct gr_job *j)
{
	struct gr_report_ranks *R = &j->ranks;

	for (size_t t = 0; t < j->ntraces; t++) {
		int anchored = j->mono[0] && j->real[0] && j->mono[t] && j->real[t];

		/* as gr_model_clock_shift(): the difference of the two clocks' offsets, in
		 * arithmetic that wraps (a summary may hold any number) */
		j->traces[t].anchored = anchored;
		j->traces[t].shift_ns =
		    anchored ? (int64_t)((j->real[t] - j->mono[t]) - (j->real[0] - j->mono[0])) : 0;
	}
	R->v = calloc(j->nprocs + 1, sizeof(*R->v));
	if (!R->v)
		return -ENOMEM;
	R->n = j->nprocs;
	for (size_t i = 0; i < j->nprocs; i++) {
		struct gr_report_rank *k = &R->v[i];
		uint64_t shift = (uint64_t)j->traces[j->procs[i].rank.trace].shift_ns;

		*k = j->procs[i].rank;
		k->process = (uint32_t)i; /* into j->procs, for its ranges */
		k->host = j->traces[k->trace].host;
		k->iter.start_ts += shift;
		k->iter.end_ts += shift;
	}
	gr_report_ranks_mark_concurrent(R);
	gr_report_ranks_sort(R);
	gr_report_straggler_find(R->v, R->n, &R->straggler);
	if (pace(j) || last_to_enter(j))
		return -ENOMEM;
	R->verdict.level = gr_report_ranks_verdict(R, j->verdict, sizeof(j->verdict));
	R->verdict.text = j->verdict;
	return 0;
}

/* ---- the job's report ---- */

static uint64_t total_events(const struct gr_job *j)
{
	uint64_t n = 0;

	for (size_t t = 0; t < j->ntraces; t++)
		n += j->events[t];
	return n;
}

int gr_job_write_text(FILE *f, const struct gr_job *j, unsigned top)
{
	fprintf(f,
		"gpurec report: one job of %zu traces (%" PRIu64
		" events), reported trace by trace: %zu launching processes\n",
		j->ntraces, total_events(j), j->ranks.n);
	if (!j->ranks.n)
		fprintf(f, "  no process launched a kernel: no ranks to compare\n");
	else
		gr_report_ranks_text(f, &j->ranks, j->traces, j->ntraces, top);
	if (j->nlast) {
		gr_text_heading(f, "5. Communication (NCCL): who enters collectives last", 100);
		fprintf(f, "  last to enter, over %" PRIu64 " collectives seen in every rank:\n",
			j->matched);
		fprintf(f, "  %-18s %6s %12s %8s %14s\n", "communicator", "rank", "trace:pid",
			"last", "mean wait");
	}
	for (size_t i = 0; i < j->nlast; i++) {
		const struct gr_job_last *l = &j->last[i];
		char b[32], pid[32];

		snprintf(pid, sizeof(pid), "%" PRIu32 ":%" PRIu32, l->trace, l->pid);
		fprintf(f, "  %016" PRIx64 "   %6" PRIu32 " %12s %8" PRIu64 " %14s\n", l->id,
			l->rank, pid, l->last,
			gr_units_ns(b, sizeof(b), (double)(l->last ? l->wait_ns / l->last : 0)));
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

int gr_job_write_json(FILE *f, const struct gr_job *j, unsigned top)
{
	struct gr_json js;

	gr_json_begin(&js, f, 2);
	gr_json_object(&js);
	gr_json_kv_str(&js, "kind", "job");
	gr_json_kv_u64(&js, "events", total_events(j));
	gr_report_traces_json(&js, j->traces, j->ntraces);
	gr_report_ranks_json(&js, &j->ranks, top);
	/* as report's communication.last_to_enter, each rank's process as TRACE and PID */
	gr_json_key(&js, "communication");
	gr_json_object(&js);
	gr_json_kv_u64(&js, "matched", j->matched);
	gr_json_key(&js, "last_to_enter");
	gr_json_array(&js);
	for (size_t i = 0; i < j->nlast; i++) {
		const struct gr_job_last *l = &j->last[i];
		char id[24];

		snprintf(id, sizeof(id), "%016" PRIx64, l->id);
		gr_json_object_flat(&js);
		gr_json_kv_str(&js, "comm_id", id);
		gr_json_kv_u64(&js, "nranks", l->nranks);
		gr_json_kv_u64(&js, "rank", l->rank);
		gr_json_kv_u64(&js, "trace", l->trace);
		gr_json_kv_u64(&js, "pid", l->pid);
		gr_json_kv_u64(&js, "last", l->last);
		gr_json_kv_u64(&js, "mean_wait_ns", l->last ? l->wait_ns / l->last : 0);
		gr_json_object_end(&js);
	}
	gr_json_array_end(&js);
	gr_json_object_end(&js);
	gr_json_object_end(&js);
	return gr_json_end(&js);
}

void gr_job_free(struct gr_job *j)
{
	for (size_t t = 0; t < j->ntraces; t++) {
		free((char *)j->traces[t].path);
		free((char *)j->traces[t].host);
	}
	free(j->traces);
	free(j->mono);
	free(j->real);
	free(j->events);
	for (size_t i = 0; i < j->nprocs; i++) {
		free((char *)j->procs[i].rank.comm);
		for (size_t g = 0; g < j->procs[i].nranges; g++) {
			free(j->procs[i].ranges[g].name);
			free(j->procs[i].ranges[g].domain);
		}
		free(j->procs[i].ranges);
	}
	free(j->procs);
	for (size_t i = 0; i < j->ranks.nranges; i++) {
		free(j->ranks.ranges[i].median_ns);
		free(j->ranks.ranges[i].count);
	}
	free(j->ranks.ranges);
	free(j->ranks.v);
	free(j->colls);
	free(j->coll_pid);
	free(j->last);
	memset(j, 0, sizeof(*j));
}
