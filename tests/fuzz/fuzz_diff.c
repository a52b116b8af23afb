/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: two damaged traces through gr_diff_compute() and both renderers of `gpurec diff`.
 * The input is BASE, the separator below, then NEW; without the separator it is compared with
 * itself. The input's length picks the options (key bits, tolerance 0 or 25%).
 *
 * Kernel rows must account for every launch of each model, each key once, with counts equal to a
 * recount from the model; the status, delta and ratio follow from the counts; rows come common,
 * added, removed; fusion rows add up to each report's candidates. A trace compared with itself
 * has nothing added, removed or changed. The text renderer succeeds and the JSON one writes one
 * valid document with a row per visible kernel.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/diff/diff.h"
#include "analyze/model/model.h"
#include "cmd.h"
#include "json_check.h"
#include "tests/fuzz/fuzz.h"

#define SEPARATOR     "#gpurec-diff-new#"
#define MAX_RECORDS   (1u << 20)
#define RECOUNT_LIMIT 2000000 /* launches x rows recounted from the model at most */

static int in_fd[2] = {-1, -1}, out_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	in_fd[0] = memfd_create("fuzz-diff-base", MFD_CLOEXEC);
	in_fd[1] = memfd_create("fuzz-diff-new", MFD_CLOEXEC);
	out_fd = memfd_create("fuzz-diff-out", MFD_CLOEXEC);
	FUZZ_ASSERT(in_fd[0] >= 0 && in_fd[1] >= 0 && out_fd >= 0);
	return 0;
}

static void put(int fd, const void *p, size_t len)
{
	FUZZ_ASSERT(ftruncate(fd, 0) == 0);
	FUZZ_ASSERT(pwrite(fd, p, len, 0) == (ssize_t)len);
}

/* Launches of @m under the key of row @k. */
static uint64_t recount(const struct gr_model *m, const struct gr_diff_kernel *k, unsigned key)
{
	size_t nl;
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const struct gr_launch_key *lk = gr_model_launch_keys(m, NULL);
	const struct gr_kernel *kern = gr_model_kernels(m, NULL);
	const struct gr_config *cfg = gr_model_configs(m, NULL);
	uint64_t n = 0;

	for (size_t i = 0; i < nl; i++) {
		const struct gr_config *c = &cfg[lk[l[i].key].config];

		if (strcmp(kern[lk[l[i].key].kernel].name, k->name))
			continue;
		if ((key & GR_DIFF_KEY_GRID) && memcmp(c->grid, k->grid, sizeof(k->grid)))
			continue;
		if ((key & GR_DIFF_KEY_BLOCK) && memcmp(c->block, k->block, sizeof(k->block)))
			continue;
		n++;
	}
	return n;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct gr_diff_kernel *x = *(const struct gr_diff_kernel *const *)pa;
	const struct gr_diff_kernel *y = *(const struct gr_diff_kernel *const *)pb;
	int c = strcmp(x->name, y->name);

	if (!c)
		c = memcmp(x->grid, y->grid, sizeof(x->grid));
	return c ? c : memcmp(x->block, y->block, sizeof(x->block));
}

