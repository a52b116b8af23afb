#!/usr/bin/env bash
# The GPU validation kit (issue 15), what `make gpu-check` runs on a machine with an NVIDIA GPU,
# from the repository or from an unpacked `make gpu-kit`:
#  1. records every sample on the real runtime and checks its exact counts (samples_check.py);
#  2. records train.py in three modes (eager, torch.compile, reduce-overhead CUDA graphs) with
#     torch.profiler running around a window of steps, and compares their per-kernel executed
#     counts over that window (compare.py): every mismatch is printed with its kernel;
#  3. times train.py's steps unrecorded, under gpurec, under gpurec --cupti (when this gpurec
#     has it) and under torch.profiler, ROUNDS rounds interleaved, and prints overhead ratios;
#  4. writes $OUT/summary.json (summary.py).
# It refuses, exit status 2, on a machine without an NVIDIA driver or where gpurec cannot record.
# Environment: GPUREC, SAMPLES (sample binaries), CUDART_DIR (a libcudart.so.13 for the samples,
# the kit carries one), PYTHON (with torch), OUT (results directory), ROUNDS (3), STEPS (timed
# steps per run, 50), WINDOW (compared steps, 5), WARMUP (10), SAMPLE_STEPS (20), BUDGET_S (when
# set: no step-time round starts unless the last one's time is left of BUDGET_S seconds since
# the start, so a lease of fixed length still ends with a summary of the rounds done).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
if [ -x "$ROOT/build/samples/chain" ]; then default_samples=$ROOT/build/samples; else default_samples=$ROOT/samples; fi
GPUREC=${GPUREC:-$ROOT/gpurec}
SAMPLES=${SAMPLES:-$default_samples}
CUDART_DIR=${CUDART_DIR:-$ROOT/cuda}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-$PWD/gpu-check.$(date +%Y%m%d-%H%M%S)}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-50}
WINDOW=${WINDOW:-5}
WARMUP=${WARMUP:-10}
SAMPLE_STEPS=${SAMPLE_STEPS:-20}
BUDGET_S=${BUDGET_S:-}
MARKER=1000003

refuse() {
	echo "gpu-check: $*" >&2
	echo "gpu-check: nothing was run; this check needs a machine with an NVIDIA GPU and its driver" >&2
	exit 2
}

command -v nvidia-smi >/dev/null 2>&1 || refuse "no NVIDIA driver here: nvidia-smi not found"
gpus=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1) ||
	refuse "nvidia-smi fails: $(echo "$gpus" | head -1)"
[ -x "$GPUREC" ] || refuse "gpurec not found at $GPUREC (set GPUREC)"
if ! check=$("$GPUREC" check 2>&1); then
	echo "$check" >&2
	refuse "gpurec check says this machine cannot record"
fi
if echo "$check" | grep -q 'no CUDA driver'; then
	echo "$check" >&2
	refuse "gpurec check finds no CUDA driver (libcuda.so.1)"
fi
torch_ok=$("$PYTHON" -c 'import torch; print(torch.cuda.is_available())' 2>&1 | tail -1)
[ "$torch_ok" = True ] || refuse "$PYTHON has no PyTorch with CUDA: $torch_ok (set PYTHON)"

mkdir -p "$OUT" || exit 1
echo "gpu-check: $gpus; results in $OUT"
cudart_env=()
[ -e "$CUDART_DIR/libcudart.so.13" ] && cudart_env=("LD_LIBRARY_PATH=$CUDART_DIR")

