#!/usr/bin/env bash
# --step SPEC names the step (docs/REPORTS.md, "Naming the step"): a kernel, a CUDA API, a Python
# line or function. On the simulator, with programs whose steps the test knows:
# - tests/progs/phases warm_train: 10 warm-up steps and 1000 training steps of (H2D copy, fwd,
#   bwd, stream sync): fwd, kernel:fwd, api:cudaStreamSynchronize each start 1010 steps, 1009
#   whole ones of 4 calls (2 launches, 1 copy, 1 sync);
# - tests/progs/py/cuda_sites.py steps 30: 2 warm-up add_step(4) calls, then 30 train_step()s of
#   3 scale launches, 2 add launches and a device sync: the loop's line, the function, with or
#   without py:, start 30 steps, 29 whole ones of 6 calls (5 launches, 1 sync).
# The same SPEC gives the same step to diff and to export (a slice per step on a track "steps
# (--step SPEC)", in JSON and Perfetto); one that names nothing is an error, exit 1.
. "$(dirname "$0")/lib.sh"
need_root report_step
SIM=${SAMPLES:-$PWD/$O/samples}/sim
SCRIPT=$PROGS/py/cuda_sites.py

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/phases" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# step TRACE SPEC: the iteration's figures under --step SPEC
step() {
	"$GPUREC" report --json --step "$2" "$1" | python3 -c 'import json, sys
it = json.load(sys.stdin)["launches"]["iteration"]
print([it["step"], it["step_starts"], it["count"], it["calls"], it["launches"], it["copies"],
       it["syncs"], it["chosen_because"]])'
}

"$GPUREC" record -o "$TMP/w.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/phases" warm_train \
	>"$TMP/w.out" 2>&1
check "phases warm_train recorded" 0 $?
for spec in fwd kernel:fwd api:cudaStreamSynchronize cudaMemcpyAsync; do
	check "--step $spec: 1010 starts, 1009 steps of 4 calls (2 launches, 1 copy, 1 sync)" \
		"['$spec', 1010, 1009, 4, 2, 1, 1, 'step_option']" "$(step "$TMP/w.trc" "$spec")"
done
"$GPUREC" report --step fwd "$TMP/w.trc" >"$TMP/w.txt"
check "the text says which step was named" 1 \
	"$(grep -c "^  step: --step fwd starts 1010 on the thread: 1009 whole steps" "$TMP/w.txt")"
check "diff --step: both sides' iterations are the named step's" "[1009, 1009, 4, 4]" \
	"$("$GPUREC" diff --json --step fwd "$TMP/w.trc" "$TMP/w.trc" | python3 -c 'import json, sys
m = {x["id"]: x for x in json.load(sys.stdin)["metrics"]}
print([m["iteration.count"]["a"], m["iteration.count"]["b"], m["iteration.calls"]["a"], m["iteration.calls"]["b"]])')"

# errors: exit 1, the SPEC and why on stderr, nothing on stdout
for spec in nosuch_kernel api:cudaNoSuchCall kernel:; do
	"$GPUREC" report --step "$spec" "$TMP/w.trc" >"$TMP/e.out" 2>"$TMP/e.err"
	check "--step $spec: exit 1" 1 $?
	check "--step $spec: said why, nothing else" "1 0" \
		"$(grep -c "^gpurec report: --step '$spec': " "$TMP/e.err") $(wc -c <"$TMP/e.out")"
done
"$GPUREC" diff --step nosuch_kernel "$TMP/w.trc" "$TMP/w.trc" >/dev/null 2>"$TMP/e.err"
check "diff --step nosuch_kernel: exit 1, said why" "1 1" \
	"$? $(grep -c "^gpurec diff: --step 'nosuch_kernel'" "$TMP/e.err")"

# export --step: one slice per step on a track of its own, at the report's steps' times
"$GPUREC" report --json --step fwd "$TMP/w.trc" >"$TMP/w.json"
"$GPUREC" export --step fwd -o "$TMP/wx.json" "$TMP/w.trc" >"$TMP/wx.out"
check "export --step fwd: exit 0" 0 $?
check "export --step fwd: says 1009 step slices" 1 "$(grep -c "^  1009 step slices" "$TMP/wx.out")"
check "export --step fwd: the steps' slices are the report's steps" "[1009, 1, True, True, True, True]" \
	"$(python3 - "$TMP/w.json" "$TMP/wx.json" <<'PY'
import json, sys
it = json.load(open(sys.argv[1]))["launches"]["iteration"]
d = json.load(open(sys.argv[2]))
t0 = d["otherData"]["start_monotonic_ns"]
ev = d["traceEvents"]
s = [e for e in ev if e["ph"] == "X" and e.get("cat") == "step"]
tracks = {(e["pid"], e["tid"]) for e in s}
names = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"
         and (e["pid"], e["tid"]) in tracks]
near = lambda a, b: abs(a - b) < 0.002
print([len(s), len(tracks), names == ["steps (--step fwd)"],
       [e["name"] for e in s] == ["step %d" % j for j in range(len(s))] and len(s) == it["count"],
       near(s[0]["ts"], (it["start_ts"] - t0) / 1000) and
       near(s[-1]["ts"] + s[-1]["dur"], (it["end_ts"] - t0) / 1000),
       all(near(a["ts"] + a["dur"], b["ts"]) for a, b in zip(s, s[1:]))])
PY
)"
"$GPUREC" export -o "$TMP/wn.json" "$TMP/w.trc" >/dev/null
check "export without --step: no step slices" 0 \
	"$(python3 -c 'import json, sys; print(sum(e.get("cat") == "step" for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$TMP/wn.json")"
