#!/usr/bin/env bash
# Every allocator, recorded with its size, kind, status and the stack of its call: tests/progs/
# alloc_calls makes each runtime and driver allocation call once with known sizes, on a line it
# prints, and frees them. On the GPU simulator with a 1 GiB device (GPUSIM_MEM_BYTES): pitched
# sizes are the pitch the program got times its rows, arrays their elements times the channel
# format's bytes, the stream-ordered pool gives the freed block back at the same address, a VMM
# mapping names the physical handle it maps, a cudaFree waits for the device, the 2 GiB request
# fails with
# cudaErrorMemoryAllocation (2) and report names its line, and the memory queries hold what the
# program printed. tool_trace_allocs prints the rows (its header says how). An allocation made
# from Python through ctypes carries its Python frames. On the real runtime
# without a driver every allocation is recorded as failed (35) with the size asked, and nothing
# holds an address.
. "$(dirname "$0")/lib.sh"
need_root record_alloc
ALLOCS=${ALLOCS:-$PWD/$O/tests/tool_trace_allocs}
STACKS=${STACKS:-$PWD/$O/tests/tool_trace_stacks}
SAMPLES=${SAMPLES:-$PWD/$O/samples}

for f in "$PROGS/alloc_calls" "$ALLOCS" "$STACKS" "$SAMPLES/sim/libcudart.so.13" "$SAMPLES/sim/libcuda.so.1"; do
	if [ ! -x "$f" ] && [ ! -f "$f" ]; then
		not_ok "$f not built (make test-bins)"
		exit 1
	fi
done

GPUSIM_MEM_BYTES=1073741824 LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/s.trc" -- \
	"$PROGS/alloc_calls" >"$TMP/s.out" 2>"$TMP/s.err"
check "record alloc_calls on the simulator" 0 $?
L() { sed -n "s/^line $1 //p" "$TMP/s.out"; }
S() { echo "alloc_calls.cu:$(L "$1")"; }
P=$(sed -n 's/^pitch //p' "$TMP/s.out") P3=$(sed -n 's/^pitch3d //p' "$TMP/s.out")
check "the simulator's pitches: 1000 and 100 bytes rounded up to 512" "1024 512" "$P $P3"
check "the pool gave the freed block back" 1 "$(sed -n 's/^reused //p' "$TMP/s.out")"
# the memory queries' answers, as printed: before anything, after the allocations, the driver's
mi() { sed -n "s/^meminfo $1 //p" "$TMP/s.out" | sed -n "${2}p"; }
check "the device's free memory fell by what the allocations hold" \
	"1073741824 1073741824 / $((1073741824 - (1 << 20) - 10240 - 6144 - (2 << 20) - 2048 - 4096 - 2048)) 1073741824" \
	"$(mi cudaMemGetInfo 1) / $(mi cudaMemGetInfo 2)"

