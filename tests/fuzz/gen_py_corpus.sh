#!/usr/bin/env bash
# Writes the seed corpora of fuzz_pybuild and fuzz_pyresolve (tests/fuzz/corpus/pybuild,
# tests/fuzz/corpus/pyresolve). pybuild: small shared objects that look like CPython to
# record/python/pybuild.c (a 3.12 with Py_Version, a 3.10 known by its name, 3.13 and 3.14 with
# _Py_DebugOffsets, one whose thread state section lies at the end of what is read, one that
# is free-threaded), each prefixed by the byte that picks its name. pyresolve: a code object
# faked in a memory image (3.12 and 3.10 layouts, ASCII and UCS-2 names, a wrong type).
# Not part of the build; run it again when the readers change:
#
#   tests/fuzz/gen_py_corpus.sh tests/fuzz/corpus
set -eu
out=${1:?usage: gen_py_corpus.sh DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/pybuild" "$out/pyresolve"

# $1: seed name, $2: name byte (fuzz_pybuild.c NAMES), $3: C source of _PyRuntime and Py_Version
elf() {
	cat >"$tmp/py.c" <<EOF
#include <stdint.h>
$3
char PyCode_Type[208] = {1};
void _PyEval_EvalFrameDefault(void) { __asm__ volatile("" ::: "memory"); }
EOF
	gcc -shared -fPIC -nostdlib -Os -fno-asynchronous-unwind-tables -Wl,-z,noseparate-code \
		-o "$tmp/py.so" "$tmp/py.c"
	strip --strip-unneeded "$tmp/py.so"
	{ printf "\\x$2"; cat "$tmp/py.so"; } >"$out/pybuild/$1"
}

elf py312 00 'char _PyRuntime[1024] = {1}; const uint32_t Py_Version = 0x030c01f0;'
elf py310-named 01 'char _PyRuntime[1024] = {1};'
elf py313t 02 'char _PyRuntime[1024] = {1}; const uint32_t Py_Version = 0x030d00f0;'
elf not-python 00 'char PyRuntime[64] = {1};'
# _Py_DebugOffsets: cookie, version, free_threaded; runtime (size, finalizing, interp head);
# interpreter (size, id, next, threads head; 3.14 one more); thread state (size, prev 0, next
# 8, interp 16, current_frame, thread_id, native_thread_id, 2 more); frame (size, previous,
# executable, instr_ptr, localsplus, owner; 3.14 one more); code (size, filename, name,
# qualname, linetable, firstlineno, argcount, localsplusnames, localspluskinds,
# co_code_adaptive). The words after the cookie, in C (designators allowed).
dbg() { # $1: version, $2: the words after the cookie
	printf '#define VER %sull\n' "$1"
	printf 'const uint32_t Py_Version = %s;\n' "$1"
	printf 'struct rt { char cookie[8]; uint64_t w[95]; } _PyRuntime = {"xdebugpy", {\n'
	printf '%s\n' "$2"
	printf '}};\n'
}
words313='VER, 0, 1024, 8, 40, 4096, 0, 8, 72, 400, 0, 8, 16, 72, 152, 160, 168, 176,
	80, 0, 8, 56, 72, 70, 200, 112, 120, 128, 136, 68, 72, 80, 88, 192'
words314='VER, 0, 1024, 8, 40, 4096, 0, 8, 72, 9, 400, 0, 8, 16, 72, 152, 160, 168, 176,
	88, 0, 8, 56, 72, 70, 80, 200, 112, 120, 128, 136, 68, 72, 80, 88, 192'
# a thread state section in the last four of the 96 words read: its fields lie past them
words_end='VER, 0, 1024, 8, 40, 4096, 0, 8, 72, [91] = 400, 0, 8, 16'
elf py313-debug 00 "$(dbg 0x030d00f0 "$words313")"
elf py314-debug 00 "$(dbg 0x030e00f0 "$words314")"
elf py313-thread-at-end 00 "$(dbg 0x030d00f0 "$words_end")"

python3 - "$out/pyresolve" <<'EOF'
import struct, sys
out = sys.argv[1]
BASE, CODE_TYPE = 0x7F0000001000, 0x5000

# object_type, filename, name, qualname, linetable, firstlineno, bytes_size, bytes_data,
# str_length, str_state, str_ascii_size, str_compact_size
L312 = [8, 112, 120, 128, 136, 68, 16, 32, 16, 32, 40, 56]
L310 = [8, 104, 112, 0, 120, 40, 16, 32, 16, 32, 48, 72]
T311 = bytes([0x80 | 13 << 3, 0x00, 0x80 | 0 << 3 | 1, 0x12, 0x80 | 11 << 3, 4, 7,
              0x80 | 15 << 3, 0x80 | 14 << 3, 0x58, 0x09, 0x00, 0x01, 0x41, 0x00,
              0x80 | 13 << 3 | 2, 0x5B, 0x09, 0x80 | 9 << 3 | 7, 0x00])
T310 = bytes([6, 1, 8, 2, 4, 0xFF, 10, 0x80, 2, 3])

def seed(name, v310, L, lasti, img, code=0x100):
    head = bytes([1 if v310 else 0]) + b"".join(struct.pack("<H", x) for x in L)
    head += struct.pack("<IH", lasti, code)
    open(f"{out}/{name}", "wb").write(head + bytes(img))

def put(img, at, data):
    img[at:at + len(data)] = data

def string(img, L, at, text, kind=1):
    ascii_ = kind == 1 and all(ord(c) < 128 for c in text)
    state = kind << 2 | 1 << 5 | (1 << 6 if ascii_ else 0)
    put(img, at + L[8], struct.pack("<Q", len(text)))
    put(img, at + L[9], struct.pack("<I", state))
    enc = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind]
    put(img, at + (L[10] if ascii_ else L[11]), text.encode(enc))

def image(L, table, first, fname, func, kind=1, typ=CODE_TYPE):
    img = bytearray(0x800)
    code = 0x100
    put(img, code + L[0], struct.pack("<Q", typ))
    put(img, code + L[1], struct.pack("<Q", BASE + 0x400))
    put(img, code + (L[3] or L[2]), struct.pack("<Q", BASE + 0x500))
    put(img, code + L[4], struct.pack("<Q", BASE + 0x600))
    put(img, code + L[5], struct.pack("<i", first))
    string(img, L, 0x400, fname, kind)
    string(img, L, 0x500, func)
    put(img, 0x600 + L[6], struct.pack("<Q", len(table)))
    put(img, 0x600 + L[7], table)
    return img

seed("py312", 0, L312, 5, image(L312, T311, 10, "/app/train.py", "Model.forward"))
seed("py312-unknown-line", 0, L312, 4, image(L312, T311, 10, "a.py", "f"))
seed("py310", 1, L310, 3, image(L310, T310, 7, "/usr/lib/python3.10/json/decoder.py", "decode"))
seed("py312-ucs2", 0, L312, 2, image(L312, T311, 1, "/données/étape.py", "f", kind=2))
seed("py312-not-code", 0, L312, 0, image(L312, T311, 1, "a.py", "f", typ=0x6000))
EOF
