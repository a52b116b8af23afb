# The HTML report in real browsers (docs/HTML.md): headless Chromium and headless Firefox each
# load the report of the chain sample (5 kernels x 200 steps on the simulator), a diff against
# chain_fused, a long run (chain 1300: the step budget's bars bucketed), and the edge cases the
# recorder cannot produce on demand; tests/browser/check_page.py runs the same checks in both: the
# drawn elements against the page's data, the keyboard, the mouse, dark mode and the console.
# Screenshots go to $O/browser/ (NAME.png from Chromium, NAME-firefox.png from Firefox). The pages
# come from `gpurec report --html` / `diff --html` when gpurec has them, else from
# tests/browser/fixture.py over report/diff/export JSON. A browser that is not there or cannot
# start is a SKIP with the reason and its remaining pages are not loaded; the other browser's
# checks still run. Needs root (BPF), no GPU.
. "$(dirname "$0")/lib.sh"
need_root "html_report.sh"
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim
BROWSER=$PWD/tests/browser
SHOTS=$PWD/$O/browser
mkdir -p "$SHOTS"
STEPS=200

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$SAMPLES/chain" ]; then
	not_ok "samples not built in $SAMPLES (make samples)"
	exit 1
fi

for s in chain chain_fused; do
	if ! "$GPUREC" record -o "$TMP/$s.trc" -- env LD_LIBRARY_PATH="$SIM" "$SAMPLES/$s" $STEPS \
		>"$TMP/$s.out" 2>&1; then
		not_ok "record $s: $(tail -3 "$TMP/$s.out")"
		exit 1
	fi
	"$GPUREC" report --json "$TMP/$s.trc" >"$TMP/$s.json"
	"$GPUREC" export "$TMP/$s.trc" -o "$TMP/$s.export.json" >/dev/null
done

# the page of a report and of a diff: gpurec's own when it has --html, else the fixture's
if "$GPUREC" report --help 2>&1 | grep -q -- --html; then
	"$GPUREC" report --html -o "$TMP/chain.html" "$TMP/chain.trc" >/dev/null
	"$GPUREC" diff --html -o "$TMP/diff.html" "$TMP/chain.trc" "$TMP/chain_fused.trc" >/dev/null
	echo "# pages from gpurec report --html and diff --html"
else
	python3 "$BROWSER/fixture.py" report "$TMP/chain.json" "$TMP/chain.export.json" chain.trc \
		-o "$TMP/chain.data.json"
	python3 "$BROWSER/assemble.py" "$TMP/chain.data.json" "$TMP/chain.html"
	"$GPUREC" diff --json "$TMP/chain.trc" "$TMP/chain_fused.trc" >"$TMP/diff.json"
	python3 "$BROWSER/fixture.py" diff "$TMP/diff.json" "$TMP/chain.json" \
		"$TMP/chain.export.json" chain.trc "$TMP/chain_fused.json" \
		"$TMP/chain_fused.export.json" chain_fused.trc -o "$TMP/diff.data.json"
	python3 "$BROWSER/assemble.py" "$TMP/diff.data.json" "$TMP/diff.html"
	echo "# pages from tests/browser/fixture.py (gpurec has no report --html yet)"
fi

# what the sample controls, in the page's data: 200 iterations of 5 kernels, 200 launches each
data() { python3 -c 'import json,re,sys
t=open(sys.argv[1]).read()
d=json.loads(re.search(r"<script id=\"gpurec-data\" type=\"application/json\">(.*?)</script>",t,re.S).group(1))
print(eval(sys.argv[2]))' "$@"; }
check "chain page: iterations in the data" $STEPS "$(data "$TMP/chain.html" 'd["views"]["iterations"]["count"]')"
check "chain page: kernels in the data" 5 "$(data "$TMP/chain.html" 'len(d["report"]["launches"]["kernels"])')"
check "diff page: the new side's one kernel" \
	"$STEPS" "$(data "$TMP/diff.html" 'd["new"]["report"]["launches"]["kernels"][0]["count"]')"

# the browsers that have not skipped yet; chromium's screenshots keep their plain names.
# GPUREC_TEST_BROWSERS narrows them: CI's sanitizer run loads its pages in Chromium alone, the
# plain run having driven both browsers over pages the same code wrote.
browsers=${GPUREC_TEST_BROWSERS:-chromium firefox}
for b in chromium firefox; do
	case " $browsers " in
	*" $b "*) ;;
	*) echo "# $b: not in GPUREC_TEST_BROWSERS ($browsers), none of its checks run" ;;
	esac
