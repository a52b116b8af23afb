#!/usr/bin/env bash
# A damaged trace that recovers no chunk (issue 27): every table is empty, NULL with a count of 0,
# which once made the sanitizer build abort in qsort(NULL, 0, ...) on report --html and diff
# --html. Every replay command exits 0 on it as documented (gpurec.1, EXIT STATUS: a damaged
# trace read in part is not an error), writes its output, names the damage on stderr, and no
# sanitizer speaks (run under SAN=1: O=build-san GPUREC=build-san/gpurec). A trace cut inside its
# header is an error: exit 1, one line saying why.
. "$(dirname "$0")/lib.sh"
FLOOD=${FLOOD:-$PWD/$O/tests/tool_trace_flood}
CHUNKS=${CHUNKS:-$PWD/$O/tests/tool_trace_chunks}

if [ ! -x "$FLOOD" ] || [ ! -x "$CHUNKS" ]; then
	not_ok "needs $FLOOD and $CHUNKS (make)"
	exit 1
fi
"$FLOOD" "$TMP/whole.trc" 1000
check "a trace is written" 0 $?
first=$("$CHUNKS" "$TMP/whole.trc" | awk 'NR == 1 { print $1 }')
head -c $((first + 40)) "$TMP/whole.trc" >"$TMP/cut.trc"
head -c 100 "$TMP/whole.trc" >"$TMP/hdr.trc"

# runs CMD ARGS...: exit 0, the damage named, nothing from a sanitizer
runs() {
	local cmd=$1
	"$GPUREC" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
	check "$*: exit 0" 0 $?
	grep -q "^gpurec $cmd: $TMP/cut.trc: damaged: .*nothing recovered: no complete chunk" \
		"$TMP/stderr" && ok "$*: the damage is named" || not_ok "$*: $(cat "$TMP/stderr")"
	grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$TMP/stderr" &&
		not_ok "$*: the sanitizer: $(grep -m1 -E 'runtime error|Sanitizer' "$TMP/stderr")" ||
		ok "$*: no sanitizer report"
}
runs report --html -o "$TMP/r.html" "$TMP/cut.trc"
grep -q "^gpurec report: wrote $TMP/r.html" "$TMP/stdout" && [ -s "$TMP/r.html" ] &&
	ok "report --html: the page is written" || not_ok "report --html: $(cat "$TMP/stdout")"
runs diff --html -o "$TMP/d.html" "$TMP/cut.trc" "$TMP/cut.trc"
grep -q "^gpurec diff: wrote $TMP/d.html" "$TMP/stdout" && [ -s "$TMP/d.html" ] &&
	ok "diff --html: the page is written" || not_ok "diff --html: $(cat "$TMP/stdout")"
runs diff --html -o "$TMP/d2.html" "$TMP/cut.trc" "$TMP/whole.trc"
runs report "$TMP/cut.trc"
runs report --json "$TMP/cut.trc"
check "report --json: zero launches" 0 "$(json "$TMP/stdout" 'd["launches"]["total"]')"
runs diff --json "$TMP/cut.trc" "$TMP/cut.trc"
runs info "$TMP/cut.trc"
runs info --json "$TMP/cut.trc"
runs export -o "$TMP/e.json" "$TMP/cut.trc"
runs export -o "$TMP/e.sqlite" "$TMP/cut.trc"
runs export --format perfetto -o "$TMP/e.pftrace" "$TMP/cut.trc"
mkdir "$TMP/csv"
runs export --format csv -o "$TMP/csv" "$TMP/cut.trc"

"$GPUREC" report --html -o "$TMP/h.html" "$TMP/hdr.trc" >"$TMP/stdout" 2>"$TMP/stderr"
check "a trace cut in its header: exit 1" 1 $?
check "a trace cut in its header: says why" \
	"gpurec report: $TMP/hdr.trc: header needs $first bytes, file has 100 (offset 100)" \
	"$(cat "$TMP/stderr")"
[ -e "$TMP/h.html" ] && not_ok "a trace cut in its header: a page" || ok "a trace cut in its header: no page"
exit $((failures > 0))
