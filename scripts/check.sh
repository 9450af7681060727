#!/usr/bin/env bash
# README command (2): install what is missing, build, and run every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/ensure-build.sh"
BUILD_DIR="${FA_BUILD_DIR:-$ROOT/build}"
cmake --build "$BUILD_DIR" --target check-fa
# The Python package (python_bindings/): compiler API, stages, diagnostics,
# kernel cache and AOT directories, launch plans. Tests that need torch or a
# GPU are skipped here (tests/gpu/, run by scripts/gpu-python-check.sh).
echo "== python_bindings tests"
FA_BUILD_DIR="$BUILD_DIR" FA_MLIR_REQUIRE_NATIVE=1 \
  python3 -m pytest -q -p no:cacheprovider "$ROOT/python_bindings/tests"
