#!/usr/bin/env python3
"""Builds the data JSON of the HTML report (docs/HTML.md, schema gpurec-html-1) for tests.

The real data comes from `gpurec report --html`; this script makes the same shape from what
gpurec already prints (`report --json`, `diff --json`, `export` Chrome JSON), so the page and
its browser tests work without the C side, and so the tests can hand the page edge cases the
recorder cannot produce on demand (hostile kernel names, 5000 kernels, no iteration, empty).

usage:
  fixture.py report REPORT.json EXPORT.json FILE -o DATA.json
  fixture.py diff DIFF.json REPORT_A.json EXPORT_A.json A REPORT_B.json EXPORT_B.json B -o DATA.json
  fixture.py edge CASE REPORT.json EXPORT.json -o DATA.json
  --version V: the version the page names (default "fixture")
      CASE: no-iteration | empty | hostile-names | many-kernels | many-spans | nvtx | nvtx-diff
"""
import argparse
import json
import statistics

WINDOW_SPAN_CAP = 10000  # docs/HTML.md: three windows of 20000 are over 2 MB
ITERATION_POINT_CAP = 2000
WHOLE_WINDOW_NS = 50_000_000
STATE_TID_BASE = 4194304  # export's pseudo-tids for CPU state and stream tracks start here

# export categories -> the page's span types
CALL_TYPES = {"launch", "copy", "memset", "sync", "alloc", "free", "graph", "nccl", "other",
              "failed"}


def ns(us):
    return int(round(us * 1000))


class Names:
    def __init__(self):
        self.list, self.index = [], {}

    def get(self, s):
        if s is None:
            return -1
        if s not in self.index:
            self.index[s] = len(self.list)
            self.list.append(s)
        return self.index[s]


def detail_of(e):
    a = e.get("args", {})
    if "grid" in a:
        return "grid %s block %s" % (a["grid"], a.get("block", "?"))
    if "bytes" in a and "kind" in a:
        return "%s %d bytes" % (a["kind"], a["bytes"])
    for k in ("error", "woken_by", "preempted_by", "sleep", "kind"):
        if k in a:
            return "%s: %s" % (k, a[k])
    return None


def tracks_and_spans(export, names):
    """Tracks (threads, streams, GPU) and every span, from the Chrome JSON export."""
    thread_names, state_owner, tracks, by_key = {}, {}, [], {}
    for e in export["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            thread_names[(e["pid"], e["tid"])] = e["args"]["name"]

    def track(pid, tid):
        if (pid, tid) in state_owner:
            tid = state_owner[(pid, tid)]
        key = (pid, tid)
        if key in by_key:
            return by_key[key]
        label = thread_names.get(key, "%d/%d" % (pid, tid))
        t = {"id": len(tracks), "kind": "thread", "pid": pid, "tid": tid, "comm": label,
             "rank": None, "device": None, "stream": None, "label": "%s %d/%d" % (label, pid, tid)}
        if tid >= STATE_TID_BASE:
            kind = "gpu" if label.lower().startswith("gpu") else "stream"
            t.update(kind=kind, tid=None, comm=None, label=label)
            if label.startswith("stream "):
                t["stream"] = label.split()[1]
        tracks.append(t)
        by_key[key] = t["id"]
        return t["id"]

    for (pid, tid), label in list(thread_names.items()):
        if label.endswith(" CPU state"):  # "COMM TID CPU state"
            owner = int(label.split()[-3])
            state_owner[(pid, tid)] = owner
            thread_names.setdefault((pid, owner), " ".join(label.split()[:-3]))
    spans = []
    for e in export["traceEvents"]:
        cat, ph = e.get("cat"), e.get("ph")
        if ph == "X" and cat in CALL_TYPES:
            kind = cat
            if e.get("args", {}).get("error"):
                kind = "failed"
        elif ph == "X" and cat == "sched" and e["name"] in ("runnable", "blocked"):
            kind = e["name"]
        elif ph == "X" and cat and cat.startswith("gpu_"):
            kind = cat
        elif ph == "i" and cat == "kernel":
            kind = "kernel"
        else:
            continue
        spans.append([track(e["pid"], e["tid"]), ns(e["ts"]), ns(e.get("dur", 0)), kind,
                      names.get(e["name"]), names.get(detail_of(e))])
    spans.sort(key=lambda s: (s[1], s[0]))
    return tracks, spans


def iterations_of(report, export, t0):
    """[(start, dur)] of each iteration: the iteration thread's calls, `calls` at a time."""
    it = report.get("launches", {}).get("iteration") or {}
    if not it.get("found"):
        return []
    th, per = it["thread"], it["calls"]
    begin = it["start_ts"] - t0
    calls = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)))
                   for e in export["traceEvents"]
                   if e.get("ph") == "X" and e.get("cat") in CALL_TYPES
                   and e["pid"] == th["pid"] and e["tid"] == th["tid"] and ns(e["ts"]) >= begin)
    starts = [calls[i][0] for i in range(0, len(calls) - per + 1, per)][:it["count"]]
    out = []
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else calls[min(len(calls), (i + 1) * per) - 1][1]
        out.append((s, max(0, end - s)))
    return out


