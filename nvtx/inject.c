/* SPDX-License-Identifier: MIT */
/*
 * libgpurec_nvtx.so: the NVTX tool `gpurec record` gives the traced command through
 * NVTX_INJECTION64_PATH. At a program's first NVTX call its NVTX copy (NVTX v3 is header-only:
 * every library built with it has its own) dlopens this library and calls
 * InitializeInjectionNvtx2(); we fill its callback tables with the handlers below. Each handler
 * does what the NVTX API promises a tool does (push returns the nesting level, start a unique
 * id, register-string a handle that names the text) and ends in exactly one call to the tap
 * (tap.h), whose argument is what the recorder's uprobe reads. Calls that have no gr_nvtx_op
 * (domain destroy, resources, sync, context and event names) get no handler: NVTX makes them
 * no-ops.
 *
 * Unprobed, the library costs the program the handler and the empty tap, and changes nothing it
 * sees. It never prints but for one line when the user's own NVTX tool cannot be loaded.
 *
 * The user's own tool (GPUREC_NVTX_CHAIN: the NVTX_INJECTION64_PATH the user had set, moved
 * there by the recorder) keeps working: it is loaded and initialised first, on the same export
 * table; every slot it filled is then called after ours, and its return value is the program's.
 * The program so holds the user's tool's domain and string handles where it made any: ours are
 * found from theirs in a list.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "format/events.h"
#include "tap.h"

#define EXPORT __attribute__((visibility("default")))

/* the variable the recorder moves the user's NVTX_INJECTION64_PATH to */
#define CHAIN_ENV "GPUREC_NVTX_CHAIN"
/* a message converted to UTF-8 is cut here (at a character's end): the recorder keeps less */
#define TEXT_MAX     512
#define DOMAIN_MAGIC 0x6e76747864u /* "nvtxd" */
#define STRING_MAGIC 0x6e76747873u /* "nvtxs" */

struct nvtxDomainRegistration_st {
	uint64_t magic;
	uint32_t index; /* of the per-thread nesting levels; 0 is the default domain's */
};

struct nvtxStringRegistration_st {
	uint64_t magic;
	char text[]; /* UTF-8 */
};

/*
 * Every handle the program holds -> ours: the user's tool's where it gave one, else ours itself.
 * Appended to, never freed (handles live as long as the process). A handle not in it is not
 * dereferenced: a program may pass anything.
 */
struct alias {
	const void *theirs;
	void *ours;
	struct alias *next;
};

static struct alias *aliases;
static uint32_t domains = 1; /* domain indices handed out, the default domain's included */
static uint64_t range_ids;
static pthread_key_t levels_key;
static pthread_once_t levels_once = PTHREAD_ONCE_INIT;
static pthread_once_t chain_once = PTHREAD_ONCE_INIT;
static NvtxInitializeInjectionNvtxFunc_t chain_init;

/* per thread: the push nesting level of each domain, by index; freed at the thread's exit */
static __thread int *levels;
static __thread uint32_t nlevels;

/* the user's tool's functions, by callback id: NULL where it filled nothing */
static NvtxFunctionPointer next_core[NVTX_CBID_CORE_SIZE];
static NvtxFunctionPointer next_core2[NVTX_CBID_CORE2_SIZE];
static NvtxFunctionPointer next_cuda[NVTX_CBID_CUDA_SIZE];
static NvtxFunctionPointer next_cudart[NVTX_CBID_CUDART_SIZE];

#define NEXT(table, cbid, type) ((type)(table)[cbid])

void gpurec_nvtx_tap(const struct gr_nvtx_tap *t);

static void *ours(const void *handle)
{
	for (const struct alias *a = __atomic_load_n(&aliases, __ATOMIC_ACQUIRE); a; a = a->next)
		if (a->theirs == handle)
			return a->ours;
	return NULL;
}

/* Of a handle the program passed: our domain, or NULL for the default domain (or a stranger). */
static const struct nvtxDomainRegistration_st *domain_of(nvtxDomainHandle_t h)
{
	const struct nvtxDomainRegistration_st *d = h ? ours(h) : NULL;

	return d && d->magic == DOMAIN_MAGIC ? d : NULL;
}

