#!/usr/bin/env bash
# The runtime capture surface beyond launches and plain copies (tests/progs/surface.cu lists
# every call): allocations by kind, frees, memsets, 2D/3D/peer/symbol copies, syncs, stream
# capture and graphs, cudaLaunchKernelExC and cooperative launches.
. "$(dirname "$0")/lib.sh"
need_root record_surface

"$GPUREC" record -o "$TMP/s.trc" -- "$PROGS/surface" >/dev/null 2>&1
"$GPUREC" info --json "$TMP/s.trc" >"$TMP/s.json"
# without a driver every call fails and the reports set it aside: the arguments as captured
"$CALLS" "$TMP/s.trc" >"$TMP/calls.json"
# every call that returned says why it failed; entry-only ones (launches) have no status
check "status of every call" '[["-", 6], ["cudaErrorInsufficientDriver", 32]]' "$(json "$TMP/calls.json" 'sorted({s: sum(n for k, n in d["status"].items() if k.split()[1] == s) for s in set(k.split()[1] for k in d["status"])}.items())')"
check "failed calls are set aside, with their flags" '[0, 0, 0]' "$(json "$TMP/s.json" '[len(d["copies"]), len(d["allocations"]), d["memsets"]["count"]]')"
check "events by kind" '[3, 7, 2, 8, 6, 6, 6]' "$(json "$TMP/s.json" '[d["events_by_kind"][k] for k in ("launch", "copy", "memset", "alloc", "free", "sync", "graph")]')"
check "copies by direction (2D, 3D, peer, symbol)" '[["H2D", 2, 192], ["D2H", 3, 164], ["D2D", 2, 1064]]' "$(json "$TMP/calls.json" 'd["copies"]')"
check "allocations by kind" '[["device", 2, 12288], ["device-async", 1, 2048], ["managed", 1, 1024], ["host-pinned", 3, 196708], ["host-registered", 1, 262144]]' "$(json "$TMP/calls.json" 'd["allocations"]')"
check "memsets" '[2, 768]' "$(json "$TMP/calls.json" 'd["memsets"]')"
check "syncs by kind" '[["device", 2], ["stream", 1], ["event", 1], ["stream-wait-event", 1], ["event-record", 1]]' "$(json "$TMP/calls.json" 'd["syncs"]')"
check "graph calls" '[["begin-capture", 1], ["end-capture", 1], ["instantiate", 1], ["launch", 3]]' "$(json "$TMP/calls.json" 'd["graphs"]')"
check "launch configs: <<<>>>, ExC with shared memory, cooperative" '[[[2, 1, 1], [8, 1, 1], 0], [[3, 2, 1], [16, 2, 1], 48], [[4, 1, 1], [32, 1, 1], 0]]' "$(json "$TMP/s.json" 'sorted([c["grid"], c["block"], c["shared_mem"]] for c in d["kernels"][0]["configs"])')"
check "sync and copy calls timed (entry to return)" True "$(json "$TMP/s.json" 'all(x["dur_ns"] > 0 for x in d["syncs"] + d["copies"])')"
exit $failures
