#!/usr/bin/env bash
# Writes the seed corpus of fuzz_elf (tests/fuzz/corpus/elf): small real ELF files of each sort
# the recorder meets (a shared library with a build-id, aliases, C++ names; the same stripped to
# its dynamic symbols; a static executable with and without symbols, like a stripped /bin/true;
# relocatable objects of the test programs; a 32-bit object), then damaged copies (truncated,
# a symbol table claiming 2^63 bytes, a segment whose end wraps, a note with impossible sizes).
# Not part of the build; run it again when the recorder's ELF needs change:
#
#   tests/fuzz/gen_elf_corpus.sh tests/fuzz/corpus/elf
set -eu
out=${1:?usage: gen_elf_corpus.sh DIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
small=(-Os -fno-asynchronous-unwind-tables -Wl,-z,noseparate-code -Wl,--build-id)

cat >"$tmp/lib.c" <<'EOF'
int cudaLaunchKernel(const void *f, int n) { return n + (f != 0); }
int __cudaLaunchKernel(const void *f, int n) { return cudaLaunchKernel(f, n); }
int launch_alias(const void *f, int n) __attribute__((alias("cudaLaunchKernel")));
static int helper(int x) { return x * 3; }
int mangled(int x) __asm__("_ZN4cuda6launchEi");
int mangled(int x) { return helper(x) + 1; }
__asm__(".globl unsized\n.type unsized,@function\nunsized: ret\n");
EOF
gcc -shared -fPIC -nostdlib "${small[@]}" -o "$tmp/libtiny.so" "$tmp/lib.c"
cp "$tmp/libtiny.so" "$out/libtiny.so"
strip --strip-all -o "$out/libtiny-stripped.so" "$tmp/libtiny.so"

cat >"$tmp/start.c" <<'EOF'
void _start(void) { __asm__ volatile("mov $60, %eax\n xor %edi, %edi\n syscall"); }
int main(void) { return 0; }
EOF
gcc -static -nostdlib -no-pie "${small[@]}" -o "$tmp/static" "$tmp/start.c"
cp "$tmp/static" "$out/static-exe"
strip --strip-all -o "$out/static-exe-stripped" "$tmp/static"

gcc -Os -c -o "$out/late_loader.o" "$src/tests/progs/late_loader.c"
gcc -Os -c -o "$out/driver_launch.o" "$src/tests/progs/driver_launch.c"
gcc -m32 -Os -c -o "$out/lib32.o" "$tmp/lib.c"

head -c 64 "$tmp/libtiny.so" >"$out/libtiny-header-only.so"
head -c "$(($(stat -c %s "$tmp/libtiny.so") / 2))" "$tmp/libtiny.so" >"$out/libtiny-half.so"

# Damaged copies, edited through the section and program headers.
python3 - "$tmp/libtiny.so" "$out" <<'EOF'
import struct, sys
path, out = sys.argv[1], sys.argv[2]
img = open(path, "rb").read()
shoff, = struct.unpack_from("<Q", img, 0x28)
phoff, = struct.unpack_from("<Q", img, 0x20)
phnum, = struct.unpack_from("<H", img, 0x38)
shnum, shstrndx = struct.unpack_from("<HH", img, 0x3c)

def sections():
    for i in range(shnum):
        off = shoff + i * 64
        yield off, struct.unpack_from("<IIQQQQIIQQ", img, off)

def save(name, b):
    open(f"{out}/{name}", "wb").write(b)

b = bytearray(img)
for off, (name, typ, *_rest) in sections():
    if typ == 2:  # SHT_SYMTAB: sh_size 2^63
        struct.pack_into("<Q", b, off + 0x20, 1 << 63)
save("libtiny-symtab-2e63.so", b)

b = bytearray(img)
for i in range(phnum):
    off = phoff + i * 56
    if struct.unpack_from("<I", b, off)[0] == 1:  # PT_LOAD: p_filesz wraps
        struct.pack_into("<Q", b, off + 0x20, (1 << 64) - 1)
        break
save("libtiny-segment-wraps.so", b)

b = bytearray(img)
for i in range(phnum):
    off = phoff + i * 56
    if struct.unpack_from("<I", b, off)[0] == 4:  # PT_NOTE: namesz, descsz huge
        noff, = struct.unpack_from("<Q", b, off + 8)
        struct.pack_into("<II", b, noff, 0xfffffff0, 0xfffffff0)
save("libtiny-bad-note.so", b)

b = bytearray(img)
for off, (name, typ, *_rest) in sections():
    if typ in (2, 11):  # symbols: entry size 1, link to section 0
        struct.pack_into("<Q", b, off + 0x38, 1)
        struct.pack_into("<I", b, off + 0x28, 0)
save("libtiny-symtab-entsize-1.so", b)
EOF
ls -l "$out"
