#!/usr/bin/env bash
# What bounds the step (docs/REPORTS.md, "What bounds the step"): tests/progs/bound.cu runs steps
# of a known shape on the simulator, and the report's one diagnosis must name the bound the
# program built, with the sections' verdicts following it:
#   gpu:    the host waits ~97% in cudaEventSynchronize, copies overlapped on a second stream:
#           GPU-bound; no launch or fusion problem;
#   host:   1 ms of CPU work a step, 3 tiny launches: host-bound, whether or not the launches are
#           timed (their time cannot change it), unless the kernel's accounting says the thread
#           waited for a CPU longer than it worked;
#   launch: 64 launches of 3 us a step: launch-bound when the launch calls are timed; unknown when
#           none is (it rests on how long they took), even on a busy machine;
#   free:   cudaFree waits for a 1 ms kernel: allocation-bound;
#   blocked: the step's thread sleeps on a semaphore 2 ms a step while another thread has the
#           turn (as a loop thread waiting for the GIL): blocked.
# Blocked, and launch with a sample of its calls timed, may be starved or mixed instead, when the
# kernel's accounting has the thread waiting for a CPU outside calls that much of the step.
# Without a driver every call fails: nothing is judged. The same program recorded 5 times gets the
# same bound each time. The groups of the diagnosis add up to its step, and no share exceeds 1.
. "$(dirname "$0")/lib.sh"
need_root report_bound
SIM=${SAMPLES:-$PWD/$O/samples}/sim

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/bound" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# rec NAME MODE [record options]: record bound MODE 40 on the simulator; its report JSON in NAME.json
rec() {
	local name=$1 mode=$2
	shift 2
	if ! "$GPUREC" record "$@" -o "$TMP/$name.trc" -- env LD_LIBRARY_PATH="$SIM" \
		"$PROGS/bound" "$mode" 40 >"$TMP/$name.out" 2>&1; then
		not_ok "record $name: $(tail -3 "$TMP/$name.out")"
		return 1
	fi
	"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.json"
}
# the bound, and the levels of the step, launch and fusion verdicts
verdicts() {
	json "$TMP/$1.json" "[d['diagnosis']['bound'], d['diagnosis']['level'], d['launches']['level'], d['fusion']['level']]"
}
# the diagnosis' groups add up to its step; shares are at most 1
sums() {
	json "$TMP/$1.json" "[sum(d['diagnosis']['groups_ns'].values()) == d['diagnosis']['total_ns'], d['launches']['launch_share'] <= 1]"
}

for lt in "" --launch-time; do
	if rec "gpu$lt" gpu $lt; then
		# the launch section may still flag slow launch calls (a preempted call on a busy
		# machine), never a launch-bound step
		check "gpu $lt: GPU-bound, not launch-bound, no fusion problem" '["gpu", "ok", true, "ok"]' \
			"$(json "$TMP/gpu$lt.json" "[d['diagnosis']['bound'], d['diagnosis']['level'], d['launches']['verdict'].startswith('not launch-bound'), d['fusion']['level']]")"
		check "gpu $lt: groups add up, shares <= 1" '[true, true]' "$(sums "gpu$lt")"
	fi
	if rec "free$lt" free $lt; then
		check "free $lt: allocation-bound" '["alloc", "problem"]' \
			"$(json "$TMP/free$lt.json" "[d['diagnosis']['bound'], d['diagnosis']['level']]")"
		check "free $lt: groups add up, shares <= 1" '[true, true]' "$(sums "free$lt")"
	fi
	# host work is CPU time: the step is host-bound unless the thread waited for a CPU (or
	# slept) about as long as it worked, which the budget's own figures show: the program's
	# calls take well under 200 us of its 1 ms step
	if rec "host$lt" host $lt; then
		check "host $lt: host-bound, or the CPU wait comes near the work" True \
			"$(json "$TMP/host$lt.json" "(lambda D, g: D['bound'] == 'host' and D['level'] == 'problem' or D['bound'] in ('starved', 'blocked', 'mixed') and g['runnable'] + g['blocked'] >= g['host'] - 200000 or D)(d['diagnosis'], d['diagnosis']['groups_ns'])")"
		check "host $lt: groups add up, shares <= 1" '[true, true]' "$(sums "host$lt")"
		# the call made right after the 1 ms of CPU work names where it ran: main, or the
		# mode's function if not inlined; at least that 1 ms an iteration
		check "host $lt: where the host work ends: the program's own frame, >= 1 ms an iteration" True \
			"$(json "$TMP/host$lt.json" "(lambda s: s[0]['site'] in ('main (bound)', 'host(int) (bound)') and s[0]['ns_per_iteration'] >= 1000000 or s)(d['diagnosis']['host_sites'])")"
	fi
