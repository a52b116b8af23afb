# The step budget (docs/REPORTS.md, "Step budget"). (a) Exact: on every trace here, the golden
# and old traces and fresh recordings on the GPU simulator, every budget's parts add up to its
# total_ns, to the ns. (b) Ground truth: tests/progs/budget.cu busy-waits HOST_US on the CPU,
# launches 4 kernels the simulator runs for 100 us each, and synchronises its stream, every
# iteration. An iteration of the report runs from one first launch to the next, so it holds
# the GPU's 400 us (the sync returns after them) and then a whole busy-wait: the asserts are
# relations the program controls, with a tolerance of the probe cost the report takes off,
# never quiet-machine timings. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "report_budget.sh"
SIM=${SAMPLES:-$PWD/$O/samples}/sim
SAMPLE_DIR=${SAMPLES:-$PWD/$O/samples}
HOST_US=200
LAUNCHES=4
KERNEL_US=100

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/budget" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# sums FILE.json NAME [old]: every budget's parts (and its blocked reasons, the nine of
# them) add up exactly; with old (a trace without blocked reasons) every blocked ns is unknown
sums() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["budget"]
old = sys.argv[3] == "old"
bad = []
REASONS = {f"{r}_ns" for r in ("gil", "lock", "input", "disk", "sleep", "child", "other", "stopped", "unknown")}
if b["found"]:
    for k in ("median", "p90", "slowest", "mean"):
        x = b[k]
        parts = sum(v for n, v in x.items() if n.endswith("_ns") and n != "total_ns")
        reasons = sum(x["blocked_reasons"].values())
        if parts != x["total_ns"] or reasons != x["blocked_ns"]:
            bad.append(f"{k}: parts {parts} reasons {reasons} total {x['total_ns']}")
        if set(x["blocked_reasons"]) != REASONS:
            bad.append(f"{k}: reasons {sorted(x['blocked_reasons'])}")
        if old and x["blocked_reasons"]["unknown_ns"] != x["blocked_ns"]:
            bad.append(f"{k}: a reason named in a trace without them")
    if old and (b["reasons"] or any(set(v) - {"unknown"} for v in b["culprits"].values())):
        bad.append("culprits named in a trace without blocked reasons")
    if not b["iterations"]:
        bad.append("found with no iterations")
found = "found" if b["found"] else "none"
print(f"not ok - {sys.argv[2]}: " + "; ".join(bad) if bad else
      f"ok - {sys.argv[2]}: budget ({found}) parts add up to total_ns")
PY
}

# rec NAME RECORD_OPTIONS PROGRAM ARGS...: record on the simulator, JSON report into NAME.json
rec() {
	local name=$1 opts=$2
	shift 2
	# shellcheck disable=SC2086
	if ! "$GPUREC" record $opts -o "$TMP/$name.trc" -- env "LD_LIBRARY_PATH=$SIM" "$@" \
		>"$TMP/$name.out" 2>&1; then
		not_ok "record $name: $(tail -3 "$TMP/$name.out")"
		return 1
	fi
	"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.json"
}

