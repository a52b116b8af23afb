#!/usr/bin/env bash
# --call-graph dwarf: registers + raw stack bytes at each event, unwound with DWARF CFI while
# recording. A program built without frame pointers (tests/progs/nofp.cu: main -> outer ->
# middle -> inner -> launch and copy) loses its callers to the frame-pointer walk and keeps them
# with dwarf; on frame-pointer code both agree; the raw copies are kept (RAWSTACK records).
. "$(dirname "$0")/lib.sh"
need_root record_dwarf

STACKS=${STACKS:-$PWD/$O/tests/tool_trace_stacks}
N=100

info() { "$GPUREC" info --json "$1" >"$1.json" 2>"$1.err" || not_ok "info $1: $(cat "$1.err")"; }
# stacks with unresolved frames (libc's local symbols, at addresses ASLR moves) as "?"
stacks() { "$STACKS" "$1" | sed -E 's/0x[0-9a-f]+/?/g'; }
# prefix PREFIX LINE: PREFIX when LINE starts with it, else LINE
prefix() { if [ "${2:0:${#1}}" = "$1" ]; then echo "$1"; else echo "$2"; fi; }

launch_stub='__device_stub__Z11deep_kernelPi(int*)'

# frame pointers: the innermost frame only (outer keeps its loop bound in rbp). --no-sched: the
# checks are about the launches' stacks. A CI run under the sanitizers once stored a third stack
# ending early in libcudart, not reproduced since; the one source of stacks that depends on the
# machine is a switch of the thread blocking (a page-cache miss while libcudart loads)
"$GPUREC" record --no-sched --call-graph fp -o "$TMP/fp.trc" -- "$PROGS/nofp" $N >"$TMP/fp.log" 2>&1
check "fp: recorded" 0 $?
check "fp: the callers are lost" "$N: $launch_stub
$N: inner" "$(stacks "$TMP/fp.trc")"

# rbp pointing at words that are no code (nofp N fakefp: 0x3eaba2513f6961b9, 0x7f0000001000 past
# inner): the frame-pointer walk takes them for frames; the recorder ends each stack before the
# first and names the binary whose frame was the last good one
"$GPUREC" record --no-sched --call-graph fp -o "$TMP/fake.trc" -- "$PROGS/nofp" $N fakefp >/dev/null 2>"$TMP/fake.log"
check "fp, fake frames: recorded" 0 $?
check "fp, fake frames: STACK records end at the last frame in code" "1 1" \
	"$("$STACKS" --stored "$TMP/fake.trc" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')"
check "fp, fake frames: the stacks replay reads" "$N: $launch_stub
$N: inner" "$(stacks "$TMP/fake.trc")"
check "fp, fake frames: record names the binary once" \
	"gpurec record: stacks end early in 1 binary without frame pointers: $PROGS/nofp: --call-graph dwarf gives their full stacks" \
	"$(grep 'stacks end early' "$TMP/fake.log")"
check "fp, nofp without fake frames: nothing to say" "" "$(grep 'stacks end early' "$TMP/fp.log")"
# a trace recorded before the recorder cut them (tests/data/old/nofp_fakefp.trc, N=10): the
# three frames are stored, replay ends each stack at the frame outside every mapping
old=tests/data/old/nofp_fakefp.trc
check "old trace: three frames stored" "3 3" "$("$STACKS" --stored "$old" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')"
check "old trace: replay ends the stacks at the stack words" "10: $launch_stub
10: inner" "$("$STACKS" "$old")"

# dwarf: every caller, down to _start, for the launch (entry probe) and the copy (return probe)
"$GPUREC" record -v --call-graph dwarf -o "$TMP/dw.trc" -- "$PROGS/nofp" $N >"$TMP/dw.log" 2>&1
check "dwarf: recorded" 0 $?
info "$TMP/dw.trc"
stacks "$TMP/dw.trc" >"$TMP/dw.stacks"
check "dwarf: two distinct stacks" 2 "$(wc -l <"$TMP/dw.stacks")"
want="$N: $launch_stub;inner;middle;outer;main;"
check "dwarf: launch stack, innermost first" "$want" "$(prefix "$want" "$(sed -n 1p "$TMP/dw.stacks")")"
want="$N: inner;middle;outer;main;"
check "dwarf: copy stack (return probe)" "$want" "$(prefix "$want" "$(sed -n 2p "$TMP/dw.stacks")")"
check "dwarf: both reach the outermost frame" "_start _start" \
	"$(grep -o '_start$' "$TMP/dw.stacks" | tr '\n' ' ' | sed 's/ $//')"
check "dwarf: launches" $N "$(json "$TMP/dw.trc.json" 'd["launches"]')"
check "dwarf: events with a stack" $((2 * N)) "$(json "$TMP/dw.trc.json" 'd["events_by_kind"]["stack"]')"
check "dwarf: no lost events" 0 "$(json "$TMP/dw.trc.json" 'd["lost_events"]')"
check "dwarf: call graph in the session" "dwarf,8192" "$(json "$TMP/dw.trc.json" 'd["call_graph"]')"
grep -q "unwound $((2 * N)) stacks" "$TMP/dw.log" && ok "dwarf: -v reports the unwinding cost" ||
	not_ok "dwarf: no unwinding summary: $(cat "$TMP/dw.log")"

