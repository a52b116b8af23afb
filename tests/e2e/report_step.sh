#!/usr/bin/env bash
# --step SPEC names the step (docs/REPORTS.md, "Naming the step"): a kernel, a CUDA API, a Python
# line or function. On the simulator, with programs whose steps the test knows:
# - tests/progs/phases warm_train: 10 warm-up steps and 1000 training steps of (H2D copy, fwd,
#   bwd, stream sync): fwd, kernel:fwd, api:cudaStreamSynchronize each start 1010 steps, 1009
#   whole ones of 4 calls (2 launches, 1 copy, 1 sync);
# - tests/progs/py/cuda_sites.py steps 30: 2 warm-up add_step(4) calls, then 30 train_step()s of
#   3 scale launches, 2 add launches and a device sync: the loop's line, the function, with or
#   without py:, start 30 steps, 29 whole ones of 6 calls (5 launches, 1 sync).
# The same SPEC gives the same step to diff; one that names nothing is an error, exit 1.
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