cat >"$TMP/s.want" <<EOF2
meminfo cudaMemGetInfo $(mi cudaMemGetInfo 1) 0 $(S meminfo0)
alloc cudaMalloc device 1048576 0 a1 - $(S cudaMalloc)
alloc cudaMallocPitch device $((P * 10)) 0 a2 - $(S cudaMallocPitch)
alloc cudaMalloc3D device $((P3 * 4 * 3)) 0 a3 - $(S cudaMalloc3D)
alloc cudaMallocManaged managed 2097152 0 a4 - $(S cudaMallocManaged)
alloc cudaMallocArray array 2048 0 a5 - $(S cudaMallocArray)
alloc cudaMalloc3DArray array 4096 0 a6 - $(S cudaMalloc3DArray)
alloc cudaMallocMipmappedArray array 2048 0 a7 - $(S cudaMallocMipmappedArray)
alloc cudaMallocHost host-pinned 4096 0 a8 - $(S cudaMallocHost)
alloc cudaHostAlloc host-pinned 8192 0 a9 - $(S cudaHostAlloc)
alloc cudaHostRegister host-registered 16384 0 a10 - $(S cudaHostRegister)
alloc cudaMallocAsync device-async 3145728 0 a11 - $(S cudaMallocAsync)
free cudaFreeAsync device-async 0 a11
alloc cudaMallocFromPoolAsync device-async 3145728 0 a11 a12 $(S cudaMallocFromPoolAsync)
free cudaFreeAsync device-async 0 a11
alloc cudaMalloc device 2147483648 2 - - $(S big)
meminfo cudaMemGetInfo $(mi cudaMemGetInfo 2) 0 $(S meminfo1)
meminfo cuMemGetInfo $(mi cuMemGetInfo 1) 0 $(S cuMemGetInfo)
alloc cuMemAlloc device 5242880 0 a13 - $(S cuMemAlloc)
free cuMemFree device 0 a13
alloc cuMemCreate vmm-physical 2097152 0 a14 - $(S cuMemCreate)
alloc cuMemAddressReserve vmm-reserve 4194304 0 a15 - $(S cuMemAddressReserve)
alloc cuMemMap vmm-map 2097152 0 a15 a14 $(S cuMemMap)
free cuMemUnmap vmm-map 0 a15
free cuMemAddressFree vmm-reserve 0 a15
free cuMemRelease vmm-physical 0 a14
free cudaFree device 0 a1
free cudaFree device 0 a2
free cudaFree device 0 a3
free cudaFree device 0 a4
free cudaFreeArray array 0 a5
free cudaFreeArray array 0 a6
free cudaFreeMipmappedArray array 0 a7
free cudaFreeHost host-pinned 0 a8
free cudaFreeHost host-pinned 0 a9
free cudaHostUnregister host-registered 0 a10
EOF2
"$ALLOCS" "$TMP/s.trc" >"$TMP/s.got"
if diff "$TMP/s.want" "$TMP/s.got" >"$TMP/s.diff"; then
	ok "simulator: every allocator's row: kind, bytes, status, address, handle, call site"
else
	not_ok "simulator: the rows differ from the program's calls: $(paste -sd' ' "$TMP/s.diff")"
fi
# the first cudaFree waits for the 20 ms kernel queued before it (a lower bound: a busy machine
# only makes the wait longer); the frees after it find the device idle
check "the first cudaFree waited for the device (>= 15 ms)" 1 \
	"$("$ALLOCS" --dur "$TMP/s.trc" | awk '$1 == "free" && $2 == "cudaFree" {print ($NF >= 15000000); exit}')"
check "every allocation call has a stack with the program's line" \
	"$(grep -c '^alloc' "$TMP/s.want")" "$(grep '^alloc' "$TMP/s.got" | grep -c 'alloc_calls.cu:')"

"$GPUREC" report "$TMP/s.trc" >"$TMP/s.rep" 2>&1
check "report: the failed cudaMalloc's first call names its line" 1 \
	"$(grep -A2 'cudaErrorMemoryAllocation' "$TMP/s.rep" | grep -c "$(S big) main -> cudaMalloc")"
"$GPUREC" info --json "$TMP/s.trc" >"$TMP/s.json"
check "info: allocations by kind, the new kinds by name" \
	"device 4 $(((1 << 20) + P * 10 + P3 * 12 + (5 << 20))) / device-async 2 6291456 / managed 1 2097152 / host-pinned 2 12288 / host-registered 1 16384 / array 3 8192 / vmm-physical 1 2097152 / vmm-map 1 2097152 / vmm-reserve 1 4194304" \
	"$(json "$TMP/s.json" '" / ".join("%s %d %d" % (a["kind"], a["count"], a["bytes"]) for a in d["allocations"])')"

# a trace of format 1.0 (before the ALLOC stack and handle columns) opens: no stack, no handle
check "a 1.0 trace's allocations read without stack or handle" \
	"alloc cudaMalloc device 27033600 0 a1 - nostack|alloc cudaMalloc device 1081344 0 a2 - nostack|alloc cudaMalloc device 4 0 a3 - nostack|free cudaFree device 0 a1|free cudaFree device 0 a2|free cudaFree device 0 a3" \
	"$("$ALLOCS" tests/data/golden/item_free.trc | paste -sd'|')"

