#!/usr/bin/env bash
# Why and where a traced thread blocks (SCHED stack, syscall, fd_kind; docs/FORMAT.md): the loop
# thread of tests/progs/blocked.c, on the GPU simulator so that its CUDA call succeeds, blocks
# ROUNDS times each on a mutex held by its second thread, on a pipe fed by a child, on O_DIRECT
# reads of a file, in nanosleep, and once waiting for the child. Checked: every switch-out while
# sleeping in the program's window, counted against the kernel's own voluntary_ctxt_switches of
# the thread (read by the program itself), each with its system call, fd kind and the program's
# own frames; the wakers of the mutex and pipe waits with theirs; info's counts by reason; an
# older trace reads as reason unknown.
. "$(dirname "$0")/lib.sh"
need_root record_blocked
SAMPLES=${SAMPLES:-$PWD/$O/samples}
TOOL=${TOOL:-$PWD/$O/tests/tool_trace_blocked}
N=12

mkdir -p "$TMP/data"
LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/b.trc" -- \
	"$PROGS/blocked" $N "$TMP/data" >"$TMP/out" 2>"$TMP/err"
check "record exits 0" 0 $?
loop=$(awk '$1 == "loop" {print $2}' "$TMP/out")
holder=$(awk '$1 == "holder" {print $2}' "$TMP/out")
child=$(awk '$1 == "child" {print $2}' "$TMP/out")
read -r _ t0 t1 before after < <(grep '^window ' "$TMP/out")
[ -n "$loop" ] && [ -n "$holder" ] && [ -n "$child" ] && [ -n "$after" ] &&
	ok "program ran (loop $loop, holder $holder, child $child)" ||
	not_ok "program output: $(cat "$TMP/out" "$TMP/err" | tail -5 | paste -sd' ')"
grep -q ' 0 events lost' "$TMP/err" && ok "no events lost" || not_ok "losses: $(tail -3 "$TMP/err")"
"$TOOL" "$TMP/b.trc" >"$TMP/b.txt" || not_ok "tool_trace_blocked failed"
# the loop thread's switch-outs while sleeping in the window: "SYSCALL FD_KIND FRAMES"
awk -v l="$loop" -v t0="$t0" -v t1="$t1" '$1 == "blocked" && $2 == l && $5 >= t0 && $5 <= t1 {
	print $3, $4, $6}' "$TMP/b.txt" >"$TMP/loop.txt"
check "every sleep of the loop thread in the window is recorded (voluntary_ctxt_switches)" \
	$((after - before)) "$(wc -l <"$TMP/loop.txt")"

# count PATTERN: lines of loop.txt matching an awk regex
count() { awk "$1" "$TMP/loop.txt" | wc -l; }
futex=$(count '$1 == "futex"')
[ "$futex" -ge $N ] && ok "at least $N futex waits ($futex)" || not_ok "$futex futex waits, expected >= $N"
check "each futex wait: fd kind none, stack __pthread_mutex_lock <- wait_for_lock <- main" "$futex" \
	"$(count '$1 == "futex" && $2 == "none" && $3 ~ /(^|;)__pthread_mutex_lock;wait_for_lock;main;/')"
check "pipe reads: read, pipe, __read <- consume <- main, one per byte" $N \
	"$(count '$1 == "read" && $2 == "pipe" && $3 ~ /^__read;consume;main;/')"
check "no other read of the loop thread" $N "$(count '$1 == "read"')"
# whether an O_DIRECT read sleeps is the disk's doing (a host may serve it before the guest
# waits): the kernel's count of the loop thread's sleeps around the reads says how many did
disk=$(count '$1 == "pread64"')
read -r _ disk_before disk_after < <(grep '^disk ' "$TMP/out")
check "O_DIRECT reads that slept: as many as the kernel counted in them" \
	$((disk_after - disk_before)) "$disk"
if [ "$disk" -ge 1 ]; then
	check "each: pread64 of a file, __libc_pread <- read_disk <- main" "$disk" \
		"$(count '$1 == "pread64" && $2 == "file" && $3 ~ /^__libc_pread;read_disk;main;/')"
else
	ok "each: pread64 of a file, __libc_pread <- read_disk <- main # SKIP no read slept"
fi
check "naps: clock_nanosleep, clock_nanosleep <- __nanosleep <- nap <- main" $N \
	"$(count '$1 == "clock_nanosleep" && $2 == "none" && $3 ~ /^clock_nanosleep;__nanosleep;nap;main;/')"
