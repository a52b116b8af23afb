/* SPDX-License-Identifier: MIT */
/*
 * The recorder's side of Python frames: for each traced process that maps a CPython
 * (record/python/pybuild.h), the BPF side's py_procs entry (where its interpreter state is and how
 * its frames chain), written before the process is resumed, and the process's NAME record of class
 * GR_NAME_PYTHON. A build whose frames cannot be read is said once on stderr and in the trace,
 * and its processes run on without Python frames.
 *
 * Called by translate.c (fork, exec, new mappings, exit) and record.c (-p attaches); read by
 * translate.c, which resolves the frames through the build and load bias of a process.
 */
#ifndef GR_RECORD_PYTHON_H
#define GR_RECORD_PYTHON_H

#include <stdint.h>

#include "record/u64map.h"

struct gr_procs;
struct gr_py_build;
struct gr_trace_writer;

struct gr_python {
	int procs_fd;		 /* the py_procs map; -1: Python frames are off */
	uint32_t next_seed;	 /* of the next py_procs entry (struct gr_py_proc) */
	struct gr_u64map by_pid; /* pid -> struct gr_python_proc * */
	struct gr_u64map warned; /* struct gr_file * -> 1 once its "not read" is said */
};

/* What a traced process runs: the CPython build of one of its files, loaded at bias. */
struct gr_python_proc {
	const struct gr_py_build *build;
	const char *path; /* of the file (the process table's) */
	uint64_t bias;
	int walked; /* its py_procs entry is written: the BPF side walks its frames */
};

/* Start with no process known; @procs_fd the py_procs map, -1 when Python frames are off. */
void gr_python_init(struct gr_python *py, int procs_fd);

/*
 * @pid's mappings were scanned (exec, a new mapping, -p): when one is of a CPython and @pid has
 * no description yet, write its py_procs entry (a build that can be read) and its PYTHON NAME
 * record (at @ts, through @w). Call before the process is resumed. Returns 0, or the error of
 * writing the record; a py_procs entry that cannot be written only costs its Python frames.
 */
int gr_python_note(struct gr_python *py, struct gr_procs *procs, struct gr_trace_writer *w,
		   uint64_t ts, uint32_t pid);

/* @child was forked by @parent (the BPF side copied its entry): it runs the same. Returns as
 * gr_python_note(). */
int gr_python_fork(struct gr_python *py, struct gr_trace_writer *w, uint64_t ts, uint32_t parent,
		   uint32_t child);

/* @pid execs or exits: what it ran is no more (its py_procs entry goes too). */
void gr_python_forget(struct gr_python *py, uint32_t pid);

/* What @pid runs, when it is a CPython whose frames are read; NULL otherwise. */
const struct gr_python_proc *gr_python_proc(const struct gr_python *py, uint32_t pid);

/* Free what it holds; @py is zeroed (procs_fd -1). */
void gr_python_free(struct gr_python *py);

#endif
