#!/usr/bin/env python3
"""Checks a `gpurec export` file against the `gpurec info --json` of the same trace.

usage: export_check.py EXPORT.json INFO.json [KERNEL ...]
KERNEL...: the kernel names every thread launches, in order, repeating (a sample's documented
sequence). Prints TAP lines; exits 1 when one fails.
"""
import json
import sys

failures = 0


def check(name, ok, detail=""):
    global failures
    print(("ok - " if ok else "not ok - ") + name + ("" if ok else ": " + detail))
    failures += 0 if ok else 1


def main():
    doc = json.load(open(sys.argv[1]))
    info = json.load(open(sys.argv[2]))
    sequence = sys.argv[3:]
    events = doc.get("traceEvents")
    check("export: traceEvents is a list", isinstance(events, list))
    events = events or []

    # every event has what the viewers require
    bad = [e for e in events
           if not isinstance(e.get("ph"), str) or "pid" not in e or "tid" not in e
           or "cat" not in e or "name" not in e or "args" not in e
           or (e["ph"] != "M" and not isinstance(e.get("ts"), (int, float)))
           or (e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0))]
    check("export: every event has ph, name, cat, pid, tid, args, ts (and dur >= 0 for X)",
          not bad, repr(bad[:2]))

    api_cats = {"launch", "copy", "memset", "alloc", "free", "sync", "graph"}
    slices = [e for e in events if e["ph"] == "X" and e.get("cat") in api_cats]
    by_cat = {}
    for e in slices:
        by_cat[e["cat"]] = by_cat.get(e["cat"], 0) + 1
    expect = {k: v for k, v in info["events_by_kind"].items() if k in api_cats and v}
    check("export: one X slice per recorded API call, by kind", by_cat == expect,
          "export %r, info %r" % (by_cat, expect))

    # each thread's launches: the documented kernel sequence with its config
    threads = {(t["pid"], t["tid"]) for t in info["threads"] if t["launches"]}
    launches = sorted((e for e in slices if e["cat"] == "launch"), key=lambda e: e["ts"])
    cfg = {}
    for k in info["kernels"]:
        for c in k["configs"]:
            cfg[k["name"]] = ("(%d,%d,%d)" % tuple(c["grid"]), "(%d,%d,%d)" % tuple(c["block"]),
                              c["shared_mem"])
    wrong = []
    for pid, tid in threads:
        mine = [e for e in launches if (e["pid"], e["tid"]) == (pid, tid)]
        for i, e in enumerate(mine):
            a = e["args"]
            want = sequence[i % len(sequence)] if sequence else a["kernel"]
            if (a["kernel"] != want or (a["grid"], a["block"], a["shared_mem"]) != cfg.get(want)
                    or not a["stream"].startswith("0x")):
                wrong.append(a)
    check("export: launch args (kernel, grid, block, shared_mem, stream) in launch order",
          launches and not wrong, repr(wrong[:2]))

    streams = {e["args"]["stream"] for e in launches}
    sync_streams = {e["args"].get("stream") for e in slices if e["cat"] == "sync"}
    check("export: syncs name the stream the launches went to",
          not sync_streams or sync_streams == streams, "%r vs %r" % (sync_streams, streams))
    allocs = [e["args"] for e in slices if e["cat"] == "alloc"]
    want_n = sum(a["count"] for a in info["allocations"])
    want_b = sum(a["bytes"] for a in info["allocations"])
    check("export: alloc count and bytes as info counts them",
          len(allocs) == want_n and sum(a["bytes"] for a in allocs) == want_b,
          "%d allocs %d B, info %d allocs %d B" % (len(allocs), sum(a["bytes"] for a in allocs),
                                                   want_n, want_b))

    # metadata: a named process per pid, a named thread per launching thread
    pnames = {e["pid"]: e["args"]["name"] for e in events
              if e["ph"] == "M" and e["name"] == "process_name"}
    tnames = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    want_p = {p["pid"]: p["comm"] for p in info["processes"] if p["launches"]}
    check("export: process_name metadata for every launching process",
          all(pnames.get(p) == c for p, c in want_p.items()), "%r vs %r" % (pnames, want_p))
    want_t = {(t["pid"], t["tid"]): t["comm"] for t in info["threads"] if t["launches"]}
    check("export: thread_name metadata for every launching thread",
          all(tnames.get(k) == c for k, c in want_t.items()), "%r vs %r" % (tnames, want_t))
    stream_tracks = [n for n in tnames.values() if n.startswith("stream ")]
    check("export: a named track per stream", len(stream_tracks) == len(streams),
          repr(stream_tracks))

    # launches also on the stream tracks, with flows from the call
    inst = [e for e in events if e["ph"] == "i" and e.get("cat") == "kernel"]
    # (launch flows: cat "flow"; a wake flow, cat "wake", joins scheduler states)
    flows_s = {e["id"] for e in events if e["ph"] == "s" and e.get("cat") == "flow"}
    flows_f = {e["id"] for e in events if e["ph"] == "f" and e.get("cat") == "flow"}
    check("export: one instant per launch on its stream track, a flow from each call",
          len(inst) == len(launches) == len(flows_s) and flows_s == flows_f,
          "%d instants, %d launches, %d/%d flows" % (len(inst), len(launches), len(flows_s),
                                                     len(flows_f)))

    # scheduler states: no overlap on a track, only the three names
    sched = [e for e in events if e["ph"] == "X" and e.get("cat") == "sched"]
    names = {e["name"] for e in sched}
    overlap = 0
    tracks = {}
    for e in sched:
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    for evs in tracks.values():
        evs.sort(key=lambda e: e["ts"])
        for a, b in zip(evs, evs[1:]):
            overlap += a["ts"] + a["dur"] > b["ts"] + 1e-3
    check("export: scheduler states (running/runnable/blocked), non-overlapping per thread",
          sched and names <= {"running", "runnable", "blocked"} and not overlap,
          "%d slices, names %r, %d overlaps" % (len(sched), names, overlap))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
