/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes through gr_model_load_mem(). It must fail cleanly (no model, a reason)
 * or give a model whose every index is in range, whose event arrays are sorted by ts and whose
 * names are all set. Records are capped so highly compressible input cannot exhaust memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/model/model.h"
#include "tests/fuzz/fuzz.h"

static void check_model(const struct gr_model *m)
{
	size_t nl, nk, nc, nt, ns, np, nn, nst, n;
	const struct gr_launch *l = gr_model_launches(m, &nl);
	const struct gr_launch_key *lk = gr_model_launch_keys(m, NULL);
	const struct gr_kernel *k = gr_model_kernels(m, &nk);
	const struct gr_thread *t = gr_model_threads(m, &nt);
	const char *const *names = gr_model_kernel_names(m, &nn);

	gr_model_configs(m, &nc);
	gr_model_streams(m, &ns);
	gr_model_processes(m, &np);
	const struct gr_stack *st = gr_model_stacks(m, &nst);
	FUZZ_ASSERT(nst >= 1 && st[0].id == 0 && st[0].nframes == 0);
	FUZZ_ASSERT(nl == gr_model_record_count(m, GR_K_LAUNCH));
	for (size_t i = 0; i < nl; i++) {
		FUZZ_ASSERT(lk[l[i].key].kernel < nk && lk[l[i].key].config < nc);
		FUZZ_ASSERT(lk[l[i].key].thread < nt && lk[l[i].key].stream < ns &&
			    lk[l[i].key].stack < nst);
		FUZZ_ASSERT(i == 0 || l[i - 1].ts <= l[i].ts);
	}
	for (size_t i = 0; i < nk; i++)
		FUZZ_ASSERT(k[i].name && k[i].name_id < nn && names[k[i].name_id] == k[i].name);
	for (size_t i = 0; i < nt; i++)
		FUZZ_ASSERT(t[i].comm && t[i].process < np);
	const struct gr_copy *c = gr_model_copies(m, &n);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(c[i].thread < nt && c[i].stream < ns &&
			    (i == 0 || c[i - 1].ts <= c[i].ts));
	for (size_t i = 1; i < nst; i++)
		FUZZ_ASSERT(gr_model_stack(m, st[i].pid, st[i].id) == &st[i]);
	const struct gr_symbol *sy = gr_model_symbols(m, &n);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(sy[i].name && gr_model_symbol(m, sy[i].pid, sy[i].addr) == &sy[i]);
	FUZZ_ASSERT(gr_model_header(m)->cmdline && gr_model_header(m)->host);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_model *m = NULL;
	struct gr_diag diag = {0};
	int err = gr_model_load_mem(&m, data, size, 1u << 20, &diag);

	if (err) {
		FUZZ_ASSERT(err < 0 && m == NULL);
		return 0;
	}
	FUZZ_ASSERT(m != NULL);
	check_model(m);
	gr_model_free(m);
	return 0;
}
