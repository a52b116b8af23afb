#!/usr/bin/env bash
# Python call sites: tests/progs/py/cuda_sites.py calls libcudart through ctypes from functions
# a few calls deep; every recorded launch, copy and sync must carry the exact Python frames
# (file, line, function) it was made from, innermost first: from the system python3 and every
# other CPython 3.10+ on the machine, from two threads, from multiprocessing children (fork and
# spawn), through a native frame between two Python frames, and from eight threads that hold the
# process at once just before it ends. The expected lines come from the scripts' own
# "# site: NAME" comments.
. "$(dirname "$0")/lib.sh"
need_root record_python
STACKS=$PWD/$O/tests/tool_trace_stacks
SCRIPT=$PROGS/py/cuda_sites.py
export LD_LIBRARY_PATH=/usr/local/cuda/lib64

line() { grep -n "# site: $1\$" "$SCRIPT" | cut -d: -f1; }
# a Python frame as trace_stacks prints it
py() { echo "$SCRIPT:$(line "$1") $2"; }

# the frames of each stack of $1 that are the script's (or named by $2, a regex), one stack
# per line as "COUNT: f;f;...", sorted
script_frames() {
	"$STACKS" "$1" | python3 -c '
import re, sys
script, extra = sys.argv[1], sys.argv[2]
out = []
for l in sys.stdin:
    count, _, frames = l.rstrip("\n").partition(": ")
    keep = [f for f in frames.split(";") if f.startswith(script + ":") or (extra and re.search(extra, f))]
    if keep:
        out.append(count + ": " + ";".join(keep))
print("\n".join(sorted(out)))' "$SCRIPT" "${2:-}"
}

record() { # $1 trace, rest: gpurec record options then -- command
	local trc=$1
	shift
	"$GPUREC" record -o "$trc" "$@" >"$trc.out" 2>"$trc.err" ||
		not_ok "record $*: exit $?: $(tail -3 "$trc.err")"
}

N=20
basic_expect() {
	local tail="$(py train_sync train);$(py main_train main);$(py module '<module>')"
	local train="$(py main_train main);$(py module '<module>')"
	printf '%s\n' \
		"1: $(py sync sync);$(py train_sync train);$train" \
		"3: $(py copy copy_back);$(py train_copy train);$train" \
		"$N: $(py launch launch);$(py scale_step scale_step);$(py train_scale train);$train" \
		"$((N / 2)): $(py launch launch);$(py add_step add_step);$(py train_add train);$train" |
		sort
}

threads_expect() {
	printf '%s\n' \
		"$N: $(py launch launch);$(py scale_step scale_step);$(py worker_a worker_a)" \
		"$N: $(py launch launch);$(py add_step add_step);$(py worker_b worker_b)" | sort
}

# $1: a python; its version is $2. Frame-pointer stacks (the default). A thread's first frames
# lie at the start of its own data-stack mapping: the walk must read them there too.
check_python() {
	record "$TMP/basic.trc" -- "$1" "$SCRIPT" basic $N
	check "$2: launches, copies, sync: exact Python frames" "$(basic_expect)" \
		"$(script_frames "$TMP/basic.trc")"
	record "$TMP/threads.trc" -- "$1" "$SCRIPT" threads $N
	check "$2: two threads, each its own Python stack" "$(threads_expect)" \
		"$(script_frames "$TMP/threads.trc")"
}

# the system python3
PY=$(command -v /usr/bin/python3 || command -v python3)
check_python "$PY" "$($PY -V)"

# every other CPython on the machine (pyenv's are linked to libpython3.X.so: found at its mmap;
# 3.10 names a thread by pthread_self(), 3.11+ by its tid)
for other in /root/.pyenv/versions/3.1[0-9]*/bin/python3; do
	[ -x "$other" ] || continue
	case $other in *t/bin/*) continue ;; esac
	check_python "$other" "$("$other" -V 2>&1)"
done

# multiprocessing children: fork (same interpreter, copied) and spawn (a new exec of python)
for how in fork spawn; do
	# a forked child runs on from the parent's p.start(): its stack goes on into the parent's
	child_tail=
	[ $how = fork ] && child_tail=";$(py start main);$(py module '<module>')"
	record "$TMP/$how.trc" -- "$PY" "$SCRIPT" $how $N
	check "multiprocessing $how: the child's launches and the parent's" \
		"$(printf '%s\n' \
			"$N: $(py launch launch);$(py add_step add_step);$(py child_main child_main)$child_tail" \
			"$N: $(py launch launch);$(py scale_step scale_step);$(py parent main);$(py module '<module>')" |
			sort)" \
		"$(script_frames "$TMP/$how.trc")"
done

# a native frame between two Python frames: with DWARF the native caller is in its place;
# with frame pointers the walk stops in libffi and the Python frames follow it in order
native_expect() { # $1: the native frame's text, or nothing
	echo "$N: $(py launch launch);$(py add_step add_step);$(py from_native from_native);$(py lambda 'through_native.<locals>.<lambda>');${1:+$1;}$(py through_native through_native);$(py main_native main);$(py module '<module>')"
}
record "$TMP/cb_dwarf.trc" --call-graph dwarf -- "$PY" "$SCRIPT" callback $N
check "callback, dwarf: Python, the native frame, Python" \
	"$(native_expect pycallback_call)" \
	"$(script_frames "$TMP/cb_dwarf.trc" '^pycallback_call$')"
record "$TMP/cb_fp.trc" -- "$PY" "$SCRIPT" callback $N
check "callback, frame pointers: the Python frames in order" "$(native_expect)" \
	"$(script_frames "$TMP/cb_fp.trc")"

# Eight threads hold the process for a new stack each, all at once, and it exits right after:
# holds sent before it stops make one stop, and the resume for the first must not free it while
# the others are still to be read. The recorder is slowed (GPUREC_TEST_HOLD_DELAY_MS), as on a
# busy machine; without the count of holds most rounds lose a stack or two to "<unknown>".
HELD=$PROGS/py/held_threads.py
held_expect() {
	local worker
	worker="$HELD:$(grep -n '# site: worker$' "$HELD" | cut -d: -f1) worker"
	for i in 0 1 2 3 4 5 6 7; do echo "1: site_$i.py:2 site_$i;$worker"; done | sort
}
for round in 1 2 3; do
	GPUREC_TEST_HOLD_DELAY_MS=100 record "$TMP/held.trc" -- "$PY" "$HELD" 8
	check "held threads, round $round: every stack read before the process ended" \
		"$(held_expect)" "$(script_frames "$TMP/held.trc" '^site_[0-9]+\.py:|held_threads\.py:')"
done

# --no-python: native frames only
record "$TMP/nopy.trc" --no-python -- "$PY" "$SCRIPT" basic $N
check "--no-python: no Python frame" "" "$(script_frames "$TMP/nopy.trc")"
exit $((failures > 0))
