#!/usr/bin/env bash
# The capture surface beyond one thread: per-thread default stream, fork, static cudart, a
# late dlopen of a renamed runtime with a stripped kernel library, driver-API launches with
# names (and runtime calls that reach the driver counted once, however long they take to reach
# it).
. "$(dirname "$0")/lib.sh"
need_root record_tree

info() { "$GPUREC" info --json "$1" >"$1.json" 2>"$1.err" || not_ok "info $1: $(cat "$1.err")"; }

# four threads through cudaLaunchKernel_ptsz
"$GPUREC" record -o "$TMP/t.trc" -- "$PROGS/threads" >/dev/null 2>&1
info "$TMP/t.trc"
check "threads: 1000 launches" 1000 "$(json "$TMP/t.trc.json" 'd["launches"]')"
check "threads: 4 launching threads of 250" "[250, 250, 250, 250]" "$(json "$TMP/t.trc.json" 'sorted(t["launches"] for t in d["threads"] if t["launches"])')"
check "threads: one kernel, 4 grids" "[1, 2, 3, 4]" "$(json "$TMP/t.trc.json" 'sorted(c["grid"][0] for c in d["kernels"][0]["configs"])')"
check "threads: kernel name" "worker(float*, int)" "$(json "$TMP/t.trc.json" 'd["kernels"][0]["name"]')"

# parent and forked child
"$GPUREC" record -o "$TMP/f.trc" -- "$PROGS/forked" >/dev/null 2>&1
info "$TMP/f.trc"
check "fork: two processes launch" "[50, 110]" "$(json "$TMP/f.trc.json" 'sorted(p["launches"] for p in d["processes"] if p["launches"])')"
check "fork: kernels" '{"child_kernel(float*)": 50, "parent_kernel(float*)": 110}' "$(json "$TMP/f.trc.json" '{k["name"]: k["count"] for k in d["kernels"]}')"
# both register both kernels; a name is written once per process, for what it launched
pids=$(json "$TMP/f.trc.json" '" ".join(str(p["pid"]) for p in sorted(d["processes"], key=lambda p: -p["launches"]) if p["launches"])')
parent=${pids% *} child=${pids#* }
check "fork: names written, parent" "kernel parent_kernel(float*)|raw _Z13parent_kernelPf|" "$("$NAMES" "$TMP/f.trc" | awk -v p="$parent" '$1 == p { $1 = ""; $3 = ""; sub(/^ /, ""); sub(/  /, " "); printf "%s|", $0 }')"
check "fork: names written, child" "kernel child_kernel(float*)|raw _Z12child_kernelPf|" "$("$NAMES" "$TMP/f.trc" | awk -v p="$child" '$1 == p { $1 = ""; $3 = ""; sub(/^ /, ""); sub(/  /, " "); printf "%s|", $0 }')"

# static cudart inside the executable
"$GPUREC" record -o "$TMP/s.trc" -- "$PROGS/launches_static" >/dev/null 2>&1
info "$TMP/s.trc"
check "static: 300 launches" 300 "$(json "$TMP/s.trc.json" 'd["launches"]')"
check "static: name and config" '["static_kernel(int*)", [1000, 2, 1], [128, 1, 1], 64]' "$(json "$TMP/s.trc.json" '[d["kernels"][0]["name"], d["kernels"][0]["configs"][0]["grid"], d["kernels"][0]["configs"][0]["block"], d["kernels"][0]["configs"][0]["shared_mem"]]')"
check "static: copies" "[[\"H2D\", 2, 1024]]" "$("$CALLS" "$TMP/s.trc" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["copies"]))')"

# a renamed runtime dlopen()ed late from a temporary directory, and a stripped kernel library
mkdir -p "$TMP/site-packages/nvidia"
cp /usr/local/cuda/lib64/libcudart.so.13 "$TMP/site-packages/nvidia/libcudart-6d56b25a.so.13"
cp "$PROGS/libkern.so" "$TMP/site-packages/libkern.so"
"$GPUREC" record -o "$TMP/d.trc" -- "$PROGS/late_loader" "$TMP/site-packages/nvidia/libcudart-6d56b25a.so.13" "$TMP/site-packages/libkern.so" 33 >/dev/null 2>&1
check "late dlopen: recorded" 0 $?
info "$TMP/d.trc"
check "late dlopen: 33 launches" 33 "$(json "$TMP/d.trc.json" 'd["launches"]')"
check "late dlopen: name from registration (stripped library)" "late_kernel(float*, int)" "$(json "$TMP/d.trc.json" 'd["kernels"][0]["name"]')"
check "late dlopen: config" "[[5, 1, 1], [32, 2, 1]]" "$(json "$TMP/d.trc.json" '[d["kernels"][0]["configs"][0]["grid"], d["kernels"][0]["configs"][0]["block"]]')"

# driver API, with a stand-in libcuda.so.1 (same ABI; no GPU here)
"$GPUREC" record -o "$TMP/dr.trc" -- "$PROGS/driver_launch" "$PROGS/fakecuda/libcuda.so.1" >/dev/null 2>&1
info "$TMP/dr.trc"
check "driver: launches (runtime launches reaching the driver counted once)" 75 "$(json "$TMP/dr.trc.json" 'd["launches"]')"
check "driver: names and counts" '{"cublas_gemm_kernel": 20, "func 0x4242": 15, "triton_fused_add": 40}' "$(json "$TMP/dr.trc.json" '{k["name"]: k["count"] for k in d["kernels"]}')"
check "driver: cuLaunchKernel config" "[[128, 1, 1], [256, 1, 1], 1024]" "$(json "$TMP/dr.trc.json" '[[c["grid"], c["block"], c["shared_mem"]] for k in d["kernels"] if k["name"] == "triton_fused_add" for c in k["configs"]][0]')"
check "driver: cuLaunchKernelEx config" "[[7, 8, 9], [32, 8, 1], 4096]" "$(json "$TMP/dr.trc.json" '[[c["grid"], c["block"], c["shared_mem"]] for k in d["kernels"] if k["name"] == "cublas_gemm_kernel" for c in k["configs"]][0]')"
check "driver: copies counted once" '[["H2D", 5, 8960]]' "$(json "$TMP/dr.trc.json" '[[c["kind"], c["count"], c["bytes"]] for c in d["copies"]]')"
check "driver: alloc and sync" "[1, 1]" "$(json "$TMP/dr.trc.json" '[d["events_by_kind"]["alloc"], d["events_by_kind"]["sync"]]')"
# a runtime launch that takes 3 ms to reach the driver is still one launch; a driver launch right
# after a runtime launch that failed before the driver is still recorded
"$GPUREC" record -o "$TMP/sl.trc" -- "$PROGS/driver_launch" "$PROGS/fakecuda/libcuda.so.1" slow >/dev/null 2>&1
info "$TMP/sl.trc"
check "driver: slow runtime launches counted once, driver launches after failed ones kept" \
	'{"func 0x0": 4, "func 0x5107": 5, "triton_fused_add": 4}' \
	"$(json "$TMP/sl.trc.json" '{k["name"]: k["count"] for k in sorted(d["kernels"], key=lambda k: k["name"])}')"
exit $failures
