/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a file the traced program maps, through the unwind-table builder
 * (record/cfi_table.h) as the recorder runs it (as root): .eh_frame read through libdw, FDE
 * pointers decoded here.
 *
 * Invariants: a failure leaves no table; a table is at most the cap, sorted with one row per
 * address and no two neighbours with the same rule; a row's kind is one the BPF walk knows, a
 * GR_CFI_NONE or GR_CFI_END row has no offsets; gr_cfi_table_find() gives each row for its
 * own address and the row before for the address before it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record/cfi_table.h"
#include "tests/fuzz/fuzz.h"

#define MAX_ROWS 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_cfi_table t;
	int err = gr_cfi_table_build_mem(data, size, MAX_ROWS, &t);

	if (err) {
		FUZZ_ASSERT(err < 0);
		FUZZ_ASSERT(!t.rows && !t.n);
		return 0;
	}
	FUZZ_ASSERT(t.n <= MAX_ROWS);
	for (size_t i = 0; i < t.n; i++) {
		const struct gr_cfi_row *r = &t.rows[i], *p = i ? &t.rows[i - 1] : NULL;
		unsigned cfa = r->kind & GR_CFI_CFA_MASK;

		FUZZ_ASSERT(!(r->kind & ~(GR_CFI_CFA_MASK | GR_CFI_RBP_SAVED)));
		if (cfa == GR_CFI_NONE || cfa == GR_CFI_END)
			FUZZ_ASSERT(r->kind == cfa && !r->cfa_off && !r->rbp_off);
		if (!(r->kind & GR_CFI_RBP_SAVED))
			FUZZ_ASSERT(!r->rbp_off);
		if (p) {
			FUZZ_ASSERT(p->pc < r->pc);
			FUZZ_ASSERT(p->kind != r->kind || p->cfa_off != r->cfa_off ||
				    p->rbp_off != r->rbp_off);
			FUZZ_ASSERT(gr_cfi_table_find(&t, r->pc - 1) == p);
		}
		FUZZ_ASSERT(gr_cfi_table_find(&t, r->pc) == r);
	}
	gr_cfi_table_free(&t);
	FUZZ_ASSERT(!t.rows && !t.n);
	return 0;
}