static void check_kernels(const struct gr_diff *d, const struct gr_model *m[2], unsigned key)
{
	size_t nl[2];
	uint64_t sum[2] = {0, 0};
	const struct gr_diff_kernel **by_key;
	static const uint32_t zero[3];

	gr_model_launches(m[0], &nl[0]);
	gr_model_launches(m[1], &nl[1]);
	FUZZ_ASSERT(d->ncommon + d->nadded + d->nremoved == d->nkernels);
	FUZZ_ASSERT(d->comparable == (d->ncommon > 0 || d->nkernels == 0));
	for (size_t i = 0; i < d->nkernels; i++) {
		const struct gr_diff_kernel *k = &d->kernels[i];

		FUZZ_ASSERT(k->name);
		FUZZ_ASSERT(i == 0 || d->kernels[i - 1].status <= k->status);
		switch (k->status) {
		case GR_DIFF_COMMON:
			FUZZ_ASSERT(k->count[0] && k->count[1]);
			break;
		case GR_DIFF_ADDED:
			FUZZ_ASSERT(!k->count[0] && k->count[1]);
			break;
		case GR_DIFF_REMOVED:
			FUZZ_ASSERT(k->count[0] && !k->count[1]);
			break;
		default:
			FUZZ_ASSERT(!"unknown status");
		}
		FUZZ_ASSERT(k->delta == (int64_t)k->count[1] - (int64_t)k->count[0]);
		FUZZ_ASSERT(k->count[0] ? k->ratio == (double)k->count[1] / (double)k->count[0]
					: isnan(k->ratio));
		FUZZ_ASSERT(!k->hidden || (k->status == GR_DIFF_COMMON && d->tolerance > 0));
		if (!(key & GR_DIFF_KEY_GRID))
			FUZZ_ASSERT(!memcmp(k->grid, zero, sizeof(zero)));
		if (!(key & GR_DIFF_KEY_BLOCK))
			FUZZ_ASSERT(!memcmp(k->block, zero, sizeof(zero)));
		for (int s = 0; s < 2; s++) {
			sum[s] += k->count[s];
			FUZZ_ASSERT(d->iter_found[s] || isnan(k->per_iter[s]));
			if (nl[s] * d->nkernels <= RECOUNT_LIMIT)
				FUZZ_ASSERT(recount(m[s], k, key) == k->count[s]);
		}
	}
	/* every launch in exactly one row */
	FUZZ_ASSERT(sum[0] == nl[0] && sum[1] == nl[1]);
	/* no key twice */
	by_key = malloc((d->nkernels + 1) * sizeof(*by_key));
	FUZZ_ASSERT(by_key);
	for (size_t i = 0; i < d->nkernels; i++)
		by_key[i] = &d->kernels[i];
	qsort(by_key, d->nkernels, sizeof(*by_key), cmp_key);
	for (size_t i = 1; i < d->nkernels; i++)
		FUZZ_ASSERT(cmp_key(&by_key[i - 1], &by_key[i]) < 0);
	free(by_key);
}

static void check_rest(const struct gr_diff *d)
{
	uint64_t occ[2] = {0, 0};

	for (int s = 0; s < 2; s++) {
		FUZZ_ASSERT(d->rep[s]);
		FUZZ_ASSERT(d->iter_found[s] == d->rep[s]->launches.iter.found);
		for (size_t i = 0; i < d->rep[s]->fusion.ncandidates; i++)
			occ[s] += d->rep[s]->fusion.candidates[i].occurrences;
	}
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct gr_diff_metric *mt = &d->metrics[i];

		FUZZ_ASSERT(mt->group && mt->name && mt->unit);
		/* ids are unique, start with the group, and find their figure */
		FUZZ_ASSERT(!strncmp(mt->id, mt->group, strlen(mt->group)) &&
			    mt->id[strlen(mt->group)] == '.');
		FUZZ_ASSERT(gr_diff_metric(d, mt->id) == mt);
		if (isnan(mt->v[0]) || isnan(mt->v[1]))
			FUZZ_ASSERT(isnan(mt->delta));
		else
			FUZZ_ASSERT(mt->delta == mt->v[1] - mt->v[0]);
		FUZZ_ASSERT(!mt->hidden || d->tolerance > 0);
	}
	for (size_t i = 0; i < d->nfusion; i++) {
		const struct gr_diff_fusion *f = &d->fusion[i];
		enum gr_diff_status want = !f->occurrences[1]	? GR_DIFF_REMOVED
					   : !f->occurrences[0] ? GR_DIFF_ADDED
								: GR_DIFF_COMMON;

		FUZZ_ASSERT(f->label && f->sequence && f->status == want);
		FUZZ_ASSERT(f->occurrences[0] || f->occurrences[1]);
		occ[0] -= f->occurrences[0];
		occ[1] -= f->occurrences[1];
	}
	FUZZ_ASSERT(occ[0] == 0 && occ[1] == 0);
	FUZZ_ASSERT(d->nsummary <= GR_DIFF_SUMMARY_MAX);
	for (size_t i = 0; i < d->nsummary; i++)
		FUZZ_ASSERT(d->summary[i] && d->summary[i][0]);
}

