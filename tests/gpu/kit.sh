#!/usr/bin/env bash
# Builds the GPU kit (`make gpu-kit`): a directory and its tarball that run `make gpu-check` on a
# GPU host with no package registry and no build tools beyond make and python3.
#   kit.sh GPUREC_KIT_BINARY SAMPLES_DIR KIT_DIR [CUPTI_INJECTION_LIBRARY [NVTX_LIBRARY]]
# GPUREC_KIT_BINARY is gpurec linked with RPATH $ORIGIN/lib (the Makefile's gpu-kit link): an
# RPATH, not a RUNPATH, so the libraries' own dependencies are found there too, and nothing is
# set in the environment that the traced command would inherit. Every shared library it needs
# except glibc's own goes to lib/; the samples come with the libcudart.so.13 they link (cuda/).
set -eu
bin=$1 samples=$2 kit=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cudart=${CUDART:-$(readlink -f /usr/local/cuda/lib64/libcudart.so.13)}

rm -rf "$kit"
mkdir -p "$kit/lib" "$kit/cuda" "$kit/samples" "$kit/tests/gpu/fixtures"
cp "$bin" "$kit/gpurec"
# glibc's libraries stay the host's: they must match its dynamic loader
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
	grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv)\.so' | while read -r lib; do
	cp -L "$lib" "$kit/lib/"
done
cp -L "$cudart" "$kit/cuda/libcudart.so.13"
# record --cupti: the injection library beside gpurec (where gpurec looks for it), and the
# toolkit's libcupti beside that (its RUNPATH starts with $ORIGIN)
if [ -n "${4:-}" ]; then
	cp "$4" "$kit/"
	cp -L "${CUPTI_LIB:-/usr/local/cuda/lib64/libcupti.so.13}" "$kit/libcupti.so.13"
fi
# record's NVTX tool, beside gpurec where record looks for it (it needs glibc only)
[ -n "${5:-}" ] && cp "$5" "$kit/"
for s in chain chain_fused pageable pinned item item_free starved alone graph graph_eager; do
	archs=$(python3 "$here/fatbin_archs.py" "$samples/$s")
	echo "$archs" | grep -qx 'cubin sm_90' || { echo "kit.sh: $samples/$s has no sm_90 code" >&2; exit 1; }
	cp "$samples/$s" "$kit/samples/"
done
cp "$here"/*.sh "$here"/*.py "$here/README.md" "$kit/tests/gpu/"
cp "$here"/fixtures/* "$kit/tests/gpu/fixtures/"
rm -f "$kit/tests/gpu/kit.sh"
printf 'gpu-check:\n\t./tests/gpu/run.sh\n.PHONY: gpu-check\n' >"$kit/Makefile"
# what the host's glibc must provide: the newest symbol version anything carried asks for
glibc=$(objdump -T "$kit/gpurec" "$kit"/lib/*.so* "$kit"/*.so* "$kit"/cuda/*.so* | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
{
	echo "gpurec GPU kit: $("$kit/gpurec" --version)"
	echo "built on: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -r), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "needs: x86-64 Linux with glibc >= ${glibc#GLIBC_}, an NVIDIA driver for CUDA 13, python3 with torch"
	echo "carried libraries: $(cd "$kit/lib" && echo *)"
	echo "run: make gpu-check   (or ./tests/gpu/run.sh; see tests/gpu/README.md)"
} >"$kit/MANIFEST"
tar -C "$(dirname "$kit")" -czf "$kit.tar.gz" "$(basename "$kit")"
echo "gpu-kit: $kit.tar.gz ($(du -k "$kit.tar.gz" | cut -f1) KiB)"
