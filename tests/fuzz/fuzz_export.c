/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes that load as a model, exported with gr_export_chrome() and counted with
 * gr_export_count(), once whole and once through every option (a window inside the recording,
 * one process, no flows). The output must be one valid JSON document whose traceEvents holds one
 * event per line, as many of each phase as the writer's statistics say; the cheap count must
 * predict the write exactly; the options may only remove events.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/export/export.h"
#include "analyze/model/model.h"
#include "json_check.h"
#include "tests/fuzz/fuzz.h"

/* Events per phase, from the lines of traceEvents. */
struct phases {
	uint64_t X, i, s, f, M, C, other;
};

static void count_phases(const char *out, size_t len, struct phases *ph)
{
	static const char prefix[] = "{\"ph\": \"";
	const char *p = strstr(out, ",\"traceEvents\":[\n");

	memset(ph, 0, sizeof(*ph));
	FUZZ_ASSERT(p);
	p += strlen(",\"traceEvents\":[\n");
	while (p < out + len) {
		const char *nl = memchr(p, '\n', (size_t)(out + len - p));

		FUZZ_ASSERT(nl);
		if (!strncmp(p, "],\"stackFrames\":{", 17)) {
			/* the events' stacks, then the end of the document */
			FUZZ_ASSERT(len >= 2 && !strcmp(out + len - 2, "}\n"));
			return;
		}
		if (nl == p) { /* only before the end */
			FUZZ_ASSERT(!strncmp(nl + 1, "],\"stackFrames\":{", 17));
			p = nl + 1;
			continue;
		}
		if (*p == ',')
			p++;
		FUZZ_ASSERT(!strncmp(p, prefix, strlen(prefix)));
		switch (p[strlen(prefix)]) {
		case 'X':
			ph->X++;
			break;
		case 'i':
			ph->i++;
			break;
		case 's':
			ph->s++;
			break;
		case 'f':
			ph->f++;
			break;
		case 'M':
			ph->M++;
			break;
		case 'C':
			ph->C++;
			break;
		default:
			ph->other++;
		}
		p = nl + 1;
	}
	FUZZ_ASSERT(!"no end of traceEvents");
}

static void check_stats(const struct gr_export_stats *st)
{
	uint64_t sum = 0;

	for (int k = 0; k < GR_K_COUNT; k++)
		sum += st->api_slices[k];
	FUZZ_ASSERT(sum == st->api_total);
	FUZZ_ASSERT(st->events == st->api_total + st->node_slices + st->aside_slices +
				      st->sched_slices + st->launch_instants + 2 * st->flows +
				      st->loss_instants + st->proc_instants + st->metadata +
				      st->memory_counters);
	FUZZ_ASSERT(st->flows <= st->launch_instants);
}

/* Export @m with @o; returns the statistics of the write after checking the document. */
static void export_checked(const struct gr_model *m, const struct gr_export_opts *o,
			   struct gr_export_stats *wrote)
{
	struct gr_export_stats counted;
	struct phases ph;
	char *out = NULL;
	size_t len = 0;
	long nevents;
	FILE *f = open_memstream(&out, &len);

	FUZZ_ASSERT(f);
	FUZZ_ASSERT(gr_export_count(m, o, &counted) == 0);
	FUZZ_ASSERT(gr_export_chrome(m, f, o, wrote) == 0);
	FUZZ_ASSERT(fclose(f) == 0);
	check_stats(&counted);
	check_stats(wrote);
	/* the count is the write without its metadata events */
	FUZZ_ASSERT(counted.metadata == 0);
	FUZZ_ASSERT(!memcmp(counted.api_slices, wrote->api_slices, sizeof(counted.api_slices)));
	FUZZ_ASSERT(counted.node_slices == wrote->node_slices);
	FUZZ_ASSERT(counted.aside_slices == wrote->aside_slices);
	FUZZ_ASSERT(counted.sched_slices == wrote->sched_slices);
	FUZZ_ASSERT(counted.launch_instants == wrote->launch_instants);
	FUZZ_ASSERT(counted.flows == wrote->flows);
	FUZZ_ASSERT(counted.loss_instants == wrote->loss_instants);
	FUZZ_ASSERT(counted.proc_instants == wrote->proc_instants);
	FUZZ_ASSERT(counted.memory_counters == wrote->memory_counters);
	FUZZ_ASSERT(counted.events + wrote->metadata == wrote->events);
	if (o && o->no_flows)
		FUZZ_ASSERT(wrote->flows == 0);

	FUZZ_ASSERT(json_check(out, len, "traceEvents", &nevents) == 0);
	FUZZ_ASSERT(nevents >= 0 && (uint64_t)nevents == wrote->events);
	count_phases(out, len, &ph);
	FUZZ_ASSERT(ph.other == 0);
	FUZZ_ASSERT(ph.X == wrote->api_total + wrote->node_slices + wrote->aside_slices +
				wrote->sched_slices);
	FUZZ_ASSERT(ph.i == wrote->launch_instants + wrote->loss_instants + wrote->proc_instants);
	FUZZ_ASSERT(ph.s == wrote->flows && ph.f == wrote->flows);
	FUZZ_ASSERT(ph.M == wrote->metadata);
	FUZZ_ASSERT(ph.C == wrote->memory_counters);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	struct gr_export_stats all, some;
	struct gr_export_opts o = {.no_flows = 1, .has_to = 1};
	uint64_t first, last;
	size_t nprocs;
	const struct gr_process *procs;

	if (gr_model_load_mem(&m, data, size, 1u << 20, &diag))
		return 0;
	export_checked(m, NULL, &all);

	/* the middle half of the recording, the first process, no flows */
	gr_model_time_span(m, &first, &last);
	if (last > first) {
		o.from_ns = (last - first) / 4;
		o.to_ns = (last - first) / 4 * 3;
	}
	procs = gr_model_processes(m, &nprocs);
	if (nprocs) {
		o.pids = &procs[0].pid;
		o.npids = 1;
	}
	export_checked(m, &o, &some);
	FUZZ_ASSERT(some.api_total <= all.api_total);
	FUZZ_ASSERT(some.launch_instants <= all.launch_instants);
	FUZZ_ASSERT(some.sched_slices <= all.sched_slices);
	FUZZ_ASSERT(some.proc_instants <= all.proc_instants);
	FUZZ_ASSERT(some.loss_instants <= all.loss_instants);
	gr_model_free(m);
	return 0;
}
