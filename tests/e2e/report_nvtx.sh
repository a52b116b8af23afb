#!/usr/bin/env bash
# NVTX ranges in the report (docs/REPORTS.md "NVTX ranges", "Naming the step"): nvtxprog
# (tests/progs/nvtxprog.cu) recorded on the GPU simulator prints every NVTX call with the
# CLOCK_MONOTONIC bracket around it, so the section's counts are exact and each figure of time is
# bounded by the brackets: a range's recorded time lies between its pop's `before` less its
# push's `after` and its pop's `after` less its push's `before`; a median or a total of such
# times between the same statistic of the lower and of the upper bounds. Launches inside each
# range are what the program made there. The step: the finder's own choice is the range "step",
# and `--step nvtx:step` gives exactly the program's steps. Names: the stream and the thread the
# program named appear by their names. Then diff against a run with more launches in forward,
# export's tables and slices, and the pace by range of a 4-rank job. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root report_nvtx
SIM=${SAMPLES:-$PWD/$O/samples}/sim
N=20

if [ ! -f "$SIM/libcudart.so.13" ] || [ ! -x "$PROGS/nvtxprog" ]; then
	not_ok "simulator or progs not built (make samples progs)"
	exit 1
fi
if ! LD_LIBRARY_PATH=$SIM "$GPUREC" record -o "$TMP/n.trc" -- "$PROGS/nvtxprog" $N \
	>"$TMP/n.out" 2>"$TMP/n.err"; then
	not_ok "record nvtxprog: $(tail -3 "$TMP/n.err" | paste -sd' ')"
	exit 1
fi
"$GPUREC" report --json "$TMP/n.trc" >"$TMP/n.json"
"$GPUREC" report "$TMP/n.trc" >"$TMP/n.txt"
"$GPUREC" report --json --step nvtx:step "$TMP/n.trc" >"$TMP/step.json"

# the program's ranges from its own lines: NAME LOWER UPPER (ns), push/pop paired per thread,
# start/end by id
cat >"$TMP/truth.py" <<'PY'
import json, sys
stacks, starts, ranges = {}, {}, []
for l in open(sys.argv[1]):
    f = l.rstrip("\n").split(" ", 6)
    if f[0] != "at":
        continue
    op, before, after, tid, ret = f[1], int(f[2]), int(f[3]), f[4], f[5]
    text = f[6] if len(f) > 6 else ""
    if op == "push":
        stacks.setdefault(tid, []).append((text, before, after))
    elif op == "pop":
        name, b0, a0 = stacks[tid].pop()
        ranges.append((name, before - a0, after - b0))
    elif op == "start":
        starts[ret] = ("io:" + text, before, after)
    elif op == "end":
        name, b0, a0 = starts.pop(ret)
        ranges.append((name, before - a0, after - b0))
json.dump(ranges, open(sys.argv[2], "w"))
PY
python3 "$TMP/truth.py" "$TMP/n.out" "$TMP/truth.json"

names() { # the section's rows: domain:name (or name) -> row
	json "$1" '"\n".join("%s %d %d %d" % ((n["domain"] + ":" if n["domain"] else "") + n["name"], n["count"], n["launches"], n["kernels"]) for n in d["nvtx"]["names"])'
}
check "each range name: count, launches and kernels inside, as the program made them" \
	"$(printf '%s\n' "step $N $((3 * N)) $((3 * N))" "forward $N $((2 * N)) $((2 * N))" \
		"backward ✓ $N $N $N" "io:load batch $N 0 0" | sort)" "$(names "$TMP/n.json" | sort)"
check "marks and unmatched calls" "$N 0 0" \
	"$(json "$TMP/n.json" '"%d %d %d" % (d["nvtx"]["marks"], d["nvtx"]["unmatched_pops"], d["nvtx"]["unmatched_ends"])')"
check "nesting: forward and backward under step, load batch in its own domain at the top" \
	"$(printf '%s\n' "backward ✓ 1 step" "forward 1 step" "io:load batch 0 -" "step 0 -")" \
	"$(json "$TMP/n.json" '(lambda v: "\n".join(sorted("%s %d %s" % ((n["domain"] + ":" if n["domain"] else "") + n["name"], n["depth"], v[n["parent"]]["name"] if n["parent"] is not None else "-") for n in v)))(d["nvtx"]["names"])')"
