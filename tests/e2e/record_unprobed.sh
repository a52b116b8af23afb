#!/usr/bin/env bash
# A library that runs CUDA code through a runtime copy of its own (cuBLAS, cuBLASLt: nothing in
# them can be probed) is named by info as not probed, once, next to the probed libcudart; a
# library without CUDA code (libz) is not. The program only loads them: neither needs a driver.
. "$(dirname "$0")/lib.sh"
need_root record_unprobed
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64}
ZLIB=$(ldconfig -p | awk '$1 == "libz.so.1" && /x86-64/ { print $NF; exit }')

for f in libcudart.so.13 libcublasLt.so.13 libcublas.so.13; do
	if [ ! -e "$CUDA_LIB/$f" ]; then
		echo "ok - # SKIP $CUDA_LIB/$f is missing"
		exit 0
	fi
done
# /proc/PID/maps names the file behind the links (cuda -> cuda-13.0, lib64 -> lib)
rt=$(readlink -f "$CUDA_LIB/libcudart.so.13")
lt=$(readlink -f "$CUDA_LIB/libcublasLt.so.13")
blas=$(readlink -f "$CUDA_LIB/libcublas.so.13")

# libcublasLt loaded twice over: by path, then as libcublas's dependency
"$GPUREC" record -o "$TMP/blas.trc" -- "$PROGS/dlopen_all" "$CUDA_LIB/libcudart.so.13" \
	"$CUDA_LIB/libcublasLt.so.13" "$CUDA_LIB/libcublas.so.13" >/dev/null 2>"$TMP/rec.err"
check "the program loads the three libraries without a driver" 0 $?
"$GPUREC" info --json "$TMP/blas.trc" >"$TMP/blas.json"
check "libcudart is probed" "[\"$rt\"]" "$(json "$TMP/blas.json" 'd["cuda_libraries"]')"
check "cuBLASLt and cuBLAS are named not probed, once each, in load order" \
	"[\"$lt\", \"$blas\"]" "$(json "$TMP/blas.json" 'd["unprobed_libraries"]')"
"$GPUREC" info "$TMP/blas.trc" >"$TMP/blas.txt"
check "info says what is not seen of each" 2 \
	"$(grep -c " (carries its own CUDA runtime: its internal CUDA calls are not seen, only its calls into the probed libcudart/libcuda)$" "$TMP/blas.txt")"
check "info's line names cuBLASLt after the CUDA libs" "  not probed   $lt" \
	"$(grep -A1 '^  CUDA libs' "$TMP/blas.txt" | sed -n 2p | sed 's/ (carries.*//')"

# not CUDA: libz (and libc, the program, the loader) are not named
if [ -n "$ZLIB" ]; then
	"$GPUREC" record -o "$TMP/z.trc" -- "$PROGS/dlopen_all" "$ZLIB" >/dev/null 2>&1
	check "the program loads libz" 0 $?
	check "a program that loads only libz names no unprobed library" "[] []" \
		"$("$GPUREC" info --json "$TMP/z.trc" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["unprobed_libraries"], d["cuda_libraries"])')"
	"$GPUREC" info "$TMP/z.trc" >"$TMP/z.txt"
	check "info prints no not-probed line" 0 "$(grep -c 'not probed' "$TMP/z.txt")"
else
	not_ok "libz.so.1 not found by ldconfig"
fi

# the nvcc-built program on the shared libcudart has device code too, but imports its runtime
check "the CUDA program carries device code (.nv_fatbin), as cuBLAS does" 1 \
	"$(readelf -SW "$PROGS/launches" | grep -c ' \.nv_fatbin ')"
"$GPUREC" record -o "$TMP/l.trc" -- "$PROGS/launches" 5 >/dev/null 2>&1
check "a CUDA program on the shared libcudart is not named unprobed" "[]" \
	"$("$GPUREC" info --json "$TMP/l.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["unprobed_libraries"])')"
exit $((failures > 0))
