/* SPDX-License-Identifier: MIT */
/*
 * Source lines of a traced binary's code, from its own DWARF line tables (through libdw), so
 * that a native frame reads `chain.cu:57 train_step` and not `train_step (chain)`. The file is
 * the traced program's: hostile input, read by root. Everything libdw returns is checked, and
 * a file whose DWARF libdw refuses reads as one without line tables.
 *
 * Ownership: strings returned point into the struct gr_lines, valid until gr_lines_free().
 */
#ifndef GR_RECORD_LINES_H
#define GR_RECORD_LINES_H

#include <stdint.h>

struct gr_lines;

/*
 * The line tables of the ELF file open at @fd (the caller keeps @fd): 0 and *@out, or
 * -ENOENT when it has none (host code built without -g, or stripped), or -ENOMEM.
 */
int gr_lines_open(struct gr_lines **out, int fd);
void gr_lines_free(struct gr_lines *l);

/*
 * File and line of the instruction at link-time address @vaddr (for a return address, pass
 * the address less one: the call, not what follows it). Inside code inlined there, the line is
 * the call site of the outermost inlined function: a line of the function that the symbol
 * names, as the frame is shown. Returns 0, *@file (a path as the
 * compiler wrote it, joined to the compilation directory when relative) and *@line (> 0), or
 * -ENOENT when the tables cover no such address.
 */
int gr_lines_find(struct gr_lines *l, uint64_t vaddr, const char **file, uint32_t *line);

#endif
