/* SPDX-License-Identifier: MIT */
/*
 * Probe cost calibration (calibrate.h): call three identical functions of our own, one unprobed,
 * one with an entry-only probe (as a launch), one with entry and return probes (as a copy or a
 * sync), in interleaved batches, timing every call with the clock the BPF side reads. Each
 * probed call's event says where its timestamps fell, so the cost splits into the parts before,
 * inside and after what the trace measures.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/gpurec.h"
#include "bpf/gpurec.skel.h"
#include "format/events.h"
#include "batch.h"
#include "calibrate.h"
#include "clock.h"
#include "ringbuf.h"
#include "uprobe_multi.h"

#define BATCH	   64		 /* calls per batch: its median ignores a preemption or two */
#define MIN_ROUNDS 3		 /* batches of each kind at least ... */
#define MAX_ROUNDS 15		 /* ... and at most */
#define BUDGET_NS  40000000u	 /* stop adding rounds past this (the machine may be busy) */
#define TAG_MAGIC  0x67726331ull /* "grc1": the first argument of a calibration call */

/*
 * The targets. libcudart's entry points begin with `push %rbp; mov %rsp,%rbp`, an instruction
 * the kernel emulates at a uprobe; a probe on an instruction it must single-step costs 20x more.
 * So the targets begin the same way, written in assembly for the compiler (or -fcf-protection's
 * endbr64) not to put anything else first. Three copies: a probe belongs to an address.
 */
#define CALIB_TARGET(name)                                                                         \
	".text\n.p2align 4\n.type " name ", @function\n" name ":\n"                                \
	"push %rbp\nmov %rsp, %rbp\nmov %rdi, %rax\npop %rbp\nret\n.size " name ", .-" name "\n"
__asm__(CALIB_TARGET("gr_calib_plain") CALIB_TARGET("gr_calib_entry")
	    CALIB_TARGET("gr_calib_call"));
uint64_t gr_calib_plain(uint64_t tag);
uint64_t gr_calib_entry(uint64_t tag);
uint64_t gr_calib_call(uint64_t tag);

enum kind { K_PLAIN, K_ENTRY, K_CALL, K_COUNT };

/* One batch: the clock before each call (and after the last), what each call's event said. */
struct batch {
	uint64_t before[BATCH + 1];
	uint64_t ts[BATCH], dur[BATCH];
	uint8_t seen[BATCH];
	unsigned kind;
	uint32_t pid;
};

/* The file offset of our own code at @addr, from /proc/self/maps; 0 or -errno. */
static int offset_of(const void *addr, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long start, end, pgoff;
	char line[512];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) == 3 &&
		    (uintptr_t)addr >= start && (uintptr_t)addr < end) {
			*off = (uintptr_t)addr - start + pgoff;
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

/* The links of the calibration probes: multi link fds or libbpf links. */
struct probes {
	int fds[3];
	struct bpf_link *links[3]; /* entry x 2, return: one each without multi links */
	int n;
};

/* @multi: 1 a multi link, 2 a session link (launch_session), 0 a link per probe */
static int attach(struct probes *p, struct bpf_program *prog, int multi, const uint64_t *offs,
		  const uint64_t *cookies, uint32_t cnt, int ret)
{
	if (multi) {
		int fd = multi == 2
			     ? gr_uprobe_session_attach(bpf_program__fd(prog), "/proc/self/exe",
							offs, cookies, cnt)
			     : gr_uprobe_multi_attach(bpf_program__fd(prog), "/proc/self/exe", offs,
						      cookies, cnt, ret);

		if (fd < 0)
			return fd;
		p->fds[p->n++] = fd;
		return 0;
	}
	for (uint32_t i = 0; i < cnt; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = cookies[i], .retprobe = ret);
		struct bpf_link *l =
		    bpf_program__attach_uprobe_opts(prog, 0, "/proc/self/exe", offs[i], &o);

		if (!l)
			return -errno;
		p->links[p->n] = l;
		p->fds[p->n++] = -1;
	}
	return 0;
}

