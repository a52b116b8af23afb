/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: raw stack samples, as the BPF side copies them from a traced program, through
 * the recorder's DWARF unwinder (gr_unwind_stack) against a real process: this one, its
 * discovery table filled from /proc/self/maps as record/discover.c fills it (each file opened
 * once through /proc/self/map_files, with its ELF symbols and segments), the files' real CFI.
 * The registers and stack bytes are the traced program's: hostile.
 *
 * Input, little-endian (missing bytes read as 0):
 *   0      flags: 1 taken at a function's entry (GR_RAW_ENTRY), 2 raw (else based on a real
 *          sample this process took of itself), 4 repeat with a fresh session, 8 unknown pid
 *   1      max frames (the frames buffer has exactly that many entries)
 *   2..3   stack bytes asked (at most what follows, or what the sample has, and GR_DWARF_MAX)
 *   4..7   tid (0 is no thread)
 *   8..71  registers ip, sp, bp, bx, r12..r15; based on the sample, 0 keeps the sample's
 *   72..   stack bytes; based on the sample, XORed onto the sample's
 * A register or raw stack word 0xa5a5BBoooooooooo (BB: base, o: 40-bit offset) is relocated
 * to base + offset, the bases being 0 the sample's sp, 1 this executable's load address,
 * 2 libc's, 3 the sample's ip: seeds stay meaningful across builds and address layouts.
 *
 * Invariants: at most max frames, none below 4096; the bytes the unwinder says it needed lie
 * within the copy; nothing for no thread, no frames asked or a process nobody mapped; the same
 * input unwinds the same, from the cached session or a fresh one; taken at an entry, the walk is
 * the same one without its first frame; the statistics count each walk and its frames.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "record/elf.h"
#include "record/discover.h"
#include "record/unwind.h"
#include "tests/fuzz/fuzz.h"

#define F_ENTRY	  1
#define F_RAW	  2
#define F_FRESH	  4
#define F_NOPROC  8
#define HDR_BYTES 72
#define NO_PID	  0x3ffffeu /* above pid_max: mapped by nobody */

#define STACK_BYTES (256u << 10)
#define TAG	    0xa5a5u

#define NOINLINE __attribute__((noinline))

/* The sample: what the BPF side would send at a probe in capture(), three calls deep. */
static struct {
	struct gr_ev_rawstack raw;
	uint8_t bytes[GR_DWARF_MAX];
} sample;
static uint8_t *stack_top;
static volatile int sink;

static struct gr_procs sess;
static struct gr_unwind *unw;
static uint64_t bases[4];

/* Copied byte by byte, past ASan: the stack above sp holds other frames' redzones. */
__attribute__((no_sanitize_address)) static void copy_stack(uint8_t *dst, uintptr_t sp, size_t n)
{
	const volatile uint8_t *src = (const volatile uint8_t *)sp;

	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

static NOINLINE void capture(void)
{
	uint64_t *r = (uint64_t *)sample.raw.regs;
	uintptr_t sp;

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	sp = r[GR_REG_SP];
	sample.raw.size = (uintptr_t)stack_top - sp < sizeof(sample.bytes)
			      ? (uint32_t)((uintptr_t)stack_top - sp)
			      : sizeof(sample.bytes);
	copy_stack(sample.bytes, sp, sample.raw.size);
}

static NOINLINE void inner_fn(int i)
{
	capture();
	sink = sink + i;
}

static NOINLINE void outer_fn(int i)
{
	inner_fn(i + 1);
	sink = sink + i;
}

static void *thread_main(void *arg)
{
	outer_fn(1);
	return NULL;
}

/* One file per (dev, ino), opened as the recorder opens it. */
static struct gr_file *file_get(uint64_t start, uint64_t end, uint64_t ino, const char *path)
{
	struct gr_file *f, **n;
	char mf[96];
	struct stat st;

	if (stat(path, &st))
		return NULL;
	for (size_t i = 0; i < sess.nfiles; i++)
		if (sess.files[i]->ino == ino && sess.files[i]->dev == (uint64_t)st.st_dev)
			return sess.files[i];
	f = calloc(1, sizeof(*f));
	n = realloc(sess.files, (sess.nfiles + 1) * sizeof(*n));
	FUZZ_ASSERT(f && n);
	sess.files = n;
	f->dev = st.st_dev;
	f->ino = ino;
	f->path = strdup(path);
	snprintf(mf, sizeof(mf), "/proc/self/map_files/%" PRIx64 "-%" PRIx64, start, end);
	f->fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd >= 0 && gr_elf_open(&f->elf, f->fd))
		f->elf = NULL;
	sess.files[sess.nfiles++] = f;
	return f;
}

