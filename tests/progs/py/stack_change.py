# SPDX-License-Identifier: MIT
# tests/e2e/python_stack_change.sh: cudaLaunchKernel through ctypes from stacks that change only
# in a middle frame between one launch and the next, where a walk that keeps the outer frames of
# the last one (bpf/gpurec.bpf.c py_walk_kept()) must still see every change:
#   sites   a caller in the middle alternates between two call sites of the same function
#   funcs   ... between two functions (mid_a, mid_b) that call the same innermost one
#   lines   a middle frame calls from a new line each launch while the frames outer to it stay
#           where they were (same addresses, same code)
#   depth   the stack grows and shrinks by one middle frame from launch to launch
# All at the same depth under DEPTH frames of recursion (deep(), default 20), the same innermost
# function (launch()). Before each launch, launch() prints the stack it launches from, innermost
# first, as "FILE:LINE;..." (its own frames and the callers', the line each is at): the ground
# truth every recorded launch must equal, in order.
#
#   stack_change.py MODE N [DEPTH]
import ctypes
import sys

cudart = ctypes.CDLL("libcudart.so.13")


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


FUNC, ONE = ctypes.c_void_p(4096), Dim3(1, 1, 1)


def launch():
    f = sys._getframe(0)
    out = []
    while f:
        out.append("%s:%d" % (f.f_code.co_filename, f.f_lineno))
        f = f.f_back
    # this frame launches two lines below
    out[0] = "%s:%d" % (f.f_code.co_filename if f else __file__, sys._getframe(0).f_lineno + 2)
    print(";".join(out), flush=True)
    cudart.cudaLaunchKernel(FUNC, ONE, ONE, None, ctypes.c_size_t(0), None)


def mid_a():
    launch()


def mid_b():
    launch()


def mid_lines(k):
    # one frame whose line changes each launch, the frames outer to it fixed
    if k % 3 == 0:
        launch()
    elif k % 3 == 1:
        launch()
    else:
        launch()


def mid_deeper():
    mid_a()


def step(mode, k):
    if mode == "sites":
        if k % 2:
            mid_a()
        else:
            mid_a()
    elif mode == "funcs":
        if k % 2:
            mid_a()
        else:
            mid_b()
    elif mode == "lines":
        mid_lines(k)
    elif mode == "depth":
        if k % 2:
            mid_deeper()
        else:
            mid_a()


def loop(mode, n):
    for k in range(n):
        step(mode, k)


def deep(depth, mode, n):
    if depth > 0:
        return deep(depth - 1, mode, n)
    loop(mode, n)


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    deep(depth, mode, n)


main()
