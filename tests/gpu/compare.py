#!/usr/bin/env python3
"""Per-kernel executed counts over a window of steps: gpurec's against torch.profiler's.

The window is cut on both sides by the same host calls: two cudaMemcpyAsync host-to-device
copies of a size nothing else copies (train.py's markers). A kernel belongs to the window when
the host call that made it started between the two markers:
- gpurec: `gpurec export --format sqlite`; launches that were not graph nodes and did not nest
  inside another recorded launch call (outcome 'ok'), plus the kernels each graph launch executed
  (graph_kernels), by the start of the launch call (docs/EXPORT.md);
- torch.profiler: its Chrome trace (prof.export_chrome_trace); kernel events joined through their
  correlation id to the runtime or driver call that launched them (a graph's kernels share the
  cudaGraphLaunch's id).
A graph's memcpy nodes are copies to gpurec (graph_calls.copies) and, to torch.profiler, either
copies or kernels of the driver's own (`memcpy128` on an H200): both sides count them under one
name, COPY_NODES, instead of by kernel.

    compare.py GPUREC.sqlite PROFILER.json [--marker-bytes N] [--json OUT]

prints one line per kernel whose counts differ, then a summary line; exits 1 on any mismatch.
Standard library only: the GPU hosts have no package registry.
"""
import argparse
import json
import re
import sqlite3
import sys

COPY_NODES = "(graph memcpy nodes)"
GRAPH_LAUNCHES = ("cudaGraphLaunch", "cudaGraphLaunch_ptsz", "cuGraphLaunch", "cuGraphLaunch_ptsz")
DRIVER_COPY_KERNEL = re.compile(r"memcpy[0-9]*$")


class WindowError(Exception):
    """The trace does not hold the window the markers should delimit."""


def _window(starts, marker_bytes, source):
    if len(starts) != 2:
        raise WindowError(f"{source}: {len(starts)} marker copies of {marker_bytes} bytes, expected 2")
    return starts[0], starts[1]


def gpurec_counts(db, marker_bytes=None):
    """{kernel name: executed count} in the window of an exported gpurec trace (an open
    sqlite3 connection); the whole trace when marker_bytes is None. Also returns the number of
    graph launches in the window whose kernels the trace does not know."""
    if marker_bytes is None:
        lo, hi = float("-inf"), float("inf")
    else:
        rows = db.execute(
            "SELECT start FROM copies WHERE bytes = ? AND direction = 'H2D' AND outcome = 'ok'"
            " AND graph_node = 0 ORDER BY start", (marker_bytes,)).fetchall()
        lo, hi = _window([r[0] for r in rows], marker_bytes, "gpurec")
    counts = {}
    for name, n in db.execute(
            "SELECT k.name, count(*) FROM launches l JOIN kernels k ON k.id = l.kernel_id"
            " WHERE l.outcome = 'ok' AND l.graph_node = 0 AND l.start > ? AND l.start < ?"
            " GROUP BY k.name", (lo, hi)):
        counts[name] = counts.get(name, 0) + n
    for name, n in db.execute(
            "SELECT k.name, count(*) FROM graph_kernels g"
            " JOIN graph_calls c ON c.id = g.graph_call_id JOIN kernels k ON k.id = g.kernel_id"
            " WHERE c.kind = 'launch' AND c.outcome = 'ok' AND c.start > ? AND c.start < ?"
            " GROUP BY k.name", (lo, hi)):
        counts[name] = counts.get(name, 0) + n
    nodes = db.execute(
        "SELECT sum(copies) FROM graph_calls WHERE kind = 'launch' AND outcome = 'ok'"
        " AND start > ? AND start < ?", (lo, hi)).fetchone()[0]
    if nodes:
        counts[COPY_NODES] = nodes
    unknown = db.execute(
        "SELECT count(*) FROM graph_calls WHERE kind = 'launch' AND outcome = 'ok'"
        " AND kernels IS NULL AND start > ? AND start < ?", (lo, hi)).fetchone()[0]
    return counts, unknown


