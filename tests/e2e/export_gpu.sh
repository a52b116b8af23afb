#!/usr/bin/env bash
# gpurec export of GPU rows (--cupti), on the synthetic trace of tests/unit/synth_gpu.h (written
# by tool_synth_gpu: 10 GPU rows, 9 tied to a recorded call, 1 untied, on 3 (pid, device,
# stream) tracks; 5 launches that executed), read back by independent readers:
# - JSON (python3's json): exact GPU slices per kind, tracks and their names and places, flows
#   (each from the slice of the call that made the row to the GPU slice, ids after the launch
#   flows'), the untied row without a flow; windows, --pid and --no-flows;
# - Perfetto (protoc --decode_raw, tests/e2e/pftrace_count.py): tracks, slices, flow ids;
# - sqlite and CSV: the gpu_activity table, its ties joined with the call tables;
# - a trace without GPU rows: no GPU track, no gpu_activity table nor file.
. "$(dirname "$0")/lib.sh"
DIR=$(cd "$(dirname "$0")" && pwd)
SYNTH=${SYNTH:-$PWD/$O/tests/tool_synth_gpu}

for cmd in protoc sqlite3; do
	if ! command -v $cmd >/dev/null; then
		not_ok "export_gpu needs $cmd (tests/install-deps.sh installs it)"
		exit 1
	fi
done
q() { sqlite3 -batch "$@"; }

"$SYNTH" "$TMP/g.trc"
check "the synthetic trace is written" 0 $?

# Every figure the tests below compare, from one JSON export, as one JSON object.
json_gpu() { # EXPORT.json
	python3 - "$1" <<'PY'
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
gpu = [e for e in ev if e["ph"] == "X" and e.get("cat", "").startswith("gpu")]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["name"] == "thread_name"}
sort = {(e["pid"], e["tid"]): e["args"]["sort_index"] for e in ev if e["name"] == "thread_sort_index"}
tracks = sorted({(e["pid"], e["tid"]) for e in gpu})
flows = collections.defaultdict(dict)
for e in ev:
    if e["ph"] in "sf":
        flows[(e["name"], e["id"])][e["ph"]] = e
def slice_at(pid, tid, ts):  # the slice a flow end binds to: the one that starts there
    s = [e for e in ev if e["ph"] == "X" and (e["pid"], e["tid"], e["ts"]) == (pid, tid, ts)]
    return s[0]["name"] if len(s) == 1 else "%d slices" % len(s)
pairs = sorted("%s -> %s" % (slice_at(f["s"]["pid"], f["s"]["tid"], f["s"]["ts"]),
                             slice_at(f["f"]["pid"], f["f"]["tid"], f["f"]["ts"]))
               for (n, _), f in flows.items() if n == "gpu")
print(json.dumps(dict(
    slices=collections.Counter(e["cat"] for e in gpu),
    tracks=["%d %s" % (p, names[(p, t)]) for p, t in tracks],
    after_threads=all(sort[(p, t)] > max((v for (q, u), v in sort.items() if q == p and u < 4194304), default=-1)
                      for p, t in tracks),
    gpu_flows=sorted(i for n, i in flows if n == "gpu"),
    launch_flows=sorted(i for n, i in flows if n == "launch"),
    whole=all(len(f) == 2 and f["f"].get("bp") == "e" for f in flows.values()),
    pairs=pairs,
    untied=[(e["name"], e["ts"], e["args"]["call"]) for e in gpu if "call_tid" not in e["args"]],
    first=[gpu[0]["name"], gpu[0]["ts"], gpu[0]["dur"], gpu[0]["args"]],
    copy=[e["args"] for e in gpu if e["cat"] == "gpu_memcpy"],
), sort_keys=True))
PY
}

"$GPUREC" export "$TMP/g.trc" -o "$TMP/g.json" >"$TMP/g.out"
check "json: written" 0 $?
json_gpu "$TMP/g.json" >"$TMP/g.fig"
check "json: 8 kernel, 1 memcpy, 1 memset slices" '{"gpu_kernel": 8, "gpu_memcpy": 1, "gpu_memset": 1}' \
	"$(json "$TMP/g.fig" 'd["slices"]')"
check "json: one track per (pid, device, stream)" \
	'["100 GPU 0 stream 0x7", "100 GPU 1 stream 0x8", "200 GPU 0 stream 0x7"]' "$(json "$TMP/g.fig" 'd["tracks"]')"