/* what the program is given for @mine: the user's tool's handle @theirs if any, else ours */
static void *hand_out(const void *theirs, void *mine)
{
	struct alias *a = malloc(sizeof(*a));

	if (!a)
		return (void *)theirs;
	a->theirs = theirs ? theirs : mine;
	a->ours = mine;
	a->next = __atomic_load_n(&aliases, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&aliases, &a->next, a, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return (void *)a->theirs;
}

static uint64_t domain_value(const struct nvtxDomainRegistration_st *d)
{
	return (uint64_t)(uintptr_t)d;
}

/* UTF-32 (Linux's wchar_t) to UTF-8 in @buf, cut at a character's end; bad code points as U+FFFD */
static const char *utf8(const wchar_t *w, char *buf, size_t size)
{
	size_t n = 0;

	if (!w)
		return NULL;
	for (; *w; w++) {
		uint32_t c = (uint32_t)*w;
		size_t len = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;

		if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff) {
			c = 0xfffd;
			len = 3;
		}
		if (n + len >= size)
			break;
		if (len == 1) {
			buf[n++] = (char)c;
			continue;
		}
		for (size_t i = len - 1; i > 0; i--) {
			buf[n + i] = (char)(0x80 | (c & 0x3f));
			c >>= 6;
		}
		buf[n] = (char)((len == 2 ? 0xc0 : len == 3 ? 0xe0 : 0xf0) | c);
		n += len;
	}
	buf[n] = 0;
	return buf;
}

/* What an event's attributes say: colour, category, payload, message (into @buf if converted). */
static void attributes(struct gr_nvtx_tap *t, const nvtxEventAttributes_t *a, char *buf)
{
	const struct nvtxStringRegistration_st *s;

	/* a producer of an older, smaller structure: none of its fields can be trusted */
	if (!a || a->size < sizeof(*a))
		return;
	t->category = a->category;
	t->color = a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
	t->payload_type = a->payloadType > 0 ? (uint32_t)a->payloadType : 0;
	switch (a->payloadType) {
	case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
	case NVTX_PAYLOAD_TYPE_INT32:
	case NVTX_PAYLOAD_TYPE_FLOAT:
		/* the union's other half is whatever the program's stack held */
		t->payload = a->payload.uiValue;
		break;
	default:
		t->payload = a->payload.ullValue;
	}
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		t->text = a->message.ascii;
		break;
	case NVTX_MESSAGE_TYPE_UNICODE:
		t->text = utf8(a->message.unicode, buf, TEXT_MAX);
		break;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		s = a->message.registered ? ours(a->message.registered) : NULL;
		t->text = s && s->magic == STRING_MAGIC ? s->text : NULL;
		break;
	}
}

static void free_levels(void *p)
{
	free(p);
}

static void make_levels_key(void)
{
	pthread_key_create(&levels_key, free_levels);
}

/* this thread's nesting level of domain @d, or NULL when there is no memory for it */
static int *level_of(const struct nvtxDomainRegistration_st *d)
{
	uint32_t i = d ? d->index : 0;

	if (i >= nlevels) {
		uint32_t n = (i + 16) & ~15u;
		int *p = realloc(levels, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + nlevels, 0, (n - nlevels) * sizeof(*p));
		levels = p;
		nlevels = n;
		pthread_setspecific(levels_key, p);
	}
	return &levels[i];
}

static int push(const struct nvtxDomainRegistration_st *d, const nvtxEventAttributes_t *a,
		const char *text)
{
	char buf[TEXT_MAX];
	struct gr_nvtx_tap t = {.domain = domain_value(d), .op = GR_NVTX_PUSH, .text = text};
	int *level = level_of(d);
	int ret = level ? (*level)++ : -1;

	attributes(&t, a, buf);
	t.id = (uint64_t)(int64_t)ret;
	gpurec_nvtx_tap(&t);
	return ret;
}

static int pop(const struct nvtxDomainRegistration_st *d)
{
	struct gr_nvtx_tap t = {.domain = domain_value(d), .op = GR_NVTX_POP};
	int *level = level_of(d);
	/* a pop with nothing open is an error the API reports as negative; the recorder counts it
	 */
	int ret = level && *level > 0 ? --(*level) : -1;

	gpurec_nvtx_tap(&t);
	return ret;
}

/*
 * @theirs: the id the user's tool returned (0 none). The program ends the range with the id it
 * holds, so that one is recorded: the tool's where it gave one, else ours.
 */
