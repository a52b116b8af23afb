# CUDA graphs end to end: samples/graph (a 40-launch step captured once, then 50 graph launches)
# and its twin graph_eager (the 40 launches every step), recorded on the GPU simulator, where the
# simulator's own launch log says what executed. gpurec must count kernels executed exactly
# (10 per kernel per step either way), launch calls as made (the 40 captured launches of graph
# are calls but not executions), a graph launch as one call of the iteration, propose no fusion
# inside the graph, and diff the two as "40 -> 1 graph launch (40 kernels)". Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "report_graphs.sh"
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
STEPS=50

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$SAMPLES/graph" ]; then
	not_ok "samples not built in $SAMPLES (make samples)"
	exit 1
fi

for name in graph graph_eager; do
	if ! "$GPUREC" record -o "$TMP/$name.trc" -- env "LD_LIBRARY_PATH=$SIM" \
		"GPUSIM_LOG=$TMP/$name.log" "$SAMPLES/$name" $STEPS >"$TMP/$name.out" 2>&1; then
		not_ok "record $name: $(tail -3 "$TMP/$name.out")"
		continue
	fi
	"$GPUREC" info --json "$TMP/$name.trc" >"$TMP/$name.info.json" 2>"$TMP/$name.err" ||
		not_ok "info --json $name: $(cat "$TMP/$name.err")"
	"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.json" 2>"$TMP/$name.err" ||
		not_ok "report --json $name: $(cat "$TMP/$name.err")"
	# ground truth: the simulator logs every kernel it executes
	check "$name: the simulator executed 10 x $STEPS of each kernel" \
		"$((10 * STEPS)) $((10 * STEPS)) $((10 * STEPS)) $((10 * STEPS))" \
		"$(awk '{n[$1]++} END {for (k in n) print n[k]}' "$TMP/$name.log" | tr '\n' ' ' | sed 's/ $//')"
	check "$name: info executed per kernel" \
		"[[\"layer_act(float*, int)\", $((10 * STEPS))], [\"layer_bias(float*, int)\", $((10 * STEPS))], [\"layer_linear(float*, float const*, int)\", $((10 * STEPS))], [\"layer_norm(float*, int)\", $((10 * STEPS))]]" \
		"$(json "$TMP/$name.info.json" 'sorted([k["name"], k["executed"]] for k in d["kernels"])')"
	check "$name: report executed per kernel" "[$((10 * STEPS)), $((10 * STEPS)), $((10 * STEPS)), $((10 * STEPS))]" \
		"$(json "$TMP/$name.json" '[k["executed"] for k in d["launches"]["kernels"]]')"
	check "$name: kernels executed in all" $((40 * STEPS)) \
		"$(json "$TMP/$name.json" 'd["launches"]["executed"]')"
done

# launch calls: graph made each launch once (captured), graph_eager every step
check "graph: launch calls per kernel (the captured ones)" "[10, 10, 10, 10]" \
	"$(json "$TMP/graph.info.json" '[k["count"] for k in d["kernels"]]')"
check "graph_eager: launch calls per kernel" "[$((10 * STEPS)), $((10 * STEPS)), $((10 * STEPS)), $((10 * STEPS))]" \
	"$(json "$TMP/graph_eager.info.json" '[k["count"] for k in d["kernels"]]')"
check "graph: $STEPS graph launches, 40 captured launches" "$STEPS 40" \
	"$(json "$TMP/graph.json" 'str(d["launches"]["graph_launches"]) + " " + str(d["launches"]["node_launches"])')"
check "graph_eager: no graph launch, no node" "0 0" \
	"$(json "$TMP/graph_eager.json" 'str(d["launches"]["graph_launches"]) + " " + str(d["launches"]["node_launches"])')"

# the iteration: one call per graph launch, 40 kernels executed per iteration
check "graph: iteration of 1 launch call, a graph launch, executing 40 kernels" "True 1 1 40 1" \
	"$(json "$TMP/graph.json" '" ".join(str(x) for x in [d["launches"]["iteration"][k] for k in ("found", "launches", "graph_launches", "kernels", "syncs")])')"
