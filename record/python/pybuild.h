/* SPDX-License-Identifier: MIT */
/*
 * What a CPython build is, and where its frames are: found from its ELF file alone (the
 * executable, or libpython3.X.so), before the process runs any Python code. A file is a CPython
 * when it defines _PyRuntime. Its version comes from Py_Version (3.11+) or its file name (3.10);
 * the offsets of the structures a frame walk and a frame's resolution read come from the
 * interpreter's own description of its layout where it publishes one (3.13+: the
 * _Py_DebugOffsets at the start of _PyRuntime, in the file's initialised data), and from one
 * table per minor version otherwise (pybuild.c names its source).
 *
 * Read by discover.c (every examined file), the BPF side's py_procs entries
 * (record/python/python.c) and the resolution of code objects (record/python/pyresolve.c).
 */
#ifndef GR_RECORD_PYBUILD_H
#define GR_RECORD_PYBUILD_H

#include <stdint.h>

struct gr_elf;

/* Byte offsets into CPython's structures, for one build. An offset of a field the build's
 * chain does not have is 0 (0 is also a real offset: look at chain first). */
struct gr_py_layout {
	uint32_t hexversion; /* PY_VERSION_HEX: 0x030c01f0 for 3.12.1 */
	unsigned chain;	     /* enum gr_py_chain (bpf/gpurec.h): how frames chain */

	/* from _PyRuntime to a thread's innermost frame */
	uint32_t interp_head;	    /* _PyRuntimeState.interpreters.head */
	uint32_t threads_head;	    /* PyInterpreterState.threads.head */
	uint32_t tstate_next;	    /* PyThreadState.next */
	uint32_t tstate_native_tid; /* PyThreadState.native_thread_id (the kernel's tid), 3.11+ */
	uint32_t tstate_pthread_id; /* 3.10 (no native_thread_id): PyThreadState.thread_id, the
				       thread's pthread_self(), which is its fs base on x86-64 */
	uint32_t tstate_frame;	    /* 3.10 .frame, 3.11-3.12 .cframe, 3.13+ .current_frame */
	uint32_t cframe_current;    /* 3.11-3.12 _PyCFrame.current_frame (unused otherwise) */

	/* a frame: 3.10 PyFrameObject, 3.11+ _PyInterpreterFrame */
	uint32_t frame_previous; /* f_back / previous */
	uint32_t frame_code;	 /* f_code / f_executable */
	uint32_t frame_instr;	 /* 3.10 f_lasti (int), 3.11-3.12 prev_instr, 3.13+ instr_ptr */
	uint32_t frame_owner;	 /* 3.11 is_entry, 3.12+ owner (one byte each); 0 in 3.10 */

	/* a code object, and the str and bytes objects it points to */
	uint32_t object_type;	   /* PyObject.ob_type */
	uint32_t code_filename;	   /* co_filename (str) */
	uint32_t code_name;	   /* co_name (str) */
	uint32_t code_qualname;	   /* co_qualname (str, 3.11+); 0 before */
	uint32_t code_linetable;   /* co_linetable (bytes) */
	uint32_t code_firstlineno; /* co_firstlineno (int) */
	uint32_t code_adaptive;	   /* co_code_adaptive (3.11+): the first instruction; 0 before */
	uint32_t bytes_size;	   /* PyVarObject.ob_size of a bytes object */
	uint32_t bytes_data;	   /* PyBytesObject.ob_sval */
	uint32_t str_length;	   /* PyASCIIObject.length (code points) */
	uint32_t str_state;	   /* PyASCIIObject.state (bits: kind 2-4, compact 5, ascii 6) */
	uint32_t str_ascii_size;   /* sizeof(PyASCIIObject): compact ASCII data follow it */
	uint32_t str_compact_size; /* sizeof(PyCompactUnicodeObject): other compact data do */
};

/*
 * What a readable build's thread state, frame and code object offsets are below (a size the
 * layout's source states, at most this): a _Py_DebugOffsets that says more is not believed.
 */
#define GR_PY_OFFSET_MAX 65536

/* One CPython build: addresses are link-time (add the mapping's load bias). */
struct gr_py_build {
	struct gr_py_layout layout;
	uint64_t runtime;		/* _PyRuntime */
	uint64_t code_type;		/* PyCode_Type: a code object's ob_type */
	uint64_t eval_start, eval_size; /* _PyEval_EvalFrameDefault: the evaluation loop */
	char version[16];		/* "3.12.1" ("3.10" when only the file name tells) */
	const char *unreadable;		/* NULL, or why its frames cannot be read */
};

/*
 * Whether the ELF file @e, named @name (its path; only the last component is looked at), is a
 * CPython: 1 and @b filled (b->unreadable set when it is one gpurec cannot read: an unknown
 * version, a free-threaded build, a layout that does not check out), 0 when it is not, or a
 * negative error (-ENOMEM).
 */
int gr_py_build_examine(const struct gr_elf *e, const char *name, struct gr_py_build *b);

/* "CPython 3.12.1" into @buf (size @n), for messages and the trace's PYTHON name. */
const char *gr_py_build_name(const struct gr_py_build *b, char *buf, unsigned n);

#endif
