#!/usr/bin/env bash
# Python stacks stay exact launch by launch when only a middle frame changes (issue 33): the BPF
# walk keeps the outer frames of the thread's last walk and re-reads only what changed.
# tests/progs/py/stack_change.py prints, before each launch, the stack it launches from; the
# Python frames of every recorded launch, in order, must equal those lines: a middle caller that
# alternates between two call sites or two functions, a middle frame whose line changes under
# outer frames that stay where they were, a stack one frame deeper every other launch. From the
# system python3 and every other CPython 3.10+ on the machine, 30 frames deep; and for the
# system python3, stacks about GR_PY_MAX_FRAMES (128) deep, where the walk keeps nothing and
# the recorded stack holds the innermost 128 frames.
. "$(dirname "$0")/lib.sh"
need_root python_stack_change
STACKS=$PWD/$O/tests/tool_trace_stacks
SCRIPT=$PROGS/py/stack_change.py
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
N=40

# $1 python, $2 its name, $3 mode, $4 recursion depth, $5 frames a recorded stack holds at most
run_mode() {
	local trc=$TMP/$3.trc
	"$GPUREC" record -o "$trc" -- "$1" "$SCRIPT" "$3" "$N" "$4" >"$TMP/want.all" 2>"$TMP/rec.err" ||
		{ not_ok "$2 $3 depth $4: record: $(tail -3 "$TMP/rec.err")"; return; }
	check "$2 $3 depth $4: launches printed" "$N" "$(wc -l <"$TMP/want.all")"
	cut -d';' -f1-"$5" "$TMP/want.all" >"$TMP/want"
	# the script's frames as FILE:LINE
	"$STACKS" --launches "$trc" | sed 's/ [^;]*//g' >"$TMP/got"
	check "$2 $3 depth $4: each launch's Python stack, in order" "$(cat "$TMP/want")" \
		"$(cat "$TMP/got")"
	# the changing frame must really change: two distinct stacks at least
	check "$2 $3 depth $4: the stacks differ" yes \
		"$([ "$(sort -u "$TMP/want" | wc -l)" -ge 2 ] && echo yes)"
}

check_python() {
	for mode in sites funcs lines depth; do
		run_mode "$1" "$2" "$mode" 20 128
	done
}

PY=$(command -v /usr/bin/python3 || command -v python3)
check_python "$PY" "$($PY -V)"
# beyond what the walk keeps: 121 deep gives 128 frames, 129 with "depth"'s extra one
run_mode "$PY" "$($PY -V)" depth 121 128
run_mode "$PY" "$($PY -V)" sites 140 128
for other in /root/.pyenv/versions/3.1[0-9]*/bin/python3; do
	[ -x "$other" ] || continue
	case $other in *t/bin/python3) continue ;; esac
	check_python "$other" "$("$other" -V)"
done
exit $((failures > 0))
