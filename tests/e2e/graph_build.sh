# A CUDA graph built by hand (tests/progs/graph_build.cu: kernel nodes, a child graph, set-params
# on the graph and on the executable graph, an exec update, a clone), recorded on the GPU
# simulator, whose launch log says what executed: gpurec must count each kernel and each launch
# configuration executed exactly as the simulator ran them. Then on the real runtime without a
# driver, where every call fails (cudaErrorInsufficientDriver): nothing executed, and the building
# calls' arguments (the kernel node configurations) are in the trace. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "graph_build.sh"
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
REAL_CUDART=${REAL_CUDART:-/usr/local/cuda/lib64/libcudart.so.13}

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/graph_build" ]; then
	not_ok "simulator or progs not built ($SIM, $PROGS)"
	exit 1
fi

# --- on the simulator ---
if "$GPUREC" record -o "$TMP/sim.trc" -- env "LD_LIBRARY_PATH=$SIM" "GPUSIM_LOG=$TMP/sim.log" \
	"$PROGS/graph_build" >"$TMP/sim.out" 2>&1; then
	# ground truth: the simulator logs every kernel it executes with its grid and block
	check "simulator: executions per kernel and config" \
		"_Z6node_av 16,1,1 128,1,1 6;_Z6node_av 4,1,1 128,1,1 3;_Z6node_bv 5,1,1 64,1,1 2;_Z6node_bv 8,1,1 64,1,1 7;_Z7child_kv 1,1,1 32,1,1 9" \
		"$(awk '{n[$1 " " $2 " " $3]++} END {for (k in n) print k, n[k]}' "$TMP/sim.log" | sort | tr '\n' ';' | sed 's/;$//')"
	"$GPUREC" info --json "$TMP/sim.trc" >"$TMP/sim.json" 2>"$TMP/sim.err" ||
		not_ok "info --json: $(cat "$TMP/sim.err")"
	check "info: kernel node calls and executions per kernel" \
		'[["child_k()", 1, 9], ["node_a()", 2, 9], ["node_b()", 3, 9]]' \
		"$(json "$TMP/sim.json" 'sorted([k["name"], k["count"], k["executed"]] for k in d["kernels"])')"
	# node_b <<<(2, 3)>>> was set to <<<8>>> before the instantiation: it never ran
	check "info: executions per launch configuration" \
		'[["child_k()", [1, 1, 1], [32, 1, 1], 9], ["node_a()", [4, 1, 1], [128, 1, 1], 3], ["node_a()", [16, 1, 1], [128, 1, 1], 6], ["node_b()", [2, 3, 1], [64, 1, 1], 0], ["node_b()", [5, 1, 1], [64, 1, 1], 2], ["node_b()", [8, 1, 1], [64, 1, 1], 7]]' \
		"$(json "$TMP/sim.json" 'sorted([k["name"], c["grid"], c["block"], c["executed"]] for k in d["kernels"] for c in k["configs"])')"
	"$CALLS" "$TMP/sim.trc" >"$TMP/sim.calls" 2>"$TMP/sim.err" || not_ok "trace_calls: $(cat "$TMP/sim.err")"
	check "sim: graph rows by kind" \
		'[["instantiate", 1], ["launch", 9], ["add-node", 3], ["add-child-graph", 1], ["node-set-params", 2], ["exec-set-params", 1], ["exec-update", 1], ["clone", 1]]' \
		"$(json "$TMP/sim.calls" 'd["graphs"]')"
else
	not_ok "record on the simulator: $(tail -3 "$TMP/sim.out")"
fi

# --- on the real runtime, no driver: every call fails ---
if [ ! -f "$REAL_CUDART" ]; then
	ok "# SKIP no real runtime at $REAL_CUDART"
