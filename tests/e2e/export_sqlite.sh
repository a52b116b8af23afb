#!/usr/bin/env bash
# gpurec export --format sqlite and csv, read back by an independent reader, the sqlite3 CLI,
# and checked against `gpurec info --json` of the same trace (docs/EXPORT.md):
# - golden traces (no root): launches per kernel name (launches -> kernels), API time per kernel,
#   copies and bytes per direction, launches per thread and per process (launches -> threads ->
#   processes), each stack's frames in order against tool_trace_stacks, rows per event table;
# - the CSV files: the same counts after sqlite3's .import;
# - a trace of tests/progs/launches 20 on the real runtime without a driver (root, BPF): exactly
#   12 failed copies (7 cudaMemcpy + 5 cudaMemcpyAsync, error 35) with outcome 'failed', and the
#   84 launches 'ok'; info says 12 failed too;
# - a database already at -o is replaced; -o naming the input, an unreadable trace, a directory
#   that does not exist: a clear error and no file.
. "$(dirname "$0")/lib.sh"
GOLDEN=${GOLDEN:-$PWD/tests/data/golden}
STACKS=${STACKS:-$PWD/$O/tests/tool_trace_stacks}

if ! command -v sqlite3 >/dev/null; then
	not_ok "export_sqlite needs the sqlite3 command (tests/install-deps.sh installs it)"
	exit 1
fi

q() { sqlite3 -batch "$@"; } # q DB SQL...: rows as a|b|c

# Per kernel name, "name|launches|api_ns" from info, and from a database's join.
info_kernels() {
	json "$1" '"\n".join("%s|%d|%d" % (k["name"], k["count"], k["api_ns"]) for k in sorted(d["kernels"], key=lambda k: k["name"]))'
}
db_kernels() {
	q "$1" "SELECT k.name, count(*), coalesce(sum(l.dur), 0) FROM launches l
		JOIN kernels k ON k.id = l.kernel_id WHERE l.outcome = 'ok' GROUP BY k.name ORDER BY k.name"
}
info_copies() {
	json "$1" '"\n".join("%s|%d|%d" % (c["kind"], c["count"], c["bytes"]) for c in sorted(d["copies"], key=lambda c: c["kind"]))'
}
db_copies() {
	q "$1" "SELECT direction, count(*), sum(bytes) FROM copies WHERE outcome = 'ok'
		GROUP BY direction ORDER BY direction"
}
info_threads() {
	json "$1" '"\n".join("%d|%d|%s|%d" % (t["pid"], t["tid"], t["comm"], t["launches"]) for t in sorted(d["threads"], key=lambda t: (t["pid"], t["tid"])))'
}
db_threads() { # every thread, with its launches (0 for none), through its process
	q "$1" "SELECT p.pid, t.tid, t.comm, (SELECT count(*) FROM launches l
		WHERE l.thread_id = t.id AND l.outcome = 'ok') FROM threads t
		JOIN processes p ON p.id = t.process_id ORDER BY p.pid, t.tid"
}
info_processes() {
	json "$1" '"\n".join("%d|%d|%s|%s|%d" % (p["pid"], p["ppid"], p["comm"], p["exe"], p["launches"]) for p in sorted(d["processes"], key=lambda p: p["pid"]))'
}
db_processes() {
	q "$1" "SELECT p.pid, coalesce(p.ppid, 0), p.comm, p.exe, count(l.id) FROM processes p
		LEFT JOIN threads t ON t.process_id = p.id
		LEFT JOIN launches l ON l.thread_id = t.id AND l.outcome = 'ok'
		GROUP BY p.id ORDER BY p.pid"
}
# Each stack, in order of first use: "EVENTS: frame;frame;..." (the API calls that use it),
# innermost first, a frame its function, else its address (tool_trace_stacks' lines, native).
db_stacks() {
	q "$1" "WITH ev AS (SELECT stack_id FROM launches UNION ALL SELECT stack_id FROM copies
		UNION ALL SELECT stack_id FROM memsets UNION ALL SELECT stack_id FROM syncs
		UNION ALL SELECT stack_id FROM graph_calls),
		used AS (SELECT stack_id, count(*) AS n FROM ev WHERE stack_id IS NOT NULL
		GROUP BY stack_id)
		SELECT coalesce(used.n, 0) || ': ' || (SELECT group_concat(name, ';') FROM (
			SELECT coalesce(s.value, printf('0x%x', f.value)) AS name FROM frames f
			LEFT JOIN strings s ON s.id = f.function_id
			WHERE f.stack_id = st.id ORDER BY f.position))
		FROM stacks st LEFT JOIN used ON used.stack_id = st.id ORDER BY st.id"
}
event_rows() { # rows per event table, "launch copy memset alloc free sync graph"
	q "$1" "SELECT (SELECT count(*) FROM launches) || ' ' || (SELECT count(*) FROM copies) || ' ' ||
		(SELECT count(*) FROM memsets) || ' ' || (SELECT count(*) FROM allocs) || ' ' ||
		(SELECT count(*) FROM frees) || ' ' || (SELECT count(*) FROM syncs) || ' ' ||
		(SELECT count(*) FROM graph_calls)"
}
info_rows() {
	json "$1" '" ".join(str(d["events_by_kind"][k]) for k in ("launch", "copy", "memset", "alloc", "free", "sync", "graph"))'
}

