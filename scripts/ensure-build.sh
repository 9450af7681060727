#!/usr/bin/env bash
# Installs what is missing (Debian's LLVM/MLIR 22 packages, ninja, cmake, a C++
# compiler, python3 with its headers, nanobind and pytest), then configures and
# builds fa-mlir, with the Python module, into ./build ($FA_BUILD_DIR if set;
# $FA_ENABLE_PYTHON=OFF leaves the module out, $FA_CMAKE_ARGS are added to the
# configure).
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

# The Python module (python_bindings/, FA_ENABLE_PYTHON) needs the Python
# headers and nanobind; check.sh runs its tests with pytest. Pinned versions,
# installed for the python3 on PATH only when missing (never torch: the CPU
# tests do without it).
PYTHON="$(command -v python3)"
if ! "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  echo "== installing: python3-dev"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-dev
fi
py_missing=()
"$PYTHON" -c 'import nanobind' 2>/dev/null || py_missing+=("nanobind==3.1.0")
"$PYTHON" -c 'import pytest' 2>/dev/null || py_missing+=("pytest==9.2.0")
# cuda-python's driver bindings (no GPU needed): the test that the runtime's
# packed kernel parameters equal cuda-python's own packing.
"$PYTHON" -c 'import cuda.bindings.driver' 2>/dev/null || py_missing+=("cuda-bindings==13.4.4")
if ((${#py_missing[@]})); then
  echo "== installing (pip): ${py_missing[*]}"
  if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-pip
  fi
  # Debian's own python3 refuses pip installs unless told (PEP 668).
  "$PYTHON" -m pip install -q "${py_missing[@]}" \
    || "$PYTHON" -m pip install -q --break-system-packages "${py_missing[@]}"
fi

ENABLE_PYTHON="${FA_ENABLE_PYTHON:-ON}"
if [[ ! -f "$BUILD_DIR/build.ninja" ]] \
   || ! grep -q "^FA_ENABLE_PYTHON:BOOL=$ENABLE_PYTHON\$" "$BUILD_DIR/CMakeCache.txt"; then
  echo "== configuring $BUILD_DIR"
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DPython3_EXECUTABLE="$PYTHON" \
    -DFA_ENABLE_PYTHON="$ENABLE_PYTHON" \
    ${FA_CMAKE_ARGS:-}
fi

echo "== building"
cmake --build "$BUILD_DIR"
