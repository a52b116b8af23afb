/* SPDX-License-Identifier: MIT */
/*
 * record/translate.c on the live path: an event the recorder drops as malformed still resumes
 * the process the BPF side stopped with it (an exec, a new mapping, a Python stack), so a
 * disagreement between the two sides never leaves the traced program stopped. The process here
 * is a child this test stops itself; waitpid(WCONTINUED) is the kernel's word that it runs again.
 * And what an allocation call's registers and out-parameters become: the rows the model reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/gpurec.h"
#include "format/events.h"
#include "format/trace.h"
#include "record/discover.h"
#include "record/symbols.h"
#include "record/translate.h"
#include "test.h"

/* A child stopped by SIGSTOP, as the BPF side leaves a process it holds; 0 on failure. */
static pid_t stopped_child(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pid < 0 || kill(pid, SIGSTOP) || waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
		return 0;
	return pid;
}

/* Whether @pid was continued: waits at most ~2 s for the kernel to say so. */
static int continued(pid_t pid)
{
	for (int i = 0; i < 200; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WCONTINUED | WNOHANG);

		if (r == pid && WIFCONTINUED(st))
			return 1;
		if (r < 0)
			return 0;
		usleep(10000);
	}
	return 0;
}

static void finish(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Feed one event to a live translator writing to a scratch trace; returns t.malformed. */
static uint64_t feed(void *ev, size_t size)
{
	static const struct gr_trace_header hdr = {.host = "test", .tool_version = "gpurec"};
	struct gr_procs procs = {0};
	struct gr_translate t;
	struct gr_trace_writer *w;
	uint64_t malformed;
	int fd = memfd_create("translate", MFD_CLOEXEC);

	if (fd < 0 || gr_trace_writer_open(&w, fd, &hdr, gr_events_schema(), NULL))
		return UINT64_MAX;
	gr_translate_init(&t, w, &procs, NULL, -1);
	gr_translate_event(&t, ev, size);
	malformed = t.malformed;
	gr_translate_free(&t);
	gr_discover_free(&procs);
	gr_trace_writer_close(w);
	return malformed;
}

/*
 * A trace writer on a fresh memfd named @name, in *@w. Returns a second descriptor of the file,
 * to read it back once the writer (which closes its own) is closed, or -1 (checked).
 */
static int scratch_trace(struct gr_trace_writer **w, const char *name)
{
	static const struct gr_trace_header hdr = {.host = "test", .tool_version = "gpurec"};
	int wfd = memfd_create(name, MFD_CLOEXEC);
	int fd = wfd >= 0 ? dup(wfd) : -1;

	CHECK(fd >= 0 && !gr_trace_writer_open(w, wfd, &hdr, gr_events_schema(), NULL));
	return fd;
}

/* The closed trace behind @fd, its first chunk in *@c: its reader, or NULL when it has none. */
static struct gr_trace_reader *first_chunk(int fd, const struct gr_chunk **c)
{
	struct gr_trace_reader *r = NULL;
	struct gr_diag diag = {0};
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK(!gr_trace_reader_open(&r, path, &diag));
	if (r && gr_trace_reader_next_chunk(r, c) == 1)
		return r;
	gr_trace_reader_close(r);
	return NULL;
}

/* An exec event cut short after its stopped flag: dropped, and the process resumed. */
static void test_short_exec_resumes(void)
{
	struct gr_ev_proc e;
	pid_t pid = stopped_child();

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	memset(&e, 0, sizeof(e));
	e.h.type = EV_EXEC;
	e.h.pid = e.h.tid = (__u32)pid;
	e.stopped = 1;
	CHECK_EQ_U64(feed(&e, offsetof(struct gr_ev_proc, stopped) + sizeof(e.stopped)), 1);
	CHECK(continued(pid));
	finish(pid);
}

/* A Python stack claiming more bytes than it has: dropped, and the process resumed. */
static void test_long_pystack_resumes(void)
{
	static struct gr_ev_pystack e[2];
	pid_t pid = stopped_child();

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	memset(e, 0, sizeof(e));
	e[0].h.type = EV_PYSTACK;
	e[0].h.pid = e[0].h.tid = (__u32)pid;
	e[0].id = 1;
	e[0].flags = GR_PYS_STOPPED;
	/* longer than the BPF side ever sends one */
	CHECK_EQ_U64(feed(e, sizeof(e)), 1);
	CHECK(continued(pid));
	finish(pid);
}

/* Without the flag, a dropped event sends no signal: the process stays stopped. */
static void test_unflagged_stays(void)
{
	struct gr_ev_proc e;
	pid_t pid = stopped_child();

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	memset(&e, 0, sizeof(e));
	e.h.type = EV_EXEC;
	e.h.pid = e.h.tid = (__u32)pid;
	CHECK_EQ_U64(feed(&e, offsetof(struct gr_ev_proc, stopped) + sizeof(e.stopped)), 1);
	CHECK(!continued(pid));
	finish(pid);
}

/* An allocation call event as the BPF side sends it at return; @ret its status. */
static struct gr_ev_call alloc_call(unsigned layout, unsigned api, uint64_t ts, uint32_t ret)
{
	struct gr_ev_call e;

	memset(&e, 0, sizeof(e));
	e.h.type = layout == L_MEMINFO ? EV_MEMINFO : EV_ALLOC;
	e.h.layout = layout;
	e.h.api = api;
	e.h.pid = e.h.tid = 4242;
	e.h.ts = ts;
	e.h.dur = 1000;
	e.h.flags = GR_EVF_RETURNED;
	e.ret = ret;
	return e;
}

/*
 * Allocations through every result layout, written and read back: a pitched call's bytes are
 * the pitch it returned times its rows (the width asked when it failed); cudaMalloc3D's the
 * pitch times the extent's rows and depth from the stack; an array's its elements times the
 * channel format's bytes (a missing dimension counts 1); a pool and a VMM mapping keep their
 * handle; a memory query its answer, 0 0 when it failed; a driver array its descriptor's
 * elements times the format's channel bytes and channels, 0 for a format without a size per
 * channel.
 */
static void test_alloc_layouts(void)
{
	struct gr_ev_call ev[13];
	struct gr_procs procs = {0};
	struct gr_translate t;
	struct gr_trace_writer *w;
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	const uint64_t *bytes, *addr, *kind, *handle, *status, *mfree, *mtotal, *mstatus;
	int fd = scratch_trace(&w, "allocs");

	if (fd < 0)
		return;
	/* cudaMallocPitch(out, pitch out, 1000, 10): pitch 1024 */
	ev[0] = alloc_call(L_MALLOC_PITCH, GR_API_cudaMallocPitch, 1000, 0);
	ev[0].r[2] = 1000, ev[0].r[3] = 10, ev[0].x[0] = 0x7000, ev[0].x[1] = 1024;
	/* the same, failed: the 1000 bytes asked per row */
	ev[1] = alloc_call(L_MALLOC_PITCH, GR_API_cudaMallocPitch, 2000, 2);
	ev[1].r[2] = 1000, ev[1].r[3] = 10, ev[1].x[1] = 77;
	/* cudaMalloc3D(out, extent {100, 4, 3} on the stack): pitch 512 */
	ev[2] = alloc_call(L_MALLOC_3D, GR_API_cudaMalloc3D, 3000, 0);
	ev[2].s[0] = 100, ev[2].s[1] = 4, ev[2].s[2] = 3, ev[2].x[0] = 0x8000, ev[2].x[1] = 512;
	/* cudaMallocArray(out, float, 64, 0): one dimension */
	ev[3] = alloc_call(L_MALLOC_ARRAY, GR_API_cudaMallocArray, 4000, 0);
	ev[3].r[2] = 64, ev[3].x[0] = 0x9000, ev[3].x[GR_X_CHANNEL] = 32;
	/* cudaMalloc3DArray(out, uchar4, {16, 16, 4}) */
	ev[4] = alloc_call(L_MALLOC_3D_ARRAY, GR_API_cudaMalloc3DArray, 5000, 0);
	ev[4].s[0] = 16, ev[4].s[1] = 16, ev[4].s[2] = 4, ev[4].x[0] = 0xa000;
	ev[4].x[GR_X_CHANNEL] = 8 | 8ull << 32, ev[4].x[GR_X_CHANNEL + 1] = 8 | 8ull << 32;
	/* cudaMallocFromPoolAsync(out, 4096, pool, stream) */
	ev[5] = alloc_call(L_MALLOC_OUT, GR_API_cudaMallocFromPoolAsync, 6000, 0);
	ev[5].r[1] = 4096, ev[5].r[2] = 0x5001, ev[5].r[3] = 0x5002, ev[5].x[0] = 0xb000;
	/* cuMemMap(ptr, 2 MiB, 0, handle 7, 0) */
	ev[6] = alloc_call(L_HOST_REGISTER, GR_API_cuMemMap, 7000, 0);
	ev[6].r[0] = 0xc000, ev[6].r[1] = 2 << 20, ev[6].r[3] = 7;
	/* cuMemCreate(handle out, 2 MiB, prop, 0) */
	ev[7] = alloc_call(L_MALLOC_OUT, GR_API_cuMemCreate, 8000, 0);
	ev[7].r[1] = 2 << 20, ev[7].x[0] = 7;
	/* cudaMemGetInfo answered 3 of 8, then failed with garbage in its out-parameters */
	ev[8] = alloc_call(L_MEMINFO, GR_API_cudaMemGetInfo, 9000, 0);
	ev[8].x[0] = 3, ev[8].x[1] = 8;
	ev[9] = alloc_call(L_MEMINFO, GR_API_cuMemGetInfo, 9500, 35);
	ev[9].x[0] = 99, ev[9].x[1] = 99;
	/* cuArrayCreate(out, {100, 0, FLOAT, 2 channels}) */
	ev[10] = alloc_call(L_CU_ARRAY, GR_API_cuArrayCreate, 9600, 0);
	ev[10].x[0] = 0xd000, ev[10].x[GR_X_CHANNEL] = 100,
	ev[10].x[GR_X_CHANNEL + 2] = 0x20 | 2ull << 32;
	/* cuArray3DCreate(out, {8, 8, 2, UNSIGNED_INT8, 4 channels}) */
	ev[11] = alloc_call(L_CU_ARRAY_3D, GR_API_cuArray3DCreate, 9700, 0);
	ev[11].x[GR_X_CHANNEL] = 8, ev[11].x[GR_X_CHANNEL + 1] = 8, ev[11].x[GR_X_CHANNEL + 2] = 2;
	ev[11].x[GR_X_CHANNEL + 3] = 0x01 | 4ull << 32;
	/* NV12: no size per channel, bytes not known */
	ev[12] = alloc_call(L_CU_ARRAY_3D, GR_API_cuMipmappedArrayCreate, 9800, 0);
	ev[12].x[GR_X_CHANNEL] = 64, ev[12].x[GR_X_CHANNEL + 3] = 0xb0 | 1ull << 32;
	gr_translate_init(&t, w, &procs, NULL, -1);
	for (int i = 0; i < 13; i++)
		gr_translate_event(&t, &ev[i], sizeof(ev[i]));
	CHECK_EQ_U64(t.malformed, 0);
	gr_translate_free(&t);
	gr_discover_free(&procs);
	CHECK(!gr_trace_writer_close(w));
	r = first_chunk(fd, &c);
	if (!r) {
		CHECK(!"the trace holds a chunk");
		close(fd);
		return;
	}
	/* rows in the order the calls came (the writer keeps it within a kind) */
	CHECK_EQ_U64(gr_chunk_count(c, GR_K_ALLOC), 11);
	bytes = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_BYTES);
	addr = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_ADDR);
	kind = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_AKIND);
	handle = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_HANDLE);
	status = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_STATUS);
	if (gr_chunk_count(c, GR_K_ALLOC) == 11 && bytes && addr && kind && handle && status) {
		CHECK_EQ_U64(bytes[0], 10240);
		CHECK_EQ_U64(addr[0], 0x7000);
		/* failed: nothing allocated, the bytes asked */
		CHECK_EQ_U64(bytes[1], 10000);
		CHECK_EQ_U64(addr[1], 0);
		CHECK_EQ_U64(status[1], 2);
		CHECK_EQ_U64(bytes[2], 6144);
		CHECK_EQ_U64(bytes[3], 256);
		CHECK_EQ_U64(kind[3], GR_ALLOC_ARRAY);
		CHECK_EQ_U64(bytes[4], 4096);
		CHECK_EQ_U64(kind[5], GR_ALLOC_DEVICE_ASYNC);
		CHECK_EQ_U64(handle[5], 0x5001);
		CHECK_EQ_U64(kind[6], GR_ALLOC_VMM_MAP);
		CHECK_EQ_U64(addr[6], 0xc000);
		CHECK_EQ_U64(bytes[6], 2 << 20);
		CHECK_EQ_U64(handle[6], 7);
		CHECK_EQ_U64(kind[7], GR_ALLOC_VMM_PHYSICAL);
		CHECK_EQ_U64(addr[7], 7);
		CHECK_EQ_U64(bytes[8], 800);
		CHECK_EQ_U64(kind[8], GR_ALLOC_ARRAY);
		CHECK_EQ_U64(addr[8], 0xd000);
		CHECK_EQ_U64(bytes[9], 512);
		CHECK_EQ_U64(bytes[10], 0);
	}
	CHECK_EQ_U64(gr_chunk_count(c, GR_K_MEMINFO), 2);
	mfree = gr_chunk_column(c, GR_K_MEMINFO, GR_MEMINFO_FREE);
	mtotal = gr_chunk_column(c, GR_K_MEMINFO, GR_MEMINFO_TOTAL);
	mstatus = gr_chunk_column(c, GR_K_MEMINFO, GR_MEMINFO_STATUS);
	if (gr_chunk_count(c, GR_K_MEMINFO) == 2 && mfree && mtotal && mstatus) {
		CHECK_EQ_U64(mfree[0], 3);
		CHECK_EQ_U64(mtotal[0], 8);
		CHECK_EQ_U64(mfree[1] + mtotal[1], 0);
		CHECK_EQ_U64(mstatus[1], 35);
	}
	gr_trace_reader_close(r);
	close(fd);
}

