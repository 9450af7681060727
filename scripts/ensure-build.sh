#!/usr/bin/env bash
# Installs what is missing (Debian's LLVM/MLIR 22 packages, ninja, cmake, a C++
# compiler, python3), then configures and builds fa-mlir into ./build
# ($FA_BUILD_DIR if set; $FA_CMAKE_ARGS are added to the first configure).
# Sourced or run by compile-examples.sh and check.sh; safe to run again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${FA_BUILD_DIR:-$ROOT/build}"
LLVM_PREFIX=/usr/lib/llvm-22

PACKAGES=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools ninja-build cmake g++ python3)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  echo "== configuring $BUILD_DIR"
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DPython3_EXECUTABLE="$(command -v python3)" \
    ${FA_CMAKE_ARGS:-}
fi

echo "== building"
cmake --build "$BUILD_DIR"
