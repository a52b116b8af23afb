/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of the raw stacks copied by the BPF side, with libdwfl: one Dwfl session per
 * traced process, its modules reported from the discovery table (the files the recorder holds
 * open, read through /proc/self/fd/N so a file deleted since still reads), its thread state
 * attached with our own callbacks: the initial registers are the copied ones, memory reads are
 * served from the copied stack bytes (else from the mapped file). A session is kept and grown as
 * the process maps new files, so each file's CFI is parsed once per process, not per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "bpf/gpurec.h"
#include "elf.h"
#include "clock.h"
#include "discover.h"
#include "unwind.h"

#define MAX_SESSIONS 64 /* processes with a live session (each holds an fd per module) */

/* The module of one file at one load bias, as reported to a session. */
struct range {
	uint64_t lo, hi;
	const struct gr_file *file;
	uint64_t bias;
};

/* One process's session. */
struct uproc {
	struct gr_unwind *u;
	Dwfl *dwfl;
	uint32_t pid;
	size_t nmaps_seen; /* discovery mappings considered so far */
	struct range *ranges;
	size_t nranges, cap;
	uint64_t used; /* LRU tick */
};

/* The event being unwound. */
struct walk {
	struct gr_procs *procs;
	uint32_t pid;
	const struct gr_ev_rawstack *r;
	const uint8_t *bytes;
	uint64_t *frames;
	unsigned n, max;
	int skip;	 /* the first frame is the probed function itself */
	uint32_t needed; /* stack bytes up to the last one read */
};

struct gr_unwind {
	struct gr_u64map procs; /* pid -> struct uproc * */
	size_t nprocs;
	struct walk *cur;
	uint64_t tick;
	struct gr_unwind_stats st;
};

/* Modules come only from dwfl_report_elf(); never search the file system for debug info. */
static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	return -1;
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = no_elf,
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	return 0; /* only dwfl_getthread_frames() is used: threads are not listed */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct uproc *p = arg;
	const __u64 *r = p->u->cur->r->regs;
	/* DWARF x86-64 numbering: 3 rbx, 6 rbp, 7 rsp, 12..15 r12..r15 */
	Dwarf_Word bx = r[GR_REG_BX], bp_sp[2] = {r[GR_REG_BP], r[GR_REG_SP]};
	Dwarf_Word r12_15[4] = {r[GR_REG_R12], r[GR_REG_R13], r[GR_REG_R14], r[GR_REG_R15]};

	if (!dwfl_thread_state_registers(thread, 3, 1, &bx) ||
	    !dwfl_thread_state_registers(thread, 6, 2, bp_sp) ||
	    !dwfl_thread_state_registers(thread, 12, 4, r12_15))
		return false;
	dwfl_thread_state_register_pc(thread, r[GR_REG_IP]);
	return true;
}

/* Stack memory from the copy; anything else from the file mapped there (read-only data). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct uproc *p = arg;
	struct walk *w = p->u->cur;
	uint64_t sp = w->r->regs[GR_REG_SP], size = w->r->size;
	const struct gr_mapping *m;

	if (addr >= sp && size >= 8 && addr - sp <= size - 8) {
		memcpy(result, w->bytes + (addr - sp), 8);
		if (addr - sp + 8 > w->needed)
			w->needed = addr - sp + 8;
		return true;
	}
	m = gr_discover_lookup(w->procs, w->pid, addr);
	return m && m->file->fd >= 0 && addr + 8 <= m->end &&
	       pread(m->file->fd, result, 8, addr - m->start + m->pgoff) == 8;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || pc < 4096)
		return DWARF_CB_ABORT;
	if (w->skip) {
		w->skip = 0;
		return DWARF_CB_OK;
	}
	w->frames[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/*
 * Load bias of the file mapped by @m: runtime address minus link-time address of any file
 * offset inside both the mapping and a segment (the mapping starts at the page-aligned offset,
 * which can lie before the segment's own).
 */
static int mapping_bias(const struct gr_mapping *m, uint64_t *bias)
{
	uint64_t vaddr;

	if (!gr_elf_offset_to_vaddr(m->file->elf, m->pgoff, &vaddr)) {
		*bias = m->start - vaddr;
		return 0;
	}
	if (m->end - m->start >= 4096 &&
	    !gr_elf_offset_to_vaddr(m->file->elf, m->pgoff + 4095, &vaddr)) {
		*bias = m->start + 4095 - vaddr;
		return 0;
	}
	return -ENOENT;
}

/*
 * Report the file of @m to @p's session, unless it is there already. Returns 0, -EEXIST when
 * an older module of another file or bias covers the mapping (the address space changed under
 * it: dlclose then dlopen, exec), or another negative error (not an ELF file, no segment).
 */
