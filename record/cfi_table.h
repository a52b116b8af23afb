/* SPDX-License-Identifier: MIT */
/*
 * Unwind tables for the default stacks (--call-graph cfi): from a binary's .eh_frame (through
 * libdw's CFI reader), the rows the BPF walk needs on x86-64 (struct gr_cfi_row, bpf/gpurec.h),
 * sorted by address, neighbours with the same rule merged. A rule the walk cannot follow (a
 * DWARF expression: PLT entries, signal trampolines) and the gaps between FDEs become
 * GR_CFI_NONE rows, where the walk takes a frame-pointer step.
 *
 * The files are those the traced program maps, read as root: every length and pointer of the
 * section is checked (tests/fuzz/fuzz_cfi.c).
 */
#ifndef GR_RECORD_CFI_TABLE_H
#define GR_RECORD_CFI_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/gpurec.h"

struct gr_cfi_table {
	struct gr_cfi_row *rows; /* sorted by pc, each pc once */
	size_t n;
	size_t fdes;	/* FDEs read */
	size_t skipped; /* FDEs left out: an encoding not understood, beyond 4 GiB */
};

/*
 * Build the table of the ELF file open at @fd (the caller keeps @fd) into @t, at most @max_rows
 * rows. Returns 0; -ENOENT when the file has no .eh_frame (or is no ELF file), -E2BIG past
 * @max_rows, -ENOMEM. On error @t is empty. Free with gr_cfi_table_free().
 */
int gr_cfi_table_build(int fd, size_t max_rows, struct gr_cfi_table *t);

/* The same from @size bytes of an ELF image in memory (the fuzz target). */
int gr_cfi_table_build_mem(const void *image, size_t size, size_t max_rows, struct gr_cfi_table *t);

/* The row that holds link-time address @pc, as the BPF walk finds it; NULL before the first. */
const struct gr_cfi_row *gr_cfi_table_find(const struct gr_cfi_table *t, uint32_t pc);

void gr_cfi_table_free(struct gr_cfi_table *t);

#endif