/* A trace against itself: nothing added, removed or changed. */
static void check_self(const struct gr_diff *d)
{
	FUZZ_ASSERT(d->nadded == 0 && d->nremoved == 0 && d->comparable && d->same_host);
	for (size_t i = 0; i < d->nkernels; i++)
		FUZZ_ASSERT(d->kernels[i].delta == 0 &&
			    d->kernels[i].api_ns[0] == d->kernels[i].api_ns[1]);
	for (size_t i = 0; i < d->nmetrics; i++)
		FUZZ_ASSERT(isnan(d->metrics[i].delta) || d->metrics[i].delta == 0);
	for (size_t i = 0; i < d->nfusion; i++)
		FUZZ_ASSERT(d->fusion[i].status == GR_DIFF_COMMON);
}

/* `gpurec diff` on the two inputs, its stdout captured; returns what it wrote (malloc'd). */
static char *run_cmd(int json, unsigned key, double tolerance, size_t *len)
{
	static const char *const keys[4] = {"name", "name,grid", "name,block", "name,grid,block"};
	char p0[64], p1[64], tol[32], *argv[10], *out;
	int argc = 0, saved, rc;
	off_t size;

	argv[argc++] = "diff";
	if (json)
		argv[argc++] = "--json";
	argv[argc++] = "--key";
	argv[argc++] = (char *)keys[key];
	argv[argc++] = "--tolerance";
	argv[argc++] = tol;
	argv[argc++] = p0;
	argv[argc++] = p1;
	argv[argc] = NULL;
	snprintf(p0, sizeof(p0), "/proc/self/fd/%d", in_fd[0]);
	snprintf(p1, sizeof(p1), "/proc/self/fd/%d", in_fd[1]);
	snprintf(tol, sizeof(tol), "%g", tolerance);
	FUZZ_ASSERT(ftruncate(out_fd, 0) == 0 && lseek(out_fd, 0, SEEK_SET) == 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	FUZZ_ASSERT(saved >= 0 && dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO);
	rc = cmd_diff(argc, argv);
	fflush(stdout);
	FUZZ_ASSERT(dup2(saved, STDOUT_FILENO) == STDOUT_FILENO);
	close(saved);
	FUZZ_ASSERT(rc == 0);
	size = lseek(out_fd, 0, SEEK_END);
	FUZZ_ASSERT(size > 0);
	out = malloc((size_t)size + 1);
	FUZZ_ASSERT(out && pread(out_fd, out, (size_t)size, 0) == size);
	out[size] = 0;
	*len = (size_t)size;
	return out;
}

static void check_renderers(const struct gr_diff *d, unsigned key, double tolerance)
{
	size_t len, visible = 0;
	long nrows;
	char *out;

	out = run_cmd(0, key, tolerance, &len);
	FUZZ_ASSERT(strstr(out, "\nsummary\n"));
	free(out);

	out = run_cmd(1, key, tolerance, &len);
	FUZZ_ASSERT(json_check(out, len, "kernels", &nrows) == 0);
	for (size_t i = 0; i < d->nkernels; i++)
		visible += !d->kernels[i].hidden;
	FUZZ_ASSERT(nrows >= 0 && (size_t)nrows == visible);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
	const uint8_t *buf[2] = {data, sep ? sep + strlen(SEPARATOR) : data};
	size_t len[2] = {sep ? (size_t)(sep - data) : size,
			 sep ? size - (size_t)(buf[1] - data) : size};
	struct gr_model *m[2] = {NULL, NULL};
	struct gr_diag diag = {0};
	struct gr_diff_opts o = {.key = size & 3, .tolerance = (size & 4) ? 25 : 0};
	struct gr_diff *d = NULL;

	for (int s = 0; s < 2; s++)
		if (gr_model_load_mem(&m[s], buf[s], len[s], MAX_RECORDS, &diag))
			goto out;
	FUZZ_ASSERT(gr_diff_compute(m[0], m[1], &o, &d) == 0);
	check_kernels(d, (const struct gr_model **)m, o.key);
	check_rest(d);
	if (!sep)
		check_self(d);
	/* the command loads the same bytes from files: both loads above bound its memory */
	put(in_fd[0], buf[0], len[0]);
	put(in_fd[1], buf[1], len[1]);
	check_renderers(d, o.key, o.tolerance);
out:
	gr_diff_free(d);
	gr_model_free(m[0]);
	gr_model_free(m[1]);
	return 0;
}