for t in chain chain_timed item pageable forked starved threads_dwarf synth; do
	trc=$GOLDEN/$t.trc
	"$GPUREC" info --json "$trc" >"$TMP/$t.json" 2>/dev/null
	"$GPUREC" export "$trc" --format sqlite -o "$TMP/$t.sqlite" >"$TMP/$t.out" 2>&1
	check "$t: export --format sqlite exits 0" 0 $?
	db=$TMP/$t.sqlite
	check "$t: launches per kernel name and their API ns" "$(info_kernels "$TMP/$t.json")" \
		"$(db_kernels "$db")"
	check "$t: copies and bytes per direction" "$(info_copies "$TMP/$t.json")" "$(db_copies "$db")"
	check "$t: launches per thread, joined to its process" "$(info_threads "$TMP/$t.json")" \
		"$(db_threads "$db")"
	check "$t: processes (ppid, comm, exe) and their launches" \
		"$(info_processes "$TMP/$t.json")" "$(db_processes "$db")"
	check "$t: rows per event table" "$(info_rows "$TMP/$t.json")" "$(event_rows "$db")"
	check "$t: every stack's frames in order" "$("$STACKS" "$trc")" "$(db_stacks "$db")"
	check "$t: no call set aside" 0 "$(q "$db" "SELECT count(*) FROM api_calls WHERE outcome != 'ok'")"
done

# chain at 100 steps: 5 kernels x 100, 100 syncs; synth: the trace's two copy directions.
db=$TMP/chain.sqlite
check "chain: 500 launches of 5 kernels, 100 each" "5|100|100" \
	"$(q "$db" "SELECT count(*), min(n), max(n) FROM (SELECT count(*) AS n FROM launches GROUP BY kernel_id)")"
check "chain: 100 cudaStreamSynchronize" 100 \
	"$(q "$db" "SELECT count(*) FROM syncs y JOIN strings s ON s.id = y.api_id WHERE s.value = 'cudaStreamSynchronize'")"
check "synth: bytes per direction" "D2H|17020
H2D|4461690880" "$(q "$TMP/synth.sqlite" "SELECT direction, sum(bytes) FROM copies GROUP BY 1 ORDER BY 1")"
# the meta table: the header's clock anchor, and the recording's span as info says it
check "meta: schema version 1, duration as info" "1 $(json "$TMP/synth.json" 'd["duration_ns"]')" \
	"$(q "$TMP/synth.sqlite" "SELECT (SELECT int_value FROM meta WHERE key = 'schema_version') || ' ' ||
		(SELECT int_value FROM meta WHERE key = 'duration_ns')")"
check "meta: start_realtime_ns is the header's realtime anchor" 1700000000000000000 \
	"$(q "$TMP/synth.sqlite" "SELECT int_value FROM meta WHERE key = 'start_realtime_ns'")"
# scheduler states: each thread's states tile time, never overlapping
check "starved: scheduler states never overlap within a thread" 0 \
	"$(q "$TMP/starved.sqlite" "SELECT count(*) FROM sched_states a JOIN sched_states b
		ON a.thread_id = b.thread_id AND b.id != a.id AND b.start < a.start + a.dur
		AND a.start < b.start + b.dur")"
check "starved: states of the traced threads only, and some of each kind" "3 3" \
	"$(q "$TMP/starved.sqlite" "SELECT count(DISTINCT thread_id) || ' ' || count(DISTINCT state) FROM sched_states")"
