#!/usr/bin/env python3
"""Exact counts of a sample's recording, from `gpurec report --json --top 100`: the calls each
sample makes (samples/README.md's tables, the same figures tests/e2e/report_samples.sh asserts).
They hold on every runtime, the GPU's, the toolkit's without a driver and the simulator, since
the samples make the same calls whatever the calls return.

    samples_check.py SAMPLE STEPS REPORT.json     # TAP lines; exit 1 on a failure
"""
import json
import sys

MIB16 = 16777216


def expected(sample, n):
    """{kernel base name: (launch calls, executed)}, {direction: (copies, bytes)}, extra
    {report key path: value} for SAMPLE run with n steps."""
    chain = ("bias_add", "gelu", "scale", "residual_add", "dropout_mask")
    item = ("forward", "loss_reduce", "sgd_update")
    layers = ("layer_linear", "layer_bias", "layer_act", "layer_norm")
    table = {
        "chain": ({k: (n, n) for k in chain}, {},
                  {("launches", "total"): 5 * n,
                   ("launches", "iteration", "launches"): 5,
                   ("launches", "iteration", "count"): n}),
        "chain_fused": ({"fused_elementwise": (n, n)}, {}, {("launches", "total"): n}),
        "pageable": ({"normalize": (n, n)}, {"H2D": (n, n * MIB16)}, {}),
        "pinned": ({"normalize": (n, n)}, {"H2D": (n, n * MIB16)}, {}),
        "item": ({k: (n, n) for k in item}, {"D2H": (n, 4 * n)}, {}),
        "item_free": ({k: (n, n) for k in item}, {"D2H": (1, 4)}, {}),
        "starved": ({"tick": (20 * n, 20 * n)}, {}, {}),
        "alone": ({"tick": (20 * n, 20 * n)}, {}, {}),
        # the step's 40 launches are captured once (calls, not executed); each graph launch
        # executes 10 of each kernel
        "graph": ({k: (10, 10 * n) for k in layers}, {},
                  {("launches", "graph_launches"): n, ("launches", "executed"): 40 * n}),
        "graph_eager": ({k: (10 * n, 10 * n) for k in layers}, {},
                        {("launches", "total"): 40 * n, ("launches", "executed"): 40 * n}),
    }
    return table[sample]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    sample, n = argv[0], int(argv[1])
    with open(argv[2]) as f:
        d = json.load(f)
    kernels, copies, extra = expected(sample, n)
    results = []
    got = {k["name"].split("(")[0]: (k["count"], k["executed"]) for k in d["launches"]["kernels"]}
    results.append((f"{sample} {n}: kernels (launch calls, executed)", kernels, got))
    got_copies = {x["kind"]: (x["count"], x["bytes"]) for x in d["transfer"]["directions"]
                  if x["count"]}  # the report lists every direction, most with no copy
    results.append((f"{sample} {n}: copies (count, bytes) by direction", copies, got_copies))
    for path, want in extra.items():
        v = d
        for key in path:
            v = v[key]
        results.append((f"{sample} {n}: {'.'.join(path)}", want, v))
    failed = 0
    for name, want, have in results:
        if want == have:
            print(f"ok - {name}")
        else:
            failed += 1
            print(f"not ok - {name}: expected {want}, got {have}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
