#!/usr/bin/env bash
# record's NVTX rows against the program's own ground truth: nvtxprog prints each NVTX call with
# the CLOCK_MONOTONIC bracket around it and what it returned (tests/progs/nvtxprog.cu); every
# call is one row, in the same order, of the same op and thread, its time inside the bracket,
# with the exact text (Unicode converted, the registered string resolved), ids, levels, handles,
# colours, categories and payloads. Also: a user's own NVTX tool chained still sees every call
# and every call is recorded; NVTX v2's libnvToolsExt.so program is recorded; --no-nvtx records
# none; the sudo route (SUDO_UID) records them. (The library alone, and record's environment for
# the command: nvtx_library.sh.)
. "$(dirname "$0")/lib.sh"
need_root record_nvtx
SIM=${SAMPLES:-$PWD/$O/samples}/sim
NVTX=$PWD/$O/tests/tool_trace_nvtx
N=4

"$GPUREC" record --no-sched -o "$TMP/p.trc" -- env LD_LIBRARY_PATH="$SIM" "$PROGS/nvtxprog" $N \
	>"$TMP/p.out" 2>"$TMP/p.err"
check "the program's status" 0 $?
"$NVTX" "$TMP/p.trc" >"$TMP/p.rows"
check "the dumper reads the trace" 0 $?

tap ground_truth python3 - "$TMP/p.out" "$TMP/p.rows" $N <<'PY'
import struct, sys
from collections import Counter

calls = [l.rstrip("\n").split(" ", 6) for l in open(sys.argv[1]) if l.startswith("at ")]
rows = [l.rstrip("\n").split(" ", 9) for l in open(sys.argv[2])]
n = int(sys.argv[3])
bad = 0

def check(name, ok, detail=""):
    global bad
    print(("ok - " if ok else "not ok - ") + name + ("" if ok else ": " + str(detail)))
    bad += not ok

check("one row per NVTX call", len(rows) == len(calls), (len(rows), len(calls)))
want = Counter({("push", "step"): n, ("push", "forward"): n, ("push", "backward \u2713"): n,
                ("pop", "-"): 3 * n, ("start", "load batch"): n, ("end", "-"): n,
                ("mark", "loss"): n, ("name_category", "compute"): 1, ("name_category", "disk"): 1,
                ("name_stream", "side"): 1, ("name_domain", "io"): 1, ("name_thread", "loader"): 1})
check("exact counts per op and text", Counter((r[0], r[9]) for r in rows) == want,
      Counter((r[0], r[9]) for r in rows) - want)
check("rows by time", [int(r[1]) for r in rows] == sorted(int(r[1]) for r in rows))

io = next(int(c[5]) for c in calls if c[1] == "name_domain")
order = inside = same = 0
step = -1
for c, r in zip(calls, rows):
    _, op, before, after, tid, ret, text = c
    OP, ts, TID, DOM, ID, CAT, COL, PT, PAY, TXT = r
    order += OP != op or TXT != (text or "-")
    inside += not int(before) <= int(ts) <= int(after)
    vals = {"tid": int(TID) == int(tid)}
    if op in ("push", "start", "end", "name_stream", "name_thread", "name_category"):
        vals["id"] = int(ID) == int(ret)
    if op == "name_domain":
        vals["handle"] = int(DOM, 16) == int(ret) and int(ret) != 0
    if op == "name_category":
        vals["domain"] = int(DOM, 16) == (io if text == "disk" else 0)
    if op in ("start", "end"):
        vals["domain"] = int(DOM, 16) == io
    if op == "start":
        vals["category"] = CAT == "2" and COL == "0x0" and PT == "0"
    if op in ("push", "pop", "mark"):
        vals["domain"] = DOM == "0x0"
    if op == "push" and text == "step":
        step += 1
        vals["attributes"] = (CAT, COL, PT, int(PAY, 16)) == ("1", "0xff2080ff", "1", step)
    elif op == "push":
        vals["attributes"] = (CAT, COL, PT, PAY) == ("0", "0x0", "0", "0x0")
    if op == "mark":
        bits = struct.unpack("<Q", struct.pack("<d", step + 0.5))[0]
        vals["attributes"] = (COL, PT, int(PAY, 16)) == ("0xffff0000", "3", bits)
    if not all(vals.values()):
        same += 1
        print("#", " ".join(c), "|", " ".join(r), [k for k, v in vals.items() if not v])
