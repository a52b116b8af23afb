#!/usr/bin/env bash
# Signals reach the traced command as often as they would without gpurec: once. A kill of the
# process group (kill -INT -PGID, job schedulers) reaches the command by itself and must not be
# forwarded again; coreutils timeout kills gpurec and then the group; a signal to gpurec's pid
# alone is forwarded. tests/progs/sigcount counts what it receives ("INT TERM HUP"), waiting 1 s
# after the first so a duplicate has time to arrive.
# A background job of this script starts with SIGINT ignored (as any shell without job control
# does), which gpurec keeps ignoring: `dfl` starts gpurec as an interactive shell's job would be.
. "$(dirname "$0")/lib.sh"
need_root record_signals

count=$PROGS/sigcount
dfl=(env --default-signal=INT)

# wait (a bound, not a timing: 60 s) until the command says its handlers are in place
ready() {
	for _ in $(seq 1200); do
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
		# timeout's own timer is what SIGALRM is: sent once the command is ready, it
		# times out then, however long the recorder took to start (a fixed 2 s timed out
		# before the command had its handlers on a busy machine: it died of the signal)
		"${dfl[@]}" timeout -s "${how#timeout-}" 600 "$GPUREC" record -o "$TMP/s.trc" -- \
			"$count" "$TMP/ready" "$TMP/out" 1 2>/dev/null &
		rec=$!
		ready && kill -ALRM "$rec"
		wait $rec
		;;
	group-*)
		# gpurec leads its own process group, as under a job scheduler
		"${dfl[@]}" setsid "$GPUREC" record -o "$TMP/s.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>/dev/null &
		rec=$!
		ready && kill -"${how#group-}" -- -"$rec"
		wait $rec
		;;
	pid-*)
		"${dfl[@]}" "$GPUREC" record -o "$TMP/s.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>/dev/null &
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
		"${dfl[@]}" setsid "$GPUREC" record -d 0.1 -o "$TMP/d.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>"$TMP/d.err" &
	else
		"${dfl[@]}" "$GPUREC" record -d 0.1 -o "$TMP/d.trc" -- "$count" "$TMP/ready" "$TMP/out" 1 2>"$TMP/d.err" &
	fi
	rec=$!
	for _ in $(seq 1200); do
		grep -q "stopped recording" "$TMP/d.err" && break
		sleep 0.05
	done
	ready && if [ $how = group ]; then kill -INT -- -"$rec"; else kill -INT "$rec"; fi
	wait $rec
	check "-d, then kill -INT to the $how: the command got one SIGINT" "1 0 0" "$(cat "$TMP/out" 2>/dev/null)"
done

# the command starts with the dispositions and mask gpurec was started with (nohup, trap '',
# a blocked signal), not gpurec's own handlers: the same lines as without gpurec
sig_lines() { env --ignore-signal=HUP,INT,TERM --block-signal=USR1 "$@" grep -E '^Sig(Ign|Blk)' /proc/self/status; }
check "the command inherits ignored signals and the signal mask" "$(sig_lines)" \
	"$(sig_lines "$GPUREC" record -o "$TMP/m.trc" -- 2>/dev/null)"
# the bits env set (whatever else the caller of the tests ignores or blocks is inherited alike)
ign=$(sig_lines | sed -n 's/^SigIgn:[[:space:]]*//p')
blk=$(sig_lines | sed -n 's/^SigBlk:[[:space:]]*//p')
check "... which ignore HUP, INT, TERM and block USR1" "4003 200" \
	"$(printf '%x %x' $((0x$ign & 0x4003)) $((0x$blk & 0x200)))"

# nohup, then a logout (SIGHUP to the whole group): the command goes on to its end, and so
# does the recording. The command waits for $TMP/go after saying it runs; the group's SIGHUP
# is pending for it before go exists, so a command that does not ignore it dies first (129).
rm -f "$TMP/ready" "$TMP/go"
setsid nohup "$GPUREC" record -o "$TMP/h.trc" -- sh -c \
	"touch $TMP/ready; i=0; while [ ! -e $TMP/go ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done; exit 7" \
	>/dev/null 2>"$TMP/h.err" &
rec=$!
ready && kill -HUP -- -"$rec"
touch "$TMP/go"
wait $rec
check "nohup, SIGHUP to the group: the command ran to its end (status 7)" 7 $?
"$GPUREC" info --json "$TMP/h.trc" >"$TMP/h.json" 2>/dev/null
check "nohup, SIGHUP to the group: the trace is complete, with the command's status" "True 7" \
	"$(json "$TMP/h.json" 'd["complete"], d["exit_status"]' | tr -d '(),')"

# a stop signal before the command started (strace sends SIGINT at the recorder's first bpf(2)
# call, while it loads its BPF side): nothing runs, the previous trace stays as it was, and the
# status is a shell's for that signal. LeakSanitizer cannot run under ptrace (it exits 1 with
# "does not work under ptrace"), so the sanitizer build's leak check is off for these runs only.
# A shell without job control starts a background job with SIGINT ignored, and the recorder keeps
# an ignored SIGINT ignored (as nohup'd jobs need): the runs reset it to its default first, so
# that the test means the same started from a terminal or from `make test &`.
if command -v strace >/dev/null; then
	echo "previous recording" >"$TMP/p.trc"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		env --default-signal=INT,TERM \
		strace -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGINT:when=1 \
		"$GPUREC" record -o "$TMP/p.trc" -- touch "$TMP/ran" 2>"$TMP/p.err"
	check "SIGINT before the command started: status 130" 130 $?
	check "... said so" "gpurec record: interrupted by SIGINT before the command started; nothing was run, no trace written" \
		"$(cat "$TMP/p.err")"
	[ ! -e "$TMP/ran" ] && ok "... the command did not run" || not_ok "the command ran"
	check "... the previous trace is untouched, no .old" "previous recording no .old" \
		"$(cat "$TMP/p.trc") $([ -e "$TMP/p.trc.old" ] && echo .old || echo no .old)"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		env --default-signal=INT,TERM \
		strace -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGTERM:when=1 \
		"$GPUREC" record -o "$TMP/p.trc" -- touch "$TMP/ran" 2>/dev/null
	check "SIGTERM before the command started: status 143" 143 $?
else
	ok "stop signal before the command started # SKIP strace not installed (make deps)"
fi
exit $failures
