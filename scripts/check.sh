#!/usr/bin/env bash
# README command (2): install what is missing, build, and run every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/ensure-build.sh"
BUILD_DIR="${FA_BUILD_DIR:-$ROOT/build}"
cmake --build "$BUILD_DIR" --target check-fa
