/* SPDX-License-Identifier: MIT */
/*
 * What the recorder needs from an ELF file (through libelf): function symbols by name (to place
 * uprobes) and by address (to name kernels and frames), load segments (address <-> file
 * offset), the build-id.
 */
#ifndef GR_RECORD_ELF_H
#define GR_RECORD_ELF_H

#include <stddef.h>
#include <stdint.h>

struct gr_elf;

/* Read the symbols and segments of the ELF file open at @fd (the caller keeps @fd). */
int gr_elf_open(struct gr_elf **out, int fd);
void gr_elf_free(struct gr_elf *e);

/* Position-independent (ET_DYN): addresses are relative to a load bias. */
int gr_elf_is_dyn(const struct gr_elf *e);

/* File offset of the function @name (for a uprobe), or a negative error when absent. */
int gr_elf_func_offset(const struct gr_elf *e, const char *name, uint64_t *offset);

/* Link-time address of the function @name, or a negative error when absent. */
int gr_elf_func_addr(const struct gr_elf *e, const char *name, uint64_t *vaddr);

/* Virtual address (as linked) of file offset @off, or a negative error outside any segment. */
int gr_elf_offset_to_vaddr(const struct gr_elf *e, uint64_t off, uint64_t *vaddr);

/*
 * The function symbol containing link-time address @vaddr: returns 0 and sets @name (owned by
 * @e, valid until gr_elf_free), @start and @size; a negative error when none does.
 */
int gr_elf_symbolize(const struct gr_elf *e, uint64_t vaddr, const char **name, uint64_t *start,
		     uint64_t *size);

/* The GNU build-id: number of bytes (0 when the file has none); *id points into @e. */
size_t gr_elf_build_id(const struct gr_elf *e, const uint8_t **id);

/* Call @fn for every function symbol name (each distinct address once). */
void gr_elf_for_each_func(const struct gr_elf *e, void (*fn)(const char *name, void *arg),
			  void *arg);

/* Whether the file has a section named @name (section headers only: no section is read). */
int gr_elf_has_section(const struct gr_elf *e, const char *name);

/* The size in bytes of the first section named @name; 0 when there is none. Headers only. */
uint64_t gr_elf_section_size(const struct gr_elf *e, const char *name);

/* Whether the dynamic symbol table lists @name as undefined: another library must define it. */
int gr_elf_imports(const struct gr_elf *e, const char *name);

/*
 * The data object @name that the dynamic symbol table defines: its link-time address and size.
 * Returns 0, or -ENOENT.
 */
int gr_elf_object(const struct gr_elf *e, const char *name, uint64_t *vaddr, uint64_t *size);

/*
 * Copy @n bytes of the file's initialised data at link-time address @vaddr into @buf: what a
 * variable holds before the program runs. -ENOENT when they are not all in the file (bss).
 */
int gr_elf_read(const struct gr_elf *e, uint64_t vaddr, void *buf, size_t n);

/* Demangle a C++ name into @buf; copies @name unchanged when it is not mangled. */
const char *gr_demangle(const char *name, char *buf, size_t size);

#endif
