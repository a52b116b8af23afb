#!/usr/bin/env bash
# NVTX in gpurec export (docs/EXPORT.md: nvtx_ranges, nvtx_marks, NVTX slices):
# - a trace without NVTX (a golden trace, recorded before format 1.3): both tables there, with
#   the documented columns in order, and empty; the CSV files too (header only); the Chrome JSON
#   and Perfetto exports without an nvtx slice, instant or NVTX track.
# The rows and slices of NVTX ranges are checked on a written format-1.3 trace by
# tests/unit/test_export.c (test_nvtx); a recording of a program's NVTX ranges against its own
# truth needs the injection library and its test program (i32-nvtxrec): not here yet.
. "$(dirname "$0")/lib.sh"
GOLDEN=${GOLDEN:-$PWD/tests/data/golden}

if ! command -v sqlite3 >/dev/null; then
	not_ok "export_nvtx needs the sqlite3 command (tests/install-deps.sh installs it)"
	exit 1
fi
q() { sqlite3 -batch "$@"; }
cols() { q "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('$2')"; }

"$GPUREC" export "$GOLDEN/chain.trc" -o "$TMP/old.sqlite" >/dev/null 2>&1
check "old trace: exported" 0 $?
check "old trace: nvtx_ranges has the documented columns" \
	"id,pid,tid,end_tid,domain,name,category,color,start,end,depth,parent_id,kind,closed,payload_type,payload" \
	"$(cols "$TMP/old.sqlite" nvtx_ranges)"
check "old trace: nvtx_marks has the documented columns" \
	"id,pid,tid,domain,name,category,color,ts,payload_type,payload" \
	"$(cols "$TMP/old.sqlite" nvtx_marks)"
check "old trace: no ranges, no marks" "0 0" \
	"$(q "$TMP/old.sqlite" "SELECT count(*) FROM nvtx_ranges") $(q "$TMP/old.sqlite" "SELECT count(*) FROM nvtx_marks")"

mkdir -p "$TMP/csv"
"$GPUREC" export "$GOLDEN/chain.trc" --format csv -o "$TMP/csv" >/dev/null 2>&1
check "old trace csv: exported" 0 $?
check "old trace csv: nvtx_ranges.csv is its header alone" \
	"1 id,pid,tid,end_tid,domain,name,category,color,start,end,depth,parent_id,kind,closed,payload_type,payload" \
	"$(wc -l <"$TMP/csv/nvtx_ranges.csv") $(head -1 "$TMP/csv/nvtx_ranges.csv" | tr -d '\r')"
check "old trace csv: nvtx_marks.csv is its header alone" 1 "$(wc -l <"$TMP/csv/nvtx_marks.csv")"

"$GPUREC" export "$GOLDEN/chain.trc" -o "$TMP/old.json" >/dev/null 2>&1
check "old trace json: exported" 0 $?
check "old trace json: no NVTX slice, mark or track" 0 \
	"$(json "$TMP/old.json" 'sum(1 for e in d["traceEvents"] if e.get("cat") in ("nvtx", "nvtx_mark") or (e.get("ph") == "M" and "NVTX" in e.get("args", {}).get("name", "")))')"
exit $failures
