#!/usr/bin/env bash
# gpurec report --html and diff --html on samples/chain recorded on the simulator (root for BPF):
# the page parses as HTML, its embedded data loads and holds exactly what report --json and diff
# --json print, every iteration of the loop (chain 50: 50), its size stays under 2 MB; the page
# is written with the invoking user's rights under sudo; a missing -o, --json beside --html, an
# unwritable directory and a bad trace are errors that leave no page behind.
. "$(dirname "$0")/lib.sh"
need_root gpurec record
SAMPLES=${SAMPLES:-$PWD/$O/samples}
SIM=$SAMPLES/sim

if [ ! -x "$SAMPLES/chain" ] || [ ! -f "$SIM/libcudart.so.13" ]; then
	not_ok "samples not built in $SAMPLES (make samples)"
	exit 1
fi

rec() { # OUT STEPS
	"$GPUREC" record -o "$1" -- env LD_LIBRARY_PATH="$SIM" "$SAMPLES/chain" "$2" \
		>"$TMP/rec.out" 2>"$TMP/rec.err"
	check "record chain $2" 0 $?
}
rec "$TMP/c50.trc" 50
rec "$TMP/c80.trc" 80

# page FILE: the page's data JSON, from its <script id="gpurec-data">, after an HTML parse
page_data() {
	python3 - "$1" <<'PY'
import html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.data, self.scripts = False, [], 0
    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
            self.inside = dict(attrs).get("id") == "gpurec-data"
    def handle_endtag(self, tag):
        if tag == "script":
            self.inside = False
    def handle_data(self, d):
        if self.inside:
            self.data.append(d)
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
json.dump(json.loads("".join(p.data)), sys.stdout)
PY
}

"$GPUREC" report --html -o "$TMP/r.html" "$TMP/c50.trc" >"$TMP/out" 2>&1
check "report --html exits 0" 0 $?
grep -q "^gpurec report: wrote $TMP/r.html" "$TMP/out" && ok "report --html says what it wrote" ||
	not_ok "report --html output: $(cat "$TMP/out")"
page_data "$TMP/r.html" >"$TMP/r.json"
check "the page parses and its data loads" 0 $?
"$GPUREC" report --json --top 500 "$TMP/c50.trc" >"$TMP/rep.json"
check "the page's report is exactly report --json" True \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"] == json.load(open(sys.argv[2])))' "$TMP/r.json" "$TMP/rep.json")"
check "schema and kind" "gpurec-html-1 report" "$(json "$TMP/r.json" 'd["schema"] + " " + d["kind"]')"
check "iterations: chain 50 makes 50, one point each" "50 50 False" \
	"$(json "$TMP/r.json" '" ".join(str(x) for x in (d["views"]["iterations"]["count"], len(d["views"]["iterations"]["points"]), d["views"]["iterations"]["binned"]))')"
check "budget: a bar per iteration, each its parts' sum; the median's; 3 marks" "50 1 True True 3" \
	"$(json "$TMP/r.json" '" ".join(map(str, [(b := d["views"]["budget"]) and len(b["bars"]), b["per"], all(sum(r[3:]) == r[2] and r[0] == r[1] == i for i, r in enumerate(b["bars"])), b["bars"][(m := d["report"]["budget"]["median"])["index"]][2:] == [m["total_ns"]] + [m[p + "_ns"] for p in b["parts"]], len(b["marks"])]))')"
check "flame root: executed launches (5 per step)" 250 "$(json "$TMP/r.json" 'd["views"]["flame"]["root"]["v"][0]')"
check "timeline: launch spans of a window are its 5 kernels" 5 \
	"$(json "$TMP/r.json" 'sum(1 for s in d["views"]["timeline"]["spans"] if s[3] == "launch" and d["views"]["timeline"]["windows"][0]["start"] <= s[1] < d["views"]["timeline"]["windows"][0]["end"])')"
