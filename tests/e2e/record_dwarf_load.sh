#!/usr/bin/env bash
# --call-graph dwarf under load: events are never lost for their stacks. A raw stack is ~8 KiB
# of a ~250 B event, and unwinding it costs the recorder microseconds: when the recorder falls
# behind it stops unwinding, and should the ring still fill past 3/4 the BPF side leaves the
# stack bytes out. Every event is kept; the stacks it costs are counted, by reason, in LOSS
# records (stack_shed, unwind_skipped), info and record's closing line. The launch counts are
# the program's own (launch_loop prints them), so every figure below is exact.
. "$(dirname "$0")/lib.sh"
need_root record_dwarf_load
SCHEDSTAT=${SCHEDSTAT:-$PWD/$O/tests/tool_schedstat_exit}

# record NAME ENV... -- LAUNCH_LOOP_ARGS...: record, then the figures of the trace as
# "launches lost_events lost_stacks with_stack stack_shed unwind_skipped"; the kernel's
# accounting of the recorder's thread (it drains and unwinds on its main thread) in
# $TMP/NAME.schedstat: "tid oncpu_ns run_delay_ns timeslices"
record() {
	local name=$1
	shift
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	env "${env[@]}" "$SCHEDSTAT" "$TMP/$name.schedstat" "$GPUREC" record --no-sched \
		--call-graph dwarf -o "$TMP/$name.trc" -- "$PROGS/launch_loop" "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	check "$name: recorded" 0 $?
	"$GPUREC" info --json "$TMP/$name.trc" >"$TMP/$name.json" 2>&1 || not_ok "$name: info"
	made=$(sed -n 's/.*total_launches \([0-9]*\).*/\1/p' "$TMP/$name.out")
	figures=$(json "$TMP/$name.json" '" ".join(str(x) for x in [d["launches"], d["lost_events"],
		d["lost_stacks"], d["events_by_kind"]["stack"]] + [sum(l["count"] for l in d["losses"]
		if l["source"] == s) for s in ("stack_shed", "unwind_skipped")])')
	read -r launches lost lost_stacks with_stack shed skipped <<<"$figures"
	# the storm may lose events, if its recorder was kept off a CPU (checked below): each is
	# counted then
	if [ "$name" = storm ]; then
		check "$name: every launch the program made is recorded or counted lost" "$made" \
			$((launches + lost))
	else
		check "$name: every launch the program made is recorded" "$made" "$launches"
		check "$name: no event lost" 0 "$lost"
	fi
	check "$name: stacks unwound + not = launches" "$launches" $((with_stack + lost_stacks))
	check "$name: stacks not unwound = shed + skipped" "$lost_stacks" $((shed + skipped))
}

# 19200 launches at 20000/s from one thread: the recorder keeps up, every stack is unwound. It
# stops unwinding only with 5/8 of its ring waiting (~1250 raw stacks, 60 ms of these launches),
# which it has two excuses for, both in the kernel's accounting of its thread: it waited for a CPU
# at least one drain period (20 ms) in all (a busy machine), or it ran flat out, on a CPU for at
# least 3/4 of the loop's 960 ms (a slow build: the sanitizers make unwinding ~5x dearer; a
# plain build spends ~1/4). So stacks not unwound must all be the recorder's skips, none shed,
# and one of the two excuses must hold, or it had none. A recorder on a CPU for longer than the
# whole loop cannot keep up even skipping (the sanitizer build beside a parallel make's other
# tests: 1.85 s on a CPU, 10 ms waiting for one, 304 shed): it sheds too.
record paced -- 19200 1 0 20000
check "paced: 19200 launches" 19200 "$launches"
read -r _ oncpu delay _ <"$TMP/paced.schedstat" 2>/dev/null
# Shed stacks (the ring 3/4 full, ~1500 raw stacks, 75 ms of launches) need a longer wait.
if [ "$with_stack" -eq 19200 ]; then
	ok "paced: every stack unwound"
elif [ "$shed" -eq 0 ] && [ "${delay:-0}" -ge 20000000 ]; then
	ok "paced: every stack unwound but $skipped, skipped while the recorder waited $((delay / 1000000)) ms for a CPU (schedstat)"
elif [ "${delay:-0}" -ge 75000000 ]; then
	ok "paced: every stack unwound but $skipped skipped and $shed shed, while the recorder waited $((delay / 1000000)) ms for a CPU (schedstat)"
elif [ "$shed" -eq 0 ] && [ "${oncpu:-0}" -ge 720000000 ]; then
	ok "paced: every stack unwound but $skipped, skipped while the recorder ran flat out ($((oncpu / 1000000)) ms on a CPU, schedstat)"
elif [ "${oncpu:-0}" -ge 960000000 ]; then
	ok "paced: every stack unwound but $skipped skipped and $shed shed, while the recorder ran flat out for longer than the loop ($((oncpu / 1000000)) ms on a CPU, schedstat)"
else
	not_ok "paced: $with_stack of 19200 stacks unwound ($skipped skipped, $shed shed); the recorder waited ${delay:-?} ns for a CPU and ran ${oncpu:-?} ns"
fi

# two threads launching as fast as they can for a second: whatever the recorder keeps up with.
# Past 3/4 of the ring the events go without their stacks, and the last quarter holds ~130 ms of
# them: an event is lost only when the recorder drained nothing that long, which on two cores
# shared with the two launching threads (and a busy machine) the kernel counts as its run delay
# or, running flat out, its time on a CPU
record storm -- 0 2 1
read -r _ oncpu delay _ <"$TMP/storm.schedstat" 2>/dev/null
if [ "$lost" -eq 0 ]; then
	ok "storm: no event lost"
elif [ "${delay:-0}" -ge 100000000 ] || [ "${oncpu:-0}" -ge 750000000 ]; then
	ok "storm: $lost events lost, each counted, while the recorder waited $((delay / 1000000)) ms for a CPU and ran $((oncpu / 1000000)) ms (schedstat)"
else
	not_ok "storm: $lost events lost; the recorder waited ${delay:-?} ns for a CPU and ran ${oncpu:-?} ns"
fi
echo "# storm: $launches launches, $with_stack stacks unwound, $skipped not unwound (recorder behind), $shed left out (ring filling)"
if [ "$lost_stacks" -gt 0 ]; then
	check "storm: record's closing line says it" 1 "$(grep -c "record: $lost_stacks events kept without their stack: $skipped not unwound (the recorder behind), $shed left out by the kernel side" "$TMP/storm.err")"
	check "storm: info says it" 1 "$("$GPUREC" info "$TMP/storm.trc" | grep -c "^losses: $lost events lost, $lost_stacks events kept without their stack$")"
fi

# a recorder that drains only every 2 s and is never woken for the fill (a test hook) cannot
# take 10048 raw stacks (80 MiB) in its 16 MiB ring: past 3/4 full, the BPF side sends the
# events without their stack bytes (~1500 events with stacks fill 12 MiB; the other ~8500
# take ~2 MiB of the last 4), and every event fits
record held GPUREC_TEST_DRAIN_MS=2000 -- 10048
check "held: 10048 launches" 10048 "$launches"
[ "$shed" -gt 0 ] && ok "held: stacks left out as the ring filled ($shed)" || not_ok "held: no stack left out"
exit $failures
