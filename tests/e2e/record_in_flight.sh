#!/usr/bin/env bash
# Calls in flight (issue 11, item 2): a call entered but never returned is in the trace with its
# entry time, arguments and stack, and info says so first. On the GPU simulator,
# tests/progs/long_sync launches one kernel the simulator models as SECONDS long, prints its
# pid and stream, and waits for it in one sync made from its function wait_for_gpu():
# - killed: kill -9 while it is inside cudaDeviceSynchronize; the sync is in flight, its thread
#   exited, and it lasted at least as long as the test saw the program wait in it;
# - stopped: record -d 2 while it is inside cudaStreamSynchronize(S); the sync is in flight at the
#   stop, its thread still alive, and the program goes on unharmed to return from it.
# Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root record_in_flight.sh
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/long_sync" ]; then
	not_ok "simulator or long_sync not built ($SIM, $PROGS)"
	exit 1
fi

now_ns() { date +%s%N; }

# wait_line FILE: waits (a bound, not a timing) for long_sync's "waiting" line; prints its pid
wait_line() {
	for _ in $(seq 600); do
		grep -q '^long_sync: pid=.* waiting$' "$1" 2>/dev/null && break
		sleep 0.05
	done
	sed -n 's/^long_sync: pid=\([0-9]*\) .*/\1/p' "$1"
}

# wait_sleeping PID: waits until PID sleeps in clock_nanosleep (syscall 230 on x86_64, 115 on
# arm64): the simulator's wait inside the sync, the only sleep after the "waiting" line.
wait_sleeping() {
	local nr=230 s
	[ "$(uname -m)" = aarch64 ] && nr=115
	for _ in $(seq 3000); do # 30 s: a bound, not a timing
		s=$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)
		[ "$s" = "$nr" ] && return 0
		sleep 0.01
	done
	return 1
}

info() { json "$TMP/$1.info.json" "$2"; }
calls() { json "$TMP/$1.calls.json" "$2"; }

# --- killed inside cudaDeviceSynchronize ---
t_start=$(now_ns)
"$GPUREC" record -o "$TMP/killed.trc" -- env "LD_LIBRARY_PATH=$SIM" "$PROGS/long_sync" 30 device \
	>"$TMP/killed.out" 2>&1 &
rec=$!
pid=$(wait_line "$TMP/killed.out")
if [ -z "$pid" ] || ! wait_sleeping "$pid"; then
	not_ok "killed: long_sync never waited in its sync: $(cat "$TMP/killed.out")"
	kill -KILL "$pid" $rec 2>/dev/null
	exit 1
fi
t_in=$(now_ns) # the thread is inside the sync from here on
sleep 1
t_kill=$(now_ns)
kill -KILL "$pid"
wait $rec
check "killed: record exits as its command did (128 + SIGKILL)" 137 $?
t_end=$(now_ns)
"$GPUREC" info --json "$TMP/killed.trc" >"$TMP/killed.info.json" 2>&1 ||
	not_ok "killed: info --json: $(cat "$TMP/killed.info.json")"
"$CALLS" "$TMP/killed.trc" >"$TMP/killed.calls.json" 2>&1 ||
	not_ok "killed: trace_calls: $(cat "$TMP/killed.calls.json")"
check "killed: exactly one call in flight: cudaDeviceSynchronize of long_sync's thread, depth 0" \
	"[[\"cudaDeviceSynchronize\", $pid, $pid, 0]]" \
	"$(info killed '[[c["api"], c["pid"], c["tid"], c["depth"]] for c in d["in_flight"]]')"
check "killed: its thread exited, killed by SIGKILL" \
	'[true, "when the process was killed by SIGKILL"]' \
	"$(info killed '[d["in_flight"][0]["thread_exited"], d["in_flight"][0]["until"]]')"
# entered before t_in, left at the kill: at least t_kill - t_in; after the start, before the end
check "killed: inside for at least the $(((t_kill - t_in) / 1000000)) ms the test saw it wait" True \
	"$(info killed "$((t_kill - t_in)) <= d['in_flight'][0]['inside_ns'] <= $((t_end - t_start))")"
check "killed: the sync is not counted as a sync that returned" "[]" "$(info killed 'd["syncs"]')"
check "killed: in flight with its stack: wait_for_gpu called from main" \
	'["cudaDeviceSynchronize", 0, true]' \
	"$(calls killed '[[c[0], c[1], c[2].startswith("wait_for_gpu(int, CUstream_st*);main")] for c in d["in_flight"]][0]')"