/* cudaSetDevice(@device) by thread @tid, returning @ret (~0u: still in flight). */
static struct gr_ev_call set_device(uint32_t tid, uint64_t device, uint64_t ts, uint32_t ret)
{
	struct gr_ev_call e = alloc_call(L_DEVICE_QUERY, GR_API_cudaSetDevice, ts, ret);

	e.h.type = EV_DEVICE;
	e.h.tid = tid;
	e.r[0] = device;
	if (ret == ~0u)
		e.h.flags = 0, e.ret = 0;
	return e;
}

/*
 * The ALLOC device column follows each thread's last successful cudaSetDevice: thread 4242 sets
 * device 1 (then fails to set 3), thread 4243 never succeeds (its call still in flight): 0;
 * once 4242 has exited, a new thread with its tid starts at 0.
 */
static void test_alloc_device(void)
{
	struct gr_ev_call ev[7];
	struct gr_ev_proc gone;
	struct gr_procs procs = {0};
	struct gr_translate t;
	struct gr_trace_writer *w;
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	const uint64_t *dev, *tid;
	int fd = scratch_trace(&w, "devices");

	if (fd < 0)
		return;
	ev[0] = alloc_call(L_MALLOC_OUT, GR_API_cudaMalloc, 1000, 0);
	ev[0].r[1] = 64, ev[0].x[0] = 0x1000;
	ev[1] = set_device(4242, 1, 2000, 0);
	ev[2] = set_device(4242, 3, 3000, 101);
	ev[3] = set_device(4243, 2, 3500, ~0u);
	ev[4] = alloc_call(L_MALLOC_OUT, GR_API_cudaMalloc, 4000, 0);
	ev[4].r[1] = 64, ev[4].x[0] = 0x2000;
	ev[5] = alloc_call(L_MALLOC_OUT, GR_API_cudaMalloc, 5000, 0);
	ev[5].h.tid = 4243, ev[5].r[1] = 64, ev[5].x[0] = 0x3000;
	ev[6] = alloc_call(L_MALLOC_OUT, GR_API_cudaMalloc, 7000, 0);
	ev[6].r[1] = 64, ev[6].x[0] = 0x4000;
	memset(&gone, 0, sizeof(gone));
	gone.h.type = EV_EXIT, gone.h.pid = 4242, gone.h.tid = 4242, gone.h.ts = 6000;
	gr_translate_init(&t, w, &procs, NULL, -1);
	for (int i = 0; i < 6; i++)
		gr_translate_event(&t, &ev[i], sizeof(ev[i]));
	gr_translate_event(&t, &gone, sizeof(gone));
	gr_translate_event(&t, &ev[6], sizeof(ev[6]));
	CHECK_EQ_U64(t.malformed, 0);
	gr_translate_free(&t);
	gr_discover_free(&procs);
	CHECK(!gr_trace_writer_close(w));
	r = first_chunk(fd, &c);
	if (!r) {
		CHECK(!"the trace holds a chunk");
		close(fd);
		return;
	}
	CHECK_EQ_U64(gr_chunk_count(c, GR_K_ALLOC), 4);
	dev = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_DEVICE_ORD);
	tid = gr_chunk_column(c, GR_K_ALLOC, GR_ALLOC_TID);
	if (gr_chunk_count(c, GR_K_ALLOC) == 4 && dev && tid) {
		CHECK_EQ_U64(dev[0], 0); /* before any cudaSetDevice */
		CHECK_EQ_U64(dev[1], 1);
		CHECK_EQ_U64(tid[2], 4243);
		CHECK_EQ_U64(dev[2], 0);
		CHECK_EQ_U64(tid[3], 4242);
		CHECK_EQ_U64(dev[3], 0);
	}
	gr_trace_reader_close(r);
	close(fd);
}

