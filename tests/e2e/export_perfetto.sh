#!/usr/bin/env bash
# gpurec export --format perfetto, decoded by an independent reader (protoc --decode_raw, Debian's
# protobuf-compiler) and counted by tests/e2e/pftrace_count.py:
# - chain_real.trc (chain 50 under the real libcudart: 5 launches and 1 sync per step): exact
#   counts of slices, instants, flows, interned names and stacks, against the recording's
#   ground truth and `gpurec info --json`;
# - every golden trace: the same slices, instants, flows, names and tracks as its JSON export;
# - --no-flows, --from/--to and --pid as the JSON has them; the format from -o's name.
. "$(dirname "$0")/lib.sh"
DIR=$(cd "$(dirname "$0")" && pwd)
GOLD=$DIR/../data/golden

if ! command -v protoc >/dev/null; then
	not_ok "protoc not installed (tests/install-deps.sh installs protobuf-compiler)"
	exit 1
fi

pf_counts() { # TRACE.pftrace -> its counts, as JSON
	protoc --decode_raw <"$1" | python3 "$DIR/pftrace_count.py"
}

# What the JSON export of the same trace holds, in the same terms.
json_counts() { # TRACE.json
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
frames = d.get("stackFrames", {})
def stack_text(sf):  # the frames, caller first, as the Perfetto form writes a stack
    names, k = [], str(sf)
    while k in frames:
        names.append(frames[k]["name"])
        k = str(frames[k]["parent"]) if "parent" in frames[k] else None
    return "\n".join(reversed(names))
# a wake flow starts at a "wake" instant on the waker's track in Perfetto (docs/EXPORT.md)
wakes = sum(e["ph"] == "s" and e.get("cat") == "wake" for e in ev)
print(json.dumps(dict(
    begin=sum(e["ph"] == "X" for e in ev),
    instant=sum(e["ph"] == "i" for e in ev) + wakes,
    flow_ids=2 * sum(e["ph"] == "s" for e in ev),
    names=sorted({e["name"] for e in ev if e["ph"] in "Xi"} | ({"wake"} if wakes else set())),
    tracks=sum(e["ph"] == "M" and e["name"] in ("process_name", "thread_name") for e in ev),
    counter=sum(e["ph"] == "C" for e in ev),
    counter_tracks=len({(e["pid"], e["name"]) for e in ev if e["ph"] == "C"}),
    stacks=len({stack_text(e["sf"]) for e in ev if "sf" in e} - {""}))))
PY
}

# field COUNTS_JSON KEY
field() { python3 -c "import json,sys; print(json.dumps(json.loads(sys.argv[1])[sys.argv[2]]))" "$1" "$2"; }

# ---------------------------------------------------------------- exact counts: chain 50
T=$GOLD/chain_real.trc
"$GPUREC" export "$T" -o "$TMP/c.pftrace" >"$TMP/out" 2>&1
check "export to .pftrace exits 0" 0 $?
grep -q "^gpurec export: wrote $TMP/c.pftrace" "$TMP/out" && ok "export says what it wrote" ||
	not_ok "export output: $(cat "$TMP/out")"
c=$(pf_counts "$TMP/c.pftrace")
check "protoc decodes it" 0 $?
"$GPUREC" info --json "$T" >"$TMP/info.json"
check "chain: 250 kernel instants, one per launch" 250 "$(field "$c" kernel_instants)"
check "chain: launches in info --json" 250 "$(json "$TMP/info.json" 'd["launches"]')"
# 306 API calls (250 launches, 50 syncs, 3 mallocs, 3 frees) + 34 scheduler states
check "chain: 340 slices begun" 340 "$(field "$c" begin)"
check "chain: as many slices ended as begun" 340 "$(field "$c" end)"
check "chain: 253 instants (250 launches, 3 process events)" 253 "$(field "$c" instant)"
check "chain: 500 flow ids, on the launch slices and their instants" 500 "$(field "$c" flow_ids)"
check "chain: 250 distinct flows" 250 "$(field "$c" distinct_flows)"
check "chain: 4 track descriptors (process, thread, CPU state, stream)" 4 \
	"$(field "$c" track_descriptors)"
