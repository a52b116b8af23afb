# SPDX-License-Identifier: MIT
# make bench: cudaLaunchKernel calls through ctypes from Python stacks DEPTH frames deep (the
# frames below the loop are recursion; the module's own frame counts as one), in blocks of N
# launches: ROUNDS rounds of one block per DEPTH, the depths' order turned each round so that
# drift in a loaded machine hits every depth alike. A block is timed around its loop only, in
# the thread's CPU time (time.thread_time_ns(): the uprobe trap and the BPF programs run on the
# launching thread, and time it spends preempted does not count). One line per block:
#
#   block DEPTH NS_PER_LAUNCH BPF_NS
#
# BPF_NS: the recorder's launch_session program's time per run over the block, when this runs
# under `gpurec record` (its parent) with kernel.bpf_stats_enabled=1; "-" otherwise. It is read
# from the recorder's own descriptors of the program (/proc/PPID/fdinfo), named by bpftool.
#
#   py_depth.py N ROUNDS DEPTH [DEPTH...]
import ctypes
import json
import os
import subprocess
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


def prog_fdinfo():
    """The fdinfo path of the parent's launch_session program, or None."""
    ppid = os.getppid()
    try:
        progs = json.loads(subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True,
                                          text=True, check=True).stdout)
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None
    ids = {p["id"] for p in progs if p.get("name") == "launch_session"}
    fdir = "/proc/%d/fdinfo" % ppid
    try:
        fds = os.listdir(fdir)
    except OSError:
        return None
    for fd in fds:
        try:
            with open(os.path.join(fdir, fd)) as f:
                info = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        if "prog_id" in info and int(info["prog_id"]) in ids:
            return os.path.join(fdir, fd)
    return None


def prog_stats(path):
    """(run_time_ns, run_cnt) of the program at fdinfo @path, or None."""
    if not path:
        return None
    with open(path) as f:
        info = dict(line.split(":", 1) for line in f if ":" in line)
    if "run_time_ns" not in info:
        return None
    return int(info["run_time_ns"]), int(info["run_cnt"])


def main():
    n, rounds, depths = int(sys.argv[1]), int(sys.argv[2]), [int(a) for a in sys.argv[3:]]
    sys.setrecursionlimit(max(1000, max(depths) + 100))
    path = prog_fdinfo()
    for d in depths:
        down(d, 100)  # each stack's first walk (sent, the process held) outside the blocks
    for r in range(rounds):
        for i in range(len(depths)):
            d = depths[(i + r) % len(depths)]
            s0 = prog_stats(path)
            ns = down(d, n)
            s1 = prog_stats(path)
            bpf = "-"
            if s0 and s1 and s1[1] > s0[1]:
                bpf = "%.1f" % ((s1[0] - s0[0]) / (s1[1] - s0[1]))
            print("block %d %.1f %s" % (d, ns / n, bpf), flush=True)


main()