/* A function of this test binary whose first byte a frame can point to. */
__attribute__((noinline, used)) int symbols_target(int x)
{
	return x * 7 + 3;
}

/*
 * The SYMBOL gr_symbols_frame() writes for @frame of this process: its name into @name ("" when
 * none was written) and its start. Each call starts a fresh table: nothing is named twice.
 */
static void frame_symbol(uint64_t frame, char *name, size_t size, uint64_t *start)
{
	struct gr_procs procs = {0};
	struct gr_symbols sym;
	struct gr_trace_writer *w;
	struct gr_trace_reader *r;
	const struct gr_chunk *c;
	int fd = scratch_trace(&w, "symbols");

	*name = 0;
	*start = 0;
	if (fd < 0)
		return;
	CHECK(!gr_discover_scan(&procs, getpid()));
	gr_symbols_init(&sym, w, &procs);
	CHECK(!gr_symbols_frame(&sym, 1, getpid(), frame));
	gr_symbols_free(&sym);
	gr_discover_free(&procs);
	CHECK(!gr_trace_writer_close(w));
	r = first_chunk(fd, &c);
	if (r && gr_chunk_count(c, GR_K_SYMBOL) == 1) {
		const struct gr_bytes *b = gr_chunk_bytes(c, GR_K_SYMBOL, GR_SYM_NAME);
		const uint64_t *addr = gr_chunk_column(c, GR_K_SYMBOL, GR_SYM_ADDR);

		CHECK_EQ_U64(addr[0], frame & ~GR_SYM_LEAF_PC);
		snprintf(name, size, "%.*s", (int)b[0].len, (const char *)b[0].data);
		*start = gr_chunk_column(c, GR_K_SYMBOL, GR_SYM_START)[0];
	}
	gr_trace_reader_close(r);
	close(fd);
}