check "json: GPU tracks after their process's threads" True "$(json "$TMP/g.fig" 'd["after_threads"]')"
check "json: 9 GPU flows, ids 6..14 after the 5 launch flows'" \
	"$(python3 -c 'print([list(range(6, 15)), list(range(1, 6))])')" \
	"$(json "$TMP/g.fig" '[d["gpu_flows"], d["launch_flows"]]')"
check "json: every flow has its two ends, the GPU end bound to its slice" True "$(json "$TMP/g.fig" 'd["whole"]')"
check "json: each flow from the call that made the row to the row" \
	'["cudaGraphLaunch -> a(float*)", "cudaGraphLaunch -> a(float*)", "cudaLaunchKernel -> a(float*)", "cudaLaunchKernel -> a(float*)", "cudaLaunchKernel -> a(float*)", "cudaLaunchKernel -> b(float*)", "cudaLaunchKernel -> c()", "cudaMemcpyAsync -> memcpy HtoD", "cudaMemsetAsync -> memset"]' \
	"$(json "$TMP/g.fig" 'd["pairs"]')"
check "json: the untied row: a slice, no flow" '[["a(float*)", 40, "not recorded by the probes"]]' \
	"$(json "$TMP/g.fig" 'd["untied"]')"
check "json: a kernel's slice at its GPU time, with its arguments" \
	'["a(float*)", 10, 1, {"block": "(128,1,1)", "call": "cudaLaunchKernel", "call_tid": 101, "correlation": 1, "grid": "(4,1,1)", "kernel": "a(float*)", "shared_mem": 64}]' \
	"$(json "$TMP/g.fig" 'd["first"]')"
check "json: the copy's kind and bytes" \
	'[{"bytes": 1000000, "call": "cudaMemcpyAsync", "call_tid": 101, "copy_kind": "HtoD", "correlation": 5}]' \
	"$(json "$TMP/g.fig" 'd["copy"]')"
check "json: the summary counts them" \
	"  10 GPU slices (measured on the GPU), 9 flows from their calls, 1 tied to no recorded call" \
	"$(grep GPU "$TMP/g.out")"

# windows: GPU rows in [11.5, 14] us, their calls (all before 7.1 us) outside: slices, no flow
"$GPUREC" export "$TMP/g.trc" --from 11.5us --to 14us -o "$TMP/w.json" >/dev/null
json_gpu "$TMP/w.json" >"$TMP/w.fig"
check "window: 3 GPU slices on 2 tracks, no flow (their calls are outside)" \
	'[{"gpu_kernel": 3}, ["100 GPU 0 stream 0x7", "100 GPU 1 stream 0x8"], [], []]' \
	"$(json "$TMP/w.fig" '[d["slices"], d["tracks"], d["gpu_flows"], d["launch_flows"]]')"
"$GPUREC" export "$TMP/g.trc" --pid 200 -o "$TMP/p.json" >/dev/null
json_gpu "$TMP/p.json" >"$TMP/p.fig"
check "--pid 200: its one GPU slice, its flow after its one launch flow" \
	'[{"gpu_kernel": 1}, ["200 GPU 0 stream 0x7"], [2], [1], ["cudaLaunchKernel -> c()"]]' \
	"$(json "$TMP/p.fig" '[d["slices"], d["tracks"], d["gpu_flows"], d["launch_flows"], d["pairs"]]')"
"$GPUREC" export "$TMP/g.trc" --no-flows -o "$TMP/n.json" >/dev/null
json_gpu "$TMP/n.json" >"$TMP/n.fig"
check "--no-flows: the 10 GPU slices, no flow at all" '[10, [], []]' \
	"$(json "$TMP/n.fig" '[sum(d["slices"].values()), d["gpu_flows"], d["launch_flows"]]')"

# Perfetto: 2 processes, 3 threads, 3 stream and 3 GPU tracks; 12 call and 10 GPU slices; 14
# flows (5 launch, 9 GPU), each id on its two ends
"$GPUREC" export "$TMP/g.trc" -o "$TMP/g.pftrace" >/dev/null
protoc --decode_raw <"$TMP/g.pftrace" | python3 "$DIR/pftrace_count.py" >"$TMP/pf.json"
check "perfetto: tracks, slices, flow ids" '[11, 22, 22, 28, 14]' \
	"$(json "$TMP/pf.json" '[d[k] for k in ("track_descriptors", "begin", "end", "flow_ids", "distinct_flows")]')"
check "perfetto: the GPU categories" '["gpu_kernel", "gpu_memcpy", "gpu_memset"]' \
	"$(json "$TMP/pf.json" '[c for c in d["categories"] if c.startswith("gpu")]')"
