/* SPDX-License-Identifier: MIT */
/*
 * Test helper: every allocation, free and memory query a trace holds, done or set aside (failed,
 * nested, in flight), one line each in time order, so that a test compares them with what its
 * program did:
 *
 *   alloc API KIND BYTES STATUS ADDR HANDLE SITE
 *   free API KIND STATUS ADDR
 *   meminfo API FREE TOTAL STATUS SITE
 *
 * With --dur, each line ends with the call's duration in ns.
 *
 * KIND the gr_alloc_kind name; STATUS the call's return value, "-" when it did not return; ADDR
 * and HANDLE labels (a1, a2, ... by first appearance, one namespace, so a free, a reuse or a
 * mapping's physical handle names the allocation it concerns), "-" for 0; SITE the innermost
 * frame of the call's stack that has a source line, as "file:line" (the file's last component),
 * "nostack" without a stack, "-" when no frame has a line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/frames.h"
#include "analyze/model/model.h"
#include "format/events.h"

static int with_dur;

struct row {
	uint64_t ts;
	char text[512];
};

static uint64_t labels[4096];
static size_t nlabels;

static const char *label(uint64_t v, char *buf, size_t len)
{
	size_t i;

	if (!v)
		return "-";
	for (i = 0; i < nlabels && labels[i] != v; i++)
		;
	if (i == nlabels && nlabels < sizeof(labels) / sizeof(labels[0]))
		labels[nlabels++] = v;
	snprintf(buf, len, "a%zu", i + 1);
	return buf;
}

static const char *site(const struct gr_model *m, uint32_t thread, uint32_t stack, char *buf,
			size_t len)
{
	const struct gr_thread *th = gr_model_threads(m, NULL);
	const struct gr_stack *st = gr_model_stacks(m, NULL);

	if (!stack)
		return "nostack";
	for (uint32_t i = 0; i < st[stack].nframes; i++) {
		struct gr_frame f;
		const char *base;

		gr_frame_describe(m, th[thread].pid, st[stack].frames[i], &f);
		if (f.kind != GR_FRAME_KIND_NATIVE || !f.file || !f.line)
			continue;
		base = strrchr(f.file, '/');
		snprintf(buf, len, "%s:%u", base ? base + 1 : f.file, f.line);
		return buf;
	}
	return "-";
}

static void status_of(int returned, uint32_t status, char *buf, size_t len)
{
	if (returned)
		snprintf(buf, len, "%" PRIu32, status);
	else
		snprintf(buf, len, "-");
}

static void alloc_row(const struct gr_model *m, const struct gr_alloc *a, const char *status,
		      struct row *r)
{
	char s[256], l1[32], l2[32];

	r->ts = a->ts;
	snprintf(r->text, sizeof(r->text), "alloc %s %s %" PRIu64 " %s %s %s %s",
		 gr_api_name(a->api), gr_alloc_kind_name(a->kind), a->bytes, status,
		 label(a->addr, l1, sizeof(l1)), label(a->handle, l2, sizeof(l2)),
		 site(m, a->thread, a->stack, s, sizeof(s)));
}

static void free_row(const struct gr_free *f, const char *status, struct row *r)
{
	char l[32];

	r->ts = f->ts;
	snprintf(r->text, sizeof(r->text), "free %s %s %s %s", gr_api_name(f->api),
		 gr_alloc_kind_name(f->kind), status, label(f->addr, l, sizeof(l)));
}

/* " DUR" appended to @r's line under --dur. */
static void add_dur(struct row *r, uint64_t dur)
{
	size_t n = strlen(r->text);

	if (with_dur)
		snprintf(r->text + n, sizeof(r->text) - n, " %" PRIu64, dur);
}

int main(int argc, char **argv)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct row *rows;
	size_t na, nf, nm, nx, n = 0;
	char st[32], s[256];
	int err;

	with_dur = argc == 3 && !strcmp(argv[1], "--dur");
	if (argc != 2 + with_dur) {
		fprintf(stderr, "usage: trace_allocs [--dur] FILE\n");
		return 2;
	}
	err = gr_model_load(&m, argv[argc - 1], &diag);
	if (err) {
		fprintf(stderr, "trace_allocs: %s: %s\n", argv[argc - 1], gr_strerror(err));
		return 1;
	}
	const struct gr_alloc *a = gr_model_allocs(m, &na);
	const struct gr_free *f = gr_model_frees(m, &nf);
	const struct gr_meminfo *mi = gr_model_meminfos(m, &nm);
	const struct gr_aside *x = gr_model_asides(m, &nx);
	rows = calloc(na + nf + nm + nx + 1, sizeof(*rows));
	if (!rows)
		return 1;
	{
		/* one pass in time order over the four arrays: labels number by first use */
		size_t ia = 0, ifr = 0, im = 0, ix = 0;

		for (;;) {
			uint64_t best = UINT64_MAX;
			int which = -1;

			if (ia < na && a[ia].ts < best)
				best = a[ia].ts, which = 0;
			if (ifr < nf && f[ifr].ts < best)
				best = f[ifr].ts, which = 1;
			if (im < nm && mi[im].ts < best)
				best = mi[im].ts, which = 2;
			while (ix < nx && x[ix].kind != GR_K_ALLOC && x[ix].kind != GR_K_FREE)
				ix++;
			if (ix < nx && x[ix].ts < best)
				best = x[ix].ts, which = 3;
			if (which < 0)
				break;
			if (which == 0) {
				alloc_row(m, &a[ia], "0", &rows[n]);
				add_dur(&rows[n++], a[ia++].dur);
			} else if (which == 1) {
				free_row(&f[ifr], "0", &rows[n]);
				add_dur(&rows[n++], f[ifr++].dur);
			} else if (which == 2) {
				const struct gr_meminfo *q = &mi[im++];

				status_of(q->call & GR_CALL_RETURNED, q->status, st, sizeof(st));
				rows[n].ts = q->ts;
				snprintf(rows[n].text, sizeof(rows[n].text),
					 "meminfo %s %" PRIu64 " %" PRIu64 " %s %s",
					 gr_api_name(q->api), q->free, q->total, st,
					 site(m, q->thread, q->stack, s, sizeof(s)));
				add_dur(&rows[n++], q->dur);
			} else {
				const struct gr_aside *q = &x[ix++];

				status_of(q->call & GR_CALL_RETURNED, q->status, st, sizeof(st));
				if (q->kind == GR_K_ALLOC)
					alloc_row(m, &q->u.alloc, st, &rows[n]);
				else
					free_row(&q->u.free, st, &rows[n]);
				add_dur(&rows[n++], q->dur);
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		printf("%s\n", rows[i].text);
	free(rows);
	gr_model_free(m);
	return 0;
}
