#!/usr/bin/env python3
"""Compiles the kernels the GPU tests need (cases.needed_configs()) into a
kernel directory, on the compiler machine:

    python3 python_bindings/tests/gpu/aot_kernels.py --out build/aot-gpu-tests
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (puts python_bindings on sys.path)
from fa_mlir import compiler  # noqa: E402
from fa_mlir.kernels import KernelDir, describe  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    version = compiler.version()
    target = KernelDir(a.out)
    start = time.perf_counter()
    todo = cases.needed_configs()
    for config in todo:
        t0 = time.perf_counter()
        hit = target.lookup(config)
        if hit and hit[2]["compiler_version"] == version:
            continue
        if hit:  # From another compiler: replace it.
            import shutil
            shutil.rmtree(target.entry_path(config))
        target.store(config, compiler.compile(config.spec,
                                              options=config.pipeline_options()).plan(), version)
        print("  %5.2f s  %s" % (time.perf_counter() - t0, describe(config)), flush=True)
    target.write_index(version)
    print("%d kernels in %s (%.0f s), compiler %s" % (len(todo), a.out,
                                                      time.perf_counter() - start, version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
