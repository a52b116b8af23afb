# Ranks of a job (docs/REPORTS.md section 5): tests/progs/rank_launcher starts 4 ranks of
# rank_step with RANK/LOCAL_RANK/WORLD_SIZE/LOCAL_WORLD_SIZE set, each STEPS steps of 1003 us of
# simulated GPU work (a 1000 us kernel, a 3 us one, a stream sync); rank 2 adds EXTRA_US of host
# work per step, a busy loop on its own CPU time (so at least that much wall time). What the
# program controls: 40 iterations of 3 calls (2 launches) per rank; rank 2's iteration at least
# 2000 + 1003 us with at least 2000 us of it outside any call; nobody's under the GPU's 1003 us;
# its excess over the others, when host work is the cause, the 2000 us within 10%.
# Other work on the machine can only lengthen those. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "report_ranks.sh"
SIM=${SAMPLES:-$PWD/$O/samples}/sim
STEPS=40
EXTRA_US=2000

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/rank_launcher" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# job NAME FIRST COUNT SLOW_RANK: record ranks FIRST..FIRST+COUNT-1 of a 4-rank job
job() {
	if ! "$GPUREC" record -o "$TMP/$1.trc" -- env LD_LIBRARY_PATH="$SIM" \
		"$PROGS/rank_launcher" "$2" "$3" 4 $STEPS "$4" $EXTRA_US >"$TMP/$1.out" 2>&1; then
		not_ok "record $1: $(tail -3 "$TMP/$1.out")"
		return 1
	fi
}

# the straggler's figures against what the program controls; $1: report JSON. The bounds are on
# wall time as recorded (--no-compensate, $1.raw): the probe cost the recorder measured at its
# start, on a busy machine, may be far more than the calls cost later, and what is subtracted for
# it is no part of what the program controls
# The cause is host work on a quiet machine; on a busy one rank 2 (2 ms of CPU an iteration)
# may wait for a CPU longer than that, and the cause is then its runnable wait. That is the
# machine's, so it is asserted against the kernel's accounting of rank 2's thread in the same
# run (rank_step prints its schedstat at its end: $3, the job's output): what the report says
# it waited in its iterations, and the excess it names, are no more than the kernel's run delay
# (+ 1 ms, + 50 us a timeslice: the tracepoints and the run-queue clock a few us apart).
cause_ok() { # REPORT OUT
	python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r"^rank_step: rank=2 .* run_delay_ns=(\d+) timeslices=(\d+)$", open(sys.argv[2]).read(), re.M)
s = d["straggler"] or {}
k = [k for k in d["ranks"] if k["rank"] == 2]
if s.get("rank") == 2 and s.get("cause") == "host":
    print(True)
elif s.get("rank") == 2 and s.get("cause") == "runnable" and m and k:
    delay, tol, n = int(m.group(1)), 1e6 + 50e3 * int(m.group(2)), k[0]["iterations"] - 1
    print(k[0]["runnable_ns"] * n <= delay + tol and s["excess_ns"] * n <= delay + tol or
          dict(straggler=s, rank2=k[0], kernel_run_delay=delay, tol=tol))
else:
    print(dict(straggler=s, schedstat=m and m.group(0)))' "$1" "$2"
}

