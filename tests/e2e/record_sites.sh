#!/usr/bin/env bash
# Call sites named as the user's code: sites_static (nvcc's default static runtime, -g) launches
# step_a, step_b, step_c from train_step 40 times and prints each launch's __LINE__. Its frames
# are the program's, not the CUDA library's (the runtime lives in the same file): the HTML
# flame graph and the fusion candidate keep train_step and main; each launch's source line is
# the line the program printed; sites_nodebug (its debug info stripped) keeps function names,
# and record says once that it has no line tables.
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
LA=$(line step_a) LB=$(line step_b) LC=$(line step_c)
check "the program printed its launch lines" 3 "$(printf '%s\n' "$LA" "$LB" "$LC" | grep -c '^[0-9][0-9]*$')"
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
for k in a b c; do
	eval L=\$L$(echo $k | tr a-c A-C)
	n=$(grep -c "^all -> .* -> sites_static.cu:[0-9]* main -> sites_static.cu:$L train_step(float\*) -> step_$k(float\*) 40$" "$TMP/flame")
	check "flame: step_$k's 40 launches under main -> sites_static.cu:$L train_step(float*)" 1 "$n"
done
check "flame: no frame of the runtime, no launch stub" 0 \
	"$(grep -c 'libcudart_static\|__device_stub\|cudaLaunch' "$TMP/flame")"

"$GPUREC" report --json "$TMP/g.trc" >"$TMP/g.json" 2>/dev/null
check "fusion: the candidate's stack is the program's, its innermost frame the first launch's line" \
	"sites_static.cu:$LA train_step(float*)" \
	"$(json "$TMP/g.json" 'd["fusion"]["candidates"][0]["stack"][0]')"
check "fusion: 3 kernels, 40 times" "3 40" \
	"$(json "$TMP/g.json" '"%d %d" % (d["fusion"]["candidates"][0]["length"], d["fusion"]["candidates"][0]["occurrences"])')"

"$GPUREC" record -o "$TMP/n.trc" -- "$PROGS/sites_nodebug" >/dev/null 2>"$TMP/n.err"
check "record sites_nodebug" 0 $?
check "record says once which binary has no line tables" 1 \
	"$(grep -c "^gpurec record: no line tables .* in $PROGS/sites_nodebug: their frames read function+offset$" "$TMP/n.err")"
"$GPUREC" report --json "$TMP/n.trc" >"$TMP/n.json" 2>/dev/null
check "without line tables the frame keeps function (module)" "train_step(float*) (sites_nodebug)" \
	"$(json "$TMP/n.json" 'd["fusion"]["candidates"][0]["stack"][0]')"

[ $failures -eq 0 ]
