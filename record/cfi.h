/* SPDX-License-Identifier: MIT */
/*
 * The default stacks (--call-graph cfi): unwind tables for the BPF walk. Builds the table of
 * each executable file a traced process maps, once for all processes (record/cfi_table.h),
 * appends it to the BPF array of rows (cfi_rows, its buckets to cfi_buckets) and keeps each
 * traced process's
 * list of mappings with a table in cfi_procs. Discovery (discover.c) calls gr_cfi_sync() each
 * time it learns the mappings of a process, while that process is held: a file's table is in
 * place before any code of it runs.
 *
 * A large file (.eh_frame over GR_CFI_EAGER_EH_FRAME bytes) without probes waits instead: its
 * table is built and written into the BPF arrays, on a thread of the recorder's own, when a
 * stack first ends in it (gr_cfi_note_end()); gr_cfi_poll(), from the drain loop, then names it
 * in the entry of every process that maps it. Stacks through it end there until then;
 * gr_cfi_report() says how many.
 *
 * A file gets no table when it has no .eh_frame, when its table would not fit in what is left
 * of the rows, or for a mapping past GR_CFI_MAPS: its frames are walked by frame pointers, and
 * gr_cfi_report() names it if stacks ended in it.
 */
#ifndef GR_RECORD_CFI_H
#define GR_RECORD_CFI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "u64map.h"

struct gr_procs;
struct gr_file;
struct cfi_file;
struct cfi_build;

/*
 * The .eh_frame size above which a file's table waits for first need: some 64k-128k rows. Of
 * CUDA 13's libraries cuFFT (0.7 MiB, 176k rows, 1.3 s to build: libdw runs a long FDE's
 * program again for each row), cuSPARSE (1.6 MiB) and cuBLASLt (6.2 MiB) are over it, cuBLAS
 * and CUPTI (0.4 MiB) under; libstdc++ holds 0.2 MiB, libc 0.15. A CPython is never deferred.
 */
#define GR_CFI_EAGER_EH_FRAME (512u << 10)

struct gr_cfi {
	int ready; /* gr_cfi_init() succeeded */
	int rows_fd, buckets_fd, procs_fd;
	pthread_mutex_t lock; /* of used and bused: a table built on first need takes its share */
	size_t cap, used;     /* rows in cfi_rows; rows taken */
	size_t bcap, bused;   /* the same of cfi_buckets */
	struct cfi_file *files;
	size_t nfiles;
	struct gr_u64map by_file; /* struct gr_file * -> index in files + 1 */
	struct gr_u64map ended;	  /* struct gr_file * -> stacks that ended in it uncovered */
	uint32_t gen;		  /* of the last cfi_procs entry written */
	uint64_t build_ns, worst_ns;
	const char *worst;	 /* the file whose table took longest (its gr_file's path) */
	int verbose;		 /* say when a table built on first need is in place */
	const char *defer_path;	 /* tests: files whose path holds it wait for first need */
	struct cfi_build *build; /* the table being built on first need; NULL: none */
	uint64_t needs;		 /* files a stack needed so far */
	size_t on_need_built;	 /* tables built on first need and in place */
	int wake_fd; /* an eventfd, readable when a table built on first need is ready; or -1 */
};

/*
 * Keep the BPF maps: the arrays of rows (@rows_fd, @cap rows) and buckets (@buckets_fd, @bcap),
 * written with batch updates (mapped, their whole size would count in the recorder's memory),
 * and cfi_procs (@procs_fd). Cannot fail.
 */
void gr_cfi_init(struct gr_cfi *c, int rows_fd, size_t cap, int buckets_fd, size_t bcap,
		 int procs_fd);

/* @pid's executable mappings are those @procs holds now: build what tables they lack, and
 * write its cfi_procs entry. Cannot fail: what gets no table is walked by frame pointers. */
void gr_cfi_sync(struct gr_cfi *c, struct gr_procs *procs, uint32_t pid);

/* Name a table built (and written) on first need in the entries of the processes that map it,
 * if one is ready, and start the next one. Cheap when none is: called from the drain loop,
 * whose wait wake_fd wakes. */
void gr_cfi_poll(struct gr_cfi *c, struct gr_procs *procs);

/* Whether @f has a table: 1, or 0; *@why (static, when @why) says why not, or for a file
 * with a table, why a walk could stop in it. */
int gr_cfi_covered(const struct gr_cfi *c, const struct gr_file *f, const char **why);

/*
 * A stack of @pid whose outermost frame is @last, the walk having stopped there: counted when
 * no rule covers that frame (its binary has no table, or its table no row for it), as the
 * walk could only take a frame-pointer step there. A binary whose table waits for first need
 * gets it built now: returns 1 then (the stack ended for want of that table, which
 * gr_cfi_report() tells), else 0.
 */
int gr_cfi_note_end(struct gr_cfi *c, struct gr_procs *procs, uint32_t pid, uint64_t last);

/*
 * Say once on @f which binaries ended stacks for want of a table, why, and what to do; with
 * @verbose, also what building the tables cost. Returns the number of binaries named.
 */
int gr_cfi_report(const struct gr_cfi *c, FILE *f, int verbose);

/* Free what @c holds (not the maps); @c is zeroed. */
void gr_cfi_free(struct gr_cfi *c);

#endif
