#!/usr/bin/env bash
# A process whose main thread exits before its workers (tests/progs/leader_exit: main launches
# once and calls pthread_exit(); a worker launches 5 times after the main thread is a zombie).
# The recorder keeps the process's state (its DWARF unwinding session, its Python state) until
# the last thread is gone: one libdwfl session, not one rebuilt when the main thread left, and
# every launch has its whole stack.
. "$(dirname "$0")/lib.sh"
need_root record_leader_exit

STACKS=${STACKS:-$PWD/$O/tests/tool_trace_stacks}

# --no-sched: the stacks counted are the launches' only
"$GPUREC" record -v --no-sched --call-graph dwarf -o "$TMP/le.trc" -- \
	"$PROGS/leader_exit" "$PROGS/fakecuda/libcuda.so.1" 5 >"$TMP/le.log" 2>&1
check "recorded" 0 $?
check "dwarf: 6 stacks, one libdwfl session for the process" "6 1" \
	"$(sed -n 's/^gpurec record: unwound \([0-9]*\) stacks .*, \([0-9]*\) libdwfl sessions$/\1 \2/p' "$TMP/le.log")"
check "the main thread's launch and the worker's, their callers found" "1: main;
5: worker_launches;worker;" \
	"$("$STACKS" "$TMP/le.trc" | sed -E 's/^(1: main;|5: worker_launches;worker;).*/\1/')"
exit $failures
