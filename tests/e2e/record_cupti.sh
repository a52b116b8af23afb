#!/usr/bin/env bash
# record --cupti on a machine without a CUDA driver: one line says GPU times will not be
# recorded, the program's status passes through, and the trace holds the same events as
# without --cupti. Through a stand-in that writes the injection library's records itself
# (tests/tools/cupti_feed.c, GPUREC_TEST_CUPTI_DRIVER=1), the recorder writes exact GPU rows.
# The default path never links nor injects CUPTI.
. "$(dirname "$0")/lib.sh"
need_root record_cupti
FEED=$PWD/$O/tests/tool_cupti_feed
GPU=$PWD/$O/tests/tool_trace_gpu

counts() { # counts TRACE: launches, copies, kernels by name and count
	"$GPUREC" info --json "$1" >"$TMP/i.json"
	json "$TMP/i.json" '[d["launches"], d["events_by_kind"]["copy"], sorted((k["name"], k["count"]) for k in d["kernels"])]'
}

"$GPUREC" record --no-sched -o "$TMP/plain.trc" -- "$PROGS/launches" 50 >/dev/null 2>&1
check "without --cupti: the program's status" 3 $?
"$GPUREC" record --cupti --no-sched -o "$TMP/c.trc" -- "$PROGS/launches" 50 >/dev/null 2>"$TMP/c.log"
check "--cupti without a driver: the program's status" 3 $?
check "--cupti without a driver: one line says so" \
	"gpurec record: --cupti: no CUDA driver here: GPU times will not be recorded" \
	"$(grep -e --cupti "$TMP/c.log")"
check "--cupti without a driver: the same events as without" "$(counts "$TMP/plain.trc")" "$(counts "$TMP/c.trc")"
check "--cupti: 114 launches" 114 "$(json "$TMP/i.json" 'd["launches"]')"
check "--cupti without a driver: info says why" \
	'{"lost": 0, "recorded": false, "rows": 0, "why": "no CUDA driver"}' "$(json "$TMP/i.json" 'd["gpu"]')"
"$GPUREC" info --json "$TMP/plain.trc" >"$TMP/p.json"
check "without --cupti: no gpu facts in info" False "$(json "$TMP/p.json" '"gpu" in d')"

# the command's environment: the two variables with --cupti and a driver, none otherwise
"$GPUREC" record --no-sched -o "$TMP/e.trc" -- /usr/bin/env >"$TMP/env0" 2>/dev/null
check "default: no injection variables" 0 "$(grep -c -e CUDA_INJECTION64_PATH -e GPUREC_CUPTI_FD "$TMP/env0")"
"$GPUREC" record --cupti --no-sched -o "$TMP/e.trc" -- /usr/bin/env >"$TMP/env1" 2>/dev/null
check "--cupti, no driver: no injection variables" 0 "$(grep -c -e CUDA_INJECTION64_PATH -e GPUREC_CUPTI_FD "$TMP/env1")"
GPUREC_TEST_CUPTI_DRIVER=1 "$GPUREC" record --cupti --no-sched -o "$TMP/e.trc" -- /usr/bin/env >"$TMP/env2" 2>/dev/null
check "--cupti: the library next to gpurec is injected" \
	"CUDA_INJECTION64_PATH=$(realpath "$(dirname "$GPUREC")")/libgpurec_cupti.so" \
	"$(grep CUDA_INJECTION64_PATH "$TMP/env2")"
check "--cupti: the pipe's descriptor is named" 1 "$(grep -c '^GPUREC_CUPTI_FD=[0-9]*$' "$TMP/env2")"
check "the recorder's own environment is untouched (header)" 0 \
	"$("$GPUREC" info --json "$TMP/e.trc" | grep -c CUDA_INJECTION64_PATH)"

# nothing of the default path links or maps CUPTI
check "gpurec does not link libcupti" 0 "$(ldd "$GPUREC" | grep -c cupti)"
"$GPUREC" record --no-sched -o "$TMP/m.trc" -- /bin/cat /proc/self/maps >"$TMP/maps" 2>/dev/null
check "a traced program maps no CUPTI" 0 "$(grep -c cupti "$TMP/maps")"
check "the traced program's maps were read" 1 "$(grep -c '/bin/cat$' "$TMP/maps" | sed 's/^[1-9][0-9]*$/1/')"

# the stand-in: exact GPU rows, joined with the API calls, and the losses the library counted
GPUREC_TEST_CUPTI_DRIVER=1 "$GPUREC" record --cupti --no-sched -o "$TMP/f.trc" -- "$FEED" 3 >"$TMP/feed.out" 2>"$TMP/f.log"
check "stand-in: the program's status" 5 $?
tid=$(awk '/^tid/ {print $2}' "$TMP/feed.out")
check "stand-in: nothing refused by the pipe" "unwritten 0" "$(awk '/^tid/ {print $3, $4}' "$TMP/feed.out")"
cat >"$TMP/want" <<WANT
1000000000 1000 $tid $tid 1000000000 0 0 0 7 100 1 2 3 128 1 1 0 0 0 0 0 _Z6kernelPf
1000010000 1001 $tid $tid 1000000001 0 0 0 7 101 2 2 3 128 1 1 0 0 0 0 0 _Z6kernelPf
1000020000 1002 $tid $tid 1000000002 0 0 0 7 102 3 2 3 128 1 1 0 0 0 0 0 _Z6kernelPf
2000000000 500 $tid $tid 1999999000 1 0 0 0 5000 0 0 0 0 0 0 0 4096 2 0 0 
3000000000 250 $tid 0 0 2 0 0 0 6000 0 0 0 0 0 0 0 1048576 0 0 0 
WANT
"$GPU" "$TMP/f.trc" >"$TMP/got"
check "stand-in: the exact GPU rows" "$(cat "$TMP/want")" "$(cat "$TMP/got")"
"$GPUREC" info --json "$TMP/f.trc" >"$TMP/f.json"
check "stand-in: info's gpu facts" \
	'{"lost": 7, "recorded": true, "rows": 5, "why": "1 processes"}' "$(json "$TMP/f.json" 'd["gpu"]')"
cp "$TMP/f.trc" "$TMP/f2.trc"
"$GPUREC" info --json "$TMP/f.trc" "$TMP/f2.trc" >"$TMP/f12.json"
check "stand-in: info of two traces as one job: rows and losses of both" \
	'{"lost": 14, "recorded": true, "rows": 10, "why": "1 processes"}' "$(json "$TMP/f12.json" 'd["gpu"]')"
check "stand-in: the closing line" \
	"gpurec record: --cupti: 5 GPU records, 7 lost (7 dropped by CUPTI, 0 not written (the pipe was full), 0 not valid)" \
	"$(grep -e --cupti "$TMP/f.log")"

# refused clearly when the library is missing, before anything is traced
mkdir "$TMP/bin" && cp "$GPUREC" "$TMP/bin/gpurec"
"$TMP/bin/gpurec" record --cupti -o "$TMP/x.trc" -- /bin/true 2>"$TMP/x.log"
check "no library: refused" 1 $?
check "no library: says which" 1 "$(grep -c 'needs libgpurec_cupti.so' "$TMP/x.log")"
check "no library: no trace written" 0 "$(ls "$TMP" | grep -c '^x.trc$')"
"$GPUREC" record --cupti -p 1 2>"$TMP/p.log"
check "--cupti -p: refused" 2 $?

[ $failures -eq 0 ]
