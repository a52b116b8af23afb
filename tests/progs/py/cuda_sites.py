# SPDX-License-Identifier: MIT
# CUDA runtime calls from Python through ctypes, from known lines: tests/e2e/record_python.sh
# records it and checks each call's Python frames (file, line, function). Every line with a
# "site:" comment makes one kind of call; the script finds the lines by those comments.
#
#   cuda_sites.py MODE N    MODE: basic | threads | fork | spawn | callback | steps
#
# steps: N training steps (train_step: 3 launches of scale, 2 of add, a device sync), after 2
# warm-up calls of add_step(4) from another line: the step tests/e2e/report_step.sh names.
#
# With GPUREC_SIM=1 (the simulator's libcudart) the kernels are registered first so launches
# succeed; against the real runtime every call fails, but each is still made.
import ctypes
import multiprocessing
import os
import sys
import threading

cudart = ctypes.CDLL("libcudart.so.13")


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


# host stubs: any distinct addresses stand for kernels
STUBS = (ctypes.c_char * 64)()
SCALE = ctypes.addressof(STUBS)
ADD = SCALE + 16


def register():
    fatbin = ctypes.create_string_buffer(64)
    reg = cudart.__cudaRegisterFatBinary
    reg.restype = ctypes.c_void_p
    handle = ctypes.c_void_p(reg(fatbin))
    for stub, name in ((SCALE, b"scale_kernel"), (ADD, b"add_kernel")):
        cudart.__cudaRegisterFunction(handle, ctypes.c_void_p(stub), name, name, -1,
                                      None, None, None, None, None)


def launch(stub):
    grid, block = Dim3(70000, 3, 2), Dim3(128, 1, 1)
    cudart.cudaLaunchKernel(ctypes.c_void_p(stub), grid, block, None, ctypes.c_size_t(0), None)  # site: launch


def scale_step(n):
    for _ in range(n):
        launch(SCALE)  # site: scale_step


def add_step(n):
    for _ in range(n):
        launch(ADD)  # site: add_step


def copy_back(n):
    src = ctypes.create_string_buffer(4096)
    dst = ctypes.create_string_buffer(4096)
    for _ in range(n):
        cudart.cudaMemcpy(dst, src, ctypes.c_size_t(4096), 0)  # site: copy


def sync():
    cudart.cudaDeviceSynchronize()  # site: sync


def train(n):
    scale_step(n)  # site: train_scale
    add_step(n // 2)  # site: train_add
    copy_back(3)  # site: train_copy
    sync()  # site: train_sync


def train_step():
    scale_step(3)  # site: step_scale
    add_step(2)
    sync()


def worker_a(n):
    scale_step(n)  # site: worker_a


def worker_b(n):
    add_step(n)  # site: worker_b


def child_main(n):
    if os.environ.get("GPUREC_SIM"):
        register()
    add_step(n)  # site: child_main


def from_native(n):
    add_step(n)  # site: from_native


def through_native(n):
    native = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "..", "libpycallback.so"))
    callback = ctypes.CFUNCTYPE(None)(lambda: from_native(n))  # site: lambda
    native.pycallback_call(callback)  # site: through_native


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    if os.environ.get("GPUREC_SIM"):
        register()
    if mode == "basic":
        train(n)  # site: main_train
    elif mode == "threads":
        a = threading.Thread(target=worker_a, args=(n,))
        b = threading.Thread(target=worker_b, args=(n,))
        a.start()
        b.start()
        a.join()
        b.join()
    elif mode in ("fork", "spawn"):
        p = multiprocessing.get_context(mode).Process(target=child_main, args=(n,))
        p.start()  # site: start
        p.join()
        scale_step(n)  # site: parent
    elif mode == "callback":
        through_native(n)  # site: main_native
    elif mode == "steps":
        for _ in range(2):
            add_step(4)  # site: warmup
        for _ in range(n):
            train_step()  # site: steps_loop


if __name__ == "__main__":
    main()  # site: module
