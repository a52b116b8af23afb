#!/usr/bin/env bash
# The device memory section (docs/REPORTS.md, "Device memory") against the truth of
# tests/progs/memory_steps.cu on the simulator: 64 MiB held all along, 4 MiB pinned, and each step
# a 16 MiB temporary (48 MiB in step 10), a 1 ms kernel, 1 MiB kept (leak) or freed (healthy), a
# cudaMallocAsync/cudaFreeAsync pair of 2 MiB, and cudaFree of the temporary, which waits for the
# kernel; step 5 asks what is free (cudaMemGetInfo, printed) and then for 96 GiB, which fails (the
# simulated device has 80 GiB). With --step kernel:work, iteration j is step j from
# its kernel on: the peak (125 MiB; healthy 115 MiB) is in iteration 10, the failure in iteration 4
# with 85 MiB live; the leak grows 1 MiB an iteration, 1 MiB from each iteration still live at the
# end, 30 MiB outstanding; churn 3 allocations (19 MiB) and 2 frees (healthy 3) an iteration; the
# async pool's 2 MiB is never outstanding. On the real libcudart without a driver every
# allocation fails: not judged, nothing live.
. "$(dirname "$0")/lib.sh"
need_root report_memory
SIM=${SAMPLES:-$PWD/$O/samples}/sim
MiB=1048576

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/memory_steps" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi

# rec NAME MODE [env...]: record memory_steps MODE 30 (on the simulator unless told otherwise)
rec() {
	local name=$1 mode=$2
	shift 2
	if ! "$GPUREC" record -o "$TMP/$name.trc" -- env "$@" "$PROGS/memory_steps" "$mode" 30 \
		>"$TMP/$name.out" 2>&1; then
		not_ok "record $name: $(tail -3 "$TMP/$name.out")"
		return 1
	fi
	"$GPUREC" report --step kernel:work --json "$TMP/$name.trc" >"$TMP/$name.json" &&
		"$GPUREC" report --json "$TMP/$name.trc" >"$TMP/$name.auto.json"
}
q() { json "$TMP/$1.json" "$2"; }

