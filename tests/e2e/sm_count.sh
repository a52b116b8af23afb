#!/usr/bin/env bash
# The SM count the report uses comes from the program's own device queries (GR_SESS_DEVICE_SMS).
# tests/progs/sm_count first asks another attribute (1024 max threads per block: must not be
# taken for an SM count), then the SM count through cudaGetDeviceProperties ("props"),
# cudaDeviceGetAttribute ("attr") or both. On the GPU simulator with GPUSIM_SMS=20 each gives 20;
# on the real runtime without a driver every call fails: the count is unknown.
. "$(dirname "$0")/lib.sh"
need_root sm_count

sms_of() {
	"$GPUREC" report --json "$1" >"$1.json"
	echo "$(json "$1.json" 'd["sms"]') $(json "$1.json" 'd["sms_source"]')"
}

for only in props attr both; do
	GPUSIM_SMS=20 LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/$only.trc" -- \
		"$PROGS/sm_count" "$only" >"$TMP/$only.out" 2>/dev/null
	check "simulator, $only: what the program got" \
		"$(case $only in props) echo '0 1024 0 20 -1 -1' ;; attr) echo '0 1024 -1 -1 0 20' ;;
			both) echo '0 1024 0 20 0 20' ;; esac)" "$(cat "$TMP/$only.out")"
	check "simulator, $only: the recorded SM count" "20 recorded" "$(sms_of "$TMP/$only.trc")"
done

LD_LIBRARY_PATH=$SAMPLES/sim "$GPUREC" record -o "$TMP/default.trc" -- "$PROGS/sm_count" \
	>/dev/null 2>&1
check "simulator, default GPUSIM_SMS: 132 SMs" "132 recorded" "$(sms_of "$TMP/default.trc")"

# the driver API (Triton's way), against the test driver: 108 SMs on device 0
"$GPUREC" record -o "$TMP/driver.trc" -- "$PROGS/driver_sm" "$PROGS/fakecuda/libcuda.so.1" \
	>"$TMP/driver.out" 2>/dev/null
check "driver API: what the program got" "0 1024 0 108 101 -1" "$(cat "$TMP/driver.out")"
check "driver API: the recorded SM count" "108 recorded" "$(sms_of "$TMP/driver.trc")"

if [ -e /dev/nvidiactl ]; then
	ok "no driver: unknown # SKIP this machine has a CUDA driver (/dev/nvidiactl)"
	exit $failures
fi
"$GPUREC" record -o "$TMP/fail.trc" -- "$PROGS/sm_count" >/dev/null 2>&1
check "real runtime, no driver: failed queries give no SM count" "None unknown" \
	"$(sms_of "$TMP/fail.trc")"
exit $failures