# Python: an allocation through ctypes carries the Python frames it was made from, innermost
# first, as a launch does
cat >"$TMP/grab.py" <<'EOF2'
import ctypes

cudart = ctypes.CDLL("libcudart.so.13")


def grab():
    p = ctypes.c_void_p()
    return cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(12345))  # site: grab


def main():
    grab()  # site: main


main()
EOF2
pyline() { grep -n "# site: $1\$" "$TMP/grab.py" | cut -d: -f1; }
LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/py.trc" -- python3 "$TMP/grab.py" \
	>/dev/null 2>"$TMP/py.err"
check "record a Python allocation" 0 $?
check "Python: the allocation's stack holds grab, main, <module> at their lines" \
	"1: $TMP/grab.py:$(pyline grab) grab;$TMP/grab.py:$(pyline main) main;$TMP/grab.py:$(wc -l <"$TMP/grab.py") <module>" \
	"$("$STACKS" "$TMP/py.trc" | python3 -c '
import sys
for l in sys.stdin:
    count, _, frames = l.rstrip("\n").partition(": ")
    keep = [f for f in frames.split(";") if f.startswith(sys.argv[1] + ":")]
    if keep:
        print(count + ": " + ";".join(keep))' "$TMP/grab.py")"

# the real runtime, no driver: every call fails, the driver is not there to call
if [ -e /dev/nvidiactl ]; then
	ok "real runtime without a driver # SKIP this machine has a CUDA driver (/dev/nvidiactl)"
	exit $failures
fi
"$GPUREC" record -o "$TMP/r.trc" -- "$PROGS/alloc_calls" >"$TMP/r.out" 2>"$TMP/r.err"
check "record alloc_calls on the real runtime" 0 $?
check "no driver: the program made no driver call" 1 "$(grep -c '^driver none' "$TMP/r.out")"
"$ALLOCS" "$TMP/r.trc" >"$TMP/r.got"
L() { sed -n "s/^line $1 //p" "$TMP/r.out"; }
cat >"$TMP/r.want" <<EOF2
meminfo cudaMemGetInfo 0 0 35 $(S meminfo0)
alloc cudaMalloc device 1048576 35 - - $(S cudaMalloc)
alloc cudaMallocPitch device 10000 35 - - $(S cudaMallocPitch)
alloc cudaMalloc3D device 1200 35 - - $(S cudaMalloc3D)
alloc cudaMallocManaged managed 2097152 35 - - $(S cudaMallocManaged)
alloc cudaMallocArray array 2048 35 - - $(S cudaMallocArray)
alloc cudaMalloc3DArray array 4096 35 - - $(S cudaMalloc3DArray)
alloc cudaMallocMipmappedArray array 2048 35 - - $(S cudaMallocMipmappedArray)
alloc cudaMallocHost host-pinned 4096 35 - - $(S cudaMallocHost)
alloc cudaHostAlloc host-pinned 8192 35 - - $(S cudaHostAlloc)
alloc cudaHostRegister host-registered 16384 35 - - $(S cudaHostRegister)
alloc cudaMallocAsync device-async 3145728 35 - - $(S cudaMallocAsync)
EOF2
if diff "$TMP/r.want" <(head -12 "$TMP/r.got") >"$TMP/r.diff"; then
	ok "real runtime: each allocation failed (35), with the size asked (pitched: unpadded) and its line"
else
	not_ok "real runtime: the rows differ: $(paste -sd' ' "$TMP/r.diff")"
fi
check "real runtime: no allocation succeeded, none holds an address" \
	"$(grep -c '^alloc' "$TMP/r.got") 0" \
	"$(grep '^alloc' "$TMP/r.got" | grep -c ' 35 - ') $(grep '^alloc' "$TMP/r.got" | grep -vc ' 35 - ')"
exit $failures
