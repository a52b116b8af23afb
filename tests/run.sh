#!/usr/bin/env bash
# Runs every test that needs no GPU and prints one final line: "N passed, N failed".
# Unit tests and fuzz replays print TAP lines ("ok - name" / "not ok - name"); each end-to-end
# script in tests/e2e/ is one or more TAP lines too. Exit status is non-zero on any failure.
# A skip ("ok ... # SKIP reason") is counted apart, never as a pass: its line says how many.
# Before that line, each failure is named again ("failed: SCRIPT: CHECK"), so that a check that
# fails once in a while names itself in a CI log whose middle was cut.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
export O GPUREC="${GPUREC:-$PWD/gpurec}" SAMPLES="$PWD/$O/samples"
passed=0
failed=0
skipped=0
failures=() # "SCRIPT: CHECK" per failure, for the closing summary
timings=()  # "SECONDS LABEL" per run, the slowest named at the end: CI has a time limit
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # $1: label; stdin: TAP output
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok "*"# SKIP"*) skipped=$((skipped + 1)); echo "  $line" ;;
		"ok "* | "ok") passed=$((passed + 1)); echo "  $line" ;;
		"not ok"*)
			failed=$((failed + 1))
			echo "  $line  [$1]"
			line=${line#not ok}
			line=${line# - }
			failures+=("$1: ${line:0:300}")
			;;
		"#"*) echo "  $line" ;;
		esac
	done
}

run() { # $1: label, rest: command; a crash or non-zero exit without a "not ok" is a failure
	local label=$1 rc started=$SECONDS
	shift
	"$@" >"$log" 2>&1
	rc=$?
	timings+=("$((SECONDS - started)) $label")
	count "$label" <"$log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
		failed=$((failed + 1))
		failures+=("$label: exited with status $rc without a failing check")
		echo "  not ok - $label exited with status $rc"
		sed 's/^/    | /' "$log" | tail -20
	fi
}

echo "unit tests"
for t in "$O"/tests/test_*; do
	[ -x "$t" ] && run "$(basename "$t")" "$t"
done

echo "fuzz corpus replays"
for t in "$O"/tests/fuzz_*_replay; do
	[ -x "$t" ] || continue
	name=$(basename "$t" _replay)
	run "$name" "$t" "tests/fuzz/corpus/${name#fuzz_}"
done

echo "end-to-end"
for t in tests/e2e/*.sh; do
	[ -f "$t" ] && run "$(basename "$t")" bash "$t"
done

echo "slowest (seconds):"
printf '%s\n' "${timings[@]}" | sort -rn | head -12 | sed 's/^/  /'
echo "total: $SECONDS s"
for f in "${failures[@]}"; do
	echo "failed: $f"
done
[ $skipped -eq 0 ] || echo "$skipped skipped (neither passed nor failed; the reasons are above)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