static nvtxRangeId_t start(const struct nvtxDomainRegistration_st *d,
			   const nvtxEventAttributes_t *a, const char *text, nvtxRangeId_t theirs)
{
	char buf[TEXT_MAX];
	struct gr_nvtx_tap t = {.domain = domain_value(d), .op = GR_NVTX_START, .text = text};

	attributes(&t, a, buf);
	t.id = theirs ? theirs : __atomic_add_fetch(&range_ids, 1, __ATOMIC_RELAXED);
	gpurec_nvtx_tap(&t);
	return t.id;
}

static void end(const struct nvtxDomainRegistration_st *d, nvtxRangeId_t id)
{
	struct gr_nvtx_tap t = {.domain = domain_value(d), .op = GR_NVTX_END, .id = id};

	gpurec_nvtx_tap(&t);
}

static void mark(const struct nvtxDomainRegistration_st *d, const nvtxEventAttributes_t *a,
		 const char *text)
{
	char buf[TEXT_MAX];
	struct gr_nvtx_tap t = {.domain = domain_value(d), .op = GR_NVTX_MARK, .text = text};

	attributes(&t, a, buf);
	gpurec_nvtx_tap(&t);
}

static void name(uint32_t op, const struct nvtxDomainRegistration_st *d, uint64_t id,
		 const char *text)
{
	struct gr_nvtx_tap t = {.domain = domain_value(d), .op = op, .id = id, .text = text};

	if (op == GR_NVTX_NAME_CATEGORY)
		t.category = (uint32_t)id;
	gpurec_nvtx_tap(&t);
}

/* --- the handlers, one per callback slot: ours, then the user's tool's if it filled the slot ---
 */