/*
 * A return address is named by its call, the byte before it: one equal to a function's first
 * byte follows a call that never returns at the end of the function before (a noreturn call last
 * in main names main, not what the linker put after it). Where a scheduler stack stopped is
 * named as it is.
 */
static void test_frame_names(void)
{
	uint64_t f = (uintptr_t)symbols_target, start;
	char name[256];

	frame_symbol(f | GR_SYM_LEAF_PC, name, sizeof(name), &start);
	CHECK_STR(name, "symbols_target");
	CHECK_EQ_U64(start, f);
	/* the byte before: the function before, or padding no symbol holds (then no SYMBOL) */
	frame_symbol(f, name, sizeof(name), &start);
	CHECK(strcmp(name, "symbols_target") != 0);
	CHECK(start < f);
	/* inside the function, both name it */
	frame_symbol(f + 1, name, sizeof(name), &start);
	CHECK_STR(name, "symbols_target");
	CHECK_EQ_U64(start, f);
}

int main(void)
{
	RUN_TEST(test_short_exec_resumes);
	RUN_TEST(test_alloc_layouts);
	RUN_TEST(test_alloc_device);
	RUN_TEST(test_long_pystack_resumes);
	RUN_TEST(test_unflagged_stays);
	RUN_TEST(test_frame_names);
	TEST_EXIT();
}
