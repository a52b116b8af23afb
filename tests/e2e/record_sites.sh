#!/usr/bin/env bash
# Call sites named as the user's code: sites_static (nvcc's default static runtime, -g) launches
# step_a, step_b, step_c from train_step 40 times, then a cudaDeviceSynchronize that fails, and
# prints the __LINE__ of each. Its frames are the program's, not the CUDA library's (the runtime
# lives in the same file): the HTML flame graph and the fusion candidate keep train_step and
# main; each frame's source line is the line the program printed; stacks read caller first, the
# CUDA call last, in text and JSON; sites_nodebug (its debug info stripped) keeps function
# names, and record says once that it has no line tables.
. "$(dirname "$0")/lib.sh"
need_root gpurec record

for p in sites_static sites_nodebug; do
	if [ ! -x "$PROGS/$p" ]; then
		not_ok "$p not built in $PROGS (make test-bins)"
		exit 1
	fi
done

"$GPUREC" record -o "$TMP/g.trc" -- "$PROGS/sites_static" >"$TMP/g.out" 2>"$TMP/g.err"
check "record sites_static" 0 $?
line() { sed -n "s/^line $1 //p" "$TMP/g.out"; }
LA=$(line step_a) LB=$(line step_b) LC=$(line step_c) LT=$(line train_step) LS=$(line sync)
check "the program printed its launch, call and sync lines" 5 \
	"$(printf '%s\n' "$LA" "$LB" "$LC" "$LT" "$LS" | grep -c '^[0-9][0-9]*$')"
# the C library's frame below main: its offset is the machine's libc build
libc() { sed -E 's/libc\.so\.6\+0x[0-9a-f]+/libc.so.6+OFF/g'; }
# the default stacks (unwind tables) reach the process's entry point: every stack starts there
START="_start (sites_static) -> __libc_start_main (libc.so.6) -> libc.so.6+OFF"
START_JSON='"_start (sites_static)", "__libc_start_main (libc.so.6)", "libc.so.6+OFF"'
if grep -q "no line tables" "$TMP/g.err"; then
	not_ok "record says a -g build has no line tables: $(grep 'no line tables' "$TMP/g.err")"
else
	ok "record finds the -g build's line tables"
fi

# the flame graph's data, from the page's <script id="gpurec-data">
"$GPUREC" report --html -o "$TMP/g.html" "$TMP/g.trc" >/dev/null 2>&1
check "report --html" 0 $?
python3 - "$TMP/g.html" >"$TMP/flame" <<'PY'
import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script id="gpurec-data"[^>]*>(.*?)</script>', t, re.S).group(1))
def walk(n, path):
    kids = n.get("children", [])
    if not kids:
        print(" -> ".join(path + [n["name"]]), n["v"][0])
    for c in kids:
        walk(c, path + [n["name"]])
walk(d["views"]["flame"]["root"], [])
PY
libc <"$TMP/flame" >"$TMP/flame.n"
for k in a b c; do
	eval L=\$L$(echo $k | tr a-c A-C)
	want="all -> $START -> sites_static.cu:$LT main -> sites_static.cu:$L train_step(float*) -> step_$k(float*) 40"
	check "flame: step_$k's 40 launches under main -> sites_static.cu:$L train_step(float*)" 1 \
		"$(grep -cxF "$want" "$TMP/flame.n")"
done
check "flame: no frame of the runtime, no launch stub" 0 \
	"$(grep -c 'libcudart_static\|__device_stub\|cudaLaunch' "$TMP/flame.n")"

"$GPUREC" report --json "$TMP/g.trc" >"$TMP/g.json" 2>/dev/null
check "fusion: the candidate's stack is the program's, its innermost frame (last) the first launch's line" \
	"sites_static.cu:$LA train_step(float*)" \
	"$(json "$TMP/g.json" 'd["fusion"]["candidates"][0]["stack"][-1]')"
check "fusion: 3 kernels, 40 times" "3 40" \
	"$(json "$TMP/g.json" '"%d %d" % (d["fusion"]["candidates"][0]["length"], d["fusion"]["candidates"][0]["occurrences"])')"

# one arrow direction: caller first, the outermost frame first, the CUDA call last
"$GPUREC" report "$TMP/g.trc" >"$TMP/g.txt" 2>/dev/null
check "text: the failed sync's site reads caller first, the call last" \
	"    first from: $START -> sites_static.cu:$LS main -> cudaDeviceSynchronize" \
	"$(sed -n '/first from:/{N;s/\n */ /;p}' "$TMP/g.txt" | libc)"
check "text: the fusion candidate's shared stack reads caller first" \
	"$START -> sites_static.cu:$LT main -> sites_static.cu:$LA train_step(float*)" \
	"$(sed -n '/shared stack:/,/^$/p' "$TMP/g.txt" | sed 's/^ *//; s/^shared stack: //' | paste -sd' ' |
		sed 's/ *$//' | libc)"
check "json: the failed sync's site[] is caller first" \
	"[$START_JSON, \"sites_static.cu:$LS main\"]" "$(json "$TMP/g.json" 'd["errors"][0]["site"]' | libc)"
check "json: the fusion candidate's stack[] is caller first" \
	"[$START_JSON, \"sites_static.cu:$LT main\", \"sites_static.cu:$LA train_step(float*)\"]" \
	"$(json "$TMP/g.json" 'd["fusion"]["candidates"][0]["stack"]' | libc)"

"$GPUREC" record -o "$TMP/n.trc" -- "$PROGS/sites_nodebug" >/dev/null 2>"$TMP/n.err"
check "record sites_nodebug" 0 $?
check "record says once which binary has no line tables" 1 \
	"$(grep -c "^gpurec record: no line tables .* in $PROGS/sites_nodebug: their frames read function+offset$" "$TMP/n.err")"
"$GPUREC" report --json "$TMP/n.trc" >"$TMP/n.json" 2>/dev/null
check "without line tables the frame keeps function (module)" "train_step(float*) (sites_nodebug)" \
	"$(json "$TMP/n.json" 'd["fusion"]["candidates"][0]["stack"][-1]')"

[ $failures -eq 0 ]
