#!/usr/bin/env bash
# Losses are counted, placed in time and shown: a 1 MiB ring buffer drained every 2 s (a test
# hook) cannot hold 400000 launches, and recorded + lost must be exactly what the program made;
# with --call-graph dwarf, the events kept without their stack are counted apart from those lost.
. "$(dirname "$0")/lib.sh"
need_root record_losses

GPUREC_TEST_DRAIN_MS=2000 "$GPUREC" record --ringbuf-mb 1 --no-sched --call-graph none \
	-o "$TMP/l.trc" -- "$PROGS/launch_loop" 400000 >"$TMP/out" 2>"$TMP/err"
"$GPUREC" info --json "$TMP/l.trc" >"$TMP/l.json"
# the program makes 400000 launches and, at its end, up to 3 other events (2 thread exits and
# the process exit), which the full ring may drop too
total=$(json "$TMP/l.json" 'd["launches"] + d["lost_events"]')
[ "$total" -ge 400000 ] && [ "$total" -le 400003 ] && ok "recorded + lost = 400000 launches (+$((total - 400000)) exit events)" || not_ok "recorded + lost = $total, not 400000..400003"
[ "$(json "$TMP/l.json" 'd["lost_events"]')" -gt 0 ] && ok "losses happened" || not_ok "no losses"
check "losses attributed to the ring buffer" ringbuf "$(json "$TMP/l.json" 'd["losses"][0]["source"]')"
check "loss placed in a time range" True "$(json "$TMP/l.json" '0 < d["losses"][0]["ts_ns"] < d["losses"][0]["ts_end_ns"]')"
grep -q "events lost" "$TMP/err" && ok "record says events were lost" || not_ok "record output: $(cat "$TMP/err")"
"$GPUREC" info "$TMP/l.trc" | grep -qi "ringbuf" && ok "info text shows the loss" || not_ok "info text has no loss"

# --call-graph dwarf overflowing: stacks are left out past 3/4 full, then events are dropped.
# A lost stack is of an event that was kept (FORMAT.md): every launch in the file has its stack
# or counts as one lost stack, and a dropped launch counts only as a lost event.
GPUREC_TEST_DRAIN_MS=2000 "$GPUREC" record --ringbuf-mb 1 --no-sched --call-graph dwarf \
	-o "$TMP/d.trc" -- "$PROGS/launch_loop" 100000 >"$TMP/out" 2>"$TMP/d.err"
"$GPUREC" info --json "$TMP/d.trc" >"$TMP/d.json"
[ "$(json "$TMP/d.json" 'd["lost_events"]')" -gt 0 ] && ok "dwarf: launches were dropped" || not_ok "dwarf: no losses"
[ "$(json "$TMP/d.json" 'd["lost_stacks"]')" -gt 0 ] && ok "dwarf: stacks were left out" || not_ok "dwarf: no stack left out"
check "dwarf: launches kept = with a stack + without (lost_stacks)" \
	"$(json "$TMP/d.json" 'd["launches"]')" "$(json "$TMP/d.json" 'd["events_by_kind"]["stack"] + d["lost_stacks"]')"
check "dwarf: record's count of events kept without their stack is info's" \
	"$(json "$TMP/d.json" 'd["lost_stacks"]')" \
	"$(sed -n 's/^gpurec record: \([0-9]*\) events kept without their stack.*/\1/p' "$TMP/d.err")"
exit $failures
