#!/usr/bin/env bash
# Split-KV on the GPU machine, in one call (docs/gpu-correctness.md and
# docs/performance.md, "Split-KV"): correctness of the split kernels against
# an fp32 reference, compute-sanitizer on a subset, then decode steps at
# several split counts side by side with SDPA FLASH and cuDNN.
#
# Compiler machine first (kernels into build/, carried along):
#   cd bench && PYTHONPATH=. python3 -c 'import configs, compile_kernels as ck, os
#   os.makedirs("../build/kernels-split", exist_ok=True)
#   [ck.compile_one("../build/bin/fa-opt", "../build/kernels-split", c)
#    for c in {configs.kernel_name(c): c for c, _ in configs.split_kv_cases()}.values()]'
#   for s in 1 2 4 8 16 32; do compile_kernels.py --head-dims 128 --dtypes bf16 \
#     --causal yes --heads 32x4 32x8 --q-len 1 [--options splits=$s] --out ../build/decode-kv$s; done
#   compile_kernels.py --head-dims 128 --dtypes bf16 --causal yes --heads 32x4 32x8 \
#     --q-len 1 --options splits=0 --out ../build/decode-rt     # the run-time count
# GPU machine:  bash bench/run_split_kv.sh [check|bench|sweep]   (results under
# $OUT; no argument: check and bench). bench: the kernels compiled for each
# count against the run-time-count kernel at the same counts (rt<S>), SDPA
# FLASH and cuDNN, interleaved; sweep: the run-time kernel at every count
# of COUNTS (what runtime/splits.py's rule is fitted to).
set -uo pipefail
cd "$(dirname "$0")"
OUT="${OUT:-/tmp/split-kv-out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
status=0
phase="${1:-all}"
if [[ $phase != bench ]]; then
python3 check_gpu.py --kernels ../build/kernels-split --only _kv \
    --json "$OUT/check-split.json" 2>&1 | tee "$OUT/check-split.log" | tail -3 || status=1
compute-sanitizer --tool memcheck --kernel-name kns=fa_d --error-exitcode 9 \
    python3 check_gpu.py --kernels ../build/kernels-split --only _kv --max-seqlen 1000 \
    > "$OUT/memcheck.log" 2>&1; echo "memcheck exit $?"; tail -3 "$OUT/memcheck.log"
compute-sanitizer --tool racecheck --racecheck-report hazard --kernel-name kns=fa_d \
    --error-exitcode 9 python3 check_gpu.py --kernels ../build/kernels-split --only _kv \
    --max-seqlen 300 > "$OUT/racecheck.log" 2>&1; echo "racecheck exit $?"; tail -3 "$OUT/racecheck.log"
fi
# "B HqxHkv [Nk ...]" per shape (default Nk: $KEYS; K/V of 2^31 elements or
# more do not fit the kernels' 32-bit indices).
SHAPES=${SHAPES:-"1 32x4|8 32x4|32 32x4 1024 8192 32768|1 32x8|16 32x8 1024 8192 32768|64 32x8 1024 8192"}
KEYS=${KEYS:-"1024 8192 32768 131072"}
if [[ $phase == all || $phase == bench ]]; then
variants="kv2=../build/decode-kv2 kv4=../build/decode-kv4 kv8=../build/decode-kv8 kv16=../build/decode-kv16 kv32=../build/decode-kv32"
IFS='|' read -ra shapes <<< "$SHAPES"
for shape in "${shapes[@]}"; do
  set -- $shape
  b=$1 h=$2; shift 2; keys=${*:-$KEYS}
  python3 bench_decode.py --kernels ../build/decode-kv1 --variants $variants --batch "$b" \
      --heads "$h" --keys $keys --repeats 5 --runtime ../build/decode-rt \
      --runtime-counts 2 4 8 16 32 --json "$OUT/decode-b$b-h$h.json" \
      2>&1 | tee -a "$OUT/decode.log"
done
fi
if [[ $phase == sweep ]]; then
IFS='|' read -ra shapes <<< "$SHAPES"
for shape in "${shapes[@]}"; do
  set -- $shape
  b=$1 h=$2; shift 2; keys=${*:-$KEYS}
  python3 bench_decode.py --kernels ../build/decode-kv1 --batch "$b" --heads "$h" --keys $keys \
      --repeats 3 --runtime ../build/decode-rt --runtime-counts ${COUNTS:-2 3 4 6 8 12 16 24 32 48 64} \
      --json "$OUT/sweep-b$b-h$h.json" 2>&1 | tee -a "$OUT/sweep.log"
done
fi
exit $status