/* This process's executable file mappings, and the relocation bases. */
static void load_mappings(void)
{
	struct gr_proc *p = gr_discover_proc(&sess, getpid());
	char line[4096 + 256], exe[4096];
	ssize_t elen = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *maps = fopen("/proc/self/maps", "re");

	FUZZ_ASSERT(p && maps && elen > 0);
	exe[elen] = 0;
	while (fgets(line, sizeof(line), maps)) {
		uint64_t start, end, pgoff, ino;
		char perms[8];
		int pos = 0;
		const char *path, *base;
		struct gr_file *f;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &ino, &pos) < 5 ||
		    !ino || !pos || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		path = line + pos;
		base = strrchr(path, '/') + 1;
		/* load address: where file offset 0 is (the lowest mapping comes first) */
		if (!strcmp(path, exe) && !bases[1])
			bases[1] = start - pgoff;
		if (!strncmp(base, "libc.so", 7) && !bases[2])
			bases[2] = start - pgoff;
		if (perms[2] != 'x')
			continue;
		f = file_get(start, end, ino, path);
		if (!f)
			continue;
		if (p->nmaps == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 32;
			p->maps = realloc(p->maps, p->cap * sizeof(*p->maps));
			FUZZ_ASSERT(p->maps);
		}
		p->maps[p->nmaps++] = (struct gr_mapping){start, end, pgoff, f};
	}
	fclose(maps);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	pthread_attr_t attr;
	pthread_t t;
	void *stack;

	/* a stack of known extent, so the copy above sp stays inside it */
	stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FUZZ_ASSERT(stack != MAP_FAILED);
	stack_top = (uint8_t *)stack + STACK_BYTES;
	FUZZ_ASSERT(!pthread_attr_init(&attr) && !pthread_attr_setstack(&attr, stack, STACK_BYTES));
	FUZZ_ASSERT(!pthread_create(&t, &attr, thread_main, NULL) && !pthread_join(t, NULL));
	load_mappings();
	FUZZ_ASSERT(gr_unwind_new(&unw) == 0);
	bases[0] = sample.raw.regs[GR_REG_SP];
	bases[3] = sample.raw.regs[GR_REG_IP];
	return 0;
}

static uint64_t relocate(uint64_t w)
{
	if (w >> 48 != TAG)
		return w;
	return bases[(w >> 40 & 0xff) % 4] + (w & 0xffffffffffull);
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The raw stack the input describes, allocated to its exact size. */
static struct gr_ev_rawstack *build(const uint8_t *hdr, const uint8_t *body, size_t nbody)
{
	int raw = hdr[0] & F_RAW;
	size_t avail = raw ? nbody : sample.raw.size, size = le(hdr + 2, 2);
	struct gr_ev_rawstack *r;
	uint8_t *bytes;

	if (size > avail)
		size = avail;
	if (size > GR_DWARF_MAX)
		size = GR_DWARF_MAX;
	r = malloc(sizeof(*r) + size);
	FUZZ_ASSERT(r);
	bytes = (uint8_t *)(r + 1);
	r->size = (uint32_t)size;
	r->flags = hdr[0] & F_ENTRY ? GR_RAW_ENTRY : 0;
	for (int i = 0; i < GR_NREGS; i++) {
		uint64_t v = le(hdr + 8 + 8 * i, 8);

		r->regs[i] = raw || v ? relocate(v) : sample.raw.regs[i];
	}
	if (raw) {
		if (size) /* body is NULL when the input has no stack bytes */
			memcpy(bytes, body, size);
		for (size_t off = 0; off + 8 <= size; off += 8) {
			uint64_t w = relocate(le(bytes + off, 8));

			memcpy(bytes + off, &w, 8);
		}
	} else {
		memcpy(bytes, sample.bytes, size);
		for (size_t i = 0; i < nbody && i < size; i++)
			bytes[i] ^= body[i];
	}
	return r;
}

struct walk {
	unsigned n;
	uint32_t needed;
	uint64_t *frames;
};

static void unwind(uint32_t pid, uint32_t tid, const struct gr_ev_rawstack *r, unsigned max,
		   struct walk *w)
{
	struct gr_unwind_stats before, after;

	/* exactly max entries: ASan sees a write past them */
	w->frames = malloc(max ? max * sizeof(*w->frames) : 1);
	FUZZ_ASSERT(w->frames);
	w->needed = UINT32_MAX;
	gr_unwind_get_stats(unw, &before);
	w->n = gr_unwind_stack(unw, &sess, pid, tid, r, w->frames, max, &w->needed);
	gr_unwind_get_stats(unw, &after);
	FUZZ_ASSERT(w->n <= max);
	FUZZ_ASSERT(w->needed <= r->size);
	FUZZ_ASSERT(after.stacks == before.stacks + 1 && after.frames == before.frames + w->n);
	for (unsigned i = 0; i < w->n; i++)
		FUZZ_ASSERT(w->frames[i] >= 4096);
	if (!max || !tid || pid == NO_PID)
		FUZZ_ASSERT(w->n == 0 && w->needed == r->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[HDR_BYTES] = {0};
	const uint8_t *body = size > HDR_BYTES ? data + HDR_BYTES : NULL;
	struct gr_ev_rawstack *r;
	struct walk a, b, e;
	uint32_t pid = getpid(), tid;
	unsigned max;

	memcpy(hdr, data, size < HDR_BYTES ? size : HDR_BYTES);
	r = build(hdr, body, body ? size - HDR_BYTES : 0);
	max = hdr[1];
	tid = (uint32_t)le(hdr + 4, 4);
	if (hdr[0] & F_NOPROC)
		pid = NO_PID;

	unwind(pid, tid, r, max, &a);
	/* the same again, from the cached session or, when asked, a fresh one */
	if (hdr[0] & F_FRESH)
		gr_unwind_forget(unw, pid);
	unwind(pid, tid, r, max, &b);
	FUZZ_ASSERT(a.n == b.n && a.needed == b.needed);
	FUZZ_ASSERT(!a.n || !memcmp(a.frames, b.frames, a.n * sizeof(*a.frames)));
	/* at a function's entry, the walk leaves out the called function, and only it */
	if (!(r->flags & GR_RAW_ENTRY) && max >= 2) {
		r->flags = GR_RAW_ENTRY;
		unwind(pid, tid, r, max - 1, &e);
		FUZZ_ASSERT(e.n == (a.n ? a.n - 1 : 0));
		FUZZ_ASSERT(!e.n || !memcmp(e.frames, a.frames + 1, e.n * sizeof(*e.frames)));
		free(e.frames);
	}
	if (pid == NO_PID)
		gr_unwind_forget(unw, pid);
	free(a.frames);
	free(b.frames);
	free(r);
	return 0;
}