check "the child wait: wait4 <- reap <- main, once" 1 \
	"$(count '$1 == "wait4" && $3 ~ /^wait4;reap;main;/')"

# wakers: "woken WAKEE WAKER_PID WAKER_TID TS FRAMES"
woken() { awk -v l="$loop" -v t0="$t0" -v t1="$t1" \
	"\$1 == \"woken\" && \$2 == l && \$5 >= t0 && \$5 <= t1 && ($1)" "$TMP/b.txt" | wc -l; }
check "the holder wakes the loop thread once per round, in holder_release <- holder_main" $N \
	"$(woken "\$4 == $holder && \$6 ~ /;holder_release;holder_main;/")"
check "the holder's wakes all have that stack" $N "$(woken "\$4 == $holder")"
check "the child feeds the pipe: woken by it in produce_one <- producer <- main" $N \
	"$(woken "\$3 == $child && \$6 ~ /^__write;produce_one;producer;main;/")"
# the child's exit wakes the parent after the exit has unmapped its memory: the waker is named,
# its stack is the exit call's frame alone
check "the child's exit wakes the waiting loop thread" 1 "$(woken "\$3 == $child && \$6 !~ /producer/")"
# a timer's or a disk's wakeup runs in whatever task it interrupts (the child, spinning in
# system calls): none of those is taken for the child's doing
check "the child woke the loop thread exactly as often as it fed it, and at its exit" $((N + 1)) \
	"$(woken "\$3 == $child")"
check "no other waker's stack" $((2 * N + 1)) "$(woken 1)"

# info: the same counts by reason, text and JSON
"$GPUREC" info --json "$TMP/b.trc" >"$TMP/info.json" || not_ok "info --json failed"
check "info JSON: reasons known" True "$(json "$TMP/info.json" 'd["blocked"]["known"]')"
[ "$(json "$TMP/info.json" 'd["blocked"]["by_reason"]["futex"]')" -ge "$futex" ] &&
	ok "info JSON: futex waits counted" || not_ok "info JSON futex: $(json "$TMP/info.json" 'd["blocked"]')"
[ "$(json "$TMP/info.json" 'd["blocked"]["fd_by_kind"]["pipe"]')" -ge $N ] &&
	ok "info JSON: pipe reads counted" || not_ok "info JSON pipe: $(json "$TMP/info.json" 'd["blocked"]')"
[ "$(json "$TMP/info.json" 'd["blocked"]["by_reason"]["sleep"]')" -ge $N ] &&
	ok "info JSON: sleeps counted" || not_ok "info JSON sleep: $(json "$TMP/info.json" 'd["blocked"]')"
check "info JSON: the reasons sum to the total" "$(json "$TMP/info.json" 'd["blocked"]["total"]')" \
	"$(json "$TMP/info.json" 'sum(d["blocked"]["by_reason"].values())')"
"$GPUREC" info "$TMP/b.trc" >"$TMP/info.txt" || not_ok "info failed"
grep -Eq '^  futex +[0-9]+$' "$TMP/info.txt" && grep -Eq '^  fd read/write +[0-9]+  .*pipe [0-9]+' "$TMP/info.txt" &&
	grep -Eq '^  child wait +[0-9]+$' "$TMP/info.txt" && ok "info text: blocked spans by reason" ||
	not_ok "info text: $(sed -n '/^blocked/,/^$/p' "$TMP/info.txt" | paste -sd'|')"

# a trace of format 1.1 (no reason columns): opens, and says the reason is unknown
OLD=$(dirname "$0")/../data/golden/starved.trc
"$TOOL" "$OLD" >"$TMP/old.txt" || not_ok "older trace does not open"
check "older trace: no stack, no system call, fd kind none" 0 \
	"$(awk '$1 == "woken" || ($1 == "blocked" && ($3 != "-" || $4 != "none" || $6 != "-"))' "$TMP/old.txt" | wc -l)"
"$GPUREC" info --json "$OLD" >"$TMP/old.json" || not_ok "info of an older trace failed"
check "older trace: info says the reasons are unknown" "False None" \
	"$(json "$TMP/old.json" 'd["blocked"]["known"]') $(json "$TMP/old.json" 'd["blocked"]["by_reason"]')"
exit $failures
