#!/usr/bin/env bash
# README command (1): install what is missing, build, and run the main job:
# compile every attention in examples/ to PTX for sm_80 (with its launch
# record) and print a summary per kernel. --fa-linalg-to-ptx is --fa-to-ptx
# after --fa-raise-attention, so examples written as unfused linalg compile
# too.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/ensure-build.sh"
BUILD_DIR="${FA_BUILD_DIR:-$ROOT/build}"
OUT_DIR="$BUILD_DIR/examples"
rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

for example in "$ROOT"/examples/*.mlir; do
  start=$(date +%s%N)
  "$BUILD_DIR/bin/fa-opt" "$example" --fa-linalg-to-ptx="chip=sm_80 output-dir=$OUT_DIR" -o /dev/null
  echo "== $(basename "$example"): compiled in $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
echo
echo "== kernels written to $OUT_DIR (<kernel>.ptx + <kernel>.json)"
python3 "$ROOT/scripts/summarize-kernels.py" "$OUT_DIR"