#define CORE_NEXT(cbid, type, ...)                                                                 \
	(next_core[NVTX_CBID_CORE_##cbid]                                                          \
	     ? NEXT(next_core, NVTX_CBID_CORE_##cbid, type)(__VA_ARGS__)                           \
	     : 0)
#define CORE2_NEXT(cbid, type, ...)                                                                \
	(next_core2[NVTX_CBID_CORE2_##cbid]                                                        \
	     ? NEXT(next_core2, NVTX_CBID_CORE2_##cbid, type)(__VA_ARGS__)                         \
	     : 0)

static void mark_ex(const nvtxEventAttributes_t *a)
{
	mark(NULL, a, NULL);
	if (next_core[NVTX_CBID_CORE_MarkEx])
		NEXT(next_core, NVTX_CBID_CORE_MarkEx, nvtxMarkEx_impl_fntype)(a);
}

static void mark_a(const char *msg)
{
	mark(NULL, NULL, msg);
	if (next_core[NVTX_CBID_CORE_MarkA])
		NEXT(next_core, NVTX_CBID_CORE_MarkA, nvtxMarkA_impl_fntype)(msg);
}

static void mark_w(const wchar_t *msg)
{
	char buf[TEXT_MAX];

	mark(NULL, NULL, utf8(msg, buf, sizeof(buf)));
	if (next_core[NVTX_CBID_CORE_MarkW])
		NEXT(next_core, NVTX_CBID_CORE_MarkW, nvtxMarkW_impl_fntype)(msg);
}

static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a)
{
	return start(NULL, a, NULL, CORE_NEXT(RangeStartEx, nvtxRangeStartEx_impl_fntype, a));
}

static nvtxRangeId_t start_a(const char *msg)
{
	return start(NULL, NULL, msg, CORE_NEXT(RangeStartA, nvtxRangeStartA_impl_fntype, msg));
}

static nvtxRangeId_t start_w(const wchar_t *msg)
{
	char buf[TEXT_MAX];
	nvtxRangeId_t theirs = CORE_NEXT(RangeStartW, nvtxRangeStartW_impl_fntype, msg);

	return start(NULL, NULL, utf8(msg, buf, sizeof(buf)), theirs);
}

static void end_(nvtxRangeId_t id)
{
	end(NULL, id);
	if (next_core[NVTX_CBID_CORE_RangeEnd])
		NEXT(next_core, NVTX_CBID_CORE_RangeEnd, nvtxRangeEnd_impl_fntype)(id);
}

static int push_ex(const nvtxEventAttributes_t *a)
{
	int level = push(NULL, a, NULL);

	return next_core[NVTX_CBID_CORE_RangePushEx]
		   ? NEXT(next_core, NVTX_CBID_CORE_RangePushEx, nvtxRangePushEx_impl_fntype)(a)
		   : level;
}

static int push_a(const char *msg)
{
	int level = push(NULL, NULL, msg);

	return next_core[NVTX_CBID_CORE_RangePushA]
		   ? NEXT(next_core, NVTX_CBID_CORE_RangePushA, nvtxRangePushA_impl_fntype)(msg)
		   : level;
}

static int push_w(const wchar_t *msg)
{
	char buf[TEXT_MAX];
	int level = push(NULL, NULL, utf8(msg, buf, sizeof(buf)));

	return next_core[NVTX_CBID_CORE_RangePushW]
		   ? NEXT(next_core, NVTX_CBID_CORE_RangePushW, nvtxRangePushW_impl_fntype)(msg)
		   : level;
}

static int pop_(void)
{
	int level = pop(NULL);

	return next_core[NVTX_CBID_CORE_RangePop]
		   ? NEXT(next_core, NVTX_CBID_CORE_RangePop, nvtxRangePop_impl_fntype)()
		   : level;
}

static void name_category_a(uint32_t category, const char *s)
{
	name(GR_NVTX_NAME_CATEGORY, NULL, category, s);
	if (next_core[NVTX_CBID_CORE_NameCategoryA])
		NEXT(next_core, NVTX_CBID_CORE_NameCategoryA, nvtxNameCategoryA_impl_fntype)
	(category, s);
}

static void name_category_w(uint32_t category, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_CATEGORY, NULL, category, utf8(s, buf, sizeof(buf)));
	if (next_core[NVTX_CBID_CORE_NameCategoryW])
		NEXT(next_core, NVTX_CBID_CORE_NameCategoryW, nvtxNameCategoryW_impl_fntype)
	(category, s);
}

static void name_thread_a(uint32_t tid, const char *s)
{
	name(GR_NVTX_NAME_THREAD, NULL, tid, s);
	if (next_core[NVTX_CBID_CORE_NameOsThreadA])
		NEXT(next_core, NVTX_CBID_CORE_NameOsThreadA, nvtxNameOsThreadA_impl_fntype)
	(tid, s);
}

static void name_thread_w(uint32_t tid, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_THREAD, NULL, tid, utf8(s, buf, sizeof(buf)));
	if (next_core[NVTX_CBID_CORE_NameOsThreadW])
		NEXT(next_core, NVTX_CBID_CORE_NameOsThreadW, nvtxNameOsThreadW_impl_fntype)
	(tid, s);
}

static void domain_mark_ex(nvtxDomainHandle_t h, const nvtxEventAttributes_t *a)
{
	mark(domain_of(h), a, NULL);
	if (next_core2[NVTX_CBID_CORE2_DomainMarkEx])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainMarkEx, nvtxDomainMarkEx_impl_fntype)(h, a);
}

static nvtxRangeId_t domain_start_ex(nvtxDomainHandle_t h, const nvtxEventAttributes_t *a)
{
	nvtxRangeId_t theirs =
	    CORE2_NEXT(DomainRangeStartEx, nvtxDomainRangeStartEx_impl_fntype, h, a);

	return start(domain_of(h), a, NULL, theirs);
}

static void domain_end(nvtxDomainHandle_t h, nvtxRangeId_t id)
{
	end(domain_of(h), id);
	if (next_core2[NVTX_CBID_CORE2_DomainRangeEnd])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainRangeEnd, nvtxDomainRangeEnd_impl_fntype)
	(h, id);
}

static int domain_push_ex(nvtxDomainHandle_t h, const nvtxEventAttributes_t *a)
{
	int level = push(domain_of(h), a, NULL);

	return next_core2[NVTX_CBID_CORE2_DomainRangePushEx]
		   ? NEXT(next_core2, NVTX_CBID_CORE2_DomainRangePushEx,
			  nvtxDomainRangePushEx_impl_fntype)(h, a)
		   : level;
}

static int domain_pop(nvtxDomainHandle_t h)
{
	int level = pop(domain_of(h));

	return next_core2[NVTX_CBID_CORE2_DomainRangePop]
		   ? NEXT(next_core2, NVTX_CBID_CORE2_DomainRangePop,
			  nvtxDomainRangePop_impl_fntype)(h)
		   : level;
}

