#!/usr/bin/env bash
# The README's first command (`sudo make demo`): record a bundled sample and show the result.
# Without a GPU the sample runs on the simulator (samples/sim), labelled as such.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
trace=${DEMO_TRACE:-/tmp/gpurec-demo.trc}
if [ -e /dev/nvidia0 ] || [ -e /proc/driver/nvidia/version ]; then
	echo "== recording samples/chain on this machine's GPU"
	runner=()
else
	echo "== no GPU here: recording samples/chain on the GPU simulator (samples/sim, not a real device)"
	runner=(env "LD_LIBRARY_PATH=$PWD/$O/samples/sim")
fi
./gpurec record -o "$trace" -- "${runner[@]}" "$O/samples/chain" 200
echo
./gpurec report "$trace"
