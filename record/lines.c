/* SPDX-License-Identifier: MIT */
/* Source lines from a binary's DWARF line tables: lines.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"

/* One address range of a compilation unit's code, for files without .debug_aranges. */
struct range {
	uint64_t lo, hi;
	Dwarf_Off unit; /* the unit's DIE */
};

/* What one file's index may hold: the recorder's memory stays bounded on any input. */
#define MAX_RANGES (1u << 18)

struct gr_lines {
	Dwarf *dw;
	int indexed;	      /* the ranges below were gathered (once, at the first miss) */
	struct range *ranges; /* sorted by lo */
	size_t nranges;
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
	free(l->ranges);
	free(l);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Every unit's code ranges, sorted: a file without .debug_aranges (clang leaves it out) would
 * otherwise cost a walk over all its units for each frame. Out of memory, or past MAX_RANGES,
 * what was gathered is kept: a unit left out gives its frames no line, nothing worse.
 */
static void index_units(struct gr_lines *l)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	Dwarf_Die cu;

	l->indexed = 1;
	while (l->nranges < MAX_RANGES &&
	       dwarf_nextcu(l->dw, off, &next, &hsize, NULL, NULL, NULL) == 0 && next > off) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t at = 0;

		if (dwarf_offdie(l->dw, off + hsize, &cu)) {
			while (l->nranges < MAX_RANGES &&
			       (at = dwarf_ranges(&cu, at, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (l->nranges == cap) {
					size_t ncap = cap ? 2 * cap : 64;
					struct range *r = realloc(l->ranges, ncap * sizeof(*r));

					if (!r)
						goto out;
					l->ranges = r;
					cap = ncap;
				}
				l->ranges[l->nranges++] = (struct range){lo, hi, off + hsize};
			}
		}
		off = next;
	}
out:
	if (l->nranges)
		qsort(l->ranges, l->nranges, sizeof(*l->ranges), cmp_range);
}

/*
 * The compilation unit whose code holds @vaddr, into *@cu: 0, or -ENOENT. .debug_aranges
 * answers where the compiler wrote it; otherwise the units' own ranges, indexed once.
 */
static int unit_of(struct gr_lines *l, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t lo = 0, hi;

	if (dwarf_addrdie(l->dw, vaddr, cu))
		return 0;
	if (!l->indexed)
		index_units(l);
	/* the last range starting at or before @vaddr */
	hi = l->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->ranges[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= l->ranges[lo - 1].hi)
		return -ENOENT;
	return dwarf_offdie(l->dw, l->ranges[lo - 1].unit, cu) ? 0 : -ENOENT;
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
