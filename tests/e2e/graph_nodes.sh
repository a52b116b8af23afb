# Every graph node kind, with what graph launches executed, exactly (tests/progs/graph_nodes.cu
# and graph_capture_copy.cu on the GPU simulator; tests/progs/driver_graph_nodes.c against the
# test driver): copies by
# direction with their bytes, memsets, host and event nodes, kernels, after set-params in the
# graph and in the executable graph. The transfer report counts the executed copies as
# graph-executed, per direction and per launch; node-building calls are not launch calls; on the
# real runtime, where every call fails, each failed node call is counted once. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "graph_nodes.sh"
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
REAL_CUDART=${REAL_CUDART:-/usr/local/cuda/lib64/libcudart.so.13}
# an expected object as json() prints it (keys sorted), written in a readable order
norm() { python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1]), sort_keys=True))' "$1"; }

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/graph_nodes" ]; then
	not_ok "simulator or progs not built ($SIM, $PROGS)"
	exit 1
fi

# --- the runtime's nodes, on the simulator ---
if "$GPUREC" record -o "$TMP/sim.trc" -- env "LD_LIBRARY_PATH=$SIM" "$PROGS/graph_nodes" \
	>"$TMP/sim.out" 2>&1; then
	# ground truth for the host node: the program counts the simulator's calls of it
	check "simulator: the host node ran once per graph launch" "errors=0 host_calls=6" \
		"$(grep '^errors=' "$TMP/sim.out")"
	"$GPUREC" info --json "$TMP/sim.trc" >"$TMP/sim.json" 2>"$TMP/sim.err" ||
		not_ok "info --json: $(cat "$TMP/sim.err")"
	check "info: what 6 graph launches executed, node kind by node kind" \
		"$(norm '{"graph_launches": 6, "kernels": 12, "copies": [{"kind": "H2D", "count": 12, "bytes": 33792}, {"kind": "D2H", "count": 6, "bytes": 4608}, {"kind": "D2D", "count": 6, "bytes": 14000}], "copy_count": 24, "copy_bytes": 52400, "memsets": 12, "memset_bytes": 2648, "host_nodes": 6, "event_nodes": 12}')" \
		"$(json "$TMP/sim.json" 'd["graph_executed"]')"
	check "info: each kernel node executed 6 times (1 node call each)" \
		'[["nodes_k()", 1, 6], ["nodes_k2()", 1, 6]]' \
		"$(json "$TMP/sim.json" 'sorted([k["name"], k["count"], k["executed"]] for k in d["kernels"])')"
	check "info: graph rows by kind" \
		'[["instantiate", 1], ["launch", 6], ["add-node", 11], ["node-set-params", 4], ["exec-set-params", 4]]' \
		"$(json "$TMP/sim.json" '[[g["kind"], g["count"]] for g in d["graphs"]]')"
	"$GPUREC" report --json "$TMP/sim.trc" >"$TMP/sim.report.json" 2>"$TMP/sim.err" ||
		not_ok "report --json: $(cat "$TMP/sim.err")"
	check "transfer: no copy call, the graph-executed copies by direction and per launch" \
		"$(norm '[0, 0, {"graph_launches": 6, "copies": 24, "bytes": 52400, "memsets": 12, "memset_bytes": 2648, "directions": [{"kind": "H2D", "count": 12, "bytes": 33792, "per_launch_count": 2, "per_launch_bytes": 5632}, {"kind": "D2H", "count": 6, "bytes": 4608, "per_launch_count": 1, "per_launch_bytes": 768}, {"kind": "D2D", "count": 6, "bytes": 14000, "per_launch_count": 1, "per_launch_bytes": 2333}], "per_launch_memset_bytes": 441}]')" \
		"$(json "$TMP/sim.report.json" '[d["transfer"]["copies"], d["transfer"]["memsets"]["count"], d["transfer"]["graph_executed"]]')"
	"$GPUREC" export "$TMP/sim.trc" -o "$TMP/sim.export.json" >/dev/null 2>&1 || not_ok "export"
	# launches 1-4: 6144 + 1024 + 768 + 3000 copied, 256 + 100 set; 5-6: 2048 + 512 + 768 +
	# 1000, 512 + 100
	check "export: what each graph launch executed" \
		'[[2, 4, 2, 10936, 356, 1, 2], [2, 4, 2, 10936, 356, 1, 2], [2, 4, 2, 10936, 356, 1, 2], [2, 4, 2, 10936, 356, 1, 2], [2, 4, 2, 4328, 612, 1, 2], [2, 4, 2, 4328, 612, 1, 2]]' \
		"$(json "$TMP/sim.export.json" '[[a["kernels"], a["copies"], a["memsets"], a["copy_bytes"], a["memset_bytes"], a["host_nodes"], a["event_nodes"]] for a in (e["args"] for e in d["traceEvents"] if e.get("name") == "cudaGraphLaunch")]')"
	check "transfer verdict: the copies ran in graph launches" \
		"no copy or memset call blocked the host: 6 graph launches executed 24 copies (51.2 KiB) and 12 memsets (2.6 KiB) on the GPU" \
		"$(json "$TMP/sim.report.json" 'd["transfer"]["verdict"]')"
	"$GPUREC" report "$TMP/sim.trc" >"$TMP/sim.report.txt" 2>&1
	check "transfer text: the graph-executed H2D line" 1 \
		"$(grep -c 'H2D .* 12 copies .*per launch 2 copies 5.5 KiB' "$TMP/sim.report.txt")"
	# the program makes no launch call but the 6 graph launches, of which the sampler times the
	# thread's second (bpf/gpurec.bpf.c): the one sample is it, never a node-building call
	check "launch cost: from the graph launch call only" "[1, 1]" \
		"$(json "$TMP/sim.report.json" '[d["launches"]["launch_cost_samples"], d["launches"]["graph_launch_cost_samples"]]')"
	# the two kernel node calls launched nothing: no gap between them, in text and HTML alike
	check "launch gaps: graph node calls end no gap" '[null, 0]' \
		"$(json "$TMP/sim.report.json" '[d["launches"]["gaps"][0]["gap"], sum(h["count"] for g in d["launches"]["gaps"] for h in g["histogram"])]')"
