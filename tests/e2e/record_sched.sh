#!/usr/bin/env bash
# Scheduler context: a launcher pinned to the CPU of a busy process that is not traced.
# Every scheduler record must involve the traced process, and the busy process must show up
# as the one that took the launcher's CPU.
. "$(dirname "$0")/lib.sh"
need_root record_sched
TOOL=${TOOL:-$PWD/$O/tests/tool_trace_sched}

taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
sleep 0.2
"$GPUREC" record -o "$TMP/s.trc" -- taskset -c 0 "$PROGS/launch_loop" 0 1 1 >/dev/null 2>&1
kill $hog
"$TOOL" "$TMP/s.trc" >"$TMP/s.txt" || not_ok "tool_trace_sched failed"
traced=$(awk 'NR == 1 {$1 = ""; print}' "$TMP/s.txt")
n=$(awk 'NR > 1' "$TMP/s.txt" | wc -l)
[ "$n" -gt 10 ] && ok "scheduler records captured ($n)" || not_ok "only $n scheduler records"
# switch: prev or next is traced; wakeup: the woken task (next) is traced
bad=$(awk -v t="$traced" 'BEGIN {split(t, a, " "); for (i in a) tr[a[i]] = 1}
	NR > 1 && (($1 == "switch" && !($2 in tr) && !($5 in tr)) || ($1 != "switch" && !($5 in tr)))' "$TMP/s.txt" | wc -l)
check "every scheduler record involves a traced process" 0 "$bad"
took=$(awk -v t="$traced" 'BEGIN {split(t, a, " "); for (i in a) tr[a[i]] = 1}
	NR > 1 && $1 == "switch" && ($2 in tr) && $8 == 0 {print $7}' "$TMP/s.txt" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
check "the busy process is what preempted the launcher" sh "$took"
hog_pid_seen=$(awk -v h=$hog 'NR > 1 && ($2 == h || $5 == h)' "$TMP/s.txt" | wc -l)
[ "$hog_pid_seen" -gt 0 ] && ok "the hog appears by pid in switches ($hog_pid_seen)" || not_ok "hog pid $hog never seen"
exit $failures
