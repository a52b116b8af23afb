/* SPDX-License-Identifier: MIT */
/*
 * The state of one recording, shared by the recorder's files: discover.c (processes, their
 * executable mappings, the files behind them and the probes on those), translate.c (BPF events
 * into trace records), symbols.c (what replay needs, embedded at the end), record.c (the loop).
 */
#ifndef GR_RECORD_SESSION_H
#define GR_RECORD_SESSION_H

#include <stdint.h>
#include <stdio.h>

#include "probes.h"
#include "u64map.h"

struct gr_elf;
struct gr_trace_writer;
struct gpurec_bpf;
struct gr_ringbuf;
struct gr_unwind;
struct bpf_link;

/* A file some traced process mapped executable, kept open so it stays readable if deleted. */
struct gr_file {
	uint64_t dev, ino; /* dev in the kernel's encoding (MKDEV), as BPF sees it */
	int fd;
	char *path;
	struct gr_elf *elf; /* NULL when not an ELF file */
	int probes;	    /* probes attached to it (CUDA entry points found) */
	int referenced;	    /* an event references an address in it: embed it at the end */
};

struct gr_mapping {
	uint64_t start, end, pgoff;
	struct gr_file *file;
};

struct gr_proc {
	uint32_t pid;
	struct gr_mapping *maps;
	size_t nmaps, cap;
};

/* (pid, address) pairs that need a name at the end. */
struct gr_addr_set {
	struct gr_u64map seen;
	struct {
		uint32_t pid;
		uint64_t addr;
	} * items;
	size_t len, cap;
};

struct gr_session {
	struct gpurec_bpf *skel;
	struct gr_ringbuf *rb;
	struct gr_trace_writer *w;
	struct gr_probe_opts popts;
	uint32_t self_pid;

	struct gr_file **files;
	size_t nfiles;
	struct gr_u64map file_index; /* key(dev, ino) -> index + 1 */
	struct gr_u64map procs;	     /* pid -> struct gr_proc * */
	struct bpf_link **links;     /* per-probe links (kernels before 6.6) */
	size_t nlinks, caplinks;
	int *link_fds; /* uprobe multi links: one per program and file */
	size_t nlink_fds;
	int multi;	/* the kernel has uprobe multi links */
	int cuda_files; /* files with probes */
	int attach_failures;

	struct gr_unwind *unwind; /* --call-graph dwarf: raw stacks are unwound; else NULL */
	struct gr_u64map stacks;  /* hash of frames -> stack id */
	uint64_t next_stack_id;
	struct gr_u64map comms;	       /* tid -> hash of the last comm written */
	struct gr_u64map named;	       /* key(pid, func) -> 1 once a kernel NAME is written */
	struct gr_u64map kernel_names; /* key(pid, func) -> char * raw name, for handle aliases */
	struct gr_u64map
	    pending_name; /* tid -> char * name of a driver lookup awaiting its handle */
	struct gr_addr_set named_keys; /* (pid, key) pairs in kernel_names, for fork inheritance */
	struct gr_addr_set funcs;      /* launch funcs: named at the end when nothing named them */
	struct gr_addr_set frames;     /* stack frames: symbolized at the end */

	uint64_t counters_seen[8]; /* last values of the BPF loss counters */
	uint64_t last_drain_ns;
	uint64_t events;
	uint32_t root_pid; /* the traced command (0 with -p) */
	int verbose;
	int err; /* first fatal error of the loop */
};

/* discover.c */
int gr_discover_scan(struct gr_session *s, uint32_t pid);
void gr_discover_fork(struct gr_session *s, uint32_t parent, uint32_t child);
struct gr_proc *gr_discover_proc(struct gr_session *s, uint32_t pid);
const struct gr_mapping *gr_discover_lookup(struct gr_session *s, uint32_t pid, uint64_t addr);
void gr_discover_free(struct gr_session *s);

/* translate.c: handle one ring-buffer record; returns 0 or a negative error */
int gr_translate_event(void *ctx, void *data, size_t size);
int gr_translate_losses(struct gr_session *s, uint64_t now_ns);
int gr_addr_set_add(struct gr_addr_set *set, uint32_t pid, uint64_t addr);
void gr_addr_set_free(struct gr_addr_set *set);

/* symbols.c: names and mappings for everything referenced, written before the footer */
int gr_symbols_embed(struct gr_session *s);

#endif
