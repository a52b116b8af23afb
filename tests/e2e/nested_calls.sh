#!/usr/bin/env bash
# Nested calls (issue 11, item 3), on the GPU simulator with GPUSIM_NESTED_SYNC=1: each blocking
# copy waits by calling the runtime's own exported cudaStreamSynchronize, so the sync's probe
# fires inside the copy. The figures must count the outermost calls only (each copy once, with
# its full time; the program's own syncs, not the inner ones), and the inner syncs must be kept
# apart. tests/progs/copy_loop makes exactly N copies of 64 MiB and M syncs. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root nested_calls.sh
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/copy_loop" ]; then
	not_ok "simulator or copy_loop not built ($SIM, $PROGS)"
	exit 1
fi

N=100
M=10
MIB64=67108864
# the simulator's time for one 64 MiB pageable H2D cudaMemcpy: API_NS 2 us before the copy can
# start, then COPY_LATENCY_NS 2 us + 67108864 B / 8 GB/s (8388.608 us); the call returns no
# earlier than the copy's end (samples/sim/README.md)
COPY_NS=$((2000 + 2000 + MIB64 / 8))

# record NAME [ENV...]: copy_loop N M 64 on the simulator, recorded into $TMP/NAME.trc
record() {
	local name=$1
	shift
	"$GPUREC" record -o "$TMP/$name.trc" -- env "LD_LIBRARY_PATH=$SIM" "$@" \
		"$PROGS/copy_loop" $N $M 64 >"$TMP/$name.out" 2>&1
	check "$name: copy_loop ran every call successfully" \
		"copy_loop: copies=$N syncs=$M bytes=$MIB64 errors=0" \
		"$(grep '^copy_loop:' "$TMP/$name.out")"
	"$GPUREC" info --json "$TMP/$name.trc" >"$TMP/$name.info.json" 2>"$TMP/$name.err" ||
		not_ok "$name: info --json: $(cat "$TMP/$name.err")"
	"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.report.json" 2>"$TMP/$name.err" ||
		not_ok "$name: report --json: $(cat "$TMP/$name.err")"
	"$GPUREC" report "$TMP/$name.trc" >"$TMP/$name.report.txt" 2>&1 ||
		not_ok "$name: report: $(tail -3 "$TMP/$name.report.txt")"
	"$CALLS" "$TMP/$name.trc" >"$TMP/$name.calls.json" 2>"$TMP/$name.err" ||
		not_ok "$name: trace_calls: $(cat "$TMP/$name.err")"
}

info() { json "$TMP/$1.info.json" "$2"; }
report() { json "$TMP/$1.report.json" "$2"; }
calls() { json "$TMP/$1.calls.json" "$2"; }

# the figures every recording of copy_loop must give, nested or not
figures() { # NAME
	local name=$1
	check "$name: info: $N H2D copies, $N x 64 MiB" "[[\"H2D\", $N, $((N * MIB64))]]" \
		"$(info $name '[[c["kind"], c["count"], c["bytes"]] for c in d["copies"]]')"
	check "$name: info: the program's $M stream syncs, no more" "[[\"stream\", $M]]" \
		"$(info $name '[[s["kind"], s["count"]] for s in d["syncs"]]')"
	check "$name: info: every outermost call succeeded (copies, syncs, malloc, free)" \
		"[$((N + M + 2)), 0, 0]" \
		"$(info $name '[d["calls"][k] for k in ("ok", "failed", "status_unknown")]')"
	check "$name: info: nothing in flight" "[]" "$(info $name 'd["in_flight"]')"
	check "$name: report: transfer counts $N copies of $((N * MIB64)) bytes, $M syncs" \
		"[$N, $((N * MIB64)), $N, $M]" \
		"$(report $name '[d["transfer"][k] for k in ("copies", "bytes")] + [[x["blocking"]["count"] for x in d["transfer"]["directions"] if x["kind"] == "H2D"][0], d["transfer"]["syncs"]["count"]]')"
	grep -q "no copies were recorded" "$TMP/$name.report.txt" &&
		not_ok "$name: report says no copies were recorded" ||
		ok "$name: report does not say no copies were recorded"
	check "$name: report text: the H2D row counts $N copies" "$N" \
		"$(awk '$1 == "H2D" && $4 ~ /B$/ {print $2; exit}' "$TMP/$name.report.txt")"
	# Each copy's recorded time holds the whole modelled copy: the uprobe's entry is before the
	# simulator reads its clock and the return after its wait ends. The least of the N copies
	# lies within 1.5x of the model: load on the machine only ever adds time, and not to all N.
	check "$name: every copy lasts at least the modelled $COPY_NS ns" True \
		"$(calls $name 'd["copy_dur_ns"][0] >= '$COPY_NS)"
	check "$name: the quickest copy lasts at most 1.5 x the model" True \
		"$(calls $name 'd["copy_dur_ns"][0] <= 1.5 * '$COPY_NS)"
	check "$name: report: copy time is the copies' whole time" True \
		"$(report $name 'd["transfer"]["time_ns"] >= '$((N * COPY_NS)))"
}

record nested GPUSIM_NESTED_SYNC=1
figures nested
check "nested: info: the $N syncs inside the copies are inner calls" \
	"[[\"cudaStreamSynchronize\", $N]]" \
	"$(info nested '[[c["api"], c["count"]] for c in d["inner_calls"]]')"
check "nested: each inner sync lies wholly inside its copy's recorded time" \
	"[[\"cudaStreamSynchronize\", $N, $N]]" "$(calls nested 'd["inner"]')"
check "nested: the recorder captured all $((N + M)) syncs (trace_calls counts the inner ones)" \
	"[[\"stream\", $((N + M))]]" "$(calls nested 'd["syncs"]')"
check "nested: inner syncs are depth 1, returned success (call flags 0x11)" "$N" \
	"$(calls nested 'd["status"].get("cudaStreamSynchronize cudaSuccess 17")')"
check "nested: inner sync time is part of the copy time, not more" True \
	"$(python3 -c 'import json,sys; i=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]))
print(0 < i["inner_calls"][0]["dur_ns"] <= r["transfer"]["time_ns"])' \
		"$TMP/nested.info.json" "$TMP/nested.report.json")"
"$GPUREC" info "$TMP/nested.trc" >"$TMP/nested.info.txt" 2>&1
grep -Eq "^  cudaStreamSynchronize +$N calls" "$TMP/nested.info.txt" &&
	ok "nested: info text lists the inner syncs apart" ||
	not_ok "nested: info text: $(grep -A3 'inner calls' "$TMP/nested.info.txt")"

# the control: the same program without the knob makes no nested call and the same figures
record flat
figures flat
check "flat: no inner calls" "[]" "$(info flat 'd["inner_calls"]')"
check "flat: the recorder captured only the program's $M syncs" "[[\"stream\", $M]]" \
	"$(calls flat 'd["syncs"]')"
exit $failures