check "each name's median and total within the program's brackets" ok "$(python3 - "$TMP/n.json" "$TMP/truth.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
bad = []
for n in d["nvtx"]["names"]:
    key = (n["domain"] + ":" if n["domain"] else "") + n["name"]
    lo = sorted(r[1] for r in truth if r[0] == key)
    hi = sorted(r[2] for r in truth if r[0] == key)
    # the median of an even count is the lower middle one or the mean of the two: allow both
    m_lo, m_hi = lo[(len(lo) - 1) // 2], hi[len(hi) // 2]
    if not (m_lo <= n["median_ns"] <= m_hi and sum(lo) <= n["total_ns"] <= sum(hi)):
        bad.append("%s median %d in [%d, %d]? total %d in [%d, %d]?" % (
            key, n["median_ns"], m_lo, m_hi, n["total_ns"], sum(lo), sum(hi)))
print("; ".join(bad) or "ok")
PY
)"

# the step: the finder takes the range that starts once an iteration of its loop, the outermost one
check "the finder's step is the NVTX range step" "nvtx_range step finder" \
	"$(json "$TMP/n.json" '"%s %s %s" % (d["launches"]["iteration"]["chosen_because"], d["nvtx"]["step_range"], d["nvtx"]["step_range_by"])')"
grep -q "the step is the NVTX range 'step'" "$TMP/n.txt" && ok "the text says the step is the range" ||
	not_ok "no 'the step is the NVTX range' in: $(grep -m2 'step' "$TMP/n.txt" | paste -sd' ')"
# --step nvtx:step: a step per range, starting inside the bracket of its push
check "--step nvtx:step: one step per range, each of 3 launches" "$N $N 3" \
	"$(json "$TMP/step.json" '"%d %d %d" % (d["launches"]["iteration"]["count"], d["budget"]["iterations"], d["launches"]["iteration"]["launches"])')"
check "--step nvtx:step: the steps start at the first step's push" ok "$(python3 - "$TMP/step.json" "$TMP/n.out" <<'PY'
import json, sys
it = json.load(open(sys.argv[1]))["launches"]["iteration"]
push = [l.split() for l in open(sys.argv[2]) if l.startswith("at push ") and l.rstrip().endswith(" step")]
b, a = int(push[0][2]), int(push[0][3])
print("ok" if b <= it["start_ts"] <= a else "start %d not in [%d, %d]" % (it["start_ts"], b, a))
PY
)"
check "--step nvtx:nosuch is an error" 1 \
	"$("$GPUREC" report --step nvtx:nosuch "$TMP/n.trc" >/dev/null 2>&1; echo $?)"
# the budget per range (--step nvtx:step): forward and backward inside the steps, all of them (the steps run from
# one step's push to the next, the last to its pop), their time there within the brackets and
# their share of the steps' time that time's
check "the step budget per range: forward and backward, their time inside the steps" ok \
	"$(python3 - "$TMP/step.json" "$TMP/truth.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
nv, bad = d["nvtx"], []
for n in nv["names"]:
    if n["name"] not in ("forward", "backward \u2713"):
        continue
    lo = sum(r[1] for r in truth if r[0] == n["name"])
    hi = sum(r[2] for r in truth if r[0] == n["name"])
    share = n["step_ns"] / nv["step_ns"]
    if not (n["step_count"] == n["count"] and lo <= n["step_ns"] <= hi and abs(n["step_share"] - share) < 1e-6):
        bad.append("%s: %d in steps of %d, %d ns in [%d, %d]?, share %f vs %f" % (
            n["name"], n["step_count"], n["count"], n["step_ns"], lo, hi, n["step_share"], share))
print("; ".join(bad) or "ok")
PY
)"
"$GPUREC" report --step nvtx:step "$TMP/n.trc" >"$TMP/step.txt"
tr -s ' \n' ' ' <"$TMP/step.txt" | grep -Eq "step budget per range \($N steps, [^)]*\): forward [0-9]+% \([^)]*\), backward ✓ [0-9]+% \([^)]*\); outside them [0-9]+%" &&
	ok "the text gives the step budget per range" ||
	not_ok "budget per range: $(grep -A1 'step budget per range' "$TMP/step.txt" | paste -sd' ')"
# names: the stream the program named "side"
grep -Eq "^  stream +[0-9]+ +0x[0-9a-f]+ side " "$TMP/n.txt" && ok "the stream table names the stream side" ||
	not_ok "stream table: $(grep '^  stream' "$TMP/n.txt")"
check "JSON: the stream's nvtx_name" side \
	"$(json "$TMP/n.json" 'd["launches"]["streams"][0].get("nvtx_name")')"
