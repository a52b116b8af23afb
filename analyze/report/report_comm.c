/* SPDX-License-Identifier: MIT */
/*
 * The communication finding (report.h, docs/REPORTS.md): what the NCCL calls that were done cost
 * the host, and which rank of each communicator enters its collectives last, making the others
 * wait. Collectives are matched across the processes of the model by (communicator id, sequence
 * number), as the model numbers them (gr_comm_call.seq).
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/util/arrays.h"
#include "report_sections.h"

static int by_id_seq(const void *a, const void *b)
{
	const struct gr_comm_call *x = *(const struct gr_comm_call *const *)a;
	const struct gr_comm_call *y = *(const struct gr_comm_call *const *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static struct gr_report_comm_rank *rank_of(struct gr_report_comm *C, const struct gr_comm_call *c,
					   uint32_t pid)
{
	for (size_t i = 0; i < C->nranks; i++)
		if (C->ranks[i].id == c->id && C->ranks[i].rank == c->rank)
			return &C->ranks[i];
	C->ranks[C->nranks] = (struct gr_report_comm_rank){
	    .id = c->id, .nranks = c->nranks, .rank = c->rank, .pid = pid};
	return &C->ranks[C->nranks++];
}

void gr_comm_sort_collectives(const struct gr_comm_call **g, size_t n)
{
	if (n)
		gr_qsort(g, n, sizeof(*g), by_id_seq);
}

long gr_comm_last_to_enter(const struct gr_comm_call *const *g, size_t n, uint64_t *wait_ns)
{
	size_t last = 0;
	uint64_t sum = 0;

	if (n < 2 || n != g[0]->nranks)
		return -1;
	for (size_t i = 1; i < n; i++) {
		/* a rank twice: two processes claim it (a reused id): not one operation */
		if (g[i]->rank == g[i - 1]->rank)
			return -1;
		if (g[i]->ts > g[last]->ts)
			last = i;
	}
	for (size_t i = 0; i < n; i++)
		sum += g[last]->ts - g[i]->ts;
	*wait_ns = sum / (n - 1);
	return (long)last;
}

/* One collective, seen in @n ranks @g[0..n): when every rank is there, who entered last. */
static void judge(struct rp_ctx *x, struct gr_report_comm *C, const struct gr_comm_call **g,
		  size_t n)
{
	struct gr_report_comm_rank *lr;
	uint64_t wait;
	long last = gr_comm_last_to_enter(g, n, &wait);

	if (last < 0)
		return;
	lr = rank_of(C, g[last], x->th[g[last]->thread].pid);
	lr->last++;
	lr->wait_ns += wait;
	C->matched++;
}

int rp_comm(struct rp_ctx *x)
{
	struct gr_report_comm *C = &x->r->comm;
	const struct gr_report_iteration *it = &x->r->launches.iter;
	const struct gr_comm_call *c = gr_model_comm_calls(x->m, NULL), **g;
	size_t n, ng = 0, in_loop = 0;

	gr_model_comm_calls(x->m, &n);
	gr_model_comm_asides(x->m, &C->aside);
	g = n ? calloc(n, sizeof(*g)) : NULL;
	if (n && !g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct gr_report_comm_kind *k;

		if (c[i].kind >= GR_REPORT_COMM_KINDS)
			continue;
		k = &C->kinds[c[i].kind];
		k->calls++;
		k->bytes += c[i].bytes;
		k->host_ns += c[i].dur;
		C->host_ns += c[i].dur;
		if (!GR_COMM_IS_COLLECTIVE(c[i].kind)) {
			C->p2p++;
			continue;
		}
		C->collectives++;
		if (it->found && c[i].ts >= it->start_ts && c[i].ts < it->end_ts &&
		    x->th[c[i].thread].pid == x->th[it->thread].pid)
			in_loop++;
		if (c[i].id && c[i].nranks >= 2)
			g[ng++] = &c[i];
	}
	if (x->r->wall_ns) {
		C->wall_share = (double)C->host_ns / (double)x->r->wall_ns;
		C->per_second = (double)C->collectives * 1e9 / (double)x->r->wall_ns;
	}
	if (it->found && it->count)
		C->per_iteration = (double)in_loop / (double)it->count;
	gr_comm_sort_collectives(g, ng);
	C->ranks = ng ? rp_alloc(x, ng, sizeof(*C->ranks)) : NULL;
	if (ng && !C->ranks) {
		free(g);
		return -ENOMEM;
	}
	for (size_t i = 0, j; i < ng; i = j) {
		for (j = i + 1; j < ng && g[j]->id == g[i]->id && g[j]->seq == g[i]->seq; j++)
			;
		judge(x, C, g + i, j - i);
	}
	free(g);
	return 0;
}
