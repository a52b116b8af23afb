#!/usr/bin/env bash
# A frame's return address is named by its call (tests/progs/noreturn_site: main ends with its
# call to the noreturn serve(), so main's return address is the first byte of after_main(), the
# next function). Every call-graph mode names the launch's callers serve;main, not
# serve;after_main; the line of main's frame is the call's.
. "$(dirname "$0")/lib.sh"
need_root record_noreturn

STACKS=${STACKS:-$PWD/$O/tests/tool_trace_stacks}
prog="$PROGS/noreturn_site"

# the premise: the compiler put after_main right where main ends
check "the program: main ends where after_main begins" True \
	"$(nm -S "$prog" | python3 -c 'import sys
sym = {f[3]: (int(f[0], 16), int(f[1], 16)) for f in map(str.split, sys.stdin) if len(f) == 4}
print(sum(sym["main"]) == sym["after_main"][0])')"
for mode in fp cfi dwarf; do
	"$GPUREC" record --no-sched --call-graph $mode -o "$TMP/$mode.trc" -- "$prog" \
		"$PROGS/fakecuda/libcuda.so.1" >"$TMP/$mode.log" 2>&1
	check "$mode: recorded" 0 $?
	check "$mode: the launches' callers are serve, then main" "3: serve;main" \
		"$("$STACKS" "$TMP/$mode.trc" | cut -d';' -f1-2)"
done
# the exported frame: main, at the line of its call to serve()
mkdir "$TMP/csv" && "$GPUREC" export --format csv -o "$TMP/csv" "$TMP/cfi.trc" >/dev/null 2>&1
line=$(grep -n '^	serve();$' "$(dirname "$0")/../progs/noreturn_site.c" | cut -d: -f1)
check "export: main's frame at the line of its call" "main $line" \
	"$(python3 -c 'import csv, sys
d = sys.argv[1]
names = {r["id"]: r["value"] for r in csv.DictReader(open(d + "/strings.csv"))}
for r in csv.DictReader(open(d + "/frames.csv")):
    if r["stack_id"] == "1" and r["position"] == "1":
        print(names[r["function_id"]], r["line"])' "$TMP/csv")"
exit $failures