check "graph_eager: iteration of 40 launches, 40 kernels" "True 40 0 40 1" \
	"$(json "$TMP/graph_eager.json" '" ".join(str(x) for x in [d["launches"]["iteration"][k] for k in ("found", "launches", "graph_launches", "kernels", "syncs")])')"
# both loops hold every step but the edges the finder may leave out
it=$(json "$TMP/graph.json" 'd["launches"]["iteration"]["count"]')
[ "$it" -ge $((STEPS - 2)) ] && [ "$it" -le $STEPS ] && ok "graph: $it iterations of $STEPS steps" ||
	not_ok "graph: $it iterations, want $((STEPS - 2))..$STEPS"

# fusion: nothing inside the graph; the eager twin's 40-kernel run, once per step
check "graph: no fusion candidate, no run" "0 0" \
	"$(json "$TMP/graph.json" 'str(d["fusion"]["candidates_total"]) + " " + str(d["fusion"]["runs"])')"
check "graph_eager: the 40-kernel step is the fusion candidate, once per step" "40 $STEPS" \
	"$(json "$TMP/graph_eager.json" 'str(d["fusion"]["candidates"][0]["length"]) + " " + str(d["fusion"]["candidates"][0]["occurrences"]) if d["fusion"]["candidates"] else 0')"

# diff: what replaying the step as a graph changed
"$GPUREC" diff "$TMP/graph_eager.trc" "$TMP/graph.trc" >"$TMP/diff.txt" 2>&1
grep -qx "  launches per iteration 40 -> 1 graph launch (40 kernels)" "$TMP/diff.txt" &&
	ok "diff: launches per iteration 40 -> 1 graph launch (40 kernels)" ||
	not_ok "diff: no 'launches per iteration 40 -> 1 graph launch (40 kernels)' line: $(sed -n 2,8p "$TMP/diff.txt")"
check "diff: kernels executed equal on both sides (4 kernels, delta 0)" "4" \
	"$(awk '/^kernels in both/ {on = 1; next} on && NF == 0 {on = 0} on && $1 == '$((10 * STEPS))' && $2 == '$((10 * STEPS))' && $3 == "+0"' "$TMP/diff.txt" | wc -l)"
# export: the 40 captured launches are capture-time markers, never launches executed; each graph
# launch slice names the 40 kernels it ran (10 of each); the eager twin draws every launch
for name in graph graph_eager; do
	"$GPUREC" export "$TMP/$name.trc" -o "$TMP/$name.export.json" >/dev/null 2>"$TMP/$name.err" ||
		not_ok "export $name: $(cat "$TMP/$name.err")"
done
ev='[e for e in d["traceEvents"] if e["ph"] != "M"]'
check "graph export: launch instants, flows, captured markers with graph_node" "0 0 40 40" \
	"$(json "$TMP/graph.export.json" '" ".join(str(len(x)) for x in [[e for e in '"$ev"' if e["ph"] == "i" and e.get("cat") == "kernel"], [e for e in '"$ev"' if e["ph"] == "s"], [e for e in '"$ev"' if e["name"].startswith("captured: ")], [e for e in '"$ev"' if e["args"].get("graph_node") is True]])')"
check "graph export: $STEPS graph launch slices, each 40 kernels, 10 of each" \
	"$STEPS [[40, [10, 10, 10, 10]]]" \
	"$(json "$TMP/graph.export.json" 'str(len([e for e in '"$ev"' if e["name"] == "cudaGraphLaunch"])) + " " + json.dumps(sorted(set((e["args"]["kernels"], tuple(sorted(e["args"]["kernel_counts"].values()))) for e in '"$ev"' if e["name"] == "cudaGraphLaunch")))')"
check "graph_eager export: every launch an instant, no captured marker" "$((40 * STEPS)) 0" \
	"$(json "$TMP/graph_eager.export.json" '" ".join(str(len(x)) for x in [[e for e in '"$ev"' if e["ph"] == "i" and e.get("cat") == "kernel"], [e for e in '"$ev"' if e["name"].startswith("captured: ")]])')"
exit $failures
