#!/usr/bin/env bash
# NCCL calls on the toolkit's real libnccl (tests/progs/nccl_calls.c): without a GPU every call
# that touches a communicator fails, but the probes see the true arguments. Exact rows per call:
# 5 all-reduce (1024 float32, sum, stream 0x5a000), 3 reduce-scatter (256 float16, max,
# 0x5b000), 2 all-gather (512 int64, 0x5a000), 4 broadcast (100 uint8, root 1, 0x5b000), 1
# reduce (64 float64, prod, root 3, 0x5a000), one group of 2 send (10 int32 to 1) and 2 recv (from
# 0), and two communicator creations whose ncclUniqueId (bytes 0..127, then 255..128) is passed
# by value: their hashes are computed here, independently, from the bytes the program uses.
. "$(dirname "$0")/lib.sh"
need_root record_nccl
COMMS=${COMMS:-$PWD/$O/tests/tool_trace_comm}

if [ -e /dev/nvidiactl ]; then
	ok "real libnccl # SKIP this machine has a CUDA driver (/dev/nvidiactl)"
	exit 0
fi
"$GPUREC" record -o "$TMP/nccl.trc" -- "$PROGS/nccl_calls" >"$TMP/out" 2>"$TMP/err"
check "nccl_calls ran to its end" "0 ncclCommDestroy 0" "$? $(tail -1 "$TMP/out")"
"$COMMS" "$TMP/nccl.trc" | cut -d' ' -f2- | sort | uniq -c | sed "s/^ *//" | sort >"$TMP/rows"

# FNV-1a over the id's 16 little-endian u64 words (docs/FORMAT.md, COMM)
fnv() {
	python3 -c 'import struct,sys
h=0xcbf29ce484222325
for (w,) in struct.iter_unpack("<Q", bytes(eval(sys.argv[1]))):
	h=((h^w)*0x100000001b3)&(2**64-1)
print(hex(h))' "$1"
}
ida=$(fnv 'range(128)')
idb=$(fnv '(255-i for i in range(128))')
inval=ncclInvalidArgument
expected="1 ncclCommInitRank init 0x0 0x0 0 int8 - -1 $ida 4 2 ncclUnhandledCudaError 1
1 ncclCommInitRankConfig init 0x0 0x0 0 int8 - -1 $idb 2 1 ncclUnhandledCudaError 1
5 ncclAllReduce all-reduce 0x0 0x5a000 1024 float32 sum -1 0x0 0 0 $inval 1
3 ncclReduceScatter reduce-scatter 0x0 0x5b000 256 float16 max -1 0x0 0 0 $inval 1
2 ncclAllGather all-gather 0x0 0x5a000 512 int64 - -1 0x0 0 0 $inval 1
4 ncclBroadcast broadcast 0x0 0x5b000 100 uint8 - 1 0x0 0 0 $inval 1
1 ncclReduce reduce 0x0 0x5a000 64 float64 prod 3 0x0 0 0 $inval 1
1 ncclGroupStart group-start 0x0 0x0 0 int8 - -1 0x0 0 0 ncclSuccess 1
2 ncclSend send 0x0 0x5b000 10 int32 - 1 0x0 0 0 $inval 1
2 ncclRecv recv 0x0 0x5b000 10 int32 - 0 0x0 0 0 $inval 1
1 ncclGroupEnd group-end 0x0 0x0 0 int8 - -1 0x0 0 0 ncclSuccess 1
1 ncclCommDestroy destroy 0x0 0x0 0 int8 - -1 0x0 0 0 ncclSuccess 1"
check "every NCCL call once, with its arguments, status and id hash" \
	"$(echo "$expected" | sort)" "$(cat "$TMP/rows")"
check "the probed libnccl is named" 1 \
	"$("$GPUREC" info --json "$TMP/nccl.trc" | python3 -c 'import json,sys
print(sum("libnccl" in p for p in json.load(sys.stdin)["cuda_libraries"]))')"

# One definition of a failed call (gr_call_failed) in every command, NCCL's included: record,
# info and report count the same 21 failed calls (2 inits, 19 on the NULL communicator) and the
# same 3 done (group start and end, destroy); when only failing calls are made, record's warning
# names the same numbers info and report give.
nccl_counts() {
	"$GPUREC" info --json "$1" >"$TMP/counts.info.json"
	"$GPUREC" report --json "$1" >"$TMP/counts.rep.json"
	for f in "$TMP/counts.info.json" "$TMP/counts.rep.json"; do
		json "$f" '"%d %d %d" % (d["calls"]["failed"], d["calls"]["ok"], sum(e["count"] for e in d["errors"] if e["status_name"] == "ncclInvalidArgument"))'
	done | tr '\n' ' '
}
check "info and report: 21 failed NCCL calls (19 ncclInvalidArgument), 3 done" \
	"21 3 19 21 3 19 " "$(nccl_counts "$TMP/nccl.trc")"
