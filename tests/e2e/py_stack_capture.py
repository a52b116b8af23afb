# SPDX-License-Identifier: MIT
# tests/e2e/record_python_capture.sh: CUDA runtime calls through ctypes from functions a few
# calls deep. Before each call it prints the Python stack the call is made from, innermost first,
# as "FILE:LINE:FUNCTION;..." (the line of the call itself; co_qualname, co_name before 3.11),
# the ground truth the recorded PYFRAME records must equal. It sleeps at the end so that the
# recorder resolves the frames while the process lives.
import ctypes
import sys
import time

cudart = ctypes.CDLL("libcudart.so.13")


def site(call_line_offset):
    f = sys._getframe(1)
    out = []
    line = f.f_lineno + call_line_offset
    while f:
        code = f.f_code
        out.append("%s:%d:%s" % (code.co_filename, line, getattr(code, "co_qualname", code.co_name)))
        f = f.f_back
        line = f.f_lineno if f else 0
    print(";".join(out), flush=True)


def sync():
    site(1)
    cudart.cudaDeviceSynchronize()


def copy():
    buf = ctypes.create_string_buffer(64)
    site(1)
    cudart.cudaMemcpy(buf, buf, ctypes.c_size_t(64), 0)


class Step:
    def run(self, n):
        for _ in range(n):
            sync()
            copy()


def main():
    Step().run(2)
    sync()


main()
time.sleep(1)
