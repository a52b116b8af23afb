#!/usr/bin/env bash
# The NVTX tool record gives the command (libgpurec_nvtx.so), without the recorder's probe: the
# answers the program gets (nesting levels, range ids, a domain handle), that it changes nothing
# else the program prints, that a user's own tool chained behind it (GPUREC_NVTX_CHAIN) sees
# every call and answers the program, an unloadable chain costs one line, NVTX v2's
# libnvToolsExt.so loads it too, and what record puts in the command's environment (also with
# --no-nvtx, and without the library beside gpurec). Exact values: nvtxprog prints each call's
# return value (tests/progs/nvtxprog.cu).
. "$(dirname "$0")/lib.sh"
need_root nvtx_library
LIB=$(realpath "$(dirname "$GPUREC")")/libgpurec_nvtx.so
SIM=${SAMPLES:-$PWD/$O/samples}/sim
N=3

prog() { LD_LIBRARY_PATH=$SIM "$PROGS/nvtxprog" $N; }
# what nvtxprog printed that depends on no tool: the step lines
stable() { grep -v '^at ' "$1"; }
# OP RET TEXT of each call
rets() { awk '$1 == "at" { $3 = $4 = $5 = ""; print }' "$1" | tr -s ' '; }

prog >"$TMP/none.out" 2>"$TMP/none.err"
check "without a tool: exit 0" 0 $?
NVTX_INJECTION64_PATH=$LIB prog >"$TMP/lib.out" 2>"$TMP/lib.err"
check "with the library: exit 0" 0 $?
check "with the library: the program prints the same" "$(stable "$TMP/none.out")" "$(stable "$TMP/lib.out")"
check "with the library: nothing on stderr" "" "$(cat "$TMP/lib.err")"
check "without a tool: NVTX answers pushes with -2 (no tool)" "$((3 * N))" \
	"$(rets "$TMP/none.out" | grep -c '^at push -2 ')"
check "push levels: step 0, forward and backward 1" \
	"$(printf 'at push 0 step\nat push 1 forward\nat push 1 backward ✓\n%.0s' $(seq $N))" \
	"$(rets "$TMP/lib.out" | grep '^at push')"
check "pop levels: 1 1 0 each step" "$(printf 'at pop 1\nat pop 1\nat pop 0\n%.0s' $(seq $N))" \
	"$(rets "$TMP/lib.out" | grep '^at pop' | sed 's/ $//')"
check "start ids 1..$N, each ended with its id on the loader thread" \
	"$(for i in $(seq $N); do echo "start $i end $i"; done)" \
	"$(awk '$2 == "start" { s = $6; t = $5 } $2 == "end" { print "start " s " end " $6 (t == $5 ? " same thread" : "") }' "$TMP/lib.out")"
check "the domain handle is not the default domain's" 1 \
	"$(awk '$2 == "name_domain" { print ($6 != 0) }' "$TMP/lib.out")"

# a user's own tool, chained: it sees every call it filled and its answers reach the program
NVTX_INJECTION64_PATH=$LIB GPUREC_NVTX_CHAIN=$PROGS/libnvtx_count.so prog >"$TMP/chain.out" 2>"$TMP/chain.err"
check "chained: exit 0" 0 $?
check "chained: the user's tool saw every call" \
	"nvtx_count: pushes $((3 * N)) pops $((3 * N)) starts $N ends $N domains 1" "$(cat "$TMP/chain.err")"
check "chained: the program got the user's tool's levels" \
	"$(printf 'at push 100 step\nat push 101 forward\nat push 101 backward ✓\n%.0s' $(seq $N))" \
	"$(rets "$TMP/chain.out" | grep '^at push')"
check "chained: and its range ids, ended with them" \
	"$(for i in $(seq 0 $((N - 1))); do echo "$((5000 + i)) $((5000 + i))"; done)" \
	"$(awk '$2 == "start" { s = $6 } $2 == "end" { print s, $6 }' "$TMP/chain.out")"
check "chained: the program prints the same" "$(stable "$TMP/none.out")" "$(stable "$TMP/chain.out")"

# a chain that cannot be loaded: one line, and the program as with the library alone
NVTX_INJECTION64_PATH=$LIB GPUREC_NVTX_CHAIN=$TMP/missing.so prog >"$TMP/bad.out" 2>"$TMP/bad.err"
check "unloadable chain: exit 0" 0 $?
check "unloadable chain: one line says so" 1 \
	"$(grep -c "^gpurec: NVTX_INJECTION64_PATH=$TMP/missing.so: .*recorded without it" "$TMP/bad.err")"
