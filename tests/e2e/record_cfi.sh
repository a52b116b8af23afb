#!/usr/bin/env bash
# Default stacks (--call-graph cfi): walked in BPF by unwind tables the recorder builds from each
# binary's .eh_frame. Programs built -O2 without frame pointers keep every caller, exactly:
# tests/progs/nofp.cu with the shared runtime and with nvcc's default static one (cudart's code
# in the executable), and a library without frame pointers between the user's code and
# libcudart (nofp_libmain -> libnofp_lib.so). A library without unwind tables ends the walk,
# and record names it.
. "$(dirname "$0")/lib.sh"
need_root record_cfi

STACKS=${STACKS:-$PWD/$O/tests/tool_trace_stacks}
N=20

info() { "$GPUREC" info --json "$1" >"$1.json" 2>"$1.err" || not_ok "info $1: $(cat "$1.err")"; }
# libc's __libc_start_call_main is a local symbol at an address ASLR moves: "?"
stacks() { "$STACKS" "$1" | sed -E 's/0x[0-9a-f]+/?/g'; }

launch_stub='__device_stub__Z11deep_kernelPi(int*)'
libc_tail='?;__libc_start_main;_start'

for prog in nofp nofp_static; do
	"$GPUREC" record -o "$TMP/$prog.trc" -- "$PROGS/$prog" $N >"$TMP/$prog.log" 2>&1
	check "$prog: recorded" 0 $?
	info "$TMP/$prog.trc"
	check "$prog: call graph in the session" "cfi" "$(json "$TMP/$prog.trc.json" 'd["call_graph"]')"
	check "$prog: launch (entry probe) and copy (return probe), every caller" \
		"$N: $launch_stub;inner;middle;outer;main;$libc_tail
$N: inner;middle;outer;main;$libc_tail" "$(stacks "$TMP/$prog.trc")"
	check "$prog: no lost events" 0 "$(json "$TMP/$prog.trc.json" 'd["lost_events"]')"
	check "$prog: nothing to warn about" "" "$(grep 'stacks end early' "$TMP/$prog.log")"
done

# the frame-pointer walk of the same program loses the callers: what the tables bring
"$GPUREC" record --call-graph fp -o "$TMP/fp.trc" -- "$PROGS/nofp" $N >/dev/null 2>&1
check "nofp, --call-graph fp: callers lost" "$N: $launch_stub
$N: inner" "$(stacks "$TMP/fp.trc")"

# -v: what building the tables cost
"$GPUREC" record -v -o "$TMP/v.trc" -- "$PROGS/nofp" 1 >"$TMP/v.log" 2>&1
grep -qE "unwind tables of [0-9]+ binaries, [0-9]+ rows, built in" "$TMP/v.log" &&
	ok "-v: the tables' cost" || not_ok "-v: no table summary: $(grep -v probed "$TMP/v.log")"

# a table left to first need (as a large binary's is; here by path): the first stack ends in
# the executable and gets its table built; the program goes on once record says it is in place
# (--no-sched: no stack of a thread blocking at start-up asks for it before the launch does)
mkfifo "$TMP/go"
GPUREC_TEST_CFI_DEFER=/nofp "$GPUREC" record -v --no-sched -o "$TMP/need.trc" -- "$PROGS/nofp" $N wait \
	"$TMP/go" >"$TMP/need.log" 2>&1 &
rec=$!
for _ in $(seq 600); do
	grep -q "built on first need" "$TMP/need.log" || ! kill -0 $rec 2>/dev/null && break
	sleep 0.1
done
echo go >"$TMP/go" &
go=$!
wait $rec
check "on need: recorded" 0 $?
kill $go 2>/dev/null # nobody read it: the recording failed before the program waited
check "on need: built when the first stack ended in it" \
	"gpurec record: unwind table of $PROGS/nofp built on first need: after 1 stack ended in it" \
	"$(grep 'built on first need' "$TMP/need.log" | sed -E 's/: [0-9]+ rows in [0-9.]+ ms,/:/')"
check "on need: the first launch's stack ends in it, every later one is whole" \
	"1: $launch_stub
$N: $launch_stub;inner;middle;outer;main;$libc_tail
$N: inner;middle;outer;main;$libc_tail" "$(stacks "$TMP/need.trc")"
check "on need: record says which stacks ended early, and why" \
	"gpurec record: 1 stack ended early in large binaries whose unwind tables are built when a stack first needs them, not before the code runs: $PROGS/nofp (1, built after them)" \
	"$(grep 'ended early' "$TMP/need.log")"
check "on need: no binary named as without frame pointers" "" "$(grep 'stacks end early' "$TMP/need.log")"

# a library without frame pointers between the program (without either) and libcudart
"$GPUREC" record -o "$TMP/lib.trc" -- "$PROGS/nofp_libmain" $N >"$TMP/lib.log" 2>&1
check "nofp_libmain: recorded" 0 $?
check "nofp_libmain: through the library, every caller" \
	"$N: nofp_lib_inner;nofp_lib_middle;nofp_lib_copy;user_loop;main;$libc_tail" \
	"$(stacks "$TMP/lib.trc")"
check "nofp_libmain: nothing to warn about" "" "$(grep 'stacks end early' "$TMP/lib.log")"

# the same library built without unwind tables (noeh/): the walk stops in it, record says so
LD_LIBRARY_PATH=$PROGS/noeh "$GPUREC" record -o "$TMP/noeh.trc" -- "$PROGS/nofp_libmain" $N \
	>"$TMP/noeh.log" 2>&1
