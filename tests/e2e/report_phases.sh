# The iteration finder on programs with several loops or with allocations in the step
# (tests/progs/phases.cu, issue 28), recorded on the GPU simulator: the loop holding the most
# calls is the iteration, whatever loop of the same period comes before or after it; every call
# is a token (allocations and frees too); the loops found are listed. Every expected figure is
# the program's own structure. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "report_phases.sh"
SIM=${SAMPLES:-$PWD/$O/samples}/sim

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/phases" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# rec MODE: record phases MODE on the simulator into $TMP/MODE.trc, its JSON report MODE.json
rec() {
	if ! "$GPUREC" record -o "$TMP/$1.trc" -- env "LD_LIBRARY_PATH=$SIM" "$PROGS/phases" "$1" \
		>"$TMP/$1.out" 2>&1; then
		not_ok "record $1: $(tail -3 "$TMP/$1.out")"
		return 1
	fi
	"$GPUREC" report --json "$TMP/$1.trc" >"$TMP/$1.json"
}
FIELDS="['count','calls','launches','copies','syncs','allocs','other']"
iter() { json "$TMP/$1.json" "[d['launches']['iteration'][k] for k in $FIELDS]"; }
# the loops listed, in time order: [iterations, calls, launches per iteration, chosen]
phases() {
	json "$TMP/$1.json" "[[p['count'], p['calls'], p['launches'], p['chosen']]
		for p in d['launches']['iteration']['phases']]"
}
# whether the listed loops are in time order, each inside the recording, and do not overlap
ordered() {
	json "$TMP/$1.json" "int(all(p['start_ts'] < p['end_ts'] for p in d['launches']['iteration']['phases'])
		and all(a['end_ts'] <= b['start_ts'] for a, b in
		zip(d['launches']['iteration']['phases'], d['launches']['iteration']['phases'][1:])))"
}
why() { json "$TMP/$1.json" "d['launches']['iteration']['chosen_because']"; }

# 10 warm-up steps (another fwd grid: the same period, another call), then 1000 training steps
# of 4 calls (H2D copy, fwd, bwd, stream sync), in either order: the 1000 are the iteration
for m in warm_train train_warm; do
	rec $m || continue
	check "$m: 1000 iterations of 4 calls: 2 launches, 1 copy, 1 sync" \
		"[1000, 4, 2, 1, 1, 0, 0]" "$(iter $m)"
	check "$m: the loops found: the warm-up's 10 and the training's 1000, chosen" \
		"$([ $m = warm_train ] && echo "[[10, 4, 2, false], [1000, 4, 2, true]]" ||
			echo "[[1000, 4, 2, true], [10, 4, 2, false]]")" "$(phases $m)"
	check "$m: chosen for holding the most calls" most_calls "$(why $m)"
	check "$m: the loops in time order, apart" 1 "$(ordered $m)"
done
if [ -f "$TMP/warm_train.trc" ]; then
	"$GPUREC" report "$TMP/warm_train.trc" >"$TMP/warm_train.txt"
	check "warm_train: the text says which loop is the iteration, and why" 1 \
		"$(grep -c "loops: 2 found on the thread; the iteration is the loop holding the most calls (4000 calls)" "$TMP/warm_train.txt")"
	check "warm_train: the text marks the chosen loop" 1 \
		"$(grep -c "1000 iterations x 4 calls (2 launches), .*<- the iteration" "$TMP/warm_train.txt")"
	check "warm_train: the breakdown names allocations" 1 \
		"$(grep -c "^             4 calls: 2 launches, 1 copy, 1 sync, 0 alloc/free, 0 other; 100% repeat$" "$TMP/warm_train.txt")"
fi

# the same calls in both loops, a device sync between them: two loops still
if rec warm_same; then
	check "warm_same: 1000 iterations of 4 calls" "[1000, 4, 2, 1, 1, 0, 0]" "$(iter warm_same)"
	check "warm_same: the loops found" "[[10, 4, 2, false], [1000, 4, 2, true]]" \
		"$(phases warm_same)"
fi

# a temporary allocated and freed in every step: the allocation and the free are calls of it
if rec alloc_step; then
	check "alloc_step: 100 iterations of 5 calls: 3 launches, 2 allocs" \
		"[100, 5, 3, 0, 0, 2, 0]" "$(iter alloc_step)"
	check "alloc_step: one loop" "[[100, 5, 3, true]]" "$(phases alloc_step)"
	check "alloc_step: chosen as the only loop" only_loop "$(why alloc_step)"
fi
if rec alloc_async; then
	check "alloc_async: 100 iterations of 6 calls: 3 launches, 2 allocs, 1 sync" \
		"[100, 6, 3, 0, 1, 2, 0]" "$(iter alloc_async)"
fi

# a setup loop (50 x memset, init), the training (300 x step, device sync), an eval loop
# (20 x eval, D2H read-back): three loops of period 2, the training's the iteration
if rec setup_then_train; then
	check "setup_then_train: 300 iterations of 2 calls: 1 launch, 1 sync" \
		"[300, 2, 1, 0, 1, 0, 0]" "$(iter setup_then_train)"
	check "setup_then_train: the loops found: setup, training (chosen), eval" \
		"[[50, 2, 1, false], [300, 2, 1, true], [20, 2, 1, false]]" \
		"$(phases setup_then_train)"
	check "setup_then_train: phases_found" 3 \
		"$(json "$TMP/setup_then_train.json" "d['launches']['iteration']['phases_found']")"
	check "setup_then_train: the loops in time order, apart" 1 "$(ordered setup_then_train)"
fi

exit $((failures > 0))
