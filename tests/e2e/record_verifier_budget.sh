#!/usr/bin/env bash
# The verifier's work on the recorder's programs stays well under the kernel's limit of a
# million instructions a program, in every stack mode: past it the load fails with E2BIG and
# nothing can be recorded. The figure moves with the code, not with the machine's load (it is
# the kernel's count for this object on this kernel), so a change that adds state the verifier
# must track across a stack walk shows here first: one such change took api_entry in cfi mode
# from 755k to 988k instructions. The bound leaves that much room: 850k.
. "$(dirname "$0")/lib.sh"
need_root record_verifier_budget

BOUND=850000
for mode in cfi fp dwarf none; do
	"$GPUREC" record -v --call-graph "$mode" -o "$TMP/$mode.trc" -- true >"$TMP/$mode.out" 2>&1
	if ! grep -q "instructions verified" "$TMP/$mode.out"; then
		# the kernel gives no count (before 5.16): nothing to check
		ok "# SKIP $mode: the kernel does not count verified instructions"
		continue
	fi
	over=$(awk -v b="$BOUND" '/instructions verified/ {n = $5; if (n + 0 > b) printf "%s%s %s", sep, $4, n; if (n + 0 > b) sep = ", "}' "$TMP/$mode.out")
	most=$(awk '/instructions verified/ {if ($5 + 0 > m) {m = $5 + 0; p = $4}} END {print p, m}' "$TMP/$mode.out")
	check "$mode: every program verified in at most $BOUND instructions (most: $most)" "" "$over"
done
exit $failures