"$GPUREC" info "$TMP/killed.trc" >"$TMP/killed.info.txt" 2>&1
head -1 "$TMP/killed.info.txt" |
	grep -Eq "^IN FLIGHT: thread $pid/$pid \(long_sync\) still inside cudaDeviceSynchronize for [0-9.]+ m?s when the process was killed by SIGKILL \(entered at [0-9.]+ s\)$" &&
	ok "killed: info's first line says which call was in flight, and why it ended" ||
	not_ok "killed: info's first line: $(head -1 "$TMP/killed.info.txt")"
"$GPUREC" report "$TMP/killed.trc" >"$TMP/killed.report.txt" 2>/dev/null
# the lines wrap at spaces: joined with one, they read as written (stacks reach _start)
sed -n 2,6p "$TMP/killed.report.txt" | sed 's/^ *//' | paste -sd' ' |
	grep -Eq "^IN FLIGHT: thread $pid/$pid \(long_sync\) still inside cudaDeviceSynchronize for [0-9.]+ m?s when the process was killed by SIGKILL called from: .*main \(long_sync\) -> wait_for_gpu\(int, CUstream_st\*\) \(long_sync\)" &&
	ok "killed: report's first lines say which call was in flight, and from where" ||
	not_ok "killed: report's first lines: $(sed -n 2,3p "$TMP/killed.report.txt")"

# --- the recording stops (-d 2) while the program is inside cudaStreamSynchronize(S) ---
# The kernel lasts 6 s: the program reaches its sync well within the recording's 2 s (about
# 50 ms), and returns from it after the recorder has stopped and detached.
t_start=$(now_ns)
"$GPUREC" record -d 2 -o "$TMP/stopped.trc" -- env "LD_LIBRARY_PATH=$SIM" "$PROGS/long_sync" 6 \
	stream >"$TMP/stopped.out" 2>&1
check "stopped: record exits as its command did (0)" 0 $?
t_end=$(now_ns)
stream=$(sed -n 's/^long_sync: pid=[0-9]* stream=\(0x[0-9a-f]*\) waiting$/\1/p' "$TMP/stopped.out")
pid=$(sed -n 's/^long_sync: pid=\([0-9]*\) .*/\1/p' "$TMP/stopped.out")
check "stopped: the program returned from its sync unharmed after the recorder left" \
	"long_sync: done status=0" "$(grep '^long_sync: done' "$TMP/stopped.out")"
check "stopped: it entered the sync before the recording stopped" \
	"waiting stopped" \
	"$(sed -n 's/^long_sync: .* \(waiting\)$/\1/p; s/^gpurec record: \(stopped\) recording after.*/\1/p' "$TMP/stopped.out" | tr '\n' ' ' | sed 's/ $//')"
"$GPUREC" info --json "$TMP/stopped.trc" >"$TMP/stopped.info.json" 2>&1 ||
	not_ok "stopped: info --json: $(cat "$TMP/stopped.info.json")"
"$CALLS" "$TMP/stopped.trc" >"$TMP/stopped.calls.json" 2>&1 ||
	not_ok "stopped: trace_calls: $(cat "$TMP/stopped.calls.json")"
check "stopped: exactly one call in flight: cudaStreamSynchronize, thread alive, until the stop" \
	"[[\"cudaStreamSynchronize\", $pid, false, \"when the recording stopped\"]]" \
	"$(info stopped '[[c["api"], c["pid"], c["thread_exited"], c["until"]] for c in d["in_flight"]]')"
check "stopped: inside for a while, within the recording" True \
	"$(info stopped '0 < d["in_flight"][0]["inside_ns"] <= '$((t_end - t_start)))"
check "stopped: in flight with its argument (the stream $stream) and its stack" \
	"[\"cudaStreamSynchronize\", $((stream)), true]" \
	"$(calls stopped '[[c[0], c[1], c[2].startswith("wait_for_gpu(int, CUstream_st*);main")] for c in d["in_flight"]][0]')"
"$GPUREC" info "$TMP/stopped.trc" >"$TMP/stopped.info.txt" 2>&1
head -1 "$TMP/stopped.info.txt" |
	grep -Eq "^IN FLIGHT: thread $pid/$pid \(long_sync\) still inside cudaStreamSynchronize for [0-9.]+ m?s when the recording stopped " &&
	ok "stopped: info's first line says the sync was in flight at the stop" ||
	not_ok "stopped: info's first line: $(head -1 "$TMP/stopped.info.txt")"
exit $failures