size=$(stat -c %s "$TMP/r.html")
[ "$size" -lt 2000000 ] && ok "page under 2 MB ($size bytes)" || not_ok "page is $size bytes"
grep -qiE '<link|src=' "$TMP/r.html" && not_ok "the page fetches something" || ok "no <link>, no src="

"$GPUREC" diff --html -o "$TMP/d.html" "$TMP/c50.trc" "$TMP/c80.trc" >"$TMP/out" 2>&1
check "diff --html exits 0" 0 $?
page_data "$TMP/d.html" >"$TMP/d.json"
"$GPUREC" diff --json "$TMP/c50.trc" "$TMP/c80.trc" >"$TMP/diff.json"
check "the page's diff is exactly diff --json" True \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["diff"] == json.load(open(sys.argv[2])))' "$TMP/d.json" "$TMP/diff.json")"
check "diff sides: 50 and 80 iterations" "50 80" \
	"$(json "$TMP/d.json" '"%d %d" % (d["base"]["views"]["iterations"]["count"], d["new"]["views"]["iterations"]["count"])')"
"$GPUREC" diff --html -o "$TMP/d2.html" "$TMP/c50.trc,$TMP/c80.trc" "$TMP/c80.trc" >/dev/null 2>&1
check "diff --html: a side of two traces" 2 \
	"$(page_data "$TMP/d2.html" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["base"]["files"]))')"

# under sudo the page is the invoking user's (gpurec takes the user's rights for reading and
# writing): nobody may write in its directory, and the file is nobody's
mkdir "$TMP/nobody" && chmod 777 "$TMP/nobody" && chmod 755 "$TMP" && chmod 644 "$TMP/c50.trc"
SUDO_UID=65534 SUDO_GID=65534 "$GPUREC" report --html -o "$TMP/nobody/r.html" "$TMP/c50.trc" >/dev/null 2>&1
check "under sudo: written" 0 $?
check "under sudo: owned by the invoking user" "65534" "$(stat -c %u "$TMP/nobody/r.html" 2>/dev/null)"
mkdir "$TMP/root_only" && chmod 755 "$TMP/root_only"
SUDO_UID=65534 SUDO_GID=65534 "$GPUREC" report --html -o "$TMP/root_only/r.html" "$TMP/c50.trc" >"$TMP/out" 2>&1
check "under sudo: a directory only root may write is refused" 1 $?
check "under sudo: nothing left there" "" "$(ls -A "$TMP/root_only")"

# errors, no page left behind
"$GPUREC" report --html "$TMP/c50.trc" >"$TMP/out" 2>&1
check "--html without -o: usage error" 2 $?
grep -q -- "--html needs -o PAGE" "$TMP/out" && ok "--html without -o says to give -o" || not_ok "$(cat "$TMP/out")"
"$GPUREC" diff --html --json -o "$TMP/x.html" "$TMP/c50.trc" "$TMP/c80.trc" >"$TMP/out" 2>&1
check "--html with --json: usage error" 2 $?
mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$GPUREC" report --html -o "$TMP/ro/r.html" "$TMP/c50.trc" >"$TMP/out" 2>&1
check "unwritable directory: exit 1" 1 $?
grep -q "gpurec report: writing $TMP/ro/r.html: Permission denied" "$TMP/out" && ok "unwritable directory: named" ||
	not_ok "unwritable: $(cat "$TMP/out")"
check "unwritable directory: nothing there" "" "$(ls -A "$TMP/ro")"
mkdir "$TMP/bad" && head -c 100 "$TMP/c50.trc" >"$TMP/bad/bad.trc"
"$GPUREC" report --html -o "$TMP/bad/r.html" "$TMP/bad/bad.trc" >"$TMP/out" 2>&1
check "a bad trace: exit 1" 1 $?
check "a bad trace: no page, no temporary file" "bad.trc" "$(ls -A "$TMP/bad")"
exit $((failures > 0))
