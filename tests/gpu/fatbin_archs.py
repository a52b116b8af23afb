#!/usr/bin/env python3
"""What GPU code a CUDA binary embeds, one line per fatbin entry ("cubin sm_90", "ptx sm_90"):
the kit checks that its samples run on an H100 without JIT compilation. cuobjdump does this but
is not in every toolkit install; this reads the .nv_fatbin section (objcopy) directly."""
import os
import struct
import subprocess
import sys
import tempfile

FATBIN_MAGIC = 0xBA55ED50


def entries(data):
    off = 0
    while off + 16 <= len(data):
        magic, _, header, size = struct.unpack_from("<IHHQ", data, off)
        if magic != FATBIN_MAGIC:
            break
        p, end = off + header, off + header + size
        while p + 32 <= end:
            kind, _, ehead, esize = struct.unpack_from("<HHIQ", data, p)
            arch = struct.unpack_from("<I", data, p + 28)[0]
            yield {1: "ptx", 2: "cubin"}.get(kind, f"kind{kind}"), f"sm_{arch}"
            p += ehead + esize
        off = end


def main(path):
    with tempfile.TemporaryDirectory() as tmp:
        sec = os.path.join(tmp, "fatbin")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", path, sec],
                       check=True)
        with open(sec, "rb") as f:
            data = f.read()
    for e in sorted(set(entries(data))):
        print(*e)


if __name__ == "__main__":
    main(sys.argv[1])
