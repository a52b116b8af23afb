/* SPDX-License-Identifier: MIT */
/*
 * What a stack frame is, said once for every command that shows call sites (report, diff,
 * export): a Python frame (a PYFRAME of the trace: file, line, function) or a native one (a
 * return address: its symbol and the file mapped there), and which frames of a stack name the
 * call site: the innermost Python frame, and the native frame that launched, the innermost one
 * outside the CUDA libraries.
 *
 * Ownership: strings in a struct gr_frame point into the model; nothing here allocates.
 */
#ifndef GR_ANALYZE_FRAMES_H
#define GR_ANALYZE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model/model.h"

enum gr_frame_kind { GR_FRAME_KIND_NATIVE = 0, GR_FRAME_KIND_PYTHON };

struct gr_frame {
	enum gr_frame_kind kind;
	uint64_t value; /* the stack's word: a return address, or a Python frame's key */
	/* Python: co_filename ("" when the recorder could not resolve the frame), NULL when the
	 * trace has no PYFRAME for the frame; native: the source file of the call from the
	 * binary's line tables, NULL when the trace has none for the frame */
	const char *file;
	uint32_t line; /* Python: the line (0 unknown); native: the line with file, else 0 */
	/* Python: co_qualname, NULL without PYFRAME; native: the symbol, NULL without one */
	const char *function;
	/* native: the file mapped there, its last path component, NULL without a mapping;
	 * Python: NULL */
	const char *module;
	uint64_t offset; /* native with a mapping: the address as an offset in the file */
};

/* Describe frame @value of a stack of @pid into *@f. Never fails: what the trace does not say
 * is NULL. */
void gr_frame_describe(const struct gr_model *m, uint32_t pid, uint64_t value, struct gr_frame *f);

/* Longest text gr_frame_format() writes whole; longer names are cut. */
#define GR_FRAME_TEXT 512

/*
 * @f as reports show it, into @buf (@len bytes, cut to fit): Python "file:line function"
 * ("python:?" without its PYFRAME), native "file:line function" (the file's last path
 * component) with a source line, "function (module)" without, "function" without a mapping,
 * "module+0xOFFSET" without a symbol, "0xADDRESS" without either. Returns @buf.
 */
const char *gr_frame_format(const struct gr_frame *f, char *buf, size_t len);

struct gr_json;
/*
 * @f as a JSON object: {"kind": "python"|"native", "file", "line", "function", "module"}; what is
 * not known is null (a native frame's file and line without line tables, a Python frame's
 * module).
 */
void gr_frame_json(struct gr_json *j, const struct gr_frame *f);

/* 1 when any stack of @m holds a Python frame, else 0. */
int gr_frames_any_python(const struct gr_model *m);

/* Index in @st->frames of its innermost Python frame among the first @n, or -1. */
int gr_frames_python(const struct gr_stack *st, uint32_t n);

/*
 * Index in @st->frames, among the first @n, of the native frame that made the call: the
 * innermost native frame outside CUDA library code and nvcc's generated launch stubs
 * (__device_stub__*), else the innermost native frame; -1 when
 * none is native. CUDA library code: the files the trace names as CUDA libraries (NAME classes
 * LIBRARY and UNPROBED), except that in a probed file of the user's (a program with nvcc's
 * static runtime linked in) only the runtime's own functions are (cudaXxx, __cuda*,
 * libcudart_static_*, cudart::, or no symbol).
 */
int gr_frames_launcher(const struct gr_model *m, const struct gr_stack *st, uint32_t n);

#endif
