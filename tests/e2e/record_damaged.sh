#!/usr/bin/env bash
# A recording cut anywhere keeps every complete chunk and the names that explain it, and every
# command says so: a real program on the real libcudart, recorded over several chunks, then cut
# at every 10% of the file (and at 99%). For each cut: exactly the launches of the chunks that end
# before the cut (the intact file's chunk index is the ground truth), every kernel named, every
# stack symbolised as in the intact file, the CUDA library named, one stderr line naming the
# damage, an integrity object saying truncated, and no sentence the damage makes false.
. "$(dirname "$0")/lib.sh"
need_root record_damaged
TOOLS=${TOOLS:-$PWD/$O/tests}

# one launching thread at 5000 launches/s for 6 s: the recorder writes a chunk at least every
# second, so the file holds 6 or more chunks of launches whatever the machine's load
"$GPUREC" record -o "$TMP/d.trc" -- "$PROGS/launch_loop" 0 1 6 5000 >/dev/null 2>&1
"$TOOLS/tool_trace_chunks" "$TMP/d.trc" >"$TMP/chunks"
nchunks=$(awk '$3 > 0' "$TMP/chunks" | wc -l)
check "the intact recording spans 5 or more chunks of launches" True "$([ "$nchunks" -ge 5 ] && echo True || echo "False ($nchunks)")"
total=$(awk '{ n += $3 } END { print n }' "$TMP/chunks")
check "the chunk index counts every launch the program made" \
	"$("$GPUREC" info --json "$TMP/d.trc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["launches"])')" "$total"
"$TOOLS/tool_trace_stacks" "$TMP/d.trc" | sed 's/^[0-9]*: //' >"$TMP/stacks.intact"

size=$(stat -c %s "$TMP/d.trc")
for pct in 10 20 30 40 50 60 70 80 90 99; do
	cut=$((size * pct / 100))
	f=$TMP/cut$pct.trc
	head -c "$cut" "$TMP/d.trc" >"$f"
	# ground truth: the chunks that end at or before the cut
	want=$(awk -v c="$cut" '$2 <= c { n += $3 } END { print n + 0 }' "$TMP/chunks")
	kept=$(awk -v c="$cut" '$2 <= c { n++ } END { print n + 0 }' "$TMP/chunks")

	"$GPUREC" info --json "$f" >"$TMP/i.json" 2>"$TMP/i.err"
	check "$pct%: info exits 0" 0 $?
	check "$pct%: exactly the $want launches of the $kept complete chunks" "$want" \
		"$(json "$TMP/i.json" 'd["launches"]')"
	check "$pct%: integrity says truncated, $kept chunks kept, lower bounds" "True True $kept True" \
		"$(json "$TMP/i.json" '" ".join(str(x) for x in (d["integrity"]["damaged"], d["integrity"]["truncated"], d["integrity"]["chunks_ok"], d["integrity"]["lower_bounds"]))')"
	grep -q "^gpurec info: $f: damaged: truncated at byte $cut " "$TMP/i.err" &&
		ok "$pct%: info names the damage on stderr" || not_ok "$pct%: info stderr: $(cat "$TMP/i.err")"
	if [ "$want" -gt 0 ]; then
		check "$pct%: every kernel named" '["tiny(float*)"]' \
			"$(json "$TMP/i.json" '[k["name"] for k in d["kernels"]]')"
		check "$pct%: the CUDA library named" True \
			"$(json "$TMP/i.json" 'len(d["cuda_libraries"]) == 1 and "libcudart" in d["cuda_libraries"][0]')"
		"$TOOLS/tool_trace_stacks" "$f" | sed 's/^[0-9]*: //' >"$TMP/stacks.cut"
		cmp -s "$TMP/stacks.intact" "$TMP/stacks.cut" &&
			ok "$pct%: stacks symbolised as in the intact file" ||
			not_ok "$pct%: stacks: $(head -c 300 "$TMP/stacks.cut")"
	fi

	"$GPUREC" report "$f" >"$TMP/r.txt" 2>"$TMP/r.err"
	check "$pct%: report exits 0" 0 $?
	grep -q "^gpurec report: $f: damaged: truncated at byte $cut " "$TMP/r.err" &&
		ok "$pct%: report names the damage on stderr" || not_ok "$pct%: report stderr: $(cat "$TMP/r.err")"
	grep -q "DAMAGED TRACE: figures are lower bounds" "$TMP/r.txt" &&
		ok "$pct%: report marks its figures as lower bounds" || not_ok "$pct%: $(head -3 "$TMP/r.txt")"
	bad=$(grep -E "no CUDA library was loaded|nothing was recorded" "$TMP/r.txt" "$TMP/r.err" "$TMP/i.err")
	check "$pct%: report says nothing the damage makes false" "" "$bad"
	"$GPUREC" report --json "$f" 2>/dev/null >"$TMP/r.json"
	check "$pct%: report --json integrity says truncated" "True $want" \
		"$(json "$TMP/r.json" 'str(d["integrity"]["truncated"]) + " " + str(d["launches"]["total"] if "launches" in d else -1)')"

	"$GPUREC" export "$f" -o "$TMP/e.json" >/dev/null 2>"$TMP/e.err"
	check "$pct%: export exits 0" 0 $?
	grep -q "^gpurec export: $f: damaged: truncated at byte $cut " "$TMP/e.err" &&
		ok "$pct%: export names the damage on stderr" || not_ok "$pct%: export stderr: $(cat "$TMP/e.err")"
	check "$pct%: export's otherData integrity says truncated" True \
		"$(json "$TMP/e.json" 'd["otherData"]["integrity"]["truncated"]')"

	"$GPUREC" diff --json "$TMP/d.trc" "$f" >"$TMP/df.json" 2>"$TMP/df.err"
	check "$pct%: diff exits 0" 0 $?
	grep -q "^gpurec diff: $f: damaged: truncated at byte $cut " "$TMP/df.err" &&
		ok "$pct%: diff names the damage on stderr" || not_ok "$pct%: diff stderr: $(cat "$TMP/df.err")"
	check "$pct%: diff --json: base whole, new truncated" "False True" \
		"$(json "$TMP/df.json" 'str(d["base"]["integrity"]["damaged"]) + " " + str(d["new"]["integrity"]["truncated"])')"
done

# the intact file: nothing said on stderr, not damaged
"$GPUREC" report "$TMP/d.trc" >/dev/null 2>"$TMP/whole.err"
check "intact: report says nothing on stderr" "" "$(cat "$TMP/whole.err")"
check "intact: integrity not damaged, not lower bounds" "False False" \
	"$("$GPUREC" info --json "$TMP/d.trc" | python3 -c 'import json,sys; i=json.load(sys.stdin)["integrity"]; print(i["damaged"], i["lower_bounds"])')"
exit $failures
