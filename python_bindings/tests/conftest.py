"""pytest set-up for the CPU tests (tests/gpu/ has its own conftest).

The package is used from the source tree (python_bindings/ on sys.path);
the native module from the build tree (FA_BUILD_DIR, default build/), unless
the package is installed with it. The disk cache goes to a temporary
directory, never ~/.cache.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
REPO_ROOT = os.path.dirname(PACKAGE_ROOT)
BUILD_DIR = os.environ.get("FA_BUILD_DIR", os.path.join(REPO_ROOT, "build"))

if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)
os.environ.setdefault("FA_MLIR_NATIVE_DIR", os.path.join(BUILD_DIR, "python_packages"))


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FA_MLIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FA_MLIR_KERNEL_DIR", raising=False)


@pytest.fixture
def compiler():
    """fa_mlir.compiler with its native module; skipped without it unless
    FA_MLIR_REQUIRE_NATIVE=1 (scripts/check.sh sets it), then failed."""
    from fa_mlir import compiler as c
    if not c.available():
        if os.environ.get("FA_MLIR_REQUIRE_NATIVE") == "1":
            pytest.fail("FA_MLIR_REQUIRE_NATIVE=1 but the native module does not import: "
                        + str(_why()))
        pytest.skip("the native module _fa_mlir_compiler is not built")
    return c


def _why():
    from fa_mlir import compiler as c
    try:
        c.native()
    except Exception as e:  # noqa: BLE001 - reported verbatim
        return e
    return None


@pytest.fixture
def fa_opt():
    path = os.path.join(BUILD_DIR, "bin", "fa-opt")
    if not os.path.exists(path):
        pytest.skip("no %s" % path)
    return path
