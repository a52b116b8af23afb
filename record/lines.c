/* SPDX-License-Identifier: MIT */
/* Source lines from a binary's DWARF line tables: lines.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"

struct gr_lines {
	Dwarf *dw;
};

int gr_lines_open(struct gr_lines **out, int fd)
{
	struct gr_lines *l;
	Dwarf_Off off = 0, next;
	size_t hsize;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->dw = dwarf_begin(fd, DWARF_C_READ);
	/* a CU header at all: symbols alone (-g0, strip --strip-debug) give no line */
	if (!l->dw || dwarf_nextcu(l->dw, off, &next, &hsize, NULL, NULL, NULL) != 0) {
		gr_lines_free(l);
		return -ENOENT;
	}
	*out = l;
	return 0;
}

void gr_lines_free(struct gr_lines *l)
{
	if (!l)
		return;
	if (l->dw)
		dwarf_end(l->dw);
	free(l);
}

/*
 * The compilation unit whose code holds @vaddr, into *@cu: 0, or -ENOENT. .debug_aranges
 * answers at once where the compiler wrote it; without it (recent GCCs leave it out), each
 * unit's own ranges are asked.
 */
static int unit_of(struct gr_lines *l, uint64_t vaddr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(l->dw, vaddr, cu))
		return 0;
	while (dwarf_nextcu(l->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		/* a unit that ends before its header does would loop: libdw refuses it, still */
		if (next <= off)
			break;
		if (dwarf_offdie(l->dw, off + hsize, cu) && dwarf_haspc(cu, vaddr) > 0)
			return 0;
		off = next;
	}
	return -ENOENT;
}

/* How deep into nested scopes, and over how many DIEs, one lookup looks: hostile DWARF ends. */
#define SCOPE_DEPTH 32
#define SCOPE_DIES  (1u << 20)

/*
 * The outermost inlined subroutine holding @vaddr under @parent: 1 and *@out, 0 when none.
 * Functions, their blocks and namespaces (C++ definitions sit in them) are searched; libdw's
 * dwarf_getscopes() leaks on damaged input, so the walk is this file's.
 */
static int outer_inline(Dwarf_Die *parent, uint64_t vaddr, unsigned depth, unsigned *budget,
			Dwarf_Die *out)
{
	Dwarf_Die c;

	if (depth >= SCOPE_DEPTH || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (!*budget || !--*budget)
			return 0;
		if (tag == DW_TAG_inlined_subroutine && dwarf_haspc(&c, vaddr) > 0) {
			*out = c;
			return 1;
		}
		if (((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) &&
		     dwarf_haspc(&c, vaddr) > 0) ||
		    tag == DW_TAG_namespace) {
			if (outer_inline(&c, vaddr, depth + 1, budget, out))
				return 1;
			/* code is in one function: the one holding it said no */
			if (tag == DW_TAG_subprogram)
				return 0;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * Where code inlined at @vaddr was called from, in the function the symbol names: the call
 * site of the outermost inlined subroutine there (a kernel's host stub, which nvcc's -O1
 * inlines into the launching function, has the kernel's own line in the line table). 0, or
 * -ENOENT when no inlined code is there or its call site is not said.
 */
static int inlined_call(Dwarf_Die *cu, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwarf_Die in;
	Dwarf_Attribute a;
	Dwarf_Word fileno, lineno;
	Dwarf_Files *files;
	size_t nfiles;
	unsigned budget = SCOPE_DIES;
	const char *src;

	if (!outer_inline(cu, vaddr, 0, &budget, &in) ||
	    dwarf_formudata(dwarf_attr(&in, DW_AT_call_line, &a), &lineno) ||
	    dwarf_formudata(dwarf_attr(&in, DW_AT_call_file, &a), &fileno) || !lineno ||
	    lineno > UINT32_MAX || dwarf_getsrcfiles(cu, &files, &nfiles) || fileno >= nfiles)
		return -ENOENT;
	src = dwarf_filesrc(files, fileno, NULL, NULL);
	if (!src || !*src)
		return -ENOENT;
	*file = src;
	*line = (uint32_t)lineno;
	return 0;
}

int gr_lines_find(struct gr_lines *l, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwarf_Die cu;
	Dwarf_Line *row;
	const char *src;
	int n;

	if (!l || unit_of(l, vaddr, &cu))
		return -ENOENT;
	if (!inlined_call(&cu, vaddr, file, line))
		return 0;
	row = dwarf_getsrc_die(&cu, vaddr);
	if (!row || dwarf_lineno(row, &n) || n <= 0)
		return -ENOENT;
	src = dwarf_linesrc(row, NULL, NULL);
	if (!src || !*src)
		return -ENOENT;
	*file = src;
	*line = (uint32_t)n;
	return 0;
}
