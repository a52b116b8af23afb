#!/usr/bin/env bash
# The replay commands at scale (part of make bench): peak RSS per event and events per second of
# `gpurec report`, `info`, `diff` (both traces counted) and `export` (a 1 s window) on generated
# training-loop traces (tests/bench/bench_report.c writes them), each command a fresh process
# timed by GNU time's wall clock, CPU time and max RSS. Sizes: BENCH_REPLAY_EVENTS (default
# "10000000 100000000"); a size whose trace would not fit in /tmp, or whose writing would take
# more than BENCH_REPLAY_BUDGET_S (default 120 s, estimated from the first), is skipped, saying
# so.
set -u
cd "$(dirname "$0")/../.."
O=${O:-build}
GPUREC=${GPUREC:-$PWD/gpurec}
SIZES=${BENCH_REPLAY_EVENTS:-10000000 100000000}
BUDGET=${BENCH_REPLAY_BUDGET_S:-120}
JOBS=${BENCH_REPLAY_JOBS:-}
TMP=$(mktemp -d /tmp/gpurec-replay.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# measure LABEL EVENTS CMD...: one line "LABEL: X M events/s, Y B/event (peak RSS Z MiB)"
measure() {
	local label=$1 events=$2
	shift 2
	if ! /usr/bin/time -f '%e %M %U %S' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err"; then
		echo "  $label: failed: $(head -1 "$TMP/err")"
		return
	fi
	# the CPU rate (user + system) is the one to compare between builds on a shared machine
	awk -v l="$label" -v n="$events" '{s = $1 > 0 ? $1 : 0.01; c = $3 + $4 > 0 ? $3 + $4 : 0.01
		printf "  %-28s %6.1fM events/s  %5.1f B/event (peak RSS %.0f MiB)",
		l ":", n / s / 1e6, $2 * 1024 / n, $2 / 1024
		printf "  %6.1fM events/CPU s\n", n / c / 1e6}' "$TMP/time"
}

[ -x /usr/bin/time ] || { echo "  replay bench: /usr/bin/time missing (apt-get install time)"; exit 0; }
write_s_per_event=
for n in $SIZES; do
	free_kb=$(df -Pk /tmp | awk 'NR == 2 {print $4}')
	if [ $((n / 1000 * 2)) -gt "$free_kb" ]; then
		echo "  $n events: skipped, /tmp has $((free_kb / 1024)) MiB free"
		continue
	fi
	if [ -n "$write_s_per_event" ] &&
		awk -v n="$n" -v r="$write_s_per_event" -v b="$BUDGET" 'BEGIN {exit !(n * r > b)}'; then
		echo "  $n events: skipped, writing it would take about" \
			"$(awk -v n="$n" -v r="$write_s_per_event" 'BEGIN {printf "%.0f", n * r}') s" \
			"(budget $BUDGET s)"
		continue
	fi
	t0=$(date +%s.%N)
	"$O/tests/bench_report" -n "$n" -r 1 -k "$TMP/t.trc" >/dev/null 2>&1 || {
		echo "  $n events: could not write the trace"
		continue
	}
	write_s_per_event=$(awk -v a="$t0" -v b="$(date +%s.%N)" -v n="$n" 'BEGIN {print (b - a) / n}')
	events=$("$GPUREC" info --json "$TMP/t.trc" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(v for k, v in d["events_by_kind"].items() if k != "stack"))')
	echo "  -- $events events ($(du -m "$TMP/t.trc" | cut -f1) MiB trace)"
	for j in ${JOBS:-""}; do
		jopt=()
		[ -n "$j" ] && jopt=(-j "$j") && echo "  with -j $j"
		measure "report" "$events" "$GPUREC" report "${jopt[@]}" "$TMP/t.trc"
		measure "info" "$events" "$GPUREC" info "${jopt[@]}" "$TMP/t.trc"
		measure "diff (two copies)" $((events * 2)) "$GPUREC" diff "${jopt[@]}" "$TMP/t.trc" "$TMP/t.trc"
		measure "export 1 s window" "$events" "$GPUREC" export "${jopt[@]}" --force --from 1 --to 2 \
			-o "$TMP/x.json" "$TMP/t.trc"
	done
	rm -f "$TMP/t.trc" "$TMP/x.json"
done
