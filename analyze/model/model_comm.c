/* SPDX-License-Identifier: MIT */
/*
 * The model's NCCL calls, once loaded in time order: each call gets its communicator's identity
 * from the init that returned its handle in its process, each done collective its sequence
 * number on that communicator, and the calls that did nothing go aside (model.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "model_impl.h"

/* A communicator handle live in a process, with what its init said and how many collectives
 * were done on it so far. */
struct live_comm {
	uint64_t handle, id;
	uint32_t pid, nranks, rank, next_seq;
	int gone; /* destroyed: the handle may come back for another communicator */
};

struct live_comms {
	struct live_comm *v;
	size_t n, cap;
};

static struct live_comm *find(struct live_comms *t, uint32_t pid, uint64_t handle)
{
	for (size_t i = t->n; i > 0; i--)
		if (!t->v[i - 1].gone && t->v[i - 1].pid == pid && t->v[i - 1].handle == handle)
			return &t->v[i - 1];
	return NULL;
}

static struct live_comm *add(struct live_comms *t, uint32_t pid, uint64_t handle)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct live_comm *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct live_comm){.handle = handle, .pid = pid};
	return &t->v[t->n++];
}

/* Give @c its communicator's identity; a done collective takes the next sequence number. */
static int resolve(struct live_comms *t, uint32_t pid, struct gr_comm_call *c, int done)
{
	struct live_comm *lc;

	if (c->kind == GR_COMM_GROUP_START || c->kind == GR_COMM_GROUP_END)
		return 0;
	if (c->kind == GR_COMM_INIT) {
		/* a failed init returned no communicator: it names nothing */
		if (!done || !c->comm)
			return 0;
		lc = find(t, pid, c->comm);
		if (lc)
			lc->gone = 1;
		lc = add(t, pid, c->comm);
		if (!lc)
			return -ENOMEM;
		lc->id = c->id;
		lc->nranks = c->nranks;
		lc->rank = c->rank;
		return 0;
	}
	lc = find(t, pid, c->comm);
	/* a handle whose init the trace does not hold (made before an attach, or by an entry
	 * point not probed): its own sequence, no identity */
	if (!lc && !(lc = add(t, pid, c->comm)))
		return -ENOMEM;
	c->id = lc->id;
	c->nranks = lc->nranks;
	c->rank = lc->rank;
	if (done && GR_COMM_IS_COLLECTIVE(c->kind))
		c->seq = lc->next_seq++;
	if (done && c->kind == GR_COMM_DESTROY)
		lc->gone = 1;
	return 0;
}

int gr_model_comm_resolve(struct gr_model *m)
{
	struct live_comms t = {0};
	size_t kept = 0, naside = 0;
	int err = 0;

	for (size_t i = 0; i < m->comm_calls.n; i++) {
		const struct gr_comm_call *c = &m->comm_calls.v[i];

		naside += GR_CALL_ASIDE(c->api, c->call, c->status) != 0;
	}
	if (naside && RESERVE(m->comm_asides, naside))
		return -ENOMEM;
	for (size_t i = 0; i < m->comm_calls.n && !err; i++) {
		struct gr_comm_call c = m->comm_calls.v[i];
		int done = !GR_CALL_ASIDE(c.api, c.call, c.status);
		uint32_t pid = c.thread < m->threads.n ? m->threads.v[c.thread].pid : 0;

		if (!GR_COMM_IS_COLLECTIVE(c.kind))
			c.seq = 0;
		err = resolve(&t, pid, &c, done);
		if (done)
			m->comm_calls.v[kept++] = c;
		else
			m->comm_asides.v[m->comm_asides.n++] = c;
	}
	m->comm_calls.n = kept;
	free(t.v);
	return err;
}