check "unloadable chain: our answers" "$(rets "$TMP/lib.out" | grep -v name_)" \
	"$(rets "$TMP/bad.out" | grep -v name_)"

# NVTX v2: a program linked against libnvToolsExt.so.1 loads the tool the same way
NVTX_INJECTION64_PATH=$LIB "$PROGS/nvtx_v2prog" 2 >"$TMP/v2.out" 2>&1
check "v2: exit 0" 0 $?
check "v2: the library answers" \
	"$(printf 'at push 0 v2 step\nat mark 0 v2 mark\nat pop 0\nat push 0 v2 step\nat mark 0 v2 mark\nat pop 0\nat start 1 v2 range\nat end 1\nv2 done')" \
	"$(sed 's/^\(at [a-z]*\) [0-9]* [0-9]* [0-9]* /\1 /; s/ $//' "$TMP/v2.out")"

# record: the command's environment
"$GPUREC" record --no-sched -o "$TMP/e.trc" -- /usr/bin/env >"$TMP/env0" 2>/dev/null
check "record: the library beside gpurec is the command's NVTX tool" \
	"NVTX_INJECTION64_PATH=$LIB|GPUREC_NVTX_CHAIN=" \
	"$(grep -e ^NVTX_INJECTION64_PATH= -e ^GPUREC_NVTX_CHAIN= "$TMP/env0" | sort -r | paste -sd'|')"
NVTX_INJECTION64_PATH=/opt/tool/libmine.so "$GPUREC" record --no-sched -o "$TMP/e.trc" -- /usr/bin/env >"$TMP/env1" 2>/dev/null
check "record: the user's tool moves to the chain" \
	"NVTX_INJECTION64_PATH=$LIB|GPUREC_NVTX_CHAIN=/opt/tool/libmine.so" \
	"$(grep -e ^NVTX_INJECTION64_PATH= -e ^GPUREC_NVTX_CHAIN= "$TMP/env1" | sort -r | paste -sd'|')"
NVTX_INJECTION64_PATH=/opt/tool/libmine.so "$GPUREC" record --no-nvtx --no-sched -o "$TMP/e.trc" -- /usr/bin/env >"$TMP/env2" 2>/dev/null
check "record --no-nvtx: the environment as it was" "NVTX_INJECTION64_PATH=/opt/tool/libmine.so" \
	"$(grep -e ^NVTX_INJECTION64_PATH= -e ^GPUREC_NVTX_CHAIN= "$TMP/env2" | paste -sd'|')"
"$GPUREC" record --no-sched -o "$TMP/r.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/nvtxprog" $N >"$TMP/rec.out" 2>/dev/null
check "record: the program's status" 0 $?
check "record: the program prints the same" "$(stable "$TMP/none.out")" "$(stable "$TMP/rec.out")"
check "record: the program's NVTX calls reach the library" "$(rets "$TMP/lib.out" | grep -v name_)" \
	"$(rets "$TMP/rec.out" | grep -v name_)"
"$GPUREC" record --no-nvtx --no-sched -o "$TMP/r.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/nvtxprog" $N >"$TMP/nonvtx.out" 2>/dev/null
check "record --no-nvtx: no tool answers" "$(rets "$TMP/none.out" | grep -v name_)" \
	"$(rets "$TMP/nonvtx.out" | grep -v name_)"

# without the library beside gpurec: one line, and the command as without a tool
mkdir -p "$TMP/bin"
cp "$GPUREC" "$TMP/bin/gpurec"
"$TMP/bin/gpurec" record --no-sched -o "$TMP/r.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/nvtxprog" $N >"$TMP/nolib.out" 2>"$TMP/nolib.err"
check "library missing: the program's status" 0 $?
check "library missing: one line says so" 1 \
	"$(grep -c '^gpurec record: libgpurec_nvtx.so is missing: .*: NVTX ranges will not be recorded$' "$TMP/nolib.err")"
check "library missing: the program as without a tool" "$(rets "$TMP/none.out" | grep -v name_)" \
	"$(rets "$TMP/nolib.out" | grep -v name_)"
[ $failures -eq 0 ]
