/* SPDX-License-Identifier: MIT */
/*
 * The NVTX injection library's handlers (nvtx/inject.c), through NVTX's own header-only
 * implementation: this program makes real nvtx* calls, and NVTX finds the library's entry point
 * as a statically linked tool (InitializeInjectionNvtx2_fnptr), exactly as it finds it through
 * NVTX_INJECTION64_PATH in a traced program. The tap here is the test's own: it keeps what each
 * call told it, so each check is of exact values: one tap per call, its op, domain, id, colour,
 * category, payload and UTF-8 text, and what the program got back (nesting levels, range ids).
 */
#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "format/events.h"
#include "nvtx/tap.h"
#include "test.h"

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table);
/* NVTX's static-tool hook: its first call initialises the library linked here */
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = InitializeInjectionNvtx2;

#define MAX_TAPS 64

static struct tapped {
	struct gr_nvtx_tap t;
	char text[600];
	int has_text;
	pid_t tid;
} taps[MAX_TAPS];
static int ntaps;
static pthread_mutex_t taps_lock = PTHREAD_MUTEX_INITIALIZER;

void gpurec_nvtx_tap(const struct gr_nvtx_tap *t)
{
	pthread_mutex_lock(&taps_lock);
	if (ntaps < MAX_TAPS) {
		taps[ntaps].t = *t;
		taps[ntaps].has_text = t->text != NULL;
		snprintf(taps[ntaps].text, sizeof(taps[ntaps].text), "%s", t->text ? t->text : "");
		taps[ntaps].tid = (pid_t)syscall(SYS_gettid);
	}
	ntaps++;
	pthread_mutex_unlock(&taps_lock);
}

static void reset(void)
{
	ntaps = 0;
	memset(taps, 0, sizeof(taps));
}

static nvtxEventAttributes_t attrs(void)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	return a;
}

static void test_push_pop(void)
{
	reset();
	CHECK_EQ_U64(nvtxRangePushA("step"), 0);
	CHECK_EQ_U64(nvtxRangePushW(L"forward"), 1);
	CHECK_EQ_U64(nvtxRangePop(), 1);
	CHECK_EQ_U64(nvtxRangePop(), 0);
	/* nothing open: the API's error, and still one tap for the recorder to count */
	CHECK(nvtxRangePop() < 0);
	CHECK_EQ_U64(ntaps, 5);
	CHECK_EQ_U64(taps[0].t.op, GR_NVTX_PUSH);
	CHECK_STR(taps[0].text, "step");
	CHECK_EQ_U64(taps[0].t.id, 0);
	CHECK_EQ_U64(taps[0].t.domain, 0);
	CHECK_EQ_U64(taps[1].t.op, GR_NVTX_PUSH);
	CHECK_STR(taps[1].text, "forward");
	CHECK_EQ_U64(taps[1].t.id, 1);
	for (int i = 2; i < 5; i++) {
		CHECK_EQ_U64(taps[i].t.op, GR_NVTX_POP);
		CHECK(!taps[i].has_text);
		CHECK_EQ_U64(taps[i].t.id, 0);
	}
}

static void test_attributes(void)
{
	nvtxEventAttributes_t a = attrs();

	reset();
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff80;
	a.category = 7;
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = 0x1122334455667788ull;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "colored";
	CHECK_EQ_U64(nvtxRangePushEx(&a), 0);
	a = attrs();
	/* a 32-bit payload: the union's upper half is not the program's value */
	a.payload.ullValue = 0xdeadbeef00000000ull;
	a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
	a.payload.iValue = -5;
	a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
	/* two-, three- and four-byte UTF-8, and a surrogate that is no character */
	a.message.unicode = L"h\u00e9 \u2713 \U0001F600 \xd800";
	nvtxMarkEx(&a);
	CHECK_EQ_U64(nvtxRangePop(), 0);
	CHECK_EQ_U64(ntaps, 3);
	CHECK_EQ_U64(taps[0].t.color, 0xff00ff80);
	CHECK_EQ_U64(taps[0].t.category, 7);
	CHECK_EQ_U64(taps[0].t.payload_type, NVTX_PAYLOAD_TYPE_UNSIGNED_INT64);
	CHECK_EQ_U64(taps[0].t.payload, 0x1122334455667788ull);
	CHECK_STR(taps[0].text, "colored");
	CHECK_EQ_U64(taps[1].t.op, GR_NVTX_MARK);
	CHECK_EQ_U64(taps[1].t.color, 0);
	CHECK_EQ_U64(taps[1].t.payload_type, NVTX_PAYLOAD_TYPE_INT32);
	CHECK_EQ_U64(taps[1].t.payload, 0xfffffffbu);
	CHECK_STR(taps[1].text, "h\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 \xef\xbf\xbd");
}

