#!/usr/bin/env python3
"""analyze/'s architecture, checked on every `make test` (check-deps).

The folder is the layer, so a new file needs no entry here; a new folder does (FOLDER_LAYER):

    analyze/cmd_*.c            4 commands: options, load, compute, render
    report/ diff/ info/        3 sections: one command's computations and renderers
      export/ html/
    figures/                   2 shared figures every command reads (timeline, launch stats...)
    model/                     1 the trace in memory, and loading it
    util/                      0 containers and text helpers that know nothing of traces

Arrows are includes (from the sources) and calls (undefined -> defined global symbols of the
objects in $O/analyze, when built). Refused:
  - an arrow to a higher layer;
  - a circle between folders of the same layer (report <- diff <- html is one way);
  - a circle between files (a unit is NAME.c with NAME.h): a section that calls back into its
    orchestrator, a pass that calls up into the loader that runs it.
Usage: check_layers.py [--graph]   (--graph prints the file arrows it checked)
"""
import os
import re
import subprocess
import sys

FOLDER_LAYER = {
    "util": 0,
    "model": 1,
    "figures": 2,
    "report": 3,
    "diff": 3,
    "info": 3,
    "export": 3,
    "html": 3,
    "": 4,
}

LAYER_NAME = ["util", "model", "figures", "section", "command"]
INCLUDE = re.compile(r'^#include\s+"([^"]+)"', re.M)

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)
objdir = os.environ.get("O", "build")
problems = []


def folder_of(path):  # analyze/report/report.c -> "report"; analyze/cmd_info.c -> ""
    parts = path.split("/")
    return "/".join(parts[1:-1])


def unit_of(path):
    return os.path.splitext(path)[0]


sources = []
for dirpath, _, names in os.walk("analyze"):
    for n in names:
        if n.endswith((".c", ".h")):
            sources.append(os.path.join(dirpath, n))
sources.sort()

for path in sources:
    if folder_of(path) not in FOLDER_LAYER:
        problems.append(f"{path}: folder analyze/{folder_of(path)}/ has no layer "
                        "(tests/check_layers.py: FOLDER_LAYER)")

# unit -> {unit: why}
arrows = {}


def arrow(src, dst, why):
    if src != dst:
        arrows.setdefault(src, {}).setdefault(dst, why)


for path in sources:
    for inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
        target = inc if inc.startswith("analyze/") else os.path.join(os.path.dirname(path), inc)
        if os.path.isfile(target):
            arrow(unit_of(path), unit_of(target), f"includes {inc}")

# calls: who defines each global symbol, who uses it. The objects are the ones the Makefile
# links (ANALYZE_OBJS, as `make check-deps` passes them); without the list, those in $O/analyze
# whose source is still in the tree, so that an old build's leftovers draw no arrows.
objects = []
if os.environ.get("ANALYZE_OBJS"):
    objects = [o for o in os.environ["ANALYZE_OBJS"].split() if os.path.isfile(o)]
else:
    for dirpath, _, names in os.walk(os.path.join(objdir, "analyze")):
        for n in names:
            obj = os.path.join(dirpath, n)
            if n.endswith(".o") and os.path.isfile(os.path.relpath(obj, objdir)[:-2] + ".c"):
                objects.append(obj)
if objects:
    defined, used = {}, []
    out = subprocess.run(["nm", "-A", "-P"] + sorted(objects), capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        # build/analyze/report/report.o: gr_report_build T 0 10
        head, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        unit = unit_of(os.path.relpath(head, objdir))
        sym, kind = fields[0], fields[1]
        if kind == "U":
            used.append((unit, sym))
        elif kind.isupper():
            defined[sym] = unit
    for unit, sym in used:
        if sym in defined:
            arrow(unit, defined[sym], f"calls {sym}")
else:
    print(f"check_layers: no objects in {objdir}/analyze: includes checked, calls not",
          file=sys.stderr)


# A header without a .c of its own (types, inline helpers) is no unit: an arrow into it stands
# for arrows into whatever it includes, so model_read.c -> model_impl.h -> model.h is model_read
# depending on model.
def is_unit(u):
    return os.path.isfile(u + ".c") or os.path.isfile(os.path.join(objdir, u + ".o"))


def through(unit, seen):
    for dst in arrows.get(unit, {}):
        if dst in seen:
            continue
        seen.add(dst)
        if is_unit(dst):
            yield dst, arrows[unit][dst]
        else:
            for d, why in through(dst, seen):
                yield d, f"{arrows[unit][dst]}, which {why}"


units = {}
for src in list(arrows):
    if is_unit(src):
        for dst, why in through(src, set()):
            if dst != src:
                units.setdefault(src, {}).setdefault(dst, why)


def layer(unit):
    return FOLDER_LAYER.get(folder_of(unit + ".c"), -1)


for src, dsts in sorted(arrows.items()):
    for dst, why in sorted(dsts.items()):
        ls, ld = layer(src), layer(dst)
        if ls >= 0 and ld > ls:
            problems.append(f"{src}: a {LAYER_NAME[ls]} file {why}, in {dst} ({LAYER_NAME[ld]})")


def cycles(graph):
    """Every strongly connected component of more than one node (Tarjan, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    nodes = sorted(set(graph) | {d for ds in graph.values() for d in ds})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


folders = {}
for src, dsts in arrows.items():
    for dst in dsts:
        if folder_of(src + ".c") != folder_of(dst + ".c"):
            folders.setdefault("analyze/" + folder_of(src + ".c"), set()).add(
                "analyze/" + folder_of(dst + ".c"))
for comp in cycles(folders):
    problems.append("folders in a circle: " + ", ".join(comp))

for comp in cycles(units):
    inside = set(comp)
    links = [f"{s} -> {d} ({units[s][d]})" for s in comp for d in sorted(units.get(s, ()))
             if d in inside]
    problems.append("files in a circle: " + ", ".join(comp) + "\n    " + "\n    ".join(links))

if "--graph" in sys.argv:
    for src, dsts in sorted(arrows.items()):
        for dst, why in sorted(dsts.items()):
            print(f"{src} -> {dst}: {why}")

for p in problems:
    print("check_layers: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
