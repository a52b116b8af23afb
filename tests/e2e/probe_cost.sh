# Probe cost compensation (issue 11 item 7, docs/REPORTS.md "Probe cost"): chain recorded on the
# GPU simulator, whose launch cost is its LAUNCH_NS (5 us, samples/sim/README.md) and whose step
# is 5 launches + the last kernel's 3 us (KERNEL_MIN_NS): 28 us of modelled time. The report's
# compensated launch cost is a median (a preemption on a busy machine does not move it), but the
# per-call cost it subtracts is calibration's, not the program's: over 8 runs here it came out at
# 4733-5570 ns (-5% to +11%) where the uncompensated cost was 5757-6286 ns, so it is asserted
# within 20% of LAUNCH_NS and nearer to it than the uncompensated cost. The iteration carries the whole cost of its 6 calls (~12 us, 43% of the 28 us
# modelled), which calibration measures on the recorder's calls before the command runs: on this
# 2-core VM that measure and the program's calls differ by up to a third from run to run (both
# ways: 1223-2487 ns against 1737-2246 ns per timed call over 17 runs), so the compensated
# period is asserted within 20% of the modelled one and nearer to it than the uncompensated
# period, which includes the probes and is never smaller. A timed call costs 5-8 us here now
# (40-45 us an iteration), and beside a parallel make's other tests the calls cost up to 70% more
# (or less) than calibration measured before the command (the host part of the iteration up
# 12 us with no CPU wait, the program real-time): the period may then be off by more than 20%, by
# at most half of what the probes added (0.23-0.42 of it in 12 such runs here). Needs root (BPF),
# no GPU.
. "$(dirname "$0")/lib.sh"
need_root "probe_cost.sh"
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
LAUNCH_NS=5000        # samples/sim/gpusim.c LAUNCH_NS
STEP_NS=$((5 * 5000 + 3000)) # five launches, then the last 3 us kernel drains before the sync

# The program runs real-time (SCHED_FIFO) where it may: the iteration is wall time, and the other
# tests of a parallel make keeping the thread waiting for a CPU doubled it here once (55 us for
# 28 us). A real-time thread is never kept waiting by them; the recorder runs on the other CPU.
RT=()
if chrt -f 10 true 2>/dev/null; then
	RT=(chrt -f 10)
else
	echo "# chrt -f failed: the program runs under the normal scheduler, as busy as the machine"
fi
# every launch timed: the launch cost is the median of all 2000 calls (a default recording times
# 1 in 64, ~31 here, whose median a busy machine moves)
if ! "$GPUREC" record --launch-time -o "$TMP/pc.trc" -- "${RT[@]}" env "LD_LIBRARY_PATH=$SIM" \
	"$SAMPLES/chain" 400 >"$TMP/pc.out" 2>&1; then
	not_ok "record chain: $(tail -3 "$TMP/pc.out")"
	exit 1
fi
check "record says what the probes cost" 1 \
	"$(grep -c '^gpurec record: probe cost measured here: [0-9]* ns per launch' "$TMP/pc.out")"
"$GPUREC" report --json "$TMP/pc.trc" >"$TMP/pc.json"
"$GPUREC" report --json --no-compensate "$TMP/pc.trc" >"$TMP/raw.json"
check "calibration stored in the trace" "True True" \
	"$(json "$TMP/pc.json" '"%s %s" % (d["probe_cost"]["known"], d["probe_cost"]["compensated"])')"
check "--no-compensate" "False" "$(json "$TMP/raw.json" 'd["probe_cost"]["compensated"]')"
within() { # within VALUE TRUTH [PERCENT]: |VALUE - TRUTH| <= PERCENT (10) % of TRUTH
	python3 -c "import sys; v,t,p=map(int,sys.argv[1:]); print(abs(v-t) * 100 <= t * p)" "$1" "$2" "${3:-10}"
}
cost=$(json "$TMP/pc.json" 'd["launches"]["launch_cost_ns"]')
raw_cost=$(json "$TMP/raw.json" 'd["launches"]["launch_cost_ns"]')
period=$(json "$TMP/pc.json" 'd["launches"]["iteration"]["period_ns"]')
raw_period=$(json "$TMP/raw.json" 'd["launches"]["iteration"]["period_ns"]')
check "compensated launch cost $cost ns within 20% of $LAUNCH_NS" True "$(within "$cost" $LAUNCH_NS 20)"
check "compensated launch cost $cost ns nearer $LAUNCH_NS than uncompensated $raw_cost ns" True \
	"$(python3 -c "print(abs($cost - $LAUNCH_NS) < abs($raw_cost - $LAUNCH_NS))")"
# within 20%, or, when the probes cost more or less during the run than calibration measured
# before it (a busy machine), off by at most half of what the probes added
check "compensated iteration $period ns within 20% of $STEP_NS, or of half the excess of uncompensated $raw_period ns" \
	True "$(python3 -c "p, r, s = $period, $raw_period, $STEP_NS; print(abs(p - s) * 5 <= s or abs(p - s) * 2 <= r - s)")"
check "compensated iteration $period ns nearer $STEP_NS than uncompensated $raw_period ns" True \
	"$(python3 -c "print(abs($period - $STEP_NS) < abs($raw_period - $STEP_NS))")"
check "uncompensated launch cost $raw_cost ns >= compensated" True \
	"$(python3 -c "print($raw_cost >= $cost)")"
check "uncompensated iteration $raw_period ns >= compensated" True \
	"$(python3 -c "print($raw_period >= $period)")"
check "report text names the compensation" 1 \
	"$("$GPUREC" report "$TMP/pc.trc" | grep -c 'compensated for [0-9]* ns of probe cost per call')"
check "diff text names it per trace" 2 \
	"$("$GPUREC" diff "$TMP/pc.trc" "$TMP/pc.trc" | grep -c 'compensated for [0-9]* ns of probe cost per call')"
exit $((failures > 0))