done
suffix() { [ "$1" = chromium ] || echo "-$1"; }

# browse PAGE NAME SHOT [check_page options]: the page in each browser, its screenshot as
# $SHOTS/SHOT.png and SHOT-firefox.png. A 77 (the browser cannot start: check_page printed the
# SKIP line) drops that browser for the rest of the script.
browse() {
	local page=$1 name=$2 shot=$3 b rc left=""
	shift 3
	for b in $browsers; do
		python3 "$BROWSER/check_page.py" "$page" --browser $b --name "$name/$b" \
			--max-bytes 2000000 --screenshot "$SHOTS/$shot$(suffix $b).png" "$@" \
			>"$TMP/browse.tap" 2>"$TMP/browse.err"
		rc=$?
		cat "$TMP/browse.tap"
		if [ $rc -eq 77 ]; then
			echo "# $b's checks were skipped; its other pages would be too"
			continue
		fi
		left="$left $b"
		# a failure is a line that names it: the harness killed, or a traceback before its
		# first failing check, gets one here
		if [ $rc -ne 0 ] && ! grep -q '^not ok' "$TMP/browse.tap"; then
			not_ok "$name/$b: check_page.py exited with status $rc: $(tail -3 "$TMP/browse.err" | paste -sd' ')"
		elif [ $rc -ne 0 ]; then
			failures=$((failures + 1))
			sed 's/^/# /' "$TMP/browse.err" | tail -5
		fi
	done
	browsers=$left
}

browse "$TMP/chain.html" chain report --expect-launches $STEPS --mouse --keyboard --dark
browse "$TMP/diff.html" diff diff --mouse --keyboard --dark

# graph launches (tests/progs/graph_nodes.cu: each kernel added once as a node, executed by 6
# graph launches): the kernel bars count kernels executed, as the text report's table does
if "$GPUREC" record -o "$TMP/nodes.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/graph_nodes" \
	>"$TMP/nodes.out" 2>&1 && "$GPUREC" report --html -o "$TMP/nodes.html" "$TMP/nodes.trc" \
	>>"$TMP/nodes.out" 2>&1; then
	browse "$TMP/nodes.html" graph_nodes report --expect-launches 6
else
	not_ok "graph_nodes page: $(tail -3 "$TMP/nodes.out")"
fi

# a long run (chain 1300): the step budget's bars are buckets of ceil(1300 / 600) = 3
# consecutive iterations, 434 of them (the last holds 1), each its iterations' mean
if "$GPUREC" report --help 2>&1 | grep -q -e --html; then
	"$GPUREC" record -o "$TMP/long.trc" -- env LD_LIBRARY_PATH="$SIM" "$SAMPLES/chain" 1300 \
		>"$TMP/long.out" 2>&1 &&
		"$GPUREC" report --html -o "$TMP/long.html" "$TMP/long.trc" >/dev/null
	check "long run page written" 0 $?
	check "long run page: 434 budget bars of 3 iterations, the last of 1" "434 3 1299 1299" \
		"$(data "$TMP/long.html" '"%d %d %d %d" % ((len(d["views"]["budget"]["bars"]), d["views"]["budget"]["per"]) + tuple(d["views"]["budget"]["bars"][-1][:2]))')"
	browse "$TMP/long.html" long-run long-run --mouse
fi