static void test_long_unicode(void)
{
	wchar_t w[400];

	reset();
	/* 399 three-byte characters: cut at a character's end, under the library's 512 bytes */
	for (int i = 0; i < 399; i++)
		w[i] = 0x2713;
	w[399] = 0;
	nvtxMarkW(w);
	CHECK_EQ_U64(ntaps, 1);
	CHECK_EQ_U64(strlen(taps[0].text), 510);
	CHECK_STR(taps[0].text + 507, "\xe2\x9c\x93");
}

struct ender {
	nvtxDomainHandle_t domain;
	nvtxRangeId_t id;
	pid_t tid;
};

static void *end_elsewhere(void *p)
{
	struct ender *e = p;

	e->tid = (pid_t)syscall(SYS_gettid);
	nvtxNameOsThreadA((uint32_t)e->tid, "ender");
	nvtxDomainRangeEnd(e->domain, e->id);
	/* a thread's own nesting: this thread has nothing open in the default domain */
	CHECK_EQ_U64(nvtxRangePushA("other"), 0);
	CHECK_EQ_U64(nvtxRangePop(), 0);
	return NULL;
}

static void test_domains(void)
{
	nvtxEventAttributes_t a = attrs();
	nvtxDomainHandle_t io;
	nvtxStringHandle_t reg;
	nvtxRangeId_t id1, id2;
	struct ender e;
	pthread_t th;
	uint64_t dom;

	reset();
	io = nvtxDomainCreateA("io");
	CHECK(io != NULL);
	CHECK_EQ_U64(ntaps, 1);
	CHECK_EQ_U64(taps[0].t.op, GR_NVTX_NAME_DOMAIN);
	CHECK_STR(taps[0].text, "io");
	dom = taps[0].t.domain;
	CHECK(dom != 0);
	/* registering a string is no event: it is resolved where it is used */
	reg = nvtxDomainRegisterStringA(io, "registered read");
	CHECK(reg != NULL);
	CHECK_EQ_U64(ntaps, 1);
	nvtxDomainNameCategoryA(io, 3, "disk");
	CHECK_EQ_U64(taps[1].t.op, GR_NVTX_NAME_CATEGORY);
	CHECK_EQ_U64(taps[1].t.domain, dom);
	CHECK_EQ_U64(taps[1].t.id, 3);
	CHECK_STR(taps[1].text, "disk");

	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	a.category = 3;
	id1 = nvtxDomainRangeStartEx(io, &a);
	id2 = nvtxRangeStartA("plain");
	CHECK(id1 != 0 && id2 != 0 && id1 != id2);
	CHECK_EQ_U64(taps[2].t.op, GR_NVTX_START);
	CHECK_EQ_U64(taps[2].t.domain, dom);
	CHECK_EQ_U64(taps[2].t.id, id1);
	CHECK_EQ_U64(taps[2].t.category, 3);
	CHECK_STR(taps[2].text, "registered read");
	CHECK_EQ_U64(taps[3].t.domain, 0);
	CHECK_EQ_U64(taps[3].t.id, id2);

	/* a domain's nesting is its own: the default domain's level is not the domain's */
	CHECK_EQ_U64(nvtxRangePushA("outer"), 0);
	a = attrs();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "in io";
	CHECK_EQ_U64(nvtxDomainRangePushEx(io, &a), 0);
	CHECK_EQ_U64(nvtxDomainRangePushEx(io, &a), 1);
	CHECK_EQ_U64(nvtxDomainRangePop(io), 1);
	CHECK_EQ_U64(nvtxDomainRangePop(io), 0);
	CHECK_EQ_U64(nvtxRangePop(), 0);
	CHECK_EQ_U64(taps[8].t.op, GR_NVTX_POP);
	CHECK_EQ_U64(taps[8].t.domain, dom);
	CHECK_EQ_U64(taps[9].t.domain, 0);

	e.domain = io;
	e.id = id1;
	CHECK(!pthread_create(&th, NULL, end_elsewhere, &e));
	pthread_join(th, NULL);
	nvtxRangeEnd(id2);
	CHECK_EQ_U64(ntaps, 15);
	CHECK_EQ_U64(taps[10].t.op, GR_NVTX_NAME_THREAD);
	CHECK_EQ_U64(taps[10].t.id, (uint64_t)e.tid);
	CHECK_STR(taps[10].text, "ender");
	CHECK_EQ_U64(taps[11].t.op, GR_NVTX_END);
	CHECK_EQ_U64(taps[11].t.id, id1);
	CHECK_EQ_U64(taps[11].t.domain, dom);
	CHECK_EQ_U64(taps[11].tid, e.tid);
	CHECK_EQ_U64(taps[14].t.op, GR_NVTX_END);
	CHECK_EQ_U64(taps[14].t.id, id2);
	CHECK_EQ_U64(taps[14].t.domain, 0);
	nvtxDomainDestroy(io);
	CHECK_EQ_U64(ntaps, 15);

	/* a handle the library never gave is not dereferenced: the default domain, no text */
	a = attrs();
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = (nvtxStringHandle_t)0x10;
	CHECK_EQ_U64(nvtxDomainRangePushEx((nvtxDomainHandle_t)0x8, &a), 0);
	CHECK_EQ_U64(nvtxRangePop(), 0);
	CHECK_EQ_U64(ntaps, 17);
	CHECK_EQ_U64(taps[15].t.domain, 0);
	CHECK(!taps[15].has_text);
}

