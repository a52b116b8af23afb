/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto protobuf form of an export (export.h): the same tracks, slices, instants, flows
 * and arguments as the Chrome JSON, written as Perfetto's TracePacket stream (docs/EXPORT.md,
 * "Perfetto", lists every message and field). export.c walks the model once for both forms and
 * hands each event here field by field, in the order the JSON writes them; this file turns them
 * into packets, one packet (two for a slice: its begin and its end) per event, appended to a
 * buffer that goes to the file every GR_PF_FLUSH bytes: the trace is streamed, never whole in
 * memory. What grows with the trace is only the interning tables (one entry per distinct name,
 * argument key, string value and call stack).
 *
 * One packet sequence (trusted_packet_sequence_id 1). Its first packet clears the incremental
 * state and sets the default clock; every later one needs it. Names, categories, argument keys,
 * string argument values and call stacks are interned: the packet that first uses one carries
 * its InternedData entry, later ones only its iid. A launch's arguments, its key's, are folded
 * into one interned text (ex_pf_fold_begin()).
 */
#ifndef GR_ANALYZE_EXPORT_PERFETTO_H
#define GR_ANALYZE_EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/model/model.h"

#define GR_PF_FLUSH (1u << 20)

struct ex_pf;

/*
 * A writer of @m's events to @f; the first packets (a clock snapshot anchoring CLOCK_MONOTONIC,
 * which the recording's timestamps use, to CLOCK_REALTIME, and the sequence's defaults) are
 * written at once. Returns 0 or -ENOMEM; *@pf is freed by ex_pf_close().
 */
int ex_pf_open(struct ex_pf **pf, FILE *f, const struct gr_model *m);

/* The kinds of track export.c names, told apart by their ids as export.h sets them. */
enum ex_pf_track { EX_PF_PROCESS, EX_PF_THREAD, EX_PF_CUSTOM, EX_PF_COUNTER };

/* A track's descriptor: a process (@tid unused), a traced thread, a track of export.h's own
 * (a thread's CPU state, a stream) in process @pid with its id @tid, or a counter track in bytes
 * (device memory) in process @pid with its id @tid. */
void ex_pf_track(struct ex_pf *pf, enum ex_pf_track kind, uint32_t pid, uint32_t tid,
		 const char *name);

/*
 * One event, as export.c writes it in JSON: begin with its phase ('X' slice, 'i' instant, 's'
 * and 'f' the JSON's flow ends, which are skipped here: the slice and the instant they join
 * carry the flow's id), name, category and track; then its time, duration, stack, flow ids
 * (ex_pf_flow() once per flow: a launch's slice starts its launch flow and one flow per GPU row
 * it made; 0 adds none), instant scope ('t' thread, 'p' process, 'g' global) and arguments, in
 * any order; then end.
 */
/* A counter track's value @value (bytes) from @ts on: one counter event, no name or arguments. */
void ex_pf_counter(struct ex_pf *pf, uint32_t pid, uint32_t tid, uint64_t ts, int64_t value);

void ex_pf_begin(struct ex_pf *pf, char ph, const char *name, const char *cat, uint32_t pid,
		 uint32_t tid);
void ex_pf_ts(struct ex_pf *pf, uint64_t ts);
void ex_pf_dur(struct ex_pf *pf, uint64_t dur);
void ex_pf_stack(struct ex_pf *pf, uint32_t stack);
void ex_pf_flow(struct ex_pf *pf, uint64_t id);
void ex_pf_scope(struct ex_pf *pf, char scope);
void ex_pf_arg_str(struct ex_pf *pf, const char *key, const char *v, size_t n);
void ex_pf_arg_u64(struct ex_pf *pf, const char *key, uint64_t v);
void ex_pf_arg_bool(struct ex_pf *pf, const char *key, int v);
void ex_pf_arg_double(struct ex_pf *pf, const char *key, double v);
void ex_pf_arg_pointer(struct ex_pf *pf, const char *key, uint64_t v);
/*
 * Arguments that are the same on every event of set @set with the same @key (and the same stack,
 * ex_pf_stack() before this): folded into one string argument, "launch", interned once per
 * (@set, @key, stack), so that an event repeating them costs one varint. Returns 1 when that
 * text is known: the event has it, and the caller writes none of them. Returns 0 the first time:
 * the caller writes them (ex_pf_arg_*(), no dictionary), then calls ex_pf_fold_end(), which
 * makes them the text, one "key: value" a line, and gives the event the argument. The event's
 * stack, if it has frames, is in the text too: "stack: " and its frames, caller first (a value's
 * lines after its first are indented by two spaces). Returns 1, writing nothing, on a skipped
 * event or inside a dictionary or another fold (the latter two an error, -EINVAL at close).
 */
enum ex_pf_fold { EX_PF_FOLD_LAUNCH, EX_PF_FOLD_KERNEL };
int ex_pf_fold_begin(struct ex_pf *pf, enum ex_pf_fold set, uint64_t key);
void ex_pf_fold_end(struct ex_pf *pf);
/* An argument that holds others (a JSON object): up to EX_PF_DEPTH deep. */
void ex_pf_dict_begin(struct ex_pf *pf, const char *key);
void ex_pf_dict_end(struct ex_pf *pf);
void ex_pf_end(struct ex_pf *pf);

#define EX_PF_DEPTH 4

/* Write what is buffered and free @pf (NULL accepted). Returns 0, the first error seen
 * (-ENOMEM), or -EIO when writing failed. */
int ex_pf_close(struct ex_pf *pf);

#endif
