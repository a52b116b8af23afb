#!/usr/bin/env bash
# make bench: gpurec's speed and size targets (DESIGN.md section 7), each measured as a ratio
# within this one run on this machine, so the figures compare across machines. Never a test:
# it prints figures and the targets beside them, and fails only if something could not run.
set -u
cd "$(dirname "$0")/../.."
O=${O:-build}
GPUREC=$PWD/gpurec
PROGS=$PWD/$O/progs
LIB=$(readlink -f /usr/local/cuda/lib64/libcudart.so.13)
N=${BENCH_LAUNCHES:-400000}
REPS=${BENCH_REPS:-5}
TMP=$(mktemp -d /tmp/gpurec-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (BPF)" >&2
	exit 1
fi
# bpf_stats adds two clock reads to every BPF program run: it would bias the ratios
stats=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null

ns_per_launch() { "$@" 2>/dev/null | awk '/ns_per_launch/ {print $2}'; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v x="$1" -v b="$2" -v e="$3" 'BEGIN {printf "%.2f", (x - b) / (e - b)}'; }

# the BPF programs' own time per run, from the kernel's bpf_stats, in separate runs (the counts
# add two clock reads to every run: they would bias the ratios above)
bpf_ns() { # PROGRAMS RECORD-ARGS...: ns per run of each program (comma-separated), " + " between
	local progs=$1
	shift
	sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null
	"$GPUREC" record -v --no-sched "$@" -o "$TMP/s.trc" -- "$PROGS/launch_loop" "$N" 2>&1 |
		awk -v progs="$progs" 'BEGIN {n = split(progs, p, ",")}
			$3 == "bpf" {for (i = 1; i <= NF; i++) if ($i == "ns") ns[$4] = $(i - 1)}
			END {for (k = 1; k <= n; k++) printf "%s%s", (k > 1 ? " + " : ""), ns[p[k] ":"]}'
	sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null
}
echo "== record cost per launch ($N launches of one kernel, real libcudart, median of $REPS)"
for _ in $(seq "$REPS"); do
	# interleaved, so drift in the machine hits every variant alike
	ns_per_launch "$PROGS/launch_loop" "$N" >>"$TMP/bare"
	ns_per_launch "$O/tests/bench_uprobe" "$LIB" cudaLaunchKernel "$PROGS/launch_loop" "$N" >>"$TMP/empty"
	ns_per_launch "$O/tests/bench_uprobe" --floor "$LIB" cudaLaunchKernel "$PROGS/launch_loop" "$N" >>"$TMP/floor"
	ns_per_launch "$GPUREC" record --no-sched --call-graph none -o "$TMP/a.trc" -- "$PROGS/launch_loop" "$N" >>"$TMP/nostack"
	ns_per_launch "$GPUREC" record --no-sched --call-graph fp -o "$TMP/a.trc" -- "$PROGS/launch_loop" "$N" >>"$TMP/fp"
	ns_per_launch "$GPUREC" record --no-sched -o "$TMP/a.trc" -- "$PROGS/launch_loop" "$N" >>"$TMP/cfi"
	ns_per_launch "$GPUREC" record --no-sched --call-graph none --launch-time -o "$TMP/a.trc" -- "$PROGS/launch_loop" "$N" >>"$TMP/ltime"
	# -v: the recorder's own figure for unwinding one raw stack ("N us per stack")
	"$GPUREC" record -v --no-sched --call-graph dwarf -o "$TMP/a.trc" -- "$PROGS/launch_loop" "$N" >"$TMP/dw.out" 2>&1
	awk '/ns_per_launch/ {print $2}' "$TMP/dw.out" >>"$TMP/dwarf"
	awk '/us per stack/ {for (i = 2; i <= NF; i++) if ($i == "us") print $(i - 1)}' "$TMP/dw.out" >>"$TMP/unwind"
	awk '/events lost/ {for (i = 2; i <= NF; i++) if ($i == "events") print $(i - 1)}' "$TMP/dw.out" >>"$TMP/dwlost"
done
bare=$(median <"$TMP/bare")
empty=$(median <"$TMP/empty")
nostack=$(median <"$TMP/nostack")
fp=$(median <"$TMP/fp")
cfi=$(median <"$TMP/cfi")
ltime=$(median <"$TMP/ltime")
printf '  call without probes            %8.1f ns\n' "$bare"
printf '  empty BPF uprobe               %8.1f ns  (+%.1f)\n' "$empty" "$(awk -v a="$empty" -v b="$bare" 'BEGIN{print a-b}')"
# the least a launch record costs: the stack arguments' read and a timestamp (empty.bpf.c): no
# recorder of launches gets under this ratio here, whatever it does
floor=$(median <"$TMP/floor")
printf '  floor: stack arguments + time  %8.1f ns  ratio %s  (one 32-byte user read and a clock read; under every recorder)\n' \
	"$floor" "$(ratio "$floor" "$bare" "$empty")"
printf '  gpurec, no stacks              %8.1f ns  ratio %s  (target <= 1.15); bpf: launch_session %s ns per run\n' \
	"$nostack" "$(ratio "$nostack" "$bare" "$empty")" "$(bpf_ns launch_session --call-graph none)"
printf '  gpurec, frame-pointer stacks   %8.1f ns  ratio %s  (target <= 1.4); bpf: launch_session %s ns per run\n' \
	"$fp" "$(ratio "$fp" "$bare" "$empty")" "$(bpf_ns launch_session --call-graph fp)"
printf '  gpurec, default stacks (cfi)   %8.1f ns  ratio %s  (unwind tables: to _start); bpf: launch_session %s ns per run\n' \
	"$cfi" "$(ratio "$cfi" "$bare" "$empty")" "$(bpf_ns launch_session)"
# timing 1 launch in 64 (the default): what it adds per launch to the default recording, against
# the same recording without it (the test hook of kernels without uprobe sessions: launches at
# entry only). A few ns in ~1 us, so two figures: the traced program's CPU time per launch
# (preemption does not count there), the median of paired differences, each pair run in both
# orders so that drift cancels; and a model from figures that hold still on a busy machine: the
# calibration's timed call over its entry-only launch (record/calibrate.h: least of medians of
# interleaved batches) / 64, plus the session program's own time per run over the plain entry
# program's (bpf_stats).
SREPS=${BENCH_SAMPLE_REPS:-15}
cpu_rec() { # ENV...: "CPU-ns-per-launch entry-only-ns timed-call-ns" of one default recording
	env "$@" "$GPUREC" record --no-sched -o "$TMP/a.trc" -- bash -c \
		"TIMEFORMAT='cpu %3U %3S'; time '$PROGS/launch_loop' $N >/dev/null" 2>&1 |
		awk -v n="$N" '$1 == "cpu" {c = ($2 + $3) * 1e9 / n}
			/probe cost measured here/ {for (i = 1; i <= NF; i++) {
				if ($(i + 1) == "ns" && $(i + 3) == "launch") e = $i
				if ($(i + 1) == "ns" && $(i + 3) == "timed") t = $i}}
			END {printf "%.1f %s %s\n", c, e, t}'
}
for i in $(seq "$SREPS"); do
	if [ $((i % 2)) -eq 1 ]; then
		a=$(cpu_rec) b=$(cpu_rec GPUREC_TEST_NO_UPROBE_SESSION=1)
	else
		b=$(cpu_rec GPUREC_TEST_NO_UPROBE_SESSION=1) a=$(cpu_rec)
	fi
	echo "$a $b" | awk '{print $1 - $4}' >>"$TMP/sample_cpu"
	echo "$a" | awk '{print ($3 - $2) / 64}' >>"$TMP/sample_ret"
done
up=$(awk -v e="$empty" -v b="$bare" 'BEGIN{print e - b}')
d=$(median <"$TMP/sample_cpu")
printf '  launch sampling (1 in 64)     %+8.1f ns  = %s empty uprobes per launch  (target <= 0.05; CPU time, median of %s pairs, fp stacks)\n' \
	"$d" "$(awk -v d="$d" -v u="$up" 'BEGIN{printf "%.3f", d / u}')" "$SREPS"
ret=$(median <"$TMP/sample_ret")
for _ in $(seq "$REPS"); do
	bpf_ns launch_session >>"$TMP/bpf_sess"
	echo >>"$TMP/bpf_sess"
	GPUREC_TEST_NO_UPROBE_SESSION=1 bpf_ns api_entry >>"$TMP/bpf_plain"
	echo >>"$TMP/bpf_plain"
done
sess=$(median <"$TMP/bpf_sess")
plain=$(median <"$TMP/bpf_plain")
printf '    model: return half %.1f ns / launch + session entry %s - plain entry %s ns per run (medians of %s) = %s empty uprobes\n' \
	"$ret" "$sess" "$plain" "$REPS" "$(awk -v r="$ret" -v s="$sess" -v p="$plain" -v u="$up" 'BEGIN{printf "%.3f", (r + s - p) / u}')"
printf '  gpurec --launch-time           %8.1f ns  ratio %s  (target <= 2.0, entry + return probe); bpf: api_entry + api_return %s ns\n' \
	"$ltime" "$(ratio "$ltime" "$bare" "$empty")" "$(bpf_ns api_entry,api_return --call-graph none --launch-time)"
printf '  (bpf: with kernel.bpf_stats_enabled, which adds its own two clock reads to each run)\n'
# back to back, 8 KiB per event outruns the unwinding: the launches wait on the recorder
printf '  gpurec, dwarf stacks (8 KiB)   %8.1f ns  ratio %s  (recorder: %s us to unwind a stack; %s events lost)\n' \
	"$(median <"$TMP/dwarf")" "$(ratio "$(median <"$TMP/dwarf")" "$bare" "$empty")" "$(median <"$TMP/unwind")" "$(median <"$TMP/dwlost")"

# Blocked switches (issue 30): two threads of CUDA calls hand a token back and forth through a
# pipe and a semaphore in turn (tests/progs/pingpong.c), so each switch-out sleeps at a call
# site other than its last and every one walks its stack (and the waker's, for the wakeup).
# The process's CPU time per voluntary switch, where the scheduler's programs run.
NPP=${BENCH_PINGPONG:-50000}
echo "== blocked switches: $NPP ping-pong rounds, CPU time per voluntary switch (median of $REPS)"
pp() { "$@" 2>/dev/null | awk '/cpu_ns_per_switch/ {print $4}'; }
for _ in $(seq "$REPS"); do
	pp "$PROGS/pingpong" "$NPP" >>"$TMP/pp_bare"
	pp "$GPUREC" record --no-sched -o "$TMP/pp.trc" -- "$PROGS/pingpong" "$NPP" >>"$TMP/pp_nosched"
	pp "$GPUREC" record --call-graph none -o "$TMP/pp.trc" -- "$PROGS/pingpong" "$NPP" >>"$TMP/pp_none"
	pp "$GPUREC" record -o "$TMP/pp.trc" -- "$PROGS/pingpong" "$NPP" >>"$TMP/pp_cfi"
done
ppb=$(median <"$TMP/pp_bare")
ppn=$(median <"$TMP/pp_nosched")
ppr=$(median <"$TMP/pp_none")
ppc=$(median <"$TMP/pp_cfi")
printf '  unrecorded %.0f ns; recorded: --no-sched %+.0f, scheduler without stacks (system call, fd kind) %+.0f, with stacks (default, blocked + waker) %+.0f ns per switch\n' \
	"$ppb" "$(awk -v a="$ppn" -v b="$ppb" 'BEGIN{print a-b}')" "$(awk -v a="$ppr" -v b="$ppb" 'BEGIN{print a-b}')" \
	"$(awk -v a="$ppc" -v b="$ppb" 'BEGIN{print a-b}')"
# What the scheduler's tracepoints hand to BPF at all, without gpurec: a switch the kernel never
# hands over is one no recorder can record (the replay infers it: docs/REPORTS.md, section 4).
echo "== scheduler events this kernel hands to BPF (a task sleeping 100 us 20000 times, no gpurec)"
"$O/tests/bench_sched_delivery" 20000 100 | sed 's/^/  /'
# Allocation calls carry a stack as launches do (issue 31), with an entry and a return probe: a
# cudaMalloc of the real libcudart (fails fast without a GPU; freed when it succeeds) recorded
# with default stacks, beside the empty uprobe on the same call and --launch-time's launches
# (also entry + return, no stack).
NA=${BENCH_ALLOCS:-200000}
echo "== allocation calls with a stack ($NA cudaMalloc calls, real libcudart, median of $REPS)"
ns_per_call() { "$@" 2>/dev/null | awk '/ns_per_call/ {print $2}'; }
for _ in $(seq "$REPS"); do
	ns_per_call "$PROGS/alloc_loop" "$NA" >>"$TMP/al_bare"
	ns_per_call "$O/tests/bench_uprobe" "$LIB" cudaMalloc "$PROGS/alloc_loop" "$NA" >>"$TMP/al_empty"
	ns_per_call "$GPUREC" record --no-sched -o "$TMP/al.trc" -- "$PROGS/alloc_loop" "$NA" >>"$TMP/al_cfi"
done
alb=$(median <"$TMP/al_bare")
ale=$(median <"$TMP/al_empty")
alc=$(median <"$TMP/al_cfi")
printf '  cudaMalloc, default stacks      %8.1f ns  ratio %s  (entry + return probe + stack; bare %.1f ns, empty uprobe +%.1f; --launch-time launches: ratio %s without a stack)\n' \
	"$alc" "$(ratio "$alc" "$alb" "$ale")" "$alb" "$(awk -v a="$ale" -v b="$alb" 'BEGIN{print a-b}')" \
	"$(ratio "$ltime" "$bare" "$empty")"

# perf record of the same uprobe (needs tracefs for perf probe). The probe gets a name of this
# run's own, so one left by someone else (or an interrupted run) is neither reused nor removed.
if command -v perf >/dev/null 2>&1; then
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	probe=gpurec_bench_$$
	if perf probe -q -x "$LIB" "$probe=cudaLaunchKernel" 2>"$TMP/perf-probe.err"; then
		ev=$(perf probe -l 2>/dev/null | awk -v p=":$probe" 'index($1, p) {print $1; exit}')
		for _ in $(seq "$REPS"); do
			ns_per_launch perf record -q -e "$ev" -o "$TMP/perf.data" -- "$PROGS/launch_loop" "$N" >>"$TMP/perf"
			ns_per_launch perf record -q -g -e "$ev" -o "$TMP/perf.data" -- "$PROGS/launch_loop" "$N" >>"$TMP/perfg"
		done
		perf probe -q -d "$ev" 2>/dev/null || echo "  perf probe: could not remove $ev" >&2
		pf=$(median <"$TMP/perf")
		pg=$(median <"$TMP/perfg")
		printf '  perf record -e uprobe          %8.1f ns  ratio %s; gpurec (no stacks) %.1fx cheaper per event\n' \
			"$pf" "$(ratio "$pf" "$bare" "$empty")" "$(awk -v p="$pf" -v g="$nostack" -v b="$bare" 'BEGIN{print (p-b)/(g-b)}')"
		printf '  perf record -g -e uprobe       %8.1f ns  ratio %s; gpurec (fp stacks) %.1fx cheaper per event (target >= 3)\n' \
			"$pg" "$(ratio "$pg" "$bare" "$empty")" "$(awk -v p="$pg" -v g="$fp" -v b="$bare" 'BEGIN{print (p-b)/(g-b)}')"
	else
		echo "  perf record: NOT MEASURED: perf probe failed: $(head -c 300 "$TMP/perf-probe.err" | tr '\n' ' ')"
	fi
else
	echo "  perf record: NOT MEASURED: perf is not installed"
fi

# Python stacks (issues 13, 33): python3 calling cudaLaunchKernel through ctypes from stacks 10,
# 30 and 60 frames deep (py_depth.py), timed in the launching thread's CPU time (the uprobe trap
# and the BPF programs run on that thread). Each process runs blocks of NPYB launches at every
# depth in turn, PYB rounds of them; PYR rounds of the four processes, interleaved, so that drift
# in the machine hits every variant alike. Every variant runs the same script, so the
# interpreter's own cost is in the baseline: "add" is what the Python frames add to a
# frame-pointer recording, in empty uprobes measured on the same calls (target <= 1.0 at 30
# frames), from each round's block medians: the median of the rounds, and their spread
# (min..max), which must be well under 1.0 for the figure to decide. Then the BPF program's own
# time per launch with and without the Python walk (bpf_stats, in two runs of their own: its
# clock reads would bias the figures above), per block, to tell the walk's cost from the trap's.
PY=$(command -v /usr/bin/python3 || command -v python3)
NPYB=${BENCH_PY_LAUNCHES:-20000}
PYB=${BENCH_PY_BLOCKS:-3}
PYR=${BENCH_PY_ROUNDS:-7}
echo "== Python stacks: thread CPU time per launch from $($PY -V 2>&1) through ctypes ($PYR rounds of $PYB x $NPYB launches per depth)"
pyrun() { # VARIANT ROUND COMMAND...: the blocks of py_depth.py run under COMMAND
	local v=$1 r=$2
	shift 2
	LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$@" "$PY" tests/bench/py_depth.py "$NPYB" "$PYB" 10 30 60 2>/dev/null |
		awk -v v="$v" -v r="$r" '$1 == "block" {print v, r, $2, $3, $4}' >>"$TMP/py_blocks"
}
: >"$TMP/py_blocks"
for r in $(seq "$PYR"); do
	pyrun bare "$r"
	pyrun empty "$r" "$O/tests/bench_uprobe" "$LIB" cudaLaunchKernel
	pyrun nopy "$r" "$GPUREC" record --no-sched --no-python -o "$TMP/p.trc" --
	pyrun py "$r" "$GPUREC" record --no-sched -o "$TMP/p.trc" --
done
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null
pyrun bnopy 1 "$GPUREC" record --no-sched --no-python -o "$TMP/p.trc" --
pyrun bpy 1 "$GPUREC" record --no-sched -o "$TMP/p.trc" --
sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null
python3 - "$TMP/py_blocks" <<'PY'
import statistics as st
import sys

t, b = {}, {}  # (variant, round, depth): thread ns per launch; (variant, depth): BPF ns
for line in open(sys.argv[1]):
    v, r, d, ns, bpf = line.split()
    t.setdefault((v, int(r), int(d)), []).append(float(ns))
    if bpf != "-":
        b.setdefault((v, int(d)), []).append(float(bpf))
rounds = sorted({k[1] for k in t})
for d in (10, 30, 60):
    m = {k[0]: {} for k in t}
    for (v, r, dd), xs in t.items():
        if dd == d:
            m[v][r] = st.median(xs)
    ok = [r for r in rounds if all(r in m.get(v, {}) for v in ("bare", "empty", "nopy", "py"))]
    if not ok:
        print("  %2d frames: NOT MEASURED: a variant gave no figure" % d)
        continue
    up = [m["empty"][r] - m["bare"][r] for r in ok]
    add = sorted((m["py"][r] - m["nopy"][r]) / u for r, u in zip(ok, up))
    ratio = st.median((m["py"][r] - m["bare"][r]) / u for r, u in zip(ok, up))
    e = st.median(up)
    line = ("  %2d frames: fp + Python %7.1f ns, ratio %.2f (target <= 2.0); Python frames add %.2f"
            " empty uprobes (rounds %.2f..%.2f, %.1f ns each)%s"
            % (d, st.median(m["py"][r] for r in ok), ratio, st.median(add), add[0], add[-1], e,
               " (target <= 1.0)" if d == 30 else ""))
    if b.get(("bpy", d)) and b.get(("bnopy", d)):
        bp, bn = sorted(b[("bpy", d)]), st.median(b[("bnopy", d)])
        line += ("; BPF %.0f ns a launch (blocks %.0f..%.0f), %.0f without Python: the walk %.2f"
                 " empty uprobes" % (st.median(bp), bp[0], bp[-1], bn, (st.median(bp) - bn) / e))
    else:
        line += "; BPF time NOT MEASURED (kernel.bpf_stats_enabled)"
    print(line)
PY

# Native stacks: the same launches from C, DEPTH frames of a recursion without frame pointers
# (tests/bench/bench_native_depth.c), as PyTorch's C++ is: what the walk by unwind tables
# (--call-graph cfi, the default) adds to a recording without stacks, in empty uprobes measured
# on the same calls, per round, NDR rounds interleaved; then the BPF program's time per launch
# (bpf_stats, one recording per depth and mode). On an H200 under torch.compile the launch
# programs ran 2.6-2.7 us a call with cfi stacks: issue 33's record cost is this figure there.
NND=${BENCH_NATIVE_LAUNCHES:-20000}
NDR=${BENCH_NATIVE_ROUNDS:-5}
echo "== native stacks: thread CPU time per launch from C, no frame pointers ($NDR rounds of $NND launches per depth)"
ndrun() { # VARIANT ROUND COMMAND...: bench_native_depth's blocks under COMMAND
	local v=$1 r=$2
	shift 2
	LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$@" "$O/tests/bench_native_depth" "$NND" 1 10 30 60 2>/dev/null |
		awk -v v="$v" -v r="$r" '$1 == "block" {print v, r, $2, $3}' >>"$TMP/nd_blocks"
}
: >"$TMP/nd_blocks"
for r in $(seq "$NDR"); do
	ndrun bare "$r"
	ndrun empty "$r" "$O/tests/bench_uprobe" "$LIB" cudaLaunchKernel
	ndrun none "$r" "$GPUREC" record --no-sched --call-graph none -o "$TMP/n.trc" --
	ndrun cfi "$r" "$GPUREC" record --no-sched -o "$TMP/n.trc" --
done
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null
for d in 10 30 60; do
	for cg in none cfi; do
		LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$GPUREC" record -v --no-sched --call-graph "$cg" \
			-o "$TMP/n.trc" -- "$O/tests/bench_native_depth" "$NND" 1 "$d" 2>&1 |
			awk -v d="$d" -v cg="$cg" '/bpf launch_session:/ {print "bpf", cg, d, $(NF-4)}' >>"$TMP/nd_blocks"
	done
done
sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null
python3 - "$TMP/nd_blocks" <<'PY'
import statistics as st
import sys

t, b = {}, {}  # (variant, round, depth): thread ns per launch; (mode, depth): BPF ns per run
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "bpf":
        b[(f[1], int(f[2]))] = float(f[3])
    else:
        t[(f[0], int(f[1]), int(f[2]))] = float(f[3])
rounds = sorted({k[1] for k in t})
for d in (10, 30, 60):
    ok = [r for r in rounds if all((v, r, d) in t for v in ("bare", "empty", "none", "cfi"))]
    if not ok:
        print("  %2d frames: NOT MEASURED: a variant gave no figure" % d)
        continue
    up = [t[("empty", r, d)] - t[("bare", r, d)] for r in ok]
    add = sorted((t[("cfi", r, d)] - t[("none", r, d)]) / u for r, u in zip(ok, up))
    line = ("  %2d frames: cfi %7.1f ns a launch, no stacks %7.1f; the walk adds %.2f empty uprobes"
            " (rounds %.2f..%.2f, %.1f ns each)"
            % (d, st.median(t[("cfi", r, d)] for r in ok), st.median(t[("none", r, d)] for r in ok),
               st.median(add), add[0], add[-1], st.median(up)))
    if ("cfi", d) in b and ("none", d) in b:
        line += "; BPF %.0f ns a launch, %.0f without stacks" % (b[("cfi", d)], b[("none", d)])
    else:
        line += "; BPF time NOT MEASURED (kernel.bpf_stats_enabled)"
    print(line)
PY

echo "== trace size on a training-loop pattern"
steps=${BENCH_STEPS:-20000}
"$GPUREC" record -o "$TMP/loop.trc" -- "$O/samples/chain" "$steps" >/dev/null 2>&1
launches=$("$GPUREC" info --json "$TMP/loop.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["launches"])')
size=$(stat -c %s "$TMP/loop.trc")
printf '  samples/chain %s steps: %s launches, %s bytes: %.2f B per launch event, stacks and syncs included (target <= 2.5)\n' \
	"$steps" "$launches" "$size" "$(awk -v s="$size" -v l="$launches" 'BEGIN{print s/l}')"

# Default stacks through code without frame pointers (issue 29): tests/progs/nofp_chain, -O2
# without frame pointers, launches from 10 frames of chain() under a thread. Its CPU time per
# launch (preemption does not count there), so the figures hold on a busy machine.
echo "== default stacks through a 10-frame chain without frame pointers ($N launches, median of $REPS)"
cpu_per_launch() { "$@" 2>/dev/null | awk '/cpu_ns_per_launch/ {print $6}'; }
for _ in $(seq "$REPS"); do
	cpu_per_launch "$PROGS/nofp_chain" "$N" >>"$TMP/ch_bare"
	cpu_per_launch "$O/tests/bench_uprobe" "$LIB" cudaLaunchKernel "$PROGS/nofp_chain" "$N" >>"$TMP/ch_empty"
	cpu_per_launch "$GPUREC" record --no-sched --call-graph fp -o "$TMP/a.trc" -- "$PROGS/nofp_chain" "$N" >>"$TMP/ch_fp"
	cpu_per_launch "$GPUREC" record --no-sched -o "$TMP/a.trc" -- "$PROGS/nofp_chain" "$N" >>"$TMP/ch_cfi"
done
chb=$(median <"$TMP/ch_bare")
che=$(median <"$TMP/ch_empty")
chf=$(median <"$TMP/ch_fp")
chc=$(median <"$TMP/ch_cfi")
frames=$("$O/tests/tool_trace_stacks" "$TMP/a.trc" | awk -F';' '{print NF; exit}')
printf '  call without probes            %8.1f ns CPU\n' "$chb"
printf '  empty BPF uprobe               %8.1f ns CPU\n' "$che"
printf '  gpurec, frame-pointer stacks   %8.1f ns CPU  ratio %s  (the walk stops at the first frame without one)\n' \
	"$chf" "$(ratio "$chf" "$chb" "$che")"
printf '  gpurec, default stacks (cfi)   %8.1f ns CPU  ratio %s  (target <= 2.0; %s frames a stack)\n' \
	"$chc" "$(ratio "$chc" "$chb" "$che")" "$frames"
"$GPUREC" record -o "$TMP/two.trc" -- "$PROGS/nofp_chain" 0 2 10 >"$TMP/two.out" 2>&1
"$GPUREC" info --json "$TMP/two.trc" | python3 -c 'import json,sys
d=json.load(sys.stdin)
print("  two threads, 10 s, default stacks: %d launches recorded, %d lost (target 0), complete=%s" % (d["launches"], d["lost_events"], d["complete"]))'

echo "== zero losses: two threads launching as fast as the probes allow for 10 s"
"$GPUREC" record -o "$TMP/two.trc" -- "$PROGS/launch_loop" 0 2 10 >"$TMP/two.out" 2>&1
"$GPUREC" info --json "$TMP/two.trc" | python3 -c 'import json,sys
d=json.load(sys.stdin)
print("  %d launches recorded, %d lost (target 0), complete=%s" % (d["launches"], d["lost_events"], d["complete"]))'
awk '/total_launches/ {print "  the program made " $4 " launches"}' "$TMP/two.out"

echo "== recorder CPU and memory at 100k launches/s for 20 s"
"$GPUREC" record -v -o "$TMP/long.trc" -- "$PROGS/launch_loop" 0 1 20 100000 >"$TMP/long.out" 2>&1
# the start alone (loading the BPF programs: the kernel's verifier is most of it), the same
# way, so that the 20 s figure splits into a cost paid once and one that grows with the run
"$GPUREC" record -v -o "$TMP/start.trc" -- true >"$TMP/start.out" 2>&1
start=$(awk '/recorder cpu/ {print $5 + $8}' "$TMP/start.out")
# "gpurec record: recorder cpu U s user S s sys, max rss K KiB"
awk -v start="${start:-0}" '/recorder cpu/ {printf "  recorder cpu %.1f%% of a core (target <= 5%%), max rss %.1f MiB (target <= 64); of it %.2f s once, at the start (BPF load and verification), %.1f%% while recording\n", ($5 + $8) / 20 * 100, $13 / 1024, start, ($5 + $8 - start) / 20 * 100}' "$TMP/long.out"
awk '/total_launches/ {printf "  the program made %d launches in 20 s\n", $4}' "$TMP/long.out"

echo "== decode and replay speed"
if [ -x "$O/tests/bench_format" ]; then "$O/tests/bench_format" | sed 's/^/  /'; fi
if [ -x "$O/tests/bench_model" ]; then "$O/tests/bench_model" | sed 's/^/  /'; fi
if [ -x "$O/tests/bench_report" ]; then
	# load + report with 1 and 2 load workers, each in fresh processes: 10M events, then 100M
	# (written in about 15 s here, 150 MiB in $TMP; about 6 GiB of memory; best of 2: in a VM the
	# first process to touch that much memory may pay for the host backing it)
	"$O/tests/bench_report" | sed 's/^/  /'
	"$O/tests/bench_report" -n 100000000 -r 2 "$TMP/report100m.trc" | sed 's/^/  /'
fi

echo "== replay at scale: peak RSS per event (targets: report, info, export <= 16 B; diff <= 32 B for"
echo "   both traces) and events/s (load + report >= 20M on one core, >= 35M on two)"
O=$O GPUREC=$GPUREC ./tests/bench/replay.sh

echo "== many ranks: a job of ${BENCH_RANKS:-512} synthetic rank traces, one straggler, reported trace by trace"
O=$O GPUREC=$GPUREC ./tests/bench/ranks.sh

echo "== export speed (Chrome trace JSON into a file, the load apart)"
if [ -x "$O/tests/bench_export" ]; then
	"$O/tests/bench_export" -o "$TMP/export.json" "$TMP/export.trc" | sed 's/^/  /'
	rm -f "$TMP/export.json" "$TMP/export.trc"
fi

echo "== probe cost compensation: launch cost and iteration time against the simulator's truth"
echo "   (target: compensated within 10%)"
O=$O GPUREC=$GPUREC bash ./tests/bench/probe_cost.sh

echo "== SQLite and CSV export (export's training-loop trace, 1M launches: whole command, best of 3;"
echo "   bytes per event = output size / rows of the event tables; the load alone is info's time)"
if [ -x "$O/tests/bench_export" ]; then
	"$O/tests/bench_export" -n 1000000 -r 1 -k -o /dev/null "$TMP/tables.trc" >/dev/null
	mkdir -p "$TMP/tables.csv"
	GPUREC=$GPUREC python3 - "$TMP" <<'PY'
import os, re, subprocess, sys, time
tmp, g = sys.argv[1], os.environ["GPUREC"]
trc = tmp + "/tables.trc"
def best(cmd):
    t = []
    for _ in range(3):
        a = time.monotonic()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        t.append(time.monotonic() - a)
    return min(t), out
load, _ = best([g, "info", trc])
for fmt, out in (("sqlite", tmp + "/tables.sqlite"), ("csv", tmp + "/tables.csv")):
    s, text = best([g, "export", trc, "--format", fmt, "-o", out])
    events = int(re.search(r"(\d+) of them events", text).group(1))
    size = os.path.getsize(out) if fmt == "sqlite" else sum(
        os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    print("  %-6s %.2fM events/s (%d events in %.3f s, load %.3f s of it), %.1f bytes/event"
          % (fmt, events / s / 1e6, events, s, load, size / events))
PY
	# the SQLite export alone, over CPU time (the figure the >= 2M target is read on)
	"$O/tests/bench_export" -e -s -o "$TMP/tables.sqlite" "$TMP/tables.trc" |
		sed -n 's/^export sqlite /  sqlite alone: /p'
	rm -rf "$TMP/tables.trc" "$TMP/tables.sqlite" "$TMP/tables.csv"
fi

echo "== Perfetto export: size and speed against the Chrome JSON of the same trace (200k launches)"
echo "   (bytes per launch compare the two; per event counts each form's own events: JSON has 2 per flow)"
if [ -x "$O/tests/bench_export" ]; then
	"$O/tests/bench_export" -n 200000 -k -o "$TMP/pf.json" "$TMP/pf.trc" | sed 's/^/  json:     /'
	"$O/tests/bench_export" -e -p -o "$TMP/pf.pftrace" "$TMP/pf.trc" | sed 's/^/  perfetto: /'
	rm -f "$TMP/pf.json" "$TMP/pf.pftrace" "$TMP/pf.trc"
fi

# NVTX (issue 32): a push/pop pair of one thread, two calls of the program's NVTX, each reaching
# record's NVTX tool and its tap (tests/progs/nvtx_loop.c): without a tool, with the tool
# unprobed (what a program pays when gpurec does not record it), with an empty uprobe on the tap,
# and recorded. The ratio is gpurec's cost over the empty uprobe's, both over the unprobed tool.
NN=${BENCH_NVTX_PAIRS:-200000}
NVTXLIB=$PWD/libgpurec_nvtx.so
echo "== NVTX: a push/pop pair ($NN pairs, one thread, median of $REPS)"
ns_per_pair() { "$@" 2>/dev/null | awk '/ns_per_pair/ {print $2}'; }
for _ in $(seq "$REPS"); do
	ns_per_pair "$PROGS/nvtx_loop" "$NN" >>"$TMP/nvtx_none"
	NVTX_INJECTION64_PATH=$NVTXLIB ns_per_pair "$PROGS/nvtx_loop" "$NN" >>"$TMP/nvtx_tool"
	NVTX_INJECTION64_PATH=$NVTXLIB ns_per_pair "$O/tests/bench_uprobe" "$NVTXLIB" gpurec_nvtx_tap \
		"$PROGS/nvtx_loop" "$NN" >>"$TMP/nvtx_empty"
	ns_per_pair "$GPUREC" record --no-sched -o "$TMP/n.trc" -- "$PROGS/nvtx_loop" "$NN" >>"$TMP/nvtx_rec"
done
nnone=$(median <"$TMP/nvtx_none")
ntool=$(median <"$TMP/nvtx_tool")
nempty=$(median <"$TMP/nvtx_empty")
nrec=$(median <"$TMP/nvtx_rec")
printf '  no NVTX tool                   %8.1f ns\n' "$nnone"
printf '  record'"'"'s tool, unprobed        %8.1f ns  (+%.1f: the handlers and the empty tap)\n' "$ntool" \
	"$(awk -v a="$ntool" -v b="$nnone" 'BEGIN{print a-b}')"
printf '  empty BPF uprobe on the tap    %8.1f ns  (+%.1f)\n' "$nempty" \
	"$(awk -v a="$nempty" -v b="$ntool" 'BEGIN{print a-b}')"
printf '  gpurec record                  %8.1f ns  ratio %s  (two calls, each with its text)\n' "$nrec" \
	"$(ratio "$nrec" "$ntool" "$nempty")"

sysctl -qw kernel.bpf_stats_enabled="$stats" 2>/dev/null
exit 0