else
	not_ok "record on the simulator: $(tail -3 "$TMP/sim.out")"
fi

# --- copies and memsets captured from a stream (tests/progs/graph_capture_copy.cu) ---
if "$GPUREC" record -o "$TMP/cap.trc" -- env "LD_LIBRARY_PATH=$SIM" "$PROGS/graph_capture_copy" \
	>"$TMP/cap.out" 2>&1 && "$GPUREC" report --json "$TMP/cap.trc" >"$TMP/cap.json" 2>&1; then
	check "captured: the one copy call, and what 5 graph launches copied and set" \
		"$(norm '[1, 100, 0, {"graph_launches": 5, "copies": 10, "bytes": 15000, "memsets": 5, "memset_bytes": 1500, "directions": [{"kind": "H2D", "count": 5, "bytes": 10000, "per_launch_count": 1, "per_launch_bytes": 2000}, {"kind": "D2H", "count": 5, "bytes": 5000, "per_launch_count": 1, "per_launch_bytes": 1000}], "per_launch_memset_bytes": 300}]')" \
		"$(json "$TMP/cap.json" '[d["transfer"]["copies"], d["transfer"]["bytes"], d["transfer"]["memsets"]["count"], d["transfer"]["graph_executed"]]')"
	# the HTML copies chart draws them apart (the page's DOM as a headless Chromium builds it)
	if ! command -v chromium >/dev/null 2>&1; then
		ok "# SKIP no chromium for the HTML copies chart"
	elif "$GPUREC" report --html -o "$TMP/cap.html" "$TMP/cap.trc" >/dev/null 2>&1; then
		timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom \
			"file://$TMP/cap.html" >"$TMP/cap.dom" 2>/dev/null
		check "HTML: the copies chart shows the graph-executed bytes and memsets" 2 \
			"$(grep -oE -e 'graph-executed bytes by direction \(5 graph launches\)' \
				-e '5 memsets, 1.46 KiB set by graph launches' "$TMP/cap.dom" | wc -l)"
	else
		not_ok "report --html of graph_capture_copy"
	fi
