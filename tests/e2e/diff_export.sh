#!/usr/bin/env bash
# gpurec export and gpurec diff on recorded samples (simulator, root for BPF):
# - export: valid JSON, one X slice per recorded API call with its arguments, named tracks,
#   window and pid filters; loaded by Chrome DevTools' trace loader when npm can install it;
# - diff: chain at 50 and 80 steps gives exact per-kernel deltas; chain against chain_fused
#   reports the fusion and launches per iteration 5 -> 1; a trace against itself is all zeros;
#   --tolerance, --key, the default file names; the man page renders.
. "$(dirname "$0")/lib.sh"
need_root gpurec record
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
DIR=$(cd "$(dirname "$0")" && pwd)

if [ ! -x "$SAMPLES/chain" ] || [ ! -f "$SIM/libcudart.so.13" ]; then
	not_ok "samples not built in $SAMPLES (make samples)"
	exit 1
fi

rec() { # OUT SAMPLE STEPS: record a sample on the simulator
	"$GPUREC" record -o "$1" -- env LD_LIBRARY_PATH="$SIM" "$SAMPLES/$2" "$3" \
		>"$TMP/rec.out" 2>"$TMP/rec.err"
	check "record $2 $3" 0 $?
}

rec "$TMP/c50.trc" chain 50
rec "$TMP/c80.trc" chain 80
rec "$TMP/f50.trc" chain_fused 50

# ---------------------------------------------------------------- export
"$GPUREC" info --json "$TMP/c50.trc" >"$TMP/c50.info"
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/c50.json" >"$TMP/export.out" 2>&1
check "export exits 0" 0 $?
grep -q "^gpurec export: wrote $TMP/c50.json" "$TMP/export.out" &&
	ok "export says what it wrote" || not_ok "export output: $(cat "$TMP/export.out")"
tap export_check.py python3 "$DIR/export_check.py" "$TMP/c50.json" "$TMP/c50.info" \
	"bias_add(float*, float const*, int)" "gelu(float*, int)" "scale(float*, float, int)" \
	"residual_add(float*, float const*, int)" "dropout_mask(float*, unsigned int, int)"
check "export: 250 launch slices (chain 50: 5 per step)" 250 \
	"$(json "$TMP/c50.json" 'sum(e["ph"] == "X" and e["cat"] == "launch" for e in d["traceEvents"])')"
check "export: 50 cudaStreamSynchronize slices" 50 \
	"$(json "$TMP/c50.json" 'sum(e["ph"] == "X" and e["name"] == "cudaStreamSynchronize" for e in d["traceEvents"])')"

# the default output name, and a window: the slices inside it are exactly those of the full
# export that overlap it
(cd "$TMP" && "$GPUREC" export c50.trc >/dev/null 2>&1)
check "export: default output FILE.json" yes "$([ -s "$TMP/c50.json" ] && echo yes)"
mid=$(json "$TMP/c50.json" 'sorted(e["ts"] for e in d["traceEvents"] if e["ph"] == "X" and e["cat"] == "launch")[100]')
from_us=$(python3 -c "print(int($mid))")
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/win.json" --from "${from_us}us" --to "$((from_us + 500))us" \
	>/dev/null 2>&1
check "export --from/--to exits 0" 0 $?
want=$(json "$TMP/c50.json" "sum(e['ph'] == 'X' and e['cat'] != 'sched' and e['ts'] <= $from_us + 500 and e['ts'] + e['dur'] >= $from_us for e in d['traceEvents'])")
got=$(json "$TMP/win.json" "sum(e['ph'] == 'X' and e['cat'] != 'sched' for e in d['traceEvents'])")
check "export --from/--to: the API slices that overlap the window" "$want" "$got"
[ "$got" -gt 0 ] && [ "$got" -lt 300 ] && ok "export window: some but not all slices ($got)" ||
	not_ok "export window: $got slices"
pid=$(json "$TMP/c50.info" 'd["processes"][0]["pid"]')
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/pid.json" --pid $((pid + 1)) >/dev/null 2>&1
check "export --pid of another process: no slice" 0 \
	"$(json "$TMP/pid.json" 'sum(e["ph"] == "X" for e in d["traceEvents"])')"
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/bad.json" --from 2s --to 1s >/dev/null 2>&1
check "export --to before --from: usage error" 2 $?

grep -q "warning" "$TMP/export.out" && not_ok "export warned about a small file" ||
	ok "export: no size warning for a small file"
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/w.json" --warn-mb 0.1 >/dev/null 2>"$TMP/warn.err"
check "export over --warn-mb 0.1 still writes (exit 0)" 0 $?
grep -q "^gpurec export: warning: $TMP/w.json is 0\.[0-9] MB" "$TMP/warn.err" &&
	grep -q "narrow it with --from/--to: .* e\.g\. --from 0 --to " "$TMP/warn.err" &&
	ok "export over the size limit: warns and says how to narrow it" ||
	not_ok "export size warning: $(cat "$TMP/warn.err")"