"$GPUREC" export "$TMP/g.trc" --pid 200 -o "$TMP/p.pftrace" >/dev/null
protoc --decode_raw <"$TMP/p.pftrace" | python3 "$DIR/pftrace_count.py" >"$TMP/pp.json"
check "perfetto --pid 200: 1 launch and 1 GPU flow, 2 ends each; 4 tracks" '[4, 2, 4]' \
	"$(json "$TMP/pp.json" '[d["flow_ids"], d["distinct_flows"], d["track_descriptors"]]')"

# sqlite: one row per GPU row, tied through the call tables' ids
"$GPUREC" export "$TMP/g.trc" -o "$TMP/g.sqlite" >"$TMP/s.out"
check "sqlite: 10 gpu_activity rows, by kind" "kernel|8 memcpy|1 memset|1" \
	"$(q "$TMP/g.sqlite" "SELECT kind, count(*) FROM gpu_activity GROUP BY kind ORDER BY kind" | paste -sd' ')"
check "sqlite: kernels' launch-to-GPU delay (g.start - l.start), by kernel name" \
	"a(float*)|9000|9000|10000 b(float*)|10500 c()|12500" \
	"$(q "$TMP/g.sqlite" "SELECT s.value, group_concat(g.start - l.start, '|') FROM (SELECT * FROM gpu_activity ORDER BY id) g
		JOIN launches l ON l.id = g.launch_id JOIN strings s ON s.id = g.name_id GROUP BY s.value ORDER BY s.value" | paste -sd' ')"
check "sqlite: the copy and the memset, tied to theirs" "1000000|HtoD|1000000|H2D 256||256|" \
	"$(q "$TMP/g.sqlite" "SELECT g.bytes, g.copy_kind, coalesce(c.bytes, m.bytes), c.direction FROM gpu_activity g
		LEFT JOIN copies c ON c.id = g.copy_id LEFT JOIN memsets m ON m.id = g.memset_id
		WHERE g.kind != 'kernel' ORDER BY g.id" | paste -sd' ')"
check "sqlite: the graph launch's two nodes" "77|1|launch 77|2|launch" \
	"$(q "$TMP/g.sqlite" "SELECT g.graph, g.graph_node, c.kind FROM gpu_activity g
		JOIN graph_calls c ON c.id = g.graph_call_id ORDER BY g.id" | paste -sd' ')"
check "sqlite: the untied row ties to nothing, has no host call" "40000|||1" \
	"$(q "$TMP/g.sqlite" "SELECT start, host_tid, host_start, coalesce(launch_id, copy_id, memset_id, graph_call_id) IS NULL
		FROM gpu_activity WHERE correlation = 9")"
check "sqlite: the process of each row" "100|9 200|1" \
	"$(q "$TMP/g.sqlite" "SELECT p.pid, count(*) FROM gpu_activity g JOIN processes p ON p.id = g.process_id GROUP BY p.pid" | paste -sd' ')"
check "sqlite: the summary names the table" 1 "$(grep -c ' gpu_activity 10$' "$TMP/s.out")"
mkdir "$TMP/csv"
"$GPUREC" export "$TMP/g.trc" --format csv -o "$TMP/csv" >/dev/null
check "csv: gpu_activity.csv, a header and 10 rows" 11 "$(wc -l <"$TMP/csv/gpu_activity.csv")"

# a trace without GPU rows: nothing of the above
GOLD=$DIR/../data/golden/synth.trc
"$GPUREC" export "$GOLD" -o "$TMP/none.json" >"$TMP/none.out"
check "no GPU rows: no GPU slice nor track, no GPU line" "0 0 0" \
	"$(python3 -c 'import json,sys; ev=json.load(open(sys.argv[1]))["traceEvents"]; print(sum(e.get("cat","").startswith("gpu") for e in ev), sum(e["name"] == "thread_name" and e["args"]["name"].startswith("GPU") for e in ev))' "$TMP/none.json") $(grep -c GPU "$TMP/none.out")"
"$GPUREC" export "$GOLD" -o "$TMP/none.sqlite" >/dev/null
check "no GPU rows: no gpu_activity table" 0 \
	"$(q "$TMP/none.sqlite" "SELECT count(*) FROM sqlite_master WHERE name = 'gpu_activity'")"
mkdir "$TMP/csv0"
"$GPUREC" export "$GOLD" --format csv -o "$TMP/csv0" >/dev/null
check "no GPU rows: no gpu_activity.csv" 0 "$(ls "$TMP/csv0" | grep -c gpu)"

[ $failures -eq 0 ]
