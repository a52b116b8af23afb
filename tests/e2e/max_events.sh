#!/usr/bin/env bash
# --max-events (issue 27, hostile expansion): a 25 KB trace with valid checksums claims 28
# million identical launches. With a small --max-events every replay command (info, report,
# report --json/--html, diff, diff --html, export json/sqlite/csv/perfetto) refuses it before
# allocating: exit 1, the one documented line, no output file, and a peak RSS (the kernel's
# count, /usr/bin/time %M) under 64 MB. Raised, a 2-million-launch trace of the same kind loads
# and reports the exact count; 0 means no limit; a window (export --from/--to) reads only the
# chunks it needs, so it fits a limit the whole trace does not. No check allocates gigabytes.
. "$(dirname "$0")/lib.sh"
FLOOD=${FLOOD:-$PWD/$O/tests/tool_trace_flood}
CHUNKS=${CHUNKS:-$PWD/$O/tests/tool_trace_chunks}
RSS_KB=65536

if [ ! -x "$FLOOD" ] || [ ! -x "$CHUNKS" ] || [ ! -x /usr/bin/time ]; then
	not_ok "needs $FLOOD, $CHUNKS (make) and /usr/bin/time"
	exit 1
fi
"$FLOOD" "$TMP/big.trc" 28000000 && "$FLOOD" "$TMP/small.trc" 2000000
check "the hostile traces are written" 0 $?
size=$(stat -c %s "$TMP/big.trc")
[ "$size" -lt 65536 ] && ok "28M launches in $size bytes" || not_ok "the big trace is $size bytes"
check "its index counts 28M launches" 28000000 \
	"$("$CHUNKS" "$TMP/big.trc" | awk '{ n += $3 } END { print n }')"

# refused CMD ARGS...: exit 1, the exact line, small peak RSS, nothing written under $TMP/out
refused() {
	local cmd=$1 rss
	rm -rf "$TMP/out" && mkdir "$TMP/out"
	/usr/bin/time -f "%M" -o "$TMP/rss" "$GPUREC" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
	check "$*: exit 1" 1 $?
	check "$*: says why" "gpurec $cmd: $TMP/big.trc: holds 28000001 events, more than \
--max-events 1000000 (about 2.6 GiB to load); raise --max-events or use export --from/--to for \
a window" "$(cat "$TMP/stderr")"
	rss=$(tail -1 "$TMP/rss")
	[ "$rss" -lt $RSS_KB ] && ok "$*: peak RSS $rss KB" || not_ok "$*: peak RSS $rss KB"
	check "$*: nothing written" "" "$(ls -A "$TMP/out")"
}
refused info --max-events 1000000 "$TMP/big.trc"
refused info --json --max-events 1000000 "$TMP/big.trc"
refused report --max-events 1000000 "$TMP/big.trc"
refused report --json --max-events=1M "$TMP/big.trc"
refused report --html -o "$TMP/out/r.html" --max-events 1000k "$TMP/big.trc"
refused diff --max-events 1000000 "$TMP/big.trc" "$TMP/small.trc"
refused diff --html -o "$TMP/out/d.html" --max-events 1000000 "$TMP/big.trc" "$TMP/small.trc"
refused export --max-events 1000000 -o "$TMP/out/e.json" "$TMP/big.trc"
refused export --max-events 1000000 -o "$TMP/out/e.sqlite" "$TMP/big.trc"
refused export --max-events 1000000 --format perfetto -o "$TMP/out/e.pftrace" "$TMP/big.trc"
mkdir -p "$TMP/csv"
"$GPUREC" export --max-events 1000000 --format csv -o "$TMP/csv" "$TMP/big.trc" 2>"$TMP/stderr"
check "export csv: exit 1" 1 $?
check "export csv: no table written" "" "$(ls -A "$TMP/csv")"

# a set (two traces as one job) counts them together
"$GPUREC" info --max-events 3000000 "$TMP/small.trc" "$TMP/small.trc" >/dev/null 2>"$TMP/stderr"
check "a set of two 2M traces over 3M: exit 1" 1 $?
grep -q "holds 4000002 events, more than --max-events 3000000" "$TMP/stderr" &&
	ok "a set: both traces counted" || not_ok "a set: $(cat "$TMP/stderr")"

# raised: the 2M trace loads and reports the exact count; one event less refuses it
/usr/bin/time -f "%M" -o "$TMP/rss" "$GPUREC" info --max-events 2000001 "$TMP/small.trc" \
	>"$TMP/info" 2>"$TMP/stderr"
check "info --max-events 2000001 on 2000001 records: exit 0" 0 $?
check "info counts every launch" "launch 2000000" \
	"$(awk '$1 == "launch" { print $1, $2; exit }' "$TMP/info")"
echo "# info of 2M launches: peak RSS $(tail -1 "$TMP/rss") KB"
"$GPUREC" report --json --max-events 0 "$TMP/small.trc" >"$TMP/r.json" 2>"$TMP/stderr"
check "report --max-events 0 (no limit): exit 0" 0 $?
check "report --json counts every launch" 2000000 "$(json "$TMP/r.json" 'd["launches"]["total"]')"
"$GPUREC" info --max-events 2000000 "$TMP/small.trc" >/dev/null 2>"$TMP/stderr"
check "one event under the count: exit 1" 1 $?

# the remedy the line names: a window reads the chunks it needs (and the one with the names)
/usr/bin/time -f "%M" -o "$TMP/rss" "$GPUREC" export --max-events 3000000 --from 10 \
	--to 10.001 -o "$TMP/w.json" "$TMP/big.trc" >/dev/null 2>"$TMP/stderr"
check "export --from 10 --to 10.001 of the 28M trace under 3M: exit 0" 0 $?
rss=$(tail -1 "$TMP/rss")
[ "$rss" -lt 262144 ] && ok "the window: peak RSS $rss KB" || not_ok "the window: peak RSS $rss KB"
# [10 s, 10.001 s] inclusive starts 1001 launches 1 us apart; 3 earlier ones run (3 us) into it
check "the window holds its 1004 launches" 1004 \
	"$(json "$TMP/w.json" 'sum(1 for e in d["traceEvents"] if e.get("cat") == "launch" and e.get("ph") == "X")')"

# usage errors
for bad in -1 abc 5X ""; do
	"$GPUREC" report --max-events "$bad" "$TMP/small.trc" >/dev/null 2>"$TMP/stderr"
	check "--max-events '$bad': usage error" 2 $?
	check "--max-events '$bad': says what is needed" "gpurec report: --max-events '$bad': a \
number of events is needed (0 = no limit; 200M = 200 million)" "$(head -1 "$TMP/stderr")"
done
"$GPUREC" info --help | grep -q -- "--max-events N" && ok "info --help lists --max-events" ||
	not_ok "info --help has no --max-events"
exit $((failures > 0))
