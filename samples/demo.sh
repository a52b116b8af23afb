#!/usr/bin/env bash
# The README's first command (`make demo`): record a bundled sample and show the result.
# Without a GPU the sample runs on the simulator (samples/sim), labelled as such.
# Recording needs root: as root this runs gpurec directly (sudo need not exist); run by a user it
# records with sudo, which runs the sample as that user and gives them the trace.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
GPUREC=${GPUREC:-$PWD/gpurec}
as_root=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "demo: recording loads BPF programs: run make demo as root (sudo is not installed)" >&2
		exit 1
	fi
	as_root=(sudo)
fi
trace=${DEMO_TRACE:-/tmp/gpurec-demo.trc}
if [ -e /dev/nvidia0 ] || [ -e /proc/driver/nvidia/version ]; then
	echo "== recording samples/chain on this machine's GPU"
	runner=()
else
	echo "== no GPU here: recording samples/chain on the GPU simulator (samples/sim, not a real device)"
	runner=(env "LD_LIBRARY_PATH=$PWD/$O/samples/sim")
fi
"${as_root[@]}" "$GPUREC" record -o "$trace" -- "${runner[@]}" "$O/samples/chain" 200
echo
"$GPUREC" report "$trace"
