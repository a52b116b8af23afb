/* SPDX-License-Identifier: MIT */
/*
 * A job of many traces reported per trace (docs/REPORTS.md, "One job, trace by trace"): each
 * trace is loaded and reported alone, and what the ranks section needs of it (per launching
 * process: its iteration, the iteration's parts, its NVTX ranges' medians; the trace's clock
 * anchor) is kept as a summary of a few lines, so memory holds a few traces at a time, not the
 * job. The summaries then merge into the job's ranks section: the straggler and the pace by
 * range. `report --summary` writes summaries to a file, so that each node of a cluster can
 * summarise its own traces (through srun, torchrun or mpirun) and one merge gives the job's
 * report; `report DIR/`, `--job` and sets of more than GR_JOB_DIRECT_MAX traces do the same in
 * memory. Both routes go through the same text, so their reports are the same byte for byte.
 *
 * The summary format (version 1) is text, a record per line, fields separated by tabs:
 * "gpurec-job-summary 1", then per trace a "trace" line (path, host, its clock anchor, its event
 * count), its launching processes' "process" lines (pid, rank, comm, the iteration and its rank
 * parts), each followed by its NVTX ranges' "range" lines (name, domain, median, count), and the
 * trace's "coll" lines (a done NCCL collective of a communicator of 2 or more ranks: id,
 * sequence, rank, ranks, pid, entry time). docs/REPORTS.md has the fields in order. Times are
 * the trace's own monotonic clock. Files may be concatenated (cat node*.sum).
 */
#ifndef GR_ANALYZE_JOB_H
#define GR_ANALYZE_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/model/model.h"
#include "report_types.h"

/* More traces than this in one `report` go per trace, not into one model. */
#define GR_JOB_DIRECT_MAX 8

/* The first line of a summary: what `report` recognises one by. */
#define GR_JOB_MAGIC "gpurec-job-summary\t1"

struct gr_job_range {
	char *name, *domain;
	uint64_t median_ns, count;
};

struct gr_job_process {
	struct gr_report_rank rank; /* comm and host owned here; iter's scalars only */
	struct gr_job_range *ranges;
	size_t nranges;
};

/* A rank that entered a communicator's collectives last (report_types.h gr_report_comm_rank) */
struct gr_job_last {
	uint64_t id;
	uint32_t nranks, rank;
	uint32_t trace, pid; /* the process that was this rank, in its trace */
	uint64_t last, wait_ns;
};

struct gr_job {
	struct gr_model_trace *traces;	/* path and host owned here */
	uint64_t *mono, *real, *events; /* per trace: its clock anchor and its event count */
	size_t ntraces;
	struct gr_job_process *procs;
	size_t nprocs;
	struct gr_comm_call *colls; /* ts, id, nranks, rank, seq; thread: its trace */
	uint32_t *coll_pid;
	size_t ncolls;
	/* gr_job_finish(): who entered each communicator's collectives last, by (id, rank) */
	struct gr_job_last *last;
	size_t nlast;
	uint64_t matched; /* collectives seen in every rank of their communicator */
	/* gr_job_finish(): the ranks section over every process */
	struct gr_report_ranks ranks;
	char verdict[1024];
};

/*
 * The summary of one trace, @path loaded as @m and reported as @r (with opts.all_ranks), as
 * text into *@text (malloc'd; its header line included). Returns 0 or -ENOMEM.
 */
int gr_job_summarise(const char *path, const struct gr_model *m, const struct gr_report *r,
		     char **text);

/*
 * Add the summary @text (@len bytes; one or more summaries concatenated) to @job; @name names it
 * in errors. Returns 0, or -EINVAL with "NAME: line N: reason" in @why (256 bytes), or -ENOMEM.
 */
int gr_job_parse(struct gr_job *job, const char *name, const char *text, size_t len, char *why);

/* Whether the file at @path starts as a summary does. */
int gr_job_is_summary(const char *path);

/* Align every trace on the first's clock and decide the ranks section. Returns 0 or -ENOMEM. */
int gr_job_finish(struct gr_job *job);

/* The job's report: text (at most @top rows per table, 0 = 20) or JSON. Returns 0 or -EIO. */
int gr_job_write_text(FILE *f, const struct gr_job *job, unsigned top);
int gr_job_write_json(FILE *f, const struct gr_job *job, unsigned top);

void gr_job_free(struct gr_job *job);

#endif
