#!/usr/bin/env bash
# The traced program never stays stopped because of us: a recorder that dies (SIGKILL) while
# the BPF side holds a process for probe attachment leaves it to the watchdog, which resumes
# it. GPUREC_TEST_NO_RESUME (a test hook) makes the recorder never resume, so the hold is
# certain: the command is held at its exec.
. "$(dirname "$0")/lib.sh"
need_root record_watchdog

GPUREC_TEST_NO_RESUME=1 "$GPUREC" record -o "$TMP/w.trc" -- \
	sh -c "$PROGS/launches 5; echo done > $TMP/done" >/dev/null 2>&1 &
rec=$!
sleep 1
prog=$(pgrep -P $rec -x sh | head -1)
check "the command is held (stopped) while the recorder lives" T "$(awk '{print $3}' /proc/${prog:-0}/stat 2>/dev/null)"
[ -f "$TMP/done" ] && not_ok "the command ran although it was held"
kill -KILL $rec
wait $rec 2>/dev/null
for _ in $(seq 100); do [ -f "$TMP/done" ] && break; sleep 0.1; done
[ -f "$TMP/done" ] && ok "the command ran to its end after the recorder was killed" || not_ok "the command never finished after the recorder died"
check "the killed recorder's trace opens (complete chunks readable)" 0 "$("$GPUREC" info "$TMP/w.trc" >/dev/null 2>&1; echo $?)"
exit $failures