# blocked spans: one per blocked state, the same span; a trace from before blocked reasons
# names none
check "starved: a blocked_spans row for each blocked state, same thread, start and dur" \
	"$(q "$TMP/starved.sqlite" "SELECT count(*) FROM sched_states WHERE state = 'blocked'") 0" \
	"$(q "$TMP/starved.sqlite" "SELECT count(*) FROM blocked_spans") $(q "$TMP/starved.sqlite" \
		"SELECT count(*) FROM blocked_spans b WHERE NOT EXISTS (SELECT 1 FROM sched_states s
		WHERE s.state = 'blocked' AND s.thread_id = b.thread_id AND s.start = b.start
		AND s.dur = b.dur)")"
check "starved: an old trace's blocked spans have reason unknown, no call, no stack" "unknown||||" \
	"$(q "$TMP/starved.sqlite" "SELECT DISTINCT reason || '|' || ifnull(syscall, '') || '|' ||
		ifnull(syscall_nr, '') || '|' || ifnull(stack_id, '') || '|' ||
		ifnull(waker_stack_id, '') FROM blocked_spans")"

# ---- CSV: the same tables, read back with sqlite3's .import
mkdir -p "$TMP/csv"
"$GPUREC" export "$GOLDEN/threads_dwarf.trc" --format csv -o "$TMP/csv" >"$TMP/csv.out" 2>&1
check "csv: exits 0" 0 $?
check "csv: one file per table" \
	"$(q "$TMP/threads_dwarf.sqlite" "SELECT name || '.csv' FROM sqlite_master WHERE type = 'table' ORDER BY name")" \
	"$(cd "$TMP/csv" && ls | sort)"
(
	cd "$TMP/csv" || exit 1
	for f in *.csv; do
		echo ".import --csv $TMP/csv/$f ${f%.csv}"
	done
) >"$TMP/import.sql"
q "$TMP/csv.db" <"$TMP/import.sql"
check "csv: imports" 0 $?
check "csv: launches per kernel name" \
	"$(q "$TMP/threads_dwarf.sqlite" "SELECT k.name, count(*) FROM launches l JOIN kernels k ON k.id = l.kernel_id GROUP BY 1")" \
	"$(q "$TMP/csv.db" "SELECT k.name, count(*) FROM launches l JOIN kernels k ON k.id = l.kernel_id GROUP BY 1")"
check "csv: launches per thread, 250 each of 4 workers" "$(info_threads "$TMP/threads_dwarf.json")" \
	"$(q "$TMP/csv.db" "SELECT p.pid, t.tid, t.comm, (SELECT count(*) FROM launches l
		WHERE l.thread_id = t.id) FROM threads t JOIN processes p ON p.id = t.process_id
		ORDER BY 0 + p.pid, 0 + t.tid")"
check "csv: every table has the rows of the database" \
	"$(for t in $(cd "$TMP/csv" && ls | sed 's/\.csv$//' | sort); do q "$TMP/threads_dwarf.sqlite" "SELECT '$t', count(*) FROM $t"; done)" \
	"$(for t in $(cd "$TMP/csv" && ls | sed 's/\.csv$//' | sort); do q "$TMP/csv.db" "SELECT '$t', count(*) FROM $t"; done)"
check "csv: frames of the first launch, in order" \
	"$(q "$TMP/threads_dwarf.sqlite" "SELECT f.position, s.value FROM launches l JOIN frames f ON f.stack_id = l.stack_id LEFT JOIN strings s ON s.id = f.function_id WHERE l.id = 1 ORDER BY f.position")" \
	"$(q "$TMP/csv.db" "SELECT f.position, s.value FROM launches l JOIN frames f ON f.stack_id = l.stack_id LEFT JOIN strings s ON s.id = f.function_id WHERE l.id = 1 ORDER BY 0 + f.position")"
# RFC 4180: a kernel name with a comma is one quoted field, CRLF line ends
check "csv: quoted name, CRLF" '1,1,30002,94170733978594,"worker(float*, int)",_Z6workerPfi' \
	"$(sed -n 2p "$TMP/csv/kernels.csv" | tr -d '\r')"
check "csv: CRLF line ends" "$(wc -l <"$TMP/csv/launches.csv")" "$(grep -c $'\r$' "$TMP/csv/launches.csv")"

# ---- an existing database is replaced, not appended to
"$GPUREC" export "$GOLDEN/chain.trc" -o "$TMP/again.sqlite" >/dev/null 2>&1
"$GPUREC" export "$GOLDEN/item.trc" -o "$TMP/again.sqlite" >/dev/null 2>&1
check "a second export to the same file replaces it (.sqlite: the default format)" 150 \
	"$(q "$TMP/again.sqlite" "SELECT count(*) FROM launches")"
