/* SPDX-License-Identifier: MIT */
/*
 * A small pool of worker threads for the replay side. Jobs are structs the caller embeds in its
 * own data (no allocation per job, so submitting cannot fail); a job runs once, on any worker,
 * and the submitter waits for the jobs whose results it needs, in the order it needs them.
 *
 * A pool of one job has no thread at all: gr_pool_submit() runs the job on the calling thread
 * before it returns, so a one-job run is the plain sequential program.
 */
#ifndef GR_ANALYZE_POOL_H
#define GR_ANALYZE_POOL_H

struct gr_pool;

struct gr_pool_job {
	void (*fn)(struct gr_pool_job *job); /* set by the caller before submitting */
	struct gr_pool_job *next;	     /* the pool's */
	int done;			     /* the pool's: read it through gr_pool_wait() */
};

/* CPUs this process may run on (its sched_getaffinity() mask), at least 1. */
unsigned gr_pool_cpus(void);

/*
 * A pool of @jobs workers (0: gr_pool_cpus()) in *@out. One worker means no thread: jobs run on
 * the caller. Returns 0, or -ENOMEM / -errno of pthread_create() with *@out NULL.
 */
int gr_pool_new(struct gr_pool **out, unsigned jobs);

/* Workers of the pool (1 for a threadless one). */
unsigned gr_pool_size(const struct gr_pool *p);

/* Run @job->fn(@job) on a worker, in submission order as workers free up. */
void gr_pool_submit(struct gr_pool *p, struct gr_pool_job *job);

/* Same, ahead of every job still waiting: for work that frees what others wait on. */
void gr_pool_submit_first(struct gr_pool *p, struct gr_pool_job *job);

/* Wait until @job (submitted to @p) has run. */
void gr_pool_wait(struct gr_pool *p, struct gr_pool_job *job);

/* Wait for every submitted job, stop the workers and free @p (NULL is accepted). */
void gr_pool_free(struct gr_pool *p);

#endif
