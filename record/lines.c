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

/*
 * Where code inlined at @vaddr was called from, in the function the symbol names: the call
 * site of the outermost inlined subroutine there (a kernel's host stub, which nvcc's -O1
 * inlines into the launching function, has the kernel's own line in the line table). 0, or
 * -ENOENT when no inlined code is there or its call site is not said.
 */
static int inlined_call(Dwarf_Die *cu, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Attribute a;
	Dwarf_Word fileno, lineno;
	Dwarf_Files *files;
	size_t nfiles;
	const char *src;
	int n = dwarf_getscopes(cu, vaddr, &scopes), err = -ENOENT;

	for (int i = n - 1; i >= 0; i--) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &lineno) ||
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &fileno) ||
		    !lineno || lineno > UINT32_MAX || dwarf_getsrcfiles(cu, &files, &nfiles) ||
		    fileno >= nfiles)
			break;
		src = dwarf_filesrc(files, fileno, NULL, NULL);
		if (src && *src) {
			*file = src;
			*line = (uint32_t)lineno;
			err = 0;
		}
		break;
	}
	free(scopes);
	return err;
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
