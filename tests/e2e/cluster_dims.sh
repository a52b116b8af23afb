# Thread block cluster dimensions (a launch attribute) are recorded and shown beside grid and
# block: cudaLaunchKernelExC / cudaLaunchKernelEx on the real libcudart (tests/progs/
# cluster_launch.cu; the calls fail without a driver, the configs are seen) and cuLaunchKernelEx
# against the test driver (tests/progs/driver_cluster.c): info and report JSON, the text kernel
# table, the export's launch args, the HTML. A trace older than the columns opens without them.
# Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "cluster_dims.sh"

if [ ! -x "$PROGS/cluster_launch" ] || [ ! -x "$PROGS/driver_cluster" ]; then
	not_ok "progs not built ($PROGS)"
	exit 1
fi

if "$GPUREC" record -o "$TMP/rt.trc" -- "$PROGS/cluster_launch" >"$TMP/rt.out" 2>&1; then
	"$GPUREC" info --json "$TMP/rt.trc" >"$TMP/rt.json" 2>"$TMP/rt.err" ||
		not_ok "info --json: $(cat "$TMP/rt.err")"
	check "runtime: configs with their cluster (null: none set)" \
		'[["cluster_k(int)", [8, 4, 1], [128, 1, 1], [4, 2, 1], 0, 5], ["cluster_k(int)", [8, 4, 1], [128, 1, 1], null, 0, 2], ["cluster_k2(int)", [6, 1, 1], [64, 1, 1], [2, 1, 1], 256, 3]]' \
		"$(json "$TMP/rt.json" '[[k["name"], c["grid"], c["block"], c["cluster"], c["shared_mem"], c["count"]] for k in d["kernels"] for c in k["configs"]]')"
	"$GPUREC" report --json "$TMP/rt.trc" >"$TMP/rt.report.json" 2>"$TMP/rt.err" ||
		not_ok "report --json: $(cat "$TMP/rt.err")"
	check "report JSON: the kernel configs' clusters" \
		'[[4, 2, 1], [2, 1, 1], null]' \
		"$(json "$TMP/rt.report.json" 'sorted((c["cluster"] for k in d["launches"]["kernels"] for c in k["configs"]), key=lambda c: c is None)')"
	"$GPUREC" report "$TMP/rt.trc" >"$TMP/rt.report.txt" 2>&1
	check "report text: the config column says the cluster" 2 \
		"$(grep -cF -e '(8,4,1) (128,1,1) 0 cluster (4,2,1): 5,' \
			-e '(6,1,1) (64,1,1) 256 cluster (2,1,1): 3,' "$TMP/rt.report.txt")"
	"$GPUREC" export "$TMP/rt.trc" -o "$TMP/rt.export.json" >/dev/null 2>&1 ||
		not_ok "export"
	check "export: launch args carry the cluster, none without one" \
		'{"(2,1,1)": 6, "(4,2,1)": 10, "none": 4}' \
		"$(json "$TMP/rt.export.json" 'dict(__import__("collections").Counter(e["args"].get("cluster", "none") for e in d["traceEvents"] if e.get("args", {}).get("kernel")))')"
	"$GPUREC" report --html -o "$TMP/rt.html" "$TMP/rt.trc" >/dev/null 2>&1 || not_ok "report --html"
	check "HTML: the launch detail says the cluster" 1 \
		"$(grep -c 'grid (8,4,1) block (128,1,1) cluster (4,2,1)' "$TMP/rt.html")"
else
	not_ok "record cluster_launch: $(tail -3 "$TMP/rt.out")"
fi

if "$GPUREC" record -o "$TMP/drv.trc" -- "$PROGS/driver_cluster" "$PROGS/fakecuda/libcuda.so.1" \
	>"$TMP/drv.out" 2>&1; then
	"$GPUREC" info --json "$TMP/drv.trc" >"$TMP/drv.json"
	check "driver: cuLaunchKernelEx's cluster attribute, after another attribute" \
		'[["drv_cluster_k", [16, 2, 1], [256, 1, 1], [2, 2, 1], 4], ["drv_cluster_k", [16, 2, 1], [256, 1, 1], null, 3]]' \
		"$(json "$TMP/drv.json" '[[k["name"], c["grid"], c["block"], c["cluster"], c["count"]] for k in d["kernels"] for c in k["configs"]]')"
else
	not_ok "record driver_cluster: $(tail -3 "$TMP/drv.out")"
fi

# a trace written before the cluster columns existed opens, its configs without a cluster
if "$GPUREC" info --json tests/data/old/nofp_fakefp.trc >"$TMP/old.json" 2>"$TMP/old.err"; then
	check "old trace: no cluster" '[null]' \
		"$(json "$TMP/old.json" '[c["cluster"] for k in d["kernels"] for c in k["configs"]]')"
else
	not_ok "old trace: $(cat "$TMP/old.err")"
fi
exit $((failures > 0))
