#!/usr/bin/env bash
# `make test` on a busy machine: runs it ROUNDS times in a row (argument or STRESS_ROUNDS,
# default 10) while a `make -j2` of the whole project (every test binary, sample and program,
# from clean each time) runs beside it in a loop, in its own build dir (STRESS_O, default
# build-stress), so that every test shares the CPUs with compilers the whole time. A test that
# passes only on a quiet machine fails here.
# Prints one line per run ("run N/ROUNDS: pass|FAIL ...", with the failing TAP lines) and a final
# line "stress: P of ROUNDS runs passed, B background builds"; exits non-zero if any run failed.
# Each run's full output is kept in $O/stress/run-N.log. Root, as `make test`.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
rounds=${1:-${STRESS_ROUNDS:-10}}
load_o=${STRESS_O:-build-stress}
logs=$O/stress
case "$rounds" in
'' | *[!0-9]* | 0)
	echo "usage: tests/stress.sh [ROUNDS]  (ROUNDS: a positive number, default 10)" >&2
	exit 2
	;;
esac
if [ "$load_o" = "$O" ]; then
	echo "stress: the background build needs a build dir of its own (STRESS_O != O)" >&2
	exit 2
fi

# Everything the tests run is built first, on a quiet machine, so that every round tests and
# none builds.
make -s -j2 O="$O" test-bins || exit 1
mkdir -p "$logs"
rm -f "$logs"/run-*.log "$logs"/load.log

# The background build: its own session (process group), so that stopping it stops its
# compilers too. Each completed build appends a line to load.log.
setsid bash -c '
	while :; do
		make -s O="$1" clean >/dev/null 2>&1
		if make -s -j2 O="$1" test-bins >/dev/null 2>&1; then
			echo built >>"$2"
		else
			echo failed >>"$2"
		fi
	done' stress-load "$load_o" "$logs/load.log" &
load_pid=$!
stop_load() {
	kill -- -"$load_pid" 2>/dev/null
	wait "$load_pid" 2>/dev/null
}
trap stop_load EXIT
trap 'exit 130' INT TERM

passed=0
for i in $(seq 1 "$rounds"); do
	log=$logs/run-$i.log
	start=$(date +%s)
	make -s O="$O" test >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
	[ -n "$summary" ] || summary=$(tail -1 "$log")
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "run $i/$rounds: pass ($summary, ${secs}s, load average $(cut -d' ' -f1 /proc/loadavg))"
	else
		echo "run $i/$rounds: FAIL ($summary, ${secs}s, load average $(cut -d' ' -f1 /proc/loadavg)); $log:"
		grep -E '^ *not ok' "$log" | sed 's/^ */    /'
	fi
done
builds=$(grep -c built "$logs/load.log" 2>/dev/null)
broken=$(grep -c failed "$logs/load.log" 2>/dev/null)
echo "stress: $passed of $rounds runs passed, ${builds:-0} background builds (${broken:-0} failed)"
[ "$passed" -eq "$rounds" ]