def profiler_counts(trace, marker_bytes):
    """{kernel name: count} in the window of a torch.profiler Chrome trace (the parsed JSON);
    also returns the number of kernels whose launching call the trace does not hold."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    host_ts = {}  # correlation id -> start of the host call (runtime or driver API)
    host_name = {}  # correlation id -> the host call's name
    kernels, marker_corr, copy_corr = [], [], []
    for e in events:
        args = e.get("args") or {}
        corr = args.get("correlation")
        if corr is None or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if cat == "kernel":
            kernels.append((e["name"], corr))
        elif cat == "gpu_memcpy":
            if args.get("bytes") == marker_bytes:
                marker_corr.append(corr)
            copy_corr.append(corr)
        elif cat in ("cuda_runtime", "cuda_driver"):
            host_ts[corr] = e["ts"]
            host_name[corr] = e["name"]

    def in_graph(corr):
        return host_name.get(corr) in GRAPH_LAUNCHES

    kernels = [(COPY_NODES if in_graph(c) and DRIVER_COPY_KERNEL.match(n) else n, c)
               for n, c in kernels]
    kernels += [(COPY_NODES, c) for c in copy_corr if in_graph(c)]
    starts = sorted(host_ts[c] for c in marker_corr if c in host_ts)
    lo, hi = _window(starts, marker_bytes, "torch.profiler")
    counts, unattributed = {}, 0
    for name, corr in kernels:
        ts = host_ts.get(corr)
        if ts is None:
            unattributed += 1
        elif lo < ts < hi:
            counts[name] = counts.get(name, 0) + 1
    return counts, unattributed


def mismatches(gpurec, profiler):
    """[(kernel, gpurec count, profiler count)] for every kernel whose counts differ, by name."""
    return [(k, gpurec.get(k, 0), profiler.get(k, 0))
            for k in sorted(set(gpurec) | set(profiler))
            if gpurec.get(k, 0) != profiler.get(k, 0)]


def compare(db, trace, marker_bytes):
    """The comparison as a dict (what run.sh's summary holds) and its text lines."""
    g, unknown_graphs = gpurec_counts(db, marker_bytes)
    p, unattributed = profiler_counts(trace, marker_bytes)
    bad = mismatches(g, p)
    lines = [f"mismatch: {k}: gpurec {a}, torch.profiler {b}" for k, a, b in bad]
    if unknown_graphs:
        lines.append(f"gpurec: {unknown_graphs} graph launches in the window executed kernels"
                     " the trace does not know (instantiated before the recording)")
    if unattributed:
        lines.append(f"torch.profiler: {unattributed} kernels without their launching call")
    total_g, total_p = sum(g.values()), sum(p.values())
    lines.append(f"{len(g)} kernels, {total_g} executed (gpurec); {len(p)} kernels, {total_p}"
                 f" executed (torch.profiler); {len(bad)} mismatches")
    result = {
        "gpurec": g, "profiler": p,
        "gpurec_total": total_g, "profiler_total": total_p,
        "mismatches": [{"kernel": k, "gpurec": a, "profiler": b} for k, a, b in bad],
        "gpurec_unknown_graph_launches": unknown_graphs,
        "profiler_unattributed": unattributed,
        "match": not bad and not unknown_graphs and not unattributed,
    }
    return result, lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sqlite", help="gpurec export --format sqlite of the recording")
    ap.add_argument("profiler", help="torch.profiler Chrome trace of the same run")
    ap.add_argument("--marker-bytes", type=int, required=True)
    ap.add_argument("--json", help="write the comparison here")
    a = ap.parse_args(argv)
    try:
        db = sqlite3.connect(f"file:{a.sqlite}?mode=ro", uri=True)
        with open(a.profiler) as f:
            trace = json.load(f)
        result, lines = compare(db, trace, a.marker_bytes)
    except (OSError, ValueError, sqlite3.Error, WindowError, KeyError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
    return 0 if result["match"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