static void test_names(void)
{
	reset();
	nvtxNameCategoryA(12, "compute");
	nvtxNameCategoryW(13, L"\u00fcber");
	nvtxNameCudaStreamA((cudaStream_t)0x5000, "copies");
	nvtxNameCuStreamW((CUstream)0x6000, L"s\u00e9");
	nvtxNameCudaDeviceA(1, "gpu one");
	nvtxNameCuDeviceA(2, "gpu two");
	CHECK_EQ_U64(ntaps, 6);
	CHECK_EQ_U64(taps[0].t.op, GR_NVTX_NAME_CATEGORY);
	CHECK_EQ_U64(taps[0].t.id, 12);
	CHECK_STR(taps[0].text, "compute");
	CHECK_STR(taps[1].text, "\xc3\xbc"
				"ber");
	CHECK_EQ_U64(taps[2].t.op, GR_NVTX_NAME_STREAM);
	CHECK_EQ_U64(taps[2].t.id, 0x5000);
	CHECK_STR(taps[2].text, "copies");
	CHECK_EQ_U64(taps[3].t.op, GR_NVTX_NAME_STREAM);
	CHECK_EQ_U64(taps[3].t.id, 0x6000);
	CHECK_STR(taps[3].text, "s\xc3\xa9");
	CHECK_EQ_U64(taps[4].t.op, GR_NVTX_NAME_DEVICE);
	CHECK_EQ_U64(taps[4].t.id, 1);
	CHECK_EQ_U64(taps[5].t.id, 2);
	CHECK_STR(taps[5].text, "gpu two");
}

/* many threads pushing and starting at once: every call tapped once, every id unique */
#define THREADS 4
#define ROUNDS	200
static nvtxRangeId_t ids[THREADS][ROUNDS];

static void *busy(void *p)
{
	nvtxRangeId_t *mine = p;

	for (int i = 0; i < ROUNDS; i++) {
		if (nvtxRangePushA("busy") != 0 || nvtxRangePop() != 0)
			mine[0] = 0; /* seen as a failure below */
		mine[i] = nvtxRangeStartA("r");
		nvtxRangeEnd(mine[i]);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[THREADS];
	int dup = 0;

	reset();
	for (int t = 0; t < THREADS; t++)
		CHECK(!pthread_create(&th[t], NULL, busy, ids[t]));
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	CHECK_EQ_U64(ntaps, THREADS * ROUNDS * 4);
	for (int i = 0; i < THREADS * ROUNDS; i++)
		for (int j = i + 1; j < THREADS * ROUNDS; j++)
			dup += ids[i / ROUNDS][i % ROUNDS] == ids[j / ROUNDS][j % ROUNDS];
	CHECK_EQ_U64(dup, 0);
	for (int t = 0; t < THREADS; t++)
		CHECK(ids[t][0] != 0);
}

int main(void)
{
	/* the tool is the one linked here, not one the environment names */
	unsetenv("NVTX_INJECTION64_PATH");
	unsetenv("GPUREC_NVTX_CHAIN");
	RUN_TEST(test_push_pop);
	RUN_TEST(test_attributes);
	RUN_TEST(test_long_unicode);
	RUN_TEST(test_domains);
	RUN_TEST(test_names);
	RUN_TEST(test_threads);
	TEST_EXIT();
}