rm -f "$TMP/w.json"
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/w.json" --warn-mb 0.01 >/dev/null 2>"$TMP/warn.err"
check "export over 4 x --warn-mb: refuses before writing (exit 1)" "1 no" \
	"$? $([ -e "$TMP/w.json" ] && echo yes || echo no)"
grep -q "not written (--force writes it anyway)" "$TMP/warn.err" &&
	ok "export refusal says why and what to do" || not_ok "refusal: $(cat "$TMP/warn.err")"
"$GPUREC" export "$TMP/c50.trc" -o "$TMP/w.json" --warn-mb 0.01 --force >/dev/null 2>&1
check "export --force writes it anyway" "0 yes" "$? $([ -s "$TMP/w.json" ] && echo yes)"

# Chrome DevTools' own trace loader, from npm, run offline once installed
VIEWER=$O/viewer
if [ ! -d "$VIEWER/node_modules/devtools-timeline-model" ] && command -v npm >/dev/null; then
	timeout 120 npm install --prefix "$VIEWER" --no-audit --no-fund --loglevel=error \
		devtools-timeline-model@1.4.0 >"$TMP/npm.log" 2>&1
fi
if [ -d "$VIEWER/node_modules/devtools-timeline-model" ] && command -v node >/dev/null; then
	NODE_PATH=$VIEWER/node_modules node "$DIR/devtools_load.js" "$TMP/c50.json" \
		>"$TMP/viewer.out" 2>&1
	check "DevTools trace loader reads the export" 0 $?
	check "DevTools: no complaint" "" "$(grep '"problem"' "$TMP/viewer.out" | head -3)"
	check "DevTools: the thread's track, its name and its 306 API slices (250 launches, 50 syncs, 3 allocs, 3 frees)" \
		"chain chain 306" \
		"$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    t = json.loads(l)
    if t.get("tid") == t.get("pid"): print(t["process"], t["thread"], t["phases"].get("X", 0))' "$TMP/viewer.out")"
	check "DevTools: a stream track with 250 launch instants" 250 \
		"$(python3 -c 'import json,sys
print(sum(json.loads(l)["phases"].get("i", 0) for l in open(sys.argv[1]) if json.loads(l).get("thread", "").startswith("stream ")))' "$TMP/viewer.out")"
else
	ok "# SKIP no node/npm, or npm could not install devtools-timeline-model"
fi

