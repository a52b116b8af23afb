#!/usr/bin/env bash
# Many ranks (part of make bench): BENCH_RANKS (512) synthetic rank traces, 8 a node, one
# straggler (tests/bench/bench_ranks.c), reported as one job trace by trace (`report DIR/`): its
# time and peak RSS with one worker and with every CPU, against one trace's report times the
# number of traces (linear: ~1x with one worker), and whether the straggler found is the planted
# one. Then 8 of those traces through the two routes: one model of all 8 (memory grows with the
# sum) and trace by trace (--job).
set -u
cd "$(dirname "$0")/../.."
O=${O:-build}
GPUREC=${GPUREC:-$PWD/gpurec}
NR=${BENCH_RANKS:-512}
STEPS=${BENCH_RANK_STEPS:-2000}
SLOW=$((NR * 3 / 7))
TMP=$(mktemp -d /tmp/gpurec-ranks.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

[ -x /usr/bin/time ] || { echo "  ranks bench: /usr/bin/time missing (apt-get install time)"; exit 0; }
mkdir "$TMP/job"
events=$("$O/tests/bench_ranks" "$TMP/job" "$NR" "$STEPS" "$SLOW" | awk '{print $2}') || {
	echo "  could not write the traces"
	exit 0
}
echo "  $NR traces, $events events ($(du -sm "$TMP/job" | cut -f1) MiB), rank $SLOW 1.5x slower"
# measure LABEL CMD...: "seconds KiB" of a fresh process, and a line
measure() {
	local label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" || {
		echo "  $label: failed: $(head -1 "$TMP/err")"
		return 1
	}
	read -r secs kib <"$TMP/time"
	printf '  %-34s %7.2f s  peak RSS %6.1f MiB\n' "$label:" "$secs" "$(awk -v k="$kib" 'BEGIN {print k / 1024}')"
}
one=$(ls "$TMP/job" | head -1)
# one trace's report, timed to the ms (best of 5 fresh processes)
best=$(python3 -c 'import subprocess, sys, time
t = []
for _ in range(5):
    a = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t.append(time.perf_counter() - a)
print("%.4f" % min(t))' "$GPUREC" report -q -j 1 --job "$TMP/job/$one")
printf '  %-34s %7.4f s  (x %d = %.2f s)\n' "one trace's report (best of 5):" "$best" "$NR" "$(awk -v t="$best" -v n="$NR" 'BEGIN {print t * n}')"
measure "report DIR/, -j 1" "$GPUREC" report -q -j 1 "$TMP/job/" &&
	printf '  %-34s %7.2f x (one trace x %d; target ~1: linear)\n' "  against one trace's x $NR:" "$(awk -v s="$secs" -v t="$best" -v n="$NR" 'BEGIN {print s / (t * n)}')" "$NR"
measure "report DIR/, every CPU ($(nproc))" "$GPUREC" report -q --json "$TMP/job/" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["straggler"] or {}
print("  straggler found: rank %s, planted: rank %s (%s), %.2fx" % (s.get("rank"), sys.argv[2],
      "right" if s.get("rank") == int(sys.argv[2]) else "WRONG", s.get("ratio", 0)))' "$TMP/out" "$SLOW"
# 8 traces: one model against trace by trace
set -- $(ls "$TMP/job" | head -8)
eight=()
for f; do eight+=("$TMP/job/$f"); done
measure "8 traces as one model" "$GPUREC" report -q "${eight[@]}"
measure "8 traces trace by trace (--job)" "$GPUREC" report -q --job "${eight[@]}"
exit 0