# threads by their NVTX names: the loader thread (it makes one CUDA call) in the CPU table, in
# JSON beside its comm, and as the waker of the loop thread's waits for it where it woke it
loader=$(awk '$1 == "at" && $2 == "name_thread" { print $6 }' "$TMP/n.out")
sed -n '/^== 4. CPU/,/^== /p' "$TMP/n.txt" | grep -Eq "^ +$loader loader " &&
	ok "the CPU table names thread $loader loader" ||
	not_ok "CPU table: $(sed -n '/^== 4. CPU/,/^== /p' "$TMP/n.txt" | grep -E '^ +[0-9]+ ' | paste -sd'|')"
check "JSON: the loader thread's nvtx_name beside its comm" "loader nvtxprog" \
	"$(json "$TMP/n.json" '" ".join("%s %s" % (t["nvtx_name"], t["comm"]) for t in d["cpu"]["threads"] if t["tid"] == '"$loader"')')"
if [ "$(json "$TMP/n.json" 'int(d["budget"]["culprits"]["loop"].get("lock", {}).get("waker", {}).get("tid", 0))')" = "$loader" ]; then
	tr -s ' \n' ' ' <"$TMP/n.txt" | grep -q "woken by loader (tid $loader," &&
		ok "the waits' waker is named loader" ||
		not_ok "waker: $(grep -m1 'woken by' "$TMP/n.txt")"
else
	ok "the waits' waker is named loader # SKIP the loop thread's lock waits were not ended by the loader"
fi

# diff (--step nvtx:step on both sides): the same program with 6 launches in forward instead of
# 2; every name in both with its counts; forward's time per step its time over the steps, each
# side's within that side's brackets; the text's table row
if LD_LIBRARY_PATH=$SIM "$GPUREC" record -o "$TMP/n6.trc" -- "$PROGS/nvtxprog" $N 6 \
	>"$TMP/n6.out" 2>"$TMP/n6.err"; then
	python3 "$TMP/truth.py" "$TMP/n6.out" "$TMP/truth6.json"
	"$GPUREC" diff --json --step nvtx:step "$TMP/n.trc" "$TMP/n6.trc" >"$TMP/diff.json"
	check "diff: every range name in both, its counts" \
		"$(printf '%s\n' "backward ✓ both $N $N" "forward both $N $N" "io:load batch both $N $N" "step both $N $N")" \
		"$(json "$TMP/diff.json" '"\n".join(sorted("%s %s %d %d" % (n["name"], n["status"], n["count"][0], n["count"][1]) for n in d["nvtx"]))')"
	check "diff: forward per step, each side within its program's brackets" ok \
		"$(python3 - "$TMP/diff.json" "$TMP/truth.json" "$TMP/truth6.json" $N <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sides = [json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))]
n = int(sys.argv[4])
fw = [x for x in d["nvtx"] if x["name"] == "forward"][0]
bad = []
for i, truth in enumerate(sides):
    lo = sum(r[1] for r in truth if r[0] == "forward")
    hi = sum(r[2] for r in truth if r[0] == "forward")
    if not (lo <= fw["total_ns"][i] <= hi and abs(fw["per_step_ns"][i] * n - fw["total_ns"][i]) <= n):
        bad.append("side %d: total %d in [%d, %d]?, per step %f" % (i, fw["total_ns"][i], lo, hi, fw["per_step_ns"][i]))
print("; ".join(bad) or "ok")
PY
)"
	"$GPUREC" diff --step nvtx:step "$TMP/n.trc" "$TMP/n6.trc" >"$TMP/diff.txt"
	grep -Eq "^  both +$N +$N +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[-+][0-9.]+% .* forward$" "$TMP/diff.txt" &&
		ok "diff: the text's row for forward" ||
		not_ok "diff: $(sed -n '/^NVTX ranges/,/^$/p' "$TMP/diff.txt" | paste -sd'|')"
else
	not_ok "record nvtxprog $N 6: $(tail -3 "$TMP/n6.err" | paste -sd' ')"
fi

# export: every range a row of nvtx_ranges (SQLite and CSV), its start and end inside the
# brackets of the calls that opened and closed it; a slice per range and an instant per mark in
# the JSON trace
"$GPUREC" export --format sqlite -o "$TMP/n.db" "$TMP/n.trc" >/dev/null 2>&1
check "export sqlite: the ranges by name and domain, all closed; the marks" \
	"$(printf '%s\n' "backward ✓||$N|1|$N" "forward||$N|1|$N" "load batch|io|$N|0|$N" "step||$N|0|$N" "$N")" \
	"$(sqlite3 "$TMP/n.db" "SELECT name, domain, count(*), max(depth), sum(closed) FROM nvtx_ranges GROUP BY name, domain ORDER BY name" "SELECT count(*) FROM nvtx_marks")"