check_slow() {
	local r=$1 what=$2 out=$3 raw=$1.raw
	check "$what: 4 ranks in rank order, each 40 iterations of 3 calls, 2 launches" \
		"[[0, 40, 3, 2], [1, 40, 3, 2], [2, 40, 3, 2], [3, 40, 3, 2]]" \
		"$(json "$r" "[[k['rank'], k['iterations'], k['calls_per_iteration'], k['launches_per_iteration']] for k in d['ranks']]")"
	# the cause is the part passing the others' median by the most. Rank 2 spins 2 ms more
	# per iteration: host work (on CPU), unless a busy machine kept it runnable longer still
	# (the parts are disjoint: its wait is not in host); the figures the rule reads are the
	# report's own
	local parts='("host", "launch", "copy", "sync", "runnable", "blocked", "other", "unknown")'
	local cause="(lambda r, o: max($parts, key=lambda p: (r[p + '_ns'] - sorted(k[p + '_ns'] for k in o)[(len(o) - 1) // 2], -$parts.index(p))))(d['ranks'][2], [k for k in d['ranks'] if k['rank'] != 2])"
	check "$what: the straggler is rank 2, its cause the part that passes the others' most (compensated, and not)" \
		"[2, true, true, 2, true, true]" \
		"$(json "$r" "[d['straggler']['rank'], d['straggler']['cause'] == $cause, d['straggler']['cause'] in ('host', 'runnable')]" | tr -d ']'), $(json "$raw" "[d['straggler']['rank'], d['straggler']['cause'] == $cause, d['straggler']['cause'] in ('host', 'runnable')]" | tr -d '[')"
	# the issue's figure: host is CPU time only, the busy loop's 2000 us of it whatever else
	# runs, so the excess of the host part's median over the others' is that within 10%; a
	# runnable cause (a machine so busy rank 2 waited longer than it spun) is checked against
	# the kernel's accounting below instead
	check "$what: a host cause's excess is the 2000 us of extra host work within 10% (compensated, and not)" \
		"[true, true]" \
		"$(python3 -c 'import json, sys
print(json.dumps([(lambda s: s["cause"] != "host" or 1800000 <= s["excess_ns"] <= 2200000 or s)(json.load(open(f))["straggler"]) for f in sys.argv[1:]]))' "$r" "$raw")"
	check "$what: the straggler is rank 2, its extra time host work or CPU wait the kernel counted (compensated)" \
		True "$(cause_ok "$r" "$out")"
	check "$what: the straggler is rank 2, its extra time host work or CPU wait the kernel counted (not compensated)" \
		True "$(cause_ok "$raw" "$out")"
	# the busy loop is on CPU outside calls; the untimed launches' estimated time is moved
	# from host to launch, so the bound holds on their sum
	check "$what: rank 2 takes >= 2000 + 1003 us per iteration, >= 2000 us of it host work" \
		"[true, true]" \
		"$(json "$raw" "[d['ranks'][2]['iteration_ns'] >= 3003000, d['ranks'][2]['host_ns'] + d['ranks'][2]['launch_ns'] >= 2000000]")"
	check "$what: no rank is under the GPU's 1003 us per iteration" "True" \
		"$(json "$raw" "min(k['iteration_ns'] for k in d['ranks']) >= 1003000")"
	# the ratio: rank 2's iteration over the others' median, which cannot be under 1 ms
	check "$what: ratio = rank 2 / others' median, in [1.10, rank 2 / 1 ms]" "True" \
		"$(json "$raw" "(lambda s, o: abs(s['ratio'] - s['iteration_ns'] / sorted(o)[1]) < 1e-9 and s['others_ns'] == sorted(o)[1] and 1.10 <= s['ratio'] <= s['iteration_ns'] / 1003000)(d['straggler'], [k['iteration_ns'] for k in d['ranks'] if k['rank'] != 2])")"
}

if job slow 0 4 2; then
	"$GPUREC" report --json "$TMP/slow.trc" >"$TMP/slow.json"
	"$GPUREC" report --json --no-compensate "$TMP/slow.trc" >"$TMP/slow.json.raw"
	"$GPUREC" report "$TMP/slow.trc" >"$TMP/slow.txt"
	check_slow "$TMP/slow.json" "one trace" "$TMP/slow.out"
	check "one trace: the text names the straggler" 1 \
		"$(grep -c "^  ranks     PROBLEM rank 2 (pid [0-9]*) is the straggler" "$TMP/slow.txt")"
	# --only selects the part alone, with the same figures (the CPU replay feeds its runnable
	# wait whether or not the cpu section is asked for); --only launches leaves it out
	check "--only ranks: the same ranks and straggler as the whole report" "True True" \
		"$("$GPUREC" report --json --only ranks "$TMP/slow.trc" | python3 -c 'import json, sys
a, b = json.load(sys.stdin), json.load(open(sys.argv[1]))
print(a["ranks"] == b["ranks"] and a["straggler"] == b["straggler"], "cpu" not in a and a["sections"] == ["ranks"])' "$TMP/slow.json")"
	check "--only launches: no ranks part" "False" \
		"$("$GPUREC" report --json --only launches "$TMP/slow.trc" | python3 -c 'import json, sys; print("ranks" in json.load(sys.stdin))')"
	"$GPUREC" info --json "$TMP/slow.trc" >"$TMP/slow.info.json"
	check "info: each rank_step's rank, local rank and world size from its environment" \
		"[[0, 0, 4], [1, 1, 4], [2, 2, 4], [3, 3, 4]]" \
		"$(json "$TMP/slow.info.json" "[[p['rank'], p['local_rank'], p['world_size']] for p in d['processes'] if p['comm'] == 'rank_step']")"
	check "info: the launcher has none (its environment sets none)" "False" \
		"$(json "$TMP/slow.info.json" "any('rank' in p for p in d['processes'] if p['comm'] == 'rank_launcher')")"
fi

if job healthy 0 4 -1; then
	"$GPUREC" report --json "$TMP/healthy.trc" >"$TMP/healthy.json"
	check "healthy twin: 4 ranks of 40 iterations, no straggler" '[[40, 40, 40, 40], null, "ok"]' \
		"$(json "$TMP/healthy.json" "[[k['iterations'] for k in d['ranks']], d['straggler'], d['ranks_verdict']['level']]")"
