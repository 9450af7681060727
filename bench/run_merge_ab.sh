#!/usr/bin/env bash
# Split-KV's merge kernel, one build against another, on the GPU machine
# (docs/performance.md, "the merge in column tiles"): decode steps (d = 128,
# bf16, causal) with the run-time-count kernels of each build at the same
# split counts, interleaved with SDPA FLASH and cuDNN (bench_decode.py).
#
# Compiler machine first, one directory per build (here: before and after):
#   compile_kernels.py --head-dims 128 --dtypes bf16 --causal yes --heads 32x4 32x8 \
#     --q-len 1 --options "splits=0 [merge-dv=C]" --out ../build/splitbench/<name>
# GPU machine:  RUNTIMES="old=../build/splitbench/decode-rt new=..." bash bench/run_merge_ab.sh
# Per shape "B HqxHkv counts Nk...": the counts that make sense there (the
# GPU holds about 2 x 132 of these one-warp thread blocks).
set -uo pipefail
cd "$(dirname "$0")"
OUT="${OUT:-/tmp/merge-ab-out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
RUNTIMES=${RUNTIMES:?"NAME=DIR of each build"}
SHAPES=${SHAPES:-"1 32x4 4,8,16,32,64 1024 8192 32768 131072|1 32x8 4,8,16,32,64 1024 8192 32768 131072|8 32x4 2,4,8,16 1024 8192 32768 131072|16 32x8 1,2,4,8 1024 8192 32768|32 32x4 1,2,4,8 1024 8192 32768|64 32x8 1,2,4 1024 8192"}
runtime_args=()
for r in $RUNTIMES; do runtime_args+=(--runtime "$r"); done
IFS='|' read -ra shapes <<< "$SHAPES"
for shape in "${shapes[@]}"; do
  set -- $shape
  b=$1 h=$2 counts=${3//,/ }; shift 3
  python3 bench_decode.py --kernels ../build/splitbench/decode-kv1 --batch "$b" --heads "$h" \
      --keys "$@" --repeats 3 "${runtime_args[@]}" --runtime-counts $counts \
      --json "$OUT/merge-ab-b$b-h$h.json" 2>&1 | tee -a "$OUT/merge-ab.log"
done