static void domain_name_category_a(nvtxDomainHandle_t h, uint32_t category, const char *s)
{
	name(GR_NVTX_NAME_CATEGORY, domain_of(h), category, s);
	if (next_core2[NVTX_CBID_CORE2_DomainNameCategoryA])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainNameCategoryA,
		     nvtxDomainNameCategoryA_impl_fntype)
	(h, category, s);
}

static void domain_name_category_w(nvtxDomainHandle_t h, uint32_t category, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_CATEGORY, domain_of(h), category, utf8(s, buf, sizeof(buf)));
	if (next_core2[NVTX_CBID_CORE2_DomainNameCategoryW])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainNameCategoryW,
		     nvtxDomainNameCategoryW_impl_fntype)
	(h, category, s);
}

/* A registered string: ours holds the UTF-8 text, found again from the handle at each use. */
static nvtxStringHandle_t register_string(const char *text, const void *theirs)
{
	size_t len = text ? strlen(text) : 0;
	struct nvtxStringRegistration_st *s = malloc(sizeof(*s) + len + 1);

	if (!s)
		return (nvtxStringHandle_t)theirs;
	s->magic = STRING_MAGIC;
	memcpy(s->text, text ? text : "", len + 1);
	return hand_out(theirs, s);
}

static nvtxStringHandle_t register_string_a(nvtxDomainHandle_t h, const char *text)
{
	const void *theirs =
	    CORE2_NEXT(DomainRegisterStringA, nvtxDomainRegisterStringA_impl_fntype, h, text);

	return register_string(text, theirs);
}

static nvtxStringHandle_t register_string_w(nvtxDomainHandle_t h, const wchar_t *text)
{
	char buf[TEXT_MAX];
	const void *theirs =
	    CORE2_NEXT(DomainRegisterStringW, nvtxDomainRegisterStringW_impl_fntype, h, text);

	return register_string(utf8(text, buf, sizeof(buf)), theirs);
}

/* A domain: ours is never freed (its address names it in the recording); destroy is a no-op. */
static nvtxDomainHandle_t create_domain(const char *text, const void *theirs)
{
	struct nvtxDomainRegistration_st *d = malloc(sizeof(*d));

	if (!d)
		return (nvtxDomainHandle_t)theirs;
	d->magic = DOMAIN_MAGIC;
	d->index = __atomic_fetch_add(&domains, 1, __ATOMIC_RELAXED);
	name(GR_NVTX_NAME_DOMAIN, d, 0, text);
	return hand_out(theirs, d);
}

static nvtxDomainHandle_t create_domain_a(const char *text)
{
	return create_domain(text, CORE2_NEXT(DomainCreateA, nvtxDomainCreateA_impl_fntype, text));
}

static nvtxDomainHandle_t create_domain_w(const wchar_t *text)
{
	char buf[TEXT_MAX];

	return create_domain(utf8(text, buf, sizeof(buf)),
			     CORE2_NEXT(DomainCreateW, nvtxDomainCreateW_impl_fntype, text));
}

static void name_cu_device_a(nvtx_CUdevice dev, const char *s)
{
	name(GR_NVTX_NAME_DEVICE, NULL, (uint64_t)(uint32_t)dev, s);
	if (next_cuda[NVTX_CBID_CUDA_NameCuDeviceA])
		NEXT(next_cuda, NVTX_CBID_CUDA_NameCuDeviceA, nvtxNameCuDeviceA_fakeimpl_fntype)
	(dev, s);
}

static void name_cu_device_w(nvtx_CUdevice dev, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_DEVICE, NULL, (uint64_t)(uint32_t)dev, utf8(s, buf, sizeof(buf)));
	if (next_cuda[NVTX_CBID_CUDA_NameCuDeviceW])
		NEXT(next_cuda, NVTX_CBID_CUDA_NameCuDeviceW, nvtxNameCuDeviceW_fakeimpl_fntype)
	(dev, s);
}

static void name_cu_stream_a(nvtx_CUstream st, const char *s)
{
	name(GR_NVTX_NAME_STREAM, NULL, (uint64_t)(uintptr_t)st, s);
	if (next_cuda[NVTX_CBID_CUDA_NameCuStreamA])
		NEXT(next_cuda, NVTX_CBID_CUDA_NameCuStreamA, nvtxNameCuStreamA_fakeimpl_fntype)
	(st, s);
}

