#!/usr/bin/env bash
# Launch sampling (bpf/gpurec.bpf.c, launch_session): without --launch-time a recording times the
# 2nd launch of each thread and every 64th after it, through a uprobe session, and the report's
# launch cost is the median of that sample. On the simulator (a launch busy-waits LAUNCH_NS = 5 us
# from its entry) the program controls every count: THREADS threads of LAUNCHES launches each.
# The oracle is the rule itself: exactly which launches of each thread carry a duration, and
# every duration at least the 5 us the simulator spends; --launch-time times all of them; a
# kernel without uprobe sessions (forced by the test hook GPUREC_TEST_NO_UPROBE_SESSION) times
# none, and the report says so instead of passing the gap estimate off as a measurement.
. "$(dirname "$0")/lib.sh"
need_root record_launch_sample
SIM=${SAMPLES:-$PWD/$O/samples}/sim
THREADS=3
LAUNCHES=1024 # launch_loop launches in rounds of 64
PERIOD=64
LAUNCH_NS=5000

# record NAME [ENV...] -- [OPTIONS]: the loop recorded, its report (--json) and launches table
record() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" "$GPUREC" record "$@" -o "$TMP/$name.trc" -- \
		env "LD_LIBRARY_PATH=$SIM" "$PROGS/launch_loop" $LAUNCHES $THREADS \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	check "$name: recorded" 0 $?
	"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.json" 2>>"$TMP/$name.err"
	"$GPUREC" report "$TMP/$name.trc" >"$TMP/$name.txt" 2>>"$TMP/$name.err"
	mkdir -p "$TMP/$name.csv"
	"$GPUREC" export "$TMP/$name.trc" --format csv -o "$TMP/$name.csv" >/dev/null 2>&1
	check "$name: exported" 0 $?
}

# timed NAME: per thread, the 0-based positions of its timed launches (dur > 0), "tid:i,j,..;"
# in thread order; then every timed duration below LAUNCH_NS, if any
timed() {
	python3 - "$TMP/$1.csv/launches.csv" "$LAUNCH_NS" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
per = {}
for r in sorted(rows, key=lambda r: int(r["start"])):
    per.setdefault(r["thread_id"], []).append(int(r["dur"] or 0))
out = []
for t in sorted(per, key=int):
    out.append(",".join(str(i) for i, d in enumerate(per[t]) if d > 0))
short = [d for ds in per.values() for d in ds if 0 < d < int(sys.argv[2])]
print(";".join(out) + (" short: %s" % short[:5] if short else ""))
PY
}

# what the rule gives for one thread of LAUNCHES launches: 1, 65, 129, ...
want=$(python3 -c "print(','.join(str(i) for i in range(1, $LAUNCHES, $PERIOD)))")
per_thread=$(((LAUNCHES - 2) / PERIOD + 1))
want_all=$(python3 -c "print(';'.join(['$want'] * $THREADS))")

record sampled --
check "sampled: every launch recorded" $((THREADS * LAUNCHES)) \
	"$(json "$TMP/sampled.json" 'd["launches"]["total"]')"
check "sampled: the 2nd launch of each thread and every ${PERIOD}th after it timed, >= 5 us" \
	"$want_all" "$(timed sampled)"
# statuses are kept for every launch or none: a failure known for the sample alone would set
# those launches apart (reports leave out calls known to have failed)
"$GPUREC" info --json "$TMP/sampled.trc" >"$TMP/sampled.info.json"
check "sampled: no launch carries a status (info: none ok, all unknown)" "0 $((THREADS * LAUNCHES))" \
	"$(json "$TMP/sampled.info.json" '"%d %d" % (d["calls"]["ok"], d["calls"]["status_unknown"])')"
check "sampled: the report's launch cost is the median of the sample" \
	"sampled $((THREADS * per_thread)) sampled $PERIOD True" \
	"$(json "$TMP/sampled.json" '" ".join(str(x) for x in (d["launches"]["launch_cost_source"],
		d["launches"]["launch_cost_samples"], d["launches"]["launch_timing"]["mode"],
		d["launches"]["launch_timing"]["sample_period"],
		d["launches"]["launch_timing"]["recorded"]))')"
# compensated for the probes, it stays near the simulator's 5 us (generous: a busy machine)
check "sampled: launch cost between 4 and 10 us" True \
	"$(json "$TMP/sampled.json" '4000 <= d["launches"]["launch_cost_ns"] <= 10000')"
check "sampled: the text says it was measured on a sample" 1 \
	"$(grep -c "measured on $((THREADS * per_thread)) sampled launches" "$TMP/sampled.txt")"

# raw stacks take the other way through the BPF side (events sent alone, stacks at the return)
record dwarf -- --call-graph dwarf,1024
check "dwarf stacks: the same launches timed" "$want_all" "$(timed dwarf)"

record all -- --launch-time
all=$(python3 -c "print(','.join(str(i) for i in range($LAUNCHES)))")
check "--launch-time: every launch timed" \
	"$(python3 -c "print(';'.join(['$all'] * $THREADS))")" "$(timed all)"
"$GPUREC" info --json "$TMP/all.trc" >"$TMP/all.info.json"
check "--launch-time: every launch carries its status" "$((THREADS * LAUNCHES)) 0" \
	"$(json "$TMP/all.info.json" '"%d %d" % (d["calls"]["ok"], d["calls"]["status_unknown"])')"
check "--launch-time: the report's launch cost is the median of all" \
	"all $((THREADS * LAUNCHES)) all" \
	"$(json "$TMP/all.json" '" ".join(str(x) for x in (d["launches"]["launch_cost_source"],
		d["launches"]["launch_cost_samples"], d["launches"]["launch_timing"]["mode"]))')"

# kernels before 6.12: launches at entry only, none timed, and the report says why
record nosession GPUREC_TEST_NO_UPROBE_SESSION=1 --
check "no sessions: every launch recorded, none timed" \
	"$((THREADS * LAUNCHES)) $(python3 -c "print(';'.join([''] * $THREADS))")" \
	"$(json "$TMP/nosession.json" 'd["launches"]["total"]') $(timed nosession)"
check "no sessions: the launch cost is an estimate, and the report says why" \
	"estimated none no uprobe sessions" \
	"$(json "$TMP/nosession.json" '" ".join(str(x) for x in (d["launches"]["launch_cost_source"],
		d["launches"]["launch_timing"]["mode"], d["launches"]["launch_timing"]["why_none"]))')"
check "no sessions: the text points to --launch-time" 1 \
	"$(grep -c "no launch was timed: no uprobe sessions" "$TMP/nosession.txt")"
exit $((failures > 0))
