# SPDX-License-Identifier: MIT
# make bench: N cudaLaunchKernel calls through ctypes from a Python stack DEPTH frames deep (the
# frames below the loop are recursion; the module's own frame counts as one), timed around the
# loop only, in the thread's CPU time (time.thread_time_ns(): the uprobe trap and the BPF
# programs run on the launching thread, and time it spends preempted on a busy machine does not
# count). Prints "ns_per_launch X" as tests/progs/launch_loop does; X is thread CPU time.
#
#   py_depth.py DEPTH N
import ctypes
import sys
import time

cudart = ctypes.CDLL("libcudart.so.13")


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


def loop(n):
    launch = cudart.cudaLaunchKernel
    func, grid, block, shmem = ctypes.c_void_p(4096), Dim3(1, 1, 1), Dim3(1, 1, 1), ctypes.c_size_t(0)
    start = time.thread_time_ns()
    for _ in range(n):
        launch(func, grid, block, None, shmem, None)
    return time.thread_time_ns() - start


def down(depth, n):
    # down(4) calls the loop: with main and the module, the stack is DEPTH frames deep there
    if depth > 4:
        return down(depth - 1, n)
    return loop(n)


def main():
    depth, n = int(sys.argv[1]), int(sys.argv[2])
    sys.setrecursionlimit(max(1000, depth + 100))
    ns = down(depth, n)
    print("ns_per_launch %.1f" % (ns / n))


main()