static void name_cu_stream_w(nvtx_CUstream st, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_STREAM, NULL, (uint64_t)(uintptr_t)st, utf8(s, buf, sizeof(buf)));
	if (next_cuda[NVTX_CBID_CUDA_NameCuStreamW])
		NEXT(next_cuda, NVTX_CBID_CUDA_NameCuStreamW, nvtxNameCuStreamW_fakeimpl_fntype)
	(st, s);
}

static void name_cuda_device_a(int dev, const char *s)
{
	name(GR_NVTX_NAME_DEVICE, NULL, (uint64_t)(uint32_t)dev, s);
	if (next_cudart[NVTX_CBID_CUDART_NameCudaDeviceA])
		NEXT(next_cudart, NVTX_CBID_CUDART_NameCudaDeviceA,
		     nvtxNameCudaDeviceA_fakeimpl_fntype)
	(dev, s);
}

static void name_cuda_device_w(int dev, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_DEVICE, NULL, (uint64_t)(uint32_t)dev, utf8(s, buf, sizeof(buf)));
	if (next_cudart[NVTX_CBID_CUDART_NameCudaDeviceW])
		NEXT(next_cudart, NVTX_CBID_CUDART_NameCudaDeviceW,
		     nvtxNameCudaDeviceW_fakeimpl_fntype)
	(dev, s);
}

static void name_cuda_stream_a(nvtx_cudaStream_t st, const char *s)
{
	name(GR_NVTX_NAME_STREAM, NULL, (uint64_t)(uintptr_t)st, s);
	if (next_cudart[NVTX_CBID_CUDART_NameCudaStreamA])
		NEXT(next_cudart, NVTX_CBID_CUDART_NameCudaStreamA,
		     nvtxNameCudaStreamA_fakeimpl_fntype)
	(st, s);
}

static void name_cuda_stream_w(nvtx_cudaStream_t st, const wchar_t *s)
{
	char buf[TEXT_MAX];

	name(GR_NVTX_NAME_STREAM, NULL, (uint64_t)(uintptr_t)st, utf8(s, buf, sizeof(buf)));
	if (next_cudart[NVTX_CBID_CUDART_NameCudaStreamW])
		NEXT(next_cudart, NVTX_CBID_CUDART_NameCudaStreamW,
		     nvtxNameCudaStreamW_fakeimpl_fntype)
	(st, s);
}

/* --- initialisation --- */

struct slot {
	uint32_t cbid;
	NvtxFunctionPointer fn;
};

#define SLOT(mod, cbid, fn)                                                                        \
	{                                                                                          \
		NVTX_CBID_##mod##_##cbid, (NvtxFunctionPointer)(fn)                                \
	}

static const struct slot core_slots[] = {
    SLOT(CORE, MarkEx, mark_ex),
    SLOT(CORE, MarkA, mark_a),
    SLOT(CORE, MarkW, mark_w),
    SLOT(CORE, RangeStartEx, start_ex),
    SLOT(CORE, RangeStartA, start_a),
    SLOT(CORE, RangeStartW, start_w),
    SLOT(CORE, RangeEnd, end_),
    SLOT(CORE, RangePushEx, push_ex),
    SLOT(CORE, RangePushA, push_a),
    SLOT(CORE, RangePushW, push_w),
    SLOT(CORE, RangePop, pop_),
    SLOT(CORE, NameCategoryA, name_category_a),
    SLOT(CORE, NameCategoryW, name_category_w),
    SLOT(CORE, NameOsThreadA, name_thread_a),
    SLOT(CORE, NameOsThreadW, name_thread_w),
};

static const struct slot core2_slots[] = {
    SLOT(CORE2, DomainMarkEx, domain_mark_ex),
    SLOT(CORE2, DomainRangeStartEx, domain_start_ex),
    SLOT(CORE2, DomainRangeEnd, domain_end),
    SLOT(CORE2, DomainRangePushEx, domain_push_ex),
    SLOT(CORE2, DomainRangePop, domain_pop),
    SLOT(CORE2, DomainNameCategoryA, domain_name_category_a),
    SLOT(CORE2, DomainNameCategoryW, domain_name_category_w),
    SLOT(CORE2, DomainRegisterStringA, register_string_a),
    SLOT(CORE2, DomainRegisterStringW, register_string_w),
    SLOT(CORE2, DomainCreateA, create_domain_a),
    SLOT(CORE2, DomainCreateW, create_domain_w),
};

