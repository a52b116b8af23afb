# SPDX-License-Identifier: MIT
# A host-bound loop whose host work sits before known calls (tests/e2e/report_bound.sh): each of
# N steps busy-waits on the thread's CPU time before each of 13 launches, made from 13 lines
# (13 call sites, more than the 10 the report ranks): 1000 us before the launches of the lines
# marked "site: long", 300 us before those marked "site: mid", 50 us before the others; then a
# device sync. The gaps differ by more than a busy machine's preemptions add to a site over the
# run. Runs on the simulator (GPUREC_SIM=1 registers the kernel so launches succeed).
import ctypes
import sys
import time

cudart = ctypes.CDLL("libcudart.so.13")


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


STUB = (ctypes.c_char * 16)()


def register():
    reg = cudart.__cudaRegisterFatBinary
    reg.restype = ctypes.c_void_p
    handle = ctypes.c_void_p(reg(ctypes.create_string_buffer(64)))
    cudart.__cudaRegisterFunction(handle, ctypes.c_void_p(ctypes.addressof(STUB)),
                                  b"host_step", b"host_step", -1, None, None, None, None, None)


def launch():
    cudart.cudaLaunchKernel(ctypes.c_void_p(ctypes.addressof(STUB)), Dim3(1, 1, 1),
                            Dim3(32, 1, 1), None, ctypes.c_size_t(0), None)


def busy(us):
    end = time.thread_time() + us / 1e6
    while time.thread_time() < end:
        pass


def step():
    busy(1000); launch()  # site: long
    busy(1000); launch()  # site: long
    busy(300); launch()  # site: mid
    busy(300); launch()  # site: mid
    busy(300); launch()  # site: mid
    busy(50); launch()
    busy(50); launch()
    busy(50); launch()
    busy(50); launch()
    busy(50); launch()
    busy(50); launch()
    busy(50); launch()
    busy(50); launch()
    cudart.cudaDeviceSynchronize()


register()
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 60):
    step()