static void detach(struct probes *p)
{
	for (int i = 0; i < p->n; i++) {
		if (p->fds[i] >= 0)
			close(p->fds[i]);
		bpf_link__destroy(p->links[i]);
	}
	p->n = 0;
}

static int attach_all(struct gpurec_bpf *skel, int multi, int session, int stacks, struct probes *p)
{
	uint32_t stack = stacks ? GR_CF_STACK : 0;
	uint64_t offs[2], cookies[2] = {
			      GR_COOKIE(GR_CF_LAUNCH | stack, L_RT_LAUNCH, GR_API_UNKNOWN),
			      GR_COOKIE(GR_CF_RET | stack, L_SYNC_NONE, GR_API_UNKNOWN),
			  };
	int err = offset_of((const void *)gr_calib_entry, &offs[0]);

	if (!err)
		err = offset_of((const void *)gr_calib_call, &offs[1]);
	if (err)
		return err;
	if (session) {
		/*
		 * the entry-only target as the recording's launches are probed: its session
		 * times 1 call in GR_LAUNCH_SAMPLE (fold() takes medians: those few do not count)
		 */
		err = attach(p, skel->progs.launch_session, 2, offs, cookies, 1, 0);
		if (!err)
			err = attach(p, skel->progs.api_entry, 1, offs + 1, cookies + 1, 1, 0);
	} else if (multi) {
		err = attach(p, skel->progs.api_entry, 1, offs, cookies, 2, 0);
	} else {
		err = attach(p, skel->progs.api_entry, 0, offs, cookies, 1, 0);
		if (!err)
			err = attach(p, skel->progs.api_entry, 0, offs + 1, cookies + 1, 1, 0);
	}
	if (!err)
		err = attach(p, skel->progs.api_return, multi, offs + 1, cookies + 1, 1, 1);
	return err;
}

/* The ring buffer's events: keep what the current batch's calls produced, drop the rest. */
static int take_one(void *ctx, void *data, size_t size)
{
	struct batch *b = ctx;
	const struct gr_ev_call *e = data;
	uint64_t tag;
	unsigned i;

	if (size < sizeof(*e) || (e->h.type != EV_LAUNCH && e->h.type != EV_SYNC) ||
	    e->h.pid != b->pid)
		return 0;
	tag = e->r[0];
	i = (unsigned)(tag & 0xffff);
	if (tag >> 32 != TAG_MAGIC || (tag >> 16 & 0xff) != b->kind || i >= BATCH)
		return 0;
	b->ts[i] = e->h.ts;
	b->dur[i] = e->h.dur;
	b->seen[i] = 1;
	return 0;
}

static int take_event(void *ctx, void *data, size_t size)
{
	return gr_batch_each(data, size, take_one, ctx);
}

