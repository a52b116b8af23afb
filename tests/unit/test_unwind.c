/* SPDX-License-Identifier: MIT */
/*
 * record/unwind: DWARF unwinding of a raw stack without BPF. A thread captures its own
 * registers and stack three calls deep (in functions built without frame pointers), as the BPF
 * side would at a probe, and the unwinder, given this process's executable mappings as the
 * discovery table, must name the callers.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "record/elf.h"
#include "record/discover.h"
#include "record/unwind.h"
#include "test.h"

#if defined(__clang__)
#define NOFP __attribute__((noinline))
#else
#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))
#endif

#define STACK_BYTES (256u << 10)

/* What the BPF side sends: the registers, then the stack bytes right after them. */
static struct {
	struct gr_ev_rawstack raw;
	uint8_t bytes[GR_DWARF_DEFAULT];
} cap;
static uint8_t *stack_top;
static volatile int sink;

/* Registers here (ip: the next instruction), then the stack from sp up to its top. */
static NOFP void capture(void)
{
	uint64_t *r = (uint64_t *)cap.raw.regs, sp;

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
	cap.raw.size = (uintptr_t)stack_top - sp < sizeof(cap.bytes) ? (uintptr_t)stack_top - sp
								     : sizeof(cap.bytes);
	memcpy(cap.bytes, (const void *)(uintptr_t)sp, cap.raw.size);
	cap.raw.flags = 0;
}

static NOFP void inner_fn(int i)
{
	capture();
	sink = sink + i;
}

static NOFP void middle_fn(int i)
{
	inner_fn(i + 1);
	sink = sink + i;
}

static NOFP void outer_fn(int i)
{
	middle_fn(i + 1);
	sink = sink + i;
}

static void *thread_main(void *arg)
{
	outer_fn(1);
	return NULL;
}

/* The discovery table of this process, as record/discover.c would fill it. */
static int load_mappings(struct gr_procs *s)
{
	struct gr_proc *p = gr_discover_proc(s, getpid());
	char line[4096 + 256];
	FILE *maps = fopen("/proc/self/maps", "re");

	if (!p || !maps)
		return -1;
	while (fgets(line, sizeof(line), maps)) {
		uint64_t start, end, pgoff, ino;
		char perms[8];
		int pos = 0;
		struct gr_file *f;
		void *n;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &ino, &pos) < 5 ||
		    !ino || perms[2] != 'x' || !pos || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		f = calloc(1, sizeof(*f));
		n = realloc(s->files, (s->nfiles + 1) * sizeof(*s->files));
		if (!f || !n) {
			free(f);
			fclose(maps);
			return -1;
		}
		s->files = n;
		s->files[s->nfiles++] = f;
		f->path = strdup(line + pos);
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (f->fd >= 0 && gr_elf_open(&f->elf, f->fd))
			f->elf = NULL;
		n = realloc(p->maps, (p->nmaps + 1) * sizeof(*p->maps));
		if (!n) {
			fclose(maps);
			return -1;
		}
		p->maps = n;
		p->maps[p->nmaps++] = (struct gr_mapping){start, end, pgoff, f};
	}
	fclose(maps);
	return 0;
}

/* Name of the function holding @addr in this process, "?" when none. */
static const char *name_of(struct gr_procs *s, uint64_t addr)
{
	const struct gr_mapping *m = gr_discover_lookup(s, getpid(), addr);
	const char *name;
	uint64_t vaddr, start, size;

	if (!m || !m->file->elf ||
	    gr_elf_offset_to_vaddr(m->file->elf, addr - m->start + m->pgoff, &vaddr) ||
	    gr_elf_symbolize(m->file->elf, vaddr, &name, &start, &size))
		return "?";
	return name;
}

static struct gr_procs sess;
static struct gr_unwind *unw;