def iteration_points(iters):
    if len(iters) <= ITERATION_POINT_CAP:
        return False, [[s, d] for s, d in iters]
    per = -(-len(iters) // ITERATION_POINT_CAP)
    pts = []
    for i in range(0, len(iters), per):
        ds = [d for _, d in iters[i:i + per]]
        pts.append([iters[i][0], min(ds), int(statistics.median_low(ds)), max(ds), len(ds)])
    return True, pts


def windows_of(iters, spans):
    if iters:
        durs = [d for _, d in iters]
        order = sorted(range(len(durs)), key=lambda i: durs[i])
        picks = [("first", 0), ("median", order[len(order) // 2]), ("slowest", order[-1])]
        seen, wins = set(), []
        for label, k in picks:
            if k in seen:
                continue
            seen.add(k)
            wins.append({"label": label, "index": k, "start": iters[k][0],
                         "end": iters[k][0] + iters[k][1]})
        return wins
    # no iteration: the busiest 50 ms of the recording
    starts = [s[1] for s in spans]
    best, best_n, j = 0, 0, 0
    for i, s in enumerate(starts):
        while starts[j] < s - WHOLE_WINDOW_NS:
            j += 1
        if i - j + 1 > best_n:
            best_n, best = i - j + 1, max(0, s - WHOLE_WINDOW_NS)
    return [{"label": "whole", "index": -1, "start": best, "end": best + WHOLE_WINDOW_NS}]


def keep_window_spans(windows, spans):
    """Each window's spans in turn (a span in two windows is in the array twice), the longest
    WINDOW_SPAN_CAP of each, by start; w["spans"] says how many are the window's."""
    kept, truncated = [], 0
    for w in windows:
        inside = [s for s in spans if s[1] < w["end"] and s[1] + s[2] >= w["start"]]
        truncated += max(0, len(inside) - WINDOW_SPAN_CAP)
        if len(inside) > WINDOW_SPAN_CAP:
            inside = sorted(sorted(inside, key=lambda s: -s[2])[:WINDOW_SPAN_CAP],
                            key=lambda s: s[1])
        w["spans"] = len(inside)
        kept += inside
    return kept, truncated


def flame_of(export):
    frames = export.get("stackFrames", {})
    root = {"name": "all", "v": [0, 0], "children": {}}

    def stack(sf):
        out = []
        while sf is not None and str(sf) in frames:
            f = frames[str(sf)]
            out.append(f["name"])
            sf = f.get("parent")
        return out[::-1]

    for e in export["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") not in CALL_TYPES:
            continue
        launches = 1 if e["cat"] == "launch" else 0
        path = stack(e.get("sf"))
        path.append(e.get("args", {}).get("kernel") or e["name"])
        node = root
        for name in [None] + path:
            if name is not None:
                node = node["children"].setdefault(name, {"name": name, "v": [0, 0],
                                                          "children": {}})
            node["v"][0] += launches
            node["v"][1] += ns(e.get("dur", 0))

    total = root["v"]

    def finish(node):
        small = {"name": "(other)", "v": [0, 0], "children": []}
        kids = []
        for c in node["children"].values():
            if all(c["v"][k] * 1000 < total[k] for k in (0, 1)):
                small["v"][0] += c["v"][0]
                small["v"][1] += c["v"][1]
            else:
                kids.append(finish(c))
        if small["v"] != [0, 0]:
            kids.append(small)
        kids.sort(key=lambda c: -c["v"][0])
        return {"name": node["name"], "v": node["v"], "children": kids}

    return {"weights": ["launches", "host_ns"], "root": finish(root)}


def views_of(report, export):
    t0 = report["first_ts"]
    names = Names()
    tracks, spans = tracks_and_spans(export, names)
    iters = iterations_of(report, export, t0)
    binned, points = iteration_points(iters)
    windows = windows_of(iters, spans) if spans or iters else []
    kept, truncated = keep_window_spans(windows, spans)
    it = report.get("launches", {}).get("iteration") or {}
    return {
        "t0": t0,
        "iterations": {"found": bool(it.get("found")), "thread": it.get("thread"),
                       "count": len(iters), "binned": binned, "points": points},
        "timeline": {"windows": windows, "tracks": tracks, "names": names.list, "spans": kept,
                     "truncated": truncated},
        "flame": flame_of(export),
    }


def load(path):
    with open(path) as f:
        return json.load(f)


def report_doc(report, export, files, version="fixture"):
    return {"schema": "gpurec-html-1", "kind": "report", "version": version,
            "title": "gpurec report: " + " ".join(files), "files": files, "report": report,
            "views": views_of(report, export)}


def nvtx_diff(report, export):
    """A diff page of two sides with NVTX ranges (the nvtx page's twice, NEW without "optimizer")
    and the diff's per-range rows (docs/REPORTS.md, diff "NVTX ranges")."""
    base = edge("nvtx", json.loads(json.dumps(report)), json.loads(json.dumps(export)))
    new = edge("nvtx", report, export)
    nv = new["views"]["nvtx"]
    nv["spans"] = [x for x in nv["spans"] if x[5] != "optimizer"]
    nv["flame"]["root"]["children"][0]["children"][1]["children"] = []
    row = lambda name, st, c, t, ps: {"name": name, "status": st, "hidden": False, "count": c,
                                      "total_ns": t, "median_ns": [0, 0], "per_step_ns": ps}
    diff = {"summary": ["NVTX range step: 100 ns -> 80 ns per step"], "kernels": [],
            "metrics": [],
            "nvtx": [row("step", "both", [3, 3], [300, 240], [100, 80]),
                     row("forward", "both", [3, 3], [150, 150], [50, 50]),
                     row("optimizer", "removed", [3, 0], [60, 0], [20, None])]}
    return {"schema": "gpurec-html-1", "kind": "diff", "version": "fixture",
            "title": "gpurec diff: nvtx", "base": {"files": ["a"], "report": base["report"],
                                                    "views": base["views"]},
            "new": {"files": ["b"], "report": new["report"], "views": new["views"]},
            "diff": diff}


def edge(case, report, export):
    """The page's edge cases, made from a real report and export."""
    if case == "nvtx-diff":
        return nvtx_diff(report, export)
    if case == "no-iteration":
        report["launches"]["iteration"] = {"found": False, "thread": None, "count": 0}
    elif case == "empty":
        export = {"traceEvents": [], "stackFrames": {}}
        launches = report["launches"]
        launches.update(total=0, executed=0, kernels=[], kernels_total=0, threads=[], streams=[],
                        processes=[], gaps=[], iteration={"found": False, "thread": None,
                                                          "count": 0})
        report["cpu"]["threads"] = []
    elif case in ("hostile-names", "many-kernels"):
        hostile = ["</script><script>window.PWNED=1</script>", "a\"quote'd & <b>bold</b>",
                   "<img src=x onerror=window.PWNED=2>", "line\u2028sep"]
        n = 5000 if case == "many-kernels" else len(hostile)
        proto = report["launches"]["kernels"][0]
        kernels = []
        for i in range(n):
            k = dict(proto)
            k["name"] = hostile[i] if case == "hostile-names" else "kernel_%04d<T>(float*)" % i
            k["count"] = n - i
            kernels.append(k)
        report["launches"]["kernels"] = kernels
        report["launches"]["kernels_total"] = n
        if case == "hostile-names":
            for e in export["traceEvents"]:
                if e.get("cat") in ("launch", "kernel"):
                    e["args"]["kernel"] = hostile[0]
                    if e["cat"] == "kernel":
                        e["name"] = hostile[1]
    elif case in ("many-spans", "nvtx"):
        pass  # filled in below, once the views exist
    else:
        raise SystemExit("fixture.py: unknown edge case " + case)
    title = "edge: " + case + (" </script>\"<" if case == "hostile-names" else "")
    doc = report_doc(report, export, [title])
    doc["title"] = "gpurec report: " + title
    if case == "many-spans":
        # every window at its cap: WINDOW_SPAN_CAP launches each, evenly spread, and some left out
        tl = doc["views"]["timeline"]
        name = tl["names"].index("__cudaLaunchKernel") if "__cudaLaunchKernel" in tl["names"] else 0
        spans = []
        for w in tl["windows"]:
            step = max(1, (w["end"] - w["start"]) // WINDOW_SPAN_CAP)
            spans += [[0, w["start"] + i * step, step // 2, "launch", name, -1]
                      for i in range(WINDOW_SPAN_CAP)]
            w["spans"] = WINDOW_SPAN_CAP
        tl["spans"], tl["truncated"] = spans, 12345
    if case == "nvtx":
        # per window on the first thread track: a "step" range over the window, "forward" and
        # "backward" halves in it (backward coloured), "optimizer" at depth 2 in backward
        tl = doc["views"]["timeline"]
        track = next(t["id"] for t in tl["tracks"] if t["kind"] == "thread")
        spans = []
        for wi, w in enumerate(tl["windows"]):
            a, d = w["start"], max(4, w["end"] - w["start"])
            spans += [[wi, track, a, d, 0, "step", None],
                      [wi, track, a, d // 2, 1, "forward", None],
                      [wi, track, a + d // 2, d // 2, 1, "backward", "#e03030"],
                      [wi, track, a + d // 2, d // 4, 2, "optimizer", None]]
        n = len(tl["windows"])
        leaf = lambda name, c, t, kids=(): {"name": name, "v": [c, t], "children": list(kids)}
        root = leaf("all", n, 4 * n, [leaf("step", n, 4 * n, [
            leaf("forward", n, 2 * n), leaf("backward", n, 2 * n, [leaf("optimizer", n, n)])])])
        doc["views"]["nvtx"] = {"spans": spans, "truncated": 0,
                                "flame": {"weights": ["ranges", "range_ns"], "first": 1,
                                          "merged": 0, "root": root}}
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["report", "diff", "edge"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--version", default="fixture", help="what the page says made it")
    a = ap.parse_args()
    if a.mode == "report":
        rep, exp, name = a.args
        doc = report_doc(load(rep), load(exp), [name], a.version)
    elif a.mode == "diff":
        d, ra, ea, na, rb, eb, nb = a.args
        doc = {"schema": "gpurec-html-1", "kind": "diff", "version": a.version,
               "title": "gpurec diff: %s vs %s" % (na, nb),
               "base": {"files": [na], "report": load(ra), "views": views_of(load(ra), load(ea))},
               "new": {"files": [nb], "report": load(rb), "views": views_of(load(rb), load(eb))},
               "diff": load(d)}
    else:
        case, rep, exp = a.args
        doc = edge(case, load(rep), load(exp))
    with open(a.output, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
