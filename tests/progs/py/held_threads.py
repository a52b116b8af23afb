# SPDX-License-Identifier: MIT
# N threads each make one CUDA runtime call, all at once, from a Python stack no thread made
# before, and the process ends right after with os._exit(): tests/e2e/record_python.sh records
# it with a slowed recorder and checks that every call's frames were resolved. Each new stack
# holds the process until the recorder has read its code objects; two holds sent before the
# process stops make one stop, and the resume for the first must not free the process while
# the second is still to be read.
#
#   held_threads.py N
#
# Thread i calls site_i() (in a file named site_i.py, its call on line 2) from worker().
import ctypes
import os
import sys
import threading

cudart = ctypes.CDLL("libcudart.so.13")
N = int(sys.argv[1])
start = threading.Barrier(N)


def make_site(i):
    source = f"def site_{i}():\n    cudart.cudaDeviceSynchronize()\n"
    space = {"cudart": cudart}
    exec(compile(source, f"site_{i}.py", "exec"), space)
    return space[f"site_{i}"]


SITES = [make_site(i) for i in range(N)]


def worker(i):
    start.wait()
    SITES[i]()  # site: worker


threads = [threading.Thread(target=worker, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
os._exit(0)