static void test_callers(void)
{
	uint64_t frames[GR_MAX_FRAMES];
	uint32_t needed = 0;
	unsigned n;

	n = gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, frames, GR_MAX_FRAMES,
			    &needed);
	CHECK(n >= 5);
	if (n < 5)
		return;
	CHECK_STR(name_of(&sess, frames[0]), "capture");
	CHECK_EQ_U64(frames[0], cap.raw.regs[GR_REG_IP]);
	CHECK_STR(name_of(&sess, frames[1]), "inner_fn");
	CHECK_STR(name_of(&sess, frames[2]), "middle_fn");
	CHECK_STR(name_of(&sess, frames[3]), "outer_fn");
	CHECK_STR(name_of(&sess, frames[4]), "thread_main");
	/* the walk ends in libc's thread start, which marks the outermost frame */
	CHECK(needed > 0 && needed <= cap.raw.size);
}

static void test_entry_skips_the_callee(void)
{
	uint64_t all[GR_MAX_FRAMES], skipped[GR_MAX_FRAMES];
	uint32_t needed;
	unsigned n, m;

	n = gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, all, GR_MAX_FRAMES, &needed);
	cap.raw.flags = GR_RAW_ENTRY;
	m = gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, skipped, GR_MAX_FRAMES,
			    &needed);
	cap.raw.flags = 0;
	CHECK(n >= 2);
	CHECK_EQ_U64(m, n - 1);
	CHECK(m && !memcmp(skipped, all + 1, m * sizeof(*all)));
}

static void test_limits(void)
{
	uint64_t frames[GR_MAX_FRAMES];
	uint32_t needed, size = cap.raw.size;
	unsigned n;

	/* at most max frames, and then the copy is kept whole */
	CHECK_EQ_U64(gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, frames, 2, &needed),
		     2);
	CHECK_EQ_U64(needed, size);
	/* a copy too short for the callers' return addresses stops the walk */
	cap.raw.size = 8;
	n = gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, frames, GR_MAX_FRAMES,
			    &needed);
	cap.raw.size = size;
	CHECK(n >= 1 && n < 5);
	CHECK(needed <= 8);
	/* a process nobody mapped: nothing */
	n = gr_unwind_stack(unw, &sess, 0x3fffff, 1, &cap.raw, frames, GR_MAX_FRAMES, &needed);
	CHECK_EQ_U64(n, 0);
}

static void test_sessions(void)
{
	uint64_t a[GR_MAX_FRAMES], b[GR_MAX_FRAMES];
	struct gr_unwind_stats before, after;
	uint32_t needed;
	unsigned n, m;

	gr_unwind_get_stats(unw, &before);
	n = gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, a, GR_MAX_FRAMES, &needed);
	gr_unwind_get_stats(unw, &after);
	/* the session of this process is cached: no new one */
	CHECK_EQ_U64(after.sessions, before.sessions);
	CHECK_EQ_U64(after.stacks, before.stacks + 1);
	CHECK_EQ_U64(after.frames, before.frames + n);
	gr_unwind_forget(unw, getpid());
	m = gr_unwind_stack(unw, &sess, getpid(), gettid(), &cap.raw, b, GR_MAX_FRAMES, &needed);
	gr_unwind_get_stats(unw, &after);
	CHECK_EQ_U64(after.sessions, before.sessions + 1);
	CHECK_EQ_U64(m, n);
	CHECK(m && !memcmp(a, b, m * sizeof(*a)));
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;
	void *stack;

	/* a stack of known extent, so the copy above sp stays inside it */
	stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_top = (uint8_t *)stack + STACK_BYTES;
	if (stack == MAP_FAILED || pthread_attr_init(&attr) ||
	    pthread_attr_setstack(&attr, stack, STACK_BYTES) ||
	    pthread_create(&t, &attr, thread_main, NULL) || pthread_join(t, NULL)) {
		printf("not ok - capturing a stack in a thread\n");
		return 1;
	}
	if (load_mappings(&sess) || gr_unwind_new(&unw)) {
		printf("not ok - loading this process's mappings\n");
		return 1;
	}
	RUN_TEST(test_callers);
	RUN_TEST(test_entry_skips_the_callee);
	RUN_TEST(test_limits);
	RUN_TEST(test_sessions);
	gr_unwind_free(unw);
	gr_discover_free(&sess);
	TEST_EXIT();
}
