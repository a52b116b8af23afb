/* SPDX-License-Identifier: MIT */
/* Perfetto TracePacket writer of the export (see export_perfetto.h, docs/EXPORT.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures/frames.h"
#include "analyze/util/keymap.h"
#include "analyze/util/strtab.h"
#include "export_pb.h"
#include "export_perfetto.h"

/* Field numbers, from Perfetto's protos/perfetto/trace/ (docs/EXPORT.md says which file). */
enum {
	TRACE_PACKET = 1,

	PKT_CLOCK_SNAPSHOT = 6,
	PKT_TIMESTAMP = 8,
	PKT_CLOCK_ID = 58,    /* timestamp_clock_id */
	PKT_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_DEFAULTS = 59, /* trace_packet_defaults */
	PKT_TRACK_DESCRIPTOR = 60,

	DEFAULTS_CLOCK_ID = 58,	     /* TracePacketDefaults.timestamp_clock_id */
	DEFAULTS_TRACK_EVENT = 11,   /* TracePacketDefaults.track_event_defaults */
	TE_DEFAULTS_TRACK_UUID = 11, /* TrackEventDefaults.track_uuid */

	SNAPSHOT_CLOCKS = 1,
	SNAPSHOT_PRIMARY_CLOCK = 2,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	CLOCK_INCREMENTAL = 3, /* Clock.is_incremental */

	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT_UUID = 5,
	TD_COUNTER = 8,
	COUNTER_UNIT = 3, /* CounterDescriptor.unit */
	PROCESS_PID = 1,
	PROCESS_NAME = 6,
	THREAD_PID = 1,
	THREAD_TID = 2,
	THREAD_NAME = 5,

	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	/* flow_ids_old (uint64): trace processor reads it as flow_ids (fixed64, 47), and a flow's
	 * id here, a count, takes 1-3 bytes instead of 8 */
	TE_FLOW_IDS = 36,
	TE_COUNTER_VALUE = 30,

	DA_NAME_IID = 1,
	DA_BOOL = 2,
	DA_UINT = 3,
	DA_DOUBLE = 5,
	DA_POINTER = 7,
	DA_NAME = 10,
	DA_DICT_ENTRIES = 11,
	DA_STRING_IID = 17,

	ID_EVENT_CATEGORIES = 1,
	ID_EVENT_NAMES = 2,
	ID_ANNOTATION_NAMES = 3,
	ID_ANNOTATION_STRINGS = 29,
	INTERNED_IID = 1,
	INTERNED_NAME = 2, /* EventName.name, EventCategory.name, DebugAnnotationName.name and
			      InternedString.str all are field 2 */
};

enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { UNIT_SIZE_BYTES = 3 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { CLOCK_REALTIME = 1, CLOCK_MONOTONIC = 3 };

#define SEQUENCE_ID 1

/*
 * Timestamps are deltas on incremental clocks of the sequence's own (ids from CLOCK_FIRST), all
 * equal to CLOCK_MONOTONIC at the one clock snapshot. A clock's timestamps only grow, but export.c
 * writes section by section (launches, then copies, ...), each going back to the start: a packet
 * takes the clock that last stood nearest below its time, naming it (timestamp_clock_id) when it
 * is not the default, CLOCK_FIRST. Only a time before the anchor (all clocks' start) is written
 * whole, in CLOCK_MONOTONIC: the trace clock may never go back in a snapshot, so clocks are never
 * re-anchored.
 */
#define CLOCK_FIRST 64 /* the first sequence-scoped clock id */
#define NCLOCKS	    8

/* Slice ends not yet written: each waits for the first packet at or after its time, so that a
 * slice's end does not move its clock past the events that follow its begin. */
#define NPENDING 32

#define NRECENT 256 /* a power of two */

/* A string interned lately: the caller's pointer @s, its interned copy and iid. */
struct recent {
	const char *s, *text;
	size_t n;
	uint64_t iid;
	uint32_t ns;
};

/* The interning namespaces: what a key means (a string's address, a stack id). */
enum intern_ns { NS_NAME, NS_CATEGORY, NS_ANNOTATION, NS_STRING, NS_STACK };

/* The InternedData tables: iids count from 1 in each, so that they stay short varints. */
enum intern_table { TABLE_NAMES, TABLE_CATEGORIES, TABLE_ANNOTATIONS, TABLE_STRINGS, NTABLES };

static const uint8_t ns_table[] = {
    [NS_NAME] = TABLE_NAMES,
    [NS_CATEGORY] = TABLE_CATEGORIES,
    [NS_ANNOTATION] = TABLE_ANNOTATIONS,
    [NS_STRING] = TABLE_STRINGS,
    [NS_STACK] = TABLE_STRINGS, /* a stack is shown as a string argument */
};

static const uint32_t table_field[NTABLES] = {
    [TABLE_NAMES] = ID_EVENT_NAMES,
    [TABLE_CATEGORIES] = ID_EVENT_CATEGORIES,
    [TABLE_ANNOTATIONS] = ID_ANNOTATION_NAMES,
    [TABLE_STRINGS] = ID_ANNOTATION_STRINGS,
};

/* The name of the argument that holds an event's folded arguments (ex_pf_fold_begin()). */
#define FOLD_NAME "launch"

struct ex_pf {
	FILE *f;
	const struct gr_model *m;
	struct gr_pb out;      /* whole packets, written to f every GR_PF_FLUSH bytes */
	struct gr_pb ev;       /* the TrackEvent being built */
	struct gr_pb interned; /* the InternedData entries it adds */
	struct gr_pb flows;    /* its flow ids (a launch's slice has one per GPU row it made) */
	struct gr_arena arena;
	struct gr_strtab strings;	/* each string interned once: keys compare by address */
	struct gr_keymap iids[NTABLES]; /* (namespace, interned string or stack id) -> iid - 1 */
	/* folded arguments: (set, key, stack) -> index in fold_iid, the iid of their text */
	struct gr_keymap folds;
	uint64_t *fold_iid;
	size_t fold_cap;
	struct gr_pb fold; /* the text of the arguments being folded */
	int folding;	   /* between ex_pf_fold_begin() returning 0 and ex_pf_fold_end() */
	uint64_t fold_key[3];
	uint32_t stack; /* the event's stack: its own argument at the end, unless folded */
	size_t nstacks;
	/*
	 * The strings last interned, by the caller's pointer: most are the same constant or model
	 * string every time (keys, names, kernels), so comparing them with their interned copy
	 * saves hashing them. A buffer reused for other text just misses.
	 */
	struct recent recent[NRECENT];
	/* the same by the text's ends and length, for text in reused buffers (grid, block) */
	struct recent recent_text[NRECENT];
	struct gr_keymap
	    uuids; /* (pid << 32 | tid) -> track uuid - 1: small uuids, short varints */
	uint64_t
	    default_track; /* the sequence's default track_uuid (the first thread's); 0: none */
	int started;	   /* the sequence start (incremental state, defaults) is written */
	uint64_t anchor;   /* every clock's time at the snapshot */
	uint64_t clock[NCLOCKS]; /* each clock's last timestamp */
	struct {
		uint64_t ts, track;
	} pending[NPENDING]; /* slice ends by time */
	size_t npending;
	/* the event being built */
	char ph;
	int skip; /* an 's' or 'f' event: nothing written */
	uint32_t pid;
	uint64_t track, ts, dur;
	size_t dict[EX_PF_DEPTH];
	int depth;
	int err;
};

static void fail(struct ex_pf *pf, int err)
{
	if (!pf->err)
		pf->err = err;
}

/* Write the packets buffered so far. */
static void flush(struct ex_pf *pf)
{
	if (pf->out.len && fwrite(pf->out.p, 1, pf->out.len, pf->f) != pf->out.len)
		fail(pf, -EIO);
	gr_pb_reset(&pf->out);
}

/*
 * The iid of @key in namespace @ns; a new one adds its entry, @text, to the packet being built.
 * 0 on error (no valid iid is 0).
 */
static uint64_t intern(struct ex_pf *pf, enum intern_ns ns, uint64_t key, const char *text)
{
	uint64_t k[2] = {ns, key};
	uint32_t idx;
	int added = gr_keymap_intern(&pf->iids[ns_table[ns]], k, &idx);
	size_t m;

	if (added < 0) {
		fail(pf, added);
		return 0;
	}
	if (added) {
		m = gr_pb_begin(&pf->interned, table_field[ns_table[ns]]);
		gr_pb_varint(&pf->interned, INTERNED_IID, (uint64_t)idx + 1);
		gr_pb_str(&pf->interned, INTERNED_NAME, text);
		gr_pb_end(&pf->interned, m);
	}
	return (uint64_t)idx + 1;
}

static uint64_t intern_str(struct ex_pf *pf, enum intern_ns ns, const char *s, size_t n)
{
	uint64_t h = ((uint64_t)(uintptr_t)s ^ ns) * 0x9e3779b97f4a7c15ull;
	struct recent *r = &pf->recent[h >> 56 & (NRECENT - 1)], *t;
	uint64_t head = 0, tail = 0;
	const char *p;

	if (r->s == s && r->ns == ns && r->n == n && !memcmp(r->text, s, n))
		return r->iid;
	memcpy(&head, s, n < 8 ? n : 8);
	memcpy(&tail, s + (n < 8 ? 0 : n - 8), n < 8 ? n : 8);
	h = (head * 0x9e3779b97f4a7c15ull ^ tail ^ n ^ (uint64_t)ns << 32) * 0xbf58476d1ce4e5b9ull;
	t = &pf->recent_text[h >> 56 & (NRECENT - 1)];
	if (t->ns == ns && t->n == n && t->text && !memcmp(t->text, s, n)) {
		*r = *t;
		r->s = s;
		return r->iid;
	}
	p = gr_strtab_intern(&pf->strings, s, n);
	if (!p) {
		fail(pf, -ENOMEM);
		return 0;
	}
	r->s = s;
	r->text = p;
	r->n = n;
	r->ns = ns;
	r->iid = intern(pf, ns, (uint64_t)(uintptr_t)p, p);
	*t = *r;
	return r->iid;
}

/* A packet's head: its time @ts on the clock that suits it (CLOCK_FIRST above), its sequence. */
static void packet_head(struct ex_pf *pf, uint64_t ts)
{
	int c = -1;

	for (int i = 0; i < NCLOCKS; i++)
		if (pf->clock[i] <= ts && (c < 0 || pf->clock[i] > pf->clock[c]))
			c = i;
	if (c < 0) {
		gr_pb_varint(&pf->out, PKT_TIMESTAMP, ts);
		gr_pb_varint(&pf->out, PKT_CLOCK_ID, CLOCK_MONOTONIC);
	} else {
		gr_pb_varint(&pf->out, PKT_TIMESTAMP, ts - pf->clock[c]);
		if (c)
			gr_pb_varint(&pf->out, PKT_CLOCK_ID, CLOCK_FIRST + (unsigned)c);
		pf->clock[c] = ts;
	}
	gr_pb_varint(&pf->out, PKT_SEQUENCE_ID, SEQUENCE_ID);
}

/* The packets without a time (the clocks, the tracks) are in the sequence too. */
static void packet_head_untimed(struct ex_pf *pf)
{
	gr_pb_varint(&pf->out, PKT_SEQUENCE_ID, SEQUENCE_ID);
}

/*
 * The sequence start, before its first packet that needs it: no interned state before this, the
 * timestamps on CLOCK_FIRST and the events on the first thread's track unless they say otherwise.
 * Written late so that the tracks are known (export.c describes them before any event).
 */
static void start(struct ex_pf *pf)
{
	size_t pkt, def, te;

	if (pf->started)
		return;
	pf->started = 1;
	pkt = gr_pb_begin(&pf->out, TRACE_PACKET);
	packet_head_untimed(pf);
	gr_pb_varint(&pf->out, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	def = gr_pb_begin(&pf->out, PKT_DEFAULTS);
	gr_pb_varint(&pf->out, DEFAULTS_CLOCK_ID, CLOCK_FIRST);
	if (pf->default_track) {
		te = gr_pb_begin(&pf->out, DEFAULTS_TRACK_EVENT);
		gr_pb_varint(&pf->out, TE_DEFAULTS_TRACK_UUID, pf->default_track);
		gr_pb_end(&pf->out, te);
	}
	gr_pb_end(&pf->out, def);
	gr_pb_end(&pf->out, pkt);
}

int ex_pf_open(struct ex_pf **out, FILE *f, const struct gr_model *m)
{
	const struct gr_trace_header *h = gr_model_header(m);
	struct ex_pf *pf = calloc(1, sizeof(*pf));
	uint64_t t0, end;
	size_t pkt, snap, clk;

	*out = pf;
	if (!pf)
		return -ENOMEM;
	pf->f = f;
	pf->m = m;
	gr_pb_init(&pf->out);
	gr_pb_init(&pf->ev);
	gr_pb_init(&pf->interned);
	gr_pb_init(&pf->flows);
	gr_pb_init(&pf->fold);
	gr_strtab_init(&pf->strings, &pf->arena);
	for (int i = 0; i < NTABLES; i++)
		gr_keymap_init(&pf->iids[i], 2);
	gr_keymap_init(&pf->folds, 3);
	gr_keymap_init(&pf->uuids, 1);
	gr_model_stacks(m, &pf->nstacks);
	gr_model_time_span(m, &t0, &end);
	/* the clocks start where the trace does, or at the header's anchor if that is earlier */
	pf->anchor = t0 < h->clock_monotonic_ns ? t0 : h->clock_monotonic_ns;
	for (int i = 0; i < NCLOCKS; i++)
		pf->clock[i] = pf->anchor;

	/*
	 * The recording's clock (CLOCK_MONOTONIC) as the trace's, anchored to wall time (the
	 * header's pair, moved to the anchor), and the sequence's incremental clocks, all at it.
	 */
	pkt = gr_pb_begin(&pf->out, TRACE_PACKET);
	packet_head_untimed(pf);
	snap = gr_pb_begin(&pf->out, PKT_CLOCK_SNAPSHOT);
	clk = gr_pb_begin(&pf->out, SNAPSHOT_CLOCKS);
	gr_pb_varint(&pf->out, CLOCK_ID, CLOCK_MONOTONIC);
	gr_pb_varint(&pf->out, CLOCK_TIMESTAMP, pf->anchor);
	gr_pb_end(&pf->out, clk);
	clk = gr_pb_begin(&pf->out, SNAPSHOT_CLOCKS);
	gr_pb_varint(&pf->out, CLOCK_ID, CLOCK_REALTIME);
	gr_pb_varint(&pf->out, CLOCK_TIMESTAMP,
		     h->clock_realtime_ns - (h->clock_monotonic_ns - pf->anchor));
	gr_pb_end(&pf->out, clk);
	for (unsigned i = 0; i < NCLOCKS; i++) {
		clk = gr_pb_begin(&pf->out, SNAPSHOT_CLOCKS);
		gr_pb_varint(&pf->out, CLOCK_ID, CLOCK_FIRST + i);
		gr_pb_varint(&pf->out, CLOCK_TIMESTAMP, pf->anchor);
		gr_pb_varint(&pf->out, CLOCK_INCREMENTAL, 1);
		gr_pb_end(&pf->out, clk);
	}
	gr_pb_varint(&pf->out, SNAPSHOT_PRIMARY_CLOCK, CLOCK_MONOTONIC);
	gr_pb_end(&pf->out, snap);
	gr_pb_end(&pf->out, pkt);
	return pf->out.err;
}

/* The uuid of the track of (@pid, @tid), numbered from 1 as first seen; 0 on error. */
static uint64_t track_uuid(struct ex_pf *pf, uint32_t pid, uint32_t tid)
{
	uint64_t k = (uint64_t)pid << 32 | tid;
	uint32_t idx;
	int err = gr_keymap_intern(&pf->uuids, &k, &idx);

	if (err < 0) {
		fail(pf, err);
		return 0;
	}
	return (uint64_t)idx + 1;
}

void ex_pf_track(struct ex_pf *pf, enum ex_pf_track kind, uint32_t pid, uint32_t tid,
		 const char *name)
{
	uint64_t uuid = track_uuid(pf, pid, kind == EX_PF_PROCESS ? 0 : tid);
	size_t pkt = gr_pb_begin(&pf->out, TRACE_PACKET), td, d;

	packet_head_untimed(pf);
	td = gr_pb_begin(&pf->out, PKT_TRACK_DESCRIPTOR);
	gr_pb_varint(&pf->out, TD_UUID, uuid);
	if (kind == EX_PF_PROCESS) {
		d = gr_pb_begin(&pf->out, TD_PROCESS);
		gr_pb_varint(&pf->out, PROCESS_PID, pid);
		gr_pb_str(&pf->out, PROCESS_NAME, name);
		gr_pb_end(&pf->out, d);
	} else if (kind == EX_PF_THREAD) {
		if (!pf->default_track && !pf->started)
			pf->default_track = uuid;
		d = gr_pb_begin(&pf->out, TD_THREAD);
		gr_pb_varint(&pf->out, THREAD_PID, pid);
		gr_pb_varint(&pf->out, THREAD_TID, tid);
		gr_pb_str(&pf->out, THREAD_NAME, name);
		gr_pb_end(&pf->out, d);
	} else {
		gr_pb_str(&pf->out, TD_NAME, name);
		gr_pb_varint(&pf->out, TD_PARENT_UUID, track_uuid(pf, pid, 0));
		if (kind == EX_PF_COUNTER) {
			d = gr_pb_begin(&pf->out, TD_COUNTER);
			gr_pb_varint(&pf->out, COUNTER_UNIT, UNIT_SIZE_BYTES);
			gr_pb_end(&pf->out, d);
		}
	}
	gr_pb_end(&pf->out, td);
	gr_pb_end(&pf->out, pkt);
}

/* The track of an event on @track: none written for the default one. */
static void event_track(struct ex_pf *pf, uint64_t track)
{
	if (track != pf->default_track)
		gr_pb_varint(&pf->out, TE_TRACK_UUID, track);
}

/* The end of a slice on @track at @ts. */
static void end_packet(struct ex_pf *pf, uint64_t ts, uint64_t track)
{
	size_t pkt = gr_pb_begin(&pf->out, TRACE_PACKET), te;

	packet_head(pf, ts);
	te = gr_pb_begin(&pf->out, PKT_TRACK_EVENT);
	gr_pb_varint(&pf->out, TE_TYPE, TYPE_SLICE_END);
	event_track(pf, track);
	gr_pb_end(&pf->out, te);
	gr_pb_varint(&pf->out, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	gr_pb_end(&pf->out, pkt);
}

/* Before a packet at @ts: the sequence start if not yet written, the slice ends due by then. */
static void before(struct ex_pf *pf, uint64_t ts)
{
	size_t n = 0;

	start(pf);
	while (n < pf->npending && pf->pending[n].ts <= ts) {
		end_packet(pf, pf->pending[n].ts, pf->pending[n].track);
		n++;
	}
	if (n) {
		pf->npending -= n;
		memmove(pf->pending, pf->pending + n, pf->npending * sizeof(pf->pending[0]));
	}
}

/* Hold the end of a slice on @track at @ts until a packet at or after it (NPENDING above). */
static void end_later(struct ex_pf *pf, uint64_t ts, uint64_t track)
{
	size_t i;

	if (pf->npending == NPENDING) /* the earliest goes now: its clock moves on, no harm */
		before(pf, pf->pending[0].ts);
	for (i = pf->npending; i > 0 && pf->pending[i - 1].ts > ts; i--)
		pf->pending[i] = pf->pending[i - 1];
	pf->pending[i].ts = ts;
	pf->pending[i].track = track;
	pf->npending++;
}

void ex_pf_counter(struct ex_pf *pf, uint32_t pid, uint32_t tid, uint64_t ts, int64_t value)
{
	uint64_t track = track_uuid(pf, pid, tid);
	size_t pkt, te;

	before(pf, ts);
	pkt = gr_pb_begin(&pf->out, TRACE_PACKET);
	packet_head(pf, ts);
	te = gr_pb_begin(&pf->out, PKT_TRACK_EVENT);
	gr_pb_varint(&pf->out, TE_TYPE, TYPE_COUNTER);
	event_track(pf, track);
	gr_pb_varint(&pf->out, TE_COUNTER_VALUE, (uint64_t)value);
	gr_pb_end(&pf->out, te);
	gr_pb_varint(&pf->out, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	gr_pb_end(&pf->out, pkt);
	if (pf->out.len >= GR_PF_FLUSH)
		flush(pf);
}

void ex_pf_begin(struct ex_pf *pf, char ph, const char *name, const char *cat, uint32_t pid,
		 uint32_t tid)
{
	pf->ph = ph;
	pf->skip = ph == 's' || ph == 'f';
	pf->pid = pid;
	pf->track = track_uuid(pf, pid, tid);
	pf->ts = pf->dur = 0;
	pf->depth = 0;
	pf->stack = 0;
	pf->folding = 0;
	gr_pb_reset(&pf->ev);
	gr_pb_reset(&pf->interned);
	gr_pb_reset(&pf->flows);
	if (pf->skip)
		return;
	gr_pb_varint(&pf->ev, TE_NAME_IID, intern_str(pf, NS_NAME, name, strlen(name)));
	if (cat)
		gr_pb_varint(&pf->ev, TE_CATEGORY_IIDS,
			     intern_str(pf, NS_CATEGORY, cat, strlen(cat)));
}

void ex_pf_ts(struct ex_pf *pf, uint64_t ts)
{
	pf->ts = ts;
}

void ex_pf_dur(struct ex_pf *pf, uint64_t dur)
{
	pf->dur = dur;
}

void ex_pf_flow(struct ex_pf *pf, uint64_t id)
{
	if (id && !pf->skip)
		gr_pb_varint(&pf->flows, TE_FLOW_IDS, id);
}

/* Instants are on their thread's track already; the others on their process's or global. */
void ex_pf_scope(struct ex_pf *pf, char scope)
{
	if (scope == 'p')
		pf->track = track_uuid(pf, pf->pid, 0);
	else if (scope == 'g')
		pf->track = 0;
}

/* Opens one argument named @key: interned at the top level, inline in a dictionary (its keys
 * are kernel names: one-off, not worth an iid each). Returns the mark for gr_pb_end(). */
static size_t arg_begin(struct ex_pf *pf, const char *key)
{
	size_t m = gr_pb_begin(&pf->ev, pf->depth ? DA_DICT_ENTRIES : TE_DEBUG_ANNOTATIONS);

	if (pf->depth)
		gr_pb_str(&pf->ev, DA_NAME, key);
	else
		gr_pb_varint(&pf->ev, DA_NAME_IID, intern_str(pf, NS_ANNOTATION, key, strlen(key)));
	return m;
}

/* One argument @key of the text being folded: "key: value", a line each (ex_pf_fold_begin()). */
static void fold_key(struct ex_pf *pf, const char *key)
{
	if (pf->fold.len)
		gr_pb_raw(&pf->fold, "\n", 1);
	gr_pb_raw(&pf->fold, key, strlen(key));
	gr_pb_raw(&pf->fold, ": ", 2);
}

/* A folded value's text: a line it spans after its first is indented by two spaces. */
static void fold_text(struct ex_pf *pf, const char *v, size_t n)
{
	const char *nl;

	while ((nl = memchr(v, '\n', n))) {
		gr_pb_raw(&pf->fold, v, (size_t)(nl - v));
		gr_pb_raw(&pf->fold, "\n  ", 3);
		n -= (size_t)(nl - v) + 1;
		v = nl + 1;
	}
	gr_pb_raw(&pf->fold, v, n);
}

/* A folded argument @key whose value is printf's text of @fmt (once per fold: speed is moot). */
static void fold_printf(struct ex_pf *pf, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fold_printf(struct ex_pf *pf, const char *key, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fold_key(pf, key);
	if (n > 0 && (size_t)n < sizeof(buf)) /* a number's text: never longer */
		gr_pb_raw(&pf->fold, buf, (size_t)n);
}

void ex_pf_arg_str(struct ex_pf *pf, const char *key, const char *v, size_t n)
{
	size_t m;

	if (pf->skip)
		return;
	if (pf->folding) {
		fold_key(pf, key);
		fold_text(pf, v, n);
		return;
	}
	m = arg_begin(pf, key);
	gr_pb_varint(&pf->ev, DA_STRING_IID, intern_str(pf, NS_STRING, v, n));
	gr_pb_end(&pf->ev, m);
}

static void arg_varint(struct ex_pf *pf, const char *key, uint32_t field, uint64_t v)
{
	size_t m;

	if (pf->skip)
		return;
	m = arg_begin(pf, key);
	gr_pb_varint(&pf->ev, field, v);
	gr_pb_end(&pf->ev, m);
}

void ex_pf_arg_u64(struct ex_pf *pf, const char *key, uint64_t v)
{
	if (pf->folding)
		fold_printf(pf, key, "%" PRIu64, v);
	else
		arg_varint(pf, key, DA_UINT, v);
}

void ex_pf_arg_bool(struct ex_pf *pf, const char *key, int v)
{
	if (pf->folding)
		fold_printf(pf, key, "%s", v ? "true" : "false");
	else
		arg_varint(pf, key, DA_BOOL, !!v);
}

void ex_pf_arg_pointer(struct ex_pf *pf, const char *key, uint64_t v)
{
	if (pf->folding)
		fold_printf(pf, key, "0x%" PRIx64, v);
	else
		arg_varint(pf, key, DA_POINTER, v);
}

void ex_pf_arg_double(struct ex_pf *pf, const char *key, double v)
{
	size_t m;

	if (pf->skip)
		return;
	if (pf->folding) {
		fold_printf(pf, key, "%.17g", v);
		return;
	}
	m = arg_begin(pf, key);
	gr_pb_double(&pf->ev, DA_DOUBLE, v);
	gr_pb_end(&pf->ev, m);
}

void ex_pf_dict_begin(struct ex_pf *pf, const char *key)
{
	if (pf->skip)
		return;
	if (pf->depth == EX_PF_DEPTH || pf->folding) {
		fail(pf, pf->folding ? -EINVAL : -E2BIG);
		return;
	}
	pf->dict[pf->depth] = arg_begin(pf, key);
	pf->depth++;
}

void ex_pf_dict_end(struct ex_pf *pf)
{
	if (pf->skip || !pf->depth)
		return;
	gr_pb_end(&pf->ev, pf->dict[--pf->depth]);
}

/* Model stack @stack as text into @b, its frames caller first, each line after the first
 * beginning with @sep (frames.h names them). */
static void stack_text(struct ex_pf *pf, uint32_t stack, struct gr_pb *b, const char *sep)
{
	const struct gr_stack *st = &gr_model_stacks(pf->m, NULL)[stack];
	char frame[GR_FRAME_TEXT];

	/* caller first, as every stack gpurec prints */
	for (uint32_t i = st->nframes; i-- > 0;) {
		struct gr_frame f;

		gr_frame_describe(pf->m, st->pid, st->frames[i], &f);
		gr_frame_format(&f, frame, sizeof(frame));
		if (i + 1 < st->nframes)
			gr_pb_raw(b, sep, strlen(sep));
		gr_pb_raw(b, frame, strlen(frame));
	}
}

/* The iid of model stack @stack's text, one frame a line. */
static uint64_t stack_iid(struct ex_pf *pf, uint32_t stack)
{
	uint64_t k[2] = {NS_STACK, stack};
	int64_t idx = gr_keymap_find(&pf->iids[TABLE_STRINGS], k);
	struct gr_pb text;
	uint64_t iid;

	if (idx >= 0)
		return (uint64_t)idx + 1;
	gr_pb_init(&text);
	stack_text(pf, stack, &text, "\n");
	gr_pb_raw(&text, "", 1);
	if (text.err)
		fail(pf, text.err);
	iid = intern(pf, NS_STACK, stack, text.err ? "" : (const char *)text.p);
	gr_pb_free(&text);
	return iid;
}

void ex_pf_stack(struct ex_pf *pf, uint32_t stack)
{
	if (!pf->skip && stack < pf->nstacks)
		pf->stack = stack;
}

/* The event's stack as its own argument, unless a fold holds it. */
static void stack_arg(struct ex_pf *pf)
{
	size_t m;

	if (!pf->stack)
		return;
	m = arg_begin(pf, "stack");
	gr_pb_varint(&pf->ev, DA_STRING_IID, stack_iid(pf, pf->stack));
	gr_pb_end(&pf->ev, m);
	pf->stack = 0;
}

/* The argument FOLD_NAME holding folded text @iid; the event's stack is in it. */
static void fold_arg(struct ex_pf *pf, uint64_t iid)
{
	size_t m = arg_begin(pf, FOLD_NAME);

	gr_pb_varint(&pf->ev, DA_STRING_IID, iid);
	gr_pb_end(&pf->ev, m);
	pf->stack = 0;
}

int ex_pf_fold_begin(struct ex_pf *pf, enum ex_pf_fold set, uint64_t key)
{
	int64_t idx;

	if (pf->skip || pf->depth || pf->folding) {
		if (!pf->skip)
			fail(pf, -EINVAL);
		return 1;
	}
	pf->fold_key[0] = set;
	pf->fold_key[1] = key;
	pf->fold_key[2] = pf->stack;
	idx = gr_keymap_find(&pf->folds, pf->fold_key);
	if (idx >= 0) {
		fold_arg(pf, pf->fold_iid[idx]);
		return 1;
	}
	gr_pb_reset(&pf->fold);
	pf->folding = 1;
	return 0;
}

void ex_pf_fold_end(struct ex_pf *pf)
{
	uint32_t idx;
	uint64_t iid;
	int err;

	if (!pf->folding)
		return;
	pf->folding = 0;
	if (pf->stack && gr_model_stacks(pf->m, NULL)[pf->stack].nframes) {
		fold_key(pf, "stack");
		stack_text(pf, pf->stack, &pf->fold, "\n  ");
	}
	if (pf->fold.err) {
		fail(pf, pf->fold.err);
		return;
	}
	iid = intern_str(pf, NS_STRING, (const char *)pf->fold.p, pf->fold.len);
	err = gr_keymap_intern(&pf->folds, pf->fold_key, &idx);
	if (err >= 0 && idx >= pf->fold_cap) {
		size_t cap = pf->fold_cap ? 2 * pf->fold_cap : 64;
		uint64_t *p = realloc(pf->fold_iid, cap * sizeof(*p));

		if (p) {
			pf->fold_iid = p;
			pf->fold_cap = cap;
		} else {
			err = -ENOMEM;
		}
	}
	if (err < 0) {
		fail(pf, err);
		return;
	}
	pf->fold_iid[idx] = iid;
	fold_arg(pf, iid);
}

/* One packet: the event in pf->ev at @ts, of @type, with the interned entries it added. */
static void event_packet(struct ex_pf *pf, uint64_t ts, unsigned type)
{
	size_t pkt, te;

	before(pf, ts);
	pkt = gr_pb_begin(&pf->out, TRACE_PACKET);
	packet_head(pf, ts);
	if (pf->interned.len)
		gr_pb_bytes(&pf->out, PKT_INTERNED_DATA, pf->interned.p, pf->interned.len);
	te = gr_pb_begin(&pf->out, PKT_TRACK_EVENT);
	gr_pb_varint(&pf->out, TE_TYPE, type);
	/* the trace-global track is uuid 0: said when there is a default, as no track means it */
	if (pf->track || pf->default_track)
		event_track(pf, pf->track);
	gr_pb_raw(&pf->out, pf->ev.p, pf->ev.len);
	gr_pb_raw(&pf->out, pf->flows.p, pf->flows.len);
	gr_pb_end(&pf->out, te);
	gr_pb_varint(&pf->out, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	gr_pb_end(&pf->out, pkt);
}

void ex_pf_end(struct ex_pf *pf)
{
	if (pf->skip)
		return;
	if (pf->folding)
		fail(pf, -EINVAL); /* a fold not ended */
	stack_arg(pf);
	if (pf->ev.err)
		fail(pf, pf->ev.err);
	if (pf->interned.err)
		fail(pf, pf->interned.err);
	if (pf->flows.err)
		fail(pf, pf->flows.err);
	if (pf->ph == 'X') {
		event_packet(pf, pf->ts, TYPE_SLICE_BEGIN);
		end_later(pf, pf->ts + pf->dur, pf->track);
	} else {
		event_packet(pf, pf->ts, TYPE_INSTANT);
	}
	if (pf->out.len >= GR_PF_FLUSH)
		flush(pf);
}

int ex_pf_close(struct ex_pf *pf)
{
	int err;

	if (!pf)
		return 0;
	start(pf); /* a trace without events starts its sequence too */
	if (pf->npending)
		before(pf, pf->pending[pf->npending - 1].ts);
	if (pf->out.err)
		fail(pf, pf->out.err);
	if (!pf->err)
		flush(pf);
	if (!pf->err && fflush(pf->f))
		fail(pf, -EIO);
	err = pf->err;
	gr_pb_free(&pf->out);
	gr_pb_free(&pf->ev);
	gr_pb_free(&pf->interned);
	gr_pb_free(&pf->flows);
	gr_pb_free(&pf->fold);
	gr_strtab_free(&pf->strings);
	gr_arena_free(&pf->arena);
	for (int i = 0; i < NTABLES; i++)
		gr_keymap_free(&pf->iids[i]);
	gr_keymap_free(&pf->folds);
	free(pf->fold_iid);
	gr_keymap_free(&pf->uuids);
	free(pf);
	return err;
}
