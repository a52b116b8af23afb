/* SPDX-License-Identifier: MIT */
/*
 * Library discovery: which executable files each traced process maps. Owns the process table
 * (struct gr_procs): every traced process with its executable mappings, and every file behind
 * them, kept open so it stays readable if deleted. A file is examined once, when the first
 * process maps it: record/attach.c probes the CUDA entry points it defines and tells the BPF
 * side it is known (so nobody is held for it again).
 *
 * Called by translate.c (a process forked, exec'd or mapped a file: record/translate.h) and
 * record.c (-p attaches, whether a -p process is left, the end); read by unwind.c and
 * symbols.c, which resolve addresses through it.
 */
#ifndef GR_RECORD_DISCOVER_H
#define GR_RECORD_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct gr_elf;
struct gr_attach;
struct gr_py_build;

/* A file some traced process mapped executable, kept open so it stays readable if deleted. */
struct gr_file {
	uint64_t dev, ino; /* dev in the kernel's encoding (MKDEV), as BPF sees it */
	int fd;
	char *path;
	struct gr_elf *elf;	/* NULL when not an ELF file */
	int probes;		/* probes attached to it (CUDA entry points found) */
	int own_runtime;	/* no probes, but CUDA code through a runtime copy of its own */
	struct gr_py_build *py; /* a CPython (record/python/pybuild.h, read or not); else NULL */
};

struct gr_mapping {
	uint64_t start, end, pgoff;
	struct gr_file *file;
};

struct gr_proc {
	uint32_t pid;
	struct gr_mapping *maps; /* in the order found: the newest last */
	size_t nmaps, cap;
};

/*
 * The process table. Zero it, then set @attach; only discover.c changes the rest. The tables
 * are read in place by unwind.c and symbols.c (and filled by hand by the unwinder's tests).
 */
struct gr_procs {
	struct gr_attach *attach; /* probes new files and marks them known; NULL: neither */
	struct gr_cfi *cfi;	  /* unwind tables for the BPF walk (cfi.h); NULL: none */

	struct gr_file **files; /* in the order found */
	size_t nfiles;
	struct gr_u64map file_index; /* key(dev, ino) -> index in files + 1 */
	struct gr_u64map by_pid;     /* pid -> struct gr_proc * */
};

/*
 * Read /proc/@pid/maps: add the executable file mappings @pid has now to its entry, and
 * examine the files nobody mapped before. Returns 0, -ENOMEM, or the -errno of opening the maps
 * (the process is gone).
 */
int gr_discover_scan(struct gr_procs *p, uint32_t pid);

/* One line of /proc/PID/maps, as gr_discover_parse_line() reads it. */
struct gr_maps_line {
	uint64_t start, end, pgoff;
	uint64_t dev; /* the kernel's encoding (MKDEV), as BPF sees it */
	uint64_t ino;
	const char *path; /* inside the line given, NUL-terminated at its newline */
};

/*
 * Parse @line (NUL-terminated, one line of /proc/PID/maps with or without its newline: the
 * traced program names the paths in it) into @out. Returns 1 for an executable mapping of a
 * file (inode not 0, path absolute, start <= end): its newline is overwritten with a NUL and
 * @out->path points into @line. Returns 0 for any other line, @out untouched.
 */
int gr_discover_parse_line(char *line, struct gr_maps_line *out);

/* @child was forked by @parent: it maps what its parent mapped. */
void gr_discover_fork(struct gr_procs *p, uint32_t parent, uint32_t child);

/* The entry of @pid, created empty when there is none; NULL when out of memory. */
struct gr_proc *gr_discover_proc(struct gr_procs *p, uint32_t pid);

/*
 * The mapping of @pid that holds @addr, the newest when mappings overlap; NULL when none. Like
 * gr_discover_proc(), it creates an empty entry for an unknown @pid.
 */
const struct gr_mapping *gr_discover_lookup(struct gr_procs *p, uint32_t pid, uint64_t addr);

/* Whether any process in the table still exists (a zombie counts). */
int gr_discover_alive(const struct gr_procs *p);

/* Close every file and free the tables; @p is zeroed, @attach included. */
void gr_discover_free(struct gr_procs *p);

#endif
