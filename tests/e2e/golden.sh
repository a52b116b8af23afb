# Replay outputs that must not change by accident: report, info and diff (text and --json) of
# the traces in tests/data/golden/ against tests/data/golden/expected/. The traces are fixed
# recordings of the samples (simulator and real libcudart), a dwarf-stack and a multi-process
# recording, a generated loop and a cut file. A change to an expected file belongs in the
# commit that changes the behaviour, with the reason named there. Needs no root, no GPU.
#
#   GOLDEN_UPDATE=1 bash tests/e2e/golden.sh     rewrite the expected files from this build
. "$(dirname "$0")/lib.sh"
DIR=tests/data/golden
EXP=$DIR/expected

# outputs NAME CMD...: compare CMD's stdout (and exit status) with $EXP/NAME
outputs() {
	local name=$1 rc
	shift
	"$GPUREC" "$@" >"$TMP/$name" 2>"$TMP/$name.err"
	rc=$?
	[ $rc -eq 0 ] || echo "exit status $rc" >>"$TMP/$name"
	if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$TMP/$name" "$EXP/$name"
		ok "$name (updated)"
	elif cmp -s "$TMP/$name" "$EXP/$name"; then
		ok "$name"
	else
		not_ok "$name differs from $EXP/$name:"
		diff -u "$EXP/$name" "$TMP/$name" | head -20 | sed 's/^/#   /'
	fi
}

for trc in "$DIR"/*.trc; do
	t=$(basename "$trc" .trc)
	outputs "$t.report.txt" report "$trc"
	outputs "$t.report.json" report --json "$trc"
	outputs "$t.info.txt" info "$trc"
	outputs "$t.info.json" info --json "$trc"
done
for pair in chain:chain_fused item:item_free pageable:pinned chain:chain_real alone:starved; do
	a=${pair%:*} b=${pair#*:}
	outputs "$a-$b.diff.txt" diff "$DIR/$a.trc" "$DIR/$b.trc"
	outputs "$a-$b.diff.json" diff --json "$DIR/$a.trc" "$DIR/$b.trc"
done
exit $((failures > 0))
