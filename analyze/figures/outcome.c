/* SPDX-License-Identifier: MIT */
/* gr_outcome_compute(): what became of the recorded calls (outcome.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/arrays.h"
#include "analyze/util/units.h"
#include "outcome.h"

static int cmp_error(const void *a, const void *b)
{
	const struct gr_outcome_error *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->api != y->api)
		return x->api < y->api ? -1 : 1;
	return x->status < y->status ? -1 : x->status > y->status;
}

static int cmp_inner(const void *a, const void *b)
{
	const struct gr_outcome_inner *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->api < y->api ? -1 : x->api > y->api;
}

/* Outermost calls in the figures: launches, copies, memsets, allocations, frees, syncs, graphs;
 * a graph-building call once, by its work row (gr_api_graph_node_work()). */
static uint64_t calls_in_figures(const struct gr_model *m)
{
	const struct gr_graph *g;
	size_t n, total = 0;

	gr_model_launches(m, &n);
	total += n;
	gr_model_copies(m, &n);
	total += n;
	gr_model_memsets(m, &n);
	total += n;
	gr_model_allocs(m, &n);
	total += n;
	gr_model_frees(m, &n);
	total += n;
	gr_model_syncs(m, &n);
	total += n;
	g = gr_model_graphs(m, &n);
	/* a node call's GRAPH row is the call its work row already counts */
	for (size_t i = 0; i < n; i++)
		total += !gr_api_graph_node_work(g[i].api);
	return total;
}

/* One more failure of (api, status) at @ts: found by a linear search, there are a handful. */
static int add_error(struct gr_outcome *o, size_t *cap, unsigned api, uint32_t status, uint64_t ts,
		     uint32_t stack)
{
	struct gr_outcome_error *e;

	for (size_t i = 0; i < o->nerrors; i++) {
		e = &o->errors[i];
		if (e->api == api && e->status == status) {
			e->count++;
			e->last_ts = ts;
			return 0;
		}
	}
	if (o->nerrors == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		void *p = realloc(o->errors, ncap * sizeof(*o->errors));

		if (!p)
			return -ENOMEM;
		o->errors = p;
		*cap = ncap;
	}
	e = &o->errors[o->nerrors++];
	e->api = api;
	e->status = status;
	e->name = gr_status_name(api, status);
	e->count = 1;
	e->first_ts = e->last_ts = ts;
	e->stack = stack;
	return 0;
}

static int add_inner(struct gr_outcome *o, size_t *cap, unsigned api, uint64_t ns)
{
	struct gr_outcome_inner *e;

	for (size_t i = 0; i < o->ninner; i++) {
		if (o->inner[i].api == api) {
			o->inner[i].count++;
			o->inner[i].ns += ns;
			return 0;
		}
	}
	if (o->ninner == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		void *p = realloc(o->inner, ncap * sizeof(*o->inner));

		if (!p)
			return -ENOMEM;
		o->inner = p;
		*cap = ncap;
	}
	e = &o->inner[o->ninner++];
	e->api = api;
	e->count = 1;
	e->ns = ns;
	return 0;
}

/*
 * NCCL's calls, by the same rules: those done that returned are ok, those set aside failed (when
 * they returned an error) or were made inside another call. One in flight is not listed: the
 * in-flight list holds the figures' calls (struct gr_aside).
 */
static int add_comm(const struct gr_model *m, struct gr_outcome *o, size_t *cap_err,
		    size_t *cap_inner)
{
	size_t n, ok = 0;
	const struct gr_comm_call *c = gr_model_comm_calls(m, &n);
	int err = 0;

	for (size_t i = 0; i < n; i++)
		ok += (c[i].call & GR_CALL_RETURNED) != 0;
	o->ok += ok;
	o->unknown += n - ok;
	c = gr_model_comm_asides(m, &n);
	for (size_t i = 0; i < n && !err; i++) {
		if (c[i].call & GR_CALL_IN_FLIGHT)
			continue;
		if (GR_CALL_DEPTH(c[i].call))
			err = add_inner(o, cap_inner, c[i].api, c[i].dur);
		else if (gr_call_failed(c[i].api, c[i].call, c[i].status)) {
			o->failed++;
			err = add_error(o, cap_err, c[i].api, c[i].status, c[i].ts, c[i].stack);
		}
	}
	return err;
}

/* The cause of the error (by name, whatever the API) behind at least half of the failures. */
static const char *common_cause(const struct gr_outcome *o)
{
	for (size_t i = 0; i < o->nerrors; i++) {
		uint64_t same = 0;

		if (!o->errors[i].name)
			continue;
		for (size_t k = 0; k < o->nerrors; k++)
			if (o->errors[k].name && !strcmp(o->errors[k].name, o->errors[i].name))
				same += o->errors[k].count;
		if (same * 2 >= o->failed)
			return gr_status_cause(o->errors[i].name);
	}
	return NULL;
}