check "noeh: recorded" 0 $?
check "noeh: the stack ends in the library" "$N: nofp_lib_inner" "$(stacks "$TMP/noeh.trc")"
check "noeh: record names the library and why" \
	"gpurec record: stacks end early in 1 binary without unwind tables: $PROGS/noeh/libnofp_lib.so (no .eh_frame): --call-graph dwarf unwinds those that carry DWARF CFI, -fno-omit-frame-pointer the others" \
	"$(grep 'stacks end early' "$TMP/noeh.log")"

# a thread asleep in a page fault (fault_stack: userfaultfd) at the load right after a push: its
# own rule, not the push's, finds the return address; every fault's switch-out has every caller
BLOCKED=${BLOCKED:-$PWD/$O/tests/tool_trace_blocked}
R=5
"$GPUREC" record -o "$TMP/fault.trc" -- "$PROGS/fault_stack" $R >"$TMP/fault.out" 2>"$TMP/fault.log"
check "fault_stack: recorded, each of its $R faults a sleep the kernel counted" "0 faults $R" \
	"$? $(tail -1 "$TMP/fault.out")"
loop=$(awk '/^loop /{print $2}' "$TMP/fault.out")
check "fault_stack: every fault's stack, every caller" \
	"$R fault_after_push;middle;outer;main;$libc_tail" \
	"$("$BLOCKED" "$TMP/fault.trc" | awk -v t="$loop" '$1 == "blocked" && $2 == t && $6 ~ /^fault_after_push/ {print $6}' |
		sed -E 's/0x[0-9a-f]+/?/g' | sort | uniq -c | sed -E 's/^ +//')"

# a thread blocked inside a timed CUDA call (long_sync on the simulator: its sync sleeps): the
# call's return slot holds the uretprobe trampoline until it returns; the walk takes the real
# return address from the thread's pending returns, in both walks, and goes on to main
SIM=${SAMPLES:-$PWD/$O/samples}/sim
for mode in "cfi stream cudaStreamSynchronize" "fp device cudaDeviceSynchronize"; do
	set -- $mode
	LD_LIBRARY_PATH=$SIM "$GPUREC" record --call-graph "$1" -o "$TMP/sync-$1.trc" -- \
		"$PROGS/long_sync" 1 "$2" >"$TMP/sync-$1.out" 2>&1
	check "long_sync, $1: recorded" 0 $?
	# FRAMES, the sixth field on, hold spaces ("wait_for_gpu(int, CUstream_st*)")
	got=$("$BLOCKED" "$TMP/sync-$1.trc" | awk '$1 == "blocked" && $3 == "clock_nanosleep"' |
		cut -d' ' -f6- | sed -E 's/0x[0-9a-f]+/?/g' | sort -u)
	case "$1" in
	cfi) want="clock_nanosleep;sim_wait_until;stream_sync;$3;wait_for_gpu(int, CUstream_st*);main;$libc_tail" ;;
	*) want=$(printf '%s\n' "$got" | grep -F "$3;wait_for_gpu(int, CUstream_st*);main" | head -1) ;;
	esac
	check "long_sync, $1: blocked in $3, through the call to main" "$want" "${got:-none}"
	[ -n "$want" ] || not_ok "long_sync, $1: no stack passes $3 to main: ${got:-none}"
done

# two worker threads, each 10 frames of chain() deep, without frame pointers (nofp_chain, the
# benchmark's load): every frame, up to the thread's start
"$GPUREC" record -o "$TMP/chain.trc" -- "$PROGS/nofp_chain" 64 2 0 10 >/dev/null 2>&1
check "nofp_chain: recorded" 0 $?
chain=$(printf 'chain(int, long, double);%.0s' $(seq 10))
want="128: __device_stub__Z4tinyPf(float*);launch_loop(long, double);${chain}std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#1}> > >::_M_run();"
got=$(stacks "$TMP/chain.trc")
check "nofp_chain: one stack for both threads, ten chain() frames" "$want" "${got:0:${#want}}"

# frame-pointer code, main thread and worker threads, and the chain without frame pointers: the
# same stacks as DWARF unwinding gives, to the last frame
for prog in "launches 10" "threads" "nofp_chain 64 2 0 10"; do
	name=${prog%% *}
	"$GPUREC" record -o "$TMP/$name-cfi.trc" -- $PROGS/$prog >/dev/null 2>&1
	"$GPUREC" record --call-graph dwarf -o "$TMP/$name-dw.trc" -- $PROGS/$prog >/dev/null 2>&1
	stacks "$TMP/$name-cfi.trc" >"$TMP/$name-cfi.stacks"
	stacks "$TMP/$name-dw.trc" >"$TMP/$name-dw.stacks"
	n=$(wc -l <"$TMP/$name-cfi.stacks")
	[ "$n" -gt 0 ] && cmp -s "$TMP/$name-cfi.stacks" "$TMP/$name-dw.stacks" &&
		ok "$name: the stacks DWARF unwinding gives ($n)" ||
		not_ok "$name: cfi and dwarf stacks differ: $(diff "$TMP/$name-cfi.stacks" "$TMP/$name-dw.stacks" | head -5)"
done

"$GPUREC" record --call-graph bogus -- true 2>"$TMP/err"
check "a bad mode is refused" 2 $?
grep -q "use cfi, fp, dwarf\[,SIZE\] or none" "$TMP/err" && ok "the modes are named" ||
	not_ok "message: $(cat "$TMP/err")"
exit $failures