done
if rec launch_timed launch --launch-time; then
	check "launch --launch-time: launch-bound, and the launch and fusion sections say so" \
		'["launch", "problem", "problem", "problem"]' "$(verdicts launch_timed)"
	check "launch --launch-time: groups add up, shares <= 1" '[true, true]' "$(sums launch_timed)"
fi
# A machine busy enough keeps the step's thread waiting for a CPU outside calls (after a sleep,
# inside untimed launch calls) for much of its step: the kernel's accounting, in the runnable
# group. Where the program's own part (the step less that wait) is still mostly what it built,
# the diagnosis follows its rule on the groups it shows: the group at half of the step or more
# bounds it (runnable: starved), else none does (mixed).
BYRULE="(lambda D: (lambda top: {'wait': 'gpu', 'launch': 'launch', 'copy': 'transfer', 'alloc': 'alloc', 'host': 'host', 'runnable': 'starved', 'blocked': 'blocked', 'unknown': 'unknown', 'other': 'mixed'}[top] if 2 * D['groups_ns'][top] >= D['total_ns'] else 'mixed')(max(D['groups_ns'], key=D['groups_ns'].get)))(d['diagnosis'])"
# built GROUP: GROUP takes half of the step less its CPU wait, and the bound is the rule's
built() {
	echo "(lambda D, g: 2 * g['$1'] >= D['total_ns'] - g['runnable'] and D['bound'] == $BYRULE)(d['diagnosis'], d['diagnosis']['groups_ns'])"
}
# a thread that sleeps 2 ms a step for its turn (a wake-up late on a busy machine is runnable
# time after the sleep, never less sleep)
if rec blocked blocked; then
	check "blocked: blocked, a problem (or the CPU wait's bound); the 2 ms sleep in the median step's budget" \
		True \
		"$(json "$TMP/blocked.json" "(lambda D: (D['bound'] == 'blocked' and D['level'] == 'problem' or D['groups_ns']['runnable'] and $(built blocked)) and D['groups_ns']['blocked'] >= 2000000 or D)(d['diagnosis'])")"
	check "blocked: groups add up, shares <= 1" '[true, true]' "$(sums blocked)"
fi

# by default 1 launch in 64 per thread is timed: the others counted at its cost
if rec launch launch; then
	# the untimed launches counted at the sampled ones' cost leave a CPU wait inside the others
	# (that a timed call would own) where it fell, outside calls
	check "launch, a sample timed: launch-bound, and the launch and fusion sections say so (or the CPU wait's bound)" \
		True \
		"$(json "$TMP/launch.json" "(lambda v, D: v == ['launch', 'problem', 'problem', 'problem'] or D['groups_ns']['runnable'] and D['bound'] != 'launch' and $(built launch) or [v, D])([d['diagnosis']['bound'], d['diagnosis']['level'], d['launches']['level'], d['fusion']['level']], d['diagnosis'])")"
	check "launch, a sample timed: groups add up, shares <= 1" '[true, true]' "$(sums launch)"
fi
# no launch timed (a kernel without uprobe sessions: the test hook): it rests on how long
# the launches took, so unknown
if GPUREC_TEST_NO_UPROBE_SESSION=1 rec launch_untimed launch; then
	check "launch, untimed: unknown, said how to settle it; no launch or fusion problem" \
		'["unknown", "none", "ok", "ok", 1]' \
		"$(json "$TMP/launch_untimed.json" "[d['diagnosis']['bound'], d['diagnosis']['level'], d['launches']['level'], d['fusion']['level'], int('record with --launch-time' in d['diagnosis']['verdict'])]")"
fi
# host work on the CPU is host work whatever the untimed launches took
if GPUREC_TEST_NO_UPROBE_SESSION=1 rec host_untimed host; then
	check "host, untimed: host-bound, or the CPU wait comes near the work" True \
		"$(json "$TMP/host_untimed.json" "(lambda D, g: D['bound'] == 'host' and D['level'] == 'problem' or D['bound'] in ('starved', 'blocked', 'mixed') and g['runnable'] + g['blocked'] >= g['host'] - 200000 or D)(d['diagnosis'], d['diagnosis']['groups_ns'])")"
