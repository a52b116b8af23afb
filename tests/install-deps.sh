#!/usr/bin/env bash
# Installs the Debian packages gpurec needs to build and test, when they are missing.
# Used by `make deps`, the README's setup command and .ci/run.
set -eu
pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev libdw-dev libzstd-dev
zlib1g-dev python3 sudo passwd time libcap2-bin"
missing=()
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}; run as root (sudo make deps)" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
