# Replay of Python call sites (report, diff, export, info) on traces with exactly known sites,
# written by tests/tools/trace_python.c: 1000 launches from train.py:42 step (700 scale_bias,
# 300 gemm), 300 from model.py:7 forward (softmax), 1 from a frame without PYFRAME, 100 .item()
# read-backs (copy + sync) from train.py:60 read_loss. Needs no root, no GPU.
. "$(dirname "$0")/lib.sh"
PYT=${PYT:-$PWD/$O/tests/tool_trace_python}
"$PYT" "$TMP/a.trc" 42 && "$PYT" "$TMP/b.trc" 44 || { not_ok "trace_python"; exit 1; }

"$GPUREC" report "$TMP/a.trc" >"$TMP/r.txt" || not_ok "report"
"$GPUREC" report --json "$TMP/a.trc" >"$TMP/r.json" || not_ok "report --json"
sed -n '/launch sites:/,/^$/p' "$TMP/r.txt" >"$TMP/sites.txt"
cat >"$TMP/sites.want" <<'TXT'
  launch sites: 3 (the innermost Python frame, else the native frame that launched)
   launches   share  site
       1000     77%  train.py:42 step -> launch_scale (libkern.so)
                     kernels: scale_bias 700, gemm 300
        300     23%  model.py:7 forward -> launch_gemm (libkern.so)
                     kernels: softmax 300
          1    0.1%  python:? -> launch_scale (libkern.so)
                     kernels: softmax 1

TXT
if cmp -s "$TMP/sites.want" "$TMP/sites.txt"; then ok "launch sites table"; else
	not_ok "launch sites table:"; diff -u "$TMP/sites.want" "$TMP/sites.txt" | sed 's/^/#   /'; fi
# the launcher skips the runtime's own frame (cudart_launch_internal in libcudart)
check "item pattern site" "      100x at train.py:60 read_loss -> copy_back (libkern.so)" \
	"$(grep '100x at' "$TMP/r.txt")"
check "fusion shared stack" "        shared stack: train.py:42 step -> launch_scale (libkern.so)" \
	"$(grep 'shared stack' "$TMP/r.txt")"

L='d["launches"]["launch_sites"]'
check "json sites counts" "[1000, 300, 1]" "$(json "$TMP/r.json" "[s['launches'] for s in $L['sites']]")"
check "json site frame" '{"file": "train.py", "function": "step", "kind": "python", "line": 42, "module": null}' \
	"$(json "$TMP/r.json" "$L['sites'][0]['frame']")"
check "json site launcher" '{"file": null, "function": "launch_gemm", "kind": "native", "line": null, "module": "libkern.so"}' \
	"$(json "$TMP/r.json" "$L['sites'][1]['launcher']")"
check "json site kernels" '[{"count": 700, "name": "scale_bias"}, {"count": 300, "name": "gemm"}]' \
	"$(json "$TMP/r.json" "$L['sites'][0]['kernels']")"
check "json unresolved frame" '{"file": null, "function": null, "kind": "python", "line": null, "module": null}' \
	"$(json "$TMP/r.json" "$L['sites'][2]['frame']")"
F='d["transfer"]["findings"][0]["sites"][0]'
# every frame past the Python ones is kept: the replay cut (FORMAT.md 11) never ends at one
check "json finding frames, caller first" '["main (python3.11)", "train.py:88 main", "train.py:60 read_loss", "copy_back (libkern.so)"]' \
	"$(json "$TMP/r.json" "$F['stack']")"
check "json finding frame kinds" '["native", "python", "python", "native"]' \
	"$(json "$TMP/r.json" "[f['kind'] for f in $F['frames']]")"
check "json finding python line" "60" "$(json "$TMP/r.json" "$F['frames'][2]['line']")"

"$GPUREC" diff "$TMP/a.trc" "$TMP/b.trc" >"$TMP/d.txt" || not_ok "diff"
"$GPUREC" diff --json "$TMP/a.trc" "$TMP/b.trc" >"$TMP/d.json" || not_ok "diff --json"
check "diff matches the moved line" "        1000       1000         +0  train.py:42->44 step" \
	"$(grep 'step$' "$TMP/d.txt")"
check "diff json site" '["train.py:42->44 step", "both", [1000, 1000], [42, 44]]' \
	"$(json "$TMP/d.json" "[d['launch_sites'][0][k] for k in ('site','status','launches')] + [[f['line'] for f in d['launch_sites'][0]['frames']]]")"

"$GPUREC" export "$TMP/a.trc" -o "$TMP/e.json" >/dev/null || not_ok "export"
# the first launch's stack, innermost first: its sf, then each frame's parent
chain() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); sf=d["stackFrames"]
n=str(next(e["sf"] for e in d["traceEvents"] if e.get("cat") == "launch" and e["ph"] == "X"))
out=[]
while n:
	out.append([n, sf[n]["name"], sf[n]["category"]]); n=sf[n].get("parent")
print(json.dumps(out))' "$1"
}
check "export stackFrames of the first launch" \
	'[["4", "launch_scale (libkern.so)", "native"], ["3", "train.py:42 step", "python"], ["2", "train.py:88 main", "python"], ["1", "main (python3.11)", "native"]]' \
	"$(chain "$TMP/e.json")"
check "export slices with a stack" "1501" \
	"$(json "$TMP/e.json" "sum(1 for e in d['traceEvents'] if 'sf' in e)")"

"$GPUREC" info "$TMP/a.trc" >"$TMP/i.txt" || not_ok "info"
check "info python" "  python       pid 300: CPython 3.11.2 (/usr/bin/python3.11), frames read" \
	"$(grep '^  python ' "$TMP/i.txt")"
"$GPUREC" info --json "$TMP/a.trc" >"$TMP/i.json" || not_ok "info --json"
check "info json python" '[{"frames_read": true, "pid": 300, "text": "CPython 3.11.2 (/usr/bin/python3.11)", "version_hex": "0x030b02f0"}]' \
	"$(json "$TMP/i.json" "d['pythons']")"
exit $((failures > 0))
