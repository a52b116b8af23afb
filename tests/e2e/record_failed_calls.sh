#!/usr/bin/env bash
# When every CUDA call that returned failed (no driver: here, every call of the real runtime
# returns cudaErrorInsufficientDriver, 35), `record` says so once at the end, naming the API most
# of them were and the likely cause (format/events.h gr_status_cause(), as info and report say).
# tests/progs/launches with 20: 84 launches (entry-only unless --launch-time) and 12 cudaMemcpy(Async) calls, which
# return; its __cudaGetKernel lookups are no call of the trace's (no row of their own), so neither
# record nor info counts them: both count failed calls by one definition (gr_call_failed). On the
# GPU simulator the calls succeed: no warning.
. "$(dirname "$0")/lib.sh"
need_root record_failed_calls

if [ -e /dev/nvidiactl ]; then
	ok "every call failed # SKIP this machine has a CUDA driver (/dev/nvidiactl)"
	exit 0
fi
# warning N K API: N calls failed, K of them API's (the most frequent), all with error 35
warning() {
	echo "gpurec record: every call that returned failed: $1 calls, $2 of them $3 returned" \
		"cudaErrorInsufficientDriver (35): likely no CUDA driver (or one older than the CUDA" \
		"runtime) ('gpurec check' says); the trace holds what the program asked for, not work" \
		"a GPU did"
}
warned() { grep 'call that returned failed' "$1"; }

"$GPUREC" record -o "$TMP/fail.trc" -- "$PROGS/launches" 20 >/dev/null 2>"$TMP/fail.err"
check "real runtime, no driver: the command's status" 3 $?
check "warned once: 12 copies returned, 7 of them cudaMemcpy" "$(warning 12 7 cudaMemcpy)" "$(warned "$TMP/fail.err")"
"$GPUREC" info --json "$TMP/fail.trc" >"$TMP/fail.json"
check "info counts the calls record counted: 12 failed, none ok" "12 0" \
	"$(json "$TMP/fail.json" 'd["calls"]["failed"]') $(json "$TMP/fail.json" 'd["calls"]["ok"]')"

"$GPUREC" record --launch-time -o "$TMP/lt.trc" -- "$PROGS/launches" 20 >/dev/null 2>"$TMP/lt.err"
check "--launch-time: the 84 launches returned too" "$(warning 96 84 cudaLaunchKernel)" "$(warned "$TMP/lt.err")"
"$GPUREC" info --json "$TMP/lt.trc" >"$TMP/lt.json"
check "--launch-time: info counts 96 failed too" 96 "$(json "$TMP/lt.json" 'd["calls"]["failed"]')"

# A graph-building call is one call in two rows (its GRAPH row and the LAUNCH row of the node's
# work): counted once. tests/progs/graph_build makes 13 calls that return: 3
# cudaGraphAddKernelNode, 2 cudaGraphKernelNodeSetParams, 1 each of
# cudaGraphExecKernelNodeSetParams, AddChildGraphNode, Instantiate, ExecUpdate and Clone, and 3
# cudaDeviceSynchronize (cudaGraphCreate is not probed); its 9 cudaGraphLaunch are entry-only.
"$GPUREC" record -o "$TMP/gb.trc" -- "$PROGS/graph_build" >/dev/null 2>"$TMP/gb.err"
check "graph building: record counts each call once" 1 \
	"$(grep -c 'every call that returned failed: 13 calls, 3 of them cudaDeviceSynchronize' "$TMP/gb.err")"
"$GPUREC" info --json "$TMP/gb.trc" >"$TMP/gb.json"
check "graph building: info counts the same 13, 9 launches of unknown status" "13 0 9 3 2" \
	"$(json "$TMP/gb.json" '" ".join(str(x) for x in [d["calls"]["failed"], d["calls"]["ok"], d["calls"]["status_unknown"]] + [e["count"] for e in d["errors"] if e["api"] in ("cudaGraphAddKernelNode", "cudaGraphKernelNodeSetParams")])')"
LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record --launch-time -o "$TMP/gbs.trc" -- "$PROGS/graph_build" \
	>/dev/null 2>&1
"$GPUREC" info --json "$TMP/gbs.trc" >"$TMP/gbs.json"
check "graph building on the simulator: 22 calls ok (13 + 9 launches), none unknown" "22 0 0" \
	"$(json "$TMP/gbs.json" '"%d %d %d" % (d["calls"]["ok"], d["calls"]["failed"], d["calls"]["status_unknown"])')"

# Some calls failed, not all: one note with the same count info gives. tests/progs/nccl_calls on
# the toolkit's real libnccl without a GPU: its collectives on a null communicator return
# ncclInvalidArgument, its group calls succeed (21 of 24 here); the count checked is info's.
"$GPUREC" record -o "$TMP/nccl.trc" -- "$PROGS/nccl_calls" >/dev/null 2>"$TMP/nccl.err"
"$GPUREC" info --json "$TMP/nccl.trc" >"$TMP/nccl.json"
nf=$(json "$TMP/nccl.json" 'd["calls"]["failed"]')
nk=$(json "$TMP/nccl.json" 'd["calls"]["failed"] + d["calls"]["ok"]')
check "some failed: record's note gives info's count ($nf of $nk)" 1 \
	"$(grep -c "^gpurec record: $nf of $nk calls whose status is known failed; most: " "$TMP/nccl.err")"
check "some failed: it is a note, not the every-call warning" 0 "$(warned "$TMP/nccl.err" | wc -l)"

LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record --launch-time -o "$TMP/sim.trc" -- "$PROGS/launches" 20 \
	>/dev/null 2>"$TMP/sim.err"
check "simulator: the command's status" 3 $?
"$GPUREC" info --json "$TMP/sim.trc" >"$TMP/sim.json"
check "simulator: its calls were probed" "84 12" "$(json "$TMP/sim.json" 'd["launches"]') $(json "$TMP/sim.json" 'd["events_by_kind"]["copy"]')"
check "simulator: calls succeed, no warning" "" "$(warned "$TMP/sim.err")"
exit $failures