check "export sqlite: each range's start and end inside its calls' brackets" ok "$(python3 - "$TMP/n.db" "$TMP/n.out" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
base = dict((k, v) for k, v, _ in db.execute("select * from meta"))["start_monotonic_ns"]
rows = sorted((s + base, e + base, n, d) for s, e, n, d in db.execute(
    "select start, end, name, domain from nvtx_ranges"))
stacks, starts, want = {}, {}, []
for l in open(sys.argv[2]):
    f = l.rstrip("\n").split(" ", 6)
    if f[0] != "at":
        continue
    op, b, a, tid, ret, text = f[1], int(f[2]), int(f[3]), f[4], f[5], f[6] if len(f) > 6 else ""
    if op == "push":
        stacks.setdefault(tid, []).append((text, b, a))
    elif op == "pop":
        name, b0, a0 = stacks[tid].pop()
        want.append((b0, a0, b, a, name, ""))
    elif op == "start":
        starts[ret] = (text, b, a)
    elif op == "end":
        name, b0, a0 = starts.pop(ret)
        want.append((b0, a0, b, a, name, "io"))
want.sort()
bad = [(r, w) for r, w in zip(rows, want) if not (w[0] <= r[0] <= w[1] and w[2] <= r[1] <= w[3] and r[2:] == w[4:])]
print("ok" if len(rows) == len(want) and not bad else "%d rows, %d ranges; %s" % (len(rows), len(want), bad[:2]))
PY
)"
mkdir "$TMP/csv"
"$GPUREC" export --format csv -o "$TMP/csv" "$TMP/n.trc" >/dev/null 2>&1
check "export csv: as many range and mark rows" "$((4 * N)) $N" \
	"$(echo $(($(wc -l <"$TMP/csv/nvtx_ranges.csv") - 1)) $(($(wc -l <"$TMP/csv/nvtx_marks.csv") - 1)))"
"$GPUREC" export -o "$TMP/n.export.json" "$TMP/n.trc" >/dev/null 2>&1
check "export json: a slice per range, an instant per mark" "$((4 * N)) $N" \
	"$(json "$TMP/n.export.json" '"%d %d" % (sum(e.get("cat") == "nvtx" and e["ph"] == "X" for e in d["traceEvents"]), sum(e.get("cat") == "nvtx_mark" and e["ph"] == "i" for e in d["traceEvents"]))')"
# ranks (nsys's nvtx_pace): 4 ranks of rank_step with its NVTX ranges, rank 2 adding 2000 us of
# host work per step on its own CPU clock: the range "host work" is slowest on rank 2, at least
# 2000 us there, under it everywhere else; "gpu" is in every rank
if "$GPUREC" record -o "$TMP/ranks.trc" -- env LD_LIBRARY_PATH="$SIM" RANK_STEP_NVTX=1 \
	"$PROGS/rank_launcher" 0 4 4 10 2 2000 >"$TMP/ranks.out" 2>&1; then
	"$GPUREC" report --json "$TMP/ranks.trc" >"$TMP/ranks.json"
	check "ranks: the pace by range: host work slowest on rank 2, 2000 us or more, less elsewhere" \
		"gpu 4; host work 4 2 1 1" \
		"$(json "$TMP/ranks.json" '"; ".join("%s %d" % (g["name"], len(g["median_ns"])) + ("" if g["name"] != "host work" else " %d %d %d" % (g["slowest_rank"], g["slowest_ns"] >= 2000000, max(v for k, v in enumerate(g["median_ns"]) if k != g["median_ns"].index(g["slowest_ns"])) < 2000000)) for g in sorted(d["nvtx_pace"], key=lambda g: g["name"]))')"
	"$GPUREC" report "$TMP/ranks.trc" >"$TMP/ranks.txt"
	grep -Eq "^ +[0-9.]+ ms +[0-9.]+ us +[0-9.]+x +[0-9]+ +2  host work$" "$TMP/ranks.txt" &&
		ok "ranks: the text names rank 2 for host work" ||
		not_ok "ranks: $(grep -A4 'NVTX ranges by rank' "$TMP/ranks.txt" | paste -sd'|')"
else
	not_ok "record ranks: $(tail -3 "$TMP/ranks.out" | paste -sd' ')"
fi
exit $((failures > 0))