fi

# a process whose loop ran alone (5 steps of rank_step, 5 ms slower each, before the job starts,
# as a launcher's warm-up would): listed, but not compared with the ranks it never ran beside, so
# a healthy job stays healthy
if "$GPUREC" record -o "$TMP/alone.trc" -- env LD_LIBRARY_PATH="$SIM" sh -c \
	"'$PROGS/rank_step' 5 5000 && '$PROGS/rank_launcher' 0 4 4 $STEPS -1 0" \
	>"$TMP/alone.out" 2>&1; then
	"$GPUREC" report --json "$TMP/alone.trc" >"$TMP/alone.json"
	check "a loop alone before the job: listed, not compared; the 4 ranks compared; no straggler" \
		'[[[0, true], [1, true], [2, true], [3, true], [null, false]], null, "ok"]' \
		"$(json "$TMP/alone.json" "[[[k['rank'], k['compared']] for k in d['ranks']], d['straggler'], d['ranks_verdict']['level']]")"
	"$GPUREC" report "$TMP/alone.trc" >"$TMP/alone.txt"
	check "a loop alone before the job: the text marks it" 1 \
		"$(grep -c "^ *[0-9]* *- rank_step .* ~$" "$TMP/alone.txt")"
else
	not_ok "record alone: $(tail -3 "$TMP/alone.out")"
fi

# two launchers recorded separately (ranks 0-1, then 2-3: as two nodes would), reported as one
# job: the same table and straggler, each process with the trace it came from
if job node0 0 2 2 && job node1 2 2 2; then
	"$GPUREC" report --json "$TMP/node0.trc" "$TMP/node1.trc" >"$TMP/set.json"
	"$GPUREC" report --json --no-compensate "$TMP/node0.trc" "$TMP/node1.trc" \
		>"$TMP/set.json.raw"
	check_slow "$TMP/set.json" "two traces" "$TMP/node1.out"
	check "two traces: ranks 0-1 from trace 0, 2-3 from trace 1; the straggler's is 1" \
		"[[0, 0], [1, 0], [2, 1], [3, 1], 1]" \
		"$(json "$TMP/set.json" "[[k['rank'], k['trace']] for k in d['ranks']] + [d['straggler']['trace']]")"
	check "two traces: both listed, aligned on the first one's clock" '[true, true]' \
		"$(json "$TMP/set.json" "[t['aligned'] for t in d['traces']]")"
	# each trace measured its own probe cost: the set subtracts the smaller of each part,
	# and says whether they differed
	"$GPUREC" report --json "$TMP/node0.trc" >"$TMP/node0.json"
	"$GPUREC" report --json "$TMP/node1.trc" >"$TMP/node1.json"
	check "two traces: the probe cost in a duration is the smaller trace's; a difference is said" "True" \
		"$(python3 -c 'import json, sys
s, a, b = (json.load(open(f))["probe_cost"] for f in sys.argv[1:])
f = ("per_call_ns", "timed_call_ns", "in_duration_ns")
print(s["in_duration_ns"] == min(a["in_duration_ns"], b["in_duration_ns"]) and s["per_call_ns"] <= min(a["per_call_ns"], b["per_call_ns"]) and (s["traces_differ"] or [a[k] for k in f] == [b[k] for k in f]))' "$TMP/set.json" "$TMP/node0.json" "$TMP/node1.json")"
	"$GPUREC" info --json "$TMP/node0.trc" "$TMP/node1.trc" >"$TMP/set.info.json"
	check "info over the set: 2 launchers + 4 ranks, 320 launches, each rank 80 in its trace" \
		"[6, 320, [[0, 0, 80], [0, 1, 80], [1, 2, 80], [1, 3, 80]]]" \
		"$(json "$TMP/set.info.json" "[len(d['processes']), d['launches'], [[p['trace'], p['rank'], p['launches']] for p in d['processes'] if 'rank' in p]]")"
	# a set on either side of diff: comma-separated; the set against the one-trace job
	"$GPUREC" diff --json "$TMP/node0.trc,$TMP/node1.trc" "$TMP/slow.trc" >"$TMP/diff.json" 2>"$TMP/diff.err"
	check "diff: a set against one trace exits 0" 0 $?
	"$GPUREC" report "$TMP/node0.trc" "$TMP/nonexistent.trc" >/dev/null 2>"$TMP/err"
	check "a missing trace of a set: exit 1, the error names it" "1 1" \
		"$? $(grep -c "nonexistent.trc: No such file" "$TMP/err")"
fi

exit $((failures > 0))