static const struct slot cuda_slots[] = {
    SLOT(CUDA, NameCuDeviceA, name_cu_device_a),
    SLOT(CUDA, NameCuDeviceW, name_cu_device_w),
    SLOT(CUDA, NameCuStreamA, name_cu_stream_a),
    SLOT(CUDA, NameCuStreamW, name_cu_stream_w),
};

static const struct slot cudart_slots[] = {
    SLOT(CUDART, NameCudaDeviceA, name_cuda_device_a),
    SLOT(CUDART, NameCudaDeviceW, name_cuda_device_w),
    SLOT(CUDART, NameCudaStreamA, name_cuda_stream_a),
    SLOT(CUDART, NameCudaStreamW, name_cuda_stream_w),
};

struct module {
	NvtxCallbackModule id;
	const struct slot *slots;
	size_t nslots;
	NvtxFunctionPointer *next; /* the user's tool's, by cbid */
	uint32_t nnext;
	NvtxFunctionPointer before[NVTX_CBID_CORE2_SIZE]; /* the slots before the user's tool ran */
};

#define MODULE(mod, s, n)                                                                          \
	{                                                                                          \
		.id = NVTX_CB_MODULE_##mod, .slots = s, .nslots = sizeof(s) / sizeof(s[0]),        \
		.next = n, .nnext = sizeof(n) / sizeof(n[0])                                       \
	}

static void load_chain(void)
{
	const char *path = getenv(CHAIN_ENV);
	void *lib;

	if (!path || !*path)
		return;
	lib = dlopen(path, RTLD_LAZY);
	if (lib)
		chain_init =
		    (NvtxInitializeInjectionNvtxFunc_t)dlsym(lib, "InitializeInjectionNvtx2");
	if (!chain_init)
		/* what NVTX would have done without us: the user's tool is not loaded */
		fprintf(
		    stderr,
		    "gpurec: NVTX_INJECTION64_PATH=%s: %s: the program's NVTX calls are recorded "
		    "without it\n",
		    path, lib ? "no InitializeInjectionNvtx2" : dlerror());
}

/*
 * NVTX's entry point: called once by each NVTX copy of the process (the program's, each
 * library's) with that copy's export table. Returns 1 (loaded), or 0 when the table is not one
 * we know, so that this copy stays without a tool.
 */
EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
	const NvtxExportTableCallbacks *cb;
	struct module mods[] = {
	    MODULE(CORE, core_slots, next_core),
	    MODULE(CORE2, core2_slots, next_core2),
	    MODULE(CUDA, cuda_slots, next_cuda),
	    MODULE(CUDART, cudart_slots, next_cudart),
	};
	NvtxFunctionTable tables[4] = {0};
	unsigned int sizes[4] = {0};
	int chained = 0;

	cb = get_table ? get_table(NVTX_ETID_CALLBACKS) : NULL;
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable)
		return 0;
	pthread_once(&levels_once, make_levels_key);
	pthread_once(&chain_once, load_chain);
	for (size_t m = 0; m < 4; m++) {
		if (!cb->GetModuleFunctionTable(mods[m].id, &tables[m], &sizes[m]) || !tables[m])
			sizes[m] = 0;
		for (size_t i = 0; i < mods[m].nslots; i++) {
			uint32_t id = mods[m].slots[i].cbid;

			if (id <= sizes[m] && tables[m][id])
				mods[m].before[id] = *tables[m][id];
		}
	}
	/* the user's tool first, on the same table: what it fills, it fills as without us */
	if (chain_init && !(chained = chain_init(get_table)))
		fprintf(stderr, "gpurec: the NVTX tool of NVTX_INJECTION64_PATH failed to "
				"initialise: the program's NVTX calls are recorded without it\n");
	for (size_t m = 0; m < 4; m++)
		for (size_t i = 0; i < mods[m].nslots; i++) {
			uint32_t id = mods[m].slots[i].cbid;

			if (id > sizes[m] || !tables[m][id])
				continue;
			/* a slot the user's tool changed holds its function: ours calls it */
			if (chained && *tables[m][id] != mods[m].before[id] && id < mods[m].nnext)
				mods[m].next[id] = *tables[m][id];
			*tables[m][id] = mods[m].slots[i].fn;
		}
	return 1;
}
