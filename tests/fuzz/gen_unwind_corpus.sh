#!/usr/bin/env bash
# Writes the seed corpus of fuzz_unwind (tests/fuzz/corpus/unwind), in the input format that
# tests/fuzz/fuzz_unwind.c describes: the real sample whole, cut, at an entry, with a fresh
# session, with few frames or none, for no thread and for a process nobody mapped; the sample
# with flipped stack bytes and registers; raw stacks of relocated words (a frame chain that loops
# onto itself, return addresses into the sampled function forever, an ip inside libc).
# Not part of the build; run it again when the input format changes:
#
#   tests/fuzz/gen_unwind_corpus.sh tests/fuzz/corpus/unwind
set -eu
out=${1:?usage: gen_unwind_corpus.sh DIR}
mkdir -p "$out"
python3 - "$out" <<'EOF'
import struct, sys
out = sys.argv[1]
ENTRY, RAW, FRESH, NOPROC = 1, 2, 4, 8

def tag(base, off=0):
    return 0xa5a5 << 48 | base << 40 | off

def seed(name, flags, max_frames, size, tid=1, regs=(0,) * 8, body=b""):
    hdr = struct.pack("<BBHI8Q", flags, max_frames, size, tid, *regs)
    open(f"{out}/{name}", "wb").write(hdr + body)

SP, EXE, LIBC, IP = 0, 1, 2, 3
sample = (0,) * 8
seed("sample", 0, 64, 0xffff)
seed("sample-entry", ENTRY, 64, 0xffff)
seed("sample-fresh", FRESH, 64, 0xffff)
seed("sample-2-frames", 0, 2, 0xffff)
seed("sample-no-frames", 0, 0, 0xffff)
seed("sample-no-thread", 0, 64, 0xffff, tid=0)
seed("sample-no-process", NOPROC, 64, 0xffff)
seed("sample-8-bytes", 0, 64, 8)
seed("sample-no-bytes", 0, 64, 0)
seed("sample-flipped-bytes", 0, 64, 0xffff, body=bytes([0, 0, 0, 0, 0, 0, 0, 0x40] * 8))
seed("sample-ip-in-libc", 0, 64, 0xffff, regs=(tag(LIBC, 0x30000),) + (0,) * 7)
seed("sample-sp-moved", 0, 64, 0xffff, regs=(0, tag(SP, 0x18)) + (0,) * 6)
# raw: ip at the sampled point, sp at the sample's; every word points back at the stack's start
loop = struct.pack("<Q", tag(SP)) * 64
seed("raw-fp-loop", RAW, 64, 0xffff, regs=(tag(IP), tag(SP), tag(SP)) + (0,) * 5, body=loop)
# raw: every word a return address into the sampled function
again = struct.pack("<Q", tag(IP, 5)) * 256
seed("raw-same-caller", RAW, 64, 0xffff, regs=(tag(IP), tag(SP), tag(SP, 64)) + (0,) * 5,
     body=again)
seed("raw-libc", RAW | ENTRY, 64, 0xffff,
     regs=(tag(LIBC, 0x28000), tag(SP), 0, 0, 0, 0, 0, 0),
     body=struct.pack("<4Q", tag(LIBC, 0x29000), tag(EXE, 0x1000), 0, tag(SP, 8)))
seed("raw-garbage", RAW, 64, 0xffff, regs=(0xdeadbeef, 0x7ffd0000, 1, 2, 3, 4, 5, 6),
     body=bytes(range(256)))
EOF
ls -l "$out"
