#!/usr/bin/env bash
# The Python package on the GPU: correctness matrix, both layouts,
# torch.compile(fullgraph=True), CUDA-graph replay, the transformers backend,
# and timings. Two steps on two machines:
#
#   bash scripts/gpu-python-check.sh aot    # here (compiler machine): builds the
#       native module and compiles the kernels the GPU tests use into
#       build/aot-gpu-tests (python_bindings/tests/gpu/cases.py lists them)
#   bash scripts/gpu-python-check.sh gpu    # on the GPU machine, with
#       build/aot-gpu-tests (and build/gpu-pylib, pytest for a machine
#       without it) carried along: pytest python_bindings/tests/gpu,
#       the torch CPU tests, and tools/timings.py; results in $OUT (default
#       build/gpu-python-out): pytest logs and JUnit XML, python-timings.json
#
# The GPU machine needs torch, cuda-python and transformers, not MLIR, the
# compiler or network access. Exit status: non-zero if any test failed.
#
#   bash scripts/gpu-python-check.sh dry-run   # the GPU tests on a CPU, with
#       the fp32 reference in the kernels' place (needs torch, transformers)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${FA_BUILD_DIR:-$ROOT/build}"
KERNELS="${FA_GPU_TEST_KERNELS:-$BUILD_DIR/aot-gpu-tests}"
PYLIB="$BUILD_DIR/gpu-pylib"

case "${1:-}" in
aot)
  set -e
  "$ROOT/scripts/ensure-build.sh"
  cmake --build "$BUILD_DIR" --target _fa_mlir_compiler
  FA_MLIR_NATIVE_DIR="$BUILD_DIR/python_packages" \
    python3 "$ROOT/python_bindings/tests/gpu/aot_kernels.py" --out "$KERNELS"
  # pytest for a GPU machine that lacks it and cannot reach PyPI (pure
  # Python; used there only when `import pytest` fails).
  if [[ ! -d "$PYLIB/pytest" ]]; then
    python3 -m pip install -q --no-compile --target "$PYLIB" "pytest==9.2.0"
  fi
  echo "next, on the GPU machine: bash scripts/gpu-python-check.sh gpu" \
       "(carry ${KERNELS#$ROOT/} and ${PYLIB#$ROOT/})"
  ;;
gpu)
  OUT="${OUT:-$BUILD_DIR/gpu-python-out}"
  mkdir -p "$OUT"
  if [[ ! -f "$KERNELS/index.json" ]]; then
    echo "error: no $KERNELS/index.json: run 'bash scripts/gpu-python-check.sh aot' on the" \
         "compiler machine and carry the directory" >&2
    exit 2
  fi
  export FA_MLIR_KERNEL_DIR="$KERNELS"
  export PYTHONPATH="$ROOT/python_bindings${PYTHONPATH:+:$PYTHONPATH}"
  if ! python3 -c 'import pytest' 2>/dev/null; then
    if [[ ! -d "$PYLIB/pytest" ]]; then
      echo "error: no pytest here and no $PYLIB (made by the aot step)" >&2
      exit 2
    fi
    export PYTHONPATH="$PYTHONPATH:$PYLIB"
  fi
  cd "$ROOT"
  python3 - <<'PY' 2>&1 | tee "$OUT/environment.txt"
import platform, torch, transformers
from cuda import bindings
print("python", platform.python_version(), "torch", torch.__version__, "transformers",
      transformers.__version__, "cuda-python", bindings.__version__)
print("device", torch.cuda.get_device_name() if torch.cuda.is_available() else "none")
PY
  status=0
  # The GPU tests (a failure still lets the rest run).
  timeout 360 python3 -m pytest -q -p no:cacheprovider -rs --durations=15 \
      --junitxml="$OUT/pytest-gpu.xml" python_bindings/tests/gpu 2>&1 \
    | tee "$OUT/pytest-gpu.log" || status=1
  # The CPU tests that need torch (the reference in the kernel's place).
  timeout 90 python3 -m pytest -q -p no:cacheprovider python_bindings/tests/test_torch_mock.py \
      python_bindings/tests/test_transformers_mock.py \
      python_bindings/tests/test_plan.py python_bindings/tests/test_spec.py \
      python_bindings/tests/test_launch_params.py python_bindings/tests/test_import.py 2>&1 \
    | tee "$OUT/pytest-torch-cpu.log" || status=1
  timeout 120 python3 python_bindings/tools/timings.py gpu --json "$OUT/python-timings.json" \
      2>&1 | tee "$OUT/timings.log" || status=1
  echo "results in $OUT (exit $status)"
  exit "$status"
  ;;
dry-run)
  # The GPU tests on this machine's CPU, the fp32 reference standing in for
  # the kernels: checks the tests and everything around the launch (needs
  # torch and transformers here; no GPU, no kernels).
  cd "$ROOT"
  FA_MLIR_GPU_TESTS_DRY_RUN=1 PYTHONPATH="$ROOT/python_bindings" \
    python3 -m pytest -q -p no:cacheprovider -rs python_bindings/tests/gpu
  ;;
*)
  echo "usage: $0 aot|gpu|dry-run" >&2
  exit 2
  ;;
esac
