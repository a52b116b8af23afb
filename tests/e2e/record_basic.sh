#!/usr/bin/env bash
# Record a program linked against the real libcudart (no GPU: calls fail, arguments are real)
# and check exact counts, launch configs, copy kinds and bytes, and zero losses.
. "$(dirname "$0")/lib.sh"
need_root record_basic

out="$TMP/basic.trc"
"$GPUREC" record -o "$out" -- "$PROGS/launches" 1000 >"$TMP/rec.log" 2>&1
check "record passes the exit status through" 3 $?
"$GPUREC" info --json "$out" >"$TMP/info.json" 2>"$TMP/info.err" || not_ok "info --json failed: $(cat "$TMP/info.err")"

check "trace is complete" True "$(json "$TMP/info.json" 'd["complete"]')"
check "no lost events" 0 "$(json "$TMP/info.json" 'd["lost_events"]')"
check "1064 launches" 1064 "$(json "$TMP/info.json" 'd["launches"]')"
check "launch events" 1064 "$(json "$TMP/info.json" 'd["events_by_kind"]["launch"]')"
check "copy events" 12 "$(json "$TMP/info.json" 'd["events_by_kind"]["copy"]')"
k='[k for k in d["kernels"] if k["name"].startswith("scale_bias")][0]'
check "scale_bias demangled" "scale_bias(float*, float, int)" "$(json "$TMP/info.json" "$k[\"name\"]")"
check "scale_bias count" 1000 "$(json "$TMP/info.json" "$k[\"count\"]")"
check "scale_bias one config" 1 "$(json "$TMP/info.json" "len($k[\"configs\"])")"
check "scale_bias grid (grid.x > 65535)" "[70000, 3, 2]" "$(json "$TMP/info.json" "$k[\"configs\"][0][\"grid\"]")"
check "scale_bias block (asymmetric)" "[32, 4, 2]" "$(json "$TMP/info.json" "$k[\"configs\"][0][\"block\"]")"
check "scale_bias shared memory" 128 "$(json "$TMP/info.json" "$k[\"configs\"][0][\"shared_mem\"]")"
k='[k for k in d["kernels"] if k["name"].startswith("reduce_rows")][0]'
check "reduce_rows count" 64 "$(json "$TMP/info.json" "$k[\"count\"]")"
check "reduce_rows config" "[[1, 1, 1], [256, 1, 1], 0]" "$(json "$TMP/info.json" "[$k[\"configs\"][0][x] for x in (\"grid\",\"block\",\"shared_mem\")]")"
# every copy failed (no driver): the arguments as captured, from every call
"$CALLS" "$out" >"$TMP/calls.json"
check "copies by kind" '{"D2D": [5, 500], "D2H": [2, 8192], "H2D": [3, 3145728], "H2H": [1, 10], "default": [1, 7]}' "$(json "$TMP/calls.json" '{c[0]: c[1:] for c in d["copies"]}')"
check "one process" 1 "$(json "$TMP/info.json" 'len(d["processes"])')"
check "process launches" 1064 "$(json "$TMP/info.json" 'd["processes"][0]["launches"]')"
check "process comm" launches "$(json "$TMP/info.json" 'd["processes"][0]["comm"]')"

# the old trace is kept as .old
"$GPUREC" record -o "$out" -- "$PROGS/launches" 1 >/dev/null 2>&1
[ -f "$out.old" ] && ok "previous trace renamed to .old" || not_ok "no .old file"
check "new trace has 65 launches" 65 "$("$GPUREC" info --json "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["launches"])')"
check "trace mode 0600" 600 "$(stat -c %a "$out")"

# errors: a command that does not exist, an unreadable trace
"$GPUREC" record -o "$TMP/x.trc" -- /nonexistent/cmd 2>"$TMP/err"
check "missing command exits 127" 127 $?
grep -q "command not found\|No such file" "$TMP/err" && ok "missing command is named" || not_ok "missing command message: $(cat "$TMP/err")"
# found but not run, as a shell says it: 126 (127 is for not found only)
printf 'exit 0\n' >"$TMP/noexec" && chmod 644 "$TMP/noexec"
"$GPUREC" record -o "$TMP/x.trc" -- "$TMP/noexec" 2>"$TMP/err"
check "non-executable file: 126, permission denied" "126 gpurec record: $TMP/noexec: Permission denied" "$? $(cat "$TMP/err")"
PATH=$TMP:$PATH "$GPUREC" record -o "$TMP/x.trc" -- noexec 2>/dev/null
check "non-executable file found in PATH: 126" 126 $?
printf '\001\002 not a program' >"$TMP/garbage" && chmod 755 "$TMP/garbage"
"$GPUREC" record -o "$TMP/x.trc" -- "$TMP/garbage" 2>/dev/null
check "executable file that is no program (exec fails, ENOEXEC): 126" 126 $?
printf '#!/nonexistent/interpreter\n' >"$TMP/badinterp" && chmod 755 "$TMP/badinterp"
"$GPUREC" record -o "$TMP/x.trc" -- "$TMP/badinterp" 2>/dev/null
check "script whose interpreter does not exist (exec fails, ENOENT): 127" 127 $?
echo "not a trace" >"$TMP/bad.trc"
"$GPUREC" info "$TMP/bad.trc" 2>"$TMP/err"
check "info on garbage exits 1" 1 $?
grep -q "bad.trc" "$TMP/err" && ok "info names the bad file" || not_ok "info error: $(cat "$TMP/err")"
exit $failures