if rec leak leak LD_LIBRARY_PATH="$SIM"; then
	P="d['memory']['processes'][0]"
	check "leak: one process; the peak 125 MiB in iteration 10" "[1, $((125 * MiB)), 10]" \
		"$(q leak "[len(d['memory']['processes']), $P['peak_bytes'], $P['peak_iteration']]")"
	check "leak: 91 device allocations (30 async), 61 device frees, 1 failed" "[91, 30, 61, 1]" \
		"$(q leak "[d['memory']['device_allocations'], d['memory']['async_allocations'], $P['frees'], $P['failed']]")"
	told=$(sed -n 's/^memory_steps: told free=\([0-9]*\) total=\([0-9]*\)$/[\1, \2]/p' "$TMP/leak.out")
	check "leak: the 96 GiB request failed in iteration 4 with 85 MiB live; the free memory told" \
		"[1, $((96 << 30)), $((85 * MiB)), 4, \"cudaMalloc\", ${told:-none}]" \
		"$(q leak "(lambda F: [len(d['memory']['failures']), F['bytes'], F['live_bytes'], F['iteration'], F['api'], [F['free_bytes_told'], F['total_bytes_told']]])(d['memory']['failures'][0])")"
	check "leak: holders at the failure add up to the live bytes" True \
		"$(q leak "(lambda F: sum(h['bytes'] for h in F['holders']) == F['live_bytes'] or F['sites'] > len(F['holders']))(d['memory']['failures'][0])")"
	check "leak: 30 MiB outstanding in 30 allocations (no async pool block among them)" \
		"[$((30 * MiB)), 30]" \
		"$(q leak "[$P['outstanding_bytes'], $P['outstanding_allocations']]")"
	check "leak: growth 1 MiB an iteration, 1 MiB from each iteration still live at the end" True \
		"$(q leak "(lambda G, n: G['per_iteration_bytes'] == $MiB and G['iterations'] == n and sum(s['bytes'] for s in G['by_site']) == n * $MiB and sum(s['allocations'] for s in G['by_site']) == n)(d['memory']['growth'], d['launches']['iteration']['count'])")"
	check "leak: churn per iteration 3 allocations of 19 MiB, 2 frees; the failed call in the loop" \
		"[3, 2, $((19 * MiB)), 1]" \
		"$(q leak "(lambda C: [C['median_allocations'], C['median_frees'], C['median_bytes'], C['failed']])(d['memory']['churn'])")"
	check "leak: pinned peak 4 MiB, nothing pinned at the end" "[$((4 * MiB)), 0]" \
		"$(q leak "[$P['pinned_peak_bytes'], $P['pinned_outstanding_bytes']]")"
	check "leak: a problem, named a leak" "[\"problem\", true]" \
		"$(q leak "[d['memory']['level'], d['memory']['verdict'].startswith('leak:')]")"
	# the host waits in cudaFree for the kernel: the alloc part bounds the step, not the launch
	check "leak: the step is allocation-bound, not launch-bound" "[\"alloc\", false]" \
		"$(q leak "[d['diagnosis']['bound'], d['launches']['verdict'].startswith('launch-bound')]")"
	# the loop the report finds by itself: growth found all the same
	check "leak, the report's own loop: growth 1 MiB an iteration, a problem" "[$MiB, \"problem\"]" \
		"$(json "$TMP/leak.auto.json" "[d['memory']['growth']['per_iteration_bytes'], d['memory']['level']]")"
	# with allocation stacks, the sites name the program's functions
	if [ "$(q leak "$P['outstanding'][0]['stack']")" != 0 ]; then
		check "leak: the leak's site is keep(), the failure's huge()" "[true, true]" \
			"$(q leak "['keep' in $P['outstanding'][0]['site'], 'huge' in d['memory']['failures'][0]['site']]")"
	else
		ok "leak: sites # SKIP the recording has no allocation stacks"
	fi
	"$GPUREC" info --json "$TMP/leak.trc" >"$TMP/leak.info.json"
	check "info: the peak 125 MiB, 30 MiB outstanding in 30 allocations, 1 failed" \
		"[$((125 * MiB)), $((30 * MiB)), 30, 1]" \
		"$(json "$TMP/leak.info.json" "(lambda M: [M['processes'][0]['peak_bytes'], M['processes'][0]['outstanding_bytes'], M['processes'][0]['outstanding_allocations'], M['failed']])(d['memory'])")"
	# export: the live bytes as a counter; allocation rows with their stack id
	"$GPUREC" export "$TMP/leak.trc" -o "$TMP/leak.export.json" >/dev/null 2>&1
	check "export: the device memory counter peaks at 125 MiB and ends at 30 MiB" \
		"[$((125 * MiB)), $((30 * MiB))]" \
		"$(json "$TMP/leak.export.json" "(lambda c: [max(e['args']['live bytes'] for e in c), c[-1]['args']['live bytes']])(sorted((e for e in d['traceEvents'] if e['ph'] == 'C'), key=lambda e: e['ts']))")"
	"$GPUREC" export "$TMP/leak.trc" --format sqlite -o "$TMP/leak.db" >/dev/null 2>&1
	check "export sqlite: allocs has stack_id; 91 device allocations, 1 failed" "[true, 91, 1]" \
		"$(python3 -c "import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = lambda s: c.execute(s).fetchone()[0]
