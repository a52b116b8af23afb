/* SPDX-License-Identifier: MIT */
/* Worker threads with a FIFO of intrusive jobs (see pool.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>

#include "pool.h"

struct gr_pool {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a job was queued, or stop */
	pthread_cond_t done; /* a job finished */
	struct gr_pool_job *head, *tail;
	int stop;
	unsigned nthreads, size;
	pthread_t threads[];
};

unsigned gr_pool_cpus(void)
{
	for (int ncpu = 1024; ncpu <= (1 << 16); ncpu *= 2) {
		size_t size = CPU_ALLOC_SIZE(ncpu);
		cpu_set_t *set = CPU_ALLOC(ncpu);
		int n;

		if (!set)
			return 1;
		if (sched_getaffinity(0, size, set)) {
			CPU_FREE(set);
			if (errno == EINVAL)
				continue; /* more CPUs than the mask holds */
			return 1;
		}
		n = CPU_COUNT_S(size, set);
		CPU_FREE(set);
		return n > 0 ? (unsigned)n : 1;
	}
	return 1;
}

static void *worker(void *arg)
{
	struct gr_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct gr_pool_job *job = p->head;

		if (!job) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->work, &p->lock);
			continue;
		}
		p->head = job->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->lock);
		job->fn(job);
		pthread_mutex_lock(&p->lock);
		job->done = 1;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int gr_pool_new(struct gr_pool **out, unsigned jobs)
{
	struct gr_pool *p;
	sigset_t all, old;
	int err = 0;

	*out = NULL;
	if (!jobs)
		jobs = gr_pool_cpus();
	if (jobs > 1024)
		jobs = 1024;
	p = calloc(1, sizeof(*p) + (jobs > 1 ? jobs : 0) * sizeof(pthread_t));
	if (!p)
		return -ENOMEM;
	p->size = jobs;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (jobs > 1) {
		/* signals go to the caller's thread, never to a worker */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (; p->nthreads < jobs; p->nthreads++) {
			err = -pthread_create(&p->threads[p->nthreads], NULL, worker, p);
			if (err)
				break;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (err) {
		gr_pool_free(p);
		return err;
	}
	*out = p;
	return 0;
}

unsigned gr_pool_size(const struct gr_pool *p)
{
	return p->size;
}

static void submit(struct gr_pool *p, struct gr_pool_job *job, int first)
{
	job->next = NULL;
	job->done = 0;
	if (!p->nthreads) {
		job->fn(job);
		job->done = 1;
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (first) {
		job->next = p->head;
		p->head = job;
		if (!p->tail)
			p->tail = job;
	} else {
		if (p->tail)
			p->tail->next = job;
		else
			p->head = job;
		p->tail = job;
	}
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
}

void gr_pool_submit(struct gr_pool *p, struct gr_pool_job *job)
{
	submit(p, job, 0);
}

void gr_pool_submit_first(struct gr_pool *p, struct gr_pool_job *job)
{
	submit(p, job, 1);
}

void gr_pool_wait(struct gr_pool *p, struct gr_pool_job *job)
{
	if (!p->nthreads)
		return;
	pthread_mutex_lock(&p->lock);
	while (!job->done)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void gr_pool_free(struct gr_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
