# The GPU kit (tests/gpu/README.md) without a GPU: what can be checked here. The kit built by
# `make gpu-kit` unpacks into a fresh directory and its gpurec runs there with an empty
# environment, on the libraries it carries; run.sh refuses on a machine without a driver;
# compare.py passes its fixture tests; samples_check.py's expectations hold on recordings of the
# samples (simulator and real runtime), and fail on a wrong step count; every script compiles.
# Nothing here runs on a GPU. Needs root (BPF).
. "$(dirname "$0")/lib.sh"
need_root "gpu_kit.sh"
SAMPLES=${SAMPLES:-$PWD/$O/samples}
KIT_TAR=$PWD/$O/gpurec-gpukit.tar.gz

for f in tests/gpu/*.py; do
	PYTHONPYCACHEPREFIX=$TMP/pyc python3 -m py_compile "$f" 2>"$TMP/pyc.err"
	check "$f compiles" "0 " "$? $(cat "$TMP/pyc.err")"
done
bash -n tests/gpu/run.sh
check "run.sh parses" 0 $?

# compare.py against its hand-written fixtures (TAP lines of their own)
tap test_compare.py python3 tests/gpu/test_compare.py

# --- run.sh refuses without a GPU ---
PATH=/usr/bin:/bin GPUREC=$GPUREC bash tests/gpu/run.sh >"$TMP/refuse.out" 2>&1
check "run.sh without nvidia-smi: exit 2" 2 $?
check "run.sh without nvidia-smi: says why, and that nothing ran" \
	"gpu-check: no NVIDIA driver here: nvidia-smi not found
gpu-check: nothing was run; this check needs a machine with an NVIDIA GPU and its driver" \
	"$(cat "$TMP/refuse.out")"
# an nvidia-smi that answers, on a machine with no libcuda.so.1: gpurec check finds no driver
mkdir "$TMP/bin"
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 580.65.06"\n' >"$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/nvidia-smi"
PATH=$TMP/bin:$PATH GPUREC=$GPUREC OUT=$TMP/never bash tests/gpu/run.sh >"$TMP/refuse2.out" 2>&1
check "run.sh, nvidia-smi but no driver: exit 2, gpurec check's finding, no results" \
	"2 1 1 no" \
	"$? $(grep -c '^gpu-check: gpurec check finds no CUDA driver (libcuda.so.1)$' "$TMP/refuse2.out") $(grep -c '^\[warn\] CUDA driver\|^  \[warn\] CUDA driver' "$TMP/refuse2.out") $([ -e "$TMP/never" ] && echo yes || echo no)"

# --- samples_check.py: the expectations the GPU run asserts, on recordings made here ---
for s in chain:4:sim graph:5:sim item:3:sim pageable:2:sim chain:3:real; do
	IFS=: read -r name steps rt <<<"$s"
	env=(env "LD_LIBRARY_PATH=$SAMPLES/sim")
	[ "$rt" = real ] && env=(env)
	"$GPUREC" record -o "$TMP/$name.$rt.trc" -- "${env[@]}" "$SAMPLES/$name" "$steps" >/dev/null 2>&1
	"$GPUREC" report --json --top 100 "$TMP/$name.$rt.trc" >"$TMP/$name.$rt.json"
	# (not in a pipeline: tap counts failures in this shell)
	tap "samples_check.py $name" python3 tests/gpu/samples_check.py "$name" "$steps" \
		"$TMP/$name.$rt.json" >"$TMP/samples_check.tap"
	sed "s/^\(\(not \)\{0,1\}ok - \)/\1$rt: /" "$TMP/samples_check.tap"
done
python3 tests/gpu/samples_check.py graph 6 "$TMP/graph.sim.json" >"$TMP/wrong.out"
check "samples_check: a recording of 5 steps checked as 6 fails, kernels and graph launches" \
	"1 3" "$? $(grep -c '^not ok' "$TMP/wrong.out")"

# compare.py's gpurec side on a real export: graph on the simulator, 5 steps, whole trace
"$GPUREC" export "$TMP/graph.sim.trc" -o "$TMP/graph.sqlite" >/dev/null 2>&1
check "compare.py counts graph launches' kernels in a real export: 10 x 5 of each" \
	"({'layer_act(float*, int)': 50, 'layer_bias(float*, int)': 50, 'layer_linear(float*, float const*, int)': 50, 'layer_norm(float*, int)': 50}, 0)" \
	"$(python3 -c 'import sqlite3,sys; sys.path.insert(0, "tests/gpu"); import compare
print(compare.gpurec_counts(sqlite3.connect(sys.argv[1])))' "$TMP/graph.sqlite")"

# summary.py on a results directory written here: step times whose medians the test sets
R=$TMP/results
mkdir "$R"
printf 'ok - chain: no CUDA call failed\nnot ok - graph: CUDA calls failed\n' >"$R/samples.tap"
echo '{"match": true, "mismatches": []}' >"$R/eager.counts.json"
times() { # COND ROUND STEP_TIMES...: a train.py --times file
	local c=$1 r=$2
	shift 2
	echo "{\"mode\": \"eager\", \"torch\": \"2.11.0\", \"cuda\": \"13.0\", \"device\": \"H100\", \"step_s\": [$(IFS=,; echo "$*")]}" >"$R/time.eager.$c.$r.json"
}
times plain 1 0.010 0.011 0.009; times plain 2 0.010 0.010 0.012
times gpurec 1 0.01005 0.01005 0.5; times gpurec 2 0.01005 0.01005 0.01005
times profiler 1 0.012 0.012 0.012; times profiler 2 0.011 0.013 0.012
python3 tests/gpu/summary.py "$R" --modes eager --conds "plain gpurec profiler" --rounds 2 >"$TMP/summary.out"
check "summary.py: exit 1 (a sample failed)" 1 $?
check "summary.py: medians of run medians, overheads, targets, the problem" \
	'[0.01, 0.01005, 0.012, 0.005, 0.2, true, true, ["samples: not ok - graph: CUDA calls failed"], 1]' \
	"$(json "$R/summary.json" '[round(d["overhead"]["eager"][c]["step_s"], 6) for c in ("plain", "gpurec", "profiler")] + [round(d["overhead"]["eager"][c]["overhead"], 6) for c in ("gpurec", "profiler")] + list(d["overhead"]["eager"]["targets"].values()) + [d["problems"], d["samples"]["passed"]]')"
times gpurec 1 0.0105 0.0105 0.0105; times gpurec 2 0.0105 0.0105 0.0105
python3 tests/gpu/summary.py "$R" --modes eager --conds "plain gpurec profiler" --rounds 2 >"$TMP/summary.out"
check "summary.py: gpurec 5% over (profiler 20%): both targets missed, said" 2 \
	"$(grep -c '^problem: eager: target missed: gpurec_at_most' "$TMP/summary.out")"

# --- the kit: unpacked in a fresh directory, run with an empty environment ---
if [ ! -f "$KIT_TAR" ]; then
	not_ok "no kit at $KIT_TAR (make gpu-kit)"
	exit 1
fi
mkdir "$TMP/fresh"
tar -C "$TMP/fresh" -xzf "$KIT_TAR"
KIT=$TMP/fresh/gpurec-gpukit
check "kit: gpurec --version, empty environment" "$("$GPUREC" --version)" \
	"$(env -i "$KIT/gpurec" --version 2>&1)"
env -i "$KIT/gpurec" check >"$TMP/kitcheck.out" 2>&1
check "kit: gpurec check runs, exit 0, can record" "0 1" \
	"$? $(grep -c '^gpurec can record on this machine' "$TMP/kitcheck.out")"
# every library that is not glibc's resolves inside the kit
env -i ldd "$KIT/gpurec" >"$TMP/ldd.out"
check "kit: non-glibc libraries all from the kit's lib/" \
	"$(ls "$KIT/lib" | wc -l) 0" \
	"$(grep -c "=> $KIT/lib/" "$TMP/ldd.out") $(grep '=> ' "$TMP/ldd.out" | grep -v "=> $KIT/lib/" | grep -cvE '/(libc|libm)\.so')"
# hosts with glibc 2.34 (RHEL 9) and 2.35 (Ubuntu 22.04) run PyTorch 2.11: nothing carried may
# ask for more (a carried libstdc++ of a Debian 12 build host asked for 2.36)
# (a sanitizer build's kit carries libasan, which asks for this host's glibc: not a kit to ship)
if ls "$KIT"/lib/libasan.so* >/dev/null 2>&1; then
	ok "kit: glibc need # SKIP a sanitizer build: its kit carries libasan"
else
	check "kit: MANIFEST's glibc need, and no symbol carried asks for newer than 2.34" "2.34 0" \
		"$(sed -n 's/^needs: .*glibc >= \([0-9.]*\),.*/\1/p' "$KIT/MANIFEST") $(objdump -T "$KIT/gpurec" "$KIT"/lib/*.so* "$KIT"/*.so* "$KIT"/cuda/*.so* | grep -o 'GLIBC_[0-9.]*' | sort -uV | sed 's/GLIBC_//' | awk -F. '$1 > 2 || ($1 == 2 && $2 > 34)' | wc -l)"