check("each row is its call: op and text, in the program's order", order == 0, order)
check("each row's time inside the program's bracket of its call", inside == 0, inside)
check("each row's thread, ids, levels, handles, categories, colours and payloads", same == 0, same)
ends = [r for r in rows if r[0] == "end"]
loader = next(int(c[5]) for c in calls if c[1] == "name_thread")
check("ranges ended on the loader thread, which was named", all(int(r[2]) == loader for r in ends))
check("range ids 1..%d" % n, [int(r[4]) for r in rows if r[0] == "start"] == list(range(1, n + 1)))
sys.exit(bad != 0)
PY

# a user's own tool chained: it still sees every call, and every call is recorded
NVTX_INJECTION64_PATH=$PROGS/libnvtx_count.so "$GPUREC" record --no-sched -o "$TMP/c.trc" -- \
	env LD_LIBRARY_PATH="$SIM" "$PROGS/nvtxprog" $N >"$TMP/c.out" 2>"$TMP/c.err"
check "chained: the program's status" 0 $?
check "chained: the user's tool saw every call" \
	"nvtx_count: pushes $((3 * N)) pops $((3 * N)) starts $N ends $N domains 1" \
	"$(grep '^nvtx_count' "$TMP/c.err")"
check "chained: every call recorded" "$(grep -c '^at ' "$TMP/c.out")" "$("$NVTX" "$TMP/c.trc" | wc -l)"
check "chained: the ranges' ids are the ones the program holds (the user's tool's)" \
	"$(seq 5000 $((5000 + N - 1)) | sed 's/.*/& &/')" \
	"$("$NVTX" "$TMP/c.trc" | awk '$1 == "start" { s = $5 } $1 == "end" { print s, $5 }')"

# NVTX v2: a program linked against libnvToolsExt.so.1
"$GPUREC" record --no-sched -o "$TMP/v2.trc" -- "$PROGS/nvtx_v2prog" 3 >/dev/null 2>&1
check "v2: the program's status" 0 $?
check "v2: its calls recorded" \
	"$(printf 'push 0 v2 step\nmark 0 v2 mark\npop 0 -\n%.0s' 1 2 3; printf 'start 1 v2 range\nend 1 -')" \
	"$("$NVTX" "$TMP/v2.trc" | awk '{ t = $10; for (i = 11; i <= NF; i++) t = t " " $i; print $1, $5, t }')"

# the sudo route: the command runs as the invoking user, and still gets the tool
chmod 0755 "$TMP" && mkdir -m 0777 "$TMP/u"
SUDO_UID=65534 SUDO_GID=65534 "$GPUREC" record --no-sched -o "$TMP/u/s.trc" -- "$PROGS/nvtx_v2prog" 1 \
	>/dev/null 2>&1
check "sudo route: the program's status" 0 $?
check "sudo route: the command's NVTX calls recorded" "push mark pop start end" \
	"$("$NVTX" "$TMP/u/s.trc" | awk '{print $1}' | paste -sd' ')"

"$GPUREC" record --no-nvtx --no-sched -o "$TMP/n.trc" -- env LD_LIBRARY_PATH="$SIM" \
	"$PROGS/nvtxprog" $N >/dev/null 2>&1
check "--no-nvtx: the program's status" 0 $?
check "--no-nvtx: no NVTX rows" 0 "$("$NVTX" "$TMP/n.trc" | wc -l)"
[ $failures -eq 0 ]
