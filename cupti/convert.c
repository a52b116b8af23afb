/* SPDX-License-Identifier: MIT */
/* CUPTI activity records -> pipe records; see convert.h. */
#include <string.h>

#include "format/events.h"
#include "convert.h"

int gr_cupti_is_api(const CUpti_Activity *a)
{
	return a->kind == CUPTI_ACTIVITY_KIND_RUNTIME || a->kind == CUPTI_ACTIVITY_KIND_DRIVER;
}

void gr_cupti_join_note(struct gr_cupti_join *j, const CUpti_ActivityAPI *api)
{
	struct gr_cupti_join_slot *s = &j->slot[api->correlationId % GR_CUPTI_JOIN_SLOTS];

	s->correlation = api->correlationId;
	s->tid = api->threadId;
	s->start = api->start;
}

static const struct gr_cupti_join_slot *lookup(const struct gr_cupti_join *j, uint32_t id)
{
	const struct gr_cupti_join_slot *s = &j->slot[id % GR_CUPTI_JOIN_SLOTS];

	/* id 0 is CUPTI's "none"; an empty slot holds 0 too */
	return id && s->correlation == id ? s : NULL;
}

int gr_cupti_join_fill(const struct gr_cupti_join *j, struct gr_cupti_rec *rec, uint32_t alt)
{
	const struct gr_cupti_join_slot *s = lookup(j, rec->correlation);

	if (!s)
		s = lookup(j, alt);
	rec->host_tid = s ? s->tid : 0;
	rec->host_ts = s ? s->start : 0;
	return s != NULL;
}

static void header(struct gr_cupti_rec *rec, uint32_t pid, unsigned kind, uint64_t start,
		   uint64_t end)
{
	memset(rec, 0, sizeof(*rec));
	rec->magic = GR_CUPTI_MAGIC;
	rec->type = GR_CUPTI_GPU;
	rec->kind = kind;
	rec->pid = pid;
	rec->start = start;
	rec->end = end;
}

static void kernel(const CUpti_ActivityKernel10 *k, struct gr_cupti_rec *rec)
{
	size_t len = k->name ? strlen(k->name) : 0;

	rec->device = k->deviceId;
	rec->context = k->contextId;
	rec->stream = k->streamId;
	rec->correlation = k->correlationId;
	rec->grid[0] = k->gridX;
	rec->grid[1] = k->gridY;
	rec->grid[2] = k->gridZ;
	rec->block[0] = k->blockX;
	rec->block[1] = k->blockY;
	rec->block[2] = k->blockZ;
	rec->shared = (uint32_t)k->staticSharedMemory + (uint32_t)k->dynamicSharedMemory;
	rec->graph = k->graphId;
	rec->graph_node = k->graphNodeId;
	if (len > GR_CUPTI_NAME_MAX) {
		len = GR_CUPTI_NAME_MAX;
		rec->flags |= GR_CUPTI_NAME_CUT;
	}
	memcpy(rec->name, k->name ? k->name : "", len);
	rec->name_len = len;
}

int gr_cupti_convert(const CUpti_Activity *a, uint32_t pid, struct gr_cupti_rec *rec, uint32_t *alt)
{
	*alt = 0;
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;

		header(rec, pid, GR_GPU_KERNEL, k->start, k->end);
		kernel(k, rec);
		return 1;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;

		header(rec, pid, GR_GPU_MEMCPY, m->start, m->end);
		rec->device = m->deviceId;
		rec->context = m->contextId;
		rec->stream = m->streamId;
		rec->correlation = m->correlationId;
		rec->bytes = m->bytes;
		rec->copy_kind = m->copyKind;
		rec->graph = m->graphId;
		rec->graph_node = m->graphNodeId;
		*alt = m->runtimeCorrelationId;
		return 1;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;

		header(rec, pid, GR_GPU_MEMSET, m->start, m->end);
		rec->device = m->deviceId;
		rec->context = m->contextId;
		rec->stream = m->streamId;
		rec->correlation = m->correlationId;
		rec->bytes = m->bytes;
		rec->graph = m->graphId;
		rec->graph_node = m->graphNodeId;
		return 1;
	}
	default:
		return 0;
	}
}
