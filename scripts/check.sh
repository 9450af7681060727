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

# The same suite on a build with AddressSanitizer and UndefinedBehaviorSanitizer
# (docs/reliability.md); FA_SKIP_SANITIZERS=1 skips it for a quick local run.
if [[ "${FA_SKIP_SANITIZERS:-0}" != 1 ]]; then
  ASAN_DIR="${FA_ASAN_BUILD_DIR:-$ROOT/build-asan}"
  FA_BUILD_DIR="$ASAN_DIR" FA_ENABLE_PYTHON=OFF FA_CMAKE_ARGS="-DFA_ENABLE_SANITIZERS=ON" "$ROOT/scripts/ensure-build.sh"
  cmake --build "$ASAN_DIR" --target check-fa
fi
