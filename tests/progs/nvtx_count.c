/* SPDX-License-Identifier: MIT */
/*
 * A user's own NVTX tool, to show that gpurec's keeps it working (GPUREC_NVTX_CHAIN): it counts
 * the pushes, pops, starts and domains it sees, answers with values of its own that differ from
 * gpurec's (levels from 100, range ids from 5000, a domain handle of its own) so a test can tell
 * whose answer the program got, and prints its counts on stderr at exit:
 *   nvtx_count: pushes N pops N starts N ends N domains N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

static unsigned pushes, pops, starts, ends, domains;
static __thread int level;
static nvtxRangeId_t next_id = 5000;
static char domain_handles[16];

static int push_a(const char *m)
{
	(void)m;
	__atomic_add_fetch(&pushes, 1, __ATOMIC_RELAXED);
	return 100 + level++;
}

static int push_w(const wchar_t *m)
{
	(void)m;
	__atomic_add_fetch(&pushes, 1, __ATOMIC_RELAXED);
	return 100 + level++;
}

static int push_ex(const nvtxEventAttributes_t *a)
{
	(void)a;
	__atomic_add_fetch(&pushes, 1, __ATOMIC_RELAXED);
	return 100 + level++;
}

static int pop(void)
{
	__atomic_add_fetch(&pops, 1, __ATOMIC_RELAXED);
	return 100 + --level;
}

static nvtxRangeId_t domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	(void)a;
	/* the handle is ours: the program must have been given it */
	if ((char *)d < domain_handles || (char *)d >= domain_handles + sizeof(domain_handles))
		fprintf(stderr, "nvtx_count: a domain handle not its own: %p\n", (void *)d);
	__atomic_add_fetch(&starts, 1, __ATOMIC_RELAXED);
	return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

static void domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	(void)d;
	if (id < 5000)
		fprintf(stderr, "nvtx_count: an id not its own: %llu\n", (unsigned long long)id);
	__atomic_add_fetch(&ends, 1, __ATOMIC_RELAXED);
}

static nvtxDomainHandle_t domain_create(const char *name)
{
	unsigned n = __atomic_fetch_add(&domains, 1, __ATOMIC_RELAXED);

	(void)name;
	return (nvtxDomainHandle_t)&domain_handles[n % sizeof(domain_handles)];
}

static void report(void)
{
	fprintf(stderr, "nvtx_count: pushes %u pops %u starts %u ends %u domains %u\n", pushes,
		pops, starts, ends, domains);
}

static void fill(NvtxGetExportTableFunc_t get, NvtxCallbackModule mod, unsigned id,
		 NvtxFunctionPointer fn)
{
	const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
	NvtxFunctionTable table;
	unsigned size;

	if (cb && cb->GetModuleFunctionTable(mod, &table, &size) && id <= size && table[id])
		*table[id] = fn;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	static int once;

	if (!once++)
		atexit(report);
	fill(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)push_a);
	fill(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, (NvtxFunctionPointer)push_w);
	fill(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)push_ex);
	fill(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)pop);
	fill(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx,
	     (NvtxFunctionPointer)domain_start);
	fill(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd,
	     (NvtxFunctionPointer)domain_end);
	fill(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA,
	     (NvtxFunctionPointer)domain_create);
	return 1;
}
