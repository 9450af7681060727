#!/usr/bin/env bash
# README command (1): install what is missing, build, and run the main job on
# examples/: compile every example and print a summary.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/ensure-build.sh"
BUILD_DIR="${FA_BUILD_DIR:-$ROOT/build}"

for example in "$ROOT"/examples/*.mlir; do
  echo
  echo "== $(basename "$example"): fa.attention after --fa-decompose-naive"
  "$BUILD_DIR/bin/fa-opt" "$example" --fa-decompose-naive
done
