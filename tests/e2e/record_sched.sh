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
# switch: prev or next is traced, or a traced thread waits runnable on that CPU (wait windows:
# a wakeup or a runnable switch-out opens one on its CPU, a migration moves it, a switch in
# closes it); wakeup and migration: the task moved or woken is traced
bad=$(awk -v t="$traced" 'BEGIN {split(t, a, " "); for (i in a) tr[a[i]] = 1}
	NR == 1 {next}
	$1 == "switch" {
		if (!($2 in tr) && !($5 in tr)) { n = 0; for (w in wcpu) if (wcpu[w] == $9) n++; if (!n) print }
		if ($6 in wcpu) delete wcpu[$6]
		if (($2 in tr) && $8 == 0) wcpu[$3] = $9
		next }
	$1 == "migrate" { if (!($2 in tr)) print; if ($3 in wcpu) wcpu[$3] = $10; next }
	{ if (!($5 in tr)) print; wcpu[$6] = $10 }' "$TMP/s.txt" | wc -l)
check "every scheduler record involves a traced process or a CPU one of them waits on" 0 "$bad"
# the hog shares CPU 0 with the launcher, which never blocks: the hog takes that CPU while the
# launcher waits runnable for it. On a busy machine other tasks of CPU 0 take it too, and the
# hog may get it from them rather than from the launcher (a run here had none of it straight
# from the launcher): every switch into the untraced hog that the trace holds is one while a
# traced thread waited on its CPU (the check above), and only the launcher does, on CPU 0
took=$(awk -v h=$hog 'NR > 1 && $1 == "switch" && $5 == h' "$TMP/s.txt" | wc -l)
[ "$took" -gt 0 ] && ok "the busy process took the launcher's CPU while it waited ($took times)" ||
	not_ok "the busy process (pid $hog) never ran while the launcher waited"
hog_pid_seen=$(awk -v h=$hog 'NR > 1 && ($2 == h || $5 == h)' "$TMP/s.txt" | wc -l)
[ "$hog_pid_seen" -gt 0 ] && ok "the hog appears by pid in switches ($hog_pid_seen)" || not_ok "hog pid $hog never seen"
exit $failures