else
	not_ok "record graph_capture_copy: $(tail -3 "$TMP/cap.out")"
fi

# --- on the real runtime, no driver: every call fails, each node call counted once ---
if [ ! -f "$REAL_CUDART" ]; then
	ok "# SKIP no real runtime at $REAL_CUDART"
elif "$GPUREC" record -o "$TMP/real.trc" -- "$PROGS/graph_nodes" >"$TMP/real.out" 2>&1; then
	check "record: the failed calls, each once" 1 \
		"$(grep -c 'every call that returned failed: 23 calls,' "$TMP/real.out")"
	"$GPUREC" info --json "$TMP/real.trc" >"$TMP/real.json" 2>"$TMP/real.err" ||
		not_ok "info --json real: $(cat "$TMP/real.err")"
	check "info: 2 kernel node and 2 memset node calls failed, each counted once" \
		'[["cudaGraphAddKernelNode", 2], ["cudaGraphAddMemsetNode", 2], 23, 0]' \
		"$(json "$TMP/real.json" '[[e["api"], e["count"]] for e in d["errors"] if e["api"] in ("cudaGraphAddKernelNode", "cudaGraphAddMemsetNode")] + [d["calls"]["failed"], d["calls"]["ok"]]')"
	"$CALLS" "$TMP/real.trc" >"$TMP/real.calls" 2>"$TMP/real.err" ||
		not_ok "trace_calls real: $(cat "$TMP/real.err")"
	# 3D 4096, set 6144, exec set 2048 + to symbol 1024, exec set 512; from symbol 512, set
	# 768; 1D 2048, set 3000, exec set 1000
	check "real runtime: the memcpy nodes' arguments" \
		'[["H2D", 5, 13824], ["D2H", 2, 1280], ["D2D", 3, 6048]]' \
		"$(json "$TMP/real.calls" 'd["copies"]')"
	# 32 x 4, set 64 x 4, 100 x 1, exec set 128 x 4
	check "real runtime: the memset nodes' arguments" '[4, 996]' \
		"$(json "$TMP/real.calls" 'd["memsets"]')"
	check "real runtime: the host and event nodes' calls" \
		'["cudaGraphAddEventRecordNode cudaErrorInsufficientDriver 1", "cudaGraphAddEventWaitNode cudaErrorInsufficientDriver 1", "cudaGraphAddHostNode cudaErrorInsufficientDriver 1"]' \
		"$(json "$TMP/real.calls" 'sorted(k for k in d["status"] if "Host" in k or "Event" in k)')"
else
	not_ok "record on the real runtime: $(tail -3 "$TMP/real.out")"
fi

# --- the driver API's nodes (tests/progs/driver_graph_nodes.c against the test driver) ---
if "$GPUREC" record -o "$TMP/drv.trc" -- "$PROGS/driver_graph_nodes" \
	"$PROGS/fakecuda/libcuda.so.1" >"$TMP/drv.out" 2>&1; then
	"$GPUREC" info --json "$TMP/drv.trc" >"$TMP/drv.json"
	check "driver API: what 5 graph launches executed" \
		"$(norm '{"graph_launches": 5, "kernels": 5, "copies": [{"kind": "H2D", "count": 5, "bytes": 11000}, {"kind": "D2H", "count": 5, "bytes": 3500}], "copy_count": 10, "copy_bytes": 14500, "memsets": 5, "memset_bytes": 1400, "host_nodes": 5, "event_nodes": 10}')" \
		"$(json "$TMP/drv.json" 'd["graph_executed"]')"
	check "driver API: the kernel node" '[["drv_nodes_k", 1, 5]]' \
		"$(json "$TMP/drv.json" '[[k["name"], k["count"], k["executed"]] for k in d["kernels"]]')"
else
	not_ok "record driver_graph_nodes: $(tail -3 "$TMP/drv.out")"
fi
exit $((failures > 0))
