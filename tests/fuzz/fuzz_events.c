/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the ring buffer's records as record/translate.c decodes them into trace records.
 * The BPF side writes them, but whatever it got wrong, or a BPF object of another version, the
 * recorder (root) must not read past a record nor act on one it cannot have sent. The
 * translator runs offline (struct gr_translate.offline): no /proc read, no signal.
 *
 * Input: records, each a little-endian u16 length and that many bytes (the last one cut to what
 * is left), every record in a buffer of its exact size so that a read past it is seen.
 *
 * Invariants: gr_translate_decode() accepts an event exactly when a reference classification,
 * written from bpf/gpurec.h's sizes, does (an event shorter than its kind's size, or longer than
 * the BPF side sends, is -EINVAL), and then returns its type; the translator counts every
 * rejected event and malformed batch in t->malformed, as the reference does; no record fails to
 * be written; the trace written reads back complete, with one SCHED per accepted EV_SCHED, one
 * PROC per accepted EV_FORK, EV_EXEC and EV_EXIT, one ALLOC, FREE, SYNC and COMM record per
 * accepted event of that kind, and launches, copies, memsets and graph records that accepted
 * EV_GRAPH events account for beyond one per EV_LAUNCH, EV_COPY and EV_MEMSET.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "format/events.h"
#include "format/trace.h"
#include "record/discover.h"
#include "record/translate.h"
#include "tests/fuzz/fuzz.h"

#define MAX_RECORDS 256
#define NTYPES	    32

struct expect {
	uint64_t accepted[NTYPES];
	uint64_t malformed;
	uint64_t device_failed; /* accepted EV_DEVICE events that returned an error */
};

static int is_call(unsigned type)
{
	return (type >= EV_LAUNCH && type <= EV_GRAPH) || type == EV_ALIAS || type == EV_DEVICE ||
	       type == EV_COMM || type == EV_MEMINFO;
}

