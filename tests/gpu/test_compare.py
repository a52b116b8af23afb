#!/usr/bin/env python3
"""compare.py against hand-written fixtures whose counts the comments in fixtures/ spell out:
a gpurec export (gpurec_window.sql) and a torch.profiler Chrome trace (profiler_trace.json) of
the same window. Prints TAP lines (tests/run.sh counts them); needs no GPU and no torch."""
import contextlib
import io
import json
import os
import sqlite3
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402

MARKER = 1000003
failures = 0


def check(name, expected, actual):
    global failures
    if expected == actual:
        print(f"ok - {name}")
    else:
        failures += 1
        print(f"not ok - {name}: expected {expected!r}, got {actual!r}")


def fixture_db(path):
    db = sqlite3.connect(path)
    with open(os.path.join(HERE, "fixtures", "gpurec_window.sql")) as f:
        db.executescript(f.read())
    db.commit()
    return db


def run_cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = compare.main(args)
    return rc, out.getvalue(), err.getvalue()


with tempfile.TemporaryDirectory() as tmp:
    sqlite_path = os.path.join(tmp, "run.sqlite")
    db = fixture_db(sqlite_path)
    trace_path = os.path.join(HERE, "fixtures", "profiler_trace.json")
    with open(trace_path) as f:
        trace = json.load(f)

    check("gpurec window: plain launches, graph kernels; nested, failed, captured, outside left out",
          ({"gemm": 4, "elementwise": 3, "triton_a": 1, "triton_b": 1, compare.COPY_NODES: 1}, 0),
          compare.gpurec_counts(db, MARKER))
    check("gpurec whole trace without markers",
          ({"gemm": 5, "elementwise": 3, "triton_a": 2, "triton_b": 2, "warmup": 1,
            compare.COPY_NODES: 3}, 0),
          compare.gpurec_counts(db))
    check("profiler window: kernels by their launching call's start, graph kernels included,"
          " the driver's memcpy kernel of a graph counted as a memcpy node",
          ({"gemm": 4, "elementwise": 2, "triton_a": 1, "triton_b": 1, "only_in_profiler": 1,
            compare.COPY_NODES: 1}, 1),
          compare.profiler_counts(trace, MARKER))

    out_json = os.path.join(tmp, "cmp.json")
    rc, out, err = run_cli([sqlite_path, trace_path, "--marker-bytes", str(MARKER),
                            "--json", out_json])
    check("mismatches: exit status 1", 1, rc)
    check("mismatches: every one printed with its kernel, then the summary", [
        "mismatch: elementwise: gpurec 3, torch.profiler 2",
        "mismatch: only_in_profiler: gpurec 0, torch.profiler 1",
        "torch.profiler: 1 kernels without their launching call",
        "5 kernels, 10 executed (gpurec); 6 kernels, 10 executed (torch.profiler); 2 mismatches",
    ], out.splitlines())
    with open(out_json) as f:
        result = json.load(f)
    check("mismatches: the JSON lists them", [
        {"kernel": "elementwise", "gpurec": 3, "profiler": 2},
        {"kernel": "only_in_profiler", "gpurec": 0, "profiler": 1},
    ], result["mismatches"])
    check("mismatches: no match", False, result["match"])

    # the same window where both sides agree: the profiler trace less its two extra kernels
    agreeing = {"traceEvents": [
        e for e in trace["traceEvents"]
        if e["name"] not in ("only_in_profiler", "no_launch_call")
        and e.get("args", {}).get("correlation") != 8]}
    agreeing["traceEvents"] += [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 30, "dur": 1,
         "args": {"correlation": 20}},
        {"ph": "X", "cat": "kernel", "name": "elementwise", "ts": 76, "dur": 1,
         "args": {"correlation": 20}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 31, "dur": 1,
         "args": {"correlation": 21}},
        {"ph": "X", "cat": "kernel", "name": "elementwise", "ts": 77, "dur": 1,
         "args": {"correlation": 21}},
    ]
    result, lines = compare.compare(db, agreeing, MARKER)
    check("agreement: match, only the summary line",
          (True, ["5 kernels, 10 executed (gpurec); 5 kernels, 10 executed (torch.profiler);"
                  " 0 mismatches"]), (result["match"], lines))

    rc, out, err = run_cli([sqlite_path, trace_path, "--marker-bytes", "4096"])
    check("one marker copy in gpurec's trace: exit 2, says so",
          (2, "", "compare.py: gpurec: 1 marker copies of 4096 bytes, expected 2\n"), (rc, out, err))
    rc, out, err = run_cli([sqlite_path, os.path.join(tmp, "missing.json"),
                            "--marker-bytes", str(MARKER)])
    check("missing profiler trace: exit 2, names it", (2, True),
          (rc, err.startswith("compare.py: ") and "missing.json" in err))
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write("{not json")
    rc, out, err = run_cli([sqlite_path, bad, "--marker-bytes", str(MARKER)])
    check("damaged profiler trace: exit 2", (2, ""), (rc, out))
    db.close()

sys.exit(1 if failures else 0)
