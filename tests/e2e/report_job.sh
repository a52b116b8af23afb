# A job reported trace by trace (analyze/report/job.h): four ranks of rank_step, each recorded by
# its own recorder at the same time (one trace per rank, as `srun gpurec record -o
# t.%h.%r.trc` makes them); rank 2 adds EXTRA_US of host work per step. The job's report must be
# the same byte for byte whether the traces are named (--job), a directory is, or two nodes'
# summaries (report --summary per node) are merged; and its figures those of the merged route
# (one model of all four traces) for what the program controls: ranks, iterations, calls, the
# straggler, the pace by NVTX range (each step's "gpu" and "host work" ranges). Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "report_job.sh"
SIM=${SAMPLES:-$PWD/$O/samples}/sim
STEPS=40
EXTRA_US=2000

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/rank_launcher" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi
mkdir -p "$TMP/job"
# the ranks begin their steps together, once all four run under their recorders ($TMP/go):
# only loops that overlap are compared
for r in 0 1 2 3; do
	"$GPUREC" record -o "$TMP/job/r$r.trc" -- env LD_LIBRARY_PATH="$SIM" RANK_STEP_NVTX=1 \
		RANK_STEP_GO="$TMP/go" "$PROGS/rank_launcher" $r 1 4 $STEPS 2 $EXTRA_US \
		>"$TMP/r$r.out" 2>&1 &
done
for _ in $(seq 1200); do
	[ "$(ls "$TMP" | grep -c '^go\.ready\.')" -eq 4 ] && break
	sleep 0.05
done
touch "$TMP/go"
wait
for r in 0 1 2 3; do
	[ -s "$TMP/job/r$r.trc" ] || { not_ok "record rank $r: $(tail -3 "$TMP/r$r.out")"; exit 1; }
done
J=$TMP/job
"$GPUREC" report --job "$J/r0.trc" "$J/r1.trc" "$J/r2.trc" "$J/r3.trc" >"$TMP/named.txt" 2>"$TMP/named.err"
"$GPUREC" report "$J/" >"$TMP/dir.txt" 2>&1
"$GPUREC" report --summary -o "$TMP/node0.sum" "$J/r0.trc" "$J/r1.trc" 2>"$TMP/s0.err"
"$GPUREC" report --summary "$J/r2.trc" "$J/r3.trc" >"$TMP/node1.sum" 2>"$TMP/s1.err"
"$GPUREC" report "$TMP/node0.sum" "$TMP/node1.sum" >"$TMP/merged.txt" 2>&1
check "--job: exit 0, nothing on stderr" "0" "$(wc -c <"$TMP/named.err")"
check "a directory gives the same report as its traces named" "same" \
	"$(cmp -s "$TMP/named.txt" "$TMP/dir.txt" && echo same || diff "$TMP/named.txt" "$TMP/dir.txt" | head -5)"
check "two nodes' summaries merged give the same report" "same" \
	"$(cmp -s "$TMP/named.txt" "$TMP/merged.txt" && echo same || diff "$TMP/named.txt" "$TMP/merged.txt" | head -5)"
cat "$TMP/node0.sum" "$TMP/node1.sum" >"$TMP/all.sum"
"$GPUREC" report "$TMP/all.sum" >"$TMP/cat.txt" 2>&1
check "summaries concatenated read as the two files" "same" \
	"$(cmp -s "$TMP/named.txt" "$TMP/cat.txt" && echo same || diff "$TMP/named.txt" "$TMP/cat.txt" | head -5)"
# JSON: the same three ways
"$GPUREC" report --json --job "$J/r0.trc" "$J/r1.trc" "$J/r2.trc" "$J/r3.trc" >"$TMP/named.json"
"$GPUREC" report --json "$J/" >"$TMP/dir.json"
"$GPUREC" report --json "$TMP/node0.sum" "$TMP/node1.sum" >"$TMP/merged.json"
check "JSON: the three routes agree" "same same" \
	"$(cmp -s "$TMP/named.json" "$TMP/dir.json" && echo same) $(cmp -s "$TMP/named.json" "$TMP/merged.json" && echo same)"

# what the program controls, per route: 4 ranks, 40 iterations of 3 calls, 2 launches; rank 2
# the straggler; and the merged route (one model of the four) says the same
"$GPUREC" report --json "$J/r0.trc" "$J/r1.trc" "$J/r2.trc" "$J/r3.trc" >"$TMP/model.json"
for f in named model; do
	check "$f: 4 ranks, each 40 iterations of 3 calls, 2 launches" \
		"[[0, 40, 3, 2], [1, 40, 3, 2], [2, 40, 3, 2], [3, 40, 3, 2]]" \
		"$(json "$TMP/$f.json" "[[k['rank'], k['iterations'], k['calls_per_iteration'], k['launches_per_iteration']] for k in d['ranks']]")"
	check "$f: rank 2 is the straggler" "2" "$(json "$TMP/$f.json" "(d['straggler'] or {}).get('rank')")"
done
# the probes' cost is measured over what is loaded (each trace, or all four): times compare
# without its compensation
"$GPUREC" report --json --no-compensate --job "$J/" >"$TMP/named-raw.json"
"$GPUREC" report --json --no-compensate "$J/r0.trc" "$J/r1.trc" "$J/r2.trc" "$J/r3.trc" >"$TMP/model-raw.json"
check "the job's iteration times are the merged route's" "True" \
	"$(python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print([k["iteration_ns"] for k in a["ranks"]] == [k["iteration_ns"] for k in b["ranks"]] or
      ([k["iteration_ns"] for k in a["ranks"]], [k["iteration_ns"] for k in b["ranks"]]))' "$TMP/named-raw.json" "$TMP/model-raw.json")"
check "the pace by NVTX range is the merged route's" "True" \
	"$(python3 -c 'import json, sys
a, b = (json.load(open(p)).get("nvtx_pace") for p in sys.argv[1:])
print(bool(a) and a == b or (a, b))' "$TMP/named-raw.json" "$TMP/model-raw.json")"
check "the slowest rank of the host work range is rank 2" "2" \
	"$(json "$TMP/named.json" "[g['slowest_rank'] for g in d['nvtx_pace'] if g['name'] == 'host work'][0]")"
check "rank 2's iteration holds its 2 ms of host work" "True" \
	"$(json "$TMP/named.json" "[k for k in d['ranks'] if k['rank'] == 2][0]['iteration_ns'] >= ($EXTRA_US + 1003) * 1000")"
check "the JSON names the four traces" "4" "$(json "$TMP/named.json" "len(d['traces'])")"

# bad input: a summary with a broken line, one that is not a summary, an empty directory
sed '3s/\t40\t/\tforty\t/' "$TMP/node0.sum" >"$TMP/bad.sum"
"$GPUREC" report "$TMP/bad.sum" >"$TMP/bad.out" 2>&1
rc=$?
check "a broken summary: exit 1, named with its line" "1 1" \
	"$rc $(grep -c "gpurec report: $TMP/bad.sum: line 3: a process line has 20 fields" "$TMP/bad.out")"
mkdir "$TMP/empty"
"$GPUREC" report "$TMP/empty/" >"$TMP/empty.out" 2>&1
check "an empty directory: exit 1, said" "1 1" "$? $(grep -c 'no \*.trc file in this directory' "$TMP/empty.out")"
"$GPUREC" report --html -o "$TMP/x.html" "$J/" >"$TMP/html.out" 2>&1
check "--html with a job reported trace by trace: a usage error" "2" "$?"
exit $((failures > 0))