check "chain: the first sequence_flags clears the incremental state" 1 "$(field "$c" first_flags)"
check "chain: every track event packet needs it" $((340 + 340 + 253)) "$(field "$c" needs_state)"
# interned event names: each kernel and API function once, as info --json names them
want=$(json "$TMP/info.json" 'sorted(k["name"] for k in d["kernels"]) + ["cudaFree", "cudaLaunchKernel", "cudaMalloc", "cudaStreamSynchronize"]')
got=$(python3 -c "import json,sys; n=json.loads(sys.argv[1])['names']; print(json.dumps(sorted(x for x in n if x.startswith('cuda')) and sorted(x for x in n if '(' in x) + sorted(x for x in n if x.startswith('cuda'))))" "$c")
check "chain: interned names are the 5 kernels and the 4 API functions" "$want" "$got"
check "chain: 5 kernels in info --json" 5 "$(json "$TMP/info.json" 'len(d["kernels"])')"
# the recording's stacks: one per launch site and sync site, in the JSON as in Perfetto
"$GPUREC" export "$T" -o "$TMP/c.json" >/dev/null 2>&1
check "chain: as many distinct stacks as the JSON's" "$(field "$(json_counts "$TMP/c.json")" stacks)" \
	"$(field "$c" stacks)"
check "chain: 6 distinct stacks" 6 "$(field "$c" stacks)"

# ---------------------------------------------------------------- the JSON's content
for T in "$GOLD"/*.trc; do
	n=$(basename "$T" .trc)
	read -ra opts <<<"$(golden_window "$n")"
	"$GPUREC" export "$T" "${opts[@]}" -o "$TMP/$n.pftrace" >/dev/null 2>&1 &&
		"$GPUREC" export "$T" "${opts[@]}" -o "$TMP/$n.json" >/dev/null 2>&1
	check "$n: both exports exit 0" 0 $?
	p=$(pf_counts "$TMP/$n.pftrace")
	j=$(json_counts "$TMP/$n.json")
	for k in begin instant flow_ids names stacks counter counter_tracks; do
		check "$n: $k as in the JSON" "$(field "$j" $k)" "$(field "$p" $k)"
	done
	check "$n: slices ended = begun" "$(field "$p" begin)" "$(field "$p" end)"
	check "$n: track descriptors = the JSON's named tracks" "$(field "$j" tracks)" \
		"$(field "$p" track_descriptors)"
done

# ---------------------------------------------------------------- options
T=$GOLD/chain_real.trc
"$GPUREC" export "$T" --no-flows -o "$TMP/nf.pftrace" >/dev/null 2>&1
nf=$(pf_counts "$TMP/nf.pftrace")
check "--no-flows: no flow ids" 0 "$(field "$nf" flow_ids)"
check "--no-flows: the same 340 slices" 340 "$(field "$nf" begin)"
for opts in "--from 10ms --to 20ms" "--pid 1" "--from 30ms"; do
	# shellcheck disable=SC2086 # the options are words
	"$GPUREC" export "$T" $opts --force -o "$TMP/w.pftrace" >/dev/null 2>&1 &&
		"$GPUREC" export "$T" $opts --force -o "$TMP/w.json" >/dev/null 2>&1
	check "$opts: both exports exit 0" 0 $?
	p=$(pf_counts "$TMP/w.pftrace")
	j=$(json_counts "$TMP/w.json")
	for k in begin instant flow_ids names; do
		check "$opts: $k as in the JSON" "$(field "$j" $k)" "$(field "$p" $k)"
	done
done
w=$(pf_counts "$TMP/w.pftrace")
b=$(field "$w" begin)
[ "$b" -gt 0 ] && [ "$b" -lt 340 ] && ok "--from 30ms: some but not all slices ($b)" ||
	not_ok "--from 30ms: $b slices"

"$GPUREC" export "$T" -o "$TMP/c.perfetto-trace" >/dev/null 2>&1
check ".perfetto-trace is Perfetto too" 340 "$(field "$(pf_counts "$TMP/c.perfetto-trace")" begin)"
"$GPUREC" export "$T" --format json -o "$TMP/j.pftrace" >/dev/null 2>&1
check "--format json wins over the name" '{' "$(head -c 1 "$TMP/j.pftrace")"
"$GPUREC" export "$T" --format perfetto -o "$TMP/p.out" >/dev/null 2>&1
check "--format perfetto to any name" 340 "$(field "$(pf_counts "$TMP/p.out")" begin)"
"$GPUREC" export "$T" --format xml -o "$TMP/x.out" >"$TMP/err" 2>&1
check "--format xml: usage error" 2 $?
grep -q "^gpurec export: .*--format" "$TMP/err" && ok "--format xml: says which option" ||
	not_ok "--format xml: $(cat "$TMP/err")"
[ $failures -eq 0 ]
