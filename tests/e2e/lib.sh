# Shared helpers for the end-to-end scripts: TAP output and JSON queries.
# Sourced; expects GPUREC (the binary) and O (build dir) from tests/run.sh.
GPUREC=${GPUREC:-$PWD/gpurec}
O=${O:-build}
PROGS=${PROGS:-$PWD/$O/progs}
CALLS=${CALLS:-$PWD/$O/tests/tool_trace_calls}
NAMES=${NAMES:-$PWD/$O/tests/tool_trace_names}
TMP=$(mktemp -d /tmp/gpurec-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0

# The checks start Python thousands of times. Where python3 is pyenv's shim, a shell script that
# runs `pyenv exec`, each start took 0.4 s instead of 0.04 (a third of make test's time):
# the scripts' own python3 is the interpreter the shim resolves to. Commands gpurec records
# (record -- python3 ...) still find python3 in PATH, as a user's would.
if GR_PYTHON=$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null) &&
	[ -x "$GR_PYTHON" ]; then
	python3() { "$GR_PYTHON" "$@"; }
fi

# golden_window NAME: the export options a golden trace is compared under. synth (1 s, 170,200
# launches) only in its last 50 ms: its 15 MB Perfetto export took three minutes of Python a
# run; the last 50 ms still hold its highest flow ids and event indices
golden_window() { [ "$1" != synth ] || echo "--from 950ms"; }

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }

# tap NAME CMD...: runs a helper that prints TAP lines of its own, and prints them. A failure
# always has a line that names it: a helper that exits non-zero without one (a traceback, a
# kill) gets "not ok - NAME exited with status N" and its stderr's tail.
tap() {
	local name=$1 rc
	shift
	"$@" >"$TMP/tap.out" 2>"$TMP/tap.err"
	rc=$?
	cat "$TMP/tap.out"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$TMP/tap.out"; then
		not_ok "$name exited with status $rc: $(tail -3 "$TMP/tap.err" | paste -sd' ')"
	elif [ $rc -ne 0 ]; then
		failures=$((failures + 1))
	fi
	return $rc
}

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
		return
	fi
	# on one line, "\n" between lines: the runner keeps one line of a failure, and a value of
	# several lines (stacks, tables) lost its "got" there
	not_ok "$1: expected '${2//$'\n'/\\n}', got '${3//$'\n'/\\n}'"
}

# jq-like: json FILE 'python expression over d' (d is the parsed document)
json() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
r=eval(sys.argv[2])
print(json.dumps(r, sort_keys=True) if isinstance(r,(dict,list)) else r)' "$1" "$2"
}

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "not ok - $1 needs root (BPF); run make test as root"
		exit 1
	fi
}
