#!/usr/bin/env bash
# `gpurec diff --json` compares GPU time (record --cupti) per kernel and per iteration, on two
# synthetic training loops whose GPU times we choose (tests/unit/synth_gpu_loop.h, written by
# tests/tools/trace_gpu_loop.c): 10 iterations each; BASE runs a for 1000 ns and b for 3000 /
# 3100 ns (alternately), NEW a for 1500 and b for 2000 / 2100, with 5 GPU records dropped. A set
# of traces per side adds up; a trace without GPU rows on one side compares nothing GPU-side.
. "$(dirname "$0")/lib.sh"
LOOP=$PWD/$O/tests/tool_trace_gpu_loop

"$LOOP" "$TMP/a.trc" 10 1000 3000 0 && "$LOOP" "$TMP/b.trc" 10 1500 2000 5
check "two loops written" 0 $?
"$GPUREC" diff --json "$TMP/a.trc" "$TMP/b.trc" >"$TMP/d.json"
check "diff --json: exit status" 0 $?

# per kernel: [name, status, [count, total, median] BASE, NEW, total delta, median delta]
kernels='[[k["name"], k["status"], [k["a"][x] for x in ("count", "total_ns", "median_ns")], [k["b"][x] for x in ("count", "total_ns", "median_ns")], k["total_delta_ns"], k["median_delta_ns"]] for k in d["gpu"]["kernels"]]'
check "GPU time per kernel, largest change first" \
	'[["b(float*)", "both", [10, 30500, 3000], [10, 20500, 2000], -10000, -1000], ["a(float*)", "both", [10, 10000, 1000], [10, 15000, 1500], 5000, 500]]' \
	"$(json "$TMP/d.json" "$kernels")"
check "a's GPU time ratio" 1.5 "$(json "$TMP/d.json" '[k["total_ratio"] for k in d["gpu"]["kernels"] if k["name"] == "a(float*)"][0]')"
check "labelled, compared, rows and dropped per side" \
	'["measured on the GPU (CUPTI)", true, 20, 20, 0, 5]' \
	"$(json "$TMP/d.json" '[d["gpu"][k] for k in ("source", "compared", "rows_a", "rows_b", "dropped_a", "dropped_b")]')"
fig() { # fig ID: [a, b] of the metric with that id
	json "$TMP/d.json" "[[m['a'], m['b']] for m in d['metrics'] if m['id'] == '$1'][0]"
}
check "GPU busy time per iteration (a + b)" "[4050, 3550]" "$(fig gpu.iteration.busy_time)"
check "GPU kernel time" "[40500, 35500]" "$(fig gpu.kernel_time)"
check "GPU busy time" "[40500, 35500]" "$(fig gpu.busy_time)"
check "kernels run on the GPU" "[20, 20]" "$(fig gpu.kernels)"
check "GPU records dropped" "[0, 5]" "$(fig gpu.dropped)"
# the loop: 9 periods of 100 us + 2200 ns + a + b_9 (906300 ns, 905800 ns)
check "GPU busy share in the iteration" "True" \
	"$(json "$TMP/d.json" "[m['a'] == 100 * (40500 / 906300) and m['b'] == 100 * (35500 / 905800) for m in d['metrics'] if m['id'] == 'gpu.iteration.busy_share'][0]")"

# every object of the JSON has each key once: the report's GPU section had "kernels" and
# "copies" twice (a count, then the per-name rows), which parsers resolve differently
dupkeys() { # dupkeys FILE: the keys an object of FILE repeats, or nothing
	python3 -c 'import json, sys
def hook(pairs):
    keys = [k for k, _ in pairs]
    for k in sorted(set(k for k in keys if keys.count(k) > 1)):
        print(k)
    return dict(pairs)
json.load(open(sys.argv[1]), object_pairs_hook=hook)' "$1"
}
"$GPUREC" report --json "$TMP/b.trc" >"$TMP/r.json"
check "report --json and diff --json: no key twice in an object" "" \
	"$(dupkeys "$TMP/r.json")$(dupkeys "$TMP/d.json")"
check "report --json: GPU rows by kind" "[20, 0, 0]" \
	"$(json "$TMP/r.json" '[d["gpu"][k] for k in ("kernel_rows", "copy_rows", "memset_rows")]')"

# --key name,grid,block: the same rows, keyed by the launch configuration
"$GPUREC" diff --json --key name,grid,block "$TMP/a.trc" "$TMP/b.trc" >"$TMP/k.json"
check "--key grid,block: grid and block in each row" '[["b(float*)", [8, 1, 1], [128, 1, 1], 30500, 20500], ["a(float*)", [4, 1, 1], [128, 1, 1], 10000, 15000]]' \
	"$(json "$TMP/k.json" '[[k["name"], k["grid"], k["block"], k["a"]["total_ns"], k["b"]["total_ns"]] for k in d["gpu"]["kernels"]]')"

# sets: two traces per side as one job
"$LOOP" "$TMP/a2.trc" 10 1000 3000 2 && "$LOOP" "$TMP/b2.trc" 10 1500 2000 4
"$GPUREC" diff --json "$TMP/a.trc,$TMP/a2.trc" "$TMP/b.trc,$TMP/b2.trc" >"$TMP/s.json"
check "sets: exit status" 0 $?
check "sets: GPU time per kernel over both traces" \
	'[["b(float*)", "both", [20, 61000, 3000], [20, 41000, 2000], -20000, -1000], ["a(float*)", "both", [20, 20000, 1000], [20, 30000, 1500], 10000, 500]]' \
	"$(json "$TMP/s.json" "$kernels")"
check "sets: dropped added over the traces" "[2, 9]" \
	"$(json "$TMP/s.json" '[d["gpu"]["dropped_a"], d["gpu"]["dropped_b"]]')"

# one side without GPU rows: one line, nothing compared
plain=tests/data/golden/chain.trc
"$GPUREC" diff --json "$plain" "$TMP/b.trc" >"$TMP/o.json"
check "one side: not compared, no rows, no gpu figure" '[false, 0, 20, [], 0]' \
	"$(json "$TMP/o.json" '[d["gpu"]["compared"], d["gpu"]["rows_a"], d["gpu"]["rows_b"], d["gpu"]["kernels"], len([m for m in d["metrics"] if m["group"] == "gpu"])]')"
check "one side: one line in the text" \
	"GPU: only NEW has GPU rows (recorded with --cupti): nothing is compared on the GPU side" \
	"$("$GPUREC" diff "$plain" "$TMP/b.trc" | grep '^GPU')"
"$GPUREC" diff --json "$plain" "$plain" >"$TMP/n.json"
check "neither side: no gpu object" False "$(json "$TMP/n.json" '"gpu" in d')"

[ $failures -eq 0 ]