for trc in tests/data/golden/*.trc tests/data/old/*.trc; do
	"$GPUREC" report --json "$trc" >"$TMP/t.json" 2>/dev/null || continue
	tap "sums $(basename "$trc")" sums "$TMP/t.json" "$(basename "$trc")" old
done

# ground truth: B = python over the median, p90 and slowest budgets and the report (d)
truth() { json "$TMP/$1.json" "$2"; }
if rec timed "--launch-time" "$PROGS/budget" 40 $HOST_US $LAUNCHES; then
	tap "sums timed" sums "$TMP/timed.json" "budget.cu, --launch-time"
	# what the report may take off an iteration as probe cost: every call's whole cost
	tol="(1 + $LAUNCHES) * (d['probe_cost']['timed_call_ns'] or 0)"
	check "timed: the loop thread, scheduler states known, 5 calls an iteration, all measured" \
		"[true, 5, 0, 0]" \
		"$(truth timed "[d['budget']['scheduler'], d['budget']['median']['calls'], d['budget']['median']['unmeasured_calls'], d['budget']['mean']['unmeasured_calls']]")"
	# a scheduler switch the recorder missed (now and then under load: info's losses, "sched")
	# leaves the states around it unknown: then the busy-wait may lie in outside_unknown too
	lost=$("$GPUREC" info --json "$TMP/timed.trc" | python3 -c 'import json, sys
print(json.load(sys.stdin)["blocked"]["switches_missing"])')
	unseen="(x['outside_unknown_ns'] if ${lost:-0} else 0)"
	for k in median p90 slowest; do
		check "timed $k: on CPU or waiting for it outside calls >= the ${HOST_US} us busy-wait" True \
			"$(truth timed "(lambda x: x['host_ns'] + x['runnable_ns'] + $unseen >= $HOST_US * 1000 - $tol or [x, $tol, d['lost_events'], d['probe_cost']])(d['budget']['$k'])")"
		check "timed $k: total >= busy-wait + ${LAUNCHES} x ${KERNEL_US} us of GPU time" True \
			"$(truth timed "d['budget']['$k']['total_ns'] >= ($HOST_US + $LAUNCHES * $KERNEL_US) * 1000 - $tol")"
		check "timed $k: launch and stream sync time measured, no other kind of call" \
			"[true, true, 0, 0, 0, 0, 0, 0]" \
			"$(truth timed "(lambda x: [x['launch_ns'] > 0, x['sync_stream_ns'] > 0, x['copy_ns'], x['sync_device_ns'], x['sync_event_ns'], x['graph_launch_ns'], x['alloc_ns'], x['other_ns']])(d['budget']['$k'])")"
	done
	check "timed: one budget per iteration of the loop" True \
		"$(truth timed "d['launches']['iteration']['count'] == d['budget']['iterations'] >= 30")"
	"$GPUREC" report "$TMP/timed.trc" >"$TMP/timed.txt"
	# the first line after the file's name, the median's parts wrapped over the next
	check "timed: the text report opens with the budget" 1 \
		"$(sed -n 2,3p "$TMP/timed.txt" | paste -sd' ' | tr -s ' ' | grep -c '^step budget (thread budget tid [0-9]*, median iteration #[0-9]* .*launch [0-9<]*% .*sync(stream) [0-9]*% .*host [0-9<]*%')"
fi

# launches recorded at entry only: their time is outside calls, and the budget says how many
if rec untimed "" "$PROGS/budget" 40 $HOST_US $LAUNCHES; then
	tap "sums untimed" sums "$TMP/untimed.json" "budget.cu, launches untimed"
	check "untimed: launches unmeasured, no launch time" "[$LAUNCHES, 0, true]" \
		"$(truth untimed "(lambda x: [x['unmeasured_calls'], x['launch_ns'], x['sync_stream_ns'] > 0])(d['budget']['median'])")"
	check "untimed: the text names the unmeasured calls" 1 \
		"$("$GPUREC" report "$TMP/untimed.trc" | grep -c 'calls were recorded at entry only')"
fi

# without scheduler records, the time outside calls is one part of unknown state
if rec nosched "--no-sched --launch-time" "$PROGS/budget" 40 $HOST_US $LAUNCHES; then
	tap "sums nosched" sums "$TMP/nosched.json" "budget.cu, --no-sched"
	check "nosched: no host, runnable or blocked part; the busy-wait is in the unknown part" \
		"[false, 0, 0, 0, true]" \
		"$(truth nosched "(lambda x: [d['budget']['scheduler'], x['host_ns'], x['runnable_ns'], x['blocked_ns'], x['outside_unknown_ns'] >= $HOST_US * 1000 - (1 + $LAUNCHES) * (d['probe_cost']['timed_call_ns'] or 0)])(d['budget']['median'])")"
fi

# other shapes of loop: graph launches, copies, per-stream loops
if rec graph "--launch-time" "$SAMPLE_DIR/graph" 30; then
	tap "sums graph" sums "$TMP/graph.json" "graph sample"
	check "graph: graph launch time in its own part" True \
		"$(truth graph "d['budget']['found'] and d['budget']['median']['graph_launch_ns'] > 0")"
fi
if rec item "" "$SAMPLE_DIR/item" 30; then
	tap "sums item" sums "$TMP/item.json" "item sample"
	check "item: copy time in the copy part" True \
		"$(truth item "d['budget']['found'] and d['budget']['median']['copy_ns'] > 0")"
fi
if rec streams "" "$PROGS/loops" streams; then
	tap "sums streams" sums "$TMP/streams.json" "loops streams"
fi

exit $((failures > 0))
