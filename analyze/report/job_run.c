/* SPDX-License-Identifier: MIT */
/*
 * The per-trace route of a job (job.h): every trace loaded and reported on its own, a worker
 * per CPU (-j), each model freed once its summary is written, so that memory holds the few
 * traces being worked on; a summary file given instead of a trace is read as it is.
 */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/model/load.h"
#include "analyze/util/pool.h"
#include "analyze/util/progress.h"
#include "analyze/util/text.h"
#include "job.h"
#include "job_run.h"
#include "report.h"

struct trace_job {
	struct gr_pool_job job; /* first: the pool hands this back */
	const char *cmd, *path;
	const struct gr_model_load_opts *lopts;
	const struct gr_report_opts *ropts;
	atomic_int *failed; /* set by the first job that fails: the rest are skipped */
	char *text;	    /* the summary */
	size_t len;
	int err;
};

/* The whole file at @path into *@text. */
static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, n;
	char *buf = NULL, *nb;

	if (!f)
		return -errno;
	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*text = buf;
	return 0;
}

static void run_one(struct gr_pool_job *pj)
{
	struct trace_job *t = (struct trace_job *)pj;
	struct gr_model *m = NULL;
	struct gr_report *r = NULL;
	int err;

	if (atomic_load(t->failed))
		return;
	/* a pool of one runs this on the command's own thread: quiet for this trace only */
	gr_progress_quiet_thread(1);
	if (gr_job_is_summary(t->path)) {
		err = read_file(t->path, &t->text, &t->len);
		if (err)
			fprintf(stderr, "gpurec %s: %s: %s\n", t->cmd, GR_TEXT(t->path),
				gr_strerror(err));
		goto out;
	}
	err = gr_load_trace(t->cmd, t->path, t->lopts, &m);
	if (err)
		goto out;
	err = gr_report_compute(m, t->ropts, &r);
	if (err && t->ropts->step && gr_report_step_error(err))
		fprintf(stderr, "gpurec %s: %s: --step '%s': %s\n", t->cmd, GR_TEXT(t->path),
			GR_TEXT(t->ropts->step), gr_report_step_error(err));
	else if (err)
		fprintf(stderr, "gpurec %s: %s: %s\n", t->cmd, GR_TEXT(t->path), gr_strerror(err));
	if (!err) {
		err = gr_job_summarise(t->path, m, r, &t->text);
		if (!err)
			t->len = strlen(t->text);
		else
			fprintf(stderr, "gpurec %s: %s: %s\n", t->cmd, GR_TEXT(t->path),
				gr_strerror(err));
	}
out:
	gr_report_free(r);
	gr_model_free(m);
	t->err = err;
	if (err)
		atomic_store(t->failed, 1);
	gr_progress_quiet_thread(0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether @path is a directory. */
static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int gr_job_takes(const char *path)
{
	return is_dir(path) || gr_job_is_summary(path);
}

int gr_job_paths(const char *cmd, const char *const *args, size_t nargs, char ***out, size_t *n)
{
	char **v = NULL, **nv;
	size_t cap = 0;

	*n = 0;
	for (size_t a = 0; a < nargs; a++) {
		DIR *d;
		struct dirent *e;
		size_t first = *n;

		if (!is_dir(args[a])) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto nomem;
				v = nv;
			}
			if (!(v[(*n)++] = strdup(args[a])))
				goto nomem;
			continue;
		}
		d = opendir(args[a]);
		if (!d) {
			fprintf(stderr, "gpurec %s: %s: %s\n", cmd, GR_TEXT(args[a]),
				strerror(errno));
			goto fail;
		}
		while ((e = readdir(d))) {
			size_t len = strlen(e->d_name);

			if (len < 5 || strcmp(e->d_name + len - 4, ".trc"))
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					closedir(d);
					goto nomem;
				}
				v = nv;
			}
			/* DIR/NAME, as ls would name it: a trailing slash kept single */
			if (asprintf(&v[*n], "%s%s%s", args[a],
				     args[a][strlen(args[a]) - 1] == '/' ? "" : "/",
				     e->d_name) < 0) {
				closedir(d);
				goto nomem;
			}
			(*n)++;
		}
		closedir(d);
		if (*n == first) {
			fprintf(stderr, "gpurec %s: %s: no *.trc file in this directory\n", cmd,
				GR_TEXT(args[a]));
			goto fail;
		}
		qsort(v + first, *n - first, sizeof(*v), cmp_str);
	}
	*out = v;
	return 0;
nomem:
	fprintf(stderr, "gpurec %s: out of memory\n", cmd);
fail:
	for (size_t i = 0; i < *n; i++)
		free(v[i]);
	free(v);
	*n = 0;
	return -1;
}

int gr_job_summaries(const char *cmd, char *const *paths, size_t n,
		     const struct gr_model_load_opts *lopts, const struct gr_report_opts *ropts,
		     unsigned jobs,
		     int (*take)(void *ctx, const char *path, char *text, size_t len), void *ctx)
{
	struct gr_model_load_opts lo = *lopts;
	struct gr_report_opts ro = *ropts;
	struct trace_job *t = calloc(n + 1, sizeof(*t));
	struct gr_pool *pool = NULL;
	atomic_int failed = 0;
	int err;

	if (!t) {
		fprintf(stderr, "gpurec %s: out of memory\n", cmd);
		err = -ENOMEM;
		goto out;
	}
	/* a trace per worker, each loading on its own thread: the workers are the parallelism */
	lo.jobs = 1;
	ro.all_ranks = 1;
	err = gr_pool_new(&pool, jobs);
	if (err) {
		fprintf(stderr, "gpurec %s: cannot start threads: %s\n", cmd, gr_strerror(err));
		goto out;
	}
	gr_progress_begin("analysing traces", n, "traces");
	for (size_t i = 0; i < n; i++) {
		t[i] = (struct trace_job){
		    .cmd = cmd, .path = paths[i], .lopts = &lo, .ropts = &ro, .failed = &failed};
		t[i].job.fn = run_one;
		gr_pool_submit(pool, &t[i].job);
	}
	/* in order, each summary taken (and freed) once its trace is done */
	for (size_t i = 0; i < n; i++) {
		gr_pool_wait(pool, &t[i].job);
		gr_progress_add(1);
		if (!err)
			err = t[i].err;
		if (!err && t[i].text) {
			err = take(ctx, paths[i], t[i].text, t[i].len);
			if (err)
				atomic_store(&failed, 1);
		} else {
			free(t[i].text);
		}
		t[i].text = NULL;
	}
	gr_progress_end();
out:
	gr_pool_free(pool);
	free(t);
	return err;
}

int gr_job_take(void *ctx, const char *path, char *text, size_t len)
{
	char why[256];
	int err = gr_job_parse(ctx, path, text, len, why);

	free(text);
	if (err == -EINVAL)
		fprintf(stderr, "gpurec report: %s\n", GR_TEXT(why));
	else if (err)
		fprintf(stderr, "gpurec report: %s\n", gr_strerror(err));
	return err;
}