check "no temporary file left" "again.sqlite" "$(cd "$TMP" && ls again.sqlite*)"

# ---- bad input: a clear error, exit 1, nothing written
cp "$GOLDEN/chain.trc" "$TMP/in.trc"
"$GPUREC" export "$TMP/in.trc" --format sqlite -o "$TMP/in.trc" >/dev/null 2>"$TMP/err"
check "-o the input trace: refused" "1|gpurec export: $TMP/in.trc is the trace being exported: not overwritten" \
	"$?|$(cat "$TMP/err")"
check "-o the input trace: the trace is intact" "$(md5sum <"$GOLDEN/chain.trc")" "$(md5sum <"$TMP/in.trc")"
head -c 1000 "$GOLDEN/chain.trc" | tr '\000-\377' 'x' >"$TMP/bad.trc"
"$GPUREC" export "$TMP/bad.trc" -o "$TMP/bad.sqlite" >/dev/null 2>"$TMP/err"
rc=$?
check "not a trace: exit 1, no database" "1 no" "$rc $([ -e "$TMP/bad.sqlite" ] && echo yes || echo no)"
grep -q "^gpurec export: $TMP/bad.trc: not a gpurec trace" "$TMP/err" && ok "not a trace: said so" ||
	not_ok "not a trace: $(cat "$TMP/err")"
"$GPUREC" export "$GOLDEN/chain.trc" -o "$TMP/nodir/x.sqlite" >/dev/null 2>"$TMP/err"
check "-o into a directory that does not exist" \
	"1|gpurec export: writing $TMP/nodir/x.sqlite: No such file or directory" "$?|$(cat "$TMP/err")"
"$GPUREC" export "$GOLDEN/chain.trc" --format csv -o "$TMP/nodir" >/dev/null 2>"$TMP/err"
check "csv -o a directory that does not exist" \
	"1|gpurec export: $TMP/nodir: No such file or directory" "$?|$(cat "$TMP/err")"
"$GPUREC" export "$GOLDEN/chain.trc" --format sqlite --pid 1 >/dev/null 2>&1
check "--pid with sqlite: a usage error" 2 $?

# ---- failed calls (root: a recording of the real runtime, which has no driver here)
if [ "$(id -u)" -ne 0 ] || [ -e /dev/nvidiactl ] || [ ! -x "$PROGS/launches" ]; then
	ok "failed calls # SKIP needs root, no CUDA driver and $PROGS/launches"
	exit $failures
fi
"$GPUREC" record -o "$TMP/fail.trc" -- "$PROGS/launches" 20 >/dev/null 2>&1
"$GPUREC" info --json "$TMP/fail.trc" >"$TMP/fail.json"
"$GPUREC" export "$TMP/fail.trc" -o "$TMP/fail.sqlite" >/dev/null 2>&1
check "failed calls: exported" 0 $?
db=$TMP/fail.sqlite
check "failed calls: info says 12" 12 "$(json "$TMP/fail.json" 'd["calls"]["failed"]')"
check "failed calls: 12 rows, all copies, error 35 cudaErrorInsufficientDriver" \
	"copy|failed|35|cudaErrorInsufficientDriver|12" \
	"$(q "$db" "SELECT kind, outcome, status, error, count(*) FROM api_calls WHERE outcome != 'ok' GROUP BY 1, 2, 3, 4")"
check "failed calls: 7 cudaMemcpy, 5 cudaMemcpyAsync" "cudaMemcpy|7
cudaMemcpyAsync|5" "$(q "$db" "SELECT s.value, count(*) FROM copies c JOIN strings s ON s.id = c.api_id
	WHERE c.outcome = 'failed' GROUP BY 1 ORDER BY 1")"
check "failed calls: no copy counted as done" 0 "$(q "$db" "SELECT count(*) FROM copies WHERE outcome = 'ok'")"
check "failed calls: launches per kernel as info" "$(info_kernels "$TMP/fail.json")" "$(db_kernels "$db")"
check "failed calls: 84 launches, 64 reduce_rows, 20 scale_bias (70000,3,2)x(32,4,2) 128 B" \
	"reduce_rows(float const*, float*)|64|1|1|1|256|1|1|0
scale_bias(float*, float, int)|20|70000|3|2|32|4|2|128" \
	"$(q "$db" "SELECT k.name, count(*), grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem
		FROM launches l JOIN kernels k ON k.id = l.kernel_id GROUP BY 1 ORDER BY 1")"
exit $failures
