#!/usr/bin/env bash
# Writes the seed corpus of fuzz_lines (tests/fuzz/corpus/lines): small ELF files with line
# tables of each sort the recorder meets (DWARF 5 and 4, with and without .debug_aranges, code
# inlined into its caller, a relative path under a compilation directory), one without any, then
# damaged copies (cut inside the DWARF, .debug_line and .debug_info overwritten with bytes that
# claim huge lengths). Not part of the build; run it again when the recorder's DWARF needs change:
#
#   tests/fuzz/gen_lines_corpus.sh tests/fuzz/corpus/lines
set -eu
out=${1:?usage: gen_lines_corpus.sh DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
out=$(cd "$out" && pwd)
small=(-shared -fPIC -nostdlib -Os -fno-asynchronous-unwind-tables -Wl,-z,noseparate-code)

cat >"$tmp/lines.c" <<'EOF2'
static inline __attribute__((always_inline)) int stub(int x) { return x * 3 + 1; }
__attribute__((noinline)) int launch(int x) { return stub(x) + stub(x + 1); }
int step(int x)
{
	int y = launch(x);
	return y + launch(y);
}
EOF2
(cd "$tmp" && gcc "${small[@]}" -g -o "$out/dwarf5.so" lines.c)
(cd "$tmp" && gcc "${small[@]}" -gdwarf-4 -o "$out/dwarf4.so" lines.c)
(cd "$tmp" && gcc "${small[@]}" -g -Wl,--strip-debug -o "$out/nodebug.so" lines.c)
objcopy --remove-section .debug_aranges "$out/dwarf5.so" "$out/no-aranges.so"

# damaged copies: cut in the middle of the DWARF; a section's bytes replaced by 0xff (lengths
# of 2^32 - 1, the 64-bit DWARF escape)
size=$(stat -c %s "$out/dwarf5.so")
head -c $((size * 2 / 3)) "$out/dwarf5.so" >"$out/cut.so"
for sec in .debug_line .debug_info .debug_abbrev; do
	read -r off len < <(readelf -SW "$out/dwarf5.so" |
		sed 's/^ *\[ *[0-9]*\]//' | awk -v s="$sec" '$1 == s { print $4, $5 }') || continue
	off=$((16#$off)) len=$((16#$len))
	cp "$out/dwarf5.so" "$out/bad${sec}.so"
	head -c "$len" /dev/zero | tr '\0' '\377' |
		dd of="$out/bad${sec}.so" bs=1 seek="$off" conv=notrunc status=none
done