check "record: no warning when some NCCL calls succeeded" "" "$(grep 'returned failed' "$TMP/err")"
"$GPUREC" record -o "$TMP/fail.trc" -- "$PROGS/nccl_calls" failing >/dev/null 2>"$TMP/fail.err"
# one total over runtime, driver and NCCL calls (info's), and the (call, error) pair most of them made
check "record: every call failed, 21 calls, most of them ncclAllReduce's ncclInvalidArgument" \
	"gpurec record: every call that returned failed: 21 calls, 5 of them ncclAllReduce returned ncclInvalidArgument (4): likely no usable CUDA driver or GPU here ('gpurec check' says); the trace holds what the program asked for, not work a GPU did" \
	"$(grep 'returned failed' "$TMP/fail.err")"
check "info and report count what record said: 21 failed (19 ncclInvalidArgument), none done" \
	"21 0 19 21 0 19 " "$(nccl_counts "$TMP/fail.trc")"

# The real libnccl failed every collective: the finding counts none of them.
"$GPUREC" report --json "$TMP/nccl.trc" >"$TMP/rep.json"
check "failed calls are not in the communication finding (21 set aside)" "0 0 0 [] 21" \
	"$(json "$TMP/rep.json" 'd["communication"]["collectives"]') $(json "$TMP/rep.json" 'd["communication"]["p2p"]') $(json "$TMP/rep.json" 'd["communication"]["host_ns"]') $(json "$TMP/rep.json" 'd["communication"]["kinds"]') $(json "$TMP/rep.json" 'd["communication"]["aside"]')"

# Four ranks on the stand-in libnccl (tests/progs/fake_libnccl.c): 5 all-reduces each, rank 3
# sleeping 100 ms before each; a sixth on a NULL communicator fails in every rank.
LD_LIBRARY_PATH=$PROGS/fakenccl "$GPUREC" record -o "$TMP/ranks.trc" -- "$PROGS/nccl_ranks" 5 100 \
	>/dev/null 2>&1
check "nccl_ranks: every rank ran" 0 $?
"$GPUREC" report --json "$TMP/ranks.trc" >"$TMP/ranks.json"
check "20 all-reduces of 4096 bytes done, 4 set aside" '20 [{"bytes": 81920, "calls": 20, "host_ns": 0, "kind": "all-reduce"}] 4' \
	"$(json "$TMP/ranks.json" 'd["communication"]["collectives"]') $(json "$TMP/ranks.json" '[dict(k, host_ns=0) for k in d["communication"]["kinds"]]') $(json "$TMP/ranks.json" 'd["communication"]["aside"]')"
check "rank 3 entered all 5 collectives last, making the others wait >= 100 ms" "5 [[4, 3, 5, true]]" \
	"$(json "$TMP/ranks.json" 'd["communication"]["matched"]') $(json "$TMP/ranks.json" '[[k["nranks"], k["rank"], k["last"], k["mean_wait_ns"] >= 100000000] for k in d["communication"]["last_to_enter"]]')"

# NCCL launches its kernels through the driver from inside the collective (the stand-in does
# one cuLaunchKernel per all-reduce, with the stand-in driver tests/progs/fake_libcuda.c): they
# are the collective's work, recorded and counted, not nested calls set aside
LD_LIBRARY_PATH=$PROGS/fakenccl:$PROGS/fakecuda "$GPUREC" record -o "$TMP/drv.trc" -- \
	"$PROGS/nccl_ranks" 5 0 >/dev/null 2>&1
check "nccl_ranks on a driver: every rank ran" 0 $?
"$GPUREC" report --json "$TMP/drv.trc" >"$TMP/drv.json"
"$GPUREC" info --json "$TMP/drv.trc" >"$TMP/drv.info.json"
check "the 20 driver launches inside all-reduces are counted, none set aside as nested" "20 20 []" \
	"$(json "$TMP/drv.json" 'd["launches"]["total"]') $(json "$TMP/drv.json" 'd["communication"]["collectives"]') $(json "$TMP/drv.info.json" 'd["inner_calls"]')"