int gr_outcome_compute(const struct gr_model *m, struct gr_outcome *o)
{
	size_t n, cap_err = 0, cap_inner = 0;
	const struct gr_aside *a = gr_model_asides(m, &n);
	int err = 0;

	memset(o, 0, sizeof(*o));
	o->ok = gr_model_calls_ok(m);
	o->unknown = calls_in_figures(m) - o->ok;
	if (n) {
		o->in_flight = malloc(n * sizeof(*o->in_flight));
		if (!o->in_flight)
			err = -ENOMEM;
	}
	for (size_t i = 0; i < n && !err; i++) {
		unsigned api = gr_aside_api(m, &a[i]);

		if (a[i].call & GR_CALL_IN_FLIGHT)
			o->in_flight[o->nin_flight++] = &a[i];
		else if (GR_CALL_DEPTH(a[i].call))
			err = add_inner(o, &cap_inner, api, a[i].dur);
		else if (gr_call_failed(api, a[i].call, a[i].status)) {
			o->failed++;
			err = add_error(o, &cap_err, api, a[i].status, a[i].ts,
					gr_aside_stack(m, &a[i]));
		}
	}
	if (!err)
		err = add_comm(m, o, &cap_err, &cap_inner);
	if (err) {
		gr_outcome_free(o);
		return err;
	}
	if (o->nerrors)
		gr_qsort(o->errors, o->nerrors, sizeof(*o->errors), cmp_error);
	if (o->ninner)
		gr_qsort(o->inner, o->ninner, sizeof(*o->inner), cmp_inner);
	o->most_failed = o->failed > o->ok;
	o->cause = common_cause(o);
	return 0;
}

void gr_outcome_free(struct gr_outcome *o)
{
	if (!o)
		return;
	free(o->errors);
	free(o->inner);
	free(o->in_flight);
	memset(o, 0, sizeof(*o));
}

static const char *name_or_number(const char *name, uint32_t status, char *buf, size_t len)
{
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "error %u", status);
	return buf;
}

const char *gr_outcome_call_status_text(unsigned api, uint32_t status, char *buf, size_t len)
{
	return name_or_number(gr_status_name(api, status), status, buf, len);
}

const char *gr_outcome_error_text(const struct gr_outcome_error *e, char *buf, size_t len)
{
	return name_or_number(e->name, e->status, buf, len);
}

const char *gr_outcome_in_flight_text(const struct gr_model *m, const struct gr_aside *a, char *buf,
				      size_t len)
{
	const struct gr_thread *th = &gr_model_threads(m, NULL)[gr_aside_thread(m, a)];
	char d[GR_UNITS_LEN], end[96];

	snprintf(buf, len, "thread %u/%u (%s) still inside %s for %s %s", th->pid, th->tid,
		 th->comm, gr_api_name(gr_aside_api(m, a)),
		 gr_units_ns(d, sizeof(d), (double)a->dur),
		 gr_outcome_in_flight_end(m, a, end, sizeof(end)));
	return buf;
}

const char *gr_outcome_banner(const struct gr_outcome *o, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (!o->failed)
		return NULL;
	if (o->most_failed)
		snprintf(
		    buf, len,
		    "MOST CALLS FAILED: %" PRIu64 " of %" PRIu64
		    " calls whose status is known returned an error%s%s; no verdict, byte total "
		    "or bandwidth below counts a failed call",
		    o->failed, o->failed + o->ok, o->cause ? ": likely " : "",
		    o->cause ? o->cause : "");
	else
		snprintf(buf, len,
			 "%" PRIu64 " of %" PRIu64
			 " calls whose status is known failed: the figures below leave them out",
			 o->failed, o->failed + o->ok);
	return buf;
}

void gr_outcome_json_calls(struct gr_json *j, const struct gr_outcome *o)
{
	gr_json_key(j, "calls");
	gr_json_object_flat(j);
	gr_json_kv_u64(j, "ok", o->ok);
	gr_json_kv_u64(j, "failed", o->failed);
	gr_json_kv_u64(j, "status_unknown", o->unknown);
	gr_json_kv_bool(j, "most_failed", o->most_failed);
	gr_json_key(j, "likely_cause");
	if (o->cause)
		gr_json_str(j, o->cause);
	else
		gr_json_null(j);
	gr_json_object_end(j);
}

void gr_outcome_json_error(struct gr_json *j, const struct gr_outcome_error *e)
{
	gr_json_kv_str(j, "api", gr_api_name(e->api));
	gr_json_kv_u64(j, "status", e->status);
	gr_json_key(j, "status_name");
	if (e->name)
		gr_json_str(j, e->name);
	else
		gr_json_null(j);
	gr_json_kv_u64(j, "count", e->count);
}

const char *gr_outcome_in_flight_end(const struct gr_model *m, const struct gr_aside *a, char *buf,
				     size_t len)
{
	size_t nth, np;
	const struct gr_thread *th = gr_model_threads(m, &nth);
	const struct gr_process *p = gr_model_processes(m, &np);
	uint32_t t = gr_aside_thread(m, a);

	if (!(a->call & GR_CALL_EXITED)) {
		snprintf(buf, len, "when the recording stopped");
		return buf;
	}
	if (t < nth && th[t].process < np) {
		const struct gr_process *pr = &p[th[t].process];
		int sig = pr->has_exit ? (int)(pr->exit_status & 0x7f) : 0;

		if (sig && sig != 0x7f) {
			const char *abbrev = sigabbrev_np(sig);

			if (abbrev)
				snprintf(buf, len, "when the process was killed by SIG%s", abbrev);
			else
				snprintf(buf, len, "when the process was killed by signal %d", sig);
			return buf;
		}
		if (pr->has_exit) {
			snprintf(buf, len, "when the process exited (status %u)",
				 (unsigned)(pr->exit_status >> 8 & 0xff));
			return buf;
		}
	}
	snprintf(buf, len, "when its thread exited");
	return buf;
}
