#!/usr/bin/env bash
# What a killed recording keeps, and says: events reach the file within about a second even when
# no more arrive (a chunk still in memory dies with the recorder), and a trace without its footer
# says where it ends instead of "losses: none".
. "$(dirname "$0")/lib.sh"
need_root record_killed

# exactly 1024 launches (launch_loop makes them 64 at a time), then a long quiet wait: the only
# way they reach the file is by age
"$GPUREC" record -o "$TMP/k.trc" -- sh -c "$PROGS/launch_loop 1024 1 >/dev/null; echo \$\$ > $TMP/ready;
	exec sleep 60" >/dev/null 2>&1 &
rec=$!
# (60 s, a bound: the recorder loads its BPF side, then the 1024 launches)
for _ in $(seq 1200); do [ -s "$TMP/ready" ] && break; sleep 0.05; done
n=
for _ in $(seq 200); do
	n=$("$GPUREC" info --json "$TMP/k.trc" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["launches"])' 2>/dev/null)
	[ "$n" = 1024 ] && break
	sleep 0.1
done
check "the 1024 launches are in the file while the recording goes on, with no new events" 1024 "$n"
kill -KILL $rec
wait $rec 2>/dev/null
kill -KILL "$(cat "$TMP/ready")"

"$GPUREC" info --json "$TMP/k.trc" >"$TMP/k.json" 2>/dev/null
check "after kill -9: all 1024 launches kept" 1024 "$(json "$TMP/k.json" 'd["launches"]')"
check "info --json: ended abruptly, after the launches" True \
	"$(json "$TMP/k.json" 'd["ended_abruptly_at_s"] is not None and d["ended_abruptly_at_s"] >= 0')"
"$GPUREC" info "$TMP/k.trc" >"$TMP/k.txt" 2>&1
grep -q "recording ended abruptly at [0-9.]* s: events after [0-9.]* s are not in the file" "$TMP/k.txt" &&
	ok "info says where the recording ended" || not_ok "info: $(grep -A2 losses "$TMP/k.txt")"
grep -q "losses: none" "$TMP/k.txt" && not_ok "info says losses: none for a killed recording" ||
	ok "info does not say losses: none"
"$GPUREC" report "$TMP/k.trc" >"$TMP/k.rep" 2>&1
grep -q "recording ended abruptly at" "$TMP/k.rep" && ok "report says where the recording ended" ||
	not_ok "report: $(head -3 "$TMP/k.rep")"

# a recording that ended normally says nothing of the kind
"$GPUREC" record -o "$TMP/ok.trc" -- "$PROGS/launch_loop" 10 1 >/dev/null 2>&1
check "complete trace: ended_abruptly_at_s is null" None \
	"$("$GPUREC" info --json "$TMP/ok.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ended_abruptly_at_s"])')"
check "complete trace: report --json ended_abruptly false" False \
	"$("$GPUREC" report --json "$TMP/ok.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ended_abruptly"])')"
exit $failures
