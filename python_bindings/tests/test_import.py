"""The runtime half imports without torch and without the native module."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)


def run(code, **env):
    full = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, FA_MLIR_NATIVE_DIR="/nonexistent", **env)
    # A stand-in torch that fails loudly if anything imports it.
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=60)


def test_import_needs_neither_torch_nor_compiler():
    r = run("import sys\n"
            "sys.modules['torch'] = None\n"           # import torch -> ImportError
            "sys.modules['_fa_mlir_compiler'] = None\n"
            "import fa_mlir, fa_mlir.runtime, fa_mlir.kernels, fa_mlir.compiler, fa_mlir.aot\n"
            "from fa_mlir.runtime import LaunchPlan\n"
            "assert not fa_mlir.compiler.available()\n"
            "print('ok')\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_compiler_calls_without_module_explain_how_to_build():
    r = run("import sys\n"
            "sys.modules['_fa_mlir_compiler'] = None\n"
            "from fa_mlir import compiler, CompilerUnavailableError\n"
            "try:\n"
            "    compiler.compile('module {}')\n"
            "except CompilerUnavailableError as e:\n"
            "    print(e)\n")
    assert r.returncode == 0, r.stderr
    assert "pip install ./python_bindings" in r.stdout
    assert "FA_ENABLE_PYTHON" in r.stdout


def test_attention_without_torch_says_so():
    r = run("import sys\n"
            "sys.modules['torch'] = None\n"
            "import fa_mlir\n"
            "try:\n"
            "    fa_mlir.attention\n"
            "except ImportError as e:\n"
            "    print('ImportError')\n")
    assert r.returncode == 0, r.stderr
    assert "ImportError" in r.stdout