static void run_batch(struct batch *b, struct gr_ringbuf *rb, unsigned kind)
{
	uint64_t (*volatile fn[K_COUNT])(uint64_t) = {gr_calib_plain, gr_calib_entry,
						      gr_calib_call};
	uint64_t tag = TAG_MAGIC << 32 | (uint64_t)kind << 16;

	memset(b->seen, 0, sizeof(b->seen));
	b->kind = kind;
	for (unsigned i = 0; i < BATCH; i++) {
		b->before[i] = gr_clock_ns(CLOCK_MONOTONIC);
		fn[kind](tag | i);
	}
	b->before[BATCH] = gr_clock_ns(CLOCK_MONOTONIC);
	gr_ringbuf_consume(rb, take_event, b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorted in place); UINT64_MAX when there are none. */
static uint64_t median(uint64_t *v, unsigned n)
{
	if (!n)
		return UINT64_MAX;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

static void keep_min(uint64_t *best, uint64_t v)
{
	if (v < *best)
		*best = v;
}

/* Fold batch @b into the least medians so far: [0] the whole call, [1] before its timestamp,
 * [2] inside its duration, [3] after its (return) timestamp. */
static void fold(const struct batch *b, uint64_t best[4])
{
	uint64_t whole[BATCH], pre[BATCH], in[BATCH], post[BATCH];
	unsigned n = 0;

	for (unsigned i = 0; i < BATCH; i++) {
		uint64_t t0 = b->before[i], t1 = b->before[i + 1];

		if (b->kind != K_PLAIN &&
		    (!b->seen[i] || b->ts[i] < t0 || b->ts[i] + b->dur[i] > t1))
			continue;
		whole[n] = t1 - t0;
		pre[n] = b->kind == K_PLAIN ? 0 : b->ts[i] - t0;
		in[n] = b->kind == K_PLAIN ? 0 : b->dur[i];
		post[n] = b->kind == K_PLAIN ? 0 : t1 - b->ts[i] - b->dur[i];
		n++;
	}
	/* most calls of a batch must have been seen for it to count */
	if (n < BATCH / 2)
		return;
	keep_min(&best[0], median(whole, n));
	keep_min(&best[1], median(pre, n));
	keep_min(&best[2], median(in, n));
	keep_min(&best[3], median(post, n));
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Zero the BPF side's loss counters: what calibration may have counted is not the trace's. */
static void zero_counters(struct gpurec_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.counters);
	uint64_t *zero;

	if (ncpu <= 0 || !(zero = calloc(ncpu, sizeof(*zero))))
		return;
	for (uint32_t k = 0; k < C_COUNT; k++)
		bpf_map_update_elem(fd, &k, zero, BPF_ANY);
	free(zero);
}

int gr_calibrate(struct gpurec_bpf *skel, struct gr_ringbuf *rb, int multi, int session, int stacks,
		 struct gr_calibration *out)
{
	uint64_t start = gr_clock_ns(CLOCK_MONOTONIC), best[K_COUNT][4];
	uint32_t pid = (uint32_t)getpid();
	__u64 *word = &skel->bss->traced_bits[pid / 64], bit = 1ull << (pid % 64);
	struct probes p = {.n = 0};
	struct batch *b = calloc(1, sizeof(*b));
	int err;

	memset(out, 0, sizeof(*out));
	memset(best, 0xff, sizeof(best));
	if (!b)
		return -ENOMEM;
	if (pid / 64 >= sizeof(skel->bss->traced_bits) / 8) {
		free(b);
		return -ERANGE;
	}
	b->pid = pid;
	err = attach_all(skel, multi, session, stacks, &p);
	if (!err) {
		/* in the traced set only for the batches: the probes ignore everyone else */
		__atomic_fetch_or(word, bit, __ATOMIC_SEQ_CST);
		for (int r = 0; r < MAX_ROUNDS; r++) {
			if (r >= MIN_ROUNDS && gr_clock_ns(CLOCK_MONOTONIC) - start > BUDGET_NS)
				break;
			for (unsigned k = 0; k < K_COUNT; k++) {
				run_batch(b, rb, k);
				fold(b, best[k]);
			}
		}
		__atomic_fetch_and(word, ~bit, __ATOMIC_SEQ_CST);
	}
	detach(&p);
	/* what the probes wrote after the last batch (our own scheduler switches) */
	gr_ringbuf_consume(rb, take_event, b);
	zero_counters(skel);
	free(b);
	if (err)
		return err;
	if (best[K_PLAIN][0] == UINT64_MAX || best[K_ENTRY][0] == UINT64_MAX ||
	    best[K_CALL][0] == UINT64_MAX)
		return -EIO;
	/*
	 * An unprobed call (clock read, call, return) takes best[K_PLAIN][0]; the probed calls'
	 * pre and post parts each hold about half of it, and what remains is the probe's.
	 */
	out->entry_pre = minus(best[K_ENTRY][1], best[K_PLAIN][0] / 2);
	out->entry_post = minus(best[K_ENTRY][3], best[K_PLAIN][0] / 2);
	out->call_pre = minus(best[K_CALL][1], best[K_PLAIN][0] / 2);
	out->call_in = best[K_CALL][2];
	out->call_post = minus(best[K_CALL][3], best[K_PLAIN][0] / 2);
	out->elapsed_ns = gr_clock_ns(CLOCK_MONOTONIC) - start;
	return 0;
}
