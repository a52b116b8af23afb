#!/usr/bin/env bash
# Names a traced program chose reach no terminal raw (docs/REPORTS.md, "Names from the trace").
# tests/progs/evil_names names its threads "\e[31mevil\a" and "t\tb\nc\x7f\xff\x9b" and its
# kernel "k\e]0;x\a\x7f", loads libcuda.so.1 from a folder named "lib\e[1mdir", and runs with
# arguments holding ESC, BEL, TAB, DEL and invalid UTF-8. Every text output of record, info,
# report, diff and export, stdout and stderr, holds no byte below 0x20 but the layout's own
# newline and tab, no DEL, no invalid UTF-8 and no C1 control, and shows each name escaped as
# `ls -b` does. JSON keeps the names exact: its writer escapes them its own way.
. "$(dirname "$0")/lib.sh"
need_root escape_names

dir="$TMP/lib"$'\e'"[1mdir"
mkdir -p "$dir" && cp "$PROGS/fakecuda/libcuda.so.1" "$dir/"
"$GPUREC" record -v -o "$TMP/evil.trc" -- "$PROGS/evil_names" "$dir/libcuda.so.1" \
	$'\e[1marg\a' $'tab\there' $'\x7f\xff' >"$TMP/record.out" 2>"$TMP/record.err"
check "evil_names ran" 0 $?
cp "$TMP/evil.trc" "$TMP/evil2.trc"
"$GPUREC" info "$TMP/evil.trc" >"$TMP/info.out" 2>"$TMP/info.err"
"$GPUREC" report "$TMP/evil.trc" >"$TMP/report.out" 2>"$TMP/report.err"
"$GPUREC" report --top 50 "$TMP/evil.trc" "$TMP/evil2.trc" >"$TMP/set.out" 2>"$TMP/set.err"
"$GPUREC" diff "$TMP/evil.trc" "$TMP/evil2.trc" >"$TMP/diff.out" 2>"$TMP/diff.err"
"$GPUREC" export "$TMP/evil.trc" -o "$TMP/evil.json" >"$TMP/export.out" 2>"$TMP/export.err"
"$GPUREC" export "$TMP/evil.trc" -o - >/dev/null 2>"$TMP/export_stdout.err"
# a damaged copy: the damage line on stderr, the integrity lines
head -c -100 "$TMP/evil.trc" >"$TMP/cut.trc"
"$GPUREC" report "$TMP/cut.trc" >"$TMP/cut.out" 2>"$TMP/cut.err"

# the bytes no text output may hold: C0 controls but LF and TAB, DEL, and what is not UTF-8 or
# is a C1 control (U+0080..U+009F) encoded in it
raw() {
	python3 -c 'import os, re, sys
for path in sys.argv[1:]:
    b = open(path, "rb").read()
    bad = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", b)
    try:
        t = b.decode("utf-8")
        c1 = re.search("[\x80-\x9f]", t)
    except UnicodeDecodeError as e:
        print(os.path.basename(path), "invalid UTF-8 at", e.start)
        continue
    if bad or c1:
        print(os.path.basename(path), "raw byte at", (bad or c1).start())' "$@"
}
check "no raw control byte, DEL or invalid UTF-8 in any text output" "" \
	"$(raw "$TMP"/{record,info,report,set,diff,export,cut}.{out,err} "$TMP/export_stdout.err" 2>&1)"

has() { grep -cF -- "$2" "$TMP/$1"; }
check "info: the command line, escaped" 1 \
	"$(has info.out "/evil_names $TMP/lib\\e[1mdir/libcuda.so.1 \\e[1marg\\a tab\\there \\x7f\\xff")"
check "info: the library path, escaped" 1 "$(has info.out "CUDA libs    $TMP/lib\\e[1mdir/libcuda.so.1")"
check "info: the kernel name, escaped" 1 "$(has info.out "100.0%  k\\e]0;x\\a\\x7f")"
check "info: both thread names, escaped, the columns kept" "2 1" \
	"$(grep -c '^ *[0-9]* *[0-9]* \\e\[31mevil\\a  *[0-9]' "$TMP/info.out") $(grep -c '^ *[0-9]* *[0-9]* t\\tb\\nc\\x7f\\xff\\x9b  *[0-9]' "$TMP/info.out")"
check "report: thread names escaped in the launch table" "1 1" \
	"$(grep -c '^  thread .* \\e\[31mevil\\a  ' "$TMP/report.out") $(grep -c '^  thread .* t\\tb\\nc\\x7f\\xff\.\.\.  ' "$TMP/report.out")"
# the launch table's row (5 launches); a busy machine can list the kernel again among slow calls
check "report: the kernel name escaped" 1 "$(grep -c '^  k\\e\]0;x\\a\\x7f  *5 100.0%' "$TMP/report.out")"
check "diff: the command line escaped" 2 "$(has diff.out "\\e[1marg\\a tab\\there \\x7f\\xff")"
check "diff: the kernel name escaped" 1 "$(grep -c 'k\\e\]0;x\\a\\x7f' "$TMP/diff.out")"
check "record -v: the probed library's path escaped" 1 \
	"$(has record.err "CUDA entry points in $TMP/lib\\e[1mdir/libcuda.so.1")"
check "export: the JSON keeps the thread name exact" 1 \
	"$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(e.get("args", {}).get("name") == "\x1b[31mevil\x07" for e in ev if e.get("name") == "thread_name"))' "$TMP/evil.json")"
check "info --json keeps the command line exact" 1 \
	"$("$GPUREC" info --json "$TMP/evil.trc" | python3 -c 'import json, sys
print(int(json.load(sys.stdin)["header"]["command"].endswith("\x1b[1marg\x07 tab\there \x7f\ufffd")))')"
# a command line longer than any buffer: escaped whole, never cut ("/bin/true " + 5000 a's + \e + END)
long=$(python3 -c 'print("a" * 5000 + "\x1b" + "END")')
"$GPUREC" record -o "$TMP/long.trc" -- /bin/true "$long" >/dev/null 2>&1
check "info: a 5 KB command line escaped whole" "1 5015" \
	"$("$GPUREC" info "$TMP/long.trc" | grep '^  command' |
		awk '{n = index($0, "/bin/true"); print (substr($0, length($0) - 4) == "\\eEND"), length($0) - n + 1}')"
exit $failures
