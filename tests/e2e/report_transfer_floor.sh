#!/usr/bin/env bash
# The transfer verdict's floor (docs/REPORTS.md, "Transfer-bound"): a pattern that blocked the
# host for a sliver of the loop (or, without one, of the recording) is a note in an "ok" verdict,
# never a PROBLEM. tests/progs/one_copy on the simulator: one kernel step, then one synchronous
# 4-byte read-back (the .item() pattern, ~4 us of a recording of ~0.25 s: 1/500 of the 1% floor)
# is ok with the note; the twin that reads back 256 MiB once (~37 ms pageable on the simulator,
# ~12% of the recording: 12 times the floor) stays a PROBLEM. Needs root (BPF), no GPU.
. "$(dirname "$0")/lib.sh"
need_root report_transfer_floor
SAMPLES=${SAMPLES:-$PWD/$O/samples}

rec() {
	LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/$1.trc" -- "$PROGS/one_copy" 1 "$2" \
		>"$TMP/$1.out" 2>"$TMP/$1.err"
	check "$1: the program's calls succeed" "one_copy: steps=1 bytes=$2 errors=0" "$(cat "$TMP/$1.out")"
	"$GPUREC" report --json "$TMP/$1.trc" >"$TMP/$1.json"
	"$GPUREC" report "$TMP/$1.trc" >"$TMP/$1.txt"
}
rec tiny 4
check "one 4-byte read-back: the copy is recorded" "1 4" \
	"$(json "$TMP/tiny.json" '" ".join(str(x["count"]) + " " + str(x["bytes"]) for x in d["transfer"]["directions"] if x["kind"] == "D2H")')"
check "one 4-byte read-back: the pattern is found" "item_pattern 1" \
	"$(json "$TMP/tiny.json" '" ".join("%s %d" % (f["rule"], f["count"]) for f in d["transfer"]["findings"])')"
check "one 4-byte read-back: no PROBLEM, a note under the floor" "ok True" \
	"$(json "$TMP/tiny.json" '"%s %s" % (d["transfer"]["level"], "note: the .item() pattern" in d["transfer"]["verdict"] and "(a problem from 1%)" in d["transfer"]["verdict"])')"
check "one 4-byte read-back: the text summary says ok" 1 "$(grep -c '^  transfer  ok ' "$TMP/tiny.txt")"

rec big 268435456
check "one 256 MiB read-back: a PROBLEM" "problem" "$(json "$TMP/big.json" 'd["transfer"]["level"]')"
check "one 256 MiB read-back: the synchronous copy named" True \
	"$(json "$TMP/big.json" '"1 synchronous copy in the recording blocked the host" in d["transfer"]["verdict"]')"
exit $failures