# --- 1. samples on the real runtime: exact counts, and every CUDA call succeeded ---
echo "== samples ($SAMPLE_STEPS steps each)"
: >"$OUT/samples.tap"
for s in chain chain_fused pageable pinned item item_free starved alone graph graph_eager; do
	if ! "$GPUREC" record -o "$OUT/$s.trc" -- env "${cudart_env[@]}" "$SAMPLES/$s" "$SAMPLE_STEPS" \
		>"$OUT/$s.out" 2>&1; then
		echo "not ok - $s: record failed: $(tail -1 "$OUT/$s.out")" >>"$OUT/samples.tap"
		continue
	fi
	if grep -q "^$s: .* errors=0 " "$OUT/$s.out"; then
		echo "ok - $s: no CUDA call failed" >>"$OUT/samples.tap"
	else
		echo "not ok - $s: CUDA calls failed: $(grep "^$s: " "$OUT/$s.out")" >>"$OUT/samples.tap"
	fi
	"$GPUREC" report --json --top 100 "$OUT/$s.trc" >"$OUT/$s.json" 2>>"$OUT/$s.out" &&
		"$PYTHON" "$HERE/samples_check.py" "$s" "$SAMPLE_STEPS" "$OUT/$s.json" >>"$OUT/samples.tap"
done
grep '^not ok' "$OUT/samples.tap"
echo "  $(grep -c '^ok' "$OUT/samples.tap") ok, $(grep -c '^not ok' "$OUT/samples.tap") not ok"

# --- 2. per-kernel counts over a window, gpurec against torch.profiler ---
modes="eager compile graphs"
for m in $modes; do
	echo "== counts: $m ($WINDOW steps after $WARMUP)"
	if "$GPUREC" record -o "$OUT/$m.trc" -- "$PYTHON" "$HERE/train.py" --mode "$m" \
		--warmup "$WARMUP" --window "$WINDOW" --marker-bytes $MARKER \
		--profile-window "$OUT/$m.profiler.json" >"$OUT/$m.out" 2>&1 &&
		"$GPUREC" export "$OUT/$m.trc" -o "$OUT/$m.sqlite" >>"$OUT/$m.out" 2>&1; then
		"$PYTHON" "$HERE/compare.py" "$OUT/$m.sqlite" "$OUT/$m.profiler.json" \
			--marker-bytes $MARKER --json "$OUT/$m.counts.json" | sed 's/^/  /'
	else
		echo "  failed: $(tail -3 "$OUT/$m.out")"
	fi
done

# --- 3. step time: unrecorded, gpurec, gpurec --cupti, torch.profiler; rounds interleaved ---
conds="plain gpurec profiler"
"$GPUREC" record --help 2>&1 | grep -q -- '--cupti' && conds="plain gpurec cupti profiler"
echo "== step time: $ROUNDS rounds of $STEPS steps: $conds"
done_rounds=0 round_s=0
for r in $(seq "$ROUNDS"); do
	if [ -n "$BUDGET_S" ] && [ $((SECONDS + round_s)) -gt "$BUDGET_S" ]; then
		echo "  round $r not started: ${SECONDS} s of BUDGET_S=$BUDGET_S spent, a round takes ${round_s} s"
		break
	fi
	round_start=$SECONDS
	for m in $modes; do
		for c in $conds; do
			t="$OUT/time.$m.$c.$r.json"
			args=(--mode "$m" --warmup "$WARMUP" --steps "$STEPS" --times "$t")
			case $c in
			plain) cmd=("$PYTHON" "$HERE/train.py" "${args[@]}") ;;
			gpurec) cmd=("$GPUREC" record -o "$OUT/time.trc" -- "$PYTHON" "$HERE/train.py" "${args[@]}") ;;
			cupti) cmd=("$GPUREC" record --cupti -o "$OUT/time.trc" -- "$PYTHON" "$HERE/train.py" "${args[@]}") ;;
			profiler) cmd=("$PYTHON" "$HERE/train.py" "${args[@]}" --profile-all) ;;
			esac
			"${cmd[@]}" >"$OUT/time.$m.$c.$r.out" 2>&1 || echo "  $m $c round $r failed: $(tail -1 "$OUT/time.$m.$c.$r.out")"
		done
	done
	done_rounds=$r round_s=$((SECONDS - round_start))
done
rm -f "$OUT/time.trc" "$OUT/time.trc.old"

# --- 4. the summary ---
"$PYTHON" "$HERE/summary.py" "$OUT" --gpurec "$("$GPUREC" --version 2>&1)" --gpus "$gpus" \
	--modes "$modes" --conds "$conds" --rounds "$done_rounds"