static int report(struct uproc *p, const struct gr_mapping *m)
{
	const struct gr_file *f = m->file;
	Dwarf_Addr lo, hi;
	Dwfl_Module *mod;
	uint64_t bias;
	char path[64];
	int fd;

	if (!f->elf || f->fd < 0 || mapping_bias(m, &bias))
		return -ENOENT;
	for (size_t i = 0; i < p->nranges; i++) {
		const struct range *r = &p->ranges[i];

		if (r->file == f && r->bias == bias)
			return 0;
		if (m->start < r->hi && m->end > r->lo)
			return -EEXIST;
	}
	if (p->nranges == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct range *n = realloc(p->ranges, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->ranges = n;
		p->cap = cap;
	}
	/* the session owns the descriptor it is given and closes it at dwfl_end() */
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	mod = dwfl_report_elf(p->dwfl, f->path, path, fd, bias, true);
	if (!mod) {
		close(fd);
		return -EINVAL;
	}
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	p->ranges[p->nranges++] = (struct range){lo, hi, f, bias};
	return 0;
}

static void end_session(struct uproc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->nranges = 0;
	p->nmaps_seen = 0;
}

/* A session with every file of @proc, the newest mapping first where two overlap. */
static int build_session(struct uproc *p, const struct gr_proc *proc)
{
	end_session(p);
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl)
		return -ENOMEM;
	p->u->st.sessions++;
	dwfl_report_begin(p->dwfl);
	for (size_t i = proc->nmaps; i > 0; i--)
		report(p, &proc->maps[i - 1]);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!p->nranges || !dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, p)) {
		end_session(p);
		return -ENOENT;
	}
	p->nmaps_seen = proc->nmaps;
	return 0;
}

/* Bring @p's session up to date with the mappings the recorder knows of. */
static int sync_session(struct uproc *p, struct gr_procs *procs)
{
	const struct gr_proc *proc = gr_discover_proc(procs, p->pid);
	int conflict = 0;

	if (!proc)
		return -ENOMEM;
	if (p->dwfl && proc->nmaps == p->nmaps_seen)
		return 0;
	if (!p->dwfl || proc->nmaps < p->nmaps_seen)
		return build_session(p, proc);
	dwfl_report_begin_add(p->dwfl);
	for (size_t i = proc->nmaps; i > p->nmaps_seen; i--)
		conflict |= report(p, &proc->maps[i - 1]) == -EEXIST;
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (conflict)
		return build_session(p, proc);
	p->nmaps_seen = proc->nmaps;
	return 0;
}

static void free_proc(struct uproc *p)
{
	end_session(p);
	free(p->ranges);
	free(p);
}

/* The least recently used session goes when there are too many: its fds with it. */
static void evict_one(struct gr_unwind *u)
{
	struct uproc *victim = NULL;

	for (size_t i = 0; i < u->procs.cap; i++) {
		struct uproc *p;

		if (!u->procs.keys[i])
			continue;
		p = (struct uproc *)(uintptr_t)u->procs.vals[i];
		if (p && (!victim || p->used < victim->used))
			victim = p;
	}
	if (victim)
		gr_unwind_forget(u, victim->pid);
}

static struct uproc *get_proc(struct gr_unwind *u, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&u->procs, pid);
	struct uproc *p;

	if (v && *v)
		return (struct uproc *)(uintptr_t)*v;
	if (u->nprocs >= MAX_SESSIONS)
		evict_one(u);
	p = calloc(1, sizeof(*p));
	if (!p || gr_u64map_put(&u->procs, pid, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	p->u = u;
	p->pid = pid;
	u->nprocs++;
	return p;
}

int gr_unwind_new(struct gr_unwind **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

unsigned gr_unwind_stack(struct gr_unwind *u, struct gr_procs *procs, uint32_t pid, uint32_t tid,
			 const struct gr_ev_rawstack *r, uint64_t *frames, unsigned max,
			 uint32_t *needed)
{
	struct walk w = {.procs = procs,
			 .pid = pid,
			 .r = r,
			 .bytes = (const uint8_t *)(r + 1),
			 .frames = frames,
			 .max = max,
			 .skip = r->flags & GR_RAW_ENTRY};
	uint64_t t0 = gr_clock_ns(CLOCK_MONOTONIC);
	struct uproc *p = get_proc(u, pid);
	int end = -1;

	if (p && max && tid && !sync_session(p, procs)) {
		p->used = ++u->tick;
		u->cur = &w;
		/* 0: the outermost frame was reached; else the frames found up to the error */
		end = dwfl_getthread_frames(p->dwfl, tid, frame_cb, &w);
		u->cur = NULL;
	}
	*needed = end ? r->size : w.needed;
	u->st.stacks++;
	u->st.frames += w.n;
	u->st.ns += gr_clock_ns(CLOCK_MONOTONIC) - t0;
	return w.n;
}

void gr_unwind_forget(struct gr_unwind *u, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&u->procs, pid);

	if (!v || !*v)
		return;
	free_proc((struct uproc *)(uintptr_t)*v);
	*v = 0; /* the map has no delete: a zero value is an empty entry */
	u->nprocs--;
}

void gr_unwind_get_stats(const struct gr_unwind *u, struct gr_unwind_stats *st)
{
	*st = u->st;
}

void gr_unwind_free(struct gr_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->procs.cap; i++)
		if (u->procs.keys[i] && u->procs.vals[i])
			free_proc((struct uproc *)(uintptr_t)u->procs.vals[i]);
	gr_u64map_free(&u->procs);
	free(u);
}