print(json.dumps([any(r[1] == 'stack_id' for r in c.execute('pragma table_info(allocs)')), q(\"select count(*) from allocs where kind in ('device', 'device-async') and outcome = 'ok'\"), q(\"select count(*) from allocs where outcome = 'failed'\")]))" "$TMP/leak.db" 2>&1)"
	# HTML: the live bytes over time with the peak marked, the live set at the peak as a flame
	"$GPUREC" report --html -o "$TMP/leak.html" "$TMP/leak.trc" >/dev/null 2>&1
	check "html: the data carries pid's series with the 125 MiB peak, the flame 125 MiB at its root" \
		"[$((125 * MiB)), $((125 * MiB)), $((125 * MiB))]" \
		"$(python3 -c "import json, re, sys
t = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script id=\"gpurec-data\" type=\"application/json\">(.*?)</script>', t, re.S).group(1))
M = d['memory']
print(json.dumps([M['processes'][0]['peak_bytes'], max(p[1] for p in M['processes'][0]['points']), M['flame']['root']['v'][0]]))" "$TMP/leak.html" 2>&1)"
	python3 "$(dirname "$0")/../browser/check_page.py" "$TMP/leak.html" --name "leak html" \
		>"$TMP/page.tap" 2>&1
	case $? in
	77) ok "leak html: in a browser # SKIP $(grep -m1 SKIP "$TMP/page.tap")" ;;
	*) grep -E '^(not )?ok' "$TMP/page.tap" | grep -Ei 'memory|peak|not ok' ||
		not_ok "leak html: no memory checks ran: $(tail -2 "$TMP/page.tap")"
		grep -q '^not ok' "$TMP/page.tap" && failures=$((failures + 1)) ;;
	esac
	"$GPUREC" report --only memory "$TMP/leak.trc" >"$TMP/leak.txt"
	check "leak text: the section, its growth and failure lines" "[1, 1, 1]" \
		"[$(grep -c '^== 7. Device memory' "$TMP/leak.txt"), $(grep -c '^  growth: ' "$TMP/leak.txt"), $(grep -c '^  failed allocations: 1$' "$TMP/leak.txt")]"
fi

if rec healthy healthy LD_LIBRARY_PATH="$SIM"; then
	P="d['memory']['processes'][0]"
	check "healthy: no growth, nothing outstanding, the peak 115 MiB in iteration 10" \
		"[null, 0, $((115 * MiB)), 10]" \
		"$(q healthy "[d['memory']['growth'], $P['outstanding_bytes'], $P['peak_bytes'], $P['peak_iteration']]")"
	check "healthy: churn 3 allocations and 3 frees an iteration" "[3, 3]" \
		"$(q healthy "[d['memory']['churn']['median_allocations'], d['memory']['churn']['median_frees']]")"
	check "healthy: no leak finding (the failed request is the problem)" "[false, \"problem\"]" \
		"$(q healthy "['leak' in d['memory']['verdict'], d['memory']['level']]")"
fi

# diff: the leak against its healthy twin
if [ -f "$TMP/leak.trc" ] && [ -f "$TMP/healthy.trc" ]; then
	"$GPUREC" diff --json "$TMP/healthy.trc" "$TMP/leak.trc" >"$TMP/diff.json"
	check "diff healthy -> leak: peak 115 -> 125 MiB, outstanding 0 -> 30 MiB, growth 0 -> 1 MiB, frees 3 -> 2" \
		"[[$((115 * MiB)), $((125 * MiB))], [0, $((30 * MiB))], [0, $MiB], [3, 2]]" \
		"$(json "$TMP/diff.json" "(lambda M: [[M[k]['a'], M[k]['b']] for k in ('memory.peak', 'memory.outstanding', 'memory.growth', 'memory.churn_frees')])({m['id']: m for m in d['metrics']})")"
	check "diff healthy -> leak: the summary names the leak and what it left" "[true, true]" \
		"$(json "$TMP/diff.json" "['device memory growth per iteration (a leak) 0 B -> 1.0 MiB' in d['summary'], 'device memory outstanding at the end 0 B -> 30.0 MiB' in d['summary']]")"
fi

# the real runtime without a driver: every call fails
if rec real leak; then
	check "real libcudart: not judged, nothing live, every allocation failed" \
		"[false, \"none\", 0, 0, 0, true]" \
		"$(q real "[d['memory']['judged'], d['memory']['level'], sum(p['peak_bytes'] for p in d['memory']['processes']), sum(p['outstanding_bytes'] for p in d['memory']['processes']), d['memory']['device_allocations'], d['memory']['verdict'].startswith('not judged')]")"
fi
exit $((failures > 0))
