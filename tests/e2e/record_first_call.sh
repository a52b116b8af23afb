#!/usr/bin/env bash
# A program that dies at its first call, like six of the eight cuda-samples on a machine without
# a driver: tests/progs/first_call asks for the device count (real libcudart), gets
# cudaErrorInsufficientDriver (35) and exits 1. That one failed call is in the trace, and every
# view names it with its error, its count and the likely cause: record's closing line, info
# (text, JSON), report (text, JSON) and the HTML page (its data, and in Chromium the banner and
# table above the verdicts). record and info count it alike. On the simulator the call succeeds:
# no row, nothing failed.
. "$(dirname "$0")/lib.sh"
need_root record_first_call
SAMPLES=${SAMPLES:-$PWD/$O/samples}

if [ -e /dev/nvidiactl ]; then
	ok "first call fails # SKIP this machine has a CUDA driver (/dev/nvidiactl)"
	exit 0
fi
CAUSE="no CUDA driver (or one older than the CUDA runtime)"
"$GPUREC" record -o "$TMP/fc.trc" -- "$PROGS/first_call" >"$TMP/fc.out" 2>"$TMP/fc.err"
check "the command's status passes through" 1 $?
check "the program saw the error" "cudaGetDeviceCount returned 35" "$(head -1 "$TMP/fc.out")"
check "record's closing line names the call, its error, count and likely cause" \
	"gpurec record: every call that returned failed: 1 call, 1 of them cudaGetDeviceCount returned cudaErrorInsufficientDriver (35): likely $CAUSE ('gpurec check' says); the trace holds what the program asked for, not work a GPU did" \
	"$(grep 'call that returned failed' "$TMP/fc.err")"

"$GPUREC" info --json "$TMP/fc.trc" >"$TMP/info.json"
check "info --json: 1 failed, none ok, the cause" "1 0 $CAUSE" \
	"$(json "$TMP/info.json" 'd["calls"]["failed"]') $(json "$TMP/info.json" 'd["calls"]["ok"]') $(json "$TMP/info.json" 'd["calls"]["likely_cause"]')"
"$GPUREC" info "$TMP/fc.trc" >"$TMP/info.txt"
check "info: the failed-calls line" \
	"failed calls: 1 of 1 calls whose status is known (likely cause: $CAUSE)" \
	"$(grep '^failed calls' "$TMP/info.txt")"
check "info: the call and its error" "cudaGetDeviceCount cudaErrorInsufficientDriver 1" \
	"$(awk '$1 == "cudaGetDeviceCount" {print $1, $2, $3}' "$TMP/info.txt")"

"$GPUREC" report "$TMP/fc.trc" >"$TMP/report.txt"
check "report: the banner" \
	"MOST CALLS FAILED: 1 of 1 calls whose status is known returned an error: likely no CUDA" \
	"$(grep -o 'MOST CALLS FAILED.*likely no CUDA' "$TMP/report.txt")"
check "report: the failed-calls table" "cudaGetDeviceCount cudaErrorInsufficientDriver 1" \
	"$(awk '$1 == "cudaGetDeviceCount" {print $1, $2, $3}' "$TMP/report.txt")"
check "report: its call site is main" "main" \
	"$(sed -n '/^  cudaGetDeviceCount/{n;N;s/\n */ /;p}' "$TMP/report.txt" |
		grep -o 'main (first_call) -> cudaGetDeviceCount$' | cut -d' ' -f1)"
"$GPUREC" report --json "$TMP/fc.trc" >"$TMP/report.json"
check "report --json: the call, its error and count" "cudaGetDeviceCount cudaErrorInsufficientDriver 1" \
	"$(json "$TMP/report.json" '" ".join(str(d["errors"][0][k]) for k in ("api", "status_name", "count"))')"
check "report --json: counts as info does" "1 0" \
	"$(json "$TMP/report.json" 'd["calls"]["failed"]') $(json "$TMP/report.json" 'd["calls"]["ok"]')"
check "report --json: the banner the text report opens with" "$(grep -o 'MOST CALLS FAILED.*' "$TMP/report.txt" | cut -c1-60)" \
	"$(json "$TMP/report.json" 'd["failed_banner"][:60]')"

"$GPUREC" report --html -o "$TMP/fc.html" "$TMP/fc.trc" >/dev/null 2>&1
data() { python3 -c 'import json,re,sys
t=open(sys.argv[1]).read()
d=json.loads(re.search(r"<script id=\"gpurec-data\" type=\"application/json\">(.*?)</script>",t,re.S).group(1))
print(eval(sys.argv[2]))' "$@"; }
check "HTML page: its data names the call, error and count" \
	"cudaGetDeviceCount cudaErrorInsufficientDriver 1" \
	"$(data "$TMP/fc.html" '" ".join(str(d["report"]["errors"][0][k]) for k in ("api", "status_name", "count"))')"
python3 tests/browser/check_page.py "$TMP/fc.html" --name first_call >"$TMP/page.out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	ok "HTML page in Chromium # SKIP $(grep -o 'SKIP.*' "$TMP/page.out" | head -1)"
else
	grep -E '^(not )?ok' "$TMP/page.out" | grep -E 'failed|banner|verdict'
	check "HTML page in Chromium: every check passed (banner and table above the verdicts)" 0 $rc
fi

LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/sim.trc" -- "$PROGS/first_call" \
	>"$TMP/sim.out" 2>"$TMP/sim.err"
check "simulator: the call succeeds" "0 1 devices" "$? $(cat "$TMP/sim.out")"
"$GPUREC" info --json "$TMP/sim.trc" >"$TMP/sim.json"
check "simulator: no row for a call that succeeded, nothing failed" "0 0" \
	"$(json "$TMP/sim.json" 'd["events_by_kind"]["sync"]') $(json "$TMP/sim.json" 'd["calls"]["failed"]')"
check "simulator: no stack kept for a call without a row" 0 \
	"$(json "$TMP/sim.json" 'd["records_by_kind"]["stack"]')"
check "simulator: record says nothing of failures" "" "$(grep -i failed "$TMP/sim.err")"
exit $failures
