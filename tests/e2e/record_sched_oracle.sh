#!/usr/bin/env bash
# The CPU report's culprits against the kernel's own accounting. sched_oracle pins itself, two
# CPU hogs and a ticker (wakes every 0.7 ms, runs ~60 us) to CPU 0 and launches without ever
# blocking: whenever a child runs on CPU 0 the launcher waits, so what gpurec charges a child
# is what the child ran in the launcher's CUDA-calling window. The oracle is each child's
# /proc/PID/schedstat over the loop, read by the launcher. Other tasks of a busy machine only add
# other culprits; they never change a child's own time.
. "$(dirname "$0")/lib.sh"
need_root record_sched_oracle
SCHED=${SCHED:-$PWD/$O/tests/tool_trace_sched}

culprits() { # TRACE: "COMM NS" per culprit of the launching thread
	"$GPUREC" report --json "$1" | python3 -c 'import json,sys
d=json.load(sys.stdin)["cpu"]
t=[t for t in d["threads"] if t["comm"] == "sched_oracle"][0]
print("exact", d["exact_culprits"], "wait", t["active_wait_ns"], "sum", sum(c["ns"] for c in t["culprits"]))
for c in t["culprits"]:
	print(c["comm"].replace(" ", "_"), c["ns"])'
}

# within NAME CHARGED ORACLE PCT STEAL: |charged - oracle| <= PCT% of oracle + 5 ms (the loop's
# edges: the reads and the first and last call are a few microseconds apart; PCT covers what the
# scheduler accounts differently from its tracepoint, below). Above, also CPU 0's steal time in
# the loop (+ a clock tick, its unit): the host's own tasks ran while the guest's switch records
# said the hog did; schedstat leaves steal out, the records cannot.
within() {
	python3 -c 'import sys
c, o, pct, steal = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
tol = o * pct / 100 + 5e6
print(o - tol <= c <= o + tol + (steal + 10e6 if steal else 0))' "$2" "$3" "$4" "$5"
}

"$GPUREC" record -o "$TMP/o.trc" -- "$PROGS/sched_oracle" 2 1 >"$TMP/o.out" 2>"$TMP/o.err" ||
	not_ok "record sched_oracle failed: $(tail -3 "$TMP/o.err")"
culprits "$TMP/o.trc" >"$TMP/o.cul" || not_ok "report failed"
check "the trace has wait windows: exact culprits" True "$(awk '$1 == "exact" {print $2}' "$TMP/o.cul")"
# the culprits of every wait tile it: their sum is the wait, unknown pieces included
check "culprits sum to the runnable wait" "$(awk '$1 == "exact" {print $4}' "$TMP/o.cul")" \
	"$(awk '$1 == "exact" {print $6}' "$TMP/o.cul")"
steal=$(awk '$1 == "steal_ns" {print $2}' "$TMP/o.out")
for name in hog_a hog_b ticker; do
	oracle=$(awk -v n=$name '$1 == "ran" && $2 == n {print $4}' "$TMP/o.out")
	comm=$(awk -v n=$name '$1 == "ran" && $2 == n {print $5}' "$TMP/o.out")
	charged=$(awk -v c="${comm:-?}" '$1 == c {print $2}' "$TMP/o.cul")
	# the ticker runs ~2900 times: a few microseconds each that schedstat counts from the
	# scheduler's entry and the switch record from its tracepoint add up to a few percent
	pct=2
	[ $name = ticker ] && pct=10
	check "$name: charged ${charged:-0} ns vs schedstat ${oracle:-?} ns (within $pct% + 5 ms; steal ${steal:-0} ns)" \
		True "$(within $name "${charged:-0}" "${oracle:-0}" $pct "${steal:-0}")"
done
# the plain comm may only be another recording's (other gpurec processes of a busy machine)
plain_ok() { # TRACE CULPRITS
	local ours others
	ours=$("$GPUREC" info --json "$1" | python3 -c 'import json,sys
print(" ".join(str(p) for p in json.load(sys.stdin)["recorder_pids"]))')
	others=$("$SCHED" "$1" | awk -v o="$ours" 'BEGIN {split(o, a, " "); for (i in a) us[a[i]] = 1}
		NR > 1 && $4 ~ /^gpurec/ && !($2 in us) {n++} NR > 1 && $7 ~ /^gpurec/ && !($5 in us) {n++}
		END {print n + 0}')
	[ -n "$ours" ] && { [ "$others" -gt 0 ] || ! awk '$1 ~ /^gpurec(-watchdog)?$/ {f = 1} END {exit !f}' "$2"; } &&
		echo True
}
check "the recorder never appears under its plain comm" True "$(plain_ok "$TMP/o.trc" "$TMP/o.cul")"

# The recorder on the launcher's CPU: named as this recording's, and the verdict says so.
taskset -c 0 "$GPUREC" record -o "$TMP/r.trc" -- "$PROGS/sched_oracle" 1 0 >/dev/null 2>"$TMP/r.err" ||
	not_ok "record pinned failed: $(tail -3 "$TMP/r.err")"
culprits "$TMP/r.trc" >"$TMP/r.cul"
own=$(awk '$1 == "gpurec_(this_recording)" {print $2}' "$TMP/r.cul")
check "a recorder sharing the launcher's CPU is named 'gpurec (this recording)'" True \
	"$([ "${own:-0}" -gt 0 ] && echo True || cat "$TMP/r.cul")"
check "...and never under its plain comm" True "$(plain_ok "$TMP/r.trc" "$TMP/r.cul")"
check "the verdict names the profiler when it took the CPU" True \
	"$("$GPUREC" report --json "$TMP/r.trc" | python3 -c 'import json,sys
v=json.load(sys.stdin)["cpu"]["verdict"]
print("gpurec (this recording)" in v or v)')"
# export streams its JSON: the args that name who took the CPU, without loading it all
"$GPUREC" export --no-flows -o - "$TMP/r.trc" 2>/dev/null | grep -oE '"(woken|preempted)_by": *"[^"]*"' |
	sed -E 's/^"[a-z_]+": *"//; s/"$//' | sort -u >"$TMP/r.by"
# (a span names its first preemptor only: whether the recorder is one of them is up to the machine)
# (other gpurec sessions on the machine are outside culprits like any task: only ours count)
ours=$("$GPUREC" info --json "$TMP/r.trc" | python3 -c 'import json,sys
print("|".join(str(p) for p in json.load(sys.stdin)["recorder_pids"]))')
check "export never names this recording's recorder by its plain comm" True \
	"$([ -n "$ours" ] && ! grep -E "^gpurec(-watchdog)? ($ours)\$" "$TMP/r.by" && echo True)"
check "info reports the recorder's CPU time" True \
	"$("$GPUREC" info "$TMP/r.trc" | grep -q "recorder CPU" && echo True)"
exit $failures