elif "$GPUREC" record -o "$TMP/real.trc" -- "$PROGS/graph_build" >"$TMP/real.out" 2>&1; then
	"$GPUREC" info --json "$TMP/real.trc" >"$TMP/real.json" 2>"$TMP/real.err" ||
		not_ok "info --json real: $(cat "$TMP/real.err")"
	check "real runtime: no kernel counted (every call failed)" "[]" \
		"$(json "$TMP/real.json" 'd["kernels"]')"
	"$CALLS" "$TMP/real.trc" >"$TMP/real.calls" 2>"$TMP/real.err" ||
		not_ok "trace_calls real: $(cat "$TMP/real.err")"
	check "real runtime: the kernel node configurations captured" \
		'{"cudaGraphAddKernelNode 1,1,1 32,1,1 0": 1, "cudaGraphAddKernelNode 2,3,1 64,1,1 0": 1, "cudaGraphAddKernelNode 4,1,1 128,1,1 0": 1, "cudaGraphExecKernelNodeSetParams 5,1,1 64,1,1 0": 1, "cudaGraphKernelNodeSetParams 16,1,1 128,1,1 0": 1, "cudaGraphKernelNodeSetParams 8,1,1 64,1,1 0": 1}' \
		"$(json "$TMP/real.calls" 'd["launch_configs"]')"
	# a kernel node call writes two rows (its LAUNCH and its GRAPH row), but is one call: a
	# failed one is counted once, by its LAUNCH row
	check "real runtime: the building calls, all failed with status 35, each once" \
		'[["cudaGraphAddChildGraphNode", "cudaErrorInsufficientDriver", 1], ["cudaGraphAddKernelNode", "cudaErrorInsufficientDriver", 3], ["cudaGraphClone", "cudaErrorInsufficientDriver", 1], ["cudaGraphExecKernelNodeSetParams", "cudaErrorInsufficientDriver", 1], ["cudaGraphExecUpdate", "cudaErrorInsufficientDriver", 1], ["cudaGraphKernelNodeSetParams", "cudaErrorInsufficientDriver", 2]]' \
		"$(json "$TMP/real.calls" 'sorted([k.split()[0], k.split()[1], v] for k, v in d["status"].items() if "Node" in k or "Clone" in k or "ExecUpdate" in k)')"
else
	not_ok "record on the real runtime: $(tail -3 "$TMP/real.out")"
fi

# memory nodes (tests/progs/graph_memnodes.cu): each of 3 graph launches runs 1 kernel, 1 copy
# and 1 memset; on the real runtime the nodes' arguments are captured though every call fails
if "$GPUREC" record -o "$TMP/mem.trc" -- env "LD_LIBRARY_PATH=$SIM" "$PROGS/graph_memnodes" \
	>"$TMP/mem.out" 2>&1 && "$GPUREC" export "$TMP/mem.trc" -o "$TMP/mem.json" >/dev/null 2>&1; then
	check "memory nodes: what each graph launch ran (kernels, copies, memsets)" \
		'[[1, 1, 1], [1, 1, 1], [1, 1, 1]]' \
		"$(json "$TMP/mem.json" '[[e["args"]["kernels"], e["args"]["copies"], e["args"]["memsets"]] for e in d["traceEvents"] if e.get("name") == "cudaGraphLaunch"]')"
	"$GPUREC" report --json "$TMP/mem.trc" >"$TMP/mem.report.json"
	check "memory nodes: the transfer report counts no node as a copy or memset made" \
		'[0, 0]' "$(json "$TMP/mem.report.json" '[d["transfer"]["copies"], d["transfer"]["memsets"]["count"]]')"
else
	not_ok "record graph_memnodes: $(tail -3 "$TMP/mem.out")"
fi
"$GPUREC" record -o "$TMP/memr.trc" -- "$PROGS/graph_memnodes" >/dev/null 2>&1
check "memory nodes, real runtime: the nodes' arguments, every call failed" \
	'[[["H2D", 1, 4096]], [1, 1024], ["cudaGraphAddKernelNode cudaErrorInsufficientDriver 1", "cudaGraphAddMemcpyNode1D cudaErrorInsufficientDriver 1", "cudaGraphAddMemsetNode cudaErrorInsufficientDriver 1"]]' \
	"$("$CALLS" "$TMP/memr.trc" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps([d["copies"], d["memsets"], sorted(k for k in d["status"] if "Node" in k)]))')"

# the driver API's own building calls (tests/progs/driver_graph.c against the test driver): a
# kernel node, a child graph with one, instantiate, 5 launches, exec set-params, 2 launches
if "$GPUREC" record -o "$TMP/drv.trc" -- "$PROGS/driver_graph" "$PROGS/fakecuda/libcuda.so.1" \
	>"$TMP/drv.out" 2>&1; then
	"$GPUREC" info --json "$TMP/drv.trc" >"$TMP/drv.json"
	check "driver API: kernels executed per config, through graph launches" \
		'[["drv_graph_a", 2, 7, [[[7, 1, 1], 5], [[9, 1, 1], 2]]], ["drv_graph_b", 1, 7, [[[2, 1, 1], 7]]]]' \
		"$(json "$TMP/drv.json" '[[k["name"], k["count"], k["executed"], [[c["grid"], c["executed"]] for c in k["configs"]]] for k in d["kernels"]]')"
	check "driver API: the graph calls by kind" \
		'[["instantiate", 1], ["launch", 7], ["add-node", 2], ["add-child-graph", 1], ["exec-set-params", 1]]' \
		"$(json "$TMP/drv.json" '[[g["kind"], g["count"]] for g in d["graphs"]]')"
else
	not_ok "record driver_graph: $(tail -3 "$TMP/drv.out")"
fi
exit $((failures > 0))
