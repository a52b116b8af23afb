#!/usr/bin/env bash
# Repeated and reordered chunks (tests/data/bad, made by tests/fuzz/gen_corpus.c from a trace of
# 24 launches in 7 chunks, checksums rebuilt): every command counts each launch once and says
# what the damage was, in text and JSON.
set -u
. "$(dirname "$0")/lib.sh"

# name, repeated, out of order, the damage line's middle
cases=(
	"chunk-repeated 1 0 1 bad chunk skipped (1 repeated); 7 complete chunks kept"
	"chunks-reversed 0 6 6 chunks out of order, read where they lie; 7 complete chunks kept"
	"chunks-twice-no-footer 7 0 7 bad chunks skipped (7 repeated); 7 complete chunks kept"
)
for c in "${cases[@]}"; do
	read -r name repeated order words <<<"$c"
	f=tests/data/bad/$name.trc
	"$GPUREC" info --json "$f" >"$TMP/$name.json" 2>"$TMP/$name.err"
	check "$name: info --json counts each launch once" 24 "$(json "$TMP/$name.json" 'd["launches"]')"
	check "$name: integrity names the repeats and the reordering" "False $repeated $order" \
		"$(json "$TMP/$name.json" '" ".join(str(d["integrity"][k]) for k in
			("complete", "chunks_repeated", "chunks_out_of_order"))')"
	if grep -qF -- "$words" "$TMP/$name.err"; then
		ok "$name: the damage line says '$words'"
	else
		not_ok "$name: the damage line: $(cat "$TMP/$name.err")"
	fi
	"$GPUREC" report --json "$f" >"$TMP/$name.report.json" 2>/dev/null
	check "$name: report counts each launch once" 24 \
		"$(json "$TMP/$name.report.json" 'd["launches"]["total"]')"
done

[ "$failures" -eq 0 ]