# a window: the steps in it, clipped to it; none when it holds no step (not an error)
steps_in() { # JSON -> [step slices, all within [FROM_US, TO_US]]
	python3 -c 'import json, sys
s = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "step"]
lo, hi = float(sys.argv[2]), float(sys.argv[3])
print([len(s) > 0, all(lo - 0.002 <= e["ts"] and e["ts"] + e["dur"] <= hi + 0.002 for e in s)])' "$@"
}
# a window in the middle of the report's loop, from the recording's start (the program's own
# timing decides where its loop lies: a slower build starts it later): from a step's start, a
# millisecond or four steps, whichever is longer. A model loaded for a window finds the steps
# among the window's own calls, and on a busy machine a millisecond chosen blind may hold none
read -r from_ns to_ns <<<"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "step"]
m = len(s) // 2
a = round(s[m]["ts"] * 1000)
b = max(a + 1000000, round((s[m + 3]["ts"] + s[m + 3]["dur"]) * 1000))
print(a, b)' "$TMP/wx.json")"
"$GPUREC" export --step fwd --from "${from_ns}ns" --to "${to_ns}ns" -o "$TMP/ww.json" \
	"$TMP/w.trc" >/dev/null
check "export --step in a window: steps, clipped to it" "[True, True]" \
	"$(steps_in "$TMP/ww.json" $((from_ns / 1000)) $((to_ns / 1000 + 1)))"
"$GPUREC" export --step fwd --from 0.0001 --to 0.0002 -o "$TMP/ww.json" "$TMP/w.trc" \
	>/dev/null 2>"$TMP/ww.err"
check "export --step with a window before the steps: exit 0, none written, said" "0 [False, True] 1" \
	"$? $(steps_in "$TMP/ww.json" 100 200) $(grep -c "^gpurec export: --step 'fwd': no step in the window" "$TMP/ww.err")"
if command -v protoc >/dev/null; then
	pf_steps() { # TRACE.pftrace -> [slices begun, ended, track descriptors]
		protoc --decode_raw <"$1" | python3 "$(dirname "$0")/pftrace_count.py" |
			python3 -c 'import json, sys; c = json.load(sys.stdin)
print([c["begin"], c["end"], c["track_descriptors"]])'
	}
	"$GPUREC" export --step fwd -o "$TMP/ws.pftrace" "$TMP/w.trc" >/dev/null
	check "export --step fwd --format perfetto: exit 0" 0 $?
	"$GPUREC" export -o "$TMP/wn.pftrace" "$TMP/w.trc" >/dev/null
	# (the names are not compared: decode_raw takes some short strings for messages)
	check "perfetto: 1009 more slices begun and ended, on one more track" "1009 1009 1" \
		"$(python3 -c 'import sys; a, b = eval(sys.argv[1]), eval(sys.argv[2])
print(*[x - y for x, y in zip(a, b)])' "$(pf_steps "$TMP/ws.pftrace")" "$(pf_steps "$TMP/wn.pftrace")")"
else
	not_ok "protoc not installed: perfetto step slices not counted"
fi
"$GPUREC" export --step nosuch_kernel -o "$TMP/e.json" "$TMP/w.trc" >"$TMP/e.out" 2>"$TMP/e.err"
check "export --step nosuch_kernel: exit 1, said why" "1 1" \
	"$? $(grep -c "^gpurec export: --step 'nosuch_kernel': " "$TMP/e.err")"
"$GPUREC" export --step fwd --format sqlite -o "$TMP/e.db" "$TMP/w.trc" >/dev/null 2>"$TMP/e.err"
check "export --step --format sqlite: exit 2 (no steps table)" 2 $?
check "export --help documents --step" 1 "$("$GPUREC" export --help | grep -c "^  --step SPEC")"

# Python: the loop's line and the function the loop calls
PY=$(command -v /usr/bin/python3 || command -v python3)
"$GPUREC" record -o "$TMP/py.trc" -- env LD_LIBRARY_PATH="$SIM" GPUREC_SIM=1 "$PY" "$SCRIPT" \
	steps 30 >"$TMP/py.out" 2>&1
check "cuda_sites.py steps recorded" 0 $?
line=$(grep -n "# site: steps_loop$" "$SCRIPT" | cut -d: -f1)
for spec in "py:cuda_sites.py:$line" "cuda_sites.py:$line" "py/cuda_sites.py:$line" \
	"$SCRIPT:$line" train_step py:train_step; do
	check "--step $spec: 30 starts, 29 steps of 6 calls (5 launches, 1 sync)" \
		"['$spec', 30, 29, 6, 5, 0, 1, 'step_option']" "$(step "$TMP/py.trc" "$spec")"
done
check "--step cuda_sites.py:1 (a line no call is made under): exit 1" 1 \
	"$("$GPUREC" report --step cuda_sites.py:1 "$TMP/py.trc" >/dev/null 2>&1; echo $?)"
# a kernel launched 3 times a step starts 3 "steps" a step: the text says the steps differ
"$GPUREC" report --step scale_kernel "$TMP/py.trc" >"$TMP/scale.txt"
check "--step scale_kernel (3 a step): the steps differ, said" 1 \
	"$(grep -c "the steps differ: if the call named is made more than once a step" "$TMP/scale.txt")"
check "report --help documents --step" 1 "$("$GPUREC" report --help | grep -c "^  --step SPEC")"
exit $((failures > 0))