fi

# a Python loop with its host work before 13 launch sites (more than the 10 the report ranks):
# host-bound, the host work said to end at the two lines after 1000 us, then one after 300 us
PY=$(command -v /usr/bin/python3 || command -v python3)
SITES=$PROGS/py/host_sites.py
if "$GPUREC" record --launch-time -o "$TMP/sites.trc" -- env LD_LIBRARY_PATH="$SIM" "$PY" \
	"$SITES" 40 >"$TMP/sites.out" 2>&1; then
	"$GPUREC" report --json "$TMP/sites.trc" >"$TMP/sites.json"
	long=$(grep -n "# site: long$" "$SITES" | cut -d: -f1 | tr '\n' ' ')
	mid=$(grep -n "# site: mid$" "$SITES" | cut -d: -f1 | tr '\n' ' ')
	# on a busy machine the loop thread may wait for a CPU as long as it works: then the step is
	# CPU-starved by the trace's own evidence, and the host sites are not the verdict's to name
	starved=$(json "$TMP/sites.json" "(lambda D, g: int(D['bound'] in ('starved', 'mixed') and g['runnable'] + g['blocked'] >= g['host'] - 200000))(d['diagnosis'], d['diagnosis']['groups_ns'])")
	if [ "$starved" = 1 ]; then
		ok "python host sites: host-bound, the sites named # SKIP the loop thread waited for a CPU as long as it worked: $(json "$TMP/sites.json" 'd["diagnosis"]["bound"]')"
	else
		check "python host sites: host-bound, the 1000 us lines first (each >= 1000 us), a 300 us line third" \
			True "$(json "$TMP/sites.json" "(lambda D, L, M: D['bound'] == 'host' and len(D['host_sites']) == 3 and sorted(int(s['site'].split(' -> ')[0].split(' ')[0].rsplit(':', 1)[1]) for s in D['host_sites'][:2]) == L and all(s['ns_per_iteration'] >= 1000000 for s in D['host_sites'][:2]) and int(D['host_sites'][2]['site'].split(' -> ')[0].split(' ')[0].rsplit(':', 1)[1]) in M or D)(d['diagnosis'], [$(echo $long | tr ' ' ',')], [$(echo $mid | tr ' ' ',')])")"
	fi
else
	not_ok "record python host sites: $(tail -3 "$TMP/sites.out")"
fi

# without a driver every call fails: nothing judged
if "$GPUREC" record --launch-time -o "$TMP/real.trc" -- "$PROGS/bound" launch 5 \
	>"$TMP/real.out" 2>&1; then
	check "real runtime, no driver: no bound judged" "['none', 'none']" \
		"$("$GPUREC" report --json "$TMP/real.trc" | python3 -c 'import json, sys
d = json.load(sys.stdin)["diagnosis"]; print([d["bound"], d["level"]])')"
else
	not_ok "record real: $(tail -3 "$TMP/real.out")"
fi

# the same deterministic program recorded 5 times: the same bound every time
for mode in gpu free; do
	got=
	for i in 1 2 3 4 5; do
		"$GPUREC" record -o "$TMP/r.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/bound" \
			$mode 20 >/dev/null 2>&1
		got="$got $("$GPUREC" report --json "$TMP/r.trc" | python3 -c 'import json, sys
print(json.load(sys.stdin)["diagnosis"]["bound"])')"
	done
	want=$([ $mode = gpu ] && echo " gpu gpu gpu gpu gpu" || echo " alloc alloc alloc alloc alloc")
	check "$mode recorded 5 times: the same bound each time" "$want" "$got"
done

# the text: the step's line first of the summary's verdicts (the notes above it, as the probe
# cost's, vary in length with the machine's load)
"$GPUREC" report "$TMP/gpu.trc" >"$TMP/gpu.txt"
check "text: the step line opens the summary's verdicts" 1 \
	"$(awk '/^summary/ { s = 1; next } s && /^  [a-z]+ +(ok|PROBLEM|-) / { print; exit }' \
		"$TMP/gpu.txt" | grep -c "^  step      ok      GPU-bound: the host waits for the GPU")"
exit $((failures > 0))
