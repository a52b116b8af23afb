#!/usr/bin/env bash
# Builds every libFuzzer target (make fuzz) and runs each from its corpus (tests/fuzz/corpus/NAME):
# every input once (-runs=0), then FUZZ_SECONDS (5) of fuzzing from them with a fixed seed, the
# new inputs in a scratch directory. A target that does not build, crashes or breaks an invariant
# fails with its name; the input that did it is kept in $O/fuzz/crashes/ for the replay driver
# ($O/tests/fuzz_NAME_replay FILE) and the corpus. One TAP line per target, then
# "N passed, N failed". .ci/run runs it: with the targets built, about 6.5 s a target (110 s for 17)
# on 2 cores.
set -u
cd "$(dirname "$0")/../.."
O=${O:-build}
secs=${FUZZ_SECONDS:-5}
passed=0
failed=0
log=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$log" "$scratch"' EXIT

if ! make -j2 O="$O" fuzz; then
	echo "not ok - make fuzz (libFuzzer: clang and libclang-rt-dev, tests/install-deps.sh)"
	echo "0 passed, 1 failed"
	exit 1
fi
mkdir -p "$O/fuzz/crashes"
for t in "$O"/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	name=${t##*/fuzz_}
	corpus=tests/fuzz/corpus/$name
	mkdir -p "$scratch/$name"
	if "$t" -runs=0 "$corpus" >"$log" 2>&1 &&
		"$t" -seed=1 -max_total_time="$secs" -artifact_prefix="$O/fuzz/crashes/$name-" \
			"$scratch/$name" "$corpus" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok - fuzz_$name ($(grep -o 'Done [0-9]* runs' "$log" | tail -1 | cut -d' ' -f2) runs)"
	else
		failed=$((failed + 1))
		echo "not ok - fuzz_$name"
		grep -v -e '^#' -e '^INFO:' -e '^\s*#[0-9]' "$log" | tail -15 | sed 's/^/    | /'
	fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
