/* SPDX-License-Identifier: MIT */
/* Python frames, the recorder's side: see python.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "analyze/util/text.h"
#include "bpf/gpurec.h"
#include "format/events.h"
#include "format/trace.h"
#include "record/discover.h"
#include "record/elf.h"
#include "pybuild.h"
#include "python.h"

void gr_python_init(struct gr_python *py, int procs_fd)
{
	struct timespec now;

	*py = (struct gr_python){.procs_fd = procs_fd};
	/* ids differ from one recording to the next too: nothing should take them for stable */
	clock_gettime(CLOCK_MONOTONIC, &now);
	py->next_seed = (uint32_t)(now.tv_nsec ^ now.tv_sec);
}

/* Load bias of the file mapped by @m: runtime address minus link-time address. */
static int mapping_bias(const struct gr_mapping *m, uint64_t *bias)
{
	uint64_t vaddr;

	if (!gr_elf_offset_to_vaddr(m->file->elf, m->pgoff, &vaddr)) {
		*bias = m->start - vaddr;
		return 0;
	}
	return -ENOENT;
}

/* Offsets the BPF walk reads must fit its u16 fields. */
static int fits_u16(const struct gr_py_layout *l)
{
	const uint32_t o[] = {l->interp_head,	    l->threads_head,  l->tstate_next,
			      l->tstate_native_tid, l->tstate_frame,  l->cframe_current,
			      l->frame_previous,    l->frame_code,    l->frame_instr,
			      l->frame_owner,	    l->code_adaptive, l->tstate_pthread_id};

	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		if (o[i] > UINT16_MAX)
			return 0;
	return 1;
}

static int write_bpf_entry(struct gr_python *py, uint32_t pid, const struct gr_py_build *b,
			   uint64_t bias)
{
	const struct gr_py_layout *l = &b->layout;
	struct gr_py_proc v = {
	    .runtime = b->runtime + bias,
	    .seed = py->next_seed++,
	    .chain = l->chain,
	    .interp_head = l->interp_head,
	    .threads_head = l->threads_head,
	    .tstate_next = l->tstate_next,
	    .tstate_native_tid = l->tstate_native_tid,
	    .tstate_frame = l->tstate_frame,
	    .cframe_current = l->cframe_current,
	    .frame_previous = l->frame_previous,
	    .frame_code = l->frame_code,
	    .frame_instr = l->frame_instr,
	    .frame_owner = l->frame_owner,
	    .code_adaptive = l->code_adaptive,
	    .tstate_pthread_id = l->tstate_pthread_id,
	};

	if (!fits_u16(l))
		return -ERANGE;
	return bpf_map_update_elem(py->procs_fd, &pid, &v, BPF_ANY) ? -errno : 0;
}

static int write_name(struct gr_trace_writer *w, uint64_t ts, uint32_t pid,
		      const struct gr_py_build *b, const char *path)
{
	char name[64], text[4096 + 512];
	uint64_t v[GR_NAME_NCOLS] = {ts, GR_NAME_PYTHON, pid, b->layout.hexversion, 0};
	struct gr_bytes bytes;
	int n;

	gr_py_build_name(b, name, sizeof(name));
	if (b->unreadable)
		n = snprintf(text, sizeof(text), "%s (%s): not read: %s", name, path,
			     b->unreadable);
	else
		n = snprintf(text, sizeof(text), "%s (%s)", name, path);
	bytes.data = (const uint8_t *)text;
	bytes.len = n < 0 ? 0 : (size_t)n < sizeof(text) ? (uint32_t)n : sizeof(text) - 1;
	return gr_trace_writer_append(w, GR_K_NAME, v, &bytes);
}

/* Say once per build that its frames are not read, and why. */
static void warn_unreadable(struct gr_python *py, const struct gr_file *f)
{
	char name[64];

	if (gr_u64map_get(&py->warned, (uintptr_t)f))
		return;
	gr_u64map_put(&py->warned, (uintptr_t)f, 1);
	fprintf(stderr, "gpurec record: %s: %s: Python frames not read: %s\n", GR_TEXT(f->path),
		GR_TEXT(gr_py_build_name(f->py, name, sizeof(name))), GR_TEXT(f->py->unreadable));
}

/* The newest mapping of @pid of a CPython file. */
static const struct gr_mapping *python_mapping(struct gr_procs *procs, uint32_t pid)
{
	const struct gr_proc *p = gr_discover_proc(procs, pid);

	for (size_t i = p ? p->nmaps : 0; i > 0; i--)
		if (p->maps[i - 1].file->py)
			return &p->maps[i - 1];
	return NULL;
}

/* The description of @pid, NULL when none. */
static struct gr_python_proc *find(const struct gr_python *py, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&py->by_pid, pid);

	return v ? (struct gr_python_proc *)(uintptr_t)*v : NULL;
}

static struct gr_python_proc *add(struct gr_python *py, uint32_t pid)
{
	struct gr_python_proc *pp = calloc(1, sizeof(*pp));

	if (!pp || gr_u64map_put(&py->by_pid, pid, (uintptr_t)pp)) {
		free(pp);
		return NULL;
	}
	return pp;
}

int gr_python_note(struct gr_python *py, struct gr_procs *procs, struct gr_trace_writer *w,
		   uint64_t ts, uint32_t pid)
{
	const struct gr_mapping *m;
	struct gr_python_proc *pp;

	if (py->procs_fd < 0 || find(py, pid))
		return 0;
	m = python_mapping(procs, pid);
	if (!m)
		return 0;
	pp = add(py, pid);
	if (!pp)
		return -ENOMEM;
	pp->build = m->file->py;
	pp->path = m->file->path;
	/* an unreadable build is noted too, never walked; an entry that cannot be written only
	 * costs the process its Python frames */
	if (pp->build->unreadable)
		warn_unreadable(py, m->file);
	else
		pp->walked =
		    !mapping_bias(m, &pp->bias) && !write_bpf_entry(py, pid, pp->build, pp->bias);
	return write_name(w, ts, pid, pp->build, pp->path);
}

int gr_python_fork(struct gr_python *py, struct gr_trace_writer *w, uint64_t ts, uint32_t parent,
		   uint32_t child)
{
	const struct gr_python_proc *pp = find(py, parent);
	struct gr_python_proc *cp;

	if (!pp || parent == child)
		return 0;
	gr_python_forget(py, child);
	cp = add(py, child);
	if (!cp)
		return -ENOMEM;
	*cp = *pp;
	return write_name(w, ts, child, cp->build, cp->path);
}

void gr_python_forget(struct gr_python *py, uint32_t pid)
{
	uint64_t *v = gr_u64map_get(&py->by_pid, pid);

	if (!v || !*v)
		return;
	free((void *)(uintptr_t)*v);
	/* u64map has no removal: 0 reads as "none" (find()) */
	*v = 0;
	if (py->procs_fd >= 0)
		bpf_map_delete_elem(py->procs_fd, &pid);
}

const struct gr_python_proc *gr_python_proc(const struct gr_python *py, uint32_t pid)
{
	const struct gr_python_proc *pp = find(py, pid);

	return pp && pp->walked ? pp : NULL;
}

void gr_python_free(struct gr_python *py)
{
	for (size_t i = 0; i < py->by_pid.cap; i++)
		if (py->by_pid.keys && py->by_pid.keys[i])
			free((void *)(uintptr_t)py->by_pid.vals[i]);
	gr_u64map_free(&py->by_pid);
	gr_u64map_free(&py->warned);
	*py = (struct gr_python){.procs_fd = -1};
}
