# The iteration finder on two real loops (tests/progs/loops.cu), recorded on the GPU simulator
# (every call succeeds, streams are distinct) and on the real libcudart (no driver: calls fail;
# launches are recorded at entry, so only their counts are asserted there). Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "report_loops.sh"
SIM=${SAMPLES:-$PWD/$O/samples}/sim

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/loops" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# rec NAME MODE [ENV...]: record loops MODE into $TMP/NAME.trc, its JSON report into NAME.json
rec() {
	local name=$1 mode=$2
	shift 2
	if ! "$GPUREC" record -o "$TMP/$name.trc" -- env "$@" "$PROGS/loops" "$mode" \
		>"$TMP/$name.out" 2>&1; then
		not_ok "record $name: $(tail -3 "$TMP/$name.out")"
		return 1
	fi
	"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.json"
}
iter() { json "$TMP/$1.json" "[d['launches']['iteration'][k] for k in $2]"; }

# a warm-up launch, then 300 in a timed loop: 300 iterations of 1 launch, on either runtime
if rec timed_sim timed "LD_LIBRARY_PATH=$SIM"; then
	check "timed loop (sim): launches" 301 "$(json "$TMP/timed_sim.json" "d['launches']['total']")"
	check "timed loop (sim): 300 iterations of 1 call, 1 launch" "[300, 1, 1, 0, 0, 0, 0]" \
		"$(iter timed_sim "['count','calls','launches','copies','syncs','allocs','other']")"
	"$GPUREC" report "$TMP/timed_sim.trc" >"$TMP/timed_sim.txt"
	check "timed loop (sim): the text says it in the singular" 1 \
		"$(grep -c "             1 call: 1 launch, 0 copies, 0 syncs, 0 alloc/free, 0 other; " "$TMP/timed_sim.txt")"
	check "timed loop (sim): the text counts 300 iterations of 1 launch" 1 \
		"$(grep -c "  iteration: 1 launch per iteration, 300 iterations of " "$TMP/timed_sim.txt")"
fi
# without a driver every call but the launches fails: those are left out of every figure (the
# warm-up's sync too, so the finder sees 301 launches in a row), and nothing is judged
if rec timed_real timed; then
	check "timed loop (real runtime): most calls failed, no verdict" "[true, 301, 1]" \
		"$(json "$TMP/timed_real.json" "[d['calls']['most_failed'], d['launches']['iteration']['count'], int(d['launches']['verdict'].startswith('not judged'))]")"
fi

# per stream, 20 times: event sync, launch, H2D, D2H, event record: 20 iterations of 5 calls
if rec streams_sim streams "LD_LIBRARY_PATH=$SIM"; then
	check "stream loops (sim): launches" 80 "$(json "$TMP/streams_sim.json" "d['launches']['total']")"
	check "stream loops (sim): 20 iterations of 5 calls: 1 launch, 2 copies, 1 sync, 1 other" \
		"[20, 5, 1, 2, 1, 0, 1]" \
		"$(iter streams_sim "['count','calls','launches','copies','syncs','allocs','other']")"
fi

exit $((failures > 0))
