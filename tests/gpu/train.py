#!/usr/bin/env python3
"""A small PyTorch training loop for the GPU kit (tests/gpu/run.sh): linear layers and explicit
matmuls (cuBLAS), a loss, backward, an SGD step with momentum, and `.item()` every step, which
makes the host wait for the GPU and so bounds each step in time.

    train.py --mode eager|compile|graphs [--steps N] [--warmup W]
             [--window K --marker-bytes M] [--profile-window TRACE.json]
             [--profile-all] [--times OUT.json]

- compile: torch.compile (Inductor's Triton kernels); graphs: torch.compile(mode=
  "reduce-overhead") (the step replayed as CUDA graphs).
- The window: after W warm-up steps (compilation, autotuning, graph capture happen there), K
  steps between two host-to-device copies of M bytes from pinned memory (one cudaMemcpyAsync
  each; no other copy of the loop has an odd size), so gpurec's trace and torch.profiler's can be
  cut to the same steps (compare.py).
- --profile-window: torch.profiler runs around the window and its Chrome trace is written.
- --profile-all: torch.profiler runs around every timed step (its cost, for the overhead table).
- --times: the wall time of each step after the warm-up, in a JSON file.
"""
import argparse
import json
import time

import torch

WIDTH, HIDDEN, BATCH = 1024, 4096, 256


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(WIDTH, HIDDEN)
        self.mid = torch.nn.Linear(HIDDEN, HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, WIDTH)
        self.mix = torch.nn.Parameter(torch.randn(WIDTH, WIDTH) / WIDTH ** 0.5)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.inp(x))
        h = torch.relu(self.mid(h))
        y = self.out(h)
        return torch.matmul(y, self.mix) + x  # an explicit matmul beside the Linear layers


def build(mode):
    torch.manual_seed(0)
    net = Net().cuda()
    opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    x = torch.randn(BATCH, WIDTH, device="cuda")
    target = torch.randn(BATCH, WIDTH, device="cuda")
    if mode == "compile":
        fwd = torch.compile(net)
    elif mode == "graphs":
        fwd = torch.compile(net, mode="reduce-overhead")
    else:
        fwd = net

    def step():
        if mode == "graphs":
            torch.compiler.cudagraph_mark_step_begin()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(fwd(x), target)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("eager", "compile", "graphs"), required=True)
    ap.add_argument("--steps", type=int, default=50, help="timed steps (without --window)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--window", type=int, default=0, help="steps between the markers")
    ap.add_argument("--marker-bytes", type=int, default=1000003)
    ap.add_argument("--profile-window", metavar="TRACE")
    ap.add_argument("--profile-all", action="store_true")
    ap.add_argument("--times", metavar="OUT")
    a = ap.parse_args()
    if a.marker_bytes % 2 == 0:
        ap.error("--marker-bytes must be odd: the loop's own copies are whole floats")

    step = build(a.mode)
    marker_src = torch.zeros(a.marker_bytes, dtype=torch.uint8).pin_memory()
    marker_dst = torch.empty(a.marker_bytes, dtype=torch.uint8, device="cuda")

    def marker():
        marker_dst.copy_(marker_src, non_blocking=True)
        torch.cuda.synchronize()

    for _ in range(a.warmup):
        step()
    torch.cuda.synchronize()

    if a.window:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        prof = torch.profiler.profile(activities=activities) if a.profile_window else None
        if prof:
            prof.__enter__()
        marker()
        for _ in range(a.window):
            step()
        marker()
        if prof:
            prof.__exit__(None, None, None)
            prof.export_chrome_trace(a.profile_window)

    if a.times:
        prof = None
        if a.profile_all:
            prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                      torch.profiler.ProfilerActivity.CUDA])
            prof.__enter__()
        times = []
        for _ in range(a.steps):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
        if prof:
            prof.__exit__(None, None, None)  # its processing is not part of any step
        with open(a.times, "w") as f:
            json.dump({"mode": a.mode, "step_s": times, "torch": torch.__version__,
                       "cuda": torch.version.cuda,
                       "device": torch.cuda.get_device_name()}, f)


if __name__ == "__main__":
    main()
