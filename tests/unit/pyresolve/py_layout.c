/* SPDX-License-Identifier: MIT */
/*
 * Prints one CPython build's struct gr_py_layout (record/pybuild.h), one "field value" line per
 * field, as the compiler sees that build's own headers: the ground truth test_pyresolve resolves
 * against, and a cross-check of record/pybuild.c's per-version table.
 *
 * Not part of gpurec's build: test_pyresolve compiles it once per Python found, against that
 * version's include/python3.X with -DPy_BUILD_CORE (the frame and runtime structures are
 * internal headers).
 */
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include <frameobject.h>
#endif
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"

#define SHOW(field, value) printf("%s %lu\n", field, (unsigned long)(value))

/* Where PyASCIIObject.state lies, and that its bits are where pybuild.h says they are. */
static int show_str_state(void)
{
	PyASCIIObject o;
	size_t at = offsetof(PyASCIIObject, hash) + sizeof(Py_hash_t);
	unsigned state;

	memset(&o, 0, sizeof(o));
	o.state.kind = 4;
	o.state.compact = 1;
	o.state.ascii = 1;
	memcpy(&state, (char *)&o + at, sizeof(state));
	if (state != (4u << 2 | 1u << 5 | 1u << 6)) {
		fprintf(stderr, "py_layout: PyASCIIObject.state bits are 0x%x, not kind 2-4, compact 5, "
				"ascii 6\n", state);
		return 1;
	}
	SHOW("str_state", at);
	return 0;
}

int main(void)
{
	SHOW("hexversion", PY_VERSION_HEX);
	SHOW("interp_head", offsetof(_PyRuntimeState, interpreters.head));
	SHOW("tstate_next", offsetof(PyThreadState, next));
#if PY_VERSION_HEX < 0x030b0000
	SHOW("chain", 1);
	SHOW("threads_head", offsetof(PyInterpreterState, tstate_head));
	SHOW("tstate_native_tid", 0); /* 3.10 keeps only pthread_self() (thread_id) */
	SHOW("tstate_frame", offsetof(PyThreadState, frame));
	SHOW("cframe_current", 0);
	SHOW("frame_previous", offsetof(PyFrameObject, f_back));
	SHOW("frame_code", offsetof(PyFrameObject, f_code));
	SHOW("frame_instr", offsetof(PyFrameObject, f_lasti));
	SHOW("frame_owner", 0);
	SHOW("code_qualname", 0);
	SHOW("code_adaptive", 0);
#else
	SHOW("threads_head", offsetof(PyInterpreterState, threads.head));
	SHOW("tstate_native_tid", offsetof(PyThreadState, native_thread_id));
	SHOW("frame_previous", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX < 0x030c0000
	SHOW("frame_owner", offsetof(_PyInterpreterFrame, is_entry));
#else
	SHOW("frame_owner", offsetof(_PyInterpreterFrame, owner));
#endif
	SHOW("code_qualname", offsetof(PyCodeObject, co_qualname));
	SHOW("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#if PY_VERSION_HEX < 0x030d0000
	SHOW("chain", PY_VERSION_HEX < 0x030c0000 ? 2 : 3);
	SHOW("tstate_frame", offsetof(PyThreadState, cframe));
	SHOW("cframe_current", offsetof(_PyCFrame, current_frame));
	SHOW("frame_code", offsetof(_PyInterpreterFrame, f_code));
	SHOW("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#else
	SHOW("chain", PY_VERSION_HEX < 0x030e0000 ? 4 : 5);
	SHOW("tstate_frame", offsetof(PyThreadState, current_frame));
	SHOW("cframe_current", 0);
	SHOW("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	SHOW("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#endif
#endif
	SHOW("object_type", offsetof(PyObject, ob_type));
	SHOW("code_filename", offsetof(PyCodeObject, co_filename));
	SHOW("code_name", offsetof(PyCodeObject, co_name));
	SHOW("code_linetable", offsetof(PyCodeObject, co_linetable));
	SHOW("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	SHOW("bytes_size", offsetof(PyVarObject, ob_size));
	SHOW("bytes_data", offsetof(PyBytesObject, ob_sval));
	SHOW("str_length", offsetof(PyASCIIObject, length));
	SHOW("str_ascii_size", sizeof(PyASCIIObject));
	SHOW("str_compact_size", sizeof(PyCompactUnicodeObject));
	return show_str_state();
}
