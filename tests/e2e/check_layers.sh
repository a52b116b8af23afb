#!/usr/bin/env bash
# tests/check_layers.py refuses what it promises to refuse: each case is a copy of analyze/ with
# one arrow added (an include, or a call seen in a compiled object), checked on its own.
set -u
. "$(dirname "$0")/lib.sh"

# case NAME: a fresh copy of the tree's analyze/ and the checker in $TMP/NAME, no objects
fresh() {
	local d=$TMP/$1
	mkdir -p "$d/tests" "$d/build"
	cp -r analyze "$d/"
	cp tests/check_layers.py "$d/tests/"
	echo "$d"
}

# expect NAME PATTERN DIR: the checker fails there and says PATTERN
expect() {
	local out rc
	out=$(O="$3/build" python3 "$3/tests/check_layers.py" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE -- "$2" <<<"$out"; then
		ok "check_layers: $1"
	else
		not_ok "check_layers: $1: status $rc, output: $(head -3 <<<"$out")"
	fi
}

out=$(O="$O" python3 tests/check_layers.py 2>&1)
rc=$?
check "check_layers: the tree passes, its calls checked too" "0, calls checked" \
	"$rc, $(grep -q 'calls not' <<<"$out" && echo 'calls not checked' || echo 'calls checked')"

d=$(fresh clean)
O="$d/build" python3 "$d/tests/check_layers.py" >/dev/null 2>&1
check "check_layers: a copy without objects passes on its includes" "0" "$?"

d=$(fresh up)
sed -i '0,/^#include "/s//#include "analyze\/report\/report.h"\n#include "/' "$d/analyze/util/units.c"
expect "a util file including a section header" \
	'analyze/util/units: a util file includes analyze/report/report.h' "$d"

d=$(fresh folders)
echo '#include "analyze/info/info.h"' >>"$d/analyze/export/export_csv.c"
echo '#include "analyze/export/export.h"' >>"$d/analyze/info/info_text.c"
expect "two section folders in a circle" 'folders in a circle: analyze/export, analyze/info' "$d"

d=$(fresh files)
echo '#include "report_ranks.h"' >>"$d/analyze/report/report_iter.c"
printf '#include "report_iter.h"\n' >"$d/analyze/report/report_ranks.h"
printf '#include "report_ranks.h"\n' >"$d/analyze/report/report_iter.h"
expect "two files of one folder in a circle" \
	'files in a circle: analyze/report/report_iter, analyze/report/report_ranks' "$d"

d=$(fresh nolayer)
mkdir "$d/analyze/budget"
echo 'int gr_budget;' >"$d/analyze/budget/budget.c"
expect "a folder with no layer" 'folder analyze/budget/ has no layer' "$d"

# a call seen only in the objects: a section's object that uses its orchestrator's symbol
d=$(fresh calls)
mkdir -p "$d/build/analyze/report"
printf 'int gr_report_compute(void) { return 0; }\n' >"$TMP/orchestrator.c"
printf 'int gr_report_compute(void);\nint rp_iteration(void) { return gr_report_compute(); }\n' \
	>"$TMP/section.c"
printf 'int rp_iteration(void);\nint gr_report_free(void) { return rp_iteration(); }\n' \
	>"$TMP/orchestrator2.c"
cat "$TMP/orchestrator.c" "$TMP/orchestrator2.c" >"$TMP/report.c"
cc -c "$TMP/report.c" -o "$d/build/analyze/report/report.o" &&
	cc -c "$TMP/section.c" -o "$d/build/analyze/report/report_iter.o"
expect "a section calling back into its orchestrator (from the objects)" \
	'files in a circle: analyze/report/report, analyze/report/report_iter' "$d"

[ "$failures" -eq 0 ]