# the raw copies: one per event with a stack, 8 registers + flags, the launches taken at entry
# but for those timed by sample (the 2nd and every 64th after it: their stacks are copied at the
# return, as a copy's); each cut after the last byte the unwinder read, within the 8192 copied
raw=$("$STACKS" --raw "$TMP/dw.trc")
check "dwarf: RAWSTACK records, registers, entry flags" \
	"rawstack $((2 * N)) regs 72 entry $((N - (N - 2) / 64 - 1))" \
	"$(echo "$raw" | awk '{print $1, $2, $3, $4, $9, $10}')"
max=$(echo "$raw" | awk '{print $8}')
min=$(echo "$raw" | awk '{print $6}')
[ "$min" -ge 64 ] && [ "$max" -le 8192 ] && ok "dwarf: raw stack sizes in 64..8192 ($min..$max)" ||
	not_ok "dwarf: raw stack sizes $min..$max"

# a smaller copy: the size is honoured and unwinding stops where the copy ends
"$GPUREC" record --call-graph dwarf,256 -o "$TMP/d256.trc" -- "$PROGS/nofp" $N >/dev/null 2>&1
info "$TMP/d256.trc"
check "dwarf,256: call graph in the session" "dwarf,256" "$(json "$TMP/d256.trc.json" 'd["call_graph"]')"
max=$("$STACKS" --raw "$TMP/d256.trc" | awk '{print $8}')
[ "$max" -gt 0 ] && [ "$max" -le 256 ] && ok "dwarf,256: raw stacks of at most 256 bytes ($max)" ||
	not_ok "dwarf,256: raw stacks up to $max bytes"
check "dwarf,256: the same two stacks, cut short of _start" "2 0" \
	"$(stacks "$TMP/d256.trc" | wc -l) $(stacks "$TMP/d256.trc" | grep -c '_start')"

# the executable deletes itself as it starts: the recorder unwinds with the file it holds
cp "$PROGS/nofp" "$TMP/nofp-deleted"
"$GPUREC" record --call-graph dwarf -o "$TMP/del.trc" -- "$TMP/nofp-deleted" 10 unlink >/dev/null 2>&1
check "deleted executable: recorded" 0 $?
[ -e "$TMP/nofp-deleted" ] && not_ok "deleted executable: still there" || ok "deleted executable: gone"
want="10: $launch_stub;inner;middle;outer;main;"
check "deleted executable: stacks still unwound" "$want" \
	"$(prefix "$want" "$(stacks "$TMP/del.trc" | sed -n 1p)")"

# frame-pointer code (the main thread, and worker threads): each fp stack is where the dwarf
# stack of the same events starts (fp stops in libc, which has no frame pointers)
for prog in "launches 10" "threads"; do
	name=${prog%% *}
	"$GPUREC" record --call-graph fp -o "$TMP/$name-fp.trc" -- $PROGS/$prog >/dev/null 2>&1
	"$GPUREC" record --call-graph dwarf -o "$TMP/$name-dw.trc" -- $PROGS/$prog >/dev/null 2>&1
	stacks "$TMP/$name-fp.trc" >"$TMP/$name-fp.stacks"
	stacks "$TMP/$name-dw.trc" >"$TMP/$name-dw.stacks"
	n=$(wc -l <"$TMP/$name-fp.stacks")
	[ "$n" -gt 0 ] && [ "$n" -eq "$(wc -l <"$TMP/$name-dw.stacks")" ] &&
		ok "$name: as many distinct stacks with fp as with dwarf ($n)" ||
		not_ok "$name: $n fp stacks, $(wc -l <"$TMP/$name-dw.stacks") dwarf stacks"
	bad=$(paste -d '\n' "$TMP/$name-fp.stacks" "$TMP/$name-dw.stacks" |
		awk 'NR % 2 { fp = $0; next } index($0, fp ";") != 1 { n++ } END { print n + 0 }')
	check "$name: every fp stack starts its dwarf stack" 0 "$bad"
done

# SIZE is checked before anything runs
for bad in 100 32 16392 0 x ""; do
	"$GPUREC" record --call-graph "dwarf,$bad" -o "$TMP/bad.trc" -- true 2>"$TMP/err"
	check "dwarf,$bad is refused" 2 $?
	grep -q "multiple of 8 from 64 to 16384" "$TMP/err" && ok "dwarf,$bad: the reason is given" ||
		not_ok "dwarf,$bad: message: $(cat "$TMP/err")"
done
[ ! -e "$TMP/bad.trc" ] && ok "no trace written for a bad SIZE" || not_ok "bad SIZE wrote a trace"
"$GPUREC" record --help | grep -q "dwarf\[,SIZE\]" && ok "--help documents dwarf[,SIZE]" ||
	not_ok "--help does not mention dwarf[,SIZE]"
exit $failures