# ---------------------------------------------------------------- diff
"$GPUREC" diff --json "$TMP/c50.trc" "$TMP/c80.trc" >"$TMP/d1.json"
check "diff 50 vs 80 exits 0" 0 $?
check "diff 50 vs 80: every kernel 50 -> 80, delta 30, ratio 1.6" \
	"bias_add:50:80:30:1.6 dropout_mask:50:80:30:1.6 gelu:50:80:30:1.6 residual_add:50:80:30:1.6 scale:50:80:30:1.6" \
	"$(json "$TMP/d1.json" '" ".join(sorted("%s:%d:%d:%d:%g" % (k["name"].split("(")[0], k["count_a"], k["count_b"], k["delta"], k["ratio"]) for k in d["kernels"]))')"
check "diff 50 vs 80: all kernels in both" "both" \
	"$(json "$TMP/d1.json" '",".join(sorted({k["status"] for k in d["kernels"]}))')"
check "diff 50 vs 80: launches 250 -> 400" "250.0 400.0 150.0" \
	"$(json "$TMP/d1.json" '" ".join("%.1f" % m[x] for m in d["metrics"] if m["id"] == "run.launches" for x in ("a", "b", "delta"))')"
check "diff 50 vs 80: launches per iteration unchanged at 5" "5 5" \
	"$(json "$TMP/d1.json" '" ".join("%g" % m[x] for m in d["metrics"] if m["id"] == "iteration.launches" for x in ("a", "b"))')"

# tolerance: a 60% change is hidden at 70%, shown at 50%
check "diff --tolerance 70: the 60% kernel changes hidden" "0 5" \
	"$("$GPUREC" diff --json --tolerance 70 "$TMP/c50.trc" "$TMP/c80.trc" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["kernels"]), d["counts"]["hidden_kernels"])')"
check "diff --tolerance 50: shown" "5 0" \
	"$("$GPUREC" diff --json --tolerance 50 "$TMP/c50.trc" "$TMP/c80.trc" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["kernels"]), d["counts"]["hidden_kernels"])')"
check "diff --key name,grid,block: rows carry grid and block" "[16, 1, 1] [256, 1, 1]" \
	"$("$GPUREC" diff --json --key name,grid,block "$TMP/c50.trc" "$TMP/c80.trc" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(*sorted({"%s %s" % (k["grid"], k["block"]) for k in d["kernels"]}))')"

# a trace against itself: all zeros
"$GPUREC" diff --json "$TMP/c50.trc" "$TMP/c50.trc" >"$TMP/self.json"
check "self-diff: every kernel and figure delta is 0" "0 0" \
	"$(json "$TMP/self.json" '"%d %d" % (sum(k["delta"] != 0 for k in d["kernels"]), sum(m["delta"] not in (0, None) for m in d["metrics"]))')"
check "self-diff: summary says no differences" "no differences in what was recorded" \
	"$(json "$TMP/self.json" 'd["summary"][0]')"

# chain against its fused twin
"$GPUREC" diff --json "$TMP/c50.trc" "$TMP/f50.trc" >"$TMP/fused.json"
check "diff chain vs chain_fused: launches per iteration 5 -> 1" "5 1" \
	"$(json "$TMP/fused.json" '" ".join("%g" % m[x] for m in d["metrics"] if m["id"] == "iteration.launches" for x in ("a", "b"))')"
check "diff chain vs chain_fused: the fusion candidate is gone" \
	"gone bias_add..dropout_mask (5 kernels)" \
	"$(json "$TMP/fused.json" '" ".join("%s %s" % (f["status"], f["label"]) for f in d["fusion"])')"
check "diff chain vs chain_fused: 1 kernel added (50 launches), 5 removed (50 each)" \
	"added:fused_elementwise:0:50 removed:bias_add:50:0 removed:dropout_mask:50:0 removed:gelu:50:0 removed:residual_add:50:0 removed:scale:50:0" \
	"$(json "$TMP/fused.json" '" ".join(sorted("%s:%s:%d:%d" % (k["status"], k["name"].split("(")[0], k["count_a"], k["count_b"]) for k in d["kernels"]))')"
check "diff chain vs chain_fused: not comparable kernel by kernel" False \
	"$(json "$TMP/fused.json" 'd["comparable"]')"
"$GPUREC" diff "$TMP/c50.trc" "$TMP/f50.trc" >"$TMP/fused.txt"
# (the step's bound line, whatever the reports say it is, is diff_budget.sh's to check)
check "diff text: the summary leads with the changes" \
	"summary|  no kernel in common (BASE 5, NEW 1 kernels): the kernel rows do not compare; the whole-run figures still do|  launches per iteration 5 -> 1|  fusion candidate bias_add..dropout_mask (5 kernels) gone" \
	"$(sed -n '/^summary$/,/^$/p' "$TMP/fused.txt" | grep -v '^  step: ' | head -4 | paste -sd'|')"
check "diff chain vs chain_fused: syncs per iteration 1 -> 1" "1 1" \
	"$(json "$TMP/fused.json" '" ".join("%g" % m[x] for m in d["metrics"] if m["id"] == "iteration.syncs" for x in ("a", "b"))')"
# the summary holds at most 10 lines, most important first: an unchanged count comes after the
# figures that moved, and on a busy machine one more timing figure (a copy time) may move enough
# to take the last place. The line must be there whenever the summary has room for it.
summary_lines=$(sed -n '/^summary$/,/^$/p' "$TMP/fused.txt" | grep -c '^  ')
if grep -q "syncs per iteration unchanged (1)" "$TMP/fused.txt"; then
	ok "diff text: syncs per iteration unchanged"
elif [ "$summary_lines" -ge 10 ]; then
	ok "diff text: syncs per iteration unchanged # SKIP the summary's 10 lines went to figures that moved"
else
	not_ok "diff text: no sync line: $(sed -n '/^summary$/,/^$/p' "$TMP/fused.txt" | paste -sd'|')"
fi

# no arguments: gpurec.trc.old against gpurec.trc
mkdir -p "$TMP/cwd" && cp "$TMP/c50.trc" "$TMP/cwd/gpurec.trc.old" && cp "$TMP/c80.trc" "$TMP/cwd/gpurec.trc"
check "diff with no arguments: gpurec.trc.old -> gpurec.trc" "gpurec.trc.old gpurec.trc 30" \
	"$(cd "$TMP/cwd" && "$GPUREC" diff --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["base"]["file"], d["new"]["file"], d["kernels"][0]["delta"])')"
"$GPUREC" diff "$TMP/c50.trc" "$TMP/missing.trc" >/dev/null 2>"$TMP/err"
check "diff: a missing file fails" 1 $?
grep -q "missing.trc" "$TMP/err" && ok "diff: the error names the file" || not_ok "$(cat "$TMP/err")"
"$GPUREC" diff --key name,warp "$TMP/c50.trc" "$TMP/c80.trc" >/dev/null 2>&1
check "diff --key with an unknown field: usage error" 2 $?

# ---------------------------------------------------------------- man page
if command -v man >/dev/null; then
	out=$(man -l "$DIR/../../docs/gpurec.1" 2>&1 >/dev/null)
	check "man -l docs/gpurec.1 renders without warnings" "" "$out"
	for c in record report diff info export check; do
		man -l "$DIR/../../docs/gpurec.1" 2>/dev/null | grep -q "^ *gpurec $c" ||
			not_ok "man page lacks gpurec $c"
	done
else
	ok "# SKIP man not installed"
fi
[ $failures -eq 0 ]