# record --cupti: synthetic loops with GPU rows (tests/tools/trace_gpu_loop.c, 10 iterations of
# kernels a and b; the second with 5 GPU records dropped): the page's GPU part lists each
# kernel the GPU measured, the diff page each kernel whose GPU time it compares
if "$GPUREC" report --help 2>&1 | grep -q -e --html; then
	"$PWD/$O/tests/tool_trace_gpu_loop" "$TMP/ga.trc" 10 1000 3000 0 &&
		"$PWD/$O/tests/tool_trace_gpu_loop" "$TMP/gb.trc" 10 1500 2000 5 &&
		"$GPUREC" report --html -o "$TMP/gpu.html" "$TMP/gb.trc" >/dev/null &&
		"$GPUREC" diff --html -o "$TMP/gpudiff.html" "$TMP/ga.trc" "$TMP/gb.trc" >/dev/null
	check "GPU pages written" 0 $?
	check "GPU pages: 2 kernels measured, 5 records dropped; 2 kernels compared" "2 5 2" \
		"$(data "$TMP/gpu.html" '"%d %d" % (len(d["report"]["gpu"]["kernels"]), d["report"]["gpu"]["dropped"])') $(data "$TMP/gpudiff.html" 'len(d["diff"]["gpu"]["kernels"])')"
	browse "$TMP/gpu.html" gpu gpu --keyboard
	browse "$TMP/gpudiff.html" gpudiff gpudiff
fi

# edge cases, made from the chain trace's JSON; many-kernels and many-spans are the caps'
# worst case (5000 kernel rows, 10000 spans in each window): still under 2 MB; nvtx: ranges on
# lanes under their thread, nested by depth, and the range flame graph; nvtx-diff: a diff page
# of two such sides with the per-range rows
for c in no-iteration empty hostile-names many-kernels many-spans nvtx nvtx-diff; do
	python3 "$BROWSER/fixture.py" edge $c "$TMP/chain.json" "$TMP/chain.export.json" \
		-o "$TMP/$c.data.json"
	python3 "$BROWSER/assemble.py" "$TMP/$c.data.json" "$TMP/$c.html"
	extra=()
	[ $c = hostile-names ] && extra=(--hostile)
	[ $c = empty ] && extra=(--keyboard)
	browse "$TMP/$c.html" $c $c "${extra[@]}"
done
check "many-kernels page: 5000 kernels in the data" 5000 \
	"$(data "$TMP/many-kernels.html" 'len(d["report"]["launches"]["kernels"])')"

# the checks can fail: a page that warns on the console and draws one kernel too many fails
# exactly those two, in each browser that ran
python3 -c 'import sys
t = open(sys.argv[1]).read().replace("\x27use strict\x27;", "\x27use strict\x27; console.warn(\"planted\");"
    " document.body.appendChild(document.createElement(\"i\")).setAttribute(\"data-kernel\", \"x\");", 1)
open(sys.argv[2], "w").write(t)' "$TMP/chain.html" "$TMP/planted.html"
for b in $browsers; do
	python3 "$BROWSER/check_page.py" "$TMP/planted.html" --browser $b --name planted/$b \
		>"$TMP/planted-$b.tap"
	check "planted page in $b: the harness exits 1" 1 $?
	check "planted page in $b: its failures" \
		"not ok - planted/$b: a bar per kernel (5): 6|not ok - planted/$b: no console error or warning: console.warning: planted" \
		"$(grep '^not ok' "$TMP/planted-$b.tap" | paste -sd'|')"
done
# a browser that is not there is a skip (77), not a pass
CHROMIUM=/nonexistent python3 "$BROWSER/check_page.py" "$TMP/chain.html" --name absent \
	>"$TMP/absent.tap"
check "no chromium: the harness exits 77 (skipped)" 77 $?
check "no chromium: it says why" "ok - absent # SKIP no chromium on this machine (apt-get install chromium)" \
	"$(tail -1 "$TMP/absent.tap")"
FIREFOX=/nonexistent python3 "$BROWSER/check_page.py" "$TMP/chain.html" --browser firefox \
	--name absent >"$TMP/absent-firefox.tap"
check "no firefox: the harness exits 77 (skipped)" 77 $?
check "no firefox: it says why" "ok - absent # SKIP no firefox on this machine (apt-get install firefox-esr)" \
	"$(tail -1 "$TMP/absent-firefox.tap")"
# one that is there but cannot start (here: exits at once) is a skip with the reason too
FIREFOX=false python3 "$BROWSER/check_page.py" "$TMP/chain.html" --browser firefox \
	--name broken >"$TMP/broken-firefox.tap"
check "firefox that cannot start: the harness exits 77 (skipped)" 77 $?
check "firefox that cannot start: it says why" \
	"ok - broken # SKIP the browser did not start: firefox exited with status 1" \
	"$(tail -1 "$TMP/broken-firefox.tap")"
exit $((failures > 0))
