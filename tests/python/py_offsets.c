/* SPDX-License-Identifier: MIT */
/*
 * The offsets record/python/pybuild.c reads, as one CPython's own headers say: compiled by
 * tests/e2e/python_offsets.sh against each CPython on the machine (its Include/ and
 * Include/internal/, with Py_BUILD_CORE), one "name value" line each, in the names of struct
 * gr_py_layout. Never linked into gpurec.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#if PY_VERSION_HEX < 0x030b0000
#include <frameobject.h>
#endif
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#endif
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#define P(name, expr) printf("%s %zu\n", name, (size_t)(expr))
int main(void)
{
	P("hexversion", PY_VERSION_HEX);
	P("interp_head", offsetof(_PyRuntimeState, interpreters.head));
#if PY_VERSION_HEX < 0x030b0000
	P("threads_head", offsetof(PyInterpreterState, tstate_head));
#else
	P("threads_head", offsetof(PyInterpreterState, threads.head));
#endif
	P("tstate_next", offsetof(PyThreadState, next));
#if PY_VERSION_HEX < 0x030b0000
	P("tstate_pthread_id", offsetof(PyThreadState, thread_id));
#else
	P("tstate_native_tid", offsetof(PyThreadState, native_thread_id));
#endif
#if PY_VERSION_HEX < 0x030b0000
	P("tstate_frame", offsetof(PyThreadState, frame));
	P("frame_previous", offsetof(PyFrameObject, f_back));
	P("frame_code", offsetof(PyFrameObject, f_code));
	P("frame_instr", offsetof(PyFrameObject, f_lasti));
#elif PY_VERSION_HEX < 0x030d0000
	P("tstate_frame", offsetof(PyThreadState, cframe));
	P("cframe_current", offsetof(_PyCFrame, current_frame));
	P("frame_previous", offsetof(_PyInterpreterFrame, previous));
	P("frame_code", offsetof(_PyInterpreterFrame, f_code));
	P("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#if PY_VERSION_HEX < 0x030c0000
	P("frame_owner", offsetof(_PyInterpreterFrame, is_entry));
#else
	P("frame_owner", offsetof(_PyInterpreterFrame, owner));
#endif
#else
	P("tstate_frame", offsetof(PyThreadState, current_frame));
	P("frame_previous", offsetof(_PyInterpreterFrame, previous));
	P("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	P("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
	P("frame_owner", offsetof(_PyInterpreterFrame, owner));
#endif
	P("object_type", offsetof(PyObject, ob_type));
	P("code_filename", offsetof(PyCodeObject, co_filename));
	P("code_name", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030b0000
	P("code_qualname", offsetof(PyCodeObject, co_qualname));
	P("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#endif
	P("code_linetable", offsetof(PyCodeObject, co_linetable));
	P("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("bytes_size", offsetof(PyBytesObject, ob_base.ob_size));
	P("bytes_data", offsetof(PyBytesObject, ob_sval));
	P("str_length", offsetof(PyASCIIObject, length));
	P("str_state", offsetof(PyASCIIObject, state));
	P("str_ascii_size", sizeof(PyASCIIObject));
	P("str_compact_size", sizeof(PyCompactUnicodeObject));
	return 0;
}