fi
check "kit: ten samples, each with sm_90 machine code" 10 \
	"$(for s in "$KIT"/samples/*; do python3 tests/gpu/fatbin_archs.py "$s"; done | grep -cx 'cubin sm_90')"
check "kit: the samples' libcudart, the scripts and fixtures are there" "yes" \
	"$([ -f "$KIT/cuda/libcudart.so.13" ] && [ -x "$KIT/tests/gpu/run.sh" ] && [ -f "$KIT/tests/gpu/fixtures/gpurec_window.sql" ] && [ -f "$KIT/Makefile" ] && echo yes)"
check "kit: the NVTX tool beside gpurec" 1 "$(ls "$KIT"/libgpurec_nvtx.so 2>/dev/null | wc -l)"
if [ -f "$PWD/$O/libgpurec_cupti.so" ] || [ -f "$PWD/libgpurec_cupti.so" ]; then
	check "kit: --cupti's injection library beside gpurec, its libcupti resolved in the kit" 1 \
		"$(env -i ldd "$KIT/libgpurec_cupti.so" | grep -c "libcupti.so.13 => $KIT/libcupti.so.13")"
fi
(cd "$TMP" && PYTHONPYCACHEPREFIX=$TMP/pyc python3 "$KIT/tests/gpu/test_compare.py" >"$TMP/kit_compare.out")
check "kit: its compare.py tests pass from the unpacked copy" "0 0" "$? $(grep -c '^not ok' "$TMP/kit_compare.out")"
(cd "$KIT" && PATH=/usr/bin:/bin make -s gpu-check >"$TMP/kit_refuse.out" 2>&1)
check "kit: make gpu-check refuses here (no nvidia-smi)" "1" \
	"$(grep -c '^gpu-check: no NVIDIA driver here: nvidia-smi not found$' "$TMP/kit_refuse.out")"

exit $((failures > 0))
