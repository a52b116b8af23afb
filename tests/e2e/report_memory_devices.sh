#!/usr/bin/env bash
# Device memory per (process, device) against tests/progs/memory_devices.cu on two simulated
# devices (GPUSIM_DEVICES=2): device 0 (the main thread, never set) peaks at 10 MiB, device 1
# (a thread that set it) at 20 MiB; the 16 MiB of device 1 freed by the main thread counts on
# device 1, so nothing is outstanding on either. The text names both devices.
. "$(dirname "$0")/lib.sh"
need_root report_memory_devices
SIM=${SAMPLES:-$PWD/$O/samples}/sim
MiB=1048576

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/memory_devices" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi
if ! "$GPUREC" record -o "$TMP/d.trc" -- env LD_LIBRARY_PATH="$SIM" GPUSIM_DEVICES=2 \
	"$PROGS/memory_devices" >"$TMP/d.out" 2>&1; then
	not_ok "record memory_devices: $(tail -3 "$TMP/d.out")"
	exit 1
fi
"$GPUREC" report --json "$TMP/d.trc" >"$TMP/d.json"
"$GPUREC" report "$TMP/d.trc" >"$TMP/d.txt"
check "two entries of one process: devices 0 and 1, peaks 10 and 20 MiB" \
	"[[0, $((10 * MiB))], [1, $((20 * MiB))]]" \
	"$(json "$TMP/d.json" "[[p['device'], p['peak_bytes']] for p in d['memory']['processes']]")"
check "allocations 2 and 2, frees 2 and 2 (the cross-thread free on device 1), none outstanding" \
	"[[2, 2, 0], [2, 2, 0]]" \
	"$(json "$TMP/d.json" "[[p['allocations'], p['frees'], p['outstanding_bytes']] for p in d['memory']['processes']]")"
check "the text names each device's peak" "2" \
	"$(grep -cE 'peak of pid [0-9]+ device [01]: (10|20)\.0 MiB' "$TMP/d.txt")"
"$GPUREC" info --json "$TMP/d.trc" >"$TMP/d.info.json"
check "info: the peak per device" "[[0, $((10 * MiB))], [1, $((20 * MiB))]]" \
	"$(json "$TMP/d.info.json" "[[p['device'], p['peak_bytes']] for p in d['memory']['processes']]")"
"$GPUREC" export "$TMP/d.trc" -o "$TMP/d.export.json" >/dev/null 2>&1
check "export: a counter per device, each with its peak" \
	'[["device 1 memory", '$((20 * MiB))'], ["device memory", '$((10 * MiB))']]' \
	"$(json "$TMP/d.export.json" "sorted([n, max(e['args']['live bytes'] for e in (d['traceEvents'] if isinstance(d, dict) else d) if e.get('ph') == 'C' and e['name'] == n)] for n in set(e['name'] for e in (d['traceEvents'] if isinstance(d, dict) else d) if e.get('ph') == 'C' and 'memory' in e['name']))")"
exit $((failures > 0))
