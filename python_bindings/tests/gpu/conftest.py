"""GPU tests: run where torch, cuda-python and a CUDA GPU are; skipped
elsewhere (each module imports torch with pytest.importorskip, and every
test is marked skip without a GPU).

Kernels come from FA_MLIR_KERNEL_DIR (scripts/gpu-python-check.sh compiles
them with aot_kernels.py on the compiler machine), or from the compiler
when it is importable here.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(os.path.dirname(HERE))
for path in (PACKAGE_ROOT, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)


import cases  # noqa: E402


def _missing():
    if cases.DRY_RUN:
        return None
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError:
        return "cuda-python is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU"
    return None


MISSING = _missing()


def pytest_collection_modifyitems(config, items):
    if MISSING:
        for item in items:
            if str(item.fspath).startswith(HERE):
                item.add_marker(pytest.mark.skip(reason=MISSING))


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch):
    """Overrides the CPU tests' fixture (the kernel directory stays); in a
    dry run, puts the reference in the kernels' place."""
    if cases.DRY_RUN:
        from fa_mlir.reference import use_reference_kernels
        use_reference_kernels(monkeypatch)
    yield


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda_only: needs a real GPU (skipped in a dry run)")


def pytest_runtest_setup(item):
    if cases.DRY_RUN and item.get_closest_marker("cuda_only"):
        pytest.skip("needs a real GPU (dry run)")
