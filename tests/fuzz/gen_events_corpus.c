/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpus of fuzz_events: ring records as the BPF side sends them (one of each
 * kind, a batch, a raw stack, a Python stack, a blocked switch with its stack) and a few it cannot
 * have sent (cut, oversized, unknown type, a batch whose length lies). Not part of the build; run
 * it again after a change to bpf/gpurec.h:
 *
 *   cc -O2 -I. -Ibuild -o build/gen_events_corpus tests/fuzz/gen_events_corpus.c
 *   build/gen_events_corpus tests/fuzz/corpus/events
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/gpurec.h"

static uint8_t buf[65536];
static size_t len;
static const char *dir;

static void rec(const void *p, size_t n)
{
	buf[len++] = n & 0xff;
	buf[len++] = n >> 8;
	memcpy(buf + len, p, n);
	len += n;
}

static void out(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
	len = 0;
}

static struct gr_ev_hdr hdr(unsigned type, unsigned layout, uint64_t ts)
{
	return (struct gr_ev_hdr){.type = type, .layout = layout, .pid = 100, .tid = 101, .ts = ts};
}

int main(int argc, char **argv)
{
	struct {
		struct gr_ev_call c;
		uint64_t frames[3];
	} call = {0};
	struct {
		struct gr_ev_call c;
		struct gr_ev_rawstack r;
		uint8_t bytes[64];
	} raw = {0};
	struct {
		struct gr_ev_batch b;
		uint8_t ev[3 * sizeof(call)];
	} batch = {0};
	struct gr_ev_sched s = {
	    .h = hdr(EV_SCHED, 0, 10), .next_pid = 100, .next_tid = 102, .syscall = -1};
	struct {
		struct gr_ev_sched s;
		uint64_t frames[2];
	} blk = {0};
	struct gr_ev_proc p = {.h = hdr(EV_FORK, 0, 20), .child_pid = 200, .child_tid = 200};
	struct gr_ev_name nm = {.h = hdr(EV_NAME, 0, 30)};
	struct gr_ev_pystack py = {.h = hdr(EV_PYSTACK, 0, 40), .id = 7, .nframes = 2};
	static const unsigned calls[] = {EV_LAUNCH, EV_COPY,  EV_MEMSET, EV_ALLOC,  EV_FREE,
					 EV_SYNC,   EV_GRAPH, EV_ALIAS,	 EV_DEVICE, EV_COMM};

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	strcpy(s.prev_comm, "worker");
	strcpy(p.comm, "child");
	strcpy(nm.name, "_Z5scalePfi");

	/* one of each kind, sent whole */
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		call.c.h = hdr(calls[i], 0, 100 + i);
		call.c.h.stack_len = 3;
		call.frames[0] = 0x401000;
		call.frames[1] = 0x401100;
		call.frames[2] = 0x401200;
		rec(&call, sizeof(call));
	}
	rec(&s, sizeof(s));
	rec(&p, sizeof(p));
	p.h.type = EV_EXEC;
	rec(&p, sizeof(p));
	p.h.type = EV_MMAP;
	rec(&p, sizeof(p));
	p.h.type = EV_EXIT;
	rec(&p, sizeof(p));
	rec(&nm, sizeof(nm));
	rec(&py, offsetof(struct gr_ev_pystack, frames) + 2 * sizeof(struct gr_py_frame));
	out("every-kind");

	/* a batch of three launches with 3, 0 and 1 frames */
	call.c.h = hdr(EV_LAUNCH, 0, 200);
	call.c.h.stack_len = 3;
	memcpy(batch.ev, &call, sizeof(call));
	call.c.h.stack_len = 0;
	memcpy(batch.ev + sizeof(call), &call, sizeof(call.c));
	call.c.h.stack_len = 1;
	memcpy(batch.ev + sizeof(call) + sizeof(call.c), &call, sizeof(call.c) + 8);
	batch.b.type = EV_BATCH;
	batch.b.bytes = sizeof(call) + 2 * sizeof(call.c) + 8;
	rec(&batch, sizeof(batch.b) + batch.b.bytes);
	out("batch");

	/* a raw stack (--call-graph dwarf) and a Python stack as the BPF side reserves it */
	raw.c.h = hdr(EV_SYNC, 0, 300);
	raw.c.h.flags = GR_EVF_RAWSTACK;
	raw.r.size = sizeof(raw.bytes);
	rec(&raw, sizeof(raw));
	rec(&py, sizeof(py));
	out("raw-and-python");

	/* a blocked switch-out with its stack (read of a pipe), and one whose walk was skipped */
	blk.s = s;
	blk.s.h.stack_len = 2;
	blk.s.prev_state = 1;
	blk.s.syscall = 0;
	blk.s.fd_kind = 2;
	blk.frames[0] = 0x401300;
	blk.frames[1] = 0x401400;
	rec(&blk, sizeof(blk.s) + 2 * 8);
	blk.s.h.stack_len = 0;
	blk.s.h.flags = GR_EVS_F_SAME;
	rec(&blk, sizeof(blk.s));
	out("sched-blocked");

	/* what the BPF side cannot send: each counted, none read past */
	rec(&s, sizeof(s) - 1);
	rec(&p, 8);
	call.c.h.stack_len = 3;
	rec(&call, sizeof(call) - 8);
	call.c.h.stack_len = GR_MAX_FRAMES + 1;
	rec(&call, sizeof(call));
	raw.r.size = sizeof(raw.bytes) + 1;
	rec(&raw, sizeof(raw));
	call.c.h = hdr(99, 0, 400);
	rec(&call, sizeof(call));
	batch.b.bytes += 8;
	rec(&batch, sizeof(batch.b) + batch.b.bytes - 8);
	out("malformed");
	return 0;
}
