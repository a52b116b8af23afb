#!/usr/bin/env python3
"""The GPU kit's one JSON summary, from what run.sh left in its results directory: the samples'
TAP lines, each mode's count comparison (compare.py --json) and the step times (train.py
--times). Prints the overhead table; exits 1 when a count or a target was missed.

    summary.py OUT --gpurec VERSION --gpus TEXT --modes "eager ..." --conds "plain ..." --rounds N

Overhead of a condition = its step time / the unrecorded step time - 1, where a step time is the
median over the rounds of each run's median step. Targets (issue 15): gpurec without --cupti at
most 1%, and at most a fifth of torch.profiler's.
"""
import argparse
import json
import os
import platform
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--gpurec", default="")
    ap.add_argument("--gpus", default="")
    ap.add_argument("--modes", default="eager compile graphs")
    ap.add_argument("--conds", default="plain gpurec profiler")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    modes, conds = a.modes.split(), a.conds.split()

    with open(os.path.join(a.out, "samples.tap")) as f:
        tap = [line.rstrip("\n") for line in f if line.startswith(("ok", "not ok"))]
    samples = {"passed": sum(t.startswith("ok") for t in tap),
               "failed": [t for t in tap if t.startswith("not ok")]}

    counts = {m: load(os.path.join(a.out, f"{m}.counts.json")) for m in modes}

    versions = {"gpurec": a.gpurec, "gpus": a.gpus, "python": platform.python_version(),
                "kernel": platform.release()}
    overhead, problems = {}, []
    for m in modes:
        per = {}
        for c in conds:
            medians = []
            for r in range(1, a.rounds + 1):
                t = load(os.path.join(a.out, f"time.{m}.{c}.{r}.json"))
                if t:
                    medians.append(statistics.median(t["step_s"]))
                    versions.update(torch=t["torch"], cuda=t["cuda"], device=t["device"])
            per[c] = {"rounds_s": medians,
                      "step_s": statistics.median(medians) if medians else None}
        base = per["plain"]["step_s"]
        for c in conds:
            s = per[c]["step_s"]
            per[c]["overhead"] = s / base - 1 if s is not None and base else None
        g, p = per["gpurec"]["overhead"], per["profiler"]["overhead"]
        per["targets"] = {
            "gpurec_at_most_1pct": g is not None and g <= 0.01,
            "gpurec_at_most_fifth_of_profiler": g is not None and p is not None and g <= p / 5,
        }
        overhead[m] = per

    print(f"{'step time':<10}" + "".join(f"{c:>16}" for c in conds))
    for m in modes:
        cells = []
        for c in conds:
            s, o = overhead[m][c]["step_s"], overhead[m][c]["overhead"]
            cells.append("failed" if s is None else
                         f"{s * 1e3:.3f} ms" + ("" if c == "plain" else f" {o:+.1%}"))
        print(f"{m:<10}" + "".join(f"{x:>16}" for x in cells))
        for target, met in overhead[m]["targets"].items():
            if not met:
                problems.append(f"{m}: target missed: {target}")
    for m in modes:
        if counts[m] is None:
            problems.append(f"{m}: no count comparison")
        elif not counts[m]["match"]:
            problems.append(f"{m}: {len(counts[m]['mismatches'])} kernels' counts differ")
    problems += [f"samples: {t}" for t in samples["failed"]]

    summary = {"versions": versions, "samples": samples, "counts": counts,
               "overhead": overhead, "problems": problems}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    for p in problems:
        print(f"problem: {p}")
    print(f"summary: {os.path.join(a.out, 'summary.json')}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
