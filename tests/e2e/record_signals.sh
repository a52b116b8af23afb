#!/usr/bin/env bash
# Signals reach the traced command as often as they would without gpurec: once. A kill of the
# process group (kill -INT -PGID, job schedulers) reaches the command by itself and must not be
# forwarded again; coreutils timeout kills gpurec and then the group; a signal to gpurec's pid
# alone is forwarded. tests/progs/sigcount counts what it receives ("INT TERM HUP"), waiting 1 s
# after the first so a duplicate has time to arrive.
. "$(dirname "$0")/lib.sh"
need_root record_signals

count=$PROGS/sigcount

# wait (a bound, not a timing) until the command says its handlers are in place
ready() {
	for _ in $(seq 300); do
		[ -f "$TMP/ready" ] && return 0
		sleep 0.05
	done
	return 1
}

# run NAME EXPECTED HOW: record sigcount in the background, signal it as HOW says, compare
trial() {
	local name=$1 expected=$2 how=$3 rec
	rm -f "$TMP/ready" "$TMP/out"
	case $how in
	timeout-*)
		timeout -s "${how#timeout-}" 2 "$GPUREC" record -o "$TMP/s.trc" -- \
			"$count" "$TMP/ready" "$TMP/out" 1 2>/dev/null
		;;
	group-*)
		# gpurec leads its own process group, as under a job scheduler
		setsid "$GPUREC" record -o "$TMP/s.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>/dev/null &
		rec=$!
		ready && kill -"${how#group-}" -- -"$rec"
		wait $rec
		;;
	pid-*)
		"$GPUREC" record -o "$TMP/s.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>/dev/null &
		rec=$!
		ready && kill -"${how#pid-}" "$rec"
		wait $rec
		;;
	esac
	check "$name" "$expected" "$(cat "$TMP/out" 2>/dev/null)"
}

for i in 1 2 3; do
	trial "timeout -s INT: the command got one SIGINT (trial $i)" "1 0 0" timeout-INT
done
trial "timeout (SIGTERM): the command got one SIGTERM" "0 1 0" timeout-TERM
for i in 1 2; do
	trial "kill -INT -PGID: the command got one SIGINT (trial $i)" "1 0 0" group-INT
done
trial "kill -HUP -PGID: the command got one SIGHUP" "0 0 1" group-HUP
for i in 1 2; do
	trial "kill -INT to the recorder alone: forwarded once (trial $i)" "1 0 0" pid-INT
done
trial "kill -TERM to the recorder alone: forwarded once" "0 1 0" pid-TERM

# after -d the recording has stopped but gpurec waits for the command: same rules
for how in group pid; do
	rm -f "$TMP/ready" "$TMP/out" "$TMP/d.err"
	if [ $how = group ]; then
		setsid "$GPUREC" record -d 0.1 -o "$TMP/d.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>"$TMP/d.err" &
	else
		"$GPUREC" record -d 0.1 -o "$TMP/d.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>"$TMP/d.err" &
	fi
	rec=$!
	for _ in $(seq 300); do
		grep -q "stopped recording" "$TMP/d.err" && break
		sleep 0.05
	done
	ready && if [ $how = group ]; then kill -INT -- -"$rec"; else kill -INT "$rec"; fi
	wait $rec
	check "-d, then kill -INT to the $how: the command got one SIGINT" "1 0 0" "$(cat "$TMP/out" 2>/dev/null)"
done
exit $failures