/* The reference: whether the BPF side could have sent these @n bytes as one event. */
static int reference_ok(const uint8_t *p, size_t n)
{
	struct gr_ev_hdr h;
	struct gr_ev_rawstack r;
	struct gr_ev_pystack ps;
	size_t call = sizeof(struct gr_ev_call), frames = offsetof(struct gr_ev_pystack, frames);

	if (n < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	/* a thread of a traced process, but in a scheduler event (the idle task) */
	if (h.type != EV_SCHED && (!h.pid || !h.tid))
		return 0;
	if (is_call(h.type) && !(h.flags & GR_EVF_RAWSTACK))
		return n >= call && h.stack_len <= GR_MAX_FRAMES && n >= call + 8u * h.stack_len &&
		       n <= call + 8u * GR_MAX_FRAMES;
	if (is_call(h.type)) {
		if (n < call + sizeof(r))
			return 0;
		memcpy(&r, p + call, sizeof(r));
		return r.size <= GR_DWARF_MAX && n >= call + sizeof(r) + r.size &&
		       n <= call + sizeof(r) + GR_DWARF_MAX;
	}
	switch (h.type) {
	case EV_SCHED:
		return h.stack_len <= GR_MAX_FRAMES &&
		       n == sizeof(struct gr_ev_sched) + 8u * h.stack_len;
	case EV_NAME: /* sent at its name's length: at least the NUL */
		return n > offsetof(struct gr_ev_name, name) && n <= sizeof(struct gr_ev_name);
	case EV_NVTX:
		return n == sizeof(struct gr_ev_nvtx);
	case EV_FORK:
	case EV_EXEC:
	case EV_EXIT:
	case EV_MMAP:
		return n == sizeof(struct gr_ev_proc);
	case EV_PYSTACK:
		if (n < frames || n > sizeof(ps))
			return 0;
		memcpy(&ps, p, frames);
		return ps.id && ps.nframes <= GR_PY_MAX_FRAMES &&
		       n >= frames + ps.nframes * sizeof(struct gr_py_frame);
	}
	return 0;
}

/* One event: the decoder must agree with the reference, reading only its own bytes. */
static void check_event(const uint8_t *p, size_t n, struct expect *x)
{
	uint8_t *copy = malloc(n ? n : 1);
	int ok = reference_ok(p, n), got;

	FUZZ_ASSERT(copy);
	memcpy(copy, p, n);
	got = gr_translate_decode(copy, n);
	free(copy);
	FUZZ_ASSERT(got == (ok ? (int)p[0] : -EINVAL));
	if (ok)
		x->accepted[p[0] % NTYPES]++;
	else
		x->malformed++;
	if (ok && p[0] == EV_DEVICE) {
		struct gr_ev_call c;

		/* a failed device query is a SYNC row (translate.c device_failed()) */
		memcpy(&c, p, sizeof(c));
		if ((c.h.flags & GR_EVF_RETURNED) && (uint32_t)c.ret)
			x->device_failed++;
	}
}

/* One ring record: a batch of call events (bpf/gpurec.h) or one event. */
static void check_record(const uint8_t *p, size_t n, struct expect *x)
{
	struct gr_ev_batch b;
	size_t off = sizeof(b);

	if (n < sizeof(b) || p[0] != EV_BATCH) {
		check_event(p, n, x);
		return;
	}
	memcpy(&b, p, sizeof(b));
	if (b.bytes != n - sizeof(b)) {
		x->malformed++;
		return;
	}
	while (off < n) {
		struct gr_ev_hdr h;
		size_t len;

		if (n - off < sizeof(struct gr_ev_call)) {
			x->malformed++;
			return;
		}
		memcpy(&h, p + off, sizeof(h));
		len = sizeof(struct gr_ev_call) + 8u * h.stack_len;
		if (len > n - off || h.type == EV_BATCH || (h.flags & GR_EVF_RAWSTACK)) {
			x->malformed++;
			return;
		}
		check_event(p + off, len, x);
		off += len;
	}
}

/* Records of each kind in the trace image @p, @len bytes, into @count (indexed by kind). */
static void read_back(const uint8_t *p, size_t len, uint64_t *count)
{
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	struct gr_diag diag = {0};

	FUZZ_ASSERT(gr_trace_reader_open_mem(&r, p, len, &diag) == 0);
	while (gr_trace_reader_next_chunk(r, &c) == 1)
		for (uint16_t k = 1; k < NTYPES; k++)
			count[k] += gr_chunk_count(c, k);
	FUZZ_ASSERT(gr_trace_reader_integrity(r)->complete);
	gr_trace_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct gr_trace_header hdr = {.host = "fuzz", .tool_version = "gpurec"};
	uint64_t got[NTYPES] = {0};
	const uint64_t *a;
	struct expect x = {{0}, 0, 0};
	struct gr_procs procs = {0};
	struct gr_translate t;
	struct gr_trace_writer *w;
	struct stat st;
	uint8_t *img;
	int fd, keep;

	fd = memfd_create("fuzz-events", MFD_CLOEXEC);
	keep = dup(fd);
	FUZZ_ASSERT(fd >= 0 && keep >= 0);
	FUZZ_ASSERT(gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL) == 0);
	gr_translate_init(&t, w, &procs, NULL, -1);
	t.offline = true;
	for (int i = 0; i < MAX_RECORDS && size >= 2; i++) {
		size_t n = (size_t)data[0] | (size_t)data[1] << 8;
		uint8_t *rec;

		data += 2;
		size -= 2;
		if (n > size)
			n = size;
		check_record(data, n, &x);
		rec = malloc(n ? n : 1);
		FUZZ_ASSERT(rec);
		memcpy(rec, data, n);
		FUZZ_ASSERT(gr_translate_event(&t, rec, n) == 0);
		free(rec);
		data += n;
		size -= n;
	}
	FUZZ_ASSERT(t.malformed == x.malformed);
	FUZZ_ASSERT(t.err == 0);
	gr_translate_free(&t);
	gr_discover_free(&procs);
	FUZZ_ASSERT(gr_trace_writer_close(w) == 0);

	FUZZ_ASSERT(fstat(keep, &st) == 0);
	img = malloc((size_t)st.st_size);
	FUZZ_ASSERT(img && pread(keep, img, (size_t)st.st_size, 0) == st.st_size);
	read_back(img, (size_t)st.st_size, got);
	free(img);
	close(keep);

	a = x.accepted;
	FUZZ_ASSERT(got[GR_K_SCHED] == a[EV_SCHED]);
	FUZZ_ASSERT(got[GR_K_PROC] == a[EV_FORK] + a[EV_EXEC] + a[EV_EXIT]);
	FUZZ_ASSERT(got[GR_K_ALLOC] == a[EV_ALLOC] && got[GR_K_FREE] == a[EV_FREE]);
	FUZZ_ASSERT(got[GR_K_SYNC] == a[EV_SYNC] + x.device_failed && got[GR_K_COMM] == a[EV_COMM]);
	/* a graph node event is a launch, a copy, a memset or a graph record, or none */
	FUZZ_ASSERT(got[GR_K_LAUNCH] >= a[EV_LAUNCH] && got[GR_K_COPY] >= a[EV_COPY] &&
		    got[GR_K_MEMSET] >= a[EV_MEMSET]);
	FUZZ_ASSERT(got[GR_K_LAUNCH] - a[EV_LAUNCH] + got[GR_K_COPY] - a[EV_COPY] +
			got[GR_K_MEMSET] - a[EV_MEMSET] + got[GR_K_GRAPH] <=
		    a[EV_GRAPH]);
	return 0;
}