# the SQLite export carries the NCCL calls (docs/EXPORT.md, nccl_calls): per kind and outcome as
# the report counts them, one communicator id across the 4 ranks, collective numbers 0..4 in
# each, and the driver launches inside the all-reduces
if command -v sqlite3 >/dev/null; then
	"$GPUREC" export "$TMP/drv.trc" --format sqlite -o "$TMP/drv.sqlite" >/dev/null 2>&1
	check "sqlite export: NCCL calls by kind and outcome, one communicator, seq 0..4 per rank" \
		"all-reduce|failed|4|16384|||0
all-reduce|ok|20|81920|0|4|1
destroy|ok|4|0|||1
init|ok|4|0|||1
4|5
20" \
		"$(sqlite3 "$TMP/drv.sqlite" "select kind, outcome, count(*), sum(bytes), min(seq), max(seq), count(distinct comm_id) from nccl_calls group by 1, 2 order by 1, 2;
select count(distinct rank), count(distinct seq) from nccl_calls where outcome = 'ok' and kind = 'all-reduce';
select count(*) from launches l where outcome = 'ok' and exists (select 1 from nccl_calls n where n.thread_id = l.thread_id and l.start between n.start and n.start + n.dur)")"
else
	ok "sqlite export of NCCL calls # SKIP no sqlite3"
fi

# the JSON export draws each NCCL call as a slice on its thread (cat nccl) with its collective
# number: done all-reduces seq 0..4 in each of the 4 ranks, the 4 failed ones named so
"$GPUREC" export "$TMP/drv.trc" -o "$TMP/drv.json" >/dev/null 2>&1
check "export: NCCL slices by name, all-reduce seqs per rank" \
	"[['ncclAllReduce', 20], ['ncclAllReduce (failed: ncclInvalidArgument)', 4], ['ncclCommDestroy', 4], ['ncclCommInitRank', 4]] [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]" \
	"$(python3 -c '
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
nccl = [e for e in ev if e.get("cat") == "nccl" and e["ph"] == "X"]
seqs = collections.defaultdict(list)
for e in nccl:
    if e["name"] == "ncclAllReduce":
        seqs[e["args"]["rank"]].append(e["args"]["seq"])
print(sorted(map(list, collections.Counter(e["name"] for e in nccl).items())), [sorted(v) for k, v in sorted(seqs.items())])' "$TMP/drv.json")"

# one job, two traces: ranks 0-1 and ranks 2-3 recorded by two recorders at once; reported
# together, collective k of the communicator is matched across the traces, rank 3 last in all 5
# (both halves begin when both run under their recorders: $TMP/go)
export NCCL_RANKS_GO=$TMP/go
LD_LIBRARY_PATH=$PROGS/fakenccl "$GPUREC" record -o "$TMP/half0.trc" -- \
	"$PROGS/nccl_ranks" 5 100 0 1 >/dev/null 2>&1 &
half0=$!
LD_LIBRARY_PATH=$PROGS/fakenccl "$GPUREC" record -o "$TMP/half1.trc" -- \
	"$PROGS/nccl_ranks" 5 100 2 3 >/dev/null 2>&1 &
half1=$!
for _ in $(seq 1200); do
	[ -e "$TMP/go.ready.0" ] && [ -e "$TMP/go.ready.2" ] && break
	sleep 0.05
done
touch "$TMP/go"
unset NCCL_RANKS_GO
wait $half0
st0=$?
wait $half1
check "two recorders, ranks 0-1 and 2-3: both ran" "0 0" "$st0 $?"
"$GPUREC" report --json "$TMP/half0.trc" "$TMP/half1.trc" >"$TMP/halves.json"
check "two traces: 20 all-reduces, rank 3 (trace 1) entered all 5 last" "20 5 [[4, 3, 5, true]]" \
	"$(json "$TMP/halves.json" 'd["communication"]["collectives"]') $(json "$TMP/halves.json" 'd["communication"]["matched"]') $(json "$TMP/halves.json" '[[k["nranks"], k["rank"], k["last"], k["mean_wait_ns"] >= 100000000] for k in d["communication"]["last_to_enter"]]')"
# trace by trace (report --job, analyze/report/job.h): each trace summarised alone, the
# collectives matched at the merge, the same verdict
"$GPUREC" report --json --job "$TMP/half0.trc" "$TMP/half1.trc" >"$TMP/job.json"
check "--job: rank 3, trace 1, entered all 5 last" "5 [[4, 3, 1, 5, true]]" \
	"$(json "$TMP/job.json" 'd["communication"]["matched"]') $(json "$TMP/job.json" '[[k["nranks"], k["rank"], k["trace"], k["last"], k["mean_wait_ns"] >= 100000000] for k in d["communication"]["last_to_enter"]]')"
exit $failures
