# Probe cost compensation against the simulator's truth (issue 11 item 7): chain (5 launches of
# LAUNCH_NS = 5 us + a sync) recorded; the report's launch cost and iteration time, with and
# without compensation, as ratios to the simulator's model (5 us; 5 x 5 us + the last 3 us kernel
# = 28 us a step). The unrecorded run's mean step (best of 3) is printed beside it: on a busy
# machine it includes preemption, which the report's medians do not.
set -u
GPUREC=${GPUREC:-./gpurec}
SAMPLES=${SAMPLES:-$O/samples}
TMP=$(mktemp -d /tmp/gpurec-bench-pc.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
STEPS=2000
best=
for _ in 1 2 3; do
	us=$(LD_LIBRARY_PATH=$SAMPLES/sim "$SAMPLES/chain" $STEPS | sed 's/.*loop_us=//')
	[ -z "$best" ] || [ "$us" -lt "$best" ] && best=$us
done
"$GPUREC" record -o "$TMP/pc.trc" -- env "LD_LIBRARY_PATH=$SAMPLES/sim" "$SAMPLES/chain" \
	$STEPS 2>&1 | grep 'probe cost measured' | sed 's/^/  /'
"$GPUREC" report --json "$TMP/pc.trc" >"$TMP/on.json"
"$GPUREC" report --json --no-compensate "$TMP/pc.trc" >"$TMP/off.json"
python3 - "$TMP/on.json" "$TMP/off.json" "$best" "$STEPS" <<'PY'
import json, sys
on, off = (json.load(open(f))["launches"] for f in sys.argv[1:3])
unrec = int(sys.argv[3]) * 1000 / int(sys.argv[4])
truth_iter = 28000
truth_launch = 5000
for name, d in (("compensated", on), ("uncompensated", off)):
    print("  %-13s launch cost %5.2f us = %.3fx the configured 5 us; iteration %6.2f us = "
          "%.3fx the modelled 28 us" % (name, d["launch_cost_ns"] / 1e3,
          d["launch_cost_ns"] / truth_launch, d["iteration"]["period_ns"] / 1e3,
          d["iteration"]["period_ns"] / truth_iter))
print("  unrecorded: %.2f us a step (mean over the loop, best of 3)" % (unrec / 1e3))
PY
