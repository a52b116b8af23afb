# SPDX-License-Identifier: MIT
# A GIL-bound training loop for tests/e2e/report_blocked.sh, on the simulator: the main thread
# works 1 ms in Python, launches a kernel and synchronises, N times, through ctypes (which
# releases the GIL in each call and takes it back on return), while a second Python thread,
# Thread-1, holds the GIL for BURST_US at a time in hold() (a call through ctypes.PyDLL, which
# keeps the GIL: an extension that does not release it; sleeping, so that the holder takes no
# CPU from the loop thread on a loaded machine), then releases it in time.sleep on the line
# marked "site: release". The switch interval is long, so nothing takes the GIL from the
# holder: the main thread waits for it after its calls return, outside them.
#   gil_step.py N BURST_US [healthy]   healthy: no second thread
# Prints "holder TID", then "window T0 T1 BLOCKED_NS": the CLOCK_MONOTONIC span from just before
# the first launch to just before the last (the report's iterations) and the main thread's
# blocked time in it by the kernel's accounting (wall - CPU time - run-queue
# wait, from its CPU clock and /proc/thread-self/schedstat).
import ctypes
import sys
import threading
import time

cudart = ctypes.CDLL("libcudart.so.13")
# the same library through calls that keep the GIL: the last iteration's, so that no GIL wait
# follows the loop's last call (the window would hold it, the loop not)
cudart_gil = ctypes.PyDLL("libcudart.so.13")


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


STUB = (ctypes.c_char * 16)()
# 100 us of the simulator's GPU time (tests/progs/budget.cu), which the sync spins through: the
# holder, woken when the sync releases the GIL, has the time to take it
GRID = 1056 * 50


def register():
    reg = cudart.__cudaRegisterFatBinary
    reg.restype = ctypes.c_void_p
    handle = ctypes.c_void_p(reg(ctypes.create_string_buffer(64)))
    cudart.__cudaRegisterFunction(handle, ctypes.c_void_p(ctypes.addressof(STUB)),
                                  b"gil_step", b"gil_step", -1, None, None, None, None, None)


def queue_ns():
    with open("/proc/thread-self/schedstat") as f:
        return int(f.read().split()[1])


stop = False
holder = [0]


def burn(us):
    end = time.thread_time_ns() + us * 1000
    while time.thread_time_ns() < end:
        pass


libc = ctypes.PyDLL("libc.so.6")


def hold(us):
    libc.usleep(us)


def holder_main(burst):
    holder[0] = threading.get_native_id()
    while not stop:
        hold(burst)
        time.sleep(0.0002)  # site: release


def main():
    global stop
    n = int(sys.argv[1])
    burst = int(sys.argv[2])
    healthy = len(sys.argv) > 3 and sys.argv[3] == "healthy"
    sys.setswitchinterval(1.0)
    register()
    th = None
    if not healthy:
        th = threading.Thread(target=holder_main, args=(burst,), name="Thread-1")
        th.start()
        while not holder[0]:
            time.sleep(0.001)
    print("holder", holder[0], flush=True)
    cudart.cudaStreamSynchronize(None)  # the simulator's start-up, before the window (not a
    # call of the loop)
    for i in range(n):
        rt = cudart_gil if i == n - 1 else cudart
        burn(1000)  # the step's own host work: the holder wants the GIL meanwhile
        # the window: from the first launch to the last, the iterations the report's budget cuts
        # (each runs from one first launch to the next)
        if i == 0:
            t0, cpu0, q0 = (time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.thread_time_ns(),
                            queue_ns())
        elif i == n - 1:
            t1, cpu1, q1 = (time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.thread_time_ns(),
                            queue_ns())
        rt.cudaLaunchKernel(ctypes.c_void_p(ctypes.addressof(STUB)), Dim3(GRID, 1, 1),
                            Dim3(256, 1, 1), None, ctypes.c_size_t(0), None)
        rt.cudaDeviceSynchronize()
    stop = True
    print("window", t0, t1, (t1 - t0) - (cpu1 - cpu0) - (q1 - q0), flush=True)
    if th:
        th.join()


main()
